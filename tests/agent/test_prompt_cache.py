"""Prompt caching (issue 14.1-2): markers where the provider needs them, a byte-stable prefix
where it caches automatically, and the cached tokens counted and priced."""

from __future__ import annotations

import json

import pytest

from redlinebench.agent.limits import AgentLimits
from redlinebench.agent.llm import LLMAgent
from tests.agent.doubles import FakeTools, make_task
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.prompt_cache import PromptCache

LONG_VIEW = "\n".join(f"[p-{i:03d}] {i}. The Supplier shall perform clause {i} with reasonable care and skill "
                      f"within thirty (30) days of a written request." for i in range(1, 200))
SCRIPT = [("read_document", {}), ("add_comment", {"paragraph_id": "p-001", "text": "Why?"}),
          ("add_comment", {"paragraph_id": "p-002", "text": "Agreed."}), ("end_session", {})]


@pytest.fixture
def srv():
    with FakeOpenAI() as server:
        server.prompt_cache = PromptCache()

        def script(body):
            step = sum(1 for m in body["messages"] if m.get("role") == "assistant")
            return Reply.tool_calls([SCRIPT[min(step, len(SCRIPT) - 1)]], usage=(0, 30))

        server.set_handler(script)
        yield server


def _run(srv, tmp_path, model, base, **kw):
    limits = kw.pop("limits", AgentLimits())
    agent = LLMAgent(model, api_base=base, limits=limits, backend=lambda t, o: FakeTools(view=LONG_VIEW),
                     extra_params={"api_key": "sk-test"}, **kw)
    workdir = tmp_path / model.replace("/", "_") / str(kw.get("prompt_cache", True))
    workdir.mkdir(parents=True)
    import asyncio

    ep = asyncio.run(agent.run(make_task(tmp_path), workdir, trial=1))
    events = [json.loads(x) for x in (workdir / "transcript.jsonl").read_text().splitlines()]
    return ep, events


def _marks(body) -> int:
    return json.dumps(body).count('"cache_control"')


def test_anthropic_route_carries_markers_reads_what_the_last_step_wrote_and_prices_it(srv, tmp_path):
    ep, events = _run(srv, tmp_path, "anthropic/claude-haiku-4-5", srv.base_url)
    bodies = [r.body for r in srv.requests]
    assert all(r.path.endswith("/v1/messages") for r in srv.requests) and len(bodies) == 4
    for body in bodies:  # the stable prefix (system) and the newest message are both marked
        assert any("cache_control" in b for b in body["system"])
        last = body["messages"][-1]["content"]
        assert isinstance(last, list) and "cache_control" in last[-1]
        assert _marks(body) <= 4  # Anthropic refuses more than four breakpoints
    log = srv.usage_log
    assert log[0]["cache_read"] == 0 and log[0]["cache_write"] > 0
    for prev, cur in zip(log, log[1:]):  # each step reads everything the previous one wrote
        assert cur["cache_read"] == prev["cache_read"] + prev["cache_write"]
    m = ep.metrics
    assert m["cache_read_tokens"] == sum(u["cache_read"] for u in log) > 0
    assert m["cache_write_tokens"] == sum(u["cache_write"] for u in log)
    assert m["tokens_in"] == sum(u["prompt_tokens"] for u in log)
    model_events = [e for e in events if e["type"] == "model"]
    assert [e["cache_read_tokens"] for e in model_events] == [u["cache_read"] for u in log]
    # priced at Anthropic's cache rates (haiku-4-5: $1/M input, reads $0.10/M, writes $1.25/M, $5/M output)
    expected = sum(u["input_tokens"] * 1e-6 + u["cache_read"] * 1e-7 + u["cache_write"] * 1.25e-6 for u in log) \
        + m["tokens_out"] * 5e-6
    assert m["cost_usd"] == pytest.approx(expected, rel=1e-3)
    assert m["cost_uncached_usd"] == pytest.approx(m["tokens_in"] * 1e-6 + m["tokens_out"] * 5e-6, rel=1e-3)
    assert m["cost_usd"] < m["cost_uncached_usd"]


def test_no_prompt_cache_sends_no_marker_and_reads_nothing(srv, tmp_path):
    ep, _ = _run(srv, tmp_path, "anthropic/claude-haiku-4-5", srv.base_url, prompt_cache=False)
    assert all(_marks(r.body) == 0 for r in srv.requests)
    assert ep.metrics["cache_read_tokens"] == 0 and ep.metrics["cache_write_tokens"] == 0
    assert ep.metrics["prompt_cache"] is False


def test_openai_route_sends_no_marker_keeps_the_prefix_identical_and_counts_cached_tokens(srv, tmp_path):
    ep, _ = _run(srv, tmp_path, "openai/gpt-5.4-mini", srv.url)
    bodies = [r.body for r in srv.requests]
    assert all(_marks(b) == 0 for b in bodies)
    for prev, cur in zip(bodies, bodies[1:]):  # every step resends the previous request unchanged
        assert cur["tools"] == prev["tools"]
        assert cur["messages"][: len(prev["messages"])] == prev["messages"]
    log = srv.usage_log
    # from the third call on, the prefix (with the long view) is over OpenAI's 1,024-token minimum
    assert all(cur["cache_read"] >= prev["prompt_tokens"] - 10 for prev, cur in zip(log[1:], log[2:]))
    assert ep.metrics["cache_read_tokens"] == sum(u["cache_read"] for u in log)
    # gpt-5.4-mini: $0.75/M input, cached $0.075/M, $4.5/M output
    expected = sum((u["prompt_tokens"] - u["cache_read"]) * 7.5e-7 + u["cache_read"] * 7.5e-8 for u in log) \
        + ep.metrics["tokens_out"] * 4.5e-6
    assert ep.metrics["cost_usd"] == pytest.approx(expected, rel=1e-3)


def test_shortening_is_rare_and_large_so_the_prefix_survives_many_steps(tmp_path):
    """Over its budget the history is cut well below it, then left alone for many steps."""
    from redlinebench.agent.llm import _shorten

    limits = AgentLimits(context_tokens=10_000, keep_recent_tool_outputs=1)
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"}]
    rewrites = []
    for step in range(30):
        snapshot = json.dumps(messages)
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{step}", "type": "function", "function": {"name": "read_document", "arguments": "{}"}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{step}", "content": "x" * 8_000})
        if _shorten(messages, limits):
            rewrites.append(step)
        else:  # no shortening: what was sent before is still the start of what is sent now
            assert json.dumps(messages).startswith(snapshot[:-1])
    # cutting just under the budget rewrote the history on every step once it was full (26 of 30)
    assert rewrites and len(rewrites) <= 10 and all(b - a >= 2 for a, b in zip(rewrites, rewrites[1:]))
