"""The resumable scheduler and run directory, with an engine-free agent double."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from redlinebench.errors import ConfigError
from redlinebench.runner import Entrant, RunLayout, RunSpec, run, slug
from redlinebench.runner.scheduler import run_trials
from tests.runner.doubles import CountingAgent, make_taskset


def _spec(**over):
    base = dict(entrants=(Entrant("llm", "openai/fake-model"),), judges="none", concurrency=3, trials=2,
                run_id="r1")
    base.update(over)
    return RunSpec(**base)


def _run(tmp_path, agent, spec=None, taskset=None, **kw):
    spec = spec or _spec()
    taskset = taskset or make_taskset(tmp_path / "data")
    return run(spec, tmp_path / "run", progress=False, agents={spec.entrants[0].label: agent}, taskset=taskset, **kw)


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_slug_replaces_everything_outside_the_safe_set():
    assert slug("openai/gpt-5.4-mini") == "openai_gpt-5.4-mini"
    assert slug("ollama_chat/qwen3:8b") == "ollama_chat_qwen3_8b"
    assert slug("..") == "__" and slug("a b\\c") == "a_b_c"


def test_every_trial_runs_once_in_the_documented_layout(tmp_path):
    agent = CountingAgent(label="openai/fake-model")
    result = _run(tmp_path, agent)
    assert sorted(agent.calls) == sorted((f"redline-s1-t{1 + i % 4}-g0{i}a", k) for i in range(4) for k in (1, 2))
    root = tmp_path / "run"
    files = _files(root)
    assert "config.json" in files and "report.html" in files
    trial = root / "trials" / "openai_fake-model" / "redline-s1-t1-g00a" / "2"
    assert sorted(p.name for p in trial.iterdir()) == ["metrics.json", "redline.docx", "transcript.jsonl"]
    metrics = json.loads((trial / "metrics.json").read_text())
    assert metrics["status"] == "completed" and metrics["model"] == "openai/fake-model" and metrics["trial"] == 2
    assert not (root / ".partial").exists()
    assert result.progress.cost_usd == pytest.approx(4.0)  # 8 trials x $0.50
    assert not any(".tmp" in f for f in files)


def test_concurrency_is_bounded(tmp_path):
    agent = CountingAgent(label="openai/fake-model", delay=0.05)
    _run(tmp_path, agent, spec=_spec(concurrency=3, trials=3))
    assert agent.max_active == 3


def test_config_records_spec_versions_and_data(tmp_path):
    _run(tmp_path, CountingAgent(label="openai/fake-model"), spec=_spec(seed=7, api_base="http://localhost:9/v1"))
    cfg = json.loads((tmp_path / "run" / "config.json").read_text())
    assert cfg["spec"]["seed"] == 7 and cfg["spec"]["api_base"] == "http://localhost:9/v1"
    assert cfg["models"] == ["openai/fake-model"]
    assert cfg["data"]["fingerprint"] == "fp-1" and cfg["data"]["n_tasks"] == 4
    assert cfg["versions"]["dependencies"]["litellm"] and cfg["versions"]["redlinebench"]
    assert cfg["spec"]["limits"]["max_steps"] == 40
    assert cfg["judges"] == {"spec": "none", "names": []}


def test_resume_skips_finished_and_redoes_missing_errored_and_partial(tmp_path):
    taskset = make_taskset(tmp_path / "data")
    flaky = CountingAgent(label="openai/fake-model", fail_on={"redline-s1-t2-g01a"})
    first = _run(tmp_path, flaky, taskset=taskset)
    assert first.progress.failures == 2  # both trials of the failing task
    errored = tmp_path / "run" / "trials" / "openai_fake-model" / "redline-s1-t2-g01a" / "1"
    assert json.loads((errored / "metrics.json").read_text())["status"] == "errored"
    assert not (errored / "redline.docx").exists()

    # Simulate a kill: one trial lost, one half-written staging dir left behind.
    import shutil
    shutil.rmtree(tmp_path / "run" / "trials" / "openai_fake-model" / "redline-s1-t3-g02a" / "1")
    stale = tmp_path / "run" / ".partial" / "openai_fake-model" / "redline-s1-t4-g03a" / "1"
    stale.mkdir(parents=True)
    (stale / "transcript.jsonl").write_text('{"type": "sta')

    again = CountingAgent(label="openai/fake-model")
    second = _run(tmp_path, again, spec=None, taskset=taskset, resume=True)
    assert sorted(again.calls) == [("redline-s1-t2-g01a", 1), ("redline-s1-t2-g01a", 2), ("redline-s1-t3-g02a", 1)]
    assert second.progress.skipped == 5 and second.progress.failures == 0
    assert not (tmp_path / "run" / ".partial").exists()
    cfg = json.loads((tmp_path / "run" / "config.json").read_text())
    assert len(cfg["resumed"]) == 1


@pytest.mark.parametrize("damage", ["truncated", "a list", "deleted"])
def test_resume_keeps_a_finished_trial_whose_metrics_file_was_damaged(tmp_path, damage):
    """Finished work is never thrown away: the redline stays, and the trial is not re-run (or paid for)."""
    taskset = make_taskset(tmp_path / "data")
    _run(tmp_path, CountingAgent(label="openai/fake-model"), taskset=taskset)
    trial = tmp_path / "run" / "trials" / "openai_fake-model" / "redline-s1-t1-g00a" / "1"
    redline = (trial / "redline.docx").read_bytes()
    metrics = trial / "metrics.json"
    if damage == "truncated":
        metrics.write_text(metrics.read_text()[:20])
    elif damage == "a list":
        metrics.write_text("[1]")
    else:
        metrics.unlink()
    again = CountingAgent(label="openai/fake-model")
    result = _run(tmp_path, again, spec=None, taskset=taskset, resume=True)
    assert again.calls == [] and result.progress.skipped == 8 and result.progress.failures == 0
    assert (trial / "redline.docx").read_bytes() == redline


def test_existing_run_needs_resume_and_resume_needs_a_run(tmp_path):
    _run(tmp_path, CountingAgent(label="openai/fake-model"))
    with pytest.raises(ConfigError, match="--resume"):
        _run(tmp_path, CountingAgent(label="openai/fake-model"))
    with pytest.raises(ConfigError, match="nothing to resume"):
        run(None, tmp_path / "elsewhere", resume=True, progress=False)


def test_resume_refuses_changed_tasks(tmp_path):
    _run(tmp_path, CountingAgent(label="openai/fake-model"))
    changed = make_taskset(tmp_path / "data", fingerprint="fp-2")
    with pytest.raises(ConfigError, match="fingerprint fp-1 -> fp-2"):
        _run(tmp_path, CountingAgent(label="openai/fake-model"), spec=None, taskset=changed, resume=True)


def test_cancellation_leaves_only_whole_trials(tmp_path):
    """Ctrl-C cancels the event loop mid-run: trials/ holds complete trials only."""
    spec = _spec(concurrency=2, trials=3)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    agent = CountingAgent(label="openai/fake-model", delay=0.05)

    async def main():
        job = asyncio.create_task(run_trials(spec, layout, taskset.tasks, grader=None,
                                             agents={agent.label: agent}))
        await asyncio.sleep(0.12)
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job

    asyncio.run(main())
    done = list((layout.trials / "openai_fake-model").glob("*/*"))
    assert 0 < len(done) < 12
    for d in done:
        assert sorted(p.name for p in d.iterdir()) == ["metrics.json", "redline.docx", "transcript.jsonl"]
    # The next run cleans the staging area and finishes the rest exactly once.
    rest = CountingAgent(label="openai/fake-model")
    asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={rest.label: rest}))
    assert len(rest.calls) == 12 - len(done)
    assert len(list((layout.trials / "openai_fake-model").glob("*/*"))) == 12
    assert not layout.partial.exists()


def test_grader_runs_per_trial_and_its_failure_is_recorded(tmp_path):
    spec = _spec(trials=1)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    graded = []

    async def grader(key, tdir):
        if key.task.task_id.endswith("g02a"):
            raise ValueError("judge exploded")
        graded.append(key.task.task_id)
        (tdir / "grade.json").write_text(json.dumps({"status": "graded", "task_id": key.task.task_id}))

    agent = CountingAgent(label="openai/fake-model")
    state = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=grader, agents={agent.label: agent}))
    assert len(graded) == 3 and state.failures == 1
    assert "judge exploded" in state.errors[0]["error"]
    # Resume grades only the trial without a grade, and does not re-run any agent.
    agent2 = CountingAgent(label="openai/fake-model")

    async def grader2(key, tdir):
        graded.append(("again", key.task.task_id))

    asyncio.run(run_trials(spec, layout, taskset.tasks, grader=grader2, agents={agent2.label: agent2}))
    assert agent2.calls == [] and graded[-1] == ("again", "redline-s1-t3-g02a")


def test_slow_judges_do_not_hold_agent_slots(tmp_path):
    spec = _spec(concurrency=2, trials=1)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    agent = CountingAgent(label="openai/fake-model", delay=0.01)
    events = []

    async def grader(key, tdir):
        await asyncio.sleep(0.3)
        events.append(len(agent.calls))  # episodes started by the time this judge answered
        (tdir / "grade.json").write_text('{"status": "graded"}')

    asyncio.run(run_trials(spec, layout, taskset.tasks, grader=grader, agents={agent.label: agent}))
    # All four episodes ran while the first trials were still being judged (with judging inside
    # the agent slot, only two would have started by then).
    assert events == [4, 4, 4, 4]


def test_a_run_directory_in_use_cannot_be_resumed_twice(tmp_path):
    import fcntl

    _run(tmp_path, CountingAgent(label="openai/fake-model"))
    with open(tmp_path / "run" / ".lock", "a+") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ConfigError, match="another redlinebench process"):
            _run(tmp_path, CountingAgent(label="openai/fake-model"), spec=None, resume=True)
    # Released (as the OS does when the holder dies): resuming works again.
    _run(tmp_path, CountingAgent(label="openai/fake-model"), spec=None, resume=True)


def test_running_cost_adds_judges_to_agents(tmp_path):
    spec = _spec(trials=1)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")

    async def grader(key, tdir):
        (tdir / "grade.json").write_text(json.dumps({"status": "graded", "usage": {"cost_usd": 0.25}}))

    agent = CountingAgent(label="openai/fake-model", cost=0.5)
    state = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=grader, agents={agent.label: agent}))
    assert state.cost_usd == pytest.approx(4 * (0.5 + 0.25)) and state.judge_cost_usd == pytest.approx(1.0)
    # A resumed run counts what is already on disk.
    again = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=grader, agents={agent.label: agent}))
    assert again.skipped == 4 and again.cost_usd == pytest.approx(3.0)


def test_a_provider_that_keeps_failing_stops_new_episodes(tmp_path):
    from redlinebench.runner.scheduler import STOP_AFTER_CONSECUTIVE_ERRORS

    spec = _spec(concurrency=2, trials=5)  # 20 trials
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    down = CountingAgent(label="openai/fake-model", fail_on={t.task_id for t in taskset.tasks})
    state = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={down.label: down}))
    assert state.stopped and "in a row failed" in state.stopped and "503 from provider" in state.stopped
    assert STOP_AFTER_CONSECUTIVE_ERRORS <= len(down.calls) <= STOP_AFTER_CONSECUTIVE_ERRORS + 1
    # Once the provider is back, --resume runs everything that failed or never started.
    up = CountingAgent(label="openai/fake-model")
    again = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={up.label: up}))
    assert len(up.calls) == 20 and again.stopped is None and again.failures == 0


def test_resume_removes_temporaries_a_kill_left_mid_write(tmp_path):
    spec = _spec(trials=1)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")

    async def grader(key, tdir):
        (tdir / "judges").mkdir(exist_ok=True)
        (tdir / "grade.json").write_text(json.dumps({"status": "graded"}))

    agent = CountingAgent(label="openai/fake-model")
    asyncio.run(run_trials(spec, layout, taskset.tasks, grader=grader, agents={agent.label: agent}))
    trials = sorted((layout.trials / "openai_fake-model").glob("*/1"))
    # A kill while the judges of one trial were being written: no grade.json, temporaries left.
    (trials[0] / "grade.json").unlink()
    stray = [trials[0] / ".grade.json.1a2b3c.tmp", trials[0] / "judges" / ".judge-a.json.4d5e6f.tmp",
             layout.root / ".metrics_summary.json.0f0f0f.tmp",
             layout.root / ".cache" / "redlines" / ".abc.json.gz.9e9e9e.tmp"]
    for p in stray:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("half a file")
    keep = trials[1] / ".notes.tmp.txt"  # not a temporary of ours
    keep.write_text("mine")
    again = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=grader, agents={agent.label: agent}))
    assert again.skipped == 3 and (trials[0] / "grade.json").is_file()
    assert not [p for p in stray if p.exists()] and keep.exists()


@pytest.mark.parametrize("workers", [1, 2])
def test_one_entrant_whose_provider_is_down_does_not_stop_the_others(tmp_path, workers):
    """Stopping after failures in a row is per entrant: a healthy model (or an offline baseline)
    in the same run finishes all its trials."""
    from redlinebench.runner.workers import fork_available

    if workers > 1 and not fork_available():
        pytest.skip("worker processes need fork (Linux)")
    spec = _spec(entrants=(Entrant("llm", "openai/down"), Entrant("llm", "openai/up")), concurrency=2, trials=5,
                 workers=workers)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    down = CountingAgent(label="openai/down", fail_on={t.task_id for t in taskset.tasks})
    up = CountingAgent(label="openai/up")
    state = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None,
                                   agents={down.label: down, up.label: up}))
    assert list(state.stopped_entrants) == ["openai/down"] and "openai/down" in (state.stopped or "")
    published = [p for p in layout.trials.glob("openai_up/*/*/metrics.json")]
    assert len(published) == 20  # every trial of the healthy entrant ran
    failed = [p for p in layout.trials.glob("openai_down/*/*/metrics.json")]
    assert len(failed) < 20  # the failing one was stopped early


def test_a_run_result_says_in_words_what_keeps_it_incomplete(tmp_path):
    from redlinebench.runner import run

    spec = _spec(concurrency=2, trials=5)
    taskset = make_taskset(tmp_path / "data")
    down = CountingAgent(label="openai/fake-model", fail_on={t.task_id for t in taskset.tasks})
    result = run(spec, tmp_path / "run", progress=False, agents={down.label: down}, taskset=taskset,
                 check_keys=False)
    assert not result.ok
    assert any("stopped early" in p for p in result.problems) and any("failed" in p for p in result.problems)
    up = CountingAgent(label="openai/fake-model")
    again = run(None, tmp_path / "run", resume=True, progress=False, agents={up.label: up}, taskset=taskset,
                check_keys=False)
    assert again.ok and again.problems == []


def test_resumed_run_counts_the_agent_cost_of_trials_it_only_grades(tmp_path):
    """Killed after the episodes were published but before they were graded: the resumed run
    grades them without re-running the agents, and its cost still includes what the agents spent."""
    spec = _spec(trials=1)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    agent = CountingAgent(label="openai/fake-model", cost=0.5)
    asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={agent.label: agent}))

    async def grader(key, tdir):
        (tdir / "grade.json").write_text(json.dumps({"status": "graded", "usage": {"cost_usd": 0.25}}))

    again = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=grader, agents={agent.label: agent}))
    assert len(agent.calls) == 4  # no episode was run twice
    assert again.cost_usd == pytest.approx(4 * (0.5 + 0.25)) and again.judge_cost_usd == pytest.approx(1.0)


@pytest.mark.parametrize("reason", ["quota_exhausted", "auth_failed"])
def test_an_account_out_of_credit_or_a_rejected_key_stops_its_entrant_after_one_episode(tmp_path, reason):
    from redlinebench.agent.base import Episode

    class Broke(CountingAgent):
        async def run(self, task, workdir, *, trial):
            self.calls.append((task.task_id, trial))
            return Episode("errored", reason, {"cost_usd": 0.0}, error=f"{reason.replace('_', ' ')} for openai/x")

    spec = _spec(concurrency=1, trials=3)  # 12 trials
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data")
    broke = Broke(label="openai/fake-model")
    state = asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={broke.label: broke}))
    assert len(broke.calls) == 1
    assert state.stopped == f"{reason.replace('_', ' ')} for openai/x; no new episode of openai/fake-model was started"


def test_resume_hands_an_errored_trials_partial_work_to_the_new_attempt(tmp_path):
    from redlinebench.agent.base import Episode

    seen = []

    class Flaky(CountingAgent):
        async def run(self, task, workdir, *, trial):
            resume = workdir / "resume"
            seen.append(sorted(p.name for p in resume.iterdir()) if resume.is_dir() else [])
            (workdir / "transcript.jsonl").write_text('{"type": "start"}\n')
            if len(seen) == 1:
                (workdir / "redline.partial.docx").write_bytes(b"half")
                return Episode("errored", "provider_error", {"partial_redline": "redline.partial.docx"}, error="503")
            (workdir / "redline.docx").write_bytes(b"whole")
            return Episode("completed", "end_session", {})

    spec = _spec(concurrency=1, trials=1)
    layout = RunLayout(tmp_path / "run")
    taskset = make_taskset(tmp_path / "data", n=1)
    agent = Flaky(label="openai/fake-model")
    asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={agent.label: agent}))
    tdir = next(layout.trials.glob("openai_fake-model/*/1"))
    assert (tdir / "redline.partial.docx").read_bytes() == b"half"
    asyncio.run(run_trials(spec, layout, taskset.tasks, grader=None, agents={agent.label: agent}))
    assert seen == [[], ["redline.partial.docx", "transcript.jsonl"]]
    assert not (tdir / "resume").exists() and (tdir / "redline.docx").read_bytes() == b"whole"
    metrics = json.loads((tdir / "metrics.json").read_text())
    assert metrics["resumed"]["continued"] is False  # this agent does not continue: said so
