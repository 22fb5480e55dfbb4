"""``dataset export``: the Hub layout loads with plain ``datasets.load_dataset`` offline, identically."""

from __future__ import annotations

import os
from pathlib import Path

import datasets
import yaml
from click.testing import CliRunner

import redlinebench
from redlinebench.cli import main
from redlinebench.dataset import FULL_FEATURES, INDEX_FEATURES, export_dataset
from tests.tasks.treefactory import edit_json


def _front_matter(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_export_round_trips_through_plain_datasets(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "export"
    written = export_dataset(tree, out)
    assert sorted(written) == ["README.md", "eval.yaml", "full", "tasks"]
    fingerprint = redlinebench.load_tasks(tree).fingerprint()
    assert written["tasks"] == out / f"data/tasks/test-{fingerprint[:16]}.parquet"
    for config, features in (("tasks", INDEX_FEATURES), ("full", FULL_FEATURES)):
        plain = datasets.load_dataset(str(out), config, split="test")
        ours = redlinebench.load_dataset(tree, config=config)
        assert plain.features == features
        assert plain.to_list() == ours.to_list()
    plain = datasets.load_dataset(str(out), "tasks", split="test")
    assert plain.num_rows == 14 and plain[0]["task_id"] == "redline-s1-t1-g01a"
    # the default config is the index
    assert datasets.load_dataset(str(out), split="test").features == INDEX_FEATURES


def test_changed_data_exported_to_a_same_named_dir_is_not_served_stale(tree: Path, tmp_path: Path) -> None:
    """datasets 5.2 keys local YAML-config caches on the patterns only; content-named files defeat that."""
    export_dataset(tree, tmp_path / "one" / "export")
    before = datasets.load_dataset(str(tmp_path / "one" / "export"), "tasks", split="test")
    edit_json(tree / "tasks/redline-s1-t1-g01a/tests/rubrics.json", lambda d: d["rubrics"][0].update(criteria="Changed"))
    export_dataset(tree, tmp_path / "two" / "export")
    after = datasets.load_dataset(str(tmp_path / "two" / "export"), "tasks", split="test")
    assert before[0]["rubric_criteria_preview"][0] != "Changed"
    assert after[0]["rubric_criteria_preview"][0] == "Changed"
    # re-exporting into the same directory replaces the old parquet
    export_dataset(tree, tmp_path / "one" / "export")
    assert len(list((tmp_path / "one" / "export" / "data" / "tasks").glob("*.parquet"))) == 1
    again = datasets.load_dataset(str(tmp_path / "one" / "export"), "tasks", split="test")
    assert again[0]["rubric_criteria_preview"][0] == "Changed"


def test_card_yaml_and_eval_yaml(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "export"
    written = export_dataset(tree, out)
    meta = _front_matter((out / "README.md").read_text(encoding="utf-8"))
    assert meta["license"] == "cc-by-4.0"
    assert meta["task_categories"] == ["text-generation"]
    assert meta["tags"] == ["legal", "negotiation", "contracts", "benchmark", "docx"]
    assert meta["size_categories"] == ["n<1K"]
    assert meta["configs"] == [
        {"config_name": "tasks", "data_files": [{"split": "test", "path": written["tasks"].relative_to(out).as_posix()}],
         "default": True},
        {"config_name": "full", "data_files": [{"split": "test", "path": written["full"].relative_to(out).as_posix()}]},
    ]
    assert yaml.safe_load((out / "eval.yaml").read_text()) == {
        "name": "RedlineBench",
        "description": yaml.safe_load((out / "eval.yaml").read_text())["description"],
        "evaluation_framework": "redline-bench",
        "tasks": [{"id": "redline_overall", "config": "tasks", "split": "test"}],
    }


def test_export_with_tree_is_the_hub_repo_layout(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "export"
    result = CliRunner().invoke(main, ["dataset", "export", "--source", str(tree), "--out", str(out), "--include-tree"])
    assert result.exit_code == 0, result.output
    assert (out / "tasks/redline-s2-t3-g02b/tests/rubrics.json").read_bytes() == (
        tree / "tasks/redline-s2-t3-g02b/tests/rubrics.json"
    ).read_bytes()
    # the exported directory is itself a valid source with the same content
    assert redlinebench.load_tasks(out).fingerprint() == redlinebench.load_tasks(tree).fingerprint()
    # and plain datasets still reads the parquet index, not the tree
    assert datasets.load_dataset(str(out), "tasks", split="test").features == INDEX_FEATURES
    # exporting again replaces the tree instead of merging stale tasks into it
    (out / "tasks/redline-s9-t1-g01a").mkdir()
    CliRunner().invoke(main, ["dataset", "export", "--source", str(tree), "--out", str(out), "--include-tree"])
    assert not (out / "tasks/redline-s9-t1-g01a").exists()


def test_export_refuses_a_file_target(tree: Path, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    result = CliRunner().invoke(main, ["dataset", "export", "--source", str(tree), "--out", str(target)])
    assert result.exit_code == 2 and "not a directory" in result.output


def test_the_card_describes_what_each_export_mode_holds(tree: Path, tmp_path: Path) -> None:
    """A plain export is parquet + card + eval.yaml: its card (read with huggingface_hub's own
    DatasetCard) must not promise a task tree or files at the `*_path` columns; with
    --include-tree those files are there and the card lays the tree out."""
    from huggingface_hub import DatasetCard

    for include_tree in (False, True):
        out = tmp_path / f"export-{include_tree}"
        export_dataset(tree, out, include_tree=include_tree)
        card = DatasetCard.load(out / "README.md")
        assert card.data.to_dict()["configs"][0]["config_name"] == "tasks"
        rows = datasets.load_dataset(str(out), "tasks", split="test").to_list()
        named = [r[c] for r in rows for c in ("contract_path", "rubrics_path", "attorney_redline_doc_path") if r[c]]
        present = [p for p in named if (out / p).is_file()]
        section = card.text.split("## Task tree", 1)[1].split("\n## ", 1)[0]
        path_rows = [line for line in card.text.splitlines() if line.startswith("| `") and "_path` |" in line]
        assert len(path_rows) == 4
        if include_tree:
            assert present == named
            assert "environment/app/contract.docx" in section and "Not in this export" not in card.text
        else:
            assert present == []
            assert "tasks/redline-s" not in section and "Not in this export" in section
            assert "--include-tree" in section
            assert all("Not a file of this export" in line for line in path_rows)


def test_a_readme_the_package_did_not_write_is_refused_unless_forced(tree: Path, tmp_path: Path) -> None:
    """Exporting into a user's repository replaced their README.md (and tasks/) without a word."""
    out = tmp_path / "my-repo"
    out.mkdir()
    (out / "README.md").write_text("# My notes\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["dataset", "export", "--source", str(tree), "--out", str(out)])
    assert res.exit_code != 0 and "was not written by redlinebench" in res.output and "--force" in res.output
    assert (out / "README.md").read_text(encoding="utf-8") == "# My notes\n" and sorted(os.listdir(out)) == ["README.md"]
    # our own earlier export is re-exported in place, and --force replaces a foreign README
    forced = CliRunner().invoke(main, ["dataset", "export", "--source", str(tree), "--out", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    again = CliRunner().invoke(main, ["dataset", "export", "--source", str(tree), "--out", str(out)])
    assert again.exit_code == 0, again.output
