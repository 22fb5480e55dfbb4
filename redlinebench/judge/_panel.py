"""Judge panels from a spec string, and grading one trial end to end.

``grade_trial``: gate -> annotated view -> every judge concurrently -> majority vote -> the
one reward function -> document diagnostics (+ golden agreement) -> a :class:`TrialGrade`.
A judge that fails after all retries (no answer at all) marks the trial ``judging_incomplete``;
an unexpected error marks it ``errored``. Neither is ever dropped: both are written and later
listed. A judge that answered but left rubrics out is complete: it casts no vote on those
(SPEC §5.4); a rubric nobody voted on is FAIL, written with ``votes: {}`` and counted in the
summary (``n_rubrics_without_vote``), so an omission is never silent either.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from .. import config
from .._atomic import atomic_write_text
from ..docx.integrity_types import IntegrityReport
from ..errors import ConfigError
from ..scoring import (
    FAIL,
    PASS,
    RubricVerdict,
    TrialGrade,
    document_diagnostics,
    golden_agreement,
    no_document_diagnostics,
    panel_vote,
    reward,
    votes_cast,
)
from ._audit import AuditLog, new_attempt_id
from ._base import Judge, JudgeResult, create_judge, judge_slug
from ._cache import JudgeCache
from ._cost import CONFIG_DIR
from ._gate import gate, open_output
from ._prompt import PROMPT_VERSION

_JUDGE_OPTIONS = {"name", "api_base", "api_key_env", "timeout", "max_retries", "json_mode", "temperature", "extra"}


def _judge_from_entry(entry: Any, where: str, overrides: dict[str, Any]) -> Judge:
    if isinstance(entry, str):
        entry = entry.strip()
        if entry in ("heuristic",):
            return create_judge("heuristic")
        return create_judge("litellm", model=entry, **overrides)
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: each judge must be a model string or a mapping, got {entry!r}")
    if "api_key" in entry:
        raise ConfigError(f"{where}: never write an API key into a judge config; "
                          "put it in an environment variable and name that with api_key_env")
    kind = entry.get("kind", "heuristic" if entry.get("model") == "heuristic" else "litellm")
    if kind == "heuristic":
        return create_judge("heuristic", **({"name": entry["name"]} if "name" in entry else {}))
    model = entry.get("model")
    if not isinstance(model, str) or not model.strip():
        raise ConfigError(f"{where}: a litellm judge needs 'model' (a litellm model string)")
    unknown = set(entry) - _JUDGE_OPTIONS - {"model", "kind"}
    if unknown:
        raise ConfigError(f"{where}: unknown judge option(s) {', '.join(sorted(unknown))}; "
                          f"known: model, kind, {', '.join(sorted(_JUDGE_OPTIONS))}")
    options = {k: v for k, v in entry.items() if k in _JUDGE_OPTIONS}
    return create_judge("litellm", model=model, **{**options, **overrides})


def _load_yaml(path: Path, overrides: dict[str, Any]) -> list[Judge]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read judge config: {exc.strerror or exc}", path=path) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"judge config is not valid YAML: {exc}", path=path) from None
    entries = data.get("judges") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise ConfigError("judge config needs a non-empty 'judges' list", path=path)
    return [_judge_from_entry(e, f"{path}: judges[{i}]", overrides) for i, e in enumerate(entries)]


def _named_config(name: str) -> Path | None:
    """``configs/judges/<name>.yaml`` of the working directory, else the copy shipped in the package."""
    for directory in config.config_search_dirs("judges"):
        candidate = directory / f"{name}.yaml"
        if candidate.is_file():
            return candidate
    return None


_KEYWORDS = ("panel", "heuristic", "none", "default")


def _refuse_near_keyword(spec: str) -> None:
    """A bare word close to a keyword or a named panel is a typo (``panl``), not a model for
    litellm to puzzle over: say so at once, with the word meant."""
    import difflib

    names = [*_KEYWORDS, *sorted({p.stem for d in config.config_search_dirs("judges") if d.is_dir()
                                  for p in d.glob("*.yaml") if p.stem != "prices"})]
    near = difflib.get_close_matches(spec.lower(), names, n=1, cutoff=0.75)
    if near:
        raise ConfigError(f"--judges {spec!r} is not a judge spec (panel, heuristic, none, a comma list of "
                          f"provider/model strings, or a YAML file); did you mean {near[0]!r}?")


def create_judges(spec: str, *, api_base: str | None = None, timeout: float | None = None,
                  max_retries: int | None = None) -> list[Judge]:
    """Judges from a spec: ``panel`` | ``heuristic`` | ``none`` | ``a,b,c`` (litellm models) | a YAML path
    | the name of a file in ``configs/judges/`` (the working directory's, then the package's).
    Keyword options override every litellm judge."""
    overrides = {k: v for k, v in {"api_base": api_base, "timeout": timeout, "max_retries": max_retries}.items()
                 if v is not None}
    spec = (spec or "").strip()
    if not spec:
        raise ConfigError("empty judge spec; use panel, heuristic, none, a comma list of models or a YAML file")
    if spec.lower() in _KEYWORDS:  # the words of the grammar in any case (Heuristic, PANEL)
        spec = spec.lower()
    if spec == "none":
        return []
    if spec == "heuristic":
        return [create_judge("heuristic")]
    if spec in ("panel", "default"):
        path = _named_config("default")
        if path is None:
            raise ConfigError("the default judge panel is missing from this installation "
                              "(reinstall redlinebench, or pass a judge YAML file)", path=CONFIG_DIR / "default.yaml")
        return _load_yaml(path, overrides)
    path = Path(spec).expanduser()
    if spec.endswith((".yaml", ".yml")) or path.is_file():
        if not path.is_file():
            raise ConfigError("judge config not found", path=path)
        return _load_yaml(path, overrides)
    named = _named_config(spec) if "," not in spec and "/" not in spec else None
    if named is not None:
        return _load_yaml(named, overrides)
    if "," not in spec and "/" not in spec:
        _refuse_near_keyword(spec)
    judges = [_judge_from_entry(item, f"--judges item {i + 1}", overrides)
              for i, item in enumerate(s for s in spec.split(",") if s.strip())]
    if not judges:
        raise ConfigError(f"--judges {spec!r} names no judge; use panel, heuristic, none, a comma list of "
                          "models or a YAML file")
    names = [j.name for j in judges]
    dupes = sorted(n for n, c in Counter(names).items() if c > 1)
    if dupes:
        raise ConfigError(f"judge names must be unique in a panel: {', '.join(dupes)}")
    return judges


def judge_method(judges: list[Judge]) -> str:
    methods = sorted({getattr(j, "method", "llm") for j in judges})
    return methods[0] if len(methods) == 1 else "mixed"


def _atomic_write(path: Path, text: str) -> None:
    atomic_write_text(path, text)


def _golden_author(golden: Any, task: Any) -> str | None:
    authors = Counter((r.author or "").strip() for r in golden.revisions)
    authors.update((c.author or "").strip() for c in golden.comments)
    if task.author in authors:
        return task.author
    prior: set[str] = set()
    contract = getattr(task, "contract_path", None)
    if contract:
        doc, _ = open_output(contract)
        if doc is not None:
            prior = {(r.author or "").strip() for r in doc.revisions} | {(c.author or "").strip() for c in doc.comments}
    candidates = [(n, a) for a, n in authors.items() if a and a not in prior]
    return max(candidates)[1] if candidates else None


def _view(doc: Any, author: str, report: IntegrityReport | None) -> str:
    """The judges' annotated view; the audit's flagged findings go with it when the view can show
    them (``findings=``, SPEC §5.1: the judges see the flags)."""
    import inspect

    if report is not None and report.findings and "findings" in inspect.signature(doc.annotated_view).parameters:
        return doc.annotated_view(focus_author=author, findings=report.findings)
    return doc.annotated_view(focus_author=author)


def _base_grade(task: Any, *, model: str, trial: int, judges: list[Judge], status: str,
                gate_dict: dict[str, Any]) -> TrialGrade:
    return TrialGrade(
        task_id=task.task_id, model=model, trial=trial, scenario_id=int(task.scenario_id), turn=int(task.turn),
        side=task.side, input_group=task.input_group, variant=task.variant, status=status,  # type: ignore[arg-type]
        judge_method=judge_method(judges), judges=[j.name for j in judges], gate=gate_dict, weighted=0.0,
        prompt_version=PROMPT_VERSION)


NO_VOTE_NOTE = "no judge returned a verdict for this rubric (counted FAIL)"


def _rubric_rows(task: Any, final: dict[str, str], answers: dict[str, dict[str, str]] | None,
                 notes: dict[str, dict[str, str]], default_note: str = "") -> list[RubricVerdict]:
    """One row per rubric. ``answers`` holds each answering judge's returned verdicts only, so a
    row's ``votes`` names exactly the judges that voted on it (``{}``: nobody did)."""
    rows = []
    for r in task.rubrics:
        rid = str(r.id)
        verdict = final.get(rid, FAIL)
        cast = votes_cast(answers, rid) if answers else None
        note = default_note
        if answers and not cast:
            note = NO_VOTE_NOTE
        for judge_name, vote in (cast or {}).items():
            if vote == verdict and notes.get(judge_name, {}).get(rid):
                note = notes[judge_name][rid]
                break
        rows.append(RubricVerdict(
            rubric_id=rid, verdict=verdict, weight=int(r.weight), category=r.category or "(uncategorized)",
            criteria=str(r.criteria or ""), justification=note, votes=cast))
    return rows


async def grade_trial(task: Any, output_path: str | Path | bytes | None, judges: list[Judge], *, model: str,
                      trial: int, run_dir: str | Path | None = None, cache: bool | JudgeCache = True,
                      trial_dir: str | Path | None = None, limiter: asyncio.Semaphore | None = None,
                      audit: AuditLog | None = None, document: Any | None = None,
                      original: Any | None = None) -> TrialGrade:
    """Grade one trial's output. Writes grade.json, annotated_view.md and judges/*.json when
    ``trial_dir`` is given; appends to ``run_dir/judge_audit.jsonl`` when ``run_dir`` is given.

    Each call is one grading attempt (``attempt_id``, recorded in the grade and on each of its
    audit lines). ``document`` is ``output_path`` already opened (a ``RedlineDocument``), so a caller that also
    renders it parses it once; grading only reads it. ``original`` is the task's input document
    for the integrity audit (opened, a path or bytes); by default the task's ``contract_path``.
    """
    if not judges:
        raise ConfigError("grading needs at least one judge (got --judges none)")
    judge_cache = cache if isinstance(cache, JudgeCache) else (JudgeCache() if cache else None)
    if audit is None and run_dir is not None:
        audit = AuditLog(Path(run_dir) / "judge_audit.jsonl")
    out_dir = Path(trial_dir) if trial_dir is not None else None
    # every judge call of this attempt is logged once with its id; grade.json names the attempt
    attempt_id = new_attempt_id()
    if audit is not None:
        audit = audit.bind(attempt_id=attempt_id)
    try:
        grade = await _grade(task, output_path, judges, model=model, trial=trial, cache=judge_cache,
                             limiter=limiter, audit=audit, out_dir=out_dir, document=document,
                             original=original)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001  one broken trial must not stop a run; it is recorded
        grade = _base_grade(task, model=model, trial=trial, judges=judges, status="errored",
                            gate_dict={"passed": False, "reason": "grading error"})
        grade.errors = [f"{type(exc).__name__}: {exc}"]
        grade.diagnostics = no_document_diagnostics()
        grade.integrity = IntegrityReport(skipped="grading error").to_dict()
    if grade.status != "gate_failed":  # a gate failure calls no judge: its grade stays byte-identical
        grade.attempt_id = attempt_id
    if out_dir is not None:
        effort = _reasoning_effort(out_dir)
        if effort is not None:  # a thinking model run on purpose: its grades say how hard it thought
            grade.extra["reasoning_effort"] = effort
        grade.write(out_dir / "grade.json")
    return grade


def _reasoning_effort(trial_dir: Path) -> str | int | None:
    """The ``reasoning_effort`` the trial's episode ran with (its metrics.json), if one was set."""
    import json

    try:
        value = json.loads((trial_dir / "metrics.json").read_text(encoding="utf-8")).get("reasoning_effort")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


async def _grade(task: Any, output_path: Any, judges: list[Judge], *, model: str, trial: int,
                 cache: JudgeCache | None, limiter: asyncio.Semaphore | None, audit: AuditLog | None,
                 out_dir: Path | None, document: Any | None = None, original: Any | None = None) -> TrialGrade:
    if original is None:
        original = getattr(task, "contract_path", None)
    checked = gate(output_path, task.author, document=document, original=original)
    integrity = checked.integrity.to_dict() if checked.integrity is not None else None
    diagnostics = (document_diagnostics(checked.doc, task.author) if checked.doc is not None
                   else no_document_diagnostics())
    if not checked.passed:
        grade = _base_grade(task, model=model, trial=trial, judges=judges, status="gate_failed",
                            gate_dict=checked.to_dict())
        grade.integrity = integrity
        grade.per_rubric = _rubric_rows(task, {}, None, {}, default_note=f"gate failed: {checked.reason}")
        parts = reward(task.rubrics, {}, gate_passed=False)
        grade.total_weight, grade.n_total = parts.total_weight, parts.n_total
        grade.diagnostics = diagnostics
        return grade

    doc = checked.doc
    view = _view(doc, task.author, checked.integrity)
    if out_dir is not None:
        _atomic_write(out_dir / "annotated_view.md", view if view.endswith("\n") else view + "\n")

    async def run(j: Judge) -> JudgeResult:
        try:
            return await j.grade(task, view, doc, cache=cache, audit=audit, limiter=limiter, trial=trial,
                                 model_under_test=model)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001  a judge bug is that judge's failure, not the trial's
            return JudgeResult(judge=j.name, ok=False, error=f"{type(exc).__name__}: {exc}",
                               method=getattr(j, "method", "llm"))

    # a task without rubrics has nothing to ask a judge (and a reward of 0): spend no call on it
    results = await asyncio.gather(*(run(j) for j in judges)) if task.rubrics else [
        JudgeResult(judge=j.name, ok=True, method=getattr(j, "method", "llm")) for j in judges]
    judge_payloads = {res.judge: {**res.to_dict(), "prompt_version": PROMPT_VERSION} for res in results}
    if out_dir is not None:
        for name, payload in judge_payloads.items():
            _atomic_write(out_dir / "judges" / f"{judge_slug(name)}.json",
                          json.dumps(payload, indent=2, ensure_ascii=False, default=str) + "\n")
    answered = {r.judge: r.returned() for r in results if r.ok}  # a rubric left out is no vote
    notes = {r.judge: r.justifications for r in results if r.ok}
    failed = [r for r in results if not r.ok]
    rubric_ids = [str(r.id) for r in task.rubrics]
    final = panel_vote(answered, rubric_ids)
    parts = reward(task.rubrics, {rid: v == PASS for rid, v in final.items()})

    grade = _base_grade(task, model=model, trial=trial, judges=judges,
                        status="judging_incomplete" if failed else "graded", gate_dict=checked.to_dict())
    grade.weighted = parts.weighted
    grade.earned_weight, grade.penalty_weight = parts.earned_weight, parts.penalty_weight
    grade.total_weight, grade.n_pass, grade.n_total = parts.total_weight, parts.n_pass, parts.n_total
    grade.per_rubric = _rubric_rows(task, final, answered, notes,
                                    default_note="no judge answered" if not answered else "")
    grade.diagnostics = diagnostics
    grade.integrity = integrity
    grade.judge_results = judge_payloads
    grade.annotated_view = view
    grade.incomplete_judges = [r.judge for r in failed]
    grade.errors = [f"{r.judge}: {r.error}" for r in failed]
    costs = [r.cost_usd for r in results]
    grade.usage = {
        "prompt_tokens": sum(r.prompt_tokens for r in results),
        "completion_tokens": sum(r.completion_tokens for r in results),
        "cache_read_tokens": sum(r.cache_read_tokens for r in results),
        "cache_write_tokens": sum(r.cache_write_tokens for r in results),
        "cost_usd": None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6),
        "cached_judges": [r.judge for r in results if r.cached],
        "attempts": {r.judge: r.attempts for r in results},
    }
    golden_path = getattr(task, "golden_path", None)
    if golden_path:
        golden, _why = open_output(golden_path)
        if golden is not None:
            g_author = _golden_author(golden, task)
            if g_author:
                grade.golden_agreement = golden_agreement(doc, golden, task.author, g_author)
    return grade
