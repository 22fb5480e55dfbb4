"""Defects found in round 3 by acting as the checker on unseen Word- and LibreOffice-authored files."""

from __future__ import annotations

from datetime import datetime, timezone

from redlinebench.docx import RedlineDocument
from tests.docx.util import docx, ins, p, r_

WHEN = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
ME = "Reviewing Counsel (AgentCo Legal)"
O = 'w:author="Other" w:date="2025-01-01T00:00:00Z"'


# ---------------------------------------------------------------------------- 1. LibreOffice's id counters
# LibreOffice numbers w:rPrChange ids with their own counter, so a format change shares w:id="0" with
# the first w:ins/w:del. rev-N must still name exactly one tracked change.
LO_CLASH = (p(ins(r_("Inserted words. "), rid=0), r_("Original text."))
            + p(f'<w:r><w:rPr><w:b/><w:rPrChange w:id="0" {O}><w:rPr/></w:rPrChange></w:rPr><w:t>Bold</w:t></w:r>',
                r_(" tail.")))


def test_revision_ids_are_unique_when_the_input_reuses_an_id_across_kinds():
    doc = RedlineDocument.open(docx(LO_CLASH), name="lo.docx")
    ids = [r.id for r in doc.revisions]
    assert len(ids) == 2 and len(set(ids)) == 2, ids


def test_accepting_one_revision_of_a_clashing_pair_leaves_the_other():
    doc = RedlineDocument.open(docx(LO_CLASH), name="lo.docx")
    fmt = next(r for r in doc.revisions if r.type == "format")
    ins_rev = next(r for r in doc.revisions if r.type == "ins")
    assert doc.reject(revision_id=ins_rev.id) == 1
    assert doc.text() == "Original text.\nBold tail."
    assert [r.id for r in doc.revisions] == [fmt.id]
    out = RedlineDocument.open(doc.to_bytes())
    assert [(r.id, r.type) for r in out.revisions] == [(fmt.id, "format")]
    assert [f for f in out.validate() if f.code == "revision-id-duplicate"] == []


# ---------------------------------------------------------------------------- 2. rows and cells in content controls
# Word wraps table rows in w:sdt (repeating sections) and cells in w:sdt or w:customXml; their
# paragraphs were missing from the read view, and a cell in a w:sdt came after the plain cells.
def _tc(text: str) -> str:
    return f'<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>{p(text)}</w:tc>'


WRAPPED_TABLE = (
    p("Before.")
    + '<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/>'
      '<w:gridCol w:w="2000"/></w:tblGrid>'
    + '<w:sdt><w:sdtPr><w:id w:val="11"/></w:sdtPr><w:sdtContent><w:tr>' + _tc("Row in sdt") + _tc("second cell")
    + '</w:tr></w:sdtContent></w:sdt>'
    + '<w:tr><w:sdt><w:sdtPr><w:id w:val="12"/></w:sdtPr><w:sdtContent>' + _tc("Cell in sdt")
    + '</w:sdtContent></w:sdt>' + _tc("plain cell") + '</w:tr>'
    + '<w:customXml w:element="row"><w:tr><w:customXml w:element="cell">' + _tc("Row in customXml")
    + '</w:customXml>' + _tc("last cell") + '</w:tr></w:customXml>'
    + '</w:tbl>' + p("After."))
WRAPPED_TEXT = ["Before.", "Row in sdt", "second cell", "Cell in sdt", "plain cell", "Row in customXml",
                "last cell", "After."]


def test_rows_and_cells_inside_content_controls_are_read_in_order():
    doc = RedlineDocument.open(docx(WRAPPED_TABLE), name="word.docx")
    assert [text for _, text in doc.paragraph_texts()] == WRAPPED_TEXT
    assert doc.text("accepted").split("\n") == WRAPPED_TEXT


def test_a_cell_inside_a_wrapped_row_is_editable():
    doc = RedlineDocument.open(docx(WRAPPED_TABLE), name="word.docx")
    ids = {text: pid for pid, text in doc.paragraph_texts()}
    res = doc.apply_edits([
        {"op": "replace", "anchor": {"paragraph_id": ids["second cell"], "text": "second"}, "new_text": "2nd",
         "comment": "Shorter."},
        {"op": "delete", "anchor": {"paragraph_id": ids["Row in customXml"], "text": " in customXml"},
         "comment": "Drop."}], author=ME, date=WHEN)
    assert [r["status"] for r in res] == ["ok", "ok"]
    out = RedlineDocument.open(doc.to_bytes())
    assert [f for f in out.validate() if f.severity == "error"] == []
    expected = list(WRAPPED_TEXT)
    expected[2], expected[5] = "2nd cell", "Row"
    assert out.text("accepted").split("\n") == expected
    assert out.text("original").split("\n") == WRAPPED_TEXT


def _deleted_wrapped_row(text: str, rid: int) -> str:
    return (f'<w:sdt><w:sdtPr><w:id w:val="{rid}"/></w:sdtPr><w:sdtContent><w:tr><w:trPr><w:del w:id="{rid}" {O}/>'
            f'</w:trPr><w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p><w:pPr><w:rPr>'
            f'<w:del w:id="{rid + 1}" {O}/></w:rPr></w:pPr><w:del w:id="{rid + 2}" {O}><w:r><w:delText>{text}'
            f'</w:delText></w:r></w:del></w:p></w:tc></w:tr></w:sdtContent></w:sdt>')


def test_accepting_a_deleted_row_inside_a_content_control_leaves_no_empty_control_or_rowless_table():
    grid = ('<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/>'
            '</w:tblGrid>')
    only = grid + _deleted_wrapped_row("Gone row", 10) + '</w:tbl>'
    some = grid + f'<w:tr>{_tc("Kept row")}</w:tr>' + _deleted_wrapped_row("Gone row", 20) + '</w:tbl>'
    for table, left in ((only, ["A.", "B."]), (some, ["A.", "Kept row", "B."])):
        doc = RedlineDocument.open(docx(p("A.") + table + p("B.")), name="rows.docx")
        doc.accept(author="Other")
        out = RedlineDocument.open(doc.to_bytes())
        assert out.text().split("\n") == left
        body = out.body
        W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
        assert body.find(f".//{W}sdt") is None, "an emptied row content control was left behind"
        for tbl in body.iter(f"{W}tbl"):
            assert tbl.find(f".//{W}tr") is not None, "a table without rows"


# ---------------------------------------------------------------------------- 3. part of a field deleted
# A field is atomic, so an anchor on part of its result widens to the whole field. replace carried
# the untouched part of the result into the new text; delete struck the whole field, so deleting
# "2026" from a DATE field "1 January 2026" also removed "1 January".
FIELD_PARA = p(r_("Dated "), '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve">'
               ' DATE \\@ "d MMMM yyyy" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
               '<w:r><w:t>1 January 2026</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>', r_(" at London."))


def test_deleting_part_of_a_field_result_changes_exactly_that_text():
    for op, anchor, new, accepted in (
            ("delete", "2026", None, "Dated 1 January at London."),
            ("delete", "1 January", None, "Dated 2026 at London."),
            ("replace", "2026", "", "Dated 1 January at London."),
            ("delete", "Dated 1 January 2026", None, "at London.")):
        doc = RedlineDocument.open(docx(FIELD_PARA), name="field.docx")
        edit = {"op": op, "anchor": {"paragraph_id": "p-001", "text": anchor}, "comment": "No date."}
        if new is not None:
            edit["new_text"] = new
        res = doc.apply_edits([edit], author=ME, date=WHEN)
        assert res[0]["status"] == "ok", res
        out = RedlineDocument.open(doc.to_bytes())
        assert [f for f in out.validate() if f.severity == "error"] == []
        assert " ".join(out.text("accepted").split()) == accepted, (op, anchor)
        assert out.text("original") == "Dated 1 January 2026 at London."


# ---------------------------------------------------------------------------- 4. reserving a row another author deleted
# mark_reserved over a table row the other side had already deleted added a second w:del to its
# w:trPr (the schema allows one; openxml-audit: "Unexpected element 'del'").
def test_reserving_over_a_row_already_deleted_by_another_author_adds_no_second_row_deletion():
    grid = ('<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/>'
            '</w:tblGrid>')
    gone = (f'<w:tr><w:trPr><w:del w:id="30" {O}/></w:trPr><w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>'
            f'<w:p><w:del w:id="31" {O}><w:r><w:delText>Old row</w:delText></w:r></w:del></w:p></w:tc></w:tr>')
    body = p("1. Fees.") + grid + f'<w:tr>{_tc("Kept row")}</w:tr>' + gone + f'<w:tr>{_tc("Last row")}</w:tr></w:tbl>' \
        + p("2. Term.")
    doc = RedlineDocument.open(docx(body), name="rows.docx")
    ids = [para.id for para in doc.paragraphs]
    res = doc.mark_reserved(start_id=ids[1], end_id=ids[4], comment="Not needed.", author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = RedlineDocument.open(doc.to_bytes())
    W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    for trpr in out.body.iter(f"{W}trPr"):
        assert len(trpr.findall(f"{W}del")) <= 1
    assert [f for f in out.validate() if f.severity == "error"] == []
    assert out.text("original").split("\n") == ["1. Fees.", "Kept row", "Old row", "Last row", "2. Term."]
    out.accept()
    assert out.text().split("\n") == ["1. Fees.", "2. Reserved."]


# ---------------------------------------------------------------------------- 5. reserving over a paragraph another author deleted
# A paragraph whose mark the other side deleted is not a clause of the current text, but
# mark_reserved wrote "Reserved." into it; on accept it joined the next clause ("Reserved.Reserved.").
NUMBERING = ('<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/>'
             '<w:lvlText w:val="%1."/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>')
NUM = '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>'
GONE = p(f'<w:del w:id="12" {O}><w:r><w:delText>Deleted clause.</w:delText></w:r></w:del>',
         ppr=NUM + f'<w:rPr><w:del w:id="13" {O}/></w:rPr>')
CLAUSES = p("Fees.", ppr=NUM) + GONE + p("Audit.", ppr=NUM) + p("Term.", ppr=NUM)


def test_reserving_over_a_paragraph_the_other_side_deleted_keeps_one_reserved_per_clause():
    import pytest as _pytest

    from redlinebench.errors import ToolFailure

    doc = RedlineDocument.open(docx(CLAUSES, numbering=NUMBERING), name="clauses.docx")
    ids = [para.id for para in doc.paragraphs]
    assert [para.number for para in doc.paragraphs] == ["1", None, "2", "3"]
    doc.mark_reserved(start_id=ids[0], end_id=ids[2], comment="Not needed.", author=ME, date=WHEN)
    out = RedlineDocument.open(doc.to_bytes())
    assert [f for f in out.validate() if f.severity == "error"] == []
    assert out.text("original").split("\n") == ["Fees.", "Deleted clause.", "Audit.", "Term."]
    out.accept()
    assert out.text().split("\n") == ["Reserved.", "Reserved.", "Term."]
    alone = RedlineDocument.open(docx(CLAUSES, numbering=NUMBERING), name="clauses.docx")
    with _pytest.raises(ToolFailure):
        alone.mark_reserved(start_id=ids[1], end_id=ids[1], comment="Not needed.", author=ME, date=WHEN)
    assert alone.text("original").split("\n") == ["Fees.", "Deleted clause.", "Audit.", "Term."]


# ---------------------------------------------------------------------------- 6. LibreOffice's property changes
# LibreOffice 7.4 writes a paragraph format change as an empty w:pPrChange *before* w:pPr/w:rPr
# (schema: last, holding the old w:pPr) and a run format change as an empty w:rPrChange (schema:
# holds the old w:rPr). doc validate rejected every output of such a file (ppr-order) and
# openxml-audit flagged both; the engine now writes them in schema form.
LO_PPR = (p(r_("Centered by Other.")).replace(
    "<w:p>", f'<w:p><w:pPr><w:jc w:val="center"/><w:pPrChange w:id="5" {O}></w:pPrChange><w:rPr></w:rPr></w:pPr>', 1)
    + p(f'<w:r><w:rPr><w:u w:val="single"/><w:rPrChange w:id="6" {O}/></w:rPr><w:t>Underlined</w:t></w:r>',
        r_(" by Other.")))


def test_libreoffice_property_changes_are_saved_in_schema_form():
    from tests.docx.util import read_part

    doc = RedlineDocument.open(docx(LO_PPR), name="lo.docx")
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": "p-002", "text": "Other"},
                            "new_text": "the other side", "comment": "Clearer."}], author=ME, date=WHEN)
    assert res[0]["status"] == "ok"
    data = doc.to_bytes()
    out = RedlineDocument.open(data)
    assert [str(f) for f in out.validate() if f.severity == "error"] == []
    xml = read_part(data, "word/document.xml")
    assert "<w:rPr/></w:pPr>" not in xml and f'<w:pPrChange w:id="5" {O}><w:pPr/></w:pPrChange></w:pPr>' in xml
    assert f'<w:rPrChange w:id="6" {O}><w:rPr/></w:rPrChange>' in xml
    out.reject()
    assert out.text() == "Centered by Other.\nUnderlined by Other."
    assert "w:jc" not in read_part(out.to_bytes(), "word/document.xml")


# ---------------------------------------------------------------------------- 7. rejecting their row removes our comment's anchor
# Our edit (with its comment) inside a table row the other side inserted: rejecting their row
# removed the row with our comment reference in it; the comment was left unanchored, which Word
# drops and doc validate rejects.
def test_rejecting_their_inserted_row_keeps_our_comments_anchored():
    grid = ('<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/>'
            '</w:tblGrid>')
    new_row = (f'<w:tr><w:trPr><w:ins w:id="20" {O}/></w:trPr><w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/>'
               f'</w:tcPr>{p(ins(r_("New row text"), rid=21))}</w:tc></w:tr>')
    for rows in (f'<w:tr>{_tc("Kept row")}</w:tr>' + new_row, new_row):
        doc = RedlineDocument.open(docx(p("Before.") + grid + rows + '</w:tbl>' + p("After.")), name="rows.docx")
        pid = next(pid for pid, text in doc.paragraph_texts() if text == "New row text")
        res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": pid, "text": "New"}, "new_text": "Added",
                                "comment": "Our wording."}], author=ME, date=WHEN)
        assert res[0]["status"] == "ok"
        out = RedlineDocument.open(doc.to_bytes())
        out.reject(author="Other")
        assert "New row text" not in out.text("accepted") and "Added" not in out.text("accepted")
        again = RedlineDocument.open(out.to_bytes())
        assert [str(f) for f in again.validate() if f.severity == "error"] == []
        assert len(again.comments) == 1


# ---------------------------------------------------------------------------- 8. revisions inside w:fldSimple
# A tracked change inside a simple field (w:fldSimple/w:del, where Word and we put it) was not
# seen: deleting "7" from "Page 7" reported ok, but the accepted text still read "Page 7", another
# author's insertion inside a w:fldSimple showed as plain text. And a w:del inside a w:fldSimple
# leaves the field itself, which Word recomputes: a simple field is deleted as Word deletes one,
# rewritten as the equivalent complex field inside w:del.
SIMPLE = p(r_("Page "), '<w:fldSimple w:instr=" PAGE "><w:r><w:t>7</w:t></w:r></w:fldSimple>', r_(" of the annex."))


def test_deleting_a_simple_field_is_seen_and_accepting_removes_the_field():
    doc = RedlineDocument.open(docx(SIMPLE), name="simple.docx")
    res = doc.apply_edits([{"op": "delete", "anchor": {"paragraph_id": "p-001", "text": "7"}, "comment": "No page."}],
                          author=ME, date=WHEN)
    assert res[0]["status"] == "ok"
    data = doc.to_bytes()
    from tests.docx.util import read_part

    xml = read_part(data, "word/document.xml")   # deleted as Word does: as a complex field
    assert "fldSimple" not in xml and '<w:delInstrText xml:space="preserve"> PAGE </w:delInstrText>' in xml
    out = RedlineDocument.open(data)
    assert " ".join(out.text("accepted").split()) == "Page of the annex."
    assert out.text("original") == "Page 7 of the annex."
    accepted = RedlineDocument.open(data)
    accepted.accept()
    assert "fldChar" not in read_part(accepted.to_bytes(), "word/document.xml")
    assert " ".join(accepted.text().split()) == "Page of the annex."
    rejected = RedlineDocument.open(data)
    rejected.reject()
    assert rejected.text() == "Page 7 of the annex."


def test_their_insertion_inside_a_simple_field_is_an_insertion():
    body = p(r_("Price: "), f'<w:fldSimple w:instr=" MERGEFIELD Price ">{ins(r_("100"), rid=60)}</w:fldSimple>',
             r_(" euros."))
    doc = RedlineDocument.open(docx(body), name="simple.docx")
    assert [r.id for r in doc.revisions] == ["rev-60"]
    assert doc.text("accepted") == "Price: 100 euros."
    assert doc.text("original") == "Price:  euros."


def test_deleting_a_simple_field_holding_their_insertion_keeps_their_insertion_rejectable():
    body = p(r_("Price: "), f'<w:fldSimple w:instr=" MERGEFIELD Price ">{ins(r_("100"), rid=60)}</w:fldSimple>',
             r_(" euros."))
    doc = RedlineDocument.open(docx(body), name="simple.docx")
    res = doc.apply_edits([{"op": "delete", "anchor": {"paragraph_id": "p-001", "text": "100"}, "comment": "No."}],
                          author=ME, date=WHEN)
    assert res[0]["status"] == "ok"
    out = RedlineDocument.open(doc.to_bytes())
    assert [f for f in out.validate() if f.severity == "error"] == []
    assert " ".join(out.text("accepted").split()) == "Price: euros."
    assert out.text("original") == "Price:  euros."
