"""The judge's annotated view (SPEC §5.2), in the grammar docs/VIEWS.md "Annotated view" defines.

Every tracked change carries its own author tag right after it (``++new++[A1]``, ``~~old~~[A2]``);
a deletion inside another author's insertion is written inside it (``++kept ~~struck~~[A2] kept++[A1]``),
so no marker run is ambiguous; structure (tables, paragraph marks, formatting) is written as
bracketed notes. Document text is escaped (``\\+ \\~ \\[ \\] \\{ \\} \\\\``, line breaks as ``\\n``;
lookalikes of those characters, bidirectional and other invisible controls as ``\\uXXXX``), so
nothing the document says can read as markup: every unescaped marker was written here. Text in
text boxes and shapes gets its own lines, text a Word reader cannot see is marked, and the
integrity audit's findings (SPEC §5.1) stand as notes where they apply. A reader of the grammar
recovers every revision (kind, author, text, paragraph) and every comment anchor;
tests/docx/test_annotated_grammar.py holds the parser that checks it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from .document import MARK_TAGS, _format_changes_by_paragraph, _row_mark, mark_revisions
from .runs import W_AUTHOR as _W_AUTHOR
from .runs import W_DELTEXT as _W_DELTEXT
from .runs import REVISION_WRAPPERS, W_PPR, W_PPRCHANGE, W_RPRCHANGE
from .runs import W_T as _W_T
from .runs import W_TR as _W_TR
from .runs import Walk, walk_paragraph
from .hidden import Visibility
from .textboxes import box_paragraphs
from .stories import STORY_LINE, has_change, has_comment, has_text, part_of, story_authors, story_paragraphs
from .document import RT_COMMENTS as _RT_COMMENTS
from .oxml import qn
from .view import _whole

#: Bump on any change to the annotated view's form: the judge prompt's version includes it.
#: av3: lookalike markup and invisible controls escaped, text boxes shown, hidden text marked,
#: integrity audit notes. av4: headers, footers and changed notes shown after the body
#: (``[header1.xml/p1]``), hidden text in comment bodies marked.
#: av5: hidden-text marks from the rendering model (integrity v3: theme colours, paragraph, cell and
#: table shading, frames and shapes off the page, fit-text, merged cells, symbol fonts), text of
#: paragraph-level alternate content and ruby as Word renders them.
ANNOTATED_VIEW_VERSION = "av5"

_W_COMMENT = qn("w:comment")
_W_P_TAG = qn("w:p")
_W_ID = qn("w:id")
_W_CRS = qn("w:commentRangeStart")
_W_CRE = qn("w:commentRangeEnd")
_ESCAPED = frozenset("\\+~[]{}")
_BREAK_ESCAPES = {"\n": "\\n", "\r": "\\r"}
#: What a lookalike would pass for: a character whose compatibility form (NFKC) holds one of these
#: is written as a code escape (fullwidth U+FF0B, small form U+FE62, superscript U+207A...).
_MARKUP_CHARS = frozenset('\\+~[]{}"')
#: Lookalikes NFKC leaves alone: heavy plus/minus signs, tildes and wave dashes, and the square,
#: curly and lenticular brackets of other scripts and of mathematics.
_CONFUSABLE = frozenset(
    "\u02d6\u02dc\u02f7\u1fc0\u2053\u2064\u223c\u223d\u2241\u2307\u2795\u2796\u29fe\u301c\u3030"  # + ~
    "\u2045\u2046\u2308\u2309\u230a\u230b\u23a1\u23a2\u23a3\u23a4\u23a5\u23a6\u23a7\u23a8\u23a9\u23aa"
    "\u23ab\u23ac\u23ad\u2774\u2775\u27e6\u27e7\u27ec\u27ed\u2983\u2984\u298b\u298c\u298d\u298e"
    "\u298f\u2990\u3010\u3011\u3014\u3015\u3016\u3017\u3018\u3019\u301a\u301b\ufe47\ufe48"
    "\ufe5d\ufe5e\uff62\uff63"  # [ ] { }
    "\u2216\u29f5\u29f9\ufe68")  # backslash
#: Categories written as code escapes: controls, format characters (bidirectional overrides and
#: isolates U+202A-202E/2066-2069, marks U+200E/200F/061C, zero widths, tag characters), line and
#: paragraph separators, surrogates, private use and unassigned code points.
_CODE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


@lru_cache(maxsize=4096)
def _escaped_char(ch: str) -> str:
    """One non-ASCII or control character as the view writes it (itself when it is plain)."""
    if ch in _BREAK_ESCAPES:
        return _BREAK_ESCAPES[ch]
    if ch == "\t":
        return ch
    code = ord(ch)
    if (unicodedata.category(ch) in _CODE_CATEGORIES or ch in _CONFUSABLE
            or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF          # variation selectors
            or (code > 0x7F and not _MARKUP_CHARS.isdisjoint(unicodedata.normalize("NFKC", ch)))):
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return ch


LEGEND = """\
# Annotated redline (grammar: docs/VIEWS.md). Each line: [paragraph id and clause number] text.
# ++text++[A1] = inserted by A1; ~~text~~[A1] = deleted by A1; ~~old~~[A1]++new++[A1] = replaced.
# Every change is followed by its own author tag. [A1 moved here] / [A1 moved away] = moved text.
# ++kept ~~struck~~[A2] kept++[A1] = A2 struck part of A1's insertion (still inside it).
# {cmt-N> ... {<cmt-N} = the text comment N is anchored on; {cmt-N} = a comment's point anchor.
# [notes] in brackets describe the paragraph: [table], [table row] (first paragraph of a row),
# [new paragraph by A1], [paragraph deleted by A1], [¶ inserted by A1] (a paragraph break added),
# [formatting changed by A1: "text"].
# [p-012/tb1.2] = paragraph 2 of text box (or shape) 1 anchored in p-012; [in text box inserted
# by A1] = the whole box is A1's tracked insertion.
# [header1.xml/p2] = paragraph 2 of the page header header1.xml (also footers, notes), after the body.
# {hidden>text{<hidden} = text a reader of the document in Word cannot see (hidden formatting,
# font coloured like the background, under 4 pt); [hidden from a Word reader: why] says why.
# [audit <kind>: detail] = a finding of the grader's integrity audit (software, not the agent).
# A backslash makes the next character plain document text (\\+ \\~ \\[ \\] \\{ \\} \\\\);
# \\n is a line break, \\uXXXX a character written by its code (lookalikes and invisible marks).
# Brackets, braces, ++ and ~~ without a backslash are markup."""


def escape(text: object, *, quote: bool = False) -> str:
    """Document text made inert in the view: marker characters escaped, line breaks as escapes,
    lookalikes of the markers and invisible or direction-changing characters as code escapes."""
    if text is None:
        return ""
    return (_SPECIAL_Q if quote else _SPECIAL).sub(_escape_match, str(text))


def _escape_match(m) -> str:
    ch = m.group(0)
    return "\\" + ch if ch in _ESCAPED or ch == '"' else _escaped_char(ch)


#: What ``escape`` looks at: the marker characters and everything outside printable ASCII and tab.
_SPECIAL = re.compile(r'[\\+~\[\]{}]|[^\t -~]')
_SPECIAL_Q = re.compile(r'[\\+~\[\]{}"]|[^\t -~]')


def _quoted(text: object) -> str:
    return '"' + escape(text, quote=True) + '"'


def author_aliases(doc, focus_author: str | None, walks: Sequence[Walk] | None = None) -> dict[str, str]:
    """Author name -> ``A<n>``: the focus author first, then every change's and comment's author.

    ``walks``: the paragraphs' walks when the caller has them (one walk per paragraph and view).
    """
    names: list[str] = []

    def add(name) -> None:
        name = name or ""
        if name not in names:
            names.append(name)

    if focus_author:
        add(focus_author)
    paragraphs = doc.paragraphs
    for para, walk in zip(paragraphs, walks if walks is not None else (p.walk() for p in paragraphs)):
        for atom in walk.atoms:
            if atom.rev is not None:
                add(atom.rev.get(_W_AUTHOR))
            if atom.outer is not None:
                add(atom.outer.get(_W_AUTHOR))
        for mark in mark_revisions(para.element):
            add(mark.get(_W_AUTHOR))
        for _pid, inner, box in box_paragraphs(para.element, para.id):
            if box.rev is not None:
                add(box.rev.get(_W_AUTHOR))
            for atom in walk_paragraph(inner).atoms:
                for wrapper in (atom.rev, atom.outer):
                    if wrapper is not None:
                        add(wrapper.get(_W_AUTHOR))
            for mark in mark_revisions(inner):
                add(mark.get(_W_AUTHOR))
            for change in inner.iter(W_RPRCHANGE, W_PPRCHANGE):
                add(change.get(_W_AUTHOR))
    for rev in doc.revisions:
        add(rev.author)
    for c in doc.comments:
        add(c.author)
    for name in story_authors(doc):
        add(name)
    return {name: f"A{i + 1}" for i, name in enumerate(names)}


def annotated_view(doc, *, focus_author: str | None = None, findings: Sequence | None = None) -> str:
    """The judge's view of ``doc``; ``findings`` (``IntegrityFinding``s of the audit) become notes.

    A finding stands as a note on the line of its paragraph (or text-box paragraph), on its
    comment's appendix line when it names a comment, else in a findings block after the comments.
    """
    walks = [para.walk() for para in doc.paragraphs]
    aliases = author_aliases(doc, focus_author, walks)
    lines = [LEGEND, "# Authors:"]
    for name, alias in aliases.items():
        role = ""
        if focus_author:
            role = "  <- THIS TURN's edits (the agent under review)" if name == focus_author else "  (prior turn)"
        lines.append(f"#   {alias} = {_quoted(name)}{role}")
    if not aliases:
        lines.append("#   (no tracked changes or comments)")
    lines.append("")
    notes = _finding_notes(findings)
    comments = doc.comments
    ranged = _ranged_comments(doc.paragraphs)
    fmt_changes = _format_changes_by_paragraph(doc.body)
    seen = Visibility(doc)
    previous_row = None
    for para, walk in zip(doc.paragraphs, walks):
        row = _row_of(para) if para.in_table else None
        lines.append(annotated_line(para, aliases, fmt_changes.get(para.element, ()), ranged,
                                    row_start=row is not None and row is not previous_row, walk=walk,
                                    visibility=seen, audit=notes.pop(para.id, ())))
        previous_row = row
        lines.extend(_box_lines(para.element, para.id, aliases, ranged, seen, notes, fmt_changes))
    lines.append("")
    story = _story_lines(doc, aliases, ranged, seen, notes)
    if story:
        lines.append("## Headers, footers and notes")
        lines.extend(story)
        lines.append("")
    lines.append(f"## Comments ({len(comments)})")
    bodies = _comment_bodies(doc, seen)
    for c in comments:
        lines.append(_comment_line(c, aliases, bodies.get(c.id)) + "".join(f" [{n}]" for n in notes.pop(c.id, ())))
    if not comments:
        lines.append("(none)")
    left = [(where, n) for where, items in notes.items() for n in items]
    if left:
        lines.append("")
        lines.append(f"## Integrity audit ({len(left)} more finding(s) of the grader's software)")
        lines.extend(f"{escape(where) if where else 'document'}: [{n}]" for where, n in left)
    return "\n".join(lines) + "\n"


_LINE_ID = re.compile(r"p-\d+(?:/tb\d+\.\d+)*")


def _finding_notes(findings: Sequence | None) -> dict:
    """Where (a line's paragraph id, a comment id, a header, footer or note part or one of its
    lines, None for the document) -> its findings' notes.

    A finding located in words (``text box in p-012``) stands on the line of the paragraph it
    names, its location kept in the note; one naming no paragraph or comment goes to the block."""
    out: dict = {}
    for f in findings or ():
        kind = "".join(ch for ch in str(getattr(f, "kind", "")) if ch.isalnum() or ch == "_") or "finding"
        where = getattr(f, "paragraph_id", None)
        detail = " ".join(str(getattr(f, "detail", "")).split())
        part = part_of(where) if isinstance(where, str) else None
        if part is not None:
            if where != part and not STORY_LINE.fullmatch(where):   # "header1.xml, text box": the part's
                detail = f"({where}) {detail}"
                where = part
        elif isinstance(where, str) and not _LINE_ID.fullmatch(where) and not where.startswith("cmt-"):
            named = _LINE_ID.search(where)
            detail = f"({where}) {detail}"
            where = named.group(0) if named else None
        out.setdefault(where, []).append(f"audit {kind}: {escape(detail)}")
    return out


def _story_lines(doc, aliases: dict[str, str], ranged: set[int], seen: Visibility, notes: dict) -> list[str]:
    """The lines of the headers, footers and notes (docs/VIEWS.md "Headers, footers and notes").

    A header or footer paragraph is shown when it holds text, a text box, a change or a comment
    marker; a note's paragraph when it holds a change or a comment marker or a finding names it,
    or holds text and a finding names its part. A finding naming a part (``header1.xml``) stands
    on the part's first line shown."""
    named = {where for where in notes if isinstance(where, str) and part_of(where) == where}
    lines: list[str] = []
    stories = story_paragraphs(doc)
    if stories:   # a comment anchored in a note: its reference adds nothing when it has a range
        starts, ends = set(), set()
        for _part, root in doc.story_parts()[1:]:
            starts.update(el.get(_W_ID) for el in root.iter(_W_CRS))
            ends.update(el.get(_W_ID) for el in root.iter(_W_CRE))
        ranged = ranged | {int(n) for n in starts & ends if n and n.lstrip("-").isdigit()}
    for sp in stories:
        if not (has_change(sp) or has_comment(sp) or sp.pid in notes
                or ((sp.running or sp.part in named) and has_text(sp))):
            continue
        audit = list(notes.pop(sp.part, ())) + list(notes.pop(sp.pid, ()))
        lines.append(_side_line(sp.pid, sp.element, aliases, ranged, seen, audit,
                                sp.format_changes.get(sp.element, ())))
        lines.extend(_box_lines(sp.element, sp.pid, aliases, ranged, seen, notes, sp.format_changes))
    return lines


def _side_line(pid: str, p, aliases: dict[str, str], ranged: set[int], seen: Visibility,
               audit: Sequence[str], fmt_changes=(), where: Sequence[str] = ()) -> str:
    """The line of a paragraph outside the body's numbering (a text box's, a header's...):
    ``[id]``, leading notes, the text with its changes, then its paragraph-mark, formatting and
    hidden-text notes (``[¶ ... by A1]`` forms) and the audit's."""
    before = list(where) + [n for n in audit if n.startswith("audit judge_directed_text")]
    content, hidden = _content(walk_paragraph(p), aliases, ranged, seen)
    after = [f"{_MARK_NOTE[MARK_TAGS[m.tag]]} by {aliases.get(m.get(_W_AUTHOR) or '', 'A?')}"
             for m in mark_revisions(p)]
    after += [n for n in (_format_note(c, aliases) for c in fmt_changes
                          if c.tag in (W_PPRCHANGE, W_RPRCHANGE)) if n]
    after += [f"hidden from a Word reader: {', '.join(hidden)}"] if hidden else []
    after += [n for n in audit if not n.startswith("audit judge_directed_text")]
    return (f"[{escape(pid)}]" + "".join(f" [{x}]" for x in before) + (" " + content if content else "")
            + "".join(f" [{x}]" for x in after))


def _box_lines(host, head: str, aliases: dict[str, str], ranged: set[int], seen: Visibility,
               notes: dict, fmt_changes: dict) -> list[str]:
    """One line per paragraph of each text box anchored in ``host`` (boxes in boxes follow theirs).

    A box paragraph's mark changes are written in their ``[¶ ... by A1]`` form: a box is not
    numbered or split into the body's paragraphs, so "whole paragraph" notes add nothing.
    """
    lines: list[str] = []
    for pid, p, box in box_paragraphs(host, head):
        where = []
        if box.rev is not None:
            who = aliases.get(box.rev.get(_W_AUTHOR) or "", "A?")
            where.append(f"in text box {_BOX_NOTE.get(box.kind, box.kind)} by {who}")
        lines.append(_side_line(pid, p, aliases, ranged, seen, notes.pop(pid, ()), fmt_changes.get(p, ()), where))
    return lines


_BOX_NOTE = {"ins": "inserted", "del": "deleted", "move_to": "moved here", "move_from": "moved away"}


def _ranged_comments(paragraphs) -> set[int]:
    """Comment numbers with both a range start and a range end: their reference adds nothing."""
    starts, ends = set(), set()
    for para in paragraphs:
        for m in para.markers:
            (starts if m.tag == "start" else ends if m.tag == "end" else set()).add(m.comment_id)
    return starts & ends


def _row_of(para):
    node = para.element.getparent()
    while node is not None and node.tag != _W_TR:
        node = node.getparent()
    return node


def _comment_bodies(doc, seen: Visibility) -> dict[str, tuple[str, list[str]]]:
    """``cmt-N`` -> (its body as the appendix writes it, why part of it is hidden) for each comment
    whose body holds text a Word reader cannot see, marked ``{hidden>...{<hidden}`` as in the body.

    The body is the comment's current text (its paragraphs joined by line breaks, trimmed), as
    ``Comment.text`` holds it; empty when no comment can hide anything (the usual case)."""
    if seen.never:
        return {}
    part = doc.part_for(_RT_COMMENTS)
    if part is None:
        return {}
    out: dict[str, tuple[str, list[str]]] = {}
    for el in doc.package.xml(part).iterfind(_W_COMMENT):
        pieces: list[tuple[str, str | None]] = []   # (text, why hidden) in order
        for k, p in enumerate(el.iterfind(_W_P_TAG)):
            if k:
                pieces.append(("\n", None))
            pieces += [(a.text, seen.reason(a.run) if a.text else None)
                       for a in walk_paragraph(p).atoms if a.visible and a.text]
        if not any(why for _t, why in pieces):
            continue
        out[f"cmt-{el.get(_W_ID)}"] = _hidden_marked(pieces)
    return out


def _hidden_marked(pieces: list[tuple[str, str | None]]) -> tuple[str, list[str]]:
    """Text pieces (each with why it is hidden, or None) trimmed as a whole, escaped, hidden ones
    enclosed in ``{hidden>``...``{<hidden}``; and the reasons, each once."""
    text = "".join(t for t, _ in pieces)
    lead = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    out: list[str] = []
    reasons: list[str] = []
    hidden = False
    at = 0
    for t, why in pieces:
        lo, hi = max(lead - at, 0), min(end - at, len(t))
        at += len(t)
        if lo >= hi:
            continue
        if (why is not None) != hidden:
            out.append("{hidden>" if why is not None else "{<hidden}")
            hidden = why is not None
        if why is not None and why not in reasons:
            reasons.append(why)
        out.append(escape(t[lo:hi]))
    if hidden:
        out.append("{<hidden}")
    return "".join(out), reasons


def _comment_line(c, aliases: dict[str, str], body: tuple[str, list[str]] | None = None) -> str:
    """id | author alias [| reply to] [| resolved] | paragraphs: text [hidden note].

    ``body``: the text with its hidden parts marked, and why, when part of it is hidden."""
    bits = [escape(c.id), aliases.get(c.author or "", _quoted(c.author))]
    if c.parent:
        bits.append(f"reply to {escape(c.parent)}")
    if c.resolved:
        bits.append("resolved")
    where = escape(", ".join(c.paragraph_ids)) or "unanchored"
    anchor = f" on {_quoted(_clip(c.anchor_text))}" if c.anchor_text.strip() else ""
    if body is None:
        return f"{' | '.join(bits)} | {where}{anchor}: {escape(c.text)}"
    text, reasons = body
    return f"{' | '.join(bits)} | {where}{anchor}: {text} [hidden from a Word reader: {', '.join(reasons)}]"


def _clip(text: str, limit: int = 120) -> str:
    """A comment's anchor text as the appendix quotes it (the body marks the whole range)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _tag(aliases: dict[str, str], wrapper, kind: str) -> str:
    alias = aliases.get(wrapper.get(_W_AUTHOR) or "", "A?")
    if kind == "move_to":
        return f"[{alias} moved here]"
    if kind == "move_from":
        return f"[{alias} moved away]"
    return f"[{alias}]"


def _marker(m, ranged: set[int]) -> str:
    if m.tag == "start":
        return f"{{cmt-{m.comment_id}>"
    if m.tag == "end":
        return f"{{<cmt-{m.comment_id}}}"
    return "" if m.comment_id in ranged else f"{{cmt-{m.comment_id}}}"


def _content(walk: Walk, aliases: dict[str, str], ranged: set[int],
             visibility: Visibility | None = None) -> tuple[str, list[str]]:
    """The paragraph's text with its changes and comment markers, in document order, and why any
    of it is hidden from a Word reader (each reason once).

    Atoms are grouped by their outermost revision wrapper: a deletion inside an insertion is
    written inside that insertion, each wrapper (one revision) with one tag. Hidden text is
    enclosed in ``{hidden>`` ... ``{<hidden}`` inside whatever change holds it.
    """
    at: dict[int, list] = {}
    for m in walk.markers:
        at.setdefault(m.index, []).append(m)
    out: list[str] = []
    reasons: list[str] = []
    top = None        # the open outermost wrapper (None: plain text)
    top_kind = ""
    inner = None      # the open nested deletion inside it
    inner_kind = ""
    hidden = False    # a {hidden> is open

    def close_hidden() -> None:
        nonlocal hidden
        if hidden:
            out.append("{<hidden}")
            hidden = False

    def close_inner() -> None:
        nonlocal inner
        if inner is not None:
            out.append("~~" + _tag(aliases, inner, inner_kind))
            inner = None

    def close_top() -> None:
        nonlocal top
        close_inner()
        if top is not None:
            out.append(("++" if top_kind in ("ins", "move_to") else "~~") + _tag(aliases, top, top_kind))
            top = None

    for i, atom in enumerate(walk.atoms):
        if atom.kind == "text" and not atom.text and i not in at:
            continue
        want_top = atom.outer if atom.outer is not None else atom.rev
        want_inner = atom.rev if atom.outer is not None else None
        why = visibility.reason(atom.run) if visibility is not None and atom.text else None
        if hidden and (why is None or i in at or want_top is not top or want_inner is not inner):
            close_hidden()
        if want_top is not top:
            close_top()
        elif want_inner is not inner:
            close_inner()
        for m in at.pop(i, ()):
            out.append(_marker(m, ranged))
        if want_top is not None and top is None:
            top, top_kind = want_top, (atom.kind if atom.outer is None else REVISION_WRAPPERS[atom.outer.tag])
            out.append("++" if top_kind in ("ins", "move_to") else "~~")
        if want_inner is not None and inner is None:
            inner, inner_kind = want_inner, atom.kind
            out.append("~~")
        if why is not None:
            if why not in reasons:
                reasons.append(why)
            if not hidden:
                out.append("{hidden>")
                hidden = True
        out.append(escape(atom.text))
    close_hidden()
    close_top()
    for i in sorted(at):
        out.extend(_marker(m, ranged) for m in at[i])
    return "".join(out), reasons


_WHOLE_NOTE = {"para_ins": "new paragraph", "para_del": "paragraph deleted",
               "move_to": "paragraph moved here", "move_from": "paragraph moved away"}
_MARK_NOTE = {"para_ins": "¶ inserted", "para_del": "¶ deleted", "move_to": "¶ moved here",
              "move_from": "¶ moved away"}


def _format_note(change, aliases: dict[str, str]) -> str | None:
    host = change.getparent()
    run = host.getparent() if host is not None else None
    if run is None:
        return None
    who = aliases.get(change.get(_W_AUTHOR) or "", "A?")
    if change.tag == W_PPRCHANGE:
        return f"paragraph formatting changed by {who}"
    if run.tag == W_PPR:
        return f"¶ formatting changed by {who}"
    text = "".join(t.text or "" for t in run.iter(_W_T, _W_DELTEXT))
    return f"formatting changed by {who}: {_quoted(text)}"


def annotated_line(para, aliases: dict[str, str], fmt_changes=(), ranged: set[int] = frozenset(),
                   *, row_start: bool = False, walk: Walk | None = None, visibility: Visibility | None = None,
                   audit: Sequence[str] = ()) -> str:
    """One paragraph: ``[id number]``, leading notes, the text with its changes, trailing notes.

    ``audit``: notes of integrity findings on this paragraph; judge-directed text is flagged
    before the text, so a judge reads the flag before the words it concerns.
    """
    head = f"[{escape(para.id)}" + (f" {escape(para.number)}" if para.number else "") + "]"
    before: list[str] = [n for n in audit if n.startswith("audit judge_directed_text")]
    after: list[str] = []
    if para.in_table:
        if row_start and para.row:
            mark = _row_mark(para.element)
            who = aliases.get((mark.get(_W_AUTHOR) if mark is not None else "") or "", "A?")
            before.append(f"table row {'inserted' if para.row == 'ins' else 'deleted'} by {who}")
        else:
            before.append("table row" if row_start else "table")
    for mark in mark_revisions(para.element):
        kind = MARK_TAGS[mark.tag]
        who = aliases.get(mark.get(_W_AUTHOR) or "", "A?")
        if _whole(para, kind):
            before.append(f"{_WHOLE_NOTE[kind]} by {who}")
        else:
            after.append(f"{_MARK_NOTE[kind]} by {who}")
    for change in fmt_changes:
        if change.tag in (W_PPRCHANGE, W_RPRCHANGE):
            note = _format_note(change, aliases)
            if note:
                after.append(note)
    content, hidden = _content(walk if walk is not None else para.walk(), aliases, ranged, visibility)
    if hidden:
        after.append(f"hidden from a Word reader: {', '.join(hidden)}")
    after.extend(n for n in audit if not n.startswith("audit judge_directed_text"))
    return (head + "".join(f" [{n}]" for n in before) + (" " + content if content else "")
            + "".join(f" [{n}]" for n in after))


__all__ = ["ANNOTATED_VIEW_VERSION", "LEGEND", "annotated_line", "annotated_view", "author_aliases", "escape"]
