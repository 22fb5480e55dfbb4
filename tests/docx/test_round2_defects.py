"""Defects found after the first build: tables in a reserved range, reserving twice, our
insertion inside another author's comment range, and fields spanning several paragraphs."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.errors import ToolFailure
from tests.docx.util import docx, p, r_

WHEN = datetime(2025, 6, 1, 9, 30, tzinfo=timezone.utc)
ME = "Reviewing Counsel (AgentCo Legal)"


def cell(text: str) -> str:
    return f"<w:tc><w:tcPr><w:tcW w:w=\"2000\" w:type=\"dxa\"/></w:tcPr>{p(text)}</w:tc>"


def table(*rows: tuple[str, ...]) -> str:
    grid = "".join('<w:gridCol w:w="2000"/>' for _ in rows[0])
    body = "".join("<w:tr>" + "".join(cell(t) for t in row) + "</w:tr>" for row in rows)
    return f"<w:tbl><w:tblPr><w:tblW w:w=\"0\" w:type=\"auto\"/></w:tblPr><w:tblGrid>{grid}</w:tblGrid>{body}</w:tbl>"


def reopen(doc):
    return RedlineDocument.open(doc.to_bytes(), name="out.docx")


def no_errors(doc):
    assert [f for f in doc.validate() if f.severity == "error"] == []


# ---------------------------------------------------------------------------- 1. tables in a reserved range
BODY_TABLE = (p("1. Fees.") + p("2. Schedule of charges:") + table(("Item", "Price"), ("Setup", "USD 10"))
              + p("After the table.") + p("3. Term."))


def test_reserved_range_with_a_whole_table_removes_it_on_accept_and_restores_it_on_reject():
    doc = RedlineDocument.open(docx(BODY_TABLE), name="t.docx")
    ids = [para.id for para in doc.paragraphs]
    # p-002 "2. Schedule..." .. p-007 "After the table." (the table's four cells are p-003..p-006)
    res = doc.mark_reserved(start_id=ids[1], end_id=ids[6], comment="Not needed.", author=ME, date=WHEN)
    assert res["status"] == "ok"
    data = doc.to_bytes()
    out = RedlineDocument.open(data)
    no_errors(out)
    assert out.text("original") == "1. Fees.\n2. Schedule of charges:\nItem\nPrice\nSetup\nUSD 10\nAfter the table.\n3. Term."
    accepted = RedlineDocument.open(data)
    accepted.accept()
    assert accepted.text() == "1. Fees.\n2. Reserved.\n3. Term."
    assert b"<w:tbl>" not in accepted.to_bytes() and accepted.body.find(
        "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}tbl") is None
    rejected = RedlineDocument.open(data)
    rejected.reject()
    assert rejected.text() == "1. Fees.\n2. Schedule of charges:\nItem\nPrice\nSetup\nUSD 10\nAfter the table.\n3. Term."
    assert len(rejected.body.findall("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}tbl")) == 1


def test_reserved_range_over_some_rows_deletes_only_those_rows():
    body = p("Intro.") + table(("A", "1"), ("B", "2"), ("C", "3")) + p("End.")
    doc = RedlineDocument.open(docx(body), name="t.docx")
    ids = [para.id for para in doc.paragraphs]
    # rows B and C: p-004..p-007
    doc.mark_reserved(start_id=ids[3], end_id=ids[6], comment="Drop rows.", author=ME, date=WHEN)
    data = doc.to_bytes()
    out = RedlineDocument.open(data)
    no_errors(out)
    out.accept()
    assert out.text() == "Intro.\nA\n1\nEnd."
    rej = RedlineDocument.open(data)
    rej.reject()
    assert rej.text() == "Intro.\nA\n1\nB\n2\nC\n3\nEnd."


# ---------------------------------------------------------------------------- 2. reserving twice
def test_reserving_the_same_paragraphs_twice_fails_and_changes_nothing():
    doc = RedlineDocument.open(docx(p("1. Fees.") + p("2. Audit rights.") + p("3. Term.")), name="t.docx")
    doc.mark_reserved(start_id="p-002", end_id="p-002", comment="No audit.", author=ME, date=WHEN)
    before = doc.to_bytes()
    with pytest.raises(ToolFailure) as err:
        doc.mark_reserved(start_id="p-002", end_id="p-002", comment="Again.", author=ME, date=WHEN)
    assert err.value.code == "already_reserved"
    assert "p-002" in err.value.message
    assert doc.to_bytes() == before


def test_reserving_a_range_that_overlaps_an_earlier_reservation_fails():
    doc = RedlineDocument.open(docx(p("1. A.") + p("B text.") + p("C text.") + p("2. D.")), name="t.docx")
    doc.mark_reserved(start_id="p-001", end_id="p-003", comment="Drop.", author=ME, date=WHEN)
    before = doc.to_bytes()
    with pytest.raises(ToolFailure) as err:
        doc.mark_reserved(start_id="p-003", end_id="p-004", comment="Drop more.", author=ME, date=WHEN)
    assert err.value.code == "already_reserved"
    assert doc.to_bytes() == before


# ---------------------------------------------------------------------------- 3. their comment range
THEIR_COMMENT = ('<w:comment w:id="7" w:author="Opposing Counsel" w:date="2025-01-01T00:00:00Z" w:initials="OC">'
                 '<w:p><w:r><w:t>Why only this amount?</w:t></w:r></w:p></w:comment>')




@pytest.mark.parametrize("old, new, accepted_anchor", [
    ("1,000,000", "5,000,000", "insurance of USD 5,000,000"),          # last word of their range
    ("insurance", "cover", "cover of USD 1,000,000"),                   # first word of their range
    ("of USD 1,000,000", "of EUR 2,000,000", "insurance of EUR 2,000,000"),
])
def test_replacing_text_inside_their_comment_range_keeps_it_inside(old, new, accepted_anchor):
    body = p(r_("Vendor keeps "), '<w:commentRangeStart w:id="7"/>', r_("insurance of USD 1,000,000"),
             '<w:commentRangeEnd w:id="7"/>', '<w:r><w:commentReference w:id="7"/></w:r>', r_(" at all times."))
    doc = RedlineDocument.open(docx(body, comments=THEIR_COMMENT), name="t.docx")
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": "p-001", "text": old},
                            "new_text": new, "comment": "Raise."}], author=ME, date=WHEN)
    assert res[0]["status"] == "ok", res
    out = reopen(doc)
    no_errors(out)
    out.accept()
    theirs = [c for c in out.comments if c.author == "Opposing Counsel"]
    assert len(theirs) == 1
    from redlinebench.docx.runs import walk_paragraph

    p_el = out.element_for("p-001")
    walk = walk_paragraph(p_el)
    start = [m.pos for m in walk.markers if m.tag == "start" and m.comment_id == 7][0]
    end = [m.pos for m in walk.markers if m.tag == "end" and m.comment_id == 7][0]
    assert walk.current[start:end] == accepted_anchor


# ---------------------------------------------------------------------------- 4. fields over paragraphs
def _fld(kind: str) -> str:
    return f'<w:r><w:fldChar w:fldCharType="{kind}"/></w:r>'


TOC_BODY = (p(_fld("begin"), '<w:r><w:instrText xml:space="preserve"> TOC \\o "1-3" </w:instrText></w:r>',
              _fld("separate"), r_("1. Definitions 1"))
            + p(r_("2. Payment terms 2"))
            + p(r_("3. Term 3"), _fld("end"))
            + p("Body text after the table of contents."))


@pytest.mark.parametrize("pid, text", [("p-001", "Definitions"), ("p-002", "Payment"), ("p-003", "Term")])
def test_edits_inside_a_field_spanning_paragraphs_are_refused(pid, text):
    doc = RedlineDocument.open(docx(TOC_BODY), name="t.docx")
    before = doc.to_bytes()
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": pid, "text": text},
                            "new_text": "Changed", "comment": "c"}], author=ME, date=WHEN)
    assert res[0]["status"] == "anchor_failed"
    assert res[0]["error"].startswith("inside_field:")
    assert doc.to_bytes() == before


def test_text_after_a_multi_paragraph_field_stays_editable():
    doc = RedlineDocument.open(docx(TOC_BODY), name="t.docx")
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": "p-004", "text": "Body text"},
                            "new_text": "Main text", "comment": "c"}], author=ME, date=WHEN)
    assert res[0]["status"] == "ok"
    out = reopen(doc)
    no_errors(out)
    out.accept()
    assert out.text().splitlines()[-1] == "Main text after the table of contents."


def test_reserving_a_cell_paragraph_whose_text_we_deleted_fails():
    # the last paragraph of a cell keeps its mark when its text is deleted: still "already deleted"
    body = p("Intro.") + table(("Fee", "USD 10"))
    doc = RedlineDocument.open(docx(body), name="t.docx")
    res = doc.apply_edits([{"op": "delete", "anchor": {"paragraph_id": "p-003", "text": "USD 10"},
                            "comment": "c"}], author=ME, date=WHEN)
    assert res[0]["status"] == "ok"
    before = doc.to_bytes()
    with pytest.raises(ToolFailure) as err:
        doc.mark_reserved(start_id="p-003", end_id="p-003", comment="Again.", author=ME, date=WHEN)
    assert err.value.code == "already_reserved"
    assert doc.to_bytes() == before


def test_another_authors_reservation_does_not_block_ours():
    doc = RedlineDocument.open(docx(p("1. Fees.") + p("2. Audit.") + p("3. Term.")), name="t.docx")
    doc.mark_reserved(start_id="p-002", end_id="p-002", comment="Theirs.", author="Opposing Counsel", date=WHEN)
    res = doc.mark_reserved(start_id="p-003", end_id="p-003", comment="Ours.", author=ME, date=WHEN)
    assert res["status"] == "ok"


@pytest.mark.parametrize("start, end", [("p-001", "p-004"), ("p-002", "p-002"), ("p-003", "p-004")])
def test_reserving_over_a_multi_paragraph_field_is_refused(start, end):
    doc = RedlineDocument.open(docx(TOC_BODY), name="t.docx")
    before = doc.to_bytes()
    with pytest.raises(ToolFailure) as err:
        doc.mark_reserved(start_id=start, end_id=end, comment="c", author=ME, date=WHEN)
    assert err.value.code == "inside_field"
    assert doc.to_bytes() == before


@pytest.mark.parametrize("e", [
    {"op": "insert_after", "anchor": {"paragraph_id": "p-001"}, "new_text": "New entry."},
    {"op": "delete", "anchor": {"paragraph_id": "p-002"}},
    {"op": "insert_after", "anchor": {"paragraph_id": "p-002", "text": "Payment"}, "new_text": "late"},
])
def test_inserting_or_deleting_inside_a_multi_paragraph_field_is_refused(e):
    doc = RedlineDocument.open(docx(TOC_BODY), name="t.docx")
    before = doc.to_bytes()
    res = doc.apply_edits([{**e, "comment": "c"}], author=ME, date=WHEN)
    assert res[0]["status"] == "anchor_failed" and res[0]["error"].startswith("inside_field:")
    assert doc.to_bytes() == before


def test_text_before_a_field_that_opens_in_the_paragraph_stays_editable():
    body = (p(r_("Contents: "), _fld("begin"), '<w:r><w:instrText xml:space="preserve"> TOC </w:instrText></w:r>',
              _fld("separate"), r_("1. Definitions 1")) + p(r_("2. Term 2"), _fld("end")))
    doc = RedlineDocument.open(docx(body), name="t.docx")
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "Contents"},
                            "new_text": "Index", "comment": "c"}], author=ME, date=WHEN)
    assert res[0]["status"] == "ok"
    out = reopen(doc)
    no_errors(out)
    out.accept()
    assert out.text().startswith("Index: 1. Definitions 1")


def test_reserving_a_row_holding_a_nested_table_removes_both_on_accept():
    inner = table(("x", "y"))
    outer_row = ("<w:tr><w:tc><w:tcPr><w:tcW w:w=\"4000\" w:type=\"dxa\"/></w:tcPr>" + p("Outer") + inner + p("")
                 + "</w:tc></w:tr>")
    body = (p("Before.") + "<w:tbl><w:tblPr><w:tblW w:w=\"0\" w:type=\"auto\"/></w:tblPr><w:tblGrid>"
            "<w:gridCol w:w=\"4000\"/></w:tblGrid>" + outer_row + "</w:tbl>" + p("After."))
    doc = RedlineDocument.open(docx(body), name="t.docx")
    ids = [para.id for para in doc.paragraphs]
    assert len(ids) == 6  # Before, Outer, x, y, (empty), After
    doc.mark_reserved(start_id=ids[1], end_id=ids[4], comment="Drop.", author=ME, date=WHEN)
    data = doc.to_bytes()
    out = RedlineDocument.open(data)
    no_errors(out)
    out.accept()
    assert out.text() == "Before.\nAfter."
    rej = RedlineDocument.open(data)
    rej.reject()
    assert rej.text() == "Before.\nOuter\nx\ny\n\nAfter."


def test_a_failure_midway_restores_the_rows_and_their_paragraph_ids(monkeypatch):
    import redlinebench.docx.comments as comments

    from lxml import etree

    doc = RedlineDocument.open(docx(BODY_TABLE), name="t.docx")
    before = etree.tostring(doc.body)

    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(comments, "anchor_new_comment", boom)
    with pytest.raises(ToolFailure) as err:
        doc.mark_reserved(start_id="p-002", end_id="p-007", comment="c", author=ME, date=WHEN)
    assert err.value.code == "runtime_error"
    assert etree.tostring(doc.body) == before   # (the part is re-serialised: compare the XML itself)
    cell_p = doc.element_for("p-004")
    assert cell_p is not None and cell_p.getroottree().getroot() is doc.body.getroottree().getroot()
    monkeypatch.undo()
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": "p-004", "text": "Price"},
                            "new_text": "Cost", "comment": "c"}], author=ME, date=WHEN)
    assert res[0]["status"] == "ok"
    assert "Cost" in RedlineDocument.open(doc.to_bytes()).text("accepted")


def test_paragraphs_of_a_multi_paragraph_field_are_flagged_in_the_view():
    doc = RedlineDocument.open(docx(TOC_BODY + p(_fld("begin"), '<w:r><w:instrText> PAGE </w:instrText></w:r>',
                                                 _fld("separate"), r_("7"), _fld("end"))), name="t.docx")
    assert ["spanning_field" in para.flags for para in doc.paragraphs] == [True, True, True, False, False]
    lines = [line for line in doc.read_view().splitlines() if line.startswith("[p-")]
    assert ["not editable" in line for line in lines] == [True, True, True, False, False]
