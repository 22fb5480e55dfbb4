"""SPEC §6.1 paired comparison: summarize()'s ``pairwise`` against an independent reading.

``reference_pairwise`` is written from the SPEC text alone (plain dicts and loops from the grade
dicts, numpy only for the draws SPEC prescribes), sharing no code with redlinebench.scoring.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redlinebench.scoring import holm, pairwise, summarize
from tests.scoring.test_independent import SIDES, random_grades

N = 10_000


def grade(model: str, s: int, t: int, group: int, reward: float, trial: int = 1, variant: str = "a") -> dict:
    return {"task_id": f"redline-s{s}-t{t}-g{group:02d}{variant}", "model": model, "trial": trial,
            "scenario_id": s, "turn": t, "side": SIDES[s][t - 1], "input_group": f"s{s}-t{t}-g{group:02d}",
            "variant": variant, "judge_method": "llm", "gate": {"passed": True},
            "score": {"weighted": reward, "per_rubric": []}}


def reference_pairwise(grades: list[dict], order: list[str]) -> list[dict]:
    scores: dict[str, dict] = {}
    for model in order:
        groups = defaultdict(list)
        for g in grades:
            if g["model"] == model:
                reward = g["score"]["weighted"] if g["gate"]["passed"] else 0.0
                groups[(g["scenario_id"], g["turn"], g["input_group"])].append(reward)
        scores[model] = {k: statistics.mean(v) for k, v in groups.items()}
    out = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            sa, sb = scores[a], scores[b]
            only = [k for k in sa if k not in sb] + [k for k in sb if k not in sa]
            cells: dict = {}
            for key in sorted(k for k in sa if k in sb):
                cells.setdefault(key[:2], []).append(sa[key] - sb[key])
            row = {"a": a, "b": b, "n_groups": sum(len(v) for v in cells.values()), "n_cells": len(cells),
                   "n_groups_excluded": len(only)}
            out.append(row)
            if not cells:
                row.update(diff=None, ci=None, ci_method=None, p=None)
                continue
            diff = statistics.mean([statistics.mean(v) for v in cells.values()])
            seed = sum(bytearray((a + "|" + b).encode("utf-8"))) % 2**32
            all_d = np.array([x for key in sorted(cells) for x in cells[key]])
            # the amendment: cells of fewer than 2 shared groups draw from a pool, one stream for all cells
            lonely = [cells[key][0] for key in sorted(cells) if len(cells[key]) < 2]
            pool = np.array(lonely) if len(lonely) >= 2 else all_d
            rng = np.random.default_rng(seed)
            resampled = []
            for key in sorted(cells):
                d = np.array(cells[key])
                if len(d) < 2:
                    resampled.append(pool[rng.integers(0, len(pool), size=(N, 1))].mean(axis=1))
                else:
                    resampled.append(d[rng.integers(0, len(d), size=(N, len(d)))].mean(axis=1))
            stats = sorted(np.stack(resampled).mean(axis=0).tolist())
            if len(all_d) == 1:
                interval, method = [diff, diff], "none"
            else:
                interval = [stats[int(0.025 * N)], stats[int(0.975 * N)]]
                method = "pooled" if lonely else "stratified"
            rng = np.random.default_rng(seed + 1)
            flip = rng.random((N, len(all_d))) < 0.5
            signed = all_d * np.where(flip, -1.0, 1.0)
            cell_means, col = [], 0
            for key in sorted(cells):
                cell_means.append(signed[:, col:col + len(cells[key])].mean(axis=1))
                col += len(cells[key])
            null = np.stack(cell_means).mean(axis=0)
            count = sum(1 for x in null if abs(x) >= abs(diff) - 1e-12)
            row.update(diff=diff, ci=interval, ci_method=method, p=(1 + count) / (1 + N))
    tested = [r for r in out if r["p"] is not None]
    ranked = sorted(range(len(tested)), key=lambda i: tested[i]["p"])
    m, best = len(tested), 0.0
    for j, i in enumerate(ranked, start=1):
        best = max(best, (m - j + 1) * tested[i]["p"])
        tested[i]["p_holm"] = min(1.0, best)
    return out


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 100_000), st.integers(2, 4))
def test_pairwise_matches_an_independent_reading(seed, n_models):
    grades = random_grades(random.Random(seed), n_models)  # cells and groups missing at random per model
    summary = summarize(grades)
    order = summary["models"]
    expected = reference_pairwise(grades, order)
    got = summary["pairwise"]
    assert [(e["a"], e["b"]) for e in got] == [(e["a"], e["b"]) for e in expected]
    for g, e in zip(got, expected):
        for key in ("n_groups", "n_cells", "n_groups_excluded", "ci_method"):
            assert g[key] == e[key], key
        if e["p"] is None:
            assert g["diff"] is g["ci"] is g["p"] is g["p_holm"] is g["ci_method"] is None
            assert g["significant"] is False
            continue
        assert abs(g["diff"] - e["diff"]) <= 1e-4 + 1e-12
        assert all(abs(x - y) <= 1e-4 + 1e-12 for x, y in zip(g["ci"], e["ci"]))
        assert abs(g["p"] - e["p"]) <= 1 / (N + 1) + 1e-4
        assert abs(g["p_holm"] - e["p_holm"]) <= len(expected) / (N + 1) + 1e-4
        assert g["significant"] == (e["p_holm"] < 0.05) or abs(e["p_holm"] - 0.05) < len(expected) / N


def test_hand_computed_case():
    # cell 1-1: A 1.0, 0.5 vs B 0.5, 0.5 -> d = [0.5, 0]; cell 1-2: A 0.0 vs B 0.5 -> d = [-0.5];
    # B alone in 2-1 (excluded). diff = mean(0.25, -0.5) = -0.125: A leads the board (0.375 vs
    # 0.3333) yet trails on what both did. Every sign flip gives |stat| in {0.125, 0.375}: p = 1.
    # Bootstrap: cell 1-1 resamples to 0, 0.25 or 0.5 (1/4, 1/2, 1/4); cell 1-2 is the only
    # singleton (m = 1), so it draws from all G = 3 groups' d_g: -0.5, 0 or 0.5 (1/3 each). The
    # statistic's extremes, -0.25 and 0.5, have 1/12 each (more than 2.5%): the interval.
    grades = [grade("A", 1, 1, 1, 1.0), grade("A", 1, 1, 2, 0.25), grade("A", 1, 1, 2, 0.75, trial=2),
              grade("A", 1, 2, 1, 0.0),
              grade("B", 1, 1, 1, 0.5), grade("B", 1, 1, 2, 0.5), grade("B", 1, 2, 1, 0.5), grade("B", 2, 1, 1, 0.0)]
    summary = summarize(grades, expected_cells=[(1, 1), (1, 2), (2, 1)])
    assert summary["models"] == ["A", "B"]
    (pair,) = summary["pairwise"]
    assert pair == {"a": "A", "b": "B", "diff": -0.125, "ci": [-0.25, 0.5], "ci_method": "pooled", "p": 1.0,
                    "p_holm": 1.0, "significant": False, "n_groups": 3, "n_cells": 2, "n_groups_excluded": 1}


def _scores(cells: dict[tuple[int, int], list[float]]) -> dict[tuple[int, int, str], float]:
    return {(s, t, f"g{i}"): x for (s, t), xs in cells.items() for i, x in enumerate(xs, start=1)}


def test_one_group_per_cell_pools_the_cells():
    # the --limit run of issue 31: every cell holds one shared group, d = [1, 0]; diff = 0.5.
    # Stratified, each cell would return its own d every time: [0.5, 0.5]. Pooled (m = 2), each
    # cell draws 1 or 0: the statistic is 0, 0.5 or 1 (1/4, 1/2, 1/4). Sign flips: |stat| = 0.5 always.
    (pair,) = pairwise({"A": _scores({(1, 1): [1.0], (1, 2): [0.5]}), "B": _scores({(1, 1): [0.0], (1, 2): [0.5]})},
                       ["A", "B"])
    assert (pair["diff"], pair["ci"], pair["ci_method"], pair["p"]) == (0.5, [0.0, 1.0], "pooled", 1.0)


def test_two_singletons_pool_only_with_each_other():
    # cell 1-1: d = [0.5, -1.0] (resample mean -1, -0.25, 0.5 at 1/4, 1/2, 1/4); cells 1-2 and 1-3
    # are singletons, d = -0.5 and 1.0, and draw from those two only (m = 2), never from 1-1's -1.0.
    # Extremes: (-1 - 0.5 - 0.5) / 3 and (0.5 + 1 + 1) / 3, 1/16 each. Pooling all four d_g would
    # put (-1 - 1 - 1) / 3 at 1/64 below them.
    a = _scores({(1, 1): [1.0, 0.0], (1, 2): [0.0], (1, 3): [1.0]})
    b = _scores({(1, 1): [0.5, 1.0], (1, 2): [0.5], (1, 3): [0.0]})
    (pair,) = pairwise({"A": a, "B": b}, ["A", "B"])
    assert (pair["diff"], pair["ci"], pair["ci_method"]) == (0.0833, [-0.6667, 0.8333], "pooled")


def test_one_shared_group_has_no_interval():
    (pair,) = pairwise({"A": _scores({(2, 3): [0.9], (1, 1): [0.2]}), "B": _scores({(2, 3): [0.5]})}, ["A", "B"])
    assert (pair["diff"], pair["ci"], pair["ci_method"], pair["p"]) == (0.4, [0.4, 0.4], "none", 1.0)
    assert pair["n_groups"] == 1 and pair["n_groups_excluded"] == 1


def test_cells_of_two_or_more_stay_stratified():
    a = _scores({(1, 1): [1.0, 0.0], (1, 2): [0.5, 0.5]})
    b = _scores({(1, 1): [0.0, 0.0], (1, 2): [0.5, 0.5]})
    (pair,) = pairwise({"A": a, "B": b}, ["A", "B"])
    # 1-1 resamples to 0, 0.5, 1 (1/4, 1/2, 1/4), 1-2 to 0: statistic 0, 0.25, 0.5
    assert (pair["diff"], pair["ci"], pair["ci_method"]) == (0.25, [0.0, 0.5], "stratified")


def test_holm_by_hand():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.5]) == [1.0, 1.0]
    assert holm([]) == []


def test_identical_models_differ_by_nothing():
    rng = random.Random(3)
    base = [grade("A", s, t, g, rng.random(), trial=k) for s in (1, 2, 3) for t in (1, 2, 3, 4)
            for g in range(1, 4) for k in (1, 2)]
    grades = base + [{**g, "model": "B"} for g in base]
    (pair,) = summarize(grades)["pairwise"]
    assert pair["diff"] == 0.0 and pair["ci"] == [0.0, 0.0] and pair["ci_method"] == "stratified"
    assert pair["p"] == 1.0 and pair["p_holm"] == 1.0 and pair["significant"] is False


@pytest.mark.parametrize("per_cell", [1, 2, 5, 12])
@pytest.mark.parametrize("n_models", [2, 3])
def test_better_by_a_tenth_everywhere_is_significant(per_cell, n_models):
    rng = random.Random(per_cell)
    grades = []
    for s in (1, 2, 3):
        for t in (1, 2, 3, 4):
            for g in range(1, per_cell + 1):
                x = rng.uniform(0.1, 0.8)
                for m in range(n_models):
                    grades.append(grade(f"m{m}", s, t, g, x + 0.1 * (n_models - 1 - m)))
    summary = summarize(grades)
    assert summary["models"] == [f"m{m}" for m in range(n_models)]
    for pair in summary["pairwise"]:
        assert pair["significant"] is True, pair
        assert pair["diff"] > 0 and pair["ci"][0] > 0
        assert pair["n_groups"] == 12 * per_cell and pair["n_cells"] == 12


def test_no_shared_group_gives_nulls_and_is_left_out_of_holm():
    grades = [grade("A", 1, 1, 1, 0.9), grade("B", 2, 1, 1, 0.1)] + [
        grade(m, s, t, 1, v + 0.2 * (m == "A")) for m in ("A", "C") for s in (1, 2, 3) for t in (1, 2, 3, 4)
        for v in [0.3] if (s, t) != (2, 1) or m == "C"]
    summary = summarize(grades)
    by_pair = {(p["a"], p["b"]): p for p in summary["pairwise"]}
    ab = by_pair[tuple(m for m in summary["models"] if m in "AB")]
    assert ab["n_groups"] == 0 and ab["n_cells"] == 0 and ab["n_groups_excluded"] == 11 + 1  # all of A, all of B
    assert ab["diff"] is None and ab["ci"] is None and ab["p"] is None and ab["p_holm"] is None
    assert ab["significant"] is False
    # m counts the two testable pairs only: A-C's p_holm is at most 2 x its p
    ac = by_pair[("A", "C")]
    assert ac["p_holm"] <= 2 * ac["p"] + 1e-4


def test_pairwise_is_pure_and_ordered():
    scores = {"x": {(1, 1, "g1"): 0.5, (1, 1, "g2"): 0.7}, "y": {(1, 1, "g1"): 0.4, (1, 1, "g2"): 0.2},
              "z": {(1, 1, "g1"): 0.1}}
    first = pairwise(scores, ["x", "y", "z"])
    assert first == pairwise(scores, ["x", "y", "z"])
    assert [(p["a"], p["b"]) for p in first] == [("x", "y"), ("x", "z"), ("y", "z")]
    assert first[1]["n_groups_excluded"] == 1 and first[1]["n_groups"] == 1


def test_coin_flips_are_specs_draws():
    from redlinebench.scoring._pairwise import _coin_flips

    for seed in (0, 1, 2**32 - 1, 2**32):
        expected = np.random.default_rng(seed).random((300, 37)) < 0.5
        assert (_coin_flips(np.random.default_rng(seed), (300, 37)) == expected).all()
    expected = np.random.Generator(np.random.MT19937(5)).random((10, 3)) < 0.5
    assert (_coin_flips(np.random.Generator(np.random.MT19937(5)), (10, 3)) == expected).all()


def test_signed_sums_match_the_plain_sum():
    from redlinebench.scoring._pairwise import _signed_sums

    rng = np.random.default_rng(9)
    for g in (1, 7, 8, 9, 140):
        flip, w = rng.random((500, g)) < 0.5, rng.random(g) / g
        assert np.abs(_signed_sums(flip, w) - np.where(flip, -w, w).sum(axis=1)).max() < 1e-14


def test_int32_bootstrap_indices_are_specs_draws():
    for seed in (0, 7, 2**32):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        for n in (1, 2, 3, 12, 13, 40):
            assert (a.integers(0, n, size=(200, n)) == b.integers(0, n, size=(200, n), dtype=np.int32)).all()
            # a pooled singleton cell's one column, drawn from a pool of another size, in the same stream
            assert (a.integers(0, n + 4, size=(199, 1)) == b.integers(0, n + 4, size=(199, 1), dtype=np.int32)).all()
