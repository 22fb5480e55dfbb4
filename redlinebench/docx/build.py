"""DocumentBuilder: clean, valid ``.docx`` files written from code.

Fixtures, the synthetic benchmark and the engine benchmark all need contracts whose every
byte we control. This module writes them with lxml + zipfile only (no template, so no stale
``stylesWithEffects.xml``), and the output is deterministic: the same calls give the same
bytes (fixed zip timestamps, fixed part order, ids and paraIds from counters, never random).

The model is small on purpose::

    b = DocumentBuilder(title="Master Services Agreement", creator="LargeCo Legal")
    b.title("MASTER SERVICES AGREEMENT")
    b.heading("Definitions", level=1)
    b.clause(["The ", Run("Services", bold=True), " are described in Exhibit A."])      # 1.
    b.clause("Fees are payable within thirty (30) days.", level=1)                      # 1.1
    b.clause(["Either party may terminate", Tab(), "on notice."], level=2)              # 1.1.1
    b.paragraph(["See ", Hyperlink("our site", "https://example.com"), "."])
    b.table([["Item", "Fee"], ["Hosting", "$100"]], header=True)
    data = b.to_bytes()

Inline content (``Content``) is a ``str``, one of the inline dataclasses below, or a list of
them. Strings become plain runs; ``\\t`` becomes ``w:tab`` and ``\\n`` ``w:br`` everywhere.
Prior-turn markup by another author is content too: ``Ins``, ``Del``, ``MoveFrom``/``MoveTo``,
``FormatChange``, ``Comment`` (with ``Reply`` threads and resolved flags), and paragraph-mark
revisions through ``paragraph(..., mark=ParaMark("ins", author))``.

Ids: one counter for every revision, comment and bookmark id in every part (the rule Word
relies on); footnote ids have their own counter as the schema intends.

API at a glance:

=========================================== ===============================================
``DocumentBuilder(title=, creator=, date=,   one document; ``numbered_headings`` numbers
numbered_headings=, track_revisions=,        Heading1-3 through their styles, ``para_ids``
para_ids=, font=, font_size=)``              gives every paragraph a w14:paraId like Word
``title(c)`` / ``heading(c, level)``         Title / Heading1-3 paragraphs
``paragraph(c, style=, align=, mark=,        any paragraph; ``mark=ParaMark("ins"|"del",
style_was=(author, old_style))``             author)`` tracks the paragraph mark
``clause(c, level=0, numbering=)``           numbered clause: 1. / 1.1 / 1.1.1 / (a) / (i)
``new_list(scheme, start=)``                 new w:num; ``start`` restarts (startOverride)
``table(rows, header=, widths=, style=)``    cells are content or ``Cell([Para(...), ...])``
``header(c, kind=)`` / ``footer(c, kind=)``  default / first / even
``page_break()``                             a paragraph holding a page break
``to_bytes()`` / ``save(path)``              deterministic bytes / atomic write
``sample_contract(paragraphs, seed=,         a realistic numbered MSA of any length
other_author=)``
=========================================== ===============================================

Inline: ``Run(text, bold=, italic=, underline=, strike=, font=, size=, color=, style=)``,
``Tab()``, ``Break(page=)``, ``Hyperlink(c, url=|anchor=)``, ``Bookmark(name, c)``,
``CrossRef(bookmark, cached)``, ``Field(instr, cached)``, ``SimpleField(instr, cached)``,
``Footnote(c)``, ``Ins(c, author)``, ``Del(c, author)`` (inside an ``Ins`` it becomes
``w:del`` inside ``w:ins``), ``MoveFrom(c, name, author)`` / ``MoveTo(c, name, author)``,
``FormatChange(run, author, was=Fmt(...))``, ``Comment(c, text, author, replies=[Reply(...)],
done=)``. Text that XML cannot hold (NUL, most C0 controls, lone surrogates) raises ValueError.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal, Union

from lxml import etree

from .._atomic import atomic_write_bytes

__all__ = [
    "DocumentBuilder",
    "Content",
    "Run",
    "Fmt",
    "Tab",
    "Break",
    "Hyperlink",
    "Bookmark",
    "CrossRef",
    "Field",
    "SimpleField",
    "Footnote",
    "Ins",
    "Del",
    "MoveFrom",
    "MoveTo",
    "FormatChange",
    "Comment",
    "Reply",
    "ParaMark",
    "Para",
    "Cell",
    "NumList",
    "NUMBERING_SCHEMES",
    "DEFAULT_DATE",
]

# --------------------------------------------------------------------------- namespaces

NS = {
    "w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "w14": "http://schemas.microsoft.com/office/word/2010/wordml",
    "w15": "http://schemas.microsoft.com/office/word/2012/wordml",
    "w16cid": "http://schemas.microsoft.com/office/word/2016/wordml/cid",
    "w16cex": "http://schemas.microsoft.com/office/word/2018/wordml/cex",
}
_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_CT = "http://schemas.openxmlformats.org/package/2006/content-types"
_OFFDOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_WML_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml."
_IGNORABLE = "w14 w15 w16cid w16cex"
_STORY_NSMAP = {k: NS[k] for k in ("w", "r", "mc", "w14", "w15", "w16cid", "w16cex")}

#: The fixed timestamp used when no date is given: documents built twice are identical.
DEFAULT_DATE = datetime(2026, 1, 1, 9, 0, 0, tzinfo=timezone.utc)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _qn(tag: str) -> str:
    prefix, local = tag.split(":")
    return f"{{{NS[prefix]}}}{local}"


def _el(tag: str, attrs: dict[str, str] | None = None, *children: etree._Element) -> etree._Element:
    elem = etree.Element(_qn(tag))
    for key, value in (attrs or {}).items():
        elem.set(_qn(key) if ":" in key else key, value)
    for child in children:
        elem.append(child)
    return elem


def _sub(parent: etree._Element, tag: str, attrs: dict[str, str] | None = None) -> etree._Element:
    child = _el(tag, attrs)
    parent.append(child)
    return child


def _iso(moment: datetime) -> str:
    """xsd:dateTime in UTC, whole seconds, trailing Z (what Word writes and accepts)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _check_text(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__}")
    bad = _FORBIDDEN.search(text)
    if bad:
        raise ValueError(f"text contains a character XML cannot hold: {bad.group()!r}")
    return text


# --------------------------------------------------------------------------- inline model


@dataclass(frozen=True)
class Fmt:
    """Run formatting. ``size`` is in points; ``underline`` True means single."""

    bold: bool = False
    italic: bool = False
    underline: bool = False
    strike: bool = False
    font: str | None = None
    size: float | None = None
    color: str | None = None  # hex RRGGBB
    style: str | None = None  # character style id, e.g. "Hyperlink"

    def is_plain(self) -> bool:
        return self == Fmt()


@dataclass(frozen=True)
class Run:
    """Text with one formatting. Tabs and newlines inside become ``w:tab`` / ``w:br``."""

    text: str
    bold: bool = False
    italic: bool = False
    underline: bool = False
    strike: bool = False
    font: str | None = None
    size: float | None = None
    color: str | None = None
    style: str | None = None

    @property
    def fmt(self) -> Fmt:
        return Fmt(self.bold, self.italic, self.underline, self.strike, self.font, self.size, self.color, self.style)


@dataclass(frozen=True)
class Tab:
    """A tab character (``w:tab`` in its own run)."""


@dataclass(frozen=True)
class Break:
    """A line break (``w:br``); ``page=True`` for a page break."""

    page: bool = False


@dataclass(frozen=True)
class Hyperlink:
    """A hyperlink around ``content``: external ``url`` (a relationship) or internal ``anchor``."""

    content: "Content"
    url: str | None = None
    anchor: str | None = None


@dataclass(frozen=True)
class Bookmark:
    """A named bookmark around ``content`` (the target of a ``CrossRef``)."""

    name: str
    content: "Content"


@dataclass(frozen=True)
class CrossRef:
    """A ``REF`` complex field to a bookmark, with its cached result (Word needs one)."""

    bookmark: str
    cached: str
    switches: str = "\\h"


@dataclass(frozen=True)
class Field:
    """Any complex field (``PAGE``, ``DATE \\@ ...``) with its cached result."""

    instr: str
    cached: str


@dataclass(frozen=True)
class SimpleField:
    """A ``w:fldSimple`` field with its cached result."""

    instr: str
    cached: str


@dataclass(frozen=True)
class Footnote:
    """A footnote reference here; ``content`` becomes the note's text in footnotes.xml."""

    content: "Content"


@dataclass(frozen=True)
class Ins:
    """Content another author inserted (tracked)."""

    content: "Content"
    author: str
    date: datetime | None = None


@dataclass(frozen=True)
class Del:
    """Content another author deleted (tracked): written as ``w:delText`` in ``w:del``."""

    content: "Content"
    author: str
    date: datetime | None = None


@dataclass(frozen=True)
class MoveFrom:
    """Source of a tracked move; ``name`` links it to the ``MoveTo`` with the same name."""

    content: "Content"
    name: str
    author: str
    date: datetime | None = None


@dataclass(frozen=True)
class MoveTo:
    """Destination of a tracked move (see ``MoveFrom``)."""

    content: "Content"
    name: str
    author: str
    date: datetime | None = None


@dataclass(frozen=True)
class FormatChange:
    """A tracked formatting change: ``run`` now, ``was`` before (``w:rPrChange``)."""

    run: Run
    author: str
    was: Fmt = Fmt()
    date: datetime | None = None


@dataclass(frozen=True)
class Reply:
    """A reply in a comment thread; ``done`` marks it resolved."""

    text: str | Sequence[str]
    author: str
    date: datetime | None = None
    done: bool = False


@dataclass(frozen=True)
class Comment:
    """A comment anchored on ``content``; ``text`` is one string or a list of paragraphs.

    ``replies`` are anchored in the body the way Word anchors them (nested ranges) and
    threaded through ``commentsExtended.xml``; ``done`` marks the thread resolved.
    """

    content: "Content"
    text: str | Sequence[str]
    author: str
    date: datetime | None = None
    replies: Sequence[Reply] = ()
    done: bool = False
    initials: str | None = None


Inline = Union[str, Run, Tab, Break, Hyperlink, Bookmark, CrossRef, Field, SimpleField, Footnote,
               Ins, Del, MoveFrom, MoveTo, FormatChange, Comment]
Content = Union[Inline, Sequence["Content"]]


@dataclass(frozen=True)
class ParaMark:
    """A tracked paragraph mark: ``kind`` "ins" (new paragraph) or "del" (merged away)."""

    kind: Literal["ins", "del"]
    author: str
    date: datetime | None = None


@dataclass(frozen=True)
class Para:
    """One paragraph for places that take several (table cells)."""

    content: "Content"
    style: str | None = None
    align: Literal["left", "center", "right", "both"] | None = None


@dataclass(frozen=True)
class Cell:
    """A table cell with several paragraphs (a plain cell value makes one paragraph)."""

    paras: Sequence[Para]


@dataclass(frozen=True)
class NumList:
    """A numbering instance (``w:num``); pass it to ``clause(..., numbering=...)``."""

    num_id: int
    scheme: str


@dataclass(frozen=True)
class _Level:
    fmt: str
    text: str
    indent: int  # twips, left indent; hanging is fixed below


#: Multi-level schemes: name -> levels (numFmt, lvlText, left indent in twips).
NUMBERING_SCHEMES: dict[str, tuple[_Level, ...]] = {
    "clauses": (
        _Level("decimal", "%1.", 432),
        _Level("decimal", "%1.%2", 792),
        _Level("decimal", "%1.%2.%3", 1224),
        _Level("lowerLetter", "(%4)", 1584),
        _Level("lowerRoman", "(%5)", 1944),
        _Level("upperLetter", "(%6)", 2304),
    ),
    "roman": (
        _Level("upperRoman", "%1.", 720),
        _Level("upperLetter", "%2.", 1080),
        _Level("decimal", "%3.", 1440),
    ),
    "letters": (
        _Level("lowerLetter", "(%1)", 720),
        _Level("lowerRoman", "(%2)", 1080),
    ),
    "headings": (  # linked to Heading1-3 when DocumentBuilder(numbered_headings=True)
        _Level("decimal", "%1.", 432),
        _Level("decimal", "%1.%2", 576),
        _Level("decimal", "%1.%2.%3", 720),
    ),
}
_HANGING = 432


# --------------------------------------------------------------------------- builder


@dataclass
class _Track:
    kind: str  # ins | del | moveFrom | moveTo
    author: str
    date: str
    outer: "_Track | None" = None  # a del inside another author's ins (w:ins > w:del)


@dataclass
class _Story:
    """One story part under construction (document, header, footer, footnotes, comments)."""

    rels: list[tuple[str, str, str, bool]] = field(default_factory=list)  # (rId, type, target, external)

    def add_rel(self, rtype: str, target: str, external: bool = False) -> str:
        for rid, t, tgt, ext in self.rels:
            if t == rtype and tgt == target and ext == external:
                return rid
        rid = f"rId{len(self.rels) + 1}"
        self.rels.append((rid, rtype, target, external))
        return rid


@dataclass
class _CommentRecord:
    cid: int
    author: str
    initials: str
    date: str
    paragraphs: tuple[str, ...]
    parent: int | None
    done: bool
    para_ids: tuple[str, ...] = ()
    durable_id: str = ""


class DocumentBuilder:
    """Writes one new ``.docx`` from code. Call block methods in document order.

    Args:
        title, subject, creator: core properties (``docProps/core.xml``).
        date: the fixed created/modified date and the default revision/comment date.
        numbered_headings: Heading1-3 carry clause numbers through their styles
            (``1.``, ``1.1``, ``1.1.1``) instead of explicit ``w:numPr``.
        track_revisions: set ``w:trackRevisions`` in settings (Word then tracks new edits).
        para_ids: give every body paragraph a ``w14:paraId``/``w14:textId`` as Word does.
        font, font_size: document default run font and size in points.
    """

    def __init__(
        self,
        *,
        title: str = "",
        subject: str = "",
        creator: str = "redlinebench",
        date: datetime = DEFAULT_DATE,
        numbered_headings: bool = False,
        track_revisions: bool = False,
        para_ids: bool = False,
        font: str = "Times New Roman",
        font_size: float = 11,
    ) -> None:
        self.title_text = _check_text(title)
        self.subject = _check_text(subject)
        self.creator = _check_text(creator)
        self.date = date
        self.track_revisions = track_revisions
        self.para_ids = para_ids
        self.font = font
        self.font_size = font_size
        self._next_id = 1  # revisions, comments, bookmarks: one counter for all parts
        self._next_para_id = 0x00100001
        self._body = _el("w:body")
        self._doc_story = _Story()
        self._headers: list[tuple[str, etree._Element, _Story]] = []  # (kind, root, story)
        self._footers: list[tuple[str, etree._Element, _Story]] = []
        self._footnotes: list[etree._Element] = []
        self._footnote_story = _Story()
        self._comments: list[_CommentRecord] = []
        self._comment_story = _Story()
        self._bookmarks: set[str] = set()
        self._abstract: dict[str, int] = {}  # scheme -> abstractNumId
        self._nums: list[tuple[int, int, int | None]] = []  # (numId, abstractNumId, start override)
        self._current: dict[str, NumList] = {}
        self._heading_num: int | None = None
        if numbered_headings:
            self._heading_num = self.new_list("headings").num_id

    # ------------------------------------------------------------------ ids

    def _new_id(self) -> str:
        value = self._next_id
        self._next_id += 1
        return str(value)

    def _new_para_id(self) -> str:
        value = self._next_para_id
        self._next_para_id += 1
        return f"{value:08X}"

    def _date(self, date: datetime | None) -> str:
        return _iso(date or self.date)

    # ------------------------------------------------------------------ numbering

    def new_list(self, scheme: str = "clauses", *, start: int | None = None) -> NumList:
        """A new numbering instance of ``scheme``.

        Without ``start`` it continues the scheme's count (Word counts per abstract
        definition); with ``start`` it restarts level 0 there (``w:startOverride``).
        Later ``clause()`` calls without ``numbering=`` use the newest list of the scheme.
        """
        if scheme not in NUMBERING_SCHEMES:
            raise ValueError(f"unknown numbering scheme {scheme!r}; known: {sorted(NUMBERING_SCHEMES)}")
        if start is not None and (not isinstance(start, int) or start < 0):
            raise ValueError("start must be a non-negative integer")
        abstract = self._abstract.setdefault(scheme, len(self._abstract))
        num_id = len(self._nums) + 1
        self._nums.append((num_id, abstract, start))
        ref = NumList(num_id, scheme)
        self._current[scheme] = ref
        return ref

    # ------------------------------------------------------------------ blocks

    def paragraph(
        self,
        content: Content = "",
        *,
        style: str | None = None,
        align: Literal["left", "center", "right", "both"] | None = None,
        mark: ParaMark | None = None,
        style_was: tuple[str, str | None] | None = None,
        keep_next: bool = False,
    ) -> None:
        """A paragraph. ``style_was=(author, old_style)`` records a tracked style change."""
        self._body.append(self._paragraph(content, self._body_story_ctx(), style=style, align=align,
                                          mark=mark, style_was=style_was, keep_next=keep_next))

    def title(self, content: Content) -> None:
        self.paragraph(content, style="Title")

    def heading(self, content: Content, level: int = 1, *, mark: ParaMark | None = None) -> None:
        if level not in (1, 2, 3):
            raise ValueError("heading level must be 1, 2 or 3")
        self.paragraph(content, style=f"Heading{level}", mark=mark, keep_next=True)

    def clause(
        self,
        content: Content,
        level: int = 0,
        *,
        numbering: NumList | None = None,
        style: str = "ListParagraph",
        mark: ParaMark | None = None,
    ) -> None:
        """A numbered clause at ``level`` (0-based): ``1.``, ``1.1``, ``1.1.1``, ``(a)``, ``(i)``."""
        ref = numbering or self._current.get("clauses") or self.new_list("clauses")
        levels = NUMBERING_SCHEMES[ref.scheme]
        if not 0 <= level < len(levels):
            raise ValueError(f"level {level} out of range for scheme {ref.scheme!r} (0..{len(levels) - 1})")
        self._body.append(self._paragraph(content, self._body_story_ctx(), style=style, mark=mark,
                                          numbering=(ref.num_id, level)))

    def page_break(self) -> None:
        self.paragraph(Break(page=True))

    def table(
        self,
        rows: Sequence[Sequence[Content | Cell]],
        *,
        header: bool = True,
        widths: Sequence[int] | None = None,
        style: str = "TableGrid",
    ) -> None:
        """A table. ``rows`` are lists of cells; the first row repeats as header when ``header``.

        ``widths`` are column widths in twips (default: 9000 split evenly).
        """
        if not rows or not all(rows):
            raise ValueError("a table needs at least one row and one cell per row")
        ncols = max(len(r) for r in rows)
        widths = list(widths) if widths else [9000 // ncols] * ncols
        if len(widths) != ncols:
            raise ValueError("widths must give one width per column")
        tbl = _el("w:tbl")
        tbl_pr = _sub(tbl, "w:tblPr")
        _sub(tbl_pr, "w:tblStyle", {"w:val": style})
        _sub(tbl_pr, "w:tblW", {"w:w": str(sum(widths)), "w:type": "dxa"})
        _sub(tbl_pr, "w:tblLook", {"w:val": "04A0", "w:firstRow": "1", "w:lastRow": "0", "w:firstColumn": "1",
                                   "w:lastColumn": "0", "w:noHBand": "0", "w:noVBand": "1"})
        grid = _sub(tbl, "w:tblGrid")
        for w in widths:
            _sub(grid, "w:gridCol", {"w:w": str(w)})
        ctx = self._body_story_ctx()
        for r_index, row in enumerate(rows):
            tr = _sub(tbl, "w:tr")
            if header and r_index == 0:
                _sub(_sub(tr, "w:trPr"), "w:tblHeader")
            for c_index in range(ncols):
                value = row[c_index] if c_index < len(row) else ""
                tc = _sub(tr, "w:tc")
                _sub(_sub(tc, "w:tcPr"), "w:tcW", {"w:w": str(widths[c_index]), "w:type": "dxa"})
                paras = value.paras if isinstance(value, Cell) else [Para(value)]
                if not paras:
                    paras = [Para("")]
                for para in paras:
                    tc.append(self._paragraph(para.content, ctx, style=para.style, align=para.align))
        self._body.append(tbl)

    def header(self, content: Content, *, kind: Literal["default", "first", "even"] = "default") -> None:
        """The page header of ``kind`` (one paragraph of ``content``)."""
        self._hdr_ftr("hdr", content, kind)

    def footer(self, content: Content, *, kind: Literal["default", "first", "even"] = "default") -> None:
        """The page footer of ``kind``, e.g. ``["Page ", Field("PAGE", "1")]``."""
        self._hdr_ftr("ftr", content, kind)

    def _hdr_ftr(self, which: str, content: Content, kind: str) -> None:
        target = self._headers if which == "hdr" else self._footers
        if any(k == kind for k, _, _ in target):
            raise ValueError(f"a {kind} {'header' if which == 'hdr' else 'footer'} already exists")
        story = _Story()
        root = etree.Element(_qn(f"w:{which}"), nsmap=_STORY_NSMAP)
        root.set(_qn("mc:Ignorable"), _IGNORABLE)
        style = "Header" if which == "hdr" else "Footer"
        root.append(self._paragraph(content, _Ctx(self, story, "word"), style=style))
        target.append((kind, root, story))

    # ------------------------------------------------------------------ output

    def to_bytes(self) -> bytes:
        """The package as deterministic bytes (the builder can keep growing afterwards)."""
        parts = self._parts()
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in parts:
                info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o600 << 16
                info.create_system = 0
                zf.writestr(info, data, compresslevel=6)
        return buf.getvalue()

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically (temp file in the same directory, then rename)."""
        return atomic_write_bytes(path, self.to_bytes(), parents=False)

    # ------------------------------------------------------------------ paragraph writer

    def _body_story_ctx(self) -> "_Ctx":
        return _Ctx(self, self._doc_story, "word")

    def _paragraph(
        self,
        content: Content,
        ctx: "_Ctx",
        *,
        style: str | None = None,
        align: str | None = None,
        mark: ParaMark | None = None,
        numbering: tuple[int, int] | None = None,
        style_was: tuple[str, str | None] | None = None,
        keep_next: bool = False,
        para_id: bool | None = None,
    ) -> etree._Element:
        p = _el("w:p")
        if self.para_ids if para_id is None else para_id:
            p.set(_qn("w14:paraId"), self._new_para_id())
            p.set(_qn("w14:textId"), "77777777")
        ppr = _el("w:pPr")
        if style:
            _sub(ppr, "w:pStyle", {"w:val": style})
        if keep_next:
            _sub(ppr, "w:keepNext")
        if numbering:
            num_pr = _sub(ppr, "w:numPr")
            _sub(num_pr, "w:ilvl", {"w:val": str(numbering[1])})
            _sub(num_pr, "w:numId", {"w:val": str(numbering[0])})
        if align:
            _sub(ppr, "w:jc", {"w:val": align})
        if mark is not None:
            if mark.kind not in ("ins", "del"):
                raise ValueError("ParaMark.kind must be 'ins' or 'del'")
            rpr = _sub(ppr, "w:rPr")
            _sub(rpr, f"w:{mark.kind}", {"w:id": self._new_id(), "w:author": mark.author,
                                        "w:date": self._date(mark.date)})
        if style_was is not None:
            author, old_style = style_was
            change = _sub(ppr, "w:pPrChange", {"w:id": self._new_id(), "w:author": author,
                                               "w:date": self._date(None)})
            old = _sub(change, "w:pPr")
            if old_style:
                _sub(old, "w:pStyle", {"w:val": old_style})
        if len(ppr):
            p.append(ppr)
        ctx.emit(p, content, None)
        return p

    # ------------------------------------------------------------------ comments

    def _add_comment(self, text: str | Sequence[str], author: str, date: datetime | None,
                     parent: int | None, done: bool, initials: str | None) -> int:
        paragraphs = (text,) if isinstance(text, str) else tuple(text)
        if not paragraphs:
            raise ValueError("a comment needs text")
        for item in paragraphs:
            _check_text(item)
        cid = int(self._new_id())
        inits = initials or "".join(word[0] for word in author.split() if word[:1].isalpha())[:4] or "A"
        self._comments.append(_CommentRecord(cid, author, inits, self._date(date), paragraphs, parent, done))
        return cid

    # ------------------------------------------------------------------ parts

    def _parts(self) -> list[tuple[str, bytes]]:
        doc_story = _Story(rels=list(self._doc_story.rels))
        overrides: list[tuple[str, str]] = []
        parts: list[tuple[str, bytes]] = []

        def add(name: str, root: etree._Element, content_type: str) -> None:
            parts.append((name, _xml(root)))
            overrides.append((f"/{name}", content_type))

        rel_doc = [
            ("styles", "styles.xml", _WML_CT + "styles+xml", _styles(self)),
            ("settings", "settings.xml", _WML_CT + "settings+xml", _settings(self)),
            ("numbering", "numbering.xml", _WML_CT + "numbering+xml", _numbering(self)),
            ("fontTable", "fontTable.xml", _WML_CT + "fontTable+xml", _font_table(self)),
            ("theme", "theme/theme1.xml", "application/vnd.openxmlformats-officedocument.theme+xml", _theme(self)),
        ]
        for rtype, target, ctype, root in rel_doc:
            doc_story.add_rel(f"{_OFFDOC}/{rtype}", target)
            add(f"word/{target}", root, ctype)

        sect_refs: list[tuple[str, str, str]] = []  # (tag, kind, rId)
        for which, items in (("header", self._headers), ("footer", self._footers)):
            for n, (kind, root, story) in enumerate(items, start=1):
                target = f"{which}{n}.xml"
                rid = doc_story.add_rel(f"{_OFFDOC}/{which}", target)
                sect_refs.append((f"w:{which}Reference", kind, rid))
                add(f"word/{target}", root, _WML_CT + f"{which}+xml")
                if story.rels:
                    parts.append((f"word/_rels/{target}.rels", _rels_xml(story.rels)))

        if self._footnotes:
            doc_story.add_rel(f"{_OFFDOC}/footnotes", "footnotes.xml")
            add("word/footnotes.xml", _footnotes(self), _WML_CT + "footnotes+xml")
            if self._footnote_story.rels:
                parts.append(("word/_rels/footnotes.xml.rels", _rels_xml(self._footnote_story.rels)))

        if self._comments:
            self._assign_comment_ids()
            comment_parts = [
                ("comments", "comments.xml", f"{_OFFDOC}/comments", _comments_xml(self)),
                ("commentsExtended", "commentsExtended.xml",
                 "http://schemas.microsoft.com/office/2011/relationships/commentsExtended", _comments_ex(self)),
                ("commentsIds", "commentsIds.xml",
                 "http://schemas.microsoft.com/office/2016/09/relationships/commentsIds", _comments_ids(self)),
                ("commentsExtensible", "commentsExtensible.xml",
                 "http://schemas.microsoft.com/office/2018/08/relationships/commentsExtensible",
                 _comments_extensible(self)),
                ("people", "people.xml", "http://schemas.microsoft.com/office/2011/relationships/people",
                 _people(self)),
            ]
            for ct_name, target, rtype, root in comment_parts:
                doc_story.add_rel(rtype, target)
                add(f"word/{target}", root, _WML_CT + ct_name + "+xml")
            if self._comment_story.rels:
                parts.append(("word/_rels/comments.xml.rels", _rels_xml(self._comment_story.rels)))

        document = etree.Element(_qn("w:document"), nsmap=_STORY_NSMAP)
        document.set(_qn("mc:Ignorable"), _IGNORABLE)
        body = etree.fromstring(etree.tostring(self._body))  # a copy: the builder stays usable
        body.append(_sect_pr(sect_refs, bool(any(k == "first" for _, k, _ in sect_refs))))
        document.append(body)
        add("word/document.xml", document, _WML_CT + "document.main+xml")
        parts.append(("word/_rels/document.xml.rels", _rels_xml(doc_story.rels)))

        add("docProps/core.xml", _core(self), "application/vnd.openxmlformats-package.core-properties+xml")
        add("docProps/app.xml", _app(), "application/vnd.openxmlformats-officedocument.extended-properties+xml")
        root_rels = [
            ("rId1", f"{_OFFDOC}/officeDocument", "word/document.xml", False),
            ("rId2", "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties",
             "docProps/core.xml", False),
            ("rId3", f"{_OFFDOC}/extended-properties", "docProps/app.xml", False),
        ]
        head = [("[Content_Types].xml", _content_types(overrides)), ("_rels/.rels", _rels_xml(root_rels))]
        order = {"word/document.xml": 0}
        rest = sorted(parts, key=lambda item: (order.get(item[0], 1), item[0]))
        return head + rest

    def _assign_comment_ids(self) -> None:
        for n, rec in enumerate(self._comments):
            rec.para_ids = tuple(f"{0x10000001 + n * 16 + k:08X}" for k in range(len(rec.paragraphs)))
            rec.durable_id = f"{0x20000001 + n:08X}"


# --------------------------------------------------------------------------- inline writer


class _Ctx:
    """Emits inline content into one story, tracking wrappers so consecutive runs share one."""

    def __init__(self, builder: DocumentBuilder, story: _Story, part_dir: str) -> None:
        self.b = builder
        self.story = story
        self.part_dir = part_dir
        self._wrappers: dict[int, _Track] = {}  # id(wrapper element) -> its track, so runs of one Ins share it
        self._alive: list[etree._Element] = []

    # parent: a w:p, w:hyperlink or similar container
    def emit(self, parent: etree._Element, content: Content, track: _Track | None, fmt: Fmt = Fmt()) -> None:
        if content is None:
            return
        if isinstance(content, str):
            self._text_runs(parent, _check_text(content), fmt, track)
        elif isinstance(content, Run):
            self._text_runs(parent, _check_text(content.text), content.fmt, track)
        elif isinstance(content, Tab):
            self._run(parent, fmt, track, _el("w:tab"))
        elif isinstance(content, Break):
            self._run(parent, fmt, track, _el("w:br", {"w:type": "page"} if content.page else None))
        elif isinstance(content, Hyperlink):
            self._hyperlink(parent, content, track)
        elif isinstance(content, Bookmark):
            if content.name in self.b._bookmarks:
                raise ValueError(f"duplicate bookmark name {content.name!r}")
            self.b._bookmarks.add(content.name)
            bid = self.b._new_id()
            parent.append(_el("w:bookmarkStart", {"w:id": bid, "w:name": content.name}))
            self.emit(parent, content.content, track, fmt)
            parent.append(_el("w:bookmarkEnd", {"w:id": bid}))
        elif isinstance(content, CrossRef):
            self._complex_field(parent, f" REF {content.bookmark} {content.switches} ".replace("  ", " "),
                                content.cached, fmt, track)
        elif isinstance(content, Field):
            self._complex_field(parent, f" {content.instr} ", content.cached, fmt, track)
        elif isinstance(content, SimpleField):
            fld = _el("w:fldSimple", {"w:instr": f" {content.instr} "})
            parent.append(fld)
            self._text_runs(fld, _check_text(content.cached), fmt, track)
        elif isinstance(content, Footnote):
            self._footnote(parent, content, track)
        elif isinstance(content, Ins):
            self.emit(parent, content.content, _Track("ins", content.author, self.b._date(content.date)), fmt)
        elif isinstance(content, Del):
            outer = track if track is not None and track.kind == "ins" else None
            self.emit(parent, content.content, _Track("del", content.author, self.b._date(content.date), outer), fmt)
        elif isinstance(content, (MoveFrom, MoveTo)):
            kind = "moveFrom" if isinstance(content, MoveFrom) else "moveTo"
            date = self.b._date(content.date)
            rid = self.b._new_id()
            parent.append(_el(f"w:{kind}RangeStart", {"w:id": rid, "w:author": content.author, "w:date": date,
                                                     "w:name": content.name}))
            self.emit(parent, content.content, _Track(kind, content.author, date), fmt)
            parent.append(_el(f"w:{kind}RangeEnd", {"w:id": rid}))
        elif isinstance(content, FormatChange):
            change = (content.author, self.b._date(content.date), content.was)
            self._text_runs(parent, _check_text(content.run.text), content.run.fmt, track, change)
        elif isinstance(content, Comment):
            self._comment(parent, content, track, fmt)
        elif isinstance(content, Sequence):
            for item in content:
                self.emit(parent, item, track, fmt)
        else:
            raise TypeError(f"cannot place {type(content).__name__} in a paragraph")

    # -- runs

    def _run(self, parent: etree._Element, fmt: Fmt, track: _Track | None, *children: etree._Element,
             change: tuple[str, str, Fmt] | None = None) -> etree._Element:
        r = _el("w:r")
        rpr = _rpr(fmt)
        if change is not None:
            author, date, was = change
            rpr = rpr if rpr is not None else _el("w:rPr")
            pc = _sub(rpr, "w:rPrChange", {"w:id": self.b._new_id(), "w:author": author, "w:date": date})
            old = _rpr(was)
            pc.append(old if old is not None else _el("w:rPr"))
        if rpr is not None:
            r.append(rpr)
        for child in children:
            r.append(child)
        self._place(parent, r, track)
        return r

    def _place(self, parent: etree._Element, run: etree._Element, track: _Track | None) -> None:
        if track is None:
            parent.append(run)
            return
        if track.kind == "del":
            for t in run.iter(_qn("w:t")):
                t.tag = _qn("w:delText")
            for t in run.iter(_qn("w:instrText")):
                t.tag = _qn("w:delInstrText")
        self._wrapper_for(parent, track).append(run)

    def _wrapper_for(self, parent: etree._Element, track: _Track) -> etree._Element:
        """The open w:ins/w:del for ``track`` at the end of ``parent``, or a new one (nested for del-in-ins)."""
        if track.outer is not None:
            parent = self._wrapper_for(parent, track.outer)
        last = parent[-1] if len(parent) else None
        if last is not None and self._wrappers.get(id(last)) is track:
            return last
        wrapper = _el(f"w:{track.kind}", {"w:id": self.b._new_id(), "w:author": track.author, "w:date": track.date})
        parent.append(wrapper)
        self._wrappers[id(wrapper)] = track
        self._alive.append(wrapper)  # keeps id() values unique while this context lives
        return wrapper

    def _text_runs(self, parent: etree._Element, text: str, fmt: Fmt, track: _Track | None,
                   change: tuple[str, str, Fmt] | None = None) -> None:
        """One run for ``text``: pieces between tabs/newlines become w:t, separators w:tab/w:br."""
        if text == "":
            return
        children: list[etree._Element] = []
        for piece in re.split(r"(\t|\n)", text):
            if piece == "\t":
                children.append(_el("w:tab"))
            elif piece == "\n":
                children.append(_el("w:br"))
            elif piece:
                children.append(_t(piece))
        self._run(parent, fmt, track, *children, change=change)

    def _hyperlink(self, parent: etree._Element, link: Hyperlink, track: _Track | None) -> None:
        if (link.url is None) == (link.anchor is None):
            raise ValueError("a Hyperlink needs exactly one of url or anchor")
        attrs: dict[str, str] = {}
        if link.url is not None:
            attrs["r:id"] = self.story.add_rel(f"{_OFFDOC}/hyperlink", link.url, external=True)
        else:
            attrs["w:anchor"] = link.anchor or ""
        attrs["w:history"] = "1"
        h = _el("w:hyperlink", attrs)
        parent.append(h)
        self.emit(h, link.content, track, Fmt(style="Hyperlink"))

    def _complex_field(self, parent: etree._Element, instr: str, cached: str, fmt: Fmt,
                       track: _Track | None) -> None:
        if not cached:
            raise ValueError("a field needs a cached result (Word repairs files without one)")
        self._run(parent, fmt, track, _el("w:fldChar", {"w:fldCharType": "begin"}))
        self._run(parent, fmt, track, _t(_check_text(instr), "w:instrText"))
        self._run(parent, fmt, track, _el("w:fldChar", {"w:fldCharType": "separate"}))
        self._text_runs(parent, _check_text(cached), fmt, track)
        self._run(parent, fmt, track, _el("w:fldChar", {"w:fldCharType": "end"}))

    def _footnote(self, parent: etree._Element, note: Footnote, track: _Track | None) -> None:
        b = self.b
        fid = str(len(b._footnotes) + 1)
        fn = _el("w:footnote", {"w:id": fid})
        ctx = _Ctx(b, b._footnote_story, "word")
        p = _sub(fn, "w:p")
        _sub(_sub(p, "w:pPr"), "w:pStyle", {"w:val": "FootnoteText"})
        ctx._run(p, Fmt(style="FootnoteReference"), None, _el("w:footnoteRef"))
        ctx._text_runs(p, " ", Fmt(), None)
        ctx.emit(p, note.content, None)
        b._footnotes.append(fn)
        self._run(parent, Fmt(style="FootnoteReference"), track, _el("w:footnoteReference", {"w:id": fid}))

    def _comment(self, parent: etree._Element, c: Comment, track: _Track | None, fmt: Fmt) -> None:
        b = self.b
        root = b._add_comment(c.text, c.author, c.date, None, c.done, c.initials)
        replies = [b._add_comment(r.text, r.author, r.date, root, r.done, None) for r in c.replies]
        ids = [root, *replies]
        for cid in ids:
            parent.append(_el("w:commentRangeStart", {"w:id": str(cid)}))
        self.emit(parent, c.content, track, fmt)
        for cid in ids:
            parent.append(_el("w:commentRangeEnd", {"w:id": str(cid)}))
            ref = _el("w:r")
            _sub(_sub(ref, "w:rPr"), "w:rStyle", {"w:val": "CommentReference"})
            _sub(ref, "w:commentReference", {"w:id": str(cid)})
            parent.append(ref)


def _t(text: str, tag: str = "w:t") -> etree._Element:
    t = _el(tag)
    t.text = text
    if text != text.strip() or "  " in text:
        t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    return t


def _rpr(fmt: Fmt) -> etree._Element | None:
    """``w:rPr`` for ``fmt`` with children in schema order (rStyle, rFonts, b, i, strike, color, sz, u)."""
    if fmt.is_plain():
        return None
    rpr = _el("w:rPr")
    if fmt.style:
        _sub(rpr, "w:rStyle", {"w:val": fmt.style})
    if fmt.font:
        _sub(rpr, "w:rFonts", {"w:ascii": fmt.font, "w:hAnsi": fmt.font, "w:cs": fmt.font})
    if fmt.bold:
        _sub(rpr, "w:b")
    if fmt.italic:
        _sub(rpr, "w:i")
    if fmt.strike:
        _sub(rpr, "w:strike")
    if fmt.color:
        _sub(rpr, "w:color", {"w:val": fmt.color})
    if fmt.size:
        _sub(rpr, "w:sz", {"w:val": str(int(round(fmt.size * 2)))})
    if fmt.underline:
        _sub(rpr, "w:u", {"w:val": "single"})
    return rpr


# --------------------------------------------------------------------------- part writers


def _xml(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def _rels_xml(rels: Sequence[tuple[str, str, str, bool]]) -> bytes:
    root = etree.Element(f"{{{_PKG_REL}}}Relationships", nsmap={None: _PKG_REL})
    for rid, rtype, target, external in rels:
        rel = etree.SubElement(root, f"{{{_PKG_REL}}}Relationship", Id=rid, Type=rtype, Target=target)
        if external:
            rel.set("TargetMode", "External")
    return _xml(root)


def _content_types(overrides: Sequence[tuple[str, str]]) -> bytes:
    root = etree.Element(f"{{{_CT}}}Types", nsmap={None: _CT})
    etree.SubElement(root, f"{{{_CT}}}Default", Extension="rels",
                     ContentType="application/vnd.openxmlformats-package.relationships+xml")
    etree.SubElement(root, f"{{{_CT}}}Default", Extension="xml", ContentType="application/xml")
    for name, ctype in sorted(overrides):
        etree.SubElement(root, f"{{{_CT}}}Override", PartName=name, ContentType=ctype)
    return _xml(root)


def _sect_pr(refs: Sequence[tuple[str, str, str]], title_pg: bool) -> etree._Element:
    sect = _el("w:sectPr")
    for tag in ("w:headerReference", "w:footerReference"):
        for t, kind, rid in refs:
            if t == tag:
                _sub(sect, tag, {"w:type": kind, "r:id": rid})
    _sub(sect, "w:pgSz", {"w:w": "12240", "w:h": "15840"})
    _sub(sect, "w:pgMar", {"w:top": "1440", "w:right": "1440", "w:bottom": "1440", "w:left": "1440",
                           "w:header": "720", "w:footer": "720", "w:gutter": "0"})
    _sub(sect, "w:cols", {"w:space": "720"})
    if title_pg:
        _sub(sect, "w:titlePg")
    _sub(sect, "w:docGrid", {"w:linePitch": "360"})
    return sect


def _style(root: etree._Element, stype: str, sid: str, name: str, *, based_on: str | None = None,
           next_style: str | None = None, default: bool = False, ui_priority: int | None = None,
           q_format: bool = False, semi_hidden: bool = False, ppr: etree._Element | None = None,
           rpr: etree._Element | None = None, tblpr: etree._Element | None = None) -> None:
    attrs = {"w:type": stype, "w:styleId": sid}
    if default:
        attrs["w:default"] = "1"
    st = _sub(root, "w:style", attrs)
    _sub(st, "w:name", {"w:val": name})
    if based_on:
        _sub(st, "w:basedOn", {"w:val": based_on})
    if next_style:
        _sub(st, "w:next", {"w:val": next_style})
    if ui_priority is not None:
        _sub(st, "w:uiPriority", {"w:val": str(ui_priority)})
    if semi_hidden:
        _sub(st, "w:semiHidden")
        _sub(st, "w:unhideWhenUsed")
    if q_format:
        _sub(st, "w:qFormat")
    for child in (ppr, rpr, tblpr):
        if child is not None:
            st.append(child)


def _ppr(*, spacing: tuple[int, int] | None = None, keep_next: bool = False, ind: int | None = None,
         jc: str | None = None, outline: int | None = None, num: tuple[int, int] | None = None,
         contextual: bool = False) -> etree._Element:
    ppr = _el("w:pPr")
    if keep_next:
        _sub(ppr, "w:keepNext")
    if num is not None:
        np_ = _sub(ppr, "w:numPr")
        _sub(np_, "w:ilvl", {"w:val": str(num[1])})
        _sub(np_, "w:numId", {"w:val": str(num[0])})
    if spacing is not None:
        _sub(ppr, "w:spacing", {"w:before": str(spacing[0]), "w:after": str(spacing[1])})
    if ind is not None:
        _sub(ppr, "w:ind", {"w:left": str(ind)})
    if contextual:
        _sub(ppr, "w:contextualSpacing")
    if jc:
        _sub(ppr, "w:jc", {"w:val": jc})
    if outline is not None:
        _sub(ppr, "w:outlineLvl", {"w:val": str(outline)})
    return ppr


def _styles(b: DocumentBuilder) -> etree._Element:
    root = etree.Element(_qn("w:styles"), nsmap=_STORY_NSMAP)
    root.set(_qn("mc:Ignorable"), _IGNORABLE)
    defaults = _sub(root, "w:docDefaults")
    rpr_default = _sub(_sub(defaults, "w:rPrDefault"), "w:rPr")
    _sub(rpr_default, "w:rFonts", {"w:ascii": b.font, "w:hAnsi": b.font, "w:eastAsia": b.font, "w:cs": b.font})
    _sub(rpr_default, "w:sz", {"w:val": str(int(round(b.font_size * 2)))})
    _sub(rpr_default, "w:szCs", {"w:val": str(int(round(b.font_size * 2)))})
    _sub(rpr_default, "w:lang", {"w:val": "en-US", "w:eastAsia": "en-US", "w:bidi": "ar-SA"})
    ppr_default = _sub(_sub(defaults, "w:pPrDefault"), "w:pPr")
    _sub(ppr_default, "w:spacing", {"w:after": "120", "w:line": "259", "w:lineRule": "auto"})

    def rpr(*, bold: bool = False, size: float | None = None, color: str | None = None,
            vert: str | None = None, underline: bool = False) -> etree._Element:
        el = _el("w:rPr")
        if bold:
            _sub(el, "w:b")
        if color:
            _sub(el, "w:color", {"w:val": color})
        if size:
            _sub(el, "w:sz", {"w:val": str(int(size * 2))})
        if underline:
            _sub(el, "w:u", {"w:val": "single"})
        if vert:
            _sub(el, "w:vertAlign", {"w:val": vert})
        return el

    _style(root, "paragraph", "Normal", "Normal", default=True, q_format=True)
    _style(root, "paragraph", "Title", "Title", based_on="Normal", next_style="Normal", ui_priority=10,
           q_format=True, ppr=_ppr(spacing=(0, 240), jc="center"), rpr=rpr(bold=True, size=16))
    for level in (1, 2, 3):
        num = (b._heading_num, level - 1) if b._heading_num is not None else None
        _style(root, "paragraph", f"Heading{level}", f"heading {level}", based_on="Normal", next_style="Normal",
               ui_priority=9, q_format=True,
               ppr=_ppr(keep_next=True, spacing=(240, 120), outline=level - 1, num=num),
               rpr=rpr(bold=True, size=(14, 12, 11)[level - 1]))
    _style(root, "paragraph", "ListParagraph", "List Paragraph", based_on="Normal", ui_priority=34,
           q_format=True, ppr=_ppr(ind=720, contextual=True))
    _style(root, "paragraph", "Header", "header", based_on="Normal", semi_hidden=True, ui_priority=99)
    _style(root, "paragraph", "Footer", "footer", based_on="Normal", semi_hidden=True, ui_priority=99)
    _style(root, "paragraph", "FootnoteText", "footnote text", based_on="Normal", semi_hidden=True,
           ui_priority=99, ppr=_ppr(spacing=(0, 0)), rpr=rpr(size=10))
    _style(root, "character", "FootnoteReference", "footnote reference", semi_hidden=True, ui_priority=99,
           rpr=rpr(vert="superscript"))
    _style(root, "paragraph", "CommentText", "annotation text", based_on="Normal", semi_hidden=True,
           ui_priority=99, rpr=rpr(size=10))
    _style(root, "character", "CommentReference", "annotation reference", semi_hidden=True, ui_priority=99,
           rpr=rpr(size=8))
    _style(root, "character", "DefaultParagraphFont", "Default Paragraph Font", default=True,
           semi_hidden=True, ui_priority=1)
    _style(root, "character", "Hyperlink", "Hyperlink", ui_priority=99, semi_hidden=True,
           rpr=rpr(color="0563C1", underline=True))
    normal_tbl = _el("w:tblPr")
    _sub(normal_tbl, "w:tblInd", {"w:w": "0", "w:type": "dxa"})
    mar = _sub(normal_tbl, "w:tblCellMar")
    for side, width in (("top", "0"), ("left", "108"), ("bottom", "0"), ("right", "108")):
        _sub(mar, f"w:{side}", {"w:w": width, "w:type": "dxa"})
    _style(root, "table", "TableNormal", "Normal Table", default=True, semi_hidden=True, ui_priority=99,
           tblpr=normal_tbl)
    grid_tbl = _el("w:tblPr")
    borders = _sub(grid_tbl, "w:tblBorders")
    for side in ("top", "left", "bottom", "right", "insideH", "insideV"):
        _sub(borders, f"w:{side}", {"w:val": "single", "w:sz": "4", "w:space": "0", "w:color": "auto"})
    _style(root, "table", "TableGrid", "Table Grid", based_on="TableNormal", ui_priority=39, tblpr=grid_tbl)
    return root


def _settings(b: DocumentBuilder) -> etree._Element:
    root = etree.Element(_qn("w:settings"), nsmap=_STORY_NSMAP)
    root.set(_qn("mc:Ignorable"), _IGNORABLE)
    if b.track_revisions:
        _sub(root, "w:trackRevisions")
    _sub(root, "w:defaultTabStop", {"w:val": "720"})
    _sub(root, "w:characterSpacingControl", {"w:val": "doNotCompress"})
    if b._footnotes:
        fpr = _sub(root, "w:footnotePr")
        _sub(fpr, "w:footnote", {"w:id": "-1"})
        _sub(fpr, "w:footnote", {"w:id": "0"})
    compat = _sub(root, "w:compat")
    _sub(compat, "w:compatSetting", {"w:name": "compatibilityMode", "w:uri": "http://schemas.microsoft.com/office/word",
                                     "w:val": "15"})
    return root


def _numbering(b: DocumentBuilder) -> etree._Element:
    root = etree.Element(_qn("w:numbering"), nsmap=_STORY_NSMAP)
    root.set(_qn("mc:Ignorable"), _IGNORABLE)
    for scheme, abstract_id in sorted(b._abstract.items(), key=lambda kv: kv[1]):
        an = _sub(root, "w:abstractNum", {"w:abstractNumId": str(abstract_id)})
        _sub(an, "w:nsid", {"w:val": f"{0x1A2B0000 + abstract_id:08X}"})
        _sub(an, "w:multiLevelType", {"w:val": "multilevel"})
        for ilvl, level in enumerate(NUMBERING_SCHEMES[scheme]):
            lvl = _sub(an, "w:lvl", {"w:ilvl": str(ilvl)})
            _sub(lvl, "w:start", {"w:val": "1"})
            _sub(lvl, "w:numFmt", {"w:val": level.fmt})
            if scheme == "headings":
                _sub(lvl, "w:pStyle", {"w:val": f"Heading{ilvl + 1}"})
            _sub(lvl, "w:lvlText", {"w:val": level.text})
            _sub(lvl, "w:lvlJc", {"w:val": "left"})
            ppr = _sub(lvl, "w:pPr")
            _sub(ppr, "w:ind", {"w:left": str(level.indent), "w:hanging": str(_HANGING)})
    for num_id, abstract_id, start in b._nums:
        num = _sub(root, "w:num", {"w:numId": str(num_id)})
        _sub(num, "w:abstractNumId", {"w:val": str(abstract_id)})
        if start is not None:
            override = _sub(num, "w:lvlOverride", {"w:ilvl": "0"})
            _sub(override, "w:startOverride", {"w:val": str(start)})
    return root


def _footnotes(b: DocumentBuilder) -> etree._Element:
    root = etree.Element(_qn("w:footnotes"), nsmap=_STORY_NSMAP)
    root.set(_qn("mc:Ignorable"), _IGNORABLE)
    for fid, kind, mark in (("-1", "separator", "w:separator"), ("0", "continuationSeparator",
                                                                   "w:continuationSeparator")):
        fn = _sub(root, "w:footnote", {"w:type": kind, "w:id": fid})
        p = _sub(fn, "w:p")
        ppr = _sub(p, "w:pPr")
        _sub(ppr, "w:spacing", {"w:after": "0", "w:line": "240", "w:lineRule": "auto"})
        _sub(_sub(p, "w:r"), mark)
    for fn in b._footnotes:
        root.append(etree.fromstring(etree.tostring(fn)))
    return root


def _comments_xml(b: DocumentBuilder) -> etree._Element:
    root = etree.Element(_qn("w:comments"), nsmap=_STORY_NSMAP)
    root.set(_qn("mc:Ignorable"), _IGNORABLE)
    for rec in b._comments:
        c = _sub(root, "w:comment", {"w:id": str(rec.cid), "w:author": rec.author, "w:date": rec.date,
                                     "w:initials": rec.initials})
        for n, (text, pid) in enumerate(zip(rec.paragraphs, rec.para_ids)):
            p = _sub(c, "w:p", {"w14:paraId": pid, "w14:textId": pid})
            _sub(_sub(p, "w:pPr"), "w:pStyle", {"w:val": "CommentText"})
            if n == 0:
                r = _sub(p, "w:r")
                _sub(_sub(r, "w:rPr"), "w:rStyle", {"w:val": "CommentReference"})
                _sub(r, "w:annotationRef")
            if text:
                ctx = _Ctx(b, b._comment_story, "word")
                ctx._text_runs(p, text, Fmt(), None)
    return root


def _root_with(tag: str) -> etree._Element:
    root = etree.Element(_qn(tag), nsmap=_STORY_NSMAP)
    root.set(_qn("mc:Ignorable"), _IGNORABLE)
    return root


def _comments_ex(b: DocumentBuilder) -> etree._Element:
    root = _root_with("w15:commentsEx")
    by_id = {rec.cid: rec for rec in b._comments}
    for rec in b._comments:
        attrs = {"w15:paraId": rec.para_ids[-1]}
        if rec.parent is not None:
            attrs["w15:paraIdParent"] = by_id[rec.parent].para_ids[-1]
        attrs["w15:done"] = "1" if rec.done else "0"
        _sub(root, "w15:commentEx", attrs)
    return root


def _comments_ids(b: DocumentBuilder) -> etree._Element:
    root = _root_with("w16cid:commentsIds")
    for rec in b._comments:
        _sub(root, "w16cid:commentId", {"w16cid:paraId": rec.para_ids[-1], "w16cid:durableId": rec.durable_id})
    return root


def _comments_extensible(b: DocumentBuilder) -> etree._Element:
    root = _root_with("w16cex:commentsExtensible")
    for rec in b._comments:
        _sub(root, "w16cex:commentExtensible", {"w16cex:durableId": rec.durable_id, "w16cex:dateUtc": rec.date})
    return root


def _people(b: DocumentBuilder) -> etree._Element:
    root = _root_with("w15:people")
    seen: list[str] = []
    for rec in b._comments:
        if rec.author not in seen:
            seen.append(rec.author)
    for author in seen:
        person = _sub(root, "w15:person", {"w15:author": author})
        _sub(person, "w15:presenceInfo", {"w15:providerId": "None", "w15:userId": author})
    return root


def _core(b: DocumentBuilder) -> etree._Element:
    cp = "http://schemas.openxmlformats.org/package/2006/metadata/core-properties"
    dc = "http://purl.org/dc/elements/1.1/"
    dcterms = "http://purl.org/dc/terms/"
    xsi = "http://www.w3.org/2001/XMLSchema-instance"
    root = etree.Element(f"{{{cp}}}coreProperties",
                         nsmap={"cp": cp, "dc": dc, "dcterms": dcterms, "dcmitype": "http://purl.org/dc/dcmitype/",
                                "xsi": xsi})
    if b.title_text:
        etree.SubElement(root, f"{{{dc}}}title").text = b.title_text
    if b.subject:
        etree.SubElement(root, f"{{{dc}}}subject").text = b.subject
    etree.SubElement(root, f"{{{dc}}}creator").text = b.creator
    etree.SubElement(root, f"{{{cp}}}lastModifiedBy").text = b.creator
    etree.SubElement(root, f"{{{cp}}}revision").text = "1"
    for tag in ("created", "modified"):
        el = etree.SubElement(root, f"{{{dcterms}}}{tag}")
        el.set(f"{{{xsi}}}type", "dcterms:W3CDTF")
        el.text = _iso(b.date)
    return root


def _font_table(b: DocumentBuilder) -> etree._Element:
    root = _root_with("w:fonts")
    for name in sorted({b.font, "Calibri"}):
        font = _sub(root, "w:font", {"w:name": name})
        _sub(font, "w:family", {"w:val": "roman" if "Times" in name else "swiss"})
        _sub(font, "w:pitch", {"w:val": "variable"})
    return root


def _theme(b: DocumentBuilder) -> etree._Element:
    """A minimal complete DrawingML theme (validators require the part; Word reads fonts from it)."""
    a = "http://schemas.openxmlformats.org/drawingml/2006/main"

    def el(parent: etree._Element, local: str, **attrs: str) -> etree._Element:
        return etree.SubElement(parent, f"{{{a}}}{local}", **attrs)

    root = etree.Element(f"{{{a}}}theme", nsmap={"a": a}, name="Office Theme")
    elements = el(root, "themeElements")
    clr = el(elements, "clrScheme", name="Office")
    el(el(clr, "dk1"), "sysClr", val="windowText", lastClr="000000")
    el(el(clr, "lt1"), "sysClr", val="window", lastClr="FFFFFF")
    for slot, rgb in (("dk2", "44546A"), ("lt2", "E7E6E6"), ("accent1", "4472C4"), ("accent2", "ED7D31"),
                      ("accent3", "A5A5A5"), ("accent4", "FFC000"), ("accent5", "5B9BD5"), ("accent6", "70AD47"),
                      ("hlink", "0563C1"), ("folHlink", "954F72")):
        el(el(clr, slot), "srgbClr", val=rgb)
    fonts = el(elements, "fontScheme", name="Office")
    for kind in ("majorFont", "minorFont"):
        group = el(fonts, kind)
        el(group, "latin", typeface=b.font)
        el(group, "ea", typeface="")
        el(group, "cs", typeface="")
    fmt = el(elements, "fmtScheme", name="Office")
    fills = el(fmt, "fillStyleLst")
    lines = el(fmt, "lnStyleLst")
    effects = el(fmt, "effectStyleLst")
    backgrounds = el(fmt, "bgFillStyleLst")
    for width in ("6350", "12700", "19050"):
        el(el(fills, "solidFill"), "schemeClr", val="phClr")
        el(el(el(lines, "ln", w=width), "solidFill"), "schemeClr", val="phClr")
        el(el(effects, "effectStyle"), "effectLst")
        el(el(backgrounds, "solidFill"), "schemeClr", val="phClr")
    el(root, "objectDefaults")
    el(root, "extraClrSchemeLst")
    return root


def _app() -> etree._Element:
    ns = "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"
    root = etree.Element(f"{{{ns}}}Properties", nsmap={None: ns})
    etree.SubElement(root, f"{{{ns}}}Application").text = "redlinebench"
    etree.SubElement(root, f"{{{ns}}}DocSecurity").text = "0"
    return root


# --------------------------------------------------------------------------- sample contracts

_TERMS = ("Services", "Customer Data", "Confidential Information", "Fees", "Deliverables", "Affiliate",
          "Intellectual Property Rights", "Service Levels", "Personal Data", "Term")
_SUBJECTS = ("The Vendor", "The Customer", "Each party", "Neither party", "The receiving party", "The Supplier")
_VERBS = ("shall provide", "shall not disclose", "may terminate", "shall indemnify", "shall maintain",
          "warrants", "shall promptly notify", "may suspend", "shall use commercially reasonable efforts to deliver")
_OBJECTS = ("the Services in accordance with the Service Levels", "any Confidential Information to a third party",
            "this Agreement on thirty (30) days' written notice", "the other party against third-party claims",
            "adequate insurance coverage throughout the Term", "that the Deliverables will conform to the Specifications",
            "the other party of any Security Incident", "access to the Services for non-payment of Fees",
            "reasonable records of all Fees invoiced")
_TAILS = ("", " within ten (10) business days", " at its own cost", " except as required by law",
          " subject to Section 9.2", " in a professional and workmanlike manner", " without undue delay")
_HEADINGS = ("Definitions", "Services", "Fees and Payment", "Confidentiality", "Data Protection", "Warranties",
             "Indemnification", "Limitation of Liability", "Term and Termination", "Insurance", "Audit",
             "Intellectual Property", "Subcontracting", "Notices", "General")


def sample_contract(paragraphs: int = 600, *, seed: int = 0, title: str = "MASTER SERVICES AGREEMENT",
                    other_author: str | None = None, date: datetime = DEFAULT_DATE,
                    fragment: bool = True) -> DocumentBuilder:
    """A realistic-looking numbered contract of about ``paragraphs`` paragraphs (benchmarks, tests).

    Deterministic for a given ``seed``. Headings, clauses on levels 0-3 (``1.``, ``1.1``,
    ``1.1.1``, ``(a)``), defined terms in bold, a tab, a hyperlink and a fee table every few
    sections; one to three sentences per clause. ``fragment`` splits clause text into runs of a
    few words, as Word's editing sessions (rsids) do. With ``other_author`` about one clause in
    eight carries that author's pending insertion or deletion (a turn-2 document).
    """
    import random

    rng = random.Random(seed)
    b = DocumentBuilder(title=title.title(), creator="LargeCo Legal", date=date)
    b.title(title)
    b.paragraph(["This Agreement is entered into by ", Run("LargeCo Inc.", bold=True), " (the \"Customer\") and ",
                 Run("AgentCo Ltd.", bold=True), " (the \"Vendor\")."])
    count = 2
    section = 0
    while count < paragraphs:
        heading = _HEADINGS[section % len(_HEADINGS)]
        section += 1
        b.clause(Run(heading, bold=True), 0)
        count += 1
        for sub in range(rng.randint(2, 5)):
            if count >= paragraphs:
                break
            level = 1 if sub == 0 else rng.choice((1, 1, 2, 2, 3))
            sentences = [f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}{rng.choice(_TAILS)}."
                         for _ in range(rng.choice((1, 2, 2, 3)))]
            sentence = " ".join(sentences)
            term = rng.choice(_TERMS)
            content: list[Content] = []
            if rng.random() < 0.25:
                content += ["\u201c", Run(term, bold=True), "\u201d means ", sentence[0].lower() + sentence[1:]]
            elif fragment:
                # Word splits runs at every editing session (rsids): a few words per run
                words = sentence.split(" ")
                cut = 0
                while cut < len(words):
                    size = rng.randint(2, 7)
                    piece = " ".join(words[cut:cut + size]) + (" " if cut + size < len(words) else "")
                    content.append(Run(piece, italic=rng.random() < 0.03))
                    cut += size
            else:
                content.append(sentence)
            if rng.random() < 0.05:
                content += [" See ", Hyperlink("the Service Description", "https://example.com/services"), "."]
            if rng.random() < 0.05:
                content = ["Notice period:", Tab(), *content]
            if other_author and rng.random() < 0.125:
                if rng.random() < 0.5:
                    content.append(Ins(" and any successor thereto", other_author, date))
                else:
                    content.append(Del(" as updated from time to time", other_author, date))
            b.clause(content, level)
            count += 1
        if section % 6 == 0 and count + 3 < paragraphs:
            b.table([["Item", "Fee", "Payment terms"], ["Platform subscription", "USD 120,000", "Annually in advance"],
                     ["Support", "USD 15,000", "Quarterly"]])
            count += 9
    return b
