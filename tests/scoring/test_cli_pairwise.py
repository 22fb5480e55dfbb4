"""The paired comparison where people look on the command line: summarize's table and
``run --dry-run --power-from``."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from rich.console import Console

from redlinebench.cli import main
from redlinebench.cli._pairwise_table import print_pairwise
from redlinebench.scoring import rank_bands, summarize
from tests.scoring.test_cli_summarize import write_grades
from tests.scoring.test_pairwise import grade

MODELS = {"openai/gpt-5.5": 0.6, "anthropic/claude-opus-4-8": 0.59, "noop": 0.05}


def grades(trials: int = 2, seed: int = 4) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for s in (1, 2, 3):
        for t in (1, 2, 3, 4):
            for g in (1, 2):
                effect = rng.uniform(-0.2, 0.2)
                for m, mu in MODELS.items():
                    if m == "noop" and s == 3:
                        continue  # a partial model: 8 of 12 cells
                    out.extend(grade(m, s, t, g, min(1, max(0, mu + effect + rng.uniform(-0.1, 0.1))), trial=k)
                               for k in range(1, trials + 1))
    return out


def test_summarize_prints_the_pairwise_table_within_80_columns(tmp_path):
    write_grades(tmp_path / "run", [{**g, "model": g["model"]} for g in grades()])
    out = tmp_path / "s.json"
    r = CliRunner().invoke(main, ["summarize", str(tmp_path / "run"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    summary = json.loads(out.read_text())
    assert len(summary["pairwise"]) == 3
    assert "paired comparison (SPEC §6.1)" in r.output and "vs noop" in r.output
    assert "better" in r.output and "not" in r.output and "distinguishable" in r.output
    # the partial pair says what it was compared on
    assert "compared on the 16 input group(s) in 8 cell(s)" in r.output
    assert "smallest difference this run could detect" in r.output

    console = Console(width=80, record=True)
    print_pairwise(summary, console)
    text = console.export_text()
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    for p in summary["pairwise"]:
        assert f"{100 * p['diff']:+.1f}" in text  # every difference shown whole, not wrapped


def test_rank_bands_share_a_rank_when_not_distinguishable():
    def pair(a, b, sig, diff=0.1):
        return {"a": a, "b": b, "significant": sig, "diff": diff}

    order = ["w", "x", "y", "z"]
    pairs = [pair("w", "x", False), pair("w", "y", True), pair("w", "z", True), pair("x", "y", True),
             pair("x", "z", True), pair("y", "z", False)]
    assert rank_bands(order, pairs) == [1, 1, 3, 3]
    # significant against the board's order (unequal coverage) does not separate either
    pairs[3] = pair("x", "y", True, diff=-0.1)
    assert rank_bands(order, pairs) == [1, 1, 1, 1]
    summary = summarize(grades())
    assert rank_bands(summary["models"], summary["pairwise"])[-1] == 3  # noop is far below both


def test_dry_run_states_the_power_of_the_plan(tmp_path, monkeypatch):
    from tests.runner.taskfixture import build_tree

    tree = build_tree(tmp_path / "tree")
    prior = tmp_path / "prior"
    write_grades(prior, grades(trials=3))
    monkeypatch.chdir(tmp_path)
    args = ["run", "--agent", "noop", "--source", str(tree), "--trials", "3", "--judges", "heuristic", "--dry-run"]
    r = CliRunner().invoke(main, [*args, "--power-from", str(prior)])
    assert r.exit_code == 0, r.output
    assert "with 3 trial(s) on these 3 task(s), two models must differ by about" in r.output
    assert "by trials per task: 1:" in r.output
    one = tmp_path / "one"
    write_grades(one, grades(trials=1))
    r = CliRunner().invoke(main, [*args, "--power-from", str(one)])
    assert r.exit_code == 2 and "one trial per task" in r.output
    r = CliRunner().invoke(main, [*args[:-1], "--power-from", str(prior)])
    assert r.exit_code != 0 and "--power-from goes with --dry-run" in r.output


@pytest.mark.parametrize("width", [80, 120])
def test_no_pairs_no_table(width):
    console = Console(width=width, record=True)
    print_pairwise(summarize(grades()[:2]), console)
    assert "paired comparison" not in console.export_text()


def test_the_title_stays_on_one_line_over_a_narrow_table():
    """The demo's models are short, so the table is narrower than 80 columns: its title wrapped
    to the table ("... in" over "points"); it is a line of the console's width."""
    summary = summarize([g for g in grades() if g["model"] == "noop" or g["model"] == "openai/gpt-5.5"])
    summary["pairwise"] = [{**p, "a": "golden", "b": "noop"} for p in summary["pairwise"]]
    console = Console(width=80, record=True)
    print_pairwise(summary, console)
    lines = console.export_text().splitlines()
    assert lines[0].strip() == "paired comparison (SPEC §6.1): first model minus second, in points"


def test_the_table_says_how_each_interval_was_drawn():
    """SPEC §6.1 (amended): one group per cell (a --limit run) pools the cells, and the table says so."""
    one_each = [grade(m, s, t, 1, mu + 0.05 * (s if m < "b" else -t)) for s in (1, 2, 3) for t in (1, 2, 3, 4)
                for m, mu in (("openai/gpt-5.5", 0.5), ("anthropic/claude-opus-4-8", 0.3))]
    summary = summarize(one_each)
    (pair,) = summary["pairwise"]
    assert pair["ci_method"] == "pooled" and pair["ci"][0] < pair["ci"][1]
    console = Console(width=80, record=True)
    print_pairwise(summary, console)
    text = console.export_text()
    assert "pooled" in text and "pooled = cells holding one shared group resampled from a pool" in " ".join(text.split())


def test_pairs_without_shared_groups_are_one_line_not_a_row_each():
    """A run where several models have no scores printed ~150 rows of "no shared groups"."""
    import io

    scored = ["m1", "m2"]
    empty = [f"failed-{i}" for i in range(12)]
    pairs = [{"a": "m1", "b": "m2", "diff": 0.1, "ci": [0.0, 0.2], "p_holm": 0.04, "significant": True}]
    models = scored + empty
    pairs += [{"a": a, "b": b, "diff": None} for i, a in enumerate(models) for b in models[i + 1:]
              if (a, b) != ("m1", "m2")]
    buf = io.StringIO()
    print_pairwise({"pairwise": pairs}, Console(file=buf, width=80))
    out = buf.getvalue()
    assert "no shared groups" not in out and out.count("m1\n") + out.count("m1 ") >= 1
    flat = " ".join(out.split())
    assert flat.count("not compared") == 1
    assert f"not compared (no scored input group shared with any other model): {', '.join(empty)}" in flat
    assert len(out.splitlines()) < 20
