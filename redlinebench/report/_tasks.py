"""The tasks behind a run, when its data source is on this machine.

They add what grade files do not carry: the attorney's golden redline, the task author (whose
edits are "this turn's"), the parties, the brief and the attorneys' notes on each rubric. A run
whose source is elsewhere still gets a full report, just without those.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import RedlineBenchError
from ._load import RunData, config_value


def load_run_tasks(run: RunData) -> tuple[dict[str, Any], str | None]:
    """``({task_id: Task}, None)`` or ``({}, why not)``; never raises for a missing or bad source."""
    path = config_value(run.config, "data.path", "source.path", "data_source.path")
    if path is None and isinstance(run.config.get("source"), str):
        path = run.config["source"]
    if not isinstance(path, str):
        return {}, "the run does not record where its tasks came from"
    root = Path(path)
    try:
        present = root.is_dir()
    except OSError:
        present = False
    if not present:
        return {}, f"the run's task source {path} is not on this machine"
    try:
        from ..tasks import load_tasks
    except ImportError as exc:
        return {}, f"the task loader is not available ({exc})"
    try:
        taskset = load_tasks(root)
    except RedlineBenchError as exc:
        return {}, f"the run's tasks could not be read: {exc}"
    wanted = {t.task_id for t in run.trials}
    return {t.task_id: t for t in taskset.tasks if t.task_id in wanted}, None
