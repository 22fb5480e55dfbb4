"""Atomic file writes: a reader, Ctrl-C or SIGKILL sees the old file or the new one, never half of one.

The mechanics live once in :mod:`redlinebench._atomic`; this module adds the run files' JSON
style. Atomicity comes from writing a temporary sibling and renaming it, which is all
a killed process needs. ``durable=True`` additionally fsyncs, which only matters if the machine
itself loses power; it costs milliseconds per file, so the per-trial hot path does without.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._atomic import atomic_replace_dir, atomic_write_bytes, atomic_write_text


def write_bytes(path: str | Path, data: bytes, *, durable: bool = False) -> None:
    """Write ``data`` to a temporary sibling, then ``os.replace`` it onto ``path``."""
    atomic_write_bytes(path, data, durable=durable)


def write_text(path: str | Path, text: str, *, durable: bool = False) -> None:
    atomic_write_text(path, text, durable=durable)


def dumps(obj: Any) -> str:
    """The one JSON style of run files: indented, UTF-8, stable key order as built."""
    return json.dumps(obj, indent=2, ensure_ascii=False, default=_default) + "\n"


def write_json(path: str | Path, obj: Any, *, durable: bool = False) -> None:
    write_text(path, dumps(obj), durable=durable)


def _default(obj: Any) -> Any:
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    for attr in ("model_dump", "to_dict"):
        fn = getattr(obj, attr, None)
        if callable(fn):
            return fn()
    raise TypeError(f"cannot serialise {type(obj).__name__}")


def publish_dir(src: Path, dst: Path) -> None:
    """Move a finished staging directory into place with one ``rename``.

    A leftover ``dst`` (only possible when two processes share a run directory) is removed
    first so the rename cannot merge two trials.
    """
    atomic_replace_dir(src, dst)


def read_json(path: str | Path) -> Any | None:
    """Parse a run file; ``None`` if it is missing or unreadable (a torn write from an older tool)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
