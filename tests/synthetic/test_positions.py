"""Arena positions (SPEC §8.4): the playbook tables, their machine-checkable tests, and where goldens land."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.errors import TaskError
from redlinebench.synthetic import PACKAGED_DIR, SOURCES_DIR, SourceError, load_sources
from redlinebench.synthetic.positions import validate_tree
from redlinebench.tasks import load_tasks, positions
from redlinebench.tasks._positions import level_of, load_issue_tests, parse_positions_table, passes

TABLE = """# Playbook

| Issue | Clause | Preferred | Fallback | Walk-away |
|---|---|---|---|---|
| Payment | 4.2 | Net 30 | Net 45 | Beyond net 60 |
| Audit | 6.3 | SOC 2 only | — | — |

After the table.
"""


def test_table_parses_with_extra_column() -> None:
    rows = parse_positions_table(TABLE)
    assert [r.issue for r in rows] == ["Payment", "Audit"]
    assert rows[0].clause == "4.2" and rows[0].fallback == "Net 45" and rows[1].walk_away == "—"
    assert parse_positions_table("# no table\n| a | b |\n|---|---|\n| 1 | 2 |\n") is None


def test_malformed_table_is_an_error() -> None:
    with pytest.raises(ValueError, match="3 cells"):
        parse_positions_table("| Issue | Preferred | Fallback | Walk-away |\n|---|---|---|---|\n| x | y | z |\n")


def test_task_without_table_names_the_grounding(tmp_path: Path) -> None:
    task = load_tasks(PACKAGED_DIR).get("redline-s1-t1-g01a")
    bare = dataclasses.replace(task, grounding={"notes.md": "# Notes\nNo table here."}, root=tmp_path)
    with pytest.raises(TaskError, match="no positions table") as info:
        positions(bare)
    assert str(tmp_path / "environment" / "app" / "grounding") in str(info.value)
    table = "| Issue | Preferred | Fallback | Walk-away |\n|---|---|---|---|\n| a | b |\n"
    broken = dataclasses.replace(task, grounding={"p.md": table}, root=tmp_path)
    with pytest.raises(TaskError, match="p.md: malformed positions table"):
        positions(broken)


def test_every_embedded_task_shows_its_side_table_with_clauses() -> None:
    tasks = load_tasks(PACKAGED_DIR)
    for task in tasks:
        rows = positions(task)
        tests = load_issue_tests(task)
        assert [r.issue for r in rows] == [t.issue for t in tests], task.task_id
        assert all(r.clause and r.clause == ", ".join(t.clauses) for r, t in zip(rows, tests)), task.task_id
        # the tests themselves stay on the verifier side
        assert "number" not in "".join(task.grounding.values())
    s1a = positions(tasks.get("redline-s1-t1-g01a"))
    assert s1a[0].issue == "Liability cap (general)" and s1a[0].clause == "12.2"


@pytest.mark.parametrize(("test", "text", "ok"), [
    ({"number": {"find": r"\((\d+)\) days", "max": 60}}, "within sixty (60) days", True),
    ({"number": {"find": r"\((\d+)\) days", "max": 60}}, "within ninety (90) days", False),
    ({"number": {"find": r"\((\d+)\) days", "above": 60}}, "within sixty (60) days", False),
    ({"number": {"find": r"USD ([\d,]+)", "min": 2000000}}, "not exceed USD 2,000,000", True),
    ({"number": {"find": r"USD ([\d,]+)", "below": 2000000}}, "no amount stated", False),
    ({"all": ["super-cap"], "none": ["uncapped"]}, "the Super-Cap applies", True),
    ({"all": ["super-cap"], "none": ["uncapped"]}, "the super-cap is uncapped", False),
    ({"any": ["a", "zz"]}, "bbb", False),
    ({"equals": "Text  here."}, "Text here.", True),
])
def test_single_tests(test: dict, text: str, ok: bool) -> None:
    assert passes(test, text) is ok


def test_levels_are_tried_best_first_and_default_inside() -> None:
    tests = {
        "preferred": [{"number": {"find": r"\((\d+)\) days", "max": 30}}],
        "fallback": [{"number": {"find": r"\((\d+)\) days", "max": 60}}],
        "walk_away": [{"number": {"find": r"\((\d+)\) days", "above": 60}}, {"none": ["days"]}],
    }
    assert level_of(tests, "thirty (30) days") == "preferred"
    assert level_of(tests, "forty-five (45) days") == "fallback"
    assert level_of(tests, "ninety (90) days") == "walk_away"
    assert level_of(tests, "on demand") == "walk_away"            # the second walk-away alternative
    assert level_of({"preferred": tests["preferred"]}, "ninety (90) days") == "inside"


def test_embedded_tree_validates() -> None:
    checked, problems = validate_tree(PACKAGED_DIR, SOURCES_DIR)
    assert problems == [] and checked >= 39 * 8
    result = CliRunner().invoke(main, ["data", "validate"])
    assert result.exit_code == 0, result.output
    assert "every golden lands where the sources say" in result.output


def test_a_golden_off_its_expected_level_is_reported(tmp_path: Path) -> None:
    src = tmp_path / "synthetic"
    shutil.copytree(SOURCES_DIR, src)
    path = src / "s1" / "positions.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("t2-g01: fallback, t3-g01: fallback, t4-g01: fallback}",
                                 "t2-g01: preferred, t3-g01: fallback, t4-g01: fallback}", 1), encoding="utf-8")
    _, problems = validate_tree(PACKAGED_DIR, src)
    assert len(problems) == 1
    assert "Liability cap (general)" in problems[0] and "lands at fallback, expected preferred" in problems[0]
    result = CliRunner().invoke(main, ["data", "validate", "--sources", str(src)])
    assert result.exit_code == 1


def test_sources_require_every_issue_testable(tmp_path: Path) -> None:
    src = tmp_path / "synthetic"
    shutil.copytree(SOURCES_DIR, src)
    path = src / "s1" / "positions.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("    fallback: {number: {find: '\\((\\d+)\\) days', max: 60}}\n", "", 1)  # A Payment terms
    text = text.replace("issue: Sub-processors", "issue: Subprocessors", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError) as info:
        load_sources(src)
    message = str(info.value)
    assert "(Payment terms): the playbook states a fallback position but it has no test" in message
    assert "(Subprocessors): no row of the side's playbook table has this issue" in message


def test_sources_reject_a_bad_regex(tmp_path: Path) -> None:
    src = tmp_path / "synthetic"
    shutil.copytree(SOURCES_DIR, src)
    path = src / "s2" / "positions.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("'AgentCo may identify Customer'", "'(unclosed'", 1),
                    encoding="utf-8")
    with pytest.raises(SourceError, match=r"s2/positions.yaml: A\[12\] \(Publicity\).preferred: bad regex"):
        load_sources(src)


def test_scenarios_carry_positions_for_both_sides() -> None:
    for spec in load_sources(SOURCES_DIR):
        assert set(spec.positions) == {"A", "B"}
        assert all(p.tests.get("preferred") for side in spec.positions.values() for p in side)


@dataclasses.dataclass
class _P:
    number: str | None
    text: str
    in_table: bool = False


def test_template_numbers_follow_headings_not_the_displayed_numbers() -> None:
    from redlinebench.tasks._positions import template_numbers

    headings = {"4": "Fees", "4.1": "Fees.", "4.2": "Payment Terms.", "4.3": "Disputed Amounts.", "4.4": None}
    paragraphs = [
        _P("4", "Fees"),
        _P("4.1", "Fees. Customer shall pay."),
        _P(None, "a table cell", in_table=True),
        _P("4.2", "Portal. A new clause."),                  # inserted: belongs to 4.1
        _P("4.3", "Payment Terms. Within thirty (30) days."),  # shifted by the insertion
        _P("4.4", "Late Fees. Renamed heading."),            # heading edited: keeps its number 4.4 (unclaimed)
    ]                                                       # 4.3 Disputed Amounts was deleted
    assert template_numbers(paragraphs, headings) == ["4", "4.1", "4.1", "4.1", "4.2", "4.4"]
    assert template_numbers(paragraphs) == ["4", "4.1", "4.1", "4.2", "4.3", "4.4"]
