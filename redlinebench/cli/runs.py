"""``redlinebench runs [DIR]``: the past runs in a folder, newest first, one row each."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click
from .._termtable import echo

from ..errors import RedlineBenchError


def register(main: click.Group) -> None:
    main.add_command(runs_cmd)


def default_runs_folder() -> Path:
    """Where ``run`` and ``demo`` put a run when no --run-dir is given (``runs/`` here)."""
    from ..runner.api import DEFAULT_RUNS

    return DEFAULT_RUNS


@click.command("runs")
@click.argument("folder", required=False, type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON (one object per folder).")
def runs_cmd(folder: Path | None, as_json: bool) -> None:
    """List the runs in FOLDER (default: runs/, where `run` and `demo` write), newest first.

    One row per run: its folder, the models, the headline redline_overall with its 95% CI (the first
    model's when a run has several, listed best first), its status (complete, partial N/M, failed,
    running N/M, interrupted N/M: `run --resume` continues it), the planned trials, when it started
    and the judge. A folder that is not a readable run is listed as `unreadable: why`. Open a run's
    report with `redlinebench report RUN --open`.
    """
    from ..runner.history import list_runs

    if folder is None:
        folder = default_runs_folder()
        if not folder.is_dir():  # nothing typed was wrong: there is no run here yet
            raise RedlineBenchError("no such folder; `redlinebench run` and `redlinebench demo` write their runs "
                                    "there when started from this folder, or name another: `redlinebench runs "
                                    "FOLDER`", path=folder)
    from ..runner.history import is_foreign

    runs = list_runs(folder)
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in runs], indent=2, ensure_ascii=False))
        return
    if all(is_foreign(r) for r in runs):  # a folder of the user's own folders: no run, nothing broken
        held = f" (its {len(runs)} folder(s) hold no run)" if runs else ""
        echo(f"no runs in {_shown(folder)}{held}; start one with `redlinebench demo`")
        return
    _print_runs(folder, runs)
    newest = next((r for r in runs if r.status != "unreadable"), None)
    if newest is not None:
        echo(f"open a report: redlinebench report {_shown(newest.path)} --open")


def refuse_folder_of_runs(folder: Path, command: str) -> None:
    """``report runs/`` (the folder the runs are in, not one run): say so and name the commands
    that take it, rather than 'not a run directory'."""
    from ..runner import paths
    from ..runner.history import age_key

    folder = Path(folder)
    if (folder / paths.CONFIG).is_file() or (folder / "trials").is_dir():
        return
    try:
        inside = sorted((p for p in folder.iterdir() if p.is_dir() and (p / paths.CONFIG).is_file()), key=age_key)
    except OSError:
        return
    if inside:
        raise RedlineBenchError(f"a folder of {len(inside)} run(s), not a run: `redlinebench runs {_shown(folder)}` "
                                f"lists them; `redlinebench {command} {_shown(inside[-1])}` takes one (the newest)",
                                path=folder)


def _shown(path: Path) -> str:
    """A run folder as the user would type it: relative to here when it is below, else absolute."""
    full = Path(path).resolve()
    try:
        return str(full.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(full)


def _local_time(created: str | None) -> str:
    """config.json's UTC stamp in local time, to the minute."""
    if not created:
        return "-"
    try:
        stamp = time.strptime(created, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return created
    import calendar

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(calendar.timegm(stamp)))


def _print_runs(folder: Path, runs: list[Any]) -> None:
    from rich.console import Console

    from .._termtable import Col, print_fitted

    # At 80 columns: the run id whole (a default id is 27 characters and says when), the headline and
    # one model per line, each whole where it can be; the judge, start time, trial count and then the
    # interval make room for them; a long status wraps.
    cols = (Col("run", "left", shrink=True, min_width=30), Col("models", "left", shrink=True, min_width=10),
            Col("redline_overall", short="overall"), Col("95% CI", drop=1), Col("status", "left", shrink=True),
            Col("trials", drop=2, short="n"), Col("started", "left", drop=3), Col("judge", "left", drop=4))
    rows, bad = [], []
    for r in runs:
        if r.status == "unreadable":
            bad.append(r)
            continue
        score = "-" if r.redline_overall is None else f"{r.redline_overall:.1f}"
        ci = "-" if r.ci is None else f"{r.ci[0]:.1f}-{r.ci[1]:.1f}"
        trials = "-" if r.n_planned is None else str(r.n_planned)
        rows.append([r.name, "\n".join(r.models) or "-", score, ci, r.status_text, trials,
                     _local_time(r.created), r.judge_method or "-"])
    console = Console()
    if rows:
        print_fitted(console, cols, rows, title=f"{_shown(folder).rstrip('/')}/ (newest first)", more="--json has all")
        if any(len(r.models) > 1 for r in runs):
            echo("a run of several models shows the first one's score (models best first)")
    for r in runs:
        for line in _what_next(r):
            echo(f"{r.name}: {line}")
    for r in bad:
        echo(f"{_shown(r.path)}: {r.status_text}")


def _what_next(run: Any) -> list[str]:
    """What keeps a run from complete, and the command that continues it."""
    where = _shown(run.path)
    lines = []
    if run.stopped:
        lines.append(f"stopped early: {run.stopped}")
    if run.status == "interrupted" or run.n_errored:
        what = "interrupted" if run.status == "interrupted" else f"{run.n_errored} trial(s) errored"
        lines.append(f"{what}; continue with `redlinebench run --resume --run-dir {where}`")
    if run.n_unjudged:
        lines.append(f"{run.n_unjudged} trial(s) wait for a judge; `redlinebench score {where}` finishes them")
    return lines
