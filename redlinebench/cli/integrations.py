"""``redlinebench push|export|import|verify``: the ecosystem bridges, thin wrappers over
:mod:`redlinebench.integrations`. Heavy libraries load inside the commands."""

from __future__ import annotations

from pathlib import Path

import click

from .. import config


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
              help="Dataset revision the run used (default: the run's recorded revision, or the pinned one).")
@click.option("--source-url", default=None, help="Link to logs or a report for this result.")
@click.option("--source-name", default=None, help="Display name of --source-url.")
@click.option("--create-pr", is_flag=True, help="Open a pull request instead of committing to main.")
@click.option("--force", is_flag=True, help="Publish even heuristic-judge / incomplete / partial results.")
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
        click.echo(f"warning: {problem} (forced)", err=True)
    if dry_run:
        click.echo("dry run: nothing was sent")
        click.echo(plan.describe())
        return
    outcome = hub.execute(plan, token=token)
    click.echo(f"pushed {hub.RESULTS_PATH} to {model_repo}: {outcome.pr_url or outcome.commit_url}")


@click.command("dataset")
@click.option("--repo", "repo_id", required=True, metavar="ORG/NAME", help="Dataset repo to create or update.")
@click.option("--from", "export_dir", type=click.Path(path_type=Path), default=None,
              help="An exported dataset directory (default: export the selected task source now).")
@click.option("--source", default=None, help="Task source to export when --from is not given.")
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
            click.echo("dry run: nothing was sent")
            click.echo(plan.describe())
            return
        outcome = hub.execute(plan)
    click.echo(f"pushed {outcome.n_files} files to dataset {repo_id}: {outcome.pr_url or outcome.commit_url}")


def _export_dataset(source: str | None, out: Path) -> Path:
    """Export ``source`` with the dataset module (issue 3's ``dataset export``)."""
    from ..errors import ConfigError

    try:
        from ..dataset import export_dataset  # type: ignore[attr-defined]
    except ImportError:
        raise ConfigError("this build cannot export datasets; pass an exported directory with --from") from None
    from ..tasks import load_tasks

    export_dataset(load_tasks(source), out)
    return out


def register(main: click.Group) -> None:
    push = _group(main, "push", "Publish results and the dataset to the Hugging Face Hub.")
    push.add_command(push_results)
    push.add_command(push_dataset)
