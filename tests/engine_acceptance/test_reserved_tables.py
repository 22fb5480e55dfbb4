"""A reserved range covering table rows: LibreOffice and openxml-audit agree with our output."""

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
