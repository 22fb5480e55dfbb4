"""``--dry-run``: the plan of a run and a rough estimate of its tokens and cost.

The estimate is a model of an episode, not a measurement: ``ASSUMED_CALLS`` model calls per
trial, each resending the system prompt, the document view (after the first read) and the
conversation so far. Prices come from litellm's table; unknown prices are reported as unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .spec import RunSpec

CHARS_PER_TOKEN = 4
ASSUMED_CALLS = 8            # model calls in a typical episode (read, 2-4 edit batches, replies, end)
GROWTH_TOKENS = 700          # conversation growth per call (arguments + tool results)
OUTPUT_TOKENS_PER_CALL = 600
JUDGE_OVERHEAD_TOKENS = 1_500
JUDGE_OUTPUT_PER_RUBRIC = 80


@dataclass
class Estimate:
    rows: list[dict[str, Any]] = field(default_factory=list)   # per model/judge
    n_trials: int = 0

    @property
    def total_cost(self) -> float | None:
        costs = [r["cost_usd"] for r in self.rows]
        return None if any(c is None for c in costs) else round(sum(costs), 4)


def _price(model: str, tokens_in: int, tokens_out: int) -> float | None:
    from .._litellm import get_litellm

    litellm = get_litellm()
    try:
        a, b = litellm.cost_per_token(model=model, prompt_tokens=tokens_in, completion_tokens=tokens_out)
    except Exception:
        return None
    return round(float(a) + float(b), 4)


def _task_sizes(task: Any) -> tuple[int, int, int]:
    """(system prompt tokens, document view tokens, rubric text tokens) for one task."""
    from ..agent.prompt import system_prompt

    system = len(system_prompt(task)) // CHARS_PER_TOKEN
    try:
        from ..docx import RedlineDocument

        view = len(RedlineDocument.open(task.contract_path).read_view()) // CHARS_PER_TOKEN
    except Exception:
        view = 0
    rubrics = sum(len(r.criteria) + len(r.justification or "") + 40 for r in task.rubrics) // CHARS_PER_TOKEN
    return system, view, rubrics


def estimate(spec: RunSpec, tasks: list[Any], judges: list[Any]) -> Estimate:
    calls = min(ASSUMED_CALLS, spec.limits.max_steps)
    sizes = [_task_sizes(t) for t in tasks]
    est = Estimate(n_trials=len(spec.entrants) * len(tasks) * spec.trials)
    per_trial_in = 0
    for system, view, _ in sizes:
        per_trial_in += sum(system + (view if i else 0) + i * GROWTH_TOKENS for i in range(calls))
    per_trial_out = calls * OUTPUT_TOKENS_PER_CALL * len(tasks)
    for e in spec.entrants:
        if e.agent != "llm":
            est.rows.append({"role": "agent", "name": e.label, "calls": 0, "tokens_in": 0, "tokens_out": 0,
                             "cost_usd": 0.0})
            continue
        tin, tout = per_trial_in * spec.trials, per_trial_out * spec.trials
        est.rows.append({"role": "agent", "name": e.label, "calls": calls * len(tasks) * spec.trials,
                         "tokens_in": tin, "tokens_out": tout, "cost_usd": _price(e.model or "", tin, tout)})
    n_graded = est.n_trials
    for j in judges:
        model = getattr(j, "model", None)
        if not model:  # offline judges (heuristic) cost nothing
            est.rows.append({"role": "judge", "name": str(getattr(j, "name", j)), "calls": 0, "tokens_in": 0,
                             "tokens_out": 0, "cost_usd": 0.0})
            continue
        tin = sum(int(view * 1.3) + rub + JUDGE_OVERHEAD_TOKENS for _, view, rub in sizes)
        tout = sum(len(t.rubrics) * JUDGE_OUTPUT_PER_RUBRIC for t in tasks)
        scale = n_graded // max(1, len(tasks))
        est.rows.append({"role": "judge", "name": str(getattr(j, "name", model)), "calls": n_graded,
                         "tokens_in": tin * scale, "tokens_out": tout * scale,
                         "cost_usd": _price(model, tin * scale, tout * scale)})
    return est
