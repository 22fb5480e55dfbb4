"""Expected verdicts follow from ground truth; perturbations are distinct and move verdicts."""

from __future__ import annotations

from redlinebench.synthetic.judgecheck import cases, expected_verdict, expected_verdicts
from redlinebench.synthetic.sources import Op, RubricSpec, Script, VariantSpec


def _rubric(rid, weight, requires=(), unless=()):
    return RubricSpec(rid, "Commercial Context", weight, f"criterion {rid}", None, tuple(requires), tuple(unless))


def _op(oid, kind="replace", replaces=()):
    extra = {"text": "a", "new_text": "b"} if kind == "replace" else {}
    return Op(id=oid, op=kind, clause="1.1", comment=f"why {oid}", replaces=tuple(replaces), **extra)


def test_expected_verdict_rules():
    assert expected_verdict(_rubric("k", 5, requires=["e1", "e2"]), {"e1", "e2", "r1"}) == "PASS"
    assert expected_verdict(_rubric("k", 5, requires=["e1", "e2"]), {"e1"}) == "FAIL"          # partial = FAIL
    assert expected_verdict(_rubric("k", 5, unless=["v1"]), {"e1"}) == "PASS"                  # accepts: left intact
    assert expected_verdict(_rubric("k", 5, unless=["v1"]), {"e1", "v1"}) == "FAIL"
    assert expected_verdict(_rubric("k", -6, requires=["v1"]), {"e1"}) == "FAIL"               # penalty not triggered
    assert expected_verdict(_rubric("k", -6, requires=["v1"]), {"v1"}) == "PASS"               # penalty triggered
    assert expected_verdict(_rubric("k", 4, requires=["e1"], unless=["v2"]), {"e1", "v2"}) == "FAIL"


def _fixture():
    script = Script(
        key="t1-g01",
        ops=(_op("e1"), _op("e2"), _op("r1", "reply"), _op("e3")),
        violations=(_op("v1", replaces=["e2"]), _op("v2")),
        is_golden=True,
    )
    variant = VariantSpec("a", "t1-g01", (
        (_rubric("k1", 9, requires=["e2"]), 9),
        (_rubric("k2", 5, requires=["e1", "e3"]), 5),
        (_rubric("k3", 4, unless=["v1"]), 4),
        (_rubric("k4", -5, requires=["v2"]), -5),
    ))
    return script, variant


def test_cases_golden_first_then_distinct_perturbations():
    script, variant = _fixture()
    out = cases(script, variant)
    names = [c.name for c in out]
    assert names == ["golden", "drop-top", "drop-alternate", "reverse", "reverse-one", "comments-only"]
    assert len({tuple(o.id for o in c.ops) for c in out}) == len(out)
    by = {c.name: c for c in out}
    assert [o.id for o in by["drop-top"].ops] == ["e1", "r1", "e3"]            # k1 (weight 9) requires e2
    assert [o.id for o in by["drop-alternate"].ops] == ["e1", "r1"]            # ops[1::2] = e2, e3 removed
    assert [o.id for o in by["reverse"].ops] == ["e1", "v1", "r1", "e3", "v2"]  # v1 stands where e2 was
    assert [o.id for o in by["reverse-one"].ops] == ["e1", "v1", "r1", "e3"]
    assert [o.id for o in by["comments-only"].ops] == ["r1"]


def test_verdicts_per_case_are_hand_checked():
    script, variant = _fixture()
    by = {c.name: expected_verdicts(variant, c.present) for c in cases(script, variant)}
    assert by["golden"] == {"k1": "PASS", "k2": "PASS", "k3": "PASS", "k4": "FAIL"}
    assert by["drop-top"] == {"k1": "FAIL", "k2": "PASS", "k3": "PASS", "k4": "FAIL"}
    assert by["drop-alternate"] == {"k1": "FAIL", "k2": "FAIL", "k3": "PASS", "k4": "FAIL"}
    assert by["reverse"] == {"k1": "FAIL", "k2": "PASS", "k3": "FAIL", "k4": "PASS"}
    assert by["reverse-one"] == {"k1": "FAIL", "k2": "PASS", "k3": "FAIL", "k4": "FAIL"}
    assert by["comments-only"] == {"k1": "FAIL", "k2": "FAIL", "k3": "PASS", "k4": "FAIL"}
