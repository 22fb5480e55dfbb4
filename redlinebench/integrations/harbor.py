"""Harbor: export runnable Harbor tasks, verify inside the container, import Harbor job trials.

Harbor runs one container per trial: the agent works on ``/app`` (our contract and grounding),
then Harbor uploads the task's ``tests/`` to ``/tests`` and runs ``tests/test.sh``, which must
leave a reward in ``/logs/verifier/reward.txt``. Everything the verifier writes under
``/logs/verifier`` comes back in the job directory as ``<job>/<trial>/verifier/``.

Our wiring (the SPEC §2 tree is already Harbor's task format, so export mostly copies):

* ``tests/task/<task_id>/`` — a pristine copy of the whole task (rubrics, golden redline,
  metadata). The agent never sees ``tests/`` and may overwrite ``/app/contract.docx``, so the
  verifier reads the task from here, not from ``/app``.
* ``tests/test.sh`` runs ``redlinebench verify``: gate, judge panel and reward exactly as a
  local run, writing ``reward.txt``, ``grade.json``, the graded ``redline.docx`` and the judge's
  ``annotated_view.md`` to ``/logs/verifier``.
* ``environment/Dockerfile`` installs this package (from a wheel copied next to it, or from an
  index by requirement string) so both the agent's tools and the verifier are present.

``import_harbor`` maps ``<jobs>/<job>/<trial>/`` onto our run layout
(``trials/<model_slug>/<task_id>/<n>/``), numbering a model's trials of a task 1..k in start
order. Trials without a grade become ``errored`` rows, never silently dropped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import ConfigError, RedlineBenchError, TaskError
from . import _toml
from ._common import load_single_task

APP_DIR = "/app"
OUTPUT_PATH = "/app/output/redline.docx"
VERIFIER_LOGS = "/logs/verifier"
TESTS_DIR = "/tests"
#: Environment passed to the verifier: judge keys come from the host running Harbor.
JUDGE_ENV_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY")
DEFAULT_BASE_IMAGE = "python:3.11-slim"
_SKIP_COPY = {"tests/test.sh", "environment/Dockerfile"}
#: What a judge spec may contain once it is written into a shell script.
_SAFE_SPEC = re.compile(r"[\w.,:/@+=-]+")


class HarborError(RedlineBenchError):
    """A Harbor export / import / verify problem (names the file)."""


# ============================================================================ export
@dataclass(frozen=True)
class ExportOptions:
    """How exported tasks install the package and call the verifier."""

    package_spec: str | None = None          # pip requirement, e.g. "redlinebench==0.1.0"
    wheel: Path | None = None                # or a wheel copied into every environment/
    judges: str = "panel"
    base_image: str = DEFAULT_BASE_IMAGE
    agent_timeout_sec: float = 1800.0
    verifier_timeout_sec: float = 1800.0
    cpus: int = 1
    memory_mb: int = 2048
    overwrite: bool = False


def _install_lines(opts: ExportOptions) -> list[str]:
    if opts.wheel is not None:
        name = opts.wheel.name
        return [f"COPY {name} /tmp/{name}", f"RUN pip install --no-cache-dir /tmp/{name} && rm /tmp/{name}"]
    from .. import __version__

    spec = opts.package_spec or f"redlinebench=={__version__}"
    if any(c in spec for c in "'\"\n\\"):
        raise ConfigError(f"--package-spec: quotes, backslashes and newlines are not allowed: {spec!r}")
    return [f"RUN pip install --no-cache-dir '{spec}'"]


def dockerfile(task_id: str, opts: ExportOptions, *, has_skills: bool) -> str:
    lines = [
        f"# RedlineBench task {task_id}: the contract and grounding in {APP_DIR}, and the redlinebench",
        "# package, which gives the agent its document tools and the verifier its grader.",
        f"FROM {opts.base_image}",
        "ENV PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 LITELLM_LOCAL_MODEL_COST_MAP=True",
        *_install_lines(opts),
        f"WORKDIR {APP_DIR}",
        f"COPY app/ {APP_DIR}/",
    ]
    if has_skills:
        lines.append("COPY skills/ /skills/")
    lines.append(f"RUN mkdir -p {Path(OUTPUT_PATH).parent}")
    return "\n".join(lines) + "\n"


def verifier_script(task_id: str, judges: str) -> str:
    """The verifier script. Paths can be moved with env vars so the same script runs outside Harbor."""
    if not _SAFE_SPEC.fullmatch(judges):
        raise ConfigError(f"--judges: only letters, digits and . , : / @ + = _ - are allowed (no shell metacharacters): {judges!r}")
    return f"""#!/usr/bin/env bash
# Harbor verifier for RedlineBench task {task_id}.
# Grades the agent's document with redlinebench (gate, judge panel, reward) and writes
# reward.txt for Harbor plus grade.json, redline.docx and annotated_view.md to the log dir.
set -u
TESTS_DIR="${{REDLINEBENCH_TESTS_DIR:-{TESTS_DIR}}}"
LOGS_DIR="${{REDLINEBENCH_LOGS_DIR:-{VERIFIER_LOGS}}}"
mkdir -p "$LOGS_DIR"
exec redlinebench verify \\
  --task-dir "$TESTS_DIR/task/{task_id}" \\
  --output "${{REDLINEBENCH_OUTPUT:-{OUTPUT_PATH}}}" \\
  --logs "$LOGS_DIR" \\
  --judges "${{REDLINEBENCH_JUDGES:-{judges}}}"
"""


def output_note(author: str) -> str:
    """What the agent in the container must leave, and the commands that make it (``redlinebench doc``)."""
    out = OUTPUT_PATH
    return (
        "\n\n## Deliverable (Harbor)\n\n"
        f"Leave the redlined contract at `{out}`: the same document as `{APP_DIR}/contract.docx`, with your "
        f"edits as native Word tracked changes and margin comments authored exactly as `{author}`. "
        "The `redlinebench doc` commands in this environment make such edits:\n\n"
        "```\n"
        f"cp {APP_DIR}/contract.docx {out}\n"
        f"redlinebench doc read {out}                  # paragraphs as [p-NNN] with clause numbers and changes\n"
        f"redlinebench doc edit {out} edits.json --author \"{author}\"\n"
        f"redlinebench doc comment {out} --paragraph-id p-012 --text \"...\" --author \"{author}\"\n"
        f"redlinebench doc reserve {out} --start p-020 --end p-024 --comment \"...\" --author \"{author}\"\n"
        "```\n\n"
        "`edits.json` is a list of `{\"op\": \"replace\"|\"delete\"|\"insert_after\", \"anchor\": "
        "{\"paragraph_id\", \"text\"}, \"new_text\", \"comment\"}` objects; reply to an existing thread "
        "with `doc comment --reply-to cmt-N`.\n"
    )


def task_toml(original: Mapping[str, Any], task: Any, opts: ExportOptions) -> str:
    """The original task.toml with Harbor's run sections set (metadata kept as is)."""
    data: dict[str, Any] = {k: v for k, v in original.items()}
    data.setdefault("version", "1.0")
    metadata = dict(data.get("metadata") or {})
    for key, value in task.metadata().items() if hasattr(task, "metadata") else ():
        metadata.setdefault(key, value)
    data["metadata"] = metadata
    verifier = dict(data.get("verifier") or {})
    verifier["timeout_sec"] = float(opts.verifier_timeout_sec)
    env = dict(verifier.get("env") or {})
    for key in JUDGE_ENV_KEYS:
        env.setdefault(key, "${" + key + "}")
    env["REDLINEBENCH_JUDGES"] = opts.judges
    verifier["env"] = env
    data["verifier"] = verifier
    agent = dict(data.get("agent") or {})
    agent["timeout_sec"] = float(opts.agent_timeout_sec)
    data["agent"] = agent
    environment = dict(data.get("environment") or {})
    environment.setdefault("cpus", opts.cpus)
    environment.setdefault("memory_mb", opts.memory_mb)
    data["environment"] = environment
    # Harbor's and our readers ignore nothing: drop None values TOML cannot hold.
    return _toml.dumps(_drop_none(data))


def _drop_none(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_drop_none(v) for v in value if v is not None]
    return value


def _copy_tree(src: Path, dst: Path, *, skip: set[str] = frozenset()) -> None:
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src).as_posix()
        if rel in skip or path.is_symlink() or any(p.startswith(".") for p in Path(rel).parts):
            continue
        target = dst / rel
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def export_task(task: Any, out: Path, opts: ExportOptions) -> Path:
    """Write one runnable Harbor task for ``task`` under ``out/<task_id>``."""
    src = Path(task.root)
    dest = out / task.task_id
    if dest.exists():
        if not opts.overwrite:
            raise HarborError("already exists (use --overwrite to replace it)", path=dest)
        shutil.rmtree(dest)
    tmp = out / f".{task.task_id}.partial"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        _copy_tree(src, tmp, skip=_SKIP_COPY)
        _copy_tree(src, tmp / "tests" / "task" / task.task_id)
        original: dict[str, Any] = {}
        toml_path = src / "task.toml"
        if toml_path.is_file():
            try:
                original = tomllib.loads(toml_path.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise TaskError(f"not valid TOML: {exc}", path=toml_path) from None
        (tmp / "task.toml").write_text(task_toml(original, task, opts), encoding="utf-8")
        instruction = task.instruction if task.instruction.strip() else (src / "instruction.md").read_text("utf-8")
        if OUTPUT_PATH not in instruction:
            instruction = instruction.rstrip("\n") + output_note(task.author)
        (tmp / "instruction.md").write_text(instruction, encoding="utf-8")
        env_dir = tmp / "environment"
        env_dir.mkdir(exist_ok=True)
        if opts.wheel is not None:
            shutil.copyfile(opts.wheel, env_dir / opts.wheel.name)
        (env_dir / "Dockerfile").write_text(
            dockerfile(task.task_id, opts, has_skills=(env_dir / "skills").is_dir()), encoding="utf-8")
        script = tmp / "tests" / "test.sh"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(verifier_script(task.task_id, opts.judges), encoding="utf-8")
        script.chmod(0o755)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def export_harbor(tasks: Iterable[Any], out: str | Path, opts: ExportOptions | None = None) -> list[Path]:
    """Export every task as a Harbor task directory under ``out`` (a Harbor dataset)."""
    opts = opts or ExportOptions()
    if opts.wheel is not None and not opts.wheel.is_file():
        raise ConfigError("wheel not found", path=opts.wheel)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return [export_task(task, out, opts) for task in tasks]


# ============================================================================ verify
@dataclass(frozen=True)
class VerifyOutcome:
    status: str
    reward: float | None
    grade_path: Path
    reward_path: Path | None


def _atomic_write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    os.replace(tmp, path)


def verify(
    task_dir: str | Path,
    output: str | Path,
    logs: str | Path,
    *,
    judges: str = "panel",
    model: str | None = None,
    trial: int = 1,
    judge_api_base: str | None = None,
) -> VerifyOutcome:
    """Grade ``output`` for the task in ``task_dir``; write Harbor's reward and our grade.json.

    A gate failure is a graded 0 (reward written). Judging that could not finish is *not* a 0:
    grade.json records it and no reward file is written, so Harbor reports the trial as failed
    instead of averaging a fake score.
    """
    import asyncio

    from ..judge import create_judges, grade_trial

    task = load_single_task(task_dir)
    logs = Path(logs)
    logs.mkdir(parents=True, exist_ok=True)
    output = Path(output)
    panel = create_judges(judges, api_base=judge_api_base)
    model = model or os.environ.get("REDLINEBENCH_MODEL") or "harbor-agent"
    # trial_dir=logs: grade_trial writes grade.json, annotated_view.md and judges/*.json there.
    grade = asyncio.run(grade_trial(task, output, panel, model=model, trial=trial, run_dir=None, cache=False,
                                    trial_dir=logs))
    if output.is_file():
        _atomic_write(logs / "redline.docx", output.read_bytes())
    grade_path = logs / "grade.json"
    if grade.status in ("graded", "gate_failed"):
        reward_path = logs / "reward.txt"
        _atomic_write(reward_path, f"{float(grade.weighted):.6f}\n")
        return VerifyOutcome(grade.status, float(grade.weighted), grade_path, reward_path)
    (logs / "reward.txt").unlink(missing_ok=True)
    return VerifyOutcome(grade.status, None, grade_path, None)


# ============================================================================ import
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


@dataclass
class ImportReport:
    imported: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)      # already imported (same Harbor trial)
    errored: list[str] = field(default_factory=list)      # imported as errored rows
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


def read_trial(trial_dir: Path) -> HarborTrial:
    result = _load_json_file(trial_dir / "result.json")
    if not isinstance(result, Mapping):
        raise HarborError("trial result.json is not an object", path=trial_dir / "result.json")
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
        exception = f"{exc.get('exception_type') or 'error'}: {exc.get('exception_message') or ''}".strip()
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
        data = _load_json_file(result)
        if _is_trial_result(data):
            found.append(result.parent)
    if not found:
        raise HarborError("no Harbor trials (no */result.json with a task_name) found", path=jobs_dir)
    return found


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
    from ..runner.paths import slug

    jobs_dir, run_dir = Path(jobs_dir), Path(run_dir)
    trials = [read_trial(p) for p in find_trials(jobs_dir)]
    report = ImportReport()
    trials_root = run_dir / "trials"

    # What earlier imports already brought in: Harbor trial path -> our trial dir.
    known: dict[str, Path] = {}
    taken: dict[tuple[str, str], set[int]] = defaultdict(set)
    for src in trials_root.glob("*/*/*/harbor/source.json"):
        info = _load_json_file(src)
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
            _import_one(trial, dest, number, report)
    run_dir.mkdir(parents=True, exist_ok=True)
    _write_import_config(run_dir, jobs_dir, source)
    if summarize:
        report.summary_path = write_summary(run_dir)
    return report


def _write_import_config(run_dir: Path, jobs_dir: Path, source: str | None) -> None:
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
        from ..runner.record import data_record
        from ..tasks import load_tasks

        taskset = load_tasks(source)
        ids = sorted({d.name for d in (run_dir / "trials").glob("*/*") if d.is_dir()})
        unknown = [i for i in ids if i not in taskset]
        if unknown:
            raise HarborError(f"imported trials of tasks not in {taskset.source.describe()}: {', '.join(unknown[:5])}"
                              + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""), path=run_dir)
        cfg["data"] = data_record(taskset, [taskset.get(i) for i in ids])
        cfg["source"] = {"kind": cfg["data"]["kind"], "path": cfg["data"]["path"]}
    cfg.setdefault("source", {"kind": "harbor"})
    _atomic_write(path, json.dumps(cfg, indent=2) + "\n")


def _import_one(trial: HarborTrial, dest: Path, number: int, report: ImportReport) -> None:
    tmp = dest.with_name(f".{dest.name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "harbor").mkdir(parents=True)
    try:
        grade = None
        problem = trial.grade_problem
        if trial.grade is not None:
            grade = dict(trial.grade)
            grade["model"] = trial.model   # the container did not know which model it graded
            grade["trial"] = number
            grade.setdefault("task_id", trial.task_id)
            problem = _grade_problem(grade, trial.path / "verifier" / "grade.json")
            if problem:
                grade = None
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
        agent_result = trial.result.get("agent_result") if isinstance(trial.result.get("agent_result"), Mapping) else {}
        metrics = {
            "source": "harbor", "agent": trial.agent, "started_at": trial.result.get("started_at"),
            "finished_at": trial.result.get("finished_at"), "exception": trial.exception,
            **{k: v for k, v in agent_result.items() if k.startswith("n_") or k.startswith("cost")},
        }
        _atomic_write(tmp / "metrics.json", json.dumps(metrics, indent=2) + "\n")
        shutil.copyfile(trial.path / "result.json", tmp / "harbor" / "result.json")
        if (trial.path / "agent").is_dir():
            _copy_tree(trial.path / "agent", tmp / "harbor" / "agent")
        _atomic_write(tmp / "harbor" / "source.json",
                      json.dumps({"trial_path": str(trial.path.resolve()), "trial_name": trial.name}) + "\n")
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    report.imported.append(dest)


def _grade_problem(grade: dict[str, Any], where: Path) -> str | None:
    """Why ``grade`` cannot be read by the scoring reader (None when it can)."""
    from ..scoring import TrialGrade

    try:
        TrialGrade.from_dict(grade, source=str(where))
    except RedlineBenchError as exc:
        return str(exc)
    return None


def write_summary(run_dir: Path) -> Path:
    """Recompute ``metrics_summary.json`` from every grade.json of the run."""
    from ..scoring import summarize

    grades = [_load_json_file(p) for p in sorted((run_dir / "trials").glob("*/*/*/grade.json"))]
    summary = summarize(grades)
    path = run_dir / "metrics_summary.json"
    _atomic_write(path, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    return path


__all__ = [
    "APP_DIR",
    "OUTPUT_PATH",
    "VERIFIER_LOGS",
    "ExportOptions",
    "HarborError",
    "HarborTrial",
    "ImportReport",
    "VerifyOutcome",
    "export_harbor",
    "export_task",
    "find_trials",
    "import_harbor",
    "read_trial",
    "verify",
    "write_summary",
]
