"""summarize() against a second, independent reading of SPEC §6 on random grade sets.

The reference below is written from the SPEC text alone (statistics.mean, plain dicts, no code
shared with redlinebench.scoring) so a grouping or rounding slip in either shows up.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from redlinebench.scoring import summarize

SIDES = {1: "ABAB", 2: "BABA", 3: "ABAB"}
CATS = ["Commercial Context", "Legal correctness", "Negotiation Quality"]


def random_grades(rng: random.Random, n_models: int) -> list[dict]:
    grades = []
    for m in range(n_models):
        for s in (1, 2, 3):
            for t in (1, 2, 3, 4):
                if rng.random() < 0.15:
                    continue  # a filtered run: some cells absent
                for g in range(1, rng.randint(1, 3) + 1):
                    for v in "abc"[: rng.randint(1, 3)]:
                        for trial in range(1, rng.randint(1, 3) + 1):
                            weights = [rng.choice([-4, -1, 2, 3, 5, 8]) for _ in range(rng.randint(1, 6))]
                            verdicts = [rng.choice(["PASS", "FAIL"]) for _ in weights]
                            gate = rng.random() > 0.1
                            earned = sum(w for w, x in zip(weights, verdicts) if w > 0 and x == "PASS")
                            pen = sum(-w for w, x in zip(weights, verdicts) if w < 0 and x == "PASS")
                            tot = sum(w for w in weights if w > 0)
                            reward = 0.0 if not gate or tot == 0 else min(1.0, max(0.0, (earned - pen) / tot))
                            grades.append({
                                "task_id": f"redline-s{s}-t{t}-g{g:02d}{v}", "model": f"model-{m}", "trial": trial,
                                "scenario_id": s, "turn": t, "side": SIDES[s][t - 1],
                                "input_group": f"s{s}-t{t}-g{g:02d}", "variant": v, "judge_method": "llm",
                                "gate": {"passed": gate},
                                "score": {"weighted": reward, "per_rubric": [
                                    {"rubric_id": f"r{i}", "verdict": x if gate else "FAIL", "weight": w,
                                     "category": rng.choice(CATS)} for i, (w, x) in enumerate(zip(weights, verdicts))]},
                            })
    return grades


def reference(grades: list[dict], model: str) -> dict:
    rows = [g for g in grades if g["model"] == model]
    groups = defaultdict(list)
    for g in rows:
        groups[(g["scenario_id"], g["turn"], g["input_group"])].append(g["score"]["weighted"])
    gscore = {k: statistics.mean(v) for k, v in groups.items()}
    cells = defaultdict(list)
    for (s, t, _), v in gscore.items():
        cells[(s, t)].append(v)
    cmean = {k: round(statistics.mean(v), 4) for k, v in sorted(cells.items())}
    side = {(g["scenario_id"], g["turn"]): g["side"] for g in rows}
    by_turn = defaultdict(list)
    for (s, t, _), v in gscore.items():
        by_turn[t].append(v)
    by_side, by_scen = defaultdict(list), defaultdict(list)
    for (s, t), v in cmean.items():
        by_side[side[(s, t)]].append(v)
        by_scen[s].append(v)
    best = {}
    for g in rows:
        key = g["task_id"]
        best[key] = max(best.get(key, (0, -1.0)), (0, g["score"]["weighted"]))
    bgroups = defaultdict(list)
    for g in rows:
        bgroups[(g["scenario_id"], g["turn"], g["input_group"])].append(best[g["task_id"]][1])
    # one value per task, not per trial: rebuild from the task level
    btask = {}
    for g in rows:
        btask[g["task_id"]] = (g["scenario_id"], g["turn"], g["input_group"], best[g["task_id"]][1])
    bg = defaultdict(list)
    for s, t, grp, v in btask.values():
        bg[(s, t, grp)].append(v)
    bcell = defaultdict(list)
    for (s, t, _), v in bg.items():
        bcell[(s, t)].append(statistics.mean(v))
    num, den = defaultdict(float), defaultdict(float)
    for g in rows:
        for r in g["score"]["per_rubric"]:
            w = r["weight"]
            den[r["category"]] += abs(w)
            if (w > 0 and r["verdict"] == "PASS") or (w < 0 and r["verdict"] != "PASS"):
                num[r["category"]] += abs(w)
    return {
        "overall_turn_weighted": round(statistics.mean(cmean.values()), 4),
        "best_at_k_turn_weighted": round(statistics.mean(round(statistics.mean(v), 4) for v in bcell.values()), 4),
        "overall_score": round(statistics.mean(gscore.values()), 4),
        "mean_per_task_reward": round(statistics.mean(g["score"]["weighted"] for g in rows), 4),
        "by_turn": {str(t): round(statistics.mean(v), 4) for t, v in sorted(by_turn.items())},
        "by_scenario_turn": {f"{s}-{t}": v for (s, t), v in cmean.items()},
        "by_scenario_turn_weighted": {str(s): round(statistics.mean(v), 4) for s, v in sorted(by_scen.items())},
        "by_side_turn_weighted": {k: round(statistics.mean(v), 4) for k, v in sorted(by_side.items())},
        "by_category": {c: round(num[c] / den[c], 4) for c in sorted(den) if den[c]},
        "n_gate_failures": sum(1 for g in rows if not g["gate"]["passed"]),
        "n_trials": len(rows),
        "n_input_groups": len(gscore),
        "redline_overall": round(100 * round(statistics.mean(cmean.values()), 4), 1),
    }


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_summary_matches_an_independent_reading(seed):
    grades = random_grades(random.Random(seed), 3)
    summary = summarize(grades)
    for entry in summary["leaderboard"]:
        expected = reference(grades, entry["model"])
        for key, value in expected.items():
            assert entry[key] == value, (entry["model"], key)
    order = [e["overall_turn_weighted"] for e in summary["leaderboard"]]
    assert order == sorted(order, reverse=True)
