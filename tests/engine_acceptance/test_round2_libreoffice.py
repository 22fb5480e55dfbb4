"""Round-2 fixes checked against LibreOffice and openxml-audit: reserved tables, their comment ranges."""

from __future__ import annotations

from datetime import datetime, timezone

from redlinebench.docx import RedlineDocument
from tests.docx.test_round2_defects import BODY_TABLE, ME
from tests.docx.util import docx
from tests.engine_acceptance.test_libreoffice import _compare
from tests.fixtures.audit import new_audit_errors

WHEN = datetime(2025, 6, 1, 9, 30, tzinfo=timezone.utc)


def test_reserved_table_rows_accept_and_reject_like_libreoffice(lo_oracle, tmp_path):
    source = docx(BODY_TABLE)
    doc = RedlineDocument.open(source, name="in.docx")
    ids = [para.id for para in doc.paragraphs]
    doc.mark_reserved(start_id=ids[1], end_id=ids[6], comment="Not needed.", author=ME, date=WHEN)
    out = tmp_path / "reserved_table.docx"
    out.write_bytes(doc.to_bytes())
    entry = lo_oracle.run([out])[out]
    _compare(entry, out.read_bytes(), "reserved_table")
    assert entry["accepted"] == ["1. Fees.", "2. Reserved.", "3. Term."]
    assert new_audit_errors(source, out.read_bytes(), tmp_path) == []


def test_replacement_inside_their_comment_range_agrees_with_libreoffice(lo_oracle, tmp_path):
    from tests.docx.test_round2_defects import THEIR_COMMENT
    from tests.docx.util import p, r_

    body = p(r_("Vendor keeps "), '<w:commentRangeStart w:id="7"/>', r_("insurance of USD 1,000,000"),
             '<w:commentRangeEnd w:id="7"/>', '<w:r><w:commentReference w:id="7"/></w:r>', r_(" at all times."))
    source = docx(body, comments=THEIR_COMMENT)
    doc = RedlineDocument.open(source, name="in.docx")
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "1,000,000"},
                            "new_text": "5,000,000", "comment": "Raise."}], author=ME, date=WHEN)
    assert res[0]["status"] == "ok"
    out = tmp_path / "their_comment.docx"
    out.write_bytes(doc.to_bytes())
    entry = lo_oracle.run([out])[out]
    _compare(entry, out.read_bytes(), "their_comment")
    assert entry["accepted"] == ["Vendor keeps insurance of USD 5,000,000 at all times."]
    assert new_audit_errors(source, out.read_bytes(), tmp_path) == []
