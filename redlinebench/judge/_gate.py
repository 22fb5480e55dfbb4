"""The validity gate (SPEC §5.1): the output opens as a .docx, carries the author's work, and
passes the integrity audit against the task's input.

At least one tracked change or comment whose author equals the task's author and whose text holds
a character a reader sees (``docx.evidence``: not whitespace, not a control, format or separator
character such as a zero-width space, not hidden); comments alone pass (accept-and-close turns).
Every story counts (a tracked change in a header, a comment anchored in a footnote); a comment
anchored nowhere (an orphan left in comments.xml) is no evidence.
When the task's input document is known, the output is then audited against it
(``docx.integrity``): a fatal finding fails the gate with a reason naming it. Anything that
fails scores 0 with a reason and no judge is called.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..docx.integrity_types import IntegrityReport
from ..errors import RedlineBenchError


@dataclass
class GateResult:
    passed: bool
    reason: str | None = None
    doc: Any = None          # the opened RedlineDocument when it opened (reused for the view)
    #: the audit against the task's input; ``skipped`` says why when it could not run
    integrity: IntegrityReport | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed} if self.passed else {"passed": False, "reason": self.reason}


def open_output(output: str | Path | bytes | None) -> tuple[Any, str | None]:
    """(document, None) or (None, why it cannot be opened). Never raises for a bad file."""
    from ..docx import RedlineDocument

    if output is None:
        return None, "no output document was produced"
    if isinstance(output, (str, Path)):
        path = Path(output)
        if not path.is_file():
            return None, f"output document not found: {path.name}"
    try:
        return RedlineDocument.open(output), None
    except RedlineBenchError as exc:
        return None, f"output does not open as a .docx: {exc.problem}"
    except Exception as exc:  # noqa: BLE001  a hostile file must never crash grading
        return None, f"output does not open as a .docx: {type(exc).__name__}: {exc}"


def open_original(original: Any) -> tuple[Any, str | None]:
    """The task's input document (an opened document, a path or bytes) or why it is unavailable."""
    if original is None:
        return None, "no task input document known"
    if hasattr(original, "paragraphs") and hasattr(original, "package"):
        return original, None
    if isinstance(original, (str, Path)) and not Path(original).is_file():
        return None, f"task input document not found: {Path(original).name}"
    doc, why = open_output(original)
    return (doc, None) if doc is not None else (None, "task input " + (why or "").replace("output ", "", 1))


def integrity_of(original: Any, output_doc: Any, author: str) -> IntegrityReport:
    """The audit of ``output_doc`` against the task input ``original``; never raises: when it
    cannot run, a report that records why (``skipped``) and finds nothing."""
    from ..docx.integrity import audit

    source, why = open_original(original)
    if source is None:
        return IntegrityReport(skipped=why)
    try:
        return audit(source, output_doc, author)
    except Exception as exc:  # noqa: BLE001  a hostile pair must never crash grading; the skip is recorded
        return IntegrityReport(skipped=f"audit error: {type(exc).__name__}: {exc}")


def gate(output: str | Path | bytes | None, author: str, *, document: Any | None = None,
         original: Any | None = None) -> GateResult:
    """Pass iff the output opens, has a tracked change or comment with text by exactly ``author``,
    and (when ``original``, the task's input, is given) passes the integrity audit.

    ``document``: the output already opened by the caller (it is then not parsed again).
    ``original``: the task's input document (opened, a path or bytes); None skips the audit and
    the result records that it was skipped.
    """
    doc, why = (document, None) if document is not None else open_output(output)
    if doc is None:
        return GateResult(False, why, integrity=IntegrityReport(skipped="the output does not open"))
    report = integrity_of(original, doc, author)
    # SPEC §5.1: the author string *equals* the task's: the judge's view and the diagnostics
    # attribute work by the same exact comparison, so a near-miss must not pass here either.
    # Evidence is read in every story and counts only with a character a reader sees.
    from ..docx.evidence import author_evidence

    try:
        evidence = author_evidence(doc, author)
    except Exception as exc:  # noqa: BLE001  a hostile file must never crash grading
        return GateResult(False, f"the output's tracked changes cannot be read: {type(exc).__name__}: {exc}",
                          doc, report)
    if evidence.found:
        if not report.passed:
            return GateResult(False, report.gate_reason(), doc, report)
        return GateResult(True, None, doc, report)
    others = evidence.others
    hint = f" (authors present: {', '.join(repr(a) for a in others[:5])})" if others else ""
    note = f"; {evidence.orphans} comment(s) by that author have no anchor in the document and do not count" \
        if evidence.orphans else ""
    blank = (f"; {evidence.invisible} change(s) or comment(s) by that author carry no visible text and do not count"
             if evidence.invisible else "")
    return GateResult(False, f"no tracked change or comment by the task author {author!r}{hint}{note}{blank}",
                      doc, report)
