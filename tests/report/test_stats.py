from pathlib import Path

from redlinebench.report._load import TrialRecord
from redlinebench.report._stats import judge_agreement


def _trial(rows):
    t = TrialRecord(path=Path("."), model_slug="m", task_id="redline-s1-t1-g01a", trial_name="1")
    t.grade = {"score": {"per_rubric": rows}}
    return t


def test_pairwise_agreement_and_kappa_by_hand():
    # a/b over 4 rubrics: PP, PF, FF, FF -> agreement 3/4; pa = 2/4, pb = 1/4
    # pe = .5*.25 + .5*.75 = .5 ; kappa = (.75 - .5) / .5 = .5
    rows = [
        {"rubric_id": "r1", "verdict": "PASS", "votes": {"a": "PASS", "b": "PASS"}},
        {"rubric_id": "r2", "verdict": "FAIL", "votes": {"a": "PASS", "b": "FAIL"}},
        {"rubric_id": "r3", "verdict": "FAIL", "votes": {"a": "FAIL", "b": "FAIL"}},
        {"rubric_id": "r4", "verdict": "FAIL", "votes": {"a": "FAIL", "b": "maybe"}},  # not PASS/FAIL -> FAIL
    ]
    agree = judge_agreement([_trial(rows)])
    (pair,) = agree.pairs
    assert (pair.a, pair.b, pair.n) == ("a", "b", 4)
    assert pair.agreement == 0.75 and abs(pair.kappa - 0.5) < 1e-12
    a, b = agree.judges
    assert a.pass_rate == 0.5 and a.panel_agreement == 0.75 and b.panel_agreement == 1.0
    assert agree.rubric_votes == 4 and agree.split_decisions == 1 and agree.unanimity == 0.75


def test_kappa_undefined_without_variation():
    rows = [{"rubric_id": "r1", "verdict": "PASS", "votes": {"a": "PASS", "b": "PASS"}}]
    assert judge_agreement([_trial(rows)]).pairs[0].kappa is None
