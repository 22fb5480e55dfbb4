"""grade_trial end to end: gate -> view -> panel through real litellm -> reward -> grade.json."""

from __future__ import annotations

import json

from redlinebench.judge import JudgeCache, LiteLLMJudge, create_judges, grade_trial
from redlinebench.scoring import TrialGrade, summarize
from tests.fakes.openai_server import Reply
from tests.judge.docs import AUTHOR, base_contract, redline
from tests.judge.doubles import FakeRubric, FakeTask, verdicts

RUBRICS = (
    FakeRubric("r1", "Replaces in Section 1.1 thirty (30) days with sixty (60) days", "Commercial Context", 6),
    FakeRubric("r2", "Rejects in Section 1.2 the annual audit right", "Legal correctness", 4),
    FakeRubric("r3", "Deletes in Section 1.3 the liability cap", "Legal correctness", -5),
    FakeRubric("r4", "Inserts in Section 1.3 a carve-out for fraud", "Negotiation Quality", 2),
)
TASK = FakeTask(task_id="redline-s1-t3-g01b", scenario_id=1, turn=3, side="A", input_group="s1-t3-g01",
                variant="b", author=AUTHOR, represented_party="AgentCo", counterparty="LargeCo", rubrics=RUBRICS)


def panel(srv, names=("ja", "jb", "jc"), **kw):
    return [LiteLLMJudge(f"openai/{n}", api_base=srv.url, api_key="sk-test-grade-777", timeout=5, **kw)
            for n in names]


async def test_panel_majority_reward_and_files(fake_openai, tmp_path):
    out = tmp_path / "trial"
    out.mkdir()
    redline().save(out / "redline.docx")
    fake_openai.enqueue(Reply.json(verdicts(r1="PASS", r2="PASS", r3="PASS", r4="FAIL")), model="ja")
    fake_openai.enqueue(Reply.json(verdicts(r1="PASS", r2="FAIL", r3="FAIL", r4="FAIL")), model="jb")
    fake_openai.enqueue(Reply.json(verdicts(r1="FAIL", r2="PASS", r3="FAIL")), model="jc")  # r4 missing
    grade = await grade_trial(TASK, out / "redline.docx", panel(fake_openai), model="openai/agent", trial=2,
                              run_dir=tmp_path, cache=False, trial_dir=out)
    # majority: r1 PASS (2/3), r2 PASS (2/3), r3 FAIL (1/3), r4 FAIL (0/3, jc's missing answer is FAIL)
    assert [r.verdict for r in grade.per_rubric] == ["PASS", "PASS", "FAIL", "FAIL"]
    assert grade.per_rubric[0].votes == {"openai/ja": "PASS", "openai/jb": "PASS", "openai/jc": "FAIL"}
    # earned 6 + 4 = 10 of total positive 12, no penalty -> 0.8333...
    assert grade.weighted == 10 / 12 and grade.status == "graded"
    assert (grade.earned_weight, grade.penalty_weight, grade.total_weight, grade.n_pass, grade.n_total) == (
        10, 0, 12, 2, 3)
    assert grade.judge_method == "llm" and grade.prompt_version and grade.usage["prompt_tokens"] == 300
    assert grade.diagnostics["edit_operations"] == 4
    on_disk = json.loads((out / "grade.json").read_text())
    assert on_disk["score"]["weighted"] == 10 / 12 and on_disk["side"] == "A" and on_disk["variant"] == "b"
    assert on_disk["score"]["per_rubric"][2]["is_penalty"] is True
    assert TrialGrade.read(out / "grade.json").to_dict() == on_disk
    assert sorted(p.name for p in (out / "judges").iterdir()) == ["openai_ja.json", "openai_jb.json",
                                                                  "openai_jc.json"]
    assert "~~thirty~~[A1]++sixty++[A1]" in (out / "annotated_view.md").read_text()
    assert json.loads((out / "judges" / "openai_jc.json").read_text())["missing"] == ["r4"]
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".md"):
            assert "sk-test-grade-777" not in path.read_text(), path


async def test_a_judge_that_fails_marks_the_trial_incomplete_never_dropped(fake_openai, tmp_path):
    fake_openai.enqueue(Reply.json(verdicts(r1="PASS", r2="PASS", r3="FAIL", r4="PASS")), model="ja")
    fake_openai.enqueue(Reply.json(verdicts(r1="PASS", r2="FAIL", r3="FAIL", r4="PASS")), model="jb")
    fake_openai.enqueue(*[Reply.error(503)] * 3, model="jc")
    grade = await grade_trial(TASK, redline().to_bytes(), panel(fake_openai, max_retries=2), model="m", trial=1,
                              cache=False)
    assert grade.status == "judging_incomplete" and grade.incomplete_judges == ["openai/jc"]
    assert "503" in grade.errors[0]
    # two answering judges: r2 is a 1-1 tie -> FAIL; r1, r4 PASS -> (6 + 2) / 12
    assert grade.weighted == 8 / 12
    summary = summarize([grade])
    assert summary["n_incomplete"] == 1 and summary["leaderboard"][0]["n_trials"] == 0
    assert "openai/jc" in summary["incomplete"][0]["reason"]


async def test_gate_failure_calls_no_judge(fake_openai, tmp_path):
    grade = await grade_trial(TASK, base_contract(), panel(fake_openai), model="m", trial=1, cache=False)
    assert grade.status == "gate_failed" and grade.weighted == 0.0 and not fake_openai.requests
    assert grade.gate["passed"] is False and "no tracked change" in grade.gate["reason"]
    assert all(r.verdict == "FAIL" and r.justification.startswith("gate failed") for r in grade.per_rubric)
    assert grade.total_weight == 12 and grade.n_total == 3
    missing = await grade_trial(TASK, None, panel(fake_openai), model="m", trial=2, cache=False)
    assert missing.status == "gate_failed" and "no output" in missing.gate["reason"]


async def test_cache_rescoring_is_free_and_identical(fake_openai, tmp_path):
    cache = JudgeCache(tmp_path / "cache")
    fake_openai.set_handler(lambda body: Reply.json(verdicts(r1="PASS", r2="PASS", r3="FAIL", r4="PASS")))
    doc = redline().to_bytes()
    first = await grade_trial(TASK, doc, panel(fake_openai), model="m", trial=1, cache=cache)
    n = len(fake_openai.requests)
    second = await grade_trial(TASK, doc, panel(fake_openai), model="m", trial=1, cache=cache)
    assert len(fake_openai.requests) == n == 3
    assert second.to_dict()["score"] == first.to_dict()["score"]
    assert second.usage["cost_usd"] == 0 and len(second.usage["cached_judges"]) == 3


async def test_heuristic_judge_with_golden_agreement(tmp_path):
    golden = tmp_path / "attorney_redlines.docx"
    redline().save(golden)
    task = FakeTask(**{**TASK.__dict__, "golden_path": golden})
    grade = await grade_trial(task, redline().to_bytes(), create_judges("heuristic"), model="m", trial=1)
    assert grade.judge_method == "heuristic" and grade.status == "graded"
    assert [r.verdict for r in grade.per_rubric] == ["PASS", "PASS", "FAIL", "PASS"]
    assert grade.golden_agreement["paragraph_f1"] == 1.0 and grade.golden_agreement["span_f1"] == 1.0


async def test_a_crashing_judge_is_that_judges_failure(tmp_path):
    class Broken:
        name, method = "broken", "llm"

        async def grade(self, *a, **k):
            raise RuntimeError("bug in a plug-in judge")

    judges = [*create_judges("heuristic"), Broken()]
    grade = await grade_trial(TASK, redline().to_bytes(), judges, model="m", trial=1)
    assert grade.status == "judging_incomplete" and "bug in a plug-in judge" in grade.errors[0]
    assert grade.judge_method == "mixed"


async def test_a_task_without_rubrics_costs_no_call(fake_openai):
    task = FakeTask(**{**TASK.__dict__, "rubrics": ()})
    grade = await grade_trial(task, redline().to_bytes(), panel(fake_openai), model="m", trial=1, cache=False)
    assert grade.status == "graded" and grade.weighted == 0.0 and grade.per_rubric == []
    assert not fake_openai.requests


async def test_the_panel_sums_its_judges_prompt_cache_tokens_into_the_grade(fake_openai, tmp_path):
    """A second grading of the same view finds the judges' prompts in the provider's cache: grade.json
    says how much of its input was read from the cache (issue 14: judges' cache tokens)."""
    from tests.fakes.prompt_cache import PromptCache

    fake_openai.prompt_cache = PromptCache()
    fake_openai.set_handler(lambda body: Reply.json(verdicts(r1="PASS", r2="PASS", r3="FAIL", r4="FAIL")))
    out = tmp_path / "trial"
    out.mkdir()
    redline().save(out / "redline.docx")
    grades = [await grade_trial(TASK, out / "redline.docx", panel(fake_openai), model="openai/agent", trial=1,
                                run_dir=tmp_path, cache=False, trial_dir=out) for _ in range(2)]
    read = [g.usage["cache_read_tokens"] for g in grades]
    logged = [sum(u["cache_read"] for u in calls) for calls in (fake_openai.usage_log[:3], fake_openai.usage_log[3:])]
    assert read == logged and read[1] > read[0]
    on_disk = json.loads((out / "grade.json").read_text())
    assert on_disk["usage"]["cache_read_tokens"] == read[1]
    per_judge = [json.loads(f.read_text()) for f in sorted((out / "judges").iterdir())]
    assert sum(j["cache_read_tokens"] for j in per_judge) == read[1]


async def test_a_trial_run_with_a_reasoning_effort_says_so_in_its_grade(fake_openai, tmp_path):
    out = tmp_path / "trial"
    out.mkdir()
    redline().save(out / "redline.docx")
    (out / "metrics.json").write_text(json.dumps({"status": "completed", "reasoning_effort": "high"}))
    fake_openai.enqueue(Reply.json(verdicts(r1="PASS", r2="PASS", r3="FAIL", r4="FAIL")), model="ja")
    await grade_trial(TASK, out / "redline.docx", panel(fake_openai, names=("ja",)), model="openai/agent", trial=1,
                      run_dir=tmp_path, cache=False, trial_dir=out)
    written = json.loads((out / "grade.json").read_text())
    assert written["reasoning_effort"] == "high"
    assert TrialGrade.from_dict(written).to_dict()["reasoning_effort"] == "high"  # read back, kept
