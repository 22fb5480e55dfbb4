"""``redlinebench data ...``: build the embedded synthetic benchmark from its sources."""

from __future__ import annotations

from pathlib import Path

import click
from .._termtable import echo


def register(main: click.Group) -> None:
    main.add_command(data)


@click.group()
def data() -> None:
    """Build and check the embedded synthetic benchmark."""


@data.command("build-synthetic")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory to write (it will hold tasks/ and benchmark.json); a previous build there is replaced.")
@click.option("--sources", type=click.Path(file_okay=False, path_type=Path, exists=True), default=None,
              help="Source directory (default: data/synthetic of the repository checkout; an installed "
                   "package does not ship the sources, so pass this there).")
def build_synthetic_cmd(out: Path, sources: Path | None) -> None:
    """Write the synthetic Harbor task tree (deterministic: a rebuild is byte-identical).

    \b
    Example:
      redlinebench data build-synthetic --out redlinebench/_data/benchmark
    """
    from ..synthetic import build_synthetic

    report = build_synthetic(out, sources)
    echo(report.summary())


@data.command("check-synthetic")
@click.option("--sources", type=click.Path(file_okay=False, path_type=Path, exists=True), default=None,
              help="Source directory (default: data/synthetic of the repository checkout; an installed "
                   "package does not ship the sources, so pass this there).")
def check_synthetic_cmd(sources: Path | None) -> None:
    """Check the sources (numbering, ops, rubric ground truth) without building documents."""
    from collections import Counter

    from ..synthetic import SOURCES_DIR, load_sources

    scenarios = load_sources(sources or SOURCES_DIR)
    cats: Counter[str] = Counter()
    tasks = penalties = total = 0
    for spec in scenarios:
        for group in spec.groups:
            for variant in group.variants:
                tasks += 1
                for rubric, weight in variant.rubrics:
                    cats[rubric.category] += 1
                    total += 1
                    penalties += weight < 0
    echo(f"{len(scenarios)} scenarios, {tasks} tasks, {total} rubrics ({penalties / max(total, 1):.1%} penalty)")
    for name, n in sorted(cats.items()):
        echo(f"  {name:<36} {n / max(total, 1):6.1%}")


@data.command("validate")
@click.option("--tree", type=click.Path(file_okay=False, path_type=Path, exists=True), default=None,
              help="Built task tree to check (default: the embedded benchmark).")
@click.option("--sources", type=click.Path(file_okay=False, path_type=Path, exists=True), default=None,
              help="Source directory (default: data/synthetic of the repository checkout).")
def validate_cmd(tree: Path | None, sources: Path | None) -> None:
    """Check the arena positions of a built tree: every issue testable, every golden where the sources say.

    Each task's playbook table must match its tests/positions.json, every stated level must have a
    test, and the agreed text of every golden must put each issue of both sides at the level that
    positions.yaml expects. Exit 1 with one line per problem.
    """
    from ..synthetic import PACKAGED_DIR, SOURCES_DIR
    from ..synthetic.positions import validate_tree

    checked, problems = validate_tree(tree or PACKAGED_DIR, sources or SOURCES_DIR)
    for problem in problems:
        echo(problem, err=True)
    if problems:
        raise SystemExit(1)
    echo(f"{checked} issue rows checked; every golden lands where the sources say")
