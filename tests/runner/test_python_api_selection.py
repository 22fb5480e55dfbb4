"""The Python API selects tasks as the CLI does: RunSpec(scenario=1), tasks["id"], run(spec, "runs/mine")."""

from __future__ import annotations

import pytest

from redlinebench.errors import ConfigError, TaskError
from redlinebench.runner import Entrant, RunSpec, TaskFilter, run
from redlinebench.runner.spec import stratified_first
from redlinebench.tasks import load_tasks

GOLDEN = (Entrant("golden"),)


def test_runspec_takes_the_selection_as_the_cli_spells_it():
    spec = RunSpec(entrants=GOLDEN, scenario=1, turn="2", side="b", limit=3)
    assert spec.filter == TaskFilter(scenario=1, turn=2, side="B", limit=3)
    assert (spec.scenario, spec.turn, spec.side, spec.limit) == (1, 2, "B", 3)
    assert RunSpec(entrants=GOLDEN, tasks="redline-s1-t1-g01a").filter.task_ids == ("redline-s1-t1-g01a",)
    assert RunSpec(entrants=GOLDEN, filter=TaskFilter(scenario=2)).scenario == 2  # the long form still works
    assert RunSpec.from_dict(spec.to_dict()).filter == spec.filter


def test_runspec_refuses_two_selections_and_bad_values():
    with pytest.raises(ConfigError, match="not both"):
        RunSpec(entrants=GOLDEN, filter=TaskFilter(turn=1), scenario=1)
    with pytest.raises(ConfigError, match="side must be A"):
        RunSpec(entrants=GOLDEN, side="C")
    with pytest.raises(ConfigError, match="whole number"):
        RunSpec(entrants=GOLDEN, limit=0)


def test_taskset_by_id_with_close_matches():
    tasks = load_tasks("embedded")
    assert tasks["redline-s1-t2-g01a"].task_id == "redline-s1-t2-g01a"
    assert tasks[0] is tasks.tasks[0]
    with pytest.raises(KeyError, match="did you mean redline-s1-t2-g01"):
        tasks["redline-s1-t2-g01x"]


def test_filter_on_a_value_no_task_has_names_the_values_there_are():
    tasks = load_tasks("embedded")
    with pytest.raises(TaskError, match=r"no task has scenario 9 in the embedded synthetic set .*scenarios there: 1, 2, 3"):
        tasks.filter(scenario=9)
    with pytest.raises(TaskError, match="sides there: A, B"):
        tasks.filter(side="C")
    assert len(tasks.filter(scenario=1, turn=1)) > 0


def test_messages_name_the_embedded_set_not_its_install_folder():
    tasks = load_tasks("embedded")
    with pytest.raises(TaskError) as info:
        tasks.get("nope")
    assert "site-packages" not in str(info.value) and "_data" not in str(info.value)
    assert "in the embedded synthetic set" in str(info.value)


def test_limit_spreads_over_the_cells_and_is_the_same_every_time():
    tasks = load_tasks("embedded").tasks
    first = stratified_first(tasks, 12)
    assert len({(t.scenario_id, t.turn) for t in first}) == 12
    assert [t.task_id for t in first] == [t.task_id for t in stratified_first(list(tasks), 12)]
    # a short smoke run spans the grid: 3 tasks, three scenarios; 4 tasks, four turns
    assert [t.task_id for t in stratified_first(tasks, 3)] == [
        "redline-s1-t1-g01a", "redline-s2-t2-g01a", "redline-s3-t3-g01a"]
    four = stratified_first(tasks, 4)
    assert {t.turn for t in four} == {1, 2, 3, 4} and {t.scenario_id for t in four} == {1, 2, 3}
    assert len(stratified_first(tasks, 1000)) == len(tasks)


def test_run_names_the_run_after_its_folder_like_the_cli(tmp_path):
    spec = RunSpec(entrants=GOLDEN, source="embedded", tasks="redline-s1-t1-g01a", judges="none")
    result = run(spec, tmp_path / "mine", progress=False)
    assert result.spec.run_id == "mine"
    assert result.config["run_id"] == "mine"
    chosen = RunSpec(entrants=GOLDEN, source="embedded", tasks="redline-s1-t1-g01a", judges="none", run_id="x1")
    assert run(chosen, tmp_path / "other", progress=False).spec.run_id == "x1"  # an id given is kept
