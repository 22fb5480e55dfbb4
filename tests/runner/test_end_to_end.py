"""Whole pipeline: real task tree, real litellm against the loopback fake server, real tool session
and engine, real judges (litellm, through the same fake server), grades and summary."""

from __future__ import annotations

import json
import re

import pytest

from redlinebench.runner import Entrant, RunSpec, TaskFilter, run
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.runner.taskfixture import AGENTCO, LARGECO, build_tree

SECRET = "sk-e2e-secret-0123456789abcdef"
UNCAPPED = "except for data breaches, which are uncapped"


def _view(messages: list[dict]) -> str:
    for m in messages:
        if m.get("role") == "tool":
            if m["content"].startswith("# "):   # read_document's view, sent as text
                return m["content"]
    raise AssertionError("the agent script needs read_document first")


def agent_script(body: dict) -> Reply:
    """read -> batch (one good edit, one bad anchor) -> the bad one fixed + a reply -> end."""
    messages = body["messages"]
    step = sum(1 for m in messages if m["role"] == "assistant")
    if step == 0:
        return Reply.tool_calls([("read_document", {})], usage=(900, 12))
    view = _view(messages)
    liability = next(re.match(r"\[(p-\d+)\]", line).group(1) for line in view.splitlines()
                     if "aggregate liability" in line)
    payment = next(re.match(r"\[(p-\d+)\]", line).group(1) for line in view.splitlines()
                   if "interest at one percent" in line)
    if step == 1:
        return Reply.tool_calls([("propose_edits", {"edits": [
            {"op": "delete", "anchor": {"paragraph_id": liability, "text": UNCAPPED},
             "comment": "The liability cap applies to every claim; no uncapped carve-out."},
            {"op": "replace", "anchor": {"paragraph_id": payment, "text": "one percent (1%) per mnth"},
             "new_text": "one half percent (0.5%) per month", "comment": "Market rate."},
        ]})], usage=(2400, 160))
    if step == 2:
        comment_id = re.search(r"^(cmt-\d+) ", view, re.MULTILINE).group(1)   # a thread's first line
        return Reply.tool_calls([
            ("propose_edits", {"edits": [
                {"op": "replace", "anchor": {"paragraph_id": payment, "text": "one percent (1%) per month"},
                 "new_text": "one half percent (0.5%) per month", "comment": "Market rate."}]}),
            ("add_comment", {"reply_to": comment_id, "text": "We cannot accept uncapped liability; the cap stands."}),
        ], usage=(2900, 140))
    return Reply.tool_calls([("end_session", {"summary": "Rejected the carve-out, lowered interest."})],
                            usage=(3100, 20))


def judge_reply(body: dict) -> Reply:
    last = body["messages"][-1]["content"]
    ids = json.loads(re.search(r"rubric ids: (\[.*?\])", last).group(1))
    return Reply.json({"verdicts": [{"rubric_id": i, "verdict": "PASS", "justification": "Struck at 3.1."}
                                    for i in ids]}, usage=(1500, 60))


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAI() as srv:
        srv.set_handler(lambda body: agent_script(body) if body["model"] == "agent-e2e" else judge_reply(body))
        yield srv


def _e2e_spec(tree, url: str, *, run_id: str, concurrency: int) -> RunSpec:
    """One LLM agent on one turn-2 task, judged by a two-judge panel, all against the fake at ``url``."""
    return RunSpec(entrants=(Entrant("llm", "openai/agent-e2e"),), source=str(tree),
                   filter=TaskFilter(task_ids=("redline-s1-t2-g02a",)),
                   judges="openai/judge-a,openai/judge-b", api_base=url, judge_api_base=url,
                   run_id=run_id, concurrency=concurrency)


def test_llm_run_end_to_end_is_graded_summarized_and_keeps_no_secret(tmp_path, fake):
    from redlinebench.docx import RedlineDocument

    tree = build_tree(tmp_path / "bench")
    spec = _e2e_spec(tree, fake.url, run_id="e2e", concurrency=2)
    result = run(spec, tmp_path / "run", progress=False)
    trial = tmp_path / "run" / "trials" / "openai_agent-e2e" / "redline-s1-t2-g02a" / "1"

    # The redline: a valid document with our deletion inside AgentCo's insertion and our reply.
    doc = RedlineDocument.open(trial / "redline.docx")
    assert [f for f in doc.validate() if f.severity == "error"] == []
    ours = [r for r in doc.revisions if r.author == LARGECO]
    assert any(r.type == "del" and UNCAPPED in r.text for r in ours)
    assert {r.type for r in ours} == {"ins", "del"}
    accepted = doc.text("accepted")
    assert "one half percent (0.5%) per month" in accepted and UNCAPPED not in accepted
    agentco_thread = next(c for c in doc.comments if c.author == AGENTCO and c.parent is None)
    assert any(c.author == LARGECO and c.parent == agentco_thread.id for c in doc.comments)

    metrics = json.loads((trial / "metrics.json").read_text())
    assert metrics["status"] == "completed" and metrics["end_reason"] == "end_session"
    assert (metrics["steps"], metrics["edits_ok"], metrics["edits_failed"]) == (4, 2, 1)
    assert metrics["tool_calls"] == {"add_comment": 1, "end_session": 1, "propose_edits": 2, "read_document": 1}
    assert (metrics["tokens_in"], metrics["tokens_out"]) == (9300, 332)
    events = [json.loads(x) for x in (trial / "transcript.jsonl").read_text().splitlines()]
    failed = [e for e in events if e["type"] == "tool" and e["name"] == "propose_edits"][0]["result"]["results"]
    assert [r["status"] for r in failed] == ["ok", "anchor_failed"]

    # Graded by both judges (both PASS every rubric: 8 + 2 of 10 positive weight).
    grade = json.loads((trial / "grade.json").read_text())
    assert grade["status"] == "graded" and grade["gate"]["passed"] is True
    assert grade["score"]["weighted"] == 1.0 and grade["judges"] == ["openai/judge-a", "openai/judge-b"]
    assert sorted(p.name for p in (trial / "judges").iterdir()) == ["openai_judge-a.json", "openai_judge-b.json"]
    assert "~~" in (trial / "annotated_view.md").read_text()

    summary = json.loads((tmp_path / "run" / "metrics_summary.json").read_text())
    assert summary["leaderboard"][0]["model"] == "openai/agent-e2e"
    assert summary["leaderboard"][0]["overall_turn_weighted"] == 1.0
    assert summary["run"]["n_planned"] == 1 and summary["run"]["not_graded"] == []
    # Running cost = agent (unpriced model: 0) + the judges' cost recorded in the grade (if priced).
    assert summary["run"]["cost_usd"] == pytest.approx(grade["usage"].get("cost_usd") or 0.0)
    assert result.report and result.report.is_file()
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["judges"]["names"] == ["openai/judge-a", "openai/judge-b"]

    # The key reached the server, and no file of the run contains it.
    assert all(r.headers.get("authorization") == f"Bearer {SECRET}" for r in fake.requests)
    files = [p for p in (tmp_path / "run").rglob("*") if p.is_file()]
    assert len(files) >= 10
    for p in files:
        assert SECRET.encode() not in p.read_bytes(), p


def test_429s_from_agent_and_judges_share_one_adaptive_limit_recorded_in_the_summary(tmp_path, fake):
    """Issue 14.4: one limiter per endpoint, agents and judges together; the run section says so."""
    handler = fake.handler
    first: set[str] = set()

    def limited(body):
        if body["model"] not in first:  # each model's first call is rate-limited once
            first.add(body["model"])
            return Reply.error(429, "slow down", headers={"retry-after-ms": "1"})
        return handler(body)

    fake.set_handler(limited)
    tree = build_tree(tmp_path / "bench")
    spec = _e2e_spec(tree, fake.url, run_id="e2e-429", concurrency=6)
    result = run(spec, tmp_path / "run", progress=False)
    assert result.ok
    limits = json.loads((tmp_path / "run" / "metrics_summary.json").read_text())["run"]["rate_limits"]
    assert list(limits) == [f"openai@{fake.url}"]
    row = limits[f"openai@{fake.url}"]
    assert row["n_429"] == 3 and row["max"] == 6 and row["n_calls"] == len(fake.requests)
    assert 1 <= row["min_limit"] < 6 and row["limit"] <= 6


def test_an_outage_after_an_edit_keeps_it_and_resume_continues_the_episode(tmp_path, fake):
    """Six 503s after the first batch of edits: the trial errors with its edits kept in
    redline.partial.docx; `--resume` continues the same episode from it (same messages, same
    document) instead of starting over, and the final redline carries the first attempt's edits."""
    from redlinebench.docx import RedlineDocument

    down = {"on": True}

    def script(body):
        if body["model"] != "agent-e2e":
            return judge_reply(body)
        steps = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if steps == 2 and down["on"]:
            return Reply.error(503, "upstream connect error")
        return agent_script(body)

    fake.set_handler(script)
    tree = build_tree(tmp_path / "bench")
    spec = _e2e_spec(tree, fake.url, run_id="outage", concurrency=1)
    run(spec, tmp_path / "run", progress=False)
    trial = tmp_path / "run" / "trials" / "openai_agent-e2e" / "redline-s1-t2-g02a" / "1"
    metrics = json.loads((trial / "metrics.json").read_text())
    assert (metrics["status"], metrics["partial_redline"]) == ("errored", "redline.partial.docx")
    kept = RedlineDocument.open(trial / "redline.partial.docx")
    assert any(r.type == "del" and UNCAPPED in r.text for r in kept.revisions if r.author == LARGECO)
    failed_history = fake.requests[-1].body["messages"]

    down["on"] = False
    n = len(fake.requests)
    run(None, tmp_path / "run", resume=True, progress=False)
    metrics = json.loads((trial / "metrics.json").read_text())
    assert metrics["status"] == "completed" and metrics["end_reason"] == "end_session"
    assert metrics["resumed"] == {"continued": True, "from_step": 2} and metrics["steps"] == 4
    resumed_first = next(r for r in fake.requests[n:] if r.body["model"] == "agent-e2e").body["messages"]
    assert resumed_first == failed_history
    doc = RedlineDocument.open(trial / "redline.docx")
    accepted = doc.text("accepted")
    assert UNCAPPED not in accepted and "one half percent (0.5%) per month" in accepted
    assert json.loads((trial / "grade.json").read_text())["status"] == "graded"
    assert not (trial / "resume").exists() and not (trial / "redline.partial.docx").exists()
