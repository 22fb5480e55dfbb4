"""Execute notebooks 02 (run and score) and 03 (compare models) end to end with nbclient.

Notebook 02 runs the offline baselines on scenario 1 of the embedded synthetic set (the task-tree
fixture of the tasks tests stands in when the embedded set is not built in this checkout); 03
compares them.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from redlinebench.config import embedded_benchmark_dir

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("notebooks")


@pytest.fixture
def nb_env(workdir, monkeypatch) -> Path:
    if (embedded_benchmark_dir() / "tasks").is_dir():
        source = "embedded"
    else:  # the synthetic set is not built here: a small real task tree instead
        from tests.tasks.treefactory import build_tree

        tree = workdir / "tree"
        if not tree.exists():
            build_tree(tree)
        source = str(tree)
    monkeypatch.setenv("REDLINEBENCH_NOTEBOOK_SOURCE", source)
    monkeypatch.setenv("REDLINEBENCH_NOTEBOOK_SCENARIO", "1")  # one scenario keeps the suite fast; the code path is the same
    monkeypatch.setenv("REDLINEBENCH_NOTEBOOK_RUNS", str(workdir / "runs"))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    return workdir


def _execute(name: str, cwd: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), f"{name}: outputs must be stripped in git"
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def _outputs(nb, mime: str) -> list[str]:
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream" and mime == "text/plain":
                out.append(o["text"])
            data = o.get("data", {})
            if mime in data:
                out.append(data[mime])
    return out


def test_02_run_and_score(nb_env):
    nb = _execute("02_run_and_score.ipynb", nb_env)
    run_dir = nb_env / "runs" / "nb-baselines-s1"  # the notebook names the directory after its selection
    summary = json.loads((run_dir / "metrics_summary.json").read_text())
    board = {e["model"]: e for e in summary["leaderboard"]}
    assert set(board) == {"golden", "accept-all", "noop"}
    n_tasks = len(json.loads((run_dir / "config.json").read_text())["data"]["task_ids"])
    assert board["golden"]["n_trials"] == n_tasks and board["golden"]["n_gate_failures"] == 0
    assert board["noop"]["n_gate_failures"] > 0  # an untouched contract fails the gate (where no earlier edit is ours)
    assert board["noop"]["redline_overall"] <= board["golden"]["redline_overall"]
    html = "".join(_outputs(nb, "text/html"))
    for model in board:  # the results table
        assert f">{model}<" in html
    assert f">{board['golden']['redline_overall']}<" in html
    svg = _outputs(nb, "image/svg+xml")
    assert svg and "Turn 1" in svg[0]  # the plot
    assert (run_dir / "report.html").stat().st_size > 10_000


def test_03_compare_models(nb_env):
    nb = _execute("03_compare_models.ipynb", nb_env)
    page = nb_env / "runs" / "compare.html"
    assert page.is_file() and "Leaderboard" in page.read_text()
    html = "".join(_outputs(nb, "text/html"))
    assert "redline_overall" in html and "accept-all" in html
    assert len(_outputs(nb, "image/svg+xml")) == 2
    # the paired comparison (SPEC §6.1): a table of pairs with verdicts, a ranking with ties
    assert "groups left out" in html and ("not distinguishable" in html or "better" in html)
    assert "Which model is better" in page.read_text()
    text = "".join(_outputs(nb, "text/plain")) + "".join(
        "".join(o.get("text", "")) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
        if o.get("output_type") == "stream")
    assert "ranking with ties: 1." in text
