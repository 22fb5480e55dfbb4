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


def source_root(run: RunData, value: str | None = None) -> Path | None:
    """Where the run's tasks are on this machine: the shipped set for ``embedded`` (whatever
    folder an older config.json names), a relative path from the run directory, else as recorded."""
    if config_value(run.config, "data.kind", "source.kind") == "embedded" or value == "embedded":
        from ..config import embedded_benchmark_dir
        return embedded_benchmark_dir()
    if value is None:
        value = config_value(run.config, "data.path", "source.path", "data_source.path")
        if value is None and isinstance(run.config.get("source"), str):
            value = run.config["source"]
    if not isinstance(value, str) or not value:
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else run.path / path


def load_run_tasks(run: RunData) -> tuple[dict[str, Any], str | None]:
    """``({task_id: Task}, None)`` or ``({}, why not)``; never raises for a missing or bad source."""
    root = source_root(run)
    if root is None:
        return {}, "the run does not record where its tasks came from"
    path = str(root)
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
