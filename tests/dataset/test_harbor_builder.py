"""``datasets``' own ``harbor`` builder reads our task trees (metadata under ``[metadata]``)."""

from __future__ import annotations

import json
from pathlib import Path

import datasets

from redlinebench.tasks import load_tasks


def test_plain_datasets_detects_and_reads_the_tree(tree: Path) -> None:
    rows = datasets.load_dataset(str(tree), split="test")
    tasks = load_tasks(tree)
    assert rows.num_rows == len(tasks) == 14
    by_name = {row["name"]: row for row in rows}
    assert sorted(by_name) == sorted(tasks.ids)
    for task in tasks:
        row = by_name[task.task_id]
        assert row["metadata"] == task.metadata()
        assert row["instruction"] == task.instruction
        assert row["location"] == task.source_task_path
        assert "environment/app/contract.docx" in row["files"]
        assert row["config"]["verifier"] == {"timeout_sec": 1800.0}
    assert ("tests/attorney_redlines.docx" in by_name["redline-s2-t4-g01a"]["files"]) is False


def test_harbor_keeps_extra_metadata_keys(tree: Path) -> None:
    toml = tree / "tasks/redline-s1-t1-g01a/task.toml"
    toml.write_text(toml.read_text().replace("[metadata]\n", '[metadata]\ndifficulty = "hard"\n'))
    rows = datasets.load_dataset(str(tree), split="test")
    row = next(r for r in rows if r["name"] == "redline-s1-t1-g01a")
    assert row["metadata"]["difficulty"] == "hard"
    assert load_tasks(tree).get("redline-s1-t1-g01a").extra == {"difficulty": "hard"}
    assert json.dumps(row["metadata"])  # a plain JSON object
