"""Atomic file writes: a reader (or a crash) sees the old file or the new one, never half of one."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary sibling, fsync it, then ``os.replace`` it onto ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_text(path: str | Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def dumps(obj: Any) -> str:
    """The one JSON style of run files: indented, UTF-8, stable key order as built."""
    return json.dumps(obj, indent=2, ensure_ascii=False, default=_default) + "\n"


def write_json(path: str | Path, obj: Any) -> None:
    write_text(path, dumps(obj))


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
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists():
        shutil.rmtree(dst)
    _fsync_dir(src)
    os.rename(src, dst)
    _fsync_dir(dst.parent)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_json(path: str | Path) -> Any | None:
    """Parse a run file; ``None`` if it is missing or unreadable (a torn write from an older tool)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
