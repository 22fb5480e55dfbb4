"""No file meant to be shared holds a path of the machine that wrote it (issue 18).

Shared: every file of a run folder except the hidden ``.lock`` and ``.cache/`` (machine-local:
a lock and rendered fragments), and every file of a dataset export. Searched inside compressed
members too (``redline.docx`` parts). The needles: the checkout / install path, the run folder,
the data folder, the home folder and the temporary folder.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import redlinebench
from redlinebench.cli import main
from tests.tasks.treefactory import build_tree

def _needles(*paths: Path) -> set[str]:
    install = Path(redlinebench.__file__).resolve().parent.parent
    found = {str(install), str(Path.home()), tempfile.gettempdir().rstrip("/") + "/"}
    found.update(str(p.resolve()) for p in paths)
    return {n for n in found if len(n) > 1}


def _texts(path: Path) -> list[bytes]:
    data = path.read_bytes()
    if data[:2] == b"PK":  # a .docx: every member, and the member names
        with zipfile.ZipFile(path) as z:
            return [z.read(n) for n in z.namelist()] + ["\n".join(z.namelist()).encode()]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        return [json.dumps(table.to_pylist(), default=repr).encode(), repr(table.schema.metadata).encode()]
    return [data]


def _leaks(files: list[Path], needles: set[str]) -> dict[str, list[str]]:
    out = {}
    for f in files:
        hits = sorted(n for n in needles for blob in _texts(f) if n.encode() in blob)
        if hits:
            out[str(f)] = sorted(set(hits))
    return out


def _shared(run_dir: Path) -> list[Path]:
    return [p for p in sorted(run_dir.rglob("*")) if p.is_file()
            and not any(part.startswith(".") for part in p.relative_to(run_dir).parts)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The demo, and a run of an LLM (a scripted loopback server) on a task tree in a local folder."""
    from tests.fakes.openai_server import FakeOpenAI, Reply

    root = tmp_path_factory.mktemp("shared")
    tree = build_tree(root / "bench", [(1, 1, 1, "a", True), (1, 2, 1, "a", True)])
    demo = root / "runs" / "demo"
    r = CliRunner().invoke(main, ["demo", "--run-dir", str(demo), "--no-progress"])
    assert r.exit_code == 0, r.output
    llm = root / "runs" / "llm"
    with FakeOpenAI() as server:
        for _ in range(2):
            server.enqueue(Reply.tool_calls([("read_document", {})]))
            server.enqueue(Reply.tool_calls([("end_session", {})]))
        r = CliRunner().invoke(main, ["run", "--model", "openai/local-x", "--api-base", server.url,
                                      "--judges", "heuristic", "--source", str(tree), "--run-dir", str(llm),
                                      "--no-progress"])
    assert r.exit_code == 0, r.output
    export = root / "export"
    r = CliRunner().invoke(main, ["dataset", "export", "--source", str(tree), "--out", str(export), "--include-tree"])
    assert r.exit_code == 0, r.output
    return {"root": root, "tree": tree, "demo": demo, "llm": llm, "export": export}


@pytest.mark.slow
@pytest.mark.parametrize("which", ["demo", "llm"])
def test_run_files_hold_no_local_path(runs, which):
    run_dir = runs[which]
    files = _shared(run_dir)
    names = {f.name for f in files}
    assert {"config.json", "metrics_summary.json", "grade.json", "metrics.json", "transcript.jsonl",
            "redline.docx", "judge_audit.jsonl", "report.html", "annotated_view.md"} <= names, names
    assert _leaks(files, _needles(run_dir, runs["tree"], runs["root"])) == {}


@pytest.mark.slow
def test_exported_dataset_holds_no_local_path(runs):
    files = [p for p in sorted(runs["export"].rglob("*")) if p.is_file()]
    assert any(f.suffix == ".parquet" for f in files)
    assert _leaks(files, _needles(runs["export"], runs["tree"], runs["root"])) == {}


@pytest.mark.slow
def test_config_keeps_what_resume_needs_relative_to_the_run(runs, tmp_path):
    """The shipped set is ``embedded``; a local tree is recorded from the run folder, so a run moved
    together with its data resumes, and a run moved alone is told to name the data with --source."""
    demo = json.loads((runs["demo"] / "config.json").read_text())
    assert demo["spec"]["source"] == "embedded" and demo["source"] == {"kind": "embedded", "path": None,
                                                                       "revision": None}
    assert demo["run_id"] == "demo"  # the folder's name, as --run-dir gave it
    llm = json.loads((runs["llm"] / "config.json").read_text())
    assert llm["spec"]["source"] == llm["source"]["path"] == llm["data"]["path"] == "../../bench"
    import shutil

    moved = tmp_path / "elsewhere" / "llm"
    shutil.copytree(runs["llm"], moved)
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(moved), "--no-progress"])
    assert r.exit_code == 2 and "give their folder with --source DIR" in r.output, r.output
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(moved), "--source", str(runs["tree"]),
                                  "--no-progress"])
    assert r.exit_code == 0, r.output
    again = json.loads((moved / "config.json").read_text())
    from redlinebench.runner.paths import local_path

    recorded = again["source"]["path"]
    assert recorded == again["spec"]["source"] and recorded.startswith("../")
    assert local_path(recorded, moved) == runs["tree"].resolve()
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(moved), "--no-progress"])
    assert r.exit_code == 0, r.output  # the new location was recorded, relative to the moved folder
