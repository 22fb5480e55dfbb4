"""notebooks/01_explore_dataset.ipynb runs top to bottom on a task tree; the committed copy has no outputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "01_explore_dataset.ipynb"


def test_committed_notebook_is_stripped() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    assert all(c.outputs == [] and c.execution_count is None for c in code)


@pytest.fixture
def kernel_for_this_interpreter(tmp_path: Path, monkeypatch) -> str:
    """A ``python3`` kernelspec that runs *this* interpreter, found first through JUPYTER_PATH."""
    spec_dir = tmp_path / "jupyter" / "kernels" / "python3"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (redlinebench tests)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    return "python3"


@pytest.mark.slow
def test_notebook_executes_and_plots(tree: Path, tmp_path: Path, monkeypatch, kernel_for_this_interpreter) -> None:
    from jupyter_client.kernelspec import KernelSpecManager

    assert KernelSpecManager().get_kernel_spec("python3").argv[0] == sys.executable
    monkeypatch.setenv("REDLINEBENCH_BENCHMARK_DIR", str(tree))
    workdir = tmp_path / "work"
    workdir.mkdir()
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        nb, kernel_name=kernel_for_this_interpreter, timeout=180, resources={"metadata": {"path": str(workdir)}}
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert f"env: {tree}" in text  # the notebook says where the data came from
    assert "14 of 84 rubrics are penalty rubrics (16.7 %)" in text
    assert any("image/png" in o.get("data", {}) for o in outputs), "the category plot was not drawn"
