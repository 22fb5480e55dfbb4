"""``tasks export ID... --out DIR``: runnable task folders from any source (the embedded set lives in the
package), refused over existing folders without --force; unknown ids are typed mistakes (exit 2);
``verify`` without --logs never creates /logs on a user's machine."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from redlinebench.cli import main

TASK = "redline-s1-t2-g01a"


def test_export_writes_a_folder_verify_grades(tmp_path, monkeypatch):
    from redlinebench.tasks import load_tasks

    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["tasks", "export", TASK, "--source", "embedded", "--out", "out"])
    assert r.exit_code == 0, r.output
    assert f"wrote {Path('out') / TASK}" in r.output and "mcp --task-dir" in r.output
    exported = load_tasks(str(tmp_path / "out")).get(TASK)
    original = load_tasks("embedded").get(TASK)
    assert exported.instruction == original.instruction and len(exported.rubrics) == len(original.rubrics)
    # verify grades it; without --logs (no /logs here) it writes a local folder and says so
    assert not Path("/logs").exists()
    r = CliRunner().invoke(main, ["verify", "--task-dir", f"out/{TASK}", "--output", str(original.contract_path),
                                  "--judges", "heuristic"])
    assert r.exit_code == 0, r.output
    assert f"logs: {Path('verify-logs') / TASK} (not inside a Harbor container" in r.output
    assert json.loads((tmp_path / "verify-logs" / TASK / "grade.json").read_text())["task_id"] == TASK
    assert not Path("/logs").exists()


def test_export_refuses_to_overwrite_and_unknown_ids_exit_2(tmp_path):
    out = tmp_path / "out"
    args = ["tasks", "export", TASK, "--source", "embedded", "--out", str(out)]
    assert CliRunner().invoke(main, args).exit_code == 0
    (out / TASK / "mine.txt").write_text("a user's note")
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and "already exist" in r.output and (out / TASK / "mine.txt").exists()
    r = CliRunner().invoke(main, [*args, "--force"])
    assert r.exit_code == 0 and not (out / TASK / "mine.txt").exists()
    r = CliRunner().invoke(main, ["tasks", "export", "redline-s1-t2-g01z", "--source", "embedded", "--out", str(out)])
    assert r.exit_code == 2 and "did you mean" in r.output
    r = CliRunner().invoke(main, ["tasks", "show", "redline-s1-t2-g01z", "--source", "embedded"])
    assert r.exit_code == 2 and "no task 'redline-s1-t2-g01z'" in r.output


def test_verify_with_a_missing_task_dir_is_a_typed_mistake(tmp_path):
    r = CliRunner().invoke(main, ["verify", "--task-dir", str(tmp_path / "nope"), "--output", str(tmp_path / "x"),
                                  "--judges", "heuristic", "--logs", str(tmp_path / "logs")])
    assert r.exit_code == 2 and "does not exist" in r.output
