"""DocumentBuilder writes valid, deterministic packages with the markup it promises."""

from __future__ import annotations

import io
import zipfile
from datetime import datetime, timezone

import pytest
from lxml import etree

from redlinebench.docx.build import (
    Bookmark,
    Cell,
    Comment,
    CrossRef,
    Del,
    DocumentBuilder,
    Field,
    FormatChange,
    Fmt,
    Footnote,
    Hyperlink,
    Ins,
    MoveFrom,
    MoveTo,
    Para,
    ParaMark,
    Reply,
    Run,
    Tab,
)

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
W15 = "{http://schemas.microsoft.com/office/word/2012/wordml}"


def _part(data: bytes, name: str) -> etree._Element:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return etree.fromstring(zf.read(name))


def _rich() -> DocumentBuilder:
    b = DocumentBuilder(title="MSA", creator="LargeCo Legal", numbered_headings=True)
    b.title("MASTER SERVICES AGREEMENT")
    b.heading("Definitions", 1)
    b.clause(["The ", Run("Services", bold=True), " are in ", Bookmark("_Ref100", "Exhibit A"), "."])
    b.clause("Fees are payable within thirty (30) days.", level=1)
    b.clause(["Either party may terminate", Tab(), "per ", CrossRef("_Ref100", "Exhibit A"), "."], level=2)
    b.clause("first sub", level=3)
    b.new_list(start=1)
    b.clause("restarted")
    b.paragraph(["See ", Hyperlink("our site", "https://example.com/x"), ".", Footnote("A note.")])
    b.paragraph(["Old ", Del("deleted text", "Other"), Ins(["inserted ", Run("bold", bold=True)], "Other")])
    b.paragraph([MoveFrom("moved words", "m1", "Other")])
    b.paragraph([MoveTo("moved words", "m1", "Other")])
    b.paragraph([FormatChange(Run("now bold", bold=True), "Other", was=Fmt(italic=True))])
    b.paragraph([Comment("commented", "Why?", "Other", replies=[Reply("Because.", "Me", done=True)], done=True)])
    b.paragraph(Ins("new para", "Other"), mark=ParaMark("ins", "Other"))
    b.table([["Item", "Fee"], ["Hosting", Cell([Para("$100"), Para(Ins("plus tax", "Other"))])]])
    b.header("Header text")
    b.footer(["Page ", Field("PAGE", "1")])
    return b


def test_output_is_deterministic_and_builder_reusable():
    b = _rich()
    first = b.to_bytes()
    assert first == b.to_bytes() == _rich().to_bytes()
    with zipfile.ZipFile(io.BytesIO(first)) as zf:
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert zf.namelist()[:3] == ["[Content_Types].xml", "_rels/.rels", "word/document.xml"]
        assert "word/stylesWithEffects.xml" not in zf.namelist()


def test_openxml_audit_accepts_rich_document(tmp_path):
    from openxml_audit import OpenXmlValidator

    path = _rich().save(tmp_path / "rich.docx")
    result = OpenXmlValidator().validate(path)
    assert result.is_valid, [str(e) for e in result.errors]


def test_one_id_counter_for_revisions_comments_bookmarks():
    data = _rich().to_bytes()
    ids: list[str] = []
    for name in ("word/document.xml", "word/comments.xml"):
        root = _part(data, name)
        for tag in ("ins", "del", "moveFrom", "moveTo", "moveFromRangeStart", "moveToRangeStart", "rPrChange",
                    "bookmarkStart", "comment"):
            ids += [e.get(f"{W}id") for e in root.iter(f"{W}{tag}")]
    assert len(ids) == len(set(ids)) and len(ids) >= 12


def test_deleted_text_is_deltext_and_moves_keep_t():
    doc = _part(_rich().to_bytes(), "word/document.xml")
    dels = list(doc.iter(f"{W}del"))
    assert [d.get(f"{W}author") for d in dels] == ["Other"]
    assert [t.text for t in dels[0].iter(f"{W}delText")] == ["deleted text"]
    assert not list(dels[0].iter(f"{W}t"))
    # the two inserted runs share one w:ins (consecutive runs of one Ins)
    ins = [i for i in doc.iter(f"{W}ins") if i.getparent().tag == f"{W}p"]
    assert len(list(ins[0].iter(f"{W}r"))) == 2
    move_from = next(doc.iter(f"{W}moveFrom"))
    assert [t.text for t in move_from.iter(f"{W}t")] == ["moved words"]
    start = next(doc.iter(f"{W}moveFromRangeStart"))
    assert start.get(f"{W}name") == "m1" == next(doc.iter(f"{W}moveToRangeStart")).get(f"{W}name")


def test_numbering_levels_and_restart():
    data = _rich().to_bytes()
    numbering = _part(data, "word/numbering.xml")
    clauses = numbering.findall(f"{W}abstractNum")[1]
    texts = [lvl.find(f"{W}lvlText").get(f"{W}val") for lvl in clauses.findall(f"{W}lvl")]
    fmts = [lvl.find(f"{W}numFmt").get(f"{W}val") for lvl in clauses.findall(f"{W}lvl")]
    assert texts[:5] == ["%1.", "%1.%2", "%1.%2.%3", "(%4)", "(%5)"]
    assert fmts[:5] == ["decimal", "decimal", "decimal", "lowerLetter", "lowerRoman"]
    nums = numbering.findall(f"{W}num")
    assert [n.get(f"{W}numId") for n in nums] == ["1", "2", "3"]
    assert nums[2].find(f"{W}lvlOverride/{W}startOverride").get(f"{W}val") == "1"
    styles = _part(data, "word/styles.xml")
    h1 = [s for s in styles.iter(f"{W}style") if s.get(f"{W}styleId") == "Heading1"][0]
    assert h1.find(f"{W}pPr/{W}numPr/{W}numId").get(f"{W}val") == "1"


def test_comment_thread_parts_are_consistent():
    data = _rich().to_bytes()
    comments = _part(data, "word/comments.xml").findall(f"{W}comment")
    assert [c.get(f"{W}author") for c in comments] == ["Other", "Me"]
    ex = _part(data, "word/commentsExtended.xml").findall(f"{W15}commentEx")
    root_pid = ex[0].get(f"{W15}paraId")
    assert ex[1].get(f"{W15}paraIdParent") == root_pid
    assert [e.get(f"{W15}done") for e in ex] == ["1", "1"]
    body = _part(data, "word/document.xml")
    p = next(e for e in body.iter(f"{W}commentRangeStart")).getparent()
    seq = [(etree.QName(e).localname, e.get(f"{W}id")) for e in p.iter(f"{W}commentRangeStart", f"{W}commentRangeEnd",
                                                                        f"{W}commentReference")]
    root_id, reply_id = comments[0].get(f"{W}id"), comments[1].get(f"{W}id")
    assert seq == [("commentRangeStart", root_id), ("commentRangeStart", reply_id), ("commentRangeEnd", root_id),
                   ("commentReference", root_id), ("commentRangeEnd", reply_id), ("commentReference", reply_id)]


def test_hyperlink_is_external_relationship():
    data = _rich().to_bytes()
    rels = _part(data, "word/_rels/document.xml.rels")
    link = [r for r in rels if r.get("Type").endswith("/hyperlink")]
    assert [(r.get("Target"), r.get("TargetMode")) for r in link] == [("https://example.com/x", "External")]


def test_dates_are_fixed_utc_seconds():
    b = DocumentBuilder(date=datetime(2025, 3, 4, 5, 6, 7, 890, tzinfo=timezone.utc))
    b.paragraph(Ins("x", "A"))
    data = b.to_bytes()
    assert next(_part(data, "word/document.xml").iter(f"{W}ins")).get(f"{W}date") == "2025-03-04T05:06:07Z"
    assert b"2025-03-04T05:06:07Z" in zipfile.ZipFile(io.BytesIO(data)).read("docProps/core.xml")


@pytest.mark.parametrize("bad", ["nul\x00", "bell\x07", "\ud800"])
def test_text_xml_cannot_hold_is_refused(bad):
    b = DocumentBuilder()
    with pytest.raises(ValueError, match="XML cannot hold"):
        b.paragraph(bad)


def test_field_without_cached_result_is_refused():
    with pytest.raises(ValueError, match="cached result"):
        DocumentBuilder().paragraph(CrossRef("_Ref1", ""))


def test_tabs_and_preserved_spaces():
    b = DocumentBuilder()
    b.paragraph(["a\tb", Run("  two  spaces ", italic=True)])
    doc = _part(b.to_bytes(), "word/document.xml")
    runs = list(doc.iter(f"{W}r"))
    assert [etree.QName(c).localname for c in runs[0]] == ["t", "tab", "t"]
    t = runs[1].find(f"{W}t")
    assert t.text == "  two  spaces " and t.get("{http://www.w3.org/XML/1998/namespace}space") == "preserve"
    assert runs[1].find(f"{W}rPr/{W}i") is not None
