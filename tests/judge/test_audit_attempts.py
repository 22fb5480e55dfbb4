"""judge_audit.jsonl: every call once per grading attempt, with the attempt id; a resume never counts a call twice."""

from __future__ import annotations

import json
from collections import Counter

from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.judge import AuditLog, audit_tally, grade_trial, new_attempt_id, read_audit
from redlinebench.judge import create_judges
from redlinebench.scoring import TrialGrade
from tests.judge.docs import redline
from tests.judge.doubles import TASK
from tests.scoring.test_cli_score import make_run


def line(attempt, judge, *, task="redline-s1-t1-g01a", trial=1, model="m", cached=False, cost=0.01, ok=True):
    return {"attempt_id": attempt, "judge": judge, "task_id": task, "trial": trial, "model_under_test": model,
            "cached": cached, "cost_usd": cost, "ok": ok}


def test_tally_counts_the_final_attempt_once_and_lists_the_rest():
    grades = [{"model": "m", "task_id": "redline-s1-t1-g01a", "trial": 1, "attempt_id": "B"}]
    records = [line("A", "j1"), line("A", "j2", ok=False),                     # killed before grade.json
               line("B", "j1", cached=True, cost=0.0), line("B", "j2"),        # the resume that finished
               line("B", "j2")]                                                 # the same line written twice
    t = audit_tally(records, grades)
    assert t["n_calls"] == 2 and t["n_cached"] == 1 and t["n_failed"] == 0
    assert t["n_superseded"] == 2 and t["n_duplicate_lines"] == 1 and t["n_lines"] == 5
    assert t["n_uncached_calls"] == 3 and t["cost_usd"] == 0.03
    # a log line of a trial without a grade (killed, never resumed) is superseded, never a call
    assert audit_tally(records, [])["n_calls"] == 0


def test_tally_reads_lines_written_before_attempt_ids():
    old = [{k: v for k, v in line(None, "j1").items() if k != "attempt_id"} for _ in range(2)]
    t = audit_tally(old, [{"model": "m", "task_id": "redline-s1-t1-g01a", "trial": 1}])
    assert t["n_calls"] == 1 and t["n_superseded"] == 1


def test_bound_log_tags_every_line_and_a_cut_line_is_skipped(tmp_path):
    log = AuditLog(tmp_path / "a.jsonl")
    bound = log.bind(attempt_id="X")
    bound.add_secret("sk-secret-abcdef")
    bound.write({"judge": "j", "attempt_id": "forged", "error": "key sk-secret-abcdef rejected"})
    with (tmp_path / "a.jsonl").open("a") as fh:
        fh.write('{"judge": "j", "attempt_')          # a kill mid-write
    records, bad = read_audit(tmp_path / "a.jsonl")
    assert bad == 1 and records[0]["attempt_id"] == "X" and "sk-secret" not in records[0]["error"]
    assert new_attempt_id() != new_attempt_id()


async def test_grade_records_the_attempt_its_audit_lines_carry(tmp_path):
    audit = AuditLog(tmp_path / "judge_audit.jsonl")
    first = await grade_trial(TASK, redline().to_bytes(), create_judges("heuristic"), model="m", trial=1,
                              audit=audit, trial_dir=tmp_path / "t")
    second = await grade_trial(TASK, redline().to_bytes(), create_judges("heuristic"), model="m", trial=1,
                               audit=audit, trial_dir=tmp_path / "t")
    records, _ = read_audit(tmp_path / "judge_audit.jsonl")
    assert [r["attempt_id"] for r in records] == [first.attempt_id, second.attempt_id]
    assert TrialGrade.read(tmp_path / "t" / "grade.json").attempt_id == second.attempt_id
    t = audit_tally(records, [json.loads((tmp_path / "t" / "grade.json").read_text())])
    assert t["n_calls"] == 1 and t["n_superseded"] == 1


def test_score_killed_then_resumed_counts_each_call_once(tmp_path, monkeypatch):
    run, n = make_run(tmp_path)
    real_write = TrialGrade.write
    written = []

    def dying_write(self, path):
        if self.status == "graded" and len(written) == 2:
            raise KeyboardInterrupt  # the process dies after this attempt's judge call, before its grade
        if self.status == "graded":
            written.append(path)
        return real_write(self, path)

    monkeypatch.setattr(TrialGrade, "write", dying_write)
    killed = CliRunner().invoke(main, ["score", str(run), "--concurrency", "1"])
    assert killed.exit_code != 0
    monkeypatch.setattr(TrialGrade, "write", real_write)
    after_kill = read_audit(run / "judge_audit.jsonl")[0]
    assert len(after_kill) == 3  # two graded trials and the one that died before its grade

    for _ in range(2):  # resume, then a re-score with nothing left to grade
        resumed = CliRunner().invoke(main, ["score", str(run)])
        assert resumed.exit_code == 0, resumed.output
    records, bad = read_audit(run / "judge_audit.jsonl")
    assert bad == 0 and all(r.get("attempt_id") for r in records)
    grades = [json.loads(p.read_text()) for p in run.rglob("grade.json")]
    judged = [g for g in grades if g["status"] == "graded"]
    # the killed trial was judged twice: two lines, one call
    per_trial = Counter((r["task_id"], r["trial"]) for r in records)
    assert sorted(per_trial.values()).count(2) == 1 and len(records) == len(judged) + 1
    summary = json.loads((run / "metrics_summary.json").read_text())
    calls = summary["judge_calls"]
    assert calls["n_calls"] == len(judged) and calls["n_superseded"] == 1 and calls["n_lines"] == len(records)
    by_attempt = {r["attempt_id"] for r in records}
    assert all(g["attempt_id"] in by_attempt for g in judged)

    out = tmp_path / "summary.json"
    summed = CliRunner().invoke(main, ["summarize", str(run), "-o", str(out)])
    assert summed.exit_code == 0, summed.output
    assert json.loads(out.read_text())["judge_calls"]["n_calls"] == len(judged)
