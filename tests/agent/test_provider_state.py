"""Thinking models and broken tool calls against a fake that rejects what each provider rejects.

The loopback server (``srv.rules``) answers 400 as Anthropic, DeepSeek, Gemini and vLLM document:
a history without the thinking blocks / reasoning_content / thought signatures the model sent, a
repeated tool_call_id, arguments that do not parse. Each episode must run to ``end_session``.
"""

from __future__ import annotations

import json

import pytest

from redlinebench.agent.limits import AgentLimits
from redlinebench.agent.llm import LLMAgent
from redlinebench.agent.prompt import EMPTY_TURN_NUDGE
from tests.agent.doubles import FakeTools, make_task
from tests.fakes.openai_server import FakeOpenAI, Reply

EDIT = {"edits": [{"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "Term"}, "new_text": "Duration",
                   "comment": "clearer"}]}
THINKING = [{"type": "thinking", "thinking": "The cap clause first.", "signature": "EqQBCkYIARgCKkDsig=="},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVy=="}]


@pytest.fixture
def srv(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-agent-test-key-1234567890")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-1234567890")
    with FakeOpenAI() as server:
        yield server


def _run(srv, tmp_path, model="openai/agent-x", api_base=None, tools=None, **limits):
    tools = tools or FakeTools()
    agent = LLMAgent(model, api_base=api_base or srv.url, limits=AgentLimits(max_retries=0, **limits),
                     backend=lambda task, out: tools, seed=0)
    workdir = tmp_path / "trial"
    workdir.mkdir(exist_ok=True)
    import asyncio

    ep = asyncio.run(agent.run(make_task(tmp_path), workdir, trial=1))
    events = [json.loads(line) for line in (workdir / "transcript.jsonl").read_text().splitlines()]
    return ep, events, tools


def _models(events):
    return [e for e in events if e["type"] == "model"]


def test_anthropic_thinking_blocks_with_signatures_go_back_on_every_call(srv, tmp_path):
    srv.rules = {"anthropic_thinking"}
    srv.enqueue(Reply.tool_calls([("read_document", {})], thinking=THINKING),
                Reply.tool_calls([("propose_edits", EDIT)], thinking=THINKING[:1]),
                Reply.tool_calls([("end_session", {})], thinking=THINKING[:1]))
    ep, events, tools = _run(srv, tmp_path, "anthropic/claude-sonnet-4-5", srv.base_url)
    assert (ep.status, ep.end_reason, ep.error) == ("completed", "end_session", None)
    assert len(srv.requests) == 3
    # the third request carries both earlier turns, each starting with its thinking blocks as sent
    sent = [m for m in srv.requests[2].body["messages"] if m["role"] == "assistant"]
    assert [m["content"][: len(b)] for m, b in zip(sent, (THINKING, THINKING[:1]))] == [THINKING, THINKING[:1]]
    assert _models(events)[0]["message"]["thinking_blocks"] == THINKING  # the transcript records them


def test_deepseek_reasoning_content_goes_back_and_reasoning_tokens_are_counted(srv, tmp_path):
    srv.rules = {"deepseek_reasoning"}
    srv.enqueue(Reply.tool_calls([("read_document", {})], reasoning="Read first.", reasoning_tokens=30),
                Reply.tool_calls([("end_session", {})], reasoning="Done.", reasoning_tokens=12))
    ep, events, _ = _run(srv, tmp_path)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    assert srv.requests[1].body["messages"][2]["reasoning_content"] == "Read first."
    assert ep.metrics["reasoning_tokens"] == 42
    assert [e["reasoning_tokens"] for e in _models(events)] == [30, 12]
    assert _models(events)[0]["message"]["reasoning_content"] == "Read first."


def test_gemini_thought_signatures_on_tool_calls_go_back(srv, tmp_path):
    srv.rules = {"gemini_signature"}
    srv.enqueue(Reply.tool_calls([("read_document", {})], thought_signature="CiQBVKhc7sig"),
                Reply.tool_calls([("end_session", {})], thought_signature="CiQBVKhc7sig2"))
    ep, _, _ = _run(srv, tmp_path)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    call = srv.requests[1].body["messages"][2]["tool_calls"][0]
    assert call["extra_content"] == {"google": {"thought_signature": "CiQBVKhc7sig"}}


def test_repeated_tool_call_ids_are_replayed_unique_and_the_transcript_keeps_them(srv, tmp_path):
    srv.rules = {"vllm"}
    srv.enqueue(Reply.tool_calls([("read_document", {})], ids=["call_0"]),
                Reply.tool_calls([("propose_edits", EDIT), ("read_document", {"ids": ["p-001"]})],
                                 ids=["call_0", "call_0"]),
                Reply.tool_calls([("end_session", {})], ids=["call_0"]))
    ep, events, tools = _run(srv, tmp_path)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    assert [c[0] for c in tools.calls] == ["read_document", "propose_edits", "read_document", "end_session"]
    last = srv.requests[2].body["messages"]
    ids = [m["tool_call_id"] for m in last if m["role"] == "tool"]
    assert len(ids) == len(set(ids)) == 3
    assert [c["id"] for c in _models(events)[1]["message"]["tool_calls"]] == ["call_0", "call_0"]
    assert ep.metrics["tool_call_faults"] == {"renamed": 3}


def test_an_exact_repeat_in_one_reply_runs_once(srv, tmp_path):
    srv.rules = {"vllm"}
    srv.enqueue(Reply.tool_calls([("propose_edits", EDIT), ("propose_edits", EDIT)], ids=["c1", "c1"]),
                Reply.tool_calls([("end_session", {})]))
    ep, events, tools = _run(srv, tmp_path)
    assert [c[0] for c in tools.calls] == ["propose_edits", "end_session"]
    answer = [m for m in srv.requests[1].body["messages"] if m["role"] == "tool"][1]
    assert json.loads(answer["content"])["error"] == "repeated_call"


def test_a_call_cut_off_at_the_output_limit_is_told_so_and_replayed_parseable(srv, tmp_path):
    srv.rules = {"vllm"}
    cut = '{"edits": [{"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "Te'
    srv.enqueue(Reply.tool_calls([("propose_edits", cut)], finish_reason="length"),
                Reply.tool_calls([("propose_edits", EDIT)]),
                Reply.tool_calls([("end_session", {})]))
    ep, events, tools = _run(srv, tmp_path, max_output_tokens=1000)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    assert [c[0] for c in tools.calls] == ["propose_edits", "end_session"]  # the cut-off call was not run
    told = json.loads(srv.requests[1].body["messages"][-1]["content"])
    assert told["error"] == "call_cut_off" and "cut off at the output limit (1000 tokens)" in told["message"]
    assert "send a shorter batch" in told["message"]
    replayed = srv.requests[1].body["messages"][-2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(replayed)["unparsable_arguments"] == cut
    assert _models(events)[0]["message"]["tool_calls"][0]["function"]["arguments"] == cut
    tool_events = [e for e in events if e["type"] == "tool"]
    assert tool_events[0]["fault"]["kind"] == "truncated" and tool_events[0]["arguments"] == cut


def test_unparsable_arguments_reach_the_tool_and_are_replayed_parseable(srv, tmp_path):
    srv.rules = {"vllm"}
    srv.enqueue(Reply.tool_calls([("propose_edits", '{"edits": [ oops')]), Reply.tool_calls([("end_session", {})]))
    ep, _, tools = _run(srv, tmp_path)
    assert ep.end_reason == "end_session"
    assert json.loads(srv.requests[1].body["messages"][-1]["content"])["error"] == "invalid_arguments"


def test_an_empty_reply_after_tool_results_gets_one_nudge(srv, tmp_path):
    srv.enqueue(Reply.tool_calls([("read_document", {})]), Reply.text(""),
                Reply.tool_calls([("end_session", {})]))
    ep, events, _ = _run(srv, tmp_path)
    assert ep.end_reason == "end_session"
    assert srv.requests[2].body["messages"][-1] == {"role": "user", "content": EMPTY_TURN_NUDGE}
    assert [e["reason"] for e in events if e["type"] == "nudge"] == ["empty_reply"]
    srv.enqueue(Reply.tool_calls([("read_document", {})]), Reply.text(""), Reply.text(" "))
    ep, _, _ = _run(srv, tmp_path / "again" if (tmp_path / "again").mkdir() is None else tmp_path)
    assert ep.end_reason == "no_tool_calls"  # one nudge only


def test_a_refusal_is_recorded_with_its_text(srv, tmp_path):
    srv.enqueue(Reply.refusal("I can't help with that."))
    ep, events, _ = _run(srv, tmp_path)
    assert ep.end_reason == "refusal"
    assert ep.metrics["refusal"] == {"reason": "refusal", "text": "I can't help with that."}
    assert [e["text"] for e in events if e["type"] == "refusal"] == ["I can't help with that."]


def test_tool_calls_written_as_text_are_named(srv, tmp_path):
    srv.enqueue(Reply.text('<tool_call>\n{"name": "read_document", "arguments": {}}\n</tool_call>'))
    ep, _, _ = _run(srv, tmp_path)
    assert ep.end_reason == "tool_calls_as_text"
    srv.enqueue(Reply.text('I reviewed it; the "name": "Acme" field is fine.'))
    ep, _, _ = _run(srv, tmp_path / "b" if (tmp_path / "b").mkdir() is None else tmp_path)
    assert ep.end_reason == "no_tool_calls"


def test_reasoning_effort_per_model_is_sent_and_recorded(srv, tmp_path):
    srv.enqueue(Reply.tool_calls([("end_session", {})]))
    ep, events, _ = _run(srv, tmp_path, reasoning_effort="openai/other=low,openai/agent-x=high")
    assert srv.requests[0].body["reasoning_effort"] == "high"
    assert ep.metrics["reasoning_effort"] == "high"
    assert events[0]["limits"]["reasoning_effort"] == "openai/other=low,openai/agent-x=high"


def test_a_thinking_budget_reaches_anthropic_as_thinking(srv, tmp_path):
    srv.enqueue(Reply.tool_calls([("end_session", {})], thinking=THINKING[:1]))
    ep, _, _ = _run(srv, tmp_path, "anthropic/claude-sonnet-4-5", srv.base_url, reasoning_effort="2048",
                    max_output_tokens=8192)
    assert srv.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert ep.metrics["reasoning_effort"] == 2048


@pytest.mark.parametrize("bad", ["extreme", "-5", "=high", "a=b=0"])
def test_a_bad_reasoning_effort_is_one_config_error(bad):
    from redlinebench.errors import ConfigError

    with pytest.raises(ConfigError, match="a thinking budget in tokens, for every model or per model"):
        AgentLimits.from_mapping({"reasoning_effort": bad})
    assert AgentLimits.from_mapping({"reasoning_effort": "High"}).reasoning_for("any/model") == "high"


# -- errors read right -------------------------------------------------------------------------

def _error_of(srv, reply, model="openai/agent-x", api_base=None):
    from redlinebench._litellm import get_litellm

    srv.enqueue(reply)
    try:
        get_litellm().completion(model=model, api_base=api_base or srv.url, num_retries=0,
                                 messages=[{"role": "user", "content": "hi"}])
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("no error")


def test_retry_after_is_read_on_the_anthropic_route_and_the_openai_route(srv):
    from redlinebench._retry import retry_after

    anthropic = _error_of(srv, Reply.anthropic_error(529, "overloaded_error", "Overloaded", headers={"retry-after": "2"}),
                          "anthropic/claude-sonnet-4-5", srv.base_url)
    assert retry_after(anthropic) == 2.0
    openai = _error_of(srv, Reply.error(429, "slow down", headers={"retry-after-ms": "1500"}))
    assert retry_after(openai) == 1.5
    body = [{"error": {"code": 429, "message": "Resource exhausted. Please retry in 37.1s.", "status":
                       "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                                          "retryDelay": "37s"}]}}]
    gemini = _error_of(srv, Reply("error", status=429, raw=json.dumps(body).encode()))
    assert retry_after(gemini) == 37.0  # no header: the body says


def test_error_lines_name_overload_quota_and_show_any_body(srv):
    from redlinebench._retry import classify
    from redlinebench.agent.retry import describe

    overloaded = _error_of(srv, Reply.anthropic_error(529, "overloaded_error", "Overloaded"),
                           "anthropic/claude-sonnet-4-5", srv.base_url)
    assert "(529 overloaded)" in describe(overloaded) and classify(overloaded) == "retry"
    gemini = _error_of(srv, Reply.gemini_error(400, "Invalid JSON payload received. Unknown name \"seed\""))
    assert 'Invalid JSON payload received. Unknown name "seed"' in describe(gemini)
    quota = _error_of(srv, Reply.insufficient_quota())
    assert classify(quota) == "quota" and "out of credit or quota" in describe(quota)
    credit = _error_of(srv, Reply.anthropic_error(400, "invalid_request_error", "Your credit balance is too low to "
                                                  "access the Anthropic API."), "anthropic/claude-x", srv.base_url)
    assert classify(credit) == "quota"
    rate = _error_of(srv, Reply.error(429, "You exceeded your current quota, please check your plan and billing "
                                           "details. Please retry in 37.1s."))
    assert classify(rate) == "retry"  # Gemini's per-minute limit says when to come back


def test_insufficient_quota_ends_the_episode_at_once(srv, tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "1")
    srv.enqueue(Reply.insufficient_quota())
    t0 = time.monotonic()
    tools = FakeTools()
    agent = LLMAgent("openai/agent-x", api_base=srv.url, limits=AgentLimits(max_retries=6),
                     backend=lambda task, out: tools)
    import asyncio

    ep = asyncio.run(agent.run(make_task(tmp_path), tmp_path, trial=1))
    assert time.monotonic() - t0 < 5 and len(srv.requests) == 1
    assert (ep.status, ep.end_reason) == ("errored", "quota_exhausted")
    assert ep.error.startswith("out of credit or quota for openai/agent-x")


# -- work kept --------------------------------------------------------------------------------

def _outage(srv, n=3):
    for _ in range(n):
        srv.enqueue(Reply.error(503, "upstream connect error"))


def test_an_outage_after_an_edit_keeps_the_edit_and_resume_continues_with_the_same_messages(srv, tmp_path):
    srv.rules = {"anthropic_thinking"}
    model, base = "anthropic/claude-sonnet-4-5", srv.base_url
    srv.enqueue(Reply.tool_calls([("read_document", {})], thinking=THINKING),
                Reply.tool_calls([("propose_edits", EDIT)], thinking=THINKING[:1]))
    _outage(srv, 3)
    tools = FakeTools()
    first = LLMAgent(model, api_base=base, limits=AgentLimits(max_retries=2), backend=lambda task, out: tools)
    import asyncio

    one = tmp_path / "one"
    one.mkdir()
    ep = asyncio.run(first.run(make_task(tmp_path), one, trial=1))
    assert (ep.status, ep.metrics["partial_redline"]) == ("errored", "redline.partial.docx")
    assert tools.saved == [one / "redline.partial.docx"]
    failed_request = srv.requests[-1].body["messages"]

    two = tmp_path / "two"
    (two / "resume").mkdir(parents=True)
    for name in ("transcript.jsonl", "redline.partial.docx"):
        (two / "resume" / name).write_bytes((one / name).read_bytes())
    opened = []
    srv.enqueue(Reply.tool_calls([("end_session", {})], thinking=THINKING[:1]))
    again = LLMAgent(model, api_base=base, limits=AgentLimits(max_retries=0),
                     backend=lambda task, out: opened.append(task.contract_path) or FakeTools())
    ep2 = asyncio.run(again.run(make_task(tmp_path), two, trial=1))
    assert (ep2.status, ep2.end_reason) == ("completed", "end_session")
    assert opened == [two / "resume" / "redline.partial.docx"]
    assert srv.requests[-1].body["messages"] == failed_request  # the same history, thinking blocks included
    assert ep2.metrics["resumed"] == {"continued": True, "from_step": 2}
    assert ep2.metrics["steps"] == 3 and ep2.metrics["tokens_in"] == 300
    kinds = [json.loads(x)["type"] for x in (two / "transcript.jsonl").read_text().splitlines()]
    assert kinds.count("start") == 1 and kinds.count("end") == 1 and "resume" in kinds


def test_a_trial_that_cannot_be_continued_starts_over_and_says_why(srv, tmp_path):
    srv.enqueue(Reply.tool_calls([("propose_edits", EDIT)]))
    _outage(srv, 1)
    import asyncio

    one = tmp_path / "one"
    one.mkdir()
    ep = asyncio.run(LLMAgent("openai/agent-x", api_base=srv.url, limits=AgentLimits(max_retries=0),
                              backend=lambda task, out: FakeTools()).run(make_task(tmp_path), one, trial=1))
    assert ep.metrics["partial_redline"] == "redline.partial.docx"
    srv.enqueue(Reply.tool_calls([("read_document", {})]))  # an outage before any change keeps nothing
    _outage(srv, 1)
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    tools = FakeTools()
    ep0 = asyncio.run(LLMAgent("openai/agent-x", api_base=srv.url, limits=AgentLimits(max_retries=0),
                               backend=lambda task, out: tools).run(make_task(tmp_path), nothing, trial=1))
    assert ep0.status == "errored" and "partial_redline" not in ep0.metrics and not tools.saved
    two = tmp_path / "two"
    (two / "resume").mkdir(parents=True)
    (two / "resume" / "redline.partial.docx").write_bytes(b"x")
    (two / "resume" / "transcript.jsonl").write_text(
        (one / "transcript.jsonl").read_text().replace('"prompt_version": "agent-', '"prompt_version": "old-'))
    srv.enqueue(Reply.tool_calls([("end_session", {})]))
    ep2 = asyncio.run(LLMAgent("openai/agent-x", api_base=srv.url, limits=AgentLimits(max_retries=0),
                               backend=lambda task, out: FakeTools()).run(make_task(tmp_path), two, trial=1))
    assert ep2.end_reason == "end_session" and ep2.metrics["steps"] == 1
    assert ep2.metrics["resumed"]["continued"] is False and "prompt_version" in ep2.metrics["resumed"]["reason"]
    assert len(srv.requests[-1].body["messages"]) == 2  # from the contract: system + kick-off


def test_a_field_no_one_has_named_yet_goes_back_where_the_provider_sent_it(srv, tmp_path):
    first = Reply.tool_calls([("read_document", {})])
    first.message["reasoning_details"] = [{"type": "reasoning.encrypted", "data": "gAAAAB"}]
    first.message["tool_calls"][0]["future_field"] = {"x": 1}
    srv.enqueue(first, Reply.tool_calls([("end_session", {})]))
    ep, _, _ = _run(srv, tmp_path)
    assert ep.end_reason == "end_session"
    sent = srv.requests[1].body["messages"][2]
    assert sent["reasoning_details"] == [{"type": "reasoning.encrypted", "data": "gAAAAB"}]
    assert sent["tool_calls"][0]["future_field"] == {"x": 1} and "provider_specific_fields" not in sent


def test_blank_arguments_are_replayed_as_an_empty_object(srv, tmp_path):
    srv.rules = {"vllm"}
    srv.enqueue(Reply.tool_calls([("read_document", "")]), Reply.tool_calls([("end_session", {})]))
    ep, events, tools = _run(srv, tmp_path)
    assert ep.end_reason == "end_session" and tools.calls[0] == ("read_document", "")
    assert srv.requests[1].body["messages"][2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert ep.metrics["tool_call_faults"] == {}


def test_a_partial_redline_that_does_not_open_means_starting_over(srv, tmp_path):
    srv.enqueue(Reply.tool_calls([("propose_edits", EDIT)]))
    _outage(srv, 1)
    import asyncio

    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    asyncio.run(LLMAgent("openai/agent-x", api_base=srv.url, limits=AgentLimits(max_retries=0),
                         backend=lambda task, out: FakeTools()).run(make_task(tmp_path), one, trial=1))
    (two / "resume").mkdir(parents=True)
    for name in ("transcript.jsonl", "redline.partial.docx"):
        (two / "resume" / name).write_bytes((one / name).read_bytes())

    def backend(task, out):
        if task.contract_path.name == "redline.partial.docx":
            raise ValueError("not a zip file")
        return FakeTools()

    srv.enqueue(Reply.tool_calls([("end_session", {})]))
    ep = asyncio.run(LLMAgent("openai/agent-x", api_base=srv.url, limits=AgentLimits(max_retries=0),
                              backend=backend).run(make_task(tmp_path), two, trial=1))
    assert ep.end_reason == "end_session" and ep.metrics["resumed"]["continued"] is False
    assert "does not open (ValueError: not a zip file)" in ep.metrics["resumed"]["reason"]


def test_the_last_call_of_a_reply_cut_at_the_output_limit_is_not_run_even_when_it_parses(srv, tmp_path):
    srv.enqueue(Reply.tool_calls([("read_document", {}), ("propose_edits", {"edits": []})], finish_reason="length"),
                Reply.tool_calls([("end_session", {})]))
    ep, events, tools = _run(srv, tmp_path)
    assert [c[0] for c in tools.calls] == ["read_document", "end_session"]
    assert json.loads(srv.requests[1].body["messages"][-1]["content"])["error"] == "call_cut_off"


def test_a_server_that_refuses_a_state_field_back_gets_the_history_without_it(srv, tmp_path):
    def handler(body):
        if len(body["messages"]) == 2:  # the first call: a reply with reasoning_content
            return Reply.tool_calls([("read_document", {})], reasoning="think")
        if any("reasoning_content" in m for m in body["messages"]):
            return Reply.error(400, "'messages.2' : property 'reasoning_content' is unsupported")
        if len(body["messages"]) == 4:
            return Reply.tool_calls([("read_document", {})], reasoning="again")
        return Reply("message", message={"role": "assistant", "content": "Done.", "reasoning_content": "r"})

    srv.set_handler(handler)
    ep, events, _ = _run(srv, tmp_path)
    assert (ep.status, ep.end_reason) == ("completed", "no_tool_calls")
    assert [e["field"] for e in events if e["type"] == "state_dropped"] == ["reasoning_content"]
    assert "reasoning_content" not in srv.requests[-1].body["messages"][2]
    assert [e for e in events if e["type"] == "model"][0]["message"]["reasoning_content"] == "think"


def test_a_400_asking_for_more_state_does_not_drop_state():
    import httpx
    import openai

    from redlinebench.agent.history import refused_state

    history = [{"role": "assistant", "content": None, "reasoning_content": "x"}]
    response = httpx.Response(400, request=httpx.Request("POST", "http://x"))
    asks = openai.BadRequestError("The reasoning_content in the thinking mode must be passed back to the API.",
                                  response=response, body=None)
    refuses = openai.BadRequestError("property 'reasoning_content' is unsupported", response=response, body=None)
    assert refused_state(asks, history, set()) is None
    assert refused_state(refuses, history, set()) == "reasoning_content"
