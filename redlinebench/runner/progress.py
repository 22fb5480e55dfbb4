"""Progress with ETA, running cost and failures, on stderr (stdout stays for results).

On a terminal: a rich progress bar. Elsewhere (CI logs, pipes): a plain line at most every
``LOG_EVERY_S`` seconds and at the end, so logs stay readable.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from .scheduler import Progress

LOG_EVERY_S = 10.0


def _eta(state: Progress, started: float, done_at_start: int) -> str:
    done_now = state.done - done_at_start
    left = state.total - state.done
    if done_now <= 0 or left <= 0:
        return "-" if left else "0s"
    secs = (time.monotonic() - started) / done_now * left
    return f"{secs / 60:.1f}m" if secs >= 120 else f"{secs:.0f}s"


@contextmanager
def progress_bar(description: str, *, enabled: bool = True) -> Iterator[Callable[[Progress], None]]:
    if not enabled:
        yield lambda _state: None
        return
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield _plain_logger(description)
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    bar = RichProgress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"), TimeRemainingColumn(),
        TextColumn("cost ${task.fields[cost]:.4f}"),
        TextColumn("failures {task.fields[failures]}"),
        TextColumn("{task.fields[limits]}"),
        console=console,
        transient=False,
    )
    handle = None

    def update(state: Progress) -> None:
        nonlocal handle
        if handle is None:
            handle = bar.add_task(description, total=state.total, completed=state.done, cost=0.0, failures=0,
                                  limits="")
        bar.update(handle, total=state.total, completed=state.done, cost=state.cost_usd, failures=state.failures,
                   limits=limits_text(state))

    with bar:
        yield update


def limits_text(state: Progress) -> str:
    """The adaptive concurrency in a few words: ``limit 12/32, 429s 3`` (summed over endpoints)."""
    rows = state.rate_limits.values()
    if not rows:
        return ""
    limit, ceiling, n429 = (sum(r[k] for r in rows) for k in ("limit", "max", "n_429"))
    return f"limit {limit}/{ceiling}, 429s {n429}"


def _plain_logger(description: str) -> Callable[[Progress], None]:
    started = time.monotonic()
    last = [0.0]
    first_done: list[int] = []

    def update(state: Progress) -> None:
        if not first_done:
            first_done.append(state.done)
        now = time.monotonic()
        if state.done < state.total and now - last[0] < LOG_EVERY_S:
            return
        last[0] = now
        print(f"{description}: {state.done}/{state.total} trials, elapsed {now - started:.0f}s, "
              f"ETA {_eta(state, started, first_done[0])}, cost ${state.cost_usd:.4f}, failures {state.failures}"
              + (f", {limits_text(state)}" if state.rate_limits else ""),
              file=sys.stderr, flush=True)

    return update
