"""An output an agent that writes the .docx itself can hand in (issue 22): an untracked edit of the
liability cap ("twelve (12) months" -> "three (3) months", made with lxml, no tracked change) plus
one honest comment by the task's author. Every grading path must fail it with an ``integrity:
untracked_change`` gate reason.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from lxml import etree

from redlinebench.docx import RedlineDocument

#: An embedded turn-2 task whose contract (with the other side's turn-1 revisions) has the phrase once.
TASK_ID = "redline-s2-t2-g01a"
BEFORE, AFTER = "twelve (12) months", "three (3) months"
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def untracked_edit(contract: bytes) -> bytes:
    """``contract`` with BEFORE rewritten to AFTER in place (no w:ins/w:del): what python-docx does."""
    src = zipfile.ZipFile(io.BytesIO(contract))
    root = etree.fromstring(src.read("word/document.xml"))
    hits = [t for t in root.iter(f"{{{W}}}t") if t.text and BEFORE in t.text]
    assert len(hits) == 1, f"expected {BEFORE!r} in one w:t, found {len(hits)}"
    hits[0].text = hits[0].text.replace(BEFORE, AFTER)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True) \
                if info.filename == "word/document.xml" else src.read(info.filename)
            dst.writestr(info, data)
    return out.getvalue()


def manipulated_output(contract: str | Path | bytes, author: str) -> bytes:
    """The untracked cap edit plus one honest, anchored comment by ``author`` (which alone passes the old gate)."""
    data = contract if isinstance(contract, bytes) else Path(contract).read_bytes()
    doc = RedlineDocument.open(untracked_edit(data))
    pid = next(p for p, text in doc.paragraph_texts() if AFTER in text)
    doc.add_comment(author=author, text="We have reviewed the liability cap and accept it as drafted.",
                    paragraph_id=pid)
    return doc.to_bytes()


def honest_output(contract: str | Path | bytes, author: str) -> bytes:
    """The same comment on the untouched contract: the control, which must pass the gate."""
    data = contract if isinstance(contract, bytes) else Path(contract).read_bytes()
    doc = RedlineDocument.open(data)
    pid = next(p for p, text in doc.paragraph_texts() if BEFORE in text)
    doc.add_comment(author=author, text="We have reviewed the liability cap and accept it as drafted.",
                    paragraph_id=pid)
    return doc.to_bytes()


def assert_untracked_gate_failure(grade: dict) -> None:
    """The grade (a grade.json dict) failed the gate on the audit's untracked_change finding."""
    assert grade["status"] == "gate_failed", grade.get("gate")
    assert grade["gate"]["passed"] is False
    assert grade["gate"]["reason"].startswith("integrity: untracked_change"), grade["gate"]
    kinds = {f["kind"] for f in grade["integrity"]["findings"]}
    assert "untracked_change" in kinds and grade["integrity"]["passed"] is False
    assert grade["score"]["weighted"] == 0
