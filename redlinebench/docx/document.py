"""RedlineDocument: the friendly proxy over one open .docx.

It owns the package, the id allocator and a cached *index* of the body: every paragraph in
document order (table cells included) with its atoms, clause number, comments and revisions.
Any mutation bumps a generation counter so the index is rebuilt on next read (reusing the walk of
every paragraph that is provably unchanged); paragraph ids
(``p-001``...) are assigned once per load and kept for paragraphs that survive edits, new
paragraphs get the next free number.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from lxml import etree

from ..errors import DocxError
from .numbering import Numbering
from .render import rendering
from .oxml import qn
from .package import MAX_XML_MARKUP, RT_BASE, Package, atomic_write
from .review import PR_CHANGES, WRAPPERS
from .runs import (
    REVISION_WRAPPERS,
    VISIBLE,
    W_AUTHOR,
    W_DATE,
    W_ID,
    W_P,
    W_PPR,
    W_PPRCHANGE,
    W_RPR,
    W_RPRCHANGE,
    W_SDT,
    W_SDTCONTENT,
    W_TBL,
    W_TC,
    W_TR,
    W_VAL,
    Walk,
    walk_paragraph,
)
from .types import Comment, Finding, Revision, Segment

W_CUSTOMXML = qn("w:customXml")
W_BODY = qn("w:body")
MARK_TAGS = {qn("w:ins"): "para_ins", qn("w:del"): "para_del", qn("w:moveFrom"): "move_from",
             qn("w:moveTo"): "move_to"}

RT_COMMENTS = RT_BASE + "comments"
RT_NUMBERING = RT_BASE + "numbering"
RT_STYLES = RT_BASE + "styles"
STORY_RELTYPES = tuple(RT_BASE + t for t in ("header", "footer", "footnotes", "endnotes", "comments"))


_W_NS = {"w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main"}


def format_date(date: datetime | str | None) -> str:
    """xsd:dateTime in UTC with seconds and a trailing Z, as Word writes it."""
    if isinstance(date, str):
        try:
            date = datetime.fromisoformat(date.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"date must be an ISO 8601 date-time, got {date!r}") from None
        if date.tzinfo is None:
            date = date.replace(tzinfo=timezone.utc)
    if date is None:
        date = datetime.now(timezone.utc)
    if date.tzinfo is not None:
        date = date.astimezone(timezone.utc)
    return date.strftime("%Y-%m-%dT%H:%M:%SZ")


# Tracked changes the tools name "rev-N" by their w:id (run wrappers, paragraph marks, property changes).
_REVISION_TAGS = (*WRAPPERS, *PR_CHANGES)


class IdAllocator:
    """One counter above every ``w:id`` in every story part (revisions, comments, bookmarks)."""

    def __init__(self, roots) -> None:
        highest = 0
        for root in roots:
            for value in root.xpath("//@w:id", namespaces=_W_NS):
                try:
                    number = int(value)
                except ValueError:
                    continue
                if number > highest:
                    highest = number
        self._next = highest + 1

    def next(self) -> int:
        value = self._next
        self._next += 1
        return value


class Paragraph:
    """One paragraph as the tools see it (a snapshot: rebuilt after every mutation).

    It keeps strings, its comment markers and the ``w:p`` element, not the walk it was described
    from: a walk holds an lxml proxy per run and text node, and keeping every paragraph's alive made
    each collector pass cost more per paragraph the longer the document (``walk()`` walks again).
    """

    __slots__ = ("id", "index", "number", "style", "in_table", "flags", "segments", "comment_ids",
                 "text", "accepted_text", "original_text", "_p", "markers", "mark", "row", "_format_revisions",
                 "mark_kinds", "revision_ids")

    def __init__(self, p, pid: str, index: int, walk: Walk, *, number: str | None, style: str | None,
                 in_table: bool, mark: tuple[str, object] | None, comment_ids: list[str], flags: list[str],
                 segments: list[Segment]) -> None:
        self._p = p
        self.markers = tuple(walk.markers)
        self.id = pid
        self.index = index
        self.number = number
        self.style = style
        self.in_table = in_table
        self.mark = mark
        self.flags = flags
        self.segments = segments
        self.comment_ids = comment_ids
        self.text = walk.current
        self.accepted_text = self.text
        self.original_text = walk.original
        self.row: str | None = None   # "ins" / "del" when its table row is a tracked insertion/deletion
        self._format_revisions: list[Revision] = []
        self.mark_kinds: set[str] = set()   # every paragraph-mark revision kind it carries
        self.revision_ids: list[str] = []   # every tracked change in it (text, mark, format, row)

    @property
    def element(self):
        return self._p

    def walk(self) -> Walk:
        """The paragraph's atoms and comment markers, walked afresh from its element.

        On a snapshot older than the document's last change this is the element as it is now.
        """
        return walk_paragraph(self._p)

    def __repr__(self) -> str:
        return f"<Paragraph {self.id} {self.number or ''} {self.text[:40]!r}>"


class _Index:
    def __init__(self, paragraphs: list[Paragraph], by_id: dict[str, Paragraph], comments: list[Comment],
                 revisions: list[Revision]) -> None:
        self.paragraphs = paragraphs
        self.by_id = by_id
        self.comments = comments
        self.revisions = revisions


def _wrapped(container, tag: str):
    """Children of ``container`` with ``tag`` in document order, also inside content controls and
    custom XML (Word wraps rows and cells in ``w:sdt`` / ``w:customXml``)."""
    for child in container:
        if child.tag == tag:
            yield child
        elif child.tag == W_SDT:
            content = child.find(W_SDTCONTENT)
            if content is not None:
                yield from _wrapped(content, tag)
        elif child.tag == W_CUSTOMXML:
            yield from _wrapped(child, tag)


def iter_block_paragraphs(container, in_table: bool = False):
    """(w:p, in_table) for every paragraph of a block container, tables included, in order."""
    for child in container:
        tag = child.tag
        if tag == W_P:
            yield child, in_table
        elif tag == W_TBL:
            for tr in _wrapped(child, W_TR):
                for tc in _wrapped(tr, W_TC):
                    yield from iter_block_paragraphs(tc, True)
        elif tag == W_SDT:
            content = child.find(W_SDTCONTENT)
            if content is not None:
                yield from iter_block_paragraphs(content, in_table)
        elif tag == W_CUSTOMXML:
            yield from iter_block_paragraphs(child, in_table)


def _row_mark(p):
    """The tracked insertion/deletion of the table row holding ``p`` (``w:trPr/w:ins|w:del``)."""
    node = p.getparent()
    while node is not None and node.tag != W_TR:
        node = node.getparent()
    if node is None:
        return None
    trpr = node.find(qn("w:trPr"))
    if trpr is None:
        return None
    for child in trpr:
        if child.tag in (qn("w:ins"), qn("w:del")):
            return child
    return None


W_DEL_TAG = qn("w:del")
W_FLDCHAR_TAG = qn("w:fldChar")
W_FLDCHARTYPE = qn("w:fldCharType")
W_MOVEFROM_TAG = qn("w:moveFrom")
W_PSTYLE = qn("w:pStyle")


def first_child(el, tag: str):
    """``el.find(tag)`` for a plain Clark tag, without the path machinery (hot in index builds)."""
    for child in el:
        if child.tag == tag:
            return child
    return None


def mark_revisions(p) -> list:
    """Every paragraph-mark revision of ``p`` (an inserted mark may also be deleted)."""
    ppr = first_child(p, W_PPR)
    rpr = first_child(ppr, W_RPR) if ppr is not None else None
    if rpr is None:
        return []
    return [child for child in rpr if child.tag in MARK_TAGS]


def mark_revision(p):
    """The paragraph-mark revision element (``w:pPr/w:rPr/w:ins|del|moveFrom|moveTo``) or None."""
    ppr = first_child(p, W_PPR)
    if ppr is None:
        return None
    rpr = first_child(ppr, W_RPR)
    if rpr is None:
        return None
    for child in rpr:
        if child.tag in MARK_TAGS:
            return child
    return None


#: Paragraphs a document may have: each is indexed on open and shown by read_document, so an element
#: bomb that fits the byte limits (a million tiny paragraphs) is refused instead of eating gigabytes.
MAX_PARAGRAPHS = 50_000
#: Limits on what each story part (body, headers, footers, notes, comments) may hold. Every tool
#: call walks the body and the read view shows all of it, so cost grows with these; they keep any
#: accepted file under 500 MB peak and every tool call under 2 s on a 2-core machine
#: (``benchmarks/hostile.py``), and sit far above real contracts (600 paragraphs: ~10,000
#: elements, ~80,000 characters, a few dozen runs in the longest paragraph) and above the
#: 9,600-paragraph scale ``benchmarks/engine.py`` measures (~150,000 elements).
MAX_PART_ELEMENTS = 300_000
MAX_RUNS_PER_PARAGRAPH = 20_000
MAX_TEXT_CHARS = 2_000_000
#: A paragraph is edited (or reserved, or a span of it commented) only up to this many runs: one
#: edit adds at most a few thousand (a 4,000-character new_text of tabs) and a comment one, so our
#: own output stays under the open limit above and reopens for grading.
MAX_EDITABLE_RUNS = 2_500


_COUNT_RUNS = etree.XPath("count(.//w:r)", namespaces=_W_NS)
_COUNT_ELEMENTS = etree.XPath("count(//*)")
_TEXT_LENGTH = etree.XPath("string-length(string(/*))")
_COUNT_ALL_RUNS = etree.XPath("count(//w:r)", namespaces=_W_NS)


def editable(doc, p, *, text: int = 0) -> str | None:
    """Why paragraph ``p`` may not be changed by an operation adding ``text`` characters (its own
    and its comment's), or None: too fragmented, or the output would pass the size limits."""
    runs = int(_COUNT_RUNS(p))
    if runs > MAX_EDITABLE_RUNS:
        return (f"paragraph_too_complex: the paragraph has {runs} runs (limit {MAX_EDITABLE_RUNS} for a change); "
                "leave it as it is")
    # worst case: every run of the paragraph wrapped (deletion), and per new character up to 16
    # elements (a one-character line is a paragraph copying its neighbour's pPr and run rPr)
    return doc.check_growth(100 + 2 * runs + 16 * text, 100 + text)


def _format_changes_by_paragraph(root) -> dict[object, list]:
    """Each paragraph below ``root`` -> its formatting changes (``w:rPrChange``/``w:pPrChange``), in one pass."""
    out: dict[object, list] = {}
    for change in root.iter(W_RPRCHANGE, W_PPRCHANGE):
        node = change.getparent()
        while node is not None and node.tag != W_P:
            node = node.getparent()
        if node is not None:
            out.setdefault(node, []).append(change)
    return out


def _part_size(root) -> tuple[int, int]:
    """(elements, characters of text) of one part: XPath counts run in C, so this is cheap."""
    return int(_COUNT_ELEMENTS(root)), int(_TEXT_LENGTH(root))


def _check_limits(name: str, part: str, root) -> tuple[int, int]:
    """Refuse a story part beyond the cost limits, naming the limit; returns its headroom."""
    elements, chars = _part_size(root)
    if elements > MAX_PART_ELEMENTS:
        raise DocxError(f"{part} has {elements} XML elements (limit {MAX_PART_ELEMENTS}; a long contract "
                        "has a few tens of thousands)", path=name)
    # the per-paragraph query is only needed when the part has more runs than one paragraph may
    heavy = (root.xpath("(//w:p[count(.//w:r) > $n])[1]", namespaces=_W_NS, n=MAX_RUNS_PER_PARAGRAPH)
             if _COUNT_ALL_RUNS(root) > MAX_RUNS_PER_PARAGRAPH else None)
    if heavy:
        runs = int(heavy[0].xpath("count(.//w:r)", namespaces=_W_NS))
        where = int(heavy[0].xpath("count(preceding::w:p)", namespaces=_W_NS)) + 1
        raise DocxError(f"{part}: paragraph {where} has {runs} runs (limit {MAX_RUNS_PER_PARAGRAPH} runs per "
                        "paragraph)", path=name)
    if chars > MAX_TEXT_CHARS:
        raise DocxError(f"{part} holds {chars} characters of text (limit {MAX_TEXT_CHARS})", path=name)
    return MAX_PART_ELEMENTS - elements, MAX_TEXT_CHARS - chars


@contextmanager
def collector_paused():
    """Hold Python's cyclic garbage collector while a view (and the index under it) is built.

    The build allocates a few hundred thousand short-lived objects (lxml proxies, atoms, segments,
    strings) and makes no reference cycles, so reference counting frees them as it goes. With the
    collector running, the allocation bursts also trigger full collections that walk every live
    object, a cost that grows with the document. The one pass pending from the pause runs on the
    next allocations after it and visits only what the index keeps (about ten objects a paragraph).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class RedlineDocument:
    """One open .docx: read it, redline it with tracked changes, comment on it, save it."""

    def __init__(self, package: Package) -> None:
        self._pkg = package
        self.name = package.name
        self._root = package.xml(package.main_part)
        body = self._root.find(W_BODY)
        if body is None:
            raise DocxError(f"{package.main_part} has no w:body", path=self.name)
        n_paragraphs = int(body.xpath("count(.//w:p)", namespaces=_W_NS))
        if n_paragraphs > MAX_PARAGRAPHS:  # every tool call indexes and may show them all
            raise DocxError(f"{package.main_part} has {n_paragraphs} paragraphs (limit {MAX_PARAGRAPHS}; a "
                            "long contract has a few thousand)", path=self.name)
        self._body = body
        self._headroom = self._measure(check=True)
        self._ids = IdAllocator(self._story_roots())
        self._normalise_revisions()
        self._pids: dict[object, str] = {}
        self._els: dict[str, object] = {}
        self._next_pid = 1
        for p, _ in iter_block_paragraphs(self._body):
            self._register(p)
        self._generation = 0
        self._index_cache: _Index | None = None
        self._index_generation = -1
        self._view_cache: dict[tuple, str] = {}   # read views of the current state (see read_view)
        self._view_generation = -1
        #: the read view's author aliases (``A1``...): they only grow, so results keep their meaning
        self.read_view_aliases: dict[str, str] = {}
        self._numbering: Numbering | None = None
        self.numbering  # parse numbering.xml and styles.xml now: a broken part fails at open
        self._id_seq = 0
        self._seed = hashlib.sha256(package.blob(package.main_part)).digest()

    # ------------------------------------------------------------------ opening / saving
    @classmethod
    def open(cls, source: str | Path | bytes, *, name: str | None = None) -> "RedlineDocument":
        return cls(Package.open(source, name=name))

    def to_bytes(self) -> bytes:
        return self._pkg.to_bytes()

    def save(self, path: str | Path, *, validate: bool = False) -> None:
        """Write atomically. With ``validate=True`` refuse to write a document with errors."""
        if validate:
            errors = [f for f in self.validate() if f.severity == "error"]
            if errors:
                first = errors[0]
                raise DocxError(f"refusing to save: {first.code}: {first.message} ({first.part})", path=path)
        atomic_write(path, self.to_bytes())

    def validate(self) -> list[Finding]:
        """Semantic checks Word enforces (delegates to :mod:`redlinebench.docx.validate`)."""
        try:
            from . import validate as _validate
        except ImportError:  # engine-QA's module not merged yet
            return []
        func = getattr(_validate, "validate", None)
        if func is None:
            return []
        return list(func(self))

    # ------------------------------------------------------------------ internals shared by modules
    @property
    def package(self) -> Package:
        return self._pkg

    @property
    def body(self):
        return self._body

    @property
    def ids(self) -> IdAllocator:
        return self._ids

    def story_parts(self, *, comments: bool = False):
        """(part name, root) of the main document and every header, footer and note part (and
        the comments part with ``comments=True``)."""
        out = [(self._pkg.main_part, self._root)]
        kinds = STORY_RELTYPES if comments else STORY_RELTYPES[:4]
        for rel in self._pkg.rels(self._pkg.main_part):
            if rel.reltype in kinds and not rel.external and self._pkg.has(rel.target):
                out.append((rel.target, self._pkg.xml(rel.target)))
        return out

    def _measure(self, *, check: bool = False) -> tuple[int, int, int]:
        """What may still be added before the output would pass an open limit: elements and
        characters in the fullest story part (body, headers, notes, comments), and tags of markup
        over the whole package. With ``check``, refuse a part over the limits."""
        room = [MAX_PART_ELEMENTS, MAX_TEXT_CHARS]
        for part, root in self.story_parts(comments=True):
            if check:
                elements, chars = _check_limits(self.name, part, root)
            else:
                used = _part_size(root)
                elements, chars = MAX_PART_ELEMENTS - used[0], MAX_TEXT_CHARS - used[1]
            room = [min(room[0], elements), min(room[1], chars)]
        markup = self._pkg.markup_at_open if check else self._pkg.markup_bound()
        return room[0], room[1], MAX_XML_MARKUP - markup

    def check_growth(self, elements: int, chars: int) -> str | None:
        """Before an operation that adds at most ``elements`` elements and ``chars`` characters to a
        story part: why it would make the output too large to reopen for grading, or None.

        A running budget, recounted only when an operation might exhaust it, so documents far
        below the limits (every real one) never pay for a count."""
        need = (elements, chars, 2 * elements)   # an element is at most two tags
        room = self._headroom
        if any(r < n for r, n in zip(room, need)):
            room = self._measure()
            if any(r < n for r, n in zip(room, need)):
                self._headroom = room
                return ("document_too_large: this change would take the document past the size limits of "
                        f"{MAX_PART_ELEMENTS} elements or {MAX_TEXT_CHARS} characters in one part or "
                        f"{MAX_XML_MARKUP} tags in all; nothing was changed")
        self._headroom = tuple(r - n for r, n in zip(room, need))
        return None

    def _normalise_revisions(self) -> None:
        """One pass over every story's tracked changes, fixing what LibreOffice writes:

        * a ``w:id`` an earlier change already uses gets a fresh one: LibreOffice numbers property
          changes (``w:rPrChange``...) with a counter of their own, so a format change and an
          insertion can both be ``w:id="0"``; ``rev-0`` must name one change;
        * ``w:pPrChange`` / ``w:rPrChange`` are put in schema form (``w:pPrChange`` last in
          ``w:pPr``, each holding its old ``w:pPr`` / ``w:rPr``): LibreOffice 7.4 writes them empty,
          ``w:pPrChange`` before ``w:pPr/w:rPr``, and every output would fail validation."""
        seen: set[str] = set()
        for part, root in self.story_parts():
            changed = False
            for el in list(root.iter(*_REVISION_TAGS)):   # a list: moving an element must not revisit it
                rid = el.get(W_ID)
                if rid is not None and rid in seen:
                    el.set(W_ID, str(self._ids.next()))
                    changed = True
                elif rid is not None:
                    seen.add(rid)
                if el.tag not in (W_PPRCHANGE, W_RPRCHANGE):
                    continue
                inner = W_PPR if el.tag == W_PPRCHANGE else W_RPR
                if first_child(el, inner) is None:
                    el.insert(0, etree.Element(inner))
                    changed = True
                host = el.getparent()
                if el.tag == W_PPRCHANGE and host is not None and el.getnext() is not None:
                    host.append(el)
                    changed = True
            if changed:
                self._pkg.mark_dirty(part)

    def _story_roots(self):
        roots = [self._root]
        for rel in self._pkg.rels(self._pkg.main_part):
            if rel.reltype in STORY_RELTYPES and not rel.external and self._pkg.has(rel.target):
                roots.append(self._pkg.xml(rel.target))
        return roots

    def touch(self, part: str | None = None) -> None:
        """Record a mutation: marks the part dirty and invalidates the index."""
        self._generation += 1
        self._pkg.mark_dirty(part or self._pkg.main_part)

    def deterministic_int(self, purpose: str, modulus: int) -> int:
        """A value in [1, modulus) derived from the input bytes and a call counter (never random)."""
        self._id_seq += 1
        digest = hashlib.sha256(self._seed + f"|{purpose}|{self._id_seq}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % (modulus - 1) + 1

    def part_for(self, reltype: str) -> str | None:
        return self._pkg.related_part(self._pkg.main_part, reltype)

    @property
    def numbering(self) -> Numbering:
        if self._numbering is None:
            num_part = self.part_for(RT_NUMBERING)
            sty_part = self.part_for(RT_STYLES)
            self._numbering = Numbering(
                self._pkg.xml(num_part) if num_part else None,
                self._pkg.xml(sty_part) if sty_part else None,
            )
        return self._numbering

    # ------------------------------------------------------------------ the index
    def _index(self) -> _Index:
        if self._index_cache is not None and self._index_generation == self._generation:
            return self._index_cache
        from .comments import read_comments

        numbering = self.numbering
        paragraphs: list[Paragraph] = []
        by_id: dict[str, Paragraph] = {}
        revisions: list[Revision] = []
        pending: list[tuple] = []
        for p, in_table in iter_block_paragraphs(self._body):
            pid = self._pids.get(p) or self._register(p)
            pending.append((p, pid, in_table))
        fmt_changes = _format_changes_by_paragraph(self._body)
        # clause numbers as the rendering model computes them (current view: a deleted mark does not count)
        labels = rendering(self).labels([p for p, _pid, _t in pending], current=True)
        seen_rows: set = set()
        field_depth = 0   # complex-field nesting carried across paragraph marks (a TOC spans many)
        has_fields = next(self._body.iter(W_FLDCHAR_TAG), None) is not None
        for index, (p, pid, in_table) in enumerate(pending):
            ppr = first_child(p, W_PPR)
            # Holding pPr's children keeps their lxml proxies alive while the mark, numbering and
            # style lookups below each visit them (a new proxy per visit costs more than the visit).
            ppr_children = list(ppr) if ppr is not None else None  # noqa: F841
            # described afresh every build: one walk per paragraph and build stays cheaper than
            # proving a paragraph unchanged, and the walk is dropped once the paragraph is described
            walk = walk_paragraph(p)
            marks = mark_revisions(p)
            segments, flags, para_revs = self._describe(p, pid, walk, marks, fmt_changes.get(p, ()))
            crosses = field_depth > 0
            if has_fields:
                for fc in p.iter(W_FLDCHAR_TAG):
                    kind = fc.get(W_FLDCHARTYPE)
                    if kind == "begin":
                        field_depth += 1
                    elif kind == "end" and field_depth:
                        field_depth -= 1
                crosses = crosses or field_depth > 0
            if marks:
                kinds = {MARK_TAGS[m.tag] for m in marks}
                # show the deletion when a mark is both inserted (by them) and deleted (by us)
                mark = next((m for m in marks if m.tag in (W_DEL_TAG, W_MOVEFROM_TAG)), marks[0])
                mark_kind = MARK_TAGS.get(mark.tag)
            else:
                kinds, mark, mark_kind = set(), None, None
            number = labels.get(p)
            style = None
            if ppr is not None:
                ps = first_child(ppr, W_PSTYLE)
                if ps is not None:
                    style = numbering.style_name(ps.get(W_VAL))
            row_mark = _row_mark(p) if in_table else None
            if row_mark is not None:
                kind = "ins" if row_mark.tag == qn("w:ins") else "del"
                flags.append("row_inserted" if kind == "ins" else "row_deleted")
                if row_mark not in seen_rows:
                    seen_rows.add(row_mark)
                    tr = row_mark.getparent().getparent()
                    text = " | ".join(walk_paragraph(x).original if kind == "del" else walk_paragraph(x).current
                                      for x in tr.iter(W_P))
                    para_revs.append(Revision(f"rev-{row_mark.get(W_ID)}", kind, row_mark.get(W_AUTHOR) or "",
                                              row_mark.get(W_DATE), pid, text))
                    if "has_revisions" not in flags:
                        flags.insert(0, "has_revisions")
            comment_ids = []
            for marker in walk.markers:
                cid = f"cmt-{marker.comment_id}"
                if cid not in comment_ids:
                    comment_ids.append(cid)
            if comment_ids:
                flags.append("has_comments")
            if crosses:
                flags.append("spanning_field")
            para = Paragraph(p, pid, index, walk, number=number, style=style, in_table=in_table,
                             mark=(mark_kind, mark) if mark is not None else None,
                             comment_ids=comment_ids, flags=flags, segments=segments)
            para.row = ("ins" if row_mark.tag == qn("w:ins") else "del") if row_mark is not None else None
            para.mark_kinds = kinds
            para._format_revisions = [r for r in para_revs if r.type == "format"]
            para.revision_ids = [r.id for r in para_revs]
            paragraphs.append(para)
            by_id[pid] = para
            revisions.extend(para_revs)
        comments = read_comments(self, paragraphs)
        self._index_cache = _Index(paragraphs, by_id, comments, revisions)
        self._index_generation = self._generation
        return self._index_cache

    def _describe(self, p, pid, walk: Walk, marks, changes):
        # consecutive atoms of one kind, revision and outer revision make one segment
        groups: list[tuple] = []   # (texts, kind, author, revision id, date, inserted_by)
        revs: dict = {}            # revision wrapper -> [kind, wrapper, texts], in first-seen order
        key = None
        texts: list[str] = []
        moved = False
        for atom in walk.atoms:
            kind = atom.kind
            text = atom.text
            if not text and kind == "text":
                continue
            rev = atom.rev
            outer = atom.outer
            if key is not None and key[0] == kind and key[1] is rev and key[2] is outer:
                texts.append(text)
            else:
                key = (kind, rev, outer)
                texts = [text]
                groups.append((texts, kind, rev.get(W_AUTHOR) if rev is not None else None,
                               f"rev-{rev.get(W_ID)}" if rev is not None else None,
                               rev.get(W_DATE) if rev is not None else None,
                               outer.get(W_AUTHOR) if outer is not None else None))
                if kind == "move_from" or kind == "move_to":
                    moved = True
            if outer is not None:
                if outer not in revs:
                    revs[outer] = [REVISION_WRAPPERS[outer.tag], outer, []]
                revs[outer][2].append(text)
            if rev is not None:
                if rev not in revs:
                    revs[rev] = [REVISION_WRAPPERS[rev.tag], rev, []]
                revs[rev][2].append(text)
        segments = [Segment(kind, "".join(parts), author, rid, date, inserted_by)
                    for parts, kind, author, rid, date, inserted_by in groups]
        out: list[Revision] = []
        for kind, el, parts in revs.values():
            out.append(Revision(f"rev-{el.get(W_ID)}", kind, el.get(W_AUTHOR) or "", el.get(W_DATE), pid,
                                "".join(parts)))
        flags: list[str] = []
        # formatting changes on runs and on the paragraph
        fmt = False
        for change in changes:
            if change.getparent() is not None and change.getparent().getparent() is not None:
                fmt = True
                host = change.getparent().getparent()
                if change.tag == W_PPRCHANGE:
                    text = walk.current
                elif host is not None and host.tag == W_PPR:
                    text = "\u00b6"
                else:
                    text = "".join(t.text or "" for t in host.iter(qn("w:t"), qn("w:delText")))
                out.append(Revision(f"rev-{change.get(W_ID)}", "format", change.get(W_AUTHOR) or "",
                                    change.get(W_DATE), pid, text))
        for mark in marks:
            mark_kind = MARK_TAGS[mark.tag]
            out.append(Revision(f"rev-{mark.get(W_ID)}", mark_kind, mark.get(W_AUTHOR) or "", mark.get(W_DATE),
                                pid, walk.current if mark_kind != "para_del" else walk.original))
            flag = "para_inserted" if mark_kind in ("para_ins", "move_to") else "para_deleted"
            if flag not in flags:
                flags.append(flag)
            if mark_kind == "move_from" or mark_kind == "move_to":
                moved = True
        if out:
            flags.insert(0, "has_revisions")
        if fmt:
            flags.append("format_change")
        if moved:
            flags.append("moved")
        return segments, flags, out

    def invalidate(self) -> None:
        self._generation += 1

    def _register(self, p) -> str:
        pid = f"p-{self._next_pid:03d}"
        self._next_pid += 1
        self._pids[p] = pid
        self._els[pid] = p
        return pid

    def paragraph_id_of(self, p) -> str:
        """The id of a paragraph element (a new paragraph gets the next free number)."""
        pid = self._pids.get(p)
        return pid if pid is not None else self._register(p)

    def element_for(self, pid: str):
        """The ``w:p`` element of a paragraph id, or None (unknown id, or paragraph gone).

        Cheap: edits and comments use it instead of rebuilding the whole index.
        """
        el = self._els.get(pid) if isinstance(pid, str) else None
        if el is None:
            return None
        node = el
        while node is not None and node is not self._body:
            node = node.getparent()
        return el if node is self._body else None

    def rebind_paragraph(self, old, new) -> None:
        """Give ``new`` the id of ``old`` (used when a paragraph is restored from a snapshot)."""
        pid = self._pids.pop(old, None)
        if pid is not None:
            self._pids[new] = pid
            self._els[pid] = new

    # ------------------------------------------------------------------ public reading API
    @property
    def paragraphs(self) -> list[Paragraph]:
        return self._index().paragraphs

    @property
    def comments(self) -> list[Comment]:
        return self._index().comments

    @property
    def revisions(self) -> list[Revision]:
        return self._index().revisions

    def story_revisions(self) -> list[tuple[str, Revision]]:
        """(part name, revision) of the tracked changes in headers, footers and notes.

        The tools edit the body only, but the other side may have changed a header or a note: the
        read view lists those changes too, so nothing tracked is hidden from the agent.
        """
        out: list[tuple[str, Revision]] = []
        for part, root in self.story_parts()[1:]:
            fmt_changes = _format_changes_by_paragraph(root)
            for p in root.iter(W_P):
                walk = walk_paragraph(p)
                marks = mark_revisions(p)
                _, _, revs = self._describe(p, None, walk, marks, fmt_changes.get(p, ()))
                out.extend((part, r) for r in revs)
        return out

    def paragraph(self, pid: str) -> Paragraph:
        return self._index().by_id[pid]

    def paragraph_ids(self) -> list[str]:
        """Ids of the body's paragraphs in document order, without rebuilding the index.

        Same ids as ``[p.id for p in paragraphs]`` (new paragraphs are numbered here in document
        order, exactly as the index would number them), for callers that only need the ids.
        """
        cache = self._index_cache
        if cache is not None and self._index_generation == self._generation:
            return [para.id for para in cache.paragraphs]
        return [self._pids.get(p) or self._register(p) for p, _ in iter_block_paragraphs(self._body)]

    def paragraph_texts(self) -> list[tuple[str, str]]:
        """(id, current text) of the body's paragraphs in document order.

        Same as ``[(p.id, p.text) for p in paragraphs]``, but a stale index is not rebuilt: each
        paragraph is only walked (no numbering, revisions or comments), for scans of the text.
        """
        cache = self._index_cache
        if cache is not None and self._index_generation == self._generation:
            return [(para.id, para.text) for para in cache.paragraphs]
        return [(self._pids.get(p) or self._register(p), walk_paragraph(p).current)
                for p, _ in iter_block_paragraphs(self._body)]

    def read_view(self, *, reader: str | None = None, first: int | None = None, last: int | None = None,
                  label: str | None = None) -> str:
        """The agent's read view (see ``view.read_view``), answered from a cache while nothing changed.

        Every mutation goes through ``touch``/``invalidate`` (they bump the generation the index is
        keyed on too), so a cached view is never older than the document.
        """
        from .view import read_view

        if self._view_generation != self._generation:
            self._view_cache.clear()
            self._view_generation = self._generation
        key = (reader, first, last, label, len(self.read_view_aliases))
        view = self._view_cache.get(key)
        if view is None:
            with collector_paused():
                view = read_view(self, reader=reader, first=first, last=last, label=label)
            # keyed on the alias table as it is after the build (a first read may add aliases)
            self._view_cache[(reader, first, last, label, len(self.read_view_aliases))] = view
        return view

    def annotated_view(self, *, focus_author: str | None = None, findings: Sequence | None = None) -> str:
        """The judges' view (``annotated.annotated_view``); ``findings``: the integrity audit's, as notes."""
        from .annotated import annotated_view

        return annotated_view(self, focus_author=focus_author, findings=findings)

    def text(self, mode: Literal["current", "accepted", "original"] = "current") -> str:
        from .view import plain_text

        return plain_text(self, mode)

    # ------------------------------------------------------------------ editing API
    def apply_edits(self, edits: Sequence[Mapping], *, author: str, date: datetime | None = None) -> list[dict]:
        from .edits import apply_edits

        return apply_edits(self, edits, author=author, date=date)

    def add_comment(self, *, author: str, text: str, paragraph_id: str | None = None, span: str | None = None,
                    reply_to: str | None = None, date: datetime | None = None) -> str:
        from .comments import add_comment

        return add_comment(self, author=author, text=text, paragraph_id=paragraph_id, span=span,
                           reply_to=reply_to, date=date)

    def mark_reserved(self, *, start_id: str, end_id: str, comment: str, author: str,
                      date: datetime | None = None) -> dict:
        from .edits import mark_reserved

        return mark_reserved(self, start_id=start_id, end_id=end_id, comment=comment, author=author, date=date)

    def accept(self, *, author: str | None = None, revision_id: str | None = None) -> int:
        from .review import resolve

        return resolve(self, "accept", author=author, revision_id=revision_id)

    def reject(self, *, author: str | None = None, revision_id: str | None = None) -> int:
        from .review import resolve

        return resolve(self, "reject", author=author, revision_id=revision_id)

    def __repr__(self) -> str:
        return f"<RedlineDocument {self.name!r}>"


__all__ = ["RedlineDocument", "Paragraph", "IdAllocator", "format_date", "iter_block_paragraphs", "VISIBLE"]
