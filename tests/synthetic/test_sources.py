"""The sources themselves: shape of the benchmark, drafting consistency, and bad-input reporting."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from redlinebench.synthetic import SOURCES_DIR, SourceError, load_sources

REAL_SHARES = {
    "Commercial Context": 33.4,
    "Legal correctness": 25.7,
    "Negotiation Quality": 17.0,
    "Deal-closing Orientation": 13.7,
    "Counterparty Acceptance Prediction": 10.2,
}
SIDE_PATTERN = {1: "ABAB", 2: "BABA", 3: "ABAB"}


def _tasks(scenarios):
    for spec in scenarios:
        for group in spec.groups:
            for variant in group.variants:
                yield spec, group, variant


def test_three_scenarios_with_the_real_side_pattern(scenarios):
    assert [s.id for s in scenarios] == [1, 2, 3]
    for spec in scenarios:
        assert "".join(spec.sides) == SIDE_PATTERN[spec.id]
        assert spec.party("A").name == "AgentCo"
        assert spec.party("B").name == {1: "LargeCo", 2: "LargeCo", 3: "GiantCo"}[spec.id]
    assert [s.label for s in scenarios] == ["Vendor-led SaaS MSA", "Customer-led SaaS MSA", "Professional-services MSA"]


def test_shape_numbers(scenarios):
    tasks = list(_tasks(scenarios))
    assert len(tasks) >= 36
    cells = {(s.id, g.turn) for s, g, _ in tasks}
    assert cells == {(s, t) for s in (1, 2, 3) for t in (1, 2, 3, 4)}
    per_group = Counter((s.id, g.name) for s, g, _ in tasks)
    assert sum(1 for n in per_group.values() if 2 <= n <= 3) >= 4
    accept_only = sorted(f"redline-s{s.id}-{g.name}{v.letter}" for s, g, v in tasks if g.accept_only)
    assert accept_only == ["redline-s2-t4-g03a", "redline-s3-t4-g01a"]
    for spec, group, variant in tasks:
        assert 5 <= len(variant.rubrics) <= 20, (spec.id, group.name, variant.letter)


def test_category_shares_and_penalties(scenarios):
    counts: Counter[str] = Counter()
    penalties = 0
    for _, _, variant in _tasks(scenarios):
        for rubric, weight in variant.rubrics:
            counts[rubric.category] += 1
            penalties += weight < 0
            assert 1 <= abs(weight) <= 10
    total = sum(counts.values())
    assert set(counts) == set(REAL_SHARES)
    for name, share in REAL_SHARES.items():
        assert abs(100 * counts[name] / total - share) <= 5.0, name
    assert penalties / total >= 0.10


def test_every_task_has_a_penalty_rubric_and_variants_differ(scenarios):
    for spec, group, variant in _tasks(scenarios):
        assert any(w < 0 for _, w in variant.rubrics), (spec.id, group.name, variant.letter)
    for spec in scenarios:
        for group in spec.groups:
            sets = [tuple((r.id, w) for r, w in v.rubrics) for v in group.variants]
            assert len(set(sets)) == len(sets), (spec.id, group.name)


TOPICS = ["definition", "service level|service credit", "fee|payment", "data protection", "security",
          "artificial intelligence|ai ", "intellectual property|proprietary", "confidential", "warrant",
          "indemn", "limitation of liability", "term", "general"]


def test_contracts_are_complete_and_cross_references_resolve(scenarios):
    for spec in scenarios:
        contract = spec.contract
        numbers = {c.number for c in contract.clauses}
        assert len(contract.clauses) >= 45
        headings = " ".join((c.heading or "").lower() + " " for c in contract.clauses if c.level == 0)
        for topic in TOPICS:
            assert re.search(topic, headings), (spec.id, topic)
        tables = [c for c in contract.clauses if c.table]
        assert len(tables) >= 2, spec.id  # service-credit / delay table and a fee table
        refs = 0
        for clause in contract.clauses:
            for ref in re.findall(r"Sections? (\d+(?:\.\d+)?)", clause.text or ""):
                refs += 1
                assert ref in numbers, f"s{spec.id} clause {clause.number} refers to missing Section {ref}"
        assert refs >= 8, spec.id


def test_scripts_cite_existing_clauses_and_every_change_has_a_rationale(scenarios):
    for spec in scenarios:
        numbers = {c.number for c in spec.contract.clauses}
        for group in spec.groups:
            for script in group.scripts.values():
                for op in script.ops + script.violations:
                    if op.clause:
                        assert op.clause in numbers, (group.path, op.id)
                    if op.is_markup:
                        assert op.comment, (group.path, op.id)


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "synthetic"
    shutil.copytree(SOURCES_DIR, dst)
    return dst


def test_bad_sources_report_every_problem_with_file_and_field(tmp_path):
    root = _copy(tmp_path)
    contract = root / "s1" / "contract.yaml"
    contract.write_text(contract.read_text().replace('n: "3.4"', 'n: "3.9"'))
    group = root / "s1" / "t2-g01.yaml"
    text = group.read_text()
    text = text.replace("category: Legal correctness", "category: Legal Correctness", 1)
    text = text.replace("weight: 8\n", "weight: 11\n", 1)
    text = text.replace("requires: [e9]", "requires: [e99]", 1)
    group.write_text(text)
    with pytest.raises(SourceError) as info:
        load_sources(root)
    problems = info.value.problems
    joined = "\n".join(problems)
    assert "contract.yaml: clause 3.9: numbering runs out of order: Word would number it 3.4" in joined
    assert "t2-g01.yaml" in joined and "'Legal Correctness' is not one of" in joined
    assert "weight must be a non-zero integer in [-10, 10]" in joined
    assert "ground truth names unknown op e99" in joined
    assert len(problems) >= 4


def test_a_change_without_rationale_and_a_dangling_parent_are_refused(tmp_path):
    root = _copy(tmp_path)
    group = root / "s3" / "t2-g01.yaml"
    text = group.read_text()
    text = text.replace("parent: t1-g01", "parent: t1-g07")
    text = text.replace("    comment: Data-protection and security breaches must sit outside the general cap.\n", "")
    group.write_text(text)
    with pytest.raises(SourceError) as info:
        load_sources(root)
    joined = "\n".join(info.value.problems)
    assert "t1-g07 is not a golden of this scenario" in joined
    assert "(e3): every tracked change must carry a rationale comment" in joined


def test_missing_sources_directory_is_a_clear_error(tmp_path):
    with pytest.raises(SourceError, match="not a directory of synthetic sources"):
        load_sources(tmp_path / "nope")
