"""The --dry-run estimate, against numbers worked out by hand from its documented model."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from redlinebench.agent.limits import AgentLimits
from redlinebench.runner import estimate as est
from redlinebench.runner.spec import Entrant, RunSpec


def test_estimate_follows_the_episode_model(monkeypatch):
    monkeypatch.setattr(est, "_task_sizes", lambda task: (1000, 2000, 300))
    prices = {}

    def price(model, tin, tout):
        prices[model] = (tin, tout)
        return None if model == "openai/unpriced" else round(tin * 1e-6 + tout * 2e-6, 4)

    monkeypatch.setattr(est, "_price", price)
    tasks = [SimpleNamespace(rubrics=[1, 2, 3]), SimpleNamespace(rubrics=[1])]
    spec = RunSpec(entrants=(Entrant("llm", "openai/a"), Entrant("noop")), trials=3, judges="x")
    judges = [SimpleNamespace(name="j", model="openai/judge"), SimpleNamespace(name="heuristic")]
    e = est.estimate(spec, tasks, judges)
    # Per trial: sum over 8 calls of 1000 + 2000 (after the first read) + 700 * i  = 41,600 in; 8 x 600 out.
    agent = e.rows[0]
    assert (agent["calls"], agent["tokens_in"], agent["tokens_out"]) == (8 * 2 * 3, 41_600 * 2 * 3, 4_800 * 2 * 3)
    assert agent["cost_usd"] == round(249_600e-6 + 28_800 * 2e-6, 4)
    assert e.rows[1] == {"role": "agent", "name": "noop", "calls": 0, "tokens_in": 0, "tokens_out": 0,
                         "cost_usd": 0.0}
    # Judge: per task 1.3 x 2000 + 300 + 1500 = 4,400 in, 80 per rubric out; 12 trials graded (2 entrants x 2 x 3).
    judge = e.rows[2]
    assert (judge["calls"], judge["tokens_in"], judge["tokens_out"]) == (12, 4_400 * 2 * 6, (3 + 1) * 80 * 6)
    assert e.rows[3]["cost_usd"] == 0.0 and e.n_trials == 12
    assert e.total_cost == pytest.approx(agent["cost_usd"] + judge["cost_usd"])
    spec2 = RunSpec(entrants=(Entrant("llm", "openai/unpriced"),), limits=AgentLimits(max_steps=2))
    e2 = est.estimate(spec2, tasks[:1], [])
    assert e2.rows[0]["calls"] == 2 and e2.rows[0]["tokens_in"] == 1000 + 3700 and e2.total_cost is None
