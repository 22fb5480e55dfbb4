"""The Hub step of source resolution, through real huggingface_hub HTTP against the loopback fake Hub."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from redlinebench import config
from redlinebench.errors import HubError
from redlinebench.tasks import hub_snapshot_dir, load_tasks, resolve_source
from tests.fakes.hub_fixture import fake_hub  # noqa: F401  (fixture)

REPO = Path(__file__).resolve().parents[2]


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def published(fake_hub, template_tree: Path, tmp_path: Path, monkeypatch) -> str:  # noqa: F811
    """The fixture tree committed to crosbylegal/RedlineBench on the fake Hub; its sha is the pinned revision."""
    sha = fake_hub.seed(config.HUB_DATASET_ID, _files(template_tree), repo_type="dataset", message="tasks")
    monkeypatch.setattr(config, "HUB_DATASET_REVISION", sha)
    monkeypatch.setattr(config, "embedded_benchmark_dir", lambda: tmp_path / "no-embedded")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return sha


def test_pinned_snapshot_is_downloaded_as_real_files(published: str, fake_hub, template_tree: Path) -> None:  # noqa: F811
    source = resolve_source()
    assert (source.kind, source.revision) == ("hub", published)
    assert source.path == hub_snapshot_dir(published)
    assert source.skipped == ("$REDLINEBENCH_BENCHMARK_DIR is not set", "no ./benchmark/ in the working directory")
    files = [p for p in source.tasks_dir.rglob("*") if p.is_file() or p.is_symlink()]
    assert files and not any(p.is_symlink() for p in files)
    tasks = load_tasks()
    assert tasks.source.kind == "hub"
    assert tasks.fingerprint() == load_tasks(template_tree).fingerprint()
    # the pinned commit was asked for by sha, never by branch
    assert any(published in path for _, path in fake_hub.requests)
    assert not any("/resolve/main/" in path for _, path in fake_hub.requests)


def test_cached_snapshot_needs_no_traffic_and_works_offline(published: str, fake_hub, monkeypatch) -> None:  # noqa: F811
    resolve_source()
    seen = len(fake_hub.requests)
    assert resolve_source().kind == "hub"
    assert len(fake_hub.requests) == seen  # the pinned sha is immutable: no new request
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert resolve_source().kind == "hub"


def test_unknown_revision(published: str, tmp_path: Path, template_tree: Path, monkeypatch) -> None:
    missing = "0" * 40
    with pytest.raises(HubError, match=f"revision {missing} was not found in dataset crosbylegal/RedlineBench") as err:
        resolve_source(f"hub@{missing}")
    assert "cannot reach" not in str(err.value) and "HTTP 404" in str(err.value)
    # the default order records the failure and falls back to the embedded set
    monkeypatch.setattr(config, "HUB_DATASET_REVISION", missing)
    monkeypatch.setattr(config, "embedded_benchmark_dir", lambda: template_tree)
    source = resolve_source()
    assert source.kind == "embedded"
    assert source.skipped[-1].startswith("Hub snapshot unavailable: the Hub (")
    assert f"revision {missing} was not found" in source.skipped[-1]


def test_a_missing_repository_is_reported_as_the_hubs_answer(fake_hub, tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    # the fake Hub is up but holds no crosbylegal/RedlineBench: a 404 RepositoryNotFound, not a network failure
    monkeypatch.chdir(tmp_path)
    with pytest.raises(HubError) as err:
        load_tasks("hub")
    message = str(err.value)
    assert "cannot reach" not in message
    assert f"dataset repository {config.HUB_DATASET_ID} was not found (HTTP 404" in message
    assert fake_hub.url in message


def test_an_unreachable_hub_is_still_called_unreachable(tmp_path: Path, monkeypatch) -> None:
    import socket

    from tests.fakes.hub_fixture import point_hub_at

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    point_hub_at(monkeypatch, f"http://127.0.0.1:{port}")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(HubError, match=f"cannot reach the Hub for {config.HUB_DATASET_ID}@"):
        load_tasks("hub")


def test_explicit_hub_keyword(published: str) -> None:
    source = resolve_source("hub")
    assert source.kind == "hub" and source.reason == f"asked for explicitly: {config.HUB_DATASET_ID}"


def test_cli_in_a_fresh_process_reads_hf_endpoint_from_the_environment(published: str, fake_hub, tmp_path: Path) -> None:  # noqa: F811
    """A new interpreter picks HF_ENDPOINT up at import; `tasks where` then explains the Hub choice."""
    code = (
        "import sys; from redlinebench import config; config.HUB_DATASET_REVISION = sys.argv[1];"
        "from redlinebench.cli import main; main(['tasks', 'where', '--json'])"
    )
    env = {**os.environ, "HF_ENDPOINT": fake_hub.url, "HF_HUB_OFFLINE": "0", "PYTHONPATH": str(REPO),
           "REDLINEBENCH_CACHE": str(tmp_path / "fresh-cache")}
    proc = subprocess.run([sys.executable, "-c", code, published], capture_output=True, text=True, env=env,
                          cwd=tmp_path / "work", timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["kind"] == "hub" and data["revision"] == published and data["n_task_dirs"] == 14
    assert data["path"] == str(tmp_path / "fresh-cache" / "hub" / "crosbylegal--RedlineBench" / published)
