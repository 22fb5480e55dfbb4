"""``tasks validate`` audits every golden redline against its input (SPEC §5.1) and warns."""

from __future__ import annotations

from click.testing import CliRunner

from redlinebench.cli import main
from tests.docx.integrity_util import replace_text, rewrite
from tests.tasks.treefactory import build_tree

LAYOUT = [(1, 1, 1, "a", True), (1, 2, 1, "a", True)]


def test_golden_with_an_untracked_change_is_a_warning_naming_the_task(tmp_path):
    tree = build_tree(tmp_path / "data", LAYOUT)
    golden = tree / "tasks" / "redline-s1-t1-g01a" / "tests" / "attorney_redlines.docx"
    golden.write_bytes(rewrite(golden.read_bytes(), "word/document.xml", replace_text("30 days", "90 days")))
    result = CliRunner().invoke(main, ["tasks", "validate", "--source", str(tree)])
    assert result.exit_code == 0, result.output   # warnings, not errors
    lines = [x for x in result.output.splitlines() if "golden integrity" in x]
    assert any("redline-s1-t1-g01a" in x and "untracked_change (fatal)" in x and "'30' -> '90'" in x for x in lines), \
        result.output
    strict = CliRunner().invoke(main, ["tasks", "validate", "--source", str(tree), "--strict"])
    assert strict.exit_code == 1


def test_golden_baseline_records_the_goldens_findings(tmp_path):
    import asyncio

    from redlinebench.agent.baselines import GoldenAgent
    from redlinebench.tasks import load_tasks

    tree = build_tree(tmp_path / "data", LAYOUT)
    golden = tree / "tasks" / "redline-s1-t1-g01a" / "tests" / "attorney_redlines.docx"
    golden.write_bytes(rewrite(golden.read_bytes(), "word/document.xml", replace_text("30 days", "90 days")))
    task = load_tasks(tree).get("redline-s1-t1-g01a")
    work = tmp_path / "work"
    work.mkdir()
    episode = asyncio.run(GoldenAgent().run(task, work, trial=1))
    found = episode.metrics["golden_integrity"]
    assert found["passed"] is False and found["findings"][0]["kind"] == "untracked_change"
