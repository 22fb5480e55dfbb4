"""Hostile inputs: a DocxError naming the file and the problem, fast, in bounded memory."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.errors import DocxError
from tests.fixtures.hostile import HOSTILE

NAME = "hostile-input.docx"


@pytest.fixture(scope="module")
def hostile_bytes() -> dict[str, bytes]:
    return {name: build() for name, (build, _) in HOSTILE.items()}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_open_refuses_with_clear_error(name, hostile_bytes):
    data = hostile_bytes[name]
    words = HOSTILE[name][1]
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(DocxError) as info:
            RedlineDocument.open(data, name=NAME)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    elapsed = time.perf_counter() - started
    message = str(info.value)
    assert NAME in message, message
    assert len(message) < 400 and "\n" not in message, message
    for word in words:
        assert word.lower() in message.lower(), (word, message)
    assert elapsed < 5, f"{name} took {elapsed:.1f}s"
    assert peak < 120 * 1024 * 1024, f"{name} peaked at {peak / 2**20:.0f} MB"


def test_file_paths_not_found_and_directory(tmp_path):
    with pytest.raises(DocxError, match="not found"):
        RedlineDocument.open(tmp_path / "missing.docx")
    with pytest.raises(DocxError):
        RedlineDocument.open(tmp_path)


def test_entities_are_never_expanded(hostile_bytes):
    # whatever the outcome, /etc/passwd content must never surface
    try:
        doc = RedlineDocument.open(hostile_bytes["external_entity"])
    except DocxError as exc:
        assert "root:" not in str(exc)
    else:  # pragma: no cover - a refusal is expected
        assert "root:" not in doc.text("current")
