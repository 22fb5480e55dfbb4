"""Notebook 01 as a new user runs it: no task tree of their own, the Hub out of reach, no
progress-bar settings. One short notice that the synthetic set is used, and nothing else on stderr
(no tqdm "IProgress not found" warning, no notice per cell that loads the tasks)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_notebook_01_with_the_hub_unreachable_prints_one_short_notice(tmp_path, monkeypatch):
    for name in ("DISABLE_TQDM", "HF_HUB_DISABLE_PROGRESS_BARS", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE",
                 "REDLINEBENCH_BENCHMARK_DIR"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as sock:  # a loopback port nobody listens on: the Hub is tried and refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "2")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        '{"argv": ["%s", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "language": "python", '
        '"display_name": "tests"}' % sys.executable)
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    nb = nbformat.read(ROOT / "notebooks" / "01_explore_dataset.ipynb", as_version=4)
    work = tmp_path / "work"
    work.mkdir()
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    stderr = "".join(o.get("text", "") for o in outputs if o.output_type == "stream" and o.get("name") == "stderr")
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("warning: using the embedded synthetic task set") and len(lines[0]) < 300
    assert "IProgress" not in stderr
