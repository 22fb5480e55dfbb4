"""The one reward formula (SPEC §6), on hand-computed cases and properties."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redlinebench.scoring import reward


@dataclass(frozen=True)
class R:  # a rubric-like test double: reward() needs only id and weight
    id: str
    weight: int


RUBRICS = [R("a", 5), R("b", 3), R("c", -4), R("d", 2)]


def test_earned_minus_penalty_over_total_positive():
    out = reward(RUBRICS, {"a": True, "c": True})
    # earned 5, penalty 4, total_pos 5+3+2 = 10 -> (5-4)/10
    assert out.weighted == pytest.approx(0.1)
    assert (out.earned_weight, out.penalty_weight, out.total_weight) == (5, 4, 10)
    assert (out.n_pass, out.n_total) == (1, 3)


def test_clamped_at_zero_when_penalties_exceed_earnings():
    out = reward(RUBRICS, {"b": True, "c": True})  # (3 - 4) / 10 -> clamp 0
    assert out.weighted == 0.0
    assert out.penalty_weight == 4


def test_all_positive_pass_no_penalty_is_one():
    assert reward(RUBRICS, {"a": True, "b": True, "d": True}).weighted == 1.0


def test_missing_verdict_counts_as_fail():
    assert reward(RUBRICS, {"a": True}).weighted == pytest.approx(0.5)


def test_no_positive_rubric_scores_zero():
    out = reward([R("x", -3), R("y", 0)], {"x": False, "y": True})
    assert out.weighted == 0.0 and out.total_weight == 0


def test_gate_failure_scores_zero_but_reports_total():
    out = reward(RUBRICS, {"a": True, "b": True, "d": True}, gate_passed=False)
    assert out.weighted == 0.0
    assert out.total_weight == 10 and out.earned_weight == 0


def test_accepts_dict_rubrics():
    out = reward([{"id": "a", "weight": 4}, {"id": "b", "weight": 4}], {"b": True})
    assert out.weighted == 0.5


def test_rejects_non_numeric_weight():
    with pytest.raises(TypeError):
        reward([R("a", "5")], {"a": True})  # type: ignore[arg-type]


weights = st.lists(st.integers(min_value=-10, max_value=10), min_size=1, max_size=22)


@given(weights, st.data())
def test_reward_in_unit_interval(ws, data):
    rubrics = [R(f"r{i}", w) for i, w in enumerate(ws)]
    passed = {r.id: data.draw(st.booleans()) for r in rubrics}
    assert 0.0 <= reward(rubrics, passed).weighted <= 1.0


@given(weights, st.data())
def test_adding_a_pass_on_a_positive_rubric_never_lowers(ws, data):
    rubrics = [R(f"r{i}", w) for i, w in enumerate(ws)]
    passed = {r.id: data.draw(st.booleans()) for r in rubrics}
    failing_positive = [r.id for r in rubrics if r.weight > 0 and not passed[r.id]]
    if not failing_positive:
        return
    flip = data.draw(st.sampled_from(failing_positive))
    before = reward(rubrics, passed).weighted
    after = reward(rubrics, {**passed, flip: True}).weighted
    assert after >= before


@given(weights, st.data())
def test_adding_a_pass_on_a_penalty_rubric_never_raises(ws, data):
    rubrics = [R(f"r{i}", w) for i, w in enumerate(ws)]
    passed = {r.id: data.draw(st.booleans()) for r in rubrics}
    candidates = [r.id for r in rubrics if r.weight < 0 and not passed[r.id]]
    if not candidates:
        return
    flip = data.draw(st.sampled_from(candidates))
    assert reward(rubrics, {**passed, flip: True}).weighted <= reward(rubrics, passed).weighted
