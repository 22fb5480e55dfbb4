"""``redlinebench reproduce`` (and the ``redlinebench-reproduce`` script): any Harbor agent on any Harbor
environment in one command, with the public release's flags."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from .tasks import SOURCE_METAVAR


@click.command("reproduce")
@click.option("--agent", required=True, metavar="NAME", help="Harbor agent: claude-code, codex, opencode, "
              "terminus-2, oracle (the golden redlines), ...")
@click.option("--model", default=None, metavar="MODEL", help="The agent's model, e.g. anthropic/claude-opus-4-8.")
@click.option("--task", "task_ids", multiple=True, metavar="ID", help="Only this task (repeatable).")
@click.option("--tasks", "tasks_csv", default=None, metavar="IDS", help="Comma-separated task ids (ours).")
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N selected tasks (ours).")
@click.option("--source", default=None, metavar=SOURCE_METAVAR, help="Task source (default as `run`).")
@click.option("--n-concurrent", type=click.IntRange(1), default=4, show_default=True,
              help="Trials Harbor runs at once.")
@click.option("--env", "env", default="docker", show_default=True, metavar="ENV",
              help="Harbor environment: docker (local), modal, daytona, e2b, runloop, ...")
@click.option("--env-file", type=click.Path(path_type=Path, dir_okay=False, exists=True), default=None,
              help="A .env file with the keys (agent, judges, cloud environment); Harbor loads it too.")
@click.option("--agent-env", "agent_env", multiple=True, metavar="KEY=VALUE",
              help="Environment variable for the agent (repeatable).")
@click.option("--ak", "agent_kwargs", multiple=True, metavar="KEY=VALUE",
              help="Agent keyword argument for Harbor (repeatable, ours), e.g. api_base=http://host:8000/v1.")
@click.option("--workdir", type=click.Path(path_type=Path, file_okay=False), default=Path("redlinebench-reproduce"),
              show_default=True, help="Export, Harbor jobs and (by default) results; the same workdir resumes.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Our run directory: metrics_summary.json, report.html, trials [WORKDIR/results].")
@click.option("--baseline", type=click.Path(path_type=Path, dir_okay=False, exists=True), default=None,
              help="A metrics_summary.json (ours or the public release's) to print a delta table against.")
@click.option("--judges", default="panel", show_default=True, metavar="SPEC", help="Judges the verifier uses.")
@click.option("--skill/--no-skill", default=True, show_default=True,
              help="Ship the contract-redliner skill (Harbor copies it to the agent's skills folder).")
@click.option("--mcp/--no-mcp", default=False, show_default=True,
              help="Install the MCP extra and serve the redlining tools to MCP-taking agents.")
@click.option("--harbor", "harbor_cli", default=None, metavar="PATH",
              help="The harbor CLI [$REDLINEBENCH_HARBOR, else harbor on PATH].")
@click.option("--base-image", default="python:3.11-slim", show_default=True, help="Image the tasks build FROM.")
@click.option("--wheelhouse", type=click.Path(path_type=Path, file_okay=False, exists=True), default=None,
              help="Wheels of the dependencies: images build offline (see `export harbor`).")
@click.option("--dry-run", is_flag=True, help="Check and show what would run; build and run nothing.")
def reproduce_cmd(agent: str, model: str | None, task_ids: tuple[str, ...], tasks_csv: str | None,
                  limit: int | None, source: str | None, n_concurrent: int, env: str, env_file: Path | None,
                  agent_env: tuple[str, ...], agent_kwargs: tuple[str, ...], workdir: Path, out: Path | None,
                  baseline: Path | None, judges: str, skill: bool, mcp: bool, harbor_cli: str | None,
                  base_image: str, wheelhouse: Path | None, dry_run: bool) -> None:
    """Run a Harbor agent on the benchmark, grade, summarize and compare: one command.

    Exports the tasks (the agent's image holds the contract, the tools and the skill, never a rubric
    or a golden), runs `harbor run`, imports the job, writes metrics_summary.json and report.html
    into --out and prints the leaderboard. Run again with the same --workdir: it resumes where it
    stopped and pays for nothing twice.

    \b
      redlinebench-reproduce --agent claude-code \\
        --model anthropic/claude-opus-4-8 --n-concurrent 8
      redlinebench-reproduce --agent oracle --model oracle \\
        --task redline-s1-t1-g01a --judges heuristic
    """
    from ..errors import ConfigError
    from ..integrations.harbor import _reproduce as rp

    ids = tuple(task_ids) + tuple(t.strip() for t in (tasks_csv or "").split(",") if t.strip())
    opts = rp.ReproduceOptions(agent=agent, model=model, task_ids=ids, source=source, limit=limit, judges=judges,
                               n_concurrent=n_concurrent, env=env, env_file=env_file, agent_env=agent_env,
                               agent_kwargs=agent_kwargs, workdir=workdir, out=out, skill=skill, mcp=mcp,
                               base_image=base_image, wheelhouse=wheelhouse, harbor=harbor_cli)
    base = rp.read_baseline(baseline) if baseline is not None else None
    problems = rp.preflight(opts)
    if problems:
        for line in problems:
            click.echo(f"error: {line}", err=True)
        sys.exit(2)
    if dry_run:
        tasks = rp.select_tasks(opts)
        manifest = rp.export_manifest(tasks, opts)
        harbor = rp.harbor_executable(opts, rp.host_env(opts)) or "harbor"
        click.echo(f"{len(tasks)} task(s) would be exported to {opts.tasks_dir}")
        click.echo("would run: " + shlex.join(rp.harbor_command(harbor, opts, rp.job_name(opts, manifest))))
        click.echo(f"then import into {opts.run_dir}")
        return
    try:
        result = rp.reproduce(opts)
    except rp.PreflightError as exc:  # the environment changed between the check and the run
        for line in exc.problems:
            click.echo(f"error: {line}", err=True)
        sys.exit(2)
    click.echo(f"export: {opts.tasks_dir} ({'reused' if result.reused_export else 'written'})")
    click.echo(f"harbor job: {result.job_dir} ({'ran' if result.harbor_ran else 'complete already: nothing run'})")
    click.echo(f"imported {result.imported} new trial(s) into {result.run_dir}")
    for note in result.notes:
        click.echo(f"warning: {note}", err=True)
    if result.summary_path is None:
        raise ConfigError("no summary was written (no graded trial)")
    summary = json.loads(result.summary_path.read_text(encoding="utf-8"))
    from .scoring import print_summary

    print_summary(summary)
    click.echo(f"summary: {result.summary_path}")
    if result.report_path is not None:
        click.echo(f"report: {result.report_path}")
    if base is not None:
        _print_delta(rp.baseline_delta(summary, base), baseline)


def _print_delta(rows: list[dict[str, Any]], baseline: Path | None) -> None:
    from rich.console import Console
    from rich.table import Table

    if not rows:
        click.echo(f"baseline {baseline}: no model in common with this run (and more than one model in it)")
        return
    table = Table(title=f"against {baseline}")
    for col in ("model", "metric", "ours", "baseline", "delta"):
        table.add_column(col, justify="left" if col in ("model", "metric") else "right")
    for r in rows:
        name = r["model"] if r["model"] == r["baseline_model"] else f"{r['model']} vs {r['baseline_model']}"
        table.add_row(name, r["metric"], f"{r['ours']:.1f}", f"{r['baseline']:.1f}", f"{r['delta']:+.1f}")
    Console(width=160 if not sys.stdout.isatty() else None).print(table)


def standalone() -> None:
    """The ``redlinebench-reproduce`` console script: ``redlinebench reproduce`` with the same flags."""
    from . import main

    main.main(args=["reproduce", *sys.argv[1:]], prog_name="redlinebench")


def register(main: click.Group) -> None:
    main.add_command(reproduce_cmd)
