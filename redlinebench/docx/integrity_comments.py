"""Another author's comment keeps its metadata and its place (SPEC §5.1, integrity v3).

``integrity`` pairs each input comment with its output copy and checks its text, author, date,
open state and (when the range survives) that the range covers the same text. This module adds
what a reader of the comments pane sees besides: the initials, the thread (a root made a reply
too), the done state in both directions (reopening is altering: resolving stays the
``resolved_comment`` flag), and where the comment stands:

- *collapsed*: the input's range covered text, the output keeps only the reference point;
- *stretched*: a point comment (or an empty range) now covers text;
- *moved*: the range covers the same words elsewhere: the text before its start and after its
  end in their paragraphs, or the story it stands in, differ.

Text is compared as ``integrity.anchors`` does: whitespace removed, the author's tracked changes
allowed for (their insertions dropped, their deletions restored), another author's pending
revisions kept, accepted or rejected.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from lxml import etree

from .oxml import qn
from .runs import W_AUTHOR, W_CRE, W_CREF, W_CRS, W_ID, W_P, walk_paragraph

__all__ = ["comment_findings"]

_INSERTING = ("ins", "move_to")
_MC_FALLBACK = qn("mc:Fallback")
_W_COMMENT = qn("w:comment")
_W_INITIALS = qn("w:initials")
_RT_COMMENTS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments"
_RT_COMMENTS_EX = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"


@dataclass(frozen=True, slots=True)
class _Texts:
    core: str    # untracked text (and the author's deletions, restored)
    view: str    # the text once the author's tracked changes are rejected
    full: str    # every character, whatever its revision

    def fits(self, other: "_Texts") -> bool:
        """``self`` (the input's) and ``other`` (the output's) are the same text up to the
        author's tracked changes and the resolution of others' revisions."""
        return _subsequence(self.core, other.view) and _subsequence(other.core, self.full)


class _Place:
    """Where a comment stands: its story, whether it has a range, the XML of its paragraphs (equal
    XML: the same place, nothing to read) and, read on demand, the text before, inside and after."""

    __slots__ = ("story", "ranged", "raw", "_read", "_texts")

    def __init__(self, story: str, ranged: bool, raw: bytes, read) -> None:
        self.story, self.ranged, self.raw, self._read, self._texts = story, ranged, raw, read, None

    def texts(self) -> tuple[_Texts, _Texts, _Texts]:
        """(before the start in its paragraph, inside the range, after the end in its paragraph)."""
        if self._texts is None:
            self._texts = self._read()
        return self._texts


def _subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(ch in it for ch in short)


def range_atoms(paragraphs, start, end, walk) -> list:
    """The atoms of ``paragraphs`` (a range's paragraphs, in order) from the ``start`` marker in the
    first to the ``end`` marker in the last; ``walk`` reads (and caches) one paragraph."""
    atoms: list = []
    first, last = paragraphs[0], paragraphs[-1]
    for p in paragraphs:
        w = walk(p)
        lo = next((m.index for m in w.markers if m.element is start), 0) if p is first else 0
        hi = next((m.index for m in w.markers if m.element is end), len(w.atoms)) if p is last else len(w.atoms)
        atoms.extend(w.atoms[lo:hi])
    return atoms


def anchored_texts(atoms, author: str | None) -> _Texts:
    """A comment range's text three ways: the input's own text (core), what stays with the author's
    revisions rejected (view), and everything (full); whitespace dropped, NFC."""
    core, view, full = [], [], []
    for atom in atoms:
        text = "".join(unicodedata.normalize("NFC", atom.text or "").split())
        if not text:
            continue
        full.append(text)
        rev_author = (atom.rev.get(W_AUTHOR) or "") if atom.rev is not None else None
        outer_author = (atom.outer.get(W_AUTHOR) or "") if atom.outer is not None else None
        mine = author is not None and rev_author == author
        if (mine and atom.kind in _INSERTING) or (author is not None and outer_author == author):
            continue
        view.append(text)
        if atom.kind == "text" or (mine and atom.outer is None):
            core.append(text)
    return _Texts("".join(core), "".join(view), "".join(full))


def _places(doc, author: str | None, wanted: set[str], span_limit: int) -> dict[str, _Place]:
    """Comment id -> where it stands, for ``wanted`` ids whose range (or reference point) is found
    in one story with its start before its end, spanning at most ``span_limit`` paragraphs."""
    out: dict[str, _Place] = {}
    for part, root in doc.story_parts():
        marks: dict[str, dict[str, object]] = {}
        for el in root.iter(W_CRS, W_CRE, W_CREF):
            cid = el.get(W_ID) or ""
            if cid in wanted and cid not in out:
                marks.setdefault(cid, {}).setdefault(el.tag, el)
        if not marks:
            continue
        paragraphs = list(root.iter(W_P))
        if next(root.iter(_MC_FALLBACK), None) is not None:   # a shape's fallback copy is not on the page
            paragraphs = [p for p in paragraphs if not any(True for _ in p.iterancestors(_MC_FALLBACK))]
        index = {p: i for i, p in enumerate(paragraphs)}
        walks: dict = {}

        def walk(p):
            w = walks.get(p)
            if w is None:
                w = walks[p] = walk_paragraph(p)
            return w

        for cid, found in marks.items():
            ranged = W_CRS in found and W_CRE in found
            start = found.get(W_CRS) if ranged else found.get(W_CREF)
            end = found.get(W_CRE) if ranged else start
            if start is None:
                continue
            p0 = next(start.iterancestors(W_P), None)
            p1 = next(end.iterancestors(W_P), None)
            if p0 not in index or p1 not in index or not 0 <= index[p1] - index[p0] <= span_limit:
                continue
            i0, i1 = index[p0], index[p1]

            def read(start=start, end=end, p0=p0, p1=p1, i0=i0, i1=i1, walk=walk, paragraphs=paragraphs):
                w0, w1 = walk(p0), walk(p1)
                lo = next((m.index for m in w0.markers if m.element is start), 0)
                hi = next((m.index for m in w1.markers if m.element is end), len(w1.atoms))
                inside = range_atoms(paragraphs[i0:i1 + 1], start, end, walk)
                return anchored_texts(w0.atoms[:lo], author), anchored_texts(inside, author), anchored_texts(w1.atoms[hi:], author)
            raw = b"".join(etree.tostring(paragraphs[i]) for i in range(i0, i1 + 1))
            out[cid] = _Place(part.rsplit("/", 1)[-1], ranged, raw, read)
    return out


def _metadata(doc) -> dict[str, tuple[str | None, bool | None]]:
    """Comment id -> (initials, done state as commentsExtended records it, None when it has no entry)."""
    from .comments import _extended, _last_para_id

    part = doc.part_for(_RT_COMMENTS)
    if part is None:
        return {}
    extended = _extended(doc)
    out = {}
    for el in doc.package.xml(part).iterfind(_W_COMMENT):
        entry = extended.get((_last_para_id(el) or "").upper())
        out[el.get(W_ID) or ""] = (el.get(_W_INITIALS), entry[1] if entry is not None else None)
    return out


def comment_findings(original, output, author: str, before, after, pairs: dict[str, str],
                     span_limit: int) -> list[tuple[str, str, str]]:
    """(kind, where, detail) for each other author's comment whose initials, thread, done state
    or place changed. ``before``/``after``: the audit's comment records (``cid``, ``author``,
    ``text``, ``parent``, ``where``); ``pairs``: input comment id -> its output comment id."""
    from .integrity import _quote

    theirs = [c for c in before if c.author != author and c.cid in pairs]
    if not theirs:
        return []
    out: list[tuple[str, str, str]] = []
    meta_a, meta_b = _metadata(original), _metadata(output)
    threads_known = any(o.parent is not None for o in after) or output.part_for(_RT_COMMENTS_EX) is not None
    by_id_after = {o.cid: o for o in after}
    for c in theirs:
        o = by_id_after[pairs[c.cid]]
        initials_a, done_a = meta_a.get(c.cid, (None, None))
        initials_b, done_b = meta_b.get(o.cid, (None, None))
        if (initials_a or "") != (initials_b or "") and initials_a is not None:
            out.append(("forged_revision", o.where, f"comment by {c.author!r} now has initials {initials_b!r} "
                        f"(was {initials_a!r}): {_quote(c.text)}"))
        if done_a and done_b is False:
            out.append(("altered_comment", o.where, f"resolved comment by {c.author!r} reopened: {_quote(c.text)}"))
        if threads_known and c.parent is None and o.parent is not None:
            out.append(("altered_comment", o.where, f"comment by {c.author!r} made a reply in another thread: "
                        f"{_quote(c.text)}"))
    was = _places(original, None, {c.cid for c in theirs}, span_limit)
    now = _places(output, author, {pairs[c.cid] for c in theirs}, span_limit)
    for c in theirs:
        a, b = was.get(c.cid), now.get(pairs[c.cid])
        if a is None or b is None:
            continue   # no mark left (a deleted comment) or a range over a whole story: named elsewhere
        if a.story == b.story and a.ranged == b.ranged and a.raw == b.raw:
            continue   # the same paragraphs, byte for byte: the same place
        (a_before, a_inside, a_after), (b_before, b_inside, b_after) = a.texts(), b.texts()
        covered = a.ranged and bool(a_inside.full)
        if covered and not b.ranged:
            out.append(("altered_comment", c.where, f"comment by {c.author!r} collapsed to a point: its range "
                        f"over {_quote(a_inside.full)} removed"))
            continue
        same_place = a.story == b.story and a_before.fits(b_before) and a_after.fits(b_after)
        if not covered:
            if b.ranged and b_inside.view:
                out.append(("altered_comment", c.where, f"comment by {c.author!r} stretched over "
                            f"{_quote(b_inside.view)} (it marked a point)"))
            elif not same_place:
                out.append(("altered_comment", c.where, f"comment by {c.author!r} moved to another place"))
            continue
        if not a_inside.fits(b_inside):
            continue   # a range over other text: integrity.anchors names it
        if not same_place:
            out.append(("altered_comment", c.where, f"comment by {c.author!r} moved: the same words "
                        f"{_quote(a_inside.full)} elsewhere"))
    return out
