"""``import harbor``: Harbor job trials -> our run directory layout (idempotent)."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..._atomic import atomic_replace_dir
from ...errors import RedlineBenchError
from ._export import _copy_tree
from ._layout import HarborError, _atomic_write


@dataclass
class HarborTrial:
    """One Harbor trial directory, read leniently (Harbor versions differ in details)."""

    path: Path
    name: str
    task_id: str
    model: str
    agent: str
    started_at: str
    result: dict[str, Any]
    grade: dict[str, Any] | None
    reward: float | None
    exception: str | None
    grade_problem: str | None = None       # grade.json present but unusable (named in the errored row)
    result_problem: str | None = None      # result.json present but unreadable (named in the errored row)


@dataclass
class ImportReport:
    imported: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)      # already imported (same Harbor trial)
    errored: list[str] = field(default_factory=list)      # imported as errored rows
    audited: list[str] = field(default_factory=list)      # graded without the integrity audit: audited here
    unaudited: list[str] = field(default_factory=list)    # graded without it and not auditable (no --source)
    summary_path: Path | None = None


def _load_json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HarborError(f"unreadable JSON ({exc})", path=path) from None


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _is_trial_result(data: Any) -> bool:
    return isinstance(data, Mapping) and any(k in data for k in ("trial_name", "task_name", "verifier_result"))


def _job_model(job_dir: Path) -> tuple[str | None, str | None]:
    cfg = job_dir / "config.json"
    if not cfg.is_file():
        return None, None
    data = _load_json_file(cfg)
    agents = data.get("agents") if isinstance(data, Mapping) else None
    if isinstance(agents, list) and agents and isinstance(agents[0], Mapping):
        return agents[0].get("model_name"), agents[0].get("name")
    return _dig(data, "agent", "model_name"), _dig(data, "agent", "name")


def _model_of(result: Mapping[str, Any], job_dir: Path) -> tuple[str, str]:
    agent = _dig(result, "config", "agent", "name") or _dig(result, "agent_info", "name")
    model = _dig(result, "config", "agent", "model_name")
    if not model:
        name = _dig(result, "agent_info", "model_info", "name")
        provider = _dig(result, "agent_info", "model_info", "provider")
        model = f"{provider}/{name}" if name and provider and "/" not in name else name
    job_model, job_agent = _job_model(job_dir)
    model = model or job_model
    agent = agent or job_agent or "unknown-agent"
    return str(model or f"harbor:{agent}"), str(agent)


def _task_id_of(result: Mapping[str, Any], trial_dir: Path) -> str:
    name = result.get("task_name") or _dig(result, "task_id", "name")
    if not name:
        path = _dig(result, "config", "task", "path") or _dig(result, "task_id", "path")
        name = Path(str(path)).name if path else trial_dir.name.split("__")[0]
    return str(name).rsplit("/", 1)[-1]


def _unreadable_trial(trial_dir: Path, problem: str) -> HarborTrial:
    """A trial whose result.json cannot be read: kept as an errored row (task from the directory name)."""
    model, agent = _model_of({}, trial_dir.parent)
    return HarborTrial(path=trial_dir, name=trial_dir.name, task_id=_task_id_of({}, trial_dir), model=model,
                       agent=agent, started_at="", result={}, grade=None, reward=None, exception=None,
                       result_problem=problem)


def read_trial(trial_dir: Path) -> HarborTrial:
    try:
        result = _load_json_file(trial_dir / "result.json")
    except HarborError as exc:  # one broken result must not block the other trials: an errored row
        return _unreadable_trial(trial_dir, str(exc))
    if not isinstance(result, Mapping):
        return _unreadable_trial(trial_dir, f"{trial_dir / 'result.json'}: trial result.json is not an object")
    model, agent = _model_of(result, trial_dir.parent)
    grade_path = trial_dir / "verifier" / "grade.json"
    grade: Any = None
    grade_problem = None
    if grade_path.is_file():
        try:
            grade = _load_json_file(grade_path)
        except HarborError as exc:  # one broken grade must not block the other trials: an errored row
            grade_problem = str(exc)
        else:
            if not isinstance(grade, Mapping):
                grade, grade_problem = None, f"{grade_path}: grade.json is not an object"
    reward = _dig(result, "verifier_result", "rewards", "reward")
    if reward is None:
        reward = _dig(result, "verifier_result", "reward")
    exc = result.get("exception_info")
    exception = None
    if isinstance(exc, Mapping) and exc:
        kind = str(exc.get("exception_type") or "error")
        message = str(exc.get("exception_message") or "").strip()
        exception = f"{kind}: {message}" if message else kind
    return HarborTrial(
        path=trial_dir, name=str(result.get("trial_name") or trial_dir.name), task_id=_task_id_of(result, trial_dir),
        model=model, agent=agent, started_at=str(result.get("started_at") or ""), result=dict(result),
        grade=dict(grade) if grade else None, reward=float(reward) if isinstance(reward, (int, float)) else None,
        exception=exception, grade_problem=grade_problem,
    )


def find_trials(jobs_dir: Path) -> list[Path]:
    """Every Harbor trial directory below ``jobs_dir`` (a jobs root, one job, or one trial)."""
    if not jobs_dir.is_dir():
        raise HarborError("Harbor jobs directory not found", path=jobs_dir)
    found = []
    for result in sorted(jobs_dir.rglob("result.json")):
        if any(part.startswith(".") for part in result.relative_to(jobs_dir).parts):
            continue
        if result.parent.name == "verifier":
            continue
        try:
            data = _load_json_file(result)
        except HarborError:
            pass
        else:
            if _is_trial_result(data):
                found.append(result.parent)
                continue
            if isinstance(data, Mapping):
                continue  # some other JSON object (a job's result.json)
        # Unreadable, or not an object: a trial's when no other result.json lies below it (a job's
        # result.json has its trials below); read_trial then makes it an errored row.
        if not _has_results_below(result.parent):
            found.append(result.parent)
    if not found:
        raise HarborError("no Harbor trials (no */result.json with a task_name) found", path=jobs_dir)
    return found


def _has_results_below(directory: Path) -> bool:
    return any(p.parent != directory and p.parent.name != "verifier" for p in directory.rglob("result.json"))


def _check_task_ids(trials: list[HarborTrial]) -> None:
    """Every trial's task name must be a task id: it becomes a directory under ``trials/<model>/``."""
    from ...tasks import TASK_NAME_RE

    bad = [t for t in trials if not TASK_NAME_RE.match(t.task_id)]
    if not bad:
        return
    lines = [f"{t.path}: task name {t.task_id!r}" + (f" (from its directory name; {t.result_problem})"
                                                     if t.result_problem else "") for t in bad[:5]]
    more = f"; and {len(bad) - 5} more" if len(bad) > 5 else ""
    raise HarborError(f"{len(bad)} Harbor trial(s) name a task that is not a task id "
                      f"(redline-s<S>-t<T>-g<GG><v>); nothing was imported: " + "; ".join(lines) + more)


def _errored_grade(trial: HarborTrial, reason: str) -> dict[str, Any]:
    return {
        "task_id": trial.task_id, "model": trial.model, "status": "errored", "judge_method": "none",
        "judges": [], "gate": {"passed": False, "reason": reason}, "score": {"weighted": 0.0},
        "errors": [reason],
    }


def import_harbor(jobs_dir: str | Path, run_dir: str | Path, *, source: str | None = None,
                  summarize: bool = True) -> ImportReport:
    """Turn Harbor job trials into ``run_dir/trials/<model_slug>/<task_id>/<n>/`` (idempotent).

    ``source`` names the task set the Harbor tasks were exported from; it is recorded in
    config.json as a run would record it (so the report finds the golden redlines and
    ``push results`` can tell a partial set), and every imported task must belong to it.
    """
    from ...runner.paths import slug

    jobs_dir, run_dir = Path(jobs_dir), Path(run_dir)
    trials = [read_trial(p) for p in find_trials(jobs_dir)]
    _check_task_ids(trials)
    report = ImportReport()
    taskset = _taskset(source)
    trials_root = run_dir / "trials"

    # What earlier imports already brought in: Harbor trial path -> our trial dir.
    known: dict[str, Path] = {}
    taken: dict[tuple[str, str], set[int]] = defaultdict(set)
    for src in trials_root.glob("*/*/*/harbor/source.json"):
        info = _load_json_file(src)
        if not isinstance(info, Mapping):
            raise HarborError(f"not a JSON object (an earlier import's record of its Harbor trial; "
                              f"got {type(info).__name__})", path=src)
        known[str(info.get("trial_path"))] = src.parent.parent
    for grade_dir in trials_root.glob("*/*/*"):
        if grade_dir.is_dir() and grade_dir.name.isdigit():
            taken[(grade_dir.parent.parent.name, grade_dir.parent.name)].add(int(grade_dir.name))

    by_key: dict[tuple[str, str], list[HarborTrial]] = defaultdict(list)
    for t in trials:
        by_key[(t.model, t.task_id)].append(t)
    for (model, task_id), group in sorted(by_key.items()):
        group.sort(key=lambda t: (t.started_at, t.name))
        for trial in group:
            key = str(trial.path.resolve())
            if key in known:
                report.skipped.append(trial.name)
                continue
            used = taken[(slug(model), task_id)]
            number = next(n for n in range(1, len(used) + 2) if n not in used)
            used.add(number)
            dest = trials_root / slug(model) / task_id / str(number)
            _import_one(trial, dest, number, report, taskset)
    run_dir.mkdir(parents=True, exist_ok=True)
    _write_import_config(run_dir, jobs_dir, source, taskset)
    if summarize:
        report.summary_path = write_summary(run_dir)
    return report


def _write_import_config(run_dir: Path, jobs_dir: Path, source: str | None, taskset: Any = None) -> None:
    """config.json of an imported run: which Harbor jobs, and (with ``source``) which task set."""
    path = run_dir / "config.json"
    cfg: dict[str, Any] = _load_json_file(path) if path.is_file() else {}
    if not isinstance(cfg, dict):
        raise HarborError("config.json is not a JSON object", path=path)
    cfg.setdefault("kind", "harbor-import")
    cfg.setdefault("created", datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"))
    jobs = [str(j) for j in cfg.get("harbor_jobs") or []]
    if str(jobs_dir.resolve()) not in jobs:
        jobs.append(str(jobs_dir.resolve()))
    cfg["harbor_jobs"] = jobs
    if source is not None:
        from ...runner.record import data_record
        from ...tasks import load_tasks

        taskset = taskset if taskset is not None else load_tasks(source)
        ids = sorted({d.name for d in (run_dir / "trials").glob("*/*") if d.is_dir()})
        unknown = [i for i in ids if i not in taskset]
        if unknown:
            raise HarborError(f"imported trials of tasks not in {taskset.source.describe()}: {', '.join(unknown[:5])}"
                              + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""), path=run_dir)
        cfg["data"] = data_record(taskset, [taskset.get(i) for i in ids])
        cfg["source"] = {"kind": cfg["data"]["kind"], "path": cfg["data"]["path"]}
    cfg.setdefault("source", {"kind": "harbor"})
    _atomic_write(path, json.dumps(cfg, indent=2) + "\n")


def _taskset(source: str | None) -> Any:
    """The task set the trials were exported from (None without ``source``): the audit's inputs."""
    if source is None:
        return None
    from ...tasks import load_tasks

    return load_tasks(source)


def audit_imported(grade: dict[str, Any], trial: HarborTrial, taskset: Any, report: ImportReport) -> dict[str, Any]:
    """A grade its verifier wrote without the integrity audit (a wheel older than SPEC §5.1), audited
    now against the task's input when the task set is known; otherwise listed as unaudited."""
    recorded = grade.get("integrity")
    ran = isinstance(recorded, Mapping) and recorded.get("skipped") is None
    if ran or grade.get("status") not in ("graded", "gate_failed"):
        return grade
    output = trial.path / "verifier" / "redline.docx"
    task = taskset.get(trial.task_id) if taskset is not None and trial.task_id in taskset else None
    if task is None or not output.is_file():
        report.unaudited.append(trial.name)
        return grade
    from ...docx import RedlineDocument
    from ...docx.integrity import audit
    from ...scoring import with_integrity

    try:
        original = RedlineDocument.open(task.contract_path)
        produced = RedlineDocument.open(output)
    except Exception:  # noqa: BLE001  the verifier's gate already judged an output that does not open
        report.unaudited.append(trial.name)
        return grade
    report.audited.append(trial.name)
    return with_integrity(grade, audit(original, produced, task.author))


def _import_one(trial: HarborTrial, dest: Path, number: int, report: ImportReport, taskset: Any = None) -> None:
    tmp = dest.with_name(f".{dest.name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "harbor").mkdir(parents=True)
    try:
        grade = None
        problem = trial.result_problem or trial.grade_problem
        if trial.grade is not None and trial.result_problem is None:
            grade = dict(trial.grade)
            grade["model"] = trial.model   # the container did not know which model it graded
            grade["trial"] = number
            grade.setdefault("task_id", trial.task_id)
            problem = _grade_problem(grade, trial.path / "verifier" / "grade.json")
            if problem:
                grade = None
            else:
                grade = audit_imported(grade, trial, taskset, report)
        if grade is None:
            reason = problem or trial.exception or (
                "the verifier wrote no grade.json (not a redlinebench verifier?)"
                if trial.reward is not None else "the trial produced no verifier result")
            grade = _errored_grade(trial, reason)
            grade["trial"] = number
            report.errored.append(f"{trial.name}: {reason}")
        extra = grade.setdefault("harbor", {})
        if isinstance(extra, dict):
            extra.update({"trial_name": trial.name, "agent": trial.agent, "reward": trial.reward})
        _atomic_write(tmp / "grade.json", json.dumps(grade, indent=2, ensure_ascii=False) + "\n")
        verifier = trial.path / "verifier"
        for name in ("redline.docx", "annotated_view.md"):
            if (verifier / name).is_file():
                shutil.copyfile(verifier / name, tmp / name)
        metrics = trial_metrics(trial, number, errored=grade.get("status") == "errored")
        _atomic_write(tmp / "metrics.json", json.dumps(metrics, indent=2) + "\n")
        try:
            shutil.copyfile(trial.path / "result.json", tmp / "harbor" / "result.json")
        except OSError:
            pass  # unreadable (its errored row says why); the rest of the trial is still kept
        if (trial.path / "agent").is_dir():
            _copy_tree(trial.path / "agent", tmp / "harbor" / "agent")
        _atomic_write(tmp / "harbor" / "source.json",
                      json.dumps({"trial_path": str(trial.path.resolve()), "trial_name": trial.name}) + "\n")
        atomic_replace_dir(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    report.imported.append(dest)


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _when(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def _stamp(value: Any) -> Any:
    """A Harbor timestamp in the run's ``%Y-%m-%dT%H:%M:%SZ`` form (kept as is if unparseable)."""
    when = _when(value)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if when else value


def _seconds(timing: Any) -> float | None:
    start, end = (_when(_dig(timing, "started_at")), _when(_dig(timing, "finished_at")))
    return round((end - start).total_seconds(), 4) if start and end and end >= start else None


def trial_metrics(trial: HarborTrial, number: int, *, errored: bool) -> dict[str, Any]:
    """metrics.json of an imported trial, in the run's schema (``runner.scheduler``: ``tokens_in``,
    ``tokens_out``, ``cost_usd``, ``status``, ...) so the loaders and the report read it like a
    local run's. What only Harbor knows (cache tokens, its exception, raw times) is under ``harbor``.

    ``status``: ``limit_reached`` for Harbor's agent timeout, ``errored`` when the trial has no
    usable grade and Harbor recorded an exception, else ``completed``. ``wall_s`` is the agent's
    execution time when Harbor records it, else the whole trial's.
    """
    from ...runner.scheduler import metrics_record

    result = trial.result
    agent_result = result.get("agent_result") if isinstance(result.get("agent_result"), Mapping) else {}
    kind = str(_dig(result, "exception_info", "exception_type") or "")
    if "AgentTimeout" in kind:
        status, end_reason = "limit_reached", "agent_timeout"
    elif errored and trial.result_problem:
        status, end_reason = "errored", "unreadable_result"
    elif errored and trial.exception:
        status, end_reason = "errored", kind or "exception"
    else:
        status, end_reason = "completed", "harbor_trial_finished"
    cost = _number(agent_result.get("cost_usd"))
    metrics: dict[str, Any] = {
        **metrics_record(task_id=trial.task_id, model=trial.model, agent=trial.agent, trial=number, status=status,
                         end_reason=end_reason, started=_stamp(result.get("started_at")),
                         finished=_stamp(result.get("finished_at")),
                         wall_s=_seconds(result.get("agent_execution")) or _seconds(result)),
        "tokens_in": _number(agent_result.get("n_input_tokens")),
        "tokens_out": _number(agent_result.get("n_output_tokens")),
        "cost_usd": cost,
        "cost_known": cost is not None,
        "source": "harbor",
    }
    if status == "errored":
        metrics["error"] = trial.result_problem or trial.exception
    metrics["harbor"] = {
        "trial_name": trial.name,
        "n_cache_tokens": _number(agent_result.get("n_cache_tokens")),
        "exception": trial.exception,
        "started_at": result.get("started_at"),
        "finished_at": result.get("finished_at"),
        "reward": trial.reward,
    }
    return metrics


def _grade_problem(grade: dict[str, Any], where: Path) -> str | None:
    """Why ``grade`` cannot be read by the scoring reader (None when it can)."""
    from ...scoring import TrialGrade

    try:
        TrialGrade.from_dict(grade, source=str(where))
    except RedlineBenchError as exc:
        return str(exc)
    return None


def write_summary(run_dir: Path) -> Path:
    """Recompute ``metrics_summary.json`` from every grade.json of the run."""
    from ...scoring import summarize

    grades = [_load_json_file(p) for p in sorted((run_dir / "trials").glob("*/*/*/grade.json"))]
    summary = summarize(grades)
    path = run_dir / "metrics_summary.json"
    _atomic_write(path, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    return path
