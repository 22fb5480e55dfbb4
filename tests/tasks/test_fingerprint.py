"""The digest memo never hides a change: racy rewrites, same-size edits with restored mtimes, copies."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from redlinebench import config
from redlinebench.tasks import _fingerprint
from redlinebench.tasks._fingerprint import file_digest, fingerprint_dirs


def _dirs(tree: Path) -> list[Path]:
    return sorted((tree / "tasks").iterdir())


def test_same_size_rewrite_right_after_hashing_is_seen(tree: Path) -> None:
    rubrics = tree / "tasks/redline-s1-t1-g01a/tests/rubrics.json"
    first = fingerprint_dirs(_dirs(tree))
    text = rubrics.read_text()
    rubrics.write_text(text.replace('"weight": -3', '"weight": -4'))  # same size, same tick
    assert len(rubrics.read_text()) == len(text)
    assert fingerprint_dirs(_dirs(tree)) != first


def test_memo_hit_and_restored_mtime(tree: Path) -> None:
    path = str(tree / "tasks/redline-s1-t1-g01a/tests/rubrics.json")
    future = time.time_ns() + 10 * 10**9  # pretend the file is old enough to remember
    digest = file_digest(path, future)
    assert _fingerprint._memo[path][1] == digest
    before = os.stat(path)
    text = Path(path).read_text()
    Path(path).write_text(text.replace('"weight": -3', '"weight": -4'))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # a tool that preserves mtime
    assert file_digest(path, future) != digest  # ctime moved, so the memo is not trusted


def test_memo_is_persisted_and_reused(tree: Path, monkeypatch) -> None:
    monkeypatch.setattr(_fingerprint, "_memo", {})
    monkeypatch.setattr(_fingerprint, "_loaded_from", set())
    old = time.time() - 3600
    for path in (tree / "tasks").rglob("*"):
        os.utime(path, (old, old))
    monkeypatch.setattr(time, "time_ns", lambda: int((old + 7200) * 1e9))  # ctime is "old" from here
    first = fingerprint_dirs(_dirs(tree))
    memo_file = config.cache_dir() / "file-digests.json"
    stored = json.loads(memo_file.read_text())
    assert len(stored) == sum(1 for p in (tree / "tasks").rglob("*") if p.is_file())
    # a new process: empty memory, memo read from disk, and no file needs to be opened
    monkeypatch.setattr(_fingerprint, "_memo", {})
    monkeypatch.setattr(_fingerprint, "_loaded_from", set())
    opened: list[str] = []
    real_open = open

    def spy(file, *a, **k):
        opened.append(str(file))
        return real_open(file, *a, **k)

    monkeypatch.setattr("builtins.open", spy)
    assert fingerprint_dirs(_dirs(tree)) == first
    assert not [p for p in opened if p.startswith(str(tree))]


def test_memo_forgets_deleted_folders_and_keeps_the_recently_used(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(_fingerprint, "_memo", {})
    monkeypatch.setattr(_fingerprint, "_MAX_ENTRIES", 3)
    live = tmp_path / "live"
    live.mkdir()
    files = []
    for i in range(4):
        f = live / f"f{i}.txt"
        f.write_text(str(i))
        files.append(str(f))
    later = time.time_ns() + 10 * 10**9
    gone = str(tmp_path / "deleted-run" / "redline.docx")
    _fingerprint._memo[gone] = ((1, 1, 1, 1), "0" * 40)  # left by a tree that no longer exists
    for f in files:
        file_digest(f, later)
    file_digest(files[0], later)  # used again: now the most recent
    _fingerprint._save_memo(config.cache_dir())
    stored = json.loads((config.cache_dir() / "file-digests.json").read_text())
    assert gone not in stored
    assert set(stored) == {files[2], files[3], files[0]}  # f1 was least recently used
