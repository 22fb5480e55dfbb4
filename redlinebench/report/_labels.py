"""Short labels that never merge two names: a chart or column too narrow for a model name gets
the shortest abbreviation that still tells it apart from every other name shown with it.

Model names differ mostly at the end (``...-20250929`` vs ``...-20250514``), so a name is cut
in the middle: as much of the head as fits, an ellipsis, then enough of the tail to be unique.
The pages show the full name beside it (a key, and on hover).
"""

from __future__ import annotations

from typing import Sequence

ELLIPSIS = "…"


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _common_suffix(a: str, b: str) -> int:
    return _common_prefix(a[::-1], b[::-1])


def _abbreviate(name: str, others: Sequence[str], budget: int) -> str:
    """``head…tail`` of at most *budget* characters unique among *others*; longer if it must be."""
    limits = [(_common_prefix(name, o), _common_suffix(name, o)) for o in others if o != name]
    for size in range(max(2, budget), len(name)):
        for tail in range(0, size):          # the fewest tail characters first: the head reads best
            head = size - 1 - tail
            if head < 1:
                break
            if all(head > p or tail > s for p, s in limits):
                head, tail = _at_word(name, head, tail, limits)
                return name[:head] + ELLIPSIS + (name[-tail:] if tail else "")
    return name


_SEPARATORS = " /-_.:"
_OPENERS = "[("


def _at_word(name: str, head: int, tail: int, limits: list[tuple[int, int]]) -> tuple[int, int]:
    """Start the tail at a word (``…20250929``, ``…[run-b]`` rather than ``…9``, ``…b]``) when the
    head can give up at most :data:`_MAX_SHIFT` characters and the label stays unique."""
    if tail == 0:
        return head, tail
    start = len(name) - tail
    starts = sorted({i + 1 for i in range(max(0, start - _MAX_SHIFT - 1), start) if name[i] in _SEPARATORS}
                    | {i for i in range(max(0, start - _MAX_SHIFT), start) if name[i] in _OPENERS})
    for new_start in starts:                 # the longest word that fits first
        extra = start - new_start
        h, t = head - extra, tail + extra
        if extra and h >= 4 and all(h > p or t > s for p, s in limits):
            return h, t
    return head, tail


_MAX_SHIFT = 10


def short_labels(names: Sequence[str], max_chars: int) -> list[str]:
    """One label per name, each at most *max_chars* where that keeps the labels distinct.

    A name that fits is kept whole; a longer one is cut in the middle as little as needed. Names
    that are equal stay equal (they are the same thing); different names never share a label.
    """
    distinct = list(dict.fromkeys(names))
    out: dict[str, str] = {}
    for name in distinct:
        out[name] = name if len(name) <= max_chars else _abbreviate(name, distinct, max_chars)
    if len(set(out.values())) != len(out):   # e.g. an abbreviation equal to another, shorter full name
        out = {name: name for name in distinct}
    return [out[n] for n in names]
