"""Judge replies a person would read as verdicts: near-miss verdicts surfaced, JSON slips repaired
instead of re-asked, JSON mode on the Anthropic route, out-of-quota judges stopping at once."""

from __future__ import annotations

import json

from redlinebench.judge import AuditLog, LiteLLMJudge
from redlinebench.judge._parse import parse_verdicts
from tests.fakes.openai_server import Reply
from tests.judge.doubles import TASK

VIEW = "[p-001] 1.3 Applicable Law ~~includes PCI-DSS~~"


def make(srv, model="openai/judge-a", **kw) -> LiteLLMJudge:
    kw.setdefault("timeout", 5)
    base = srv.url if model.startswith("openai/") else srv.base_url
    return LiteLLMJudge(model, api_base=base, api_key="sk-test-secret-123456", **kw)


async def test_lower_case_verdicts_count_fail_and_are_recorded_as_near_misses(fake_openai, tmp_path):
    reply = {"verdicts": [{"rubric_id": "r1", "verdict": "pass", "justification": "ok"},
                          {"rubric_id": "r2", "verdict": "Pass.", "justification": "ok"},
                          {"rubric_id": "r3", "verdict": "FAIL", "justification": "no"}]}
    fake_openai.enqueue(Reply.json(reply), model="judge-a")
    audit = AuditLog(tmp_path / "judge_audit.jsonl")
    result = await make(fake_openai).grade(TASK, VIEW, None, audit=audit)
    assert result.verdicts == {"r1": "FAIL", "r2": "FAIL", "r3": "FAIL"}
    assert result.near_misses == {"r1": "pass", "r2": "Pass."}
    assert result.to_dict()["near_misses"] == {"r1": "pass", "r2": "Pass."}
    line = json.loads((tmp_path / "judge_audit.jsonl").read_text().splitlines()[-1])
    assert line["near_misses"] == {"r1": "pass", "r2": "Pass."}


async def test_trailing_commas_comments_and_single_quotes_are_read_in_one_call(fake_openai):
    text = ("{'verdicts': [\n  {'rubric_id': 'r1', 'verdict': 'PASS', 'justification': \"it's capped, fine\"},"
            " // first\n  {\"rubric_id\": \"r2\", \"verdict\": \"FAIL\", \"justification\": \"a, b}\",},\n"
            "  /* last */ {\"rubric_id\": \"r3\", \"verdict\": \"PASS\",},\n],}")
    fake_openai.enqueue(Reply.text(text), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 1 and len(fake_openai.requests) == 1
    assert result.verdicts == {"r1": "PASS", "r2": "FAIL", "r3": "PASS"}
    assert result.justifications["r1"] == "it's capped, fine" and result.justifications["r2"] == "a, b}"
    assert result.repaired == ["comments", "trailing_commas", "single_quotes"]


def test_what_is_ambiguous_is_not_repaired():
    import pytest

    from redlinebench.judge._parse import UnparseableReply

    for text in ('{"verdicts": [{"rubric_id": "r1", "verdict": "PASS"}', "{'verdicts': [{'rubric_id': 'r1 }",
                 '{"verdicts": [{"rubric_id": "r1", "verdict": PASS}]}'):
        with pytest.raises(UnparseableReply):
            parse_verdicts(text, ["r1"])
    assert parse_verdicts('{"verdicts": [{"rubric_id": "r1", "verdict": "PASS"}]}', ["r1"]).repaired == []


async def test_json_mode_reaches_the_anthropic_route(fake_openai, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    fake_openai.enqueue(Reply.json({"verdicts": [{"rubric_id": r, "verdict": "PASS", "justification": ""}
                                                 for r in ("r1", "r2", "r3")]}))
    result = await make(fake_openai, "anthropic/claude-haiku-4-5").grade(TASK, VIEW, None)
    assert result.ok
    body = fake_openai.requests[-1].body
    schema = json.dumps(body.get("output_format") or body.get("tools"))
    assert '"PASS"' in schema and "verdicts" in schema


async def test_an_out_of_quota_judge_stops_at_once(fake_openai):
    fake_openai.enqueue(Reply.insufficient_quota(), Reply.insufficient_quota(), model="judge-a")
    result = await make(fake_openai, max_retries=5).grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 1 and result.unreachable
    assert result.error.startswith("no verdicts after 1 attempt(s): out of credit or quota for openai/judge-a")


async def test_a_judge_error_shows_the_providers_body_whatever_its_shape(fake_openai):
    fake_openai.enqueue(*[Reply.gemini_error(400, "API key not valid for this model family")] * 2, model="judge-a")
    result = await make(fake_openai, max_retries=0).grade(TASK, VIEW, None)
    assert not result.ok and "API key not valid for this model family" in result.error
