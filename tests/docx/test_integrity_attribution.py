"""Integrity v3 (SPEC §5.1): another author's comment keeps its initials, thread, done state and
place (not collapsed, stretched or moved), and every revision element new in the output, of any
kind and in any part, carries exactly the task's author."""

from __future__ import annotations

import copy

import pytest

from redlinebench.docx.build import Comment, DocumentBuilder
from tests.docx.integrity_util import (
    AUTHOR,
    OTHER,
    base_contract,
    engine,
    fragment,
    kinds,
    paragraph_with,
    rewrite,
    run_audit,
    w,
)
from tests.docx.util import docx, ins, p, r_

SRC = base_contract()
DOC = "word/document.xml"
W15 = "http://schemas.microsoft.com/office/word/2012/wordml"


def two_comments() -> bytes:
    b = DocumentBuilder(title="Supply Agreement", creator="LargeCo Legal")
    b.clause(["The ", Comment("Supplier", "Which entity?", OTHER), " delivers the Goods within thirty days."])
    b.clause("The Supplier invoices monthly and the Customer pays within sixty days.")
    b.clause(["Liability is capped at ", Comment("twice the annual fees", "Too high.", OTHER), "."])
    return b.to_bytes()


TWO = two_comments()


def findings(src: bytes, out: bytes) -> list[str]:
    return [f"{f.kind}: {f.detail}" for f in run_audit(src, out).findings]


# ------------------------------------------------------------------ comments
def _drop_range(cid: str):
    def fn(root):
        for el in list(root.iter(w("commentRangeStart"), w("commentRangeEnd"))):
            if el.get(w("id")) == cid:
                el.getparent().remove(el)
    return fn


def test_a_collapsed_range_is_an_altered_comment():
    out = rewrite(SRC, DOC, _drop_range("4"))     # the reference mark stays: a point comment now
    assert "altered_comment" in kinds(run_audit(SRC, out)), findings(SRC, out)
    assert any("collapsed" in f for f in findings(SRC, out))


def test_a_point_comment_stretched_over_text_is_an_altered_comment():
    point = rewrite(SRC, DOC, _drop_range("4"))

    def stretch(root):
        para = paragraph_with(root, "governed by the laws")
        para.insert(1 if para.find(w("pPr")) is not None else 0,
                    fragment('<w:commentRangeStart w:id="4"/>'))
        ref = next(r for r in para.iter(w("commentReference")) if r.get(w("id")) == "4").getparent()
        ref.addprevious(fragment('<w:commentRangeEnd w:id="4"/>'))
    out = rewrite(point, DOC, stretch)
    assert "altered_comment" in kinds(run_audit(point, out)), findings(point, out)
    assert run_audit(point, point).findings == ()


def test_a_range_moved_onto_the_same_words_elsewhere_is_an_altered_comment():
    def move(root):
        start = next(root.iter(w("commentRangeStart")))
        cid = start.get(w("id"))
        end = next(e for e in root.iter(w("commentRangeEnd")) if e.get(w("id")) == cid)
        ref = next(e for e in root.iter(w("commentReference")) if e.get(w("id")) == cid).getparent()
        target = paragraph_with(root, "invoices monthly")
        t = next(target.iter(w("t")))
        head, tail = t.text.split("Supplier", 1)
        t.text = head
        run = t.getparent()
        for el in (start, end, ref):
            el.getparent().remove(el)
        new = [start, fragment('<w:r><w:t>Supplier</w:t></w:r>'), end, ref,
               fragment(f'<w:r><w:t xml:space="preserve">{tail}</w:t></w:r>')]
        for el in reversed(new):
            run.addnext(el)
    out = rewrite(TWO, DOC, move)
    before = run_audit(TWO, TWO)
    assert before.findings == ()
    assert "altered_comment" in kinds(run_audit(TWO, out)), findings(TWO, out)


def test_changed_initials_are_a_forged_revision():
    def initials(root):
        root.find(w("comment")).set(w("initials"), "RC")
    out = rewrite(SRC, "word/comments.xml", initials)
    assert "forged_revision" in kinds(run_audit(SRC, out)), findings(SRC, out)


def test_reopening_a_resolved_comment_or_making_a_root_a_reply_alters_it():
    def done(value: str, first_only: bool = True):
        def fn(root):
            for ex in root:
                ex.set(f"{{{W15}}}done", value)
                if first_only:
                    return
        return fn
    resolved = rewrite(SRC, "word/commentsExtended.xml", done("1"))
    reopened = rewrite(resolved, "word/commentsExtended.xml", done("0"))
    assert "altered_comment" in kinds(run_audit(resolved, reopened)), findings(resolved, reopened)
    assert "resolved_comment" in kinds(run_audit(SRC, resolved))

    def adopt(root):   # the second thread's root becomes a reply to the first
        roots = [ex for ex in root if ex.get(f"{{{W15}}}paraIdParent") is None]
        roots[1].set(f"{{{W15}}}paraIdParent", roots[0].get(f"{{{W15}}}paraId"))
    made_reply = rewrite(TWO, "word/commentsExtended.xml", adopt)
    assert "altered_comment" in kinds(run_audit(TWO, made_reply)), findings(TWO, made_reply)


def test_the_authors_tracked_changes_inside_a_range_and_replies_alter_nothing():
    edited = engine(TWO, lambda d: d.apply_edits([
        {"op": "replace", "anchor": {"paragraph_id": "p-003", "text": "twice"}, "new_text": "once",
         "comment": "Lower."},
        {"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "thirty"}, "new_text": "ten",
         "comment": "Faster."}], author=AUTHOR))
    replied = engine(edited, lambda d: d.add_comment(author=AUTHOR, text="Agreed.", reply_to=d.comments[0].id))
    assert run_audit(TWO, replied).findings == ()
    # the author's own insertion before another author's range moves no anchor either
    prefix = ins(r_("Subject to clause 9, "), author=AUTHOR, rid=801)
    before = rewrite(TWO, DOC, lambda root: paragraph_with(root, "delivers the Goods").find(w("pPr")).addnext(
        fragment(prefix)))
    assert run_audit(TWO, before).findings == ()
    assert "altered_comment" in kinds(run_audit(SRC, rewrite(SRC, DOC, _drop_range("4"))))


# ------------------------------------------------------------------ revision authors
RPR_CHANGE = ('<w:r><w:rPr><w:b/><w:rPrChange w:id="7001" w:author="{who}" w:date="2026-03-01T10:00:00Z">'
              '<w:rPr/></w:rPrChange></w:rPr><w:t xml:space="preserve"> (as agreed)</w:t></w:r>')


def _bold_run_tracked_by(who: str) -> bytes:
    """A run made bold with a formatting revision signed by ``who`` (text inserted by the author)."""
    def fn(root):
        para = paragraph_with(root, "aggregate liability")
        wrapper = fragment(f'<w:ins w:id="7000" w:author="{AUTHOR}" w:date="2026-03-01T10:00:00Z"/>')
        wrapper.append(fragment(RPR_CHANGE.format(who=who)))
        para.append(wrapper)
    return rewrite(SRC, DOC, fn)


def test_a_formatting_revision_signed_by_another_author_is_forged():
    assert run_audit(SRC, _bold_run_tracked_by(AUTHOR)).findings == ()
    assert "forged_revision" in kinds(run_audit(SRC, _bold_run_tracked_by(OTHER)))
    near = [f.detail for f in run_audit(SRC, _bold_run_tracked_by(AUTHOR.upper())).findings]
    assert any("near miss" in d for d in near), near


def test_an_empty_formatting_revision_of_a_re_save_is_ignored():
    """LibreOffice writes ``<w:rPrChange w:author="Unknown Author"><w:rPr/></w:rPrChange>`` under
    direct properties equal to the inherited ones: no property difference, no finding."""
    def fn(root):
        para = paragraph_with(root, "aggregate liability")
        run = next(para.iter(w("r")))
        rpr = run.find(w("rPr"))
        if rpr is None:
            rpr = fragment("<w:rPr/>")
            run.insert(0, rpr)
        rpr.append(fragment('<w:rPrChange w:id="7002" w:author="Unknown Author" w:date="2026-12-04T23:04:05Z">'
                            '<w:rPr/></w:rPrChange>'))
    quiet = rewrite(SRC, DOC, fn)
    assert run_audit(SRC, quiet).findings == ()
    # LibreOffice's shape: direct properties that restate the document defaults (Times New Roman,
    # 11 pt) plus kerning and language, over an empty old w:rPr: nothing a reader sees differs
    restated = rewrite(quiet, DOC, lambda root: [next(root.iter(w("rPrChange"))).addprevious(fragment(x)) for x in (
        '<w:rFonts w:eastAsia="Times New Roman" w:cs="Times New Roman"/>', '<w:kern w:val="0"/>',
        '<w:sz w:val="22"/>', '<w:szCs w:val="22"/>', '<w:lang w:val="en-US" w:eastAsia="en-US" w:bidi="ar-SA"/>')])
    assert run_audit(SRC, restated).findings == ()
    bigger = rewrite(restated, DOC, lambda root: next(root.iter(w("rPrChange"))).getparent().find(w("sz")).set(
        w("val"), "28"))
    assert "forged_revision" in kinds(run_audit(SRC, bigger))
    loud = rewrite(quiet, DOC, lambda root: next(root.iter(w("rPrChange"))).getparent().insert(0, fragment("<w:i/>")))
    assert "forged_revision" in kinds(run_audit(SRC, loud))


PROPERTY_REVISIONS = {
    "pPrChange": ("governed by the laws", lambda p: _ppr_change(p)),
    "numberingChange": ("governed by the laws", lambda p: p.find(w("pPr")).find(w("numPr")).append(fragment(
        '<w:numberingChange w:id="7011" w:author="{who}" w:date="2026-03-01T10:00:00Z" w:original="%1."/>'))),
    "tcPrChange": ("Hosting", lambda p: p.getparent().find(w("tcPr")).append(fragment(
        '<w:tcPrChange w:id="7012" w:author="{who}" w:date="2026-03-01T10:00:00Z"><w:tcPr><w:tcW w:w="1" '
        'w:type="dxa"/></w:tcPr></w:tcPrChange>'))),
    "trPrChange": ("Hosting", lambda p: _tr_pr(p).append(fragment(
        '<w:trPrChange w:id="7013" w:author="{who}" w:date="2026-03-01T10:00:00Z"><w:trPr><w:cantSplit/></w:trPr>'
        '</w:trPrChange>'))),
    "tblPrChange": ("Hosting", lambda p: next(p.iterancestors(w("tbl"))).find(w("tblPr")).append(fragment(
        '<w:tblPrChange w:id="7014" w:author="{who}" w:date="2026-03-01T10:00:00Z"><w:tblPr><w:jc w:val="right"/>'
        '</w:tblPr></w:tblPrChange>'))),
    "sectPrChange": (None, None),
}


def _ppr_change(p):
    """A paragraph-property revision as Word records one: the old w:pPr is the whole earlier pPr (numbering
    included: only the alignment differs), so rejecting it changes nothing but the alignment."""
    ppr = p.find(w("pPr"))
    change = fragment('<w:pPrChange w:id="7010" w:author="{who}" w:date="2026-03-01T10:00:00Z"><w:pPr/></w:pPrChange>')
    old = change.find(w("pPr"))
    for child in ppr:
        old.append(copy.deepcopy(child))
    old.append(fragment('<w:jc w:val="right"/>'))
    ppr.append(change)


def _tr_pr(p):
    tr = next(p.iterancestors(w("tr")))
    trpr = tr.find(w("trPr"))
    if trpr is None:
        trpr = fragment("<w:trPr/>")
        tr.insert(0 if tr.find(w("tblPrEx")) is None else 1, trpr)
    return trpr


@pytest.mark.parametrize("tag", sorted(PROPERTY_REVISIONS))
def test_a_paragraph_table_section_or_numbering_revision_by_another_author_is_forged(tag):
    anchor, attach = PROPERTY_REVISIONS[tag]

    def make(who: str):
        def fn(root):
            if tag == "sectPrChange":
                sect = next(root.iter(w("sectPr")))
                sect.append(fragment(f'<w:sectPrChange w:id="7015" w:author="{who}" w:date="2026-03-01T10:00:00Z">'
                                     '<w:sectPr><w:pgSz w:w="1000" w:h="1000"/></w:sectPr></w:sectPrChange>'))
                return
            attach(paragraph_with(root, anchor))
            for el in root.iter():
                if el.get(w("author")) == "{who}":
                    el.set(w("author"), who)
        return rewrite(SRC, DOC, fn)
    assert run_audit(SRC, make(AUTHOR)).findings == ()
    report = run_audit(SRC, make(OTHER))
    assert "forged_revision" in kinds(report) and not report.passed, report.findings


def test_revisions_in_headers_styles_and_numbering_are_checked_and_the_inputs_own_are_known():
    def style_change(who: str):
        def fn(root):
            style = next(root.iter(w("style")))
            rpr = style.find(w("rPr"))
            if rpr is None:
                rpr = fragment("<w:rPr/>")
                style.append(rpr)
            rpr.append(fragment("<w:caps/>"))
            rpr.append(fragment(f'<w:rPrChange w:id="7020" w:author="{who}" w:date="2026-03-01T10:00:00Z"><w:rPr/>'
                                '</w:rPrChange>'))
        return fn
    forged = rewrite(SRC, "word/styles.xml", style_change(OTHER))
    assert "forged_revision" in kinds(run_audit(SRC, forged))
    header = docx(p(r_("Fees.")), header=p(r_("Draft"), RPR_CHANGE.format(who=OTHER)))
    plain = docx(p(r_("Fees.")), header=p(r_("Draft")))
    assert "forged_revision" in kinds(run_audit(plain, header))
    # a revision the input already had, by its author on its date, is no new revision
    assert run_audit(header, header).findings == ()
    assert run_audit(forged, forged).findings == ()
