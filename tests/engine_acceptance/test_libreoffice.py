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
    results = lo_oracle.run(list(lo_docs.values()))
    for stem, path in lo_docs.items():
        _compare(results[path], path.read_bytes(), stem)
    # and after our edits on LibreOffice's own markup
    data = lo_docs["lo_contract"].read_bytes()
    doc = RedlineDocument.open(data)
    fees = next(p for p in doc.paragraphs if p.text.startswith("Fees are payable"))
    term = next(p for p in doc.paragraphs if p.text.startswith("Term."))
    res = doc.apply_edits([
        {"op": "replace", "anchor": {"paragraph_id": fees.id, "text": "sixty (60)"}, "new_text": "forty-five (45)",
         "comment": "Compromise."},
        {"op": "replace", "anchor": {"paragraph_id": term.id, "text": "three years"}, "new_text": "two years",
         "comment": "Shorter."},
    ], author="Reviewing Counsel (AgentCo Legal)")
    assert [r["status"] for r in res] == ["ok", "ok"], res
    edited = tmp_path / "lo_contract_edited.docx"
    doc.save(edited)
    _compare(lo_oracle.run([edited])[edited], edited.read_bytes(), "lo_contract edited")
