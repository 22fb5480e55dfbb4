"""The fake server must speak real OpenAI wire format: checked through real litellm."""

from __future__ import annotations

import json

import pytest

from redlinebench._litellm import get_litellm
from tests.fakes.openai_server import Reply


def _call(srv, model: str = "openai/fake-a", messages=None, **kw):
    litellm = get_litellm()
    return litellm.completion(
        model=model,
        api_base=srv.url,
        api_key="sk-test",
        messages=messages or [{"role": "user", "content": "hi"}],
        num_retries=0,
        **kw,
    )


def test_text_and_usage(fake_openai):
    fake_openai.enqueue(Reply.text("hello", usage=(7, 3)), model="fake-a")
    resp = _call(fake_openai)
    assert resp.choices[0].message.content == "hello"
    assert resp.usage.prompt_tokens == 7 and resp.usage.completion_tokens == 3
    assert fake_openai.requests[0].body["messages"][0]["content"] == "hi"


def test_tool_calls_round_trip(fake_openai):
    fake_openai.enqueue(Reply.tool_calls([("read_document", {}), ("end_session", '{"bad json')]))
    resp = _call(fake_openai, tools=[{"type": "function", "function": {"name": "read_document", "parameters": {"type": "object", "properties": {}}}}])
    calls = resp.choices[0].message.tool_calls
    assert [c.function.name for c in calls] == ["read_document", "end_session"]
    assert json.loads(calls[0].function.arguments) == {}
    assert calls[1].function.arguments == '{"bad json'


def test_per_model_queues_and_exhaustion(fake_openai):
    fake_openai.enqueue(Reply.text("a"), model="openai/fake-a")
    fake_openai.enqueue(Reply.text("b"), model="fake-b")
    assert _call(fake_openai, "openai/fake-b").choices[0].message.content == "b"
    assert _call(fake_openai, "openai/fake-a").choices[0].message.content == "a"
    with pytest.raises(Exception) as info:
        _call(fake_openai, "openai/fake-a")
    assert "no scripted reply" in str(info.value)


@pytest.mark.parametrize("status", [429, 500, 400])
def test_errors_surface_as_litellm_errors(fake_openai, status):
    litellm = get_litellm()
    fake_openai.enqueue(Reply.error(status))
    with pytest.raises(Exception) as info:
        _call(fake_openai)
    expected = {429: litellm.RateLimitError, 500: litellm.InternalServerError, 400: litellm.BadRequestError}[status]
    assert isinstance(info.value, expected)


def test_garbage_and_timeout(fake_openai):
    fake_openai.enqueue(Reply.garbage())
    with pytest.raises(Exception):
        _call(fake_openai)
    fake_openai.enqueue(Reply.delay(5, Reply.text("late")))
    with pytest.raises(Exception) as info:
        _call(fake_openai, timeout=0.5)
    assert "timeout" in type(info.value).__name__.lower() or "timed out" in str(info.value).lower()


def test_handler_sees_request(fake_openai):
    fake_openai.set_handler(lambda body: Reply.json({"echo": body["messages"][-1]["content"]}))
    resp = _call(fake_openai)
    assert json.loads(resp.choices[0].message.content) == {"echo": "hi"}


def test_the_anthropic_route_speaks_the_messages_api_and_caches_only_marked_prefixes(fake_openai):
    from tests.fakes.prompt_cache import PromptCache

    fake_openai.prompt_cache = PromptCache()
    fake_openai.enqueue(*[Reply.tool_calls([("read_document", {})])] * 3)
    litellm = get_litellm()
    system = "You are counsel. " * 300
    tools = [{"type": "function", "function": {"name": "read_document", "parameters": {"type": "object",
                                                                                      "properties": {}}}}]

    def call(marked: bool):
        content = [{"type": "text", "text": system, **({"cache_control": {"type": "ephemeral"}} if marked else {})}]
        return litellm.completion(model="anthropic/claude-haiku-4-5", api_base=fake_openai.base_url,
                                  api_key="sk-test", max_tokens=50, tools=tools,
                                  messages=[{"role": "system", "content": content}, {"role": "user", "content": "go"}])

    plain = call(False)
    assert fake_openai.requests[-1].path == "/v1/messages"
    assert plain.choices[0].message.tool_calls[0].function.name == "read_document"
    assert plain.usage.cache_read_input_tokens == 0 and plain.usage.cache_creation_input_tokens == 0
    wrote = call(True)
    assert wrote.usage.cache_creation_input_tokens > 1000 and wrote.usage.cache_read_input_tokens == 0
    read = call(True)
    assert read.usage.cache_read_input_tokens == wrote.usage.cache_creation_input_tokens
    assert read.usage.prompt_tokens == wrote.usage.prompt_tokens


def test_the_openai_route_reports_cached_tokens_for_a_repeated_prefix(fake_openai):
    from tests.fakes.prompt_cache import PromptCache

    fake_openai.prompt_cache = PromptCache()
    fake_openai.enqueue(Reply.text("a"), Reply.text("b"), Reply.text("c"))
    long = [{"role": "system", "content": "Clause text. " * 800}]
    first = _call(fake_openai, messages=long + [{"role": "user", "content": "one"}])
    second = _call(fake_openai, messages=long + [{"role": "user", "content": "two"}])
    short = _call(fake_openai, messages=[{"role": "user", "content": "hi"}])
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    assert 1024 <= second.usage.prompt_tokens_details.cached_tokens < second.usage.prompt_tokens
    assert short.usage.prompt_tokens_details.cached_tokens == 0


def test_the_token_bucket_answers_429_beyond_its_rate_with_or_without_a_hint():
    from tests.fakes.token_bucket import TokenBucket

    now = [0.0]
    bucket = TokenBucket(10, 3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(3)] == [None, None, None]
    wait = bucket.take()
    assert wait == pytest.approx(0.1) and bucket.headers(wait) == {"Retry-After": "1", "retry-after-ms": "100"}
    now[0] += 0.1
    assert bucket.take() is None and (bucket.accepted, bucket.refused) == (4, 1)
    assert TokenBucket(10, 1, retry_after=False).headers(0.5) == {}


@pytest.mark.parametrize("rule,reply,drop,error", [
    ("deepseek_reasoning", Reply.tool_calls([("f", {})], reasoning="think"), "reasoning_content",
     "reasoning_content in the thinking mode must be passed back"),
    ("gemini_signature", Reply.tool_calls([("f", {})], thought_signature="sig"), "extra_content",
     "missing a thought_signature"),
])
def test_each_rule_rejects_a_history_without_what_the_provider_sent(fake_openai, rule, reply, drop, error):
    fake_openai.rules = {rule}
    fake_openai.enqueue(reply, Reply.text("ok"))
    msg = _call(fake_openai).choices[0].message.model_dump(exclude_none=True)
    answer = {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"], "content": "r"}
    bare = {k: v for k, v in msg.items() if k != drop}
    bare["tool_calls"] = [{k: v for k, v in c.items() if k != drop} for c in msg["tool_calls"]]
    with pytest.raises(Exception, match=error):
        _call(fake_openai, messages=[{"role": "user", "content": "hi"}, bare, answer])
    assert _call(fake_openai, messages=[{"role": "user", "content": "hi"}, msg, answer]).choices[0].message.content == "ok"


def test_the_vllm_rule_rejects_repeated_ids_and_unparsable_arguments(fake_openai):
    fake_openai.rules = {"vllm"}
    call = {"id": "call_0", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    turn = [{"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_0", "content": "r"}]
    with pytest.raises(Exception, match="Duplicate value for 'tool_call_id'"):
        _call(fake_openai, messages=[{"role": "user", "content": "hi"}, *turn, *turn])
    cut = [{**turn[0], "tool_calls": [{**call, "function": {"name": "f", "arguments": '{"a": "b'}}]}, turn[1]]
    with pytest.raises(Exception, match="Unterminated string"):
        _call(fake_openai, messages=[{"role": "user", "content": "hi"}, *cut])


def test_error_shapes_of_real_providers(fake_openai):
    fake_openai.enqueue(Reply.gemini_error(400, "Invalid JSON payload"), Reply.insufficient_quota())
    with pytest.raises(Exception) as first:
        _call(fake_openai)
    assert first.value.response.json() == [{"error": {"code": 400, "message": "Invalid JSON payload",
                                                      "status": "INVALID_ARGUMENT"}}]
    with pytest.raises(Exception) as second:
        _call(fake_openai)
    assert second.value.status_code == 429 and "insufficient_quota" in second.value.response.text
