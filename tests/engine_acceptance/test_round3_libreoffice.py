"""Round-3 defects on real LibreOffice output: its separate id counter for format changes, and
rows/cells wrapped in content controls read in the order LibreOffice itself shows them."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from redlinebench.docx import RedlineDocument
from tests.docx.test_round3_defects import WRAPPED_TABLE, WRAPPED_TEXT
from tests.docx.util import docx
from tests.fixtures.audit import new_audit_errors
from tests.fixtures.libreoffice import _NS, _info, convert_to_docx

pytestmark = pytest.mark.libreoffice
WHEN = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
OTHER = "Opposing Counsel"


def _fodt() -> str:
    d = "2026-01-05T10:00:00"
    changes = (f'<text:changed-region xml:id="i1" text:id="i1"><text:insertion>{_info(OTHER, d)}</text:insertion>'
               f'</text:changed-region><text:changed-region xml:id="f1" text:id="f1"><text:format-change>'
               f'{_info(OTHER, d)}</text:format-change></text:changed-region>')
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {_NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles><style:style style:name="Standard" style:family="paragraph"/></office:styles>
<office:automatic-styles><style:style style:name="B" style:family="text"><style:text-properties fo:font-weight="bold"/>
</style:style></office:automatic-styles>
<office:body><office:text><text:tracked-changes>{changes}</text:tracked-changes>
<text:p text:style-name="Standard">Fees are due<text:change-start text:change-id="i1"/> promptly<text:change-end text:change-id="i1"/> on invoice.</text:p>
<text:p text:style-name="Standard">The <text:change-start text:change-id="f1"/><text:span text:style-name="B">Customer</text:span><text:change-end text:change-id="f1"/> may audit.</text:p>
</office:text></office:body></office:document>
"""


def test_libreoffice_format_change_and_insertion_get_distinct_revision_ids(soffice, tmp_path):
    data = convert_to_docx(soffice, _fodt(), tmp_path, "lo_ids").read_bytes()
    doc = RedlineDocument.open(data, name="lo_ids.docx")
    kinds = {r.type: r.id for r in doc.revisions}
    assert set(kinds) == {"ins", "format"} and kinds["ins"] != kinds["format"]
    doc.reject(revision_id=kinds["ins"])
    assert doc.text() == "Fees are due on invoice.\nThe Customer may audit."
    assert [r.type for r in doc.revisions] == ["format"]
    out = doc.to_bytes()
    assert [f for f in RedlineDocument.open(out).validate() if f.severity == "error"] == []
    assert new_audit_errors(data, out, tmp_path) == []


def test_wrapped_rows_and_cells_read_in_libreoffice_order(lo_oracle, tmp_path):
    path = tmp_path / "wrapped.docx"
    path.write_bytes(docx(WRAPPED_TABLE))
    entry = lo_oracle.run([path])[path]
    assert [line.rstrip("\r") for line in entry["raw"]] == WRAPPED_TEXT
    assert RedlineDocument.open(path.read_bytes()).text().split("\n") == WRAPPED_TEXT
