"""Text and tables that fit the terminal: one rule for every message and table the CLI prints.

Messages (:func:`echo`, :func:`print_message`, both through :func:`wrap_text`) wrap at the
terminal's width at spaces only: a word, a path or a model name (``anthropic/claude-sonnet-4-5``)
is never split, and output to a pipe or a file is not wrapped at all (nothing cuts it there).

rich squeezes a table wider than the console by shrinking every column, which first folds the
names into nothing (an 80-column terminal showed a leaderboard without its model column). Here a
table is fitted before it is drawn: numbers are never cut, long headers give way to short ones,
then the least important columns are left out (and named under the table) until every name fits
on one line, and only then do the columns marked ``shrink`` (names, ids) wrap to what is left.
At 80 columns and more no number is cut.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from dataclasses import dataclass
from typing import Any, Sequence, TextIO

#: What a column costs besides its text in rich's default box: one space each side and a rule.
_CELL_EXTRA = 3
#: Where output is not a terminal (a pipe, a log) tables are drawn this wide: nothing is squeezed.
PIPE_WIDTH = 160


_INDENT = re.compile(r"[ ]*")


def wrap_text(text: str, width: int | None, hang: int | None = None) -> str:
    """``text`` with each line longer than ``width`` broken at spaces (``None``: unchanged).

    A continuation is indented like its line, or ``hang`` spaces when given. A run of characters
    without a space (a model name, a path, a URL) is never broken: one longer than the line
    stands on a line of its own.
    """
    if not width or width < 20:
        return text
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        indent = _INDENT.match(line).group()  # type: ignore[union-attr]  (matches always)
        more = indent if hang is None else " " * hang
        out.extend(textwrap.wrap(line[len(indent):], width, initial_indent=indent, subsequent_indent=more,
                                 break_long_words=False, break_on_hyphens=False, expand_tabs=False) or [line])
    return "\n".join(out)


def stream_width(stream: TextIO) -> int | None:
    """The columns of the terminal ``stream`` writes to, or ``None`` (a pipe, a file, a test runner)."""
    try:
        if not stream.isatty():
            return None
        columns = os.environ.get("COLUMNS", "")
        return int(columns) if columns.isdigit() and int(columns) > 0 else os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return None


def echo(message: str = "", *, err: bool = False, nl: bool = True, hang: int | None = None) -> None:
    """Print one message (stdout, or stderr with ``err``) wrapped to the terminal: what every CLI
    message, warning and error goes through (``hang``: see :func:`wrap_text`). Data (a
    document's text, JSON) is not a message."""
    import click

    click.echo(wrap_text(message, stream_width(sys.stderr if err else sys.stdout), hang), err=err, nl=nl)


def warn(message: str) -> None:
    """``warning: MESSAGE`` on stderr, wrapped."""
    echo(f"warning: {message}", err=True)


def print_message(console: Any, message: str, style: str | None = None) -> None:
    """A plain-text message on a rich ``console`` by the same rule as :func:`echo`, at the console's
    width (rich's own wrap is not asked: it folds a word longer than the line, this keeps it whole)."""
    console.print(wrap_text(message, console.width), style=style, markup=False, highlight=False, soft_wrap=True)


@dataclass(frozen=True)
class Col:
    """One column. ``drop``: 0 never left out, higher numbers are left out first when the table is
    too wide, columns of the same number together. ``shrink``: may wrap down to ``min_width`` (names); other columns keep their width.
    ``short``: the header used when the full one does not fit."""

    name: str
    justify: str = "right"
    drop: int = 0
    shrink: bool = False
    min_width: int = 8
    short: str | None = None

    def header(self, short: bool) -> str:
        return (self.short or self.name) if short else self.name


def table_width(console: Any) -> int:
    """The width to fit at: the terminal's, or :data:`PIPE_WIDTH` when writing to a pipe or file."""
    return console.width if console.is_terminal else max(console.width, PIPE_WIDTH)


def wide_enough(console: Any) -> Any:
    """``console``, or one writing to the same file at :func:`table_width` (rich never prints wider
    than its console, so a pipe's 80 columns would squeeze the table)."""
    from rich.console import Console

    width = table_width(console)
    return console if width <= console.width else Console(file=console.file, width=width, no_color=console.no_color)


def fit_columns(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int) -> tuple[list[int], bool, list[int]]:
    """``(kept column indexes, short headers?, widths)`` for a table of ``rows`` drawn in ``width``."""
    def natural(i: int, short: bool) -> int:
        texts = [cols[i].header(short), *(str(r[i]) for r in rows)]
        return max(len(line) for text in texts for line in (text.splitlines() or [""]))

    def least(i: int, short: bool) -> int:  # a name column wraps at spaces only: never below its longest word
        full = natural(i, short)
        words = max((len(w) for r in rows for w in str(r[i]).split()), default=0)
        return min(full, max(cols[i].min_width, len(cols[i].header(short)), words)) if cols[i].shrink else full

    def folded(i: int, short: bool) -> int:  # the last resort: a name folded rather than a number cut
        return min(natural(i, short), max(cols[i].min_width, len(cols[i].header(short))))

    def total(kept: list[int], short: bool, each: Any) -> int:
        return sum(each(i, short) + _CELL_EXTRA for i in kept) + 1

    kept = list(range(len(cols)))
    short = total(kept, False, natural) > width
    levels = sorted({c.drop for c in cols if c.drop}, reverse=True)
    while total(kept, short, natural) > width and levels:  # a name on one line beats a minor column
        level = levels.pop(0)  # columns of one level go together (side A with side B)
        kept = [i for i in kept if cols[i].drop != level]
    widths = [natural(i, short) for i in kept]
    spare = width - total(kept, short, natural)
    for floor in (least, folded):  # shrink the name columns, widest first: to their longest word, then fold
        for pos in sorted((p for p, i in enumerate(kept) if cols[i].shrink), key=lambda p: -widths[p]):
            if spare >= 0:
                break
            cut = max(0, min(widths[pos] - floor(kept[pos], short), -spare))
            widths[pos] -= cut
            spare += cut
    return kept, short, widths


def fit_table(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int, *, title: str | None = None,
              **table_kwargs: Any) -> tuple[Any, list[str]]:
    """A rich ``Table`` of ``rows`` that fits ``width`` columns, and the names of the columns left out
    (print :func:`left_out_note` under it). Cells are plain text (no markup is read from data)."""
    from rich.table import Table
    from rich.text import Text

    kept, short, widths = fit_columns(cols, rows, width)
    table = Table(title=title, **table_kwargs)
    for i, w in zip(kept, widths):
        col = cols[i]
        table.add_column(col.header(short), justify=col.justify, width=w, no_wrap=not col.shrink,
                         overflow="fold" if col.shrink else "ellipsis")
    for row in rows:  # a name column's cells wrap at spaces (wrap_text), never inside a name
        table.add_row(*(Text(wrap_text(str(row[i]), w) if cols[i].shrink else str(row[i]))
                        for i, w in zip(kept, widths)))
    return table, [c.name for i, c in enumerate(cols) if i not in kept]


def left_out_note(hidden: Sequence[str], width: int, more: str = "") -> str | None:
    """``left out at 80 columns: side A, side B (a wider terminal shows them)``, or None."""
    if not hidden:
        return None
    return f"left out at {width} columns: {', '.join(hidden)} (a wider terminal shows them{'; ' + more if more else ''})"


def print_fitted(console: Any, cols: Sequence[Col], rows: Sequence[Sequence[str]], *, title: str | None = None,
                 more: str = "", **table_kwargs: Any) -> list[str]:
    """Fit, print and name what was left out, on ``console``; returns the columns left out."""
    console = wide_enough(console)
    width = console.width
    table, hidden = fit_table(cols, rows, width, title=title, **table_kwargs)
    console.print(table)
    note = left_out_note(hidden, width, more)
    if note:
        print_message(console, note)
    return hidden
