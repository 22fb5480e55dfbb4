"""Tracked edits: replace, delete, insert_after (SPEC §4 ``propose_edits``) and mark_reserved.

Every edit is anchored on the paragraph's *current* text (pending insertions shown,
deletions omitted), applied as native Word revisions by ``author``, and carries its comment
anchored on the edited span. A failing edit never raises: it comes back as a status and the
paragraph is put back by its transaction (:mod:`.transaction`), so a batch is applied edit by edit, independently.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from lxml import etree

from ..errors import ToolFailure, bounded_id, echoed, internal_error, shown
from .anchor import AnchorError, locate, normalize, sanitize, tokenize
from .document import editable, format_date, mark_revision, mark_revisions
from .oxml import make_element, qn
from .transaction import Transaction
from .runs import (
    REVISION_WRAPPERS,
    TRANSPARENT,
    W_AUTHOR,
    W_DATE,
    W_DEL,
    W_FLDCHAR,
    W_FLDSIMPLE,
    W_HYPERLINK,
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
    W_SDT,
    W_SDTCONTENT,
    W_SECTPR,
    W_TBL,
    W_TR,
    W_TRPR,
    W_VAL,
    explode_run,
    is_first_content,
    mark_deleted_run,
    set_text,
    split_run_before,
    split_text_atom,
    split_wrapper_before,
    walk_paragraph,
)

OPS = ("replace", "delete", "insert_after")
W_RSTYLE = qn("w:rStyle")
_MARK_TAGS = (W_INS, W_DEL, W_MOVEFROM, W_MOVETO)


class EditContext:
    """Author and date of one batch, plus the elements each edit touched (for its comment)."""

    def __init__(self, doc, author: str, date: str) -> None:
        self.doc = doc
        self.author = author
        self.date = date
        self.touched: list = []
        self.removed_own = False   # an edit that only took back our own pending insertion

    def revision(self, tag: str):
        el = make_element(tag)
        el.set(W_ID, str(self.doc.ids.next()))
        el.set(W_AUTHOR, self.author)
        el.set(W_DATE, self.date)
        return el


# ---------------------------------------------------------------------------- run building
def build_runs(text: str, rpr) -> list:
    """One run holding ``text`` with ``\\t`` as ``w:tab`` and ``\\n`` as ``w:br``."""
    run = make_element("w:r")
    if rpr is not None:
        run.append(rpr)
    for piece in re.split(r"(\t|\n)", text):
        if piece == "\t":
            run.append(make_element("w:tab"))
        elif piece == "\n":
            run.append(make_element("w:br"))
        elif piece:
            t = make_element("w:t")
            set_text(t, piece)
            run.append(t)
    return [run]


def clean_rpr(run, *, drop_style: bool = False):
    """A copy of ``run``'s rPr fit for an inserted run (no property-change history)."""
    if run is None:
        return None
    rpr = run.find(W_RPR)
    if rpr is None:
        return None
    rpr = copy.deepcopy(rpr)
    for child in list(rpr):
        if child.tag in (W_RPRCHANGE, *_MARK_TAGS) or (drop_style and child.tag == W_RSTYLE):
            rpr.remove(child)
    return rpr if len(rpr) else None


def _inside(el, tag) -> bool:
    parent = el.getparent()
    while parent is not None and parent.tag != W_P:
        if parent.tag == tag:
            return True
        parent = parent.getparent()
    return False


# ---------------------------------------------------------------------------- primitives
def _boundary(p, pos: int, fresh_id=None) -> None:
    """Make ``pos`` (current text) fall between runs, splitting a text run if needed."""
    walk = walk_paragraph(p)
    for atom in walk.atoms:
        if atom.visible and atom.start < pos < atom.end and atom.splittable:
            split_text_atom(atom, pos - atom.start, fresh_id)
            return


def _expand(p, start: int, end: int) -> tuple[int, int]:
    """Widen [start, end) so it never cuts an atomic unit (field, symbol, tab)."""
    for atom in walk_paragraph(p).atoms:
        if atom.visible and atom.atomic:
            if atom.start < start < atom.end:
                start = atom.start
            if atom.start < end < atom.end:
                end = atom.end
    return start, end


def _isolate(p, start: int, end: int, fresh_id=None):
    """Split and explode runs so the visible atoms in [start, end) own their runs exclusively."""
    _boundary(p, start, fresh_id)
    _boundary(p, end, fresh_id)
    for _ in range(3):
        walk = walk_paragraph(p)
        inside = [a for a in walk.atoms if a.visible and start <= a.start and a.end <= end
                  and (a.end > a.start or start < a.start < end)]
        inside_ids = {id(a) for a in inside}
        owners: dict = {}
        for atom in walk.atoms:
            for run in atom.all_runs:
                owners.setdefault(run, []).append(atom)
        mixed = [run for atom in inside for run in atom.all_runs
                 if any(id(o) not in inside_ids for o in owners.get(run, []))]
        if not mixed:
            return inside
        for run in dict.fromkeys(mixed):
            explode_run(run, fresh_id)
    return inside


def _complex_fields_in(p, start: int, end: int) -> None:
    """Rewrite each ``w:fldSimple`` in [start, end) as the equivalent complex field (begin,
    instruction, separate, its result runs, end), as Word does before deleting one: a deletion
    inside a ``w:fldSimple`` would leave the field itself, and Word recomputes its result."""
    for atom in walk_paragraph(p).atoms:
        if not (atom.visible and atom.atomic and atom.runs and start <= atom.start and atom.end <= end):
            continue
        for anc in atom.runs[0].iterancestors():
            if anc is p:
                break
            if anc.tag == W_FLDSIMPLE:
                # one holding tracked changes stays: the complex field would take them as its own
                if next(anc.iter(W_INS, W_DEL, W_MOVEFROM, W_MOVETO), None) is None:
                    _simple_to_complex(anc)
                break


def _simple_to_complex(fld) -> None:
    def char_run(kind: str):
        run = make_element("w:r")
        char = make_element("w:fldChar")
        char.set(_FLDCHARTYPE, kind)
        run.append(char)
        return run

    instr = make_element("w:r")
    text = make_element("w:instrText")
    text.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    text.text = fld.get(qn("w:instr")) or ""
    instr.append(text)
    parent = fld.getparent()
    index = parent.index(fld)
    for node in [char_run("begin"), instr, char_run("separate"), *list(fld), char_run("end")]:
        parent.insert(index, node)
        index += 1
    parent.remove(fld)


def delete_range(ctx: EditContext, p, start: int, end: int) -> list:
    """Track-delete the current text [start, end) of ``p``; returns the ``w:del`` elements."""
    if start >= end:
        return []
    start, end = _expand(p, start, end)
    _complex_fields_in(p, start, end)
    inside = _isolate(p, start, end, ctx.doc.ids.next)
    runs = list(dict.fromkeys(run for atom in inside for run in atom.all_runs))
    groups: list[list] = []
    for run in runs:
        parent = run.getparent()
        if parent is None or parent.tag in (W_DEL, W_MOVEFROM):
            continue
        if parent.tag == W_INS and parent.get(W_AUTHOR) == ctx.author:
            ctx.removed_own = True
            parent.remove(run)
            if not any(c.tag == W_R for c in parent.iter(W_R)):
                parent.getparent().remove(parent)
            continue
        if groups and groups[-1][-1].getnext() is run:
            groups[-1].append(run)
        else:
            groups.append([run])
    created = []
    for group in groups:
        # Inside another author's insertion the w:del goes inside their w:ins (what Word writes).
        deleted = ctx.revision("w:del")
        group[0].addprevious(deleted)
        for run in group:
            deleted.append(run)
            mark_deleted_run(run)
        created.append(deleted)
    for ins in dict.fromkeys(d.getparent() for d in created):
        if ins is not None and ins.tag == W_INS:
            _one_del_per_ins(ctx, ins)
    return created


def _one_del_per_ins(ctx: EditContext, ins) -> None:
    """Split ``ins`` so each part holds at most one ``w:del``: the schema Word checks allows one.

    Each further part is a copy of the wrapper with a fresh id (OOXML.md: a split insertion's new
    half gets a new id); rejecting the author's insertions still removes every part.
    """
    current, seen_del = ins, False
    for child in list(ins):
        if child.tag == W_DEL:
            if seen_del:
                part = make_element("w:ins")
                for key, value in ins.attrib.items():
                    part.set(key, value)
                part.set(W_ID, str(ctx.doc.ids.next()))
                current.addnext(part)
                current = part
            seen_del = True
        if current is not ins:
            current.append(child)


def insert_at(ctx: EditContext, p, pos: int, text: str, *, rpr_source=None):
    """Track-insert ``text`` at current position ``pos`` of ``p``; returns the ``w:ins``."""
    if not text:
        return None
    walk = walk_paragraph(p)
    for atom in walk.atoms:
        if atom.visible and atom.start < pos < atom.end:
            if atom.splittable:
                split_text_atom(atom, pos - atom.start, ctx.doc.ids.next)
            else:
                pos = atom.end
            walk = walk_paragraph(p)
            break
    left = right = None
    for atom in walk.atoms:
        if not atom.visible:
            continue
        if atom.start >= pos and (atom.end > atom.start or atom.start > pos):
            right = atom
            break
        if pos >= atom.end > atom.start:
            left = atom
    if right is not None and left is not None and right.all_runs[0] is left.all_runs[-1]:
        # same run holds both sides: give the right side its own run
        child = right.node if right.node is not None else None
        if child is not None:
            new_run = split_run_before(right.run, child, ctx.doc.ids.next)
            right.run = new_run
            right.runs = [new_run] if right.runs else []
    target = None
    if right is not None:
        target = right.all_runs[0]
        while True:
            parent = target.getparent()
            if parent is None or parent is p:
                break
            if parent.tag in REVISION_WRAPPERS:
                if is_first_content(target):
                    target = parent
                else:
                    target = split_wrapper_before(parent, target, ctx.doc.ids.next())
                continue
            if parent.tag in TRANSPARENT or parent.tag == W_FLDSIMPLE:
                if is_first_content(target):
                    target = parent.getparent() if parent.tag == W_SDTCONTENT else parent
                    continue
                break
            break
    source = rpr_source
    outside_link = False
    if source is None and left is not None:
        source = left.all_runs[-1]
        outside_link = _inside(source, W_HYPERLINK) and (target is None or not _inside(target, W_HYPERLINK)
                                                        or target.tag == W_HYPERLINK)
        if outside_link and right is not None and not _inside(right.all_runs[0], W_HYPERLINK):
            source, outside_link = right.all_runs[0], False
    if source is None and right is not None:
        source = right.all_runs[0]
    if source is None:
        source = _mark_run_props(p)
    rpr = clean_rpr(source, drop_style=outside_link) if source is not None else None
    inserted = ctx.revision("w:ins")
    for run in build_runs(text, rpr):
        inserted.append(run)
    if target is not None:
        target.addprevious(inserted)
    else:
        p.append(inserted)
    return inserted


class _FakeRun:
    def __init__(self, rpr) -> None:
        self._rpr = rpr

    def find(self, tag):
        return self._rpr if tag == W_RPR else None


def _mark_run_props(p):
    ppr = p.find(W_PPR)
    if ppr is None or ppr.find(W_RPR) is None:
        return None
    return _FakeRun(ppr.find(W_RPR))


# ---------------------------------------------------------------------------- word diff
def _diff_ops(old: str, new: str) -> list[tuple[int, int, str]]:
    """Minimal word-level changes turning ``old`` into ``new``: [(old_start, old_end, new_text)]."""
    old_tokens = tokenize(old)
    new_tokens = tokenize(new)
    okeys = [normalize(t) if not t.isspace() else " " for t in old_tokens]
    nkeys = [normalize(t) if not t.isspace() else " " for t in new_tokens]
    offsets = [0]
    for tok in old_tokens:
        offsets.append(offsets[-1] + len(tok))
    matcher = difflib.SequenceMatcher(None, okeys, nkeys, autojunk=False)
    opcodes = matcher.get_opcodes()
    kept = sum(len(okeys[i]) for tag, i1, i2, _, _ in opcodes if tag == "equal" for i in range(i1, i2)
               if not old_tokens[i].isspace())
    longest = max(len(old.replace(" ", "")), len(new.replace(" ", "")), 1)
    if kept / longest < 0.25:
        return [(0, len(old), new)]
    changes: list[list[int]] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            continue
        changes.append([i1, i2, j1, j2])
    return [(offsets[i1], offsets[i2], "".join(new_tokens[j1:j2])) for i1, i2, j1, j2 in changes]


def replace_range(ctx: EditContext, p, start: int, end: int, new_text: str) -> list:
    """Replace current text [start, end) by ``new_text`` as a minimal set of word-level changes."""
    raw = walk_paragraph(p).current
    old = raw[start:end]
    ops: list[list] = []
    for o_start, o_end, piece in _diff_ops(old, new_text):
        a, b = start + o_start, start + o_end
        wa, wb = _expand(p, a, b) if a < b else _expand_point(p, a)
        # an atomic unit (a field) was widened: carry its untouched text into the replacement
        piece = raw[wa:a] + piece + raw[b:wb]
        if ops and wa < ops[-1][1]:
            # two changes inside one atomic unit: replace the whole widened range at once
            ws, we = _expand(p, start, end)
            ops = [[ws, we, raw[ws:start] + new_text + raw[end:we]]]
            break
        ops.append([wa, wb, piece])
    created = []
    for a, b, piece in reversed(ops):
        walk = walk_paragraph(p)
        first_run = None
        for atom in walk.atoms:
            if atom.visible and a <= atom.start < b and atom.text:
                first_run = atom.all_runs[0]
                break
        rpr_copy = clean_rpr(first_run) if first_run is not None else None
        dels = delete_range(ctx, p, a, b)
        ins = insert_at(ctx, p, a, piece, rpr_source=_FakeRun(rpr_copy) if rpr_copy is not None else None) \
            if piece else None
        if ins is not None and dels:
            _follow_deletion(ins, dels[-1])
        created.extend(dels)
        if ins is not None:
            created.append(ins)
    return created


def _follow_deletion(ins, deleted) -> None:
    """Put a replacement right after the text it replaces.

    ``insert_at`` places new text before the next visible run, which may lie past markers
    that close right after the deleted text (another author's ``commentRangeEnd``, a bookmark
    end): their anchor would lose the replaced words. Only text-less siblings separate the two
    (by construction), so moving the insertion back changes no text, only marker order. Done
    only when both are plain siblings (never inside another author's ``w:ins`` or a field).
    """
    parent = deleted.getparent()
    if parent is None or parent is not ins.getparent() or parent.tag in (W_INS, W_MOVETO, W_FLDSIMPLE):
        return
    if deleted.getnext() is ins:
        return
    for sib in deleted.itersiblings():
        if sib is ins:
            deleted.addnext(ins)
            return


def _expand_point(p, pos: int) -> tuple[int, int]:
    """An insertion point inside an atomic unit moves to the unit's end."""
    for atom in walk_paragraph(p).atoms:
        if atom.visible and atom.atomic and atom.start < pos < atom.end:
            return atom.end, atom.end
    return pos, pos


# ---------------------------------------------------------------------------- paragraphs
def _next_block(p):
    for sib in p.itersiblings():
        if sib.tag in (W_P, W_TBL, W_SDT, W_SECTPR):
            return sib if sib.tag != W_SECTPR else None
    return None


def is_last_in_container(p) -> bool:
    for sib in p.itersiblings():
        if sib.tag in (W_P, W_TBL, W_SDT):
            return False
    return True


def mark_paragraph(ctx: EditContext, p, tag: str):
    """Add a paragraph-mark revision (``w:ins``/``w:del``) at its schema position."""
    ppr = p.find(W_PPR)
    if ppr is None:
        ppr = make_element("w:pPr")
        p.insert(0, ppr)
    rpr = ppr.get_or_add("w:rPr")
    mark = ctx.revision(tag)
    rpr.insert_ordered(mark)
    return mark


def delete_paragraph_mark(ctx: EditContext, p) -> bool:
    """Delete ``p``'s paragraph mark as a tracked change (so the paragraph goes away on accept).

    A mark that is our own pending insertion never existed: the paragraph is joined into the
    next one for real (its content, deleted text included, moves there).
    """
    if is_last_in_container(p):
        return False
    marks = mark_revisions(p)
    if any(m.tag in (W_DEL, W_MOVEFROM) for m in marks):
        return True
    existing = marks[0] if marks else None
    if existing is not None and existing.tag == W_INS and existing.get(W_AUTHOR) == ctx.author:
        nxt = _next_block(p)
        if nxt is None or nxt.tag != W_P:
            return False
        from .review import join_with_next

        join_with_next(p)
        return True
    mark_paragraph(ctx, p, "w:del")
    return True


def _base_ppr(p):
    ppr = p.find(W_PPR)
    if ppr is None:
        return None
    ppr = copy.deepcopy(ppr)
    for child in list(ppr):
        if child.tag in (W_PPRCHANGE, W_SECTPR):
            ppr.remove(child)
    rpr = ppr.find(W_RPR)
    if rpr is not None:
        for child in list(rpr):
            if child.tag in (*_MARK_TAGS, W_RPRCHANGE):
                rpr.remove(child)
        if not len(rpr):
            ppr.remove(rpr)
    return ppr


_LEADING_NUMBER = re.compile(r"^\s*(?:(?:section|clause|article)\s+)?(?:\d+(?:\.\d+)*\.?|\([a-zA-Z0-9]{1,5}\)|[a-z]\)|[ivxlc]+\.)\s+",
                             re.IGNORECASE)


_HEADING_MAX_CHARS = 120
W_B = qn("w:b")


def _text_runs(p) -> list[tuple[object, int]]:
    """(run, visible characters) of ``p``'s plain text runs, in order."""
    out = []
    for atom in walk_paragraph(p).atoms:
        if atom.visible and not atom.atomic and atom.text.strip():
            out.append((atom.run, len(atom.text)))
    return out


def _bold(run) -> bool:
    rpr = run.find(W_RPR)
    b = rpr.find(W_B) if rpr is not None else None
    return b is not None and b.get(W_VAL, "true").lower() not in ("0", "false", "off")


def _heading_like(doc, p) -> bool:
    """A heading by style or outline level, or a short line set all in bold."""
    if doc.numbering.is_heading(p.find(W_PPR)):
        return True
    runs = _text_runs(p)
    return bool(runs) and sum(n for _, n in runs) <= _HEADING_MAX_CHARS and all(_bold(r) for r, _ in runs)


def _model_paragraph(doc, p):
    """The paragraph whose look new paragraphs after ``p`` take.

    Text added after a heading belongs to the clause the heading opens, so it looks like that
    clause's first body paragraph (its level, its plain runs), not like the heading.
    """
    if not _heading_like(doc, p):
        return p
    nxt = _next_block(p)
    if nxt is None or nxt.tag != W_P or not _text_runs(nxt) or _heading_like(doc, nxt):
        return p
    return nxt


def _dominant_run(p):
    """The run whose formatting covers most of ``p``'s text: a run-in bold heading ("12. Term.")
    does not set the look of a whole new clause."""
    totals: dict[bytes, int] = {}
    first: dict[bytes, object] = {}
    for run, n in _text_runs(p):
        rpr = clean_rpr(run)
        key = b"" if rpr is None else etree.tostring(rpr)
        totals[key] = totals.get(key, 0) + n
        first.setdefault(key, run)
    if not totals:
        return None
    return first[max(totals, key=lambda k: totals[k])]  # ties: the earliest formatting seen


def insert_paragraphs_after(ctx: EditContext, p, lines: list[str]) -> list:
    """New tracked paragraphs after ``p`` (look of ``p``, or of the body after a heading; mark
    inserted); returns them."""
    model = _model_paragraph(ctx.doc, p)
    base = _base_ppr(model)
    numbered = ctx.doc.numbering.resolve(base) is not None
    source = _dominant_run(model)
    # When no paragraph follows (end of a cell or of the body, or a table next), the new last
    # paragraph takes over p's role and p's own mark is the inserted one: rejecting then joins
    # p with it and nothing is left over.
    nxt = _next_block(p)
    last = nxt is None or nxt.tag != W_P
    new_paras = []
    anchor = p
    for line in lines:
        if numbered:
            line = _LEADING_NUMBER.sub("", line, count=1)
        np = make_element("w:p")
        if base is not None:
            np.append(copy.deepcopy(base))
        anchor.addnext(np)
        ctx.doc.paragraph_id_of(np)
        anchor = np
        new_paras.append(np)
        inserted = ctx.revision("w:ins")
        for run in build_runs(line, clean_rpr(source, drop_style=source is not None and _inside(source, W_HYPERLINK))):
            inserted.append(run)
        np.append(inserted)
    if last:
        marked = [p] + new_paras[:-1]
        ppr = p.find(W_PPR)
        sect = ppr.find(W_SECTPR) if ppr is not None else None
        if sect is not None and new_paras:
            new_paras[-1].get_or_add("w:pPr").insert_ordered(sect)
    else:
        marked = new_paras
    if last and new_paras:
        # p's mark moves to the new last paragraph together with any revision it carries
        # (e.g. the other side inserted p): rejecting ours later gives back exactly p.
        for existing in mark_revisions(p):
            existing.getparent().remove(existing)
            new_paras[-1].get_or_add("w:pPr").get_or_add("w:rPr").insert_ordered(existing)
    for para in marked:
        if mark_revision(para) is None:
            mark_paragraph(ctx, para, "w:ins")
    return new_paras


# ---------------------------------------------------------------------------- edits
def _validate_edit(edit) -> tuple[str, dict, str | None, str | None]:
    if not isinstance(edit, Mapping):
        raise ValueError("each edit must be an object with op, anchor, new_text and comment")
    op = edit.get("op")
    if op not in OPS:
        raise ValueError(f"op must be one of {', '.join(OPS)}, got {shown(op)}")
    anchor = edit.get("anchor")
    if not isinstance(anchor, Mapping):
        raise ValueError("anchor must be an object with paragraph_id and text")
    pid = anchor.get("paragraph_id")
    if not isinstance(pid, str) or not pid:
        raise ValueError("anchor.paragraph_id must be a string such as \"p-012\"")
    for key in ("text", "context_before", "context_after"):
        if anchor.get(key) is not None and not isinstance(anchor.get(key), str):
            raise ValueError(f"anchor.{key} must be a string")
    occ = anchor.get("occurrence")
    if occ is not None and (not isinstance(occ, int) or bounded_id(occ) is None or occ < 1):
        raise ValueError(f"anchor.occurrence must be a positive integer (1-based), got {shown(occ)}")
    new_text = edit.get("new_text")
    if new_text is not None and not isinstance(new_text, str):
        raise ValueError("new_text must be a string")
    if op in ("replace", "insert_after") and new_text is None:
        raise ValueError(f"{op} needs new_text")
    if op == "replace" and not (anchor.get("text") or "").strip():
        raise ValueError("replace needs anchor.text (the exact text to replace)")
    comment = edit.get("comment")
    if comment is not None and not isinstance(comment, str):
        raise ValueError("comment must be a string")
    return op, dict(anchor), new_text, comment


def _elements_order(doc, elements) -> list:
    """``elements`` (still in the body) sorted in document order (cheap: index paths, no scan)."""
    body = doc.body
    keyed = []
    for el in elements:
        if el is None:
            continue
        path = []
        node = el
        while node is not None and node is not body:
            parent = node.getparent()
            if parent is None:
                break
            path.append(parent.index(node))
            node = parent
        if node is body:
            keyed.append((path[::-1], el))
    keyed.sort(key=lambda item: item[0])
    return [el for _, el in keyed]


def _closest(raw: str, text: str, pid: str) -> list[dict]:
    """The stretch of the paragraph most like the failed anchor (a model's near miss), if any.

    Same answer as scoring every window of n-2..n+2 words in order with difflib and keeping the
    first strictly better one, but cheap: difflib's matching blocks form a common subsequence,
    so ``2 * LCS / length`` caps a window's ratio. The LCS of the target with every window is
    computed bit-parallel, one pass per start word (longer windows extend shorter ones), and only
    windows whose cap reaches the 0.6 cut-off and the best so far are matched, best cap first.
    """
    words = normalize(raw).split(" ")
    target = normalize(text).strip()
    n = len(target.split(" "))
    if not target or not words or len(words) > 2000:
        return []
    sizes = range(max(1, n - 2), n + 3)
    counts = [max(1, len(words) - size + 1) for size in sizes]   # windows of each size
    firsts = [sum(counts[:k]) for k in range(len(counts))]        # their order numbers start here
    lcs_after = _lcs_meter(target)
    first_order: dict[str, int] = {}
    bounds: dict[str, float] = {}
    for i in range(max(counts)):
        for k, lcs in enumerate(lcs_after(words, i, sizes)):
            if i >= counts[k]:
                continue
            window = " ".join(words[i:i + sizes[k]]).strip()
            order = firsts[k] + i + 1
            if first_order.get(window, order + 1) < order:
                continue   # an identical earlier window scores the same and wins ties
            first_order[window] = order
            length = len(target) + len(window)
            # lcs counts the unstripped window, so it is at least the stripped one's: still a cap
            bounds[window] = 2.0 * lcs / length if length else 1.0
    candidates = sorted((-bound, first_order[window], window) for window, bound in bounds.items() if bound >= 0.6)
    best, best_order, best_text = 0.0, 0, ""
    for neg_bound, order, window in candidates:
        if -neg_bound < best:
            break
        if -neg_bound == best and order > best_order:
            continue
        ratio = difflib.SequenceMatcher(None, target, window, autojunk=False).ratio()
        if ratio > best or (ratio == best and order < best_order):
            best, best_order, best_text = ratio, order, window
    if best < 0.6:
        return []
    return [{"paragraph_id": pid, "text": best_text, "similarity": round(best, 2)}]


def _lcs_meter(target: str):
    """``lcs_after(words, i, sizes)``: LCS length of ``target`` with ``" ".join(words[i:i + s])``
    for each s in ``sizes`` (a window past the end stops growing), in one bit-parallel pass
    (Hyyrö's algorithm: one bit per target character, a few integer operations per character).
    """
    m = len(target)
    full = (1 << m) - 1
    masks: dict[str, int] = {}
    for k, ch in enumerate(target):
        masks[ch] = masks.get(ch, 0) | (1 << k)

    def lcs_after(words: list[str], i: int, sizes: range) -> list[int]:
        out = []
        v = full
        for s in range(1, sizes[-1] + 1):
            if i + s <= len(words):
                for ch in words[i + s - 1] if s == 1 else " " + words[i + s - 1]:
                    u = v & masks.get(ch, 0)
                    v = ((v + u) | (v - u)) & full
            if s >= sizes[0]:
                out.append(m - v.bit_count())
        return out

    return lcs_after


def _elsewhere(doc, text: str, skip: str) -> list[dict]:
    needle = normalize(text).strip()
    if not needle:
        return []
    out = []
    for pid, text in doc.paragraph_texts():
        if pid == skip:
            continue
        norm = normalize(text)
        idx = norm.find(needle)
        if idx != -1:
            a = max(0, idx - 30)
            out.append({"paragraph_id": pid, "context": norm[a: idx + len(needle) + 30]})
            if len(out) >= 5:
                break
    return out


def _label_of(doc, pid: str) -> str | None:
    """The clause number shown for ``pid``: from the last index built (what the last read_document
    showed), else from a fresh one. Only called when an anchor does not match as quoted."""
    cache = doc._index_cache
    para = cache.by_id.get(pid) if cache is not None else None
    if para is None:
        para = doc._index().by_id.get(pid)
    return para.number if para is not None else None


_LEAD_HWS = re.compile(r"^[^\S\n]+")
_TRAIL_HWS = re.compile(r"[^\S\n]+$")


def _like_anchor(new_text: str, match, *, lead: bool = True) -> str:
    """``new_text`` trimmed the way the anchor was: edge whitespace the anchor quoted (kept out of
    the matched span, it stays in the document) and a clause number copied from the read view."""
    if match.label:
        head = re.match(r"\s*" + re.escape(match.label) + r"[^\S\n]+", new_text)
        if head and new_text[head.end():].strip():
            new_text = new_text[head.end():]
    if lead and match.lead_ws:
        new_text = _LEAD_HWS.sub("", new_text)
    if match.trail_ws:
        new_text = _TRAIL_HWS.sub("", new_text)
    return new_text


def _tidy_deletion(raw: str, start: int, end: int) -> tuple[int, int]:
    """Widen a deletion by one neighbouring space so it leaves neither a double space nor a space
    before punctuation."""
    if end < len(raw) and raw[end] == " " and (start == 0 or raw[start - 1] == " "):
        end += 1  # do not leave a double space behind
    elif start > 0 and raw[start - 1] == " " and (end == len(raw) or raw[end] in ".,;:)]"):
        start -= 1  # nor a space before punctuation
    return start, end


def _smart_space(raw: str, pos: int, text: str) -> str:
    before = raw[pos - 1] if pos > 0 else ""
    after = raw[pos] if pos < len(raw) else ""
    if before and not before.isspace() and before not in "([{\"'\u201c\u2018/-" and text[:1].isalnum():
        text = " " + text
    if after and after.isalnum() and text[-1:].isalnum():
        text = text + " "
    return text


_BAD_AUTHOR = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def check_author(author) -> None:
    """Authors end up in XML attributes: non-empty, no control characters, sane length."""
    if not isinstance(author, str) or not author.strip():
        raise ToolFailure("invalid_author", "author must be a non-empty string")
    if _BAD_AUTHOR.search(author) or len(author) > 255:
        raise ToolFailure("invalid_author", "author must be at most 255 characters without control characters")


def apply_edits(doc, edits: Sequence[Mapping], *, author: str, date: datetime | None = None) -> list[dict]:
    """Apply a batch in order; one result dict per edit (SPEC §4). Never raises for a bad edit."""
    check_author(author)
    stamp = format_date(date)
    results = []
    if isinstance(edits, (Mapping, str, bytes)):
        edits = [edits]
    elif not isinstance(edits, Sequence):
        try:
            edits = list(edits)
        except TypeError:
            edits = [edits]
    for edit in edits:
        try:
            results.append(_apply_one(doc, edit, author, stamp))
        except Exception as exc:  # noqa: BLE001 - a bad edit is a status, never an exception
            op = edit.get("op") if isinstance(edit, Mapping) else None
            anchor = edit.get("anchor") if isinstance(edit, Mapping) else None
            results.append({"op": echoed(op), "status": "runtime_error",
                            "paragraph_id": echoed(anchor.get("paragraph_id") if isinstance(anchor, Mapping) else None),
                            "error": internal_error(exc)})
    return results


def _apply_one(doc, edit, author: str, stamp: str) -> dict:
    op = edit.get("op") if isinstance(edit, Mapping) else None
    anchor = edit.get("anchor") if isinstance(edit, Mapping) else None
    pid = anchor.get("paragraph_id") if isinstance(anchor, Mapping) else None
    result: dict = {"op": echoed(op), "status": "ok", "paragraph_id": echoed(pid)}
    try:
        op, anchor, new_text, comment = _validate_edit(edit)
    except ValueError as exc:
        result.update(status="runtime_error", error=f"invalid_edit: {exc}")
        return result
    p = doc.element_for(pid)
    if p is None:
        result.update(status="anchor_failed", error=f"paragraph_not_found: no paragraph {shown(pid)}; use the "
                      "[p-NNN] ids from read_document")
        if anchor.get("text"):
            result["candidates"] = _elsewhere(doc, anchor["text"], "")
        return result
    too_complex = editable(doc, p, text=len(edit.get("new_text") or "") + len(edit.get("comment") or ""))
    if too_complex is not None:
        result.update(status="anchor_failed", error=f"{too_complex} ({pid})")
        return result
    text = anchor.get("text") or ""
    raw = walk_paragraph(p).current
    match = None
    if text.strip():
        try:
            match = locate(raw, text, context_before=anchor.get("context_before"),
                           context_after=anchor.get("context_after"), occurrence=anchor.get("occurrence"),
                           label=lambda: _label_of(doc, pid))
        except AnchorError as exc:
            result.update(status="anchor_failed", error=f"{exc.code}: {exc.message} ({pid})")
            candidates = exc.candidates
            if exc.code == "text_not_found" and not candidates:
                candidates = _closest(raw, text, pid) + _elsewhere(doc, text, pid)
            if candidates:
                result["candidates"] = candidates
            return result
    new_text = sanitize(new_text) if new_text is not None else None
    if new_text is not None and match is not None:
        new_text = _like_anchor(new_text, match, lead=op == "replace")
    if op == "delete":
        span = (match.start, match.end) if match else (0, len(raw))
    elif op == "insert_after":
        span = (match.end, match.end) if match else (len(raw), len(raw))
    else:
        span = (match.start, match.end)
    if _cuts_field(p, raw, *span):
        result.update(status="anchor_failed", error=f"inside_field: the anchor lies in a field that spans several "
                      f"paragraphs (e.g. a table of contents) and cannot be edited ({pid}); edit the clause it "
                      "refers to instead")
        return result
    ctx = EditContext(doc, author, stamp)
    txn = Transaction(doc)
    try:
        _change(doc, txn, ctx, p, op, match, raw, new_text, comment, author, stamp, result)
        txn.commit()   # a no-op after a rollback
    except Exception as exc:  # noqa: BLE001 - reported to the model, document restored
        txn.rollback()
        for key in ("comment_id", "new_paragraph_ids", "warning"):
            result.pop(key, None)
        result.update(status="runtime_error", error=internal_error(exc))
    return result


def _change(doc, txn, ctx, p, op, match, raw, new_text, comment, author, stamp, result) -> None:
    """The mutating half of one edit, inside its transaction; fills in ``result``."""
    txn.guard(p)
    created_paras: list = []
    if op == "replace":
        if normalize(raw[match.start:match.end]) == normalize(new_text):
            result.update(status="runtime_error", error="no_change: new_text equals the anchored text")
            return
        if not new_text.strip():
            start, end = match.start, match.end
            if match.lead_ws or match.trail_ws:
                # the quoted edge whitespace is not in the span: take one separator along
                start, end = _tidy_deletion(raw, start, end)
            ctx.touched = replace_range(ctx, p, start, end, "")
        else:
            ctx.touched = replace_range(ctx, p, match.start, match.end, new_text)
    elif op == "delete":
        start, end = (match.start, match.end) if match else (0, len(raw))
        start, end = _tidy_deletion(raw, start, end)
        whole = not raw[:start].strip() and not raw[end:].strip()
        if whole:
            start, end = 0, len(raw)   # the whole paragraph goes: its stray spaces and tabs too
        # replace_range, not delete_range: part of a field widens to the whole field, and the
        # part of its result outside the anchor must come back as text
        ctx.touched = replace_range(ctx, p, start, end, "")
        if whole:
            delete_paragraph_mark(ctx, p)
    else:  # insert_after
        if not new_text.strip():
            result.update(status="runtime_error", error="invalid_edit: insert_after needs non-empty new_text")
            return
        # A new paragraph (clause) when no anchor text was given, or the anchor ends the paragraph
        # and either covers all of it or new_text starts with a line break; otherwise a pure
        # inline insertion right after the anchor text (a line break there becomes w:br).
        at_end = match is None or not raw[match.end:].strip()
        whole = match is None or (not raw[:match.start].strip() and at_end)
        if match is None or (at_end and (whole or new_text.startswith("\n"))):
            lines = [line.strip() for line in new_text.split("\n") if line.strip()]
            created_paras = insert_paragraphs_after(ctx, p, lines)
            ctx.touched = [np.find(W_INS) for np in created_paras]
        else:
            piece = _smart_space(raw, match.end, new_text.lstrip("\n"))
            inserted = insert_at(ctx, p, match.end, piece)
            ctx.touched = [inserted] if inserted is not None else []
    if not ctx.touched and not ctx.removed_own and op != "delete":
        result.update(status="runtime_error", error="no_change: nothing was changed")
        txn.rollback()
        return
    doc.touch()
    if comment is not None and comment.strip():
        from .comments import anchor_new_comment, anchor_paragraph_comment

        ordered = _elements_order(doc, ctx.touched)
        if ordered:
            result["comment_id"] = anchor_new_comment(doc, ordered[0], ordered[-1], comment, author, stamp)
        elif p.getparent() is not None:
            # only our own earlier insertion was taken back: the comment goes on the paragraph
            result["comment_id"] = anchor_paragraph_comment(doc, p, comment, author, stamp)
    else:
        result["warning"] = "comment_missing: this edit carries no comment explaining it"
    if created_paras:
        doc.invalidate()
        result["new_paragraph_ids"] = [doc.paragraph_id_of(np) for np in created_paras]




RESERVED = "Reserved."


def mark_reserved(doc, *, start_id: str, end_id: str, comment: str, author: str,
                  date: datetime | None = None) -> dict:
    """Strike paragraphs ``start_id``..``end_id`` leaving "Reserved." so later numbers do not shift.

    The first paragraph keeps its number (and a typed leading number) and reads "Reserved.";
    a later paragraph numbered at the same or a shallower level does too; deeper or
    unnumbered paragraphs are deleted whole (mark included). Table rows wholly inside the
    range are deleted as rows (``w:trPr/w:del``, cell text struck) so accepting removes them,
    and the table with its last row. One comment spans the range. Refused (``ToolFailure``,
    nothing changed): a range this author already reserved or deleted (``already_reserved``)
    and one touching a field that spans paragraphs, such as a table of contents
    (``inside_field``).
    """
    check_author(author)
    if not isinstance(comment, str) or not sanitize(comment).strip():
        raise ToolFailure("comment_required", "mark_reserved needs a comment explaining the deletion")
    index = {para.id: i for i, para in enumerate(doc.paragraphs)}
    for pid in (start_id, end_id):
        if not isinstance(pid, str) or pid not in index:
            raise ToolFailure("paragraph_not_found", f"no paragraph {shown(pid)}; use the [p-NNN] ids from read_document")
    a, b = index[start_id], index[end_id]
    if a > b:
        raise ToolFailure("invalid_range", f"{start_id} comes after {end_id}; give the range in document order")
    paras = doc.paragraphs[a: b + 1]
    _refuse_struck(paras, author)
    for para in paras:
        too_complex = editable(doc, para.element, text=len(comment) if para is paras[0] else len(RESERVED))
        if too_complex is not None:
            code, message = too_complex.split(": ", 1)
            raise ToolFailure(code, f"{para.id}: {message}")
        if field_locks(para.element, len(walk_paragraph(para.element).current)):
            raise ToolFailure("inside_field", f"{para.id} is part of a field that spans several paragraphs "
                              "(e.g. a table of contents); reserve whole clauses outside it")
    ctx = EditContext(doc, author, format_date(date))
    numbering = doc.numbering
    rows = _covered_rows(paras)
    in_rows = {id(p) for row in rows for p in row.iter(W_P)}
    # a paragraph whose mark is already deleted (or moved away) is no clause of the current text:
    # it never reads "Reserved.", or it would join the next clause on accept
    gone = {id(para.element) for para in paras
            if any(m.tag in (W_DEL, W_MOVEFROM) for m in mark_revisions(para.element))}
    heads = [para for para in paras if id(para.element) not in in_rows and id(para.element) not in gone]
    first = numbering.resolve(heads[0].element.find(W_PPR)) if heads else None
    touched: list = []
    kept: list[str] = []
    txn = None
    try:
        txn = Transaction(doc)
        txn.guard(*(para.element for para in paras))
        for row in rows:
            _delete_row(ctx, row)
        for para in paras:
            p = para.element
            raw = walk_paragraph(p).current
            if id(p) in in_rows:
                # the row goes as a whole on accept (w:trPr/w:del); its text is struck with it
                touched.extend(delete_range(ctx, p, 0, len(raw)))
                continue
            level = numbering.resolve(p.find(W_PPR))
            keep = id(p) not in gone and (para is heads[0] or (first is not None and level is not None
                                                               and level[0] == first[0] and level[1] <= first[1]))
            prefix = 0
            if keep and level is None:
                typed = _LEADING_NUMBER.match(raw)
                if typed:
                    prefix = typed.end()
            dels = delete_range(ctx, p, prefix, len(raw))
            touched.extend(dels)
            if keep:
                inserted = insert_at(ctx, p, prefix, RESERVED)
                if inserted is not None:
                    touched.append(inserted)
                kept.append(para.id)
            else:
                delete_paragraph_mark(ctx, p)
        live = [el for el in touched if el is not None and el.getparent() is not None]
        if not live and not rows:
            raise ToolFailure("no_change", "the range holds no text to strike")
        doc.touch()
        from .comments import anchor_new_comment, anchor_paragraph_comment

        if live:
            ordered = _elements_order(doc, live)
            comment_id = anchor_new_comment(doc, ordered[0], ordered[-1], comment, author, ctx.date)
        else:   # only rows of empty cells
            comment_id = anchor_paragraph_comment(doc, next(rows[0].iter(W_P)), comment, author, ctx.date)
        outcome = {"status": "ok", "start_id": start_id, "end_id": end_id,
                   "paragraph_ids": [para.id for para in paras], "reserved_paragraph_ids": kept,
                   "comment_id": comment_id}
        txn.commit()   # last: nothing after it can fail
    except Exception as exc:
        if txn is not None:
            txn.rollback()
        if isinstance(exc, ToolFailure):
            raise
        # the model sees a runtime error, the document is intact
        raise ToolFailure("runtime_error", internal_error(exc)) from exc
    return outcome


_FLDCHARTYPE = qn("w:fldCharType")


def field_locks(p, length: int) -> list[tuple[int, int]]:
    """Current-text spans of ``p`` that belong to a complex field crossing its paragraph mark.

    A field that begins and ends inside one paragraph is one atomic unit of the walk; one that
    spans paragraphs (a table of contents) is not, and cutting it corrupts it, so edits there
    are refused. Spans are open intervals: ``-1`` stands for "from before the paragraph" and
    ``length + 1`` for "past its end", so an insertion at the paragraph's edge inside the
    field conflicts too.
    """
    fchars = list(p.iter(W_FLDCHAR))
    depth = 0
    root = p.getroottree().getroot()
    if not fchars and next(root.iter(W_FLDCHAR), None) is None:
        return []   # no complex field anywhere (the usual case): skip the scan
    for el in root.iter(W_P, W_FLDCHAR):
        if el is p:
            break
        if el.tag == W_FLDCHAR:
            kind = el.get(_FLDCHARTYPE)
            if kind == "begin":
                depth += 1
            elif kind == "end" and depth:
                depth -= 1
    if not depth and not fchars:
        return []
    positions = _fldchar_positions(p, fchars) if fchars else {}
    locks: list[tuple[int, int]] = []
    open_at: int | None = -1 if depth else None
    for fc in fchars:
        kind = fc.get(_FLDCHARTYPE)
        if kind == "begin":
            if depth == 0:
                open_at = positions[fc]
            depth += 1
        elif kind == "end" and depth:
            depth -= 1
            if depth == 0:
                if open_at == -1:
                    locks.append((-1, positions[fc]))
                open_at = None
    if depth and open_at is not None:
        locks.append((open_at, length + 1))
    return locks


def _fldchar_positions(p, fchars) -> dict:
    """Current-text offset just before each ``w:fldChar``'s run."""
    walk = walk_paragraph(p)
    order = {el: i for i, el in enumerate(p.iter())}
    keyed = []
    for atom in walk.atoms:
        first = atom.node if atom.node is not None and not atom.atomic else atom.all_runs[0]
        keyed.append((order.get(first, 0), atom))
    out = {}
    for fc in fchars:
        limit = order.get(fc.getparent(), 0)
        pos = 0
        for key, atom in keyed:
            if key < limit and atom.visible:
                pos = max(pos, atom.end)
        out[fc] = pos
    return out


def _cuts_field(p, raw: str, start: int, end: int) -> bool:
    for lo, hi in field_locks(p, len(raw)):
        if (start < end and start < hi and end > lo) or (start == end and lo < start < hi):
            return True
    return False


W_TBLPREX = qn("w:tblPrEx")
W_TRPRCHANGE = qn("w:trPrChange")


def _covered_rows(paras) -> list:
    """Table rows whose every paragraph lies in ``paras`` (outermost first, document order)."""
    members = {id(para.element) for para in paras}
    rows: list = []
    seen: set[int] = set()
    for para in paras:
        node = para.element.getparent()
        chain = []
        while node is not None:
            if node.tag == W_TR:
                chain.append(node)
            node = node.getparent()
        for row in reversed(chain):   # outermost row first
            if id(row) in seen:
                continue
            seen.add(id(row))
            if all(id(p) in members for p in row.iter(W_P)):
                rows.append(row)
    return rows


def _delete_row(ctx: EditContext, row) -> None:
    """Mark ``row`` deleted (``w:trPr/w:del``): accept removes it (and an emptied table)."""
    trpr = row.find(W_TRPR)
    if trpr is not None and trpr.find(W_DEL) is not None:
        return   # already deleted (by another author): the schema allows one w:del per row
    if trpr is None:
        trpr = make_element("w:trPr")
        prex = row.find(W_TBLPREX)
        if prex is not None:
            prex.addnext(trpr)
        else:
            row.insert(0, trpr)
    if all(child.tag in (W_INS, W_DEL, W_TRPRCHANGE) for child in trpr):
        # the schema (CT_TrPrBase) wants one row property before the revision: add the default
        neutral = make_element("w:cantSplit")
        neutral.set(qn("w:val"), "off")
        trpr.insert(0, neutral)
    mark = ctx.revision("w:del")
    change = trpr.find(W_TRPRCHANGE)
    if change is not None:
        change.addprevious(mark)
    else:
        trpr.append(mark)


def _refuse_struck(paras, author: str) -> None:
    """Reserving again what this author already reserved or deleted changes nothing: say so."""
    for para in paras:
        p = para.element
        if any(m.tag == W_DEL and m.get(W_AUTHOR) == author for m in mark_revisions(p)):
            raise ToolFailure("already_reserved", f"{para.id} is already deleted by you (an earlier "
                              "mark_reserved or delete); nothing was changed")
        node = p.getparent()
        while node is not None:
            if node.tag == W_TR:
                trpr = node.find(W_TRPR)
                if trpr is not None and any(m.get(W_AUTHOR) == author for m in trpr.findall(W_DEL)):
                    raise ToolFailure("already_reserved", f"{para.id} is in a table row already deleted by "
                                      "you; nothing was changed")
            node = node.getparent()
        walk = walk_paragraph(p)
        if not walk.current.strip() and any(a.kind == "del" and a.rev is not None and a.text.strip()
                                            and a.rev.get(W_AUTHOR) == author for a in walk.atoms):
            raise ToolFailure("already_reserved", f"{para.id}'s text is already deleted by you; nothing was changed")
        ours = "".join(a.text for a in walk.atoms if a.kind == "ins" and a.rev is not None
                       and a.rev.get(W_AUTHOR) == author)
        if ours.strip() == RESERVED and RESERVED in walk.current:
            raise ToolFailure("already_reserved", f"{para.id} already reads \"{RESERVED}\" by your earlier "
                              "mark_reserved; nothing was changed")
