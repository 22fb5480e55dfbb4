"""Accept / reject: all, by author, by revision id; paragraph marks join correctly."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.errors import ToolFailure
from tests.docx.test_read import NUMBERING, num
from tests.docx.util import dele, docx, ins, p, r_, read_part

WHEN = datetime(2025, 6, 1, 9, 30, tzinfo=timezone.utc)
ME = "Reviewing Counsel (AgentCo Legal)"
MARK_DEL = '<w:rPr><w:del w:id="{}" w:author="{}" w:date="2025-01-01T00:00:00Z"/></w:rPr>'
MARK_INS = '<w:rPr><w:ins w:id="{}" w:author="{}" w:date="2025-01-01T00:00:00Z"/></w:rPr>'

MIXED = (p(r_("Keep "), ins(r_("their "), author="B", rid=1), dele("gone ", author="B", rid=2), r_("end."))
         + p(r_("Whole para "), dele("deleted.", author="B", rid=3), ppr=MARK_DEL.format(4, "B"))
         + p(r_("Joined into me."))
         + p(ins(r_("Inserted para."), author="A", rid=5), ppr=MARK_INS.format(6, "A"))
         + p(r_("x "), ins(dele("struck", author="A", rid=8), author="B", rid=7), r_(" y"))
         + p('<w:r><w:rPr><w:b/><w:rPrChange w:id="9" w:author="A" w:date="2025-01-01T00:00:00Z"><w:rPr><w:i/></w:rPr>'
             '</w:rPrChange></w:rPr><w:t>fmt</w:t></w:r>')
         + p("Last."))


@pytest.mark.parametrize(
    "action, kwargs, count, text",
    [
        ("accept", {}, 9, "Keep their end.\nWhole para Joined into me.\nInserted para.\nx  y\nfmt\nLast."),
        ("reject", {}, 9, "Keep gone end.\nWhole para deleted.\nJoined into me.\nx  y\nfmt\nLast."),
        ("accept", {"author": "B"}, 5, "Keep their end.\nWhole para Joined into me.\nInserted para.\nx  y\nfmt\nLast."),
        ("reject", {"author": "B"}, 5, "Keep gone end.\nWhole para deleted.\nJoined into me.\nInserted para.\nx  y\nfmt\nLast."),
        ("reject", {"author": "A"}, 4, "Keep their end.\nWhole para \nJoined into me.\nx struck y\nfmt\nLast."),
        ("accept", {"revision_id": "rev-1"}, 1, "Keep their end.\nWhole para \nJoined into me.\nInserted para.\nx  y\nfmt\nLast."),
    ],
)
def test_resolve(action, kwargs, count, text):
    doc = RedlineDocument.open(docx(MIXED))
    assert getattr(doc, action)(**kwargs) == count
    out = RedlineDocument.open(doc.to_bytes())
    assert out.text() == text


def test_accept_all_leaves_no_markup_and_no_empty_paragraphs():
    doc = RedlineDocument.open(docx(MIXED))
    doc.accept()
    xml = read_part(doc.to_bytes(), "word/document.xml")
    for tag in ("<w:ins ", "<w:del ", "<w:delText", "w:rPrChange", "<w:pPr/>"):
        assert tag not in xml
    assert "<w:b/>" in xml
    assert doc.revisions == []
    assert all(x.text for x in doc.paragraphs)


def test_reject_format_change_restores_old_properties():
    doc = RedlineDocument.open(docx(MIXED))
    doc.reject(revision_id="rev-9")
    xml = read_part(doc.to_bytes(), "word/document.xml")
    assert "<w:rPr><w:i/></w:rPr><w:t>fmt</w:t>" in xml


def test_unknown_revision_id():
    doc = RedlineDocument.open(docx(MIXED))
    with pytest.raises(ToolFailure) as err:
        doc.accept(revision_id="rev-999")
    assert err.value.code == "revision_not_found"


def test_moves():
    body = (p('<w:moveFromRangeStart w:id="1" w:name="m" w:author="B" w:date="2025-01-01T00:00:00Z"/>'
              '<w:moveFrom w:id="2" w:author="B" w:date="2025-01-01T00:00:00Z"><w:r><w:t>moved </w:t></w:r></w:moveFrom>'
              '<w:moveFromRangeEnd w:id="1"/>', "stays")
            + p("there: ", '<w:moveToRangeStart w:id="3" w:name="m" w:author="B" w:date="2025-01-01T00:00:00Z"/>'
                '<w:moveTo w:id="4" w:author="B" w:date="2025-01-01T00:00:00Z"><w:r><w:t>moved </w:t></w:r></w:moveTo>'
                '<w:moveToRangeEnd w:id="3"/>'))
    accepted = RedlineDocument.open(docx(body))
    accepted.accept()
    assert accepted.text() == "stays\nthere: moved "
    assert "moveFromRangeStart" not in read_part(accepted.to_bytes(), "word/document.xml")
    rejected = RedlineDocument.open(docx(body))
    rejected.reject()
    assert rejected.text() == "moved stays\nthere: "


def test_comments_survive_resolution():
    comments = '<w:comment w:id="50" w:author="B"><w:p><w:r><w:t>c</w:t></w:r></w:p></w:comment>'
    body = p(r_("a "), dele('x', author="B", rid=3).replace("<w:r>", '<w:commentRangeStart w:id="50"/><w:r>'),
             '<w:commentRangeEnd w:id="50"/><w:r><w:commentReference w:id="50"/></w:r>', r_(" b"))
    doc = RedlineDocument.open(docx(body, comments=comments))
    doc.accept()
    out = RedlineDocument.open(doc.to_bytes())
    assert out.comments[0].paragraph_ids == ["p-001"]
    assert out.text() == "a  b"


def test_own_edits_round_trip_through_review():
    doc = RedlineDocument.open(docx(p("Alpha beta gamma.") + p("Second.") + p("Third.")))
    doc.apply_edits([
        {"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "beta"}, "new_text": "delta", "comment": "c"},
        {"op": "delete", "anchor": {"paragraph_id": "p-002", "text": "Second."}, "comment": "c"},
        {"op": "insert_after", "anchor": {"paragraph_id": "p-003"}, "new_text": "Fourth.", "comment": "c"},
    ], author=ME, date=WHEN)
    data = doc.to_bytes()
    acc = RedlineDocument.open(data)
    acc.accept(author=ME)
    assert acc.text() == "Alpha delta gamma.\nThird.\nFourth."
    rej = RedlineDocument.open(data)
    rej.reject(author=ME)
    assert rej.text() == "Alpha beta gamma.\nSecond.\nThird."
    assert len(rej.comments) == 3 and all(c.paragraph_ids for c in rej.comments)


def test_mark_reserved_keeps_numbering():
    body = (p("Fees", ppr=num(1, 0)) + p("Pay", ppr=num(1, 1)) + p("Late", ppr=num(1, 1)) + p("sub", ppr=num(1, 2))
            + p("Next", ppr=num(1, 1)) + p("12. Typed clause text.") + p("end"))
    doc = RedlineDocument.open(docx(body, numbering=NUMBERING))
    res = doc.mark_reserved(start_id="p-003", end_id="p-004", comment="Not needed.", author=ME, date=WHEN)
    assert res["status"] == "ok" and res["reserved_paragraph_ids"] == ["p-003"]
    res2 = doc.mark_reserved(start_id="p-006", end_id="p-006", comment="Drop.", author=ME, date=WHEN)
    assert res2["comment_id"] != res["comment_id"]
    out = RedlineDocument.open(doc.to_bytes())
    assert out.text("original") == "Fees\nPay\nLate\nsub\nNext\n12. Typed clause text.\nend"
    out.accept()
    assert [(x.number, x.text) for x in out.paragraphs] == [
        ("1", "Fees"), ("1.1", "Pay"), ("1.2", "Reserved."), ("1.3", "Next"), (None, "12. Reserved."), (None, "end")]
    assert {c.id for c in out.comments} == {res["comment_id"], res2["comment_id"]}


@pytest.mark.parametrize(
    "kwargs, code",
    [
        ({"start_id": "p-009", "end_id": "p-001", "comment": "c"}, "paragraph_not_found"),
        ({"start_id": "p-002", "end_id": "p-001", "comment": "c"}, "invalid_range"),
        ({"start_id": "p-001", "end_id": "p-001", "comment": " "}, "comment_required"),
    ],
)
def test_mark_reserved_errors(kwargs, code):
    doc = RedlineDocument.open(docx(p("a") + p("b")))
    before = doc.to_bytes()
    with pytest.raises(ToolFailure) as err:
        doc.mark_reserved(author=ME, date=WHEN, **kwargs)
    assert err.value.code == code
    assert doc.to_bytes() == before


def test_table_row_revisions():
    row_ins = ('<w:tr><w:trPr><w:ins w:id="20" w:author="B" w:date="2025-01-01T00:00:00Z"/></w:trPr><w:tc>'
               + p(ins(r_("New item"), author="B", rid=21)) + "</w:tc><w:tc>" + p(ins(r_("$5"), author="B", rid=22))
               + "</w:tc></w:tr>")
    row_del = ('<w:tr><w:trPr><w:del w:id="23" w:author="B" w:date="2025-01-01T00:00:00Z"/></w:trPr><w:tc>'
               + p(dele("Old item", author="B", rid=24)) + "</w:tc><w:tc>" + p(dele("$9", author="B", rid=25))
               + "</w:tc></w:tr>")
    keep = "<w:tr><w:tc>" + p("Item") + "</w:tc><w:tc>" + p("Fee") + "</w:tc></w:tr>"
    data = docx("<w:tbl>" + keep + row_ins + row_del + "</w:tbl>" + p("After."))
    doc = RedlineDocument.open(data)
    assert doc.text("accepted") == "Item\nFee\nNew item\n$5\nAfter."
    assert doc.text("original") == "Item\nFee\nOld item\n$9\nAfter."
    rows = [(r.id, r.type, r.text) for r in doc.revisions if r.id in ("rev-20", "rev-23")]
    assert rows == [("rev-20", "ins", "New item | $5"), ("rev-23", "del", "Old item | $9")]
    assert "row_inserted" in doc.paragraphs[2].flags and "table row deleted" in doc.read_view()
    acc = RedlineDocument.open(data)
    acc.accept()
    assert acc.text() == "Item\nFee\nNew item\n$5\nAfter."
    rej = RedlineDocument.open(data)
    rej.reject()
    assert rej.text() == "Item\nFee\nOld item\n$9\nAfter."
    assert [f for f in rej.validate() if f.severity == "error"] == []


def test_emptied_paragraph_before_a_table_stays_like_libreoffice():
    table = "<w:tbl><w:tr><w:tc>" + p("cell") + "</w:tc></w:tr></w:tbl>"
    doc = RedlineDocument.open(docx(p("Keep.") + p("Drop me.") + table + p("After.")))
    doc.apply_edits([{"op": "delete", "anchor": {"paragraph_id": "p-002", "text": "Drop me."}, "comment": "c"}],
                    author=ME, date=WHEN)
    assert doc.text("accepted") == "Keep.\n\ncell\nAfter."
    doc.accept()
    assert doc.text() == "Keep.\n\ncell\nAfter."
    assert [f for f in doc.validate() if f.severity == "error"] == []
