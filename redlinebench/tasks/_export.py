"""Task folders on disk, one command away: ``tasks export ID... --out DIR`` copies each selected
task's folder (Harbor layout: task.toml, instruction.md, environment/, tests/) so ``verify`` and
``mcp --task-dir`` can be pointed at it, whatever the source (the embedded set lives inside the
installed package; the Hub snapshot in a cache)."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..errors import ConfigError
from ._taskset import TaskSet


def export_task_folders(taskset: TaskSet, task_ids: list[str], out: str | Path, *, force: bool = False) -> list[Path]:
    """Copy the folders of ``task_ids`` to ``out/<task_id>``; returns the folders written.

    Every id is checked before anything is copied (an unknown id names the close ones); an existing
    ``out/<task_id>`` is refused unless ``force`` (then replaced), so nothing is overwritten without a
    word."""
    if not task_ids:
        raise ConfigError("name at least one task id (see `redlinebench tasks list`)")
    tasks = []
    for task_id in dict.fromkeys(task_ids):
        if task_id not in taskset:
            try:
                taskset.get(task_id)
            except Exception as exc:  # noqa: BLE001  the TaskError's words, as a typed mistake
                raise ConfigError(str(exc)) from None
        tasks.append(taskset.get(task_id))
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise ConfigError("--out is a file; name a folder", path=out)
    taken = [out / t.task_id for t in tasks if (out / t.task_id).exists()]
    if taken and not force:
        raise ConfigError(f"{', '.join(str(p) for p in taken)} already exist(s); pass --force to replace, or "
                          "choose another --out")
    written = []
    for task in tasks:
        dest = out / task.task_id
        if dest.exists():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(task.root, dest, ignore=shutil.ignore_patterns("__pycache__", ".*"))
        written.append(dest)
    return written
