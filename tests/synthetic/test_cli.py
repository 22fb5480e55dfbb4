"""`redlinebench data ...`: one-line errors, nothing half-written on failure."""

from __future__ import annotations

import shutil

from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.synthetic import SOURCES_DIR


def test_check_synthetic_prints_counts_and_shares():
    result = CliRunner().invoke(main, ["data", "check-synthetic"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("3 scenarios, 39 tasks, ")
    assert "Commercial Context" in result.output and "%" in result.output


def test_missing_sources_is_one_line_without_traceback(tmp_path):
    result = CliRunner().invoke(main, ["data", "build-synthetic", "--out", str(tmp_path / "o"),
                                       "--sources", str(tmp_path / "nowhere")])
    assert result.exit_code == 2  # a path that does not exist is a usage error (README: exit codes)
    assert result.output.strip().startswith("error: ") and len(result.output.strip().splitlines()) == 1
    assert "--sources" in result.output and "nowhere" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "o").exists()


def test_broken_sources_leave_the_previous_build_untouched(tmp_path):
    sources = tmp_path / "src"
    shutil.copytree(SOURCES_DIR / "s1", sources / "s1")
    group = sources / "s1" / "t3-g01.yaml"
    # an anchor that no longer matches the document: the engine refuses it, the build stops
    group.write_text(group.read_text().replace("text: USD 3,000,000 (the", "text: USD 4,000,000 (the"))
    out = tmp_path / "out"
    (out / "tasks" / "previous").mkdir(parents=True)
    (out / "tasks" / "previous" / "marker").write_text("old build")
    result = CliRunner().invoke(main, ["data", "build-synthetic", "--out", str(out), "--sources", str(sources)])
    assert result.exit_code == 1
    assert "t3-g01.yaml: t3-g01:e1: replace did not apply (anchor_failed: text_not_found" in result.output
    assert (out / "tasks" / "previous" / "marker").read_text() == "old build"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "src"]  # no stray staging directory
