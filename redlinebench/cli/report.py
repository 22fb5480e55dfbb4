"""``redlinebench report RUN_DIR`` and ``redlinebench compare RUN_DIR... -o compare.html``."""

from __future__ import annotations

from pathlib import Path

import click
from .._termtable import echo

from ._options import RUN_DIR


def register(main: click.Group) -> None:
    main.add_command(report_cmd)
    main.add_command(compare_cmd)


@click.command("report")
@click.argument("run_dir", type=RUN_DIR)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="Where to write the page (default: RUN_DIR/report.html).")
@click.option("--pack/--no-pack", default=None,
              help="Store the documents compressed, expanded by the page when opened (default: only when the page "
                   "would exceed 8 MB).")
@click.option("--open", "open_page", is_flag=True, help="Open the page in the default web browser.")
def report_cmd(run_dir: Path, output: Path | None, pack: bool | None, open_page: bool) -> None:
    """Regenerate RUN_DIR/report.html from the run's files, without re-running or re-judging anything.

    The page is one self-contained HTML file (no network): headline redline_overall with its 95% CI,
    charts by turn, side, scenario and rubric category, a task table, every rubric with each judge's
    verdict and reason, and each redline beside the attorney's golden. `redlinebench runs` lists
    the runs; `--open` shows the page in the browser. An arena run directory (arena_summary.json)
    gets its arena.html instead.
    """
    from ..report import write_arena_report, write_run_report
    from .run import shown_path
    from .runs import refuse_folder_of_runs

    if (run_dir / "arena_summary.json").is_file():
        path = Path(write_arena_report(run_dir, output))
        echo(f"arena report: {shown_path(path)}")
        if open_page:
            open_in_browser(path)
        return
    refuse_folder_of_runs(run_dir, "report")
    path = Path(write_run_report(run_dir, output, pack=pack))
    echo(f"report: {shown_path(path)}")
    if open_page:
        open_in_browser(path)


def open_in_browser(page: Path) -> bool:
    """Show ``page`` in the default browser; where there is none (a server over SSH), say so and
    give its address to open elsewhere. Returns whether a browser took it."""
    import webbrowser

    uri = Path(page).resolve().as_uri()
    try:
        opened = webbrowser.open(uri)
    except webbrowser.Error:
        opened = False
    if not opened:
        echo(f"no web browser found here; open {uri} in one (or copy {Path(page).resolve()} "
             "to a machine that has one)")
    return opened


@click.command("compare")
@click.argument("run_dirs", nargs=-1, required=True, type=RUN_DIR)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Where to write the dashboard [compare.html beside the first run, e.g. runs/compare.html; "
                   "not the working folder].")
@click.option("--open", "open_page", is_flag=True, help="Open the page in the default web browser.")
def compare_cmd(run_dirs: tuple[Path, ...], output: Path | None, open_page: bool) -> None:
    """Compare the models of one or more runs in one self-contained HTML dashboard.

    Leaderboard with confidence intervals, scenario x turn heatmap per model, per-rubric pass heatmap
    across models, category profile, score against cost, and judge agreement.
    """
    from ..report import write_comparison
    from .run import shown_path
    from .runs import refuse_folder_of_runs

    for run_dir in run_dirs:
        refuse_folder_of_runs(run_dir, "compare")
    if output is None:  # with the runs it compares (runs/), not wherever the shell happens to be
        output = Path(run_dirs[0]).resolve().parent / "compare.html"
    replaced = output.exists()
    path = Path(write_comparison(list(run_dirs), output))
    echo(f"comparison: {shown_path(path)}" + (" (replaced the previous one)" if replaced else ""))
    if open_page:
        open_in_browser(path)
