"""summarize() on a hand-computed fixture, plus reordering invariance.

Fixture (model "m"), rewards per trial:

  cell 1-1 (side A)  group s1-t1-g01: g01a t1 0.4, g01a t2 1.0, g01b t1 gate failure 0.0 -> 1.4/3
                     group s1-t1-g02: g02a t1 0.2                                          -> 0.2
                     cell = (0.466667 + 0.2) / 2 = 0.333333 -> 0.3333
  cell 1-2 (side B)  group s1-t2-g01: g01a t1 1/3                     -> cell 0.3333
  cell 3-4 (side B)  group s3-t4-g01: g01a t1 1/7                     -> cell 0.1429
  cell 2-1           only a judging_incomplete trial: excluded, listed

  headline    (0.3333 + 0.3333 + 0.1429) / 3 = 0.8095 / 3 = 0.269833 -> 0.2698 ; redline_overall 27.0
  best@k      g01a best 1.0 -> group g01 (1.0 + 0.0)/2 = 0.5 -> cell 1-1 (0.5 + 0.2)/2 = 0.35
              (0.35 + 0.3333 + 0.1429) / 3 = 0.8262 / 3 = 0.2754
  overall     groups (0.466667 + 0.2 + 0.333333 + 0.142857) / 4 = 0.285714 -> 0.2857
  per task    (0.4 + 1 + 0 + 0.2 + 0.333333 + 0.142857) / 6 = 0.346032 -> 0.3460
  by_turn     1: (0.466667 + 0.2)/2 -> 0.3333 ; 2: 0.3333 ; 4: 0.1429
  by scen     1: 0.3333 ; 3: 0.1429        by side  A: 0.3333 ; B: (0.3333 + 0.1429)/2 = 0.2381
  category    Legal correctness: correct 4 (PASS +4) + 2 (FAIL -2) of 4+2+3+3 -> 6/12 = 0.5
              Commercial Context: 5 + 6 of 6 + 5 + 6 -> 11/17 = 0.6471 ; Negotiation Quality 0/20 = 0.0
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redlinebench.scoring import GradeFileError, TrialGrade, bootstrap_ci, summarize


def rv(rid, weight, verdict, category):
    return {"rubric_id": rid, "verdict": verdict, "weight": weight, "is_penalty": weight < 0,
            "category": category, "criteria": f"criterion {rid}", "justification": "j"}


def grade(task_id, trial, weighted, *, model="m", side=None, status=None, gate=True, per_rubric=(), **score_extra):
    s, t, g, v = task_id[9], task_id[12], task_id[15:17], task_id[17]
    sides = {"1": "ABAB", "2": "BABA", "3": "ABAB"}[s]
    out = {
        "task_id": task_id, "model": model, "trial": trial, "scenario_id": int(s), "turn": int(t),
        "side": side or sides[int(t) - 1], "input_group": f"s{s}-t{t}-g{g}", "variant": v,
        "judge_method": "llm", "judges": ["j1", "j2", "j3"],
        "gate": {"passed": gate} if gate else {"passed": False, "reason": "no tracked change by author"},
        "score": {"weighted": weighted, "per_rubric": list(per_rubric), **score_extra},
    }
    if status:
        out["status"] = status
    return out


LC, CC, NQ = "Legal correctness", "Commercial Context", "Negotiation Quality"


def fixture():
    return [
        grade("redline-s1-t1-g01a", 1, 0.4, per_rubric=[rv("r1", 4, "PASS", LC), rv("r2", -2, "FAIL", LC),
                                                       rv("r3", 6, "FAIL", CC)], redlines=2, surgicalness_score=0.5),
        grade("redline-s1-t1-g01a", 2, 1.0, redlines=4, surgicalness_score=None),
        grade("redline-s1-t1-g01b", 1, 0.0, gate=False),
        grade("redline-s1-t1-g02a", 1, 0.2, per_rubric=[rv("q1", 5, "PASS", CC), rv("q2", 20, "FAIL", NQ)]),
        grade("redline-s1-t2-g01a", 1, 1 / 3, per_rubric=[rv("p1", 6, "PASS", CC), rv("p2", 3, "FAIL", LC),
                                                         rv("p3", -3, "PASS", LC)]),
        grade("redline-s3-t4-g01a", 1, 1 / 7),
        grade("redline-s2-t1-g01a", 1, 0.9, status="judging_incomplete"),
    ]


def entry(summary, model="m"):
    return next(e for e in summary["leaderboard"] if e["model"] == model)


def test_hand_computed_fixture():
    summary = summarize(fixture())
    e = entry(summary)
    assert e["overall_turn_weighted"] == 0.2698
    assert e["redline_overall"] == 27.0
    assert e["best_at_k_turn_weighted"] == 0.2754
    assert e["overall_score"] == 0.2857
    assert e["mean_per_task_reward"] == 0.346
    assert e["by_turn"] == {"1": 0.3333, "2": 0.3333, "4": 0.1429}
    assert e["by_scenario_turn"] == {"1-1": 0.3333, "1-2": 0.3333, "3-4": 0.1429}
    assert e["by_scenario_turn_weighted"] == {"1": 0.3333, "3": 0.1429}
    assert e["by_side_turn_weighted"] == {"A": 0.3333, "B": 0.2381}
    assert e["by_category"] == {CC: 0.6471, LC: 0.5, NQ: 0.0}
    assert e["diagnostics"] == {"redlines": 3.0, "edit_operations": None, "total_revisions": None,
                                "touched_paragraphs": None, "comments_added": None, "median_insertion_chars": None,
                                "surgicalness_score": 0.5}
    assert e["n_trials"] == 6 and e["n_gate_failures"] == 1 and e["n_input_groups"] == 4
    assert e["n_incomplete"] == 1 and e["n_cells"] == 3 and not e["grid_complete"]
    assert "3 of 12" in e["grid_note"] and "2-1" in e["missing_cells"]
    assert e["ci"] == bootstrap_ci([0.3333, 0.3333, 0.1429], "m")
    assert summary["n_trials"] == 6 and summary["n_models"] == 1 and summary["judge_method"] == "llm"
    assert summary["redline_overall"] == {"m": 27.0}
    assert summary["incomplete"] == [{"model": "m", "task_id": "redline-s2-t1-g01a", "trial": 1,
                                      "status": "judging_incomplete", "reason": "judging_incomplete"}]
    assert summary["gate_failures"][0]["task_id"] == "redline-s1-t1-g01b"
    assert summary["grid"]["complete"] is False
    json.dumps(summary, allow_nan=False)  # serialisable as metrics_summary.json


def test_full_grid_and_leaderboard_order():
    grades = []
    for model, base in (("low", 0.2), ("high", 0.6)):
        for s in (1, 2, 3):
            for t in (1, 2, 3, 4):
                grades.append(grade(f"redline-s{s}-t{t}-g01a", 1, base + 0.01 * t, model=model))
    summary = summarize(grades)
    assert summary["models"] == ["high", "low"]
    high = entry(summary, "high")
    # cells 0.61..0.64 repeated over 3 scenarios: mean 0.625
    assert high["overall_turn_weighted"] == 0.625 and high["redline_overall"] == 62.5
    assert high["grid_complete"] and high["grid_note"] is None and summary["grid"]["complete"]
    assert high["by_turn"] == {"1": 0.61, "2": 0.62, "3": 0.63, "4": 0.64}
    # sides: S1 A,B,A,B  S2 B,A,B,A  S3 A,B,A,B -> A cells 0.61,0.63,0.62,0.64,0.61,0.63
    assert high["by_side_turn_weighted"] == {"A": 0.6233, "B": 0.6267}


def test_gate_failures_are_zero_rows_always_counted():
    summary = summarize([grade("redline-s1-t1-g01a", 1, 0.8), grade("redline-s1-t1-g01b", 1, 0.0, gate=False)])
    e = entry(summary)
    assert e["overall_turn_weighted"] == 0.4 and e["n_trials"] == 2 and e["n_gate_failures"] == 1


def test_model_with_only_incomplete_trials_is_listed_last_with_null_scores():
    summary = summarize([grade("redline-s1-t1-g01a", 1, 0.5, model="ok"),
                         grade("redline-s1-t1-g01a", 1, 0.0, model="broken", status="errored")])
    assert summary["models"] == ["ok", "broken"]
    broken = entry(summary, "broken")
    assert broken["overall_turn_weighted"] is None and broken["redline_overall"] is None
    assert broken["n_incomplete"] == 1 and broken["n_trials"] == 0


def test_empty_input():
    summary = summarize([])
    assert summary["n_models"] == 0 and summary["leaderboard"] == [] and summary["n_trials"] == 0


def test_duplicate_trials_are_warned_not_hidden():
    g = grade("redline-s1-t1-g01a", 1, 0.5)
    summary = summarize([g, dict(g)])
    assert entry(summary)["n_trials"] == 2
    assert any("1 trial(s) appear more than once" in w for w in summary["warnings"])
    many = [grade("redline-s1-t1-g01a", k, 0.5) for k in range(1, 40)]
    summary = summarize(many + [dict(g) for g in many])  # two copies of a whole run: one warning, not 39
    dup = [w for w in summary["warnings"] if "more than once" in w]
    assert len(dup) == 1 and "39 trial(s)" in dup[0] and "and 38 more" in dup[0]


def test_spec_minimal_grade_without_status_or_version_is_read():
    minimal = {"task_id": "redline-s2-t3-g05b", "model": "x", "trial": 1,
               "gate": {"passed": True}, "score": {"weighted": 0.75}}
    g = TrialGrade.from_dict(minimal)
    assert (g.scenario_id, g.turn, g.side, g.input_group, g.variant, g.status) == (2, 3, "B", "s2-t3-g05", "b",
                                                                                   "graded")
    assert entry(summarize([minimal]), "x")["by_side_turn_weighted"] == {"B": 0.75}


def test_missing_weighted_is_computed_by_the_reward_function():
    g = grade("redline-s1-t1-g01a", 1, None, per_rubric=[rv("a", 4, "PASS", LC), rv("b", -1, "PASS", LC),
                                                        rv("c", 6, "FAIL", CC)])
    del g["score"]["weighted"]
    assert TrialGrade.from_dict(g).weighted == 0.3  # (4 - 1) / 10
    g["score"]["per_rubric"] = []
    with pytest.raises(GradeFileError, match="score.weighted"):
        TrialGrade.from_dict(g)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.pop("model"), "model"),
    (lambda d: d["score"].update(weighted=1.5), "outside [0, 1]"),
    (lambda d: d["score"].update(weighted=float("nan")), "finite"),
    (lambda d: d.update(status="done"), "status"),
    (lambda d: d.update(side="C"), "side"),
    (lambda d: d.update(gate={"passed": "yes"}), "gate"),
    (lambda d: d["score"].update(per_rubric=[{"rubric_id": "a", "weight": "heavy"}]), "weight"),
    # a NaN weight would turn by_category into NaN and the summary into invalid JSON
    (lambda d: d["score"].update(per_rubric=[{"rubric_id": "a", "verdict": "PASS", "weight": float("nan")}]),
     "weight: must be a finite number"),
    (lambda d: d["score"].update(per_rubric=[{"rubric_id": "a", "verdict": "PASS", "weight": float("inf")}]),
     "weight: must be a finite number"),
    (lambda d: d.update(schema_version=99), "schema_version"),
])
def test_bad_grades_name_the_problem(mutate, message):
    g = grade("redline-s1-t1-g01a", 1, 0.5)
    mutate(g)
    with pytest.raises(GradeFileError, match=re.escape(message)):
        summarize([g])


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_reward_parts_read_as_zero_not_a_traceback(bad):
    g = grade("redline-s1-t1-g01a", 1, 0.5, n_pass=bad, n_total=bad, earned_weight=bad, total_weight=bad)
    tg = TrialGrade.from_dict(json.loads(json.dumps(g)))
    assert (tg.n_pass, tg.n_total, tg.earned_weight, tg.total_weight) == (0, 0, 0, 0)
    assert entry(summarize([g]))["overall_turn_weighted"] == 0.5


def test_grade_file_roundtrip_and_errors(tmp_path):
    g = TrialGrade.from_dict(fixture()[0])
    path = g.write(tmp_path / "a" / "grade.json")
    back = TrialGrade.read(path)
    assert back.to_dict() == g.to_dict()
    assert back.to_dict()["score"]["per_rubric"][1]["is_penalty"] is True
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(GradeFileError, match=r"bad\.json.*not valid JSON"):
        TrialGrade.read(tmp_path / "bad.json")
    with pytest.raises(GradeFileError, match="cannot read"):
        TrialGrade.read(tmp_path / "missing.json")
    # a grade written by a tool that starts UTF-8 with a byte-order mark (PowerShell, Notepad) reads the same
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert TrialGrade.read(tmp_path / "bom.json").to_dict() == g.to_dict()


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False))
def test_summary_invariant_under_reordering(rnd: random.Random):
    grades = fixture() + [grade("redline-s1-t1-g01a", 1, 0.3, model="other"),
                          grade("redline-s2-t2-g03c", 2, 0.9, model="other")]
    expected = summarize(grades)
    shuffled = list(grades)
    rnd.shuffle(shuffled)
    assert summarize(shuffled) == expected


def test_errored_trials_do_not_count_toward_the_judge_method():
    """An errored trial never reached the judges (Harbor labels it "none"): a heuristic-only set is
    heuristic, not "mixed"; a graded trial of another method still makes it mixed."""
    heuristic = [{**grade("redline-s1-t1-g01a", 1, 0.5), "judge_method": "heuristic"},
                 {**grade("redline-s1-t2-g01a", 1, 0.0, status="errored"), "judge_method": "none"}]
    summary = summarize(heuristic)
    assert summary["judge_method"] == "heuristic" and summary["leaderboard"][0]["judge_method"] == "heuristic"
    only_errored = summarize(heuristic[1:])
    assert only_errored["judge_method"] == "none" and only_errored["leaderboard"][0]["judge_method"] == "none"
    mixed = summarize([*heuristic, grade("redline-s1-t3-g01a", 1, 0.5)])
    assert mixed["judge_method"] == "mixed" and mixed["leaderboard"][0]["judge_methods"] == ["heuristic", "llm"]


def test_category_views_count_a_gate_failure_as_all_wrong():
    """SPEC's by_category credits a gate failure (all rubrics FAIL) with its untriggered penalties;
    the pages' variant counts it as all wrong, as its reward is 0 (issue 31: noop scored 46)."""
    from redlinebench.scoring import by_category_gate_zero

    rubrics = [{"rubric_id": "k1", "verdict": "FAIL", "weight": 6, "is_penalty": False, "category": "Legal"},
               {"rubric_id": "k2", "verdict": "FAIL", "weight": -4, "is_penalty": True, "category": "Legal"},
               {"rubric_id": "k3", "verdict": "FAIL", "weight": -2, "is_penalty": True, "category": "Deal"}]
    failed = {"gate": {"passed": False}, "score": {"per_rubric": rubrics}}
    passed = {"gate": {"passed": True}, "score": {"per_rubric": [{**r, "verdict": "PASS"} if r["rubric_id"] == "k1" else r
                                                                   for r in rubrics]}}
    assert by_category_gate_zero([failed]) == {"Deal": 0.0, "Legal": 0.0}
    # a passed gate: k1 PASS (6) and k2 avoided (4) of 10 in Legal; k3 avoided in Deal
    assert by_category_gate_zero([passed]) == {"Deal": 1.0, "Legal": 1.0}
    assert by_category_gate_zero([passed, failed]) == {"Deal": 0.5, "Legal": 0.5}
