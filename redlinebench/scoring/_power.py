"""How many trials are enough: variance components and the minimum detectable difference.

With two or more trials per task a model's rewards split into a task-to-task part (how much the
tasks differ for this model) and a trial-to-trial part (how much reruns of one task differ).
For a pair, what matters is the task-to-task spread of the *difference* (the model x task
interaction: a shared hard task cancels out) plus each model's trial noise divided by the
trials per task. The §6.1 statistic is a weighted sum of per-task differences (weight
1 / (cells x groups in the cell x tasks in the group)), so its variance is

    Var(diff) = sum_t w_t^2 * (var_interaction + var_trial_A / k_A + var_trial_B / k_B)

and the minimum detectable difference at 80% power, 5% two-sided, is
``(z_0.975 + z_0.80) * sqrt(Var(diff))`` (normal approximation). docs/STATISTICS.md states
the method and its assumptions.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import NormalDist
from typing import Any

ALPHA = 0.05
POWER = 0.80
DECIMALS = 4
#: z_{1-alpha/2} + z_{power}: 1.96 + 0.8416
Z_SUM = NormalDist().inv_cdf(1 - ALPHA / 2) + NormalDist().inv_cdf(POWER)

TaskKey = tuple[int, int, str, str]  # (scenario, turn, input group, task id)


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, DECIMALS)


def design_weights(tasks: Iterable[TaskKey]) -> dict[TaskKey, float]:
    """Each task's weight in the §6 headline: 1 / (cells x groups in its cell x tasks in its group)."""
    groups: dict[tuple[int, int, str], set[TaskKey]] = defaultdict(set)
    for key in tasks:
        groups[key[:3]].add(key)
    per_cell: dict[tuple[int, int], int] = defaultdict(int)
    for g in groups:
        per_cell[g[:2]] += 1
    n_cells = len(per_cell)
    return {key: 1.0 / (n_cells * per_cell[g[:2]] * len(members))
            for g, members in groups.items() for key in members}


def model_components(trials: Mapping[TaskKey, Sequence[float]]) -> dict[str, Any] | None:
    """One model's split: ``var_trial`` (pooled within-task variance) and ``var_task`` (variance of
    the task means less the trial noise they still carry, floored at 0). ``None`` without any task
    of two or more trials: the two parts cannot be told apart then."""
    repeated = [v for v in trials.values() if len(v) >= 2]
    if not repeated:
        return None
    ss = sum(sum((x - statistics.fmean(v)) ** 2 for x in v) for v in repeated)
    df = sum(len(v) - 1 for v in repeated)
    var_trial = ss / df
    means = [statistics.fmean(v) for v in trials.values()]
    noise = var_trial * statistics.fmean(1 / len(v) for v in trials.values())
    var_task = max(0.0, statistics.variance(means) - noise) if len(means) >= 2 else 0.0
    counts = [len(v) for v in trials.values()]
    return {"var_task": var_task, "var_trial": var_trial, "n_tasks": len(trials),
            "trials_per_task": statistics.fmean(counts)}


def interaction_variance(a: Mapping[TaskKey, Sequence[float]], b: Mapping[TaskKey, Sequence[float]],
                         var_trial_a: float, var_trial_b: float) -> float | None:
    """Task-to-task variance of the true A - B difference over the shared tasks (floored at 0)."""
    shared = sorted(a.keys() & b.keys())
    if len(shared) < 2:
        return None
    diffs = [statistics.fmean(a[k]) - statistics.fmean(b[k]) for k in shared]
    noise = statistics.fmean(var_trial_a / len(a[k]) + var_trial_b / len(b[k]) for k in shared)
    return max(0.0, statistics.variance(diffs) - noise)


def mdd(weights: Mapping[TaskKey, float], var_interaction: float, var_trial_a: float, var_trial_b: float,
        trials: float) -> float:
    """Minimum detectable difference (80% power, 5% two-sided) of the §6.1 ``diff`` for a design of
    these task weights and ``trials`` trials per task per model."""
    per_task = var_interaction + (var_trial_a + var_trial_b) / trials
    return Z_SUM * math.sqrt(per_task * sum(w * w for w in weights.values()))


def power_section(trials_by_model: Mapping[str, Mapping[TaskKey, Sequence[float]]],
                  order: Sequence[str]) -> dict[str, Any]:
    """The summary's ``power`` section: each model's variance split, and per pair the smallest
    difference this run could detect. ``available`` is false (with the reason) when no model has
    a task with two or more trials."""
    models = {m: model_components(trials_by_model.get(m, {})) for m in order}
    section: dict[str, Any] = {"alpha": ALPHA, "power": POWER, "available": any(models.values()),
                               "note": None, "models": {}, "pairs": []}
    if not section["available"]:
        section["note"] = "one trial per task: the task-to-task and trial-to-trial parts cannot be told apart"
        return section
    for m, c in models.items():
        section["models"][m] = None if c is None else {
            "var_task": _r(c["var_task"]), "var_trial": _r(c["var_trial"]), "n_tasks": c["n_tasks"],
            "trials_per_task": round(c["trials_per_task"], 2)}
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            ca, cb = models[a], models[b]
            ta, tb = trials_by_model.get(a, {}), trials_by_model.get(b, {})
            var_int = None if ca is None or cb is None else interaction_variance(
                ta, tb, ca["var_trial"], cb["var_trial"])
            if var_int is None:
                section["pairs"].append({"a": a, "b": b, "mdd": None, "var_interaction": None})
                continue
            shared = ta.keys() & tb.keys()
            k = statistics.fmean(statistics.fmean((len(ta[t]), len(tb[t]))) for t in shared)
            section["pairs"].append({
                "a": a, "b": b, "var_interaction": _r(var_int),
                "mdd": _r(mdd(design_weights(shared), var_int, ca["var_trial"], cb["var_trial"], k))})
    return section


def planned_mdd(section: Mapping[str, Any], tasks: Iterable[TaskKey], trials: int) -> dict[str, Any]:
    """The MDD of a planned design (its tasks, ``trials`` per task) from a prior run's ``power``
    section: the median of the prior pairs' interaction variances and of the models' trial
    variances. Without a prior pair, twice the median task-to-task variance stands in for the
    interaction (no correlation between models: an upper bound)."""
    models = [c for c in (section.get("models") or {}).values() if c]
    if not section.get("available") or not models:
        raise ValueError(section.get("note") or "the prior run has no variance components")
    var_trial = statistics.median(c["var_trial"] for c in models)
    ints = [p["var_interaction"] for p in section.get("pairs") or [] if p.get("var_interaction") is not None]
    basis = "median over the prior run's pairs" if ints else "2 x the median task-to-task variance (no prior pair)"
    var_int = statistics.median(ints) if ints else 2 * statistics.median(c["var_task"] for c in models)
    weights = design_weights(tasks)
    return {"trials": trials, "n_tasks": len(weights), "var_interaction": _r(var_int), "var_trial": _r(var_trial),
            "interaction_basis": basis,
            "mdd": _r(mdd(weights, var_int, var_trial, var_trial, trials)),
            "by_trials": {str(k): _r(mdd(weights, var_int, var_trial, var_trial, k)) for k in (1, 2, 3, 5, 10)}}
