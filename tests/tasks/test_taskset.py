"""TaskSet: filters, input groups, cells, lookup, content fingerprint."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from redlinebench.errors import TaskError
from redlinebench.tasks import load_tasks
from tests.tasks.treefactory import edit_json


def test_filters_combine(tree: Path) -> None:
    tasks = load_tasks(tree)
    assert tasks.filter(scenario=2).ids == [
        "redline-s2-t1-g01a", "redline-s2-t2-g01a", "redline-s2-t3-g02a", "redline-s2-t3-g02b", "redline-s2-t4-g01a",
    ]
    assert tasks.filter(scenario="2", turn=[3, 4]).ids == ["redline-s2-t3-g02a", "redline-s2-t3-g02b", "redline-s2-t4-g01a"]
    assert tasks.filter(side="a", turn=1).ids == ["redline-s1-t1-g01a", "redline-s1-t1-g01b", "redline-s3-t1-g01a"]
    assert tasks.filter(variant="b").ids == ["redline-s1-t1-g01b", "redline-s2-t3-g02b"]
    assert tasks.filter(input_group="s2-t3-g02").ids == ["redline-s2-t3-g02a", "redline-s2-t3-g02b"]
    assert tasks.filter(ids=["redline-s3-t4-g01a", "redline-s1-t2-g01a"]).ids == [
        "redline-s1-t2-g01a", "redline-s3-t4-g01a",
    ]
    with pytest.raises(TaskError, match="no task has scenario 9"):  # a value no task has is a mistake, not an empty set
        tasks.filter(scenario=9)
    # filtering keeps the source
    assert tasks.filter(scenario=1).source == tasks.source


def test_unknown_id_suggests_close_matches(tree: Path) -> None:
    tasks = load_tasks(tree)
    with pytest.raises(TaskError, match=r"no task 'redline-s1-t1-g01c'.*did you mean redline-s1-t1-g01b, redline-s1-t1-g01a"):
        tasks.get("redline-s1-t1-g01c")
    with pytest.raises(TaskError):
        tasks.filter(ids=["redline-s9-t1-g01a"])
    assert "redline-s1-t1-g01a" in tasks and "nope" not in tasks


def test_input_groups_and_cells(tree: Path) -> None:
    tasks = load_tasks(tree)
    groups = tasks.input_groups()
    assert len(groups) == 12
    assert [t.variant for t in groups["s1-t1-g01"]] == ["a", "b"]
    cells = tasks.cells()
    assert list(cells) == [(s, t) for s in (1, 2, 3) for t in (1, 2, 3, 4)]
    assert [len(v) for v in cells.values()] == [2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1]


def test_fingerprint_tracks_content_not_timestamps(tree: Path, tmp_path: Path) -> None:
    first = load_tasks(tree).fingerprint()
    assert len(first) == 40
    rubrics = tree / "tasks/redline-s1-t1-g01a/tests/rubrics.json"
    os.utime(rubrics, (1, 1))
    assert load_tasks(tree).fingerprint() == first
    # the same content at another path has the same fingerprint
    moved = tmp_path / "moved"
    shutil.copytree(tree, moved)
    assert load_tasks(moved).fingerprint() == first
    edit_json(rubrics, lambda d: d["rubrics"][0].update(criteria="Deletes Section 9 in its entirety"))
    changed = load_tasks(tree).fingerprint()
    assert changed != first
    # a subset has its own fingerprint
    assert load_tasks(tree).filter(scenario=1).fingerprint() not in {first, changed}


def test_task_metadata_view_uses_real_spelling(tree: Path) -> None:
    task = load_tasks(tree).get("redline-s1-t2-g01a")
    assert task.metadata() == {
        "task_id": "redline-s1-t2-g01a",
        "scenario_id": 1,
        "scenario_label": "Vendor-led SaaS MSA",
        "side": "B",
        "level": 2,
        "input_group": "s1-t2-g01",
        "variant": "a",
        "represented_party": "LargeCo",
        "counterparty": "AgentCo",
        "author": "Reviewing Counsel (LargeCo Legal)",
    }
    assert task.cell == (1, 2)


def test_reprs_are_short_enough_for_a_notebook():
    """A notebook prints ``input_groups()`` (a README line): ids, cells and counts, not the
    instruction, playbooks and rubrics of every task (32,512 characters for one cell before)."""
    import redlinebench as rb

    tasks = rb.load_tasks("embedded")
    groups = tasks.filter(scenario=1, turn=2).input_groups()
    assert len(repr(groups)) < 600, repr(groups)
    task = tasks.get("redline-s1-t2-g01a")
    assert repr(task) == ("Task('redline-s1-t2-g01a', scenario 1, turn 2, side B, "
                          f"{len(task.rubrics)} rubrics, {len(task.grounding)} grounding texts, golden)")
    assert task.instruction[:40] not in repr(task)
    rubric = repr(task.rubrics[0])
    assert rubric.startswith(f"Rubric({task.rubrics[0].id!r}, ") and len(rubric) < 140
    assert repr(tasks) == (f"TaskSet({len(tasks)} tasks, {len(tasks.input_groups())} input groups, "
                           f"{len(tasks.cells())} cells, from embedded)")
    assert len(repr(tasks.source)) < 200
