"""Tracked edits: exact anchoring, minimal diffs, formatting kept, other side's markup respected."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from redlinebench.docx import RedlineDocument
from tests.docx.util import dele, docx, ins, p, r_, read_part

WHEN = datetime(2025, 6, 1, 9, 30, tzinfo=timezone.utc)
ME = "Reviewing Counsel (AgentCo Legal)"


def open_body(body, **kw):
    return RedlineDocument.open(docx(body, **kw), name="t.docx")


def edit(op, pid, text=None, new_text=None, comment="Because.", **anchor):
    e = {"op": op, "anchor": {"paragraph_id": pid, **({"text": text} if text is not None else {}), **anchor}}
    if new_text is not None:
        e["new_text"] = new_text
    if comment is not None:
        e["comment"] = comment
    return e


def reopen(doc):
    return RedlineDocument.open(doc.to_bytes(), name="out.docx")


def check(doc, original_text):
    """Output reopens; rejecting everything gives back the input text exactly."""
    out = reopen(doc)
    assert out.text("original") == original_text
    assert [f for f in out.validate() if f.severity == "error"] == []
    return out


@pytest.mark.parametrize(
    "body, e, accepted, annotated",
    [
        # the minimal word diff marks only the changed words
        (p("Fees are payable within thirty (30) days."),
         edit("replace", "p-001", "thirty (30) days", "sixty (60) days"),
         "Fees are payable within sixty (60) days.",
         "within {cmt-5>~~thirty~~[A1]++sixty++[A1] ~~(30)~~[A1]++(60)++[A1]{<cmt-5}"),
        # edits across runs with different formatting
        (p(r_("The "), r_("Vendor", "<w:b/>"), r_(" shall pay.")),
         edit("replace", "p-001", "Vendor shall", "Customer may"),
         "The Customer may pay.", "The {cmt-3>~~Vendor shall~~[A1]++Customer may++[A1]{<cmt-3} pay."),
        # tabs and repeated spaces: offsets land exactly
        (p("Term:", "<w:r><w:tab/><w:t xml:space=\"preserve\">two  (2) years</w:t></w:r>"),
         edit("replace", "p-001", "two (2) years", "three (3) years"),
         "Term:\tthree  (3) years", "Term:\t{cmt-5>~~two~~[A1]++three++[A1]  ~~(2)~~[A1]++(3)++[A1]{<cmt-5}"),
        # hyperlinks: text inside a link is editable
        (p("See ", '<w:hyperlink w:anchor="target"><w:r><w:t>our terms</w:t></w:r></w:hyperlink>', " here."),
         edit("replace", "p-001", "our terms here", "the policy here"),
         "See the policy here.", "See {cmt-5>~~our~~[A1]++the++[A1] ~~terms~~[A1]++policy++[A1]{<cmt-5}"),
        # leading spaces
        (p('<w:r><w:t xml:space="preserve">   Indented text.</w:t></w:r>'),
         edit("delete", "p-001", "Indented"),
         "   text.", None),
        (p("Pay within 30 days."), edit("insert_after", "p-001", "30", "calendar"),
         "Pay within 30 calendar days.", "Pay within 30{cmt-2>++ calendar++[A1]{<cmt-2} days."),
        (p("Pay within 30 days."), edit("delete", "p-001", "within 30 days", comment="x"),
         "Pay.", None),
    ],
)
def test_edits(body, e, accepted, annotated):
    doc = open_body(body)
    before = doc.text("current")
    (res,) = doc.apply_edits([e], author=ME, date=WHEN)
    assert res["status"] == "ok", res
    assert res["comment_id"].startswith("cmt-")
    assert doc.text("accepted") == accepted
    out = check(doc, before)
    assert out.text("accepted") == accepted
    if annotated:
        assert annotated in out.annotated_view(focus_author=ME)


def test_formatting_kept_on_split_deleted_and_inserted_runs():
    doc = open_body(p(r_("Payment is due in thirty days", '<w:b/><w:color w:val="FF0000"/>')))
    doc.apply_edits([edit("replace", "p-001", "thirty", "sixty")], author=ME, date=WHEN)
    xml = read_part(doc.to_bytes(), "word/document.xml")
    rpr = '<w:rPr><w:b/><w:color w:val="FF0000"/></w:rPr>'
    assert xml.count(rpr) == 4   # head, deleted, inserted, tail
    assert f'<w:r>{rpr}<w:delText>thirty</w:delText></w:r>' in xml
    assert f'<w:r>{rpr}<w:t>sixty</w:t></w:r>' in xml
    assert f'<w:r>{rpr}<w:t xml:space="preserve">Payment is due in </w:t></w:r>' in xml


def test_revision_attributes():
    doc = open_body(p("Alpha beta."))
    doc.apply_edits([edit("replace", "p-001", "beta", "gamma")], author=ME, date=WHEN)
    revs = [r for r in doc.revisions]
    assert [(r.type, r.author, r.date, r.text) for r in revs] == [
        ("del", ME, "2025-06-01T09:30:00Z", "beta"), ("ins", ME, "2025-06-01T09:30:00Z", "gamma")]


def test_strike_other_sides_insertion_nests_del_in_their_ins():
    doc = open_body(p(r_("Vendor shall "), ins(r_("promptly and fully "), author="LargeCo", rid=7), r_("notify.")))
    (res,) = doc.apply_edits([edit("delete", "p-001", "and")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    xml = read_part(doc.to_bytes(), "word/document.xml")
    from lxml import etree

    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    root = etree.fromstring(xml.encode())
    (theirs,) = root.iter(f"{w}ins")
    (ours,) = theirs.iter(f"{w}del")
    assert ours.get(f"{w}author") == ME and "".join(ours.itertext()) == "and "
    # our comment's reference run is not inside their insertion
    assert not list(theirs.iter(f"{w}commentReference"))
    out = check(doc, "Vendor shall notify.")
    assert out.text("accepted") == "Vendor shall promptly fully notify."
    seg = [s for s in out.paragraphs[0].segments if s.kind == "del"][0]
    assert (seg.text, seg.author, seg.inserted_by) == ("and ", ME, "LargeCo")
    # their insertion keeps its one id: rejecting it later removes all of it, our strike included
    assert [r.id for r in out.revisions if r.type == "ins"] == ["rev-7"]
    theirs_rejected = RedlineDocument.open(doc.to_bytes())
    assert theirs_rejected.reject(revision_id="rev-7") == 1
    assert theirs_rejected.text() == "Vendor shall notify."


def test_insert_inside_other_sides_insertion_splits_it():
    doc = open_body(p(r_("A "), ins(r_("quick fox"), author="LargeCo", rid=7), r_(" ran.")))
    (res,) = doc.apply_edits([edit("insert_after", "p-001", "quick", "brown")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    xml = read_part(doc.to_bytes(), "word/document.xml")
    assert "<w:ins" in xml and xml.count("<w:ins ") == 3
    # never ins inside ins
    from lxml import etree

    root = etree.fromstring(xml.encode())
    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    assert not root.findall(f".//{w}ins//{w}ins")
    out = check(doc, "A  ran.")
    assert out.text("accepted") == "A quick brown fox ran."


def test_replace_spanning_prior_revisions_keeps_order_and_comment_refs():
    comments = ('<w:comment w:id="3" w:author="LargeCo"><w:p w14:paraId="00000033"><w:r><w:t>note</w:t></w:r>'
                '</w:p></w:comment>')
    body = p(r_("one "), dele("old ", author="LargeCo", rid=5), r_("two "),
             '<w:commentRangeStart w:id="3"/>', r_("three"), '<w:commentRangeEnd w:id="3"/>',
             '<w:r><w:commentReference w:id="3"/></w:r>', r_(" four"))
    doc = open_body(body, comments=comments)
    (res,) = doc.apply_edits([edit("delete", "p-001", "one two three four")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = check(doc, "one old two three four")
    xml = read_part(out.to_bytes(), "word/document.xml")
    assert xml.index("old ") < xml.index("two ") < xml.index("three") < xml.index(" four")
    assert '<w:commentReference w:id="3"/>' in xml
    assert out.comments[0].id == "cmt-3"


def test_fields_are_atomic():
    field = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> REF _Ref1 \\h '
             '</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>3.2</w:t></w:r>'
             '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    doc = open_body(p("See Section ", field, " above."))
    (res,) = doc.apply_edits([edit("delete", "p-001", "3")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    xml = read_part(doc.to_bytes(), "word/document.xml")
    assert "<w:delInstrText" in xml and "<w:delText>3.2</w:delText>" in xml
    out = check(doc, "See Section 3.2 above.")
    # the field goes whole; the part of its result outside the anchor comes back as text (as replace does)
    assert out.text("accepted") == "See Section.2 above."


def test_table_cells_are_editable():
    table = "<w:tbl><w:tr><w:tc>" + p("Fee") + "</w:tc><w:tc>" + p("$100") + "</w:tc></w:tr></w:tbl>"
    doc = open_body(table)
    (res,) = doc.apply_edits([edit("replace", "p-002", "$100", "$150")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = check(doc, "Fee\n$100")
    assert out.text("accepted") == "Fee\n$150"


@pytest.mark.parametrize(
    "e, status, code",
    [
        (edit("replace", "p-009", "x", "y"), "anchor_failed", "paragraph_not_found"),
        (edit("replace", "p-001", "absent", "y"), "anchor_failed", "text_not_found"),
        (edit("replace", "p-001", "the", "a"), "anchor_failed", "ambiguous"),
        ({"op": "rewrite", "anchor": {"paragraph_id": "p-001"}}, "runtime_error", "invalid_edit"),
        ({"op": "replace", "anchor": "p-001", "new_text": "x"}, "runtime_error", "invalid_edit"),
        ("not an object", "runtime_error", "invalid_edit"),
        (edit("replace", "p-001", "cat", "cat"), "runtime_error", "no_change"),
    ],
)
def test_failures_are_statuses(e, status, code):
    doc = open_body(p("the cat and the dog"))
    before = doc.to_bytes()
    (res,) = doc.apply_edits([e], author=ME, date=WHEN)
    assert res["status"] == status
    assert res["error"].startswith(code)
    assert doc.to_bytes() == before


def test_text_not_found_suggests_other_paragraphs():
    doc = open_body(p("alpha") + p("the warranty clause"))
    (res,) = doc.apply_edits([edit("delete", "p-001", "warranty")], author=ME, date=WHEN)
    assert res["candidates"][0]["paragraph_id"] == "p-002"


def test_batch_is_independent_and_in_order():
    doc = open_body(p("one two three"))
    results = doc.apply_edits([edit("replace", "p-001", "one", "uno"), edit("delete", "p-001", "missing"),
                               edit("replace", "p-001", "three", "tres")], author=ME, date=WHEN)
    assert [r["status"] for r in results] == ["ok", "anchor_failed", "ok"]
    assert doc.text("accepted") == "uno two tres"


def test_missing_comment_is_reported():
    doc = open_body(p("one two"))
    (res,) = doc.apply_edits([edit("delete", "p-001", "two", comment=None)], author=ME, date=WHEN)
    assert res["status"] == "ok" and "comment_id" not in res
    assert res["warning"].startswith("comment_missing")
    (res,) = doc.apply_edits([edit("delete", "p-001", "one", comment="  ")], author=ME, date=WHEN)
    assert res["warning"].startswith("comment_missing")


def test_model_text_is_sanitised():
    doc = open_body(p("Alpha."))
    (res,) = doc.apply_edits([edit("insert_after", "p-001", "Alpha", " beta\x07\tgamma\nline\x00")],
                             author=ME, date=WHEN)
    assert res["status"] == "ok"
    xml = read_part(doc.to_bytes(), "word/document.xml")
    assert '<w:t xml:space="preserve"> beta</w:t><w:tab/><w:t>gamma</w:t><w:br/><w:t>line</w:t>' in xml
    assert reopen(doc).text("accepted") == "Alpha beta\tgamma line."


def test_insert_after_new_paragraph_copies_ppr_and_marks_it():
    ppr = '<w:pStyle w:val="Body"/><w:jc w:val="both"/>'
    doc = open_body(p("First clause.", ppr=ppr) + p("Second clause."))
    (res,) = doc.apply_edits([edit("insert_after", "p-001", None, "A new clause.\nAnd another.")], author=ME,
                             date=WHEN)
    assert res["status"] == "ok" and res["new_paragraph_ids"] == ["p-003", "p-004"]
    assert [x.id for x in doc.paragraphs] == ["p-001", "p-003", "p-004", "p-002"]
    out = check(doc, "First clause.\nSecond clause.")
    assert out.text("accepted") == "First clause.\nA new clause.\nAnd another.\nSecond clause."
    xml = read_part(out.to_bytes(), "word/document.xml")
    assert xml.count('<w:pStyle w:val="Body"/><w:jc w:val="both"/><w:rPr><w:ins ') == 2


def _inserted_runs(doc) -> list[str]:
    """The run XML inside our insertions, in document order."""
    import re

    xml = read_part(doc.to_bytes(), "word/document.xml")
    return re.findall(r"<w:ins [^>]*>(<w:r>.*?</w:r>)</w:ins>", xml)


def test_a_new_clause_after_a_run_in_bold_heading_takes_the_body_text_look():
    doc = open_body(p(r_("12. Term. ", "<w:b/>"), r_("The initial term is two years from the Effective Date.")))
    (res,) = doc.apply_edits([edit("insert_after", "p-001", None, "Either party may renew it.")], author=ME,
                             date=WHEN)
    assert res["status"] == "ok"
    assert _inserted_runs(doc) == ["<w:r><w:t>Either party may renew it.</w:t></w:r>"]


@pytest.mark.parametrize("heading", [
    # a heading style (outline level from styles.xml), numbered at level 0
    p("Confidentiality", ppr='<w:pStyle w:val="Heading1"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>'),
    # a short all-bold numbered line, the way many contracts set their article titles
    p(r_("Confidentiality", "<w:b/>"), ppr='<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>'),
])
def test_text_added_after_a_heading_looks_like_the_clause_it_opens(heading):
    styles = ('<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
              '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/>'
              '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/></w:rPr></w:style>')
    numbering = ('<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/>'
                 '<w:lvlText w:val="%1."/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/>'
                 '<w:lvlText w:val="%1.%2"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>')
    body_ppr = '<w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr><w:jc w:val="both"/>'
    doc = open_body(heading + p("Each party keeps the other's information secret.", ppr=body_ppr),
                    styles=styles, numbering=numbering)
    (res,) = doc.apply_edits([edit("insert_after", "p-001", None, "1.1 Neither party may publish it.")],
                             author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = check(doc, "Confidentiality\nEach party keeps the other's information secret.")
    assert out.text("accepted").splitlines()[1] == "Neither party may publish it."  # the typed number is Word's
    assert _inserted_runs(out) == ["<w:r><w:t>Neither party may publish it.</w:t></w:r>"]
    new = out.paragraphs[1]
    assert new.number == "1.1" and out.paragraphs[2].number == "1.2"
    xml = read_part(out.to_bytes(), "word/document.xml")
    assert xml.count(body_ppr) == 2 and xml.count("Heading1") == heading.count("Heading1")


def test_a_style_based_on_a_heading_that_sets_body_text_level_is_not_a_heading():
    from redlinebench.docx.numbering import Numbering
    from redlinebench.docx.oxml import parse_xml

    styles = parse_xml(('<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                        '<w:style w:type="paragraph" w:styleId="Heading1"><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>'
                        '<w:style w:type="paragraph" w:styleId="Plain"><w:basedOn w:val="Heading1"/>'
                        '<w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>'
                        '<w:style w:type="paragraph" w:styleId="Sub"><w:basedOn w:val="Heading1"/></w:style>'
                        '</w:styles>').encode())
    numbering = Numbering(None, styles)

    def ppr(style):
        return parse_xml(('<w:pPr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                          f'<w:pStyle w:val="{style}"/></w:pPr>').encode())

    assert numbering.is_heading(ppr("Heading1")) and numbering.is_heading(ppr("Sub"))
    assert not numbering.is_heading(ppr("Plain"))


def test_after_a_heading_with_no_body_below_the_heading_look_is_kept():
    doc = open_body(p(r_("Confidentiality", "<w:b/>")) + p(r_("Publicity", "<w:b/>")))
    doc.apply_edits([edit("insert_after", "p-001", None, "Assignment")], author=ME, date=WHEN)
    assert _inserted_runs(doc) == ["<w:r><w:rPr><w:b/></w:rPr><w:t>Assignment</w:t></w:r>"]


def test_insert_after_last_paragraph_of_a_cell():
    table = "<w:tbl><w:tr><w:tc>" + p("Only line") + "</w:tc></w:tr></w:tbl>"
    doc = open_body(table + p("after"))
    (res,) = doc.apply_edits([edit("insert_after", "p-001", "Only line", "Second line")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = check(doc, "Only line\nafter")
    assert out.text("accepted") == "Only line\nSecond line\nafter"


def test_delete_whole_paragraph_deletes_its_mark():
    doc = open_body(p("Keep.") + p("Drop this clause.") + p("Also keep."))
    (res,) = doc.apply_edits([edit("delete", "p-002", "Drop this clause.")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = check(doc, "Keep.\nDrop this clause.\nAlso keep.")
    assert out.text("accepted") == "Keep.\nAlso keep."
    assert "para_deleted" in out.paragraphs[1].flags


def test_deleting_own_insertion_removes_it():
    doc = open_body(p("Alpha."))
    doc.apply_edits([edit("insert_after", "p-001", "Alpha", " beta")], author=ME, date=WHEN)
    doc.apply_edits([edit("delete", "p-001", "beta")], author=ME, date=WHEN)
    xml = read_part(doc.to_bytes(), "word/document.xml")
    assert "beta" not in xml and "<w:ins " not in xml and "<w:del " not in xml
    assert doc.text("accepted") == "Alpha."


def test_replace_inside_a_field_result_replaces_the_whole_field():
    field = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> REF _Ref1 \\h '
             '</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>Schedule 1</w:t></w:r>'
             '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    doc = open_body(p("Fees are set out in ", field, "."))
    (res,) = doc.apply_edits([edit("replace", "p-001", "Schedule 1.", "Schedule 2.")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = check(doc, "Fees are set out in Schedule 1.")
    assert out.text("accepted") == "Fees are set out in Schedule 2."
    assert "~~Schedule 1~~[A1]++Schedule 2++[A1]" in out.annotated_view(focus_author=ME)
    (res,) = doc.apply_edits([edit("replace", "p-001", "set out in", "in")], author=ME, date=WHEN)
    assert doc.text("accepted") == "Fees are in Schedule 2."


def test_splitting_a_format_changed_run_gives_the_copy_a_fresh_id():
    run = ('<w:r><w:rPr><w:b/><w:rPrChange w:id="9" w:author="B" w:date="2025-01-01T00:00:00Z"><w:rPr/></w:rPrChange>'
           '</w:rPr><w:t>bold words here</w:t></w:r>')
    doc = open_body(p(run))
    (res,) = doc.apply_edits([edit("replace", "p-001", "words", "terms")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    ids = [r.id for r in doc.revisions]
    assert len(ids) == len(set(ids))
    assert [r.type for r in doc.revisions].count("format") == 3
    check(doc, "bold words here")


@pytest.mark.parametrize(
    "anchor_text, new_text, expected",
    [
        ("Fees.", "Late fees apply.", ["Fees.", "Late fees apply.", "Next."]),       # whole paragraph: new one
        ("due.", "\nLate fees apply.", ["Fees due.", "Late fees apply.", "Next."]),  # at the end + newline
        ("due.", "\nA.\n\nB.", ["Fees due.", "A.", "B.", "Next."]),                # one paragraph a line
        ("Fees", "\nlate", ["Fees late due.", "Next."]),                            # mid-paragraph: inline
        ("Fees", " and costs", ["Fees and costs due.", "Next."]),
    ],
)
def test_insert_after_inline_or_new_paragraph(anchor_text, new_text, expected):
    body = p("Fees.") if anchor_text == "Fees." else p("Fees due.")
    doc = open_body(body + p("Next."))
    (res,) = doc.apply_edits([edit("insert_after", "p-001", anchor_text, new_text)], author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = check(doc, doc.text("original"))
    assert out.text("accepted").split("\n") == expected


@pytest.mark.parametrize("author", ["", "   ", "bad\x00name", "x" * 300, None])
def test_bad_author_is_refused(author):
    from redlinebench.errors import ToolFailure

    doc = open_body(p("Alpha."))
    with pytest.raises(ToolFailure) as err:
        doc.apply_edits([edit("delete", "p-001", "Alpha")], author=author, date=WHEN)
    assert err.value.code == "invalid_author"


def test_edits_may_be_any_iterable():
    doc = open_body(p("one two"))
    results = doc.apply_edits((e for e in [edit("delete", "p-001", "two")]), author=ME, date=WHEN)
    assert [r["status"] for r in results] == ["ok"]


def test_near_miss_anchor_suggests_the_closest_text():
    doc = open_body(p("The Vendor shall notify the Customer within ten days."))
    (res,) = doc.apply_edits([edit("delete", "p-001", "notify the customers within 10 days")], author=ME, date=WHEN)
    assert res["status"] == "anchor_failed" and res["error"].startswith("text_not_found")
    assert res["candidates"][0]["paragraph_id"] == "p-001"
    assert res["candidates"][0]["text"].startswith("notify the Customer within")



def _closest_by_brute_force(raw, text):
    """The reference: score every window of n-2..n+2 words in order, keep the first strictly better."""
    import difflib

    from redlinebench.docx.anchor import normalize

    words, target = normalize(raw).split(" "), normalize(text).strip()
    n = len(target.split(" "))
    best, best_text = 0.0, ""
    for size in range(max(1, n - 2), n + 3):
        for i in range(0, max(1, len(words) - size + 1)):
            window = " ".join(words[i:i + size]).strip()
            ratio = difflib.SequenceMatcher(None, target, window, autojunk=False).ratio()
            if ratio > best:
                best, best_text = ratio, window
    return [] if not target or best < 0.6 else [{"paragraph_id": "p", "text": best_text,
                                                 "similarity": round(best, 2)}]


def test_closest_text_is_the_brute_force_answer():
    import random

    from redlinebench.docx.edits import _closest

    rng = random.Random(5)
    vocab = ("the a party shall perform its obligations under clause within thirty (30) days of "
             "written request \u201cquoted\u201d \u2014 caf\u00e9 x").split()
    for _ in range(600):
        words = [rng.choice(vocab) for _ in range(rng.choice([0, 1, 2, 5, 12, 40]))]
        raw = rng.choice(["", " "]) + rng.choice([" ", "  "]).join(words) + rng.choice(["", " "])
        if words and rng.random() < 0.6:
            i = rng.randrange(len(words))
            text = "".join(c for c in " ".join(words[i:i + rng.randint(1, 8)]) if rng.random() > 0.1)
        else:
            text = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 8)))
        assert _closest(raw, text, "p") == _closest_by_brute_force(raw, text), (raw, text)


def test_taking_back_our_own_insertion_is_a_change_with_its_comment():
    doc = open_body(p("The Vendor shall provide the Services."))
    doc.apply_edits([edit("replace", "p-001", "provide", "provide and support")], author=ME, date=WHEN)
    (res,) = doc.apply_edits([edit("replace", "p-001", "provide and support", "provide", comment="Taken back.")],
                             author=ME, date=WHEN)
    assert res["status"] == "ok" and res["comment_id"].startswith("cmt-")
    out = check(doc, "The Vendor shall provide the Services.")
    assert out.text("accepted") == "The Vendor shall provide the Services."
    assert [c.text for c in out.comments][-1] == "Taken back."


def test_edit_inside_a_content_control():
    sdt = '<w:sdt><w:sdtPr/><w:sdtContent><w:r><w:t>AgentCo Inc.</w:t></w:r></w:sdtContent></w:sdt>'
    doc = open_body(p("Vendor: ", sdt, " (the Vendor)."))
    (res,) = doc.apply_edits([edit("replace", "p-001", "AgentCo Inc.", "AgentCo LLC")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = check(doc, "Vendor: AgentCo Inc. (the Vendor).")
    assert out.text("accepted") == "Vendor: AgentCo LLC (the Vendor)."


def test_third_author_strike_inside_an_insertion_with_a_strike_gets_its_own_wrapper(tmp_path):
    """B inserts, A strikes part of it, C strikes more of it: each w:ins holds at most one w:del."""
    from openxml_audit import OpenXmlValidator

    from redlinebench.docx import RedlineDocument
    from redlinebench.docx.build import DocumentBuilder

    b = DocumentBuilder()
    b.paragraph("Liability for breach of Section 9, its obligations.")
    doc = RedlineDocument.open(b.to_bytes())
    pid = doc.paragraphs[0].id
    steps = [
        ("B", "replace", "breach of Section 9", "breach of Section 6 or Section 9"),
        ("A", "replace", "breach of Section 6 or Section 9, its", "breach of Section 9 (except X), its"),
        ("C", "delete", "(except X)", None),
    ]
    for author, op, text, new_text in steps:
        edit = {"op": op, "anchor": {"paragraph_id": pid, "text": text}, "comment": "why"}
        if new_text is not None:
            edit["new_text"] = new_text
        assert doc.apply_edits([edit], author=author)[0]["status"] == "ok"
        doc = RedlineDocument.open(doc.to_bytes())
    assert doc.paragraphs[0].accepted_text == "Liability for breach of Section 9, its obligations."
    assert doc.paragraphs[0].original_text == "Liability for breach of Section 9, its obligations."
    assert not [f for f in doc.validate() if f.severity == "error"]
    path = tmp_path / "r.docx"
    path.write_bytes(doc.to_bytes())
    result = OpenXmlValidator().validate(path)
    assert result.is_valid, [str(e) for e in result.errors]


def test_paragraph_ids_without_index_match_the_index_and_number_new_paragraphs_in_order():
    doc = open_body(p("First clause.") + p("Second clause.") + p("Third clause."))
    assert doc.paragraph_ids() == ["p-001", "p-002", "p-003"]
    doc.apply_edits([edit("insert_after", "p-002", None, "New A.\nNew B.")], author=ME, date=WHEN)
    ids = doc.paragraph_ids()          # numbered here, before any index rebuild
    assert ids == ["p-001", "p-002", "p-004", "p-005", "p-003"]
    assert [x.id for x in doc.paragraphs] == ids   # the index keeps the same numbers



def test_paragraph_texts_without_index_match_the_index():
    doc = open_body(p("First clause.") + p("Second clause.") + p("Third clause."))
    doc.apply_edits([edit("replace", "p-001", "First", "Initial"), edit("insert_after", "p-002", None, "New A.")],
                    author=ME, date=WHEN)
    texts = doc.paragraph_texts()       # walked here, the index is stale
    assert texts == [("p-001", "Initial clause."), ("p-002", "Second clause."), ("p-004", "New A."),
                     ("p-003", "Third clause.")]
    assert texts == [(x.id, x.text) for x in doc.paragraphs] == doc.paragraph_texts()


def test_unchanged_paragraphs_reused_across_rebuilds_stay_editable_and_changed_ones_are_redescribed():
    doc = open_body(p("Pay within thirty days.") + p("Notice by email."))
    first = doc.paragraph("p-001")
    assert doc.paragraph("p-002").text == "Notice by email."
    (res,) = doc.apply_edits([edit("replace", "p-002", "email", "post")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    assert doc.paragraph("p-002").text == "Notice by post."          # the edited paragraph is re-walked
    assert "has_revisions" in doc.paragraph("p-002").flags
    again = doc.paragraph("p-001")
    assert again is not first and again.text == first.text and again.flags == []
    (res,) = doc.apply_edits([edit("replace", "p-001", "thirty", "sixty")], author=ME, date=WHEN)
    assert res["status"] == "ok"
    out = check(doc, "Pay within thirty days.\nNotice by email.")
    assert out.text("accepted") == "Pay within sixty days.\nNotice by post."
