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
            subprocess.run([self.python, str(ORACLE_SCRIPT), str(job_path), str(result_path)], check=True,
                           timeout=60 + 20 * len(todo))
            results = json.loads(result_path.read_text())
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
