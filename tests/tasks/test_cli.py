"""``redlinebench tasks list|show|validate|where`` through click."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from redlinebench.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_list_json_has_metadata_and_counts(tree: Path) -> None:
    result = run("tasks", "list", "--source", str(tree), "--scenario", "2", "--turn", "4", "--json")
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.output)
    rubrics = json.loads((tree / "tasks/redline-s2-t4-g01a/tests/rubrics.json").read_text())["rubrics"]
    expected_counts: dict[str, int] = {}
    for r in rubrics:
        expected_counts[r["category"]] = expected_counts.get(r["category"], 0) + 1
    assert row == {
        "task_id": "redline-s2-t4-g01a",
        "scenario_id": 2,
        "scenario_label": "Customer-led SaaS MSA",
        "side": "A",
        "level": 4,
        "turn": 4,
        "input_group": "s2-t4-g01",
        "variant": "a",
        "represented_party": "AgentCo",
        "counterparty": "LargeCo",
        "author": "Reviewing Counsel (AgentCo Legal)",
        "rubric_count": 6,
        "rubric_category_counts": dict(sorted(expected_counts.items())),
        "has_golden": False,
        "source_task_path": "tasks/redline-s2-t4-g01a",
    }


def test_list_table_and_filters(tree: Path) -> None:
    result = run("tasks", "list", "--source", str(tree), "--side", "B", "--turn", "2")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["task", "scenario", "turn", "side", "party", "rubrics", "golden"]
    body = [line.split()[0] for line in lines[2:] if line.startswith("redline-")]
    assert body == ["redline-s1-t2-g01a", "redline-s3-t2-g01a"]
    assert "2 tasks, 2 input groups, 2 cells" in result.output


def test_show_prints_rubrics_with_category_and_weight(tree: Path) -> None:
    result = run("tasks", "show", "redline-s1-t1-g01b", "--source", str(tree), "--chars", "60")
    assert result.exit_code == 0, result.output
    rubrics = json.loads((tree / "tasks/redline-s1-t1-g01b/tests/rubrics.json").read_text())["rubrics"]
    for r in rubrics:
        assert f"{r['weight']:>3}  {r['category']:<35} {r['id']}: {r['criteria']}" in result.output
    assert "# Representation — AgentCo Legal (Side A)" in result.output
    assert "[...]" in result.output  # the excerpt was cut at 60 characters
    assert "author             Reviewing Counsel (AgentCo Legal)" in result.output


def test_show_json_and_unknown_task(tree: Path) -> None:
    result = run("tasks", "show", "redline-s3-t3-g01a", "--source", str(tree), "--json")
    data = json.loads(result.output)
    assert data["task_id"] == "redline-s3-t3-g01a" and len(data["rubrics"]) == 6
    assert data["grounding"] == ["commercial_context.md", "playbook.md"]
    missing = run("tasks", "show", "redline-s3-t3-g01z", "--source", str(tree))
    assert missing.exit_code == 2  # a typed mistake
    assert "no task 'redline-s3-t3-g01z'" in missing.output and "did you mean redline-s3-t3-g01a" in missing.output


def test_validate_ok_and_json(tree: Path) -> None:
    result = run("tasks", "validate", "--source", str(tree))
    assert result.exit_code == 0
    assert result.output.strip().endswith("checked 14 tasks in " + str(tree / "tasks") + ": 0 errors, 0 warnings")
    (tree / "tasks/redline-s1-t1-g01a/environment/Dockerfile").unlink()
    result = run("tasks", "validate", "--source", str(tree), "--json")
    assert result.exit_code == 0  # a warning is not a failure...
    data = json.loads(result.output)
    assert (data["errors"], data["warnings"], data["checked"], data["valid"]) == (0, 1, 14, 14)
    assert data["problems"][0]["field"] is None and data["problems"][0]["path"].endswith("environment/Dockerfile")
    assert run("tasks", "validate", "--source", str(tree), "--strict").exit_code == 1  # ...unless --strict


def test_where_explains(tree: Path) -> None:
    result = run("tasks", "where", "--source", str(tree), "--json")
    data = json.loads(result.output)
    assert data["kind"] == "path" and data["reason"] == "given explicitly" and data["n_task_dirs"] == 14
    text = run("tasks", "where", "--source", str(tree)).output
    assert "source:    path" in text and f"tasks dir: {tree / 'tasks'} (14 task directories)" in text


def test_show_json_with_toml_dates_in_extra_metadata(tree: Path) -> None:
    toml = tree / "tasks/redline-s1-t1-g01a/task.toml"
    toml.write_text(toml.read_text().replace("[metadata]\n", "[metadata]\nreviewed = 2026-03-01\nodds = [nan, -inf]\n"))
    result = run("tasks", "show", "redline-s1-t1-g01a", "--source", str(tree), "--json")
    assert result.exit_code == 0, result.output

    def strict(token: str):
        raise ValueError(f"{token} is not JSON")

    # strict JSON (no NaN/Infinity tokens, which JSON.parse and jq refuse)
    assert json.loads(result.output, parse_constant=strict)["extra"] == {"reviewed": "2026-03-01",
                                                                          "odds": ["nan", "-inf"]}


def test_show_in_an_80_column_terminal_wraps_at_words_under_each_rubric() -> None:
    """At 80 columns the criteria began at column 44 and the terminal cut them mid-word into column
    0; now each rubric's criteria sit indented under its weight, id and category, whole words only."""
    from redlinebench.tasks import load_tasks
    from tests.cli_doc.pty_term import run_in_terminal

    task = load_tasks("embedded")["redline-s1-t2-g01a"]
    code, lines = run_in_terminal(["tasks", "show", task.task_id, "--source", "embedded"],
                                  env={"HF_HUB_OFFLINE": "1"})
    assert code == 0, "\n".join(lines)
    paths = (str(task.contract_path), str(task.golden_path))  # printed whole on purpose (copy and paste)
    text = [line for line in lines if not any(p in line for p in paths)]
    assert max(len(line) for line in text) <= 80, "\n".join(lines)
    assert any("procurement template" in line for line in lines)  # a paragraph wraps at spaces, not mid-word
    start = next(i for i, line in enumerate(lines) if line.startswith("Rubrics ("))
    body = "\n".join(lines[start + 1:])
    for r in task.rubrics:
        head = f"{r.weight:>3}  {r.id}  {r.category}"
        assert head in body, (head, body)
        after = body.split(head, 1)[1].splitlines()[1:]
        criteria = " ".join(line.strip() for line in after[:len(r.criteria) // 40 + 3])
        assert r.criteria in criteria and all(line.startswith(" " * 12) for line in after[:1]), after[:3]
