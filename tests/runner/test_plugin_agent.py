"""Agents from outside the package: examples/plugin_agent run by import path and by entry point
(installed from its folder into a target directory), against the loopback fake model; killed
midway and resumed; a plugin that does not load is one clear error before anything runs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.runner.taskfixture import build_tree

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "plugin_agent"


def reviewer(body: dict) -> Reply:
    """The plugin's model: one comment, then end_session; a little slow so a run can be killed."""
    step = sum(1 for m in body["messages"] if m["role"] == "assistant")
    assert body["messages"][0]["content"].startswith("You review a contract for")  # the plugin's own prompt
    if step == 0:
        reply = Reply.tool_calls([("add_comment", {"paragraph_id": "p-002", "text": "Please confirm."})])
    else:
        reply = Reply.tool_calls([("end_session", {"summary": "done"})])
    return Reply.delay(0.15, reply)


def _env(*paths: Path) -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": "sk-plugin-test-abcdefgh", "REDLINEBENCH_RETRY_BASE_DELAY": "0",
            "PYTHONPATH": os.pathsep.join(str(p) for p in (ROOT, *paths))}


def _cli(args: list[str], env: dict, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "redlinebench", *args], cwd=kw.get("cwd", ROOT), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _graded(run_dir: Path) -> list[Path]:
    return sorted(p.parent for p in (run_dir / "trials").glob("*/*/*/grade.json")) if (run_dir / "trials").exists() \
        else []


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """examples/plugin_agent installed from its folder into a target directory (its entry point too)."""
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    source = build / "plugin_agent"  # a copy: setuptools leaves build/ and *.egg-info beside the sources
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                           "--no-index", "--quiet", "--target", str(target), str(source)],
                          capture_output=True, text=True, cwd=build, env={**os.environ, "PIP_NO_CACHE_DIR": "1"})
    assert proc.returncode == 0, proc.stderr
    assert list(target.glob("redline_plugin_agent*.dist-info"))
    return target


def test_plugin_by_import_path_runs_and_records_itself(tmp_path):
    tree = build_tree(tmp_path / "bench")
    run_dir = tmp_path / "run"
    with FakeOpenAI() as srv:
        srv.set_handler(reviewer)
        proc = _cli(["run", "--agent", "redline_plugin_agent.agent:make_agent", "--model", "openai/plug",
                     "--source", str(tree), "--judges", "heuristic", "--run-dir", str(run_dir), "--no-progress",
                     "--api-base", srv.url], _env(EXAMPLE))
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    cfg = json.loads((run_dir / "config.json").read_text())
    label = "terse-reviewer/openai/plug"  # the agent's own label
    assert cfg["models"] == [label]
    assert cfg["plugins"][label] == {"agent": "redline_plugin_agent.agent:make_agent", "kind": "import_path",
                                     "target": "redline_plugin_agent.agent:make_agent", "distribution": None,
                                     "version": None}
    trials = _graded(run_dir)
    assert len(trials) == 3
    for t in trials:
        grade = json.loads((t / "grade.json").read_text())
        assert grade["model"] == label and grade["status"] in ("graded", "gate_failed")
        metrics = json.loads((t / "metrics.json").read_text())
        assert metrics["agent"] == "redline_plugin_agent.agent:make_agent"
        assert metrics["tool_calls"] == {"add_comment": 1, "end_session": 1} and metrics["steps"] == 2
        assert metrics["end_reason"] == "end_session" and metrics["prompt"] == "terse-reviewer-v1"
        events = [json.loads(line)["type"] for line in (t / "transcript.jsonl").read_text().splitlines()]
        assert events[0] == "start" and events[-1] == "end" and events.count("tool") == 2
    # the comment the plugin made through the tools is in the graded document, by the task's author
    turn1 = json.loads((trials[0] / "grade.json").read_text())
    assert turn1["gate"]["passed"] is True


def test_plugin_by_entry_point_survives_a_kill_and_resumes(tmp_path, installed):
    tree = build_tree(tmp_path / "bench")
    run_dir = tmp_path / "run"
    env = _env(installed)
    args = ["run", "--agent", "terse-reviewer", "--model", "openai/plug", "--source", str(tree), "--trials", "3",
            "--concurrency", "2", "--judges", "heuristic", "--run-dir", str(run_dir), "--no-progress"]
    with FakeOpenAI() as srv:
        srv.set_handler(reviewer)
        proc = _cli([*args, "--api-base", srv.url], env, cwd=tmp_path)
        deadline = time.monotonic() + 60
        while len(_graded(run_dir)) < 2:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        before = {p: (p / "metrics.json").read_bytes() for p in _graded(run_dir)}
        assert 2 <= len(before) < 9
        cfg = json.loads((run_dir / "config.json").read_text())
        record = cfg["plugins"]["terse-reviewer/openai/plug"]
        assert record["kind"] == "entry_point" and record["target"] == "redline_plugin_agent.agent:make_agent"
        assert record["distribution"].replace("_", "-") == "redline-plugin-agent" and record["version"] == "0.1.0"

        resumed = _cli(["run", "--resume", "--run-dir", str(run_dir), "--no-progress", "--api-base", srv.url], env,
                       cwd=tmp_path)
        out, err = resumed.communicate(timeout=180)
        assert resumed.returncode == 0, err
    trials = _graded(run_dir)
    assert len(trials) == 9  # 3 tasks x 3 trials, each once
    for p, data in before.items():
        assert (p / "metrics.json").read_bytes() == data
    assert json.loads((run_dir / "config.json").read_text())["plugins"] == cfg["plugins"]
    summary = json.loads((run_dir / "metrics_summary.json").read_text())
    assert summary["n_trials"] == 9 and summary["run"]["not_graded"] == []
    page = (run_dir / "report.html").read_text()  # the report names the plugin and its version too
    assert f"{record['distribution']} 0.1.0 (redline_plugin_agent.agent:make_agent)" in page


@pytest.mark.parametrize("agent, expected", [
    ("no_such_pkg.agent:make", "cannot import 'no_such_pkg.agent'"),
    ("redline_plugin_agent.agent:nothing_here", "has no attribute 'nothing_here'"),
    ("no-such-agent", "unknown agent 'no-such-agent'"),
    ("tests.runner._broken_plugin:make", "importing 'tests.runner._broken_plugin' failed"),
    ("redline_plugin_agent.agent:make_agent", "its factory failed: ValueError"),
])
def test_a_plugin_that_does_not_load_is_one_error_before_anything_runs(tmp_path, monkeypatch, agent, expected):
    from click.testing import CliRunner

    from redlinebench.cli import main

    monkeypatch.syspath_prepend(str(EXAMPLE))
    tree = build_tree(tmp_path / "bench")
    run_dir = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", "--agent", agent, "--source", str(tree), "--judges", "heuristic",
                                  "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 2, r.output
    assert expected in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not run_dir.exists()


def test_the_process_exits_2_with_one_line_and_no_traceback(tmp_path):
    tree = build_tree(tmp_path / "bench")
    proc = _cli(["run", "--agent", "tests.runner._broken_plugin:make", "--source", str(tree), "--judges",
                 "heuristic", "--run-dir", str(tmp_path / "run"), "--no-progress"], _env(EXAMPLE))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "Traceback" not in err
    assert err.strip().splitlines() == ["error: agent 'tests.runner._broken_plugin:make': importing "
                                        "'tests.runner._broken_plugin' failed: RuntimeError: this plugin fails on import"]


def test_a_mistyped_agent_names_the_built_ins_and_the_nearest(tmp_path):
    """`--agent gold` said `not a built-in agent ()`: the run's plugin check passed no names."""
    from click.testing import CliRunner

    from redlinebench.cli import main

    tree = build_tree(tmp_path / "bench")
    r = CliRunner().invoke(main, ["run", "--agent", "gold", "--source", str(tree), "--judges", "heuristic",
                                  "--run-dir", str(tmp_path / "run"), "--no-progress"])
    assert r.exit_code == 2, r.output
    assert "not a built-in agent (accept-all, golden, llm, noop" in r.output and "()" not in r.output
    assert "did you mean 'golden'?" in r.output


@pytest.mark.parametrize("factory, reason", [
    ("ReturnsNone", "run() returned NoneType, not an Episode"),
    ("Synchronous", "run() must be a coroutine (async def run(...))"),
    ("Raises", "run() raised ValueError: no such thing at _misbehaving_plugin.py:"),
])
def test_a_plugin_breaking_the_contract_errors_its_trials_only_and_resume_works(tmp_path, factory, reason):
    """A run() returning None took the run down (54-line traceback, other trials ungraded, --resume
    the same); a synchronous run() was a bare TypeError."""
    from click.testing import CliRunner

    from redlinebench.cli import main

    tree = build_tree(tmp_path / "bench")
    run_dir = tmp_path / "run"
    agent = f"tests.runner._misbehaving_plugin:{factory}"
    args = ["run", "--agent", agent, "--agent", "noop", "--source", str(tree), "--judges", "heuristic",
            "--run-dir", str(run_dir), "--no-progress"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert "3 trial(s) errored" in r.output
    for t in (run_dir / "trials").glob("*/*/*/metrics.json"):
        metrics = json.loads(t.read_text())
        if metrics["agent"] == agent:
            assert metrics["status"] == "errored" and "\n" not in metrics["error"]
            assert metrics["error"].startswith(f"agent {agent!r}: {reason}"), metrics["error"]
    assert len(list((run_dir / "trials" / "noop").glob("*/*/grade.json"))) == 3  # the other entrant went on
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 1 and "Traceback" not in r.output and "(3 already done)" in r.output, r.output


def test_a_plugins_label_names_it_on_the_leaderboard_and_survives_resume(tmp_path):
    from click.testing import CliRunner

    from redlinebench.cli import main

    tree = build_tree(tmp_path / "bench")
    run_dir = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", "--agent", "tests.runner._misbehaving_plugin:Named", "--source", str(tree),
                                  "--judges", "heuristic", "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 0, r.output
    summary = json.loads((run_dir / "metrics_summary.json").read_text())
    assert [m["model"] for m in summary["leaderboard"]] == ["my-reviewer"]
    cfg = json.loads((run_dir / "config.json").read_text())
    assert list(cfg["plugins"]) == ["my-reviewer"] and cfg["models"] == ["my-reviewer"]
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 0 and "(3 already done)" in r.output, r.output


def test_resume_with_the_plugin_uninstalled_names_what_the_run_started_with(tmp_path, installed):
    tree = build_tree(tmp_path / "bench")
    run_dir = tmp_path / "run"
    args = ["run", "--agent", "terse-reviewer", "--agent", "noop", "--model", "openai/plug", "--source", str(tree),
            "--judges", "heuristic", "--run-dir", str(run_dir), "--no-progress"]
    with FakeOpenAI() as srv:
        srv.set_handler(reviewer)
        proc = _cli([*args, "--api-base", srv.url], _env(installed), cwd=tmp_path)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    proc = _cli(["run", "--resume", "--run-dir", str(run_dir), "--no-progress"], _env(), cwd=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "Traceback" not in err, err
    assert "the run started with redline" in err and "0.1.0 (redline_plugin_agent.agent:make_agent)" in err, err


def test_plugins_get_the_endpoint_and_placeholder_key_the_built_in_agent_sends(monkeypatch):
    from redlinebench.agent import endpoint_params, get_litellm
    from redlinebench.agent.credentials import PLACEHOLDER_KEY

    monkeypatch.setenv("OPENAI_API_KEY", "")
    assert endpoint_params("openai/local", "http://127.0.0.1:9/v1") == {"api_base": "http://127.0.0.1:9/v1",
                                                                         "api_key": PLACEHOLDER_KEY}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key-1234")
    assert endpoint_params("openai/local", "http://127.0.0.1:9/v1") == {"api_base": "http://127.0.0.1:9/v1"}
    assert endpoint_params("openai/gpt-4o", None) == {}
    assert get_litellm().suppress_debug_info is True


def test_the_example_plugin_runs_against_a_keyless_endpoint_quietly(tmp_path):
    tree = build_tree(tmp_path / "bench")
    env = {k: v for k, v in _env(EXAMPLE).items() if k != "OPENAI_API_KEY"}
    with FakeOpenAI() as srv:
        srv.set_handler(reviewer)
        proc = _cli(["run", "--agent", "redline_plugin_agent.agent:make_agent", "--model", "openai/plug",
                     "--source", str(tree), "--judges", "heuristic", "--run-dir", str(tmp_path / "run"),
                     "--no-progress", "--api-base", srv.url], env)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "Give Feedback" not in out + err


def test_a_run_whose_trials_all_errored_names_its_judges_and_each_tasks_side(tmp_path):
    """A failed run said `judges: none` and its errored trials showed side "?"."""
    import re

    from click.testing import CliRunner

    from redlinebench.cli import main

    tree = build_tree(tmp_path / "bench")
    run_dir = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", "--agent", "tests.runner._misbehaving_plugin:ReturnsNone", "--source",
                                  str(tree), "--judges", "heuristic", "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 1 and "judges: none" not in r.output and "judges: heuristic" in r.output, r.output
    summary = json.loads((run_dir / "metrics_summary.json").read_text())
    assert summary["judge_method"] == "heuristic"
    assert {e["judge_method"] for e in summary["leaderboard"]} == {"heuristic"}
    page = (run_dir / "report.html").read_text()
    assert sorted(re.findall(r"S1 · T\d · ([^<]*)<", page)) == ["A", "B", "B"]
