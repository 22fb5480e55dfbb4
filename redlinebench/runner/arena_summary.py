"""arena_summary.json (SPEC §8.9): the games, each model's rating and record, the head-to-head table.

Built from the game records alone (and each game's move-01 grade for ``turn1_reward``), so a
resumed tournament writes the same file as an uninterrupted one.
"""

from __future__ import annotations

import statistics
from itertools import combinations
from pathlib import Path
from typing import Any, Sequence

from . import paths
from .arena_spec import ArenaSpec
from .atomic import read_json

DECIMALS = 4


def _r(x: float) -> float:
    return round(float(x), DECIMALS)


def _mean(xs: list[float]) -> float | None:
    return _r(statistics.mean(xs)) if xs else None


def forfeited(game: dict[str, Any], label: str) -> bool:
    seat = game.get("forfeit_by")
    return game.get("outcome") == "forfeit" and seat is not None and game.get(seat) == label


def utility_of(game: dict[str, Any], label: str) -> float:
    seat = "first" if game["first"] == label else "second"
    return float(game["sides"][seat]["utility"])


def pairings(games: Sequence[dict[str, Any]], labels: Sequence[str]) -> list[Any]:
    """One :class:`Pairing` per (scenario, trial, two models) whose two games are both finished."""
    from ..scoring import Pairing, pairing_result

    order = {m: i for i, m in enumerate(labels)}
    groups: dict[tuple[int, int, str, str], list[dict[str, Any]]] = {}
    for g in games:
        a, b = sorted((g["first"], g["second"]), key=order.__getitem__)
        groups.setdefault((int(g["scenario"]), int(g["trial"]), a, b), []).append(g)
    out = []
    for (s, k, a, b), gs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], order[kv[0][2]],
                                                                    order[kv[0][3]])):
        if len(gs) != 2:
            continue  # half a pairing (the other game unfinished) decides nothing
        result, score = pairing_result([utility_of(g, a) for g in gs], [utility_of(g, b) for g in gs],
                                       forfeit_a=any(forfeited(g, a) for g in gs),
                                       forfeit_b=any(forfeited(g, b) for g in gs))
        out.append(Pairing(s, k, a, b, result, score))
    return out


def turn1_reward(root: Path, game: dict[str, Any]) -> float | None:
    """Move 1's reward as its task (``score.weighted`` of move-01/grade.json), when it was scored."""
    grade = read_json(root / game["dir"] / "move-01" / paths.GRADE)
    if not isinstance(grade, dict) or grade.get("status") not in ("graded", "gate_failed"):
        return None
    try:
        return float(grade["score"]["weighted"])
    except (KeyError, TypeError, ValueError):
        return None


def build_summary(spec: ArenaSpec, scenarios: Sequence[int], games: Sequence[dict[str, Any]], root: Path,
                  judge_method: str, not_finished: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    from ..scoring import bt_ratings, rating_intervals

    labels = spec.labels
    games = sorted(games, key=lambda g: (int(g["scenario"]), int(g["trial"]), g["game_id"]))
    plays = pairings(games, labels)
    ratings = bt_ratings(labels, plays)
    intervals = rating_intervals(labels, plays, ratings)
    rows = []
    for m in labels:
        mine = [p for p in plays if m in (p.a, p.b)]
        won = sum(1 for p in mine if (p.result == 1.0) == (p.a == m) and p.result != 0.5)
        tied = sum(1 for p in mine if p.result == 0.5)
        played = [g for g in games if m in (g["first"], g["second"])]
        t1 = [x for x in (turn1_reward(root, g) for g in played if g["first"] == m) if x is not None]
        rows.append({
            "model": m,
            "rating": ratings[m],
            "rating_ci": intervals[m],
            "wins": won,
            "ties": tied,
            "losses": len(mine) - won - tied,
            "closed_rate": _mean([1.0 if g["outcome"] == "closed" else 0.0 for g in played]),
            "utility_first": _mean([utility_of(g, m) for g in played if g["first"] == m]),
            "utility_second": _mean([utility_of(g, m) for g in played if g["second"] == m]),
            "breaches": sum(1 for g in played if g["sides"]["first" if g["first"] == m else "second"]["breach"]),
            "forfeits": sum(1 for g in played if forfeited(g, m)),
            "turn1_reward": _mean(t1),
        })
    rows.sort(key=lambda r: (-r["rating"], labels.index(r["model"])))
    h2h = []
    for a, b in combinations(labels, 2):
        mine = [p for p in plays if {p.a, p.b} == {a, b}]
        wins_a = sum(1 for p in mine if (p.a == a and p.result == 1.0) or (p.b == a and p.result == 0.0))
        ties = sum(1 for p in mine if p.result == 0.5)
        score = sum(p.score if p.a == a else -p.score for p in mine)
        h2h.append({"a": a, "b": b, "wins_a": wins_a, "ties": ties, "wins_b": len(mine) - wins_a - ties,
                    "score": _r(score)})
    summary: dict[str, Any] = {"models": list(labels), "scenarios": list(scenarios), "max_turns": spec.max_turns,
                               "trials": spec.trials, "judge_method": judge_method, "games": list(games),
                               "models_summary": rows, "head_to_head": h2h}
    if not_finished:
        summary["not_finished"] = list(not_finished)
    return summary
