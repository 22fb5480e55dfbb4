"""``redlinebench score | summarize | judge check``: thin wiring over judge/ and scoring/."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import click
from .._termtable import echo, print_message

from .._atomic import atomic_write_json
from ..errors import ConfigError, JudgeError, RedlineBenchError
from ._options import RUN_DIR
from .tasks import SOURCE_METAVAR

REDLINE = "redline.docx"
GRADE = "grade.json"
METRICS = "metrics.json"
SUMMARY = "metrics_summary.json"
#: Where ``score --rejudge`` grades trials that already have a final grade, before swapping them in
#: (a hidden folder: summarize and the run's own staging never read it).
REJUDGE_STAGING = ".rejudge"


def _atomic_json(path: Path, data: Any) -> None:
    atomic_write_json(path, data, allow_nan=False)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read JSON: {exc}", path=path) from None


def _slug(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


# ---------------------------------------------------------------- summarize
def collect_grade_files(dirs: list[Path]) -> list[Path]:
    """Every grade.json below the given directories (or the files themselves), each once, sorted.

    Runs' staging areas (``.partial``) are skipped; a directory given twice, or inside another
    one given, is read once (paths are deduplicated by their real location).
    """
    found: set[str] = set()
    for d in dirs:
        if d.is_file():
            found.add(os.path.realpath(d))
        elif not d.is_dir():
            raise ConfigError("no such directory", path=d)
    found.update(os.path.realpath(os.path.join(top, GRADE)) for top, files in _walk(dirs) if GRADE in files)
    return [Path(p) for p in sorted(found)]


def _walk(dirs: list[Path]):
    """(folder, file names) below each directory of ``dirs`` by real location, hidden folders
    (staging: .partial, .rejudge; caches) left out. Symlinked folders are followed (each real
    folder once, so a link loop ends)."""
    seen: set[str] = set()
    for d in dirs:
        if d.is_dir():
            for top, subdirs, files in os.walk(os.path.realpath(d), followlinks=True):
                real = os.path.realpath(top)
                if real in seen:
                    subdirs[:] = []
                    continue
                seen.add(real)
                subdirs[:] = [s for s in subdirs if not s.startswith(".")]
                yield real, files


def episodes_without_grade(dirs: list[Path]) -> list[tuple[Path, dict[str, Any] | None]]:
    """(folder, its metrics.json when it is a trial's, else None) for every folder below ``dirs``
    with an episode but no grade.json, each once: one walk and one read that summarize's
    selection, counts and errored rows all use."""
    from ..runner.store import read_metrics

    out = []
    for top, files in _walk(dirs):  # _walk yields each real folder once
        if METRICS in files and GRADE not in files:
            data = read_metrics(Path(top))
            trial = isinstance(data.get("model"), str) and isinstance(data.get("task_id"), str)
            out.append((Path(top), data if trial else None))
    return out


def _kept(episodes: list[tuple[Path, dict[str, Any] | None]], keep: set[Path] | None) -> list[dict[str, Any]]:
    """The trials' metrics among ``episodes`` (only the folders in ``keep``, when given)."""
    return [data for folder, data in episodes if data is not None and (keep is None or folder in keep)]


def ungraded_episodes(episodes: list[tuple[Path, dict[str, Any] | None]],
                      keep: set[Path] | None = None) -> dict[str, int]:
    """``{model: n}`` of the trials among ``episodes`` (:func:`episodes_without_grade`), only
    those in ``keep`` when given.

    summarize reads grades only; an errored or not yet graded trial would otherwise vanish from
    its table without a word (SPEC §5: never silently dropped).
    """
    counts: dict[str, int] = {}
    for data in _kept(episodes, keep):
        counts[data["model"]] = counts.get(data["model"], 0) + 1
    return counts


def errored_episode_grades(episodes: list[tuple[Path, dict[str, Any] | None]],
                           keep: set[Path] | None = None) -> list[Any]:
    """An ``errored`` grade for each trial among ``episodes`` (in ``keep``, when given) whose
    agent errored (it has metrics.json, no grade.json): the summary then lists its model, with "-"
    where nothing was scored, and counts the trial as incomplete, as `run` does. Only a task name
    that says its side qualifies."""
    from ..scoring import GradeFileError, TrialGrade

    grades = []
    for data in _kept(episodes, keep):
        if data.get("status") != "errored":
            continue
        error = " ".join(str(data.get("error") or "").split())[:300]
        try:
            grades.append(TrialGrade.from_dict({
                "task_id": data["task_id"], "model": data["model"], "trial": data.get("trial", 1),
                "status": "errored", "judge_method": "none", "score": {"weighted": 0.0},
                "gate": {"passed": False, "reason": "the agent produced no document"},
                "errors": [f"agent error: {error}"]}))
        except GradeFileError:
            continue  # a task name without a known side: counted in the warning only
    return grades


def arena_audit_only(grade: Any) -> bool:
    """An arena move after the first: audited, never judged against rubrics (SPEC §8.2), so not a task's score."""
    return bool(grade.extra.get("arena_move")) and grade.judge_method == "audit"


def load_grades(files: list[Path], *, skip_invalid: bool = False) -> tuple[list[Any], list[str]]:
    """The grades of *files*, without arena moves that were only audited (they carry no rubric score)."""
    from ..scoring import GradeFileError, TrialGrade

    grades, problems = [], []
    for f in files:
        try:
            grade = TrialGrade.read(f)
        except GradeFileError as exc:
            if not skip_invalid:
                raise
            problems.append(str(exc))
            continue
        if not arena_audit_only(grade):
            grades.append(grade)
    return grades, problems


def _console() -> Any:
    """A rich console; wide when output is not a terminal, so piped tables are not squeezed."""
    import sys

    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=160)


def print_summary(summary: dict[str, Any]) -> None:
    from ..runner.leaderboard import print_leaderboard

    from ._pairwise_table import print_pairwise

    console = _console()
    print_leaderboard(summary, console)
    print_pairwise(summary, console)
    if summary["n_incomplete"]:
        print_message(console, f"{summary['n_incomplete']} trial(s) not scored (judging incomplete or errored); "
                      "listed under 'incomplete' in the summary", style="yellow")
    if summary["judge_method"] in ("heuristic", "mixed"):
        print_message(console, "heuristic judge: these numbers are an approximation and must not be published",
                      style="red")
    for w in summary.get("warnings", []):
        print_message(console, f"warning: {w}", style="yellow")


# ---------------------------------------------------------------- score
def _run_config(run_dir: Path) -> dict[str, Any]:
    data = _read_json(run_dir / "config.json")
    return data if isinstance(data, dict) else {}


def _config_source(cfg: dict[str, Any], run_dir: Path) -> str | None:
    """The run's task source as ``load_tasks`` takes it (config.json records folders relative to the run)."""
    from ..runner.api import recorded_source

    source = recorded_source(cfg, run_dir)
    spec_source = (cfg.get("spec") or {}).get("source")
    return source or (spec_source if isinstance(spec_source, str) else None)


def _model_labels(cfg: dict[str, Any]) -> dict[str, str]:
    labels = list(cfg.get("models") or [])
    for e in (cfg.get("spec") or {}).get("entrants", []) or []:
        if isinstance(e, dict) and e.get("label"):
            labels.append(e["label"])
    return {_slug(str(m)): str(m) for m in labels}


def require_run_dir(run_dir: Path) -> None:
    """Refuse a folder that holds no run, before anything is written into it (the run lock)."""
    if not (run_dir / "trials").is_dir():
        raise RedlineBenchError("not a run directory (no trials/ inside)", path=run_dir)


def find_trials(run_dir: Path) -> list[tuple[str, str, int, Path]]:
    """(model_slug, task_id, trial, dir) for every trial directory of a run."""
    require_run_dir(run_dir)
    trials_root = run_dir / "trials"
    out = []
    for model_dir in sorted(p for p in trials_root.iterdir() if p.is_dir()):
        for task_dir in sorted(p for p in model_dir.iterdir() if p.is_dir()):
            for trial_dir in sorted(p for p in task_dir.iterdir() if p.is_dir()):
                if trial_dir.name.isdigit() and ((trial_dir / REDLINE).exists() or (trial_dir / METRICS).exists()
                                                 or (trial_dir / GRADE).exists()):
                    out.append((model_dir.name, task_dir.name, int(trial_dir.name), trial_dir))
    return out


def _final_grade(tdir: Path) -> bool:
    """Whether ``tdir`` holds a grade.json that reads as a grade and has a final status (a damaged
    one is never worth keeping over a new grade)."""
    from ..runner.store import grade_is_final
    from ..scoring import GradeFileError, TrialGrade

    try:
        return grade_is_final({"status": TrialGrade.read(tdir / GRADE).status})
    except (GradeFileError, OSError):
        return False


def _install_grade(staged: Path, tdir: Path) -> None:
    """Move a staged grade (grade.json, judges/, annotated_view.md) over the trial's old one.

    grade.json goes last, so an interruption leaves the old grade in force, never half of each.
    """
    judges_dir = tdir / "judges"
    if (staged / "judges").is_dir():
        old = tdir / ".judges.old"
        shutil.rmtree(old, ignore_errors=True)
        if judges_dir.exists():
            os.replace(judges_dir, old)
        os.replace(staged / "judges", judges_dir)
        shutil.rmtree(old, ignore_errors=True)
    else:
        shutil.rmtree(judges_dir, ignore_errors=True)  # the new grade asked no judge (gate failed)
    view = tdir / "annotated_view.md"
    if (staged / view.name).is_file():
        os.replace(staged / view.name, view)
    elif view.exists():
        view.unlink()
    os.replace(staged / GRADE, tdir / GRADE)


def _unfinished(status: str, tdir: Path, metrics: Any) -> bool:
    """A grade whose judging did not finish: a judge never answered, or grading itself failed on a
    document that exists. (An agent that errored produced nothing to grade: ``run --resume``.)"""
    from ..runner.store import grade_is_final

    if grade_is_final({"status": status}):
        return False
    agent_errored = isinstance(metrics, dict) and metrics.get("status") == "errored"
    return status == "judging_incomplete" or ((tdir / REDLINE).is_file() and not agent_errored)


async def score_run(run_dir: Path, *, judges_spec: str | None, concurrency: int, use_cache: bool, rejudge: bool,
                    source: str | None, api_base: str | None, timeout: float | None,
                    echo=echo, key_check: bool = False, kept_out: list[str] | None = None) -> dict[str, Any]:
    from ..judge import AuditLog, JudgeCache, audit_section, create_judges, grade_trial
    from ..runner.store import grade_is_final, read_metrics
    from ..scoring import GradeFileError, TrialGrade, summarize
    from ..tasks import load_tasks

    cfg = _run_config(run_dir)
    recorded = (cfg.get("judges") or {}).get("spec") or (cfg.get("spec") or {}).get("judges")
    if isinstance(recorded, str) and recorded.strip().lower() == "none":
        recorded = None  # the run skipped grading; scoring it now means the default panel
    if isinstance(recorded, str):
        from ..runner.api import stored_path

        recorded = stored_path(recorded, run_dir)  # a panel file recorded relative to the run
    spec = judges_spec or recorded or "panel"
    # The judges' endpoint, never the model's (spec.api_base is where the agents were served).
    api_base = api_base or (cfg.get("spec") or {}).get("judge_api_base")
    judges = create_judges(spec, api_base=api_base, timeout=timeout)
    if not judges:
        raise ConfigError("--judges none grades nothing; pick panel, heuristic, a model list or a YAML file")
    src = source or _config_source(cfg, run_dir)
    trials = find_trials(run_dir)
    graded_tasks = {task_id for _, task_id, _, _ in trials}
    # a broken task this run never ran does not stop grading the ones it did
    taskset = load_tasks(src, unused=lambda name: name not in graded_tasks)
    tasks = {t.task_id: t for t in taskset.tasks}
    labels = _model_labels(cfg)
    todo, unknown = [], []
    for model_slug, task_id, trial, tdir in trials:
        if task_id not in tasks:
            unknown.append(f"{model_slug}/{task_id}/{trial}")
            continue
        metrics = read_metrics(tdir) or None  # damaged: warned below, the output is still graded
        if metrics is None and (tdir / METRICS).exists():
            echo(f"warning: {tdir / METRICS}: unreadable; the trial's output is graded all the same", err=True)
        if (tdir / GRADE).exists() and not rejudge:
            try:
                old = TrialGrade.read(tdir / GRADE)
            except GradeFileError as exc:  # a damaged grade is graded again, not kept or fatal
                echo(f"warning: {exc}; grading this trial again", err=True)
            else:
                if not _unfinished(old.status, tdir, metrics):
                    continue
        label = labels.get(model_slug) or (metrics or {}).get("model") or model_slug
        todo.append((str(label), tasks[task_id], trial, tdir))
    if unknown:
        echo(f"warning: {len(unknown)} trial(s) name a task missing from the data source and were not graded: "
             + ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else ""), err=True)
    if key_check and todo:
        from ..runner.preflight import check_credentials

        check_credentials([], judges, api_base=None, judge_api_base=api_base)
    cache = JudgeCache() if use_cache else None
    audit = AuditLog(run_dir / "judge_audit.jsonl")
    limiter = asyncio.Semaphore(max(1, concurrency))
    trial_gate = asyncio.Semaphore(max(1, concurrency))
    counts = {"graded": 0, "gate_failed": 0, "judging_incomplete": 0, "errored": 0}

    progress = _progress(len(todo))

    kept: list[str] = []

    async def one(label: str, task: Any, trial: int, tdir: Path) -> None:
        async with trial_gate:
            output = tdir / REDLINE
            # A final grade is replaced only by another final one: --rejudge against a judge that
            # is down must not turn a complete grade into an incomplete one.
            staged = _final_grade(tdir) and run_dir / REJUDGE_STAGING / tdir.relative_to(run_dir / "trials")
            if staged:
                shutil.rmtree(staged, ignore_errors=True)
                staged.mkdir(parents=True)
            grade = await grade_trial(task, output if output.exists() else None, judges, model=label, trial=trial,
                                      cache=cache if cache is not None else False, trial_dir=staged or tdir,
                                      limiter=limiter, audit=audit)
            if staged:
                if grade_is_final({"status": grade.status}):
                    _install_grade(staged, tdir)
                else:
                    kept.append(f"{label} {task.task_id} trial {trial}")
                shutil.rmtree(staged, ignore_errors=True)
            counts[grade.status] += 1
            progress.advance(grade.status)

    try:
        await asyncio.gather(*(one(*t) for t in todo))
    finally:
        progress.close()
    outcome = ", ".join(f"{k} {v}" for k, v in counts.items() if v)
    echo(f"graded {len(todo)} trial(s) of {len(trials)} in {run_dir} with {', '.join(j.name for j in judges)}"
         + (f": {outcome}" if outcome else " (nothing left to grade)"), err=True)
    if kept:
        echo(f"warning: judging did not finish for {len(kept)} trial(s) that already had a complete grade; "
             f"their previous grade is kept: {', '.join(kept[:5])}" + (" ..." if len(kept) > 5 else ""), err=True)
    if kept_out is not None:
        kept_out.extend(kept)
    shutil.rmtree(run_dir / REJUDGE_STAGING, ignore_errors=True)
    files = collect_grade_files([run_dir / "trials"])
    grades, _ = load_grades(files)
    summary = summarize([*grades, *errored_episode_grades(episodes_without_grade([run_dir / "trials"]))])
    summary["judge_calls"] = audit_section([run_dir / "judge_audit.jsonl"], grades)  # each call once
    if unknown:
        summary["warnings"].append(f"{len(unknown)} trial(s) not graded: task not in the data source")
    run_section = _run_section(run_dir, files)
    if run_section is not None:
        summary["run"] = run_section
    _atomic_json(run_dir / SUMMARY, summary)
    return summary


def _run_section(run_dir: Path, files: list[Path]) -> dict[str, Any] | None:
    """The ``run`` section `redlinebench run` wrote (what was planned, errors, cost), kept across a
    re-score with its grade counts brought up to date."""
    import time

    from ..runner.paths import slug

    try:
        previous = _read_json(run_dir / SUMMARY)
    except ConfigError:  # a damaged summary is simply replaced
        previous = None
    section = previous.get("run") if isinstance(previous, dict) else None
    if not isinstance(section, dict):
        return None
    graded = {(p.parent.parent.parent.name, p.parent.parent.name, p.parent.name) for p in files}

    def still_missing(row: Any) -> bool:
        if not isinstance(row, dict):
            return True
        return (slug(str(row.get("model"))), str(row.get("task_id")), str(row.get("trial"))) not in graded

    section = dict(section)
    section["n_grades"] = len(files)
    section["not_graded"] = [r for r in section.get("not_graded") or [] if still_missing(r)]
    section["rescored"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return section


def _rewrite_report(run_dir: Path) -> Path | None:
    """report.html again, so the page shows the new grades; a failure costs only the page."""
    if not (run_dir / "config.json").is_file():
        return None
    try:
        from ..report import write_run_report

        return Path(write_run_report(run_dir))
    except Exception as exc:  # noqa: BLE001  the grades and the summary are already written
        echo(f"warning: report.html was not rewritten ({type(exc).__name__}: {exc})", err=True)
        return None


class _progress:
    """A progress bar on an interactive stderr; silent otherwise (logs and tests stay clean)."""

    def __init__(self, total: int) -> None:
        import sys

        self._bar = None
        if total and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress

            self._bar = Progress(console=Console(stderr=True), transient=True)
            self._task = self._bar.add_task("grading", total=total)
            self._bar.start()

    def advance(self, status: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=1, description=f"grading (last: {status})")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


# ---------------------------------------------------------------- registration
def register(main: click.Group) -> None:
    @main.command("score")
    @click.argument("run_dir", type=RUN_DIR)
    @click.option("--judges", "judges_spec", default=None,
                  help="panel | heuristic | a,b,c (litellm models) | path/name of a YAML panel. "
                       "Default: the run's own judge spec, else panel (also for a run made with --judges none).")
    @click.option("--concurrency", default=8, show_default=True, type=click.IntRange(1, 1024),
                  help="Judge calls in flight at once.")
    @click.option("--no-cache", is_flag=True, help="Call the judges even when a cached verdict exists.")
    @click.option("--rejudge", is_flag=True,
                  help="Grade every trial again, not only those without a final grade.json.")
    @click.option("--source", default=None, metavar=SOURCE_METAVAR,
                  help="Task source (default: the one recorded in config.json).")
    @click.option("--judge-api-base", "--api-base", "api_base", default=None, metavar="URL",
                  help="OpenAI-compatible endpoint for every litellm judge (as `run --judge-api-base`; "
                       "--api-base is the same).")
    @click.option("--timeout", default=None, type=click.FloatRange(1), help="Seconds per judge call (default 120).")
    @click.option("--skip-key-check", is_flag=True,
                  help="Do not require each judge's provider key up front (providers that authenticate another way).")
    def score_cmd(run_dir: Path, judges_spec: str | None, concurrency: int, no_cache: bool, rejudge: bool,
                  source: str | None, api_base: str | None, timeout: float | None, skip_key_check: bool) -> None:
        """Grade a run's trials (gate, judges, reward) and write metrics_summary.json.

        Grades every trial that has an output and no grade.json yet, and finishes trials whose
        judging was incomplete (a judge never answered); --rejudge grades every trial again.
        Verdicts are cached on disk, so re-scoring an unchanged run costs nothing and only the
        judges that failed are called again. Exits 1 while any trial's judging is still incomplete.
        """
        from ..runner.lock import hold, release

        from .runs import refuse_folder_of_runs

        refuse_folder_of_runs(run_dir, "score")
        require_run_dir(run_dir)
        lock = hold(run_dir)  # a run still writing trials here would race with this grading
        try:
            kept: list[str] = []
            summary = asyncio.run(score_run(run_dir, judges_spec=judges_spec, concurrency=concurrency, kept_out=kept,
                                            use_cache=not no_cache, rejudge=rejudge, source=source,
                                            api_base=api_base, timeout=timeout, key_check=not skip_key_check))
        finally:
            release(lock)
        print_summary(summary)
        echo(f"wrote {run_dir / SUMMARY}")
        report = _rewrite_report(run_dir)
        if report is not None:
            echo(f"report: {report}")
        from ..runner.leaderboard import judging_incomplete, judging_incomplete_lines

        unjudged = judging_incomplete(summary)
        for line in judging_incomplete_lines(unjudged):
            echo(line)
        if unjudged:
            # as `run` does: a script must not take a score with trials left out for a usable one
            echo(f"error: judging is still incomplete for {len(unjudged)} trial(s), so they are not in the "
                 f"score; fix the cause and run `redlinebench score {run_dir}` again", err=True)
            raise SystemExit(1)
        if kept:
            # the table still holds those trials' previous grades (maybe by other judges): not the re-grade asked for
            echo(f"error: the re-grade did not finish for {len(kept)} trial(s), whose previous grades are kept "
                 f"and still in the score; fix the cause and run `redlinebench score {run_dir} --rejudge` "
                 f"again", err=True)
            raise SystemExit(1)

    @main.command("summarize")
    @click.argument("dirs", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
    @click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
                  help="Write metrics_summary.json here.")
    @click.option("--skip-invalid", is_flag=True,
                  help="List unreadable grade files as warnings instead of stopping at the first.")
    @click.option("--json", "as_json", is_flag=True, help="Print the summary JSON instead of a table.")
    @click.option("--all-runs", is_flag=True,
                  help="Count every run found. By default, when several runs graded the same model on the same "
                       "task (a demo run twice), only the newest run's trials of it count, and a note names the "
                       "runs left out.")
    def summarize_cmd(dirs: tuple[Path, ...], output: Path | None, skip_invalid: bool, as_json: bool,
                      all_runs: bool) -> None:
        """Summarize every grade.json below DIRS (recursively) into one leaderboard (redline_overall, CI, per turn/side/category).

        A model's task graded by several runs counts from the newest of them (see --all-runs).
        """
        from collections import Counter

        from ..judge import audit_logs_for, audit_section
        from ..runner.history import left_out_line, newest_run_per_task
        from ..scoring import summarize

        files = collect_grade_files(list(dirs))
        episodes = episodes_without_grade(list(dirs))
        if not files and not ungraded_episodes(episodes):
            raise RedlineBenchError(f"no grade.json found below {', '.join(str(d) for d in dirs)}")
        keep, left_out = None, []
        if not all_runs:
            keep, left_out = newest_run_per_task({f.parent for f in files} | {folder for folder, _ in episodes})
            files = [f for f in files if f.parent in keep]
        grades, problems = load_grades(files, skip_invalid=skip_invalid)
        errored = errored_episode_grades(episodes, keep)
        summary = summarize([*grades, *errored])
        summary["judge_calls"] = audit_section(audit_logs_for(files), grades)  # each call once
        summary["warnings"].extend(f"skipped unreadable grade: {p}" for p in problems)
        if left_out:
            summary["left_out_runs"] = [x.to_dict() for x in left_out]
        listed = Counter(g.model for g in errored)
        for model, n in sorted(ungraded_episodes(episodes, keep).items()):
            if n > listed[model]:
                summary["warnings"].append(
                    f"{model}: {n - listed[model]} trial(s) have an episode but no grade.json (not graded yet: "
                    f"`redlinebench score RUN_DIR`), so they are not in this summary")
        if output is not None:
            _atomic_json(output, summary)
        note = left_out_line(left_out)
        if as_json:
            click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
            if note:
                echo(note, err=True)
        else:
            print_summary(summary)
            if note:
                _console().print(note, markup=False, highlight=False)
            if output is not None:
                echo(f"wrote {output}")

    @main.group("judge")
    def judge_group() -> None:
        """Judges: measure them against known verdicts."""

    @judge_group.command("check")
    @click.option("--judges", "judges_spec", default="heuristic", show_default=True,
                  help="panel | heuristic | a,b,c (litellm models) | path/name of a YAML panel.")
    @click.option("--source", default=None, metavar=SOURCE_METAVAR,
                  help="Task source with judge-check cases (default: the embedded set).")
    @click.option("--tasks", "task_ids", default=None, help="Comma-separated task ids to check (default: all).")
    @click.option("--concurrency", default=8, show_default=True, type=click.IntRange(1, 1024),
                  help="Judge calls in flight at once.")
    @click.option("--no-cache", is_flag=True, help="Call the judges even when a cached verdict exists.")
    @click.option("--judge-api-base", "--api-base", "api_base", default=None, metavar="URL",
                  help="OpenAI-compatible endpoint for every litellm judge (as `run --judge-api-base`; "
                       "--api-base is the same).")
    @click.option("--timeout", default=None, type=click.FloatRange(1), help="Seconds per judge call (default 120).")
    @click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
                  help="Write the full report (with every verdict) as JSON here.")
    @click.option("--skip-key-check", is_flag=True,
                  help="Do not require each judge's provider key up front (providers that authenticate another way).")
    def judge_check_cmd(judges_spec: str, source: str | None, task_ids: str | None, concurrency: int,
                        no_cache: bool, api_base: str | None, timeout: float | None, output: Path | None,
                        skip_key_check: bool) -> None:
        """Run judges over the judge-check set (golden, null and perturbed redlines with known verdicts).

        Reports per judge and for the panel: accuracy, Cohen's kappa, false PASS and false FAIL
        rates, by rubric verb and by category.
        """
        from ..judge import JudgeCache, create_judges
        from ..judge._check import run_check
        from ..tasks import load_tasks

        judges = create_judges(judges_spec, api_base=api_base, timeout=timeout)
        if not skip_key_check:
            from ..runner.preflight import check_credentials

            check_credentials([], judges, api_base=None, judge_api_base=api_base)
        if output is not None:  # before the judges are paid: a report that cannot be written is lost
            output.parent.mkdir(parents=True, exist_ok=True)
            if output.is_dir() or not os.access(output.parent, os.W_OK):
                raise ConfigError("cannot write the report here", path=output)
        tasks = load_tasks(source).tasks
        if task_ids:
            wanted = {t.strip() for t in task_ids.split(",") if t.strip()}
            missing = wanted - {t.task_id for t in tasks}
            if missing:
                raise ConfigError(f"unknown task id(s): {', '.join(sorted(missing))}")
            tasks = [t for t in tasks if t.task_id in wanted]
        report = asyncio.run(run_check(tasks, judges, concurrency=concurrency,
                                       cache=None if no_cache else JudgeCache()))
        if not report["n_cases"]:
            raise ConfigError("no judge-check cases found (tests/judge_check/expected.json) in the chosen tasks")
        failures = report["judge_failures"]
        if failures and not any(r.get("n") for r in report["results"].values()):
            first = failures[0]
            raise JudgeError(f"every judge call failed ({len(failures)}), e.g. judge {first['judge']} on "
                             f"{first['task_id']}: {' '.join(str(first['error']).split())}")
        if output is not None:
            _atomic_json(output, report)
        print_check(report)
        if output is not None:
            echo(f"wrote {output}")


def print_check(report: dict[str, Any]) -> None:
    from .._termtable import Col, print_fitted

    console = _console()

    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    judge = Col("judge", "left", shrink=True, min_width=14)
    rates = (Col("n"), Col("accuracy", short="acc"), Col("kappa"), Col("false PASS", short="false P"),
             Col("false FAIL", short="false F"))
    print_fitted(console, (judge, *rates, Col("core-verb accuracy", short="core verbs")),
                 [[name, str(r["n"]), f(r["accuracy"]), f(r["kappa"]), f(r["false_pass_rate"]),
                   f(r["false_fail_rate"]), f(r["core_verbs"]["accuracy"])] for name, r in report["results"].items()],
                 title=f"Judge check: {report['n_cases']} redlines of {report['n_tasks']} tasks")
    for section in ("by_verb", "by_category"):
        rows = [[name, key, str(s["n"]), f(s["accuracy"]), f(s["kappa"]), f(s["false_pass_rate"]),
                 f(s["false_fail_rate"])]
                for name, r in report["results"].items() for key, s in r[section].items()]
        print_fitted(console, (judge, Col(section[3:], "left", shrink=True, min_width=12), *rates), rows,
                     title=section.replace("_", " "))
    if report["judge_failures"]:
        print_message(console, f"{len(report['judge_failures'])} judge call(s) failed; their cases are missing "
                      "from that judge's numbers", style="yellow")
    if report["skipped_cases"]:
        print_message(console, f"{len(report['skipped_cases'])} case file(s) could not be opened", style="yellow")
    from ..judge import near_miss_lines

    for line in near_miss_lines(report):  # counted FAIL by the rule: the judge's wording, not the redline
        print_message(console, line, style="yellow")
