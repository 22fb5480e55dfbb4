"""A rich progress bar with ETA, running cost and failures (stderr, so stdout stays parseable)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from .scheduler import Progress


@contextmanager
def progress_bar(description: str, *, enabled: bool = True) -> Iterator[Callable[[Progress], None]]:
    if not enabled:
        yield lambda _state: None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    console = Console(stderr=True)
    bar = RichProgress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("elapsed"), TimeElapsedColumn(),
        TextColumn("ETA"), TimeRemainingColumn(),
        TextColumn("cost ${task.fields[cost]:.4f}"),
        TextColumn("failures {task.fields[failures]}"),
        console=console,
        transient=False,
    )
    handle = None

    def update(state: Progress) -> None:
        nonlocal handle
        if handle is None:
            handle = bar.add_task(description, total=state.total, completed=state.done, cost=0.0, failures=0)
        bar.update(handle, total=state.total, completed=state.done, cost=state.cost_usd, failures=state.failures)

    with bar:
        yield update
