"""Text views of a document: the agent's read view, the judge's annotated view, plain texts.

Read view (SPEC §4; the full grammar is docs/VIEWS.md "Read view")::

    # A1 = LargeCo Legal
    [p-014] 3.3.5 Vendor shall {--inform--}{++notify promptly++}[rev-6 rev-7 A1] Customer. [flags: cmt-9]

Authors are aliases with a legend (one ``# A1 = name`` line each, stable while the document is
open); one tag follows each run of adjacent changes by one author. Pending insertions are part of
the current text (an anchor may quote them); pending deletions are not (an anchor must leave them
out). The appendix lists every comment and every tracked change, grouped under its paragraph.

The judge's annotated view lives in annotated.py (its grammar: docs/VIEWS.md).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import PurePath


_W_AUTHOR = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}author"


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


def _read_body(segments, aliases: dict[str, str]) -> str:
    """A paragraph's text with its pending changes inline.

    ``{++text++}`` is a pending insertion, ``{--text--}`` a pending deletion; a run of adjacent
    changes by one author is followed by one tag, ``[rev-3 rev-4 A1]``, listing their revision ids in
    order (``[rev-5 A1 in A2]``: A1's deletion of text A2 inserted; ``moved here``/``moved away`` for
    moves). Plain text stands as is.
    """
    out: list[str] = []
    ids: list[str] = []
    who = None

    def close():
        if ids:
            out.append(f"[{' '.join(ids)} {who}]")
            ids.clear()

    for seg in segments:
        text = _one_line(seg.text)
        if seg.kind == "text":
            close()
            out.append(text)
            continue
        tag = _alias(aliases, seg.author)
        if seg.kind == "del" and seg.inserted_by:
            tag = f"{tag} in {_alias(aliases, seg.inserted_by)}"
        elif seg.kind in ("move_to", "move_from"):
            tag += " moved here" if seg.kind == "move_to" else " moved away"
        if tag != who:
            close()
            who = tag
        ids.append(_one_line(seg.revision_id) or "rev-?")
        out.append(("{++" + text + "++}") if seg.kind in ("ins", "move_to") else ("{--" + text + "--}"))
    close()
    return "".join(out)


def _alias(aliases: dict[str, str], name: str | None) -> str:
    return aliases.get(name or "", "?")


def _read_flags(para, aliases: dict[str, str]) -> str:
    """The facts about a paragraph its inline markup does not show: table, row and paragraph-mark
    changes, formatting, revisions not inline (formatting, marks, rows, the insertion a deletion sits in),
    comments, fields."""
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
        parts.append(f"{word} by {_alias(aliases, mark.get(_W_AUTHOR))}")
    if "format_change" in para.flags:
        parts.append("formatting changed")
    inline = {s.revision_id for s in para.segments if s.revision_id}
    rest = sorted(set(para.revision_ids) - inline, key=_rev_key)
    if rest:
        parts.append("also " + _one_line(", ".join(rest)))
    if para.comment_ids:
        parts.append(_one_line(", ".join(para.comment_ids)))
    if "spanning_field" in para.flags:
        parts.append("in a field spanning paragraphs (e.g. table of contents): not editable")
    return f" [flags: {'; '.join(parts)}]" if parts else ""


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


#: a clause number as a heading carries it: "3.3", "3.3.", "Section 3.3", "Article 4", "§ 7" -> the digits
_CLAUSE = re.compile(r"^(?:[A-Za-z\u00a7]+\.?\s*)?(\d+(?:\.\d+)*)\.?$")


def _clause_key(label: str | None) -> str | None:
    match = _CLAUSE.match((label or "").strip())
    return match.group(1) if match else None


def read_aliases(doc, reader: str | None = None) -> dict[str, str]:
    """Author name -> ``A1``, ``A2``, ... for the read view, stable for the life of the open document.

    Names are numbered in order of first appearance (inline changes, paragraph marks, tracked
    changes, comments, then ``reader``); the table only grows, so an author who appears later (the
    agent, after its first edit) gets the next number and earlier results keep meaning what they said.
    """
    aliases: dict[str, str] | None = getattr(doc, "read_view_aliases", None)
    if aliases is None:   # a document-like object without the table: numbered afresh each time
        aliases = {}

    def add(name):
        if name and name not in aliases:
            aliases[name] = f"A{len(aliases) + 1}"
    for para in doc.paragraphs:
        for seg in para.segments:
            if seg.author:
                add(seg.author)
            if seg.inserted_by:
                add(seg.inserted_by)
        if para.mark is not None:
            add(para.mark[1].get(_W_AUTHOR))
    for rev in doc.revisions:
        add(rev.author)
    for c in doc.comments:
        add(c.author)
    add(reader)
    return aliases


def clause_range(doc, clause: str) -> tuple[int, int]:
    """(first, last) paragraph index of clause ``clause`` ("3.3", "Section 3.3") and its sub-clauses.

    The clause runs from the paragraph numbered ``clause`` to just before the next paragraph with a
    dotted-decimal number ("3.4", "4", "4.1", "Article 5") that is not one of its own sub-numbers
    ("3.3.1"); lettered and roman items ("(a)", "(iv)"), table cells and unnumbered paragraphs in
    between are part of it. Raises ValueError naming nearby clause numbers when there is no such clause.
    """
    asked = clause.strip()
    want = _clause_key(asked)
    paragraphs = doc.paragraphs
    first = next((i for i, p in enumerate(paragraphs) if p.number and (
        _clause_key(p.number) == want if want else p.number.strip() == asked)), None) if asked else None
    if first is None:
        numbers = [k for k in (_clause_key(p.number) for p in paragraphs if p.number) if k]
        head = (want or "").split(".")[0]
        near = [n for n in numbers if n.split(".")[0] == head] or numbers
        listed = ", ".join(near[:12]) + (", ..." if len(near) > 12 else "")
        raise ValueError(f"no clause numbered {asked!r}; clause numbers are like: {listed or '(none)'}")
    last = len(paragraphs) - 1
    for i in range(first + 1, len(paragraphs)):
        key = _clause_key(paragraphs[i].number)
        if key is not None and not (want and key.startswith(want + ".")):
            last = i - 1
            break
    return first, last


def read_view(doc, *, reader: str | None = None, first: int | None = None, last: int | None = None,
              label: str | None = None) -> str:
    """The agent's read view of paragraphs ``first``..``last`` (indices, inclusive; default all).

    A partial view lists only the comments and tracked changes of its paragraphs (``label`` names the
    range in the header, e.g. "clause 3.3"). ``reader`` is the agent's author name: the legend marks
    it. See the module docstring and docs/VIEWS.md for the grammar.
    """
    paragraphs = doc.paragraphs
    n = len(paragraphs)
    whole = first is None and last is None
    first = 0 if first is None else first
    last = n - 1 if last is None else last
    if not (0 <= first <= last < n) and n:
        raise ValueError(f"paragraph range {first}..{last} is outside 0..{n - 1}")
    shown = paragraphs[first:last + 1]
    aliases = read_aliases(doc, reader)
    usual = _usual_dates(doc.comments)
    name = _one_line(PurePath(str(doc.name or "document")).name)   # never a host path
    if whole:
        scope = f"{n} paragraphs"
    else:
        scope = (f"paragraphs {_one_line(shown[0].id)}..{_one_line(shown[-1].id)} of {n}"
                 + (f" ({_one_line(label)})" if label else ""))
    lines = [f"# {name}: {scope}. Line: [paragraph id] clause number text [flags: ...]",
             "# {++x++}[rev-N A1]: A1's pending insertion (current text, quote it in anchors); {--x--}[rev-N A1]: "
             "A1's pending deletion (not current text, leave it out); [rev-N A1 in A2]: A1 deleted A2's insertion.",
             _legend(aliases, reader, usual), ""]
    lines.extend(read_line(para, aliases) for para in shown)
    ids = None if whole else {para.id for para in shown}
    comments = [c for c in doc.comments if ids is None or ids.intersection(c.paragraph_ids)]
    revisions = [r for r in doc.revisions if ids is None or r.paragraph_id in ids]
    elsewhere = doc.story_revisions() if whole else []
    lines.append("")
    lines.append(f"## Comments ({len(comments)})")
    # in document order, grouped under the paragraph(s) they are anchored in (a reply sits with its thread)
    order = {para.id: i for i, para in enumerate(paragraphs)}
    where = None
    for c in sorted(comments, key=lambda c: min((order.get(p, n) for p in c.paragraph_ids), default=n)):
        place = _one_line(", ".join(c.paragraph_ids)) or "unanchored"
        if place != where:
            where = place
            lines.append(f"{place}:")
        lines.append(_read_comment_line(c, aliases, usual))
    if not comments:
        lines.append("(none)")
    lines.append("")
    lines.append(f"## Tracked changes ({len(revisions) + len(elsewhere)})")
    # grouped under the paragraph (or header, footer, notes part: listed, not editable) they sit in
    where = None
    for place, r in [(r.paragraph_id, r) for r in revisions] + [(part.rsplit("/", 1)[-1], r) for part, r in elsewhere]:
        if place != where:
            where = place
            lines.append(f"{_one_line(place)}:")
        lines.append(_read_revision_line(r, aliases))
    if not revisions and not elsewhere:
        lines.append("(none)")
    return "\n".join(lines) + "\n"


def read_line(para, aliases: dict[str, str]) -> str:
    """One paragraph's line of the read view: ``[p-014] 3.3.5 text  [flags: ...]``."""
    body = _read_body(para.segments, aliases)
    number = f"{_one_line(para.number)} " if para.number else ""
    return f"[{_one_line(para.id)}] {number}{body}{_read_flags(para, aliases)}"


def read_legend(doc, reader: str | None = None) -> str:
    """The read view's ``# Authors: A1 = ...`` header line, as the document stands now."""
    return _legend(read_aliases(doc, reader), reader, _usual_dates(doc.comments))


def paragraph_lines(doc, pids, reader: str | None = None) -> list[str]:
    """The read view's lines of the paragraphs ``pids`` (document order, each once; ids that no
    longer exist are left out): byte for byte what a read of those paragraphs shows."""
    aliases = read_aliases(doc, reader)
    wanted = set(pids)
    return [read_line(para, aliases) for para in doc.paragraphs if para.id in wanted]


def _legend(aliases: dict[str, str], reader: str | None, usual: dict[str, str]) -> str:
    """``# A1 (you; comments dated D) = Name`` lines, one per author (the name runs to the end of the line)."""
    if not aliases:
        return "# Authors: (none)"
    lines = ["# Authors:"]
    for who, alias in aliases.items():
        notes = (["you"] if who == reader else []) + ([f"comments dated {_short_date(_one_line(usual[who]))}"]
                                                        if who in usual else [])
        lines.append(f"# {alias}{' (' + '; '.join(notes) + ')' if notes else ''} = {_one_line(who)}")
    return "\n".join(lines)


def _usual_dates(comments) -> dict[str, str]:
    """Author -> the date most of their comments carry (when two or more share it): the legend states
    it once and a comment line shows its date only when it differs."""
    counts: dict[str, Counter] = {}
    for c in comments:
        if c.date:
            counts.setdefault(c.author, Counter())[c.date] += 1
    usual = {}
    for author, counter in counts.items():
        date, count = counter.most_common(1)[0]
        if count >= 2:
            usual[author] = date
    return usual


def _read_comment_line(c, aliases: dict[str, str], usual: dict[str, str]) -> str:
    """`` cmt-N A1 [date] [reply to cmt-M] [resolved] [on "anchor"]: text`` (text to the end of the line;
    no date: the author's usual date from the legend)."""
    bits = [_one_line(c.id), _alias(aliases, c.author)]
    if c.date and c.date != usual.get(c.author):
        bits.append(_short_date(_one_line(c.date)))
    if c.parent:
        bits.append(f"reply to {_one_line(c.parent)}")
    if c.resolved:
        bits.append("resolved")
    # the anchor as a JSON string: a quote inside it cannot end it early
    anchor = f" on {json.dumps(_clip(_one_line(c.anchor_text)), ensure_ascii=False)}" if c.anchor_text else ""
    return f" {' '.join(bits)}{anchor}: {_one_line(c.text)}"


_WHOLE_MINUTE_UTC = re.compile(r"^(\d{4}-\d\d-\d\d)T(\d\d:\d\d):00(?:\.0+)?Z$")


def _short_date(date: str) -> str:
    """``2027-01-11T09:00:00Z`` as ``2027-01-11 09:00`` (UTC, the same instant); any other form as is."""
    match = _WHOLE_MINUTE_UTC.match(date)
    return f"{match.group(1)} {match.group(2)}" if match else date


def _read_revision_line(r, aliases: dict[str, str]) -> str:
    """`` rev-N type A1: text`` (text to the end of the line, clipped at 200 characters)."""
    return f" {_one_line(r.id)} {_one_line(r.type)} {_alias(aliases, r.author)}: {_clip(_one_line(r.text), 200)}"


def _clip(text: str, limit: int = 120) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
            text = para.accepted_text
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
