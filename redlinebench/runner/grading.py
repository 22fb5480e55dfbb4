"""Scoring inside ``run``: grade each published trial, then summarize the whole run.

The judging itself belongs to ``redlinebench.judge`` / ``redlinebench.scoring``; this module
only places their results in the run directory (grade.json, judges/<judge>.json,
annotated_view.md, metrics_summary.json), atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from . import paths
from .atomic import read_json, write_json, write_text
from .scheduler import Progress, TrialKey
from .spec import RunSpec


def _grade_dict(grade: Any) -> dict[str, Any]:
    if isinstance(grade, dict):
        return grade
    for attr in ("to_dict", "model_dump"):
        fn = getattr(grade, attr, None)
        if callable(fn):
            return fn()
    raise TypeError(f"grade_trial returned {type(grade).__name__}, not a grade")


def make_grader(layout: paths.RunLayout, judges: list[Any]) -> Callable[[TrialKey, Path], Any]:
    from ..judge import grade_trial

    async def grade(key: TrialKey, tdir: Path) -> None:
        redline = tdir / paths.REDLINE
        result = await grade_trial(key.task, redline, judges, model=key.label, trial=key.trial,
                                   run_dir=layout.root)
        data = _grade_dict(result)
        for name, payload in _judge_payloads(result).items():
            write_json(tdir / paths.JUDGES / f"{paths.slug(name)}.json", payload)
        view = _annotated_view(result, redline, key.task)
        if view is not None:
            write_text(tdir / paths.ANNOTATED, view)
        write_json(tdir / paths.GRADE, data)  # last: its presence means "graded"

    return grade


def _judge_payloads(result: Any) -> dict[str, Any]:
    """Per-judge raw results if the grade carries them (verdicts, usage, errors)."""
    for attr in ("judge_results", "per_judge", "judge_outputs"):
        value = getattr(result, attr, None)
        if isinstance(value, dict):
            return {str(k): _grade_dict(v) if not isinstance(v, (dict, list)) else v for k, v in value.items()}
    return {}


def _annotated_view(result: Any, redline: Path, task: Any) -> str | None:
    view = getattr(result, "annotated_view", None) or getattr(result, "view", None)
    if isinstance(view, str):
        return view
    try:
        from ..docx import RedlineDocument

        return RedlineDocument.open(redline).annotated_view(focus_author=task.author)
    except Exception:  # a document the gate rejects has no view; the grade says why
        return None


def collect_grades(layout: paths.RunLayout, spec: RunSpec, tasks: list[Any]) -> tuple[list[dict], list[dict]]:
    """Every planned trial's grade; trials without one come back in the second list (never dropped)."""
    grades: list[dict] = []
    missing: list[dict] = []
    for e in spec.entrants:
        for t in tasks:
            for k in range(1, spec.trials + 1):
                tdir = layout.trial_dir(e.label, t.task_id, k)
                grade = read_json(tdir / paths.GRADE)
                if isinstance(grade, dict):
                    grades.append(grade)
                    continue
                metrics = read_json(tdir / paths.METRICS) or {}
                missing.append({"model": e.label, "task_id": t.task_id, "trial": k,
                                "status": metrics.get("status", "not_run"),
                                "error": metrics.get("error") or "no grade.json"})
    return grades, missing


def write_summary(layout: paths.RunLayout, spec: RunSpec, tasks: list[Any], state: Progress) -> dict[str, Any]:
    from ..scoring import summarize

    grades, missing = collect_grades(layout, spec, tasks)
    summary = dict(summarize(grades)) if grades else {"n_trials": 0, "n_models": 0, "models": [],
                                                      "judge_method": None, "leaderboard": []}
    summary["run"] = {
        "run_id": spec.run_id,
        "n_planned": len(spec.entrants) * len(tasks) * spec.trials,
        "n_graded": len(grades),
        "not_graded": missing,
        "errors": state.errors,
        "cost_usd": round(state.cost_usd, 6),
    }
    write_json(layout.summary, summary)
    return summary
