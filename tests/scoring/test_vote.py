"""Panel majority (SPEC §5.4): only judges that returned a verdict for a rubric vote; ties and no votes FAIL."""

from __future__ import annotations

from redlinebench.scoring import majority, normalize_verdict, panel_vote, votes_cast


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


def test_a_rubric_left_out_of_an_answer_is_no_vote():
    # SPEC §5.4: only the judges that returned a verdict for a rubric vote on it
    votes = {"j1": {"r": "PASS"}, "j2": {}, "j3": {}}
    assert panel_vote(votes, ["r"]) == {"r": "PASS"}          # P, missing, missing -> 1 of 1 -> PASS
    assert votes_cast(votes, "r") == {"j1": "PASS"}
    votes = {"j1": {"r": "PASS"}, "j2": {"r": "FAIL"}, "j3": {}}
    assert panel_vote(votes, ["r"]) == {"r": "FAIL"}          # P, F, missing -> 1 of 2 is a tie -> FAIL
    votes = {"j1": {"r": "PASS"}, "j2": {"r": "PASS"}, "j3": {"r": "FAIL"}, "j4": {}}
    assert panel_vote(votes, ["r"]) == {"r": "PASS"}          # P, P, F, missing -> 2 of 3
    votes = {"j1": {"r": "FAIL"}, "j2": {}, "j3": {}}
    assert panel_vote(votes, ["r"]) == {"r": "FAIL"}


def test_no_vote_at_all_is_fail():
    votes = {"j1": {"s": "PASS"}, "j2": {"s": "PASS"}, "j3": {"s": "PASS"}}
    assert panel_vote(votes, ["r", "s"]) == {"r": "FAIL", "s": "PASS"}
    assert votes_cast(votes, "r") == {} and majority({}) == "FAIL"


def test_a_non_exact_verdict_is_a_fail_vote_not_an_abstention():
    # "pass" is cast, and cast as FAIL: P, "pass", missing -> 1 of 2 -> tie -> FAIL
    votes = {"j1": {"r": "PASS"}, "j2": {"r": "pass"}, "j3": {}}
    assert votes_cast(votes, "r") == {"j1": "PASS", "j2": "FAIL"}
    assert panel_vote(votes, ["r"]) == {"r": "FAIL"}
    votes = {"j1": {"r": "PASS"}, "j2": {"r": None}, "j3": {"r": "PASS"}}
    assert panel_vote(votes, ["r"]) == {"r": "PASS"}


def test_single_judge_missing_rubric_is_fail():
    # SPEC §5.3 for one judge: a rubric missing from its answer counts as FAIL
    assert panel_vote({"h": {"a": "PASS"}}, ["a", "b"]) == {"a": "PASS", "b": "FAIL"}


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
