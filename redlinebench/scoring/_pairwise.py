"""Paired comparison of every two models of one summary (SPEC §6.1).

§6's ``ci`` resamples a model's 12 cell means: it says how uneven the model is across cells,
not whether it beats another one. Here every pair (A, B) is compared on what both were graded
on: per shared input group ``d_g = score_A(g) - score_B(g)``, the §6 aggregation of those
differences (cell means, then the mean of cells), a stratified paired bootstrap interval, a
two-sided sign-flip p-value and Holm's adjustment over all pairs. The draws are spelled out
to the call (numpy ``default_rng``) so another implementation reproduces them.

A cell with a single shared group has no spread of its own: resampled alone it returns its
observed difference every time, and a run of such cells (a ``--limit`` run, a partial import)
would report an interval of zero width. SPEC §6.1 (amended) pools those cells: each draws from
the ``d_g`` of all singleton cells (two or more of them), else from all shared groups; one shared
group in all gives ``[diff, diff]``. ``ci_method`` says which: "stratified", "pooled" or "none".
The sign-flip p does not change.

A pair with no shared group cannot be compared: its ``diff``, ``ci``, ``p`` and ``p_holm`` are
``None``, ``significant`` is ``False``, and it does not count among Holm's m tests.
"""

from __future__ import annotations

import os
import statistics
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

N_DRAWS = 10_000
ALPHA = 0.05
DECIMALS = 4
#: |stat| >= |diff| - TOLERANCE counts as "at least as extreme" (float sums in another order).
TOLERANCE = 1e-12

NOT_DISTINGUISHABLE = "not distinguishable"

#: ``ci_method`` values (SPEC §6.1): no cell pooled; some singleton cells pooled; one shared group, no interval.
STRATIFIED, POOLED, NO_CI = "stratified", "pooled", "none"

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


_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(float)  # (256, 8), MSB first


def _coin_flips(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """``rng.random(shape) < 0.5``, the same draws at two thirds of the cost.

    With PCG64 (``default_rng``'s generator) ``random()`` is ``(raw >> 11) * 2**-53`` of one raw
    64-bit output, so it is below 0.5 exactly when the raw output's top bit is 0.
    tests/scoring/test_pairwise.py checks the equality; another bit generator takes the long way.
    """
    if isinstance(rng.bit_generator, np.random.PCG64):
        return rng.bit_generator.random_raw(shape).view(np.int64) >= 0
    return rng.random(shape) < 0.5


def _signed_sums(flip: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per draw (row of ``flip``), the sum of ``w`` with the flipped entries negated.

    Equal to ``np.where(flip, -w, w).sum(axis=1)`` up to float summation order (well inside
    TOLERANCE), at a fraction of the cost: the flips are packed 8 to a byte and each byte looks
    up its 8 columns' flipped sum in a 256-entry table.
    """
    n_cols = flip.shape[1]
    packed = np.packbits(flip, axis=1)                       # (N, ceil(G/8)), first column in the MSB
    padded = np.zeros(packed.shape[1] * 8)
    padded[:n_cols] = w
    table = _BITS @ padded.reshape(-1, 8).T                  # (256, bytes): flipped sum of each byte
    return w.sum() - 2 * table[packed, np.arange(packed.shape[1])].sum(axis=1)


def _bootstrap_ci(d: np.ndarray, slices: Sequence[slice], weight: np.ndarray, diff: float, seed: int,
                  n_draws: int) -> tuple[list[float], str]:
    """SPEC §6.1 step 3 as amended: the stratified paired bootstrap interval and its ``ci_method``.

    ``d`` holds the shared groups' ``d_g`` in (cell, group id) order, ``slices`` each cell's
    columns, ``weight`` each group's weight in the statistic (1 / (cells x groups of its cell)).
    """
    if len(d) == 1:
        return [_r(diff), _r(diff)], NO_CI
    singles = [s.start for s in slices if s.stop - s.start == 1]
    # the pool singleton cells draw from: the singletons' own d_g when there are two or more, else all groups
    pool = np.asarray(singles if len(singles) >= 2 else range(len(d)), dtype=np.int32)
    rng = np.random.default_rng(seed)
    idx = np.empty((n_draws, len(d)), dtype=np.int32)
    for s in slices:  # the draws in SPEC's order, cell by cell, from one stream (int32: the same draws
        # as the default int64, half the memory; tested), then one gather for all cells
        n = s.stop - s.start
        if n == 1:
            idx[:, s] = pool[rng.integers(0, len(pool), size=(n_draws, 1), dtype=np.int32)]
        else:
            idx[:, s] = rng.integers(0, n, size=(n_draws, n), dtype=np.int32) + s.start
    stat = np.sort(d[idx] @ weight)
    ci = [_r(stat[int(ALPHA / 2 * n_draws)]), _r(stat[int((1 - ALPHA / 2) * n_draws)])]
    return ci, POOLED if singles else STRATIFIED


def compare_pair(a: str, b: str, scores_a: Mapping[GroupKey, float], scores_b: Mapping[GroupKey, float],
                 n_draws: int = N_DRAWS) -> dict[str, Any]:
    """One pair's §6.1 entry without Holm's columns (``p_holm``, ``significant``)."""
    shared = sorted(scores_a.keys() & scores_b.keys())
    excluded = len(scores_a.keys() ^ scores_b.keys())
    entry: dict[str, Any] = {"a": a, "b": b, "diff": None, "ci": None, "ci_method": None, "p": None,
                             "p_holm": None, "significant": False, "n_groups": len(shared), "n_cells": 0,
                             "n_groups_excluded": excluded}
    if not shared:
        return entry
    d_list = [scores_a[k] - scores_b[k] for k in shared]
    slices = _cell_slices(shared)
    diff = statistics.mean(statistics.mean(d_list[s]) for s in slices)
    d = np.asarray(d_list, dtype=float)
    seed = pair_seed(a, b)
    # each group's weight in the statistic (mean over cells of the cell means): 1 / (cells x n_cell)
    weight = np.concatenate([np.full(s.stop - s.start, 1.0 / (len(slices) * (s.stop - s.start))) for s in slices])

    ci, method = _bootstrap_ci(d, slices, weight, diff, seed, n_draws)
    flip = _coin_flips(np.random.default_rng(seed + 1), (n_draws, len(d)))
    null = _signed_sums(flip, d * weight)
    extreme = int(np.count_nonzero(np.abs(null) >= abs(diff) - TOLERANCE))
    entry.update(diff=_r(diff), ci=ci, ci_method=method, p=_r((1 + extreme) / (1 + n_draws)), n_cells=len(slices))
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
    def one(pair: tuple[str, str]) -> dict[str, Any]:
        a, b = pair
        return compare_pair(a, b, group_scores.get(a, {}), group_scores.get(b, {}), n_draws)

    pairs = list(combinations(order, 2))
    workers = min(len(pairs), os.cpu_count() or 1, 8)
    if workers > 1:  # numpy draws and gathers release the GIL; every pair has its own generators
        with ThreadPoolExecutor(workers) as pool:
            entries = list(pool.map(one, pairs))
    else:
        entries = [one(p) for p in pairs]
    tested = [e for e in entries if "_p" in e]
    for e, adj in zip(tested, holm([e.pop("_p") for e in tested])):
        e["p_holm"] = _r(adj)
        e["significant"] = adj < ALPHA
    return entries


def verdict(pair: Mapping[str, Any]) -> str:
    """One word (or two) for a pair: whether the first model is better, worse, or neither by the test."""
    if pair.get("diff") is None:
        return "no shared groups"
    if not pair.get("significant"):
        return NOT_DISTINGUISHABLE
    return "better" if pair["diff"] > 0 else "worse"


def rank_bands(order: Sequence[str], pairs: Sequence[Mapping[str, Any]]) -> list[int]:
    """A rank per model (leaderboard order) where a model not distinguishable from the one above it
    shares that model's rank: rank bands, so no ordering is claimed the test does not support."""
    # only "above and significantly better" separates: a significant difference against the board's
    # order (unequal coverage) is no support for the order either
    sig = {(p["a"], p["b"]): bool(p.get("significant")) and (p.get("diff") or 0) > 0 for p in pairs}
    ranks: list[int] = []
    for i, model in enumerate(order):
        if i and not sig.get((order[i - 1], model), False):
            ranks.append(ranks[-1])
        else:
            ranks.append(i + 1)
    return ranks
