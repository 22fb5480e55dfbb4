"""``redlinebench summarize`` over grade files on disk."""

from __future__ import annotations

import json

from click.testing import CliRunner

from redlinebench.cli import main
from tests.scoring.test_aggregate import fixture


def write_grades(root, grades):
    for i, g in enumerate(grades):
        d = root / g["model"] / g["task_id"] / str(g["trial"])
        d.mkdir(parents=True, exist_ok=True)
        (d / "grade.json").write_text(json.dumps(g), encoding="utf-8")


def test_summarize_reads_every_grade_recursively_and_writes_json(tmp_path):
    grades = fixture()
    write_grades(tmp_path / "run1", grades[:4])
    write_grades(tmp_path / "run2" / "deeper", grades[4:])
    out = tmp_path / "metrics_summary.json"
    result = CliRunner().invoke(main, ["summarize", str(tmp_path / "run1"), str(tmp_path / "run2"),
                                       str(tmp_path / "run1"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads(out.read_text())
    entry = summary["leaderboard"][0]
    assert entry["overall_turn_weighted"] == 0.2698 and entry["n_trials"] == 6  # run1 given twice: counted once
    assert "27.0" in result.output and "partial grid" in result.output
    assert summary["warnings"] == []


def test_corrupt_grade_is_one_line_error_naming_the_file(tmp_path):
    write_grades(tmp_path, fixture()[:2])
    bad = tmp_path / "m" / "redline-s1-t1-g09a" / "1"
    bad.mkdir(parents=True)
    (bad / "grade.json").write_text('{"task_id": "redline-s1-t1-g09a", "model": "m"', encoding="utf-8")
    result = CliRunner().invoke(main, ["summarize", str(tmp_path)])
    assert result.exit_code == 1
    assert "grade.json" in result.output and "not valid JSON" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(main, ["summarize", str(tmp_path), "--skip-invalid", "--json"])
    assert result.exit_code == 0
    summary = json.loads(result.output)
    assert summary["n_trials"] == 2 and "skipped unreadable grade" in summary["warnings"][0]


def test_no_grades_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(main, ["summarize", str(tmp_path)])
    assert result.exit_code != 0 and "no grade.json found" in result.output
    result = CliRunner().invoke(main, ["summarize", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "does not exist" in result.output  # a missing folder: a usage error


def test_trials_with_an_episode_but_no_grade_are_named_not_dropped_silently(tmp_path):
    """An errored episode (no grade.json) is listed as an incomplete trial of its model, so a model
    whose every trial errored is a row with "-" as in `run`'s table; one not graded yet is named."""
    grades = fixture()
    write_grades(tmp_path / "run1", grades[:4])
    for n, (model, status) in enumerate((("openai/down", "errored"), ("openai/down", "errored"),
                                         (grades[0]["model"], "completed"))):
        d = tmp_path / "run1" / "trials" / model.replace("/", "_") / f"redline-s1-t1-g0{n + 5}a" / "1"
        d.mkdir(parents=True)
        (d / "metrics.json").write_text(json.dumps({"task_id": f"redline-s1-t1-g0{n + 5}a", "model": model,
                                                    "status": status, "error": "APIConnectionError: down"}))
    (tmp_path / "run1" / "metrics.json").write_text("{}")  # not a trial's metrics: ignored
    out = tmp_path / "summary.json"
    result = CliRunner().invoke(main, ["summarize", str(tmp_path / "run1"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads(out.read_text())
    assert summary["warnings"] == [
        f"{grades[0]['model']}: 1 trial(s) have an episode but no grade.json (not graded yet: "
        "`redlinebench score RUN_DIR`), so they are not in this summary"]
    down = next(e for e in summary["leaderboard"] if e["model"] == "openai/down")
    assert down["overall_turn_weighted"] is None and down["n_incomplete"] == 2
    assert [(i["model"], i["status"]) for i in summary["incomplete"]] == [("openai/down", "errored")] * 2
    assert "APIConnectionError: down" in summary["incomplete"][0]["reason"]
    row = next(line for line in result.output.splitlines() if "openai/down" in line)
    assert " - " in row  # no score: a dash, as in run's table


def test_grades_below_a_symlinked_folder_are_read_once_and_a_link_loop_ends(tmp_path):
    """SPEC §6: every grade.json below the directories given, a symlinked run folder included."""
    grades = fixture()
    write_grades(tmp_path / "store" / "run1", grades[:4])
    write_grades(tmp_path / "given" / "run2", grades[4:])
    (tmp_path / "given" / "run1").symlink_to(tmp_path / "store" / "run1", target_is_directory=True)
    (tmp_path / "given" / "run2" / "loop").symlink_to(tmp_path / "given", target_is_directory=True)
    for dirs in ([tmp_path / "given"], [tmp_path / "given", tmp_path / "store"]):
        result = CliRunner().invoke(main, ["summarize", *map(str, dirs), "--json"])
        assert result.exit_code == 0, result.output
        entry = json.loads(result.output)["leaderboard"][0]
        assert entry["overall_turn_weighted"] == 0.2698 and entry["n_trials"] == 6


def test_arena_moves_that_were_only_audited_are_not_task_scores(tmp_path):
    """An arena folder holds one grade.json per move; moves after the first are audited, not judged (SPEC §8.2):
    summarize leaves them out instead of counting them as zero-reward trials."""
    grades = fixture()[:4]
    write_grades(tmp_path / "run1", grades)
    moved = dict(grades[0], trial=7, judge_method="audit", arena_move=2,
                 score=dict(grades[0]["score"], weighted=0.0))
    write_grades(tmp_path / "run1", [moved])
    result = CliRunner().invoke(main, ["summarize", str(tmp_path / "run1"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["n_trials"] == 4
