"""Accept or reject tracked changes: all of them, one author's, or one revision id.

Run-level wrappers are unwrapped or removed; paragraph-mark revisions that make a mark
disappear (accepting a deleted mark, rejecting an inserted one) join the paragraph's
remaining content into the following paragraph, whose mark and properties survive, so no
empty leftovers remain. Comment anchors and bookmarks inside removed content are lifted out
first, so comments stay anchored and cross-reference targets stay alive.
"""

from __future__ import annotations


from ..errors import ToolFailure, id_number, shown
from .oxml import qn
from .runs import (
    W_AUTHOR,
    W_CRE,
    W_CREF,
    W_CRS,
    W_DEL,
    W_FLDSIMPLE,
    W_ID,
    W_INS,
    W_MOVEFROM,
    W_MOVETO,
    W_P,
    W_PPR,
    W_PPRCHANGE,
    W_R,
    W_RPR,
    W_RPRCHANGE,
    W_SECTPR,
    W_TBL,
    W_TC,
    W_TR,
    W_TRPR,
    mark_undeleted_run,
)

PR_CHANGES = {qn(t) for t in ("w:rPrChange", "w:pPrChange", "w:tblPrChange", "w:trPrChange", "w:tcPrChange",
                               "w:sectPrChange", "w:tblGridChange", "w:tblPrExChange", "w:numberingChange")}
WRAPPERS = (W_INS, W_DEL, W_MOVEFROM, W_MOVETO)
MOVE_RANGES = {qn(t) for t in ("w:moveFromRangeStart", "w:moveFromRangeEnd", "w:moveToRangeStart",
                                "w:moveToRangeEnd")}
_COMMENT_MARKERS = {W_CRS, W_CRE}
KEEP_MARKERS = {qn(t) for t in ("w:commentRangeStart", "w:commentRangeEnd", "w:bookmarkStart", "w:bookmarkEnd",
                                 "w:permStart", "w:permEnd")}
_SURVIVING_PPR = {W_RPR, W_SECTPR, W_PPRCHANGE}


def _parse_revision_id(value) -> int:
    number = id_number(value, "rev")
    if number is not None:
        return number
    raise ToolFailure("revision_not_found", f"revision id must look like \"rev-12\", got {shown(value)}")


def _attached(el, root) -> bool:
    while el is not None:
        if el is root:
            return True
        el = el.getparent()
    return False


def lift_markers(el, *, runs: bool = True) -> None:
    """Move comment/bookmark anchors (and comment reference runs) out of ``el``, before it."""
    keep = []
    for d in el.iterdescendants():
        if d.tag in KEEP_MARKERS:
            keep.append(d)
        elif runs and d.tag == W_R and d.find(W_CREF) is not None:
            keep.append(d)
    for d in keep:
        el.addprevious(d)


def remove(el) -> None:
    parent = el.getparent()
    if parent is None:
        return
    if el.tag in (W_TR, W_TBL) and el.find(".//" + W_CREF) is not None:
        _rehome_comments(el)
    lift_markers(el, runs=el.tag not in (W_TR, W_TBL, W_P))
    parent.remove(el)


def _rehome_comments(el) -> None:
    """A row or table is going: its comment anchors (ranges and reference runs, which cannot stand
    in a table) move to the nearest paragraph outside it, so no comment is left unanchored."""
    root = el.getroottree().getroot()
    inside = set(el.iter(W_P))
    before = after = None
    passed = False
    for p in root.iter(W_P):   # document order: the paragraphs inside ``el`` come in one stretch
        if p in inside:
            passed = True
        elif passed:
            after = p
            break
        else:
            before = p
    moving = [d for d in el.iterdescendants() if d.tag in _COMMENT_MARKERS
              or (d.tag == W_R and d.find(W_CREF) is not None)]
    target = before if before is not None else after
    if target is None:
        return
    if target is before:
        for d in moving:
            target.append(d)
    else:
        ppr = target.find(W_PPR)
        index = 0 if ppr is None else target.index(ppr) + 1
        for d in moving:
            target.insert(index, d)
            index += 1


def unwrap(el) -> None:
    parent = el.getparent()
    index = parent.index(el)
    for child in list(el):
        parent.insert(index, child)
        index += 1
    parent.remove(el)


def _container_next_paragraph(p):
    nxt = p.getnext()
    while nxt is not None and nxt.tag not in (W_P, W_TBL, qn("w:sdt"), W_SECTPR):
        nxt = nxt.getnext()
    return nxt


def join_with_next(p) -> None:
    """The paragraph's mark disappears: its content joins the next paragraph (which keeps its mark)."""
    nxt = _container_next_paragraph(p)
    content = [c for c in p if c.tag != W_PPR]
    if nxt is None or nxt.tag != W_P:
        # Nothing to join into (a table follows, or p ends its container): the paragraph stays,
        # as in Word and LibreOffice, only its mark revision is gone.
        return
    ppr = nxt.find(W_PPR)
    index = 0 if ppr is None else nxt.index(ppr) + 1
    for c in content:
        nxt.insert(index, c)
        index += 1
    p.getparent().remove(p)


def _matches(el, author: str | None, rev_id: int | None) -> bool:
    if rev_id is not None:
        return el.get(W_ID) == str(rev_id)
    if author is not None:
        return el.get(W_AUTHOR) == author
    return True


def _is_mark(el) -> bool:
    parent = el.getparent()
    return parent is not None and parent.tag == W_RPR and parent.getparent() is not None \
        and parent.getparent().tag == W_PPR


def _is_row(el) -> bool:
    parent = el.getparent()
    return parent is not None and parent.tag == W_TRPR


def _revert_properties(change) -> None:
    host = change.getparent()
    old = change[0] if len(change) else None
    keep = _SURVIVING_PPR if change.tag == W_PPRCHANGE else set()
    if change.tag == W_RPRCHANGE:
        keep = {W_INS, W_DEL, W_MOVEFROM, W_MOVETO}
    if change.tag == qn("w:sectPrChange"):
        keep = {qn("w:headerReference"), qn("w:footerReference")}
    if change.tag == qn("w:trPrChange"):
        keep = {W_INS, W_DEL}
    for child in list(host):
        if child is change or child.tag in keep:
            continue
        host.remove(child)
    if old is not None:
        index = 0
        if change.tag == W_RPRCHANGE:
            index = sum(1 for c in host if c.tag in keep)
        for child in list(old):
            host.insert(index, child)
            index += 1
    host.remove(change)


def resolve(doc, action: str, *, author: str | None = None, revision_id=None) -> int:
    """Accept or reject matching revisions in every story part; returns how many were resolved."""
    if action not in ("accept", "reject"):
        raise ValueError(action)
    rev_id = _parse_revision_id(revision_id) if revision_id is not None else None
    count = 0
    found_target = False
    for part, root in doc.story_parts():
        changed = 0
        wrappers = [el for el in root.iter(*WRAPPERS) if _matches(el, author, rev_id)]
        changes = [el for el in root.iter(*PR_CHANGES) if _matches(el, author, rev_id)]
        run_level = [el for el in wrappers if not _is_mark(el) and not _is_row(el)]
        marks = [el for el in wrappers if _is_mark(el)]
        rows = [el for el in wrappers if _is_row(el)]
        for el in run_level:
            changed += 1
            if not _attached(el, root):
                continue
            keeps_content = el.tag in ((W_INS, W_MOVETO) if action == "accept" else (W_DEL, W_MOVEFROM))
            if keeps_content:
                if el.tag == W_DEL:
                    for run in el.iter(W_R):
                        mark_undeleted_run(run)
                unwrap(el)
            else:
                remove(el)
        for change in changes:
            changed += 1
            if not _attached(change, root):
                continue
            if action == "accept":
                change.getparent().remove(change)
            else:
                _revert_properties(change)
        for row_mark in rows:
            changed += 1
            if not _attached(row_mark, root):
                continue
            tr = row_mark.getparent().getparent()
            goes = (action == "accept") == (row_mark.tag == W_DEL)
            row_mark.getparent().remove(row_mark)
            if goes and tr is not None and tr.tag == W_TR:
                tbl = tr.getparent()
                remove(tr)
                # a row wrapped in a content control or custom XML: drop the emptied wrappers too
                while tbl is not None and tbl.tag != W_TBL and tbl.find(".//" + W_TR) is None:
                    holder = tbl.getparent()
                    remove(tbl)
                    tbl = holder
                if tbl is not None and tbl.tag == W_TBL and tbl.find(".//" + W_TR) is None:
                    remove(tbl)
        for mark in marks:
            changed += 1
            if not _attached(mark, root):
                continue
            p = mark.getparent().getparent().getparent()
            rpr = mark.getparent()
            rpr.remove(mark)
            if not len(rpr):
                ppr = rpr.getparent()
                ppr.remove(rpr)
                if not len(ppr) and not ppr.attrib:
                    p.remove(ppr)
            if (action == "accept") == (mark.tag in (W_DEL, W_MOVEFROM)):
                join_with_next(p)
        if changed:
            found_target = True
            _drop_move_ranges(root)
            _drop_empty_wrappers(root)
            doc.touch(part)
            count += changed
    if rev_id is not None and not found_target:
        raise ToolFailure("revision_not_found", f"no tracked change rev-{rev_id}")
    doc.invalidate()
    return count


def _drop_move_ranges(root) -> None:
    """Remove move range markers whose move content is gone."""
    if root.find(".//" + W_MOVEFROM) is not None or root.find(".//" + W_MOVETO) is not None:
        return
    for el in list(root.iter(*MOVE_RANGES)):
        el.getparent().remove(el)


def _drop_empty_wrappers(root) -> None:
    for el in list(root.iter(*WRAPPERS)):
        if not _is_mark(el) and not _is_row(el) and len(el) == 0 and el.getparent() is not None:
            el.getparent().remove(el)
    # a simple field whose result was deleted is gone (left empty, Word would recompute it)
    for el in list(root.iter(W_FLDSIMPLE)):
        if el.find(".//" + W_R) is None and el.getparent() is not None:
            unwrap(el)   # any comment or bookmark markers it held stay
