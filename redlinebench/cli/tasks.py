"""``redlinebench tasks ...`` and ``redlinebench dataset ...``: look at, check and publish task trees.

Thin: every command resolves a source, calls the library and prints. ``datasets`` is imported
only by the ``dataset`` commands that need it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import click
from .._termtable import echo, stream_width, wrap_text

from ..errors import ConfigError
from ._options import SCENARIO, SIDE, TURN

#: How every ``--source`` option spells the sources ``resolve_source`` accepts.
SOURCE_METAVAR = "DIR|hub|hub@REV|embedded"
_SOURCE_HELP = (
    "Task tree: a dataset root containing tasks/, a tasks/ directory, 'hub', 'hub@REV' or 'embedded'. "
    "Default: $REDLINEBENCH_BENCHMARK_DIR, ./benchmark/, the pinned Hub snapshot, the embedded set."
)
source_option = click.option("--source", "source", metavar=SOURCE_METAVAR, default=None, help=_SOURCE_HELP)
json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")


def _echo_json(data: Any) -> None:
    from .._text import json_safe

    click.echo(json.dumps(json_safe(data), indent=2, ensure_ascii=False, default=str))  # strict JSON


def _task_summary(task) -> dict[str, Any]:
    return {
        **task.metadata(),
        "turn": task.turn,
        "rubric_count": len(task.rubrics),
        "rubric_category_counts": task.rubric_category_counts(),
        "has_golden": task.has_golden,
        "source_task_path": task.source_task_path,
    }


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


# -- tasks -------------------------------------------------------------------------------------
@click.group("tasks")
def tasks_group() -> None:
    """List, inspect and validate benchmark tasks."""


@tasks_group.command("list")
@source_option
@click.option("--scenario", type=SCENARIO, multiple=True, help="Keep these scenarios (repeatable; the public set has 1-3).")
@click.option("--turn", type=TURN, multiple=True, help="Keep these turns (repeatable; the public set has 1-4).")
@click.option("--side", type=SIDE, multiple=True, help="Keep a side: A (vendor) or B (customer), either case.")
@click.option("--input-group", multiple=True, help="Keep input groups, e.g. s1-t2-g03 (repeatable).")
@click.option("--variant", multiple=True, help="Keep rubric variants, e.g. a (repeatable).")
@json_option
def list_cmd(source, scenario, turn, side, input_group, variant, as_json) -> None:
    """One line (or JSON object) per task."""
    from ..tasks import load_tasks

    tasks = load_tasks(source).filter(
        scenario=scenario or None,
        turn=turn or None,
        side=side or None,
        input_group=input_group or None,
        variant=variant or None,
    )
    if as_json:
        _echo_json([_task_summary(t) for t in tasks])
        return
    rows = [
        [t.task_id, str(t.scenario_id), str(t.turn), t.side, t.represented_party, str(len(t.rubrics)),
         "yes" if t.has_golden else "no"]
        for t in tasks
    ]
    echo(_table(rows, ["task", "scenario", "turn", "side", "party", "rubrics", "golden"]))
    echo(f"\n{len(tasks)} tasks, {len(tasks.input_groups())} input groups, {len(tasks.cells())} cells "
         f"({tasks.source.named})")


@tasks_group.command("show")
@click.argument("task_id")
@source_option
@click.option("--chars", type=click.IntRange(1), default=800, show_default=True, help="Instruction excerpt length.")
@json_option
def show_cmd(task_id, source, chars, as_json) -> None:
    """Metadata, instruction excerpt and rubrics of one task."""
    task = _typed_task(source, task_id)
    if as_json:
        _echo_json(
            {
                **_task_summary(task),
                "extra": task.extra,
                "instruction": task.instruction,
                "grounding": sorted(task.grounding),
                "contract_path": str(task.contract_path),
                "golden_path": str(task.golden_path) if task.golden_path else None,
                "rubrics": [
                    {"id": r.id, "category": r.category, "weight": r.weight, "criteria": r.criteria,
                     "justification": r.justification}
                    for r in task.rubrics
                ],
            }
        )
        return
    meta = task.metadata()
    width = max(len(k) for k in meta)
    columns = _terminal_columns()

    def field(key: str, value: Any, note: str = "") -> None:
        echo(wrap_text(f"  {key.ljust(width)}  {value}{note}", columns, hang=width + 4))

    echo(click.style(task.task_id, bold=True))
    for key, value in meta.items():
        field(key, value)
    for key, value in sorted(task.extra.items()):
        field(key, value, "  (extra)")
    # a path is never cut (copy and paste): too long for the line, it moves under the values, whole
    echo(f"  {'contract'.ljust(width)}  {task.contract_path}", hang=width + 4)
    echo(f"  {'golden'.ljust(width)}  {task.golden_path or '(none: accept-only task)'}", hang=width + 4)
    field("grounding", ", ".join(sorted(task.grounding)) or "(none)")
    excerpt = task.instruction[:chars]
    echo(click.style("\nInstruction", bold=True) + f" ({len(task.instruction)} chars)")
    echo(wrap_text(_reflowed(excerpt) if columns else excerpt, columns)
         + ("\n[...]" if len(task.instruction) > chars else ""))
    echo(click.style(f"\nRubrics ({len(task.rubrics)}, positive weight {task.total_positive_weight})", bold=True))
    for r in task.rubrics:
        echo(_rubric_line(r, columns))


def _terminal_columns() -> int | None:
    """The terminal's width when stdout is one; None for a pipe or file (lines stay whole for grep)."""
    return stream_width(click.get_text_stream("stdout"))


_BLOCK_START = re.compile(r"\s*([#>|]|[*+-]\s|\d+[.)]\s)")


def _reflowed(markdown: str) -> str:
    """Markdown's soft line breaks joined (a paragraph's lines are one line to a reader), so a
    narrow terminal wraps whole paragraphs; headings, list items, quotes and tables stay lines."""
    out: list[str] = []
    for line in markdown.splitlines():
        if out and out[-1].strip() and line.strip() and not _BLOCK_START.match(line) and not out[-1].startswith("#"):
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def _rubric_line(r: Any, columns: int | None) -> str:
    """One rubric on one line; in a terminal narrower than that, the criteria on their own
    indented lines under weight, id and category (at 80 columns they began at column 44)."""
    line = f"  {r.weight:>3}  {r.category:<35} {r.id}: {r.criteria}"
    if columns is None or len(line) < columns:
        return line
    return f"  {r.weight:>3}  {r.id}  {r.category}\n{wrap_text(' ' * 12 + r.criteria, columns)}"


def _typed_task(source: str | None, task_id: str) -> Any:
    """The task a user typed the id of: an unknown id is a typed mistake (exit 2), naming close ones."""
    from ..errors import TaskError
    from ..tasks import load_tasks

    try:
        return load_tasks(source).get(task_id)
    except TaskError as exc:
        raise ConfigError(str(exc)) from None


@tasks_group.command("export")
@click.argument("task_ids", nargs=-1, required=True, metavar="ID...")
@source_option
@click.option("--out", "out", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="Folder to write OUT/<task_id>/ into (created if needed).")
@click.option("--force", is_flag=True, help="Replace an OUT/<task_id>/ that already exists.")
def export_tasks_cmd(task_ids, source, out, force) -> None:
    """Write task folders (task.toml, instruction, contract, rubrics) for `verify` and `mcp --task-dir`.

    \b
    Example:
      redlinebench tasks export redline-s1-t2-g01a --out tasks
      redlinebench mcp --task-dir tasks/redline-s1-t2-g01a
    """
    from ..tasks import load_tasks
    from ..tasks._export import export_task_folders

    written = export_task_folders(load_tasks(source), list(task_ids), out, force=force)
    for folder in written:
        echo(f"wrote {folder}")
    first = written[0]
    echo(f"next: redlinebench mcp --task-dir {first}   or   redlinebench verify --task-dir {first} "
         "--output REDLINE.docx --judges heuristic")


@tasks_group.command("validate")
@source_option
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@json_option
def validate_cmd(source, strict, as_json) -> None:
    """Check every task and list every problem found; exit 1 when anything is wrong."""
    from ..tasks import validate_tasks

    report = validate_tasks(source)
    report.problems.extend(golden_integrity_problems(report.tasks))
    failed = bool(report.errors) or (strict and bool(report.warnings))
    if as_json:
        _echo_json(report.to_dict())
    else:
        root = report.source.path
        for problem in report.problems:
            echo(f"{problem.severity}: {problem.display(root)}")
        verdict = "FAILED" if failed else "ok"
        echo(
            f"{verdict}: checked {report.checked} tasks in "
            f"{report.source.label if report.source.kind == 'embedded' else report.source.tasks_dir}: "
            f"{len(report.errors)} errors, {len(report.warnings)} warnings",
            err=failed,
        )
    if failed:
        sys.exit(1)


def golden_integrity_problems(tasks) -> list:
    """SPEC §5.1's integrity audit of every golden redline against its task input, as warnings:
    the public goldens were made in Word, and one with an untracked change is a data defect to see
    (the golden baseline records the same findings as ``golden_integrity`` in its metrics)."""
    from ..agent.baselines import golden_integrity
    from ..tasks import Problem

    out = []
    for task in tasks:
        if task.golden_path is None:
            continue
        result = golden_integrity(task)
        if result.get("skipped"):
            out.append(Problem(str(task.golden_path), f"golden integrity audit skipped: {result['skipped']}",
                               "integrity", "warning", task.task_id))
        for finding in result.get("findings", []):
            where = f" in {finding['paragraph_id']}" if finding.get("paragraph_id") else ""
            out.append(Problem(str(task.golden_path), f"golden integrity ({task.task_id}): {finding['kind']} "
                               f"({finding['severity']}){where}: {finding['detail']}", "integrity", "warning",
                               task.task_id))
    return out


@tasks_group.command("where")
@source_option
@json_option
def where_cmd(source, as_json) -> None:
    """Which task tree is used, and why."""
    from ..tasks import resolve_source, task_dirs

    resolved = resolve_source(source)
    count = len(task_dirs(resolved.tasks_dir))
    if as_json:
        _echo_json({**resolved.to_dict(), "n_task_dirs": count})
        return
    echo(f"source:    {resolved.kind}", hang=11)
    if resolved.kind == "embedded":  # its folder inside the installed package is no one's business (--json has it)
        echo(f"path:      embedded ({resolved.label}, shipped inside the package)", hang=11)
        echo(f"tasks dir: {count} task directories", hang=11)
    else:
        echo(f"path:      {resolved.path}", hang=11)
        echo(f"tasks dir: {resolved.tasks_dir} ({count} task directories)", hang=11)
    if resolved.revision:
        echo(f"revision:  {resolved.revision}", hang=11)
    echo(f"why:       {resolved.reason}", hang=11)
    for reason in resolved.skipped:
        echo(f"skipped:   {reason}", hang=11)


# -- dataset -----------------------------------------------------------------------------------
@click.group("dataset")
def dataset_group() -> None:
    """The Hugging Face dataset: inspect, export the Hub layout, generate the card."""


@dataset_group.command("info")
@source_option
@click.option("--config", type=click.Choice(["tasks", "full"]), default="tasks", show_default=True,
              help="tasks: the 15-column viewer index; full: whole tasks with texts, rubrics and documents.")
@json_option
def info_cmd(source, config, as_json) -> None:
    """Load the dataset (cached) and print its size, columns and fingerprint."""
    from ..dataset import load_dataset
    from ..tasks import fingerprint_dirs, resolve_source, task_dirs

    resolved = resolve_source(source)
    dataset = load_dataset(resolved, config=config)
    info = {
        "source": resolved.to_dict(),
        "config": config,
        "split": "test",
        "num_rows": dataset.num_rows,
        "fingerprint": fingerprint_dirs(task_dirs(resolved.tasks_dir)),
        "features": {name: str(feature) for name, feature in dataset.features.items()},
    }
    if as_json:
        _echo_json(info)
        return
    where = resolved.label if resolved.kind == "embedded" else f"{resolved.kind} ({resolved.tasks_dir})"
    echo(f"{config}/test: {info['num_rows']} rows from {where}")
    echo(f"fingerprint: {info['fingerprint']}")
    for name, feature in info["features"].items():
        echo(f"  {name}: {feature}")


@dataset_group.command("export")
@source_option
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="Directory to write.")
@click.option("--include-tree", is_flag=True, help="Also copy the task tree to OUT/tasks/ (the Hub repo layout).")
@click.option("--force", is_flag=True, help="Replace a README.md in OUT that redlinebench did not write.")
def export_cmd(source, out, include_tree, force) -> None:
    """Write parquet per config, README.md card and eval.yaml (loadable with datasets.load_dataset)."""
    from ..dataset import export_dataset

    written = export_dataset(source, out, include_tree=include_tree, force=force)
    for key, path in written.items():
        echo(f"wrote {key}: {path}")
    echo(f'load with: datasets.load_dataset("{out}", "tasks", split="test")')


def _write_or_check(text: str, out: Path, check: bool, command: str) -> None:
    """Write ``out``, or with ``check`` fail when the file on disk differs from ``text``."""
    if check:
        if not out.is_file():
            raise ConfigError(f"{out} is missing: generate it with `redlinebench dataset {command}`")
        if out.read_text(encoding="utf-8") != text:
            raise ConfigError(f"{out} is stale: regenerate it with `redlinebench dataset {command}`")
        echo(f"{out} is up to date")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    echo(f"wrote {out}")


@dataset_group.command("card")
@source_option
@click.option("--out", "out", type=click.Path(path_type=Path, dir_okay=False), default=Path("dataset_card.md"), show_default=True,
              help="Where to write the card.")
@click.option("--check", is_flag=True, help="Do not write; exit non-zero when OUT differs from the data.")
def card_cmd(source, out, check) -> None:
    """Generate the dataset card (counts, category shares, fields, licence, citation) from the data."""
    from ..dataset import render_card
    from ..tasks import load_tasks

    _write_or_check(render_card(load_tasks(source)), out, check, "card")


@dataset_group.command("eval-yaml")
@click.option("--out", "out", type=click.Path(path_type=Path, dir_okay=False), default=Path("eval.yaml"), show_default=True,
              help="Where to write eval.yaml.")
@click.option("--check", is_flag=True, help="Do not write; exit non-zero when OUT differs.")
def eval_yaml_cmd(out, check) -> None:
    """Write eval.yaml (SPEC §7: evaluation_framework redline-bench, task redline_overall)."""
    from ..dataset._card import render_eval_yaml

    _write_or_check(render_eval_yaml(), out, check, "eval-yaml")


def register(main: click.Group) -> None:
    main.add_command(tasks_group)
    main.add_command(dataset_group)
