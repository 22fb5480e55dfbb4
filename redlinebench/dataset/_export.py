"""``redlinebench dataset export``: write the Hub layout of a task tree to a directory.

The result loads with plain ``datasets.load_dataset(DIR, "tasks", split="test")`` offline:
parquet files (features embedded in their schema metadata), a README.md card whose YAML
``configs`` point at them, and ``eval.yaml``. ``include_tree`` adds the task tree itself, which
is what the real Hub repository holds next to the index.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .._atomic import atomic_replace_dir, atomic_write_text, atomic_write_with
from ..errors import ConfigError
from ..tasks import Source, TaskSet, load_tasks
from ..tasks._files import copy_task_tree
from ._card import CARD_MARK, PARQUET_PATTERNS, parquet_path, render_card, render_eval_yaml
from ._features import SPLIT
from ._load import load_dataset, quiet_progress


def export_dataset(
    source: str | Path | Source | None, out: str | Path, *, include_tree: bool = False, force: bool = False
) -> dict[str, Path]:
    """Write parquet per config, README.md, eval.yaml (and optionally ``tasks/``); returns what was written.

    Keys: the config names (parquet files), ``README.md``, ``eval.yaml`` and ``tree``. A folder holding
    a README.md this package did not write (a user's repository) is refused unless ``force``: the
    export would replace it, and ``tasks/`` with it.
    """
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise ConfigError(f"export target exists and is not a directory: {out}")
    _refuse_foreign_readme(out, force)
    tasks: TaskSet = load_tasks(source)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    fingerprint = tasks.fingerprint()
    data_files: dict[str, str] = {}
    for config in PARQUET_PATTERNS:
        dataset = load_dataset(tasks.source, config=config, split=SPLIT)
        data_files[config] = parquet_path(config, fingerprint)
        target = out / data_files[config]
        with quiet_progress():
            atomic_write_with(target, lambda tmp: dataset.to_parquet(str(tmp)))
        for old in target.parent.glob("test-*.parquet"):  # an earlier export's data
            if old != target:
                old.unlink()
        written[config] = target
    atomic_write_text(out / "README.md", render_card(tasks, data_files, include_tree=include_tree))
    written["README.md"] = out / "README.md"
    atomic_write_text(out / "eval.yaml", render_eval_yaml())
    written["eval.yaml"] = out / "eval.yaml"
    if include_tree:
        staging = Path(tempfile.mkdtemp(prefix=".tasks-", dir=out))
        try:
            for task in tasks:
                copy_task_tree(task.root, staging / task.task_id)  # never copies a file from outside
            atomic_replace_dir(staging, out / "tasks")
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        written["tree"] = out / "tasks"
    return written


def _refuse_foreign_readme(out: Path, force: bool) -> None:
    readme = out / "README.md"
    if force or not readme.is_file():
        return
    try:
        ours = CARD_MARK in readme.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"{readme}: cannot read it ({exc.strerror or exc})") from None
    if not ours:
        raise ConfigError(f"{readme} was not written by redlinebench: the export would replace it (and "
                          f"{out / 'tasks'}). Choose an empty --out, or pass --force to replace them")
