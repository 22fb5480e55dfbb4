"""Atomic file writes, written once: a reader, Ctrl-C or SIGKILL sees the old file or the new one.

Every writer goes through a temporary sibling (same directory, so the rename never crosses a
file system) and ``os.replace``; on any failure the temporary is removed and the error
propagates unchanged (callers wrap ``OSError`` in their own error type). ``durable=True``
also fsyncs the file, which only matters when the machine itself loses power.

The new file gets the permissions ``open()`` would give it (``0o666`` minus the umask), not
the ``0o600`` of ``mkstemp``: run files, reports and exported datasets are meant to be read by
others (and by non-root users inside containers).

This module imports nothing from the package, so even ``docx/`` may use it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._text import encodable

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_write_json",
    "atomic_write_with",
    "atomic_replace_dir",
]


def _umask() -> int:
    """The process umask, read without changing it where the OS allows (threads may be writing)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)


def _temp_sibling(path: Path, parents: bool) -> tuple[int, str]:
    """A new, exclusively created temporary next to ``path``: (open descriptor, its path).

    Created with mode 0o666 so the kernel applies the umask (or a default ACL) exactly as for
    ``open()``; the parent folders are only created when the first attempt finds them missing.
    """
    folder = path.parent if str(path.parent) else Path(".")
    for _ in range(100):
        tmp = os.path.join(folder, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, _TEMP_FLAGS, 0o666), tmp
        except FileExistsError:
            continue   # a name collision: draw another
        except FileNotFoundError:
            if not parents or folder.is_dir():
                raise
            folder.mkdir(parents=True, exist_ok=True)
    raise FileExistsError(f"no free temporary name next to {path}")


def _publish(tmp: str, target: Path) -> None:
    """Rename the finished temporary onto ``target`` (it already has ``open()``'s permissions)."""
    os.replace(tmp, target)


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, durable: bool = False,
                       parents: bool = True) -> Path:
    """Write ``data`` to a temporary sibling of ``path``, then rename it onto ``path``.

    Missing parent folders are created unless ``parents=False`` (then they are an ``OSError``).
    """
    target = Path(path)
    try:
        fd, tmp = _temp_sibling(target, parents)
    except OSError as exc:  # name the file the caller asked for, not our temporary
        raise _about(exc, target) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        _publish(tmp, target)
    except OSError as exc:
        _discard(tmp)
        raise _about(exc, target) from None
    except BaseException:
        _discard(tmp)
        raise
    return target


def _about(exc: OSError, target: Path) -> OSError:
    """``exc`` reported against ``target`` (its temporary sibling's name means nothing to a user)."""
    if exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror, str(target))


def atomic_write_text(path: str | os.PathLike[str], text: str, *, durable: bool = False) -> Path:
    """UTF-8 text, atomically (see :func:`atomic_write_bytes`)."""
    return atomic_write_bytes(path, encodable(text).encode("utf-8"), durable=durable)


def atomic_write_json(
    path: str | os.PathLike[str],
    obj: Any,
    *,
    indent: int | None = 2,
    allow_nan: bool = True,
    default: Callable[[Any], Any] | None = None,
    durable: bool = False,
) -> Path:
    """``obj`` as UTF-8 JSON (non-ASCII kept readable); indented files end with a newline."""
    text = json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=allow_nan, default=default)
    return atomic_write_text(path, text + "\n" if indent is not None else text, durable=durable)


def atomic_write_with(path: str | os.PathLike[str], write: Callable[[Path], None]) -> Path:
    """Let ``write(tmp)`` produce the file (e.g. a library that only writes to a path), then rename it.

    For writers that cannot hand over bytes, such as ``Dataset.to_parquet``.
    """
    target = Path(path)
    fd, tmp = _temp_sibling(target, True)
    os.close(fd)
    try:
        write(Path(tmp))
        # the writer may have replaced the file with one of its own making: give it open()'s mode
        os.chmod(tmp, 0o666 & ~_umask())
        _publish(tmp, target)
    except BaseException:
        _discard(tmp)
        raise
    return target


def atomic_replace_dir(staging: str | os.PathLike[str], final: str | os.PathLike[str]) -> Path:
    """Move a finished staging directory onto ``final`` (same parent), replacing what was there.

    The old tree is first renamed aside, so ``final`` is at every moment either the complete old
    tree or the complete new one (never a merge of both); it is deleted once the swap is done.
    """
    staging, final = Path(staging), Path(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    old: Path | None = None
    if final.exists() or final.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old-", dir=final.parent))
        old.rmdir()
        os.replace(final, old)
    try:
        os.replace(staging, final)
    except BaseException:
        if old is not None:
            os.replace(old, final)
        raise
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)
    return final
