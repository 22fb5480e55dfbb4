"""Shared fixtures for the engine acceptance suite: the corpus on disk, LibreOffice-authored
documents, the LibreOffice oracle and openxml-audit, all cached for one test session."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.fixtures.audit import audit_errors, new_audit_errors  # noqa: F401  (re-exported for the tests)
from tests.fixtures.corpus import CORPUS
from tests.fixtures.libreoffice import LO_SOURCES, convert_to_docx

ORACLE_SCRIPT = Path(__file__).with_name("lo_oracle.py")


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    for name, fixture in CORPUS.items():
        (out / f"{name}.docx").write_bytes(fixture.data())
    return out


@pytest.fixture(scope="session")
def lo_docs(soffice, tmp_path_factory) -> dict[str, Path]:
    """LibreOffice-authored .docx files (converted once per session)."""
    out = tmp_path_factory.mktemp("lo-docs")
    return {stem: convert_to_docx(soffice, build(), out, stem) for stem, build in LO_SOURCES.items()}


def _uno_python() -> str | None:
    for candidate in ("/usr/bin/python3", shutil.which("python3")):
        if candidate and os.path.exists(candidate):
            probe = subprocess.run([candidate, "-c", "import uno"], capture_output=True, timeout=30)
            if probe.returncode == 0:
                return candidate
    return None


#: How a LibreOffice whose UNO bridge cannot load a document says so (Debian's 7.4 ``-nogui`` build
#: on a commented document: "Binary URP bridge disposed during call"): the install, not our file.
_UNO_BROKEN = ("URP bridge", "DisposedException", "RuntimeException: Binary URP")


def uno_load_failure(entries) -> str | None:
    """The first per-file error that is LibreOffice's UNO bridge failing, not the document."""
    for entry in entries:
        error = str((entry or {}).get("error") or "")
        if any(marker in error for marker in _UNO_BROKEN):
            return error
    return None


def unusable_uno(reason: str) -> None:
    """Skip a test this LibreOffice cannot serve, with the reason; in CI (REDLINEBENCH_REQUIRE_EXTERNAL=1,
    where a LibreOffice that works must be installed) fail instead."""
    message = f"LibreOffice's UNO bridge cannot load documents here ({reason})"
    if os.environ.get("REDLINEBENCH_REQUIRE_EXTERNAL") in {"1", "true", "yes"}:
        pytest.fail(message + "; CI must install a LibreOffice whose UNO load works")
    pytest.skip(message)


class Oracle:
    """Runs ``lo_oracle.py`` in the system Python (python3-uno); results cached by file content."""

    def __init__(self, soffice: str, python: str, work: Path) -> None:
        self.soffice, self.python, self.work = soffice, python, work
        self.cache: dict[str, dict] = {}

    def run(self, paths: list[Path], *, pdf: bool = False) -> dict[Path, dict]:
        keys = {p: hashlib.sha256(p.read_bytes()).hexdigest() + (":pdf" if pdf else "") for p in paths}
        todo = [p for p in paths if keys[p] not in self.cache]
        if todo:
            job = {"soffice": self.soffice, "profile": str(self.work / "profile"), "files": []}
            for n, path in enumerate(todo):
                item = {"path": str(path)}
                if pdf:
                    item["pdf"] = str(self.work / f"{keys[path][:16]}-{n}.pdf")
                job["files"].append(item)
            job_path = self.work / "job.json"
            result_path = self.work / "result.json"
            job_path.write_text(json.dumps(job))
            try:
                subprocess.run([self.python, str(ORACLE_SCRIPT), str(job_path), str(result_path)], check=True,
                               timeout=60 + 20 * len(todo), capture_output=True, text=True)
            except subprocess.CalledProcessError as exc:
                unusable_uno(f"the oracle script failed: {(exc.stderr or '').strip().splitlines()[-1:]}")
            except subprocess.TimeoutExpired:
                unusable_uno("the oracle script timed out")
            results = json.loads(result_path.read_text())
            broken = uno_load_failure(results.values())
            if broken:
                unusable_uno(broken)
            for path in todo:
                self.cache[keys[path]] = results[str(path)]
        return {p: self.cache[keys[p]] for p in paths}


@pytest.fixture(scope="session")
def lo_oracle(soffice, tmp_path_factory) -> Oracle:
    python = _uno_python()
    if python is None:
        if os.environ.get("REDLINEBENCH_REQUIRE_EXTERNAL") in {"1", "true", "yes"}:
            pytest.fail("python3-uno is required in CI for the LibreOffice oracle")
        pytest.skip("python3-uno not available")
    return Oracle(soffice, python, tmp_path_factory.mktemp("oracle"))


def part_text(data: bytes, name: str) -> str:
    return zipfile.ZipFile(io.BytesIO(data)).read(name).decode("utf-8")
