"""Arena pairings and Bradley-Terry ratings (SPEC §8.6-8.7).

Pure functions over plain data. A *pairing* is the two games models A and B play on one scenario
in one trial (A first, then B first); its result is 1.0 (A wins), 0.5 (tie) or 0.0 (B wins) for
the pair ``(a, b)``. Ratings come from a Bradley-Terry fit with one pseudo-tie between every two
models, and a 95% interval from resampling the pairings, each draw spelled out so that another
implementation reproduces it (numpy ``default_rng``, ``integers(0, P, size=P)``, 1000 resamples,
sorted ratings at indices 25 and 974).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: |pairing score| below this is a tie
TIE = 1e-9
#: the fit stops when no log-strength moved by this much in one step
TOLERANCE = 1e-9
N_RESAMPLES = 1000
LOW, HIGH = 25, 974
BASE, SCALE = 1000.0, 400.0
MAX_STEPS = 1_000_000  # a guard only: with the pseudo-ties the iteration always converges


@dataclass(frozen=True)
class Pairing:
    """One pairing result: ``result`` is A's share (1 win, 0.5 tie, 0 loss)."""

    scenario: int
    trial: int
    a: str
    b: str
    result: float
    score: float = 0.0

    def order_key(self) -> tuple[int, int, str, str]:
        """SPEC §8.7's order: (scenario, trial, lower label, higher label)."""
        lo, hi = sorted((self.a, self.b))
        return (self.scenario, self.trial, lo, hi)


def pairing_result(utilities_a: Sequence[float], utilities_b: Sequence[float], *, forfeit_a: bool,
                   forfeit_b: bool) -> tuple[float, float]:
    """(result for A, A's pairing score) of one pairing.

    The score is the sum of A's utilities over the pairing's games minus B's. A model that forfeits a
    game of the pairing loses it; when both forfeited one, the pairing is a tie. Otherwise a score
    with ``|score| < 1e-9`` is a tie, positive a win for A.
    """
    score = float(sum(utilities_a)) - float(sum(utilities_b))
    if forfeit_a and forfeit_b:
        return 0.5, score
    if forfeit_a:
        return 0.0, score
    if forfeit_b:
        return 1.0, score
    if abs(score) < TIE:
        return 0.5, score
    return (1.0 if score > 0 else 0.0), score


def _tallies(models: Sequence[str], pairings: Sequence[Pairing]) -> tuple[np.ndarray, np.ndarray]:
    """W (wins plus the pseudo-ties) and n (pairings plus one pseudo-tie per two models)."""
    k = len(models)
    index = {m: i for i, m in enumerate(models)}
    wins = np.full(k, 0.5 * (k - 1))
    games = np.ones((k, k)) - np.eye(k)
    for p in pairings:
        i, j = index[p.a], index[p.b]
        wins[i] += p.result
        wins[j] += 1.0 - p.result
        games[i, j] += 1.0
        games[j, i] += 1.0
    return wins, games


def _fit(wins: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Strengths of a batch of fits at once: ``wins`` (R, k), ``games`` (R, k, k).

    Each fit steps ``s_i <- W_i / sum_j n_ij / (s_i + s_j)`` for all i at once, divides by the
    geometric mean, and stops on its own when no |log s| moved by 1e-9 or more (a fit that has
    stopped is not stepped again, so batching changes nothing).
    """
    r, k = wins.shape
    s = np.ones((r, k))
    active = np.ones(r, dtype=bool)
    for _ in range(MAX_STEPS):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            return s
        cur = s[idx]
        denom = (games[idx] / (cur[:, :, None] + cur[:, None, :])).sum(axis=2)
        new = wins[idx] / denom
        new = new / np.exp(np.log(new).mean(axis=1, keepdims=True))
        moved = np.abs(np.log(new) - np.log(cur)).max(axis=1)
        s[idx] = new
        active[idx[moved < TOLERANCE]] = False
    raise RuntimeError("the Bradley-Terry fit did not converge")  # pragma: no cover - guarded by the pseudo-ties


def rating_of(strength: float) -> float:
    return BASE + SCALE * math.log10(strength)


def bt_ratings(models: Sequence[str], pairings: Sequence[Pairing]) -> dict[str, float]:
    """Bradley-Terry rating (1000 + 400 log10 s) of every model, pseudo-ties included."""
    models = list(models)
    if not models:
        return {}
    wins, games = _tallies(models, pairings)
    s = _fit(wins[None, :], games[None, :, :])[0]
    return {m: rating_of(float(v)) for m, v in zip(models, s)}


def ratings_seed(models: Sequence[str]) -> int:
    """Sum of the UTF-8 bytes of the sorted labels joined by ``|``, mod 2**32."""
    return sum("|".join(sorted(models)).encode("utf-8")) % 2**32


def rating_intervals(models: Sequence[str], pairings: Sequence[Pairing],
                     ratings: dict[str, float] | None = None) -> dict[str, list[float]]:
    """95% interval of every model's rating from 1,000 resamples of the pairings (SPEC §8.7).

    Fewer than two pairings: ``[rating, rating]``.
    """
    models = list(models)
    ratings = bt_ratings(models, pairings) if ratings is None else ratings
    ordered = sorted(pairings, key=Pairing.order_key)
    n = len(ordered)
    if n < 2 or len(models) < 2:
        return {m: [ratings[m], ratings[m]] for m in models}
    rng = np.random.default_rng(ratings_seed(models))
    draws = [rng.integers(0, n, size=n) for _ in range(N_RESAMPLES)]
    k = len(models)
    index = {m: i for i, m in enumerate(models)}
    ai = np.array([index[p.a] for p in ordered])
    bi = np.array([index[p.b] for p in ordered])
    res = np.array([p.result for p in ordered])
    wins = np.full((N_RESAMPLES, k), 0.5 * (k - 1))
    games = np.broadcast_to(np.ones((k, k)) - np.eye(k), (N_RESAMPLES, k, k)).copy()
    for r, d in enumerate(draws):
        np.add.at(wins[r], ai[d], res[d])
        np.add.at(wins[r], bi[d], 1.0 - res[d])
        np.add.at(games[r], (ai[d], bi[d]), 1.0)
        np.add.at(games[r], (bi[d], ai[d]), 1.0)
    strengths = _fit(wins, games)
    out = {}
    for m, i in index.items():
        col = np.sort(BASE + SCALE * np.log10(strengths[:, i]))
        out[m] = [float(col[LOW]), float(col[HIGH])]
    return out
