"""The validity gate (SPEC §5.1): the output opens as a .docx and carries the author's work.

At least one tracked change or comment whose author equals the task's author; comments alone
pass (accept-and-close turns). Only work anchored in the document counts: a comment with no
anchor in the body (an orphan left in comments.xml) is no evidence of review. Anything else
scores 0 with a reason and no judge is called.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import RedlineBenchError


@dataclass
class GateResult:
    passed: bool
    reason: str | None = None
    doc: Any = None          # the opened RedlineDocument when it opened (reused for the view)

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


def gate(output: str | Path | bytes | None, author: str, *, document: Any | None = None) -> GateResult:
    """Pass iff the output opens and has a tracked change or comment by exactly ``author``.

    ``document``: the output already opened by the caller (it is then not parsed again).
    """
    doc, why = (document, None) if document is not None else open_output(output)
    if doc is None:
        return GateResult(False, why)
    # SPEC §5.1: the author string *equals* the task's: the judge's view and the diagnostics
    # attribute work by the same exact comparison, so a near-miss must not pass here either.
    # doc.revisions are read from the body itself; a comment counts only with a body anchor
    anchored = [c for c in doc.comments if c.paragraph_ids]
    n_changes = sum(1 for r in doc.revisions if r.author == author)
    n_comments = sum(1 for c in anchored if c.author == author)
    if n_changes or n_comments:
        return GateResult(True, None, doc)
    others = sorted({r.author or "" for r in doc.revisions} | {c.author or "" for c in anchored} - {""})
    hint = f" (authors present: {', '.join(repr(a) for a in others[:5])})" if others else ""
    orphans = sum(1 for c in doc.comments if c.author == author and not c.paragraph_ids)
    note = f"; {orphans} comment(s) by that author have no anchor in the document and do not count" \
        if orphans else ""
    return GateResult(False, f"no tracked change or comment by the task author {author!r}{hint}{note}", doc)
