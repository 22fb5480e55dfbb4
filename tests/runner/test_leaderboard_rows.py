"""The run's printed leaderboard: a model with no scored cell shows no interval, not 0.0-0.0."""

from __future__ import annotations

from redlinebench.runner.leaderboard import leaderboard_rows


def test_no_scored_cell_shows_no_interval():
    rows = leaderboard_rows({"leaderboard": [
        {"model": "m1", "overall_turn_weighted": None, "ci": [0.0, 0.0], "by_turn": {}, "n_trials": 0},
        {"model": "m2", "overall_turn_weighted": 0.5, "ci": [0.4123, 0.61], "by_turn": {"1": 0.5}, "n_trials": 3},
    ]})
    assert rows[0]["overall"] == "-" and rows[0]["95% CI"] == "-"
    assert rows[1]["overall"] == "50.0" and rows[1]["95% CI"] == "41.2-61.0" and rows[1]["T1"] == "50.0"
