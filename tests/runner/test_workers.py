"""Worker processes (``--workers``): the same run, spread over forked processes.

The agents here record which process ran them and when, in the files they publish, since a
forked worker's memory is not the test's.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import time
from pathlib import Path
from typing import Any

import pytest

from redlinebench.agent.base import Episode
from redlinebench.runner import Entrant, RunLayout, RunSpec, run
from redlinebench.runner.scheduler import STOP_AFTER_CONSECUTIVE_ERRORS, run_trials
from redlinebench.runner.workers import fork_available, shares, worker_count
from tests.runner.doubles import make_taskset

needs_fork = pytest.mark.skipif(not fork_available(), reason="worker processes need fork (Linux)")


class StampingAgent:
    """Writes a redline and, in metrics, its pid and start/end times; optional failures."""

    name = "stamping"

    def __init__(self, label: str = "openai/fake-model", delay: float = 0.05, fail: bool = False,
                 die_on: str | None = None) -> None:
        self.label, self.delay, self.fail, self.die_on = label, delay, fail, die_on

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        start = time.time()
        if self.die_on == task.task_id and trial == 1:
            if multiprocessing.parent_process() is None:  # never kill the test process itself
                raise AssertionError("die_on used outside a worker")
            os._exit(9)
        (workdir / "transcript.jsonl").write_text('{"type": "start"}\n')
        await asyncio.sleep(self.delay)
        if self.fail:
            return Episode("errored", "provider_error", {"cost_usd": 0.0}, error="503 from provider")
        (workdir / "redline.docx").write_bytes(b"docx:" + task.task_id.encode())
        return Episode("completed", "end_session", {"cost_usd": 0.25, "pid": os.getpid(), "t0": start,
                                                    "t1": time.time()})


def _spec(**over: Any) -> RunSpec:
    base = dict(entrants=(Entrant("llm", "openai/fake-model"),), judges="none", concurrency=4, trials=3,
                workers=2, run_id="w1")
    base.update(over)
    return RunSpec(**base)


def _metrics(layout: RunLayout) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(layout.trials.glob("*/*/*/metrics.json"))]


def _max_overlap(intervals: list[tuple[float, float]]) -> int:
    events = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals])
    best = cur = 0
    for _, d in events:
        cur += d
        best = max(best, cur)
    return best


def test_shares_and_worker_count():
    assert shares(16, 2) == [8, 8] and shares(5, 2) == [3, 2] and shares(2, 4) == [1, 1]
    assert worker_count(1, 16, 100) == 1
    assert worker_count(4, 2, 100) == 2      # never more workers than slots
    assert worker_count(4, 16, 1) == 1       # one trial left: no fork
    assert worker_count(2, 16, 100) == 2


@needs_fork
def test_trials_run_once_each_across_two_processes_within_the_concurrency(tmp_path):
    spec = _spec()
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    agent = StampingAgent(delay=0.1)
    state = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={agent.label: agent}))
    metrics = _metrics(layout)
    assert len(metrics) == 12 and state.done == 12 and state.failures == 0
    assert sorted((m["task_id"], m["trial"]) for m in metrics) == sorted(
        (t.task_id, k) for t in taskset.tasks for k in (1, 2, 3))
    pids = {m["pid"] for m in metrics}
    assert len(pids) == 2 and os.getpid() not in pids
    # The concurrency is the run's total, shared by the workers, not per worker.
    assert _max_overlap([(m["t0"], m["t1"]) for m in metrics]) <= 4
    assert state.cost_usd == pytest.approx(12 * 0.25)  # events from both workers reached the parent
    assert not layout.partial.exists()


@needs_fork
def test_grades_and_counters_match_a_one_process_run(tmp_path):
    """Episodes and grading through workers give the same files and counters as one process."""
    results = {}
    for workers in (1, 2):
        async def grader(key, tdir):
            (tdir / "grade.json").write_text(json.dumps({
                "status": "graded", "task_id": key.task.task_id, "model": key.label, "trial": key.trial,
                "usage": {"cost_usd": 0.125}}))

        spec = _spec(workers=workers, run_id=f"w{workers}")
        layout = RunLayout(tmp_path / f"run{workers}")
        taskset = make_taskset(tmp_path / "data")
        agent = StampingAgent(delay=0.02)
        state = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=grader, agents={agent.label: agent}))
        grades = sorted(p.read_text() for p in layout.trials.glob("*/*/*/grade.json"))
        results[workers] = (state.done, state.failures, round(state.cost_usd, 6), round(state.judge_cost_usd, 6),
                            grades)
    assert results[1] == results[2]
    assert results[2][0] == 12 and results[2][2] == pytest.approx(12 * (0.25 + 0.125))


@needs_fork
def test_a_failing_provider_stops_new_episodes_in_every_worker(tmp_path):
    spec = _spec(trials=10)  # 40 trials, 4 slots over 2 workers
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    # Episodes long enough that the parent's stop reaches the workers within one of them even on a
    # loaded machine: a worker refills its slot before the parent has counted the failure, so the
    # bound below holds only while the parent's lag stays under an episode's length.
    down = StampingAgent(fail=True, delay=0.25)
    state = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={down.label: down}))
    assert state.stopped and "in a row failed" in state.stopped and "503 from provider" in state.stopped
    ran = len(_metrics(layout))
    # Episodes already running when the stop was decided finish; no new one starts after it.
    assert STOP_AFTER_CONSECUTIVE_ERRORS <= ran <= STOP_AFTER_CONSECUTIVE_ERRORS + spec.concurrency
    assert ran < 40
    up = StampingAgent()
    again = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={up.label: up}))
    assert again.stopped is None and again.failures == 0 and len(_metrics(layout)) == 40


@needs_fork
def test_a_worker_that_dies_loses_only_its_trials_and_resume_reruns_them(tmp_path):
    spec = _spec(concurrency=2)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    victim = taskset.tasks[1].task_id
    agent = StampingAgent(die_on=victim, delay=0.05)
    state = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={agent.label: agent}))
    lost = [e for e in state.errors if "worker process" in str(e["error"])]
    assert [(e["task_id"], e["trial"]) for e in lost] == [(victim, 1)]
    assert "died (exit code 9)" in lost[0]["error"] and "--resume" in lost[0]["error"]
    assert state.done == 12 and state.failures == 1
    published = {(m["task_id"], m["trial"]) for m in _metrics(layout)}
    assert (victim, 1) not in published and len(published) == 11  # the other worker ran the rest
    healthy = StampingAgent()
    again = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={healthy.label: healthy}))
    assert again.skipped == 11 and again.failures == 0
    assert (victim, 1) in {(m["task_id"], m["trial"]) for m in _metrics(layout)}


@needs_fork
def test_run_records_workers_and_a_resume_may_change_them(tmp_path):
    taskset = make_taskset(tmp_path / "data")
    agent = StampingAgent(delay=0.01)
    result = run(_spec(trials=1), tmp_path / "run", progress=False, agents={agent.label: agent}, taskset=taskset)
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["spec"]["workers"] == 2 and result.progress.done == 4
    assert (tmp_path / "run" / "report.html").is_file()
    resumed = run(_spec(trials=1, workers=1), tmp_path / "run", resume=True, progress=False,
                  agents={agent.label: agent}, taskset=taskset)
    assert resumed.spec.workers == 1 and resumed.progress.skipped == 4


def test_workers_must_be_positive():
    from redlinebench.errors import ConfigError

    with pytest.raises(ConfigError, match="--workers must be at least 1"):
        _spec(workers=0)


@pytest.mark.parametrize("why", ["no fork", "no semaphores"])
def test_without_worker_processes_the_run_says_so_and_runs_in_one_process(tmp_path, monkeypatch, capsys, why):
    import redlinebench.runner.workers as workers

    if why == "no fork":
        monkeypatch.setattr(workers, "fork_available", lambda: False)
    else:
        monkeypatch.setattr(workers, "fork_available", lambda: True)

        def no_semaphores(*a, **k):
            raise OSError(38, "Function not implemented")

        monkeypatch.setattr(workers.WorkerPool, "__init__", no_semaphores)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    agent = StampingAgent(delay=0.01)
    result = run(_spec(), layout.root, progress=False, agents={agent.label: agent}, taskset=taskset)
    assert result.progress.done == 12 and {m["pid"] for m in _metrics(layout)} == {os.getpid()}
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "running in one process" in err  # said once, not per layer
