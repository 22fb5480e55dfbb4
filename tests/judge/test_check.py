"""Judge check: expected-verdict files, agreement statistics, the CLI (heuristic and a fake panel)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.errors import ConfigError
from redlinebench.judge import create_judges
from redlinebench.judge._check import agreement_report, cohen_kappa, load_cases, run_check
from tests.fakes.openai_server import Reply
from tests.judge.docs import AUTHOR, base_contract, redline
from tests.judge.doubles import FakeRubric, FakeTask

RUBRICS = (
    FakeRubric("r1", "Replaces in Section 1.1 thirty (30) days with sixty (60) days", "Commercial Context", 5),
    FakeRubric("r2", "Rejects in Section 1.2 the annual audit right", "Legal correctness", 4),
    FakeRubric("r3", "Deletes in Section 1.3 the liability cap", "Legal correctness", -3),
)


def make_task(tmp_path: Path, cases) -> FakeTask:
    root = tmp_path / "tasks" / "redline-s1-t3-g01a"
    (root / "tests" / "judge_check").mkdir(parents=True)
    (root / "environment" / "app").mkdir(parents=True)
    (root / "environment" / "app" / "contract.docx").write_bytes(base_contract())
    redline().save(root / "tests" / "attorney_redlines.docx")
    (root / "tests" / "judge_check" / "expected.json").write_text(json.dumps(cases), encoding="utf-8")
    return FakeTask(task_id="redline-s1-t3-g01a", turn=3, side="A", author=AUTHOR, rubrics=RUBRICS, root=root,
                    contract_path=root / "environment" / "app" / "contract.docx")


SYNTHETIC_SHAPE = {"task_id": "redline-s1-t3-g01a", "cases": [
    {"name": "golden", "file": "tests/attorney_redlines.docx", "gate": True,
     "verdicts": {"r1": "PASS", "r2": "PASS", "r3": "FAIL"}},
    {"name": "null", "file": "environment/app/contract.docx", "gate": False, "verdicts": None},
]}


def test_cohen_kappa_by_hand():
    # po = 3/4; expected PASS 1/2, judged PASS 1/4 -> pe = 1/2*1/4 + 1/2*3/4 = 1/2 -> kappa = (3/4-1/2)/(1/2)
    assert cohen_kappa(["PASS", "PASS", "FAIL", "FAIL"], ["PASS", "FAIL", "FAIL", "FAIL"]) == 0.5
    assert cohen_kappa(["PASS", "FAIL"], ["PASS", "FAIL"]) == 1.0
    assert cohen_kappa(["PASS", "PASS"], ["PASS", "PASS"]) is None  # chance agreement is total


def test_agreement_report_rates_by_verb_and_category():
    rows = [
        {"judge": "j", "expected": "PASS", "got": "PASS", "verb": "insert", "category": "A", "case_kind": "golden"},
        {"judge": "j", "expected": "PASS", "got": "FAIL", "verb": "insert", "category": "A", "case_kind": "golden"},
        {"judge": "j", "expected": "FAIL", "got": "PASS", "verb": "other", "category": "B", "case_kind": "perturbed"},
        {"judge": "j", "expected": "FAIL", "got": "FAIL", "verb": "accept", "category": "B", "case_kind": "null"},
    ]
    r = agreement_report(rows)["j"]
    assert r["accuracy"] == 0.5 and r["false_pass_rate"] == 0.5 and r["false_fail_rate"] == 0.5
    assert r["kappa"] == 0.0
    assert r["by_verb"]["insert"]["accuracy"] == 0.5 and r["by_category"]["B"]["false_pass_rate"] == 0.5
    assert r["core_verbs"]["n"] == 3 and r["core_verbs"]["accuracy"] == round(2 / 3, 4)


def test_loader_reads_the_synthetic_shape_and_alternatives(tmp_path):
    task = make_task(tmp_path, SYNTHETIC_SHAPE)
    golden, null = load_cases(task)
    assert golden.expected == {"r1": "PASS", "r2": "PASS", "r3": "FAIL"} and golden.gate is True
    assert null.expected is None and null.gate is False and null.path.name == "contract.docx"
    other = make_task(tmp_path / "b", {"golden": {"docx": "../attorney_redlines.docx",
                                                  "expected": [{"rubric_id": "r1", "verdict": True}]}})
    [case] = load_cases(other)
    assert case.expected == {"r1": "PASS"} and case.path.exists()
    bad = make_task(tmp_path / "c", {"cases": [{"name": "x", "file": "f.docx", "verdicts": {"r1": "MAYBE"}}]})
    with pytest.raises(ConfigError, match="PASS or FAIL"):
        load_cases(bad)


async def test_run_check_with_the_heuristic_judge(tmp_path):
    task = make_task(tmp_path, SYNTHETIC_SHAPE)
    report = await run_check([task], create_judges("heuristic"))
    r = report["results"]["heuristic"]
    assert r["n"] == 3 and r["accuracy"] == 1.0
    assert report["gate"] == {"n": 2, "agree": 2, "disagreements": []}
    assert report["n_cases"] == 2 and report["n_judged_cases"] == 1


async def test_run_check_with_a_fake_llm_panel(tmp_path, fake_openai):
    task = make_task(tmp_path, SYNTHETIC_SHAPE)

    def handler(body):
        if body["model"] == "jc":
            return Reply.error(401)
        v = {"ja": ("PASS", "PASS", "PASS"), "jb": ("PASS", "FAIL", "FAIL")}[body["model"]]
        return Reply.json({"verdicts": [{"rubric_id": f"r{i + 1}", "verdict": x} for i, x in enumerate(v)]})

    fake_openai.set_handler(handler)
    judges = create_judges("openai/ja,openai/jb,openai/jc", api_base=fake_openai.url)
    for j in judges:
        j._api_key = "sk-test"
    report = await run_check([task], judges)
    res = report["results"]
    assert res["openai/ja"]["accuracy"] == round(2 / 3, 4) and res["openai/ja"]["false_pass_rate"] == 1.0
    assert res["openai/jb"]["accuracy"] == round(2 / 3, 4) and res["openai/jb"]["false_fail_rate"] == 0.5
    # panel of the two that answered: r1 PASS (2/2), r2 tie -> FAIL, r3 tie -> FAIL
    assert res["panel"]["accuracy"] == round(2 / 3, 4)
    assert "openai/jc" not in res and report["judge_failures"][0]["judge"] == "openai/jc"


def test_cli_judge_check_on_the_embedded_set(tmp_path):
    out = tmp_path / "check.json"
    result = CliRunner().invoke(main, ["judge", "check", "--judges", "heuristic", "-o", str(out),
                                       "--tasks", "redline-s1-t1-g01a,redline-s2-t4-g03a"])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["n_tasks"] == 2 and report["results"]["heuristic"]["n"] > 0
    assert "accuracy" in result.output and "by verb" in result.output
    bad = CliRunner().invoke(main, ["judge", "check", "--tasks", "redline-s9-t9-g09z"])
    assert bad.exit_code != 0 and "unknown task id" in bad.output


def test_cli_judge_check_fails_when_every_judge_call_fails(fake_openai, monkeypatch):
    # a judge that never answers usable JSON must not yield an empty table and exit 0
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "0")
    fake_openai.set_handler(lambda body: Reply.error(400, "no such model"))
    result = CliRunner().invoke(main, ["judge", "check", "--judges", "openai/broken", "--no-cache",
                                       "--api-base", fake_openai.url, "--tasks", "redline-s1-t1-g01a"])
    assert result.exit_code != 0, result.output
    assert "every judge call failed" in result.output and "openai/broken" in result.output
    assert "Traceback" not in result.output and "\n" not in result.output.strip()


def test_reply_rubrics_are_reported_apart_and_with_comments():
    from redlinebench.judge._check import verb_of

    assert verb_of("Replies to AgentCo's comments on the cap") == "reply"
    assert verb_of("States in a comment that the cap is final") == "comment"
    rows = [
        {"judge": "j", "expected": "PASS", "got": "PASS", "verb": "reply", "category": "A", "case_kind": "golden"},
        {"judge": "j", "expected": "PASS", "got": "FAIL", "verb": "comment", "category": "A", "case_kind": "golden"},
        {"judge": "j", "expected": "FAIL", "got": "FAIL", "verb": "insert", "category": "A", "case_kind": "golden"},
    ]
    r = agreement_report(rows)["j"]
    assert r["comment_and_reply"]["n"] == 2 and r["comment_and_reply"]["accuracy"] == 0.5
    assert r["by_verb"]["reply"]["accuracy"] == 1.0


async def test_run_check_counts_verdicts_that_are_not_exactly_pass_or_fail(tmp_path, fake_openai):
    from redlinebench.cli.scoring import print_check

    task = make_task(tmp_path, SYNTHETIC_SHAPE)
    fake_openai.set_handler(lambda body: Reply.json(
        {"verdicts": [{"rubric_id": "r1", "verdict": "pass"}, {"rubric_id": "r2", "verdict": "Pass"},
                      {"rubric_id": "r3", "verdict": "pass"}]}))
    judges = create_judges("openai/ja", api_base=fake_openai.url)
    judges[0]._api_key = "sk-test"
    report = await run_check([task], judges)
    assert report["near_misses"] == {"openai/ja": {"n": 3, "values": {"pass": 2, "Pass": 1}}}
    assert report["results"]["openai/ja"]["false_fail_rate"] is not None  # still counted FAIL
    import io

    from rich.console import Console

    import redlinebench.cli.scoring as scoring

    buf = io.StringIO()
    real = scoring._console
    scoring._console = lambda: Console(file=buf, width=200)
    try:
        print_check(report)
    finally:
        scoring._console = real
    assert "judge openai/ja: 3 verdict(s) not exactly PASS or FAIL, counted FAIL (SPEC 5.3): 'pass' x2, 'Pass' x1" \
        in buf.getvalue()
