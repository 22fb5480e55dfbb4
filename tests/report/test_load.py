import json

import pytest

from redlinebench.report import ReportError, load_run

from .runfixture import HOSTILE, JUDGES, MODELS, slug


def test_reads_every_trial_with_its_files(run_dir):
    run = load_run(run_dir)
    assert run.run_id == "run-2026-11-29-demo"
    assert len(run.trials) == 13
    assert run.models == MODELS  # leaderboard order first
    t = next(t for t in run.trials if t.model == MODELS[0] and t.task_id == "redline-s1-t1-g01a" and t.trial == 1)
    # PPFF/PPPF/PFFF: r1 PASS 3/3, r2 PASS 2/3, r3 FAIL 1/3, r4 FAIL 0/3 -> (5+3)/10
    assert t.reward == 0.8 and t.status == "graded" and t.gate_passed is True
    assert t.cost == 0.084 and t.tokens_in == 42000 and t.tokens_out == 2300 and t.latency == 49.5
    assert t.tool_calls == 6 and t.failed_edits == 1 and t.transcript_steps == 8
    assert set(t.judge_files) == {slug(j) for j in JUDGES}
    assert t.scenario == "1" and t.turn == "1" and t.side == "A" and t.input_group == "s1-t1-g01"
    assert "PCI-DSS" in t.annotated_view and t.redline_path.name == "redline.docx"


def test_statuses(run_dir):
    run = load_run(run_dir)
    by = {(t.model, t.task_id, t.trial): t for t in run.trials}
    gate = by[(MODELS[1], "redline-s1-t2-g01a", 1)]
    assert gate.status == "gate_failed" and gate.reward == 0.0 and "no tracked change" in gate.gate["reason"]
    inc = by[(MODELS[0], "redline-s1-t2-g01a", 2)]
    assert inc.status == "judging_incomplete" and inc.missing_judges == [JUDGES[2]]
    assert by[(MODELS[2], "redline-s2-t1-g02b", 1)].model == f"evil/{HOSTILE}"


def test_missing_judges_inferred_from_votes_when_not_stated(run_dir):
    p = run_dir / "trials" / slug(MODELS[0]) / "redline-s1-t2-g01a" / "2" / "grade.json"
    g = json.loads(p.read_text())
    del g["incomplete_judges"], g["status"]
    p.write_text(json.dumps(g))
    t = next(t for t in load_run(run_dir).trials if t.path == p.parent)
    assert t.missing_judges == [JUDGES[2]] and t.status == "judging_incomplete"


def test_broken_files_become_problems_not_missing_rows(run_dir):
    tdir = run_dir / "trials" / slug(MODELS[0]) / "redline-s1-t1-g01a" / "1"
    (tdir / "grade.json").write_text('{"task_id": "redline-s1-t1-g01a", ', encoding="utf-8")
    (tdir / "metrics.json").write_bytes(b"\xff\xfe not utf8")
    run = load_run(run_dir)
    assert len(run.trials) == 13
    t = next(t for t in run.trials if t.path == tdir)
    assert t.grade is None and t.status == "not_graded" and t.model == slug(MODELS[0])
    assert any("grade.json is not valid JSON (line 1" in p for p in t.problems)
    assert any("metrics.json is not UTF-8" in p for p in t.problems)


def test_grade_that_is_not_an_object(run_dir):
    tdir = run_dir / "trials" / slug(MODELS[1]) / "redline-s3-t4-g01a" / "1"
    (tdir / "grade.json").write_text("[1, 2]")
    t = next(t for t in load_run(run_dir).trials if t.path == tdir)
    assert t.grade is None and any("expected a JSON object, found list" in p for p in t.problems)


def test_metrics_key_variants(run_dir):
    tdir = run_dir / "trials" / slug(MODELS[1]) / "redline-s3-t4-g01a" / "1"
    (tdir / "metrics.json").write_text(json.dumps({"usage": {"input_tokens": 7, "output_tokens": 3, "cost_usd": 0.5},
                                                   "calls_by_tool": {"read_document": 2, "end_session": 1},
                                                   "wall_time_s": 9.0, "edits_failed": 2}))
    t = next(t for t in load_run(run_dir).trials if t.path == tdir)
    assert (t.tokens_in, t.tokens_out, t.cost, t.tool_calls, t.latency, t.failed_edits) == (7, 3, 0.5, 3, 9.0, 2)


def test_not_a_run_directory(tmp_path):
    with pytest.raises(ReportError, match="does not exist"):
        load_run(tmp_path / "nope")
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(ReportError, match="is not a directory"):
        load_run(tmp_path / "f.txt")
    with pytest.raises(ReportError, match="no trials/ folder and no metrics_summary.json"):
        load_run(tmp_path)


def test_missing_summary_is_noted(run_dir):
    (run_dir / "metrics_summary.json").unlink()
    run = load_run(run_dir)
    assert "computed from the grade.json files" in run.summary_note
    assert [(e["model"], e["redline_overall"]) for e in run.leaderboard] == [(MODELS[0], 84.8), (MODELS[1], 42.5), (MODELS[2], 0.0)]


def test_unreadable_summary_falls_back_to_the_grades(run_dir):
    (run_dir / "metrics_summary.json").write_text("{oops", encoding="utf-8")
    run = load_run(run_dir)
    assert run.leaderboard[0]["redline_overall"] == 84.8
    assert any("metrics_summary.json is not valid JSON" in p for p in run.problems)


def test_unpriced_model_has_unknown_cost_not_zero(run_dir):
    # the runner writes cost_usd 0.0 with cost_known false for a model litellm has no price for
    tdir = run_dir / "trials" / slug(MODELS[1]) / "redline-s3-t4-g01a" / "1"
    (tdir / "metrics.json").write_text(json.dumps({"cost_usd": 0.0, "cost_known": False, "tokens_in": 5}))
    t = next(t for t in load_run(run_dir).trials if t.path == tdir)
    assert t.cost is None and t.tokens_in == 5
    (tdir / "metrics.json").write_text(json.dumps({"cost_usd": 0.0, "cost_known": True}))
    t = next(t for t in load_run(run_dir).trials if t.path == tdir)
    assert t.cost == 0.0
