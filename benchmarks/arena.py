"""Arena overhead: CPU per move spent by the arena itself (audit, move-1 grading, files), model time
excluded; and the wall time of an offline 3-player tournament (3 scenarios, 18 games).

    python benchmarks/arena.py [--max-turns 6] [--concurrency 2]

Players are offline and scripted (tests/runner/arena_players.py: ``editor`` makes one tracked
change a move, ``stubborn`` is a second editor, so
those two play every game to the cap, ``closer`` edits until the document holds a change, then closes); the deal judge is that
file's double until the arena judge lands. A player's own CPU (inside ``agent.run``) stands for
model time and is subtracted, as is the deal judge's; what is left, divided by the moves played,
is the arena's overhead per move. Targets (issue 32): < 1 s CPU per move; the 18-game demo < 60 s
on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class Timed:
    """An agent (or judge) wrapper that adds up the CPU spent inside it."""

    def __init__(self, inner, bucket: list[float]) -> None:
        self.inner, self.bucket = inner, bucket
        self.name = getattr(inner, "name", "x")
        self.label = getattr(inner, "label", "x")

    async def run(self, task, workdir, *, trial):
        t0 = time.process_time()
        try:
            return await self.inner.run(task, workdir, trial=trial)
        finally:
            self.bucket[0] += time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-turns", type=int, default=6)
    ap.add_argument("--concurrency", type=int, default=1)
    args = ap.parse_args()

    from redlinebench.runner import ArenaSpec, Entrant, aarena
    from redlinebench.runner.scheduler import make_agent
    from tests.runner.arena_players import fake_deal

    players = (Entrant("tests.runner.arena_players:editor"), Entrant("tests.runner.arena_players:stubborn"),
               Entrant("tests.runner.arena_players:closer"))
    spec = ArenaSpec(players=players, judges="heuristic", source="embedded", max_turns=args.max_turns,
                     concurrency=args.concurrency)
    agent_cpu, judge_cpu = [0.0], [0.0]
    agents = {p.label: Timed(make_agent(p, spec.run_spec()), agent_cpu) for p in players}

    async def deal(*a, **kw):
        t0 = time.process_time()
        try:
            return await fake_deal(*a, **kw)
        finally:
            judge_cpu[0] += time.process_time() - t0

    with tempfile.TemporaryDirectory() as tmp:
        w0, c0 = time.perf_counter(), time.process_time()
        result = asyncio.run(aarena(spec, Path(tmp) / "arena", agents=agents, deal_judge=deal, report=False))
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    games = result.summary["games"]
    moves = sum(g["moves"] for g in games)
    overhead = cpu - agent_cpu[0] - judge_cpu[0]
    outcomes = {k: sum(1 for g in games if g["outcome"] == k) for k in ("closed", "no_deal", "forfeit")}
    print(f"tournament: {len(players)} players, {len(result.summary['scenarios'])} scenarios, {len(games)} games, "
          f"{moves} moves ({outcomes}); concurrency {args.concurrency}")
    print(f"wall {wall:.2f} s (target < 60 s for 18 games on 2 cores); CPU {cpu:.2f} s: players {agent_cpu[0]:.2f} s, "
          f"deal judge {judge_cpu[0]:.2f} s, arena {overhead:.2f} s")
    print(f"arena overhead per move (audit, move-1 grading, files; players and deal judge excluded): "
          f"{1000 * overhead / max(1, moves):.0f} ms CPU (target < 1000 ms)")


if __name__ == "__main__":
    main()
