"""``redlinebench doc ...``: read, redline, comment, review and validate one .docx.

Thin wiring over ``redlinebench.docx`` (SPEC issue 2, item 10). Every write goes through a
temporary file and a rename, so a failure never leaves a half-written output. Bad input
(unreadable files, malformed EDITS.json, unknown ids) prints one line naming the file and the
problem; exit codes: 0 success, 1 an edit failed / findings / user error, 2 bad options or
EDITS.json, 3 an unexpected engine failure (``REDLINEBENCH_DEBUG=1`` shows the traceback).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import traceback
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import click
from .._termtable import echo

from ._options import IN_FILE

from ..errors import ConfigError, RedlineBenchError, ToolFailure

F = TypeVar("F", bound=Callable[..., Any])


def _guard(fn: F) -> F:
    """User errors stay one line; anything unexpected becomes one line too (exit 3), never a trace."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (RedlineBenchError, click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except ToolFailure as failure:
            where = kwargs.get("file")
            raise RedlineBenchError(f"{failure.code}: {failure.message}", path=where) from None
        except MemoryError:
            echo(f"error: {kwargs.get('file')}: out of memory while processing the document", err=True)
            sys.exit(3)
        except Exception as exc:  # noqa: BLE001  (an engine bug on hostile input: still one line)
            if os.environ.get("REDLINEBENCH_DEBUG"):
                traceback.print_exc()
            echo(f"error: {kwargs.get('file')}: internal error ({type(exc).__name__}: {exc})", err=True)
            sys.exit(3)

    return wrapper  # type: ignore[return-value]


def _open(file: Path):
    from ..docx import RedlineDocument

    return RedlineDocument.open(file, name=str(file))


def _parse_date(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"--date {value!r} is not an ISO date-time such as 2026-01-01T09:00:00Z") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _save(doc: Any, out: Path) -> None:
    """Atomic save; an unwritable destination is a one-line user error."""
    try:
        doc.save(out)
    except OSError as exc:
        raise RedlineBenchError(f"cannot write output: {exc.strerror or exc}", path=out) from None


def _emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def document_json(doc: Any) -> dict[str, Any]:
    """The ``doc read --json`` shape (issue 2, item 10)."""
    return {
        "paragraphs": [
            {"id": p.id, "number": p.number, "style": p.style, "text": p.text, "in_table": p.in_table,
             "flags": list(p.flags)}
            for p in doc.paragraphs
        ],
        "comments": [
            {"id": c.id, "author": c.author, "parent": c.parent, "paragraph_ids": list(c.paragraph_ids),
             "text": c.text, "resolved": c.resolved}
            for c in doc.comments
        ],
        "revisions": [
            {"id": r.id, "type": r.type, "author": r.author, "paragraph_id": r.paragraph_id, "text": r.text}
            for r in doc.revisions
        ],
    }


def _load_edits(path: Path) -> list[Any]:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("edits file not found", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read edits file: {exc}", path=path) from None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", path=path) from None
    except RecursionError:
        raise ConfigError("JSON nested too deeply", path=path) from None
    if isinstance(value, dict) and isinstance(value.get("edits"), list):
        value = value["edits"]
    if not isinstance(value, list):
        raise ConfigError('expected a JSON list of edits (or {"edits": [...]})', path=path)
    return value


def _revision_id(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return f"rev-{value}" if value.isdigit() else value


def _comment_id(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return f"cmt-{value}" if value.isdigit() else value


_FILE = click.argument("file", type=IN_FILE)
def _checked_author(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """The engine's author rule, checked as an option error (it names --author, not the edits file)."""
    from ..docx.edits import check_author
    from ..errors import ToolFailure

    try:
        check_author(value)
    except ToolFailure as exc:
        raise click.BadParameter(str(exc.message)) from None
    return value


_AUTHOR = click.option("--author", required=True, callback=_checked_author,
                       help="Tracked-change author, e.g. 'Reviewing Counsel (AgentCo Legal)'.")
_OUT = click.option("-o", "--output", "output", type=click.Path(path_type=Path, dir_okay=False),
                    help="Write here (default: modify FILE in place, atomically).")
_DATE = click.option("--date", "date", help="Timestamp for new revisions/comments (ISO, UTC), for reproducible output.")


def register(main: click.Group) -> None:
    """Attach the ``doc`` command family."""
    main.add_command(doc)


@click.group()
def doc() -> None:
    """Read, redline, comment on, accept/reject and validate a .docx.

    Every change these commands make is a native Word tracked change or comment under --author.
    When the document is a benchmark answer, every change must be tracked: the verifier's
    integrity audit compares it with the original contract and scores 0 for text added, removed
    or altered without tracking (as editing the file with python-docx does), revisions or comments
    under another author's name, the other side's revisions or comments altered, and hidden text
    (hidden, white or tiny font); it flags the other side's revisions or comments removed
    silently and text addressed to the grader or judges.
    """


@doc.command("read")
@_FILE
@click.option("--json", "as_json", is_flag=True, help="Paragraphs, comments and revisions as JSON (whole document).")
@click.option("--start-id", default=None, help="First paragraph of a range to read, e.g. p-040 (alone: to the end).")
@click.option("--end-id", default=None, help="Last paragraph of the range, inclusive (alone: from the start).")
@click.option("--clause", default=None, help='A clause number such as "3.3": that clause and its sub-clauses.')
@click.option("--author", default=None, help="Your tracked-change author name: the legend marks it (you).")
@_guard
def read_cmd(file: Path, as_json: bool, start_id: str | None, end_id: str | None, clause: str | None,
             author: str | None) -> None:
    """The read_document view (one line per paragraph with ids, numbers and changes), or part of it."""
    from ..tools import read_range

    if as_json and (start_id or end_id or clause):
        raise click.UsageError("--json prints the whole document; leave out --start-id, --end-id and --clause")
    document = _open(file)
    if as_json:
        _emit_json(document_json(document))
        return
    first, last, label = read_range(document, start_id, end_id, clause)
    click.echo(document.read_view(reader=author or None, first=first, last=last, label=label))


@doc.command("view")
@_FILE
@click.option("--annotated", is_flag=True, help="Accepted for compatibility: the annotated view is the default "
              "(and only) view.")
@click.option("--focus-author", default=None, help="Attribute this author's changes as the current turn.")
@_guard
def view_cmd(file: Path, annotated: bool, focus_author: str | None) -> None:
    """The annotated view of FILE, as the judges read it (--annotated changes nothing; old scripts pass it).

    ~~text~~ deleted, ++text++ inserted, ~~old~~++new++ replaced; [A1] after a change names its
    author (legend at the top); {cmt-N} marks where comment N is anchored (bodies listed at the end).
    """
    click.echo(_open(file).annotated_view(focus_author=focus_author))


@doc.command("text")
@_FILE
@click.option("--accepted", "mode", flag_value="accepted", help="Text with every change accepted.")
@click.option("--original", "mode", flag_value="original", help="Text with every change rejected.")
@_guard
def text_cmd(file: Path, mode: str | None) -> None:
    """Plain text, one paragraph a line (current text unless --accepted / --original)."""
    click.echo(_open(file).text(mode or "current"))


@doc.command("edit")
@_FILE
@click.argument("edits_file", metavar="EDITS.json", type=IN_FILE)
@_AUTHOR
@_OUT
@_DATE
@_guard
def edit_cmd(file: Path, edits_file: Path, author: str, output: Path | None, date: str | None) -> None:
    """Apply EDITS.json (a list of edits) as tracked changes; exit 1 if any failed.

    \b
    Each edit (ids and text as `doc read` shows them):
      {"op": "replace",
       "anchor": {"paragraph_id": "p-012", "text": "thirty (30)"},
       "new_text": "sixty (60)", "comment": "Why, for the other side"}

    op is replace, delete (no new_text) or insert_after (new_text goes right after the
    anchor text); comment is required. Optional anchor keys: context_before, context_after,
    occurrence (1-based).
    """
    from ..tools import ToolLimits, ToolSession

    edits = _load_edits(edits_file)
    moment = _parse_date(date)
    document = _open(file)
    # The tools' checks give precise messages for malformed edits; the CLI lifts the batch limits.
    limits = ToolLimits(max_edits_per_batch=max(1, len(edits)), max_text_chars=1_000_000,
                        max_comment_chars=1_000_000, max_argument_chars=sys.maxsize)
    session = ToolSession(document, author, limits=limits, date=moment)
    result = session.dispatch("propose_edits", {"edits": edits})
    if "error" in result:
        if result["error"] == "internal_error":
            raise RedlineBenchError(f"internal error: {result['message']}", path=file)
        raise ConfigError(f"{result['error']}: {result['message']}", path=edits_file)
    results = result["results"]
    if any(r.get("status") == "ok" for r in results):
        _save(document, output or file)
    _emit_json({"results": results})
    if any(r.get("status") != "ok" for r in results):
        sys.exit(1)


@doc.command("comment")
@_FILE
@click.option("--paragraph-id", default=None, help="Paragraph to comment on, e.g. p-012.")
@click.option("--reply-to", default=None, help="Comment to reply to, e.g. cmt-3 (or 3).")
@click.option("--span", default=None, help="Exact words in the paragraph to anchor on.")
@click.option("--text", required=True, help="The comment text.")
@_AUTHOR
@_OUT
@_DATE
@_guard
def comment_cmd(file: Path, paragraph_id: str | None, reply_to: str | None, span: str | None, text: str,
                author: str, output: Path | None, date: str | None) -> None:
    """Add a comment thread on a paragraph, or a reply to an existing comment."""
    if paragraph_id is None and reply_to is None:
        raise ConfigError("give --paragraph-id (new thread) or --reply-to (reply)")
    document = _open(file)
    cid = document.add_comment(author=author, text=text, paragraph_id=None if reply_to else paragraph_id,
                               span=span, reply_to=_comment_id(reply_to), date=_parse_date(date))
    _save(document, output or file)
    _emit_json({"comment_id": cid})


@doc.command("reserve")
@_FILE
@click.option("--start", "start_id", required=True, help="First paragraph id.")
@click.option("--end", "end_id", required=True, help="Last paragraph id (inclusive).")
@click.option("--comment", required=True, help="Why the clause is removed.")
@_AUTHOR
@_OUT
@_DATE
@_guard
def reserve_cmd(file: Path, start_id: str, end_id: str, comment: str, author: str, output: Path | None,
                date: str | None) -> None:
    """Strike a range of paragraphs and leave "Reserved." so numbering does not shift."""
    document = _open(file)
    result = document.mark_reserved(start_id=start_id, end_id=end_id, comment=comment, author=author,
                                    date=_parse_date(date))
    if isinstance(result, dict) and result.get("status") not in (None, "ok"):
        _emit_json(result)
        sys.exit(1)
    _save(document, output or file)
    _emit_json(result)


def _review(action: str) -> Callable[..., None]:
    @_FILE
    @click.option("--author", default=None, help="Only this author's changes.")
    @click.option("--revision", default=None, help="Only this revision, e.g. rev-4 (or 4).")
    @click.option("-o", "--output", "output", required=True, type=click.Path(path_type=Path, dir_okay=False),
                  help="Where to write the result.")
    @_guard
    def command(file: Path, author: str | None, revision: str | None, output: Path) -> None:
        document = _open(file)
        count = getattr(document, action)(author=author, revision_id=_revision_id(revision))
        if revision is not None and count == 0:
            raise RedlineBenchError(f"no revision {_revision_id(revision)} to {action}", path=file)
        _save(document, output)
        _emit_json({action + "ed": count, "output": str(output)})

    command.__doc__ = f"{action.capitalize()} tracked changes (all, one author's, or one revision)."
    return command


doc.command("accept")(_review("accept"))
doc.command("reject")(_review("reject"))


@doc.command("validate")
@_FILE
@click.option("--json", "as_json", is_flag=True, help="Findings as JSON.")
@_guard
def validate_cmd(file: Path, as_json: bool) -> None:
    """Semantic checks Word enforces; exit 0 when there are no errors (warnings are listed)."""
    from ..docx.validate import Finding, validate_package
    from ..errors import DocxError

    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise RedlineBenchError("file not found", path=file) from None
    except OSError as exc:
        raise RedlineBenchError(f"cannot read: {exc.strerror or exc}", path=file) from None
    findings = list(validate_package(data))
    if not any(f.code == "zip-unreadable" for f in findings):
        try:
            _open(file)
        except DocxError as exc:
            findings.insert(0, Finding("docx-refused", exc.problem, "<package>"))
    errors = [f for f in findings if f.severity == "error"]
    if as_json:
        _emit_json({"file": str(file), "valid": not errors,
                    "findings": [{"code": f.code, "message": f.message, "part": f.part, "severity": f.severity}
                                 for f in findings]})
    else:
        for f in findings:
            echo(str(f))
        echo(f"{file}: {'valid' if not errors else 'INVALID'} ({len(errors)} errors, "
             f"{len(findings) - len(errors)} warnings)")
    if errors:
        sys.exit(1)
