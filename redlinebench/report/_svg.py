"""Inline SVG charts: grouped bars, a CI forest, heatmaps and a scatter.

Pure functions from numbers to markup (no I/O, no JavaScript). Scores are 0-1 in and 0-100
on the axis. Every mark carries a ``<title>`` so hovering shows the exact number, and every
chart has an accessible name; the pages print the same numbers in tables beside the charts.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ._html import Markup, el, is_number, num
from ._labels import short_labels
from ._palette import ink_on, ramp

FONT = 12
AXIS = "#6B6B6B"
GRID = "#E4E2DC"


CHAR_EM = 0.6   # mean advance of a character in em: a little over the sans fonts' mean, so estimates err wide


def _text_width(text: str, size: float = FONT) -> float:
    return CHAR_EM * size * len(text)


def _chars(max_px: float, size: float = FONT) -> int:
    return max(1, int(max_px / (CHAR_EM * size)))


def _clip(text: str, max_px: float, size: float = FONT) -> str:
    if _text_width(text, size) <= max_px:
        return text
    return text[:max(1, _chars(max_px, size) - 1)] + "…"


@dataclass(frozen=True)
class Names:
    """Names shown in a chart and the label each gets: whole where it fits, else the shortest
    abbreviation unique among them (:func:`short_labels`); ``key`` lists the abbreviated ones."""

    full: Sequence[str]
    labels: Sequence[str]

    @classmethod
    def fit(cls, names: Sequence[str], max_px: float, size: float = FONT) -> "Names":
        return cls(list(names), short_labels(list(names), _chars(max_px, size)))

    @property
    def key(self) -> list[tuple[str, str]]:
        return [(lab, name) for name, lab in dict.fromkeys(zip(self.full, self.labels)) if lab != name]

    def text(self, i: int, x: float, y: float, **kw: object) -> Markup:
        """Label *i* as SVG text; an abbreviated one carries its full name as a hover title."""
        label, name = self.labels[i], self.full[i]
        return el("text", el("title", name) if label != name else None, label, x=num(x), y=num(y), **kw)


def _breaks(text: str, max_px: float) -> list[str]:
    """Split a long name (often without spaces) into lines of *max_px*, after a separator where possible."""
    limit, lines = max(8, _chars(max_px)), []
    while len(text) > limit:
        cut = max(text.rfind(ch, 0, limit) for ch in " /-_.") + 1
        cut = cut if cut > limit // 2 else limit
        lines.append(text[:cut])
        text = text[cut:]
    return [*lines, text]


def _key(names: Names, x: float, y: float, max_w: float) -> tuple[list[Markup], float]:
    """Below a chart, each abbreviated label with its full name (wrapped, never cut)."""
    key = names.key
    if not key:
        return [], 0.0
    parts: list[Markup] = [el("text", "Key", x=num(x), y=num(y + 12), fill=AXIS, font_size="11", font_weight="600")]
    dy = 12.0
    label_w = min(max_w / 2, max(_text_width(lab, 11) for lab, _ in key) + 12)
    for lab, name in key:
        lines = _breaks(name, max_w - label_w)
        dy += 15
        parts.append(el("text", el("title", name), lab, x=num(x), y=num(y + dy), fill="#1B1B1B", font_size="11"))
        for k, line in enumerate(lines):
            parts.append(el("text", line, x=num(x + label_w), y=num(y + dy + 14 * k), fill=AXIS, font_size="11"))
        dy += 14 * (len(lines) - 1)
    return parts, dy + 8


def _svg(width: float, height: float, title: str, *body: object) -> Markup:
    return el(
        "svg",
        el("title", title),
        *body,
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {num(width)} {num(height)}",
        width=num(width),
        height=num(height),
        role="img",
        aria_label=title,
        class_="chart",
        font_size=str(FONT),
    )


def _t(x: float, y: float, text: str, *, anchor: str = "start", cls: str | None = None, **kw: object) -> Markup:
    return el("text", text, x=num(x), y=num(y), text_anchor=anchor, class_=cls, **kw)


def _wrap(text: str, max_px: float, max_lines: int = 3) -> list[str]:
    """Greedy word wrap to *max_px*; the last line is clipped with an ellipsis."""
    words, lines, cur = text.split(), [], ""
    for w in words:
        trial = f"{cur} {w}".strip()
        if _text_width(trial) <= max_px or not cur:
            cur = trial
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    if len(lines) > max_lines:
        lines = lines[:max_lines - 1] + [" ".join(lines[max_lines - 1:])]
    return [_clip(line, max_px) for line in lines] or [""]


@dataclass
class Series:
    """One coloured series: a value (0-1 or None) per category and optional CIs."""

    name: str
    colour: str
    values: Sequence[float | None]
    cis: Sequence[Sequence[float] | None] = field(default_factory=list)


def _y_axis(x0: float, x1: float, y_of: Callable[[float], float]) -> list[Markup]:
    out = []
    for tick in (0, 25, 50, 75, 100):
        y = y_of(tick / 100)
        out.append(el("line", x1=num(x0), x2=num(x1), y1=num(y), y2=num(y), stroke=GRID))
        out.append(_t(x0 - 6, y + 4, str(tick), anchor="end", fill=AXIS))
    return out


def _legend(series: Sequence[Series], x: float, y: float, max_w: float) -> tuple[list[Markup], float, Names]:
    """Swatches with the series' names, flowing onto more rows as needed: a name is cut (uniquely,
    see :class:`Names`) only when it is wider than the whole chart."""
    names = Names.fit([s.name for s in series], max_w - 40)
    items, cx, cy = [], x, y
    for i, s in enumerate(series):
        w = 18 + _text_width(names.labels[i]) + 18
        if cx + w > x + max_w and cx > x:
            cx, cy = x, cy + 18
        items.append(el("rect", x=num(cx), y=num(cy - 9), width="11", height="11", fill=s.colour, rx="2"))
        items.append(names.text(i, cx + 16, cy + 1, fill="#1B1B1B"))
        cx += w
    return items, cy - y + 18, names


def grouped_bars(
    categories: Sequence[str],
    series: Sequence[Series],
    *,
    title: str,
    width: float = 640,
    plot_height: float = 190,
) -> Markup:
    """Vertical bars, one group per category, one bar per series, with optional CI whiskers."""
    left, right, top = 40.0, 10.0, 12.0
    legend: list[Markup] = []
    legend_names = Names([], [])
    if len(series) > 1:
        legend, lh, legend_names = _legend(series, left, top + 6, width - left - right)
        top += lh + 6
    n_cat = max(1, len(categories))
    plot_w = width - left - right
    group_w = plot_w / n_cat
    label_px = group_w - 6
    wrapped = [_wrap(c, label_px) for c in categories]
    bottom = 10.0 + 14.0 * max((len(w) for w in wrapped), default=1)
    key, key_h = _key(legend_names, left, top + plot_height + bottom, width - left - right)
    height = top + plot_height + bottom + key_h

    def y_of(v: float) -> float:
        return top + plot_height * (1 - min(1.0, max(0.0, v)))

    parts: list[Markup] = [*_y_axis(left, width - right, y_of), *key]
    n_s = max(1, len(series))
    bar_w = min(46.0, group_w * 0.78 / n_s)
    for ci, cat in enumerate(categories):
        gx = left + group_w * ci + (group_w - bar_w * n_s) / 2
        for si, s in enumerate(series):
            v = s.values[ci] if ci < len(s.values) else None
            x = gx + bar_w * si
            if not is_number(v):
                parts.append(_t(x + bar_w / 2, y_of(0) - 4, "n/a", anchor="middle", fill=AXIS, font_size="10"))
                continue
            y = y_of(v)  # type: ignore[arg-type]
            tip = f"{s.name} · {cat}: {100 * v:.1f}"  # type: ignore[operator]
            ci_v = s.cis[ci] if ci < len(s.cis) else None
            if ci_v and len(ci_v) == 2 and all(is_number(c) for c in ci_v):
                tip += f" (95% CI {100 * ci_v[0]:.1f}–{100 * ci_v[1]:.1f})"
            parts.append(
                el(
                    "rect",
                    el("title", tip),
                    x=num(x + 1),
                    y=num(y),
                    width=num(max(1.0, bar_w - 2)),
                    height=num(max(0.0, y_of(0) - y)),
                    fill=s.colour,
                    rx="1.5",
                )
            )
            if ci_v and len(ci_v) == 2 and all(is_number(c) for c in ci_v):
                ylo, yhi, cx = y_of(ci_v[0]), y_of(ci_v[1]), x + bar_w / 2
                parts.append(
                    el(
                        "path",
                        d=f"M{num(cx)} {num(ylo)}V{num(yhi)}M{num(cx - 4)} {num(ylo)}h8M{num(cx - 4)} {num(yhi)}h8",
                        stroke="#1B1B1B",
                        stroke_width="1.2",
                        fill="none",
                    )
                )
            if bar_w >= 20:
                label_y = y - 4 if not ci_v else min(y, y_of(ci_v[1]) if is_number(ci_v[1]) else y) - 4
                parts.append(_t(x + bar_w / 2, label_y, f"{100 * v:.0f}", anchor="middle", fill="#1B1B1B", font_size="10.5"))  # type: ignore[operator]
        lx = left + group_w * (ci + 0.5)
        for li, line in enumerate(wrapped[ci]):
            parts.append(_t(lx, y_of(0) + 15 + 14 * li, line, anchor="middle", fill="#1B1B1B"))
    parts.append(el("line", x1=num(left), x2=num(width - right), y1=num(y_of(0)), y2=num(y_of(0)), stroke=AXIS))
    return _svg(width, height, title, *legend, *parts)


@dataclass
class ForestRow:
    label: str
    value: float | None
    ci: Sequence[float] | None
    colour: str
    note: str = ""


def forest(rows: Sequence[ForestRow], *, title: str, width: float = 720) -> Markup:
    """Horizontal bars with 95% CI whiskers, one row per model (leaderboard)."""
    label_w = min(0.42 * width, max(120.0, max((_text_width(r.label) for r in rows), default=0) + 16))
    names = Names.fit([r.label for r in rows], label_w - 16)
    left, right, top, row_h = label_w, 64.0, 22.0, 26.0
    plot_h = top + row_h * max(1, len(rows)) + 8
    key, key_h = _key(names, 8, plot_h, width - 16)
    height = plot_h + key_h
    plot_w = width - left - right

    def x_of(v: float) -> float:
        return left + plot_w * min(1.0, max(0.0, v))

    parts: list[Markup] = []
    for tick in (0, 25, 50, 75, 100):
        x = x_of(tick / 100)
        parts.append(el("line", x1=num(x), x2=num(x), y1=num(top - 4), y2=num(plot_h - 6), stroke=GRID))
        parts.append(_t(x, top - 8, str(tick), anchor="middle", fill=AXIS))
    parts += key
    for i, r in enumerate(rows):
        y = top + row_h * i + row_h / 2
        parts.append(names.text(i, left - 10, y + 4, text_anchor="end", fill="#1B1B1B"))
        if not is_number(r.value):
            parts.append(_t(left + 4, y + 4, "no score", fill=AXIS))
            continue
        tip = f"{r.label}: {100 * r.value:.1f}"  # type: ignore[operator]
        if r.ci and all(is_number(c) for c in r.ci):
            tip += f" (95% CI {100 * r.ci[0]:.1f}–{100 * r.ci[1]:.1f})"
        parts.append(
            el("rect", el("title", tip), x=num(left), y=num(y - 8), width=num(x_of(r.value) - left),  # type: ignore[arg-type]
               height="16", fill=r.colour, opacity="0.85", rx="2")
        )
        if r.ci and len(r.ci) == 2 and all(is_number(c) for c in r.ci):
            a, b = x_of(r.ci[0]), x_of(r.ci[1])
            parts.append(el("path", d=f"M{num(a)} {num(y)}H{num(b)}M{num(a)} {num(y - 6)}v12M{num(b)} {num(y - 6)}v12",
                            stroke="#1B1B1B", stroke_width="1.4", fill="none"))
        parts.append(_t(width - right + 8, y + 4, f"{100 * r.value:.1f}", fill="#1B1B1B", font_weight="600"))  # type: ignore[operator]
    return _svg(width, height, title, *parts)


def heatmap(
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    values: Sequence[Sequence[float | None]],
    *,
    title: str,
    corner: str = "",
    cell_w: float = 64,
    cell_h: float = 34,
    tips: Sequence[Sequence[str]] | None = None,
    label_max: float = 280,
) -> Markup:
    """A grid of 0-1 values on the sequential ramp, each cell labelled 0-100; empty cells hatched.
    Row labels wider than ``label_max`` are abbreviated, with a key under the grid."""
    label_w = min(label_max, max(56.0, max((_text_width(r) for r in row_labels), default=0) + 14))
    rows, cols = Names.fit(row_labels, label_w - 14), Names.fit(col_labels, cell_w - 4)
    top = 26.0
    width = label_w + cell_w * len(col_labels) + 4
    grid_h = top + cell_h * len(row_labels) + 4
    key, key_h = _key(Names([*rows.full, *cols.full], [*rows.labels, *cols.labels]), 4, grid_h, width - 8)
    height = grid_h + key_h
    hatch = "hatch-" + hashlib.sha1("|".join([title, *row_labels, *col_labels, f"{width:g}"]).encode("utf-8")).hexdigest()[:10]
    parts: list[Markup] = [
        el("defs", el("pattern", el("path", d="M0 6L6 0", stroke="#C9C6BD", stroke_width="1"),
                      id=hatch, width="6", height="6", patternUnits="userSpaceOnUse")),
        _t(label_w - 8, top - 9, corner, anchor="end", fill=AXIS, font_size="11"),
        *key,
    ]
    for j, c in enumerate(col_labels):
        parts.append(cols.text(j, label_w + cell_w * (j + 0.5), top - 9, text_anchor="middle", fill="#1B1B1B"))
    for i, r in enumerate(row_labels):
        y = top + cell_h * i
        parts.append(rows.text(i, label_w - 8, y + cell_h / 2 + 4, text_anchor="end", fill="#1B1B1B"))
        for j, _ in enumerate(col_labels):
            v = values[i][j] if j < len(values[i]) else None
            x = label_w + cell_w * j
            tip = tips[i][j] if tips else f"{r} · {col_labels[j]}"
            if is_number(v):
                parts.append(el("rect", el("title", f"{tip}: {100 * v:.1f}"), x=num(x + 1), y=num(y + 1),  # type: ignore[operator]
                                width=num(cell_w - 2), height=num(cell_h - 2), fill=ramp(v), rx="2"))  # type: ignore[arg-type]
                parts.append(_t(x + cell_w / 2, y + cell_h / 2 + 4, f"{100 * v:.0f}", anchor="middle",  # type: ignore[operator]
                                fill=ink_on(v), font_weight="600"))  # type: ignore[arg-type]
            else:
                parts.append(el("rect", el("title", f"{tip}: no tasks"), x=num(x + 1), y=num(y + 1),
                                width=num(cell_w - 2), height=num(cell_h - 2), fill=f"url(#{hatch})", rx="2"))
    return _svg(width, height, title, *parts)


@dataclass
class Point:
    label: str
    x: float
    y: float
    colour: str
    ci: Sequence[float] | None = None


def scatter(points: Sequence[Point], *, title: str, x_label: str, x_format: Callable[[float], str],
            width: float = 640, height: float = 340) -> Markup:
    """Score (0-100, y) against a non-negative quantity (x), CI whiskers, labelled points."""
    left, right, top, bottom = 46.0, 24.0, 14.0, 42.0
    pw, ph = width - left - right, height - top - bottom
    names = Names.fit([p.label for p in points], 200)
    key, key_h = _key(names, 8, height, width - 16)
    plot_height, height = height, height + key_h
    xmax = max((p.x for p in points if is_number(p.x)), default=0.0)
    step = _nice(xmax * 1.08 / 4) if xmax > 0 else 0.25
    n_ticks = max(1, math.ceil(xmax * 1.08 / step)) if xmax > 0 else 4
    xmax = step * n_ticks

    def x_of(v: float) -> float:
        return left + pw * (v / xmax)

    def y_of(v: float) -> float:
        return top + ph * (1 - min(1.0, max(0.0, v)))

    parts: list[Markup] = [*_y_axis(left, width - right, y_of), *key]
    for k in range(0, n_ticks + 1):
        xv = step * k
        parts.append(_t(x_of(xv), plot_height - bottom + 16, x_format(xv), anchor="middle", fill=AXIS))
    parts.append(_t(left + pw / 2, plot_height - 6, x_label, anchor="middle", fill="#1B1B1B"))
    parts.append(_t(12, top + ph / 2, "redline_overall", anchor="middle", fill="#1B1B1B",
                    transform=f"rotate(-90 12 {num(top + ph / 2)})"))
    placed: list[tuple[float, float, float]] = []   # label boxes so far: two points at one spot keep both names legible
    for i, p in enumerate(points):
        if not (is_number(p.x) and is_number(p.y)):
            continue
        cx, cy = x_of(p.x), y_of(p.y)
        if p.ci and len(p.ci) == 2 and all(is_number(c) for c in p.ci):
            parts.append(el("path", d=f"M{num(cx)} {num(y_of(p.ci[0]))}V{num(y_of(p.ci[1]))}", stroke=p.colour,
                            stroke_width="1.5", opacity="0.7"))
        parts.append(el("circle", el("title", f"{p.label}: {100 * p.y:.1f} at {x_format(p.x)}"), cx=num(cx), cy=num(cy),
                        r="6", fill=p.colour, stroke="#FFFFFF", stroke_width="1.5"))
        anchor = "end" if cx > left + pw * 0.7 else "start"
        lx = cx + (-10 if anchor == "end" else 10)
        x0 = lx - _text_width(names.labels[i]) if anchor == "end" else lx
        ly = _free_row(placed, x0, x0 + _text_width(names.labels[i]), cy - 8, lo=FONT, hi=plot_height - bottom - 4)
        parts.append(names.text(i, lx, ly, text_anchor=anchor, fill="#1B1B1B"))
    return _svg(width, height, title, *parts)


def _free_row(placed: list[tuple[float, float, float]], x0: float, x1: float, y: float, *, lo: float, hi: float,
              step: float = 16.0) -> float:
    """The baseline nearest *y* within lo..hi (trying below, then above) where a label spanning x0..x1
    overlaps none placed; *y* itself when the plot has no free row left."""
    for k in range(0, 40):
        cand = y + step * ((k + 1) // 2) * (1 if k % 2 else -1) if k else y
        if lo <= cand <= hi and all(abs(cand - py) >= step or x1 <= px0 or x0 >= px1 for px0, px1, py in placed):
            placed.append((x0, x1, cand))
            return cand
    placed.append((x0, x1, y))
    return y


def _nice(value: float) -> float:
    exp = math.floor(math.log10(value))
    base = value / 10**exp
    for step in (1, 2, 2.5, 5, 10):
        if base <= step:
            return step * 10**exp
    return 10 ** (exp + 1)


def swatch(colour: str) -> Markup:
    return el("span", class_="swatch", style=f"background:{colour}")
