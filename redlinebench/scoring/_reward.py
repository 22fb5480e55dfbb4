"""The reward formula of SPEC §6, written once.

Every other module (grade files, summaries, the heuristic judge, reports) calls
:func:`reward`; nothing re-derives or re-clamps it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class RubricLike(Protocol):
    """Anything with an ``id`` and an integer ``weight`` (``redlinebench.tasks.Rubric`` fits)."""

    id: str
    weight: int


#: The reward's fields, in the order grade.json's ``score`` lists them.
REWARD_FIELDS = ("weighted", "earned_weight", "penalty_weight", "total_weight", "n_pass", "n_total")


@dataclass(frozen=True)
class RewardBreakdown:
    """The parts of one task's reward, as ``grade.json`` records them."""

    weighted: float        # the reward in [0, 1]
    earned_weight: int     # sum of w over PASS rubrics with w > 0
    penalty_weight: int    # sum of |w| over PASS rubrics with w < 0
    total_weight: int      # sum of w over rubrics with w > 0
    n_pass: int            # positive rubrics that passed
    n_total: int           # positive rubrics

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in REWARD_FIELDS}


def _weight(rubric: Any) -> int:
    weight = rubric["weight"] if isinstance(rubric, Mapping) else rubric.weight
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        raise TypeError(f"rubric weight must be a number, got {weight!r}")
    return weight  # type: ignore[return-value]


def _rid(rubric: Any) -> str:
    return str(rubric["id"] if isinstance(rubric, Mapping) else rubric.id)


def reward(rubrics: Sequence[RubricLike] | Sequence[Mapping[str, Any]],
           passed: Mapping[str, bool], *, gate_passed: bool = True) -> RewardBreakdown:
    """Score one task: ``clamp((earned - penalty) / total_pos, 0, 1)``.

    ``passed`` maps rubric id -> PASS?; a rubric absent from it counts as FAIL. The reward is 0
    when no rubric has a positive weight or when the validity gate failed (the parts are still
    reported so a reader can see what the task was worth).
    """
    earned = penalty = total = n_pass = n_total = 0
    for rubric in rubrics:
        w = _weight(rubric)
        ok = bool(passed.get(_rid(rubric), False)) and gate_passed
        if w > 0:
            total += w
            n_total += 1
            if ok:
                earned += w
                n_pass += 1
        elif w < 0 and ok:
            penalty += -w
    if total <= 0 or not gate_passed:
        value = 0.0
    else:
        value = min(1.0, max(0.0, (earned - penalty) / total))
    return RewardBreakdown(value, earned, penalty, total, n_pass, n_total)


def rubric_satisfied(passed: bool, *, penalty: bool) -> bool:
    """Whether a rubric's outcome is the desirable one, by the same sign rule as :func:`reward`.

    A positive rubric is satisfied when it passes; a penalty rubric (negative weight: the
    undesirable edit is present when it passes) when it does not. Category profiles and the
    reports' "satisfied" rates count with this, never with their own copy of the rule.
    """
    return bool(passed) != bool(penalty)
