"""``redlinebench.load_dataset``: rows built exactly, cached by content, invalidated by edits."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

import redlinebench
from redlinebench.dataset import INDEX_FEATURES, FULL_FEATURES
from redlinebench.dataset import _load
from redlinebench.errors import ConfigError, TaskError
from tests.tasks.treefactory import edit_json, write_task

RUBRICS = [
    {"id": "r1", "criteria": "Rejects in Section 1.3 the inclusion of PCI-DSS Standards", "category": "Legal correctness", "weight": 8},
    {"id": "r2", "criteria": "Replaces in Section 1.4 unilateral protection with mutual protection", "category": "Commercial Context", "weight": 5},
    {"id": "r3", "criteria": "Accepts the counterparty's change to Section 4.2", "category": "Commercial Context", "weight": 3},
    {"id": "r4", "criteria": "Inserts a 30-day cure period", "weight": 2},
    {"id": "r5", "criteria": "Does not agree to uncapped liability", "category": "Negotiation Quality", "weight": 6},
    {"id": "r6", "criteria": "Deletes the limitation of liability", "category": "Commercial Context", "weight": -4,
     "justification": "Overreach.", "origin": "attorney-3"},
]


@pytest.fixture
def small(tmp_path: Path) -> Path:
    tasks_dir = tmp_path / "small" / "tasks"
    write_task(tasks_dir, 1, 2, 3, "b", rubrics=RUBRICS)
    write_task(tasks_dir, 2, 4, 1, "a", golden=False)
    return tmp_path / "small"


def test_index_row_is_exact(small: Path) -> None:
    ds = redlinebench.load_dataset(small)
    assert isinstance(ds, datasets.Dataset) and ds.num_rows == 2 and ds.split == "test"
    assert ds.features == INDEX_FEATURES
    row = ds[0]
    instruction = (small / "tasks/redline-s1-t2-g03b/instruction.md").read_text(encoding="utf-8")
    assert len(instruction) > 500
    assert row == {
        "task_id": "redline-s1-t2-g03b",
        "scenario_id": "1",
        "scenario_label": "Vendor-led SaaS MSA",
        "turn": 2,
        "represented_party": "LargeCo",
        "counterparty": "AgentCo",
        "rubric_variant": "b",
        "instruction_preview": instruction[:500],
        "rubric_count": 6,
        "rubric_category_counts": '{"(uncategorized)": 1, "Commercial Context": 3, "Legal correctness": 1, "Negotiation Quality": 1}',
        "rubric_criteria_preview": [r["criteria"] for r in RUBRICS[:5]],
        "contract_path": "tasks/redline-s1-t2-g03b/environment/app/contract.docx",
        "rubrics_path": "tasks/redline-s1-t2-g03b/tests/rubrics.json",
        "attorney_redline_doc_path": "tasks/redline-s1-t2-g03b/tests/attorney_redlines.docx",
        "source_task_path": "tasks/redline-s1-t2-g03b",
    }
    assert ds[1]["attorney_redline_doc_path"] is None
    assert ds.data.schema.field("attorney_redline_doc_path").nullable


def test_full_row_carries_the_whole_task(small: Path) -> None:
    ds = redlinebench.load_dataset(small, config="full")
    assert ds.features == FULL_FEATURES
    row = ds[0]
    root = small / "tasks/redline-s1-t2-g03b"
    assert row["contract_docx"] == (root / "environment/app/contract.docx").read_bytes()
    assert row["attorney_redline_docx"] == (root / "tests/attorney_redlines.docx").read_bytes()
    assert ds[1]["attorney_redline_docx"] is None
    assert row["instruction"] == (root / "instruction.md").read_text(encoding="utf-8")
    assert [g["name"] for g in row["grounding"]] == ["commercial_context.md", "playbook.md"]
    assert row["rubrics"][5] == {
        "id": "r6", "criteria": "Deletes the limitation of liability", "category": "Commercial Context",
        "weight": -4, "justification": "Overreach.", "extra": '{"origin": "attorney-3"}',
    }
    assert row["rubrics"][3]["category"] == "(uncategorized)" and row["rubrics"][3]["justification"] is None
    assert (row["side"], row["input_group"], row["author"]) == ("B", "s1-t2-g03", "Reviewing Counsel (LargeCo Legal)")
    assert json.loads(row["metadata"])["level"] == 2
    assert json.loads(row["task_config"])["agent"] == {"timeout_sec": 3600.0}


def test_warm_load_comes_from_the_cache(small: Path, monkeypatch) -> None:
    first = redlinebench.load_dataset(small)

    class Exploding:
        def __init__(self, *a, **k):
            raise AssertionError("the builder ran again on an unchanged tree")

    monkeypatch.setattr(_load, "RedlineBench", Exploding)
    again = redlinebench.load_dataset(small)
    assert again.to_list() == first.to_list()
    # the same tree copied elsewhere is the same data: still cached
    import shutil

    shutil.copytree(small, small.parent / "copy")
    assert redlinebench.load_dataset(small.parent / "copy").num_rows == 2


def test_editing_a_rubric_invalidates_the_cache(small: Path) -> None:
    before = redlinebench.load_dataset(small)
    edit_json(small / "tasks/redline-s1-t2-g03b/tests/rubrics.json", lambda d: d["rubrics"][0].update(criteria="Deletes Section 9"))
    after = redlinebench.load_dataset(small)
    assert before[0]["rubric_criteria_preview"][0] == RUBRICS[0]["criteria"]
    assert after[0]["rubric_criteria_preview"][0] == "Deletes Section 9"
    cached = sorted(p.name for p in _load.dataset_cache_dir().iterdir())
    assert len(cached) == 2 and all(name.startswith("redlinebench-tasks-") for name in cached)


def test_damaged_cache_is_rebuilt(small: Path, caplog) -> None:
    redlinebench.load_dataset(small)
    [cached] = list(_load.dataset_cache_dir().iterdir())
    arrows = list(cached.glob("*.arrow"))
    assert arrows
    for arrow in arrows:
        arrow.write_bytes(b"garbage")
    with caplog.at_level("WARNING", logger="redlinebench.dataset._load"):
        assert redlinebench.load_dataset(small)[0]["task_id"] == "redline-s1-t2-g03b"
    assert "rebuilding damaged dataset cache" in caplog.text


def test_bad_arguments_and_broken_trees(small: Path) -> None:
    with pytest.raises(ConfigError, match="unknown dataset config 'index'"):
        redlinebench.load_dataset(small, config="index")
    with pytest.raises(ConfigError, match="one split, 'test'"):
        redlinebench.load_dataset(small, split="train")
    edit_json(small / "tasks/redline-s1-t2-g03b/tests/rubrics.json", lambda d: d["rubrics"][0].update(weight=11))
    with pytest.raises(TaskError, match=r"rubrics\[0\]\.weight: 11 is outside"):
        redlinebench.load_dataset(small)


def test_builder_class_used_directly(small: Path, tmp_path: Path) -> None:
    from redlinebench.dataset import RedlineBench

    builder = RedlineBench(config_name="tasks", source_dir=str(small), cache_dir=str(tmp_path / "c"))
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test")
    assert ds.num_rows == 2 and list(ds.features) == list(INDEX_FEATURES)
    assert builder.info.license == "cc-by-4.0"
