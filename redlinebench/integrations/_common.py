"""Helpers every bridge shares: reading one task directory with the task loader."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import TaskError


def load_single_task(task_dir: str | Path) -> Any:
    """Read one task directory (``redline-s…`` name) with the task loader; all problems in one error."""
    from ..tasks import read_task

    task_dir = Path(task_dir)
    if not task_dir.is_dir():
        raise TaskError("task directory not found", path=task_dir)
    problems: list[Any] = []
    task = read_task(task_dir, problems)
    if task is None:
        errors = [p for p in problems if getattr(p, "severity", "error") == "error"] or problems
        text = "; ".join(
            f"{getattr(p, 'path', task_dir)}: "
            f"{getattr(p, 'field', None) + ': ' if getattr(p, 'field', None) else ''}{getattr(p, 'message', p)}"
            for p in errors
        )
        raise TaskError(f"not a valid task: {text or 'unreadable'}")
    return task


@lru_cache(maxsize=512)
def cached_task(task_dir: str) -> Any:
    """``load_single_task`` memoised by path (samples of one eval share their tasks)."""
    return load_single_task(task_dir)
