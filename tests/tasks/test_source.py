"""Source resolution order: explicit > $REDLINEBENCH_BENCHMARK_DIR > ./benchmark > Hub > embedded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from redlinebench import config
from redlinebench.errors import ConfigError, HubError, TaskError
from redlinebench.tasks import hub_snapshot_dir, load_tasks, resolve_source


@pytest.fixture
def places(template_tree: Path, tmp_path: Path, monkeypatch) -> dict[str, Path]:
    """Four distinct copies of the tree, one per kind of source; cwd is a fresh directory."""
    out = {}
    for name in ("explicit", "env", "embedded"):
        out[name] = tmp_path / name
        shutil.copytree(template_tree, out[name])
    work = tmp_path / "work"
    work.mkdir()
    out["local"] = work / "benchmark"
    shutil.copytree(template_tree, out["local"])
    monkeypatch.chdir(work)
    monkeypatch.setattr(config, "embedded_benchmark_dir", lambda: out["embedded"])
    return out


def test_explicit_beats_everything(places, monkeypatch) -> None:
    monkeypatch.setenv("REDLINEBENCH_BENCHMARK_DIR", str(places["env"]))
    source = resolve_source(places["explicit"])
    assert (source.kind, source.path, source.reason) == ("path", places["explicit"], "given explicitly")
    assert source.tasks_dir == places["explicit"] / "tasks"


def test_env_beats_local(places, monkeypatch) -> None:
    monkeypatch.setenv("REDLINEBENCH_BENCHMARK_DIR", str(places["env"]))
    source = resolve_source()
    assert (source.kind, source.path) == ("env", places["env"])


def test_local_benchmark_dir_beats_hub_and_embedded(places) -> None:
    source = resolve_source()
    assert (source.kind, source.path) == ("local", places["local"].resolve())
    assert source.skipped == ("$REDLINEBENCH_BENCHMARK_DIR is not set",)


def test_offline_without_snapshot_falls_back_to_embedded_and_says_why(places) -> None:
    shutil.rmtree(places["local"])
    source = resolve_source()
    assert (source.kind, source.path) == ("embedded", places["embedded"])
    assert source.skipped[:2] == ("$REDLINEBENCH_BENCHMARK_DIR is not set", "no ./benchmark/ in the working directory")
    assert source.skipped[2].startswith("Hub snapshot unavailable: HF_HUB_OFFLINE is set")


def test_complete_cached_snapshot_is_used_offline(places, template_tree: Path) -> None:
    shutil.rmtree(places["local"])
    snapshot = hub_snapshot_dir()
    shutil.copytree(template_tree, snapshot)
    # an incomplete snapshot (no marker) is not trusted
    assert resolve_source().kind == "embedded"
    (snapshot / ".redlinebench-snapshot.json").write_text(
        json.dumps({"repo_id": config.HUB_DATASET_ID, "revision": config.HUB_DATASET_REVISION})
    )
    source = resolve_source()
    assert (source.kind, source.path, source.revision) == ("hub", snapshot, config.HUB_DATASET_REVISION)
    assert len(load_tasks()) == 14


def test_tasks_dir_itself_is_accepted(places) -> None:
    source = resolve_source(places["explicit"] / "tasks")
    assert source.path == places["explicit"] and source.tasks_dir == places["explicit"] / "tasks"
    assert [t.source_task_path for t in load_tasks(places["explicit"] / "tasks")][0] == "tasks/redline-s1-t1-g01a"


def test_dir_of_task_dirs_not_named_tasks(places, tmp_path: Path) -> None:
    other = tmp_path / "my-set"
    shutil.copytree(places["explicit"] / "tasks", other)
    source = resolve_source(other)
    assert source.tasks_dir == other and source.path == other
    assert len(load_tasks(other)) == 14


def test_explicit_embedded_keyword(places) -> None:
    assert resolve_source("embedded").kind == "embedded"


def test_the_embedded_set_named_by_its_path_is_still_the_embedded_set(places, monkeypatch) -> None:
    # `redlinebench demo` passes the shipped set as a path; the run must not record it as any tree
    for given in (places["embedded"], places["embedded"] / "tasks"):
        source = resolve_source(given)
        assert (source.kind, source.path) == ("embedded", places["embedded"])
        assert source.reason == "given explicitly; the package's own copy"
        assert source.describe().count("synthetic set") == 1  # the label names it; the reason says why
    monkeypatch.setenv("REDLINEBENCH_BENCHMARK_DIR", str(places["embedded"]))
    assert resolve_source().kind == "embedded"
    assert resolve_source(places["explicit"]).kind == "path"  # an identical copy elsewhere is just a path


def test_explicit_hub_keyword_offline_is_an_error(places) -> None:
    with pytest.raises(HubError, match="HF_HUB_OFFLINE is set"):
        resolve_source("hub")


def test_missing_explicit_dir_is_an_error_not_a_fallback(places, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="task source does not exist"):
        resolve_source(tmp_path / "nope")


def test_env_pointing_nowhere_is_an_error(places, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REDLINEBENCH_BENCHMARK_DIR", str(tmp_path / "gone"))
    with pytest.raises(ConfigError, match="gone"):
        resolve_source()


def test_single_task_dir_and_empty_dir(places, tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="single task directory"):
        resolve_source(places["explicit"] / "tasks" / "redline-s1-t1-g01a")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TaskError, match="no task directories found"):
        resolve_source(empty)


def test_nothing_anywhere_explains_every_step(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(config, "embedded_benchmark_dir", lambda: tmp_path / "not-built")
    with pytest.raises(TaskError) as info:
        resolve_source()
    message = str(info.value)
    assert "$REDLINEBENCH_BENCHMARK_DIR is not set" in message
    assert "no ./benchmark/" in message
    assert "HF_HUB_OFFLINE" in message
    assert "embedded set is not built" in message


def test_an_unreachable_hub_falls_back_with_a_warning_but_explicit_offline_does_not(places, monkeypatch,
                                                                                    caplog) -> None:
    """HF_HUB_OFFLINE=1 chooses the embedded set on purpose; an unreachable Hub must not do so silently."""
    import logging

    from redlinebench.tasks import _source

    shutil.rmtree(places["local"])
    monkeypatch.setattr(_source, "_HUB_NOTICE_GIVEN", False)
    caplog.set_level(logging.INFO, logger="redlinebench.tasks")
    assert resolve_source().kind == "embedded"  # the suite runs with HF_HUB_OFFLINE=1
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    caplog.clear()
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    import socket

    with socket.socket() as sock:  # a loopback port nobody listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "2")
    assert resolve_source().kind == "embedded"
    assert resolve_source().kind == "embedded"  # tried again, but the notice is given once per process
    [warning] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    text = warning.getMessage()
    assert len(text) < 300
    assert "\n" not in text and text.startswith("warning: using the embedded synthetic task set")
    assert f"not {config.HUB_DATASET_ID} (cannot reach the Hub" in text and "HF_HUB_OFFLINE=1" in text
