from __future__ import annotations

import copy
from pathlib import Path

import pytest

from .runfixture import MODELS, PLAN, SUMMARY, build_benchmark, build_run


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    return build_benchmark(tmp_path / "bench")


@pytest.fixture
def run_dir(tmp_path: Path, bench: Path) -> Path:
    return build_run(tmp_path / "runs", bench=bench)


@pytest.fixture
def run_b(tmp_path: Path, bench: Path) -> Path:
    """A second run: one new model and a re-run of openai/gpt-5.5 (same label as in run_dir)."""
    plan = {"google/gemini-3.5-flash": {k: v[:1] for k, v in PLAN[MODELS[0]].items()},
            MODELS[0]: {"redline-s1-t1-g01a": PLAN[MODELS[0]]["redline-s1-t1-g01a"][:1]}}
    summary = copy.deepcopy(SUMMARY)
    gem = copy.deepcopy(SUMMARY["leaderboard"][0])
    gem.update(model="google/gemini-3.5-flash", overall_turn_weighted=0.5512, ci=[0.31, 0.74], n_trials=4)
    gpt = copy.deepcopy(SUMMARY["leaderboard"][0])
    gpt.update(overall_turn_weighted=0.8, ci=[0.8, 0.8], by_scenario_turn={"1-1": 0.8}, n_trials=1)
    summary.update(n_trials=5, n_models=2, models=list(plan), leaderboard=[gpt, gem])
    return build_run(tmp_path / "runs", bench=bench, plan=plan, summary=summary, run_id="run-b")
