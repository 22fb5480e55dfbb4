"""Bootstrap CI with the SPEC §6 seed rule."""

from __future__ import annotations

import random

from redlinebench.scoring import bootstrap_ci, seed_for


def spec_bootstrap(values, label):
    """SPEC §6 read literally, written independently of the implementation."""
    k = len(values)
    rng = random.Random(sum(label.encode("utf-8")) % 2**32)
    means = []
    for _ in range(5000):
        draws = []
        for _ in range(k):
            draws.append(values[rng.randrange(k)])
        means.append(sum(draws) / k)
    means = sorted(means)
    return [round(means[int(0.025 * 5000)], 4), round(means[int(0.975 * 5000)], 4)]


def test_seed_is_sum_of_utf8_bytes():
    assert seed_for("ab") == 97 + 98
    assert seed_for("é") == 0xC3 + 0xA9
    assert seed_for("") == 0


def test_matches_literal_spec_procedure():
    cells = [0.3333, 0.25, 0.4286, 0.1, 0.9, 0.5, 0.0, 1.0, 0.6667, 0.2, 0.45, 0.55]
    for label in ("openai/gpt-5.4-mini", "m", "Ünïcode-model"):
        assert bootstrap_ci(cells, label) == spec_bootstrap(cells, label)


def test_interval_brackets_mean_and_depends_on_label():
    cells = [0.11, 0.93, 0.42, 0.61, 0.27, 0.85, 0.05, 0.77, 0.33, 0.58, 0.19, 0.71]
    lo, hi = bootstrap_ci(cells, "x")
    assert lo < sum(cells) / len(cells) < hi
    assert bootstrap_ci(cells, "x") == bootstrap_ci(cells, "x")
    assert bootstrap_ci(cells, "model-one") != bootstrap_ci(cells, "model-two")


def test_constant_cells_give_a_point_interval():
    assert bootstrap_ci([0.42] * 12, "m") == [0.42, 0.42]


def test_fewer_than_two_cells():
    assert bootstrap_ci([0.123456], "m") == [0.1235, 0.1235]
    assert bootstrap_ci([0.5], "m") == [0.5, 0.5]
    assert bootstrap_ci([], "m") == [0.0, 0.0]
