"""``redlinebench push|export|import|verify|lighteval``: the ecosystem bridges, thin wrappers over
:mod:`redlinebench.integrations`. Heavy libraries load inside the commands."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click
from .._termtable import echo

from .. import config
from ._options import SCENARIO, SIDE, TURN, tasks_option
from .tasks import SOURCE_METAVAR


def _group(main: click.Group, name: str, help_text: str) -> click.Group:
    """Reuse a group another family already registered under ``name`` instead of replacing it."""
    existing = main.commands.get(name)
    if isinstance(existing, click.Group):
        return existing
    group = click.Group(name=name, help=help_text)
    main.add_command(group)
    return group


# ----------------------------------------------------------------------------- push
@click.command("results")
@click.argument("target", type=click.Path(path_type=Path))
@click.option("--model-repo", required=True, metavar="ORG/MODEL", help="Model repo that receives the result.")
@click.option("--model", "model", default=None, help="Which model of the summary (needed when it holds several).")
@click.option("--dataset-repo", default=config.HUB_DATASET_ID, show_default=True, metavar="ID",
              help="Benchmark dataset the score refers to.")
@click.option("--revision", default=None, metavar="SHA",
              help="Dataset revision the run used (default: the one its Hub source recorded; none for a "
                   "local or embedded tree).")
@click.option("--source-url", default=None, help="Link to logs or a report for this result.")
@click.option("--source-name", default=None, help="Display name of --source-url.")
@click.option("--create-pr", is_flag=True, help="Open a pull request instead of committing to main.")
@click.option("--force", is_flag=True, help="Publish even heuristic-judge / incomplete / partial results, or trials the integrity audit "
                   "failed or flagged.")
@click.option("--dry-run", is_flag=True, help="Show the files and YAML; contact nothing.")
def push_results(target: Path, model_repo: str, model: str | None, dataset_repo: str, revision: str | None,
                 source_url: str | None, source_name: str | None, create_pr: bool, force: bool, dry_run: bool) -> None:
    """Publish redline_overall from RUN_DIR or metrics_summary.json as .eval_results/redlinebench.yaml."""
    from ..integrations import hub

    existing: list = []
    token = None
    if not dry_run:
        token = hub.resolve_token()
        existing = hub.fetch_existing_results(model_repo, token=token)
    plan, problems = hub.plan_results_push(
        target, model_repo=model_repo, model=model, dataset_id=dataset_repo, revision=revision,
        source_url=source_url, source_name=source_name, create_pr=create_pr, force=force, existing=existing,
    )
    for problem in problems:
        echo(f"warning: {problem} (forced)", err=True)
    if dry_run:
        echo("dry run: nothing was sent")
        echo(plan.describe())
        return
    outcome = hub.execute(plan, token=token)
    if not outcome.changed:
        echo(f"nothing changed: {model_repo} already has this {hub.RESULTS_PATH} "
             f"(no commit{', no pull request' if create_pr else ''})")
        return
    echo(f"pushed {hub.RESULTS_PATH} to {model_repo}: {outcome.pr_url or outcome.commit_url}")


@click.command("dataset")
@click.option("--repo", "repo_id", required=True, metavar="ORG/NAME", help="Dataset repo to create or update.")
@click.option("--from", "export_dir", type=click.Path(path_type=Path), default=None,
              help="A directory written by `dataset export --include-tree` (default: export the selected "
                   "task source now).")
@click.option("--source", default=None, metavar=SOURCE_METAVAR,
              help="Task source to export when --from is not given.")
@click.option("--create-pr", is_flag=True, help="Open a pull request instead of committing to main.")
@click.option("--private", is_flag=True, help="Create the repo as private.")
@click.option("--dry-run", is_flag=True, help="List the files that would be uploaded; contact nothing.")
def push_dataset(repo_id: str, export_dir: Path | None, source: str | None, create_pr: bool, private: bool,
                 dry_run: bool) -> None:
    """Upload the exported dataset (parquet index, card, eval.yaml, task tree) to the Hub."""
    import tempfile

    from ..integrations import hub

    with tempfile.TemporaryDirectory(prefix="redlinebench-export-") as tmp:
        if export_dir is None:
            export_dir = _export_dataset(source, Path(tmp) / "export")
        plan = hub.plan_dataset_push(export_dir, repo_id=repo_id, create_pr=create_pr, private=private)
        if dry_run:
            echo("dry run: nothing was sent")
            echo(plan.describe())
            return
        outcome = hub.execute(plan)
    if not outcome.changed:
        echo(f"nothing changed: dataset {repo_id} already has these {outcome.n_files} files "
             f"(no commit{', no pull request' if create_pr else ''})")
        return
    echo(f"pushed {outcome.n_files} files to dataset {repo_id}: {outcome.pr_url or outcome.commit_url}")


def _export_dataset(source: str | None, out: Path) -> Path:
    """Export ``source`` (parquet index, card, eval.yaml and the task tree) like `redlinebench dataset export`."""
    from ..dataset import export_dataset

    export_dataset(source, out, include_tree=True)
    return out


# ----------------------------------------------------------------------------- harbor
@click.command("harbor")
@click.option("--out", "out", type=click.Path(path_type=Path), required=True, help="Directory for the Harbor tasks.")
@click.option("--source", default=None, metavar=SOURCE_METAVAR,
              help="Task source (default as `run`).")
@tasks_option("export")
@click.option("--scenario", "scenarios", multiple=True, type=int, help="Only these scenarios (repeatable).")
@click.option("--turn", "turns", multiple=True, type=int, help="Only these turns (repeatable).")
@click.option("--wheel", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="A redlinebench wheel to copy into every environment and install from "
                   "(default: a wheel built from the source checkout this redlinebench runs from).")
@click.option("--package-spec", default=None, metavar="SPEC",
              help="pip requirement to install instead of a wheel, for a redlinebench published to your own "
                   "index (it is not on PyPI).")
@click.option("--wheelhouse", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="A directory of wheels for redlinebench's dependencies (`pip download -d DIR WHEEL`), copied "
                   "into every environment: the image then installs offline (pip --no-index).")
@click.option("--judges", default="panel", show_default=True, help="Judge spec the verifier uses.")
@click.option("--base-image", default="python:3.11-slim", show_default=True,
              help="Docker image the Harbor environment is built from: any image with python3 and its venv "
                   "module (e.g. your registry mirror's python:3.11-slim).")
@click.option("--overwrite", is_flag=True, help="Replace task directories that already exist.")
@click.option("--skill/--no-skill", default=True, show_default=True,
              help="Ship the contract-redliner skill (task.toml skills_dir).")
@click.option("--mcp", is_flag=True, help="Install the MCP extra and serve the tools (/app/.mcp.json, task.toml).")
def export_harbor_cmd(out: Path, source: str | None, tasks: str | None, scenarios: tuple[int, ...],
                      turns: tuple[int, ...], wheel: Path | None, package_spec: str | None, wheelhouse: Path | None,
                      judges: str, base_image: str, overwrite: bool, skill: bool, mcp: bool) -> None:
    """Write runnable Harbor tasks whose tests/test.sh calls `redlinebench verify`.

    redlinebench is not on PyPI, so each task's environment/Dockerfile installs it from a wheel
    copied next to it: --wheel, or by default one built from the source checkout this redlinebench
    runs from (pip wheel --no-deps --no-build-isolation, offline). Running from an installed wheel,
    pass --wheel PATH or --package-spec SPEC.
    """
    from ..errors import ConfigError
    from ..integrations.harbor import ExportOptions, export_harbor, lint_command
    from ..tasks import load_tasks

    if wheel is not None and package_spec is not None:
        raise ConfigError("use either --wheel or --package-spec, not both")
    task_ids = [t.strip() for t in (tasks or "").split(",") if t.strip()]
    if tasks is not None and not task_ids:
        raise ConfigError(f"--tasks {tasks!r} names no task id; leave it out to export every task")
    tasks = load_tasks(source).filter(task_ids or None, scenario=scenarios or None, turn=turns or None)
    if not len(tasks):
        raise ConfigError("no task matches the filters: nothing to export")
    opts = ExportOptions(package_spec=package_spec, wheel=wheel, wheelhouse=wheelhouse, judges=judges,
                         base_image=base_image, overwrite=overwrite, skill=skill, mcp=mcp)
    written = export_harbor(tasks, out, opts)
    echo(f"exported {len(written)} Harbor task(s) to {out}")
    if wheel is None and not package_spec:
        built = sorted(p.name for p in (written[0] / "environment").glob("*.whl")) if written else []
        if built:
            echo(f"each environment installs {built[0]}, built from this redlinebench's source checkout")
    echo(f"check them with: {lint_command(out)}")
    echo(f"run them with: harbor run -p {shlex.quote(str(out))} -a <agent> -m <model>")


@click.command("harbor")
@click.argument("jobs_dir", type=click.Path(path_type=Path))
@click.option("--run-dir", type=click.Path(path_type=Path), required=True, help="Our run directory to fill.")
@click.option("--source", default=None, metavar=SOURCE_METAVAR,
              help="Task source the Harbor tasks were exported from (recorded; enables goldens in the report, and "
                   "the integrity audit of grades whose verifier predates it).")
@click.option("--no-summary", is_flag=True, help="Do not recompute metrics_summary.json.")
def import_harbor_cmd(jobs_dir: Path, run_dir: Path, source: str | None, no_summary: bool) -> None:
    """Turn Harbor job trials into a redlinebench run directory (summarize and reports then work)."""
    from ..integrations.harbor import import_harbor

    report = import_harbor(jobs_dir, run_dir, source=source, summarize=not no_summary)
    echo(f"imported {len(report.imported)} trial(s) into {run_dir}"
         + (f", {len(report.skipped)} already present" if report.skipped else ""))
    if report.audited:
        echo(f"integrity audit: {len(report.audited)} trial(s) were graded by a verifier without it and were "
             "audited on import against the task inputs")
    if report.unaudited:
        echo(f"warning: {len(report.unaudited)} trial(s) were graded by a verifier without the integrity audit "
             "and are not audited (pass --source with the task set they were exported from)", err=True)
    for line in report.errored:
        echo(f"warning: errored trial kept as an errored row: {line}", err=True)
    if report.summary_path is not None:
        echo(f"summary: {report.summary_path}")


@click.command("outputs")
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--label", required=True, metavar="NAME",
              help="Name of the imported system: the model column of the leaderboard and trials/<NAME>/.")
@click.option("--source", metavar=SOURCE_METAVAR, help="The task set the redlines answer (as `run --source`).")
@tasks_option("grade")
@click.option("--scenario", type=SCENARIO, help="Only this scenario.")
@click.option("--turn", type=TURN, help="Only this turn.")
@click.option("--side", type=SIDE, help="Only tasks of this side: A or B.")
@click.option("--judges", metavar="SPEC", default="panel", show_default=True,
              help="panel, heuristic (offline, unpublishable), a comma list of litellm models, or a YAML file.")
@click.option("--judge-api-base", metavar="URL", help="OpenAI-compatible endpoint for the judges.")
@click.option("--run-dir", type=click.Path(path_type=Path), help="Run directory [runs/import-<label>-<time>].")
@click.option("--partial", is_flag=True, help="Grade only the selected tasks that have a file (the summary "
              "then says which scenario x turn cells are missing) instead of scoring a task with no file 0.")
@click.option("--concurrency", "-j", type=click.IntRange(1, 1024), default=4, show_default=True,
              help="Trials graded at once.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option("--skip-key-check", is_flag=True, help="Do not check the judges' provider credentials first.")
def import_outputs_cmd(folder: Path, label: str, source: str | None, tasks: str | None, scenario: int | None,
                       turn: int | None, side: str | None, judges: str, judge_api_base: str | None,
                       run_dir: Path | None, partial: bool, concurrency: int, no_progress: bool,
                       skip_key_check: bool) -> None:
    """Grade a folder of redlines made by any tool, exactly as a run grades its agents' redlines.

    \b
    FOLDER/<task_id>.docx            one trial per task, or
    FOLDER/<task_id>/<trial>.docx    trials 1, 2, ... of a task

    A selected task with no file is a gate failure ("no output", reward 0) unless --partial. Files
    that match no selected task are listed and ignored. `run --resume --run-dir` or `score` finish
    judging that did not complete. The redlines carry no transcript and no cost.
    """
    from rich.console import Console

    from ..errors import ConfigError
    from ..runner import TaskFilter, import_outputs
    from .run import _finish, _interrupted

    ids = tuple(t.strip() for t in (tasks or "").split(",") if t.strip())
    if tasks is not None and not ids:
        raise ConfigError(f"--tasks {tasks!r} names no task id; leave it out to grade every task")
    if source and Path(source).expanduser().exists():
        source = str(Path(source).expanduser().resolve())
    target = run_dir
    try:
        done = import_outputs(folder, label, run_dir=run_dir, source=source,
                              filter=TaskFilter(task_ids=ids, scenario=scenario, turn=turn, side=side), judges=judges,
                              partial=partial, concurrency=concurrency, judge_api_base=judge_api_base,
                              progress=not no_progress, check_keys=not skip_key_check)
    except KeyboardInterrupt:
        _interrupted(Path(target or "runs"))
    n_files = sum(len(v) for v in done.scan.found.values())
    echo(f"imported {n_files} file(s) for {len(done.scan.found)} task(s) from {folder} as {label!r}")
    for line in done.ignored:
        echo(f"  ignored: {line}")
    for line in done.unusable:
        echo(f"  unusable: {line}")
    if done.missing:
        echo(f"  no output (gate failure, reward 0): {', '.join(done.missing)}")
    if done.left_out:
        echo(f"  left out (--partial): {', '.join(done.left_out)}")
    _finish(done.run, Console())


@click.command("mcp")
@click.option("--document", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="The .docx to redline (with --author).")
@click.option("--author", metavar="NAME", help="Tracked-change author of every edit and comment.")
@click.option("--task-dir", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="A task folder: its contract, author, instruction and grounding (prompt and resources).")
@click.option("--output", type=click.Path(path_type=Path, dir_okay=False),
              help="Where end_session saves the redline [with --task-dir: OUTPUTS/<task_id>.docx, where "
                   "`import outputs OUTPUTS` finds it; else <document>.redline.docx].")
@click.option("--outputs", "outputs_dir", type=click.Path(path_type=Path, file_okay=False),
              default=Path("redlinebench-outputs"), show_default=True, help="The folder of outputs (--task-dir).")
@click.option("--trial", type=click.IntRange(1), help="Save as OUTPUTS/<task_id>/<trial>.docx (several trials).")
@click.option("--date", "date_text", metavar="ISO", help="Timestamp on every change (reproducible files) [now].")
@click.option("--restart", is_flag=True,
              help="Start from the clean document even if the output exists (it is replaced when the work is "
                   "saved). Without it, an existing output is continued from, so a client that starts one server "
                   "per call builds on the last call's work.")
def mcp_cmd(document: Path | None, author: str | None, task_dir: Path | None, output: Path | None,
            outputs_dir: Path, trial: int | None, date_text: str | None, restart: bool) -> None:
    """Serve the five redlining tools over MCP (stdio) for Claude Code, Codex, Cursor or any MCP client.

    \b
    Claude Code:
      redlinebench tasks export redline-s1-t2-g01a --out tasks
      claude mcp add redline -- \\
        redlinebench mcp --task-dir tasks/redline-s1-t2-g01a
    .mcp.json:
      {"mcpServers": {"redline": {"command": "redlinebench",
        "args": ["mcp", "--document", "draft.docx", "--author", "Our Counsel"]}}}

    Same schemas, results and errors as the benchmark's own agent loop.
    """
    from datetime import datetime

    from ..errors import ConfigError
    from ..integrations.mcp_server import open_setup, serve_stdio

    date = None
    if date_text:
        try:
            date = datetime.fromisoformat(date_text.replace("Z", "+00:00"))
        except ValueError:
            raise ConfigError(f"--date {date_text!r} is not an ISO timestamp (e.g. 2026-01-02T03:04:05Z)") from None
    setup = open_setup(document=document, author=author, task_dir=task_dir, output=output, outputs=outputs_dir,
                       trial=trial, date=date, restart=restart)
    serve_stdio(setup)


@click.command("verify")
@click.option("--task-dir", type=click.Path(path_type=Path, exists=True, file_okay=False), required=True,
              help="The task folder (with tests/rubrics.json; `redlinebench tasks export ID --out DIR` writes one).")
@click.option("--output", type=click.Path(path_type=Path), required=True, help="The agent's redlined .docx.")
@click.option("--logs", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where reward.txt and grade.json go [/logs/verifier inside a Harbor container (when /logs "
                   "exists), else ./verify-logs/<task folder name>].")
@click.option("--judges", default="panel", show_default=True, help="Judge spec (panel, heuristic, a,b,c, YAML).")
@click.option("--model", default=None, help="Model label recorded in grade.json (import harbor fills it in).")
@click.option("--trial", default=1, show_default=True, type=click.IntRange(min=1),
              help="Trial number recorded in grade.json.")
@click.option("--judge-api-base", default=None, help="Send every litellm judge to this base URL (a proxy).")
def verify_cmd(task_dir: Path, output: Path, logs: Path | None, judges: str, model: str | None, trial: int,
               judge_api_base: str | None) -> None:
    """Grade one output document (the Harbor verifier): writes reward.txt and grade.json."""
    from ..errors import JudgeError
    from ..integrations.harbor import verify
    from ..integrations.harbor._verify import default_logs

    if logs is None:
        logs = default_logs(task_dir)
        if not logs.is_absolute():
            echo(f"logs: {logs} (not inside a Harbor container: /logs does not exist; --logs DIR to choose)")
    outcome = verify(task_dir, output, logs, judges=judges, model=model, trial=trial,
                     judge_api_base=judge_api_base)
    if outcome.reward is None:
        raise JudgeError(f"judging incomplete ({outcome.status}); see {outcome.grade_path}; no reward written")
    reason = _gate_reason(outcome.grade_path) if outcome.status == "gate_failed" else None
    echo(f"{outcome.status}: reward {outcome.reward:.4f} -> {outcome.reward_path}"
         + (f"\n  why: {reason}" if reason else ""))


def _gate_reason(grade_path: Path) -> str | None:
    """The gate's reason as grade.json records it (a missing or unopenable output, an integrity finding)."""
    import json

    try:
        gate = json.loads(grade_path.read_text(encoding="utf-8")).get("gate") or {}
    except (OSError, ValueError, AttributeError):
        return None
    reason = gate.get("reason") if isinstance(gate, dict) else None
    return str(reason) if reason else None


# ----------------------------------------------------------------------------- lighteval
def _roles(values: tuple[str, ...]) -> dict[str, Any]:
    """``NAME=MODEL`` options -> Inspect model roles; a name given several times is a panel (a list)."""
    from ..errors import ConfigError

    roles: dict[str, list[str]] = {}
    for value in values:
        name, sep, model = value.partition("=")
        if not sep or not name.strip() or not model.strip():
            raise click.UsageError(f"--model-role: expected NAME=PROVIDER/MODEL, got {value!r}")
        roles.setdefault(name.strip(), []).append(model.strip())
    if any(len(set(models)) != len(models) for models in roles.values()):
        raise ConfigError("--model-role: the same model is bound twice to one role")
    return {name: models[0] if len(models) == 1 else models for name, models in roles.items()}


@click.command("eval")
@click.argument("tasks")
@click.option("--model", required=True, help="The model under test, as Inspect names it (e.g. openai/gpt-5.5).")
@click.option("--custom-tasks", default=None, metavar="FILE",
              help="A lighteval custom-tasks file or module (default: redlinebench.integrations.lighteval_tasks).")
@click.option("--model-role", "model_roles", multiple=True, metavar="NAME=MODEL",
              help="Bind an Inspect model role (repeat a name for a panel), e.g. grader=openai/gpt-5.4-mini.")
@click.option("--epochs", default=1, show_default=True, type=click.IntRange(min=1), help="Trials per task.")
@click.option("--epochs-reducer", default=None, help="Inspect's per-sample reducer (the redlinebench metrics "
              "count every epoch whatever it is).")
@click.option("--limit", default=None, type=click.IntRange(min=1), help="At most this many samples.")
@click.option("--log-dir", type=click.Path(path_type=Path), default=Path("logs"), show_default=True,
              help="Where Inspect writes its logs.")
def lighteval_eval_cmd(tasks: str, model: str, custom_tasks: str | None, model_roles: tuple[str, ...], epochs: int,
                       epochs_reducer: str | None, limit: int | None, log_dir: Path) -> None:
    """Run lighteval tasks ("redlinebench|0"; a baseline: "redlinebench_baseline:golden|0") on lighteval's
    inspect-ai backend.

    What `lighteval eval --custom-tasks FILE` should do in lighteval 0.13: it ignores the option,
    and lighteval's registry cannot be built under huggingface_hub 2.x. This reads FILE's
    TASKS_TABLE with lighteval's own loader and builds each task with lighteval's
    get_inspect_ai_task, then runs it with Inspect.
    """
    from ..errors import ConfigError

    try:
        from inspect_ai import eval as inspect_eval

        from ..integrations.lighteval_tasks import inspect_tasks, load_table
    except ImportError as exc:
        raise ConfigError(str(exc)) from None

    built = inspect_tasks(tasks, table=load_table(custom_tasks), epochs=epochs, epochs_reducer=epochs_reducer)
    logs = inspect_eval(built, model=model, model_roles=_roles(model_roles) or None, limit=limit,
                        log_dir=str(log_dir), display="none")
    failed = False
    for log in logs:
        echo(f"{log.eval.task}: {log.status}; log: {log.location}")
        if log.status != "success":
            failed = True
            echo(f"  error: {log.error.message if log.error else 'the eval did not finish'}", err=True)
            continue
        for score in log.results.scores if log.results else []:
            metrics = ", ".join(f"{k} {m.value:g}" for k, m in score.metrics.items())
            echo(f"  {score.name}: {metrics}")
    if failed:
        raise SystemExit(1)


def register(main: click.Group) -> None:
    push = _group(main, "push", "Publish results and the dataset to the Hugging Face Hub.")
    push.add_command(push_results)
    push.add_command(push_dataset)
    _group(main, "export", "Export tasks for other harnesses.").add_command(export_harbor_cmd)
    imports = _group(main, "import", "Import runs from other harnesses, or redlines made by any tool.")
    imports.add_command(import_harbor_cmd)
    imports.add_command(import_outputs_cmd)
    main.add_command(verify_cmd)
    main.add_command(mcp_cmd)
    _group(main, "lighteval", "Run lighteval custom tasks on lighteval's inspect-ai backend.").add_command(
        lighteval_eval_cmd)
