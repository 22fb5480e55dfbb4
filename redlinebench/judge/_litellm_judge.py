"""A judge backed by any litellm model, with the SPEC §5 call policy.

One call per task with all rubrics. JSON mode on, dropped once if the provider rejects it;
temperature 0, dropped once if rejected. What is retried is the agent's policy too
(:func:`redlinebench._retry.classify`): up to ``max_retries`` retries, waiting what the
provider's ``Retry-After`` asks or else an exponential backoff (cap 60 s, jitter), on any 5xx,
429, timeout, connection error or unparseable reply, whatever the error's body says; no retry
on any other 4xx; a 401/403 (or no key available at all) stops at once, and the error names the
environment variable to set; an endpoint that refuses the connection (or does not resolve) gets
one quick retry, and the error names it and the cause (``JudgeResult.unreachable``: the run stops
on it). Each call holds a place in its endpoint's adaptive limit, shared with the agents
(:mod:`redlinebench._throttle`). The system prompt, the same for every call,
carries a cache marker on providers that need one. Tokens (cache reads and writes among them)
and cost are counted over every attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._litellm import cache_markers, cache_usage, get_litellm, reply_usage, valid_cost
from ..agent.credentials import PLACEHOLDER_KEY, env_key_hint, key_is_set, needs_placeholder_key
from ..agent.retry import describe
from .._retry import backoff as backoff_delay  # noqa: F401  (re-exported: the one formula)
from .._retry import classify, retries_allowed, retry_delay, status_of, unreachable_message
from .._throttle import slot
from ._audit import AuditLog, redact
from ._base import JudgeResult, judge
from ._cache import JudgeCache, cache_key
from ._cost import call_cost
from ._parse import UnparseableReply, parse_verdicts
from ._prompt import PROMPT_VERSION, judge_messages

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_RETRIES = 10
RAW_LIMIT = 20_000


def _status(exc: BaseException) -> int | None:
    return status_of(exc)


def _answers_some(hit: dict[str, Any], rubric_ids: list[str]) -> bool:
    """A cached answer that answered none of the rubrics (written before such a reply counted as
    unparseable) is no answer: it would make every rubric a FAIL vote. Treated as a miss."""
    missing = hit.get("missing")
    if not rubric_ids or not isinstance(missing, list):
        return True
    return not set(rubric_ids) <= {str(m) for m in missing}


@dataclass
class CallOutcome:
    """What one judge call (all its attempts) produced: the parsed reply or the last error, and the costs."""

    parsed: Any
    raw: str | None
    error: str | None
    attempts: list[dict[str, Any]]
    dropped: list[str]
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None
    latency_s: float
    unreachable: bool


class LiteLLMJudge:
    """A panel member: one litellm model string plus call options."""

    method = "llm"

    def __init__(self, model: str, *, name: str | None = None, api_base: str | None = None,
                 api_key: str | None = None, api_key_env: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S, max_retries: int = DEFAULT_MAX_RETRIES,
                 json_mode: bool = True, temperature: float | None = 0.0,
                 extra: dict[str, Any] | None = None, prompt_cache: bool = True) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("a litellm judge needs a model string")
        self.model = model.strip()
        self.name = name or self.model
        self.api_base = api_base
        self.api_key_env = api_key_env
        self._api_key = api_key if api_key is not None else (
            os.environ[api_key_env].strip() if api_key_env and key_is_set(api_key_env) else None)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.json_mode = bool(json_mode)
        self.temperature = temperature
        self.extra = dict(extra or {})
        self.prompt_cache = prompt_cache
        self._placeholder: bool | None = None

    @property
    def prompt_cache(self) -> bool:
        return self._markers is not None or not cache_markers(self.model)

    @prompt_cache.setter
    def prompt_cache(self, on: bool) -> None:
        """The system prompt is the long prefix every call of this judge repeats: marked for
        the provider's cache where it needs a marker (only the system breakpoint: the rest of
        a judge prompt differs from call to call)."""
        markers = cache_markers(self.model) if on else None
        self._markers = markers[:1] if markers else None

    def __repr__(self) -> str:  # never shows the key
        return f"LiteLLMJudge(name={self.name!r}, model={self.model!r}, api_base={self.api_base!r})"

    def key_hint(self) -> str:
        """Which environment variable holds (or should hold) this judge's key, in words."""
        if self.api_key_env:
            state = "is set but was rejected" if key_is_set(self.api_key_env) else "is not set (or empty)"
            return f"{self.api_key_env} {state}"
        if self._api_key:
            return "the api_key in the judge config was rejected"
        return env_key_hint(self.model, placeholder_sent=bool(self.api_base) and self._needs_placeholder_key())

    def _kwargs(self, messages: list[dict[str, str]], json_mode: bool, temperature: float | None,
                schema: tuple[str, dict[str, Any]] | None = None) -> dict:
        kwargs: dict[str, Any] = {**self.extra, "model": self.model, "messages": messages,
                                  "timeout": self.timeout, "max_retries": 0}
        if self._markers:
            kwargs["cache_control_injection_points"] = self._markers
        if json_mode:
            kwargs["response_format"] = json_format(self.model, schema)
        if temperature is not None:
            kwargs["temperature"] = temperature
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        elif self.api_base and self._needs_placeholder_key():
            kwargs["api_key"] = PLACEHOLDER_KEY  # a local judge server, as for the model under test
        return kwargs

    def _needs_placeholder_key(self) -> bool:
        if self._placeholder is None:
            self._placeholder = needs_placeholder_key(self.model)
        return self._placeholder

    def _key_missing(self) -> bool:
        """No key can reach the provider: none given, none in the environment, no local endpoint."""
        return not self._api_key and not self.api_base and "api_key" not in self.extra \
            and self._needs_placeholder_key()

    async def call(self, messages: list[dict[str, str]], parse: Callable[[str | None], Any], *,
                   limiter: asyncio.Semaphore | None = None,
                   schema: tuple[str, dict[str, Any]] | None = None) -> CallOutcome:
        """Send ``messages`` under the SPEC §5.3 call policy until ``parse`` accepts a reply.

        ``parse`` raises :class:`UnparseableReply` on a reply it cannot use (retried like a 5xx).
        Shared by the rubric judge and the arena judge, so both have the same retries, JSON mode,
        temperature, limits and accounting. ``schema``: the reply's (name, JSON schema), for routes
        whose JSON mode needs one (default: the rubric verdicts').
        """
        litellm = get_litellm()
        json_mode, temperature = self.json_mode, self.temperature
        dropped: list[str] = []
        attempts: list[dict[str, Any]] = []
        prompt_tokens = completion_tokens = cache_read = cache_write = 0
        cost: float | None = 0.0
        retries = 0
        raw: str | None = None
        started = time.monotonic()
        error: str | None = None
        parsed = None
        last_exc: BaseException | None = None  # the failure being retried (its Retry-After is honoured)
        down = False  # the endpoint could not be reached at all

        while True:
            t0 = time.monotonic()
            outcome: dict[str, Any] = {"attempt": len(attempts) + 1}
            reach = None  # this attempt's "cannot reach ..." line, when it never connected
            try:
                async with (limiter if limiter is not None else contextlib.nullcontext()):
                    async with slot(self.model, self.api_base) as place:
                        try:
                            response = await asyncio.wait_for(
                                litellm.acompletion(**self._kwargs(messages, json_mode, temperature, schema)),
                                timeout=self.timeout + 5.0)
                        except Exception as exc:  # noqa: BLE001  reported to the limiter, handled below
                            place.failed(exc)
                            raise
                        place.ok()
            except Exception as exc:  # noqa: BLE001  every provider failure is data here
                last_exc = exc
                status = _status(exc)
                # describe: one line with the provider's own error body (any shape) and 529 named overloaded
                message = "timeout" if isinstance(exc, asyncio.TimeoutError) else \
                    redact(describe(exc), [self._api_key or ""])
                error = (message or "")[:2000]
                outcome.update(status=status, error=error, latency_s=round(time.monotonic() - t0, 4))
                attempts.append(outcome)
                verdict = classify(exc, key_missing=self._key_missing())
                reach = unreachable_message(exc, model=self.model, api_base=self.api_base)
                if reach is not None and verdict != "auth":
                    error = outcome["error"] = reach[:2000]
                if verdict == "unreachable" and retries >= retries_allowed(verdict, self.max_retries):
                    down = True
                    break  # refused or unresolvable: it will not answer in the next minute either
                if verdict == "auth":
                    error = f"authentication failed for {self.model} ({self.key_hint()}): {error}"
                    outcome["error"] = error
                    break  # a missing or rejected key: ten more calls would fail the same way
                if verdict == "quota":
                    error = outcome["error"] = f"{QUOTA_PREFIX} {self.model}: {error}"
                    down = True  # every later trial's judging would fail alike: the run stops
                    break
                if verdict == "fail":
                    low = error.lower()
                    if status not in (400, 422):
                        break  # unknown model, bad route: retrying cannot fix it
                    if temperature is not None and "temperature" in low and "temperature" not in dropped:
                        temperature = None
                        dropped.append("temperature")
                        continue
                    if json_mode and "json_mode" not in dropped:
                        json_mode = False
                        dropped.append("json_mode")
                        continue
                    break  # a client error that retrying cannot fix
            else:
                (p_tok, c_tok), bad_usage = reply_usage(response)
                c_read, c_write = cache_usage(response)
                prompt_tokens += p_tok
                completion_tokens += c_tok
                cache_read += c_read
                cache_write += c_write
                # a cost priced from counts we could not trust is unknown, never negative
                this_cost = None if bad_usage else valid_cost(call_cost(self.model, response, p_tok, c_tok))
                cost = None if cost is None or this_cost is None else cost + this_cost
                if bad_usage:
                    outcome["bad_usage"] = bad_usage
                try:
                    raw = response.choices[0].message.content
                except (AttributeError, IndexError, TypeError):
                    raw = None
                outcome.update(status=200, latency_s=round(time.monotonic() - t0, 4),
                               prompt_tokens=p_tok, completion_tokens=c_tok, cache_read_tokens=c_read,
                               cache_write_tokens=c_write)
                try:
                    parsed = parse(raw)
                except UnparseableReply as exc:
                    error = f"unparseable reply: {exc}"
                    outcome["error"] = error
                    attempts.append(outcome)
                else:
                    attempts.append(outcome)
                    error = None
                    break
            if retries >= self.max_retries:
                down = down or reach is not None
                break
            retries += 1
            await asyncio.sleep(retry_delay(retries, last_exc))
            last_exc = None

        return CallOutcome(parsed=parsed, raw=raw, error=error, attempts=attempts, dropped=dropped,
                           prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                           cache_read_tokens=cache_read, cache_write_tokens=cache_write, cost_usd=cost,
                           latency_s=time.monotonic() - started, unreachable=down)

    async def grade(self, task: Any, view: str, doc: Any = None, *, cache: JudgeCache | None = None,
                    audit: AuditLog | None = None, limiter: asyncio.Semaphore | None = None,
                    trial: int | None = None, model_under_test: str | None = None) -> JudgeResult:
        rubric_ids = [str(r.id) for r in task.rubrics]
        messages = judge_messages(task, view)
        key = cache_key(self.model, messages, PROMPT_VERSION, endpoint=self.api_base)
        audit_base = {"judge": self.name, "model": self.model, "task_id": getattr(task, "task_id", None),
                      "trial": trial, "model_under_test": model_under_test, "prompt_version": PROMPT_VERSION}
        if audit is not None:
            audit.add_secret(self._api_key)

        if cache is not None:
            hit = cache.get(key)
            if hit is not None and set(hit["verdicts"]) == set(rubric_ids) and _answers_some(hit, rubric_ids):
                result = JudgeResult(
                    judge=self.name, ok=True, verdicts=dict(hit["verdicts"]),
                    justifications=dict(hit.get("justifications", {})), missing=list(hit.get("missing", [])),
                    invalid=list(hit.get("invalid", [])), near_misses=dict(hit.get("near_misses") or {}),
                    repaired=list(hit.get("repaired") or []), attempts=0, cached=True, cost_usd=0.0,
                    raw=hit.get("raw"))
                if audit is not None:
                    audit.write({**audit_base, "cached": True, "ok": True, "attempts": 0, "latency_s": 0.0,
                                 "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0,
                                 "raw": result.raw, "error": None, "near_misses": result.near_misses,
                                 "json_repaired": result.repaired})
                return result

        out = await self.call(messages, lambda raw: parse_verdicts(raw, rubric_ids), limiter=limiter)
        parsed, raw, error, attempts, dropped = out.parsed, out.raw, out.error, out.attempts, out.dropped
        prompt_tokens, completion_tokens, cost = out.prompt_tokens, out.completion_tokens, out.cost_usd
        cache_read, cache_write, down = out.cache_read_tokens, out.cache_write_tokens, out.unreachable
        latency = out.latency_s
        raw_kept = raw[:RAW_LIMIT] if isinstance(raw, str) else None
        if parsed is not None:
            result = JudgeResult(
                judge=self.name, ok=True, verdicts=parsed.verdicts, justifications=parsed.justifications,
                missing=parsed.missing, invalid=parsed.invalid, near_misses=parsed.near_misses,
                repaired=parsed.repaired, attempts=len(attempts), latency_s=latency,
                prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cost_usd=cost, raw=raw_kept,
                cache_read_tokens=cache_read, cache_write_tokens=cache_write)
            if cache is not None:
                cache.put(key, {"verdicts": parsed.verdicts, "justifications": parsed.justifications,
                                "missing": parsed.missing, "invalid": parsed.invalid, "raw": raw_kept,
                                "near_misses": parsed.near_misses, "repaired": parsed.repaired,
                                "model": self.model, "prompt_version": PROMPT_VERSION})
        else:
            result = JudgeResult(
                judge=self.name, ok=False, error=f"no verdicts after {len(attempts)} attempt(s): {error}",
                attempts=len(attempts), latency_s=latency, prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens, cost_usd=cost, raw=raw_kept,
                cache_read_tokens=cache_read, cache_write_tokens=cache_write, unreachable=down)
        if audit is not None:
            audit.write({**audit_base, "cached": False, "ok": result.ok, "attempts": attempts,
                         "n_attempts": len(attempts), "dropped_params": dropped, "latency_s": round(latency, 4),
                         "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                         "cache_read_tokens": cache_read, "cache_write_tokens": cache_write,
                         "cost_usd": cost, "missing": result.missing, "raw": raw_kept, "error": result.error,
                         "near_misses": result.near_misses, "json_repaired": result.repaired})
        return result


#: The reply's shape as a JSON schema: litellm's Anthropic route has no schema-less JSON mode
#: (``{"type": "json_object"}`` is dropped there without a word), but turns a schema into
#: Anthropic's structured output (or a forced tool), so that route gets the schema.
VERDICTS_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["verdicts"],
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object", "additionalProperties": False, "required": ["rubric_id", "verdict", "justification"],
        "properties": {"rubric_id": {"type": "string"}, "verdict": {"type": "string", "enum": ["PASS", "FAIL"]},
                       "justification": {"type": "string"}}}}},
}
_SCHEMA_PROVIDERS = frozenset({"anthropic"})


def json_format(model: str, schema: tuple[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``response_format`` that turns JSON mode on for this model's route (``schema``: the reply's
    name and JSON schema where the route needs one; the rubric verdicts' by default)."""
    if model.partition("/")[0] in _SCHEMA_PROVIDERS:
        name, body = schema or ("verdicts", VERDICTS_SCHEMA)
        return {"type": "json_schema", "json_schema": {"name": name, "schema": body}}
    return {"type": "json_object"}


#: How a judge's error line says its account is out of credit or quota (the runner stops on it at once).
QUOTA_PREFIX = "out of credit or quota for"


@judge("litellm")
def litellm_judge(model: str, **options: Any) -> LiteLLMJudge:
    return LiteLLMJudge(model, **options)
