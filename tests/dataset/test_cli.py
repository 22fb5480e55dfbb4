"""``redlinebench dataset info|card|eval-yaml`` through click."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.tasks import load_tasks


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_info_json(tree: Path) -> None:
    result = run("dataset", "info", "--source", str(tree), "--config", "full", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["num_rows"] == 14 and data["config"] == "full" and data["split"] == "test"
    assert data["fingerprint"] == load_tasks(tree).fingerprint()
    assert list(data["features"])[:2] == ["task_id", "scenario_id"] and "contract_docx" in data["features"]


def test_card_write_then_check_then_stale(tree: Path, tmp_path: Path) -> None:
    card = tmp_path / "card.md"
    assert run("dataset", "card", "--source", str(tree), "--out", str(card)).exit_code == 0
    ok = run("dataset", "card", "--source", str(tree), "--out", str(card), "--check")
    assert ok.exit_code == 0 and "is up to date" in ok.output
    (tree / "tasks/redline-s1-t1-g01a/tests/rubrics.json").write_text(
        (tree / "tasks/redline-s1-t1-g01a/tests/rubrics.json").read_text().replace('"weight": -3', '"weight": 3')
    )
    stale = run("dataset", "card", "--source", str(tree), "--out", str(card), "--check")
    assert stale.exit_code == 2
    assert stale.output.strip() == f"error: {card} is stale: regenerate it with `redlinebench dataset card`"
    missing = run("dataset", "card", "--source", str(tree), "--out", str(tmp_path / "none.md"), "--check")
    assert missing.exit_code == 2 and "is missing" in missing.output


def test_eval_yaml_command(tmp_path: Path) -> None:
    out = tmp_path / "eval.yaml"
    assert run("dataset", "eval-yaml", "--out", str(out)).exit_code == 0
    assert "evaluation_framework: redline-bench" in out.read_text()
    assert run("dataset", "eval-yaml", "--out", str(out), "--check").exit_code == 0


def test_card_and_eval_yaml_refuse_a_directory_as_output(tmp_path: Path) -> None:
    # was an IsADirectoryError traceback
    for cmd in ("card", "eval-yaml"):
        result = CliRunner().invoke(main, ["dataset", cmd, "--source", "embedded", "--out", str(tmp_path)]
                                    if cmd == "card" else ["dataset", cmd, "--out", str(tmp_path)])
        assert result.exit_code == 2 and "is a directory" in result.output, result.output
