"""Run every (entrant, task, trial) with bounded concurrency, resumably.

Each trial is produced in ``.partial/`` and published into ``trials/`` with one rename once its
redline, transcript and metrics are complete; the grade is then written atomically beside
them. Killing the process at any instant therefore leaves finished trials intact and at most
some staging directories, which the next ``--resume`` deletes and redoes.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..agent.base import NO_OUTPUT, STOPS_AT_ONCE, UNREACHABLE, Agent, Episode, create_agent
from ..agent.redact import redact
from ..errors import JudgesUnreachable, RedlineBenchError
from . import paths
from .atomic import publish_dir, write_json
from .spec import Entrant, RunSpec
from .store import TrialState, clean_partial, discard, read_metrics, sweep_temporaries, trial_state

METRICS_SCHEMA_VERSION = 1


def metrics_record(*, task_id: str, model: str, agent: str, trial: int, status: str, end_reason: str,
                   started: Any, finished: Any, wall_s: float | None) -> dict[str, Any]:
    """The head of a trial's metrics.json, the same for a local episode and an imported one
    (the loaders and the report read both alike); the episode's own figures follow it."""
    return {"schema_version": METRICS_SCHEMA_VERSION, "task_id": task_id, "model": model, "agent": agent,
            "trial": trial, "status": status, "end_reason": end_reason, "started": started,
            "finished": finished, "wall_s": wall_s}


@dataclass(frozen=True)
class TrialKey:
    entrant: Entrant
    task: Any
    trial: int

    @property
    def label(self) -> str:
        return self.entrant.label


@dataclass
class Progress:
    """Counters the progress display and the final report read."""

    total: int = 0
    done: int = 0
    skipped: int = 0
    failures: int = 0
    cost_usd: float = 0.0          # agents and judges, known prices only
    judge_cost_usd: float = 0.0
    cost_unknown: int = 0          # episodes whose model has no known price (not counted in cost_usd)
    errors: list[dict[str, Any]] = field(default_factory=list)
    consecutive_errors: dict[str, int] = field(default_factory=dict)  # per entrant label
    consecutive_unreachable: dict[str, int] = field(default_factory=dict)  # per entrant label
    judges_unreachable: int = 0    # trials in a row whose judges could not be reached
    stopped_entrants: dict[str, str] = field(default_factory=dict)    # label -> why it was stopped
    stopped: str | None = None     # why episodes stopped being started (trials left for --resume)
    #: per process (pid), the adaptive limits of the endpoints it calls (redlinebench._throttle)
    throttle: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)

    @property
    def rate_limits(self) -> dict[str, dict[str, int]]:
        """Per endpoint, summed over the processes of the run: the current adaptive limit, its
        ceiling, the lowest a 429 cut it to, calls made and 429s received."""
        out: dict[str, dict[str, int]] = {}
        for endpoints in self.throttle.values():
            for name, snap in endpoints.items():
                row = out.setdefault(name, {"limit": 0, "max": 0, "min_limit": 0, "n_calls": 0, "n_429": 0})
                for key in row:
                    row[key] += int(snap.get(key) or 0)
        return dict(sorted(out.items()))

    def may_start(self, label: str) -> bool:
        """Whether new episodes of this entrant may begin: one whose provider keeps failing is
        stopped, the others (another provider, an offline baseline) go on; unreachable judges
        stop them all."""
        return label not in self.stopped_entrants and JUDGES not in self.stopped_entrants


#: The key of ``Progress.stopped_entrants`` that stops every entrant (the judges cannot be reached).
JUDGES = "(judges)"

#: async: grades a published trial (writes grade.json); returns the redline it opened, or None.
Grader = Callable[[TrialKey, Path], Any]

#: Episodes failing in a row (provider down, bad key) after which no new episode is started.
STOP_AFTER_CONSECUTIVE_ERRORS = 8
#: The same, for episodes whose endpoint could not be reached at all (refused, unresolvable): that
#: does not heal in seconds, so two in a row stop the entrant (one could be a server restarting).
STOP_AFTER_UNREACHABLE = 2
#: Trials in a row whose judges could not be reached, after which no new episode is started
#: (every episode would be paid for and left ungraded).
STOP_AFTER_JUDGES_UNREACHABLE = 2


def make_agent(entrant: Entrant, spec: RunSpec) -> Agent:
    """Build one entrant's agent; a plugin whose import or factory fails is one ConfigError."""
    extra = {"outputs": entrant.outputs} if entrant.outputs is not None else {}
    try:
        return create_agent(entrant.agent, model=entrant.model, limits=spec.limits, api_base=spec.api_base,
                            seed=spec.seed, prompt_cache=spec.prompt_cache, **extra)
    except RedlineBenchError:
        raise
    except Exception as exc:  # a plugin factory's own failure, in one line, before anything runs
        if not entrant.is_plugin:
            raise
        from ..errors import ConfigError

        raise ConfigError(f"agent {entrant.agent!r}: its factory failed: {type(exc).__name__}: {exc}") from None


@dataclass
class Plan:
    """What is left to do, decided once from the disk, before any process is started."""

    state: Progress
    todo: list[tuple[TrialKey, TrialState]]


def plan_trials(spec: RunSpec, layout: paths.RunLayout, tasks: list[Any], *, grading: bool) -> Plan:
    """Classify every planned trial; finished ones are counted (with their cost) and skipped.

    Leftovers of a killed run go first: staging trials, and half-written temporaries in the run
    folder and in trials still to be graded (a finished trial's files were all renamed in place).
    """
    clean_partial(layout)
    sweep_temporaries(layout.root, recursive=False)
    sweep_temporaries(layout.root / ".cache")
    keys = [TrialKey(e, t, k) for e in spec.entrants for t in tasks for k in range(1, spec.trials + 1)]
    state = Progress(total=len(keys))
    todo: list[tuple[TrialKey, TrialState]] = []
    for key in keys:
        tdir = layout.trial_dir(key.label, key.task.task_id, key.trial)
        st = trial_state(tdir, want_grade=grading)
        if st is TrialState.FINISHED:
            state.done += 1
            state.skipped += 1
            state.cost_usd += _trial_cost(tdir) + _judge_cost(tdir)
        else:
            if st is TrialState.NEEDS_GRADE:  # its episode is paid for and not run again
                sweep_temporaries(tdir)
                state.cost_usd += _trial_cost(tdir)
            todo.append((key, st))
    return Plan(state, todo)


# Events a trial emits as it goes, applied to the run's Progress by :func:`apply_event`. In one
# process they are applied at once; from worker processes they arrive over a pipe, as tuples of
# plain values: (kind, index into Plan.todo, payload).
Event = tuple[str, int, Any]


def apply_event(plan: Plan, event: Event, on_update: Callable[[Progress], None] | None = None) -> None:
    """The one place the run's counters change (costs, failures, the consecutive-error stop)."""
    kind, idx, payload = event
    state = plan.state
    key = plan.todo[idx][0]
    if kind == "episode":
        metrics = payload
        state.cost_usd += float(metrics.get("cost_usd") or 0.0)
        if metrics.get("cost_known") is False:
            state.cost_unknown += 1
        label = key.label
        if metrics["status"] != "errored":
            state.consecutive_errors[label] = state.consecutive_unreachable[label] = 0
            return
        _failed(state, key, metrics.get("error"))
        n = state.consecutive_errors[label] = state.consecutive_errors.get(label, 0) + 1
        down = state.consecutive_unreachable[label] = (state.consecutive_unreachable.get(label, 0) + 1
                                                       if metrics.get("end_reason") == UNREACHABLE else 0)
        last = str(metrics.get("error") or "").strip().splitlines()
        last_line = last[-1] if last else "unknown error"
        if metrics.get("end_reason") in STOPS_AT_ONCE:  # a bad key, no credit: the next episode fails alike
            _stop(state, label, f"{last_line}; no new episode of {label} was started")
        elif down >= STOP_AFTER_UNREACHABLE:
            _stop(state, label, f"{last_line} ({down} episodes of {label} in a row); no new episode of {label} "
                                "was started")
        elif n >= STOP_AFTER_CONSECUTIVE_ERRORS:
            _stop(state, label, f"{n} episodes of {label} in a row failed (last: {last_line}); no new episode of "
                                f"{label} was started")
    elif kind == "graded":
        state.judges_unreachable = 0
        state.judge_cost_usd += payload
        state.cost_usd += payload
    elif kind == "judges_unreachable":  # recorded in grade.json as judging_incomplete, like any judge failure
        state.judge_cost_usd += payload["cost"]
        state.cost_usd += payload["cost"]
        state.judges_unreachable += 1
        if payload.get("final"):   # out of credit or quota: one trial is proof enough
            _stop(state, JUDGES, f"{payload['error']}; no new episode was started")
        elif state.judges_unreachable >= STOP_AFTER_JUDGES_UNREACHABLE:
            _stop(state, JUDGES, f"{payload['error']} ({state.judges_unreachable} trials in a row); no new "
                                 "episode was started")
    elif kind == "grade_failed":
        _failed(state, key, "grading failed: " + redact(payload))
    elif kind == "throttle":
        state.throttle[int(payload["pid"])] = payload["endpoints"]
    elif kind in ("done", "lost"):  # lost: the worker process running it died mid-trial
        if kind == "lost":
            _failed(state, key, payload)
        state.done += 1
        if on_update:
            on_update(state)


class TrialPipeline:
    """One trial from start to grade: the episode (holding an agent slot), then the judges.

    It reports through ``emit`` only, so the same code runs in the run's own process and in a
    worker process, and ``may_start`` says whether new episodes may still begin.
    """

    def __init__(self, plan: Plan, layout: paths.RunLayout, agents: dict[str, Agent], grader: Grader | None,
                 emit: Callable[[Event], None], may_start: Callable[[str], bool], grade_slots: int,
                 after: Callable[[TrialKey, Path, Any], None] | None = None) -> None:
        self.plan, self.layout, self.agents, self.grader = plan, layout, agents, grader
        self.emit, self.may_start, self.after = emit, may_start, after
        self.grade_slots = asyncio.Semaphore(grade_slots)

    async def run(self, idx: int, agent_slot: asyncio.Semaphore) -> None:
        """Run todo item ``idx``; the caller acquired ``agent_slot``, released here after the episode."""
        key, st = self.plan.todo[idx]
        tdir = self.layout.trial_dir(key.label, key.task.task_id, key.trial)
        try:
            if st is TrialState.TODO:
                if not self.may_start(key.label):  # left as it is: --resume runs it later
                    return
                carry = previous_attempt(tdir)  # an errored attempt's work, for the agent to continue
                discard(tdir)
                metrics = await _run_agent(self.agents[key.label], key, self.layout, carry)
                self.emit(("episode", idx, {k: metrics.get(k) for k in ("status", "end_reason", "cost_usd",
                                                                       "cost_known", "error")}))
                self._throttle(idx)
                if metrics["status"] == "errored":
                    self.emit(("done", idx, None))
                    return
        finally:
            agent_slot.release()
        opened = None  # the redline as grading opened it, for the after-step
        if self.grader is not None:
            async with self.grade_slots:
                # once the judges proved unreachable, trials waiting for them stay ungraded (--resume grades them)
                if self.may_start(JUDGES):
                    opened = await self._grade(idx, key, tdir)
        self._throttle(idx)
        if self.after is not None:
            try:
                self.after(key, tdir, opened)
            except Exception:  # noqa: BLE001  an optional step (e.g. pre-rendering the report)
                pass
        self.emit(("done", idx, None))


    async def _grade(self, idx: int, key: TrialKey, tdir: Path) -> Any:
        """Grade one published trial and say how it went; returns the redline grading opened."""
        try:
            opened = await self.grader(key, tdir)  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except JudgesUnreachable as exc:  # grade.json is written: judging_incomplete
            self.emit(("judges_unreachable", idx, {"cost": _judge_cost(tdir), "error": str(exc),
                                                   "final": getattr(exc, "final", False)}))
            return exc.document
        except RedlineBenchError as exc:
            self.emit(("grade_failed", idx, str(exc)))
        except Exception:  # a grading bug must not take the other trials down
            self.emit(("grade_failed", idx, traceback.format_exc(limit=8)))
        else:
            self.emit(("graded", idx, _judge_cost(tdir)))
            return opened
        return None

    def _throttle(self, idx: int) -> None:
        from .._throttle import snapshot

        endpoints = snapshot()
        if endpoints:
            self.emit(("throttle", idx, {"pid": os.getpid(), "endpoints": endpoints}))


async def drive(pipeline: TrialPipeline, claim: Callable[[], int | None], slots: int) -> None:
    """Start trials while agent slots are free; ``claim`` hands out the next todo index, or None.

    A slot is taken before claiming, so a process only takes work it can start now (which is
    what lets several worker processes share one list fairly). This process's provider calls
    adapt to rate limits under the same ceiling (:func:`redlinebench._throttle.configure`).
    """
    from .._throttle import configure

    configure(slots)
    agent_slots = asyncio.Semaphore(slots)
    jobs: list[asyncio.Task[None]] = []
    try:
        while True:
            await agent_slots.acquire()
            idx = claim()
            if idx is None:
                agent_slots.release()
                break
            jobs.append(asyncio.create_task(pipeline.run(idx, agent_slots)))
        await asyncio.gather(*jobs)
    except BaseException:
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)
        raise


class Launch:
    """A run ready to start: its plan, its agents, how to build a trial pipeline, and (with
    ``spec.workers > 1``) the forked worker pool. A context manager: leaving it stops the pool.

    Made before any thread is started (a progress bar), since the workers are forked here.
    """

    def __init__(self, spec: RunSpec, layout: paths.RunLayout, tasks: list[Any], *, grader: Grader | None,
                 agents: dict[str, Agent] | None = None,
                 after: Callable[[TrialKey, Path, Any], None] | None = None) -> None:
        from .workers import start_pool

        self.spec, self.layout = spec, layout
        self.plan = plan_trials(spec, layout, tasks, grading=grader is not None)
        given = agents or {}
        agents = {e.label: given.get(e.label) or make_agent(e, spec) for e in spec.entrants}
        self.make_pipeline = functools.partial(TrialPipeline, self.plan, layout, agents, grader, after=after)
        self.pool = start_pool(spec, self.plan, self.make_pipeline)

    def __enter__(self) -> "Launch":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    async def run(self, on_update: Callable[[Progress], None] | None = None) -> Progress:
        """Run every planned trial (in the workers, or here); returns the final counters."""
        plan, state = self.plan, self.plan.state
        if on_update:
            on_update(state)
        if self.pool is not None:
            await self.pool.run(plan, on_update)
        else:
            pending = iter(range(len(plan.todo)))
            pipeline = self.make_pipeline(emit=lambda ev: apply_event(plan, ev, on_update),
                                          may_start=state.may_start, grade_slots=self.spec.concurrency)
            await drive(pipeline, lambda: next(pending, None), self.spec.concurrency)
        clean_partial(self.layout)  # every trial is published by now: only empty staging folders remain
        return state


async def run_trials(
    spec: RunSpec,
    layout: paths.RunLayout,
    tasks: list[Any],
    *,
    grader: Grader | None,
    on_update: Callable[[Progress], None] | None = None,
    agents: dict[str, Agent] | None = None,
    after: Callable[[TrialKey, Path, Any], None] | None = None,
) -> Progress:
    """Run (or resume) every trial of ``spec`` over ``tasks``; returns the final counters."""
    with Launch(spec, layout, tasks, grader=grader, agents=agents, after=after) as launch:
        return await launch.run(on_update)


def _stop(state: Progress, label: str, why: str) -> None:
    """Stop starting episodes of ``label`` (``JUDGES``: of every entrant), once, saying why."""
    if label not in state.stopped_entrants:
        state.stopped_entrants[label] = why
        state.stopped = "; ".join(state.stopped_entrants.values())


def _failed(state: Progress, key: TrialKey, error: Any) -> None:
    state.failures += 1
    state.errors.append({"model": key.label, "task_id": key.task.task_id, "trial": key.trial, "error": error})


def _judge_cost(tdir: Path) -> float:
    from .atomic import read_json

    grade = read_json(tdir / paths.GRADE) or {}
    try:
        return float((grade.get("usage") or {}).get("cost_usd") or 0.0)
    except (TypeError, ValueError, AttributeError):
        return 0.0


def _trial_cost(tdir: Path) -> float:
    metrics = read_metrics(tdir)
    try:
        return float(metrics.get("cost_usd") or 0.0)
    except (TypeError, ValueError):
        return 0.0


def _one_line(exc: BaseException) -> str:
    """``Type: message`` on one line, with the frame that raised it (file:line)."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}{': ' + text if text else ''}{where}"


def _quiet_litellm() -> None:
    """A plugin that imported litellm itself gets it quiet too (litellm prints a "Give Feedback"
    banner on every failed call): set once litellm is loaded, without importing it for a plugin
    that does not use it."""
    import sys

    litellm = sys.modules.get("litellm")
    if litellm is not None and not getattr(litellm, "suppress_debug_info", True):
        litellm.suppress_debug_info = True


async def _episode_of(agent: Agent, task: Any, staging: Path, entrant: Entrant, trial: int) -> Episode:
    """The agent's episode, or an errored one saying in one line what a plugin did wrong: a
    ``run()`` that is not ``async`` or returns something other than an :class:`Episode`."""
    if entrant.is_plugin:
        _quiet_litellm()
    result = agent.run(task, staging, trial=trial)
    name = entrant.agent
    if not inspect.isawaitable(result):
        return Episode("errored", "agent_contract", {},
                       error=f"agent {name!r}: run() must be a coroutine (async def run(...)) returning an "
                             f"Episode; it returned {type(result).__name__} synchronously")
    episode = await result
    if not isinstance(episode, Episode):
        return Episode("errored", "agent_contract", {},
                       error=f"agent {name!r}: run() returned {type(episode).__name__}, not an Episode "
                             "(return ep.episode() from open_episode, or an Episode)")
    return episode


def previous_attempt(tdir: Path) -> dict[str, bytes] | None:
    """The files an errored trial left that a new attempt may continue from (its transcript and
    partial redline, named in its metrics.json), read before the trial folder is cleared."""
    from ..agent.base import PARTIAL_REDLINE, TRANSCRIPT

    metrics = read_metrics(tdir)
    if metrics.get("status") != "errored" or metrics.get("partial_redline") != PARTIAL_REDLINE:
        return None
    try:
        return {name: (tdir / name).read_bytes() for name in (TRANSCRIPT, PARTIAL_REDLINE)}
    except OSError:
        return None


async def episode_metrics(agent: Agent, entrant: Entrant, task: Any, trial: int, workdir: Path) -> dict[str, Any]:
    """Run one episode in ``workdir``; its metrics.json record (written by the caller). A run's
    trial and an arena's move share it: the same plugin checks, error lines and the rule that an
    agent which finished without writing redline.docx errored (a bug to retry, not a zero)."""
    started = time.time()
    t0 = time.perf_counter()
    try:
        episode = await _episode_of(agent, task, workdir, entrant, trial)
    except asyncio.CancelledError:
        raise
    except RedlineBenchError as exc:   # e.g. an input .docx that cannot be opened
        episode = Episode("errored", "input_error", {}, error=str(exc))
    except Exception as exc:  # a bug in one trial is recorded with its traceback; the run goes on
        if entrant.is_plugin:  # someone else's code: one line saying where, the traceback beside it
            episode = Episode("errored", "exception", {"traceback": traceback.format_exc(limit=12)},
                              error=f"agent {entrant.agent!r}: run() raised {_one_line(exc)}")
        else:
            episode = Episode("errored", "exception", {}, error=traceback.format_exc(limit=12))
    metrics = {**metrics_record(task_id=task.task_id, model=entrant.label, agent=entrant.agent, trial=trial,
                                status=episode.status, end_reason=episode.end_reason,
                                started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
                                finished=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                wall_s=round(time.perf_counter() - t0, 4)),
               **episode.metrics}
    if episode.error:
        metrics["error"] = redact(episode.error)
    if episode.status != "errored" and not (workdir / paths.REDLINE).is_file() and episode.end_reason != NO_OUTPUT:
        metrics["status"] = "errored"
        metrics["error"] = "the agent finished without writing redline.docx"
    return metrics


async def _run_agent(agent: Agent, key: TrialKey, layout: paths.RunLayout,
                     carry: dict[str, bytes] | None = None) -> dict[str, Any]:
    """Run one episode in a staging directory, write metrics.json there, publish the directory.

    ``carry``: a previous errored attempt's files, put in ``workdir/resume/`` for the agent (the
    litellm loop continues from them when it can) and removed before the trial is published."""
    import shutil

    from ..agent.resume import RESUME_DIR

    task = key.task
    staging = layout.staging_dir(key.label, task.task_id, key.trial)
    discard(staging)
    staging.mkdir(parents=True)
    if carry:
        (staging / RESUME_DIR).mkdir()
        for name, data in carry.items():
            (staging / RESUME_DIR / name).write_bytes(data)
    metrics = await episode_metrics(agent, key.entrant, task, key.trial, staging)
    if carry:
        shutil.rmtree(staging / RESUME_DIR, ignore_errors=True)
        metrics.setdefault("resumed", {"continued": False, "reason": f"the {key.entrant.agent} agent does not "
                                                                      "continue an errored attempt"})
    write_json(staging / paths.METRICS, metrics)
    publish_dir(staging, layout.trial_dir(key.label, task.task_id, key.trial))
    return metrics
