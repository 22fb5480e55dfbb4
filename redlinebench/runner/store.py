"""What is already on disk for a trial, so a resumed run redoes nothing finished."""

from __future__ import annotations

import shutil
from enum import Enum
from pathlib import Path
from typing import Any

from ..agent.base import NO_OUTPUT
from . import paths
from .atomic import read_json


class TrialState(str, Enum):
    TODO = "todo"                # nothing published (or an errored attempt to retry)
    NEEDS_GRADE = "needs_grade"  # published; grade.json missing, or its judging not finished
    FINISHED = "finished"        # nothing left to do


def grade_is_final(grade: Any) -> bool:
    """Whether a grade.json needs no more judging: it was scored (graded, or failed the gate).

    ``judging_incomplete`` (a judge never answered) and a grading ``errored`` are not final:
    ``--resume`` and ``redlinebench score`` grade them again, and the judge cache means only the
    judges that failed are called.
    """
    from ..scoring._grade import SCORED_STATUSES

    return isinstance(grade, dict) and grade.get("status") in SCORED_STATUSES


def trial_state(trial_dir: Path, *, want_grade: bool) -> TrialState:
    """Classify a published trial directory.

    A trial whose agent errored (provider down after all retries, unreadable input) counts as
    TODO so ``--resume`` tries it again; its old directory is removed by :func:`discard`. A trial
    with an output is never TODO, even when its metrics.json was damaged afterwards: the redline
    (and its grade) are finished work that a re-run would throw away and pay for again.
    """
    metrics = read_json(trial_dir / paths.METRICS)
    # an agent that declared it had nothing to hand in (NO_OUTPUT) is finished: its grade is a gate failure
    has_output = (trial_dir / paths.REDLINE).is_file() or (
        isinstance(metrics, dict) and metrics.get("end_reason") == NO_OUTPUT and metrics.get("status") != "errored")
    if not has_output or (isinstance(metrics, dict) and metrics.get("status") == "errored"):
        return TrialState.TODO
    if want_grade:
        return TrialState.FINISHED if grade_is_final(read_json(trial_dir / paths.GRADE)) else TrialState.NEEDS_GRADE
    return TrialState.FINISHED


def read_metrics(trial_dir: Path) -> dict:
    """A trial's metrics.json as a dict; ``{}`` when it is missing or damaged."""
    data = read_json(trial_dir / paths.METRICS)
    return data if isinstance(data, dict) else {}


def discard(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)


def clean_partial(layout: paths.RunLayout) -> int:
    """Remove staging directories left by a killed run; returns how many trials they held."""
    if not layout.partial.exists():
        return 0
    n = sum(1 for p in layout.partial.glob("*/*/*") if p.is_dir())
    shutil.rmtree(layout.partial)
    return n


def sweep_temporaries(folder: Path, *, recursive: bool = True) -> int:
    """Delete the ``.<name>.<random>.tmp`` files an atomic write leaves when its process is killed
    mid-write. Only call this under the run's lock: then no live writer owns them."""
    if not folder.is_dir():
        return 0
    found = folder.rglob(".*.tmp") if recursive else folder.glob(".*.tmp")
    n = 0
    for tmp in found:
        try:
            if tmp.is_file():
                tmp.unlink()
                n += 1
        except OSError:
            continue
    return n
