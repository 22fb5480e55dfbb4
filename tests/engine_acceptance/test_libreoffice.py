"""LibreOffice as an independent oracle: it opens our outputs, exports them to PDF, and its own
Accept All / Reject All give the same text as ours.

Known limits of the oracle (from OOXML.md, confirmed here): LibreOffice recomputes field
results (a REF shows the bookmark text, DATE shows today) where we keep Word's cached result,
and counts a footnote citation as text; those fixtures are compared with fields and
citations normalised away.
"""

from __future__ import annotations

import re

import pytest

from redlinebench.docx import RedlineDocument
from tests.engine_acceptance.cases import CASES, run_case
from tests.fixtures.corpus import CORPUS

pytestmark = pytest.mark.libreoffice

# fixture -> why LibreOffice's text legitimately differs from the cached one
_FIELD_FIXTURES = {"fields": "LibreOffice recomputes REF/DATE results"}
# paragraphs LibreOffice 7.4 itself gets wrong (checked by hand: our markup is what Word writes)
_LO_BLIND_SPOTS = {
    "Content control paragraph": "LibreOffice 7.4 drops text around tracked changes inside a block-level content "
                                 "control (w:sdt around w:p) and appends a stray \\r to its text",
}


def _norm(lines: list[str]) -> list[str]:
    """Line breaks as spaces; a soft hyphen is invisible; a w:sym glyph (LibreOffice: its private-use code
    point, us: a visible stand-in) compares as one placeholder."""
    return [re.sub("[\uf000-\uf0ff\u00b7\u2022]", "\u00b7", line.replace("\n", " ").replace("\xad", ""))
            for line in lines]


def _without_citations(lo: list[str], ours: list[str]) -> list[str]:
    """LibreOffice's text counts a footnote citation ("paid.1"); drop such digits where that is the
    only difference from our line."""
    out = []
    for n, line in enumerate(lo):
        stripped = re.sub(r"(?<=[A-Za-z.,;)])\d{1,2}(?=\W|$)", "", line)
        out.append(stripped if n < len(ours) and stripped == ours[n] and line != ours[n] else line)
    return out


def _ours(data: bytes, mode: str) -> list[str]:
    return RedlineDocument.open(data).text(mode).split("\n")


def _compare(oracle_entry: dict, data: bytes, label: str) -> None:
    assert oracle_entry.get("loaded"), f"{label}: LibreOffice could not load it: {oracle_entry.get('error')}"
    assert not oracle_entry.get("error"), f"{label}: {oracle_entry['error']}"
    for mode in ("accepted", "original"):
        ours = _norm(_ours(data, mode))
        lo = _without_citations(_norm(oracle_entry[mode]), ours)
        blind = [i for i, line in enumerate(ours) if any(line.startswith(k) for k in _LO_BLIND_SPOTS)]
        if blind and len(ours) == len(lo):
            ours = [line for i, line in enumerate(ours) if i not in blind]
            lo = [line for i, line in enumerate(lo) if i not in blind]
        assert ours == lo, f"{label} {mode}: ours != LibreOffice"


@pytest.fixture(scope="module")
def corpus_results(lo_oracle, corpus_dir):
    paths = [corpus_dir / f"{name}.docx" for name in CORPUS]
    return lo_oracle.run(paths, pdf=True)


@pytest.mark.parametrize("name", [n for n in CORPUS if n not in _FIELD_FIXTURES and n != "headers_notes"])
def test_corpus_texts_match_libreoffice(name, corpus_results, corpus_dir):
    path = corpus_dir / f"{name}.docx"
    _compare(corpus_results[path], path.read_bytes(), name)


def test_corpus_converts_to_pdf(corpus_results):
    for path, entry in corpus_results.items():
        assert entry.get("pdf_bytes", 0) > 1000, f"{path.name}: no PDF ({entry.get('error')})"


def test_footnote_fixture_matches_without_citations(corpus_results, corpus_dir):
    path = corpus_dir / "headers_notes.docx"
    entry = corpus_results[path]
    ours = _ours(path.read_bytes(), "accepted")
    lo = _without_citations(entry["accepted"], ours)
    assert ours == lo and lo != entry["accepted"]


@pytest.fixture(scope="module")
def case_outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("case-outputs")
    paths = {}
    for case in CASES:
        _, data, _ = run_case(case.name)
        path = out / f"{case.name}.docx"
        path.write_bytes(data)
        paths[case.name] = path
    return paths


@pytest.fixture(scope="module")
def case_results(lo_oracle, case_outputs):
    return lo_oracle.run(list(case_outputs.values()), pdf=True)


@pytest.mark.parametrize("case", [c for c in CASES if c.fixture not in _FIELD_FIXTURES and c.fixture != "word_like"],
                         ids=lambda c: c.name)
def test_outputs_accept_and_reject_like_libreoffice(case, case_outputs, case_results):
    path = case_outputs[case.name]
    _compare(case_results[path], path.read_bytes(), case.name)


def test_field_outputs_agree_outside_fields(case_outputs, case_results):
    # REF results are recomputed by LibreOffice: compare the paragraphs without fields only
    for name in ("fields", "word_like"):
        path = case_outputs[name]
        entry = case_results[path]
        assert entry.get("loaded") and not entry.get("error"), entry
        for mode in ("accepted", "original"):
            ours = _norm(_ours(path.read_bytes(), mode))
            lo = _norm(entry[mode])
            assert len(ours) == len(lo), (name, mode, ours, lo)
            same = [a == b for a, b in zip(ours, lo)]
            differing = [(a, b) for a, b in zip(ours, lo) if a != b]
            assert sum(same) >= len(same) - 2, (name, mode, differing)


def test_outputs_convert_to_pdf(case_results):
    for path, entry in case_results.items():
        assert entry.get("pdf_bytes", 0) > 1000, f"{path.name}: no PDF ({entry.get('error')})"
        assert entry.get("redlines", 0) > 0, f"{path.name}: LibreOffice sees no tracked changes"


def test_libreoffice_authored_documents(lo_oracle, lo_docs, tmp_path):
    from redlinebench.docx.validate import errors_only, validate_package
    from tests.fixtures.audit import new_audit_errors

    results = lo_oracle.run(list(lo_docs.values()))
    for stem, path in lo_docs.items():
        _compare(results[path], path.read_bytes(), stem)
    # and after our edits on LibreOffice's own markup: its format change, its deleted paragraph
    # mark, its comment ranges, its hyperlink, another reviewer's insertion, a new clause
    data = lo_docs["lo_contract"].read_bytes()
    doc = RedlineDocument.open(data)

    def pid(prefix: str) -> str:
        return next(p.id for p in doc.paragraphs if p.text.startswith(prefix))

    def edit(op: str, prefix: str, text: str, new: str | None = None) -> dict:
        e = {"op": op, "anchor": {"paragraph_id": pid(prefix), "text": text}, "comment": "Reviewed."}
        if new is not None:
            e["new_text"] = new
        return e

    res = doc.apply_edits([
        edit("replace", "Fees are payable", "sixty (60)", "forty-five (45)"),
        edit("replace", "Liability", "aggregate", "total"),
        edit("replace", "Liability", "fees paid", "fees paid in the prior 12 months"),
        edit("delete", "Neither party", "Or wilful misconduct."),
        edit("replace", "Subcontracting", "Subcontracting.", "Subcontractors."),
        edit("replace", "Notices", "sent to the addresses", "delivered to the addresses"),
        edit("insert_after", "Term.", "The term is three years.", "\nEither party may renew."),
        edit("replace", "Definitions.", "Glossary", "Definitions Schedule"),
        edit("replace", "USD 1,000", "per month", "per quarter"),
    ], author="Reviewing Counsel (AgentCo Legal)")
    assert [r["status"] for r in res] == ["ok"] * 9, res
    doc.add_comment(author="Reviewing Counsel (AgentCo Legal)", text="Confirmed.", reply_to=doc.comments[0].id)
    edited = tmp_path / "lo_contract_edited.docx"
    doc.save(edited)
    _compare(lo_oracle.run([edited])[edited], edited.read_bytes(), "lo_contract edited")
    assert errors_only(validate_package(edited.read_bytes())) == []
    assert new_audit_errors(data, edited.read_bytes(), tmp_path) == []
    accepted = RedlineDocument.open(edited).text("accepted").split("\n")
    assert "Subcontractors. Each party remains responsible for its subcontractors." in accepted
    assert accepted[accepted.index("Term. The term is three years.") + 1] == "Either party may renew."


def test_arbitrary_edits_on_libreoffice_markup_never_corrupt(lo_docs):
    """The corpus fuzz (test_fuzz.py) on LibreOffice's own markup."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from redlinebench.docx.validate import errors_only, validate_package
    from tests.engine_acceptance.test_fuzz import new_text

    source = lo_docs["lo_contract"].read_bytes()

    @settings(max_examples=60, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def check(data):
        doc = RedlineDocument.open(source)
        before = (doc.text("current"), doc.text("accepted"), doc.text("original"))
        paragraphs = [p for p in doc.paragraphs if p.text.strip()]
        batch = []
        for _ in range(data.draw(st.integers(1, 4))):
            para = data.draw(st.sampled_from(paragraphs))
            a = data.draw(st.integers(0, len(para.text) - 1))
            z = data.draw(st.integers(a + 1, min(len(para.text), a + 30)))
            op = data.draw(st.sampled_from(["replace", "delete", "insert_after"]))
            edit = {"op": op, "anchor": {"paragraph_id": para.id, "text": para.text[a:z], "occurrence": 1},
                    "comment": "fuzz"}
            if op != "delete":
                edit["new_text"] = data.draw(new_text)
            batch.append(edit)
        results = doc.apply_edits(batch, author="Reviewing Counsel (AgentCo Legal)")
        assert not [r for r in results if "internal" in r.get("error", "")], results
        out = doc.to_bytes()
        assert errors_only(validate_package(out)) == [], (batch, results)
        mine = RedlineDocument.open(out)
        mine.reject(author="Reviewing Counsel (AgentCo Legal)")
        back = RedlineDocument.open(mine.to_bytes())
        assert (back.text("current"), back.text("accepted"), back.text("original")) == before, (batch, results)

    check()
