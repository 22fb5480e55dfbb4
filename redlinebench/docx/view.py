"""Text views of a document: the agent's read view, the judge's annotated view, plain texts.

Read view (SPEC §4)::

    [p-014] 3.3.5 Vendor shall notify {++promptly ++}[rev-7 ins: LargeCo Legal]Customer.  [flags: ...]

Pending insertions are part of the current text (an anchor may quote them); pending
deletions are not (an anchor must leave them out). The appendix lists every comment and
every tracked change.

The judge's annotated view lives in annotated.py (its grammar: docs/VIEWS.md).
"""

from __future__ import annotations

from .runs import VISIBLE

_W_AUTHOR = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}author"
_KIND_WORD = {"ins": "ins", "del": "del", "move_from": "moved away", "move_to": "moved here"}


#: Every character Python (and so a line-splitting reader) takes as a line break, except the
#: ``\r\n`` pair, handled first. A document's text, author names, ids and dates are hostile: a
#: line break in any of them could start a line of the view (a forged "DOCUMENT>>>" frame in the
#: judge's prompt, a forged paragraph in the agent's read view).
_BREAKS = str.maketrans({c: " \u21b5 " for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"})


def _one_line(text) -> str:
    """Free text from the document made safe to interpolate into one line of a view."""
    if text is None:
        return ""
    return str(text).replace("\r\n", "\n").translate(_BREAKS)


def _segment_markup(seg) -> str:
    text = _one_line(seg.text)
    if seg.kind == "text":
        return text
    who = _one_line(seg.author) or "unknown"
    if seg.kind == "del" and seg.inserted_by:
        who = f"{who}, inserted by {_one_line(seg.inserted_by)}"
    tag = f"[{_one_line(seg.revision_id)} {_KIND_WORD[seg.kind]}: {who}]"
    if seg.kind in ("ins", "move_to"):
        return "{++" + text + "++}" + tag
    return "{--" + text + "--}" + tag


def _flags(para) -> str:
    parts = []
    if para.in_table:
        parts.append("table cell")
    if para.row:
        parts.append("table row " + ("inserted" if para.row == "ins" else "deleted"))
    if para.mark is not None:
        kind, mark = para.mark
        whole = _whole(para, kind)
        word = {"para_ins": "paragraph inserted" if whole else "paragraph break after it inserted",
                "para_del": "paragraph deleted" if whole else "paragraph break after it deleted (joins the next)",
                "move_from": "paragraph moved away", "move_to": "paragraph moved here"}[kind]
        parts.append(f"{word} by {_one_line(mark.get(_W_AUTHOR))}")
    revs = sorted(set(para.revision_ids) | {s.revision_id for s in para.segments if s.revision_id}, key=_rev_key)
    if "format_change" in para.flags:
        parts.append("formatting changed")
    if revs:
        parts.append("revisions " + _one_line(", ".join(revs)))
    if para.comment_ids:
        parts.append("comments " + _one_line(", ".join(para.comment_ids)))
    if "spanning_field" in para.flags:
        parts.append("in a field spanning paragraphs (e.g. table of contents): not editable")
    return f"  [flags: {'; '.join(parts)}]" if parts else ""


def _whole(para, kind: str) -> bool:
    """True when the mark revision covers the whole paragraph (all its text shares the change)."""
    if kind in ("para_ins", "move_to"):
        return not any(s.kind in ("text", "del", "move_from") and s.text.strip() for s in para.segments)
    return not any(s.kind in ("text", "ins", "move_to") and s.text.strip() for s in para.segments)


def _rev_key(rid: str) -> int:
    try:
        return int(rid.split("-")[1])
    except (IndexError, ValueError):
        return 0


def read_view(doc) -> str:
    paragraphs = doc.paragraphs
    lines = [f"# {_one_line(doc.name)}: {len(paragraphs)} paragraphs. Each line is [paragraph id] clause number text.",
             "# {++text++}[rev-N ins: author] = pending insertion (part of the current text; anchors may quote it).",
             "# {--text--}[rev-N del: author] = pending deletion (not in the current text; leave it out of anchors).",
             ""]
    for para in paragraphs:
        body = "".join(_segment_markup(s) for s in para.segments)
        number = f"{_one_line(para.number)} " if para.number else ""
        lines.append(f"[{_one_line(para.id)}] {number}{body}{_flags(para)}")
    comments = doc.comments
    revisions = doc.revisions
    lines.append("")
    lines.append(f"## Comments ({len(comments)})")
    for c in comments:
        lines.append(_comment_line(c, _one_line(c.author) or "unknown", c.date))
    if not comments:
        lines.append("(none)")
    lines.append("")
    elsewhere = doc.story_revisions()
    lines.append(f"## Tracked changes ({len(revisions) + len(elsewhere)})")
    for r in revisions:
        lines.append(_revision_line(r, r.paragraph_id))
    for part, r in elsewhere:  # headers, footers, notes: listed, not editable with the tools
        lines.append(_revision_line(r, part.rsplit("/", 1)[-1]))
    if not revisions and not elsewhere:
        lines.append("(none)")
    return "\n".join(lines) + "\n"


def _revision_line(r, where) -> str:
    """One tracked change as the read view lists it: id | type | author | where | "text"."""
    bits = [_one_line(r.id), _one_line(r.type), _one_line(r.author) or "unknown", _one_line(where)]
    return f"{' | '.join(bits)} | \"{_clip(_one_line(r.text), 200)}\""


def _clip(text: str, limit: int = 120) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _comment_line(c, who: str, date: str | None = None) -> str:
    """One comment as both views list it: id | who [| date] [| reply to] [| resolved] | where: text."""
    bits = [_one_line(c.id), _one_line(who)]
    if date:
        bits.append(_one_line(date))
    if c.parent:
        bits.append(f"reply to {_one_line(c.parent)}")
    if c.resolved:
        bits.append("resolved")
    where = _one_line(", ".join(c.paragraph_ids)) or "unanchored"
    anchor = f' on "{_clip(_one_line(c.anchor_text))}"' if c.anchor_text else ""
    return f"{' | '.join(bits)} | {where}{anchor}: {_one_line(c.text)}"


def plain_text(doc, mode: str = "current") -> str:
    """One paragraph a line. ``accepted``/``original`` also join paragraphs whose mark goes away."""
    if mode not in ("current", "accepted", "original"):
        raise ValueError(f"mode must be current, accepted or original, got {mode!r}")
    paragraphs = doc.paragraphs
    if mode == "current":
        return "\n".join(_one_line_plain(p.text) for p in paragraphs)
    lines = []
    carry = ""
    for i, para in enumerate(paragraphs):
        if para.row == ("del" if mode == "accepted" else "ins"):
            continue   # the whole table row goes away in this view
        if mode == "accepted":
            text = _accepted(para)
            vanishes = bool(para.mark_kinds & {"para_del", "move_from"})
        else:
            text = para.original_text
            vanishes = bool(para.mark_kinds & {"para_ins", "move_to"})
        text = carry + text
        carry = ""
        if vanishes:
            el = para.element
            nxt_block = _next_block(el)
            nxt = paragraphs[i + 1] if i + 1 < len(paragraphs) else None
            if nxt_block is not None and nxt is not None and nxt_block is nxt.element:
                carry = text          # joins the next paragraph (before a table it stays)
                continue
        lines.append(_one_line_plain(text))
    if carry:
        lines.append(_one_line_plain(carry))
    return "\n".join(lines)


def _accepted(para) -> str:
    return "".join(a.text for a in para._walk.atoms if a.kind in VISIBLE)


_W_P = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}p"
_BLOCKS = {_W_P} | {"{http://schemas.openxmlformats.org/wordprocessingml/2006/main}" + t
                    for t in ("tbl", "sdt", "sectPr")}


def _next_block(el):
    """The next block-level sibling (paragraph, table, content control), or None at the end."""
    for sib in el.itersiblings():
        if sib.tag in _BLOCKS:
            return None if sib.tag.endswith("}sectPr") else sib
    return None


def _one_line_plain(text: str) -> str:
    return text.replace("\n", " ")
