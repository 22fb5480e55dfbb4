"""The arena composer (SPEC §8): players + scenarios + games + deal judge + ratings for one folder.

```
<run_dir>/arena_spec.json      the ArenaSpec (``--resume`` reads it back)
<run_dir>/arena_summary.json   SPEC §8.9
<run_dir>/games/<game_id>/game.json, agreed.docx, move-01/ ... (each laid out like a run's trial)
```
Games run ``concurrency`` at a time; the moves of a game run in order. A killed tournament
resumes where it stopped: finished moves are kept, a move that did not finish is redone.
"""

from __future__ import annotations

import asyncio
import math
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import ConfigError
from .arena_game import GAMES, ArenaContext, DealJudge, ScenarioTasks, play_game
from .arena_spec import ARENA_RESUMABLE, ArenaSpec, GamePlan
from .atomic import read_json, write_json
from .lock import hold as hold_lock, release as release_lock

SPEC_FILE = "arena_spec.json"
SUMMARY_FILE = "arena_summary.json"


@dataclass
class ArenaResult:
    run_dir: Path
    spec: ArenaSpec
    summary: dict[str, Any]
    report: Path | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    stopped: str | None = None

    @property
    def ok(self) -> bool:
        return not self.summary.get("not_finished")

    def __repr__(self) -> str:
        board = ", ".join(f"{r['model']} {r['rating']:.0f}" for r in self.summary.get("models_summary", []))
        return f"ArenaResult({str(self.run_dir)!r}, {len(self.summary.get('games', []))} games: {board})"


def default_deal_judge() -> DealJudge:
    """``redlinebench.judge.judge_deal`` (the arena judge); a clear error where it is not installed."""
    try:
        from ..judge import judge_deal  # type: ignore[attr-defined]
    except ImportError:
        raise ConfigError("this installation has no arena judge (redlinebench.judge.judge_deal)") from None
    return judge_deal


def load_scenarios(spec: ArenaSpec, taskset: Any | None = None) -> tuple[Any, dict[int, ScenarioTasks]]:
    """The source's tasks, per scenario the spec selects (all of them when it names none)."""
    if taskset is None:
        from ..tasks import load_tasks

        taskset = load_tasks(spec.source)
    have = sorted({int(t.scenario_id) for t in taskset.tasks})
    wanted = list(spec.scenarios) or have
    missing = [s for s in wanted if s not in have]
    if missing:
        raise ConfigError(f"scenario {', '.join(map(str, missing))} is not in the source "
                          f"(it has scenarios {', '.join(map(str, have)) or 'none'})")
    return taskset, {s: ScenarioTasks(s, list(taskset.tasks)) for s in wanted}


def plan_games(spec: ArenaSpec, scenarios: dict[int, ScenarioTasks]) -> list[GamePlan]:
    return spec.games(sorted(scenarios))


def open_arena(spec: ArenaSpec | None, run_dir: Path, *, resume: bool) -> tuple[ArenaSpec, bool]:
    """The spec to play: a new tournament's, or on ``resume`` the stored one (only ARENA_RESUMABLE may change)."""
    stored = read_json(run_dir / SPEC_FILE)
    if resume:
        if not isinstance(stored, dict):
            raise ConfigError("nothing to resume: no readable arena_spec.json here", path=run_dir)
        old = ArenaSpec.from_dict(stored, where=str(run_dir / SPEC_FILE))
        if spec is None:
            return old, True
        a, b = spec.to_dict(), old.to_dict()
        changed = [k for k in a if k not in ARENA_RESUMABLE and k != "source" and a[k] != b[k]]
        if changed:
            raise ConfigError(f"resume continues the tournament as it was started, but the given spec differs in "
                              f"{', '.join(changed)} (only {', '.join(ARENA_RESUMABLE)} may change)", path=run_dir)
        return old.replace(**{k: getattr(spec, k) for k in ARENA_RESUMABLE},
                           source=spec.source or old.source), True
    if stored is not None or (run_dir / GAMES).exists():
        raise ConfigError("this directory already holds a tournament; pass --resume to continue it, "
                          "or choose another --run-dir", path=run_dir)
    if spec is None:
        raise ConfigError("no arena specification given")
    return spec, False


def arena(spec: ArenaSpec | None, run_dir: Path | str, **kwargs: Any) -> ArenaResult:
    """Play (or resume) a tournament end to end; see :func:`aarena`. Not for a running event loop."""
    return asyncio.run(aarena(spec, run_dir, **kwargs))


async def aarena(spec: ArenaSpec | None, run_dir: Path | str, *, resume: bool = False,
                 agents: dict[str, Any] | None = None, judges: list[Any] | None = None,
                 taskset: Any | None = None, deal_judge: DealJudge | None = None, check_keys: bool = True,
                 on_game: Callable[[GamePlan, dict[str, Any] | None], None] | None = None,
                 report: bool = True) -> ArenaResult:
    """Play every game of the tournament not yet finished, then write arena_summary.json.

    ``agents`` / ``judges`` / ``taskset`` / ``deal_judge`` let a caller inject ready-made objects
    (tests, notebooks); the tournament still records the names from ``spec``. ``on_game`` is
    called as each game ends (its record, or None when it was left unfinished).
    """
    from .api import _check_models, build_plugin_agents, create_judge_list
    from .scheduler import make_agent

    run_dir = Path(run_dir)
    spec, resumed = open_arena(spec, run_dir, resume=resume)
    rspec = spec.run_spec()
    judge_list = judges if judges is not None else create_judge_list(rspec)
    if check_keys:
        _check_models(rspec, judge_list, injected_agents=set(agents or ()))
    stored = read_json(run_dir / SPEC_FILE) if resumed else None
    # the arena keeps its players' labels (a plugin's own label would rename it mid-tournament): an agent
    # built under its new label is looked up by the label the tournament records
    named, given, plugins = build_plugin_agents(rspec, agents, stored)
    renamed = {old.label: new.label for old, new in zip(rspec.entrants, named.entrants)}
    players = {p.label: (given or {}).get(renamed.get(p.label, p.label)) or make_agent(p, rspec) for p in spec.players}
    taskset, scenarios = load_scenarios(spec, taskset)
    fingerprint = taskset.fingerprint() if hasattr(taskset, "fingerprint") else None
    old = ((stored or {}).get("data") or {}).get("fingerprint")
    if old and fingerprint and old != fingerprint:
        raise ConfigError(f"the tasks changed since this tournament started (fingerprint {old} -> {fingerprint}); "
                          "start a new tournament instead of resuming", path=run_dir / SPEC_FILE)
    deal_judge = deal_judge or default_deal_judge()
    from .record import versions

    source = getattr(taskset, "source", None)
    record = {**spec.to_dict(), "data": {"kind": getattr(source, "kind", None),
                                         "revision": getattr(source, "revision", None), "fingerprint": fingerprint},
              "versions": versions(), **({"plugins": plugins} if plugins else {})}
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        lock = hold_lock(run_dir)
        write_json(run_dir / SPEC_FILE, record, durable=True)
    except OSError as exc:
        raise ConfigError(f"cannot write the tournament folder: {exc.strerror or exc}", path=run_dir) from None
    try:
        ctx = ArenaContext(root=run_dir, spec=spec, agents=players, entrants={p.label: p for p in spec.players},
                           judges=judge_list, scenarios=scenarios, deal_judge=deal_judge)
        plans = plan_games(spec, scenarios)
        slots = asyncio.Semaphore(spec.concurrency)
        from .._throttle import configure

        configure(spec.concurrency)  # provider calls adapt to rate limits under the games' ceiling, as in run

        async def one(plan: GamePlan) -> dict[str, Any] | None:
            async with slots:
                try:
                    game = await play_game(ctx, plan)
                except (asyncio.CancelledError, KeyboardInterrupt):
                    raise
                except Exception:  # a bug in one game is recorded with its traceback; the others go on
                    ctx.errors.append({"game_id": plan.game_id, "error": traceback.format_exc(limit=8).strip()})
                    game = None
            if on_game is not None:
                on_game(plan, game)
            return game

        records = await asyncio.gather(*(one(p) for p in plans))
        games = [g for g in records if g is not None]
        left = [{"game_id": p.game_id, "error": next((e["error"] for e in ctx.errors if e["game_id"] == p.game_id),
                                                     "not played")}
                for p, g in zip(plans, records) if g is None]
        from ..judge._panel import judge_method
        from .arena_summary import build_summary

        summary = build_summary(spec, sorted(scenarios), games, run_dir, judge_method(judge_list), left)
        write_json(run_dir / SUMMARY_FILE, summary, durable=True)
        page = write_report(run_dir) if report else None
    finally:
        release_lock(lock)
    return ArenaResult(run_dir, spec, summary, page, ctx.errors, ctx.stopped)


def write_report(run_dir: Path) -> Path | None:
    """arena.html, when this installation has the arena page; a failure never costs the tournament."""
    try:
        from ..report import write_arena_report  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        return Path(write_arena_report(run_dir))
    except Exception as exc:  # noqa: BLE001  the page is a view of finished work
        print(f"warning: arena.html failed ({type(exc).__name__}: {exc})", file=sys.stderr)
        return None


def dry_run(spec: ArenaSpec, taskset: Any | None = None) -> dict[str, Any]:
    """The tournament's plan and an upper estimate of its cost: every game played to ``max_turns``.

    Each player makes, per scenario, opponent and trial, the moves of both seats once (it sits
    first in one game of the pairing and second in the other), so its moves are estimated as
    ``run`` estimates trials of those moves' tasks; move 1 of each game is graded by the rubric
    judges. The deal judges' calls (two per closed game and judge) are counted, not priced.
    """
    from .api import create_judge_list
    from .estimate import estimate

    _, scenarios = load_scenarios(spec, taskset)
    plans = plan_games(spec, scenarios)
    n = len(spec.players)
    move_tasks = [st.task_for(st.side_of("first" if t % 2 else "second"), t)
                  for st in scenarios.values() for t in range(1, spec.max_turns + 1)]
    rspec = spec.run_spec().replace(trials=spec.trials * (n - 1))
    judge_list = create_judge_list(spec.run_spec())
    agents = estimate(rspec, move_tasks, []).rows
    openers = [st.opening for st in scenarios.values()]
    judge_rows = estimate(spec.run_spec().replace(entrants=spec.players[:1], trials=spec.trials * n * (n - 1)),
                          openers, judge_list).rows[1:]
    rows = agents + judge_rows
    costs = [r["cost_usd"] for r in rows]
    return {"games": len(plans), "scenarios": sorted(scenarios), "players": spec.labels,
            "max_moves": len(plans) * spec.max_turns, "max_turns": spec.max_turns, "trials": spec.trials,
            "deal_judge_calls_max": len(plans) * 2 * max(1, len(judge_list)),
            "rows": rows, "cost_usd": None if any(c is None for c in costs) else round(math.fsum(costs), 4),
            "game_ids": [p.game_id for p in plans]}
