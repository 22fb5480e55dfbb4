"""Run every (entrant, task, trial) with bounded concurrency, resumably.

Each trial is produced in ``.partial/`` and published into ``trials/`` with one rename once its
redline, transcript and metrics are complete; the grade is then written atomically beside
them. Killing the process at any instant therefore leaves finished trials intact and at most
some staging directories, which the next ``--resume`` deletes and redoes.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..agent.base import Agent, Episode, create_agent
from ..agent.redact import redact
from ..errors import RedlineBenchError
from . import paths
from .atomic import publish_dir, write_json
from .spec import Entrant, RunSpec
from .store import TrialState, clean_partial, discard, trial_state

METRICS_SCHEMA_VERSION = 1


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
    consecutive_errors: int = 0
    stopped: str | None = None     # why the run stopped starting episodes (trials left for --resume)


Grader = Callable[[TrialKey, Path], Any]   # async: grades one published trial, writes grade.json

#: Episodes failing in a row (provider down, bad key) after which no new episode is started.
STOP_AFTER_CONSECUTIVE_ERRORS = 8


def make_agent(entrant: Entrant, spec: RunSpec) -> Agent:
    return create_agent(entrant.agent, model=entrant.model, limits=spec.limits, api_base=spec.api_base,
                        seed=spec.seed)


async def run_trials(
    spec: RunSpec,
    layout: paths.RunLayout,
    tasks: list[Any],
    *,
    grader: Grader | None,
    on_update: Callable[[Progress], None] | None = None,
    agents: dict[str, Agent] | None = None,
) -> Progress:
    """Run (or resume) every trial of ``spec`` over ``tasks``; returns the final counters."""
    clean_partial(layout)
    agents = agents or {e.label: make_agent(e, spec) for e in spec.entrants}
    keys = [TrialKey(e, t, k) for e in spec.entrants for t in tasks for k in range(1, spec.trials + 1)]
    state = Progress(total=len(keys))
    todo: list[tuple[TrialKey, TrialState]] = []
    for key in keys:
        tdir = layout.trial_dir(key.label, key.task.task_id, key.trial)
        st = trial_state(tdir, want_grade=grader is not None)
        if st is TrialState.FINISHED:
            state.done += 1
            state.skipped += 1
            state.cost_usd += _trial_cost(tdir) + _judge_cost(tdir)
        else:
            todo.append((key, st))
    if on_update:
        on_update(state)

    # Agents and judges have separate slots: a trial waiting on its judges does not hold an agent
    # slot, so judge latency does not throttle the episodes.
    agent_slots = asyncio.Semaphore(spec.concurrency)
    grade_slots = asyncio.Semaphore(spec.concurrency)

    def finish() -> None:
        state.done += 1
        if on_update:
            on_update(state)

    async def one(key: TrialKey, st: TrialState) -> None:
        tdir = layout.trial_dir(key.label, key.task.task_id, key.trial)
        if st is TrialState.TODO:
            async with agent_slots:
                if state.stopped:  # left as it is: --resume runs it later
                    return
                discard(tdir)
                metrics = await _run_agent(agents[key.label], key, layout)
            state.cost_usd += float(metrics.get("cost_usd") or 0.0)
            if metrics.get("cost_known") is False:
                state.cost_unknown += 1
            if metrics["status"] == "errored":
                state.failures += 1
                state.errors.append({"model": key.label, "task_id": key.task.task_id, "trial": key.trial,
                                     "error": metrics.get("error")})
                state.consecutive_errors += 1
                if state.consecutive_errors >= STOP_AFTER_CONSECUTIVE_ERRORS and not state.stopped:
                    last = str(metrics.get("error") or "").strip().splitlines()
                    state.stopped = (f"{state.consecutive_errors} episodes in a row failed (last: "
                                     f"{last[-1] if last else 'unknown error'}); no new episode was started")
                finish()
                return
            state.consecutive_errors = 0
        if grader is not None:
            async with grade_slots:
                try:
                    await grader(key, tdir)
                    judge_cost = _judge_cost(tdir)
                    state.judge_cost_usd += judge_cost
                    state.cost_usd += judge_cost
                except asyncio.CancelledError:
                    raise
                except RedlineBenchError as exc:
                    _grade_failed(state, key, str(exc))
                except Exception:  # a grading bug must not take the other trials down
                    _grade_failed(state, key, traceback.format_exc(limit=8))
        finish()

    await asyncio.gather(*(one(k, s) for k, s in todo))
    clean_partial(layout)  # every trial is published by now: only empty staging folders remain
    return state


def _grade_failed(state: Progress, key: TrialKey, message: str) -> None:
    state.failures += 1
    state.errors.append({"model": key.label, "task_id": key.task.task_id, "trial": key.trial,
                         "error": "grading failed: " + redact(message)})


def _judge_cost(tdir: Path) -> float:
    from .atomic import read_json

    grade = read_json(tdir / paths.GRADE) or {}
    try:
        return float((grade.get("usage") or {}).get("cost_usd") or 0.0)
    except (TypeError, ValueError, AttributeError):
        return 0.0


def _trial_cost(tdir: Path) -> float:
    from .atomic import read_json

    metrics = read_json(tdir / paths.METRICS) or {}
    try:
        return float(metrics.get("cost_usd") or 0.0)
    except (TypeError, ValueError):
        return 0.0


async def _run_agent(agent: Agent, key: TrialKey, layout: paths.RunLayout) -> dict[str, Any]:
    """Run one episode in a staging directory, write metrics.json there, publish the directory."""
    task = key.task
    staging = layout.staging_dir(key.label, task.task_id, key.trial)
    discard(staging)
    staging.mkdir(parents=True)
    started = time.time()
    t0 = time.perf_counter()
    try:
        episode = await agent.run(task, staging, trial=key.trial)
    except asyncio.CancelledError:
        raise
    except RedlineBenchError as exc:   # e.g. an input .docx that cannot be opened
        episode = Episode("errored", "input_error", {}, error=str(exc))
    except Exception:  # a bug in one trial is recorded with its traceback; the run goes on
        episode = Episode("errored", "exception", {}, error=traceback.format_exc(limit=12))
    metrics: dict[str, Any] = {
        "schema_version": METRICS_SCHEMA_VERSION,
        "task_id": task.task_id,
        "model": key.label,
        "agent": key.entrant.agent,
        "trial": key.trial,
        "status": episode.status,
        "end_reason": episode.end_reason,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "wall_s": round(time.perf_counter() - t0, 4),
        **episode.metrics,
    }
    if episode.error:
        metrics["error"] = redact(episode.error)
    if episode.status != "errored" and not (staging / paths.REDLINE).is_file():
        metrics["status"] = "errored"
        metrics["error"] = "the agent finished without writing redline.docx"
    write_json(staging / paths.METRICS, metrics)
    publish_dir(staging, layout.trial_dir(key.label, task.task_id, key.trial))
    return metrics
