"""The reward formula and the leaderboard number exist once; every consumer calls them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import redlinebench
from redlinebench.integrations.hub import redline_overall_of
from redlinebench.report._components import redline_overall as report_redline_overall
from redlinebench.scoring import redline_overall, reward, rubric_satisfied

PACKAGE = Path(redlinebench.__file__).parent


@pytest.mark.parametrize(("passed", "penalty", "expected"), [
    (True, False, True), (False, False, False), (True, True, False), (False, True, True)])
def test_rubric_satisfied_truth_table(passed, penalty, expected):
    assert rubric_satisfied(passed, penalty=penalty) is expected


def test_satisfied_rubrics_are_what_the_reward_pays_for():
    rubrics = [{"id": "a", "weight": 3}, {"id": "b", "weight": 2}, {"id": "p", "weight": -1}]
    passed = {"a": True, "b": False, "p": False}
    assert reward(rubrics, passed).weighted == 3 / 5  # penalty absent: nothing subtracted
    satisfied = [r["id"] for r in rubrics if rubric_satisfied(passed[r["id"]], penalty=r["weight"] < 0)]
    assert satisfied == ["a", "p"]


def test_every_consumer_gives_the_same_leaderboard_number():
    # 0.12345 -> 12.345 -> 12.3; 0.98765 -> 98.765 -> 98.8 (hand-computed)
    for otw, expected in ((0.12345, 12.3), (0.98765, 98.8), (0.0, 0.0), (1.0, 100.0)):
        assert redline_overall(otw) == expected
        assert report_redline_overall({"overall_turn_weighted": otw}) == expected
        assert redline_overall_of({"model": "m", "overall_turn_weighted": otw}) == expected


def test_no_module_recomputes_the_formulas():
    """A copy of ``round(100 * otw, 1)`` or of the clamp would drift from SPEC §6 silently."""
    allowed = {PACKAGE / "scoring" / "_aggregate.py", PACKAGE / "scoring" / "_reward.py"}
    leaderboard = re.compile(r"round\(\s*100(\.0)?\s*\*")
    clamp = re.compile(r"\(\s*earned\w*\s*-\s*penalt")
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path in allowed:
            continue
        code = "\n".join(line.split("#")[0] for line in path.read_text(encoding="utf-8").splitlines()
                         if not line.lstrip().startswith(('"', "'")))
        if leaderboard.search(code) or clamp.search(code):
            offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []
