"""Every message about the shipped task set names it "the embedded synthetic set", never the folder
it was installed in (site-packages/redlinebench/_data/benchmark says nothing a user can act on)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.config import embedded_benchmark_dir
from redlinebench.errors import ConfigError, TaskError
from redlinebench.tasks import load_tasks

NAME = "the embedded synthetic set"


def _no_install_path(text: str) -> None:
    install = str(embedded_benchmark_dir())
    assert install not in text and "_data/benchmark" not in text, text


def test_the_runs_empty_selection_names_the_embedded_set(tmp_path):
    from redlinebench.runner import Entrant, RunSpec, TaskFilter, run

    with pytest.raises(ConfigError) as info:
        run(RunSpec(entrants=(Entrant("noop"),), judges="heuristic", source="embedded",
                    filter=TaskFilter(scenario=1, turn=5)), tmp_path / "run", progress=False)
    assert str(info.value).startswith(f"no task matches scenario 1, turn 5 in {NAME} (")
    _no_install_path(str(info.value))


def test_the_cli_run_error_tasks_where_and_the_dry_run_name_no_install_path(tmp_path):
    r = CliRunner().invoke(main, ["run", "--agent", "noop", "--judges", "heuristic", "--source", "embedded",
                                  "--turn", "5", "--run-dir", str(tmp_path / "x")])
    assert r.exit_code == 2 and f"no task matches turn 5 in {NAME}" in r.output, r.output
    _no_install_path(r.output)
    r = CliRunner().invoke(main, ["tasks", "where", "--source", "embedded"])
    assert r.exit_code == 0 and f"path:      embedded ({NAME}, shipped inside the package)" in r.output
    _no_install_path(r.output)
    r = CliRunner().invoke(main, ["run", "--agent", "noop", "--judges", "heuristic", "--source", "embedded",
                                  "--scenario", "1", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert any(line.startswith("data: embedded (") for line in r.output.splitlines())
    _no_install_path(r.output)


def test_tasks_list_and_validate_name_the_embedded_set(tmp_path):
    r = CliRunner().invoke(main, ["tasks", "list", "--source", "embedded", "--scenario", "1"])
    assert r.exit_code == 0 and r.output.rstrip().endswith(f"({NAME})"), r.output
    _no_install_path(r.output)
    r = CliRunner().invoke(main, ["tasks", "validate", "--source", "embedded"])
    assert f"tasks in {NAME}: " in r.output, r.output
    _no_install_path(r.output)


def test_a_notebooks_task_error_names_the_embedded_set():
    tasks = load_tasks("embedded")
    with pytest.raises(TaskError) as info:
        tasks.get("redline-s9-t1-g01a")
    assert f"no task 'redline-s9-t1-g01a' in {NAME}" in str(info.value)
    with pytest.raises(TaskError) as info:
        tasks.filter(turn=5)
    assert f"no task has turn 5 in {NAME}" in str(info.value)
    _no_install_path(str(info.value))
    assert tasks.source.describe().startswith(NAME)
