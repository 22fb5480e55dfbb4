"""``redlinebench score RUN_DIR`` on a real task tree and run directory; judges misbehave on cue."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from redlinebench.cli import main
from tests.fakes.openai_server import Reply
from tests.tasks.treefactory import build_tree

MODEL = "openai/agent-x"


def make_run(tmp_path, judges="heuristic", layout=None):
    data = build_tree(tmp_path / "data", layout)
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({
        "spec": {"judges": judges, "source": str(data)}, "models": [MODEL],
        "judges": {"spec": judges}, "data": {"path": str(data)}}), encoding="utf-8")
    tasks = sorted((data / "tasks").iterdir())
    for task_dir in tasks:
        trial = run / "trials" / "openai_agent-x" / task_dir.name / "1"
        trial.mkdir(parents=True)
        golden = task_dir / "tests" / "attorney_redlines.docx"
        src = golden if golden.exists() else task_dir / "environment" / "app" / "contract.docx"
        (trial / "redline.docx").write_bytes(src.read_bytes())
        (trial / "metrics.json").write_text(json.dumps({"model": MODEL}), encoding="utf-8")
    # a trial whose agent produced no document: graded as a gate failure, not skipped
    (run / "trials" / "openai_agent-x" / tasks[0].name / "2").mkdir()
    (run / "trials" / "openai_agent-x" / tasks[0].name / "2" / "metrics.json").write_text("{}", encoding="utf-8")
    return run, len(tasks)


def grades(run):
    return [json.loads(p.read_text()) for p in sorted(run.rglob("grade.json"))]


def test_score_with_heuristic_then_resume_then_rejudge(tmp_path):
    run, n = make_run(tmp_path)
    result = CliRunner().invoke(main, ["score", str(run)])
    assert result.exit_code == 0, result.output
    gs = grades(run)
    assert len(gs) == n + 1
    assert all(g["model"] == MODEL and g["judge_method"] == "heuristic" for g in gs)
    no_output = [g for g in gs if g["trial"] == 2]
    assert no_output[0]["status"] == "gate_failed" and "no output" in no_output[0]["gate"]["reason"]
    summary = json.loads((run / "metrics_summary.json").read_text())
    assert summary["n_trials"] == n + 1 and summary["judge_method"] == "heuristic"
    assert summary["leaderboard"][0]["n_cells"] == 12 and summary["grid"]["complete"]
    assert "must not be published" in result.output
    stamp = {p: p.stat().st_mtime_ns for p in run.rglob("grade.json")}
    again = CliRunner().invoke(main, ["score", str(run)])
    assert again.exit_code == 0 and re.search(r"graded 0 trial", again.output)
    assert {p: p.stat().st_mtime_ns for p in run.rglob("grade.json")} == stamp
    redo = CliRunner().invoke(main, ["score", str(run), "--rejudge"])
    assert redo.exit_code == 0 and f"graded {n + 1} trial" in redo.output


def test_score_against_misbehaving_llm_judges(tmp_path, fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-cli-secret-4242")
    run, n = make_run(tmp_path, layout=[(1, 1, 1, "ab", True), (2, 4, 1, "a", False)])

    def handler(body):
        ids = json.loads(body["messages"][1]["content"].rsplit(": ", 1)[1])
        if body["model"] == "ja":
            return Reply.json({"verdicts": [{"rubric_id": r, "verdict": "PASS", "justification": "ok"} for r in ids]})
        if body["model"] == "jb":
            return Reply.text("I cannot answer in JSON, sorry.")
        return Reply.error(500)

    fake_openai.set_handler(handler)
    result = CliRunner().invoke(main, ["score", str(run), "--judges", "openai/ja,openai/jb,openai/jc",
                                       "--api-base", fake_openai.url, "--concurrency", "16"])
    assert result.exit_code == 1, result.output  # judging incomplete: the score is not usable yet
    assert "judging is still incomplete" in result.output
    gs = grades(run)
    statuses = {g["status"] for g in gs}
    assert statuses <= {"judging_incomplete", "gate_failed"} and "judging_incomplete" in statuses
    incomplete = [g for g in gs if g["status"] == "judging_incomplete"]
    assert all(set(g["incomplete_judges"]) == {"openai/jb", "openai/jc"} for g in incomplete)
    summary = json.loads((run / "metrics_summary.json").read_text())
    assert summary["n_incomplete"] == len(incomplete) and len(summary["incomplete"]) == len(incomplete)
    audit = (run / "judge_audit.jsonl").read_text()
    assert "sk-cli-secret-4242" not in audit and '"n_attempts": 11' in audit  # 1 + 10 retries (SPEC §5)
    for p in run.rglob("*"):
        if p.is_file() and p.suffix != ".docx":
            assert "sk-cli-secret-4242" not in p.read_text(errors="replace")

    # The judges recover: a plain `score` (no --rejudge) finishes exactly the incomplete trials,
    # and only the judges that failed are asked again (ja's verdicts come from the cache).
    def recovered(body):
        ids = json.loads(body["messages"][1]["content"].rsplit(": ", 1)[1])
        return Reply.json({"verdicts": [{"rubric_id": r, "verdict": "PASS", "justification": "ok"} for r in ids]})

    assert "trial(s) with incomplete judging" in (run / "report.html").read_text(encoding="utf-8")
    fake_openai.set_handler(recovered)
    before = len(fake_openai.requests)
    gate_failed = {p: p.stat().st_mtime_ns for p in run.rglob("grade.json")
                   if json.loads(p.read_text())["status"] == "gate_failed"}
    again = CliRunner().invoke(main, ["score", str(run), "--judges", "openai/ja,openai/jb,openai/jc",
                                      "--api-base", fake_openai.url])
    assert again.exit_code == 0, again.output
    assert f"graded {len(incomplete)} trial" in again.output
    assert {g["status"] for g in grades(run)} == {"graded", "gate_failed"}
    asked = [r.body["model"] for r in fake_openai.requests[before:]]
    assert sorted(set(asked)) == ["jb", "jc"] and len(asked) == 2 * len(incomplete)
    assert {p: p.stat().st_mtime_ns for p in gate_failed} == gate_failed  # final grades are left alone
    assert json.loads((run / "metrics_summary.json").read_text())["n_incomplete"] == 0
    page = (run / "report.html").read_text(encoding="utf-8")  # rewritten: no stale incomplete callout
    assert "report: " in again.output and "with incomplete judging" not in page


def test_score_errors_are_one_line(tmp_path):
    result = CliRunner().invoke(main, ["score", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "does not exist" in result.output  # a missing folder: a usage error
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(main, ["score", str(tmp_path / "empty"), "--judges", "heuristic",
                                       "--source", str(build_tree(tmp_path / "d"))])
    assert result.exit_code != 0 and "not a run directory" in result.output and "Traceback" not in result.output
    run, _ = make_run(tmp_path / "x")
    result = CliRunner().invoke(main, ["score", str(run), "--judges", "nope.yaml"])
    assert result.exit_code == 2 and "judge config not found" in result.output


def test_score_grades_again_a_trial_whose_grade_json_is_damaged(tmp_path):
    # a grade.json cut short (disk full, hand edit) must not block the run: score re-grades it
    run, n = make_run(tmp_path)
    assert CliRunner().invoke(main, ["score", str(run)]).exit_code == 0
    damaged = sorted(run.rglob("grade.json"))[0]
    damaged.write_text('{"status": "graded", "trunc', encoding="utf-8")
    result = CliRunner().invoke(main, ["score", str(run)])
    assert result.exit_code == 0, result.output
    assert "graded 1 trial" in result.output and "grading this trial again" in result.output
    assert str(damaged) in result.output and "line 1 column" in result.output
    assert json.loads(damaged.read_text())["status"] in ("graded", "gate_failed")
    summary = json.loads((run / "metrics_summary.json").read_text())
    assert summary["n_trials"] == n + 1


def test_score_sends_judges_to_the_runs_judge_api_base_not_the_models(tmp_path, fake_openai, monkeypatch):
    # the run judged at judge_api_base; its api_base serves the model under test and must not get judge calls
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "0")
    run, n = make_run(tmp_path, judges="openai/ja", layout=[(1, 1, 1, "a", True)])
    cfg = json.loads((run / "config.json").read_text())
    cfg["spec"].update(api_base="http://127.0.0.1:9/v1", judge_api_base=fake_openai.url)
    (run / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    fake_openai.set_handler(lambda body: Reply.json({"verdicts": [
        {"rubric_id": r, "verdict": "PASS", "justification": "ok"}
        for r in json.loads(body["messages"][1]["content"].rsplit(": ", 1)[1])]}))
    result = CliRunner().invoke(main, ["score", str(run)])
    assert result.exit_code == 0, result.output
    assert {g["status"] for g in grades(run)} <= {"graded", "gate_failed"}
    assert "graded" in {g["status"] for g in grades(run)}


def test_score_and_judge_check_refuse_to_start_without_the_judges_keys(tmp_path, monkeypatch):
    # without this both would retry every call against the provider for minutes, then report nothing
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    run, n = make_run(tmp_path)
    result = CliRunner().invoke(main, ["score", str(run), "--judges", "openai/ja,anthropic/jb"])
    assert result.exit_code == 2, result.output
    assert "OPENAI_API_KEY" in result.output and "ANTHROPIC_API_KEY" in result.output
    assert not list(run.rglob("grade.json"))
    check = CliRunner().invoke(main, ["judge", "check", "--judges", "openai/ja", "--tasks", "redline-s1-t1-g01a"])
    assert check.exit_code == 2 and "missing provider credentials" in check.output


def test_score_refuses_a_run_directory_another_process_is_writing(tmp_path):
    import fcntl

    run, n = make_run(tmp_path)
    with open(run / ".lock", "a+") as held:  # what a running `redlinebench run` holds
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = CliRunner().invoke(main, ["score", str(run)])
        assert result.exit_code != 0 and "another redlinebench process" in result.output
        assert not list(run.rglob("grade.json"))
    assert CliRunner().invoke(main, ["score", str(run)]).exit_code == 0


def _pass_all(body):
    ids = json.loads(body["messages"][1]["content"].rsplit(": ", 1)[1])
    return Reply.json({"verdicts": [{"rubric_id": r, "verdict": "PASS", "justification": "ok"} for r in ids]})


def _with_endpoints(run, **endpoints):
    cfg = json.loads((run / "config.json").read_text())
    cfg["spec"].update(endpoints)
    (run / "config.json").write_text(json.dumps(cfg), encoding="utf-8")


def test_score_sends_judges_to_the_runs_judge_endpoint_not_the_models(tmp_path, fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    run, n = make_run(tmp_path, judges="openai/ja", layout=[(1, 1, 1, "a", True)])
    # The model's endpoint is a closed port: a judge sent there would fail every call.
    _with_endpoints(run, api_base="http://127.0.0.1:9/v1", judge_api_base=fake_openai.url)
    fake_openai.set_handler(_pass_all)
    result = CliRunner().invoke(main, ["score", str(run)])
    assert result.exit_code == 0, result.output
    gs = grades(run)
    assert sorted(g["status"] for g in gs) == ["gate_failed"] + ["graded"] * n
    assert fake_openai.requests and {r.model for r in fake_openai.requests} == {"ja"}


def test_score_api_base_option_overrides_the_runs_judge_endpoint(tmp_path, fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    run, n = make_run(tmp_path, judges="openai/ja", layout=[(1, 1, 1, "a", True)])
    _with_endpoints(run, api_base="http://127.0.0.1:9/v1", judge_api_base="http://127.0.0.1:9/v1")
    fake_openai.set_handler(_pass_all)
    result = CliRunner().invoke(main, ["score", str(run), "--api-base", fake_openai.url])
    assert result.exit_code == 0, result.output
    assert sorted(g["status"] for g in grades(run)) == ["gate_failed"] + ["graded"] * n
    assert len(fake_openai.requests) == n


def test_rejudge_against_a_judge_that_is_down_keeps_the_complete_grades(tmp_path, fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")

    def all_pass(body):
        ids = json.loads(body["messages"][1]["content"].rsplit(": ", 1)[1])
        return Reply.json({"verdicts": [{"rubric_id": r, "verdict": "PASS", "justification": "ok"} for r in ids]})

    run, n = make_run(tmp_path, judges="openai/ja")
    fake_openai.set_handler(all_pass)
    first = CliRunner().invoke(main, ["score", str(run), "--judge-api-base", fake_openai.url])
    assert first.exit_code == 0, first.output
    graded = {p: p.read_bytes() for p in run.rglob("*") if p.is_file() and p.name != "metrics_summary.json"
              and "trials" in p.parts and p.suffix in (".json", ".md")}
    assert any(p.parent.name == "judges" for p in graded)
    stamps = {p: p.stat().st_mtime_ns for p in graded if p.name == "grade.json"}

    fake_openai.set_handler(lambda body: Reply.error(503, "down"))
    redo = CliRunner().invoke(main, ["score", str(run), "--rejudge", "--no-cache", "--judge-api-base", fake_openai.url,
                                     "--timeout", "2"])
    assert "their previous grade is kept" in redo.output
    assert redo.exit_code == 1 and "the re-grade did not finish for" in redo.output  # not the re-grade asked for
    after = {p: p.read_bytes() for p in graded}
    assert after == graded  # grade.json, judges/*.json and annotated_view.md untouched
    assert not (run / ".partial").exists() and not (run / ".rejudge").exists()
    assert {g["status"] for g in grades(run)} <= {"graded", "gate_failed"}

    fake_openai.set_handler(all_pass)  # back up: the rejudged grades replace the old ones
    again = CliRunner().invoke(main, ["score", str(run), "--rejudge", "--no-cache", "--judge-api-base", fake_openai.url])
    assert again.exit_code == 0, again.output
    assert "previous grade is kept" not in again.output and not (run / ".rejudge").exists()
    assert all(p.stat().st_mtime_ns != t for p, t in stamps.items())  # rewritten (same verdicts, same bytes)


def test_score_of_a_folder_that_is_no_run_leaves_it_untouched(tmp_path):
    """A mistyped folder is refused before the run lock is taken: no `.lock` left in the user's folder
    (`import outputs` of that folder would then list it as a stray file)."""
    folder = tmp_path / "outputs"
    folder.mkdir()
    (folder / "mine.txt").write_text("x", encoding="utf-8")
    result = CliRunner().invoke(main, ["score", str(folder), "--judges", "heuristic"])
    assert result.exit_code == 1 and "not a run directory" in result.output
    assert sorted(p.name for p in folder.iterdir()) == ["mine.txt"]
