"""The power statement against a simulation: data with known variance components, a true difference
equal to the stated minimum detectable difference, and the §6.1 test run on each simulated run."""

from __future__ import annotations

import numpy as np
import pytest

from redlinebench.scoring import compare_pair, design_weights, mdd, planned_mdd, power_of, power_section

CELLS = [(s, t) for s in (1, 2, 3) for t in (1, 2, 3, 4)]
TASKS = [(s, t, f"g{g}", f"task-{s}-{t}-{g}") for s, t in CELLS for g in range(4)]  # 48 tasks, 1 per group
VAR_TASK, VAR_INT, VAR_TRIAL, TRIALS = 0.04, 0.02, 0.03, 2


def simulate(rng: np.random.Generator, delta: float, trials: int = TRIALS, tasks=TASKS):
    """Per model {task: [rewards]}: a task effect both share, A's interaction, and trial noise."""
    shared = rng.normal(0.5, np.sqrt(VAR_TASK), len(tasks))
    inter = rng.normal(0, np.sqrt(VAR_INT), len(tasks))
    a = {k: list(shared[i] + inter[i] + delta + rng.normal(0, np.sqrt(VAR_TRIAL), trials)) for i, k in enumerate(tasks)}
    b = {k: list(shared[i] + rng.normal(0, np.sqrt(VAR_TRIAL), trials)) for i, k in enumerate(tasks)}
    return a, b


def group_scores(trials: dict) -> dict:
    return {k[:3]: float(np.mean(v)) for k, v in trials.items()}  # one task per group


def test_stated_mdd_gives_about_80_percent_power():
    true_mdd = mdd(design_weights(TASKS), VAR_INT, VAR_TRIAL, VAR_TRIAL, TRIALS)
    rng = np.random.default_rng(2026)
    runs, hits = 200, 0
    for i in range(runs):
        a, b = simulate(rng, true_mdd)
        entry = compare_pair("A", "B", group_scores(a), group_scores(b))
        hits += entry["p"] < 0.05
    # the normal approximation at the stated MDD; the sign-flip test is a little conservative
    assert 0.70 <= hits / runs <= 0.90, hits / runs
    # and at half the MDD the power is well below
    rng = np.random.default_rng(7)
    low = sum(compare_pair("A", "B", *(group_scores(x) for x in simulate(rng, true_mdd / 2)))["p"] < 0.05
              for _ in range(100))
    assert low / 100 < 0.5


def test_components_are_recovered_from_a_run():
    rng = np.random.default_rng(11)
    tasks = [(s, t, f"g{g}", f"task-{s}-{t}-{g}") for s, t in CELLS for g in range(40)]
    a, b = simulate(rng, 0.05, trials=3, tasks=tasks)
    section = power_section({"A": a, "B": b}, ["A", "B"])
    assert section["available"]
    for model in ("A", "B"):
        assert section["models"][model]["var_trial"] == pytest.approx(VAR_TRIAL, rel=0.15)
    assert section["models"]["B"]["var_task"] == pytest.approx(VAR_TASK, rel=0.3)
    assert section["models"]["A"]["var_task"] == pytest.approx(VAR_TASK + VAR_INT, rel=0.3)
    (pair,) = section["pairs"]
    assert pair["var_interaction"] == pytest.approx(VAR_INT, rel=0.35)
    expected = mdd(design_weights(tasks), VAR_INT, VAR_TRIAL, VAR_TRIAL, 3)
    assert pair["mdd"] == pytest.approx(expected, rel=0.2)


def test_one_trial_per_task_cannot_split():
    a, b = simulate(np.random.default_rng(1), 0.0, trials=1)
    section = power_section({"A": a, "B": b}, ["A", "B"])
    assert section["available"] is False and "one trial" in section["note"]
    with pytest.raises(ValueError):
        planned_mdd(section, TASKS, 3)


def test_more_trials_shrink_the_planned_mdd_toward_the_task_floor():
    a, b = simulate(np.random.default_rng(3), 0.0, trials=3)
    section = power_section({"A": a, "B": b}, ["A", "B"])
    plan = planned_mdd(section, TASKS, 2)
    by_k = [plan["by_trials"][k] for k in ("1", "2", "3", "5", "10")]
    assert by_k == sorted(by_k, reverse=True)
    floor = mdd(design_weights(TASKS), section["pairs"][0]["var_interaction"], 0.0, 0.0, 1)
    assert by_k[-1] > floor - 1e-4
    assert plan["mdd"] == plan["by_trials"]["2"]


def test_power_of_reads_grades():
    grades = [{"task_id": f"redline-s1-t1-g01{v}", "model": m, "trial": k, "scenario_id": 1, "turn": 1, "side": "A",
               "input_group": "s1-t1-g01", "variant": v, "judge_method": "llm", "gate": {"passed": True},
               "score": {"weighted": x, "per_rubric": []}}
              for m, base in (("A", 0.5), ("B", 0.3)) for v, off in (("a", 0.0), ("b", 0.2))
              for k, x in ((1, base + off), (2, base + off + 0.1))]
    section = power_of(grades)
    assert section["models"]["A"]["var_trial"] == pytest.approx(0.005)  # (0.05^2 * 2) / 1 per task
    assert section["models"]["A"]["n_tasks"] == 2
