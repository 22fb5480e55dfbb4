"""SIGKILL the run process midway, resume, and every trial exists exactly once with a valid grade."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.runner.taskfixture import build_tree

ROOT = Path(__file__).resolve().parents[2]


def slow_agent(body: dict) -> Reply:
    """Two model calls an episode: one comment, then end_session; 0.2 s each, so a run takes a while."""
    step = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if step == 0:
        reply = Reply.tool_calls([("add_comment", {"paragraph_id": "p-002", "text": "Please confirm."})])
    else:
        reply = Reply.tool_calls([("end_session", {})])
    return Reply.delay(0.2, reply)


def _cli(args: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "redlinebench", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _published(run_dir: Path) -> list[Path]:
    return sorted(p for p in (run_dir / "trials").glob("*/*/*") if p.is_dir()) if (run_dir / "trials").exists() else []


@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_midway_then_resume_gives_every_trial_once(tmp_path, workers):
    tree = build_tree(tmp_path / "bench")
    run_dir = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": "sk-kill-test-abcdefgh", "PYTHONPATH": str(ROOT),
           "REDLINEBENCH_RETRY_BASE_DELAY": "0"}
    args = ["run", "--model", "openai/slow-agent", "--source", str(tree), "--trials", "4", "--concurrency", "2",
            "--judges", "heuristic", "--run-dir", str(run_dir), "--no-progress", "--workers", str(workers)]
    with FakeOpenAI() as srv:
        srv.set_handler(slow_agent)
        proc = _cli([*args, "--api-base", srv.url], env)
        deadline = time.monotonic() + 60
        while len([p for p in _published(run_dir) if (p / "grade.json").exists()]) < 3:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if workers > 1:  # the workers notice their parent is gone and exit by themselves
            _wait_for_no_workers(run_dir)
        before = {p: (p / "metrics.json").read_bytes() for p in _published(run_dir) if (p / "grade.json").exists()}
        assert 3 <= len(before) < 12

        resumed = _cli(["run", "--resume", "--run-dir", str(run_dir), "--no-progress"], env)
        out, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err

    trials = _published(run_dir)
    assert len(trials) == 12  # 3 tasks x 4 trials, each exactly once
    for t in trials:
        assert sorted(x.name for x in t.iterdir() if x.is_file()) == [
            "annotated_view.md", "grade.json", "metrics.json", "redline.docx", "transcript.jsonl"]
        grade = json.loads((t / "grade.json").read_text())
        assert grade["status"] == "graded" and grade["trial"] == int(t.name)
        assert grade["task_id"] == t.parent.name and grade["model"] == "openai/slow-agent"
        for line in (t / "transcript.jsonl").read_text().splitlines():
            json.loads(line)
    for p, data in before.items():  # finished work was kept, not redone
        assert (p / "metrics.json").read_bytes() == data
    assert not (run_dir / ".partial").exists()
    assert not [p for p in run_dir.rglob("*") if p.name.endswith(".tmp")]
    summary = json.loads((run_dir / "metrics_summary.json").read_text())
    assert summary["n_trials"] == 12 and summary["run"]["not_graded"] == []
    assert "redline_overall" in out and "report:" in out


def _wait_for_no_workers(run_dir: Path) -> None:
    """Until no process has the run directory's lock file open (workers close their copy at start,
    so this also finds a worker that would outlive its parent)."""
    lock = str(run_dir / ".lock")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        holders = []
        for fd_dir in Path("/proc").glob("[0-9]*/fd"):
            try:
                holders += [fd for fd in fd_dir.iterdir() if os.readlink(fd) == lock]
            except OSError:
                continue
        workers = _worker_pids()
        if not holders and not workers:
            return
        time.sleep(0.05)
    raise AssertionError(f"worker processes outlived their parent: {_worker_pids()}")


def _worker_pids() -> list[int]:
    out = []
    for cmd in Path("/proc").glob("[0-9]*/comm"):
        try:
            if cmd.read_text().startswith("redlinebench-wo"):
                out.append(int(cmd.parent.name))
        except OSError:
            continue
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_stops_cleanly_with_a_resume_hint(tmp_path, workers):
    tree = build_tree(tmp_path / "bench")
    run_dir = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": "sk-int-test-abcdefgh", "PYTHONPATH": str(ROOT)}
    with FakeOpenAI() as srv:
        srv.set_handler(slow_agent)
        proc = _cli(["run", "--model", "openai/slow-agent", "--source", str(tree), "--trials", "3",
                     "--concurrency", "2", "--judges", "heuristic", "--run-dir", str(run_dir), "--no-progress",
                     "--api-base", srv.url, "--workers", str(workers)], env)
        deadline = time.monotonic() + 60
        while not [p for p in _published(run_dir) if (p / "grade.json").exists()]:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    if workers > 1:
        _wait_for_no_workers(run_dir)
    assert "interrupted" in err and f"redlinebench run --resume --run-dir {run_dir}" in err
    assert "Traceback" not in err
    for t in _published(run_dir):  # whatever was published is whole
        assert {"metrics.json", "redline.docx", "transcript.jsonl"} <= {x.name for x in t.iterdir()}
        json.loads((t / "metrics.json").read_text())
    assert not [p for p in run_dir.rglob("*") if p.name.endswith(".tmp")]
    json.loads((run_dir / "config.json").read_text())
