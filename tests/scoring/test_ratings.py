"""Arena ratings (SPEC §8.6-8.7): hand-computed cases, and an independent implementation written
from the SPEC's text alone (plain Python, one resample at a time) that the package must equal to 1e-6."""

from __future__ import annotations

import math

import numpy as np
import pytest

from redlinebench.scoring import Pairing, bt_ratings, pairing_result, rating_intervals, ratings_seed


# --- the independent implementation (SPEC §8.7 read literally) -----------------------------------------------

def spec_fit(models, results):
    """results: list of (a, b, share of a)."""
    W = {m: 0.0 for m in models}
    n = {(i, j): 0.0 for i in models for j in models if i != j}
    for i in models:
        for j in models:
            if i != j:
                W[i] += 0.5          # one pseudo-tie with every other model: half a win each
                n[(i, j)] += 1.0
    for a, b, x in results:
        W[a] += x
        W[b] += 1 - x
        n[(a, b)] += 1
        n[(b, a)] += 1
    s = {m: 1.0 for m in models}
    while True:
        new = {i: W[i] / sum(n[(i, j)] / (s[i] + s[j]) for j in models if j != i) for i in models}
        g = math.exp(sum(math.log(v) for v in new.values()) / len(models))
        new = {i: v / g for i, v in new.items()}
        done = max(abs(math.log(new[i]) - math.log(s[i])) for i in models) < 1e-9
        s = new
        if done:
            break
    return {m: 1000 + 400 * math.log10(s[m]) for m in models}


def spec_interval(models, pairings):
    """pairings: list of (scenario, trial, a, b, share of a)."""
    full = spec_fit(models, [(a, b, x) for _, _, a, b, x in pairings])
    if len(pairings) < 2:
        return {m: [full[m], full[m]] for m in models}
    ordered = sorted(pairings, key=lambda p: (p[0], p[1], min(p[2], p[3]), max(p[2], p[3])))
    seed = sum("|".join(sorted(models)).encode("utf-8")) % 2**32
    rng = np.random.default_rng(seed)
    P = len(ordered)
    per_model = {m: [] for m in models}
    for _ in range(1000):
        picks = rng.integers(0, P, size=P)
        fit = spec_fit(models, [(ordered[i][2], ordered[i][3], ordered[i][4]) for i in picks])
        for m in models:
            per_model[m].append(fit[m])
    return {m: [sorted(v)[25], sorted(v)[974]] for m, v in per_model.items()}


# --- pairing scores (§8.6) ------------------------------------------------------------------------------------

def test_pairing_score_is_own_utilities_minus_the_others():
    assert pairing_result([1.0, 0.5], [0.25, 0.25], forfeit_a=False, forfeit_b=False) == (1.0, 1.0)
    assert pairing_result([0.0, 0.25], [0.5, 0.0], forfeit_a=False, forfeit_b=False) == (0.0, -0.25)


def test_pairing_tie_below_1e_9():
    result, score = pairing_result([0.1 + 0.2, 0.0], [0.3, 0.0], forfeit_a=False, forfeit_b=False)
    assert result == 0.5 and abs(score) < 1e-9
    assert pairing_result([0.5, 0.0], [0.5 - 2e-9, 0.0], forfeit_a=False, forfeit_b=False)[0] == 1.0


def test_pairing_forfeit_loses_whatever_the_utilities_and_both_forfeit_ties():
    assert pairing_result([0.0, 0.0], [0.0, 0.0], forfeit_a=True, forfeit_b=False)[0] == 0.0
    assert pairing_result([1.0, 1.0], [0.0, 0.0], forfeit_a=True, forfeit_b=False)[0] == 0.0
    assert pairing_result([0.0, 0.0], [0.0, 0.0], forfeit_a=False, forfeit_b=True)[0] == 1.0
    assert pairing_result([1.0, 0.0], [0.0, 0.0], forfeit_a=True, forfeit_b=True)[0] == 0.5


# --- hand-computed fits ---------------------------------------------------------------------------------------

def test_no_pairings_every_model_at_1000():
    assert bt_ratings(["a", "b", "c"], []) == {"a": 1000.0, "b": 1000.0, "c": 1000.0}


def test_one_win_between_two_models():
    # W_a = 1 + 0.5, W_b = 0.5, n = 2: s_a / s_b = 3, geometric mean 1 -> s_a = sqrt(3)
    r = bt_ratings(["a", "b"], [Pairing(1, 1, "a", "b", 1.0)])
    assert r["a"] == pytest.approx(1000 + 200 * math.log10(3), abs=1e-9)
    assert r["b"] == pytest.approx(1000 - 200 * math.log10(3), abs=1e-9)


def test_two_wins_to_none():
    # W_a = 2.5, W_b = 0.5 -> ratio 5
    r = bt_ratings(["x", "y"], [Pairing(1, 1, "y", "x", 0.0), Pairing(2, 1, "x", "y", 1.0)])
    assert r["x"] - r["y"] == pytest.approx(400 * math.log10(5), abs=1e-9)


def test_a_cycle_and_ties_are_all_level():
    cyc = [Pairing(1, 1, "a", "b", 1.0), Pairing(1, 1, "b", "c", 1.0), Pairing(1, 1, "a", "c", 0.0)]
    assert all(v == pytest.approx(1000.0, abs=1e-9) for v in bt_ratings(["a", "b", "c"], cyc).values())
    ties = [Pairing(1, 1, "a", "b", 0.5), Pairing(2, 1, "a", "b", 0.5)]
    assert all(v == pytest.approx(1000.0, abs=1e-9) for v in bt_ratings(["a", "b"], ties).values())


def test_fewer_than_two_pairings_gives_a_point_interval():
    r = bt_ratings(["a", "b"], [Pairing(1, 1, "a", "b", 1.0)])
    ci = rating_intervals(["a", "b"], [Pairing(1, 1, "a", "b", 1.0)])
    assert ci == {"a": [r["a"], r["a"]], "b": [r["b"], r["b"]]}


def test_seed_is_the_sum_of_the_sorted_labels_bytes():
    assert ratings_seed(["b", "a"]) == sum(b"a|b")


# --- against the independent implementation ---------------------------------------------------------------------

def _tournament(seed: int, models: list[str], scenarios: int, trials: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    out = []
    for s in range(1, scenarios + 1):
        for t in range(1, trials + 1):
            for i, a in enumerate(models):
                for b in models[i + 1:]:
                    out.append((s, t, a, b, float(rng.choice([0.0, 0.5, 1.0], p=[0.3, 0.2, 0.5]))))
    return out


@pytest.mark.parametrize("seed,models,scenarios,trials", [
    (1, ["playbook", "accept-all", "noop"], 3, 1),
    (2, ["openai/gpt-x", "anthropic/claude-y", "noop", "golden"], 2, 2),
    (5, ["m1", "m2"], 2, 3),
])
def test_fit_and_interval_equal_the_independent_implementation(seed, models, scenarios, trials):
    raw = _tournament(seed, models, scenarios, trials)
    # hand the package the pairings in another order and with the seats' labels swapped: neither may matter
    pairings = [Pairing(s, t, b, a, 1.0 - x) if k % 2 else Pairing(s, t, a, b, x)
                for k, (s, t, a, b, x) in enumerate(reversed(raw))]
    want_fit = spec_fit(models, [(a, b, x) for _, _, a, b, x in raw])
    want_ci = spec_interval(models, raw)
    got_fit = bt_ratings(models, pairings)
    got_ci = rating_intervals(models, pairings)
    for m in models:
        assert got_fit[m] == pytest.approx(want_fit[m], abs=1e-6)
        assert got_ci[m] == pytest.approx(want_ci[m], abs=1e-6)
    assert any(got_ci[m][0] < got_ci[m][1] for m in models)


def test_a_model_absent_from_a_resample_keeps_its_pseudo_ties():
    # c plays once: many resamples of 3 pairings miss it, and it must still be rated (at 1000 pull, not dropped)
    raw = [(1, 1, "a", "b", 1.0), (2, 1, "a", "b", 1.0), (3, 1, "b", "c", 0.0)]
    models = ["a", "b", "c"]
    got = rating_intervals(models, [Pairing(*p) for p in raw])
    want = spec_interval(models, raw)
    for m in models:
        assert got[m] == pytest.approx(want[m], abs=1e-6)
    assert got["c"][0] == pytest.approx(1000.0, abs=1e-6)
