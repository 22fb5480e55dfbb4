"""One fresh build of the synthetic tree per session (through the real CLI), shared by the tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.synthetic import SOURCES_DIR, load_sources


@pytest.fixture(scope="session")
def scenarios():
    return load_sources(SOURCES_DIR)


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("synthetic") / "benchmark"
    result = CliRunner().invoke(main, ["data", "build-synthetic", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "39 tasks" in result.output
    return out
