"""``--dry-run``: the plan of a run and a rough estimate of its tokens and cost.

The estimate is a model of an episode, not a measurement: ``ASSUMED_CALLS`` model calls per
trial, each resending the system prompt, the document view (after the first read) and the
conversation so far. Prices come from litellm's table; unknown prices are reported as unknown.

With prompt caching, each call is assumed to find ``ASSUMED_CACHE_HIT`` of the previous call's
prompt (its prefix) in the provider's cache, read at the provider's cache price; on providers
that need markers the rest of the prompt is written to the cache (at their write price). Judges
are estimated without caching (their shared prefix is only the system prompt).
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
ASSUMED_CACHE_HIT = 0.9      # share of the previous call's prompt found in the provider's cache


@dataclass
class Estimate:
    rows: list[dict[str, Any]] = field(default_factory=list)   # per model/judge
    n_trials: int = 0

    @property
    def total_cost(self) -> float | None:
        costs = [r["cost_usd"] for r in self.rows]
        return None if any(c is None for c in costs) else round(sum(costs), 4)

    @property
    def total_cost_cached(self) -> float | None:
        """The total with prompt caching as assumed (rows without a cached figure count in full)."""
        costs = [r.get("cost_cached_usd", r["cost_usd"]) for r in self.rows]
        return None if any(c is None for c in costs) else round(sum(costs), 4)


def _price(model: str, tokens_in: int, tokens_out: int) -> float | None:
    from .._litellm import get_litellm

    litellm = get_litellm()
    try:
        a, b = litellm.cost_per_token(model=model, prompt_tokens=tokens_in, completion_tokens=tokens_out)
    except Exception:
        return None
    return round(float(a) + float(b), 4)


def _cached_price(model: str, tokens_in: int, tokens_out: int, read: int, write: int) -> float | None:
    from .._litellm import get_litellm

    litellm = get_litellm()
    try:
        a, b = litellm.cost_per_token(model=model, prompt_tokens=tokens_in, completion_tokens=tokens_out,
                                      cache_read_input_tokens=read, cache_creation_input_tokens=write)
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
    per_trial_in = per_trial_read = 0
    for system, view, _ in sizes:
        prompts = [system + (view if i else 0) + i * GROWTH_TOKENS for i in range(calls)]
        per_trial_in += sum(prompts)
        per_trial_read += sum(int(ASSUMED_CACHE_HIT * p) for p in prompts[:-1])  # call i reads call i-1's
    per_trial_out = calls * OUTPUT_TOKENS_PER_CALL * len(tasks)
    for e in spec.entrants:
        if e.agent != "llm":  # a plugin runs its own loop: its cost cannot be modelled here (unknown)
            est.rows.append({"role": "agent", "name": e.label, "calls": 0, "tokens_in": 0, "tokens_out": 0,
                             "cost_usd": None if e.is_plugin else 0.0})
            continue
        from .._litellm import cache_markers

        tin, tout = per_trial_in * spec.trials, per_trial_out * spec.trials
        read = per_trial_read * spec.trials if spec.prompt_cache else 0
        write = (tin - read) if spec.prompt_cache and cache_markers(e.model or "") else 0
        uncached = _price(e.model or "", tin, tout)
        cached = _cached_price(e.model or "", tin, tout, read, write) if read else uncached
        est.rows.append({"role": "agent", "name": e.label, "calls": calls * len(tasks) * spec.trials,
                         "tokens_in": tin, "tokens_out": tout, "cost_usd": uncached,
                         "cache_read_tokens": read, "cache_write_tokens": write,
                         "cost_cached_usd": None if uncached is None else cached})
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
