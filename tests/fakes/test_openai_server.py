"""The fake server must speak real OpenAI wire format: checked through real litellm."""

from __future__ import annotations

import json

import pytest

from redlinebench._litellm import get_litellm
from tests.fakes.openai_server import Reply


def _call(srv, model: str = "openai/fake-a", **kw):
    litellm = get_litellm()
    return litellm.completion(
        model=model,
        api_base=srv.url,
        api_key="sk-test",
        messages=[{"role": "user", "content": "hi"}],
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
