"""The Inspect scorer and metrics: our gate, judge panel and reward; ``redline_overall`` headline.

Judges. ``judges`` is a comma-separated spec. ``role:NAME`` is every model bound to the Inspect
model role ``NAME`` (``--model-role grader=openai/gpt-5.4-mini``, or a list for a panel);
``inspect:PROVIDER/MODEL`` is one model through Inspect's providers. Anything else (``panel``,
``heuristic``, ``a,b,c``, a YAML path) goes to :func:`redlinebench.judge.create_judges`, i.e. our
own litellm panel. Whatever the source, grading is :func:`redlinebench.judge.grade_trial`: the
same gate, prompt, majority vote and reward as a local run.

Metrics. Each score carries its full ``grade.json`` dict; the metrics hand all of them to
:func:`redlinebench.scoring.summarize`, so ``redline_overall`` is the SPEC §6 group -> cell ->
turn-weighted aggregation, not a mean of sample scores. Epochs are trials: the metrics are declared
``scores="unreduced"``, so they see every epoch's grade whatever ``--epochs-reducer`` the user picks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError

DEFAULT_JUDGES = "role:grader"
JUDGE_ATTEMPTS = 3
#: Structured output for the judge reply (SPEC §5 JSON mode); dropped once if the provider rejects it.
VERDICTS_SCHEMA = {
    "type": "object",
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object",
        "properties": {"rubric_id": {"type": "string"}, "verdict": {"type": "string", "enum": ["PASS", "FAIL"]},
                       "justification": {"type": "string"}},
        "required": ["rubric_id", "verdict", "justification"]}}},
    "required": ["verdicts"],
}


# ----------------------------------------------------------------------------- judges
class InspectModelJudge:
    """A judge that asks an Inspect ``Model`` (a role binding or a provider model)."""

    method = "llm"

    def __init__(self, model: Any, *, label: str | None = None, attempts: int = JUDGE_ATTEMPTS) -> None:
        self.model = model
        self.name = label or str(model)
        self.attempts = attempts
        self.json_mode = True   # turned off for good the first time the provider rejects it

    def _config(self) -> Any:
        from inspect_ai.model import GenerateConfig, ResponseSchema
        from inspect_ai.util import JSONSchema

        if not self.json_mode:
            return GenerateConfig(temperature=0)
        return GenerateConfig(temperature=0, response_schema=ResponseSchema(
            name="verdicts", json_schema=JSONSchema.model_validate(VERDICTS_SCHEMA)))

    async def _generate(self, messages: list[Any]) -> Any:
        try:
            return await self.model.generate(messages, config=self._config())
        except Exception:
            if not self.json_mode:
                raise
            self.json_mode = False  # the provider may not support structured output: once without it
            return await self.model.generate(messages, config=self._config())

    async def grade(self, task: Any, view: str, doc: Any, **options: Any) -> Any:
        from inspect_ai.model import ChatMessageSystem, ChatMessageUser

        from ..judge import JudgeResult, UnparseableReply, judge_messages, parse_verdicts

        messages = [
            ChatMessageSystem(content=m["content"]) if m["role"] == "system" else ChatMessageUser(content=m["content"])
            for m in judge_messages(task, view)
        ]
        ids = [r.id for r in task.rubrics]
        started = time.monotonic()
        prompt_tokens = completion_tokens = 0
        last_error = "no reply"
        raw = None
        for attempt in range(1, self.attempts + 1):
            try:
                output = await self._generate(messages)
            except Exception as exc:  # provider failure after Inspect's own retries: this judge is incomplete
                last_error = f"{type(exc).__name__}: {exc}"
                break
            if output.usage is not None:
                prompt_tokens += output.usage.input_tokens
                completion_tokens += output.usage.output_tokens
            raw = output.completion
            try:
                parsed = parse_verdicts(raw, ids)
            except UnparseableReply as exc:
                last_error = f"unparseable reply: {exc}"
                continue
            return JudgeResult(
                judge=self.name, ok=True, verdicts=parsed.verdicts, justifications=parsed.justifications,
                missing=parsed.missing, invalid=parsed.invalid, attempts=attempt,
                latency_s=time.monotonic() - started, prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens, cost_usd=None, raw=raw, method=self.method,
            )
        return JudgeResult(
            judge=self.name, ok=False, error=last_error, attempts=self.attempts,
            latency_s=time.monotonic() - started, prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens, cost_usd=None, raw=raw, method=self.method,
        )


def judge_spec_items(spec: str) -> list[str]:
    """The items of a judge spec, checked for what can be checked before an eval starts."""
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if not items:
        raise ConfigError("judges: empty judge spec")
    if any(i.startswith(("role:", "inspect:")) for i in items):
        for item in items:
            if not item.startswith(("role:", "inspect:")):
                raise ConfigError(f"judges: cannot mix {item!r} with role:/inspect: judges in one spec")
            if item in ("role:", "inspect:"):
                raise ConfigError(f"judges: {item!r} names no role or model")
    return items


def unbound_role_message(role: str, judges: str = DEFAULT_JUDGES) -> str:
    """What to do when the judges' role has no model: bind one, or grade without a model."""
    default = " (the default)" if judges == DEFAULT_JUDGES else ""
    return (f"redlinebench judges: no model is bound to the Inspect role {role!r}, which -T judges={judges}"
            f"{default} grades with. Either bind one: --model-role {role}=PROVIDER/MODEL (a list of models "
            f"for a panel); or grade without a model: -T judges=heuristic (deterministic rubric checks, for smoke "
            f"runs with mock models; not a leaderboard score); or use redlinebench's own litellm panel: "
            f"-T judges=panel.")


def role_models(role: str) -> list[Any]:
    """The models bound to an Inspect model role in the running eval; a clear error when none is."""
    from inspect_ai.model import model_roles

    bound = model_roles().get(role)
    if bound is None:
        raise ConfigError(unbound_role_message(role, f"role:{role}"))
    return list(bound) if isinstance(bound, list) else [bound]


def check_judge_roles(spec: str) -> None:
    """Fail before the agent runs (and is paid for) when the judges need a role nobody bound.

    Roles are bound per eval, so this runs in the solver, ahead of the first model call; the
    scorer would otherwise find out only after the whole agent episode.
    """
    for item in judge_spec_items(spec):
        if item.startswith("role:"):
            role_models(item[5:])


def resolve_judges(spec: str) -> list[Any]:
    """Judges for ``spec`` (see the module doc). Called while a sample runs (roles are bound then)."""
    from inspect_ai.model import get_model

    items = judge_spec_items(spec)
    if not any(i.startswith(("role:", "inspect:")) for i in items):
        from ..judge import create_judges

        return list(create_judges(spec))
    judges: list[Any] = []
    for item in items:
        if item.startswith("role:"):
            for model in role_models(item[5:]):
                judges.append(InspectModelJudge(model, label=str(model)))
        else:
            judges.append(InspectModelJudge(get_model(item[8:]), label=item[8:]))
    names = [j.name for j in judges]
    if len(set(names)) != len(names):
        raise ConfigError(f"judges: the same model appears twice in the panel ({', '.join(names)})")
    return judges


# ----------------------------------------------------------------------------- scorer
def _explanation(grade: Any) -> str:
    gate = grade.gate if isinstance(grade.gate, dict) else {}
    if grade.status == "gate_failed":
        return f"gate failed: {gate.get('reason') or 'no change by the task author'}"
    if grade.status != "graded":
        detail = "; ".join(grade.errors) or ", ".join(grade.incomplete_judges)
        return f"{grade.status}: {detail}"
    return (f"reward {grade.weighted:.4f}: {grade.n_pass}/{grade.n_total} positive rubrics passed "
            f"(earned {grade.earned_weight}, penalty {grade.penalty_weight}, of {grade.total_weight})")


def answer_of(grade: Any, author: str) -> str:
    """What the agent handed in, in words (the document itself stays on disk; its path is in the store)."""
    d = grade.diagnostics or {}
    if grade.status == "gate_failed" and not d:
        return f"no usable redline by {author}"
    return (f"redline by {author}: {d.get('redlines', 0)} tracked change(s) in {d.get('touched_paragraphs', 0)} "
            f"paragraph(s), {d.get('comments_added', 0)} comment(s)")


def redline_score_fn(judges: str):
    """The async score function behind the registered ``redline_scorer``."""
    from inspect_ai.scorer import Score

    from ..judge import grade_trial
    from .inspect_solver import FINISHED_KEY, OUTPUT_KEY, STATS_KEY, task_for_state

    async def score(state: Any, target: Any) -> Any:
        task = task_for_state(state)
        output = state.store.get(OUTPUT_KEY)
        output_path = Path(output) if output else None
        panel = resolve_judges(judges)
        grade = await grade_trial(task, output_path, panel, model=str(state.model),
                                  trial=int(getattr(state, "epoch", 1) or 1), run_dir=None, cache=False)
        record = grade.to_dict()
        record["inspect"] = {"finished": state.store.get(FINISHED_KEY), "tool_stats": state.store.get(STATS_KEY),
                             "output": output}
        return Score(
            value=float(grade.weighted),
            answer=answer_of(grade, task.author),
            explanation=_explanation(grade),
            metadata={"status": grade.status, "grades": [record]},
        )

    return score


# ----------------------------------------------------------------------------- epochs + metrics
def grades_of(sample_scores: Sequence[Any]) -> list[dict]:
    """Every trial's grade record, one per (sample, epoch).

    The redlinebench metrics are declared ``scores="unreduced"``: Inspect hands them one score per
    sample per epoch whatever ``--epochs-reducer`` says, so every trial counts. A score without a
    grade was not made by ``redline_scorer``: refuse rather than report a number computed from nothing.
    """
    out: list[dict] = []
    for ss in sample_scores:
        grades = (ss.score.metadata or {}).get("grades")
        if not grades:
            raise ValueError(
                f"sample {ss.sample_id!r}: its score carries no redlinebench grade (not made by redline_scorer)")
        out.extend(grades)
    return out


def summary_row(sample_scores: Sequence[Any]) -> dict[str, Any] | None:
    """The one model's leaderboard row from ``summarize`` over the full 3 x 4 grid (None when nothing
    was graded); a partial grid gets ``summarize``'s ``grid_note``, as in ``redlinebench run``."""
    from ..scoring import summarize

    grades = grades_of(sample_scores)
    if not grades:
        return None
    rows = summarize(grades).get("leaderboard") or []
    return rows[0] if rows else None


def metric_value(sample_scores: Sequence[Any], key: str, *, scale: float = 1.0, digits: int | None = None) -> float:
    """One leaderboard figure; NaN (Inspect shows ``nan``) when no trial was graded, so a run whose
    judges all failed cannot read as a 0 score. Gate failures are graded 0 rows and stay numbers."""
    row = summary_row(sample_scores)
    value = (row or {}).get(key)
    if not isinstance(value, (int, float)):
        if grades_of(sample_scores):
            warn_not_graded(sample_scores)
        return float("nan")
    value = float(value) * scale
    return round(value, digits) if digits is not None else value


_warned: set[tuple[str, ...]] = set()


def warn_not_graded(sample_scores: Sequence[Any]) -> None:
    """Say once on the console why the headline is ``nan``: which trials were left ungraded and why."""
    import logging

    grades = grades_of(sample_scores)
    key = tuple(sorted(f"{g.get('task_id')}#{g.get('trial')}" for g in grades))
    if key in _warned:
        return
    _warned.add(key)
    reasons = sorted({e for g in grades for e in (g.get("errors") or [])})[:3]
    logging.getLogger(__name__).warning(
        "redlinebench: no trial was graded (%d of %d trial(s) judging_incomplete or errored): redline_overall "
        "is nan, not a score. Judge errors: %s", sum(1 for g in grades if g.get("status") != "graded"),
        len(grades), "; ".join(reasons) or "none recorded")


__all__ = [
    "DEFAULT_JUDGES",
    "InspectModelJudge",
    "answer_of",
    "check_judge_roles",
    "grades_of",
    "judge_spec_items",
    "metric_value",
    "redline_score_fn",
    "resolve_judges",
    "role_models",
    "summary_row",
    "unbound_role_message",
    "warn_not_graded",
]
