"""The Harbor verifier and ``import harbor`` audit the agent's document against the task's input.

The agent owns its container: it may overwrite ``/app/contract.docx`` as well as write its output.
The verifier compares with the copy of the input the export ships on the verifier side
(``tests/task/<id>/environment/app/contract.docx``), which Harbor copies in only at verification.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.tasks import load_tasks
from tests.integrations.test_harbor import _run_test_sh, _shim, _stand_in_wheel, _trial
from tests.manipulated import TASK_ID, assert_untracked_gate_failure, honest_output, manipulated_output, untracked_edit


@pytest.fixture(scope="module")
def task():
    return load_tasks("embedded").get(TASK_ID)


@pytest.fixture
def exported(tmp_path) -> Path:
    wheel = tmp_path / "redlinebench-0.1.0-py3-none-any.whl"
    _stand_in_wheel(wheel)
    out = tmp_path / "harbor"
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", "embedded", "--task", TASK_ID,
                                    "--wheel", str(wheel), "--judges", "heuristic"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return out / TASK_ID


def test_the_export_ships_the_input_on_the_verifier_side(exported, task):
    shipped = exported / "tests" / "task" / TASK_ID / "environment" / "app" / "contract.docx"
    assert shipped.read_bytes() == Path(task.contract_path).read_bytes()


def test_verify_fails_an_untracked_change_even_when_the_agent_rewrote_its_own_input(exported, task, tmp_path):
    env = _shim(tmp_path)
    app = exported / "environment" / "app" / "contract.docx"
    # what the agent can do in its container: change /app/contract.docx too, so the two agree
    app.write_bytes(untracked_edit(app.read_bytes()))
    out = tmp_path / "app" / "output" / "redline.docx"
    out.parent.mkdir(parents=True)
    out.write_bytes(manipulated_output(task.contract_path, task.author))
    logs = tmp_path / "logs"
    proc = _run_test_sh(exported, logs, out, env)
    assert proc.returncode == 0, proc.stderr
    assert_untracked_gate_failure(json.loads((logs / "grade.json").read_text()))
    assert (logs / "reward.txt").read_text().strip() == "0.000000"


def test_verify_grades_the_honest_control(exported, task, tmp_path):
    env = _shim(tmp_path)
    out = tmp_path / "redline.docx"
    out.write_bytes(honest_output(task.contract_path, task.author))
    logs = tmp_path / "logs"
    proc = _run_test_sh(exported, logs, out, env)
    assert proc.returncode == 0, proc.stderr
    grade = json.loads((logs / "grade.json").read_text())
    assert grade["gate"]["passed"] is True and grade["integrity"]["passed"] is True


def _pre_audit_job(tmp_path: Path, task) -> Path:
    """A Harbor job whose verifier (a wheel older than the audit) graded the manipulated output."""
    root = tmp_path / "jobs"
    job = root / "2026-11-29__10-00-00"
    job.mkdir(parents=True)
    (job / "config.json").write_text(json.dumps({"agents": [{"name": "terminus-2", "model_name": "openai/gpt-5.5"}]}))
    grade = {"task_id": TASK_ID, "model": "harbor-agent", "trial": 1, "status": "graded", "judge_method": "llm",
             "judges": ["openai/gpt-5.4-mini"], "gate": {"passed": True},
             "score": {"weighted": 0.3, "earned_weight": 6, "n_pass": 2,
                       "per_rubric": [{"rubric_id": f"{TASK_ID}-r01", "verdict": "PASS", "weight": 6,
                                       "is_penalty": False, "category": "Legal", "criteria": "c",
                                       "justification": "j", "votes": {"j": "PASS"}}]}}
    trial = _trial(job, f"{TASK_ID}__aaa", TASK_ID, "2026-11-29T10:05:00", grade=grade, reward=0.3)
    (trial / "verifier" / "redline.docx").write_bytes(manipulated_output(task.contract_path, task.author))
    return root


def test_import_audits_a_grade_its_verifier_made_without_the_audit(tmp_path, task):
    jobs = _pre_audit_job(tmp_path, task)
    run = tmp_path / "run"
    res = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(run), "--source", "embedded"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "1 trial(s) were graded by a verifier without it and were audited on import" in res.output
    [path] = list(run.glob(f"trials/*/{TASK_ID}/1/grade.json"))
    grade = json.loads(path.read_text())
    assert_untracked_gate_failure(grade)
    assert [r["verdict"] for r in grade["score"]["per_rubric"]] == ["FAIL"]
    [row] = json.loads((run / "metrics_summary.json").read_text())["leaderboard"]
    assert row["n_integrity_failures"] == 1 and row["overall_turn_weighted"] == 0


def test_import_without_the_source_says_the_old_grades_are_unaudited(tmp_path, task):
    jobs = _pre_audit_job(tmp_path, task)
    run = tmp_path / "run"
    res = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(run)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "1 trial(s) were graded by a verifier without the integrity audit and are not audited" in res.output
    [path] = list(run.glob(f"trials/*/{TASK_ID}/1/grade.json"))
    assert "integrity" not in json.loads(path.read_text())


def test_import_keeps_the_verifiers_own_audit(tmp_path, task):
    jobs = _pre_audit_job(tmp_path, task)
    [grade_path] = list(jobs.glob("*/*/verifier/grade.json"))
    grade = json.loads(grade_path.read_text())
    grade["integrity"] = {"passed": True, "version": "integrity-v1", "findings": []}
    grade_path.write_text(json.dumps(grade))
    shutil.copyfile(task.contract_path, grade_path.with_name("redline.docx"))
    run = tmp_path / "run"
    res = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(run), "--source", "embedded"],
                             catch_exceptions=False)
    assert res.exit_code == 0 and "audited on import" not in res.output
    [path] = list(run.glob(f"trials/*/{TASK_ID}/1/grade.json"))
    assert json.loads(path.read_text())["integrity"]["passed"] is True


def test_the_container_brief_says_every_change_must_be_tracked_and_what_the_audit_refuses(exported):
    import tomllib

    from redlinebench.integrations.harbor._export import BRIEF_VERSION, container_instruction

    text = (exported / "instruction.md").read_text()
    for needle in ("Every change must be a tracked change or a comment", "without tracking",
                   "any author name other than yours", "the other side's revisions or comments altered",
                   "hidden text", "addressed to the grader"):
        assert needle in text, needle
    assert text.count("**Integrity.**") == 1
    meta = tomllib.loads((exported / "task.toml").read_text())["metadata"]
    assert meta["redlinebench_brief_version"] == BRIEF_VERSION == "harbor-brief-2"
    # a brief already written for the container gets the rule once, and keeps it on a second pass
    own = "# Brief\n\nLeave the file at /app/output/redline.docx.\n"
    once = container_instruction(own, "Counsel")
    assert once.count("**Integrity.**") == 1 and container_instruction(once, "Counsel") == once


def test_doc_help_says_what_the_audit_refuses():
    res = CliRunner().invoke(main, ["doc", "--help"], terminal_width=200)
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    for needle in ("every change must be tracked", "without tracking", "another author's name",
                   "the other side's revisions or comments altered", "hidden text", "addressed to the grader"):
        assert needle in text, needle
