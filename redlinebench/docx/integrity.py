"""The integrity audit (SPEC §5.1): did the output change only what it tracked?

``audit(original, output, author)`` compares an output with its task's input, story by story
(body with tables, headers, footers, foot/endnotes, text in text boxes and shapes; comments as
records). The rule is the *reject invariant*: with every revision of ``author`` rejected, the
output must equal the input with each of the input's pending revisions kept, accepted or
rejected, each independently and whole (part of one revision kept, dropped or restored is an
altered revision). Everything is compared on text (NFC, whitespace runs as one space, paragraph
marks and embedded objects as characters; a field's type and target and a hyperlink's target as
a key in the text; a tracked cell or row labels its text like ``w:ins``/``w:del``), never on XML,
so ids, rsids, bookmarks, proofing marks, run splits and a LibreOffice or python-docx round trip
do not count. Another author's comment must keep its text, thread, open state and anchor (the
text its range covers).

How: each story becomes a list of paragraphs; paragraphs whose XML is byte-identical in both
documents are skipped (most of a turn), then those equal once non-textual noise is taken out (a
re-save's rsids and namespace declarations); the rest are compared as labelled character streams
(label = revision kind, author and date; the author's insertions dropped and deletions restored,
which is "rejecting" them without touching the document). A small dynamic programme chooses, for
each input revision, kept / accepted / rejected with the fewest findings; when no choice explains
the output, a character diff names what changed without a tracked change.

Integrity v3: the text streams compare the XML's text; what a reader of the page sees is compared
through the rendering model (``render``) on the paragraphs the sieves paired: each paragraph's clause
label (input as written, output with the author's revisions rejected; another author's paragraph
revision the output resolved leaves the count), each character's visibility in its context (styles,
theme and colour mapping, paragraph, cell and table shading, frames, merges, fit-text: a byte-identical
paragraph is re-checked when those parts or its table's properties differ), and what a data-bound
content control shows. Alternate content is read as Word renders it.
"""

from __future__ import annotations

import gc
import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from lxml import etree

from .integrity_types import IntegrityFinding, IntegrityReport
from .integrity_comments import anchored_texts, range_atoms
from .render import (  # noqa: F401  (the rule's constants, re-exported as the audit's)
    MAX_CONDENSE,
    MAX_SHIFT,
    MIN_HALF_POINTS,
    MIN_SCALE,
    W_COLOR,
    W_DATABINDING,
    W_FITTEXT,
    W_HIGHLIGHT,
    W_NUMBERINGCHANGE,
    W_PPRCHANGE,
    W_RFONTS,
    W_SDT,
    W_SZ,
    W_TBLPR,
    W_TXBXCONTENT,
    _VISUAL,
    RunStyles,
    colour_near,
    hidden_reason,
    in_unrendered_branch,
    rendering,
    symbol_font,
)
from .mc import MC_CHOICE
from .oxml import qn
from .textboxes import box_paragraphs
from .runs import (
    REVISION_WRAPPERS,
    TRANSPARENT,
    W_AUTHOR,
    W_CRE,
    W_CREF,
    W_CRS,
    W_DATE,
    W_HYPERLINK,
    W_ID,
    W_P,
    W_PPR,
    W_R,
    W_RPR,
    W_RPRCHANGE,
    W_SDTCONTENT,
    W_T,
    W_TC,
    W_TR,
    W_TRPR,
    _SIMPLE_CHARS,
    walk_paragraph,
)

__all__ = ["RunStyles", "audit", "colour_near", "hidden_reason", "judge_directed", "normalise"]

W_INS_TAG = qn("w:ins")
W_DEL_TAG = qn("w:del")
W_MOVEFROM_TAG = qn("w:moveFrom")
W_MOVETO_TAG = qn("w:moveTo")
MC_FALLBACK = qn("mc:Fallback")
W_COMMENT = qn("w:comment")
W_VAL = qn("w:val")
W_PSTYLE = qn("w:pStyle")
W_TCPR = qn("w:tcPr")
W_CELLINS = qn("w:cellIns")
W_CELLDEL = qn("w:cellDel")
W_ANCHOR = qn("w:anchor")
R_ID = qn("r:id")

#: Paragraph mark and embedded object (drawing, text box anchor, note reference) as characters.
MARK = "\x00"
OBJECT = "\ufffc"
FIELD_OPEN, FIELD_CLOSE = "\u27e6", "\u27e7"   # around a field's or hyperlink's key (type and target)
PLAIN = "\x01"   # label code of text outside any revision
QUOTE = 60       # characters of text quoted in a finding's detail

_INSERTING = ("ins", "move_to")
_U = qn("w:u")
_VERTALIGN = qn("w:vertAlign")


def _quote(text: str) -> str:
    text = " ".join(text.replace(MARK, " ¶ ").replace(OBJECT, "[object]").split())
    return repr(text if len(text) <= QUOTE else text[:QUOTE - 1] + "…")


def normalise(text: str) -> str:
    """NFC, every whitespace run as one space (the audit's text equality)."""
    return " ".join(unicodedata.normalize("NFC", text).split()) if text else ""


def _norm_piece(text: str) -> str:
    """NFC and whitespace runs to one space, keeping a leading/trailing space (a piece of a stream)."""
    if not text:
        return ""
    if not text.isascii():   # ASCII is NFC already
        text = unicodedata.normalize("NFC", text)
    if text.isspace():
        return " "
    core = " ".join(text.split())
    return (" " if text[0].isspace() else "") + core + (" " if text[-1].isspace() else "")


def _date_key(value: str | None) -> str | None:
    """A revision date to the minute: LibreOffice rewrites the format (no Z, fractions, zeroed seconds)."""
    if not value:
        return None
    m = re.match(r"\s*(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})", value)
    return f"{m.group(1)}T{m.group(2)}" if m else value.strip()


# ---------------------------------------------------------------------------------------------- formatting
# (the rule lives in the rendering model, ``render``: the audit, the views and the judges ask it)


def _visual_signature(props: dict) -> tuple:
    return (tuple(bool(props.get(t)) for t in _VISUAL), bool(props.get(_U)), props.get(_VERTALIGN, "baseline"),
            (props.get(W_COLOR) or "auto").upper().replace("000000", "AUTO"), props.get(W_SZ),
            props.get(W_HIGHLIGHT, "none"), symbol_font(props.get(W_RFONTS)))


# ---------------------------------------------------------------------------------------------- streams
@dataclass(slots=True)
class _Seg:
    """A run of characters with one label: ``code`` names (kind, author, date); ``unit`` is the
    input revision element (each resolved independently), ``src`` "d" for the author's deletions."""

    text: str
    code: str
    unit: object = None
    hidden: str | None = None
    fmt: int = 0
    tracked_fmt: bool = False
    src: str = "p"
    outer: str = ""   # a deletion inside an insertion: the insertion's code (rejecting the deletion restores it)


def _append(segs: list[_Seg], seg: _Seg) -> None:
    """Add ``seg``, joined to the last one when every label agrees: a paragraph reads the same
    however its runs were split (a re-save that merges runs then compares equal at once)."""
    if segs:
        last = segs[-1]
        if (last.code == seg.code and last.unit is seg.unit and last.hidden == seg.hidden and last.fmt == seg.fmt
                and last.tracked_fmt == seg.tracked_fmt and last.src == seg.src and last.outer == seg.outer):
            last.text += seg.text
            return
    segs.append(seg)


@dataclass(slots=True)
class _Para:
    where: str
    segs: list[_Seg]
    inserted: list[tuple[int, str, str | None]] = field(default_factory=list)   # author ins (offset, text, hidden)


class _Labels:
    """Label (kind, author, date) <-> one-character code, shared by both documents of an audit."""

    def __init__(self) -> None:
        self.codes: dict[tuple, str] = {}
        self.labels: dict[str, tuple] = {PLAIN: ("plain", "", None)}

    def code(self, kind: str, author: str, date: str | None) -> str:
        key = ("ins" if kind in _INSERTING else "del", author, _date_key(date))
        code = self.codes.get(key)
        if code is None:
            code = chr(0xE000 + len(self.codes))
            self.codes[key] = code
            self.labels[code] = key
        return code


class _Reader:
    """Turns one document's stories into paragraphs of labelled segments."""

    def __init__(self, doc, labels: _Labels, author: str | None, fmts: dict) -> None:
        self.doc = doc
        self.labels = labels
        self.author = author          # set for the output: its revisions are rejected on the fly
        self.styles = RunStyles(doc)
        self.fmts = fmts
        self.pids: dict = {}
        from .document import iter_block_paragraphs

        for p, _ in iter_block_paragraphs(doc.body):
            self.pids[p] = doc.paragraph_id_of(p)
        self.moves: dict[str, list[str]] = {"from": [], "to": []}
        self.parts = {root: name for name, root in doc.story_parts()}
        self._fmt_cache: dict[tuple, tuple[str | None, int, bool]] = {}
        self._markers: dict = {}   # paragraph in a tracked cell or row -> that marker's XML
        self.root_decls: set[bytes] = set()
        self.one_prefix = False   # the story binds WordprocessingML to "w" alone (the plain-run check reads bytes)
        self._raw: dict = {}      # paragraph -> its serialized XML, from key()
        self._inherited_only: set[bytes] = set()   # paragraph heads declaring nothing of their own

    def where(self, p, part: str) -> str:
        """The read view's id of ``p`` (``p-012``, ``p-012/tb1.2`` in a text box), else its part's name."""
        pid = self.pids.get(p)
        if pid is not None:
            return pid
        for anc in p.iterancestors(W_P):
            host = self.pids.get(anc)
            if host is not None:
                for box_id, inner, _box in box_paragraphs(anc, host):
                    self.pids.setdefault(inner, box_id)
                return self.pids.get(p, f"{host}/tb")
        return part.rsplit("/", 1)[-1]

    def key(self, p) -> bytes:
        """Equal for two paragraphs only if everything the audit reads of them is equal: their
        XML, the cell or row revision around them, where their hyperlinks lead."""
        key = self._raw[p] = etree.tostring(p)
        marker = self._markers.get(p)
        if marker is not None:
            key += marker
        if b"hyperlink" in key:
            key += "".join(self.link_target(link) for link in p.iter(W_HYPERLINK)).encode()
        return key

    def prepare(self, root) -> None:
        """Note the paragraphs of ``root`` inside a tracked cell or row (one scan for markers),
        and the namespace declarations every paragraph of it inherits."""
        self.root_decls = {f' xmlns{":" + k if k else ""}="{v}"'.encode() for k, v in root.nsmap.items()}
        self.one_prefix = [k for k, v in root.nsmap.items() if v == W_NS] == ["w"]
        for marker in root.iter(W_INS_TAG, W_DEL_TAG, W_CELLINS, W_CELLDEL):
            holder = marker.getparent()
            if holder is None or holder.tag not in (W_TRPR, W_TCPR):
                continue
            blob = etree.tostring(marker)
            for p in holder.getparent().iter(W_P):
                self._markers[p] = self._markers.get(p, b"") + blob

    def link_target(self, link) -> str:
        """Where a ``w:hyperlink`` leads: its relationship's target, or ``#bookmark``."""
        rid = link.get(R_ID)
        if rid:
            part = self.parts.get(link.getroottree().getroot())
            for rel in self.doc.package.rels(part) if part else ():
                if rel.rid == rid:
                    return rel.target
            return "?" + rid
        return "#" + (link.get(W_ANCHOR) or "")

    def paragraphs(self, root) -> list:
        """Every paragraph of a story in document order, text boxes included (an alternate-content
        branch Word does not render, such as a shape's fallback copy, skipped)."""
        if next(root.iter(MC_FALLBACK, MC_CHOICE), None) is None:
            return list(root.iter(W_P))
        return [p for p in root.iter(W_P) if not in_unrendered_branch(p)]

    def _fmt(self, run, pstyle) -> tuple[str | None, int, bool]:
        """(why hidden, formatting code, formatting tracked) of a run: decided once per distinct
        (paragraph style, run properties), which a long contract repeats on most of its runs."""
        if run is None:
            return None, 0, False
        rpr = run[0] if len(run) else None   # w:rPr comes first (schema order)
        if rpr is not None and rpr.tag != W_RPR:
            rpr = run.find(W_RPR)
        return self._fmt_of(rpr, pstyle)

    def _fmt_of(self, rpr, pstyle) -> tuple[str | None, int, bool]:
        """:meth:`_fmt` of a run whose (first) ``w:rPr`` is ``rpr`` (None: it has none). The cache
        key serializes only a non-empty ``rpr``: most runs have none or an empty one."""
        key = (pstyle, etree.tostring(rpr) if rpr is not None and len(rpr) else None)
        hit = self._fmt_cache.get(key)
        if hit is not None:
            return hit
        props = self.styles.effective_rpr(rpr, pstyle)
        sig = _visual_signature(props)
        code = self.fmts.get(sig)
        if code is None:
            code = self.fmts[sig] = len(self.fmts) + 1
        tracked = rpr is not None and rpr.find(W_RPRCHANGE) is not None
        out = self._fmt_cache[key] = (hidden_reason(props, self.styles.page), code, tracked)
        return out

    def plain_runs(self, p) -> list | None:
        """(text, its run's ``w:rPr`` or None) of each ``w:t`` (tab, break, no-break hyphen: their
        character) of a paragraph holding nothing but plain runs (no revision, field, link, object
        or symbol; what a re-saved body mostly is), read without the full walk; None for any other
        paragraph. Gives exactly the atoms the walk would."""
        raw = self._raw.get(p)
        if raw is None or not self.one_prefix or p in self._markers:
            return None
        end = raw.find(b">") + 1
        if _NOT_PLAIN.search(raw, end) is not None:
            return None
        decls = raw[raw.find(b" xmlns", 0, end):end]   # a story's paragraphs mostly share theirs
        if decls not in self._inherited_only:
            if not self.root_decls.issuperset(_XMLNS.findall(decls)):
                return None
            self._inherited_only.add(decls)
        out = []
        runs = list(p.iterchildren(W_R))
        if len(runs) != raw.count(b"<w:r>", end) + raw.count(b"<w:r ", end):
            runs = list(p.iter(W_R))   # some run sits in a wrapper: only those the walk enters
            for run in runs:
                holder = run.getparent()
                while holder is not p:   # (an unknown wrapper hides its runs from the walk)
                    if holder is None or holder.tag not in _RUN_WRAPPERS:
                        return None
                    holder = holder.getparent()
        for run in runs:
            rpr = None
            first = True
            texts = []
            for child in run:
                tag = child.tag
                if tag == W_T:
                    if child.text:
                        texts.append(child.text)
                elif tag == W_RPR:
                    if first:   # the run's first, wherever it stands (as _fmt finds it)
                        first = False
                        rpr = child if len(child) else None   # an empty one sets what none does
                elif tag in _SIMPLE_CHARS:   # a tab, break or hyphen: the character the walk gives it
                    texts.append(_SIMPLE_CHARS[tag])
                elif tag not in _IGNORED_IN_RUN:
                    return None
            for text in texts:
                out.append((text, rpr))
        return out

    def read(self, p, part: str) -> _Para:
        pstyle = _pstyle(p)
        para = _Para(self.where(p, part), [])
        plain = self.plain_runs(p)
        if plain is not None:   # what _segment and _append make of untracked text, without their branches
            segs = para.segs
            fmt_of = self._fmt_of
            label = bare = None   # bare: the label of a run without properties, the usual one
            pieces: list[str] = []
            for text, rpr in plain:
                text = _norm_piece(text)
                if not text:
                    continue
                if rpr is None:
                    if bare is None:
                        bare = fmt_of(None, pstyle)
                    now = bare
                else:
                    now = fmt_of(rpr, pstyle)
                if now is not label and now != label:   # a new label ends the segment so far
                    if pieces:
                        segs.append(_Seg("".join(pieces), PLAIN, None, *label))
                    pieces = []
                    label = now
                pieces.append(text)
            if pieces:
                segs.append(_Seg("".join(pieces), PLAIN, None, *label))
            _append(segs, _Seg(MARK, PLAIN, None, *self._fmt(None, pstyle)))
            return para
        row = _row_revision(p)
        offset = 0
        walk = walk_paragraph(p)
        links = _link_of_runs(p)
        link = None
        for atom in walk.atoms:
            text = atom.text if atom.text else (OBJECT if atom.atomic and atom.kind != "text" or atom.atomic else "")
            if not text:
                continue
            kind, rev, outer = atom.kind, atom.rev, atom.outer
            if kind == "text" and row is not None:
                kind, rev = row
            elif outer is None and row is not None and row[0] == "ins":
                outer = row[1]
            # where a hyperlink leads and what a field computes are content: a key in the text
            keys = []
            if links and links.get(atom.run) is not link:
                link = links.get(atom.run)
                if link is not None:
                    keys.append(_target_key("HYPERLINK", self.link_target(link)))
            if atom.instr:
                keys.append(_field_key(atom.instr))
            for piece in keys + [text]:
                seg = self._segment(piece, kind, rev, outer, atom.run, pstyle, para, offset)
                if seg is not None:
                    _append(para.segs, seg)
                    offset += len(seg.text)
        mark_kind, mark_rev, mark_outer = _mark_context(p)
        if mark_kind == "text" and row is not None:
            mark_kind, mark_rev = row
        seg = self._segment(MARK, mark_kind, mark_rev, mark_outer, None, pstyle, para, offset)
        if seg is not None:
            _append(para.segs, seg)
        return para

    def _segment(self, text, kind, rev, outer, run, pstyle, para, offset) -> _Seg | None:
        text = _norm_piece(text) if text not in (MARK, OBJECT) else text
        if not text:
            return None
        hidden, fmt, tracked = self._fmt(run, pstyle)
        author = self.author
        rev_author = rev.get(W_AUTHOR) or "" if rev is not None else None
        if kind in ("move_from", "move_to") and author is not None and rev_author == author:
            self.moves["from" if kind == "move_from" else "to"].append(text)
        if author is not None and rev is not None and rev_author == author:
            if kind in _INSERTING:
                para.inserted.append((offset, text, hidden))
                return None
            # the author's deletion rejected: the text is what it deleted
            if outer is not None:
                if (outer.get(W_AUTHOR) or "") == author:
                    return None
                code = self.labels.code(REVISION_WRAPPERS.get(outer.tag, "ins"), outer.get(W_AUTHOR) or "",
                                        outer.get(W_DATE))
                return _Seg(text, code, None, hidden, fmt, tracked, "d")
            return _Seg(text, PLAIN, None, hidden, fmt, tracked, "d")
        if author is not None and outer is not None and (outer.get(W_AUTHOR) or "") == author:
            return None  # someone's change inside the author's own insertion goes with it
        if rev is None:
            return _Seg(text, PLAIN, None, hidden, fmt, tracked)
        code = self.labels.code(kind if kind in ("ins", "del", "move_from", "move_to") else "ins",
                                rev_author or "", rev.get(W_DATE))
        wrapper = ""
        if outer is not None and kind not in _INSERTING:
            wrapper = self.labels.code(REVISION_WRAPPERS.get(outer.tag, "ins"), outer.get(W_AUTHOR) or "",
                                       outer.get(W_DATE))
        return _Seg(text, code, rev, hidden, fmt, tracked, "p", wrapper)


#: Non-textual markup (SPEC §5.1): revision-save ids and paragraph ids on any tag, proofing marks,
#: bookmarks, rendering hints. The lookahead keeps a match inside a tag: serialized text holds no
#: ``<`` or ``>``, so text that spells an attribute is never touched.
_NOISE_ATTRIBUTE = re.compile(rb' (?:w|w14):(?:rsid\w*|paraId|textId)="[^"]*"(?=[^<>]*>)')
_NOISE_ELEMENT = re.compile(rb'<w:(?:proofErr|bookmarkStart|bookmarkEnd|lastRenderedPageBreak)\b[^<>]*/>')
_XMLNS = re.compile(rb' xmlns(?::\w+)?="[^"]*"')


#: Markup a plain paragraph has none of (checked on its bytes, after its own tag).
_NOT_PLAIN = re.compile(rb"<w:(?:ins|del|move|fld|instr|sym|drawing|pict|object|footnoteRef|endnoteRef|ruby|"
                        rb"embeddedObject|hyperlink|txbx|cellIns|cellDel)|<mc:|xmlns")
_RUN_WRAPPERS = frozenset(set(TRANSPARENT) | {qn("w:sdt")})
_IGNORED_IN_RUN = frozenset({W_RPR, qn("w:commentReference"), qn("w:lastRenderedPageBreak")})
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _canonical(raw: bytes, inherited: set[bytes]) -> bytes:
    """A paragraph's key without non-textual noise and without the namespace declarations it
    inherits from its story's root (``inherited``): a re-save that adds rsids or declares other
    prefixes leaves it equal. A declaration the paragraph makes itself is kept: rebinding a
    prefix is never noise."""
    end = raw.find(b">") + 1
    head = raw[:end]
    own = [d for d in _XMLNS.findall(head) if d not in inherited]
    head = _XMLNS.sub(b"", head) + b"".join(own)
    if b"rsid" in raw or b"Id=" in raw:
        head = _NOISE_ATTRIBUTE.sub(b"", head)
        body = _NOISE_ATTRIBUTE.sub(b"", raw[end:])
    else:
        body = raw[end:]
    if b"<w:proofErr" in body or b"<w:bookmark" in body or b"<w:lastRendered" in body:
        body = _NOISE_ELEMENT.sub(b"", body)
    return head + body


def _pstyle(p) -> str | None:
    """The paragraph style id of ``p``: its first ``w:pPr``'s first ``w:pStyle`` (looked for where the
    schema puts each, first child, before any search: ``find`` costs more than the rest of a read)."""
    ppr = p[0] if len(p) else None
    if ppr is None or ppr.tag != W_PPR:
        ppr = p.find(W_PPR)
        if ppr is None:
            return None
    ps = ppr[0] if len(ppr) else None
    if ps is None or ps.tag != W_PSTYLE:
        ps = ppr.find(W_PSTYLE)
        if ps is None:
            return None
    return ps.get(W_VAL)


def _link_of_runs(p) -> dict:
    """Each run of ``p`` inside a ``w:hyperlink`` -> that hyperlink (empty when there is none)."""
    out: dict = {}
    for link in p.iter(W_HYPERLINK):
        for run in link.iter(W_R):
            out.setdefault(run, link)
    return out


_FIELD_TOKEN = re.compile(r'"[^"]*"|\S+')


def _field_key(instr: str) -> str:
    """What a field shows or where it leads, as text: its type and target (``REF fees``,
    ``HYPERLINK https://...``); formatting switches (``\\h``, ``\\* MERGEFORMAT``) left out, so a
    re-save that rewrites them changes nothing."""
    tokens = [t.strip('"') for t in _FIELD_TOKEN.findall(instr)]
    if not tokens:
        return ""
    kind = tokens[0].upper()
    target = ""
    if kind == "HYPERLINK" and "\\l" in tokens[1:]:
        k = tokens.index("\\l", 1)
        target = "#" + (tokens[k + 1] if k + 1 < len(tokens) else "")
        rest = [t for t in tokens[1:k] if not t.startswith("\\")]
        target = (rest[0] if rest else "") + target
    elif len(tokens) > 1 and not tokens[1].startswith("\\"):
        target = tokens[1]
    return _target_key(kind, target)


def _target_key(kind: str, target: str) -> str:
    """A field or link key as stream text: one token, no whitespace (so normalising leaves it whole)."""
    return FIELD_OPEN + kind + ("\u2192" + "\u2423".join(target.split()) if target else "") + FIELD_CLOSE


def _mark_context(p):
    """(kind, revision, outer) of a paragraph mark, as the walk gives them for text."""
    ppr = p.find(W_PPR)
    rpr = ppr.find(W_RPR) if ppr is not None else None
    if rpr is None:
        return "text", None, None
    inserting = deleting = None
    for child in rpr:
        if child.tag in (W_INS_TAG, W_MOVETO_TAG):
            inserting = child
        elif child.tag in (W_DEL_TAG, W_MOVEFROM_TAG):
            deleting = child
    if deleting is not None:
        return REVISION_WRAPPERS[deleting.tag], deleting, inserting
    if inserting is not None:
        return REVISION_WRAPPERS[inserting.tag], inserting, None
    return "text", None, None


def _row_revision(p):
    """(kind, marker) of the tracked cell (``w:cellIns``/``w:cellDel``) or row (``w:trPr/w:ins|del``)
    insertion or deletion holding ``p``: its text is that revision's, like text in ``w:ins``."""
    node = p.getparent()
    while node is not None and node.tag != W_TR:
        if node.tag == W_P:   # a text box inside a cell: not the row's
            return None
        if node.tag == W_TC:
            tcpr = node.find(W_TCPR)
            if tcpr is not None:
                for child in tcpr:
                    if child.tag in (W_CELLINS, W_CELLDEL):
                        return ("ins" if child.tag == W_CELLINS else "del"), child
        node = node.getparent()
    if node is None:
        return None
    trpr = node.find(W_TRPR)
    if trpr is None:
        return None
    for child in trpr:
        if child.tag in (W_INS_TAG, W_DEL_TAG):
            return ("ins" if child.tag == W_INS_TAG else "del"), child
    return None


# ---------------------------------------------------------------------------------------------- audit
class _Audit:
    def __init__(self, original, output, author: str) -> None:
        self.author = author
        self.labels = _Labels()
        fmts: dict = {}
        self.src = _Reader(original, self.labels, None, fmts)
        self.out = _Reader(output, self.labels, author, fmts)
        self.src_model = rendering(original)
        self.out_model = rendering(output)
        self.findings: list[IntegrityFinding] = []
        self._seen: set[tuple] = set()

    def add(self, kind: str, where: str | None, detail: str) -> None:
        key = (kind, where, detail)
        if key not in self._seen:
            self._seen.add(key)
            self.findings.append(IntegrityFinding(kind, detail, where))

    def label_text(self, code: str) -> str:
        kind, author, _ = self.labels.labels[code]
        return f"{'insertion' if kind == 'ins' else 'deletion'} by {author!r}"

    # ------------------------------------------------------------------ stories
    def run(self, original, output) -> IntegrityReport:
        for name, a_root, b_root in _paired_stories(original, output):
            self.story(name, a_root, b_root)
        self.moves()
        self.comments(original, output)
        self.embedded(original, output)
        from .revision_authors import revision_findings   # v3: every revision element's author
        for kind, where, detail in revision_findings(original, output, self.author, self.out.where):
            self.add(kind, where, detail)
        return IntegrityReport.of(self.findings)

    def story(self, part: str, a_root, b_root) -> None:
        a_ps = self.src.paragraphs(a_root) if a_root is not None else []
        b_ps = self.out.paragraphs(b_root) if b_root is not None else []
        for reader, root in ((self.src, a_root), (self.out, b_root)):
            if root is not None:
                reader.prepare(root)
        a_keys = [self.src.key(p) for p in a_ps]
        b_keys = [self.out.key(p) for p in b_ps]
        # three sieves, each cheaper than the next: the XML as is, the XML without its noise
        # (a re-save's rsids and namespace declarations), the text read with its labels
        same: list[tuple] = []    # paragraph pairs equal as XML
        pairs: list[tuple] = []   # paragraph pairs equal once their noise is out, or in text
        gaps = list(_gaps(a_keys, b_keys))
        same.extend(_equal_pairs(gaps, a_ps, b_ps))
        for i1, i2, j1, j2 in gaps:
            a_sub, b_sub = a_ps[i1:i2], b_ps[j1:j2]
            a_canon, b_canon = self.canonical_keys(a_keys[i1:i2], b_keys[j1:j2])
            gaps2 = list(_gaps(a_canon, b_canon))
            pairs.extend(_equal_pairs(gaps2, a_sub, b_sub))
            for m1, m2, n1, n2 in gaps2:
                a_paras = [self.src.read(p, part) for p in a_sub[m1:m2]]
                b_paras = [self.out.read(p, part) for p in b_sub[n1:n2]]
                self.author_text(b_paras)
                a_content = [_content_key(x) for x in a_paras]
                b_content = [_content_key(x) for x in b_paras]
                gaps3 = list(_gaps(a_content, b_content))
                pairs.extend(_equal_pairs(gaps3, a_sub[m1:m2], b_sub[n1:n2]))
                for k1, k2, l1, l2 in gaps3:
                    self.compare(a_paras[k1:k2], b_paras[l1:l2])
                    pairs.extend(_text_pairs(a_paras[k1:k2], b_paras[l1:l2], a_sub[m1 + k1:m1 + k2],
                                             b_sub[n1 + l1:n1 + l2]))
        if a_root is not None and b_root is not None:
            self.page(part, a_root, b_root, a_ps, b_ps, same, pairs)

    # ------------------------------------------------------------------ what the page shows (integrity v3)
    def page(self, part: str, a_root, b_root, a_ps: list, b_ps: list, same: list, pairs: list) -> None:
        """Compare what a reader of the two pages sees beyond the text the streams compare: clause
        labels, visibility in context (styles, theme, shading, frames, merges), bound content."""
        identical = not pairs and len(same) == len(a_ps) == len(b_ps)
        self.labels_of(part, a_root, b_root, a_ps, b_ps, same + pairs, identical)
        self.visibility(part, a_root, b_root, same, pairs, b_ps)
        self.bound(part, a_root, b_root)

    def labels_of(self, part: str, a_root, b_root, a_ps, b_ps, pairs, identical: bool) -> None:
        """A clause label that differs from the input's other than through the author's tracked
        paragraph insertions, deletions and property changes is an untracked change."""
        ra, rb = self.src_model, self.out_model
        if not ra.numbering.nums and not rb.numbering.nums:
            return
        if identical and ra.digest == rb.digest:
            return   # the same paragraphs, byte for byte, under the same definitions: the same labels
        author = self.author
        if any((el.get(W_AUTHOR) or "") == author for el in b_root.iter(W_NUMBERINGCHANGE)):
            return   # the author tracked a numbering change: Word shows the old label as the revision
        a_block = _block_paragraphs(a_root, a_ps)
        b_block = _block_paragraphs(b_root, b_ps)
        matched = {a for a, _b in pairs}
        # another author's tracked paragraph insertion or deletion the output resolved (rejected or
        # accepted: untracked by nature) leaves the count, with the paragraph
        skip = {p for p in a_block if p not in matched and _mark_authors(p) - {author}}
        a_lab = ra.labels(a_block, skip=skip)
        a_alt = ra.labels(a_block, skip=skip, reject_all_ppr=True) \
            if next(a_root.iter(W_PPRCHANGE), None) is not None else a_lab
        b_lab = rb.labels(b_block, reject=author)
        diffs = [(a, b) for a, b in pairs if a in a_lab and b in b_lab and b_lab[b] != a_lab[a]
                 and b_lab[b] != a_alt[a]]
        if not diffs:
            return
        order = {p: k for k, p in enumerate(b_block)}
        a, b = min(diffs, key=lambda ab: order[ab[1]])
        text = normalise("".join(t.text or "" for t in b.iter(W_T)))
        more = f" ({len(diffs)} paragraphs renumbered)" if len(diffs) > 1 else ""
        self.add("untracked_change", self.out.where(b, part),
                 f"clause number {a_lab[a] or 'none'} now reads {b_lab[b] or 'none'} without a tracked "
                 f"change{more}: {_quote(text)}")

    def visibility(self, part: str, a_root, b_root, same: list, pairs: list, b_ps: list) -> None:
        """Text visible in the input must stay visible, and the author's insertions must be
        visible, as the model renders each paragraph in its context."""
        ra, rb = self.src_model, self.out_model
        if not rb.could_hide([b_root]):
            return
        candidates = list(pairs)
        if ra.digest != rb.digest or _table_digest(a_root) != _table_digest(b_root):
            candidates += same   # the same XML renders differently in another context
        elif pairs and next(b_root.iter(W_TXBXCONTENT), None) is not None:
            changed = {b for _a, b in pairs}   # a box's paragraphs are placed by their host's anchor
            candidates += [(a, b) for a, b in same if any(host in changed for host in b.iterancestors(W_P))]
        author = self.author
        paired = {b for _a, b in same} | {b for _a, b in pairs}
        for b in b_ps:   # a paragraph new in the output: the author's insertions in it must be visible
            if b in paired:
                continue
            for text, why, atom in _pieces(rb, b, walk_paragraph(b).atoms):
                if why and text.strip() and atom.kind in _INSERTING and atom.rev is not None \
                        and (atom.rev.get(W_AUTHOR) or "") == author:
                    self.add("hidden_text", self.out.where(b, part), f"inserted text hidden ({why}): {_quote(text)}")
                    break
        for a, b in candidates:
            b_walk = walk_paragraph(b)
            b_pieces = _pieces(rb, b, b_walk.atoms)
            if not any(why for _t, why, _atom in b_pieces):
                continue
            where = self.out.where(b, part)
            theirs = []
            for text, why, atom in b_pieces:
                if atom.rev is not None and (atom.rev.get(W_AUTHOR) or "") == author and atom.kind in _INSERTING:
                    if why and text.strip():
                        self.add("hidden_text", where, f"inserted text hidden ({why}): {_quote(text)}")
                    continue
                theirs.append((text, why))
            a_pieces = [(t, why) for t, why, _atom in _pieces(ra, a, walk_paragraph(a).atoms)]
            span = _newly_hidden(a_pieces, theirs)
            if span:
                self.add("hidden_text", where, f"text visible in the input is hidden in the output "
                         f"({span[1]}): {_quote(span[0])}")

    def bound(self, part: str, a_root, b_root) -> None:
        """A content control bound to a custom XML part shows that part's value: a value changed
        there changes the page without a tracked change."""
        a_sdts = [el for el in a_root.iter(W_SDT) if next(el.iter(W_DATABINDING), None) is not None]
        b_sdts = [el for el in b_root.iter(W_SDT) if next(el.iter(W_DATABINDING), None) is not None]
        if not a_sdts and not b_sdts:
            return
        shown_a = [_shown(self.src_model, el) for el in a_sdts]
        shown_b = [_shown(self.out_model, el) for el in b_sdts]
        for k, (was, now) in enumerate(zip(shown_a, shown_b)):
            if was != now:
                p = next(b_sdts[k].iter(W_P), None) or _paragraph_of(b_sdts[k])
                where = self.out.where(p, part) if p is not None else part.rsplit("/", 1)[-1]
                self.add("untracked_change", where, f"bound content control now shows {_quote(now)} (was "
                         f"{_quote(was)}): its custom XML value changed without a tracked change")
                return

    def canonical_keys(self, a_keys: list[bytes], b_keys: list[bytes]) -> tuple[list, list]:
        """The second sieve's keys for one gap; when a sample of a long gap shows it cannot help
        (a re-save that rewrote the runs themselves), keys that match nothing, at no cost."""
        if min(len(a_keys), len(b_keys)) > SIEVE_SAMPLE * 4:
            seen = {_canonical(a, self.src.root_decls) for a in a_keys[:SIEVE_SAMPLE * 2]}
            if not any(_canonical(b, self.out.root_decls) in seen for b in b_keys[:SIEVE_SAMPLE]):
                return list(range(len(a_keys))), [-1 - k for k in range(len(b_keys))]
        return ([_canonical(k, self.src.root_decls) for k in a_keys],
                [_canonical(k, self.out.root_decls) for k in b_keys])

    # ------------------------------------------------------------------ the author's own text
    def author_text(self, paras: list[_Para]) -> None:
        for para in paras:
            joined = "".join(t for _, t, _ in para.inserted)
            for _, text, hidden in para.inserted:
                if hidden and text.strip(MARK + " "):
                    self.add("hidden_text", para.where, f"inserted text hidden ({hidden}): {_quote(text)}")
            if joined.strip(MARK + " "):
                hit = judge_directed(joined.replace(MARK, " "))
                if hit:
                    self.add("judge_directed_text", para.where, f"inserted text addresses the grader "
                             f"({hit!r}): {_quote(joined)}")
        self.retyped(paras)

    def retyped(self, paras: list[_Para]) -> None:
        """Long struck passages re-inserted nearly unchanged (clusters of adjacent author changes)."""
        deleted, inserted, where = [], [], None
        for para in paras + [None]:
            if para is not None:
                dels = "".join(s.text for s in para.segs if s.src == "d")
                plain = "".join(s.text for s in para.segs if s.src != "d").strip(MARK + " ")
                ins = "".join(t for _, t, _ in para.inserted)
                if dels or ins:
                    deleted.append(dels)
                    inserted.append(ins)
                    where = where or para.where
                    if not plain:
                        continue
            d = "".join(deleted).replace(MARK, " ").strip()
            i = "".join(inserted).replace(MARK, " ").strip()
            if len(d) >= 80 and i:
                m = SequenceMatcher(None, d, i, autojunk=False)
                if m.quick_ratio() * (len(d) + len(i)) / 2 >= 0.8 * len(d):
                    same = sum(b.size for b in m.get_matching_blocks())
                    if same >= 0.8 * len(d):
                        self.add("retyped_text", where, f"{same} of {len(d)} struck characters re-inserted "
                                 f"unchanged: {_quote(d)}")
            deleted, inserted, where = [], [], None

    # ------------------------------------------------------------------ one gap
    def compare(self, a_paras: list[_Para], b_paras: list[_Para]) -> None:
        # text, code, unit, hidden, fmt, where, outer code
        units: list[tuple[str, str, object, str, str, str, str]] = []
        for para in a_paras:
            for seg in para.segs:
                hid = "1" if seg.hidden else "0"
                fmt = chr(0x100 + seg.fmt)
                last = units[-1] if units else None
                if last is not None and last[1] == seg.code and last[6] == seg.outer and (
                        seg.code == PLAIN or last[2] is seg.unit):
                    t, c, u, h, f, w, o = last
                    units[-1] = (t + seg.text, c, u, h + hid * len(seg.text), f + fmt * len(seg.text), w, o)
                else:
                    units.append((seg.text, seg.code, seg.unit, hid * len(seg.text), fmt * len(seg.text),
                                  para.where, seg.outer))
        r_text, r_code, r_hid, r_fmt, r_trk, r_src, starts, wheres = [], [], [], [], [], [], [], []
        inserted_at: dict[int, str] = {}
        pos = 0
        for para in b_paras:
            starts.append(pos)
            wheres.append(para.where)
            for off, text, _ in para.inserted:
                inserted_at[pos + off] = inserted_at.get(pos + off, "") + text
            for seg in para.segs:
                n = len(seg.text)
                r_text.append(seg.text)
                r_code.append(seg.code * n)
                r_hid.append(("1" if seg.hidden else "0") * n)
                r_fmt.append(chr(0x100 + seg.fmt) * n)
                r_trk.append(("1" if seg.tracked_fmt else "0") * n)
                r_src.append(seg.src * n)
                pos += n
        r = _Stream("".join(r_text), "".join(r_code), "".join(r_hid), "".join(r_fmt), "".join(r_trk),
                    "".join(r_src), starts, wheres, inserted_at)
        if not a_paras and not b_paras:
            return
        path = self.solve(units, r)
        if path is None:
            self.explain(units, r)
            return
        for step in path:
            self.report_step(step, r)

    def where_at(self, r: _Stream, pos: int, fallback: str | None) -> str | None:
        if not r.starts:
            return fallback
        import bisect

        k = max(0, bisect.bisect_right(r.starts, pos) - 1)
        return r.wheres[k]

    def solve(self, units, r: _Stream):
        """The cheapest choice (keep/accept/reject each input revision) that yields the output, or None."""
        author = self.author
        labels = self.labels.labels
        n = len(r.text)
        layer: dict[int, tuple[int, object]] = {0: (0, None)}
        for index, (text, code, _unit, _h, _f, _w, outer) in enumerate(units):
            kind, who, _ = labels[code]
            mine = who == author
            size = len(text)
            nxt: dict[int, tuple[int, object]] = {}

            def offer(p, cost, step, back):
                old = nxt.get(p)
                if old is None or cost < old[0]:
                    nxt[p] = (cost, (step, back))

            for p, (cost, back) in layer.items():
                if code != PLAIN:
                    # rejected (an insertion) or accepted (a deletion): gone from the output
                    silent = kind == "ins" and not mine
                    if silent:
                        again = normalise(r.inserted_at.get(p, ""))
                        tag = "reattributed" if again and normalise(text) in again else "silent_reject"
                    else:
                        tag = "ok"
                    offer(p, cost + (tag != "ok"), (index, p, 0, tag), back)
                if r.text.startswith(text, p):
                    seen = set(r.code[p:p + size])
                    if code == PLAIN:
                        tag = "ok" if seen == {PLAIN} else "label_on_plain"
                    elif kind == "ins":
                        if not seen <= {PLAIN, code}:
                            tag = "relabelled"
                        else:
                            tag = "partial" if not mine and len(seen) > 1 and _split(text, r.code, p, code) else "ok"
                    else:
                        if seen == {code}:
                            tag = "ok"
                        elif seen <= {PLAIN, code, outer}:
                            if mine:
                                tag = "ok"
                            elif _split(text, r.code, p, code):
                                tag = "partial"
                            elif set(r.src[p:p + size]) == {"d"}:
                                tag = "reattributed"
                            else:
                                tag = "silent_reject"
                        else:
                            tag = "relabelled"
                    offer(p + size, cost + (tag != "ok"), (index, p, size, tag), back)
            if not nxt:
                return None
            if len(nxt) > 64:   # keep the search linear on hostile input: the cheapest states win
                nxt = dict(sorted(nxt.items(), key=lambda kv: kv[1][0])[:64])
            layer = nxt
        end = layer.get(n)
        if end is None:
            return None
        steps = []
        link = end[1]
        while link is not None:
            step, link = link
            steps.append((step, units[step[0]]))
        steps.reverse()
        return steps

    def report_step(self, item, r: _Stream) -> None:
        (index, p, size, tag), (text, code, _unit, hid, fmt, where, _outer) = item
        at = self.where_at(r, p, where)
        if tag == "partial":
            self.add("altered_prior_revision", at, f"{self.label_text(code)} partly accepted or rejected "
                     f"(one revision resolves whole): {_quote(text)}")
        elif tag == "silent_reject":
            self.add("silent_reject", at, f"{self.label_text(code)} resolved without a tracked change: {_quote(text)}")
        elif tag == "reattributed":
            who = self.labels.labels[code][1]
            self.add("forged_revision", at, f"{self.label_text(code)} re-attributed to {self.author!r}: "
                     f"{_quote(text)} (was by {who!r})")
        elif tag in ("label_on_plain", "relabelled"):
            codes = sorted(set(r.code[p:p + size]) - {PLAIN, code})
            what = ", ".join(self.label_text(c) for c in codes) if codes else "plain text"
            if code == PLAIN:
                self.add("forged_revision", at, f"unchanged text now shown as {what}: {_quote(text)}")
            else:
                same_kind = all(self.labels.labels[c][0] == self.labels.labels[code][0] for c in codes)
                kind = "forged_revision" if same_kind else "altered_prior_revision"
                self.add(kind, at, f"{self.label_text(code)} now shown as {what}: {_quote(text)}")
        if size:
            self.formatting(text, hid, fmt, r, p, at)

    def formatting(self, text: str, hid: str, fmt: str, r: _Stream, p: int, at) -> None:
        r_hid = r.hidden[p:p + len(text)]
        if r_hid != hid:
            newly = [k for k in range(len(text)) if r_hid[k] == "1" and hid[k] == "0"]
            if newly:
                span = text[newly[0]:newly[-1] + 1]
                if span.strip(MARK + " "):
                    self.add("hidden_text", at, f"text visible in the input is hidden in the output: {_quote(span)}")
        r_fmt = r.fmt[p:p + len(text)]
        if r_fmt != fmt:
            tracked = r.tracked[p:p + len(text)]
            changed = [k for k in range(len(text)) if r_fmt[k] != fmt[k] and tracked[k] == "0"
                       and text[k] not in (MARK, " ")]
            if changed:
                span = text[changed[0]:changed[-1] + 1]
                self.add("untracked_formatting", at, f"formatting changed without a tracked change: {_quote(span)}")

    def explain(self, units, r: _Stream) -> None:
        """No resolution of the input's revisions gives the output: a character diff names the
        untracked change(s)."""
        a_text = "".join(u[0] for u in units)
        a_code = "".join(u[1] * len(u[0]) for u in units)
        a_where = []
        for u in units:
            a_where.extend([u[5]] * len(u[0]))
        for op, i1, i2, j1, j2 in _word_diff(a_text, r.text):
            at = self.where_at(r, j1, a_where[i1] if i1 < len(a_where) else None)
            removed = a_text[i1:i2]
            added = r.text[j1:j2]
            if _empty_paragraphs(a_text, i1, i2) and _empty_paragraphs(r.text, j1, j2):
                continue   # an empty paragraph added or removed: no text changed
            removed_codes = set(a_code[i1:i2])
            added_codes = set(r.code[j1:j2])
            context = _quote(_around(r.text, j1, j2))
            change = f"{_quote(removed)} -> {_quote(added)} in {context}"
            if op == "replace" and removed_codes == added_codes and PLAIN not in removed_codes:
                self.add("altered_prior_revision", at, f"text of {self.label_text(min(removed_codes))} changed: "
                         f"{change}")
                continue
            foreign = sorted(added_codes - {PLAIN})
            if foreign:
                self.add("forged_revision", at, f"new {', '.join(self.label_text(c) for c in foreign)}: "
                         f"{_quote(added)}")
            torn = self.torn(removed, a_code[i1:i2], r, j1, j2)
            if torn is not None:
                self.add("altered_prior_revision", at, f"part of {self.label_text(torn)} resolved without the "
                         f"rest: {change}")
                continue
            plain_gone = "".join(c for c, k in zip(removed, a_code[i1:i2]) if k == PLAIN).strip(" ")
            inside = bool(removed_codes - {PLAIN})
            theirs = [k for k in removed_codes - {PLAIN} if self.labels.labels[k][0] == "ins"
                      and self.labels.labels[k][1] != self.author]
            if op == "delete":
                if plain_gone:
                    kind = "altered_prior_revision" if inside and not plain_gone.strip(MARK) else "untracked_change"
                    self.add(kind, at, f"text removed without a tracked change: {_quote(removed)} in {context}")
                elif theirs:
                    self.add("silent_reject", at, f"insertion removed without a tracked change: {_quote(removed)}")
            elif op == "insert":
                if not foreign and added.strip(" "):
                    self.add("untracked_change", at, f"text added without a tracked change: {_quote(added)} in "
                             f"{context}")
            elif plain_gone or not foreign:
                kind = "altered_prior_revision" if inside and not plain_gone else "untracked_change"
                self.add(kind, at, f"text changed without a tracked change: {change}")

    def torn(self, removed: str, codes: str, r: _Stream, j1: int, j2: int) -> str | None:
        """The other side's revision whose text was partly taken out while the rest of it is
        still in the output, bordering the change (a partial accept or reject), or None."""
        taken = {k for c, k in zip(removed, codes) if k != PLAIN and not c.isspace() and c != MARK}
        if len(taken) != 1:
            return None
        code = next(iter(taken))
        if self.labels.labels[code][1] == self.author:
            return None
        left, right = j1 - 1, j2
        while left >= 0 and r.text[left] == " ":
            left -= 1
        while right < len(r.text) and r.text[right] == " ":
            right += 1
        near = {r.code[k] for k in (left, right) if 0 <= k < len(r.text)}
        return code if code in near else None

    # ------------------------------------------------------------------ moves
    def moves(self) -> None:
        moved_from = normalise("".join(self.out.moves["from"]).replace(MARK, " "))
        moved_to = normalise("".join(self.out.moves["to"]).replace(MARK, " "))
        if moved_from != moved_to:
            self.add("untracked_change", None, f"a tracked move's two ends differ: {_quote(moved_from)} -> "
                     f"{_quote(moved_to)}")

    # ------------------------------------------------------------------ comments
    def comments(self, original, output) -> None:
        before = _read_comments(original, self.src)
        after = _read_comments(output, self.out)
        author = self.author
        pending = {c.cid: c for c in after}
        pairs: dict[str, str] = {}

        def take(c, key) -> _Note | None:
            for o in list(pending.values()):
                if key(o):
                    del pending[o.cid]
                    pairs[c.cid] = o.cid
                    return o
            return None

        unmatched = []
        for c in before:
            if take(c, lambda o, c=c: (o.author, o.date, o.text) == (c.author, c.date, c.text)) is None:
                unmatched.append(c)
        for c in unmatched:
            if c.author == author:
                take(c, lambda o, c=c: o.author == author and o.date == c.date)
                continue
            o = take(c, lambda o, c=c: o.author == c.author and o.date == c.date)
            if o is not None:
                self.add("altered_comment", c.where, f"comment by {c.author!r} changed: {_quote(c.text)} -> "
                         f"{_quote(o.text)}")
                continue
            o = take(c, lambda o, c=c: o.text == c.text and (o.author != c.author or o.date != c.date))
            if o is not None:
                what = "author" if o.author != c.author else "date"
                self.add("forged_revision", o.where, f"comment by {c.author!r} now has {what} "
                         f"{o.author if what == 'author' else o.date!r}: {_quote(c.text)}")
                continue
            self.add("deleted_comment", c.where, f"comment by {c.author!r} removed: {_quote(c.text)}")
        for o in pending.values():
            if o.author != author:
                near = " (a near miss of the task's author)" if _near(o.author, author) else ""
                self.add("forged_revision", o.where, f"new comment by {o.author!r}{near}: {_quote(o.text)}")
                continue
            if not o.text.strip():
                continue
            if o.hidden:
                self.add("hidden_text", o.where, f"comment text hidden ({o.hidden}): {_quote(o.text)}")
            hit = judge_directed(o.text)
            if hit:
                self.add("judge_directed_text", o.where, f"comment addresses the grader ({hit!r}): {_quote(o.text)}")
        self.anchors(original, output, before, pairs)
        self.unreferenced(original, output, before, pairs)
        from .integrity_comments import comment_findings   # v3: initials, done state, thread, place
        for kind, where, detail in comment_findings(original, output, author, before, after, pairs,
                                                    MAX_ANCHOR_PARAGRAPHS):
            self.add(kind, where, detail)
        by_id_after = {o.cid: o for o in after}
        threads_known = any(o.parent is not None for o in after) or output.part_for(_RT_COMMENTS_EX) is not None
        for c in before:
            o = by_id_after.get(pairs.get(c.cid, ""))
            if o is None or c.author == author:
                continue
            if o.hidden and not c.hidden:
                self.add("hidden_text", o.where, f"comment by {c.author!r} hidden ({o.hidden}): {_quote(c.text)}")
            if o.done and not c.done:
                self.add("resolved_comment", o.where, f"comment by {c.author!r} marked resolved: {_quote(c.text)}")
            if threads_known and c.parent is not None and pairs.get(c.parent) != o.parent:
                self.add("altered_comment", o.where, f"thread of the comment by {c.author!r} changed: {_quote(c.text)}")


    def unreferenced(self, original, output, before: list[_Note], pairs: dict[str, str]) -> None:
        """Word shows a comment only where a ``w:commentReference`` names it: another author's comment
        left in comments.xml with its reference mark removed is gone for a Word reader."""
        theirs = [c for c in before if c.author != self.author and c.cid in pairs]
        if not theirs:
            return
        shown_before, shown_after = _referenced_comments(original), _referenced_comments(output)
        for c in theirs:
            if c.cid in shown_before and pairs[c.cid] not in shown_after:
                self.add("deleted_comment", c.where, f"comment by {c.author!r} no longer shown (its reference mark "
                         f"was removed): {_quote(c.text)}")

    def embedded(self, original, output) -> None:
        """Content Word imports or embeds (``w:altChunk``, OLE objects) is text a reader sees that the
        audit cannot compare: a new such object in the output is an untracked change."""
        had = {(kind, digest) for _where, kind, digest in _embedded_objects(original)}
        for where, kind, digest in _embedded_objects(output):
            if (kind, digest) in had:
                continue
            self.add("untracked_change", where, f"embedded content new in the output ({kind}): a Word reader sees "
                     "what it holds, outside any tracked change")

    def anchors(self, original, output, before: list[_Note], pairs: dict[str, str]) -> None:
        """Another author's comment must stay on its text: what its range covered in the input
        (untracked text) is still covered once the author's changes are rejected, and the range
        covers nothing the input's range did not (text, revisions accepted or rejected)."""
        theirs = {c.cid: c for c in before if c.author != self.author and c.cid in pairs}
        if not theirs:
            return
        was = _anchor_texts(original, None, set(theirs))
        now = _anchor_texts(output, self.author, {pairs[cid] for cid in theirs})
        for cid, c in theirs.items():
            a, b = was.get(cid), now.get(pairs[cid])
            if a is not None and b is None and pairs[cid] in now:
                self.add("altered_comment", c.where, f"comment by {c.author!r} now anchored on more than "
                         f"{MAX_ANCHOR_PARAGRAPHS} paragraphs: {_quote(a[2])}")
                continue
            if a is None or b is None:
                continue   # a range on one side only (a point comment, a reply without its own range)
            a_core, _a_view, a_full = a
            b_core, b_view, _b_full = b
            if not (_subsequence(a_core, b_view) and _subsequence(b_core, a_full)):
                self.add("altered_comment", c.where, f"comment by {c.author!r} now anchored on other text: "
                         f"{_quote(a_full)} -> {_quote(b_view)}")


# ---------------------------------------------------------------------------------------------- helpers
def _equal_pairs(gaps: list, a_list: list, b_list: list) -> list[tuple]:
    """(a, b) of the stretches ``_gaps`` left out (equal, index for index)."""
    out = []
    i = j = 0
    for i1, i2, j1, j2 in gaps:
        out.extend(zip(a_list[i:i1], b_list[j:j1]))
        i, j = i2, j2
    out.extend(zip(a_list[i:], b_list[j:]))
    return out


def _text_pairs(a_paras: list, b_paras: list, a_ps: list, b_ps: list) -> list[tuple]:
    """Paragraphs of a differing gap that read the same text (the output's with the author's
    changes rejected), paired in order; a paragraph that reads nothing (the author's inserted
    paragraph) pairs with none."""
    a_text = [normalise("".join(s.text for s in x.segs).replace(MARK, " ")) or object() for x in a_paras]
    b_text = [normalise("".join(s.text for s in x.segs).replace(MARK, " ")) or object() for x in b_paras]
    return _equal_pairs(list(_gaps(a_text, b_text)), a_ps, b_ps)


def _block_paragraphs(root, ps: list) -> list:
    """The paragraphs of ``ps`` that are not in a text box (a box's paragraphs are a story of their own)."""
    boxed = {p for box in root.iter(W_TXBXCONTENT) for p in box.iter(W_P)}
    return [p for p in ps if p not in boxed] if boxed else ps


def _mark_authors(p) -> set[str]:
    """Authors of ``p``'s tracked paragraph-mark insertion or deletion."""
    ppr = p.find(W_PPR)
    rpr = ppr.find(W_RPR) if ppr is not None else None
    if rpr is None:
        return set()
    return {(c.get(W_AUTHOR) or "") for c in rpr if c.tag in REVISION_WRAPPERS}


def _table_digest(root) -> bytes:
    """The properties of every table, row and cell of a story: the context of its paragraphs."""
    h = hashlib.sha256()
    for el in root.iter(W_TBLPR, W_TCPR, W_TRPR):
        h.update(etree.tostring(el))
    return h.digest()


def _pieces(model, p, atoms) -> list[tuple[str, str | None, object]]:
    """(normalised text, why unreadable or None, atom) of each text atom of ``p``."""
    fits = model.fit_reasons(atoms, p) if next(p.iter(W_FITTEXT), None) is not None else {}
    out = []
    for atom in atoms:
        text = _norm_piece(atom.text) if atom.text else ""
        if not text:
            continue
        out.append((text, fits.get(atom.run) or model.run_reason(atom.run, p), atom))
    return out


def _newly_hidden(a_pieces: list, b_pieces: list) -> tuple[str, str] | None:
    """(text, why) of the first text visible in ``a_pieces`` and hidden where ``b_pieces`` has it."""
    a_text = "".join(t for t, _ in a_pieces)
    a_mask = "".join(("0" if why is None else "1") * len(t) for t, why in a_pieces)
    b_text = "".join(t for t, _ in b_pieces)
    b_why: list = []
    for t, why in b_pieces:
        b_why.extend([why] * len(t))
    matcher = SequenceMatcher(None, a_text, b_text, autojunk=False)
    for i, j, size in matcher.get_matching_blocks():
        for k in range(size):
            if a_mask[i + k] == "0" and b_why[j + k] is not None and not a_text[i + k].isspace():
                end = k
                while end < size and a_mask[i + end] == "0" and b_why[j + end] is not None:
                    end += 1
                return a_text[i + k:i + end], b_why[j + k]
    return None


def _shown(model, sdt) -> str:
    """What a content control shows: its bound custom XML value, else its content's text."""
    value = model.bound_text(sdt)
    if value is None:
        content = sdt.find(W_SDTCONTENT)
        value = "".join(t.text or "" for t in content.iter(W_T)) if content is not None else ""
    return normalise(value)


#: Paragraph pairs sampled to decide whether the noise sieve can help a long gap.
SIEVE_SAMPLE = 48
#: Paragraphs a comment range may span before the anchor check gives up on it (hostile ranges).
MAX_ANCHOR_PARAGRAPHS = 400


def _anchor_texts(doc, author: str | None, wanted: set[str]) -> dict[str, tuple[str, str, str] | None]:
    """Comment id -> (untracked text, text once ``author``'s changes are rejected, all text) its
    range covers, whitespace removed; only for ``wanted`` ids with both range ends (None for a
    range over more than MAX_ANCHOR_PARAGRAPHS paragraphs, which is not read)."""
    out: dict[str, tuple[str, str, str] | None] = {}
    for _part, root in doc.story_parts():
        starts = {el.get(W_ID): el for el in root.iter(W_CRS) if el.get(W_ID) in wanted}
        if not starts:
            continue
        ends = {el.get(W_ID): el for el in root.iter(W_CRE) if el.get(W_ID) in starts}
        paragraphs = [p for p in root.iter(W_P)]
        index = {p: i for i, p in enumerate(paragraphs)}
        walks: dict = {}

        def walk(p):
            w = walks.get(p)
            if w is None:
                w = walks[p] = walk_paragraph(p)
            return w

        for cid, start in starts.items():
            end = ends.get(cid)
            p0, p1 = _paragraph_of(start), _paragraph_of(end) if end is not None else None
            if p0 is None or p1 is None or p0 not in index or p1 not in index:
                continue
            i0, i1 = index[p0], index[p1]
            if i1 < i0:
                continue
            if i1 - i0 > MAX_ANCHOR_PARAGRAPHS:
                out[cid] = None   # a range over a whole document: not where any comment was
                continue
            shown = [p for p in paragraphs[i0:i1 + 1] if not in_unrendered_branch(p)]
            atoms = range_atoms(shown, start, end, walk) if shown else []
            texts = anchored_texts(atoms, author)   # one reading of a range's text, shared with the comment checks
            out[cid] = (texts.core, texts.view, texts.full)
    return out


def _referenced_comments(doc) -> set[str]:
    """Ids of the comments a ``w:commentReference`` in some story shows."""
    return {el.get(W_ID) or "" for _part, root in doc.story_parts() for el in root.iter(W_CREF)}


_R_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
#: Relationship types whose target Word renders inside the document (imported or embedded content).
_EMBED_RELTYPES = {
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk": "imported document (w:altChunk)",
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/oleObject": "OLE object",
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/package": "embedded package",
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/subDocument": "subdocument",
}


def _embedded_objects(doc) -> list[tuple[str, str, str]]:
    """(story, kind, content digest) of every embedded or imported object a story's XML refers to."""
    package = doc.package
    out = []
    for part, root in doc.story_parts():
        rels = {r.rid: r for r in package.rels(part) if r.reltype in _EMBED_RELTYPES}
        if not rels:
            continue
        used = {v for el in root.iter() for k, v in el.attrib.items() if k.startswith(_R_NS)}
        for rid in sorted(used & set(rels)):
            rel = rels[rid]
            if rel.external:
                digest = "external:" + rel.target
            elif package.has(rel.target):
                digest = hashlib.sha256(package.blob(rel.target)).hexdigest()
            else:
                continue
            out.append((part.rsplit("/", 1)[-1] if part != package.main_part else "body", _EMBED_RELTYPES[rel.reltype],
                        digest))
    return out


def _paragraph_of(el):
    for anc in el.iterancestors(W_P):
        return anc
    return None


def _subsequence(short: str, long: str) -> bool:
    """Every character of ``short`` occurs in ``long`` in order."""
    it = iter(long)
    return all(ch in it for ch in short)

@dataclass(slots=True)
class _Stream:
    text: str
    code: str
    hidden: str
    fmt: str
    tracked: str
    src: str
    starts: list[int]
    wheres: list[str]
    inserted_at: dict[int, str]


def _split(text: str, codes: str, p: int, code: str) -> bool:
    """The output shows one revision's ``text`` (at ``p``) partly as that revision and partly
    as something else (spaces and paragraph marks at its edges aside): a partial resolution."""
    inside = outside = False
    for k, ch in enumerate(text):
        if ch.isspace() or ch == MARK:
            continue
        if codes[p + k] == code:
            inside = True
        else:
            outside = True
        if inside and outside:
            return True
    return False


def _around(text: str, i: int, j: int, width: int = 24) -> str:
    """``text[i:j]`` with a few words either side, for a finding's quote."""
    return text[max(0, i - width):j + width]


def _empty_paragraphs(text: str, i: int, j: int) -> bool:
    """``text[i:j]`` holds only paragraph marks and spaces, and taking it out merges no text
    (it borders a paragraph mark or an end of the stream): empty paragraphs, not a split."""
    if text[i:j].strip(" " + MARK):
        return False
    if i == j:
        return True
    before = text[:i].rstrip(" ")
    after = text[j:].lstrip(" ")
    return not before or not after or before[-1] == MARK or after[0] == MARK


_TOKEN = re.compile(r"\w+|\s+|.", re.DOTALL)


def _word_diff(a: str, b: str) -> list[tuple[str, int, int, int, int]]:
    """Character ranges where ``a`` and ``b`` differ, found word by word; changes separated only by
    whitespace are one change (so a finding quotes "twelve (12)" -> "three (3)", not letters)."""
    a_tok = [m.span() for m in _TOKEN.finditer(a)]
    b_tok = [m.span() for m in _TOKEN.finditer(b)]
    matcher = SequenceMatcher(None, [a[x:y] for x, y in a_tok], [b[x:y] for x, y in b_tok], autojunk=False)

    def at(tokens, k, text):
        return tokens[k][0] if k < len(tokens) else len(text)

    out: list[list] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        ca1, ca2, cb1, cb2 = at(a_tok, i1, a), at(a_tok, i2, a), at(b_tok, j1, b), at(b_tok, j2, b)
        if op == "equal":
            continue
        if out and not a[out[-1][2]:ca1].strip() and not b[out[-1][4]:cb1].strip():
            out[-1][2], out[-1][4] = ca2, cb2
            out[-1][0] = "replace"
        else:
            out.append([op, ca1, ca2, cb1, cb2])
    for item in out:
        if item[1] == item[2]:
            item[0] = "insert"
        elif item[3] == item[4]:
            item[0] = "delete"
    return [tuple(x) for x in out]


def _content_key(para: _Para) -> tuple:
    return (tuple([(s.text, s.code, s.hidden is not None, s.fmt, s.src) for s in para.segs]),
            tuple([t for _, t, _ in para.inserted]))


def _gaps(a: list, b: list) -> Iterable[tuple[int, int, int, int]]:
    """Index ranges (i1, i2, j1, j2) where the two lists differ: equal prefix, suffix and matching
    blocks skipped."""
    n, m = len(a), len(b)
    lo = 0
    while lo < n and lo < m and a[lo] == b[lo]:
        lo += 1
    hi_a, hi_b = n, m
    while hi_a > lo and hi_b > lo and a[hi_a - 1] == b[hi_b - 1]:
        hi_a -= 1
        hi_b -= 1
    if lo == hi_a and lo == hi_b:
        return
    if lo == hi_a or lo == hi_b:
        yield lo, hi_a, lo, hi_b
        return
    mid_a, mid_b = a[lo:hi_a], b[lo:hi_b]
    matcher = SequenceMatcher(None, mid_a, mid_b, autojunk=len(mid_a) + len(mid_b) > 4000)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            yield lo + i1, lo + i2, lo + j1, lo + j2


def _paired_stories(original, output):
    """(name, input root, output root) per story: the main document, then headers, footers and
    notes paired by part name (a part only one side has is compared with nothing)."""
    a = dict(original.story_parts())
    b = dict(output.story_parts())
    main_a, main_b = original.package.main_part, output.package.main_part
    yield "body", a.pop(main_a), b.pop(main_b)
    # LibreOffice renames header/footer parts: pair by kind and order when names differ
    for kind in ("header", "footer", "footnotes", "endnotes"):
        left = sorted((n for n in a if kind in n.rsplit("/", 1)[-1]), key=_natural)
        right = sorted((n for n in b if kind in n.rsplit("/", 1)[-1]), key=_natural)
        left_text = {n: _story_text(a[n]) for n in left}
        right_text = {n: _story_text(b[n]) for n in right}
        for n in list(left):       # identical XML first (still compared: styles can render it otherwise)
            if n in right and etree.tostring(a[n]) == etree.tostring(b[n]):
                yield n.rsplit("/", 1)[-1], a[n], b[n]
                left.remove(n)
                right.remove(n)
        for n in list(left):
            hit = next((m for m in right if right_text[m] == left_text[n]), None)
            if hit is not None:
                yield n.rsplit("/", 1)[-1], a[n], b[hit]
                left.remove(n)
                right.remove(hit)
        left = [n for n in left if left_text[n].strip()]
        right = [n for n in right if right_text[n].strip()]
        for k in range(max(len(left), len(right))):
            n = left[k] if k < len(left) else None
            m = right[k] if k < len(right) else None
            yield (m or n).rsplit("/", 1)[-1], a[n] if n else None, b[m] if m else None


def _story_text(root) -> str:
    return normalise("".join(root.itertext()))


def _natural(name: str):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", name)]


_RT_COMMENTS_EX = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"


@dataclass(slots=True)
class _Note:
    cid: str
    author: str
    date: str | None
    text: str
    parent: str | None
    done: bool
    hidden: str | None
    where: str


def _read_comments(doc, reader: _Reader) -> list[_Note]:
    from .comments import RT_COMMENTS, _extended, _last_para_id, _thread_parents

    part = doc.part_for(RT_COMMENTS)
    if part is None:
        return []
    extended = _extended(doc)
    parents = _thread_parents(doc)
    out = []
    for el in doc.package.xml(part).iterfind(W_COMMENT):
        cid = el.get(qn("w:id")) or ""
        texts, hidden = [], None
        for p in el.iter(W_P):
            for atom in walk_paragraph(p).atoms:
                if atom.kind not in ("text", "ins", "move_to") or not atom.text:
                    continue
                texts.append(atom.text)
                if hidden is None and atom.text.strip() and atom.run is not None:
                    hidden = rendering(doc).reason(atom.run)   # in its paragraph (CommentText style...)
            texts.append(" ")
        last = (_last_para_id(el) or "").upper()
        try:
            parent = parents.get(int(cid))
        except ValueError:
            parent = None
        out.append(_Note(cid, el.get(W_AUTHOR) or "", _date_key(el.get(W_DATE)), normalise("".join(texts)),
                         str(parent) if parent is not None else None, extended.get(last, (None, False))[1],
                         hidden, f"comment {cid}"))
    return out


def _near(candidate: str, author: str) -> bool:
    """A near miss of ``author``: equal after case, whitespace and compatibility folding."""
    def fold(s: str) -> str:
        return " ".join(unicodedata.normalize("NFKC", s).casefold().split())
    return candidate != author and (fold(candidate) == fold(author) or _skeleton(candidate) == _skeleton(author))


_CONFUSABLE = str.maketrans({"а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i",
                             "ј": "j", "ѕ": "s", "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H",
                             "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X", "ο": "o", "α": "a", "ν": "v"})


def _skeleton(s: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", s).translate(_CONFUSABLE).casefold().split())


# ---------------------------------------------------------------------------------------------- judge-directed
_JUDGE_PATTERNS = [re.compile(p, re.IGNORECASE) for p in (
    r"\bignore\s+(?:all\s+|any\s+|the\s+)?(?:previous\s+|prior\s+|above\s+|earlier\s+|other\s+|your\s+)*instructions\b",
    r"\b(?:disregard|forget)\s+(?:all\s+|any\s+|the\s+)?(?:previous\s+|prior\s+|above\s+|your\s+)*"
    r"(?:instructions|rubric|criteria)\b",
    r"\brubrics?\b",
    r"\bgraders?\b",
    r"\bevaluators?\b",
    r"\b(?:LLM|language model|AI model|judge model|judging model|grading model)s?\b",
    r"\b(?:to|dear|attention|hello|hi)\s*,?\s+(?:the\s+)?(?:judges?|reviewer model|grading system)\b",
    r"\bnote\s+(?:to|for)\s+(?:the\s+)?(?:judges?|reviewers?|evaluators?|graders?|assessors?|AI|model)\b",
    r"\bjudges?\s*(?::|,\s*(?:please|you)|should\s+(?:mark|answer|grade|pass|return|output)|must\s+"
    r"(?:mark|answer|grade|pass|return|output))",
    r"\b(?:answer|respond|return|output|reply|mark|grade)\s+(?:with\s+)?[\"'“‘(\[]?\s*PASS\b",
    r"\bverdicts?\b[^.]{0,40}\b(?:PASS|FAIL)\b",
    r"\b(?:full|maximum|max|perfect|top)\s+(?:marks|score|points)\b",
    r"\ball\s+(?:the\s+)?(?:rubric\s+)?criteri(?:a|on)\s+(?:are|is|have\s+been|has\s+been)\s+"
    r"(?:met|satisfied|fulfilled|passed)\b",
    r"\b(?:score|grade|rate|mark)\s+(?:this|the)\s+(?:redline|response|answer|output|submission|document|edit)s?\b",
    r"\b(?:system|developer)\s+(?:prompt|message|instructions?)\b",
    r"\byou\s+are\s+(?:an?\s+|the\s+)?(?:AI|assistant|judge|grader|evaluator|language model)\b",
)]
_PASS_WORD = re.compile(r"(?<![\w-])PASS(?:ED)?(?![\w-])")


def judge_directed(text: str) -> str | None:
    """The phrase by which ``text`` addresses a grader rather than the counterparty, or None."""
    flat = " ".join(unicodedata.normalize("NFKC", text).split())
    for pattern in _JUDGE_PATTERNS:
        m = pattern.search(flat)
        if m:
            return m.group(0)
    m = _PASS_WORD.search(flat)   # "PASS" in capitals: a verdict word, not contract English
    return m.group(0) if m else None


# ---------------------------------------------------------------------------------------------- entry point
def audit(original, output, author: str) -> IntegrityReport:
    """Audit ``output`` against the task's input ``original`` (both opened ``RedlineDocument``s)
    for the task's ``author`` (SPEC §5.1). Pure: neither document is changed.

    The cyclic garbage collector is paused meanwhile (unless the caller had paused it): a large
    document's audit makes some hundred thousand short-lived tuples and segments, none in a cycle,
    and the collections they trigger cost about a tenth of its time."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _Audit(original, output, author).run(original, output)
    finally:
        if paused:
            gc.enable()
