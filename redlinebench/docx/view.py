"""Text views of a document: the agent's read view, plain texts.

Read view (SPEC §4; the full grammar is docs/VIEWS.md "Read view")::

    # A1 = LargeCo Legal
    [p-014] 3.3.5 Vendor shall {-inform+notify promptly}A1 <cmt-9>Customer</>.
    cmt-9 A1: Notice must be prompt.

Every fact once: each change inline with its author alias (a legend names the authors, stable
while the document is open), a deletion followed by the same author's insertion as one
replacement, each comment thread right after the paragraph its anchor starts in, its anchor
marked in the text. Pending insertions are part of the current text (an anchor may quote them);
pending deletions are not (an anchor must leave them out). Revision ids are not shown: no tool
takes them (edits anchor on text).

The judge's annotated view lives in annotated.py (its grammar: docs/VIEWS.md).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import PurePath

from .document import MARK_TAGS, _format_changes_by_paragraph, _row_mark, mark_revisions
from .hidden import Visibility
from .runs import REVISION_WRAPPERS, walk_paragraph
from .textboxes import W_TXBXCONTENT, box_paragraphs
from .stories import has_change, has_text, story_authors, story_paragraphs


_W_AUTHOR = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}author"
_W_P = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}p"
_W_R = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}r"
_W_T = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}t"
_W_DELTEXT = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}delText"
_BOX_REVISION_TAGS = tuple("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}" + t for t in (
    "ins", "del", "moveFrom", "moveTo", "rPrChange", "pPrChange"))


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


#: How a change is written: ``{<sign><text>}<alias>``. A deletion immediately followed by the same
#: author's insertion is one replacement, ``{-old+new}A1``.
_SIGN = {"ins": "+", "del": "-", "move_to": ">", "move_from": "<"}

LEGEND = (
    "# Changes: {+x}A1 = A1 inserted x (current text: quote it in anchors); {-x}A1 = A1 deleted x (not current"
    " text: leave it out); {-x+y}A1 = A1 replaced x by y; {>x}A1 / {<x}A1 = A1 moved x here / away;"
    " {+a{-b}A2 c}A1 = A2 struck b from A1's insertion.\n"
    "# Comments: <cmt-N>x</> = comment N is on x (</cmt-N> when another opened since; <cmt-N/> = on the"
    " paragraph). Its thread follows the paragraph, one line each: cmt-N A1 [date] [reply to cmt-M]"
    " [resolved]: text")


class _Change:
    """One revision wrapper as written in the view: its kind, author tag and pieces (text, comment
    markers, and for an insertion the deletions nested in it)."""

    __slots__ = ("kind", "tag", "pieces")

    def __init__(self, kind: str, tag: str) -> None:
        self.kind, self.tag, self.pieces = kind, tag, []

    def nested(self) -> bool:
        return any(isinstance(p, _Change) for p in self.pieces)

    def body(self) -> str:
        return "".join(p.render() if isinstance(p, _Change) else p for p in self.pieces)

    def render(self) -> str:
        return "{" + _SIGN[self.kind] + self.body() + "}" + self.tag


class _Replacement:
    __slots__ = ("old", "new")

    def __init__(self, old: _Change, new: _Change) -> None:
        self.old, self.new = old, new

    def render(self) -> str:
        return "{-" + self.old.body() + "+" + self.new.body() + "}" + self.new.tag


def _content(walk, aliases: dict[str, str], markers: "_Markers") -> str:
    """A paragraph's text with its changes and comment markers, in document order."""
    at: dict[int, list] = {}
    for m in walk.markers:
        at.setdefault(m.index, []).append(m)
    top: list = []              # plain text, markers, _Change
    outer = inner = None        # the open wrappers (elements) and their _Change
    outer_change = inner_change = None

    def put(piece) -> None:
        if piece:   # a marker of a comment not shown writes nothing: it must not split a replacement
            holder = inner_change or outer_change
            (holder.pieces if holder is not None else top).append(piece)

    for i, atom in enumerate(walk.atoms):
        if atom.kind == "text" and not atom.text and i not in at:
            continue
        want_outer = atom.outer if atom.outer is not None else atom.rev
        want_inner = atom.rev if atom.outer is not None else None
        if want_outer is not outer:
            outer = inner = outer_change = inner_change = None
        elif want_inner is not inner:
            inner = inner_change = None
        for m in at.pop(i, ()):
            put(markers.write(m))
        if want_outer is not None and outer_change is None:
            kind = atom.kind if atom.outer is None else REVISION_WRAPPERS[atom.outer.tag]
            outer, outer_change = want_outer, _Change(kind, _alias(aliases, want_outer.get(_W_AUTHOR)))
            top.append(outer_change)
        if want_inner is not None and inner_change is None:
            inner, inner_change = want_inner, _Change(atom.kind, _alias(aliases, want_inner.get(_W_AUTHOR)))
            outer_change.pieces.append(inner_change)
        put(_one_line(atom.text))
    outer_change = inner_change = None   # markers after the last character stand after its change
    for i in sorted(at):
        for m in at[i]:
            put(markers.write(m))
    out: list[str] = []
    k = 0
    while k < len(top):
        piece = top[k]
        nxt = top[k + 1] if k + 1 < len(top) else None
        if (isinstance(piece, _Change) and isinstance(nxt, _Change) and piece.kind == "del"
                and nxt.kind == "ins" and piece.tag == nxt.tag and not piece.nested() and not nxt.nested()):
            out.append(_Replacement(piece, nxt).render())
            k += 2
            continue
        out.append(piece.render() if isinstance(piece, _Change) else piece)
        k += 1
    return "".join(out)


class _Markers:
    """Writes a paragraph's comment markers: ``<cmt-N>`` where comment N's range starts, ``</>`` where
    it ends when it is the last one opened in this line and still open, ``</cmt-N>`` otherwise,
    ``<cmt-N/>`` for its reference when it lacks a range start or end. Only comments in ``shown`` get
    markers (a reply anchored exactly where its parent is gets none: it has its parent's anchor)."""

    def __init__(self, shown: set[int], ranged: set[int]) -> None:
        self.shown, self.ranged, self.open = shown, ranged, []

    def line(self) -> "_Markers":
        self.open = []
        return self

    def write(self, m) -> str:
        n = m.comment_id
        if n not in self.shown:
            return ""
        if m.tag == "start":
            self.open.append(n)
            return f"<cmt-{n}>"
        if m.tag == "end":
            if self.open and self.open[-1] == n:
                self.open.pop()
                return "</>"
            if n in self.open:
                self.open.remove(n)
            return f"</cmt-{n}>"
        return "" if n in self.ranged else f"<cmt-{n}/>"


def _alias(aliases: dict[str, str], name: str | None) -> str:
    return aliases.get(name or "", "?")


def _notes(para, aliases: dict[str, str], row_first: bool, hidden: list[str] | None = None) -> str:
    """What the paragraph's inline markup does not show, as `` [note; note]``: table cell, tracked
    row, paragraph-mark changes, formatting changes, a field spanning paragraphs, text a Word reader
    cannot see (the rendering model's reasons, as the judges' view and the integrity audit have
    them). Each note that states a change names its author."""
    parts = []
    if para.in_table:
        parts.append("table cell")
    if para.row:
        word = "table row " + ("inserted" if para.row == "ins" else "deleted")
        if row_first:
            mark = _row_mark(para.element)
            word += f" by {_alias(aliases, mark.get(_W_AUTHOR) if mark is not None else None)}"
        parts.append(word)
    for mark in mark_revisions(para.element) if para.mark is not None else ():
        kind = MARK_TAGS[mark.tag]
        whole = _whole(para, kind)
        word = {"para_ins": "paragraph inserted" if whole else "paragraph break after it inserted",
                "para_del": "paragraph deleted" if whole else "paragraph break after it deleted (joins the next)",
                "move_from": "paragraph moved away", "move_to": "paragraph moved here"}[kind]
        parts.append(f"{word} by {_alias(aliases, mark.get(_W_AUTHOR))}")
    parts += _format_notes(para._format_revisions, para.text, aliases)
    if "spanning_field" in para.flags:
        parts.append("in a field spanning paragraphs (e.g. table of contents): not editable")
    if hidden:
        parts.append(f"hidden from a Word reader: {', '.join(_one_line(h) for h in hidden)}")
    return f" [{'; '.join(parts)}]" if parts else ""


def hidden_reasons(para, visibility) -> list[str]:
    """Why some of ``para``'s text is unreadable on the page (each reason once), or []."""
    if visibility.never:
        return []
    p = para.element
    boxed = {r for box in p.iter(W_TXBXCONTENT) for r in box.iter(_W_R)}   # a box's runs: its own lines
    out: list[str] = []
    for run in p.iter(_W_R):
        if run in boxed or not any((t.text or "").strip() for t in run.iter(_W_T, _W_DELTEXT)):
            continue
        why = visibility.reason(run)
        if why and why not in out:
            out.append(why)
    return out


def _format_notes(revisions, current: str, aliases: dict[str, str]) -> list[str]:
    """One note per formatting revision: the paragraph's, its mark's, or a run's (text quoted)."""
    out = []
    for rev in revisions:
        if rev.type != "format":
            continue
        who = _alias(aliases, rev.author)
        if rev.text == "\u00b6":
            out.append(f"paragraph mark formatting changed by {who}")
        elif rev.text == current:
            out.append(f"formatting changed by {who}")
        else:
            out.append(f"formatting of {json.dumps(_one_line(rev.text), ensure_ascii=False)} changed by {who}")
    return out


#: a text box anchored by a tracked change: how its note says so
_BOX_CHANGE = {"ins": "inserted", "del": "deleted", "move_to": "moved here", "move_from": "moved away"}


def _box_lines(doc, para, aliases: dict[str, str]) -> list[str]:
    """One line per paragraph of each text box (or shape) anchored in ``para``: what a Word reader
    sees there (SPEC §5.1). Ids name the host (``p-012/tb1.2``); the tools do not edit boxes."""
    out = []
    fmt = None
    for pid, p, box in box_paragraphs(para.element, para.id):
        if fmt is None:
            fmt = _format_changes_by_paragraph(para.element)
        walk = walk_paragraph(p)
        notes = ["text box, not editable"]
        if box.rev is not None:
            notes.append(f"text box {_BOX_CHANGE.get(box.kind, box.kind)} by {_alias(aliases, box.rev.get(_W_AUTHOR))}")
        for mark in mark_revisions(p):
            kind = MARK_TAGS[mark.tag]
            word = {"para_ins": "paragraph break after it inserted",
                    "para_del": "paragraph break after it deleted (joins the next)",
                    "move_from": "paragraph moved away", "move_to": "paragraph moved here"}[kind]
            notes.append(f"{word} by {_alias(aliases, mark.get(_W_AUTHOR))}")
        _, _, revisions = doc._describe(p, pid, walk, [], fmt.get(p, ()))
        notes += _format_notes(revisions, walk.current, aliases)
        out.append(f"[{_one_line(pid)}] {_content(walk, aliases, _Markers(set(), set()))} [{'; '.join(notes)}]")
    return out


def _has_boxes(doc) -> bool:
    """True when the body holds any text box (one C-level scan; most contracts hold none)."""
    body = getattr(doc, "body", None)
    return body is not None and next(body.iter(W_TXBXCONTENT), None) is not None


def _box_authors(para):
    """Authors of the changes in and around the text boxes anchored in ``para`` (usually none)."""
    for _pid, p, box in box_paragraphs(para.element, para.id):
        if box.rev is not None:
            yield box.rev.get(_W_AUTHOR)
        for el in p.iter(*_BOX_REVISION_TAGS):
            yield el.get(_W_AUTHOR)


def _whole(para, kind: str) -> bool:
    """True when the mark revision covers the whole paragraph (all its text shares the change)."""
    if kind in ("para_ins", "move_to"):
        return not any(s.kind in ("text", "del", "move_from") and s.text.strip() for s in para.segments)
    return not any(s.kind in ("text", "ins", "move_to") and s.text.strip() for s in para.segments)


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
    boxes = _has_boxes(doc)
    for para in doc.paragraphs:
        for seg in para.segments:
            if seg.author:
                add(seg.author)
            if seg.inserted_by:
                add(seg.inserted_by)
        if para.mark is not None:
            add(para.mark[1].get(_W_AUTHOR))
        for name in _box_authors(para) if boxes else ():
            add(name)
    for rev in doc.revisions:
        add(rev.author)
    for c in doc.comments:
        add(c.author)
    for name in story_authors(doc):
        add(name)
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

    A partial view shows only the comment threads anchored in its paragraphs (``label`` names the
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
    name = _one_line(PurePath(str(doc.name or "document")).name)   # never a host path
    if whole:
        scope = f"{n} paragraphs"
    else:
        scope = (f"paragraphs {_one_line(shown[0].id)}..{_one_line(shown[-1].id)} of {n}"
                 + (f" ({_one_line(label)})" if label else ""))
    lines = [f"# {name}: {scope}. Line: [paragraph id] clause number text [notes]", LEGEND,
             _legend(aliases, reader, _usual_dates(doc.comments)), ""]
    threads = _Threads(doc, aliases, shown)
    lines.extend(threads.block(para) for para in shown)
    loose = threads.unanchored()
    if loose:
        lines += ["", "## Comments not anchored in the text", *loose]
    elsewhere = _story_lines(doc, aliases) if whole else []
    if elsewhere:
        lines += ["", "## Headers, footers and notes (not editable)", *elsewhere]
    return "\n".join(lines) + "\n"


def _story_lines(doc, aliases: dict[str, str]) -> list[str]:
    """``<part>: <text> [notes]``: one line per header or footer with text (its paragraphs joined
    by `` ↵ ``), one per note paragraph carrying a change; changes inline as in the body. A Word
    reader sees these stories; the tools do not edit them."""
    out: list[tuple[str, list[str], list[str]]] = []   # (part, texts joined by ↵, notes) per line
    for sp in story_paragraphs(doc):
        if not (has_change(sp) or (sp.running and has_text(sp))):
            continue
        walk = walk_paragraph(sp.element)
        content = _content(walk, aliases, _Markers(set(), set()))
        notes = _story_notes(doc, sp, walk, aliases)
        if sp.running and out and out[-1][0] == sp.part:   # a header or footer is one line
            out[-1][1].append(content)
            out[-1][2].extend(notes)
        else:
            out.append((sp.part, [content], notes))
    return [f"{_one_line(part)}: " + _JOIN.join(texts) + (f" [{'; '.join(notes)}]" if notes else "")
            for part, texts, notes in out]


#: how a header's or footer's paragraphs join on its one line (a line break reads the same)
_JOIN = " \u21b5 "


def _story_notes(doc, sp, walk, aliases: dict[str, str]) -> list[str]:
    """A header, footer or note paragraph's mark and formatting changes, in words."""
    notes = []
    for mark in mark_revisions(sp.element):
        kind = MARK_TAGS[mark.tag]
        word = {"para_ins": "paragraph break inserted", "para_del": "paragraph break deleted",
                "move_from": "paragraph moved away", "move_to": "paragraph moved here"}[kind]
        notes.append(f"{word} by {_alias(aliases, mark.get(_W_AUTHOR))}")
    _, _, revisions = doc._describe(sp.element, None, walk, [], sp.format_changes.get(sp.element, ()))
    return notes + _format_notes(revisions, walk.current, aliases)


class _Threads:
    """The comment threads of a view: which comments get anchor markers, which paragraph each
    thread follows (the first shown paragraph of its first comment's anchor), and their lines."""

    def __init__(self, doc, aliases: dict[str, str], shown) -> None:
        ids = {para.id for para in shown}
        comments = [c for c in doc.comments if ids.intersection(c.paragraph_ids) or not c.paragraph_ids]
        by_id = {c.id: c for c in comments}
        self.doc, self.aliases, self.usual = doc, aliases, _usual_dates(doc.comments)
        self.boxes = _has_boxes(doc)
        self.children: dict[str, list] = {}
        roots = []
        for c in comments:
            if c.parent in by_id and c.parent != c.id:
                self.children.setdefault(c.parent, []).append(c)
            else:
                roots.append(c)
        self.after: dict[str, list] = {}
        self.loose: list = []
        order = [para.id for para in shown]
        for c in roots:
            where = next((pid for pid in order if pid in c.paragraph_ids), None)
            if where is not None:
                self.after.setdefault(where, []).append(c)
            elif not c.paragraph_ids:
                self.loose.append(c)
        self.inherits = {c.id for c in comments if c.parent in by_id and c.paragraph_ids
                         and (by_id[c.parent].paragraph_ids, by_id[c.parent].anchor_text)
                         == (c.paragraph_ids, c.anchor_text)}
        numbers = {}
        for c in comments:
            if c.paragraph_ids and c.id not in self.inherits:
                try:
                    numbers[int(c.id.removeprefix("cmt-"))] = c.id
                except ValueError:
                    pass
        starts, ends = set(), set()
        for para in doc.paragraphs:
            for m in para.markers:
                (starts if m.tag == "start" else ends if m.tag == "end" else set()).add(m.comment_id)
        self.markers = _Markers(set(numbers), starts & ends)
        self.visibility = Visibility(doc)

    def block(self, para) -> str:
        """The paragraph's line, then the threads that follow it."""
        out = [paragraph_line(para, self.aliases, self.markers.line(), hidden_reasons(para, self.visibility))]
        if self.boxes:
            out += _box_lines(self.doc, para, self.aliases)
        for c in self.after.get(para.id, ()):
            self._thread(c, out, set())
        return "\n".join(out)

    def unanchored(self) -> list[str]:
        out: list[str] = []
        for c in self.loose:
            self._thread(c, out, set())
        return out

    def _thread(self, c, out: list[str], seen: set) -> None:
        if c.id in seen:   # a reply cycle in a hostile file
            return
        seen.add(c.id)
        out.append(self._line(c))
        for reply in self.children.get(c.id, ()):
            self._thread(reply, out, seen)

    def _line(self, c) -> str:
        """``cmt-N A1 [date] [reply to cmt-M] [resolved] [unanchored]: text`` (text to the end of the
        line; no date: the author's usual date from the legend)."""
        bits = [_one_line(c.id), _alias(self.aliases, c.author)]
        if c.date and c.date != self.usual.get(c.author):
            bits.append(_short_date(_one_line(c.date)))
        if c.parent:
            bits.append(f"reply to {_one_line(c.parent)}")
        if c.resolved:
            bits.append("resolved")
        if c.parent and not c.paragraph_ids:
            bits.append("unanchored")
        return f"{' '.join(bits)}: {_one_line(c.text)}"


def paragraph_line(para, aliases: dict[str, str], markers: _Markers, hidden: list[str] | None = None) -> str:
    """One paragraph's line: ``[p-014] 3.3.5 text [notes]`` (``hidden``: why part of its text is
    unreadable, a note)."""
    number = f"{_one_line(para.number)} " if para.number else ""
    # a paragraph with no change and no comment marker is its text: no need to walk it again
    plain = not para.markers and all(s.kind == "text" for s in para.segments)
    content = _one_line(para.text) if plain else _content(para.walk(), aliases, markers)
    return (f"[{_one_line(para.id)}] {number}{content}"
            f"{_notes(para, aliases, _first_of_row(para), hidden)}")


def _first_of_row(para) -> bool:
    """True for the first paragraph of a tracked table row: its note names the row's author."""
    if not para.row:
        return False
    mark = _row_mark(para.element)
    row = mark.getparent().getparent() if mark is not None else None
    return row is not None and next(row.iter(_W_P), None) is para.element


def read_legend(doc, reader: str | None = None) -> str:
    """The read view's ``# Authors:`` block, as the document stands now."""
    return _legend(read_aliases(doc, reader), reader, _usual_dates(doc.comments))


def paragraph_lines(doc, pids, reader: str | None = None) -> list[str]:
    """The read view's blocks of the paragraphs ``pids`` (document order, each once; ids that no
    longer exist are left out): each paragraph's line and the threads after it, byte for byte what a
    full read shows."""
    aliases = read_aliases(doc, reader)
    wanted = set(pids)
    threads = _Threads(doc, aliases, doc.paragraphs)
    return [threads.block(para) for para in doc.paragraphs if para.id in wanted]


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


_WHOLE_MINUTE_UTC = re.compile(r"^(\d{4}-\d\d-\d\d)T(\d\d:\d\d):00(?:\.0+)?Z$")


def _short_date(date: str) -> str:
    """``2027-01-11T09:00:00Z`` as ``2027-01-11 09:00`` (UTC, the same instant); any other form as is."""
    match = _WHOLE_MINUTE_UTC.match(date)
    return f"{match.group(1)} {match.group(2)}" if match else date


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
