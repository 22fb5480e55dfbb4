"""The panel vote end to end (SPEC §5.4) through fake judges that leave rubrics out of their answers."""

from __future__ import annotations

import json

from redlinebench.judge import JudgeResult, LiteLLMJudge, grade_trial
from redlinebench.judge._check import run_check
from redlinebench.scoring import TrialGrade, summarize
from tests.fakes.openai_server import Reply
from tests.judge.docs import AUTHOR, redline
from tests.judge.doubles import FakeRubric, FakeTask, verdicts

RUBRICS = (
    FakeRubric("r1", "Replaces in Section 1.1 thirty (30) days with sixty (60) days", "Commercial Context", 6),
    FakeRubric("r2", "Rejects in Section 1.2 the annual audit right", "Legal correctness", 4),
    FakeRubric("r3", "Inserts in Section 1.3 a carve-out for fraud", "Negotiation Quality", 2),
)
TASK = FakeTask(task_id="redline-s1-t3-g01b", scenario_id=1, turn=3, side="A", input_group="s1-t3-g01",
                variant="b", author=AUTHOR, represented_party="AgentCo", counterparty="LargeCo", rubrics=RUBRICS)


class Omitting:
    """A judge that answers only some rubrics, as the litellm judge reports it: the left-out ids
    are in ``missing`` and (as FAIL) in ``verdicts``."""

    method = "llm"

    def __init__(self, name: str, answer: dict[str, str]) -> None:
        self.name, self.answer = name, answer

    async def grade(self, task, view, doc, **options) -> JudgeResult:
        ids = [str(r.id) for r in task.rubrics]
        missing = [rid for rid in ids if rid not in self.answer]
        return JudgeResult(judge=self.name, ok=True,
                           verdicts={rid: self.answer.get(rid, "FAIL") for rid in ids},
                           justifications={rid: f"{self.name} on {rid}" for rid in self.answer},
                           missing=missing, attempts=1)


async def test_pass_missing_missing_is_pass_and_votes_name_the_voters(tmp_path):
    judges = [Omitting("ja", {"r1": "PASS", "r2": "FAIL", "r3": "PASS"}),
              Omitting("jb", {"r2": "PASS", "r3": "FAIL"}),
              Omitting("jc", {"r3": "FAIL"})]
    grade = await grade_trial(TASK, redline().to_bytes(), judges, model="m", trial=1, trial_dir=tmp_path)
    by_id = {r.rubric_id: r for r in grade.per_rubric}
    # r1: P, -, - -> PASS ; r2: F, P, - -> tie -> FAIL ; r3: P, F, F -> FAIL
    assert [by_id[r].verdict for r in ("r1", "r2", "r3")] == ["PASS", "FAIL", "FAIL"]
    assert by_id["r1"].votes == {"ja": "PASS"}
    assert by_id["r2"].votes == {"ja": "FAIL", "jb": "PASS"}
    assert by_id["r3"].votes == {"ja": "PASS", "jb": "FAIL", "jc": "FAIL"}
    assert by_id["r1"].justification == "ja on r1"
    assert grade.status == "graded" and grade.weighted == 6 / 12
    on_disk = json.loads((tmp_path / "grade.json").read_text())
    assert on_disk["score"]["per_rubric"][0]["votes"] == {"ja": "PASS"}
    assert TrialGrade.read(tmp_path / "grade.json").per_rubric[0].votes == {"ja": "PASS"}


async def test_a_rubric_nobody_voted_on_is_fail_reported_and_still_scored():
    judges = [Omitting("ja", {"r1": "PASS", "r2": "PASS"}), Omitting("jb", {"r1": "PASS", "r2": "PASS"})]
    grade = await grade_trial(TASK, redline().to_bytes(), judges, model="m", trial=1)
    r3 = grade.per_rubric[2]
    assert r3.verdict == "FAIL" and r3.votes == {} and "no judge returned a verdict" in r3.justification
    # every judge answered: the trial is graded (scored), and the rubric without a vote is counted
    assert grade.status == "graded" and grade.weighted == 10 / 12
    entry = summarize([grade])["leaderboard"][0]
    assert entry["n_trials"] == 1 and entry["n_rubrics_without_vote"] == 1


async def test_a_single_judge_leaving_a_rubric_out_is_fail():
    grade = await grade_trial(TASK, redline().to_bytes(), [Omitting("solo", {"r1": "PASS", "r2": "PASS"})],
                              model="m", trial=1)
    assert [r.verdict for r in grade.per_rubric] == ["PASS", "PASS", "FAIL"]
    assert grade.per_rubric[2].votes == {} and grade.status == "graded"


async def test_a_judge_without_any_answer_still_marks_the_trial_incomplete():
    class Down:
        name, method = "down", "llm"

        async def grade(self, *a, **k):
            return JudgeResult(judge="down", ok=False, error="no verdicts after 3 attempt(s): 503")

    judges = [Omitting("ja", {"r1": "PASS", "r2": "PASS", "r3": "PASS"}), Down()]
    grade = await grade_trial(TASK, redline().to_bytes(), judges, model="m", trial=1)
    assert grade.status == "judging_incomplete" and grade.incomplete_judges == ["down"]
    assert grade.per_rubric[0].votes == {"ja": "PASS"}
    summary = summarize([grade])
    assert summary["n_incomplete"] == 1 and summary["incomplete"][0]["task_id"] == TASK.task_id


async def test_litellm_judges_omitting_rubrics(fake_openai):
    def panel(names):
        return [LiteLLMJudge(f"openai/{n}", api_base=fake_openai.url, api_key="sk-test-vote-1", timeout=5,
                             max_retries=0) for n in names]

    fake_openai.enqueue(Reply.json(verdicts(r1="PASS", r2="FAIL", r3="FAIL")), model="ja")
    fake_openai.enqueue(Reply.json(verdicts(r2="PASS")), model="jb")   # r1, r3 missing
    fake_openai.enqueue(Reply.json(verdicts(r2="PASS")), model="jc")   # r1, r3 missing
    grade = await grade_trial(TASK, redline().to_bytes(), panel(("ja", "jb", "jc")), model="m", trial=1,
                              cache=False)
    # r1: P, -, - -> PASS (FAIL under the old "missing is a FAIL vote" rule); r2: F, P, P -> PASS
    assert [r.verdict for r in grade.per_rubric] == ["PASS", "PASS", "FAIL"]
    assert grade.per_rubric[0].votes == {"openai/ja": "PASS"}


async def test_judge_check_panel_uses_the_same_rule(tmp_path):
    from tests.judge.test_check import SYNTHETIC_SHAPE, make_task

    task = make_task(tmp_path, SYNTHETIC_SHAPE)
    judges = [Omitting("ja", {"r1": "PASS"}), Omitting("jb", {"r2": "PASS"}), Omitting("jc", {"r2": "PASS"})]
    report = await run_check([task], judges)
    panel_rows = [r for r in report["rows"] if r["judge"] == "panel" and r["rubric_id"] == "r1"]
    assert panel_rows and all(r["got"] == "PASS" for r in panel_rows)
