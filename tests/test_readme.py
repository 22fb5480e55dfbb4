"""The README's Python snippets run as written (offline: the embedded set stands in for the Hub)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _python_blocks() -> dict[str, str]:
    """```python blocks of README.md by the heading they sit under."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks: dict[str, str] = {}
    heading = ""
    for part in re.split(r"^(#+ .*)$", text, flags=re.M):
        if part.startswith("#"):
            heading = part.lstrip("# ").strip()
            continue
        for code in re.findall(r"```python\n(.*?)```", part, flags=re.S):
            blocks[heading] = blocks.get(heading, "") + code
    return blocks


@pytest.fixture
def offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("REDLINEBENCH_BENCHMARK_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # no ./benchmark


def test_the_notebook_snippet_runs_and_looks_a_task_up_by_id(offline, capsys):
    code = _python_blocks()["Load the data in a notebook"]
    assert 'tasks["redline-s1-t2-g01a"]' in code
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert scope["t"].task_id == "redline-s1-t2-g01a" and scope["tasks"].source.kind == "embedded"
    assert "p-" in capsys.readouterr().out  # the read view, paragraph ids and all


def test_the_run_snippets_selection_is_the_clis_and_runs(offline, tmp_path):
    """`RunSpec(scenario=1, turn=2, limit=3)` as the README shows it: the spec is built as written (the
    model run itself needs a key) and the selection runs with the golden baseline."""
    from redlinebench.runner import TaskFilter, run

    code = _python_blocks()["Run directory"]
    prefix = code.split("\nresult = run(", 1)[0]  # imports and specs; running an llm needs a key
    assert "scenario=1" in prefix and "limit=3" in prefix
    scope: dict = {}
    exec(compile(prefix, "README.md", "exec"), scope)
    assert scope["smoke"].filter == TaskFilter(scenario=1, turn=2, limit=3)
    result = run(scope["smoke"], tmp_path / "runs" / "smoke")
    assert result.ok, result.problems
    assert result.summary["n_trials"] == 3
    graded = sorted(p.parent.parent.name for p in (result.run_dir / "trials").glob("*/*/*/grade.json"))
    assert graded == ["redline-s1-t2-g01a", "redline-s1-t2-g01b", "redline-s1-t2-g01c"]
