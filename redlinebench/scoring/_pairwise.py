"""Paired comparison of every two models of one summary (SPEC §6.1).

§6's ``ci`` resamples a model's 12 cell means: it says how uneven the model is across cells,
not whether it beats another one. Here every pair (A, B) is compared on what both were graded
on: per shared input group ``d_g = score_A(g) - score_B(g)``, the §6 aggregation of those
differences (cell means, then the mean of cells), a stratified paired bootstrap interval, a
two-sided sign-flip p-value and Holm's adjustment over all pairs. The draws are spelled out
to the call (numpy ``default_rng``) so another implementation reproduces them.

A pair with no shared group cannot be compared: its ``diff``, ``ci``, ``p`` and ``p_holm`` are
``None``, ``significant`` is ``False``, and it does not count among Holm's m tests.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

N_DRAWS = 10_000
ALPHA = 0.05
DECIMALS = 4
#: |stat| >= |diff| - TOLERANCE counts as "at least as extreme" (float sums in another order).
TOLERANCE = 1e-12

GroupKey = tuple[int, int, str]  # (scenario, turn, input group)


def pair_seed(a: str, b: str) -> int:
    """Sum of the UTF-8 bytes of ``a + "|" + b`` mod 2**32 (``a`` above ``b`` on the leaderboard)."""
    return sum(f"{a}|{b}".encode("utf-8")) % 2**32


def _r(x: float) -> float:
    return round(float(x), DECIMALS)


def _cell_slices(keys: Sequence[GroupKey]) -> list[slice]:
    """Contiguous column ranges of each (scenario, turn) cell in the sorted shared groups."""
    slices, start = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i][:2] != keys[start][:2]:
            slices.append(slice(start, i))
            start = i
    return slices


def compare_pair(a: str, b: str, scores_a: Mapping[GroupKey, float], scores_b: Mapping[GroupKey, float],
                 n_draws: int = N_DRAWS) -> dict[str, Any]:
    """One pair's §6.1 entry without Holm's columns (``p_holm``, ``significant``)."""
    shared = sorted(scores_a.keys() & scores_b.keys())
    excluded = len(scores_a.keys() ^ scores_b.keys())
    entry: dict[str, Any] = {"a": a, "b": b, "diff": None, "ci": None, "p": None, "p_holm": None,
                             "significant": False, "n_groups": len(shared), "n_cells": 0,
                             "n_groups_excluded": excluded}
    if not shared:
        return entry
    d_list = [scores_a[k] - scores_b[k] for k in shared]
    slices = _cell_slices(shared)
    diff = statistics.mean(statistics.mean(d_list[s]) for s in slices)
    d = np.asarray(d_list, dtype=float)
    seed = pair_seed(a, b)

    rng = np.random.default_rng(seed)
    boot = []
    for s in slices:
        cell = d[s]
        idx = rng.integers(0, len(cell), size=(n_draws, len(cell)))
        boot.append(cell[idx].mean(axis=1))
    stat = np.sort(np.stack(boot).mean(axis=0))
    ci = [_r(stat[int(ALPHA / 2 * n_draws)]), _r(stat[int((1 - ALPHA / 2) * n_draws)])]

    rng = np.random.default_rng(seed + 1)
    flip = rng.random((n_draws, len(d))) < 0.5
    signed = np.where(flip, -d, d)
    null = np.stack([signed[:, s].mean(axis=1) for s in slices]).mean(axis=0)
    extreme = int(np.count_nonzero(np.abs(null) >= abs(diff) - TOLERANCE))
    entry.update(diff=_r(diff), ci=ci, p=_r((1 + extreme) / (1 + n_draws)), n_cells=len(slices))
    entry["_p"] = (1 + extreme) / (1 + n_draws)
    return entry


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order (ties keep input order)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])  # stable: ties in pair order
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order, start=1):
        running = max(running, (m - rank + 1) * p_values[i])
        adjusted[i] = min(1.0, running)
    return adjusted


def pairwise(group_scores: Mapping[str, Mapping[GroupKey, float]], order: Sequence[str],
             n_draws: int = N_DRAWS) -> list[dict[str, Any]]:
    """The ``pairwise`` list of ``metrics_summary.json``: every pair (A above B in ``order``),
    in leaderboard order ((1,2), (1,3), ..., (2,3), ...).

    ``group_scores[model][(scenario, turn, group)]`` is the model's §6 group score (mean of its
    rewards in the group, gate failures as 0). Pure: same input, same output, to the draw.
    """
    entries = [compare_pair(a, b, group_scores.get(a, {}), group_scores.get(b, {}), n_draws)
               for a, b in combinations(order, 2)]
    tested = [e for e in entries if "_p" in e]
    for e, adj in zip(tested, holm([e.pop("_p") for e in tested])):
        e["p_holm"] = _r(adj)
        e["significant"] = adj < ALPHA
    return entries
