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


#: From this width on the bar is long and the words are spelled out; below it, a compact line.
WIDE = 120
#: What the line holds besides the description and the bar, at most: ``117/117 0:01:19 ETA 0:00:40 ``.
_CLOCKS = 1 + 7 + 1 + 3 + 1 + 7 + 1


def progress_fields(description: str, state: Progress, width: int) -> dict[str, str]:
    """The texts of one progress line that fits ``width`` columns: the description shortened with an
    ellipsis (never the numbers), costs and failures in a few words."""
    limits = limits_text(state, quiet_zero=width < WIDE)
    if width >= WIDE:
        tail = f"cost ${state.cost_usd:.4f}  failures {state.failures}" + (f"  {limits}" if limits else "")
    else:
        tail = f"${state.cost_usd:.4f}, {state.failures} failed" + (f", {limits}" if limits else "")
    count = 2 * len(str(state.total)) + 1
    room = width - bar_width(width) - count - _CLOCKS - len(tail) - 2
    label = description if len(description) <= room else description[:max(0, room - 1)] + "…"
    return {"label": label if room > 3 else "", "tail": tail}


def bar_width(width: int) -> int:
    return 40 if width >= WIDE else 10


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
        TextColumn("[bold]{task.fields[label]}"),
        BarColumn(bar_width=bar_width(console.width)),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"), TimeRemainingColumn(),
        TextColumn("{task.fields[tail]}"),
        console=console,
        transient=False,
    )
    handle = None

    def update(state: Progress) -> None:
        nonlocal handle
        fields = progress_fields(description, state, console.width)
        if handle is None:
            handle = bar.add_task(description, total=state.total, completed=state.done, **fields)
        bar.update(handle, total=state.total, completed=state.done, **fields)

    with bar:
        yield update


def limits_text(state: Progress, *, quiet_zero: bool = False) -> str:
    """The adaptive concurrency in a few words: ``limit 12/32, 429s 3`` (summed over endpoints).
    ``quiet_zero``: leave out ``429s 0`` (a narrow line has better use for the room)."""
    rows = state.rate_limits.values()
    if not rows:
        return ""
    limit, ceiling, n429 = (sum(r[k] for r in rows) for k in ("limit", "max", "n_429"))
    return f"limit {limit}/{ceiling}" + ("" if quiet_zero and not n429 else f", 429s {n429}")


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
