"""The five tools, as typed functions over one ``ToolSession``.

Each function's signature and docstring *are* its model-facing schema (see ``_schema``):
edit them here and the schema follows. They raise ``ToolFailure`` for anything the model can
correct; the session turns that into an error dict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired, TypedDict

from ..docx.document import collector_paused
from ..docx.view import clause_range, paragraph_lines, read_aliases, read_legend
from ..errors import DocxError, RedlineBenchError, ToolFailure, bounded_id, echoed, shown
from ._render import VIEW_KEY

if TYPE_CHECKING:
    from ._session import ToolSession

__all__ = ["Anchor", "Edit", "read_document", "propose_edits", "add_comment", "mark_reserved", "end_session",
           "TOOL_FUNCTIONS"]


class Anchor(TypedDict):
    paragraph_id: Annotated[str, 'Paragraph id from read_document, e.g. "p-012".']
    text: Annotated[str, (
        "The exact words to act on, copied from that paragraph as read_document shows it (pending "
        "insertions by the other side count as text; deleted text does not). Quote just enough to be "
        "unique in the paragraph: a phrase, not the whole clause. Curly quotes, dashes, non-breaking "
        "spaces and repeated spaces are matched loosely.")]
    context_before: NotRequired[Annotated[str, "Optional words just before `text`, to pick one of several matches."]]
    context_after: NotRequired[Annotated[str, "Optional words just after `text`, to pick one of several matches."]]
    occurrence: NotRequired[Annotated[int, "Optional 1-based occurrence of `text` in the paragraph when it repeats."]]


class Edit(TypedDict):
    op: Annotated[Literal["replace", "delete", "insert_after"], (
        "replace: strike anchor.text and insert new_text in its place (only the words that differ are "
        "marked). delete: strike anchor.text (deleting a whole paragraph's text removes the paragraph). "
        "insert_after: insert new_text right after anchor.text, striking nothing. To add a new paragraph "
        "(e.g. a new clause) after a paragraph, quote the whole paragraph as anchor.text, or quote its "
        "last words and start new_text with a newline; each further line of new_text becomes one more "
        "paragraph.")]
    anchor: Anchor
    new_text: NotRequired[Annotated[str, "The replacement or inserted text (required for replace and insert_after)."]]
    comment: Annotated[str, (
        "A short margin comment explaining the edit to the other side (why it is needed). Required: "
        "every edit is explained.")]


_PID = re.compile(r"^\[?\s*p-?0*(\d+)\s*\]?$", re.IGNORECASE)


def paragraph_ids_by_number(doc: Any) -> dict[int, str]:
    """The number in each paragraph id -> that id (``12`` -> ``"p-012"``), first id of a number wins."""
    out: dict[int, str] = {}
    for pid in doc.paragraph_ids():  # ids only: no full index rebuild after an edit
        digits = "".join(ch for ch in pid if ch.isdigit())
        if digits:
            out.setdefault(int(digits), pid)
    return out


def normalize_paragraph_id(session: ToolSession, value: str) -> str:
    """Map "[p-12]", "p-12" or "P-0012" to the document's own id; unknown ids pass through unchanged."""
    return _canonical_id(value, session.paragraph_ids_by_number)


def _canonical_id(value: str, ids_by_number: Mapping[int, str]) -> str:
    value = value.strip()
    if bounded_id(value) is None:   # the one id rule for every id (errors.bounded_id): not found
        return value
    match = _PID.match(value)
    if not match:
        return value
    return ids_by_number.get(int(match.group(1)), value)


def read_document(session: ToolSession, start_id: str | None = None, end_id: str | None = None,
                  clause: str | None = None) -> dict[str, Any]:
    """Read the contract as it stands now: the whole of it, or a range.

    One line per paragraph: `[p-NNN]` id, the clause number (e.g. 3.3.5), the text with pending
    tracked changes inline, each followed by its author alias (`{+inserted}A1`, `{-deleted}A1`,
    `{-old+new}A1` for a replacement; the header's legend says who A1 is and which alias is you),
    and a trailing `[...]` for table cells and changes the text does not show (`[p-NNN/tb1.1]`
    lines: text in a text box, not editable). `<cmt-N>text</>`
    marks the text comment cmt-N is on; its thread follows the paragraph's line
    (`cmt-N A1 [reply to cmt-M] [resolved]: text`). Use the ids and the current text (insertions
    in, deletions out) to anchor edits and comments. The editing tools answer with the touched
    paragraphs' new lines, so there is no need to read again after an edit.

    Args:
        start_id: Optional first paragraph id of a range to read, e.g. "p-040" (alone: to the end).
        end_id: Optional last paragraph id of the range, inclusive (alone: from the start).
        clause: Optional clause number, e.g. "3.3": that clause and its sub-clauses. Not with ids.
    """
    first, last, label = read_range(session.doc, start_id, end_id, clause, session.paragraph_ids_by_number)
    view = session.doc.read_view(reader=session.author, first=first, last=last, label=label)
    session.legend_shown = len(session.doc.read_view_aliases)
    return {VIEW_KEY: view}


def read_range(doc: Any, start_id: str | None, end_id: str | None, clause: str | None,
               ids_by_number: Mapping[int, str] | None = None) -> tuple[int | None, int | None, str | None]:
    """(first, last, label) of the paragraphs ``read_document``'s range arguments ask for.

    ``None, None, None``: the whole document. ToolFailure ``invalid_range`` names what is wrong
    and the valid span or the nearby clause numbers.
    """
    if ids_by_number is None:
        ids_by_number = paragraph_ids_by_number(doc)
    first = last = None
    label = None
    if clause is not None:
        if start_id is not None or end_id is not None:
            raise ToolFailure("invalid_range", "give either clause or start_id/end_id, not both",
                              path="arguments.clause")
        if len(clause) > 40:
            raise ToolFailure("invalid_range", f"clause {shown(clause)} is not a clause number such as \"3.3\"",
                              path="arguments.clause")
        try:
            first, last = clause_range(doc, clause)
        except ValueError as exc:
            raise ToolFailure("invalid_range", str(exc), path="arguments.clause") from None
        label = f"clause {clause.strip()}"
    elif start_id is not None or end_id is not None:
        first = _paragraph_index(doc, ids_by_number, start_id, "start_id") if start_id is not None else 0
        last = (_paragraph_index(doc, ids_by_number, end_id, "end_id") if end_id is not None
                else len(doc.paragraphs) - 1)
        if first > last:
            raise ToolFailure("invalid_range", f"start_id {doc.paragraphs[first].id} comes after end_id "
                                               f"{doc.paragraphs[last].id}", path="arguments.start_id")
    return first, last, label


def _paragraph_index(doc: Any, ids_by_number: Mapping[int, str], value: str, field: str) -> int:
    """The index of paragraph ``value`` (any id spelling); ToolFailure naming the valid ids otherwise."""
    pid = _canonical_id(value, ids_by_number)
    try:
        return doc.paragraph(pid).index
    except KeyError:
        paragraphs = doc.paragraphs
        span = f"{paragraphs[0].id}..{paragraphs[-1].id}" if paragraphs else "none"
        raise ToolFailure("invalid_range", f"{field}: no paragraph {shown(value)}; the ids run {span}",
                          path=f"arguments.{field}") from None


def _pin_aliases(session: ToolSession) -> None:
    """Number the document's authors (and the agent, last) before the agent's first change, so the
    other side keeps A1.. whether or not the agent read first."""
    if not session.doc.read_view_aliases:
        read_aliases(session.doc, session.author)


def _attach_view(result: dict[str, Any], session: ToolSession, pids: list[Any]) -> dict[str, Any]:
    """``result`` with the touched paragraphs' lines under ``view`` (none when no paragraph is left)."""
    view = touched_view(session, pids)
    if view:
        result[VIEW_KEY] = view
    return result


def touched_view(session: ToolSession, pids: list[Any]) -> str:
    """The read-view lines of the paragraphs a call changed, as a fresh read shows them; headed by the
    author legend when it has grown since the model last saw it (the agent's own alias, a first edit
    before any read)."""
    doc = session.doc
    with collector_paused():   # the index rebuild after an edit, as for a read (see collector_paused)
        lines = paragraph_lines(doc, [p for p in pids if isinstance(p, str)], reader=session.author)
    if len(doc.read_view_aliases) > session.legend_shown:
        lines.insert(0, read_legend(doc, session.author))
        session.legend_shown = len(doc.read_view_aliases)
    return "\n".join(lines) + "\n" if lines else ""


def propose_edits(session: ToolSession, edits: list[Edit]) -> dict[str, Any]:
    """Apply a batch of tracked changes (redlines) to the contract, in order.

    Each edit is applied independently as a Word tracked change under your author name, with its
    comment attached; one failing edit does not stop the others. Each result says "ok",
    "anchor_failed" (the anchor text was not found or is ambiguous: read the error and candidates,
    then retry with an exact quote, context or occurrence) or "runtime_error" (its error says why,
    e.g. "invalid_arguments: ..." for an edit whose fields are wrong). To reject the other
    side's pending insertion, delete or replace its text; to restore text they deleted, insert it
    again.

    Args:
        edits: The edits to apply, in order.
    """
    limits = session.limits
    if not edits:
        raise ToolFailure("invalid_arguments", "edits is empty: send at least one edit", path="arguments.edits")
    if len(edits) > limits.max_edits_per_batch:
        raise ToolFailure("batch_too_large", f"{len(edits)} edits in one call; the limit is "
                                             f"{limits.max_edits_per_batch}. Split the batch.",
                          limit=limits.max_edits_per_batch)
    # SPEC §4: edits apply in order, independently; an edit with bad arguments is its own failed
    # result (runtime_error, "invalid_arguments: ..."), and the others still apply.
    slots: list[dict[str, Any] | None] = []   # None: filled by the engine, in order
    prepared: list[dict[str, Any]] = []
    for index, edit in enumerate(edits):
        try:
            prepared.append(_prepare_edit(session, edit, f"arguments.edits[{index}]"))
            slots.append(None)
        except ToolFailure as failure:
            slots.append({"op": echoed(edit.get("op")), "status": "runtime_error",
                          "paragraph_id": echoed((edit.get("anchor") or {}).get("paragraph_id")),
                          "error": f"{failure.code}: {failure.message}"})
    _pin_aliases(session)
    applied = iter(session.doc.apply_edits(prepared, author=session.author, date=session.date) if prepared else [])
    results = [slot if slot is not None else next(applied) for slot in slots]
    ok = sum(1 for r in results if r.get("status") == "ok")
    session.record_edits(ok, len(results) - ok, comments=sum(1 for r in results if r.get("comment_id")))
    touched = [pid for r in results if r.get("status") == "ok"
               for pid in [r.get("paragraph_id"), *(r.get("new_paragraph_ids") or ())]]
    out: dict[str, Any] = {"results": results, "applied": ok, "failed": len(results) - ok}
    if touched:
        existing = set(session.doc.paragraph_ids())
        gone = list(dict.fromkeys(p for p in touched if isinstance(p, str) and p not in existing))
        if gone:   # e.g. deleting all of your own inserted paragraph removes it: no line to show
            out["removed_paragraph_ids"] = gone
        _attach_view(out, session, touched)
    return out


def _prepare_edit(session: ToolSession, edit: dict[str, Any], where: str) -> dict[str, Any]:
    """One edit's arguments checked and normalised for the engine; raises ToolFailure."""
    limits = session.limits
    op = edit["op"]
    new_text = edit.get("new_text")
    anchor = dict(edit["anchor"])
    if not anchor["text"].strip():
        raise ToolFailure("invalid_arguments", f"{where}.anchor.text is empty: quote the words to act on",
                          path=f"{where}.anchor.text")
    if op in ("replace", "insert_after") and new_text is None:
        raise ToolFailure("invalid_arguments", f"{where}.new_text is required for {op}", path=f"{where}.new_text")
    if op == "insert_after" and not (new_text or "").strip():
        raise ToolFailure("invalid_arguments", f"{where}.new_text is empty: nothing to insert",
                          path=f"{where}.new_text")
    if op == "delete" and new_text:
        raise ToolFailure("invalid_arguments", f"{where}: delete takes no new_text (use replace)",
                          path=f"{where}.new_text")
    if not edit["comment"].strip():
        raise ToolFailure("invalid_arguments", f"{where}.comment is empty: explain the edit",
                          path=f"{where}.comment")
    if "occurrence" in anchor and anchor["occurrence"] is not None and anchor["occurrence"] < 1:
        raise ToolFailure("invalid_arguments", f"{where}.anchor.occurrence must be 1 or more",
                          path=f"{where}.anchor.occurrence")
    for field, value, limit in (("anchor.text", anchor["text"], limits.max_text_chars),
                                ("new_text", new_text or "", limits.max_text_chars),
                                ("comment", edit["comment"], limits.max_comment_chars)):
        if len(value) > limit:
            raise ToolFailure("text_too_long", f"{where}.{field} has {len(value)} characters; the limit is "
                                               f"{limit}", path=f"{where}.{field}", limit=limit)
    anchor["paragraph_id"] = normalize_paragraph_id(session, anchor["paragraph_id"])
    item: dict[str, Any] = {"op": op, "anchor": {k: v for k, v in anchor.items() if v is not None},
                            "comment": edit["comment"]}
    if new_text is not None and op != "delete":
        item["new_text"] = new_text
    return item


def add_comment(session: ToolSession, text: str, paragraph_id: str | None = None, span: str | None = None,
                reply_to: str | None = None) -> dict[str, Any]:
    """Add a margin comment: a new thread on a paragraph (optionally on a span of its text), or a
    reply to an existing comment thread.

    Use it to reply to the other side's comments, to explain accepting their change, or to raise
    a point without changing the text. Give either paragraph_id (new thread) or reply_to (reply).

    Args:
        text: The comment text.
        paragraph_id: Paragraph id from read_document for a new thread, e.g. "p-012".
        span: Optional exact words inside that paragraph to anchor the comment on.
        reply_to: Comment id to reply to, e.g. "cmt-3" (the reply joins that thread).
    """
    limits = session.limits
    if not text.strip():
        raise ToolFailure("invalid_arguments", "text is empty: write the comment", path="arguments.text")
    if len(text) > limits.max_comment_chars:
        raise ToolFailure("text_too_long", f"text has {len(text)} characters; the limit is "
                                           f"{limits.max_comment_chars}", path="arguments.text",
                          limit=limits.max_comment_chars)
    if (paragraph_id is None) == (reply_to is None):
        raise ToolFailure("invalid_arguments", "give exactly one of paragraph_id (new thread) or reply_to (reply)")
    if span is not None and paragraph_id is None:
        raise ToolFailure("invalid_arguments", "span needs paragraph_id (a reply is anchored with its thread)")
    if span is not None and len(span) > limits.max_text_chars:
        raise ToolFailure("text_too_long", f"span has {len(span)} characters; the limit is {limits.max_text_chars}",
                          path="arguments.span", limit=limits.max_text_chars)
    pid = normalize_paragraph_id(session, paragraph_id) if paragraph_id is not None else None
    reply = reply_to.strip() if reply_to is not None else None
    if reply is not None and re.fullmatch(r"\d+", reply):
        reply = f"cmt-{reply}"
    _pin_aliases(session)
    comment_id = session.doc.add_comment(author=session.author, text=text, paragraph_id=pid,
                                         span=span or None, reply_to=reply, date=session.date)
    session.record_comment()
    doc = session.doc
    where = next((c.paragraph_ids for c in doc.comments if c.id == comment_id), [pid] if pid else [])
    return _attach_view({"comment_id": comment_id, "status": "ok"}, session, list(where))


def mark_reserved(session: ToolSession, start_id: str, end_id: str, comment: str) -> dict[str, Any]:
    """Strike a whole run of paragraphs (e.g. a clause you reject outright) and leave the word
    "Reserved." in their place, so later clause numbers do not shift.

    Args:
        start_id: First paragraph id of the range, e.g. "p-040".
        end_id: Last paragraph id of the range (inclusive); same as start_id for one paragraph.
        comment: Why the clause is removed (becomes a margin comment).
    """
    if not comment.strip():
        raise ToolFailure("invalid_arguments", "comment is empty: explain why the clause is removed",
                          path="arguments.comment")
    if len(comment) > session.limits.max_comment_chars:
        raise ToolFailure("text_too_long", f"comment has {len(comment)} characters; the limit is "
                                           f"{session.limits.max_comment_chars}", path="arguments.comment",
                          limit=session.limits.max_comment_chars)
    _pin_aliases(session)
    result = session.doc.mark_reserved(start_id=normalize_paragraph_id(session, start_id),
                                       end_id=normalize_paragraph_id(session, end_id), comment=comment,
                                       author=session.author, date=session.date)
    session.record_comment()
    out = dict(result)
    return _attach_view(out, session, [*out.get("paragraph_ids", ()), *out.get("reserved_paragraph_ids", ())])


def end_session(session: ToolSession, summary: str = "") -> dict[str, Any]:
    """Finish: the redlined contract is saved and validated. Call it once, when every edit and
    comment is in; no tool works afterwards.

    Args:
        summary: Optional one-paragraph note of what you changed and why (for the log only).
    """
    if len(summary) > session.limits.max_comment_chars:
        raise ToolFailure("text_too_long", f"summary has {len(summary)} characters; the limit is "
                                           f"{session.limits.max_comment_chars}", path="arguments.summary")
    findings = session.doc.validate()
    path = None
    if session.output_path is not None:
        try:
            session.doc.save(session.output_path)
        except (OSError, DocxError) as exc:
            # the reason without the host path (the model's view names files, never folders)
            reason = exc.problem if isinstance(exc, DocxError) else (exc.strerror or type(exc).__name__)
            raise ToolFailure("save_failed", f"the document could not be saved as {session.output_path.name}: "
                                             f"{reason}") from None
        # The file name only: the model needs no host path, and a runner may move the file later.
        path = session.output_path.name
    refused = _open_refusal(session.output_path if path else session.doc.to_bytes(), session)
    session.finish(summary)
    errors = [f"{f.code}: {f.message} ({f.part})"
              for f in findings if getattr(f, "severity", "error") == "error"]
    if refused:
        errors.insert(0, f"unopenable: the saved document does not open as a .docx for grading ({refused}); "
                         "it will score 0")
    return {
        "status": "saved" if path else "finished",
        "path": path,
        "valid": not errors,
        "validation_errors": errors[:20],
        "edits_ok": session.stats["edits_ok"],
        "edits_failed": session.stats["edits_failed"],
        "comments_added": session.stats["comments_added"],
    }


def _open_refusal(saved: Any, session: ToolSession) -> str | None:
    """Why the grading gate's open (``RedlineDocument.open``) would refuse the saved document, or None.

    The document validated in memory can still be refused there: 50 insert_after edits of 2,000
    lines make a document.xml over the 25 MB part limit. The limits such edits can cross are the
    package's (zip, part size, compression ratio: checked on the saved file, 0.4 ms) and the
    paragraph count (known from the open session); the XML itself is our own serialisation, so it
    is not parsed a third time (grading parses it once more anyway).
    """
    from ..docx.document import MAX_PARAGRAPHS
    from ..docx.package import Package

    try:
        Package.open(saved)
    except RedlineBenchError as exc:
        return exc.problem
    except Exception as exc:  # noqa: BLE001  the gate refuses on any failure to open, so do we
        return f"{type(exc).__name__}: {exc}"
    n_paragraphs = len(session.doc.paragraph_ids())
    if n_paragraphs > MAX_PARAGRAPHS:
        return f"{n_paragraphs} paragraphs (limit {MAX_PARAGRAPHS})"
    return None


TOOL_FUNCTIONS = (read_document, propose_edits, add_comment, mark_reserved, end_session)
