"""The dataset card and ``eval.yaml``, generated from the data so they can never drift from it.

Both renderers are pure functions of a :class:`TaskSet` (no dates, no absolute paths), so the
committed ``dataset_card.md`` can be regenerated and compared byte for byte.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import yaml

from .. import config as rb_config
from ..tasks import CATEGORIES, UNCATEGORIZED, TaskSet
from ._builder import CITATION, DESCRIPTION, LICENSE
from ._features import COLUMN_DOCS, FULL_FEATURES, INDEX_FEATURES, SPLIT

PRETTY_NAME = "RedlineBench"
TAGS = ["legal", "negotiation", "contracts", "benchmark", "docx"]
#: Where each config's parquet lives, relative to the dataset root (the card's ``configs`` patterns).
PARQUET_PATTERNS = {"tasks": "data/tasks/test-*.parquet", "full": "data/full/test-*.parquet"}


def parquet_path(config: str, fingerprint: str) -> str:
    """``data/<config>/test-<fingerprint>.parquet``.

    The content hash in the name is deliberate: ``datasets`` 5.2 keys its cache for a local
    directory with YAML ``configs`` on the data-file *patterns* only (not paths, not mtimes), so
    re-exporting changed data under the same pattern into a directory of the same name would
    silently load the previous rows. An exact, content-named path changes that key.
    """
    return f"data/{config}/test-{fingerprint[:16]}.parquet"

_SOURCE_WORDS = {
    "hub": "the pinned Hub snapshot",
    "embedded": "the embedded synthetic set shipped in the `redlinebench` package",
    "path": "a local task tree",
    "env": "a local task tree",
    "local": "a local task tree",
}


def size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return label
    return "100K<n<1M"


def eval_yaml_data() -> dict[str, Any]:
    """SPEC §7: what the Hub needs to list ``redline_overall`` for this dataset."""
    return {
        "name": PRETTY_NAME,
        "description": (
            "Multi-turn contract-negotiation redlining: an agent returns a Word document with tracked changes "
            "and comments, graded against attorney-written weighted rubrics by an LLM judge panel. "
            "redline_overall is the turn-weighted mean reward (0-100)."
        ),
        "evaluation_framework": "redline-bench",
        "tasks": [{"id": "redline_overall", "config": "tasks", "split": SPLIT}],
    }


def render_eval_yaml() -> str:
    return yaml.safe_dump(eval_yaml_data(), sort_keys=False, allow_unicode=True, width=100)


def card_metadata(tasks: TaskSet, data_files: dict[str, str] | None = None) -> dict[str, Any]:
    """The card's YAML front matter; ``configs`` point at ``data_files`` (default: the patterns)."""
    paths = {**PARQUET_PATTERNS, **(data_files or {})}
    configs: list[dict[str, Any]] = []
    for name, path in paths.items():
        entry: dict[str, Any] = {"config_name": name, "data_files": [{"split": SPLIT, "path": path}]}
        if name == "tasks":
            entry["default"] = True
        configs.append(entry)
    return {
        "license": LICENSE,
        "pretty_name": PRETTY_NAME,
        "language": ["en"],
        "task_categories": ["text-generation"],
        "tags": TAGS,
        "size_categories": [size_category(len(tasks))],
        "configs": configs,
    }


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "0.0"


def card_stats(tasks: TaskSet) -> dict[str, Any]:
    """The numbers the card reports (also handy in notebooks)."""
    rubrics = [r for t in tasks for r in t.rubrics]
    per_task = [len(t.rubrics) for t in tasks]
    categories = Counter(r.category for r in rubrics)
    return {
        "n_tasks": len(tasks),
        "n_input_groups": len(tasks.input_groups()),
        "n_cells": len(tasks.cells()),
        "n_rubrics": len(rubrics),
        "n_penalty_rubrics": sum(1 for r in rubrics if r.weight < 0),
        "rubrics_per_task": (min(per_task), max(per_task)) if per_task else (0, 0),
        "categories": {c: categories[c] for c in [*CATEGORIES, UNCATEGORIZED] if categories[c]},
        "cells": {cell: len(members) for cell, members in tasks.cells().items()},
        "no_golden": [t.task_id for t in tasks if not t.has_golden],
    }


def _counts_table(tasks: TaskSet) -> list[str]:
    cells = tasks.cells()
    turns = sorted({t for (_, t) in cells})
    scenarios = sorted({s for (s, _) in cells})
    head = "| Scenario | " + " | ".join(f"Turn {t}" for t in turns) + " | Tasks |"
    rows = [head, "|---|" + "---:|" * (len(turns) + 1)]
    for s in scenarios:
        label = next(t.scenario_label for t in tasks if t.scenario_id == s)
        parts = []
        for t in turns:
            members = cells.get((s, t), [])
            sides = "/".join(sorted({m.side for m in members}))
            parts.append(f"{len(members)} ({sides})" if members else "0")
        total = sum(len(cells.get((s, t), [])) for t in turns)
        rows.append(f"| {s}. {label} | " + " | ".join(parts) + f" | {total} |")
    rows.append("| **All** | " + " | ".join(str(sum(len(cells.get((s, t), [])) for s in scenarios)) for t in turns) + f" | {len(tasks)} |")
    return rows


def _scenario_lines(tasks: TaskSet) -> list[str]:
    lines = []
    for s in sorted({t.scenario_id for t in tasks}):
        members = [t for t in tasks if t.scenario_id == s]
        label = members[0].scenario_label
        parties = sorted({t.represented_party for t in members} | {t.counterparty for t in members})
        by_turn = {}
        for t in members:
            by_turn.setdefault(t.turn, set()).add(f"{t.side} ({t.represented_party})")
        turns = "; ".join(f"turn {turn}: {', '.join(sorted(sides))}" for turn, sides in sorted(by_turn.items()))
        lines.append(f"- **{s}. {label}**: {', '.join(parties)}. {len(members)} tasks. Acting side by turn: {turns}.")
    return lines


#: The index columns that name a file of the task tree.
TREE_PATH_COLUMNS = ("contract_path", "rubrics_path", "attorney_redline_doc_path", "source_task_path")
_NOT_HERE = " Not a file of this export (no task tree): see Task tree below."


def _fields_table(features, names, *, include_tree: bool = True) -> list[str]:
    rows = ["| Column | Type | Meaning |", "|---|---|---|"]
    for name in names:
        note = _NOT_HERE if not include_tree and name in TREE_PATH_COLUMNS else ""
        rows.append(f"| `{name}` | `{_type_name(features[name])}` | {COLUMN_DOCS[name]}{note} |")
    return rows


_TREE_LAYOUT = (
    "```\ntasks/redline-s{S}-t{T}-g{GG}{v}/\n  task.toml                      Harbor config; task metadata under [metadata]\n"
    "  instruction.md                 the attorney brief\n  environment/Dockerfile\n"
    "  environment/app/contract.docx  the document to redline\n"
    "  environment/app/grounding/     own-side playbook + shared commercial context\n"
    "  tests/rubrics.json             metadata + rubrics (verifier side, never shown to the agent)\n"
    "  tests/attorney_redlines.docx   golden attorney redline (absent on accept-only tasks)\n"
    "  tests/test.sh                  Harbor verifier entry point\n```"
)


def _tree_section(include_tree: bool) -> list[str]:
    """What the repository holds besides the parquet files: the task tree, or a word that it is absent."""
    if include_tree:
        return ["## Task tree",
                "The runnable content is the Harbor task tree; the parquet files are an index of it.\n\n" + _TREE_LAYOUT]
    return ["## Task tree",
            "Not in this export: it holds the parquet files, this card and `eval.yaml` only. The `*_path` "
            "columns of the index name files of the task tree as laid out in a full export or the Hub repository; "
            "the `full` config carries their content (`instruction`, `grounding`, `rubrics`, `contract_docx`, "
            "`attorney_redline_docx`). To run the tasks, export the tree too: "
            "`redlinebench dataset export --out DIR --include-tree`."]


def _type_name(feature: Any) -> str:
    from datasets import List, Value

    if isinstance(feature, Value):
        return feature.dtype
    if isinstance(feature, List):
        inner = feature.feature
        if isinstance(inner, dict):
            return "list<struct<" + ", ".join(f"{k}: {_type_name(v)}" for k, v in inner.items()) + ">>"
        return f"list<{_type_name(inner)}>"
    return type(feature).__name__


def render_card(tasks: TaskSet, data_files: dict[str, str] | None = None, *, include_tree: bool = True) -> str:
    """The whole card: YAML front matter, then statistics, fields, loading, licence, citation.

    ``data_files`` maps config -> exact parquet path (the exporter's); by default the card
    carries the ``data/<config>/test-*.parquet`` patterns. ``include_tree`` False: the card of a
    parquet-only export, which says the task tree (and so every ``*_path`` column's file) is absent.
    """
    stats = card_stats(tasks)
    front = yaml.safe_dump(card_metadata(tasks, data_files), sort_keys=False, allow_unicode=True, width=1000)
    n_rubrics = stats["n_rubrics"]
    lo, hi = stats["rubrics_per_task"]
    source_words = _SOURCE_WORDS.get(tasks.source.kind, "a task tree")
    cat_rows = ["| Category | Rubrics | Share |", "|---|---:|---:|"]
    cat_rows += [f"| {c} | {n} | {_pct(n, n_rubrics)} % |" for c, n in stats["categories"].items()]
    extra_full = [n for n in FULL_FEATURES if n not in INDEX_FEATURES]
    no_golden = ", ".join(f"`{t}`" for t in stats["no_golden"]) or "none"
    repo = rb_config.HUB_DATASET_ID
    parts = [
        f"---\n{front}---",
        f"# {PRETTY_NAME}",
        DESCRIPTION,
        "Each task gives the agent the contract as it stands (clean at turn 1; carrying the other side's tracked "
        "changes and comment threads later), its own side's playbook and the shared commercial context, never the "
        "counterparty's playbook. The agent must return the same `.docx` with native Word tracked changes and "
        "margin comments under the task's author string. Judges grade each rubric PASS/FAIL; a task's reward is "
        "(earned - penalty) / positive weight, clamped to [0, 1]; `redline_overall` (0-100) averages the "
        "scenario x turn cells.",
        "## Contents",
        f"Generated by `redlinebench dataset card` from {source_words}: **{stats['n_tasks']} tasks** in "
        f"{stats['n_input_groups']} input groups over {stats['n_cells']} scenario x turn cells, "
        f"{n_rubrics} rubrics ({lo}-{hi} per task), of which {stats['n_penalty_rubrics']} "
        f"({_pct(stats['n_penalty_rubrics'], n_rubrics)} %) are penalty rubrics (negative weight). "
        f"Tasks without a golden attorney redline (accept-and-close turns): {no_golden}.",
        "### Tasks per scenario and turn (acting side)",
        "\n".join(_counts_table(tasks)),
        "### Rubric categories",
        "\n".join(cat_rows),
        "### Scenarios",
        "\n".join(_scenario_lines(tasks)),
        "## Configs and fields",
        f"Split `{SPLIT}` only. Config `tasks` is the viewer index, one row per task:",
        "\n".join(_fields_table(INDEX_FEATURES, list(INDEX_FEATURES), include_tree=include_tree)),
        "Config `full` has the same columns followed by the whole task:",
        "\n".join(_fields_table(FULL_FEATURES, extra_full)),
        "## How to load",
        "```python\nfrom datasets import load_dataset\n\n"
        f'REPO = "{repo}"  # or the repository this export was pushed to\n'
        'index = load_dataset(REPO, "tasks", split="test")\n'
        'full = load_dataset(REPO, "full", split="test")   # config added by `redlinebench dataset export`\n```',
        "With the `redlinebench` package (any source: a local tree, the Hub snapshot, or the embedded set):",
        "```python\nimport redlinebench\n\n"
        'index = redlinebench.load_dataset()                 # config "tasks"\n'
        'full = redlinebench.load_dataset(config="full")\n'
        "tasks = redlinebench.load_tasks()                    # Task objects: rubrics, paths, metadata\n```",
        "```bash\nredlinebench tasks list --scenario 1 --turn 2\nredlinebench tasks validate --source ./benchmark\n"
        "redlinebench dataset export --out ./export --include-tree   # the Hub layout: index + task tree\n```",
        *_tree_section(include_tree),
        "## Licence",
        "Creative Commons Attribution 4.0 International (CC-BY-4.0). All contracts, parties and commercial facts "
        "are synthetic.",
        "## Citation",
        *(["This card describes a set generated by the `redlinebench` package (`redlinebench data "
            "build-synthetic`), not the published dataset; its contracts, playbooks and rubrics are ours. It "
            "follows the RedlineBench task format and scoring, so cite the benchmark as:"]
          if tasks.source.kind == "embedded" else []),
        f"```bibtex\n{CITATION}\n```",
    ]
    return "\n\n".join(parts) + "\n"
