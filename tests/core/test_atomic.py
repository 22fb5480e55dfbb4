"""The one atomic-write module: content, permissions, cleanup on failure, directory swaps."""

from __future__ import annotations

import json
import os
import stat

import pytest

from redlinebench._atomic import (
    atomic_replace_dir,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    atomic_write_with,
)


def _siblings(folder):
    return sorted(p.name for p in folder.iterdir())


def test_bytes_creates_parents_and_replaces(tmp_path):
    target = tmp_path / "a" / "b" / "f.bin"
    assert atomic_write_bytes(target, b"one") == target
    atomic_write_bytes(target, b"two", durable=True)
    assert target.read_bytes() == b"two"
    assert _siblings(target.parent) == ["f.bin"]  # no temporary left behind


def test_permissions_follow_the_umask_not_mkstemp(tmp_path):
    old = os.umask(0o027)
    try:
        path = atomic_write_text(tmp_path / "r.html", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # 0o666 & ~0o027


def test_text_is_utf8(tmp_path):
    path = atomic_write_text(tmp_path / "t.txt", "Überstunden – ok")
    assert path.read_bytes() == "Überstunden – ok".encode("utf-8")


def test_json_styles(tmp_path):
    pretty = atomic_write_json(tmp_path / "p.json", {"k": "é", "n": [1]})
    assert pretty.read_text("utf-8") == '{\n  "k": "é",\n  "n": [\n    1\n  ]\n}\n'
    compact = atomic_write_json(tmp_path / "c.json", {"k": 1}, indent=None)
    assert compact.read_text("utf-8") == '{"k": 1}'


def test_json_failure_keeps_old_file_and_leaves_no_temp(tmp_path):
    target = tmp_path / "g.json"
    atomic_write_json(target, {"ok": 1})
    with pytest.raises(ValueError):
        atomic_write_json(target, {"bad": float("nan")}, allow_nan=False)
    assert json.loads(target.read_text("utf-8")) == {"ok": 1}
    assert _siblings(tmp_path) == ["g.json"]


def test_with_writer_failure_cleans_up(tmp_path):
    target = tmp_path / "d.parquet"

    def boom(tmp):
        tmp.write_bytes(b"half")
        raise RuntimeError("writer died")

    with pytest.raises(RuntimeError):
        atomic_write_with(target, boom)
    assert _siblings(tmp_path) == []
    atomic_write_with(target, lambda tmp: tmp.write_bytes(b"whole"))
    assert target.read_bytes() == b"whole"


def test_replace_dir_swaps_whole_trees(tmp_path):
    final = tmp_path / "tasks"
    (final / "old_task").mkdir(parents=True)
    (final / "old_task" / "x").write_text("old")
    staging = tmp_path / ".staging"
    (staging / "new_task").mkdir(parents=True)
    (staging / "new_task" / "y").write_text("new")
    atomic_replace_dir(staging, final)
    assert sorted(p.name for p in final.iterdir()) == ["new_task"]  # never a merge of both
    assert (final / "new_task" / "y").read_text() == "new"
    assert _siblings(tmp_path) == ["tasks"]  # staging moved, old tree deleted


def test_replace_dir_restores_old_tree_when_the_swap_fails(tmp_path):
    final = tmp_path / "tasks"
    final.mkdir()
    (final / "keep").write_text("old")
    with pytest.raises(FileNotFoundError):
        atomic_replace_dir(tmp_path / "missing-staging", final)
    assert (final / "keep").read_text() == "old"
    assert _siblings(tmp_path) == ["tasks"]


def test_parents_false_leaves_a_missing_folder_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic_write_bytes(tmp_path / "missing" / "x.docx", b"x", parents=False)
    assert not (tmp_path / "missing").exists()
