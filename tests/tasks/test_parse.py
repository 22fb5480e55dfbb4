"""Reading task directories: metadata from either file, unknown keys kept, rubrics typed."""

from __future__ import annotations

import json
from pathlib import Path

from redlinebench.tasks import UNCATEGORIZED, load_tasks
from tests.tasks.treefactory import edit_json, metadata_for, write_task


def test_default_tree_loads_with_all_metadata(tree: Path) -> None:
    tasks = load_tasks(tree)
    assert len(tasks) == 14
    task = tasks.get("redline-s2-t3-g02b")
    assert (task.scenario_id, task.turn, task.side, task.variant) == (2, 3, "B", "b")
    assert task.input_group == "s2-t3-g02"
    assert task.represented_party == "LargeCo" and task.counterparty == "AgentCo"
    assert task.author == "Reviewing Counsel (LargeCo Legal)"
    assert task.scenario_label == "Customer-led SaaS MSA"
    assert task.source_task_path == "tasks/redline-s2-t3-g02b"
    assert task.contract_path == tree / "tasks" / task.task_id / "environment/app/contract.docx"
    assert task.golden_path == tree / "tasks" / task.task_id / "tests/attorney_redlines.docx"
    assert set(task.grounding) == {"playbook.md", "commercial_context.md"}
    assert task.grounding["playbook.md"].startswith("# LargeCo playbook")
    assert task.instruction.startswith("# Representation — LargeCo Legal (Side B)")
    assert task.config["verifier"]["timeout_sec"] == 1800.0
    # the accept-only task has no golden
    assert tasks.get("redline-s2-t4-g01a").golden_path is None


def test_rubrics_are_typed_and_ordered(tree: Path) -> None:
    rubrics_file = tree / "tasks/redline-s1-t1-g01a/tests/rubrics.json"
    raw = json.loads(rubrics_file.read_text())["rubrics"]
    task = load_tasks(tree).get("redline-s1-t1-g01a")
    assert [r.id for r in task.rubrics] == [r["id"] for r in raw]
    assert [r.weight for r in task.rubrics] == [r["weight"] for r in raw]
    assert task.rubrics[-1].weight == -3 and task.rubrics[-1].is_penalty
    # positive weights only: 6 rubrics, the last is the penalty
    assert task.total_positive_weight == sum(r["weight"] for r in raw[:-1])


def test_metadata_only_in_rubrics_json(tmp_path: Path) -> None:
    tasks_dir = tmp_path / "tasks"
    write_task(tasks_dir, 1, 2, 4, "c", toml_meta={})
    task = load_tasks(tmp_path).get("redline-s1-t2-g04c")
    assert task.side == "B" and task.represented_party == "LargeCo" and task.input_group == "s1-t2-g04"


def test_metadata_only_in_task_toml(tmp_path: Path) -> None:
    tasks_dir = tmp_path / "tasks"
    write_task(tasks_dir, 3, 1, 1, "a", json_meta={})
    task = load_tasks(tmp_path).get("redline-s3-t1-g01a")
    assert task.counterparty == "GiantCo" and task.author == "Reviewing Counsel (AgentCo Legal)"


def test_rubrics_json_wins_for_extra_keys_and_unknown_keys_are_kept(tmp_path: Path) -> None:
    tasks_dir = tmp_path / "tasks"
    meta = metadata_for(1, 1, 1, "a")
    toml_meta = {**meta, "difficulty": "hard", "shared_note": "from toml", "tags": ["msa", "saas"]}
    json_meta = {**meta, "shared_note": "from json", "negotiation_tree": {"parent": None}}
    rubrics = [
        {"id": "r1", "criteria": "Inserts a 30-day cure period", "category": "Legal correctness", "weight": 5,
         "source_clause": "9.2", "reviewer": "attorney-2"},
        {"id": "r2", "criteria": "Accepts the counterparty's change to Section 4", "weight": 3.0},
    ]
    write_task(tasks_dir, 1, 1, 1, "a", toml_meta=toml_meta, json_meta=json_meta, rubrics=rubrics)
    task = load_tasks(tmp_path).get("redline-s1-t1-g01a")
    assert task.extra == {
        "difficulty": "hard",
        "shared_note": "from json",
        "tags": ["msa", "saas"],
        "negotiation_tree": {"parent": None},
    }
    assert task.rubrics[0].extra == {"source_clause": "9.2", "reviewer": "attorney-2"}
    # missing category is counted as uncategorized; 3.0 is read as the integer 3
    assert task.rubrics[1].category == UNCATEGORIZED and task.rubrics[1].weight == 3
    assert isinstance(task.rubrics[1].weight, int)
    assert task.rubric_category_counts() == {UNCATEGORIZED: 1, "Legal correctness": 1}


def test_turn_alias_numeric_task_id_and_string_numbers(tmp_path: Path) -> None:
    tasks_dir = tmp_path / "tasks"
    meta = metadata_for(2, 3, 7, "a")
    json_meta = {**meta, "task_id": 57, "scenario_id": "2", "turn": 3}
    del json_meta["level"]
    write_task(tasks_dir, 2, 3, 7, "a", toml_meta={}, json_meta=json_meta)
    task = load_tasks(tmp_path).get("redline-s2-t3-g07a")
    assert task.task_id == "redline-s2-t3-g07a"
    assert task.scenario_id == 2 and task.turn == 3 and task.level == 3
    assert task.extra == {"task_number": 57}


def test_missing_label_side_and_author_are_derived(tmp_path: Path) -> None:
    tasks_dir = tmp_path / "tasks"
    meta = {k: v for k, v in metadata_for(2, 2, 1, "a").items() if k not in {"scenario_label", "side", "author"}}
    write_task(tasks_dir, 2, 2, 1, "a", toml_meta={}, json_meta=meta)
    task = load_tasks(tmp_path).get("redline-s2-t2-g01a")
    assert task.scenario_label == "Customer-led SaaS MSA"
    assert task.side == "A"  # scenario 2 turn 2 belongs to the vendor
    assert task.author == "Reviewing Counsel (AgentCo Legal)"


def test_unpadded_input_group_names_the_same_group(tmp_path: Path) -> None:
    tasks_dir = tmp_path / "tasks"
    meta = {**metadata_for(1, 1, 3, "a"), "input_group": "s1-t1-g3"}
    write_task(tasks_dir, 1, 1, 3, "a", toml_meta=meta, json_meta=meta)
    assert load_tasks(tmp_path).get("redline-s1-t1-g03a").input_group == "s1-t1-g03"


def test_instruction_bom_is_dropped(tree: Path) -> None:
    path = tree / "tasks/redline-s1-t2-g01a/instruction.md"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_tasks(tree).get("redline-s1-t2-g01a").instruction.startswith("# Representation")


def test_edit_json_helper_round_trips(tree: Path) -> None:
    path = tree / "tasks/redline-s1-t2-g01a/tests/rubrics.json"
    edit_json(path, lambda d: d["rubrics"][0].update(weight=9))
    assert load_tasks(tree).get("redline-s1-t2-g01a").rubrics[0].weight == 9


def test_side_spellings(tmp_path: Path) -> None:
    tasks_dir = tmp_path / "tasks"
    meta = {**metadata_for(1, 1, 1, "a"), "side": "Side a"}
    write_task(tasks_dir, 1, 1, 1, "a", toml_meta={**meta, "side": "A"}, json_meta=meta)
    assert load_tasks(tmp_path).get("redline-s1-t1-g01a").side == "A"


def test_lazy_top_level_exports(tree: Path) -> None:
    import redlinebench

    assert redlinebench.resolve_source(tree).kind == "path"
    assert redlinebench.validate_tasks(tree).ok
    assert len(redlinebench.load_tasks(tree)) == 14


def test_real_layout_with_files_and_keys_we_do_not_use(tmp_path: Path) -> None:
    """Harbor extras (solution/, judge.py, skills, README, [environment]) and unknown keys are all tolerated."""
    tasks_dir = tmp_path / "repo" / "tasks"
    meta = metadata_for(3, 2, 5, "c")
    toml_meta = {"author_name": "Crosby Legal", "difficulty": "hard", "category": "legal", "tags": ["msa"], **meta}
    json_meta = {**meta, "task_id": 117, "schema": "redline/v1", "turn": 2}
    root = write_task(tasks_dir, 3, 2, 5, "c", toml_meta=toml_meta, json_meta=json_meta,
                      extra_toml="\n[environment]\ncpus = 2\nmemory_mb = 4096\n")
    for rel in ("tests/judge.py", "environment/skills/contract-redliner/SKILL.md", "solution/solve.sh", "README.md",
                "environment/app/grounding/original/playbook.docx"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"x")
    (tmp_path / "repo" / "README.md").write_text("---\nlicense: cc-by-4.0\n---\n")
    from redlinebench.tasks import validate_tasks

    report = validate_tasks(tmp_path / "repo")
    assert report.ok and report.warnings == []
    task = report.tasks.get("redline-s3-t2-g05c")
    assert task.extra == {
        "author_name": "Crosby Legal", "difficulty": "hard", "category": "legal", "tags": ["msa"],
        "task_number": 117, "schema": "redline/v1",
    }
    assert task.config["environment"] == {"cpus": 2, "memory_mb": 4096}
    assert set(task.grounding) == {"playbook.md", "commercial_context.md"}  # the .docx original is not text
