"""``redlinebench dataset export``: write the Hub layout of a task tree to a directory.

The result loads with plain ``datasets.load_dataset(DIR, "tasks", split="test")`` offline:
parquet files (features embedded in their schema metadata), a README.md card whose YAML
``configs`` point at them, and ``eval.yaml``. ``include_tree`` adds the task tree itself, which
is what the real Hub repository holds next to the index.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..errors import ConfigError
from ..tasks import Source, TaskSet, load_tasks
from ._card import PARQUET_PATTERNS, parquet_path, render_card, render_eval_yaml
from ._features import SPLIT
from ._load import load_dataset, quiet_progress


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def export_dataset(
    source: str | Path | Source | None, out: str | Path, *, include_tree: bool = False
) -> dict[str, Path]:
    """Write parquet per config, README.md, eval.yaml (and optionally ``tasks/``); returns what was written.

    Keys: the config names (parquet files), ``README.md``, ``eval.yaml`` and ``tree``.
    """
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise ConfigError(f"export target exists and is not a directory: {out}")
    tasks: TaskSet = load_tasks(source)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    fingerprint = tasks.fingerprint()
    data_files: dict[str, str] = {}
    for config in PARQUET_PATTERNS:
        dataset = load_dataset(tasks.source, config=config, split=SPLIT)
        data_files[config] = parquet_path(config, fingerprint)
        target = out / data_files[config]
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        with quiet_progress():
            dataset.to_parquet(str(tmp))
        for old in target.parent.glob("test-*.parquet"):  # an earlier export's data
            if old != target:
                old.unlink()
        os.replace(tmp, target)
        written[config] = target
    _write_text(out / "README.md", render_card(tasks, data_files))
    written["README.md"] = out / "README.md"
    _write_text(out / "eval.yaml", render_eval_yaml())
    written["eval.yaml"] = out / "eval.yaml"
    if include_tree:
        staging = Path(tempfile.mkdtemp(prefix=".tasks-", dir=out))
        try:
            for task in tasks:
                shutil.copytree(task.root, staging / task.task_id, symlinks=False)
            final = out / "tasks"
            if final.exists():
                shutil.rmtree(final)
            os.replace(staging, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        written["tree"] = out / "tasks"
    return written
