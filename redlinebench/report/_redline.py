"""The redline viewer: a contract as Word's review pane shows it, in HTML.

Input is the engine's document model (``RedlineDocument``: paragraphs with ``segments``,
``number``, ``comment_ids``; ``comments`` with threads via ``parent``). Insertions are
underlined and deletions struck in their author's colour, clause numbers sit in a gutter, a
change bar marks edited paragraphs, and comment threads sit in a margin beside the paragraph
they anchor on. Three CSS-only views (all markup / final / original) need no JavaScript.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ._html import Markup, el, esc, join
from ._palette import AUTHOR_COLOURS, ColourMap

_HEADING = re.compile(r"heading|title", re.I)
ANCHOR_QUOTE_CHARS = 140


class AuthorColours:
    """Per-page author colours, stable within a page.

    The first colour is reserved for the author whose edits are being judged (the model's own
    author string); everyone else (the other side, earlier turns, the attorney of the golden)
    takes the following colours in order of appearance.
    """

    def __init__(self) -> None:
        self._focus: dict[str, str] = {}
        self._others = ColourMap(AUTHOR_COLOURS[1:])

    def focus(self, name: str) -> str:
        if name not in self._focus:
            self._focus[name] = AUTHOR_COLOURS[0]
        return self._focus[name]

    def __call__(self, name: str) -> str:
        return self._focus.get(name) or self._others(name)


class _ColourTokens:
    """Stands in for :class:`AuthorColours` while a document is rendered on its own.

    It hands out tokens instead of colours and records the order of first request, so the
    rendered HTML can be cached (or made in another process) and coloured later by replaying
    the same requests on the page's :class:`AuthorColours` (see :func:`place`).
    """

    def __init__(self) -> None:
        self.focus_name: str | None = None
        self.order: dict[str, int] = {}

    def focus(self, name: str) -> str:
        self.focus_name = name
        return self(name)

    def __call__(self, name: str) -> str:
        if name not in self.order:
            self.order[name] = len(self.order)
        return f"RBINK{self.order[name]}Q"


# A token only ever appears as an attribute value we wrote (a style), and `style="` cannot occur
# in escaped text (quotes are escaped), so this cannot match document content.
_INK = re.compile(r'(style="(?:--ac:|background:))RBINK(\d+)Q"')


@dataclass(frozen=True)
class Fragment:
    """A rendered document whose author colours are filled in when it is placed on a page."""

    html: str
    authors: tuple[str, ...]    # in order of first colour request
    focus: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"html": self.html, "authors": list(self.authors), "focus": self.focus}

    @classmethod
    def from_dict(cls, data: Any) -> "Fragment | None":
        if not isinstance(data, dict) or not isinstance(data.get("html"), str):
            return None
        authors = data.get("authors")
        focus = data.get("focus")
        if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
            return None
        if focus is not None and not isinstance(focus, str):
            return None
        return cls(data["html"], tuple(authors), focus)


def place(fragment: Fragment, colours: AuthorColours) -> Markup:
    """Colour *fragment* as if it had been rendered here, with *colours* in its current state."""
    if fragment.focus:
        colours.focus(fragment.focus)
    values = [colours(a) for a in fragment.authors]

    def ink(m: re.Match[str]) -> str:
        i = int(m.group(2))
        return f'{m.group(1)}{values[i]}"' if i < len(values) else m.group(0)

    return Markup(_INK.sub(ink, fragment.html))


@dataclass
class DocOutcome:
    """A rendered document, or why it could not be rendered."""

    html: Markup
    ok: bool
    error: str | None = None


def open_document(source: Path | bytes | None, *, name: str | None = None) -> tuple[Any | None, str | None]:
    """Open *source* (a path or the file's bytes) with the engine; ``(doc, None)`` or
    ``(None, reason)``. Never raises."""
    if source is None:
        return None, "no document"
    try:
        from ..docx import RedlineDocument
    except ImportError as exc:
        return None, f"the redline engine is not available ({exc})"
    try:
        return RedlineDocument.open(source, name=name), None
    except Exception as exc:  # a hostile .docx must not take the whole report down
        return None, f"{type(exc).__name__}: {exc}"


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _threads(comments: Sequence[Any]) -> tuple[list[list[Any]], dict[str, Any]]:
    by_id = {str(_get(c, "id")): c for c in comments}
    roots: list[Any] = []
    replies: dict[str, list[Any]] = {}

    def root_of(c: Any) -> str:
        seen = set()
        cur = c
        while True:
            parent = _get(cur, "parent")
            if not parent or str(parent) not in by_id or str(parent) in seen:
                return str(_get(cur, "id"))
            seen.add(str(parent))
            cur = by_id[str(parent)]

    for c in comments:
        rid = root_of(c)
        if rid == str(_get(c, "id")):
            roots.append(c)
        else:
            replies.setdefault(rid, []).append(c)
    return [[r, *replies.get(str(_get(r, "id")), [])] for r in roots], by_id


def _anchor_paragraph(root: Any, paragraphs: Sequence[Any], known: set[str]) -> str | None:
    """The paragraph a thread sits beside; ``known`` is the paragraphs' ids (built once per page)."""
    pids = _get(root, "paragraph_ids") or []
    for pid in pids:
        if str(pid) in known:
            return str(pid)
    rid = str(_get(root, "id"))
    for p in paragraphs:
        if rid in [str(x) for x in (_get(p, "comment_ids") or [])]:
            return str(_get(p, "id"))
    return None


def _rev_title(kind: str, seg: Any) -> str:
    verb = {"ins": "Inserted", "del": "Deleted", "move_from": "Moved from here", "move_to": "Moved here"}.get(kind, kind)
    parts = [f"{verb} by {_get(seg, 'author') or 'unknown author'}"]
    if _get(seg, "date"):
        parts.append(str(_get(seg, "date")))
    if _get(seg, "inserted_by"):
        parts.append(f"text inserted earlier by {_get(seg, 'inserted_by')}")
    if _get(seg, "revision_id"):
        parts.append(str(_get(seg, "revision_id")))
    return " · ".join(parts)


def _segment_html(seg: Any, colours: AuthorColours, marks: list[tuple[str, int]]) -> Markup:
    kind = str(_get(seg, "kind", "text"))
    text = str(_get(seg, "text", "") or "")
    body = _with_marks(text, marks)
    if kind == "text":
        return body
    author = str(_get(seg, "author") or "unknown author")
    style = f"--ac:{colours(author)}"
    if kind in {"ins", "move_to"}:
        return el("ins", body, class_=f"rl-{kind.replace('_', '-')}", style=style, title=_rev_title(kind, seg))
    if kind in {"del", "move_from"}:
        return el("del", body, class_=f"rl-{kind.replace('_', '-')}", style=style, title=_rev_title(kind, seg))
    return el("span", body, title=kind)


def _with_marks(text: str, marks: list[tuple[str, int]]) -> Markup:
    """Highlight the first occurrence of each pending comment anchor found in *text*."""
    for i, (anchor, number) in enumerate(marks):
        if not anchor:
            continue
        at = text.find(anchor)
        if at >= 0:
            del marks[i]
            return join([
                _with_marks(text[:at], marks),
                el("mark", anchor, class_="rl-anchor", title=f"Comment {number}"),
                _with_marks(text[at + len(anchor):], marks),
            ])
    return esc(text)


def _comment_card(thread: list[Any], number: int, colours: AuthorColours, dom: str) -> Markup:
    items = []
    for k, c in enumerate(thread):
        author = str(_get(c, "author") or "unknown author")
        head = [el("span", "", class_="rl-dot", style=f"background:{colours(author)}"),
                el("b", author)]
        if _get(c, "date"):
            head.append(el("span", str(_get(c, "date"))[:16].replace("T", " "), class_="rl-date"))
        if k > 0:
            head.insert(0, el("span", "↳ reply", class_="rl-reply-tag"))
        items.append(el("div", el("div", *head, class_="rl-chead"), el("div", str(_get(c, "text") or ""), class_="rl-ctext"),
                        class_="rl-comment" + (" rl-is-reply" if k else "")))
    root = thread[0]
    anchor = str(_get(root, "anchor_text") or "").strip()
    quote = None
    if anchor:
        short = anchor if len(anchor) <= ANCHOR_QUOTE_CHARS else anchor[:ANCHOR_QUOTE_CHARS] + "…"
        quote = el("div", el("span", "on ", class_="rl-on"), short, class_="rl-quote")
    resolved = bool(_get(root, "resolved"))
    return el("div", el("div", el("span", str(number), class_="rl-cnum"), " ", str(_get(root, "id") or ""),
                        " · resolved" if resolved else "", class_="rl-cid"),
              quote, *items, class_="rl-thread" + (" rl-resolved" if resolved else ""), id=f"{dom}-c{number}")


def author_counts(doc: Any, segments: Sequence[Sequence[Any]] | None = None) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    if segments is None:
        segments = [list(_get(p, "segments") or []) for p in _get(doc, "paragraphs") or []]
    for segs in segments:
        for seg in segs:
            kind = str(_get(seg, "kind", "text"))
            if kind == "text":
                continue
            a = str(_get(seg, "author") or "unknown author")
            key = "ins" if kind in {"ins", "move_to"} else "del"
            counts.setdefault(a, {"ins": 0, "del": 0, "comments": 0})[key] += 1
    for c in _get(doc, "comments") or []:
        a = str(_get(c, "author") or "unknown author")
        counts.setdefault(a, {"ins": 0, "del": 0, "comments": 0})["comments"] += 1
    return counts


def render_document(doc: Any, *, colours: AuthorColours, dom: str, focus_author: str | None = None,
                    label: str = "Redline") -> Markup:
    """Render *doc* (engine ``RedlineDocument`` or an object with the same attributes)."""
    return place(render_fragment(doc, dom=dom, focus_author=focus_author, label=label), colours)


def render_fragment(doc: Any, *, dom: str, focus_author: str | None = None, label: str = "Redline") -> Fragment:
    """Render *doc* without choosing colours: see :class:`Fragment`."""
    colours = _ColourTokens()
    html = _render(doc, colours=colours, dom=dom, focus_author=focus_author, label=label)
    return Fragment(str(html), tuple(colours.order), colours.focus_name)


def _render(doc: Any, *, colours: Any, dom: str, focus_author: str | None, label: str) -> Markup:
    paragraphs = list(_get(doc, "paragraphs") or [])
    comments = list(_get(doc, "comments") or [])
    if focus_author:
        colours.focus(focus_author)
    threads, _ = _threads(comments)
    # number threads in reading order (as Word's review pane does), unanchored ones last
    position = {str(_get(p, "id")): i for i, p in enumerate(paragraphs)}
    known = {str(_get(p, "id")) for p in paragraphs}
    anchored = [(_anchor_paragraph(t[0], paragraphs, known), k, t) for k, t in enumerate(threads)]
    anchored.sort(key=lambda a: (position.get(a[0], len(position)) if a[0] is not None else len(position) + 1, a[1]))
    by_para: dict[str | None, list[tuple[int, list[Any]]]] = {}
    for n, (pid, _k, thread) in enumerate(anchored, 1):
        by_para.setdefault(pid, []).append((n, thread))

    all_segs = [list(_get(p, "segments") or []) for p in paragraphs]
    counts = author_counts(doc, all_segs)
    legend = []
    for author in sorted(counts, key=lambda a: (a != focus_author, a)):
        c = counts[author]
        tag = el("span", "this turn", class_="rl-focus") if focus_author and author == focus_author else None
        legend.append(el("li", el("span", "", class_="rl-dot", style=f"background:{colours(author)}"), el("b", author), tag,
                         el("span", f"{c['ins']} insertions · {c['del']} deletions · {c['comments']} comments", class_="rl-lc")))
    if not legend:
        legend.append(el("li", "No tracked changes or comments in this document."))

    rows: list[Markup] = []
    table_row: list[tuple[Any, int, _Para]] = []  # the paragraphs of the table row being gathered

    def flush() -> None:
        if table_row:
            rows.append(_table_row(table_row))
            table_row.clear()

    for p, segs in zip(paragraphs, all_segs):
        pid = str(_get(p, "id") or "")
        if not segs and _get(p, "text"):
            segs = [{"kind": "text", "text": _get(p, "text")}]
        anchored = by_para.get(pid, [])
        marks = [(str(_get(t[0], "anchor_text") or "").strip(), n) for n, t in anchored]
        marks = [(a, n) for a, n in marks if 0 < len(a) <= 400]
        text = join(_segment_html(s, colours, marks) for s in segs)
        refs = join(el("a", str(n), href=f"#{dom}-c{n}", class_="rl-ref", title="comment") for n, _ in anchored)
        flags = {str(f) for f in (_get(p, "flags") or [])}
        kinds = {str(_get(s, "kind", "text")) for s in segs}
        classes = ["rl-p"]
        if kinds - {"text"} or flags & {"para_inserted", "para_deleted", "has_revisions", "format_change"}:
            classes.append("rl-changed")
        if _get(p, "in_table"):
            classes.append("rl-cell")
        style = _get(p, "style")
        if style and _HEADING.search(str(style)):
            classes.append("rl-h")
        if "para_deleted" in flags:
            classes.append("rl-pdel")
        # all of its text inserted (or deleted): the paragraph is not there in the original (or the final) view
        kinds_with_text = {str(_get(s, "kind", "text")) for s in segs if str(_get(s, "text", "") or "").strip()}
        if kinds_with_text and kinds_with_text <= {"ins", "move_to"}:
            classes.append("rl-allins")
        elif kinds_with_text and kinds_with_text <= {"del", "move_from"}:
            classes.append("rl-alldel")
        number = _get(p, "number")
        margin = join(_comment_card(t, n, colours, dom) for n, t in anchored)
        para = _Para(str(number) if number else "", text if segs else Markup("&#8203;"), refs, margin, classes, pid)
        cell = _cell_of(p) if _get(p, "in_table") else None
        if cell is None:
            flush()
            rows.append(_row(para.number, para.text, para.refs, para.margin, " ".join(para.classes), pid))
            continue
        if table_row and table_row[0][0] is not cell[0]:
            flush()
        table_row.append((cell[0], cell[1], para))
    flush()
    loose = by_para.get(None, [])
    if loose:
        rows.append(el("div", el("div", "", class_="rl-num"),
                       el("div", el("em", f"{len(loose)} comment thread(s) with no anchor in the text"), class_="rl-text"),
                       el("div", join(_comment_card(t, n, colours, dom) for n, t in loose), class_="rl-margin"),
                       class_="rl-p"))
    modes = []
    for i, (mode, text) in enumerate((("all", "All markup"), ("changes", "Changes only"), ("final", "Final (accept all)"),
                                      ("orig", "Original (reject all)"))):
        rid = f"{dom}-m-{mode}"
        modes.append(el("input", type="radio", name=f"{dom}-mode", id=rid, class_=f"rl-mode rl-mode-{mode}",
                        checked=(i == 0)))
        modes.append(el("label", text, for_=rid))
    return el("div",
              el("div", el("span", label, class_="rl-label"), el("span", *modes, class_="rl-modes"), class_="rl-bar"),
              el("ul", *legend, class_="rl-legend"),
              el("div", *rows, class_="rl-body"),
              class_="rl-doc")


@dataclass
class _Para:
    """One paragraph's rendered parts, before it is placed in a row of its own or a table cell."""

    number: str
    text: Markup
    refs: Markup
    margin: Markup
    classes: list[str]
    pid: str


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _ancestor(node: Any, tag: str) -> Any:
    node = node.getparent() if node is not None else None
    while node is not None and node.tag != tag:
        node = node.getparent()
    return node


def _cell_of(p: Any) -> tuple[Any, int] | None:
    """(its ``w:tr``, its cell's column) for a paragraph of a table, from the engine's ``w:p``;
    ``None`` when the paragraph carries no element (a plain description of a document)."""
    try:
        element = getattr(p, "element", None)
    except Exception:  # noqa: BLE001  a stand-in object: render it as a paragraph
        return None
    tc = _ancestor(element, f"{_W}tc") if element is not None and hasattr(element, "getparent") else None
    tr = _ancestor(tc, f"{_W}tr")
    if tr is None:
        return None
    cells = [c for c in tr.iter(f"{_W}tc") if _ancestor(c, f"{_W}tr") is tr]  # cells wrapped in w:sdt too
    return tr, cells.index(tc)


def _table_row(paras: Sequence[tuple[Any, int, _Para]]) -> Markup:
    """A table row of the document as one row of the viewer: its cells side by side (a table stays
    a table, not one cell per line), the comments of all its cells in the margin."""
    n_cols = max(col for _, col, _ in paras) + 1
    cells: list[list[str]] = [[] for _ in range(n_cols)]
    for _, col, para in paras:
        inner = [c for c in para.classes if c not in ("rl-p", "rl-cell")]
        title = f' title="{esc(para.pid)}"' if para.pid else ""
        number = f'<span class="rl-cn">{esc(para.number)}</span> ' if para.number else ""
        cells[col].append(f'<div class="rl-cp {esc(" ".join(inner))}"{title}>{number}{para.text}{para.refs}</div>')
    every = [set(p.classes) for _, _, p in paras]
    classes = ["rl-p", "rl-tr"]
    classes += [c for c in ("rl-changed",) if any(c in k for k in every)]
    classes += [c for c in ("rl-allins", "rl-alldel", "rl-pdel") if all(c in k for k in every)]
    grid = "".join(f'<div class="rl-td">{"".join(c)}</div>' for c in cells)
    margin = join(p.margin for _, _, p in paras)
    return Markup(f'<div class="{" ".join(classes)}"><div class="rl-num"></div>'
                  f'<div class="rl-text rl-table" style="grid-template-columns:repeat({n_cols},minmax(0,1fr))">{grid}'
                  f'</div><div class="rl-margin">{margin}</div></div>')


def _row(number: str, text: Markup, refs: Markup, margin: Markup, classes: str, pid: str) -> Markup:
    """One paragraph row: number gutter, text, margin. The same markup as nested ``el`` calls, built
    in one string because a report renders every paragraph of every trial's document."""
    title = f' title="{esc(pid)}"' if pid else ""
    return Markup(f'<div class="{esc(classes)}"><div class="rl-num">{esc(number)}</div>'
                  f'<div class="rl-text"{title}>{text}{refs}</div><div class="rl-margin">{margin}</div></div>')


def render_path(path: Path | None, *, colours: AuthorColours, dom: str, focus_author: str | None, label: str,
                missing: str, cache: Any | None = None) -> DocOutcome:
    """Open and render a .docx; a placeholder explaining why when it cannot be shown.

    With a ``cache`` (``_fragments.FragmentCache``) an earlier rendering of the same bytes with
    the same options is re-used, and a new one is stored.
    """
    if path is None:
        return DocOutcome(el("div", missing, class_="rl-missing"), ok=False, error=None)
    fragment, error = fragment_for(path, dom=dom, focus_author=focus_author, label=label, cache=cache)
    if fragment is None:
        return DocOutcome(el("div", el("b", f"{label}: could not be displayed. "), error or "", class_="rl-missing rl-error"),
                          ok=False, error=error)
    return DocOutcome(place(fragment, colours), ok=True)


def fragment_for(path: Path, *, dom: str, focus_author: str | None, label: str,
                 cache: Any | None = None, document: Any | None = None) -> tuple[Fragment | None, str | None]:
    """The rendering of *path* (from ``cache`` when there), or ``(None, reason)``. Never raises.

    ``document`` is *path* already opened by the caller (the run grades a trial just before
    pre-rendering it): it saves parsing the same file twice.
    """
    try:
        from ..docx.package import MAX_TOTAL_BYTES
    except ImportError as exc:
        return None, f"the redline engine is not available ({exc})"
    try:
        if Path(path).stat().st_size > MAX_TOTAL_BYTES:  # never read a huge hostile file into memory
            return None, f"{Path(path).name}: file is larger than {MAX_TOTAL_BYTES // 2**20} MB"
        data = Path(path).read_bytes()
    except OSError as exc:   # the file's name, not this machine's path: the message lands on a shared page
        return None, f"{Path(path).name}: {type(exc).__name__}: {exc.strerror or exc.__class__.__name__}"
    key = cache.key(data, dom=dom, focus_author=focus_author, label=label) if cache is not None else None
    if key is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit, None
    doc, error = (document, None) if document is not None else open_document(data, name=Path(path).name)
    if doc is None:
        return None, error
    try:
        fragment = render_fragment(doc, dom=dom, focus_author=focus_author, label=label)
    except Exception as exc:  # an engine quirk on one document must not lose the rest of the report
        return None, f"{type(exc).__name__}: {exc}"
    if key is not None:
        cache.put(key, fragment)
    return fragment, None


#: One token of an annotated view's line (docs/VIEWS.md): an escape (a backslash and the character
#: it makes plain, or a code escape), a change marker, a bracket (head, tag or note; escapes inside),
#: a comment or hidden-text marker, or a run of plain text.
_AV_TOKEN = re.compile(r"\\U[0-9a-fA-F]{8}|\\u[0-9a-fA-F]{4}|\\.|\+\+|~~|\[(?:[^\]\\]|\\.)*\]"
                       r"|\{<?cmt-\d+>?\}?|\{hidden>|\{<hidden\}|[^\\+~\[\]{}]+|.", re.S)
_AV_NOTE = (("audit ", "av-audit"), ("hidden from ", "av-hidnote"))


def render_annotated(text: str) -> Markup:
    """The judge's annotated view, verbatim, tinted by its grammar: legend and heading lines are
    never markup, escaped characters stay text, and each line closes what it opened (a tint never
    leaks past its line)."""
    out = []
    for line in text.split("\n"):
        if line.startswith("#"):
            out.append(Markup('<span class="av-legend">') + esc(line) + Markup("</span>"))
        else:
            out.append(_tint_line(line))
    return el("pre", Markup("\n".join(out)), class_="annot")


def _tint_line(line: str) -> Markup:
    html: list[str] = []
    spans: list[str] = []     # open span kinds: "++", "~~" (changes), "hidden"
    groups: list[str] = []    # open change markers, outermost first
    closed = False            # the previous token closed a change: a bracket now is its tag
    plain: list[str] = []

    def flush() -> None:
        if plain:
            html.append(str(esc("".join(plain))))
            plain.clear()

    def span(css: str, body: str) -> None:
        flush()
        html.append(f'<span class="{css}">{esc(body)}</span>')

    def close_until(kind: str) -> None:
        while spans:
            html.append("</span>")
            if spans.pop() == kind:
                break

    for k, m in enumerate(_AV_TOKEN.finditer(line)):
        tok = m.group(0)
        was_closed, closed = closed, False
        if tok in ("++", "~~"):
            if not groups or (groups == ["++"] and tok == "~~"):
                flush()
                groups.append(tok)
                spans.append(tok)
                html.append(f'<span class="{"av-ins" if tok == "++" else "av-del"}">{tok}')
            elif tok == groups[-1]:
                flush()
                html.append(tok)
                close_until(groups.pop())
                closed = True
            else:
                plain.append(tok)
        elif tok.startswith("[") and tok.endswith("]") and len(tok) > 1:
            inner = tok[1:-1]
            if was_closed:
                span("av-tag", tok)
            elif k == 0 and inner.startswith("p-"):
                span("av-pid", tok)
            else:
                span(next((css for prefix, css in _AV_NOTE if inner.startswith(prefix)), "av-note"), tok)
        elif tok == "{hidden>":
            span("av-hidmark", tok)
            spans.append("hidden")
            html.append('<span class="av-hidden">')
        elif tok == "{<hidden}":
            flush()
            if "hidden" in spans:
                close_until("hidden")
            span("av-hidmark", tok)
        elif tok.startswith("{") and "cmt-" in tok:
            span("av-cmt", tok)
        else:
            plain.append(tok)
    flush()
    html.extend("</span>" for _ in spans)
    return Markup("".join(html))




