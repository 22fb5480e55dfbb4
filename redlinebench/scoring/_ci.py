"""Percentile bootstrap over cell means with the seed rule of SPEC §6.

The procedure is spelled out to the draw so that any implementation reproduces it digit for
digit: ``random.Random(seed)``, ``values[rng.randrange(k)]`` drawn k times per resample, 5000
resamples, sorted, indices ``int(0.025*5000)`` and ``int(0.975*5000)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

N_RESAMPLES = 5000
ALPHA = 0.05
DECIMALS = 4


def seed_for(label: str) -> int:
    """Sum of the UTF-8 bytes of the model label, mod 2**32."""
    return sum(label.encode("utf-8")) % 2**32


def bootstrap_ci(values: Sequence[float], label: str) -> list[float]:
    """95% interval of the mean of ``values`` (the cell means, in (scenario, turn) order).

    Fewer than two values gives ``[v, v]`` (``[0.0, 0.0]`` for none). Bounds are rounded to 4
    decimals like every other reported score.
    """
    vals = [float(v) for v in values]
    k = len(vals)
    if k == 0:
        return [0.0, 0.0]
    if k < 2:
        v = round(vals[0], DECIMALS)
        return [v, v]
    rng = random.Random(seed_for(label))
    # rng.randrange(k) is rng._randbelow(k) for k > 0 (CPython); calling the latter directly draws
    # the very same numbers at half the cost. tests/scoring/test_ci.py checks the equivalence.
    draw = getattr(rng, "_randbelow", rng.randrange)
    means = []
    for _ in range(N_RESAMPLES):
        sample = [vals[draw(k)] for _ in range(k)]
        means.append(sum(sample) / k)
    means.sort()
    lo = means[int(ALPHA / 2 * N_RESAMPLES)]
    hi = means[int((1 - ALPHA / 2) * N_RESAMPLES)]
    return [round(lo, DECIMALS), round(hi, DECIMALS)]
