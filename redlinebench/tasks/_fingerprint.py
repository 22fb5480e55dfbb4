"""Content fingerprint of task directories, with a stat-keyed digest memo so warm loads are cheap.

The fingerprint hashes every file's relative name and bytes. Re-reading a 20-100 MB tree on
every ``load_dataset`` call would dominate a warm load, so each file's digest is remembered
against its ``(size, mtime_ns, ctime_ns, inode)``, in memory and in ``<cache>/file-digests.json``.
A file whose timestamps are younger than :data:`_RACY_NS` is never remembered (the "racy git"
rule): file times are coarse, and a same-size rewrite within one tick would otherwise look
unchanged. ``ctime`` cannot be set by tools that preserve ``mtime``, so copies are caught too.

The memo is kept small: entries of files in folders that no longer exist (temporary trees,
deleted runs) are dropped when it is saved, and beyond :data:`_MAX_ENTRIES` the least recently
used go, since loading and rewriting a memo of every file ever seen would cost more than it saves.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path

from .. import config
from .._atomic import atomic_write_json

#: Bumped whenever parsing changes what a tree turns into, so cached datasets are rebuilt.
PARSER_VERSION = "3"
_RACY_NS = 2_000_000_000
_MEMO_FILE = "file-digests.json"
_MAX_ENTRIES = 50_000
_memo: dict[str, tuple[tuple[int, int, int, int], str]] = {}
_loaded_from: set[Path] = set()
_dirty = False


def _load_memo(cache: Path) -> None:
    if cache in _loaded_from:
        return
    _loaded_from.add(cache)
    try:
        raw = json.loads((cache / _MEMO_FILE).read_text(encoding="utf-8"))
        for path, (size, mtime, ctime, ino, digest) in raw.items():
            _memo.setdefault(path, ((int(size), int(mtime), int(ctime), int(ino)), str(digest)))
    except (OSError, ValueError, TypeError):
        pass  # no memo, or a damaged one: everything is simply re-read


def _prune_memo() -> None:
    """Drop entries whose folder is gone, then the least recently used beyond the cap (in place)."""
    alive: dict[str, bool] = {}
    for path in list(_memo):
        folder = os.path.dirname(path)
        exists = alive.get(folder)
        if exists is None:
            exists = alive[folder] = os.path.isdir(folder)
        if not exists:
            del _memo[path]
    for path in list(_memo)[: max(0, len(_memo) - _MAX_ENTRIES)]:  # dict order is least recent first
        del _memo[path]


def _save_memo(cache: Path) -> None:
    _prune_memo()
    try:
        atomic_write_json(cache / _MEMO_FILE, {p: [*k, d] for p, (k, d) in _memo.items()}, indent=None)
    except OSError:
        pass  # a read-only cache only costs speed


def file_digest(path: str, now_ns: int | None = None) -> str:
    """blake2b of the file's bytes, remembered while its stat key is unchanged."""
    st = os.stat(path)
    key = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    hit = _memo.pop(path, None)
    if hit is not None and hit[0] == key:
        _memo[path] = hit  # re-inserted: the memo's order is its use order
        return hit[1]
    h = hashlib.blake2b(digest_size=20)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    global _dirty
    now_ns = time.time_ns() if now_ns is None else now_ns
    if now_ns - max(st.st_mtime_ns, st.st_ctime_ns) > _RACY_NS:
        _memo[path] = (key, digest)
        _dirty = True
    elif hit is not None:  # a stale entry was dropped above
        _dirty = True
    return digest


def fingerprint_dirs(dirs: Iterable[Path]) -> str:
    """Content hash of every file below the given task directories (names and bytes).

    Any edit to a rubric, an instruction or a document changes it; timestamps and the tree's
    location do not. Hidden files and directories are ignored.
    """
    global _dirty
    cache = config.cache_dir()
    _load_memo(cache)
    now_ns = time.time_ns()
    h = hashlib.blake2b(digest_size=20)
    h.update(f"redlinebench-tasks/{PARSER_VERSION}\0".encode())
    for directory in dirs:
        h.update(b"D" + directory.name.encode("utf-8") + b"\0")
        files: list[tuple[str, str]] = []
        for current, subdirs, names in os.walk(directory):
            subdirs[:] = [d for d in subdirs if not d.startswith(".")]
            for name in names:
                if not name.startswith("."):
                    full = os.path.join(current, name)
                    files.append((os.path.relpath(full, directory).replace(os.sep, "/"), os.path.abspath(full)))
        for rel, full in sorted(files):
            h.update(b"F" + rel.encode("utf-8") + b"\0" + file_digest(full, now_ns).encode("ascii"))
    if _dirty:
        _save_memo(cache)
        _dirty = False
    return h.hexdigest()
