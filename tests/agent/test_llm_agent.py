"""The LLM tool loop through real litellm against the loopback fake OpenAI server."""

from __future__ import annotations

import json

import pytest

from redlinebench.agent.limits import AgentLimits
from redlinebench.agent.llm import LLMAgent
from tests.agent.doubles import FakeTools, make_task
from tests.fakes.openai_server import FakeOpenAI, Reply

MODEL = "openai/agent-x"


def _agent(srv, tools, **limits):
    return LLMAgent(MODEL, api_base=srv.url, limits=AgentLimits(**limits), backend=lambda task, out: tools, seed=0)


def _events(workdir):
    return [json.loads(line) for line in (workdir / "transcript.jsonl").read_text().splitlines()]


@pytest.fixture
def srv(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-agent-test-key-1234567890")
    with FakeOpenAI() as server:
        yield server


async def test_episode_reads_edits_fixes_anchor_replies_and_ends(tmp_path, srv):
    task = make_task(tmp_path)
    tools = FakeTools()
    bad = {"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "no such text"}, "new_text": "x",
           "comment": "c"}
    good = {"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "Term"}, "new_text": "Duration",
            "comment": "clearer"}
    srv.enqueue(
        Reply.tool_calls([("read_document", {})], usage=(1000, 10)),
        Reply.tool_calls([("propose_edits", {"edits": [good, bad]})], usage=(1200, 80)),
        Reply.tool_calls([("propose_edits", {"edits": [{**bad, "anchor": {"paragraph_id": "p-001", "text": "1."}}]}),
                          ("add_comment", {"reply_to": "cmt-1", "text": "Agreed."})], usage=(1400, 50)),
        Reply.tool_calls([("end_session", {})], usage=(1500, 5)),
    )
    workdir = tmp_path / "trial"
    workdir.mkdir()
    ep = await _agent(srv, tools).run(task, workdir, trial=1)

    assert ep.status == "completed" and ep.end_reason == "end_session"
    assert [c[0] for c in tools.calls] == ["read_document", "propose_edits", "propose_edits", "add_comment",
                                           "end_session"]
    m = ep.metrics
    assert (m["steps"], m["tokens_in"], m["tokens_out"]) == (4, 5100, 145)
    assert m["tool_calls"] == {"add_comment": 1, "end_session": 1, "propose_edits": 2, "read_document": 1}
    assert (m["edits_ok"], m["edits_failed"]) == (2, 1)
    assert m["cost_known"] is False  # a model litellm has no price for
    assert tools.saved == [workdir / "redline.docx"]

    # The model saw the system prompt, then each tool result answered by tool_call_id.
    first = srv.requests[0].body
    assert first["messages"][0]["role"] == "system"
    assert "Reviewing Counsel (LargeCo Legal)" in first["messages"][0]["content"]
    assert "Never accept uncapped liability." in first["messages"][0]["content"]
    assert [t["function"]["name"] for t in first["tools"]][0] == "read_document"
    third = srv.requests[2].body["messages"]
    tool_msgs = [m for m in third if m["role"] == "tool"]
    # the tool message is redlinebench.tools.tool_message of the result: JSON here (this backend sends no view)
    assert json.loads(tool_msgs[-1]["content"])["results"][1]["status"] == "anchor_failed"
    assert tool_msgs[-1]["tool_call_id"] == third[-2]["tool_calls"][0]["id"]

    ev = _events(workdir)
    assert [e["type"] for e in ev].count("model") == 4 and [e["type"] for e in ev].count("tool") == 5
    assert ev[0]["type"] == "start" and ev[-1] == {**ev[-1], "type": "end", "status": "completed"}
    assert "sk-agent-test-key-1234567890" not in (workdir / "transcript.jsonl").read_text()


async def test_reply_without_tool_calls_ends_episode(tmp_path, srv):
    tools = FakeTools()
    srv.enqueue(Reply.tool_calls([("read_document", {})]), Reply.text("I am done."))
    ep = await _agent(srv, tools).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.end_reason, ep.metrics["steps"]) == ("completed", "no_tool_calls", 2)
    assert tools.saved  # the document is saved even without end_session


async def test_malformed_arguments_go_back_to_the_model_as_a_tool_error(tmp_path, srv):
    tools = FakeTools()
    srv.enqueue(Reply.tool_calls([("propose_edits", '{"edits": [ oops')]),
                Reply.tool_calls([("no_such_tool", {})]),
                Reply.tool_calls([("x" * 5000, {})]),
                Reply.tool_calls([("end_session", {})]))
    ep = await _agent(srv, tools).run(make_task(tmp_path), tmp_path, trial=1)
    assert ep.end_reason == "end_session"
    # made-up names count under one key, not one key each (metrics.json stays bounded)
    assert ep.metrics["tool_calls"] == {"(unknown tool)": 2, "end_session": 1, "propose_edits": 1}
    second = srv.requests[1].body["messages"][-1]
    assert second["role"] == "tool" and json.loads(second["content"])["error"] == "invalid_arguments"
    third = srv.requests[2].body["messages"][-1]
    assert json.loads(third["content"])["error"] == "unknown_tool"
    assert ep.metrics["tool_errors"] == 3


async def test_step_limit_stops_and_saves(tmp_path, srv):
    tools = FakeTools()
    srv.set_handler(lambda body: Reply.tool_calls([("read_document", {})]))
    ep = await _agent(srv, tools, max_steps=3).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.end_reason, ep.metrics["steps"]) == ("limit_reached", "max_steps", 3)
    assert len(srv.requests) == 3 and tools.saved


async def test_token_limit_stops(tmp_path, srv):
    srv.set_handler(lambda body: Reply.tool_calls([("read_document", {})], usage=(400, 100)))
    ep = await _agent(srv, FakeTools(), max_tokens=1200).run(make_task(tmp_path), tmp_path, trial=1)
    # 500 tokens a step: the budget of 1200 is crossed after the third step.
    assert (ep.end_reason, ep.metrics["steps"]) == ("max_tokens", 3)


async def test_provider_errors_are_retried_then_succeed(tmp_path, srv):
    srv.enqueue(Reply.error(429), Reply.error(500), Reply.garbage(), Reply.error(503),
                Reply.tool_calls([("end_session", {})]))
    ep = await _agent(srv, FakeTools(), max_retries=6).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    assert ep.metrics["retries"] == 4 and len(srv.requests) == 5
    retries = [e for e in _events(tmp_path) if e["type"] == "retry"]
    assert [r["attempt"] for r in retries] == [1, 2, 3, 4]


async def test_auth_error_is_not_retried_and_errors_the_trial(tmp_path, srv):
    srv.enqueue(Reply.error(401, "Incorrect API key provided: sk-agent-test-key-1234567890"))
    tools = FakeTools()
    ep = await _agent(srv, tools).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.end_reason) == ("errored", "auth_failed")
    assert len(srv.requests) == 1 and not tools.saved
    assert "sk-agent-test-key-1234567890" not in ep.error
    assert "sk-agent-test-key-1234567890" not in (tmp_path / "transcript.jsonl").read_text()
    assert ep.error.startswith(f"authentication failed for {MODEL} (the key in the environment was rejected")


async def test_a_rejected_placeholder_key_names_the_variable_to_set(tmp_path, srv, monkeypatch):
    """No key set, an explicit endpoint: the placeholder goes out; a server that wants a real key
    gets one failed call, and the error says which variable to set."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    srv.enqueue(Reply.error(401, "bad key"))
    ep = await _agent(srv, FakeTools()).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, len(srv.requests)) == ("errored", 1)
    assert srv.requests[0].headers.get("authorization") == "Bearer no-key-set"
    assert "no key was set, so the placeholder key was sent; set OPENAI_API_KEY in the environment" in ep.error


async def test_retries_exhausted_errors_the_trial(tmp_path, srv):
    srv.set_handler(lambda body: Reply.error(500))
    ep = await _agent(srv, FakeTools(), max_retries=2).run(make_task(tmp_path), tmp_path, trial=1)
    assert ep.status == "errored" and len(srv.requests) == 3


async def test_hanging_call_times_out_and_is_retried(tmp_path, srv):
    srv.enqueue(Reply.hang(), Reply.tool_calls([("end_session", {})]))
    ep = await _agent(srv, FakeTools(), call_timeout_s=1.0).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.metrics["retries"]) == ("completed", 1)


async def test_old_tool_outputs_are_shortened_when_context_grows(tmp_path, srv):
    tools = FakeTools(view="x" * 20_000)  # ~5k tokens per read
    srv.enqueue(*[Reply.tool_calls([("read_document", {})]) for _ in range(5)],
                Reply.tool_calls([("end_session", {})]))
    ep = await _agent(srv, tools, context_tokens=12_000, keep_recent_tool_outputs=1).run(
        make_task(tmp_path), tmp_path, trial=1)
    assert ep.end_reason == "end_session"
    last = srv.requests[-1].body["messages"]
    tool_contents = [m["content"] for m in last if m["role"] == "tool"]
    assert len(tool_contents) == 5
    assert tool_contents[-1].startswith('{"text": "xxx') and len(tool_contents[-1]) > 20_000
    assert sum(c.startswith("[shortened") for c in tool_contents) >= 3
    assert sum(len(c) for c in tool_contents) // 4 + 500 < 12_000 + 5_000
    assert any(e["type"] == "shorten" for e in _events(tmp_path))


async def test_cost_is_priced_from_litellms_table_and_the_cost_limit_stops(tmp_path, srv):
    # gpt-4o-mini in litellm's local table: $0.15 / M input, $0.60 / M output tokens.
    srv.set_handler(lambda body: Reply.tool_calls([("read_document", {})], usage=(1000, 100)))
    agent = LLMAgent("openai/gpt-4o-mini", api_base=srv.url, limits=AgentLimits(max_cost_usd=0.0005),
                     backend=lambda task, out: FakeTools())
    ep = await agent.run(make_task(tmp_path), tmp_path, trial=1)
    # $0.00021 a step: 0.00042 after two steps, 0.00063 >= 0.0005 after the third.
    assert (ep.status, ep.end_reason, ep.metrics["steps"]) == ("limit_reached", "max_cost", 3)
    assert ep.metrics["cost_known"] is True
    assert ep.metrics["cost_usd"] == pytest.approx(0.00063)


async def test_request_carries_limits_and_sampling_settings(tmp_path, srv):
    srv.enqueue(Reply.tool_calls([("end_session", {})]))
    agent = LLMAgent(MODEL, api_base=srv.url, seed=11, limits=AgentLimits(max_output_tokens=321, temperature=0.0),
                     backend=lambda task, out: FakeTools())
    await agent.run(make_task(tmp_path), tmp_path, trial=1)
    body = srv.requests[0].body
    assert body["model"] == "agent-x" and body["max_tokens"] == 321 and body["temperature"] == 0.0
    assert body["seed"] == 11 and body["tool_choice"] == "auto"
    assert srv.requests[0].headers.get("authorization") == "Bearer sk-agent-test-key-1234567890"


def test_redact_removes_credentials_from_any_env_name(monkeypatch):
    from redlinebench.agent.redact import redact, register_secret

    monkeypatch.setenv("MY_PROVIDER_API_KEY", "abcd-1234-efgh-5678")
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # too short to be told apart from words: left alone
    register_secret("cli-given-secret-value")
    text = "key abcd-1234-efgh-5678 and cli-given-secret-value; abc stays"
    assert redact(text) == "key [redacted] and [redacted]; abc stays"


def test_backoff_grows_exponentially_with_jitter_and_caps(monkeypatch):
    import random

    from redlinebench.agent.retry import backoff

    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "0")
    assert backoff(5) == 0.0
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "2")
    random.seed(1)
    for retry, ceiling in [(1, 2), (2, 4), (4, 16), (10, 60)]:
        waits = [backoff(retry) for _ in range(200)]
        assert ceiling / 2 <= min(waits) and max(waits) <= ceiling and max(waits) > ceiling * 0.8


async def test_context_window_error_shrinks_old_outputs_once_and_retries(tmp_path, srv):
    tools = FakeTools(view="y" * 8_000)
    overflow = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
    srv.enqueue(Reply.tool_calls([("read_document", {})]), Reply.tool_calls([("read_document", {})]),
                Reply.error(400, overflow), Reply.tool_calls([("end_session", {})]))
    ep = await _agent(srv, tools).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    retried = srv.requests[-1].body["messages"]
    contents = [m["content"] for m in retried if m["role"] == "tool"]
    assert contents[0].startswith("[shortened") and not contents[1].startswith("[shortened")
    assert [e.get("reason") for e in _events(tmp_path) if e["type"] == "shorten"] == ["context_window"]


async def test_context_window_error_twice_errors_the_trial(tmp_path, srv):
    overflow = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
    srv.enqueue(Reply.error(400, overflow), Reply.error(400, overflow))
    ep = await _agent(srv, FakeTools()).run(make_task(tmp_path), tmp_path, trial=1)
    assert ep.status == "errored" and "ContextWindowExceededError" in ep.error and len(srv.requests) == 2


async def test_local_endpoint_without_any_key_gets_a_placeholder(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAI() as server:
        server.enqueue(Reply.tool_calls([("end_session", {})]))
        ep = await _agent(server, FakeTools()).run(make_task(tmp_path), tmp_path, trial=1)
        assert ep.status == "completed"
        assert server.requests[0].headers.get("authorization") == "Bearer no-key-set"


def test_one_policy_auth_stops_anything_5xx_or_429_is_retried_whatever_the_body_says():
    """Issue 17.8: the body's words never decide; the status does (and a key known to be missing)."""
    from redlinebench._litellm import get_litellm
    from redlinebench._retry import classify
    from redlinebench.agent.retry import is_retryable

    exc = get_litellm().exceptions
    missing = exc.InternalServerError("OpenAIException - Missing credentials. Please pass an api_key",
                                      llm_provider="openai", model="x")
    assert is_retryable(missing)  # a 500 is a 500 ...
    assert classify(missing, key_missing=True) == "auth"  # ... unless we know no key was available
    assert is_retryable(exc.InternalServerError("Incorrect API key provided", llm_provider="openai", model="x"))
    assert classify(exc.AuthenticationError("bad key", llm_provider="openai", model="x")) == "auth"
    assert classify(exc.PermissionDeniedError("no", llm_provider="openai", model="x",
                                              response=__import__("httpx").Response(403, request=__import__(
                                                  "httpx").Request("POST", "http://x")))) == "auth"
    assert is_retryable(exc.InternalServerError("upstream hiccup", llm_provider="openai", model="x"))
    assert is_retryable(exc.RateLimitError("invalid api key, slow down", llm_provider="openai", model="x"))
    assert not is_retryable(ValueError("a bug of ours"))


async def test_a_refused_optional_parameter_is_dropped_and_the_call_retried(tmp_path, srv):
    def strict(body):
        if "seed" in body:
            return Reply.error(400, "Unrecognized request argument supplied: seed")
        return Reply.tool_calls([("end_session", {})])

    srv.set_handler(strict)
    ep = await _agent(srv, FakeTools()).run(make_task(tmp_path), tmp_path, trial=1)
    assert ep.status == "completed" and [("seed" in r.body) for r in srv.requests] == [True, False]
    assert [e["param"] for e in _events(tmp_path) if e["type"] == "param_dropped"] == ["seed"]


async def test_a_rate_limit_waits_what_the_provider_asks(tmp_path, srv, monkeypatch):
    import time

    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "0.001")  # our own backoff would be ~1 ms
    srv.enqueue(Reply.error(429, headers={"Retry-After": "0.4"}), Reply.tool_calls([("end_session", {})]))
    t0 = time.monotonic()
    ep = await _agent(srv, FakeTools()).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    assert time.monotonic() - t0 >= 0.4
    retry = next(e for e in _events(tmp_path) if e["type"] == "retry")
    assert retry["delay_s"] == 0.4 and "429" in retry["error"]


EMPTY_CHOICES = json.dumps({"id": "x", "object": "chat.completion", "created": 1, "model": "agent-x",
                            "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0}}).encode()


async def test_replies_without_choices_are_retried_with_backoff_and_logged(tmp_path, srv):
    srv.enqueue(Reply.garbage(EMPTY_CHOICES), Reply.garbage(EMPTY_CHOICES), Reply.tool_calls([("end_session", {})]))
    ep = await _agent(srv, FakeTools(), max_retries=6).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    retries = [e for e in _events(tmp_path) if e["type"] == "retry"]
    assert [(r["attempt"], r["error"]) for r in retries] == [(1, "a reply without choices"), (2, "a reply without choices")]
    assert ep.metrics["retries"] == 2 and len(srv.requests) == 3


async def test_retries_exhausted_on_empty_replies_counts_only_the_retries_made(tmp_path, srv):
    srv.set_handler(lambda body: Reply.garbage(EMPTY_CHOICES))
    ep = await _agent(srv, FakeTools(), max_retries=2).run(make_task(tmp_path), tmp_path, trial=1)
    assert ep.status == "errored" and "without choices" in (ep.error or "")
    assert len(srv.requests) == 3 and ep.metrics["retries"] == 2


async def test_model_latency_is_the_answering_call_not_the_retry_waits(tmp_path, srv, monkeypatch):
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "0.001")
    srv.enqueue(Reply.error(429, headers={"Retry-After": "0.5"}), Reply.tool_calls([("end_session", {})]))
    ep = await _agent(srv, FakeTools()).run(make_task(tmp_path), tmp_path, trial=1)
    step = next(e for e in _events(tmp_path) if e["type"] == "model")
    assert step["latency_s"] < 0.4 and ep.metrics["model_latency_s"] < 0.4


def test_the_transcript_holds_text_with_lone_surrogates_as_valid_utf8(tmp_path):
    """litellm refuses such replies itself (retried, then errored), but a tool result or an error
    message can still carry a lone surrogate: the transcript line must still be written."""
    from redlinebench.agent.transcript import Transcript

    log = Transcript(tmp_path / "transcript.jsonl")
    log.write({"type": "tool", "name": "propose_edits", "result": {"paragraph_id": "p-0\ud800"},
               "error": "half an emoji \ud83d"})
    log.close()
    text = (tmp_path / "transcript.jsonl").read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert "p-0\ufffd" in text and "half an emoji \ufffd" in text


async def test_negative_token_counts_are_counted_as_zero_and_do_not_defeat_the_limits(tmp_path, srv):
    # A hostile provider reports -10M tokens each way on the first call: litellm would price that as
    # -$7.50 and the totals would never reach the limits. Counted as 0, cost unknown, noted once.
    replies = iter([(-10_000_000, -10_000_000), (-5, -5)])
    srv.set_handler(lambda body: Reply.tool_calls([("read_document", {})], usage=next(replies, (1000, 100))))
    agent = LLMAgent("openai/gpt-4o-mini", api_base=srv.url, backend=lambda task, out: FakeTools(),
                     limits=AgentLimits(max_cost_usd=0.0005, max_tokens=5000, max_steps=20))
    ep = await agent.run(make_task(tmp_path), tmp_path, trial=1)
    m = ep.metrics
    # two bad calls (0 tokens, unknown cost), then $0.00021 and 1100 tokens a call: the cost limit
    # of 0.0005 is crossed after the third priced call.
    assert (ep.status, ep.end_reason, m["steps"]) == ("limit_reached", "max_cost", 5)
    assert (m["tokens_in"], m["tokens_out"]) == (3000, 300)
    assert m["cost_usd"] == pytest.approx(0.00063) and m["cost_known"] is False
    ev = _events(tmp_path)
    bad = [e for e in ev if e["type"] == "bad_usage"]
    assert len(bad) == 1 and bad[0]["step"] == 1
    assert bad[0]["usage"] == {"prompt_tokens": "-10000000", "completion_tokens": "-10000000"}
    models = [e for e in ev if e["type"] == "model"]
    assert all(e["tokens_in"] >= 0 and e["tokens_out"] >= 0 for e in models)
    assert all(e["cost_usd"] is None or e["cost_usd"] >= 0 for e in models)


async def test_negative_token_counts_do_not_defeat_the_token_limit(tmp_path, srv):
    replies = iter([(-10_000_000, -10_000_000)])
    srv.set_handler(lambda body: Reply.tool_calls([("read_document", {})], usage=next(replies, (400, 100))))
    ep = await _agent(srv, FakeTools(), max_tokens=1200, max_steps=20).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.end_reason, ep.metrics["steps"]) == ("max_tokens", 4)
    assert (ep.metrics["tokens_in"], ep.metrics["tokens_out"]) == (1200, 300)


@pytest.mark.parametrize("prompt, completion", [(-3, 7), (True, 7), (1.5, 7), (float("nan"), 7), ("12", 7),
                                                (7, float("inf")), (7, -1), (7, False)])
def test_usage_counts_that_are_not_non_negative_integers_count_as_zero(prompt, completion):
    from types import SimpleNamespace

    from redlinebench._litellm import reply_usage as _usage

    (p, c), bad = _usage(SimpleNamespace(usage=SimpleNamespace(prompt_tokens=prompt, completion_tokens=completion)))
    assert (p, c) == ((0, 7) if completion == 7 else (7, 0))
    assert bad is not None and len(bad) == 1
    assert _usage(SimpleNamespace(usage=SimpleNamespace(prompt_tokens=5, completion_tokens=None))) == ((5, 0), None)


@pytest.mark.parametrize("value", [-22.5, float("nan"), float("inf"), True, "0.1"])
def test_a_negative_or_non_finite_cost_is_unknown(value):
    from types import SimpleNamespace

    from redlinebench.agent.llm import _cost

    assert _cost(None, SimpleNamespace(_hidden_params={"response_cost": value})) is None
    assert _cost(None, SimpleNamespace(_hidden_params={"response_cost": 0.25})) == 0.25


def _answered(messages):
    """Every tool call in the history has exactly one tool message answering it, by id."""
    asked = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return sorted(asked) == sorted(answered)


async def test_one_huge_reply_is_shortened_instead_of_resent_until_the_window_overflows(tmp_path, srv):
    """A 2 MB reply text and 2 MB of tool-call arguments, once: not re-sent on every later call."""
    huge_args = json.dumps({"edits": [{"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "Term"},
                                       "new_text": "w" * 2_000_000, "comment": "c"}]})
    srv.enqueue(Reply.tool_calls([("propose_edits", huge_args)], content="z" * 2_000_000),
                *[Reply.tool_calls([("read_document", {})]) for _ in range(3)],
                Reply.tool_calls([("end_session", {})]))
    ep = await _agent(srv, FakeTools()).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    for request in srv.requests[1:]:
        messages = request.body["messages"]
        assert len(json.dumps(messages)) < 60_000
        assert _answered(messages)
        reply = messages[2]
        assert reply["content"].startswith("[shortened: an earlier reply of 2000000 characters]")
        (call,) = reply["tool_calls"]
        assert call["function"]["name"] == "propose_edits" and call["id"] == messages[3]["tool_call_id"]
        note = json.loads(call["function"]["arguments"])  # still a JSON string, saying what happened
        assert "shortened_arguments" in note and note["head"] == huge_args[:600]
    shortened = [e for e in _events(tmp_path) if e["type"] == "shorten"]
    assert shortened[0]["step"] == 2
    assert (shortened[0]["replies_shortened"], shortened[0]["arguments_shortened"]) == (1, 1)
    assert shortened[0]["chars_saved"] > 3_900_000
    # the transcript keeps what the model really sent
    model = [e for e in _events(tmp_path) if e["type"] == "model"][0]["message"]
    assert len(model["content"]) == 2_000_000 and model["tool_calls"][0]["function"]["arguments"] == huge_args


async def test_old_replies_and_arguments_shrink_but_the_recent_turns_stay_intact(tmp_path, srv):
    from redlinebench.agent.llm import _estimate_tokens

    srv.enqueue(*[Reply.tool_calls([("add_comment", {"text": f"{i}" * 20_000, "paragraph_id": "p-001"})],
                                   content=f"{i}" * 20_000) for i in range(5)],
                Reply.tool_calls([("end_session", {})]))
    # 10k tokens a turn: the budget holds the latest turn whole and the older ones shortened
    ep = await _agent(srv, FakeTools(), context_tokens=16_000, keep_recent_tool_outputs=1).run(
        make_task(tmp_path), tmp_path, trial=1)
    assert ep.end_reason == "end_session"
    last = srv.requests[-1].body["messages"]
    replies = [m for m in last if m["role"] == "assistant"]
    assert len(replies) == 5 and _answered(last)
    assert replies[-1]["content"] == "4" * 20_000  # the most recent turn is whole
    assert json.loads(replies[-1]["tool_calls"][0]["function"]["arguments"])["text"] == "4" * 20_000
    assert all(r["content"].startswith("[shortened") for r in replies[:3])
    assert all("shortened_arguments" in json.loads(r["tool_calls"][0]["function"]["arguments"])
               for r in replies[:3])
    assert _estimate_tokens(last) <= 16_000


def test_shortening_a_long_history_is_linear():
    """5,000 messages to shorten: one pass with a running estimate, not a re-estimate per message.

    Counted, not timed: every message is read a bounded number of times (the quadratic version read
    each one again for every message it shortened, ~6 million reads here; timings are in the report).
    """
    from redlinebench.agent.llm import _estimate_tokens, _shorten

    reads = [0]

    class Counted(dict):
        def get(self, *args):
            reads[0] += 1
            return super().get(*args)

    messages = [Counted(role="system", content="s"), Counted(role="user", content="go")]
    for i in range(2_500):
        messages.append(Counted(role="assistant", content=None, tool_calls=[
            {"id": f"c{i}", "type": "function", "function": {"name": "read_document", "arguments": "{}"}}]))
        messages.append(Counted(role="tool", tool_call_id=f"c{i}", content="x" * 3_000))
    info = _shorten(messages, AgentLimits(context_tokens=1_000, keep_recent_tool_outputs=4))
    assert reads[0] < 20 * len(messages)
    assert info["tool_outputs_shortened"] == 2_496 and info["messages_shortened"] == 2_496
    assert info["chars_saved"] == 2_496 * 3_000 - sum(len(m["content"]) for m in messages
                                                       if m["role"] == "tool" and m["content"][0] == "[")
    assert all(m["content"] == "x" * 3_000 for m in messages[-8:] if m["role"] == "tool")
    assert _estimate_tokens(messages) > 1_000  # everything old is as short as it gets


async def test_calls_past_the_per_reply_cap_are_not_run_and_the_model_is_told_once(tmp_path, srv):
    tools = FakeTools()
    srv.enqueue(Reply.tool_calls([("read_document", {})] * 300 + [("end_session", {})]),
                Reply.tool_calls([("end_session", {})]))
    ep = await _agent(srv, tools, max_tool_calls_per_step=5).run(make_task(tmp_path), tmp_path, trial=1)
    assert (ep.status, ep.end_reason, ep.metrics["steps"]) == ("completed", "end_session", 2)
    assert len(tools.calls) == 6  # five reads from the first reply, then the second reply's end_session
    m = ep.metrics
    assert m["tool_calls"] == {"end_session": 1, "read_document": 5}
    assert (m["tool_calls_skipped"], m["tool_errors"]) == (296, 296)

    # The next request stays small and valid: the reply keeps the 5 calls that ran, each answered,
    # and one message tells the model what was not run.
    messages = srv.requests[1].body["messages"]
    asked = [c["id"] for c in messages[2]["tool_calls"]]
    answers = [msg for msg in messages if msg["role"] == "tool"]
    assert len(asked) == 5 and [a["tool_call_id"] for a in answers] == asked
    note = json.loads(messages[-1]["content"])
    assert messages[-1]["role"] == "user" and note["error"] == "too_many_tool_calls"
    assert note["message"].startswith("too many tool calls in one reply: at most 5 are run per reply, and the "
                                      "other 296 (read_document x295, end_session x1) were not run")

    ev = _events(tmp_path)
    assert [e["type"] for e in ev].count("tool") == 6
    model_event = next(e for e in ev if e["type"] == "model")
    assert len(model_event["message"]["tool_calls"]) == 301  # the transcript has the whole reply
    (skipped,) = [e for e in ev if e["type"] == "tool_calls_skipped"]
    assert (skipped["step"], skipped["limit"], skipped["count"]) == (1, 5, 296)
    assert skipped["names"] == {"read_document": 295, "end_session": 1}


def test_the_tool_call_cap_is_a_validated_limit_recorded_with_the_others():
    from redlinebench.errors import ConfigError

    assert AgentLimits().max_tool_calls_per_step == 32
    assert AgentLimits().to_dict()["max_tool_calls_per_step"] == 32
    assert AgentLimits.from_mapping({"max_tool_calls_per_step": "8"}).max_tool_calls_per_step == 8
    for bad in (0, -1, "many", None, True):
        with pytest.raises(ConfigError, match="max_tool_calls_per_step"):
            AgentLimits.from_mapping({"max_tool_calls_per_step": bad})


async def test_metrics_count_every_comment_the_session_added_as_the_grade_does(tmp_path, srv):
    """Through the real tool session: the comments edits carry count, as in the grade's diagnostics."""
    from redlinebench.docx import RedlineDocument
    from redlinebench.scoring._diagnostics import document_diagnostics
    from tests.fixtures.corpus import PRIOR_CHANGES, US

    contract = tmp_path / "in.docx"
    contract.write_bytes(PRIOR_CHANGES.data())
    task = make_task(tmp_path, author=US, contract_path=contract)
    pids = [p.id for p in RedlineDocument.open(contract).paragraphs]
    edit = {"op": "replace", "anchor": {"paragraph_id": pids[0], "text": "sixty (60)"},
            "new_text": "forty-five (45)", "comment": "Shorter payment term."}
    edit2 = {"op": "replace", "anchor": {"paragraph_id": pids[1], "text": "promptly"},
             "new_text": "immediately", "comment": "Clearer."}
    srv.enqueue(Reply.tool_calls([("propose_edits", {"edits": [edit, edit2]}),
                                  ("add_comment", {"text": "See clause 2.", "paragraph_id": pids[1]})]),
                Reply.tool_calls([("end_session", {})]))
    workdir = tmp_path / "trial"
    workdir.mkdir()
    agent = LLMAgent(MODEL, api_base=srv.url, limits=AgentLimits(), seed=0)  # the real document tools
    ep = await agent.run(task, workdir, trial=1)
    assert (ep.status, ep.end_reason) == ("completed", "end_session")
    diagnostics = document_diagnostics(RedlineDocument.open(workdir / "redline.docx"), US)
    assert ep.metrics["comments_added"] == diagnostics["comments_added"] == 3
    assert (ep.metrics["edits_ok"], ep.metrics["edits_failed"]) == (2, 0)


async def test_a_reply_without_usage_makes_the_cost_unknown_not_zero(tmp_path, srv):
    # Some proxies send no "usage": litellm then reads 0 tokens and prices the call at $0.00,
    # which would report a known total that leaves the call out (and blind the cost limit).
    from tests.fakes.openai_server import completion_body

    def handler(body):
        if sum(m["role"] == "assistant" for m in body["messages"]) == 0:
            reply = completion_body(body, Reply.tool_calls([("read_document", {})]))
            del reply["usage"]
            return Reply.garbage(json.dumps(reply).encode())
        return Reply.tool_calls([("end_session", {})], usage=(1000, 100))

    srv.set_handler(handler)
    agent = LLMAgent("openai/gpt-4o-mini", api_base=srv.url, backend=lambda task, out: FakeTools())
    ep = await agent.run(make_task(tmp_path), tmp_path, trial=1)
    m = ep.metrics
    assert (m["steps"], m["tokens_in"], m["tokens_out"]) == (2, 1000, 100)
    assert m["cost_known"] is False
    bad = [e for e in _events(tmp_path) if e["type"] == "bad_usage"]
    assert len(bad) == 1 and bad[0]["step"] == 1
    assert [e["cost_usd"] for e in _events(tmp_path) if e["type"] == "model"][0] is None
