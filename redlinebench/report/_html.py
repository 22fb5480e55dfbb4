"""A tiny HTML builder that escapes by default.

Everything shown in a report comes from documents, models and judges, so it is hostile. The
only way to put text on a page is through :func:`esc` or :func:`el`, which escape anything that
is not already :class:`Markup` (a string this module produced). No template engine, no ``|safe``.
"""

from __future__ import annotations

import math
import re
from html import escape
from typing import Iterable


class Markup(str):
    """A string that is already safe HTML (produced by this module)."""

    __slots__ = ()


_EMPTY = Markup("")


def esc(value: object) -> Markup:
    """Escape *value* unless it is already :class:`Markup`; ``None`` becomes empty."""
    if value is None:
        return _EMPTY
    if isinstance(value, Markup):
        return value
    if type(value) is str:
        return Markup(_escape(value))
    if isinstance(value, (list, tuple)) or _is_gen(value):
        return join(value)  # type: ignore[arg-type]
    return Markup(_escape(str(value)))


def _is_gen(value: object) -> bool:
    return hasattr(value, "__next__") and hasattr(value, "__iter__")


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
# anything _clean drops or escape() rewrites: text without any is returned as it is
_SPECIAL = re.compile("[&<>\"'\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def _clean(text: str) -> str:
    """Drop characters HTML text cannot carry (C0 controls except tab/newline, DEL, lone surrogates)."""
    return _CONTROL.sub("", text)


def _escape(text: str) -> str:
    """``escape(_clean(text), quote=True)``, with one scan for the common text that needs neither."""
    if _SPECIAL.search(text) is None:
        return text
    return escape(_clean(text), quote=True)


def join(parts: Iterable[object]) -> Markup:
    out = []
    for part in parts:
        if part is None:
            continue
        out.append(part if isinstance(part, Markup) else esc(part))
    return Markup("".join(out))


_VOID = {"br", "hr", "meta", "img", "input", "col", "link", "wbr"}
_ATTR_NAMES: dict[str, str] = {}   # keyword -> attribute name (keywords come from code: a small set)


def _attr_name(name: str) -> str:
    if name.endswith("_"):
        name = name[:-1]
    return name.replace("_", "-")


def attrs(mapping: dict[str, object]) -> Markup:
    out = []
    for key, value in mapping.items():
        if value is None or value is False:
            continue
        name = _ATTR_NAMES.get(key)
        if name is None:
            name = _ATTR_NAMES[key] = _attr_name(key)
        if value is True:
            out.append(f" {name}")
        else:
            if isinstance(value, float):
                value = num(value)
            out.append(f' {name}="{_escape(value if type(value) is str else str(value))}"')
    return Markup("".join(out))


def el(name: str, /, *children: object, **attributes: object) -> Markup:
    """``el("td", text, class_="num")`` -> ``<td class="num">text</td>`` with *text* escaped."""
    opening = f"<{name}{attrs(attributes)}>" if attributes else f"<{name}>"
    if name in _VOID:
        return Markup(opening)
    return Markup(f"{opening}{join(children)}</{name}>")


def num(value: float, digits: int = 2) -> str:
    """Compact number for SVG coordinates."""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return text if text not in {"-0", ""} else "0"


# ---------------------------------------------------------------- display formats

def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def score100(value: object, digits: int = 1) -> str:
    """A 0-1 score as 0-100 text (``0.4633`` -> ``46.3``); ``—`` when missing."""
    if not is_number(value):
        return "—"
    return f"{100 * float(value):.{digits}f}"  # type: ignore[arg-type]


def pct(value: object, digits: int = 0) -> str:
    if not is_number(value):
        return "—"
    return f"{100 * float(value):.{digits}f}%"  # type: ignore[arg-type]


def rate(value: object) -> str:
    """A share (0-1) as a percentage with one decimal, the one form of every rate on the pages (``0.786`` -> ``78.6%``)."""
    return pct(value, 1)


def integer(value: object) -> str:
    """A count, whole (``7``); a median between two counts rounds half up (``3.5`` -> ``4``)."""
    if not is_number(value):
        return "—"
    return str(int(math.floor(float(value) + 0.5)))  # type: ignore[arg-type]


def mean_count(value: object) -> str:
    """The mean of a count over trials, always with one decimal (``7.5``, ``6.0``): not a count itself."""
    if not is_number(value):
        return "—"
    return f"{float(value):.1f}"  # type: ignore[arg-type]


def fixed(value: object, digits: int = 2) -> str:
    """A score with a fixed number of decimals (``0.50``, ``1.00``), never shortened to ``1``."""
    if not is_number(value):
        return "—"
    return f"{float(value):.{digits}f}"  # type: ignore[arg-type]


def money(value: object) -> str:
    if not is_number(value):
        return "—"
    v = float(value)  # type: ignore[arg-type]
    if v == 0:
        return "$0"
    if abs(v) < 0.01:
        return f"${v:.4f}"
    if abs(v) < 100:
        return f"${v:.2f}"
    return f"${v:,.0f}"


def count(value: object) -> str:
    if not is_number(value):
        return "—"
    v = float(value)  # type: ignore[arg-type]
    if abs(v) >= 1_000_000:
        return f"{v / 1_000_000:.1f}M"
    if abs(v) >= 10_000:
        return f"{v / 1000:.0f}k"
    if abs(v) >= 1000:
        return f"{v / 1000:.1f}k"
    return f"{v:.0f}" if v == int(v) else f"{v:.1f}"


def seconds(value: object) -> str:
    if not is_number(value):
        return "—"
    v = float(value)  # type: ignore[arg-type]
    if v < 10:
        return f"{v:.1f} s"
    if v < 600:
        return f"{v:.0f} s"
    return f"{v / 60:.1f} min"


def plain(value: object, digits: int = 2) -> str:
    if not is_number(value):
        return "—"
    v = float(value)  # type: ignore[arg-type]
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.{digits}f}"


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: object) -> tuple:
    """Sort key that reads digit runs as numbers: ``k2`` before ``k10``, ``k04`` between ``k03`` and ``k05``.

    The split alternates text and number, so two keys compare text with text and number with number;
    the text itself breaks ties (``k4`` and ``k04``)."""
    s = str(text)
    parts = _DIGITS.split(s)
    return (tuple(int(p) if i % 2 else p.casefold() for i, p in enumerate(parts)), s)


def slug_id(*parts: object) -> str:
    """A stable HTML id from arbitrary strings (ids never carry raw user text)."""
    text = "-".join(str(p) for p in parts)
    out = []
    for ch in text:
        if ch.isascii() and (ch.isalnum() or ch in "-_"):
            out.append(ch)
        else:
            out.append(f"_{ord(ch):x}_")
    return "x-" + "".join(out)
