"""The run's printed leaderboard: a model with no scored cell shows no interval, not 0.0-0.0."""

from __future__ import annotations

from redlinebench.runner.leaderboard import leaderboard_rows


def test_no_scored_cell_shows_no_interval():
    rows = leaderboard_rows({"leaderboard": [
        {"model": "m1", "overall_turn_weighted": None, "ci": [0.0, 0.0], "by_turn": {}, "n_trials": 0},
        {"model": "m2", "overall_turn_weighted": 0.5, "ci": [0.4123, 0.61], "by_turn": {"1": 0.5}, "n_trials": 3},
    ]})
    assert rows[0]["redline_overall"] == "-" and rows[0]["95% CI"] == "-"
    assert rows[1]["redline_overall"] == "50.0" and rows[1]["95% CI"] == "41.2-61.0" and rows[1]["T1"] == "50.0"


def test_printed_table_pads_every_column_alike_including_the_edges():
    import io

    from rich.console import Console

    from redlinebench.runner.leaderboard import print_leaderboard

    out = io.StringIO()
    print_leaderboard({"judge_method": "heuristic", "leaderboard": [
        {"model": "golden", "overall_turn_weighted": 0.884, "ci": [0.828, 0.937], "by_turn": {"1": 0.915},
         "by_side_turn_weighted": {"A": 0.86}, "n_trials": 39, "n_gate_failures": 0},
    ]}, Console(file=out, width=140, color_system=None))
    lines = out.getvalue().splitlines()
    header = next(line for line in lines if "gate fail" in line)
    row = next(line for line in lines if "golden" in line)
    for line, sep in ((header, "┃"), (row, "│")):
        cells = line.strip().strip(sep).split(sep)
        assert len(cells) == 13, line
        assert all(c.startswith(" ") and c.endswith(" ") for c in cells), line
    assert "gate fail ┃" in header and "┃ model" in header


def test_every_models_missing_cells_are_named_under_the_table():
    import io

    from rich.console import Console

    from redlinebench.runner.leaderboard import print_leaderboard

    out = io.StringIO()
    print_leaderboard({"grid": {"complete": False, "note": "see each entry's grid_note"}, "leaderboard": [
        {"model": "m1", "overall_turn_weighted": 0.5, "ci": [0.4, 0.6], "grid_note": "missing cells 1-1"},
        {"model": "m2", "overall_turn_weighted": 0.4, "ci": [0.3, 0.5], "grid_note": "missing cells 3-4"},
    ]}, Console(file=out, width=160, color_system=None))
    text = out.getvalue()
    assert "partial grid" in text and "m1: missing cells 1-1" in text and "m2: missing cells 3-4" in text
