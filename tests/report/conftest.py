from __future__ import annotations

from pathlib import Path

import pytest

from .runfixture import MODELS, PLAN, build_benchmark, build_run


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
    return build_run(tmp_path / "runs", bench=bench, plan=plan, run_id="run-b")
