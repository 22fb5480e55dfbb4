"""Panel majority (SPEC §5.4): ties FAIL, missing verdicts FAIL, absent judges do not vote."""

from __future__ import annotations

from redlinebench.scoring import normalize_verdict, panel_vote


def test_two_of_three_pass():
    votes = {"j1": {"r": "PASS"}, "j2": {"r": "PASS"}, "j3": {"r": "FAIL"}}
    assert panel_vote(votes, ["r"]) == {"r": "PASS"}


def test_one_of_three_fails():
    votes = {"j1": {"r": "PASS"}, "j2": {"r": "FAIL"}, "j3": {"r": "FAIL"}}
    assert panel_vote(votes, ["r"]) == {"r": "FAIL"}


def test_tie_between_two_answering_judges_is_fail():
    # j3 failed after all retries: it is absent, so 1 PASS of 2 is a tie -> FAIL
    votes = {"j1": {"r": "PASS"}, "j2": {"r": "FAIL"}}
    assert panel_vote(votes, ["r"]) == {"r": "FAIL"}


def test_absent_judge_does_not_count_against():
    votes = {"j1": {"r": "PASS"}, "j2": {"r": "PASS"}}
    assert panel_vote(votes, ["r"]) == {"r": "PASS"}


def test_rubric_missing_from_an_answer_is_that_judges_fail():
    votes = {"j1": {"r": "PASS", "s": "PASS"}, "j2": {"r": "PASS"}, "j3": {"s": "PASS"}}
    # r: PASS, PASS, missing(FAIL) -> 2/3 PASS ; s: PASS, missing, PASS -> PASS ; t: nobody -> FAIL
    assert panel_vote(votes, ["r", "s", "t"]) == {"r": "PASS", "s": "PASS", "t": "FAIL"}


def test_non_exact_verdicts_are_fail():
    votes = {"j1": {"r": "pass"}, "j2": {"r": "Pass"}, "j3": {"r": "PASS"}}
    assert panel_vote(votes, ["r"]) == {"r": "FAIL"}
    assert normalize_verdict(" PASS ") == "FAIL"  # SPEC §5.3: exactly PASS; padding is not forgiven
    for bad in (True, None, 1, "PARTIAL", "PASS!", ["PASS"]):
        assert normalize_verdict(bad) == "FAIL"


def test_no_judge_answered_means_all_fail():
    assert panel_vote({}, ["a", "b"]) == {"a": "FAIL", "b": "FAIL"}


def test_single_judge_panel_is_that_judge():
    assert panel_vote({"h": {"a": "PASS", "b": "FAIL"}}, ["a", "b"]) == {"a": "PASS", "b": "FAIL"}
