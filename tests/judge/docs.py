"""Small real .docx redlines for judge and scoring tests, built with the engine."""

from __future__ import annotations

from redlinebench.docx import RedlineDocument
from redlinebench.docx.build import DocumentBuilder, Ins

AUTHOR = "Reviewing Counsel (AgentCo Legal)"
OTHER = "Reviewing Counsel (LargeCo Legal)"


def base_contract() -> bytes:
    """1.1 fees, 1.2 an audit right the other side inserted at the previous turn, 1.3 liability."""
    b = DocumentBuilder(title="MSA")
    b.heading("Fees", level=1)
    b.clause("Fees are payable within thirty (30) days of invoice.", level=1)
    b.clause(["Customer may ", Ins("audit Provider annually", author=OTHER), " on notice."], level=1)
    b.heading("Liability", level=1)
    b.clause("Liability is capped at the Fees paid.", level=1)
    return b.to_bytes()


MODEL_EDITS = [
    {"op": "replace", "anchor": {"paragraph_id": "p-002", "text": "thirty (30) days"},
     "new_text": "sixty (60) days", "comment": "Net 60 matches our payment cycle."},
    {"op": "delete", "anchor": {"paragraph_id": "p-003", "text": "audit Provider annually"},
     "comment": "We rely on our SOC 2 report instead."},
    {"op": "insert_after", "anchor": {"paragraph_id": "p-005", "text": "Liability is capped at the Fees paid."},
     "new_text": "Neither party excludes liability for fraud.", "comment": "Fraud carve-out."},
]
GOLDEN_EDITS = [
    MODEL_EDITS[0],
    {"op": "delete", "anchor": {"paragraph_id": "p-005", "text": "the Fees paid"}, "comment": "No cap."},
]


def redline(edits=MODEL_EDITS, author=AUTHOR) -> RedlineDocument:
    doc = RedlineDocument.open(base_contract())
    results = doc.apply_edits(edits, author=author)
    assert all(r["status"] == "ok" for r in results), results
    return doc


def comment_only(author=AUTHOR) -> RedlineDocument:
    doc = RedlineDocument.open(base_contract())
    doc.add_comment(author=author, text="We accept all of LargeCo's changes.", paragraph_id="p-003")
    return doc
