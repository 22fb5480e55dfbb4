"""Past runs in a folder: what each one is (models, headline, status, size, date), and which run is
the newest for each model and task.

``redlinebench runs`` lists them; ``summarize`` counts a model's task once when a run was repeated
(two demos in ``runs/`` are one demo graded twice, not 2 trials of each task). Every folder is read
as it is on disk: a damaged or foreign folder is described, never raised.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from ..scoring import redline_overall
from . import paths
from .atomic import read_json
from .lock import held_elsewhere


@dataclass(frozen=True)
class RunInfo:
    """One folder of a runs folder, as ``redlinebench runs`` shows it.

    ``status``: ``complete`` (every planned trial has a final grade), ``partial`` (some do not:
    errored, stopped early, judging incomplete), ``failed`` (none does), ``running`` (a process
    holds the run's lock), ``interrupted`` (stopped before its summary was written: ``run --resume``
    continues), ``not graded`` (run with ``--judges none``) or ``unreadable`` (``error`` says why).
    ``redline_overall`` and ``ci`` are the first model's in leaderboard order (0-100).
    """

    path: Path
    run_id: str                     # config.json's (the folder's name when it does not say)
    status: str
    models: tuple[str, ...] = ()
    redline_overall: float | None = None
    ci: tuple[float, float] | None = None
    judge_method: str | None = None
    n_done: int | None = None
    n_planned: int | None = None
    created: str | None = None
    error: str | None = None
    n_errored: int = 0              # trials whose agent errored (`run --resume` runs them again)
    n_unjudged: int = 0             # trials a judge never answered (`score` finishes them)
    stopped: str | None = None      # why the run stopped early, when it did

    @property
    def status_text(self) -> str:
        """``complete``, ``partial 30/39``, ``running 4/39``, ``unreadable: why``..."""
        if self.status == "unreadable":
            return f"unreadable: {self.error}"
        if self.status == "complete" or self.n_done is None or self.n_planned is None:
            return self.status
        return f"{self.status} {self.n_done}/{self.n_planned}"

    @property
    def name(self) -> str:
        """The folder's name: what commands take (``report runs/NAME``), even for a copied run."""
        return Path(self.path).name

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.name, "run_id": self.run_id, "path": str(Path(self.path).resolve()),
                "status": self.status, "models": list(self.models),
                "redline_overall": self.redline_overall, "ci": list(self.ci) if self.ci else None,
                "judge_method": self.judge_method, "n_done": self.n_done, "n_planned": self.n_planned,
                "created": self.created, "error": self.error, "n_errored": self.n_errored,
                "n_unjudged": self.n_unjudged, "stopped": self.stopped}


#: ``RunInfo.error`` of a folder without config.json.
NOT_A_RUN = "no config.json: not a run folder"


def list_runs(folder: Path) -> list[RunInfo]:
    """Every folder inside ``folder`` (hidden ones aside), newest first, unreadable ones last; or
    ``folder`` alone when it is itself a run."""
    folder = Path(folder)
    if (folder / paths.CONFIG).is_file():
        return [read_run(folder)]
    found = [read_run(p) for p in sorted(folder.iterdir()) if p.is_dir() and not p.name.startswith(".")]
    readable = sorted((r for r in found if r.status != "unreadable"), key=lambda r: age_key(r.path, r.created),
                      reverse=True)
    return readable + [r for r in found if r.status == "unreadable"]


def is_foreign(info: RunInfo) -> bool:
    """A folder with nothing of a run (no config.json, no trials/, no runs inside): a user's ``src/``."""
    return info.error == NOT_A_RUN and not (info.path / "trials").is_dir()


def read_run(run_dir: Path) -> RunInfo:
    """What ``run_dir`` holds, from its config.json and metrics_summary.json (never raises)."""
    run_dir = Path(run_dir)
    name = run_dir.name
    config_path = run_dir / paths.CONFIG
    if not config_path.is_file():
        inside = sum(1 for p in _dirs(run_dir) if (p / paths.CONFIG).is_file())
        if inside:  # runs kept in subfolders (runs/exp1/<run>)
            return RunInfo(run_dir, name, "unreadable", error=f"a folder of {inside} run(s), not a run: "
                                                              f"`redlinebench runs {run_dir}` lists them")
        return RunInfo(run_dir, name, "unreadable", error=NOT_A_RUN)
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
        if not isinstance(config, dict):
            return RunInfo(run_dir, name, "unreadable", error="config.json is not a JSON object")
        return _described(run_dir, config)
    except UnicodeDecodeError:
        return RunInfo(run_dir, name, "unreadable", error="config.json is not UTF-8 text")
    except json.JSONDecodeError as exc:
        return RunInfo(run_dir, name, "unreadable",
                       error=f"config.json is damaged (not JSON at line {exc.lineno} column {exc.colno})")
    except (AttributeError, TypeError, ValueError) as exc:  # fields of the wrong shape
        return RunInfo(run_dir, name, "unreadable", error=f"config.json or metrics_summary.json has an unexpected "
                                                          f"shape ({type(exc).__name__}: {exc})")
    except OSError as exc:
        return RunInfo(run_dir, name, "unreadable", error=f"{exc.strerror or exc}")


def _described(run_dir: Path, config: dict[str, Any]) -> RunInfo:
    spec = config.get("spec") if isinstance(config.get("spec"), dict) else {}
    run_id = str(config.get("run_id") or run_dir.name)
    created = started(run_dir, config)
    planned = _planned(config, spec)
    base: dict[str, Any] = {"path": run_dir, "run_id": run_id, "created": created, "n_planned": planned,
                            "models": tuple(str(m) for m in config.get("models") or ())}
    graded = str(spec.get("judges") or "").strip().lower() != "none"
    if held_elsewhere(run_dir):
        return RunInfo(status="running", n_done=count_episodes(run_dir, graded=graded), **base)
    summary_path = run_dir / paths.SUMMARY
    summary = read_json(summary_path) if summary_path.exists() else None
    if summary_path.exists() and not isinstance(summary, dict):
        return RunInfo(status="unreadable", error="metrics_summary.json is damaged (`redlinebench score "
                                                  f"{run_dir}` writes it again)", **base)
    if summary is None:
        return RunInfo(status="interrupted" if graded else "not graded",
                       n_done=count_episodes(run_dir, graded=graded), **base)
    section = summary.get("run") if isinstance(summary.get("run"), dict) else {}
    planned = section.get("n_planned") if isinstance(section.get("n_planned"), int) else planned
    done = int(summary.get("n_trials") or 0)
    entries = [e for e in summary.get("leaderboard") or [] if isinstance(e, dict)]
    models = tuple(str(e.get("model")) for e in entries) or base["models"]
    if not done:
        status = "failed"
    elif planned is not None:
        status = "complete" if done >= planned else "partial"
    else:  # a run of another tool (import harbor): complete when nothing it holds is incomplete
        status = "partial" if summary.get("n_incomplete") else "complete"
    statuses = [i.get("status") for i in summary.get("incomplete") or [] if isinstance(i, dict)]
    score, ci = _headline(entries[0]) if entries else (None, None)
    return RunInfo(**{**base, "models": models, "n_planned": planned}, status=status, n_done=done,
                   redline_overall=score, ci=ci, judge_method=summary.get("judge_method"),
                   n_errored=statuses.count("errored"), n_unjudged=statuses.count("judging_incomplete"),
                   stopped=str(section["stopped"]) if section.get("stopped") else None)


def _planned(config: dict[str, Any], spec: dict[str, Any]) -> int | None:
    """Entrants x tasks x trials as config.json records them (None when it does not say)."""
    entrants, trials = spec.get("entrants"), spec.get("trials")
    n_tasks = (config.get("data") or {}).get("n_tasks") if isinstance(config.get("data"), dict) else None
    if isinstance(entrants, list) and isinstance(trials, int) and isinstance(n_tasks, int):
        return len(entrants) * n_tasks * trials
    return None


def _headline(entry: dict[str, Any]) -> tuple[float | None, tuple[float, float] | None]:
    """``redline_overall`` and its CI on the 0-100 scale, from a leaderboard entry."""
    value = entry.get("overall_turn_weighted")
    if not isinstance(value, (int, float)):
        return None, None
    ci = entry.get("ci")
    shown = None
    if isinstance(ci, list) and len(ci) == 2 and all(isinstance(x, (int, float)) for x in ci):
        shown = (redline_overall(ci[0]), redline_overall(ci[1]))
    return redline_overall(value), shown


def count_episodes(run_dir: Path, *, graded: bool = False) -> int:
    """Trial folders of the run whose episode finished (metrics.json in ``trials/``); ``graded``:
    those graded too (grade.json), the trials the progress bar counts as done in a judged run (an
    episode still waiting for its judges is work a resume does)."""
    root = Path(run_dir) / paths.TRIALS
    if not root.is_dir():
        return 0
    done = paths.GRADE if graded else paths.METRICS
    return sum(1 for model in _dirs(root) for task in _dirs(model) for trial in _dirs(task)
               if trial.name.isdigit() and (trial / done).is_file())


def _dirs(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        return []


def started(run_dir: Path, config: dict[str, Any] | None = None) -> str:
    """When the run began (config.json's ``created``, UTC), else its config file's time: runs sort by it."""
    if config is None:
        config = read_json(Path(run_dir) / paths.CONFIG)
    created = config.get("created") if isinstance(config, dict) else None
    if isinstance(created, str) and created:
        return created
    try:
        stamp = os.stat(Path(run_dir) / paths.CONFIG).st_mtime
    except OSError:
        return ""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def age_key(run_dir: Path, created: str | None = None) -> tuple[str, int, str]:
    """Orders runs oldest to newest: by start time, then (two runs in one second) by when their
    config.json was written, then by name."""
    try:
        written = os.stat(Path(run_dir) / paths.CONFIG).st_mtime_ns
    except OSError:
        written = 0
    return (created if created is not None else started(run_dir), written, Path(run_dir).name)


def run_of_trial(trial_dir: Path) -> Path | None:
    """The run folder of a trial folder laid out as ``RUN/trials/<model>/<task>/<k>``, else None."""
    parents = Path(trial_dir).parents
    if len(parents) > 3 and parents[2].name == paths.TRIALS:
        return parents[3]
    return None


@dataclass(frozen=True)
class LeftOut:
    """An older run whose trials a newer run of the same model and task replaces."""

    run_dir: Path
    n_trials: int
    models: tuple[str, ...]
    newer: tuple[Path, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"run_dir": str(self.run_dir), "n_trials": self.n_trials, "models": list(self.models),
                "replaced_by": [str(p) for p in self.newer]}


def newest_run_per_task(trial_dirs: Iterable[Path]) -> tuple[set[Path], list[LeftOut]]:
    """Of trial folders from several runs, those to count: for each (model, task), the trials of the
    newest run that has it. A run repeated (two demos) counts once; a grid split over runs (one
    scenario each) counts whole; a trial outside the run layout is always kept.

    Returns the kept folders and, per older run with trials left out, how many and why.
    """
    by_key: dict[tuple[str, str], dict[Path, list[Path]]] = {}
    kept: set[Path] = set()
    for trial in trial_dirs:
        trial = Path(trial)
        run = run_of_trial(trial)
        if run is None:
            kept.add(trial)
            continue
        key = (trial.parent.parent.name, trial.parent.name)  # (model folder, task folder)
        by_key.setdefault(key, {}).setdefault(run, []).append(trial)
    order = {run: age_key(run) for runs in by_key.values() for run in runs}
    dropped: dict[Path, tuple[list[Path], set[str], set[Path]]] = {}
    for (model, _task), runs in by_key.items():
        newest = max(runs, key=lambda r: order[r])
        kept.update(runs[newest])
        for run, trials in runs.items():
            if run != newest:
                entry = dropped.setdefault(run, ([], set(), set()))
                entry[0].extend(trials)
                entry[1].add(model)
                entry[2].add(newest)
    left_out = [LeftOut(run, len(trials), tuple(sorted(models)), tuple(sorted(newer)))
                for run, (trials, models, newer) in sorted(dropped.items(), key=lambda kv: order[kv[0]], reverse=True)]
    return kept, left_out


def left_out_line(left_out: list[LeftOut], *, limit: int = 3) -> str | None:
    """One line naming the older runs ``summarize`` did not count (None when there are none)."""
    if not left_out:
        return None
    n = sum(x.n_trials for x in left_out)
    # each run with its own count: a run a newer one repeats in part still counts for the rest
    names = ", ".join(f"{x.run_dir.name} ({x.n_trials})" for x in left_out[:limit])
    more = f" and {len(left_out) - limit} more" if len(left_out) > limit else ""
    newer = "a newer run repeats" if len({p for x in left_out for p in x.newer}) == 1 else "newer runs repeat"
    return (f"left out {n} trials that {newer}: {names}{more}; the newest run of each model and task counts "
            "(--all-runs counts every run)")
