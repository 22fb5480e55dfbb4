"""TaskFilter.describe: the selection in words, for error messages (not a Python dict)."""

from __future__ import annotations

from redlinebench.runner import TaskFilter


def test_describe_names_only_the_filters_that_are_set():
    assert TaskFilter(scenario=7).describe() == "scenario 7"
    assert TaskFilter(scenario=1, turn=2, side="b").describe() == "scenario 1, turn 2, side B"
    assert TaskFilter(task_ids=("redline-s1-t1-g01a",)).describe() == "task redline-s1-t1-g01a"
    assert TaskFilter(task_ids=("a", "b"), turn=4).describe() == "tasks a, b, turn 4"
    assert TaskFilter().describe() == "no filter"


def test_describe_is_one_line_without_dict_syntax():
    text = TaskFilter(task_ids=("x",), scenario=3, turn=1, side="A").describe()
    assert "\n" not in text and not any(c in text for c in "{}[]'")


def test_excludes_name_only_what_the_name_proves_unselected():
    assert TaskFilter(task_ids=("redline-s1-t1-g01a",)).excludes_name("redline-s1-t2-g02a")
    assert not TaskFilter(task_ids=("redline-s1-t1-g01a",)).excludes_name("redline-s1-t1-g01a")
    assert TaskFilter(scenario=2).excludes_name("redline-s1-t1-g01a")
    assert TaskFilter(turn=3).excludes_name("redline-s1-t1-g01a")
    assert not TaskFilter(turn=1).excludes_name("redline-s1-t1-g01a")
    assert not TaskFilter(side="B").excludes_name("redline-s1-t1-g01a")   # the side is not in the name
    assert not TaskFilter(scenario=2).excludes_name("not-a-task-name")     # unknown: may be selected
    assert not TaskFilter().excludes_name("redline-s1-t1-g01a")
