"""``redlinebench verify``: the Harbor verifier (runs inside the container via tests/test.sh)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .._common import load_single_task
from ._keys import missing_keys
from ._layout import VERIFIER_LOGS, HarborError, _atomic_write


@dataclass(frozen=True)
class VerifyOutcome:
    status: str
    reward: float | None
    grade_path: Path
    reward_path: Path | None


#: Where Harbor's verifier expects reward.txt: only used when ``/logs`` exists (inside its container).
HARBOR_LOGS = Path(VERIFIER_LOGS)


def default_logs(task_dir: str | Path) -> Path:
    """``verify``'s logs folder when none is given: Harbor's ``/logs/verifier`` inside a Harbor
    container (``/logs`` exists), else ``./verify-logs/<task folder name>`` (never a folder at the
    filesystem root of a user's machine)."""
    if HARBOR_LOGS.parent.is_dir():
        return HARBOR_LOGS
    return Path("verify-logs") / Path(task_dir).resolve().name


def verify(
    task_dir: str | Path,
    output: str | Path,
    logs: str | Path,
    *,
    judges: str = "panel",
    model: str | None = None,
    trial: int = 1,
    judge_api_base: str | None = None,
) -> VerifyOutcome:
    """Grade ``output`` for the task in ``task_dir``; write Harbor's reward and our grade.json.

    A gate failure is a graded 0 (reward written). Judging that could not finish is *not* a 0:
    grade.json records it and no reward file is written, so Harbor reports the trial as failed
    instead of averaging a fake score. A judge without its provider key stops the verifier
    before grading, with the variables to set (:class:`HarborError`, no reward written).
    """
    import asyncio

    from ...judge import create_judges, grade_trial

    task = load_single_task(task_dir)
    logs = Path(logs)
    logs.mkdir(parents=True, exist_ok=True)
    output = Path(output)
    panel = create_judges(judges, api_base=judge_api_base)
    missing = missing_keys(panel)
    if missing:  # Harbor passes an unset host key as "": stop before a run whose every judge call fails
        (logs / "reward.txt").unlink(missing_ok=True)
        wanted = "; ".join(f"{name} needs {' or '.join(keys)}" for name, keys in missing.items())
        raise HarborError(f"the judges ({judges}) have no provider key in the verifier environment: {wanted}. "
                          "Set the key(s) on the host running Harbor (task.toml [verifier].env passes them "
                          "through), or export with --judges heuristic for a key-free, unpublishable check")
    model = model or os.environ.get("REDLINEBENCH_MODEL") or "harbor-agent"
    # trial_dir=logs: grade_trial writes grade.json, annotated_view.md and judges/*.json there.
    grade = asyncio.run(grade_trial(task, output, panel, model=model, trial=trial, run_dir=None, cache=False,
                                    trial_dir=logs))
    if output.is_file():
        _atomic_write(logs / "redline.docx", output.read_bytes())
    grade_path = logs / "grade.json"
    if grade.status in ("graded", "gate_failed"):
        reward_path = logs / "reward.txt"
        _atomic_write(reward_path, f"{float(grade.weighted):.6f}\n")
        return VerifyOutcome(grade.status, float(grade.weighted), grade_path, reward_path)
    (logs / "reward.txt").unlink(missing_ok=True)
    return VerifyOutcome(grade.status, None, grade_path, None)
