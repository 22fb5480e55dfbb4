"""The litellm judge against a loopback OpenAI-compatible server, through real litellm."""

from __future__ import annotations

import json
import time

import pytest

from redlinebench.judge import AuditLog, JudgeCache, LiteLLMJudge, backoff_delay
from tests.fakes.openai_server import Reply
from tests.judge.doubles import TASK, verdicts

VIEW = "[p-001] 1.3 Applicable Law ~~includes PCI-DSS~~"
ALL_PASS = verdicts(r1="PASS", r2="PASS", r3="FAIL")


def make(srv, **kw) -> LiteLLMJudge:
    kw.setdefault("timeout", 5)
    return LiteLLMJudge("openai/judge-a", api_base=srv.url, api_key="sk-test-secret-123456", **kw)


async def test_success_records_tokens_cost_and_request_shape(fake_openai, monkeypatch):
    from redlinebench.judge import _cost

    fake_openai.enqueue(Reply.json(ALL_PASS, usage=(1000, 200)), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.verdicts == {"r1": "PASS", "r2": "PASS", "r3": "FAIL"}
    assert (result.prompt_tokens, result.completion_tokens, result.attempts) == (1000, 200, 1)
    assert result.cost_usd is None  # known neither to litellm nor to the fallback table: unknown, not 0
    # the fallback table prices a model litellm does not know: $1 in, $4 out per 1M -> 0.001 + 0.0008
    monkeypatch.setattr(_cost, "fallback_prices", lambda: {"judge-a": {"input": 1.0, "output": 4.0}})
    fake_openai.enqueue(Reply.json(ALL_PASS, usage=(1000, 200)), model="judge-a")
    assert (await make(fake_openai).grade(TASK, VIEW, None)).cost_usd == pytest.approx(0.0018)
    # a model litellm knows is priced from litellm's own map (gpt-5.4-mini: $0.75 / $4.5 per 1M)
    fake_openai.enqueue(Reply.json(ALL_PASS, usage=(1000, 200)), model="gpt-5.4-mini")
    known = LiteLLMJudge("openai/gpt-5.4-mini", api_base=fake_openai.url, api_key="sk-test-secret-123456")
    assert (await known.grade(TASK, VIEW, None)).cost_usd == pytest.approx(0.00075 + 0.0009)
    body = fake_openai.requests[0].body
    assert body["temperature"] == 0 and body["response_format"] == {"type": "json_object"}
    assert "r3" in body["messages"][1]["content"]


async def test_429_then_success(fake_openai):
    fake_openai.enqueue(Reply.error(429), Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 2 and result.verdicts["r1"] == "PASS"


async def test_500s_are_retried_until_the_budget_is_spent(fake_openai):
    fake_openai.enqueue(Reply.error(500), Reply.error(503), Reply.json(ALL_PASS), model="judge-a")
    assert (await make(fake_openai).grade(TASK, VIEW, None)).attempts == 3
    fake_openai.enqueue(*[Reply.error(500)] * 5, model="judge-a")
    result = await make(fake_openai, max_retries=3).grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 4 and "500" in result.error
    assert fake_openai.pending("judge-a") == 1


async def test_auth_error_is_not_retried(fake_openai):
    fake_openai.enqueue(Reply.error(401, "Incorrect API key provided: sk-test-secret-123456"),
                        Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 1
    assert "sk-test-secret-123456" not in result.error


async def test_json_mode_rejected_is_dropped_once(fake_openai):
    fake_openai.enqueue(Reply.error(400, "response_format json_object is not supported by this model"),
                        Reply.text("```json\n" + json.dumps(ALL_PASS) + "\n```"), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 2
    first, second = (r.body for r in fake_openai.requests)
    assert "response_format" in first and "response_format" not in second


async def test_temperature_rejected_is_dropped(fake_openai):
    fake_openai.enqueue(Reply.error(400, "Unsupported value: 'temperature' does not support 0"),
                        Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok
    assert "temperature" not in fake_openai.requests[1].body
    assert fake_openai.requests[1].body["response_format"] == {"type": "json_object"}


async def test_bad_request_after_fallbacks_stops(fake_openai):
    fake_openai.enqueue(*[Reply.error(400, "context too long")] * 4, model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 2  # once with JSON mode, once without


async def test_malformed_json_and_garbage_are_retried(fake_openai):
    fake_openai.enqueue(Reply.text("All rubrics PASS."), Reply.text('{"verdicts": [ {"rubric_id": '),
                        Reply.garbage(), Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 4
    # tokens of the two unparseable-but-delivered replies are paid for too
    assert result.prompt_tokens == 300


async def test_missing_rubrics_count_fail_without_retry(fake_openai):
    fake_openai.enqueue(Reply.json(verdicts(r1="PASS")), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 1
    assert result.verdicts == {"r1": "PASS", "r2": "FAIL", "r3": "FAIL"} and result.missing == ["r2", "r3"]


async def test_timeouts_then_a_judge_that_never_answers(fake_openai):
    fake_openai.enqueue(Reply.delay(3, Reply.json(ALL_PASS)), Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai, timeout=0.5).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 2
    fake_openai.set_handler(lambda body: Reply.hang())
    t0 = time.monotonic()
    result = await make(fake_openai, timeout=0.4, max_retries=2).grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 3
    assert time.monotonic() - t0 < 8


async def test_cache_makes_rescoring_free_and_identical(fake_openai, tmp_path):
    cache = JudgeCache(tmp_path / "cache")
    fake_openai.enqueue(Reply.json(ALL_PASS), model="judge-a")
    first = await make(fake_openai).grade(TASK, VIEW, None, cache=cache)
    second = await make(fake_openai).grade(TASK, VIEW, None, cache=cache)
    assert second.cached and second.cost_usd == 0 and second.verdicts == first.verdicts
    assert len(fake_openai.requests) == 1
    # a different view is a different key
    fake_openai.enqueue(Reply.json(verdicts(r1="FAIL")), model="judge-a")
    third = await make(fake_openai).grade(TASK, VIEW + " ++more++", None, cache=cache)
    assert not third.cached and third.verdicts["r1"] == "FAIL"
    # failures are never cached
    fake_openai.enqueue(Reply.error(401), model="judge-a")
    await make(fake_openai).grade(TASK, "other view", None, cache=cache)
    fake_openai.enqueue(Reply.json(ALL_PASS), model="judge-a")
    assert (await make(fake_openai).grade(TASK, "other view", None, cache=cache)).ok


async def test_audit_log_has_attempts_and_never_keys(fake_openai, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-abcdefgh")
    audit = AuditLog(tmp_path / "judge_audit.jsonl")
    fake_openai.enqueue(Reply.error(429, "slow down sk-env-key-abcdefgh"), Reply.json(ALL_PASS), model="judge-a")
    await make(fake_openai).grade(TASK, VIEW, None, audit=audit, trial=1, model_under_test="m")
    text = (tmp_path / "judge_audit.jsonl").read_text()
    record = json.loads(text.splitlines()[0])
    assert record["task_id"] == TASK.task_id and record["n_attempts"] == 2 and record["ok"]
    assert record["attempts"][0]["status"] == 429 and record["prompt_tokens"] == 100
    assert "sk-test-secret-123456" not in text and "sk-env-key-abcdefgh" not in text


def test_backoff_is_exponential_capped_and_jittered():
    import random
    rng = random.Random(0)
    delays = [backoff_delay(n, base=1.0, rng=rng) for n in range(1, 10)]
    assert 0.5 <= delays[0] <= 1.0 and 4 <= delays[3] <= 8
    assert all(30 <= d <= 60 for d in delays[6:])
    assert backoff_delay(3, base=0.0) == 0.0


def test_redact_removes_every_credential_shape(monkeypatch):
    from redlinebench.judge import redact

    monkeypatch.setenv("ACME_API_KEY", "plain-looking-secret-value")
    text = ("401: Incorrect API key provided: sk-proj-abcdefghijkl; Authorization: Bearer eyJhbGciOiJIUzI1NiJ9 "
            "x-api-key: abcd1234efgh api_key='zzzzzzzzzz' via https://bob:hunter22@proxy.example/v1 "
            "and plain-looking-secret-value and AIzaSyA-1234567890abcdef; status fine")
    out = redact(text, ["extra-secret-xyz"])
    for secret in ("sk-proj-abcdefghijkl", "eyJhbGciOiJIUzI1NiJ9", "abcd1234efgh", "zzzzzzzzzz", "hunter22",
                   "plain-looking-secret-value", "AIzaSyA-1234567890abcdef"):
        assert secret not in out, secret
    assert "https://[redacted]@proxy.example/v1" in out and out.endswith("status fine")
    assert redact("extra-secret-xyz!", ["extra-secret-xyz"]) == "[redacted]!"
    assert redact(None) is None


async def test_rejected_key_names_the_environment_variable(fake_openai, monkeypatch):
    monkeypatch.setenv("RB_JUDGE_KEY", "sk-bad-key-0000")
    fake_openai.enqueue(Reply.error(401, "Incorrect API key provided"), Reply.json(ALL_PASS), model="judge-a")
    judge = LiteLLMJudge("openai/judge-a", api_base=fake_openai.url, api_key_env="RB_JUDGE_KEY", timeout=5)
    result = await judge.grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 1 and len(fake_openai.requests) == 1
    assert "authentication failed" in result.error and "RB_JUDGE_KEY is set but was rejected" in result.error
    assert "sk-bad-key-0000" not in result.error


async def test_no_key_and_no_endpoint_fails_once_and_says_which_variable(tmp_path, monkeypatch):
    # litellm reports this as a 500 ("Missing credentials"), which the retry policy alone would retry 10 times.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    audit = AuditLog(tmp_path / "judge_audit.jsonl")
    judge = LiteLLMJudge("openai/judge-a", timeout=5)
    result = await judge.grade(TASK, VIEW, None, audit=audit)
    assert not result.ok and result.attempts == 1
    assert "set OPENAI_API_KEY in the environment" in result.error
    record = json.loads((tmp_path / "judge_audit.jsonl").read_text().splitlines()[0])
    assert record["n_attempts"] == 1 and "OPENAI_API_KEY" in record["error"]


async def test_no_key_for_another_provider_names_its_variable(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    judge = LiteLLMJudge("anthropic/claude-test", timeout=5)
    result = await judge.grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 1 and "ANTHROPIC_API_KEY" in result.error


async def test_an_explicit_endpoint_without_a_key_gets_a_placeholder(fake_openai, monkeypatch):
    """A local judge server (--judge-api-base) works with no key, as the model under test does."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_openai.enqueue(Reply.json(ALL_PASS), model="judge-a")
    result = await LiteLLMJudge("openai/judge-a", api_base=fake_openai.url, timeout=5).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 1
    assert fake_openai.requests[0].headers.get("authorization") == "Bearer no-key-set"


async def test_an_endpoint_that_rejects_the_placeholder_fails_once_naming_the_variable(fake_openai, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_openai.enqueue(Reply.error(401, "Incorrect API key provided"), Reply.json(ALL_PASS), model="judge-a")
    result = await LiteLLMJudge("openai/judge-a", api_base=fake_openai.url, timeout=5).grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 1 and len(fake_openai.requests) == 1
    assert "set OPENAI_API_KEY in the environment" in result.error


async def test_plain_server_errors_are_still_retried(fake_openai):
    fake_openai.enqueue(Reply.error(500, "upstream overloaded"), Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 2


async def test_a_rate_limited_judge_waits_what_the_provider_asks(fake_openai, monkeypatch):
    import time

    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "0.001")
    fake_openai.enqueue(Reply.error(429, headers={"retry-after-ms": "400"}), Reply.json(ALL_PASS), model="judge-a")
    t0 = time.monotonic()
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 2 and time.monotonic() - t0 >= 0.4


async def test_the_same_model_name_on_another_endpoint_is_not_served_from_the_cache(fake_openai, tmp_path):
    from tests.fakes.openai_server import FakeOpenAI

    cache = JudgeCache(tmp_path / "cache")
    fake_openai.enqueue(Reply.json(ALL_PASS), model="judge-a")
    assert (await make(fake_openai).grade(TASK, VIEW, None, cache=cache)).ok
    with FakeOpenAI() as other:  # another local server that also calls its model "judge-a"
        other.enqueue(Reply.json(verdicts(r1="FAIL")), model="judge-a")
        result = await make(other).grade(TASK, VIEW, None, cache=cache)
    assert not result.cached and result.verdicts["r1"] == "FAIL" and len(other.requests) == 1


async def test_a_conflict_or_other_4xx_is_not_retried(fake_openai):
    """SPEC §5.3: no retry on 4xx other than 429 (408, litellm's timeout, is a timeout)."""
    fake_openai.enqueue(Reply.error(409, "conflict"), Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 1 and len(fake_openai.requests) == 1


async def test_an_escaped_lone_surrogate_in_a_justification_is_kept_as_a_valid_answer(fake_openai, tmp_path):
    """The reply's JSON text escapes \\ud800; decoded, it is text no file can hold. The verdicts
    still count, and the cache and the audit log are written as valid UTF-8."""
    for reply in (json.dumps(ALL_PASS).replace('"r1 is PASS"', '"r1 is PASS \\\\ud800"'),  # escaped in the JSON
                  json.dumps(ALL_PASS).replace('"r1 is PASS"', '"r1 is PASS \ud800"')):  # or raw in the reply
        fake_openai.enqueue(Reply.text(reply), model="judge-a")
    for n in range(2):
        cache, audit = JudgeCache(tmp_path / f"cache{n}"), AuditLog(tmp_path / f"audit{n}.jsonl")
        result = await make(fake_openai).grade(TASK, VIEW, None, cache=cache, audit=audit)
        assert result.ok and result.verdicts == {"r1": "PASS", "r2": "PASS", "r3": "FAIL"}, result.error
        for path in [*tmp_path.joinpath(f"cache{n}").rglob("*.json"), tmp_path / f"audit{n}.jsonl"]:
            path.read_bytes().decode("utf-8")  # strict
        assert list(tmp_path.joinpath(f"cache{n}").rglob("*.json"))
        again = await make(fake_openai).grade(TASK, VIEW, None, cache=cache)  # served from the cache
        assert again.ok and again.verdicts == result.verdicts


async def test_negative_token_counts_from_a_judge_count_zero_and_make_the_cost_unknown(fake_openai, tmp_path):
    # gpt-5.4-mini is priced (litellm and the fallback table): -10M tokens each way would be priced
    # as a large negative cost. The counts are taken as 0 and that call's cost as unknown.
    audit = AuditLog(tmp_path / "judge_audit.jsonl")
    fake_openai.enqueue(Reply.text("not json", usage=(-10_000_000, -10_000_000)),
                        Reply.json(ALL_PASS, usage=(1000, 200)), model="gpt-5.4-mini")
    judge = LiteLLMJudge("openai/gpt-5.4-mini", api_base=fake_openai.url, api_key="sk-test-secret-123456")
    result = await judge.grade(TASK, VIEW, None, audit=audit, trial=1, model_under_test="m")
    assert result.ok and result.attempts == 2
    assert (result.prompt_tokens, result.completion_tokens) == (1000, 200)
    assert result.cost_usd is None  # unknown, never negative
    record = json.loads((tmp_path / "judge_audit.jsonl").read_text().splitlines()[0])
    assert (record["prompt_tokens"], record["completion_tokens"], record["cost_usd"]) == (1000, 200, None)
    first = record["attempts"][0]
    assert (first["prompt_tokens"], first["completion_tokens"]) == (0, 0)
    assert first["bad_usage"] == {"prompt_tokens": "-10000000", "completion_tokens": "-10000000"}
    assert "bad_usage" not in record["attempts"][1]


@pytest.mark.parametrize("prompt, completion", [(-3, 7), (True, 7), (1.5, 7), (float("nan"), 7), ("12", 7),
                                                (7, float("-inf")), (7, -1), (7, False)])
def test_judge_usage_counts_that_are_not_non_negative_integers_count_as_zero(prompt, completion):
    from types import SimpleNamespace

    from redlinebench._litellm import reply_usage as _usage

    (p, c), bad = _usage(SimpleNamespace(usage=SimpleNamespace(prompt_tokens=prompt, completion_tokens=completion)))
    assert (p, c) == ((0, 7) if completion == 7 else (7, 0)) and len(bad) == 1
    assert _usage(SimpleNamespace(usage=None)) == ((0, 0), None)


async def test_a_negative_cost_from_the_price_lookup_is_unknown(fake_openai, monkeypatch):
    from redlinebench.judge import _litellm_judge

    for value in (-22.5, float("nan"), float("inf")):
        monkeypatch.setattr(_litellm_judge, "call_cost", lambda *a, _v=value: _v)
        fake_openai.enqueue(Reply.json(ALL_PASS), model="judge-a")
        result = await make(fake_openai).grade(TASK, VIEW, None)
        assert result.ok and result.cost_usd is None


async def test_a_deeply_nested_or_huge_number_reply_is_unparseable_and_retried(fake_openai):
    deep = '{"verdicts": ' + "[" * 100_000 + "]" * 100_000 + "}"
    huge = '{"verdicts": [{"rubric_id": "r1", "verdict": "PASS", "n": ' + "9" * 10_000 + "}]}"
    fake_openai.enqueue(Reply.text(deep), Reply.text(huge), Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 3 and result.verdicts["r1"] == "PASS"
    fake_openai.enqueue(*[Reply.text(deep)] * 3, model="judge-a")
    result = await make(fake_openai, max_retries=2).grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 3
    assert "unparseable reply" in result.error and "Traceback" not in result.error


async def test_a_reply_answering_no_requested_rubric_is_retried_and_never_cached(fake_openai, tmp_path):
    """``{"verdicts": []}``, only unknown ids, or a quoted format example is no answer: counted as
    one it would silently make every rubric a FAIL vote from this judge."""
    cache = JudgeCache(tmp_path / "cache")
    example = '{"verdicts": [{"rubric_id": "<id>", "verdict": "PASS|FAIL", "justification": "..."}]}'
    fake_openai.enqueue(Reply.json({"verdicts": []}), Reply.json(verdicts(x1="PASS", x2="PASS")),
                        Reply.text("Format:\n```json\n" + example + "\n```"), Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None, cache=cache)
    assert result.ok and result.attempts == 4 and result.missing == []
    assert result.verdicts == {"r1": "PASS", "r2": "PASS", "r3": "FAIL"}
    # a judge that never answers any requested id fails (incomplete judging), and nothing is cached
    fake_openai.enqueue(*[Reply.json({"verdicts": []})] * 3, model="judge-a")
    result = await make(fake_openai, max_retries=2).grade(TASK, "another view", None, cache=cache)
    assert not result.ok and result.attempts == 3 and "none of the requested rubric ids" in result.error
    fake_openai.enqueue(Reply.json(ALL_PASS), model="judge-a")
    again = await make(fake_openai).grade(TASK, "another view", None, cache=cache)
    assert again.ok and not again.cached and again.verdicts["r1"] == "PASS"


async def test_a_format_example_then_the_answer_in_one_reply_is_read_by_its_answer(fake_openai):
    example = '{"verdicts": [{"rubric_id": "<id>", "verdict": "PASS|FAIL", "justification": "..."}]}'
    fake_openai.enqueue(Reply.text("Format:\n```json\n" + example + "\n```\nAnswer:\n```json\n"
                                   + json.dumps(ALL_PASS) + "\n```"), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 1 and result.missing == []
    assert result.verdicts == {"r1": "PASS", "r2": "PASS", "r3": "FAIL"}


async def test_a_cached_answer_that_answered_no_rubric_is_not_served(fake_openai, tmp_path):
    """Entries written before such replies counted as unparseable are a miss, not every rubric FAIL."""
    from redlinebench.judge import PROMPT_VERSION, cache_key, judge_messages

    cache = JudgeCache(tmp_path / "cache")
    key = cache_key("openai/judge-a", judge_messages(TASK, VIEW), PROMPT_VERSION, endpoint=fake_openai.url)
    cache.put(key, {"verdicts": {"r1": "FAIL", "r2": "FAIL", "r3": "FAIL"}, "justifications": {},
                    "missing": ["r1", "r2", "r3"], "invalid": [], "raw": '{"verdicts": []}'})
    fake_openai.enqueue(Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None, cache=cache)
    assert result.ok and not result.cached and result.verdicts["r1"] == "PASS"
    # and the good answer replaced it
    again = await make(fake_openai).grade(TASK, VIEW, None, cache=cache)
    assert again.cached and again.verdicts["r1"] == "PASS"


@pytest.mark.parametrize("body", ["Incorrect API key provided: sk-abc", "Missing credentials", "authentication error"])
async def test_a_5xx_is_retried_whatever_its_body_says(fake_openai, body):
    """Issue 17.8: the agent and the judge share one policy; a 500 is retried even when its text
    mentions a key (it was an auth stop for the judge and a retry for the agent)."""
    fake_openai.enqueue(Reply.error(500, body), Reply.json(ALL_PASS), model="judge-a")
    result = await make(fake_openai).grade(TASK, VIEW, None)
    assert result.ok and result.attempts == 2


async def test_a_403_stops_at_once_naming_the_key(fake_openai, monkeypatch):
    monkeypatch.setenv("RB_JUDGE_KEY", "sk-bad-key-0000")
    fake_openai.enqueue(Reply.error(403, "forbidden"), Reply.json(ALL_PASS), model="judge-a")
    judge = LiteLLMJudge("openai/judge-a", api_base=fake_openai.url, api_key_env="RB_JUDGE_KEY", timeout=5)
    result = await judge.grade(TASK, VIEW, None)
    assert not result.ok and result.attempts == 1 and "RB_JUDGE_KEY is set but was rejected" in result.error


async def test_the_judge_marks_its_system_prompt_for_claude_and_counts_cache_tokens(fake_openai, tmp_path):
    from tests.fakes.prompt_cache import PromptCache

    fake_openai.prompt_cache = PromptCache()
    fake_openai.set_handler(lambda body: Reply.json(ALL_PASS))
    audit = AuditLog(tmp_path / "judge_audit.jsonl")
    judge = LiteLLMJudge("anthropic/claude-haiku-4-5", api_base=fake_openai.base_url, api_key="sk-test", timeout=5)
    results = [await judge.grade(TASK, VIEW, None, audit=audit) for _ in range(2)]
    assert all(r.ok for r in results)
    system = fake_openai.requests[-1].body["system"]
    assert any("cache_control" in block for block in system)
    rows = [json.loads(line) for line in (tmp_path / "judge_audit.jsonl").read_text().splitlines()]
    assert rows[0]["cache_write_tokens"] > 0 and rows[1]["cache_read_tokens"] == rows[0]["cache_write_tokens"]
    # the result (and so grade.json's judge_results) carries them too
    assert [(r.cache_read_tokens, r.cache_write_tokens) for r in results] == \
        [(0, rows[0]["cache_write_tokens"]), (rows[0]["cache_write_tokens"], 0)]
    assert results[1].to_dict()["cache_read_tokens"] == rows[1]["cache_read_tokens"]
    plain = LiteLLMJudge("anthropic/claude-haiku-4-5", api_base=fake_openai.base_url, api_key="sk-test",
                         timeout=5, prompt_cache=False)
    assert (await plain.grade(TASK, VIEW, None)).ok
    assert "cache_control" not in json.dumps(fake_openai.requests[-1].body)
