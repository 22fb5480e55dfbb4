"""Run-directory layout (docs/ARCHITECTURE.md), in one place.

```
runs/<run_id>/config.json
runs/<run_id>/trials/<model_slug>/<task_id>/<trial>/{redline.docx, transcript.jsonl, metrics.json,
                                                   grade.json, judges/<judge_slug>.json, annotated_view.md}
runs/<run_id>/metrics_summary.json
runs/<run_id>/judge_audit.jsonl
runs/<run_id>/report.html
```
A trial is produced in ``runs/<run_id>/.partial/...`` and renamed into ``trials/`` only once its
redline, transcript and metrics are complete, so ``trials/`` never holds half a trial.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..agent.base import REDLINE, TRANSCRIPT  # noqa: F401  (re-exported layout names)

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

CONFIG = "config.json"
SUMMARY = "metrics_summary.json"
REPORT = "report.html"
AUDIT = "judge_audit.jsonl"
TRIALS = "trials"
PARTIAL = ".partial"

METRICS = "metrics.json"
GRADE = "grade.json"
JUDGES = "judges"
ANNOTATED = "annotated_view.md"


def slug(name: str) -> str:
    """A model or judge string as a directory name: every character outside ``[A-Za-z0-9._-]`` -> ``_``.

    ``..`` and ``.`` alone would escape or alias a directory, so they are escaped as well.
    """
    out = _UNSAFE.sub("_", name)
    if out in {"", ".", ".."}:
        out = out.replace(".", "_") or "_"
    return out


def run_id_for(run_dir: str | Path) -> str:
    """The run id of a run whose folder was named: the folder's name (as a run id may spell it)."""
    return slug(Path(run_dir).expanduser().resolve().name)


def portable(path: str | Path, run_dir: str | Path) -> str:
    """A local path as config.json records it: relative to the run directory (``../../benchmark``),
    or ``~/...`` when the relative form would spell out the home folder; absolute only when neither
    exists (another drive). A run folder is shared without this machine's paths, and a run moved
    together with its data still finds it (:func:`local_path` reads it back)."""
    target = Path(path).expanduser().resolve()
    base = Path(run_dir).expanduser().resolve()
    home = Path.home().resolve()
    in_home = home != Path(home.anchor) and target.is_relative_to(home)
    if in_home and not base.is_relative_to(home):
        return ("~/" + target.relative_to(home).as_posix()).rstrip("/")
    try:
        rel = Path(os.path.relpath(target, base)).as_posix()
    except ValueError:  # no relative path between two drives
        return "~/" + target.relative_to(home).as_posix() if in_home else str(target)
    return rel if rel == "." or rel.startswith("..") else f"./{rel}"


def local_path(recorded: str, run_dir: str | Path) -> Path:
    """A path config.json recorded (see :func:`portable`; older runs recorded absolute paths) on this machine."""
    path = Path(recorded).expanduser()
    return path if path.is_absolute() else (Path(run_dir) / path).resolve()


@dataclass(frozen=True)
class RunLayout:
    """Paths of one run directory; pure (creates nothing)."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / CONFIG

    @property
    def summary(self) -> Path:
        return self.root / SUMMARY

    @property
    def report(self) -> Path:
        return self.root / REPORT

    @property
    def audit(self) -> Path:
        return self.root / AUDIT

    @property
    def trials(self) -> Path:
        return self.root / TRIALS

    @property
    def partial(self) -> Path:
        return self.root / PARTIAL

    def trial_dir(self, model: str, task_id: str, trial: int) -> Path:
        return self.trials / slug(model) / slug(task_id) / str(trial)

    def staging_dir(self, model: str, task_id: str, trial: int) -> Path:
        return self.partial / slug(model) / slug(task_id) / str(trial)
