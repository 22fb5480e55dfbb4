"""``redlinebench.load_dataset``: any task source as a ``datasets.Dataset``, cached by content."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import datasets

from .. import config as rb_config
from ..errors import ConfigError
from ..tasks import Source, fingerprint_dirs, resolve_source, task_dirs
from ._builder import RedlineBench
from ._features import CONFIG_NAMES, SPLIT

log = logging.getLogger(__name__)


def dataset_cache_dir() -> Path:
    return rb_config.cache_dir() / "datasets"


def _check(config: str, split: str) -> None:
    if config not in CONFIG_NAMES:
        raise ConfigError(f"unknown dataset config {config!r}; choose one of {', '.join(CONFIG_NAMES)}")
    if split != SPLIT:
        raise ConfigError(f"unknown split {split!r}; RedlineBench has one split, {SPLIT!r}")


def load_dataset(
    source: str | Path | Source | None = None, config: str = "tasks", split: str = SPLIT
) -> datasets.Dataset:
    """Load a task tree as a dataset (config ``tasks`` = the viewer index, ``full`` = whole tasks).

    The Arrow cache is keyed by a hash of every file in the tree, so editing one rubric rebuilds it
    and an unchanged tree loads memory-mapped from disk.
    """
    _check(config, split)
    resolved = resolve_source(source)
    fingerprint = fingerprint_dirs(task_dirs(resolved.tasks_dir))
    cache = dataset_cache_dir()
    # Fingerprint alone keys the cache: the same data found at another path reuses the build.
    name = f"redlinebench-{config}-{fingerprint[:16]}"
    target = cache / name
    if (target / "dataset_info.json").is_file() and (target / "state.json").is_file():
        try:
            return datasets.load_from_disk(str(target))
        except Exception as exc:  # a damaged cache is rebuilt, never trusted
            log.warning("rebuilding damaged dataset cache %s: %s", target, exc)
            shutil.rmtree(target, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{name}.", suffix=".partial", dir=cache))
    try:
        with quiet_progress():
            builder = RedlineBench(
                config_name=config,
                source_dir=str(resolved.tasks_dir),
                fingerprint=fingerprint,
                cache_dir=str(work / "builder"),
            )
            builder.download_and_prepare()
            builder.as_dataset(split=split).save_to_disk(str(work / "saved"))
        try:
            os.rename(work / "saved", target)
        except OSError:
            if not (target / "state.json").is_file():  # not a concurrent build that won the race
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return datasets.load_from_disk(str(target))


@contextmanager
def quiet_progress() -> Iterator[None]:
    """No progress bars from a library call (the CLI prints its own summary)."""
    from datasets.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    was_disabled = are_progress_bars_disabled()
    disable_progress_bars()
    try:
        yield
    finally:
        if not was_disabled:
            enable_progress_bars()
