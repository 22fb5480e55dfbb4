"""An independent reader of the annotated view's grammar (docs/VIEWS.md), for the round-trip property.

A view is reduced to :class:`Facts`: every body revision as (kind, author, text, paragraph id), every
comment's anchor (paragraph ids, anchor text) and every paragraph's current text. ``engine_facts``
gives the same from the engine's own structures, so a test asserts ``parse(view) == engine_facts(doc)``.
A second grammar (the agent's read view) gets its own ``parse_*`` returning :class:`Facts`; the
property and the engine side are shared. This reader knows only the documented grammar, never
the renderer's code.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

_TASKS = Path(__file__).resolve().parents[2] / "redlinebench" / "_data" / "benchmark" / "tasks"


def shipped_redlines() -> list[Path]:
    """Every golden and judge-check redline of the embedded set, one path per distinct file (tasks of
    one turn share their golden, so each is checked once)."""
    seen: dict[str, Path] = {}
    for path in sorted(_TASKS.glob("*/tests/attorney_redlines.docx")) + sorted(_TASKS.glob("*/tests/judge_check/*.docx")):
        seen.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), path)
    return list(seen.values())


@dataclass
class Facts:
    revisions: Counter = field(default_factory=Counter)       # (kind, author, text, paragraph id) -> count
    anchors: dict = field(default_factory=dict)                # comment id -> (paragraph ids, anchor text)
    texts: dict = field(default_factory=dict)                  # paragraph id -> current text
    # annotated view only, not compared: paragraph id -> text marked hidden; notes of the audit
    hidden: dict = field(default_factory=dict, compare=False)
    audit: list = field(default_factory=list, compare=False)   # (paragraph id | comment id | None, note)

    def diff(self, other: "Facts") -> str:
        """What differs, readably (empty when equal)."""
        out = []
        for name in ("revisions", "anchors", "texts"):
            a, b = getattr(self, name), getattr(other, name)
            if a != b:
                if name == "revisions":
                    out.append(f"revisions only here: {sorted((a - b).elements())}; "
                               f"only there: {sorted((b - a).elements())}")
                else:
                    keys = sorted(set(a) | set(b))
                    out.append(f"{name}: " + "; ".join(f"{k}: {a.get(k)!r} != {b.get(k)!r}"
                                                       for k in keys if a.get(k) != b.get(k)))
        return "\n".join(out)


def engine_facts(doc, *, boxes: bool = False) -> Facts:
    """The facts from the engine's revision list, comments and paragraphs; with ``boxes``, also the
    paragraphs of text boxes (ids ``p-012/tb1.2``), each described by the engine's own describer."""
    facts = Facts(Counter((r.type, r.author, r.text, r.paragraph_id) for r in doc.revisions),
                  {c.id: (tuple(c.paragraph_ids), c.anchor_text) for c in doc.comments},
                  {p.id: p.text for p in doc.paragraphs})
    if boxes:
        from redlinebench.docx.document import _format_changes_by_paragraph, mark_revisions
        from redlinebench.docx.runs import walk_paragraph
        from redlinebench.docx.textboxes import box_paragraphs

        fmt = _format_changes_by_paragraph(doc.body)
        for para in doc.paragraphs:
            for pid, el, _box in box_paragraphs(para.element, para.id):
                walk = walk_paragraph(el)
                facts.texts[pid] = walk.current
                _segments, _flags, revs = doc._describe(el, pid, walk, mark_revisions(el), fmt.get(el, ()))
                facts.revisions.update((r.type, r.author, r.text, r.paragraph_id) for r in revs)
        _engine_story_facts(doc, facts)
    return facts


def _engine_story_facts(doc, facts: Facts) -> None:
    """The headers', footers' and notes' lines the view must show (docs/VIEWS.md): a header or
    footer paragraph with text, a text box, a change or a comment marker; a note's paragraph with
    a change or a comment marker. Each is
    described by the engine's own describer, as are the paragraphs of its text boxes."""
    from redlinebench.docx.document import mark_revisions
    from redlinebench.docx.runs import W_P, walk_paragraph
    from redlinebench.docx.textboxes import W_TXBXCONTENT, box_paragraphs

    revision_tags = [f"{{http://schemas.openxmlformats.org/wordprocessingml/2006/main}}{t}"
                     for t in ("ins", "del", "moveFrom", "moveTo", "rPrChange", "pPrChange")]
    for part, root in doc.story_parts()[1:]:
        name = part.rsplit("/", 1)[-1]
        running = root.tag.rsplit("}", 1)[-1] in ("hdr", "ftr")
        k = 0
        for p in _story_paragraph_elements(root, running):
            k += 1
            walk = walk_paragraph(p)
            changed = next(p.iter(*revision_tags), None) is not None
            text = walk.current.strip() or walk.original.strip() or next(p.iter(W_TXBXCONTENT), None) is not None
            marked = next(p.iter(*(f"{{http://schemas.openxmlformats.org/wordprocessingml/2006/main}}{t}" for t in (
                "commentRangeStart", "commentRangeEnd", "commentReference"))), None) is not None
            if not (changed or marked or (running and text)):
                continue
            pid = f"{name}/p{k}"
            for el_pid, el in [(pid, p)] + [(bid, bp) for bid, bp, _box in box_paragraphs(p, pid)]:
                w = walk_paragraph(el)
                facts.texts[el_pid] = w.current
                fmt = [c for c in el.iter(*revision_tags[4:]) if _nearest_p(c, W_P) is el]
                _segments, _flags, revs = doc._describe(el, el_pid, w, mark_revisions(el), fmt)
                facts.revisions.update((r.type, r.author, r.text, el_pid) for r in revs)


def _nearest_p(el, w_p):
    node = el.getparent()
    while node is not None and node.tag != w_p:
        node = node.getparent()
    return node


def _story_paragraph_elements(root, running: bool):
    """A header's or footer's paragraphs, or the paragraphs of a note part's (non-separator) notes,
    in document order, table cells included (written here from the schema, not the engine's walk)."""
    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    containers = [root] if running else [n for n in root if n.tag in (w + "footnote", w + "endnote")
                                         and (n.get(w + "type") or "normal") == "normal"]

    def blocks(node):
        for child in node:
            tag = child.tag
            if tag == w + "p":
                yield child
            elif tag in (w + "tbl", w + "tr", w + "tc", w + "sdt", w + "sdtContent", w + "customXml"):
                yield from blocks(child)

    for container in containers:
        yield from blocks(container)


class GrammarError(ValueError):
    pass


# ------------------------------------------------------------------------------ annotated view
_AUTHOR = re.compile(r'^#   (A\d+) = "((?:[^"\\]|\\.)*)"')
_HEAD = re.compile(r"^\[((?:p-\d+|[A-Za-z0-9_.-]+\.xml/p\d+)(?:/tb\d+\.\d+)*)(?: ((?:[^\\\]]|\\.)*))?\]")
_STORY_ID = re.compile(r"^[A-Za-z0-9_.-]+\.xml/p\d+")
_TAG = re.compile(r"^(A\d+)( moved here| moved away)?$")
_CMT = re.compile(r"\{cmt-(-?\d+)>|\{<cmt-(-?\d+)\}|\{cmt-(-?\d+)\}|\{(hidden>)|\{(<hidden)\}")
_NOTE_MARK = {"new paragraph": "para_ins", "paragraph deleted": "para_del", "paragraph moved here": "move_to",
              "paragraph moved away": "move_from", "¶ inserted": "para_ins", "¶ deleted": "para_del",
              "¶ moved here": "move_to", "¶ moved away": "move_from"}
_WHERE = re.compile(r'^((?:p-\d+(?:, p-\d+)*)|unanchored)(?: on "((?:[^"\\]|\\.)*)")?: ', re.S)
_NOTE = re.compile(r"^(.+?) by (A\d+)(?:: \"((?:[^\"\\]|\\.)*)\")?$", re.S)


def unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            nxt = text[i + 1]
            if nxt == "n":
                out.append("\n")
            elif nxt == "r":
                out.append("\r")
            elif nxt == "u":
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 4
            elif nxt == "U":
                out.append(chr(int(text[i + 2:i + 10], 16)))
                i += 8
            else:
                out.append(nxt)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _tokens(s: str):
    """('c', char) | ('mark', '++'|'~~') | ('br', raw inner) | ('cmt', start|end|ref, id) | ('hidden', open|close)."""
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            j = i + 6 if s[i + 1] == "u" else i + 10 if s[i + 1] == "U" else i + 2
            yield ("c", unescape(s[i:j]))
            i = j
        elif s.startswith("++", i) or s.startswith("~~", i):
            yield ("mark", s[i:i + 2])
            i += 2
        elif ch == "[":
            j = i + 1
            while s[j] != "]":
                j += 2 if s[j] == "\\" else 1
            yield ("br", s[i + 1:j])
            i = j + 1
        elif ch == "{":
            m = _CMT.match(s, i)
            if not m:
                raise GrammarError(f"unescaped {{ that is no comment marker: {s[i:i + 20]!r}")
            if m.group(4) or m.group(5):
                yield ("hidden", "open" if m.group(4) else "close")
                i = m.end()
                continue
            kind = "start" if m.group(1) else "end" if m.group(2) else "ref"
            yield ("cmt", kind, int(m.group(1) or m.group(2) or m.group(3)))
            i = m.end()
        elif ch in "]}+~":
            raise GrammarError(f"unescaped {ch!r} in text: {s[max(0, i - 20):i + 20]!r}")
        else:
            yield ("c", ch)
            i += 1


class _Group:
    def __init__(self, opener: str, parent: "_Group | None") -> None:
        self.opener, self.parent, self.text, self.kind = opener, parent, [], None


def _paragraph(line: str, authors: dict[str, str]):
    head = _HEAD.match(line)
    if not head:
        raise GrammarError(f"not a paragraph line: {line[:60]!r}")
    pid = head.group(1)
    toks = list(_tokens(line[head.end():]))
    # notes: a bracket not right after a marker; each is preceded by one separating space
    kept, notes = [], []
    for k, tok in enumerate(toks):
        if tok[0] == "br" and not (k and toks[k - 1][0] == "mark"):
            if not kept or kept[-1] != ("c", " "):
                raise GrammarError(f"{pid}: a note without its separating space")
            kept.pop()
            notes.append(tok[1])
        else:
            kept.append(tok)
    if kept:
        if kept[0] != ("c", " "):
            raise GrammarError(f"{pid}: text not separated from the head")
        kept = kept[1:]
    chars: list[tuple[str, _Group | None]] = []   # one per character: (char, innermost group)
    markers: list[tuple[str, int, int]] = []       # (start|end|ref, comment number, chars before it)
    revisions: list[tuple[str, str, str]] = []
    group: _Group | None = None
    expect_tag: _Group | None = None
    hidden: list[str] | None = None    # the text of an open {hidden> ... {<hidden}
    hidden_texts: list[str] = []
    hidden_group: _Group | None = None
    for tok in kept:
        if tok[0] == "hidden":
            if expect_tag is not None:
                raise GrammarError(f"{pid}: a change without its tag")
            if (tok[1] == "open") == (hidden is not None):
                raise GrammarError(f"{pid}: unbalanced hidden marker")
            if tok[1] == "open":
                hidden, hidden_group = [], group
            else:
                if group is not hidden_group:
                    raise GrammarError(f"{pid}: a hidden span crosses a change marker")
                if not hidden:
                    raise GrammarError(f"{pid}: an empty hidden span")
                hidden_texts.append("".join(hidden))
                hidden = None
            continue
        if hidden is not None and tok[0] != "c":
            raise GrammarError(f"{pid}: a hidden span holds markup {tok!r}")
        if expect_tag is not None:
            if tok[0] != "br":
                raise GrammarError(f"{pid}: a change without its tag")
            m = _TAG.match(tok[1])
            if not m or m.group(1) not in authors:
                raise GrammarError(f"{pid}: bad tag [{tok[1]}]")
            g = expect_tag
            moved = m.group(2)
            if g.opener == "++":
                g.kind = "move_to" if moved == " moved here" else "ins"
            else:
                g.kind = "move_from" if moved == " moved away" else "del"
            if moved and g.kind in ("ins", "del"):
                raise GrammarError(f"{pid}: {moved.strip()} on the wrong marker")
            revisions.append((g.kind, authors[m.group(1)], "".join(g.text)))
            expect_tag = None
            continue
        if tok[0] == "c":
            if hidden is not None:
                hidden.append(tok[1])
            chars.append((tok[1], group))
            g = group
            while g is not None:
                g.text.append(tok[1])
                g = g.parent
        elif tok[0] == "cmt":
            markers.append((tok[1], tok[2], len(chars)))
        elif tok[0] == "mark":
            if group is None:
                group = _Group(tok[1], None)
            elif tok[1] == group.opener:
                expect_tag, group = group, group.parent
            elif group.opener == "++" and group.parent is None and tok[1] == "~~":
                group = _Group("~~", group)
            else:
                raise GrammarError(f"{pid}: {tok[1]} cannot open inside {group.opener}")
        else:
            raise GrammarError(f"{pid}: stray bracket [{tok[1]}]")
    if group is not None or expect_tag is not None or hidden is not None:
        raise GrammarError(f"{pid}: an unclosed change")
    return pid, head.group(2), notes, chars, markers, revisions, hidden_texts


def _visible(g) -> bool:
    return g is None or g.kind in ("ins", "move_to")


def _original(g) -> bool:
    return g is None or g.kind == "move_from" or (g.kind == "del" and g.parent is None)


def _legend(lines: list[str], author_line: re.Pattern, name=lambda raw: raw) -> tuple[dict[str, str], int]:
    """A view's ``#`` header: alias -> author name (``name`` decodes the quoted form), and the index
    of the first line after the header."""
    authors: dict[str, str] = {}
    i = 0
    while lines[i].startswith("#"):
        m = author_line.match(lines[i])
        if m:
            authors[m.group(1)] = name(m.group(2))
        i += 1
    return authors, i


def parse_annotated(view: str) -> Facts:
    lines = view.split("\n")
    authors, i = _legend(lines, _AUTHOR, unescape)
    if lines[i] != "":
        raise GrammarError("the legend is not followed by a blank line")
    i += 1
    facts = Facts()
    paras = []   # (pid, chars, markers)
    row: dict | None = None
    rows: list[dict] = []
    while lines[i] != "":
        pid, _number, notes, chars, markers, revisions, hidden = _paragraph(lines[i], authors)
        if _STORY_ID.match(pid):
            raise GrammarError(f"{pid}: a header, footer or note line among the body's")
        boxed = "/tb" in pid
        current = "".join(c for c, g in chars if _visible(g))
        original = "".join(c for c, g in chars if _original(g))
        facts.texts[pid] = current
        if hidden:
            facts.hidden[pid] = hidden
        for kind, author, text in revisions:
            facts.revisions[(kind, author, text, pid)] += 1
        in_table = False
        reasons = []
        for note in notes:
            if note.startswith("audit "):
                if not re.match(r"^audit [a-z_]+: ", note):
                    raise GrammarError(f"{pid}: bad audit note [{note}]")
                facts.audit.append((pid, note))
                continue
            if note.startswith("hidden from a Word reader: "):
                reasons.append(note)
                continue
            if note in ("table", "table row") and not boxed:
                in_table = True
                if note == "table row":
                    row = {"pid": pid, "rev": None, "texts": []}
                    rows.append(row)
                continue
            m = _NOTE.match(note)
            if not m or m.group(2) not in authors:
                raise GrammarError(f"{pid}: unknown note [{note}]")
            what, author = m.group(1), authors[m.group(2)]
            if what in ("table row inserted", "table row deleted") and not boxed:
                in_table = True
                row = {"pid": pid, "rev": ("ins" if what.endswith("inserted") else "del", author), "texts": []}
                rows.append(row)
            elif boxed and what in ("in text box inserted", "in text box deleted", "in text box moved here",
                                    "in text box moved away"):
                continue
            elif what in _NOTE_MARK:
                kind = _NOTE_MARK[what]
                facts.revisions[(kind, author, original if kind == "para_del" else current, pid)] += 1
            else:
                _formatting_note(facts, m, note, author, current, pid)
        if bool(hidden) != bool(reasons):
            raise GrammarError(f"{pid}: hidden text and its reason note go together")
        i += 1
        if boxed:        # a text box's line: no table row, no comment anchor of the engine's body
            continue
        if not in_table:
            row = None
        elif row is not None:
            row["texts"].append((current, original))
        paras.append((pid, chars, markers))
    for r in rows:
        if r["rev"]:
            kind, author = r["rev"]
            text = " | ".join(o if kind == "del" else c for c, o in r["texts"])
            facts.revisions[(kind, author, text, r["pid"])] += 1
    i += 1
    if lines[i] == "## Headers, footers and notes":
        i = _stories(lines, i + 1, authors, facts)
    if not lines[i].startswith("## Comments ("):
        raise GrammarError("no comment appendix")
    listed = []
    block = False
    for line in lines[i + 1:]:
        if line.startswith("## Integrity audit ("):
            block = True
            continue
        if block:
            m = re.match(r"^((?:p-\d+(?:/tb\d+\.\d+)*)|cmt-\d+|.+?|document): \[(audit [a-z_]+: .*)\]$", line)
            if line and not m:
                raise GrammarError(f"bad audit line {line!r}")
            if m:
                facts.audit.append((None if m.group(1) == "document" else unescape(m.group(1)), m.group(2)))
            continue
        if line == "" or line == "(none)":
            continue
        audit = re.search(r"( \[audit [a-z_]+: (?:[^\]\\]|\\.)*\])+$", line)
        if audit:
            facts.audit.extend((line.split(" | ")[0], n[2:-1]) for n in re.findall(r" \[audit (?:[^\]\\]|\\.)*\]",
                                                                                  audit.group(0)))
        parts = line.split(" | ")
        k = 2
        while parts[k].startswith("reply to ") or parts[k] == "resolved":
            k += 1
        m = _WHERE.match(" | ".join(parts[k:]))
        if not m:
            raise GrammarError(f"bad comment line {line!r}")
        _comment_hidden(facts, parts[0], " | ".join(parts[k:])[m.end():])
        listed.append((parts[0], m.group(1), unescape(m.group(2)) if m.group(2) is not None else ""))
    facts.anchors = _anchors(paras, listed)
    return facts


def _stories(lines: list[str], i: int, authors: dict[str, str], facts: Facts) -> int:
    """The headers, footers and notes block (lines ``[header1.xml/p1] ...`` up to a blank line):
    their texts, revisions, hidden text and audit notes; returns the index after the blank line."""
    start = i
    while lines[i] != "":
        pid, number, notes, chars, _markers, revisions, hidden = _paragraph(lines[i], authors)
        if not _STORY_ID.match(pid) or number is not None:
            raise GrammarError(f"not a header, footer or note line: {lines[i][:60]!r}")
        current = "".join(c for c, g in chars if _visible(g))
        original = "".join(c for c, g in chars if _original(g))
        facts.texts[pid] = current
        if hidden:
            facts.hidden[pid] = hidden
        for kind, author, text in revisions:
            facts.revisions[(kind, author, text, pid)] += 1
        reasons = []
        for note in notes:
            if note.startswith("audit "):
                if not re.match(r"^audit [a-z_]+: ", note):
                    raise GrammarError(f"{pid}: bad audit note [{note}]")
                facts.audit.append((pid, note))
                continue
            if note.startswith("hidden from a Word reader: "):
                reasons.append(note)
                continue
            m = _NOTE.match(note)
            if not m or m.group(2) not in authors:
                raise GrammarError(f"{pid}: unknown note [{note}]")
            what, author = m.group(1), authors[m.group(2)]
            if "/tb" in pid and what.startswith("in text box "):
                continue
            if what.startswith("¶ ") and what in _NOTE_MARK:
                kind = _NOTE_MARK[what]
                facts.revisions[(kind, author, original if kind == "para_del" else current, pid)] += 1
            else:
                _formatting_note(facts, m, note, author, current, pid)
        if bool(hidden) != bool(reasons):
            raise GrammarError(f"{pid}: hidden text and its reason note go together")
        i += 1
    if i == start:
        raise GrammarError("an empty headers, footers and notes block")
    return i + 1


def _formatting_note(facts, m, note: str, author: str, current: str, pid: str) -> None:
    """A formatting note (paragraph, paragraph mark, a run's text), read alike in the body and in the
    headers, footers and notes block; any other note there is unknown."""
    what = m.group(1)
    if what == "paragraph formatting changed":
        facts.revisions[("format", author, current, pid)] += 1
    elif what == "¶ formatting changed":
        facts.revisions[("format", author, "\u00b6", pid)] += 1
    elif what == "formatting changed" and m.group(3) is not None:
        facts.revisions[("format", author, unescape(m.group(3)), pid)] += 1
    else:
        raise GrammarError(f"{pid}: unknown note [{note}]")


_BODY_HIDDEN = re.compile(r"\{hidden>((?:[^{\\]|\\.)*)\{<hidden\}")


def _comment_hidden(facts: Facts, cid: str, body: str) -> None:
    """A comment body's hidden parts (``{hidden>...{<hidden}``) into ``facts.hidden``; its
    reason note (``[hidden from a Word reader: ...]`` ending the line) goes with them."""
    body = re.sub(r"( \[audit [a-z_]+: (?:[^\]\\]|\\.)*\])+$", "", body)
    noted = re.search(r" \[hidden from a Word reader: [^\]]+\]$", body)
    hidden = [unescape(x) for x in _BODY_HIDDEN.findall(body)]
    if bool(noted) != bool(hidden):
        raise GrammarError(f"{cid}: hidden text and its reason note go together")
    if hidden:
        facts.hidden[cid] = hidden


def _anchors(paras, listed) -> dict:
    """Each listed comment's anchor from the body's range and point markers (the engine's rule)."""
    starts: dict[int, tuple[int, int]] = {}
    ends: dict[int, tuple[int, int]] = {}
    refs: dict[int, tuple[int, int]] = {}
    for k, (_pid, _chars, markers) in enumerate(paras):
        for kind, number, index in markers:
            table = starts if kind == "start" else ends if kind == "end" else refs
            table.setdefault(number, (k, index))
    out = {}
    for cid, where, quoted in listed:
        number = int(cid.removeprefix("cmt-"))
        first = starts.get(number) or refs.get(number)
        final = ends.get(number) or refs.get(number) or first
        if first is None:
            out[cid] = ((), "")
            if where != "unanchored":
                raise GrammarError(f"{cid}: listed at {where} but not anchored in the text")
            continue
        a, b = first[0], max(first[0], final[0])
        ids = tuple(paras[k][0] for k in range(a, b + 1))
        if where != ", ".join(ids):
            raise GrammarError(f"{cid}: appendix says {where}, the markers say {', '.join(ids)}")
        visible, everything = [], []
        for k in range(a, b + 1):
            chars = paras[k][1]
            s = first[1] if k == a and number in starts else 0
            e = final[1] if k == b and number in ends else len(chars)
            chunk = chars[s:e] if e >= s else []
            visible.append("".join(c for c, g in chunk if _visible(g)))
            everything.append("".join(c for c, _g in chunk))
        text = " ".join(x for x in visible if x).strip() or " ".join(x for x in everything if x).strip()
        out[cid] = (ids, text)
        short = " ".join(text.split())
        if quoted != (short if len(short) <= 120 else short[:117] + "..."):
            raise GrammarError(f"{cid}: the appendix quotes {quoted!r}, the markers enclose {text!r}")
    return out


# ------------------------------------------------------------------------------ read view
# The agent's read view (docs/VIEWS.md "Read view") writes document text verbatim, a line break as
# " ↵ ": its facts are compared in that form. Every change is inline with its author alias, every
# comment's anchor is marked in the text and its thread follows the paragraph; nothing is clipped.
_READ_AUTHOR = re.compile(r"^# (A\d+)(?: \([^)]*\))? = (.*)$")
_READ_HEAD = re.compile(r"^\[(p-\d+(?:/tb\d+\.\d+)*)\] ")
_READ_COMMENT = re.compile(r"^(cmt-\S+) (A\d+|\?)(?: (\S+(?: \d\d:\d\d)?))??(?: reply to (cmt-\S+))?"
                           r"( resolved)?( unanchored)?: (.*)$")
_READ_TAG = re.compile(r"A\d+|\?")
_READ_MARKER = re.compile(r"<cmt-(-?\d+)>|</>|</cmt-(-?\d+)>|<cmt-(-?\d+)/>")
_READ_NOTE = re.compile(r'^(?:table cell|table row (?:inserted|deleted)(?: by (A\d+|\?))?'
                        r"|(paragraph inserted|paragraph break after it inserted|paragraph deleted"
                        r"|paragraph break after it deleted \(joins the next\)|paragraph moved away"
                        r"|paragraph moved here|formatting changed|paragraph mark formatting changed"
                        r'|formatting of ("(?:[^"\\]|\\.)*") changed) by (A\d+|\?)'
                        r"|in a field spanning paragraphs \(e\.g\. table of contents\): not editable"
                        r"|text box, not editable|text box (?:inserted|deleted|moved here|moved away) by (?:A\d+|\?)"
                        r"|hidden from a Word reader: .+)$")
_MARK_KIND = {"paragraph inserted": "para_ins", "paragraph break after it inserted": "para_ins",
              "paragraph deleted": "para_del", "paragraph break after it deleted (joins the next)": "para_del",
              "paragraph moved away": "move_from", "paragraph moved here": "move_to"}
_SIGNS = {"+": "ins", "-": "del", ">": "move_to", "<": "move_from"}
_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """Document text as the read view writes it: each line break as " ↵ "."""
    return _BREAK.sub(" \u21b5 ", text or "")


@dataclass
class ReadFacts(Facts):
    comments: dict = field(default_factory=dict)               # comment id -> (author, parent, resolved)

    def diff(self, other: "Facts") -> str:
        out = super().diff(other)
        mine, theirs = self.comments, getattr(other, "comments", {})
        if mine != theirs:
            out += "\ncomments: " + "; ".join(f"{k}: {mine.get(k)!r} != {theirs.get(k)!r}"
                                              for k in sorted(set(mine) | set(theirs)) if mine.get(k) != theirs.get(k))
        return out


def engine_read_facts(doc) -> ReadFacts:
    """``engine_facts`` in the read view's form: line breaks as the view writes them, each
    paragraph's text after its clause number, every comment's author, parent and status, and the
    paragraphs of text boxes (``p-012/tb1.1``) with their changes."""
    boxed = engine_facts(doc, boxes=True)
    facts = _engine_read_body(doc)
    for (kind, author, text, pid), count in boxed.revisions.items():
        if "/tb" in pid:
            facts.revisions[(kind, author, one_line(text), pid)] += count
    facts.texts.update((pid, one_line(text)) for pid, text in boxed.texts.items() if "/tb" in pid)
    return facts


def _engine_read_body(doc) -> ReadFacts:
    return ReadFacts(Counter((r.type, r.author, one_line(r.text), r.paragraph_id) for r in doc.revisions),
                     {c.id: (tuple(c.paragraph_ids), one_line(c.anchor_text)) for c in doc.comments},
                     {p.id: one_line((f"{p.number} " if p.number else "") + p.text) for p in doc.paragraphs},
                     comments={c.id: (c.author, c.parent, c.resolved) for c in doc.comments})


class _ReadLine:
    """One paragraph line read: its characters (each with the kind of change it sits in), its comment
    markers, its changes and notes."""

    def __init__(self, line: str, authors: dict[str, str]) -> None:
        head = _READ_HEAD.match(line)
        if not head:
            raise GrammarError(f"not a paragraph line: {line[:60]!r}")
        self.pid, self.authors = head.group(1), authors
        body = line[head.end():]
        self.notes: list[re.Match] = []
        cut = body.rfind(" [")
        if cut >= 0 and body.endswith("]"):
            notes = [_READ_NOTE.match(n) for n in body[cut + 2:-1].split("; ")]
            if all(notes):
                self.notes, body = notes, body[:cut]
        self.chars: list[tuple[str, str]] = []        # (character, kind: text|ins|del|move_to|move_from|struck)
        self.markers: list[tuple[str, int, int]] = []  # (start|end|ref, comment number, characters before it)
        self.changes: list[tuple[str, str, str]] = []
        self._read(body)

    def _author(self, body: str, at: int) -> tuple[str, int]:
        tag = _READ_TAG.match(body, at)
        if not tag or (tag.group(0) != "?" and tag.group(0) not in self.authors):
            raise GrammarError(f"{self.pid}: a change without a known author tag at {body[at:at + 20]!r}")
        return self.authors.get(tag.group(0), ""), tag.end()

    def _read(self, body: str) -> None:
        i, opened = 0, []
        stack: list[list] = []    # open changes: [kind, characters]
        while i < len(body):
            ch = body[i]
            m = _READ_MARKER.match(body, i) if ch == "<" else None
            if m:
                if m.group(1) is not None:
                    opened.append(int(m.group(1)))
                    self.markers.append(("start", int(m.group(1)), len(self.chars)))
                elif m.group(3) is not None:
                    self.markers.append(("ref", int(m.group(3)), len(self.chars)))
                else:
                    number = int(m.group(2)) if m.group(2) is not None else (opened[-1] if opened else None)
                    if number is None:
                        raise GrammarError(f"{self.pid}: </> with no comment open in the line")
                    if number in opened:
                        opened.remove(number)
                    self.markers.append(("end", number, len(self.chars)))
                i = m.end()
            elif ch == "{" and i + 1 < len(body) and body[i + 1] in _SIGNS and (not stack or (
                    len(stack) == 1 and stack[0][0] in ("ins", "move_to") and body[i + 1] in "-<")):
                stack.append([_SIGNS[body[i + 1]], []])
                i += 2
            elif ch == "+" and len(stack) == 1 and stack[0][0] == "del":
                # a replacement: the deletion ends, the same author's insertion begins
                stack = [["del", stack[0][1]], ["ins", []]]
                i += 1
            elif ch == "}" and stack:
                author, i = self._author(body, i + 1)
                if len(stack) == 2 and stack[0][0] == "del":      # the replacement's two halves
                    self.changes += [("del", author, "".join(stack[0][1])), ("ins", author, "".join(stack[1][1]))]
                    stack = []
                else:
                    kind, text = stack.pop()
                    self.changes.append((kind, author, "".join(text)))
            else:
                kinds = [k for k, _ in stack]
                kind = ("struck" if len(kinds) == 2 and kinds[0] != "del" else kinds[-1]) if stack else "text"
                self.chars.append((ch, kind))
                for _, text in (stack if kinds[:1] != ["del"] or len(stack) == 1 else stack[1:]):
                    text.append(ch)
                i += 1
        if stack:
            raise GrammarError(f"{self.pid}: an unclosed change")

    @property
    def current(self) -> str:
        return "".join(c for c, k in self.chars if k in ("text", "ins", "move_to"))

    @property
    def original(self) -> str:
        return "".join(c for c, k in self.chars if k in ("text", "del", "move_from"))


def _read_anchor(lines: list[_ReadLine], number: int) -> tuple[tuple, str]:
    """A comment's anchor from its markers (the engine's rule: start or reference to end or
    reference; the current text in between, or all of it when none is current)."""
    found: dict[str, tuple[int, int]] = {}
    for k, line in enumerate(lines):
        for tag, n, at in line.markers:
            if n == number:
                found.setdefault(tag, (k, at))
    first = found.get("start") or found.get("ref")
    if first is None:
        return (), ""
    final = found.get("end") or found.get("ref") or first
    a, b = first[0], max(first[0], final[0])
    visible, everything = [], []
    for k in range(a, b + 1):
        chars = lines[k].chars
        s = first[1] if k == a and "start" in found else 0
        e = final[1] if k == b and "end" in found else len(chars)
        chunk = chars[s:e] if e >= s else []
        visible.append("".join(c for c, kind in chunk if kind in ("text", "ins", "move_to")))
        everything.append("".join(c for c, _ in chunk))
    text = " ".join(x for x in visible if x).strip() or " ".join(x for x in everything if x).strip()
    return tuple(lines[k].pid for k in range(a, b + 1)), text


def _read_notes(facts: ReadFacts, lines: list[_ReadLine]) -> None:
    """Revisions stated as notes: paragraph marks, formatting, and tracked rows (named on a row's
    first paragraph; its other paragraphs carry the same note without an author)."""
    rows: list[list] = []    # [kind, author, first paragraph id, texts]
    for line in lines:
        for note in line.notes:
            text = note.group(0)
            if text.startswith("table row "):
                kind = "ins" if "inserted" in text else "del"
                if note.group(1) is not None:
                    rows.append([kind, _author_of(line, note.group(1)), line.pid, []])
                elif not rows or rows[-1][0] != kind:
                    raise GrammarError(f"{line.pid}: a tracked row's paragraph before the row's first")
                rows[-1][3].append(line.current if kind == "ins" else line.original)
            elif note.group(2) is not None:
                author, what = _author_of(line, note.group(4)), note.group(2)
                if what in _MARK_KIND:
                    kind = _MARK_KIND[what]
                    facts.revisions[(kind, author, line.original if kind == "para_del" else line.current,
                                     line.pid)] += 1
                elif what == "formatting changed":
                    facts.revisions[("format", author, line.current, line.pid)] += 1
                elif what == "paragraph mark formatting changed":
                    facts.revisions[("format", author, "\u00b6", line.pid)] += 1
                else:
                    facts.revisions[("format", author, json.loads(note.group(3)), line.pid)] += 1
    for kind, author, pid, texts in rows:
        facts.revisions[(kind, author, " | ".join(texts), pid)] += 1


def _author_of(line: _ReadLine, tag: str) -> str:
    if tag != "?" and tag not in line.authors:
        raise GrammarError(f"{line.pid}: unknown author {tag}")
    return line.authors.get(tag, "")


def parse_read(view: str) -> ReadFacts:
    lines = view.split("\n")
    authors, i = _legend(lines, _READ_AUTHOR)
    if lines[i] != "":
        raise GrammarError("the legend is not followed by a blank line")
    i += 1
    paras: list[_ReadLine] = []      # body paragraphs and text-box paragraphs (``p-012/tb1.1``)
    listed: list[tuple[re.Match, _ReadLine | None]] = []   # comment lines, with the body paragraph they follow
    loose = False
    for line in lines[i:]:
        if line.startswith("## Headers, footers and notes"):
            break
        if line == "" or line.startswith("## "):
            loose = loose or line.startswith("## Comments not anchored")
            continue
        if line.startswith("cmt-"):
            m = _READ_COMMENT.match(line)
            if not m:
                raise GrammarError(f"bad comment line {line!r}")
            body = [x for x in paras if "/tb" not in x.pid]
            listed.append((m, body[-1] if body and not loose else None))
            continue
        paras.append(_ReadLine(line, authors))
    facts = ReadFacts()
    for para in paras:
        facts.texts[para.pid] = para.current
        for kind, author, text in para.changes:
            facts.revisions[(kind, author, text, para.pid)] += 1
    _read_notes(facts, paras)
    parents = {m.group(1): m.group(4) for m, _ in listed}
    body = [x for x in paras if "/tb" not in x.pid]   # comments are anchored in the body only
    own = {m.group(1): _read_anchor(body, int(m.group(1).removeprefix("cmt-"))) for m, _ in listed}

    def anchor(cid: str, depth: int = 0) -> tuple[tuple, str]:
        if own[cid][0] or depth > len(own):
            return own[cid]
        parent = parents.get(cid)
        return anchor(parent, depth + 1) if parent in own and not unanchored[cid] else ((), "")

    unanchored = {m.group(1): bool(m.group(6)) for m, _ in listed}
    for m, after in listed:
        cid = m.group(1)
        facts.comments[cid] = (authors.get(m.group(2), ""), m.group(4), bool(m.group(5)))
        facts.anchors[cid] = anchor(cid)
        if not m.group(4) or m.group(4) not in own:   # a thread's first comment follows its anchor's paragraph
            where = facts.anchors[cid][0]
            if (where[0] if where else None) != (after.pid if after else None):
                raise GrammarError(f"{cid}: listed after {after.pid if after else 'the text'}, anchored at {where}")
    return facts
