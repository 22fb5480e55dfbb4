"""Scoring inside ``run``: grade each published trial, then summarize the whole run.

The judging itself belongs to ``redlinebench.judge`` / ``redlinebench.scoring``; this module
only places their results in the run directory (grade.json, judges/<judge>.json,
annotated_view.md, metrics_summary.json), atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from . import paths
from .atomic import read_json, write_json
from .scheduler import Progress, TrialKey
from .store import read_metrics
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
    """An async ``grade(key, trial_dir)`` that leaves grade.json (last), judges/*.json and
    annotated_view.md in the trial directory and appends to the run's judge_audit.jsonl.

    It returns the opened redline (or None when it does not open), which the pipeline hands to
    the pre-rendering step so a trial's document is parsed once for both. A judge whose endpoint
    could not be reached raises ``JudgesUnreachable`` (carrying that redline) once grade.json is
    written, so the run can stop starting episodes that could not be graded either.
    """
    from ..errors import JudgesUnreachable
    from ..judge import grade_trial
    from ..judge._gate import open_output
    from ..judge._litellm_judge import QUOTA_PREFIX

    async def grade(key: TrialKey, tdir: Path) -> Any:
        redline = tdir / paths.REDLINE
        output = redline if redline.is_file() else None  # none: an agent that handed in nothing (NO_OUTPUT)
        document, _ = open_output(output)  # when it does not open, grade_trial says why
        result = await grade_trial(key.task, output, judges, model=key.label, trial=key.trial,
                                   run_dir=layout.root, trial_dir=tdir, document=document)
        if not (tdir / paths.GRADE).is_file():  # a grader that only returns its grade
            write_json(tdir / paths.GRADE, _grade_dict(result))
        down = [f"judge {name}: {p.get('error')}" for name, p in (getattr(result, "judge_results", None) or {}).items()
                if isinstance(p, dict) and p.get("unreachable")]
        if down:
            broke = [d for d in down if QUOTA_PREFIX in d]  # out of credit: no later trial can be judged either
            raise JudgesUnreachable((broke or down)[0], document=document, final=bool(broke))
        return document

    return grade


def errored_grade(key: TrialKey, judges: list[Any], error: str) -> dict[str, Any]:
    """The grade.json of a trial whose agent never produced a document (provider down, bad input).

    It is ``errored``, not a zero: the summary lists it as incomplete, and ``--resume`` reruns it.
    """
    from ..scoring import TrialGrade, no_document_diagnostics

    t = key.task
    grade = TrialGrade(task_id=t.task_id, model=key.label, trial=key.trial, scenario_id=int(t.scenario_id),
                       turn=int(t.turn), side=t.side, input_group=t.input_group, variant=t.variant,
                       status="errored", judge_method="none",  # no judge saw it: not "scored by" anyone
                       judges=[getattr(j, "name", str(j)) for j in judges],
                       gate={"passed": False, "reason": "the agent produced no document"}, weighted=0.0,
                       errors=[f"agent error: {error}"], diagnostics=no_document_diagnostics())
    return grade.to_dict()


def collect_grades(layout: paths.RunLayout, spec: RunSpec, tasks: list[Any],
                   judges: list[Any]) -> tuple[list[dict], list[dict], int]:
    """Every planned trial's grade. A trial whose agent errored gets an ``errored`` grade so the
    summary lists it as incomplete; anything else without a grade is returned in the second list.
    Nothing planned is dropped silently. The count is of grades read from grade.json files."""
    from .scheduler import TrialKey

    grades: list[dict] = []
    missing: list[dict] = []
    n_files = 0
    for e in spec.entrants:
        for t in tasks:
            for k in range(1, spec.trials + 1):
                tdir = layout.trial_dir(e.label, t.task_id, k)
                grade = read_json(tdir / paths.GRADE)
                metrics = read_metrics(tdir)
                if isinstance(grade, dict) and metrics.get("status") != "errored":
                    grades.append(grade)
                    n_files += 1
                elif metrics.get("status") == "errored":
                    grades.append(errored_grade(TrialKey(e, t, k), judges, str(metrics.get("error") or "")))
                else:
                    missing.append({"model": e.label, "task_id": t.task_id, "trial": k,
                                    "status": metrics.get("status", "not_run"),
                                    "error": "no grade.json (grading failed or the run was interrupted)"})
    return grades, missing, n_files


def write_summary(layout: paths.RunLayout, spec: RunSpec, tasks: list[Any], state: Progress,
                  judges: list[Any]) -> dict[str, Any]:
    """metrics_summary.json: SPEC §6 fields from ``summarize`` plus a ``run`` section of our own."""
    from ..judge import audit_section
    from ..scoring import summarize

    grades, missing, n_files = collect_grades(layout, spec, tasks, judges)
    summary = dict(summarize(grades)) if grades else {"n_trials": 0, "n_models": 0, "models": [],
                                                      "judge_method": None, "leaderboard": [], "pairwise": []}
    if judges:  # trials that errored before any judge saw them say "none": the run's judges are still these
        from ..judge import judge_method

        configured = judge_method(judges)
        if summary.get("judge_method") in (None, "none"):
            summary["judge_method"] = configured
        for entry in summary.get("leaderboard") or []:
            if entry.get("judge_method") in (None, "none"):
                entry["judge_method"] = configured
    summary["judge_calls"] = audit_section([layout.audit], grades)  # each judge call once, resumes included
    summary["run"] = {
        "run_id": spec.run_id,
        "n_planned": len(spec.entrants) * len(tasks) * spec.trials,
        "n_grades": n_files,                          # grade.json files; errored episodes have none
        "n_errored_episodes": len(grades) - n_files,  # listed as incomplete from their metrics
        "not_graded": missing,
        "errors": state.errors,
        "stopped": state.stopped,
        "cost_usd": round(state.cost_usd, 6),
        # adaptive concurrency per provider endpoint: final limit, ceiling, lowest cut, calls, 429s
        "rate_limits": state.rate_limits,
    }
    write_json(layout.summary, summary)
    return summary
