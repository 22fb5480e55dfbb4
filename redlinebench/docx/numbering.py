"""Clause numbers computed the way Word draws them, from numbering.xml and styles.xml.

Numbers are not stored in the document: each numbered paragraph advances a counter of its
abstract numbering at its level, deeper levels restart when a shallower one advances (or
per ``w:lvlRestart``), and ``w:lvlOverride/w:startOverride`` restarts a list instance. A
paragraph whose mark is deleted does not count in the current view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .oxml import qn
from .runs import W_VAL

_NUMPR = qn("w:numPr")
_NUMID = qn("w:numId")
_ILVL = qn("w:ilvl")
_PSTYLE = qn("w:pStyle")


@dataclass(slots=True)
class Level:
    start: int = 1
    fmt: str = "decimal"
    text: str = "%1."
    restart: int | None = None   # restart after this (0-based) level; -1 never... None = default
    legal: bool = False
    pstyle: str | None = None


def _kids(el) -> dict:
    """Each child tag's first child: one pass over ``el`` instead of a find() per property."""
    kids: dict = {}
    if el is not None:
        for child in el:
            kids.setdefault(child.tag, child)
    return kids


def _val(el, tag: str) -> str | None:
    """``w:val`` of the first ``tag`` child; ``el`` may be an element or its ``_kids`` dict."""
    if isinstance(el, dict):
        child = el.get(qn(tag))
    else:
        child = el.find(qn(tag)) if el is not None else None
    return None if child is None else child.get(W_VAL)


def _ival(el, tag: str) -> int | None:
    value = _val(el, tag)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _parse_level(lvl) -> Level:
    level = Level()
    kids = _kids(lvl)
    start = _ival(kids, "w:start")
    level.start = start if start is not None else 0
    level.fmt = _val(kids, "w:numFmt") or "decimal"
    text = _val(kids, "w:lvlText")
    level.text = text if text is not None else ""
    restart = _ival(kids, "w:lvlRestart")
    level.restart = restart
    legal = kids.get(qn("w:isLgl"))
    level.legal = legal is not None and legal.get(W_VAL, "1") not in ("0", "false", "off")
    level.pstyle = _val(kids, "w:pStyle")
    return level


def _roman(n: int) -> str:
    if n <= 0 or n >= 4000:
        return str(n)
    out = []
    for value, sym in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                       (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= value:
            out.append(sym)
            n -= value
    return "".join(out)


def _letter(n: int) -> str:
    if n <= 0 or n > 26 * 20:   # a hostile start value must not build a huge label
        return str(n)
    # Word repeats the letter: a..z, aa..zz, aaa...
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def format_number(n: int, fmt: str) -> str:
    if fmt in ("lowerLetter",):
        return _letter(n)
    if fmt == "upperLetter":
        return _letter(n).upper()
    if fmt == "lowerRoman":
        return _roman(n)
    if fmt == "upperRoman":
        return _roman(n).upper()
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt in ("none", "bullet"):
        return ""
    return str(n)


class Numbering:
    """Numbering definitions of one document and the style chain that can carry numPr."""

    def __init__(self, numbering_root, styles_root) -> None:
        self.abstract: dict[str, dict[int, Level]] = {}
        self.nums: dict[str, tuple[str, dict[int, int], dict[int, Level]]] = {}
        self.style_numpr: dict[str, tuple[str | None, int | None]] = {}
        self.style_based: dict[str, str] = {}
        self.default_pstyle: str | None = None
        self.style_names: dict[str, str] = {}
        self.pstyle_level: dict[str, tuple[str, int]] = {}
        self.style_outline: dict[str, int] = {}  # style -> its own w:outlineLvl (0-8 heading, 9 body text)
        self._resolved: dict[tuple, tuple[str, int] | None] = {}
        self._templates: dict[tuple[str, int], list] = {}
        if numbering_root is not None:
            self._load_numbering(numbering_root)
        if styles_root is not None:
            self._load_styles(styles_root)

    def _load_numbering(self, root) -> None:
        for absnum in root.iterfind(qn("w:abstractNum")):
            aid = absnum.get(qn("w:abstractNumId"))
            levels = {}
            for lvl in absnum.iterfind(qn("w:lvl")):
                try:
                    ilvl = int(lvl.get(qn("w:ilvl"), "0"))
                except ValueError:
                    continue
                levels[ilvl] = _parse_level(lvl)
            self.abstract[aid] = levels
        for num in root.iterfind(qn("w:num")):
            nid = num.get(qn("w:numId"))
            aid = _val(num, "w:abstractNumId")
            starts: dict[int, int] = {}
            overrides: dict[int, Level] = {}
            for ov in num.iterfind(qn("w:lvlOverride")):
                try:
                    ilvl = int(ov.get(qn("w:ilvl"), "0"))
                except ValueError:
                    continue
                so = _ival(ov, "w:startOverride")
                if so is not None:
                    starts[ilvl] = so
                lvl = ov.find(qn("w:lvl"))
                if lvl is not None:
                    overrides[ilvl] = _parse_level(lvl)
            self.nums[nid] = (aid, starts, overrides)
        for nid, (aid, _, _) in self.nums.items():
            for ilvl, level in self.abstract.get(aid, {}).items():
                if level.pstyle:
                    self.pstyle_level.setdefault(level.pstyle, (nid, ilvl))

    def _load_styles(self, root) -> None:
        for style in root.iterfind(qn("w:style")):
            if style.get(qn("w:type")) != "paragraph":
                continue
            sid = style.get(qn("w:styleId"))
            if sid is None:
                continue
            kids = _kids(style)
            name = _val(kids, "w:name")
            if name:
                self.style_names[sid] = name
            if style.get(qn("w:default")) in ("1", "true", "on"):
                self.default_pstyle = sid
            based = _val(kids, "w:basedOn")
            if based:
                self.style_based[sid] = based
            ppr = kids.get(qn("w:pPr"))
            level = _ival(ppr, "w:outlineLvl") if ppr is not None else None
            if level is not None:
                self.style_outline[sid] = level
            numpr = ppr.find(qn("w:numPr")) if ppr is not None else None
            if numpr is not None:
                self.style_numpr[sid] = (_val(numpr, "w:numId"), _ival(numpr, "w:ilvl"))

    def style_name(self, sid: str | None) -> str | None:
        if sid is None:
            return None
        return self.style_names.get(sid, sid)

    def is_heading(self, ppr) -> bool:
        """Whether a paragraph is a heading by its outline level (direct, or from its style chain)."""
        direct = _ival(ppr, "w:outlineLvl") if ppr is not None else None
        if direct is not None:
            return 0 <= direct <= 8
        pstyle = ppr.find(_PSTYLE) if ppr is not None else None
        sid = pstyle.get(W_VAL) if pstyle is not None else self.default_pstyle
        seen = set()
        while sid and sid not in seen:  # the nearest style that sets a level decides
            seen.add(sid)
            if sid in self.style_outline:
                return 0 <= self.style_outline[sid] <= 8
            sid = self.style_based.get(sid)
        return False

    def resolve(self, ppr) -> tuple[str, int] | None:
        """(numId, ilvl) of a paragraph, direct numPr first, then its style chain."""
        num_id: str | None = None
        ilvl: int | None = None
        style = None
        if ppr is not None:
            for child in ppr:
                tag = child.tag
                if tag == _NUMPR:
                    for c in child:
                        if c.tag == _NUMID:
                            num_id = c.get(W_VAL)
                        elif c.tag == _ILVL:
                            try:
                                ilvl = int(c.get(W_VAL))
                            except (TypeError, ValueError):
                                ilvl = None
                elif tag == _PSTYLE:
                    style = child.get(W_VAL)
        key = (num_id, ilvl, style)
        try:
            return self._resolved[key]
        except KeyError:
            pass
        value = self._resolve(num_id, ilvl, style)
        self._resolved[key] = value
        return value

    def _resolve(self, num_id, ilvl, style) -> tuple[str, int] | None:
        if style is None:
            style = self.default_pstyle
        seen = set()
        sid = style
        while sid and sid not in seen and (num_id is None or ilvl is None):
            seen.add(sid)
            if sid in self.style_numpr:
                s_num, s_lvl = self.style_numpr[sid]
                if num_id is None:
                    num_id = s_num
                if ilvl is None and s_lvl is not None:
                    ilvl = s_lvl
                if ilvl is None and style in self.pstyle_level:
                    ilvl = self.pstyle_level[style][1]
            sid = self.style_based.get(sid)
        if num_id is None and style in self.pstyle_level:
            # the list level names the style (w:lvl/w:pStyle) while the style itself has no numPr
            num_id, ilvl = self.pstyle_level[style]
        if num_id is None or num_id == "0" or num_id not in self.nums:
            return None
        return num_id, (ilvl if ilvl is not None and 0 <= ilvl <= 8 else 0)

    def template(self, num_id: str, ilvl: int, level: Level) -> list:
        """``level``'s text as literal strings and (level, value when uncounted, format) references,
        resolved once per list level (the definitions never change once loaded)."""
        key = (num_id, ilvl)
        parts = self._templates.get(key)
        if parts is None:
            parts = []
            for piece in _split_lvl_text(level.text):
                if isinstance(piece, int):
                    ref_level = self.level(num_id, piece)
                    fmt = ref_level.fmt if ref_level is not None else "decimal"
                    if level.legal and fmt != "decimalZero":
                        fmt = "decimal"
                    parts.append((piece, ref_level.start if ref_level is not None else 1, fmt))
                else:
                    parts.append(piece)
            self._templates[key] = parts
        return parts

    def level(self, num_id: str, ilvl: int) -> Level | None:
        aid, _, overrides = self.nums[num_id]
        if ilvl in overrides:
            return overrides[ilvl]
        return self.abstract.get(aid, {}).get(ilvl)


class Counter:
    """Walks paragraphs in order and produces each one's label."""

    def __init__(self, numbering: Numbering) -> None:
        self.n = numbering
        self.counts: dict[str, dict[int, int]] = {}
        self.started_nums: set[str] = set()
        self._labels: dict[tuple, str | None] = {}

    def next_label(self, ppr) -> str | None:
        resolved = self.n.resolve(ppr)
        if resolved is None:
            return None
        num_id, ilvl = resolved
        level = self.n.level(num_id, ilvl)
        if level is None:
            return None
        aid, starts, _ = self.n.nums[num_id]
        key = aid if aid is not None else f"num:{num_id}"
        counts = self.counts.setdefault(key, {})
        if num_id not in self.started_nums:
            self.started_nums.add(num_id)
            for lvl_idx, start in starts.items():
                counts.pop(lvl_idx, None)
                for deeper in list(counts):
                    if deeper > lvl_idx:
                        counts.pop(deeper)
                counts[lvl_idx] = start - 1
        if ilvl in counts:
            counts[ilvl] += 1
        else:
            counts[ilvl] = self._start(num_id, ilvl)
        # restart deeper levels
        for deeper in list(counts):
            if deeper > ilvl:
                dl = self.n.level(num_id, deeper)
                restart = dl.restart if dl is not None else None
                if restart is None or (restart != 0 and ilvl < restart):
                    counts.pop(deeper)
        if level.fmt in ("bullet", "none") and "%" not in level.text:
            return None
        key = (num_id, ilvl, tuple([counts.get(k) for k in range(ilvl + 1)]))
        label = self._labels.get(key)
        if label is None:
            label = self._labels[key] = self._render(num_id, ilvl, level, counts)
        return label

    def _start(self, num_id: str, ilvl: int) -> int:
        _, starts, _ = self.n.nums[num_id]
        if ilvl in starts and num_id not in self.started_nums:
            return starts[ilvl]
        level = self.n.level(num_id, ilvl)
        return level.start if level is not None else 1

    def _render(self, num_id: str, ilvl: int, level: Level, counts: dict[int, int]) -> str | None:
        out = []
        for piece in self.n.template(num_id, ilvl, level):
            if type(piece) is str:
                out.append(piece)
            else:
                ref, default, fmt = piece
                value = counts.get(ref)
                if value is None:
                    value = default
                out.append(str(value) if fmt == "decimal" else format_number(value, fmt))
        label = "".join(out).strip()
        if label.endswith(".") and len(label) > 1:
            label = label[:-1]
        return label or None


_LVL_CACHE: dict[str, list] = {}
_LVL_TOKEN = re.compile(r"%([1-9])")


def _split_lvl_text(text: str) -> list:
    """``"%1.%2"`` -> ``[0, ".", 1]`` (ints are 0-based level references); cached."""
    parts = _LVL_CACHE.get(text)
    if parts is None:
        parts = []
        pos = 0
        for m in _LVL_TOKEN.finditer(text):
            if m.start() > pos:
                parts.append(text[pos:m.start()])
            parts.append(int(m.group(1)) - 1)
            pos = m.end()
        if pos < len(text):
            parts.append(text[pos:])
        _LVL_CACHE[text] = parts
    return parts
