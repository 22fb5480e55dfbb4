"""The engine reads every corpus document right: texts, clause numbers, revisions, comments."""

from __future__ import annotations

import re

import pytest

from redlinebench.docx import RedlineDocument
from tests.fixtures.corpus import COMMENTS, CORPUS, PRIOR_CHANGES, THEM, US, Fixture


def _num(label: str | None) -> str | None:
    return label.strip().rstrip(".") if label else label


@pytest.mark.parametrize("fixture", list(CORPUS.values()), ids=list(CORPUS))
def test_accepted_and_original_text(fixture: Fixture):
    doc = RedlineDocument.open(fixture.data(), name=f"{fixture.name}.docx")
    if fixture.expect.accepted is not None:
        assert doc.text("accepted").split("\n") == fixture.expect.accepted
    if fixture.expect.original is not None:
        assert doc.text("original").split("\n") == fixture.expect.original
    elif fixture.expect.accepted is not None and not fixture.expect.authors:
        assert doc.text("original") == doc.text("accepted") == doc.text("current")


@pytest.mark.parametrize("fixture", [f for f in CORPUS.values() if f.expect.numbers], ids=lambda f: f.name)
def test_clause_numbers(fixture: Fixture):
    doc = RedlineDocument.open(fixture.data())
    got = {}
    for prefix in fixture.expect.numbers:
        para = next(p for p in doc.paragraphs if p.text.startswith(prefix))
        got[prefix] = _num(para.number)
    assert got == {k: _num(v) for k, v in fixture.expect.numbers.items()}


@pytest.mark.parametrize("fixture", list(CORPUS.values()), ids=list(CORPUS))
def test_read_view_lists_every_paragraph_with_id_and_number(fixture: Fixture):
    doc = RedlineDocument.open(fixture.data())
    view = doc.read_view()
    ids = [p.id for p in doc.paragraphs]
    assert len(ids) == len(set(ids)) and all(re.fullmatch(r"p-\d{3,}", i) for i in ids)
    positions = [view.index(f"[{pid}]") for pid in ids]
    assert positions == sorted(positions), "paragraphs out of document order in the view"
    for p in doc.paragraphs:
        line = next(line for line in view.splitlines() if line.startswith(f"[{p.id}]"))
        if p.number:
            assert p.number in line
    assert doc.paragraph(ids[0]) is doc.paragraphs[0] or doc.paragraph(ids[0]).id == ids[0]
    with pytest.raises(KeyError):
        doc.paragraph("p-99999")


def test_table_cells_are_paragraphs():
    doc = RedlineDocument.open(CORPUS["tables"].data())
    cells = [p for p in doc.paragraphs if p.in_table]
    assert [p.text for p in cells][:3] == ["Item", "Fee", "Terms"]
    assert len(cells) == 10 and not doc.paragraphs[0].in_table and not doc.paragraphs[-1].in_table


def test_prior_changes_are_visible_with_their_author():
    doc = RedlineDocument.open(PRIOR_CHANGES.data())
    by_type: dict[str, set[str]] = {}
    for rev in doc.revisions:
        by_type.setdefault(rev.type, set()).add(rev.author)
        assert re.fullmatch(r"rev-\d+", rev.id)
    for kind in ("ins", "del", "move_from", "move_to", "format", "para_ins", "para_del"):
        assert kind in by_type, f"{kind} revision not reported: {sorted(by_type)}"
    assert set().union(*by_type.values()) == PRIOR_CHANGES.expect.authors
    first = doc.paragraphs[0]
    assert first.text == "Fees are payable within sixty (60) days of invoice."  # current: insertions shown
    assert first.original_text == "Fees are payable within thirty (30) days of invoice."
    kinds = [(s.kind, s.text, s.author) for s in first.segments if s.kind != "text"]
    assert kinds == [("del", "thirty (30)", THEM), ("ins", "sixty (60)", THEM)]
    view = doc.read_view()
    assert "sixty (60)" in view and "thirty (30)" in view and THEM in view
    # the other side's deletion inside their own insertion
    last = doc.paragraphs[-1]
    nested = [s for s in last.segments if s.kind == "del"]
    assert nested and nested[0].text == "and phone " and nested[0].inserted_by == THEM


def test_comment_threads_and_resolved_flags():
    doc = RedlineDocument.open(COMMENTS.data())
    got = [(c.author, c.text, c.parent is not None, c.resolved) for c in doc.comments]
    assert got == COMMENTS.expect.comments
    root, reply1, reply2 = doc.comments[:3]
    assert reply1.parent == root.id and reply2.parent == root.id
    assert root.anchor_text == "insurance of USD 5,000,000"
    assert root.paragraph_ids == [doc.paragraphs[0].id]
    assert doc.paragraphs[0].comment_ids[:1] == [root.id]
    view = doc.read_view()
    for c in doc.comments:
        assert c.id in view
    assert US in view


def test_annotated_view_marks_changes_and_comments():
    doc = RedlineDocument.open(PRIOR_CHANGES.data())
    view = doc.annotated_view()
    assert "thirty (30)" in view and "sixty (60)" in view
    assert "~~" in view or "{--" in view
    assert "++" in view
    comments = RedlineDocument.open(COMMENTS.data()).annotated_view()
    assert "cmt-" in comments and "Too high for a SaaS vendor." in comments


def test_lo_documents_read(lo_docs):
    doc = RedlineDocument.open(lo_docs["lo_contract"])
    texts = [p.text for p in doc.paragraphs]
    assert "Fees are payable within sixty (60) days of invoice." in texts
    assert any(t.startswith("Definitions.\tTerms are defined in the Glossary") for t in texts)
    fees = next(p for p in doc.paragraphs if p.text.startswith("Fees are payable"))
    assert fees.original_text == "Fees are payable within thirty (30) days of invoice."
    assert _num(fees.number) == "1.2"
    assert {r.author for r in doc.revisions} == {"Counterparty Counsel", "Second Reviewer"}
    assert [(c.author, c.resolved) for c in doc.comments] == [("Counterparty Counsel", False),
                                                               ("Second Reviewer", True)]
    assert [p.text for p in doc.paragraphs if p.in_table] == ["Item", "Fee", "Hosting", "USD 1,000\tper month"]
    letter = RedlineDocument.open(lo_docs["lo_letter"])
    assert letter.text("current").split("\n") == ["Side letter to the Master Services Agreement.",
                                                  "The Customer may terminate on  ninety (90) days' notice.",
                                                  "Payment terms:\tnet 45."]


def test_numbering_follows_revisions_restarts_and_num_id_zero():
    import io
    import zipfile

    from redlinebench.docx.build import Del, DocumentBuilder, Ins, ParaMark

    b = DocumentBuilder(numbered_headings=True)
    b.clause("A")
    b.clause(Ins("B", THEM), mark=ParaMark("ins", THEM))  # a pending new clause counts in the current view
    b.clause("C")
    b.clause(Del("D", THEM), mark=ParaMark("del", THEM))  # a deleted clause does not
    b.clause("E")
    b.clause("E.1", 1)
    b.new_list(start=5)
    b.clause("restart at five")
    b.heading("H one", 1)
    b.paragraph("H none", style="Heading1")
    b.heading("H two", 1)
    data = b.to_bytes()
    xml = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml").decode()
    xml = xml.replace('<w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>H none',
                      '<w:pPr><w:pStyle w:val="Heading1"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="0"/>'
                      '</w:numPr></w:pPr><w:r><w:t>H none')
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, xml.encode() if info.filename == "word/document.xml" else src.read(info))
    doc = RedlineDocument.open(out.getvalue())
    got = [(p.text, _num(p.number)) for p in doc.paragraphs]
    assert got == [("A", "1"), ("B", "2"), ("C", "3"), ("", None), ("E", "4"), ("E.1", "4.1"),
                   ("restart at five", "5"), ("H one", "1"), ("H none", None), ("H two", "2")]
