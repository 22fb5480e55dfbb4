"""``tasks validate`` refuses every contract and golden the redline engine refuses at run time.

Before, validation only streamed document.xml and comments.xml, so a DTD in a part, a missing
``[Content_Types].xml`` or a missing ``w:body`` passed as "ok, 0 errors" and then every trial of
``run`` errored. Each case here is checked against the engine itself first.
"""

from __future__ import annotations

import io
import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench import config
from redlinebench.cli import main
from redlinebench.docx import RedlineDocument
from redlinebench.errors import DocxError
from redlinebench.tasks import validate_tasks

TASK = "redline-s1-t1-g01a"
CONTRACT = "environment/app/contract.docx"
GOLDEN = "tests/attorney_redlines.docx"
DTD = b'<!DOCTYPE x [<!ENTITY e "boom">]>'


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """One embedded task (with a golden) copied into tmp."""
    root = tmp_path / "bench"
    shutil.copytree(config.embedded_benchmark_dir() / "tasks" / TASK, root / "tasks" / TASK)
    return root


def _rewrite(path: Path, part: str, change: Callable[[bytes], bytes] | None) -> None:
    """Rewrite one zip entry of a .docx (``change=None`` drops the entry)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        names = source.namelist()
        assert part in names
        for name in names:
            data = source.read(name)
            if name == part:
                if change is None:
                    continue
                data = change(data)
            target.writestr(name, data)
    path.write_bytes(buffer.getvalue())


def _with_dtd(data: bytes) -> bytes:
    declaration, rest = data.split(b"?>", 1)
    return declaration + b"?>" + DTD + rest


def _without_body(data: bytes) -> bytes:
    changed = re.sub(rb"<w:body>.*</w:body>", b"", data, flags=re.S)
    assert changed != data
    return changed


CASES = [
    pytest.param(CONTRACT, "word/document.xml", _with_dtd, "contains a DTD", id="contract-dtd-document"),
    pytest.param(CONTRACT, "word/styles.xml", _with_dtd, "contains a DTD", id="contract-dtd-styles"),
    pytest.param(CONTRACT, "[Content_Types].xml", None, "not an Office Open XML package", id="contract-no-ctypes"),
    pytest.param(CONTRACT, "word/document.xml", _without_body, "has no w:body", id="contract-no-body"),
    pytest.param(GOLDEN, "word/document.xml", _with_dtd, "contains a DTD", id="golden-dtd-document"),
    pytest.param(GOLDEN, "word/styles.xml", _with_dtd, "contains a DTD", id="golden-dtd-styles"),
    pytest.param(GOLDEN, "word/document.xml", _without_body, "has no w:body", id="golden-no-body"),
]


@pytest.mark.parametrize("rel,part,change,fragment", CASES)
def test_validate_refuses_what_the_engine_refuses(tree: Path, rel: str, part: str, change, fragment: str) -> None:
    path = tree / "tasks" / TASK / rel
    assert validate_tasks(tree).ok  # the untouched copy is fine
    _rewrite(path, part, change)
    with pytest.raises(DocxError, match=re.escape(fragment)):  # what `run` would say
        RedlineDocument.open(path.read_bytes(), name=str(path))
    report = validate_tasks(tree)
    assert not report.ok and len(report.tasks) == 0
    [problem] = report.errors
    assert problem.path == str(path) and problem.task_id == TASK
    assert fragment in problem.message and "redline engine" in problem.message


@pytest.mark.parametrize("rel,part,change,fragment", CASES[:4])
def test_cli_validate_exits_1_naming_the_file(tree: Path, rel: str, part: str, change, fragment: str) -> None:
    path = tree / "tasks" / TASK / rel
    _rewrite(path, part, change)
    result = CliRunner().invoke(main, ["tasks", "validate", "--source", str(tree)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert rel in result.output and fragment in result.output and "1 error" in result.output


def test_a_bad_contract_shared_by_variants_is_reported_for_each(tree: Path) -> None:
    """Documents are opened once per content digest; the verdict still reaches every task using it."""
    sibling = tree / "tasks" / "redline-s1-t1-g01b"
    shutil.copytree(tree / "tasks" / TASK, sibling)
    for name in ("task.toml", "tests/rubrics.json"):
        path = sibling / name
        path.write_text(path.read_text(encoding="utf-8").replace("g01a", "g01b").replace('"a"', '"b"'), "utf-8")
    assert validate_tasks(tree).ok
    for task in (TASK, sibling.name):
        _rewrite(tree / "tasks" / task / CONTRACT, "word/document.xml", _with_dtd)
    report = validate_tasks(tree)
    assert sorted((p.task_id, Path(p.path).name) for p in report.errors) == [
        (TASK, "contract.docx"), (sibling.name, "contract.docx")]
    assert all("contains a DTD" in p.message for p in report.errors)
