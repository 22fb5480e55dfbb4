"""A run whose endpoint refuses every connection records what it tried and stops early, with the
endpoint and the cause in one line, instead of trying every trial for a minute each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from redlinebench.runner import Entrant, RunSpec, TaskFilter, run
from redlinebench.runner.scheduler import STOP_AFTER_JUDGES_UNREACHABLE, STOP_AFTER_UNREACHABLE
from tests.test_unreachable import refused_port

ROOT = Path(__file__).resolve().parents[2]


def _trials(run_dir: Path, name: str) -> list[Path]:
    return sorted(run_dir.glob(f"trials/*/*/*/{name}"))


def test_an_agent_endpoint_that_refuses_stops_the_entrant_after_two_episodes(tmp_path, monkeypatch):
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "1")
    base = f"http://127.0.0.1:{refused_port()}"
    spec = RunSpec(entrants=(Entrant("llm", "openai/x"), Entrant("noop")), filter=TaskFilter(scenario=1),
                   judges="none", concurrency=1, api_base=base, run_id="down")
    result = run(spec, tmp_path / "run", progress=False)
    metrics = [json.loads(p.read_text()) for p in _trials(tmp_path / "run", "metrics.json")]
    down = [m for m in metrics if m["model"] == "openai/x"]
    # every episode tried is recorded as usual (errored, for --resume), and no more were started
    assert len(down) == STOP_AFTER_UNREACHABLE == 2
    assert {m["end_reason"] for m in down} == {"endpoint_unreachable"} and {m["retries"] for m in down} == {1}
    host = base.removeprefix("http://")
    assert result.progress.stopped.startswith(f"cannot reach {host} (api base {base}) for openai/x: "
                                              "connection refused (2 episodes of openai/x in a row)")
    # the other entrant (no endpoint) was not stopped
    assert len([m for m in metrics if m["model"] == "noop"]) == len(result.config["data"]["task_ids"])


def test_judges_that_refuse_stop_new_episodes_and_each_trial_keeps_its_grade(tmp_path, monkeypatch):
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "1")
    base = f"http://127.0.0.1:{refused_port()}/v1"
    spec = RunSpec(entrants=(Entrant("golden"),), filter=TaskFilter(scenario=1), judges="openai/judge-a",
                   concurrency=1, judge_api_base=base, run_id="judges-down")
    result = run(spec, tmp_path / "run", progress=False)
    grades = [json.loads(p.read_text()) for p in _trials(tmp_path / "run", "grade.json")]
    assert len(grades) == STOP_AFTER_JUDGES_UNREACHABLE == 2
    assert {g["status"] for g in grades} == {"judging_incomplete"}
    assert all("connection refused" in g["errors"][0] for g in grades)
    assert "cannot reach 127.0.0.1:" in result.progress.stopped and "no new episode was started" in result.progress.stopped
    # episodes finished while the judges were failing are kept, ungraded, for --resume to grade
    n_tasks = len(result.config["data"]["task_ids"])
    assert 2 < n_tasks and len(_trials(tmp_path / "run", "metrics.json")) <= n_tasks


def test_the_cli_says_which_endpoint_refused_in_one_line_within_seconds(tmp_path):
    port = refused_port()
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env.update(REDLINEBENCH_RETRY_BASE_DELAY="1", PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "redlinebench", "run", "--model", "openai/x", "--api-base",
                           f"http://127.0.0.1:{port}", "--judges", "none", "--scenario", "1", "--no-progress",
                           "--run-dir", str(tmp_path / "run")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    elapsed = time.perf_counter() - t0
    print(f"cli: a refused --api-base stopped the run after {elapsed:.1f} s (the import of litellm included)")
    assert proc.returncode == 1, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    assert errors[0].startswith(f"error: stopped early: cannot reach 127.0.0.1:{port} (api base "
                                f"http://127.0.0.1:{port}) for openai/x: connection refused")
    assert "Traceback" not in proc.stderr
    # today's code: 8 episodes of ~58 s of retries each; the bound leaves room for a loaded machine
    assert elapsed < 60, elapsed


def test_the_cli_says_which_judge_endpoint_refused_and_how_to_finish(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from redlinebench.cli import main

    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "1")
    base = f"http://127.0.0.1:{refused_port()}/v1"
    run_dir = tmp_path / "run"
    t0 = time.perf_counter()
    r = CliRunner().invoke(main, ["run", "--agent", "golden", "--judges", "openai/judge-a", "--judge-api-base", base,
                                  "--scenario", "1", "-j", "1", "--no-progress", "--run-dir", str(run_dir)])
    elapsed = time.perf_counter() - t0
    print(f"cli: a refused --judge-api-base stopped the run after {elapsed:.1f} s")
    assert r.exit_code == 1, r.output
    port = base.split(":")[2].split("/")[0]
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(
        f"error: stopped early: judge openai/judge-a: no verdicts after 2 attempt(s): cannot reach 127.0.0.1:{port} "
        f"(api base {base}) for openai/judge-a: connection refused (2 trials in a row)"), r.stderr
    assert errors[0].endswith(f"finish judging the 2 trial(s) whose judges never answered with "
                              f"`redlinebench score {run_dir}`")
    assert elapsed < 60, elapsed


def test_only_unreachable_episodes_in_a_row_stop_an_entrant_and_a_success_resets_the_count():
    from types import SimpleNamespace

    from redlinebench.runner.scheduler import Plan, Progress, TrialKey, apply_event

    keys = [TrialKey(Entrant("llm", "openai/x"), SimpleNamespace(task_id=f"t{i}"), 1) for i in range(6)]
    plan = Plan(Progress(total=6), [(k, None) for k in keys])
    down = {"status": "errored", "end_reason": "endpoint_unreachable", "error": "cannot reach h:1 ...: connection refused"}
    other = {"status": "errored", "end_reason": "provider_error", "error": "InternalServerError (500): boom"}
    for i, payload in enumerate([down, {"status": "completed"}, down, other, down]):
        apply_event(plan, ("episode", i, payload))
    assert plan.state.stopped is None and plan.state.may_start("openai/x")
    apply_event(plan, ("episode", 5, down))
    assert not plan.state.may_start("openai/x") and "connection refused (2 episodes of openai/x in a row)" in plan.state.stopped


def test_a_judge_out_of_quota_stops_the_run_after_its_first_trial(tmp_path, fake_openai):
    """429 insufficient_quota is no rate limit: no wait heals it, so one judged trial is proof enough (issue 33)."""
    from tests.fakes.openai_server import Reply

    fake_openai.enqueue(*[Reply.insufficient_quota()] * 40, model="judge-a")
    spec = RunSpec(entrants=(Entrant("golden"),), filter=TaskFilter(scenario=1), judges="openai/judge-a",
                   concurrency=1, judge_api_base=fake_openai.url, run_id="judge-broke")
    result = run(spec, tmp_path / "run", progress=False)
    grades = [json.loads(p.read_text()) for p in _trials(tmp_path / "run", "grade.json")]
    assert len(grades) == 1 and grades[0]["status"] == "judging_incomplete"
    assert "out of credit or quota for openai/judge-a" in result.progress.stopped
    assert "trials in a row" not in result.progress.stopped and len(fake_openai.requests) == 1
