"""Suite-wide guards: no network, no real tokens, caches in tmp, zero backoff."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

# Set before anything imports litellm / huggingface_hub / datasets.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["DISABLE_TQDM"] = "1"
os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
# `datasets` and `huggingface_hub` read their cache locations once, at import: point them at a
# private session directory before anything imports them, so no test writes to the real ~/.cache.
_SESSION_CACHE = tempfile.mkdtemp(prefix="redlinebench-tests-")
os.environ["HF_HOME"] = os.path.join(_SESSION_CACHE, "hf")
os.environ["HF_DATASETS_CACHE"] = os.path.join(_SESSION_CACHE, "hf", "datasets")
os.environ["REDLINEBENCH_CACHE"] = os.path.join(_SESSION_CACHE, "rb-cache")

_SECRET_ENV = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "OPENAI_API_BASE",
    "OPENAI_BASE_URL",
    "REDLINEBENCH_BENCHMARK_DIR",
)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """Every test gets private caches and no implicit credentials or data source."""
    for name in _SECRET_ENV:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("REDLINEBENCH_CACHE", str(home / "rb-cache"))
    monkeypatch.setenv("HF_HOME", str(home / "hf"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(home / "hf" / "datasets"))
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "0")
    yield


def _require(binary: str, marker: str) -> str:
    path = shutil.which(binary)
    if path:
        return path
    if os.environ.get("REDLINEBENCH_REQUIRE_EXTERNAL") in {"1", "true", "yes"}:
        pytest.fail(f"{binary} is required in CI ({marker} tests) but is not installed")
    pytest.skip(f"{binary} not installed")


@pytest.fixture(scope="session")
def soffice() -> str:
    """Path to LibreOffice; fails (not skips) in CI where .ci/run installs it."""
    return _require("soffice", "libreoffice")


@pytest.fixture(scope="session")
def chromium() -> str:
    """Path to Chromium; fails (not skips) in CI where .ci/run installs it."""
    return _require("chromium", "chromium")


@pytest.fixture
def fake_openai():
    """A started loopback OpenAI-compatible server (see tests/fakes/openai_server.py)."""
    from tests.fakes.openai_server import FakeOpenAI

    with FakeOpenAI() as server:
        yield server


# Shared loopback fakes exposed as fixtures (``fake_hub``) to every test package.
pytest_plugins = ["tests.fakes.hub_fixture"]
