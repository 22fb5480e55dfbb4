"""Edits on the corpus: exactly the anchored text changes, the markup is what Word expects,
reject-all gives the input back, and every output passes our validator and openxml-audit."""

from __future__ import annotations

import io
import zipfile

import pytest
from lxml import etree

from redlinebench.docx import RedlineDocument
from redlinebench.docx.validate import errors_only, validate_package
from tests.engine_acceptance.cases import CASES, DATE, Case, run_case
from tests.engine_acceptance.conftest import new_audit_errors, part_text
from tests.fixtures.corpus import CORPUS, THEM, US

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _body(data: bytes) -> etree._Element:
    return etree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_edit_succeeds_and_accept_gives_intended_text(case: Case):
    _, out, results = run_case(case.name)
    assert [r["status"] for r in results] == ["ok"] * len(case.edits), results
    assert all(r.get("comment_id", "").startswith("cmt-") for r in results), results
    doc = RedlineDocument.open(out)
    assert doc.text("accepted").split("\n") == list(case.accepted)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_reject_all_gives_input_text_back(case: Case):
    data, out, _ = run_case(case.name)
    before = RedlineDocument.open(data)
    after = RedlineDocument.open(out)
    assert after.text("original") == before.text("original")
    rejected = RedlineDocument.open(out)
    rejected.reject()
    assert RedlineDocument.open(rejected.to_bytes()).text("current") == before.text("original")
    accepted = RedlineDocument.open(out)
    accepted.accept()
    reopened = RedlineDocument.open(accepted.to_bytes())
    assert reopened.text("current").split("\n") == list(case.accepted)
    assert reopened.revisions == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_output_is_valid(case: Case, tmp_path):
    data, out, _ = run_case(case.name)
    findings = validate_package(out)
    assert errors_only(findings) == [], findings
    assert not [f for f in findings if f.code in ("paraid-duplicate", "revision-id-duplicate", "durableid-range")]
    assert RedlineDocument.open(out).validate() == []
    assert new_audit_errors(data, out, tmp_path) == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_only_our_author_is_new_and_prior_revisions_survive(case: Case):
    data, out, _ = run_case(case.name)
    before = RedlineDocument.open(data)
    after = RedlineDocument.open(out)
    # ours are new; the other side's revisions are still there (possibly split around ours), none lost
    assert any(r.author == US for r in after.revisions)
    assert {r.author for r in after.revisions} - {US} == {r.author for r in before.revisions}
    for kind in ("move_from", "move_to", "format", "para_ins", "para_del"):
        theirs = [r.text for r in before.revisions if r.type == kind]
        assert [r.text for r in after.revisions if r.type == kind and r.author != US] == theirs, kind
    before_comments = [(c.author, c.text) for c in before.comments]
    after_comments = [(c.author, c.text) for c in after.comments]
    assert after_comments[: len(before_comments)] == before_comments or set(before_comments) <= set(after_comments)
    assert len(after.comments) == len(before.comments) + len(case.edits) + len(case.comments)


def test_validate_sees_unsaved_in_memory_edits():
    doc = RedlineDocument.open(CORPUS["prior_changes"].data())
    pid = doc.paragraphs[0].id
    doc.apply_edits([{"op": "delete", "anchor": {"paragraph_id": pid, "text": "sixty (60)"}, "comment": "c"}],
                    author=US, date=DATE)
    assert errors_only(doc.validate()) == []
    # break the in-memory tree the way a buggy edit would: a w:t inside our w:del
    body = doc.package.xml(doc.package.main_part)
    deleted = next(t for t in body.iter(f"{W}delText"))
    deleted.tag = f"{W}t"
    doc.package.mark_dirty(doc.package.main_part)
    assert "text-inside-del" in {f.code for f in doc.validate()}


def test_output_is_deterministic():
    case = CASES[0]
    data = CORPUS[case.fixture].data()
    outs = []
    for _ in range(2):
        doc = RedlineDocument.open(data)
        doc.apply_edits(case.resolved_edits(doc), author=US, date=DATE)
        outs.append(doc.to_bytes())
    assert outs[0] == outs[1]


def test_replace_marks_only_the_changed_words():
    _, out, _ = run_case("tab_and_spaces")
    body = _body(out)
    deleted = ["".join(t.text or "" for t in d.iter(f"{W}delText")) for d in body.iter(f"{W}del")]
    inserted = ["".join(t.text or "" for t in i.iter(f"{W}t")) for i in body.iter(f"{W}ins")
                if i.getparent().tag != f"{W}rPr"]
    assert "three" in deleted and "3" in " ".join(deleted) and "years" not in " ".join(deleted)
    assert any(s.startswith("five") for s in inserted)
    assert "Managing " in inserted or "Managing" in [s.strip() for s in inserted]


def test_deleted_and_inserted_runs_keep_formatting():
    _, out, _ = run_case("split_runs")
    body = _body(out)
    for d in body.iter(f"{W}del"):
        text = "".join(t.text or "" for t in d.iter(f"{W}delText"))
        if "undisputed" in text:
            fonts = [f.get(f"{W}ascii") for f in d.iter(f"{W}rFonts")]
            assert fonts and set(fonts) == {"Arial"}
        if "tomer" in text:
            assert any(r.find(f"{W}rPr/{W}b") is not None for r in d.iter(f"{W}r"))
    # no rPrChange copied into our inserted runs; no w:t in any w:del, no delText outside
    for ins in body.iter(f"{W}ins"):
        if ins.get(f"{W}author") == US:
            assert not list(ins.iter(f"{W}rPrChange"))
    assert not [t for d in body.iter(f"{W}del") for t in d.iter(f"{W}t")]


def test_striking_their_insertion_writes_del_inside_their_ins():
    _, out, _ = run_case("their_changes")
    body = _body(out)
    pairs = [(i.get(f"{W}author"), d.get(f"{W}author"), "".join(t.text or "" for t in d.iter(f"{W}delText")))
             for i in body.iter(f"{W}ins") for d in i.iter(f"{W}del")]
    assert (THEM, US, "sixty (60)") in pairs or any(a == THEM and b == US and "sixty" in t for a, b, t in pairs)
    assert not [i for i in body.iter(f"{W}ins") for j in i.iter(f"{W}ins") if j is not i]


def test_field_is_deleted_whole():
    _, out, _ = run_case("fields")
    body = _body(out)
    instr = [t.text for t in body.iter(f"{W}delInstrText")]
    assert instr and "REF" in instr[0]
    assert not [t for t in body.iter(f"{W}instrText") if "REF _Ref500001" in (t.text or "")]
    kinds = [f.get(f"{W}fldCharType") for d in body.iter(f"{W}del") for f in d.iter(f"{W}fldChar")]
    assert kinds.count("begin") == kinds.count("end") == 1 and "separate" in kinds
    assert part_text(out, "word/footer1.xml").count(" PAGE ") == 1


def test_untouched_paragraphs_are_byte_identical():
    data, out, results = run_case("their_changes")
    before = [etree.tostring(p, method="c14n") for p in _body(data).iter(f"{W}p")]
    after = [etree.tostring(p, method="c14n") for p in _body(out).iter(f"{W}p")]
    touched_text = ("Fees are payable", "The Vendor shall", "Payments are made", "The Customer may audit",
                    "Support covers", "Late payments", "The audit is at")
    kept_before = [b for b in before if not any(t.encode() in b for t in touched_text)]
    kept_after = [a for a in after if not any(t.encode() in a for t in touched_text)
                  and b"Overdue" not in a and b"immediately" not in a]
    assert kept_before == kept_after and len(kept_before) >= 4


def test_comment_reply_is_threaded_and_anchored():
    _, out, _ = run_case("commented_paragraphs")
    doc = RedlineDocument.open(out)
    root = doc.comments[0]
    replies = [c for c in doc.comments if c.parent == root.id]
    assert [c.text for c in replies][-1] == "We have reduced the cap as discussed."
    assert replies[-1].author == US and replies[-1].paragraph_ids == root.paragraph_ids
    spans = [c for c in doc.comments if c.text == "Defined in clause 1."]
    assert spans and spans[0].anchor_text == "Confidential Information"
    for name in ("word/commentsExtended.xml", "word/commentsIds.xml", "word/commentsExtensible.xml",
                 "word/people.xml"):
        assert part_text(out, name)
    assert US in part_text(out, "word/people.xml")


def test_new_clause_after_paragraph_is_a_paragraph_insertion():
    _, out, results = run_case("their_changes")
    doc = RedlineDocument.open(out)
    new = [p for p in doc.paragraphs if p.text == "The audit is at the Customer's cost."]
    assert len(new) == 1 and "para_inserted" in new[0].flags
    assert [r for r in results if r.get("new_paragraph_ids")], results
    marks = [m.get(f"{W}author") for m in _body(out).iter(f"{W}ins") if m.getparent().tag == f"{W}rPr"]
    assert US in marks


def test_failed_edits_report_and_leave_document_unchanged():
    data = CORPUS["clauses"].data()
    doc = RedlineDocument.open(data)
    pid = doc.paragraphs[3].id
    results = doc.apply_edits([
        {"op": "replace", "anchor": {"paragraph_id": pid, "text": "no such words"}, "new_text": "x", "comment": "c"},
        {"op": "replace", "anchor": {"paragraph_id": "p-999", "text": "Vendor"}, "new_text": "x", "comment": "c"},
        {"op": "delete", "anchor": {"paragraph_id": doc.paragraphs[6].id, "text": "support"}, "comment": "c"},
        {"op": "frobnicate", "anchor": {"paragraph_id": pid, "text": "Vendor"}, "comment": "c"},
        {"op": "replace", "anchor": {"paragraph_id": pid, "text": "Vendor"}, "new_text": "Supplier", "comment": "c"},
    ], author=US, date=DATE)
    assert [r["status"] for r in results] == ["anchor_failed", "anchor_failed", "ok", "runtime_error", "ok"]
    assert results[0]["error"].startswith("text_not_found")
    assert results[1]["error"].startswith("paragraph_not_found")
    assert results[1].get("candidates"), "the Vendor text exists elsewhere: candidates expected"
    out = doc.to_bytes()
    assert RedlineDocument.open(out).text("original") == RedlineDocument.open(data).text("original")


def test_ambiguous_anchor_is_reported_and_occurrence_resolves_it():
    b_data = CORPUS["hyperlinks"].data()
    doc = RedlineDocument.open(b_data)
    pid = doc.paragraphs[0].id
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": pid, "text": "time"}, "new_text": "a",
                            "comment": "c"}], author=US, date=DATE)
    assert res[0]["status"] == "anchor_failed" and res[0]["error"].startswith("ambiguous")
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": pid, "text": "time", "occurrence": 2},
                            "new_text": "moment", "comment": "c"}], author=US, date=DATE)
    assert res[0]["status"] == "ok"
    assert doc.paragraphs[0].text.endswith("as updated from time to moment.")


def test_mark_reserved_keeps_later_numbers():
    data = CORPUS["clauses"].data()
    doc = RedlineDocument.open(data)
    numbers_before = {p.text: p.number for p in doc.paragraphs}
    start = next(p for p in doc.paragraphs if p.text.startswith("Support is available"))
    end = next(p for p in doc.paragraphs if p.text.startswith("Severity two"))
    result = doc.mark_reserved(start_id=start.id, end_id=end.id, comment="Not needed.", author=US, date=DATE)
    assert result.get("status", "ok") == "ok"
    out = RedlineDocument.open(doc.to_bytes())
    accepted = out.text("accepted")
    assert "Reserved." in accepted and "Severity two" not in accepted and "Email support" not in accepted
    assert out.text("original") == RedlineDocument.open(data).text("original")
    later = next(p for p in out.paragraphs if p.text.startswith("Service credits"))
    assert later.number == numbers_before["Service credits apply."]
    assert errors_only(validate_package(doc.to_bytes())) == []


def test_hostile_text_from_the_model_is_sanitised():
    doc = RedlineDocument.open(CORPUS["clauses"].data())
    pid = doc.paragraphs[3].id
    res = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": pid, "text": "Vendor"},
                            "new_text": "Sup\x00pl\x07ier\x0b\ud800", "comment": "bad\x01chars"}], author=US, date=DATE)
    assert res[0]["status"] in ("ok", "runtime_error")
    out = doc.to_bytes()
    assert errors_only(validate_package(out)) == []
    if res[0]["status"] == "ok":
        assert "Supplier" in RedlineDocument.open(out).text("accepted")


def test_edit_on_libreoffice_document(lo_docs, tmp_path):
    data = lo_docs["lo_contract"].read_bytes()
    doc = RedlineDocument.open(data)
    fees = next(p for p in doc.paragraphs if p.text.startswith("Fees are payable"))
    cell = next(p for p in doc.paragraphs if p.text.startswith("USD 1,000"))
    glossary = next(p for p in doc.paragraphs if p.text.startswith("Definitions."))
    results = doc.apply_edits([
        {"op": "replace", "anchor": {"paragraph_id": fees.id, "text": "sixty (60)"}, "new_text": "forty-five (45)",
         "comment": "Meet in the middle."},
        {"op": "replace", "anchor": {"paragraph_id": cell.id, "text": "per month"}, "new_text": "per quarter",
         "comment": "Billing cycle."},
        {"op": "replace", "anchor": {"paragraph_id": glossary.id, "text": "the Glossary and apply"},
         "new_text": "the Glossary, and apply", "comment": "Punctuation."},
    ], author=US, date=DATE)
    assert [r["status"] for r in results] == ["ok", "ok", "ok"], results
    out = doc.to_bytes()
    after = RedlineDocument.open(out)
    accepted = after.text("accepted").split("\n")
    assert "Fees are payable within forty-five (45) days of invoice." in accepted
    assert "USD 1,000\tper quarter" in accepted
    assert RedlineDocument.open(out).text("original") == RedlineDocument.open(data).text("original")
    assert errors_only(validate_package(out)) == []
    assert new_audit_errors(data, out, tmp_path) == []


def test_refining_our_own_insertion_in_a_later_edit():
    """A replace that only takes back words we inserted earlier is a real change, not "no_change"."""
    doc = RedlineDocument.open(CORPUS["clauses"].data())
    pid = doc.paragraphs[3].id  # "The Vendor shall provide the Services."
    first = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": pid, "text": "provide"},
                              "new_text": "provide and support", "comment": "c"}], author=US, date=DATE)
    assert first[0]["status"] == "ok"
    second = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": pid, "text": "provide and support"},
                               "new_text": "provide", "comment": "Taking it back."}], author=US, date=DATE)
    assert second[0]["status"] == "ok", second
    assert doc.paragraphs[3].text == "The Vendor shall provide the Services."
    assert RedlineDocument.open(doc.to_bytes()).text("accepted").split("\n")[3] == \
        "The Vendor shall provide the Services."


def test_annotated_view_attributes_every_change_and_lists_comments():
    import re

    _, out, _ = run_case("commented_paragraphs")
    doc = RedlineDocument.open(out)
    view = doc.annotated_view(focus_author=US)
    body = [line for line in view.splitlines() if line.startswith("[p-")]
    assert len(body) == len(doc.paragraphs)
    for para, line in zip(doc.paragraphs, body):
        assert line.startswith(f"[{para.id}" + (f" {para.number}]" if para.number else "]"))
    # every change (a deletion nested in an insertion included) is followed by its own tag
    changes = re.findall(r"(~~[^~]+~~|\+\+[^+]+\+\+)(\[A\d+[^\]]*\])?", "\n".join(body))
    assert changes and all(tag for _, tag in changes), "a change without its author tag"
    assert US in view and "this turn" in view.lower()
    for comment in doc.comments:
        if comment.paragraph_ids:  # anchored in the text: a range or a point
            assert f"{{{comment.id}>" in view or f"{{{comment.id}}}" in view, comment.id
        assert re.search(rf"^{re.escape(comment.id)} \|", view, re.M), comment.id  # and in the appendix
    replies = [c for c in doc.comments if c.parent]
    assert replies and all(f"reply to {c.parent}" in view for c in replies)
