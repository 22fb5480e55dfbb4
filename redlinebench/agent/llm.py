"""The LLM agent: a litellm tool-calling loop over the five document tools.

One episode: system prompt (brief + grounding + tool guide), a kick-off message, then
model call -> tool calls -> tool results until the model stops calling tools, calls
``end_session``, or a budget runs out. The document is saved whatever ends the episode, so a
budget-limited redline is still graded as it stands.
"""

from __future__ import annotations

import asyncio
import json
import time
from functools import partial
from pathlib import Path
from typing import Any, Callable, Protocol

from .base import AUTH_FAILED, PARTIAL_REDLINE, QUOTA_EXHAUSTED, REDLINE, TRANSCRIPT, UNREACHABLE, Episode, agent
from .resume import RESUME_DIR, continuation
from .._retry import backoff, unreachable_message
from .._litellm import cache_markers, cache_usage, reasoning_usage, reply_usage, valid_cost
from .._text import encodable
from ..tools import tool_message
from .history import (assistant_message, fault_result, refusal, refused_state, replayable, tool_calls_in_text,
                      without_state)
from .credentials import PLACEHOLDER_KEY, env_key_hint, is_auth_failure, needs_placeholder_key
from .limits import AgentLimits
from .prompt import EMPTY_TURN_NUDGE, PROMPT_VERSION, kickoff_message, system_prompt
from .redact import redact
from .retry import call_with_retries, classify, describe, is_provider_error
from .transcript import Transcript

#: Tools whose successful call changes the document (an errored episode then keeps a partial redline).
_CHANGING_TOOLS = frozenset({"propose_edits", "add_comment", "mark_reserved"})

#: The ``tool_calls`` key of metrics.json for calls naming no tool of the five (misspelt, empty, made up).
UNKNOWN_TOOL = "(unknown tool)"

# Sent when set, dropped for the rest of the run if a provider answers 400 naming them.
_OPTIONAL_PARAMS = ("max_tokens", "seed", "temperature", "tool_choice")
_CHARS_PER_TOKEN = 4  # rough estimate used only to decide when to shorten old messages
_SHORT_KEEP = 600
#: Once the prompt is over its budget, shorten it down to this share of the budget, not just under
#: it: shortening rewrites early messages, which breaks the provider's prompt cache from there on,
#: so it must happen rarely and in large steps (here: after ~40% of the budget has been added).
_SHORTEN_TO = 0.6
_ARGS_KEY = "shortened_arguments"
_ARGS_MARK = f'{{"{_ARGS_KEY}"'  # how shortened arguments start (json.dumps puts the key first)


class ToolBackend(Protocol):
    """The document side of an episode: the five tools over one open document."""

    schemas: list[dict]
    finished: bool
    stats: dict

    def dispatch(self, name: str, arguments: Any) -> dict: ...
    def save(self, path: Path) -> None: ...


class _DocumentTools:
    """The real backend: ``redlinebench.tools.ToolSession`` over the task's contract."""

    def __init__(self, task: Any, out_path: Path) -> None:
        from ..docx import RedlineDocument
        from ..tools import ToolSession

        self.doc = RedlineDocument.open(task.contract_path, name=f"{task.task_id}/contract.docx")
        self.session = ToolSession(self.doc, task.author, output_path=out_path)
        self.schemas = getattr(self.session, "schemas", None) or _default_schemas()

    @property
    def finished(self) -> bool:
        return bool(self.session.finished)

    @property
    def stats(self) -> dict:
        return dict(getattr(self.session, "stats", {}) or {})

    def dispatch(self, name: str, arguments: Any) -> dict:
        return self.session.dispatch(name, arguments)

    def save(self, path: Path) -> None:
        self.doc.save(path)


def _default_schemas() -> list[dict]:
    from ..tools import TOOL_SCHEMAS

    return list(TOOL_SCHEMAS)


def open_document_tools(task: Any, out_path: Path) -> ToolBackend:
    return _DocumentTools(task, out_path)


class ProviderFailure(Exception):
    """The provider failed after all retries (or refused the request outright). ``end_reason``:
    ``provider_error``, ``endpoint_unreachable`` when no connection could be made, ``auth_failed``
    or ``quota_exhausted`` (the run stops: every other episode would fail alike)."""

    def __init__(self, message: str, end_reason: str = "provider_error") -> None:
        super().__init__(message)
        self.end_reason = end_reason


@agent("llm")
class LLMAgent:
    name = "llm"

    def __init__(
        self,
        model: str,
        *,
        limits: AgentLimits | None = None,
        api_base: str | None = None,
        seed: int | None = None,
        extra_params: dict[str, Any] | None = None,
        backend: Callable[[Any, Path], "ToolBackend"] | None = None,
        prompt_cache: bool = True,
        **_: Any,
    ) -> None:
        if not model:
            from ..errors import ConfigError

            raise ConfigError("the llm agent needs --model (a litellm model string, e.g. openai/gpt-5.4-mini)")
        self.model = model
        self.label = model
        self.limits = limits or AgentLimits()
        self.api_base = api_base
        self.seed = seed
        self.extra_params = dict(extra_params or {})
        self.backend = backend or open_document_tools
        #: Prompt caching: cache markers for providers that need them (Anthropic-style); the
        #: prefix is kept byte-stable for every provider either way (automatic caches).
        self.prompt_cache = bool(prompt_cache)
        self._markers = cache_markers(model) if self.prompt_cache else None
        self._placeholder: bool | None = None
        self._dropped: set[str] = set()
        #: provider-state fields a server refused to take back (400 naming them): left out from then on
        self._dropped_state: set[str] = set()

    # -- one model call --------------------------------------------------------------------
    def _params(self, messages: list[dict], tools: list[dict]) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "tools": tools,
            "tool_choice": "auto",
            "timeout": self.limits.call_timeout_s,
            "num_retries": 0,  # retries are ours, so they are counted and logged
        }
        if self.api_base:
            params["api_base"] = self.api_base
            if self._needs_placeholder_key():
                params["api_key"] = PLACEHOLDER_KEY
        if self.limits.max_output_tokens:
            params["max_tokens"] = self.limits.max_output_tokens
        if self.limits.temperature is not None:
            params["temperature"] = self.limits.temperature
        if self.seed is not None:
            params["seed"] = self.seed
        effort = self.limits.reasoning_for(self.model)
        if isinstance(effort, int):  # a thinking budget: Anthropic-style, as litellm passes it
            params["thinking"] = {"type": "enabled", "budget_tokens": effort}
        elif effort is not None:
            params["reasoning_effort"] = effort
        if self._markers:
            params["cache_control_injection_points"] = self._markers
        params.update(self.extra_params)
        for name in self._dropped:
            params.pop(name, None)
        return params

    def _droppable(self, exc: BaseException) -> str | None:
        """An optional parameter a provider refused (a 400 naming it), to be left out from now on."""
        from .retry import status_of

        if status_of(exc) != 400:
            return None
        text = str(exc).lower()
        for name in _OPTIONAL_PARAMS:
            if name not in self._dropped and name in text:
                return name
        return None

    def _needs_placeholder_key(self) -> bool:
        if self._placeholder is None:
            self._placeholder = needs_placeholder_key(self.model)
        return self._placeholder

    def _key_missing(self) -> bool:
        """No key can reach the provider: none in the environment or the call, no local endpoint."""
        return not self.api_base and "api_key" not in self.extra_params and self._needs_placeholder_key()

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        litellm = _litellm()
        limits = self.limits
        out_path = workdir / REDLINE
        stats = _Stats(limits.context_tokens)
        cont, why_not = continuation(workdir, model=self.model, prompt_version=PROMPT_VERSION,
                                     context_tokens=limits.context_tokens, shorten=partial(_shorten, limits=limits))
        seen_ids: set[str] = set()  # tool-call ids replayed so far: each must be unique
        nudged = False
        if cont is not None:
            try:
                session = self.backend(_on_document(task, cont.partial), out_path)
            except Exception as exc:  # noqa: BLE001  a partial that does not open: start over, saying why
                cont, why_not = None, f"the partial redline does not open ({type(exc).__name__}: {exc})"[:300]
        with Transcript(workdir / TRANSCRIPT) as log:
            if cont is not None:  # the previous attempt's events first: one transcript tells the whole trial
                for line in cont.lines:
                    if json.loads(line).get("type") != "end":
                        log.write_line(line)
                messages = cont.messages
                stats.resume(cont)
                seen_ids, nudged = set(cont.seen_ids), cont.nudged
                self._dropped_state |= cont.dropped_state
                resumed: dict[str, Any] = {"continued": True, "from_step": cont.steps}
                log.write({"type": "resume", **resumed, "document": f"{RESUME_DIR}/{PARTIAL_REDLINE}"})
            else:
                session = self.backend(task, out_path)
                messages = [
                    {"role": "system", "content": system_prompt(task)},
                    {"role": "user", "content": kickoff_message(task)},
                ]
            schemas = session.schemas
            if cont is None:
                log.write({"type": "start", "task_id": task.task_id, "model": self.model, "trial": trial,
                           "prompt_version": PROMPT_VERSION, "limits": limits.to_dict(), "messages": messages,
                           "tools": [t["function"]["name"] for t in schemas]})
                resumed = {"continued": False, "reason": why_not} if why_not else {}
                if resumed:
                    log.write({"type": "resume", **resumed})
            status, end_reason, error = "completed", "", None
            while True:
                if stats.steps >= limits.max_steps:
                    status, end_reason = "limit_reached", "max_steps"
                    break
                shortened = _shorten(messages, limits, budget_tokens=stats.context_budget)
                if shortened:
                    log.write({"type": "shorten", "step": stats.steps + 1, **shortened})
                try:
                    response, latency = await self._complete(litellm, messages, schemas, log, stats)
                except ProviderFailure as exc:
                    status, end_reason, error = "errored", exc.end_reason, str(exc)
                    log.write({"type": "error", "step": stats.steps + 1, "error": error})
                    break
                stats.steps += 1
                usage, bad_usage = reply_usage(response)
                if bad_usage is None and usage == (0, 0):  # no usage sent: a prompt is never 0 tokens
                    bad_usage = {"prompt_tokens": "missing", "completion_tokens": "missing"}
                # A cost priced from counts we could not trust is not a cost: unknown, not negative.
                cost = None if bad_usage else _cost(litellm, response)
                if bad_usage and not stats.bad_usage_noted:
                    stats.bad_usage_noted = True
                    log.write({"type": "bad_usage", "step": stats.steps, "usage": bad_usage,
                               "note": "the provider reported no token counts, or counts that are not non-negative "
                                       "integers; they were counted as 0 and this call's cost as unknown (noted once "
                                       "per episode)"})
                cache_read, cache_write = cache_usage(response)
                reasoning = reasoning_usage(response)
                stats.add(usage, cost, latency, cache_read=cache_read, cache_write=cache_write, reasoning=reasoning)
                raw = assistant_message(response)
                finish = _finish_reason(response)
                # the history replays what the provider accepts back; the transcript keeps what was sent
                message, faults = replayable(raw, finish, seen_ids)
                event = {"type": "model", "step": stats.steps, "latency_s": round(latency, 4),
                         "tokens_in": usage[0], "tokens_out": usage[1], "reasoning_tokens": reasoning,
                         "cache_read_tokens": cache_read, "cache_write_tokens": cache_write, "cost_usd": cost,
                         "finish_reason": finish, "message": raw}
                if message is not raw:  # only its tool calls differ (history.replayable)
                    event["replayed_as"] = {"tool_calls": message["tool_calls"]}
                if self._dropped_state.intersection(message):
                    message = {k: v for k, v in message.items() if k not in self._dropped_state}
                messages.append(message)
                log.write(event)
                refused = refusal(raw, finish)
                if refused is not None:
                    stats.refusal = refused
                    log.write({"type": "refusal", "step": stats.steps, **refused})
                calls = message.get("tool_calls") or []
                if not calls:
                    if refused is not None:
                        end_reason = "refusal"
                    elif tool_calls_in_text(raw.get("content"), {t["function"]["name"] for t in schemas}):
                        end_reason = "tool_calls_as_text"
                        log.write({"type": "tool_calls_as_text", "step": stats.steps,
                                   "note": "the reply wrote a tool call as text instead of calling the tool (a "
                                           "server without a tool-call parser, or a model ignoring the tools API)"})
                    elif not nudged and _empty(raw) and len(messages) > 1 and messages[-2].get("role") == "tool":
                        nudged = True  # once: an empty turn after tool results is often a stall, not an answer
                        messages.pop()  # an empty assistant turn is not replayed (some providers reject it)
                        messages.append({"role": "user", "content": EMPTY_TURN_NUDGE})
                        log.write({"type": "nudge", "step": stats.steps, "reason": "empty_reply",
                                   "content": EMPTY_TURN_NUDGE})
                        continue
                    else:
                        end_reason = "no_tool_calls"
                    break
                cap = limits.max_tool_calls_per_step
                skipped = calls[cap:]
                if skipped:  # the history keeps the calls that run (the transcript has the whole reply)
                    message["tool_calls"] = calls = calls[:cap]
                sent = raw["tool_calls"]
                for i, call in enumerate(calls):
                    name = call["function"]["name"]
                    arguments = sent[i]["function"]["arguments"]  # what the model sent, not the replayed copy
                    fault = faults.get(i)
                    t0, c0 = time.perf_counter(), time.thread_time()
                    if fault is not None and not fault.runs:
                        result: dict = fault_result(fault, name, limits.max_output_tokens)
                    else:
                        result = session.dispatch(name, arguments)
                    stats.tool(name, result, time.perf_counter() - t0, time.thread_time() - c0)
                    content = tool_message(result)
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
                    tool_event = {"type": "tool", "step": stats.steps, "id": call["id"], "name": name,
                                  "arguments": arguments, "result": result}
                    if fault is not None:
                        stats.faults[fault.kind] = stats.faults.get(fault.kind, 0) + 1
                        tool_event["fault"] = {"kind": fault.kind, "id": fault.sent_id, "replayed_id": fault.replayed_id}
                    log.write(tool_event)
                if skipped:
                    _skip_calls(skipped, cap, messages, log, stats)
                if session.finished:
                    end_reason = "end_session"
                    break
                if limits.max_tokens is not None and stats.tokens_in + stats.tokens_out >= limits.max_tokens:
                    status, end_reason = "limit_reached", "max_tokens"
                    break
                if limits.max_cost_usd is not None and stats.cost >= limits.max_cost_usd:
                    status, end_reason = "limit_reached", "max_cost"
                    break
            if status != "errored" and not (session.finished and out_path.is_file()):
                session.save(out_path)  # end_session already saved it otherwise
            kept = None
            if status == "errored" and stats.changed:  # the work done so far is kept, not graded
                session.save(workdir / PARTIAL_REDLINE)
                kept = PARTIAL_REDLINE
            log.write({"type": "end", "status": status, "end_reason": end_reason, "steps": stats.steps})
        metrics = stats.metrics(session)
        metrics.update({"prompt_version": PROMPT_VERSION, "end_reason": end_reason,
                        "reasoning_effort": limits.reasoning_for(self.model),
                        **({"partial_redline": kept} if kept else {}), **({"resumed": resumed} if resumed else {}),
                        "prompt_cache": self.prompt_cache, "cache_markers": bool(self._markers),
                        "cost_uncached_usd": _uncached_cost(litellm, self.model, stats)})
        return Episode(status=status, end_reason=end_reason, metrics=metrics, error=error)

    async def _complete(self, litellm: Any, messages: list[dict], tools: list[dict],
                        log: Transcript, stats: "_Stats") -> tuple[Any, float]:
        limits = self.limits

        def on_retry(attempt: int, exc: BaseException, delay: float) -> None:
            stats.retries += 1
            log.write({"type": "retry", "step": stats.steps + 1, "attempt": attempt,
                       "error": unreachable_message(exc, model=self.model, api_base=self.api_base) or describe(exc),
                       "delay_s": round(delay, 3)})

        shrink_done = False
        empty_replies = 0
        started = [0.0]  # when the last attempt was sent: latency is the model's, not our retry waits

        async def attempt() -> Any:
            started[0] = time.perf_counter()
            return await litellm.acompletion(**self._params(list(messages), tools))

        while True:
            try:
                response = await call_with_retries(
                    attempt,
                    max_retries=limits.max_retries,
                    # litellm enforces the timeout itself; ours is a backstop for a stuck connection.
                    timeout_s=limits.call_timeout_s + 5.0,
                    on_retry=on_retry,
                    endpoint=(self.model, self.api_base),
                    key_missing=self._key_missing(),
                )
            except Exception as exc:
                if not is_provider_error(exc):
                    raise
                dropped = self._droppable(exc)
                if dropped:
                    self._dropped.add(dropped)
                    log.write({"type": "param_dropped", "step": stats.steps + 1, "param": dropped,
                               "error": describe(exc)})
                    continue
                refused = refused_state(exc, messages, self._dropped_state)
                if refused:  # a strict server that does not take this piece of state back: leave it out
                    self._dropped_state.add(refused)
                    without_state(messages, {refused})
                    log.write({"type": "state_dropped", "step": stats.steps + 1, "field": refused,
                               "error": describe(exc)})
                    continue
                if type(exc).__name__ == "ContextWindowExceededError" and not shrink_done:
                    # The provider's window is smaller than our budget: halve what we send, keep the
                    # smaller budget for the rest of the episode, and try once more.
                    shrink_done = True
                    stats.context_budget = max(1_000, min(stats.context_budget, _estimate_tokens(messages)) // 2)
                    info = _shorten(messages, limits, budget_tokens=stats.context_budget, keep_recent=1)
                    log.write({"type": "shorten", "step": stats.steps + 1, "reason": "context_window",
                               "budget_tokens": stats.context_budget, **info})
                    continue
                if is_auth_failure(exc, key_missing=self._key_missing()):
                    hint = env_key_hint(self.model, placeholder_sent=bool(self.api_base)
                                        and self._needs_placeholder_key())
                    raise ProviderFailure(f"authentication failed for {self.model} ({hint}): "
                                          f"{describe(exc)}", AUTH_FAILED) from None
                if classify(exc) == "quota":
                    raise ProviderFailure(f"out of credit or quota for {self.model} (add credit or raise the "
                                          f"limit, then `run --resume`): {describe(exc)}", QUOTA_EXHAUSTED) from None
                down = unreachable_message(exc, model=self.model, api_base=self.api_base)
                if down is not None:
                    raise ProviderFailure(down, UNREACHABLE) from None
                raise ProviderFailure(describe(exc)) from None
            latency = time.perf_counter() - started[0]
            if not getattr(response, "choices", None):  # a 200 with no answer in it: retry like a 5xx
                empty_replies += 1
                if empty_replies > limits.max_retries:
                    raise ProviderFailure("the provider kept returning replies without choices")
                delay = backoff(empty_replies)
                stats.retries += 1
                log.write({"type": "retry", "step": stats.steps + 1, "attempt": empty_replies,
                           "error": "a reply without choices", "delay_s": round(delay, 3)})
                await asyncio.sleep(delay)
                continue
            return response, latency


def _skip_calls(skipped: list[dict], cap: int, messages: list[dict], log: Transcript, stats: "_Stats") -> None:
    """Calls past the per-reply cap: not run, and told to the model in one message.

    They were dropped from the reply kept in the history, so no tool message has to answer each
    (20,000 such answers would themselves overflow the context); the transcript gets one event.
    """
    names: dict[str, int] = {}
    for call in skipped:
        name = call["function"]["name"][:80]
        names[name] = names.get(name, 0) + 1
    ranked = sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))
    listing = ", ".join(f"{n} x{c}" for n, c in ranked[:10])
    error = {"error": "too_many_tool_calls",
             "message": f"too many tool calls in one reply: at most {cap} are run per reply, and the other "
                        f"{len(skipped)} ({listing}) were not run. Send the ones still needed in later replies."}
    messages.append({"role": "user", "content": json.dumps(error)})
    stats.skipped += len(skipped)
    stats.tool_errors += len(skipped)
    top = dict(ranked[:20])
    log.write({"type": "tool_calls_skipped", "step": stats.steps, "limit": cap, "count": len(skipped),
               "first_call_id": skipped[0]["id"], "names": top, "result": error})


def _litellm() -> Any:
    from .._litellm import get_litellm

    return get_litellm()


def _on_document(task: Any, document: Path) -> Any:
    """``task`` with its contract replaced by ``document`` (a continued episode's partial redline)."""
    import dataclasses
    from types import SimpleNamespace

    if dataclasses.is_dataclass(task) and not isinstance(task, type):
        return dataclasses.replace(task, contract_path=document)
    return SimpleNamespace(**{**vars(task), "contract_path": document})


def _empty(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return not message.get("tool_calls") and not (isinstance(content, str) and content.strip())


def _finish_reason(response: Any) -> str | None:
    try:
        return response.choices[0].finish_reason
    except (AttributeError, IndexError):
        return None


def _cost(litellm: Any, response: Any) -> float | None:
    """Cost in USD from litellm's price table; ``None`` when the model's price is unknown.

    litellm already prices every response (``_hidden_params["response_cost"]``); pricing it again
    would double the per-call overhead, so the table is consulted directly only when that is absent.
    """
    hidden = getattr(response, "_hidden_params", None)
    if isinstance(hidden, dict) and "response_cost" in hidden:
        return valid_cost(hidden["response_cost"])
    try:
        value = litellm.completion_cost(completion_response=response)
    except Exception:
        return None
    return valid_cost(value)


def _uncached_cost(litellm: Any, model: str, stats: "_Stats") -> float | None:
    """What the episode's tokens would have cost with no prompt cache (every input token at the
    full rate): the figure the savings are read against. ``None`` when the model is not priced."""
    if not stats.cost_known:
        return None
    try:
        a, b = litellm.cost_per_token(model=model, prompt_tokens=stats.tokens_in, completion_tokens=stats.tokens_out)
    except Exception:  # noqa: BLE001  unpriced models raise many kinds
        return None
    return valid_cost(round(float(a) + float(b), 6))


def _message_chars(m: dict) -> int:
    """Characters one message adds to the prompt estimate (a tool call costs its arguments + 32,
    provider state its JSON)."""
    content = m.get("content")
    chars = len(content) if isinstance(content, str) else 0
    for call in m.get("tool_calls") or ():
        chars += len(call["function"]["arguments"]) + 32
    if len(m) > 3:  # provider state sent back (reasoning, thinking blocks) is prompt too
        chars += sum(len(json.dumps(v)) for k, v in m.items() if k not in ("role", "content", "tool_calls"))
    return chars


def _estimate_tokens(messages: list[dict]) -> int:
    return sum(_message_chars(m) for m in messages) // _CHARS_PER_TOKEN


def _long(text: Any) -> bool:
    return isinstance(text, str) and len(text) > _SHORT_KEEP + 200


def _shrink_tool(m: dict) -> tuple[dict, dict[str, int]] | None:
    content = m.get("content")
    if not _long(content) or content.startswith("[shortened"):
        return None
    return ({**m, "content": f"[shortened: an earlier tool output of {len(content)} characters; call "
                                f"read_document for the current text]\n{content[:_SHORT_KEEP]}..."},
            {"tool_outputs_shortened": 1})


def _shrink_reply(m: dict) -> tuple[dict, dict[str, int]] | None:
    """An assistant message with its long text and long tool-call arguments cut to a head.

    Every tool call keeps its id, type and name (the tool messages answering it stay valid); its
    arguments stay a JSON string, now an object saying it was shortened. History only: the call
    was already run with the full arguments.
    """
    done: dict[str, int] = {}
    out = dict(m)
    content = m.get("content")
    if _long(content) and not content.startswith("[shortened"):
        out["content"] = (f"[shortened: an earlier reply of {len(content)} characters]\n"
                          f"{content[:_SHORT_KEEP]}...")
        done["replies_shortened"] = 1
    calls = m.get("tool_calls") or []
    if any(_long(c["function"]["arguments"]) for c in calls):
        new_calls = []
        for call in calls:
            args = call["function"]["arguments"]
            if _long(args) and not args.startswith(_ARGS_MARK):
                short = json.dumps({_ARGS_KEY: f"the arguments of this earlier call were {len(args)} "
                                               f"characters; only their start is kept here",
                                    "head": args[:_SHORT_KEEP]}, ensure_ascii=False)
                if len(short) < len(args):
                    call = {**call, "function": {**call["function"], "arguments": short}}
                    done["arguments_shortened"] = done.get("arguments_shortened", 0) + 1
            new_calls.append(call)
        out["tool_calls"] = new_calls
    return (out, done) if done else None


def _shorten(messages: list[dict], limits: AgentLimits, *, budget_tokens: int | None = None,
             keep_recent: int | None = None) -> dict[str, int]:
    """Shrink old tool outputs, old replies and old tool-call arguments until the prompt fits.

    Nothing happens while the prompt is within its budget (the history stays byte-identical, so
    prompt caches hit); over it, messages are shrunk until the prompt is ``_SHORTEN_TO`` of the
    budget, so the next shortening is many steps away. Oldest first. The last ``keep`` tool outputs and the replies they answer are left intact;
    if the prompt still does not fit, long replies and arguments among those recent turns are cut
    too (a single huge reply would otherwise be re-sent until the provider refuses it), never the
    recent tool outputs. The estimate is kept as a running total: one pass, linear in the history.
    Returns what was done (empty when nothing was).
    """
    budget = budget_tokens if budget_tokens is not None else limits.context_tokens
    keep = limits.keep_recent_tool_outputs if keep_recent is None else keep_recent
    total = sum(_message_chars(m) for m in messages)
    if total // _CHARS_PER_TOKEN <= budget:
        return {}
    target = int(budget * _SHORTEN_TO)
    tool_idx = [i for i, m in enumerate(messages) if m.get("role") == "tool"]
    kept_tools = set(tool_idx[-keep:]) if keep else set()
    recent = min(kept_tools) if kept_tools else len(messages)
    # the reply that the oldest kept tool output answers starts the recent turns
    while recent > 0 and recent < len(messages) and messages[recent].get("role") != "assistant":
        recent -= 1
    done: dict[str, int] = {}
    n, saved = 0, 0

    def shrink(i: int, shrinker: Callable[[dict], tuple[dict, dict[str, int]] | None]) -> bool:
        nonlocal total, n, saved
        result = shrinker(messages[i])
        if result is not None:
            before = _message_chars(messages[i])
            messages[i], parts = result
            delta = before - _message_chars(messages[i])
            total -= delta
            saved += delta
            n += 1
            for key, value in parts.items():
                done[key] = done.get(key, 0) + value
        return total // _CHARS_PER_TOKEN <= target

    fits = False
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "tool" and i not in kept_tools:
            fits = shrink(i, _shrink_tool)
        elif role == "assistant" and i < recent:
            fits = shrink(i, _shrink_reply)
        if fits:
            break
    if not fits:
        for i in range(recent, len(messages)):
            if messages[i].get("role") == "assistant" and shrink(i, _shrink_reply):
                break
    return {"messages_shortened": n, "chars_saved": saved, **done} if n else {}


class _Stats:
    def __init__(self, context_budget: int) -> None:
        self.context_budget = context_budget
        self.steps = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.cache_read = 0
        self.cache_write = 0
        self.cost = 0.0
        self.cost_known = True
        self.bad_usage_noted = False
        self.latency = 0.0
        self.retries = 0
        self.tool_time = 0.0
        self.tool_cpu = 0.0
        self.calls: dict[str, int] = {}
        self.tool_errors = 0
        self.skipped = 0
        self.edits_ok = 0
        self.edits_failed = 0
        self.reasoning = 0
        self.faults: dict[str, int] = {}        # tool calls replayed or answered otherwise (history.Fault)
        self.refusal: dict[str, Any] | None = None
        self.changed = False                    # a change was applied to the document

    def resume(self, cont: Any) -> None:
        """Carry the previous attempt's figures (its calls were paid for) into this one."""
        self.steps, self.tokens_in, self.tokens_out = cont.steps, cont.tokens_in, cont.tokens_out
        self.reasoning, self.cost, self.cost_known = cont.reasoning, cont.cost, cont.cost_known
        self.context_budget = cont.budget or self.context_budget
        self.changed = True

    def add(self, usage: tuple[int, int], cost: float | None, latency: float, *, cache_read: int = 0,
            cache_write: int = 0, reasoning: int = 0) -> None:
        self.reasoning += reasoning
        self.tokens_in += usage[0]
        self.tokens_out += usage[1]
        self.cache_read += cache_read
        self.cache_write += cache_write
        if cost is None:
            self.cost_known = False
        else:
            self.cost += cost
        self.latency += latency

    def tool(self, name: str, result: dict, seconds: float, cpu_seconds: float) -> None:
        from ..tools import TOOL_NAMES

        # a name the model made up counts under one key: metrics.json stays bounded and readable
        key = name if name in TOOL_NAMES else UNKNOWN_TOOL
        self.calls[key] = self.calls.get(key, 0) + 1
        self.tool_time += seconds
        self.tool_cpu += cpu_seconds
        if isinstance(result, dict) and "error" in result:
            self.tool_errors += 1
        elif isinstance(result, dict) and name in _CHANGING_TOOLS and not isinstance(result.get("results"), list):
            self.changed = True
        for item in (result.get("results") if isinstance(result, dict) else None) or ():
            if isinstance(item, dict) and item.get("status") == "ok":
                self.edits_ok += 1
                self.changed = True
            elif isinstance(item, dict):
                self.edits_failed += 1

    def metrics(self, session: Any) -> dict[str, Any]:
        session_stats = dict(getattr(session, "stats", {}) or {})
        return {
            "steps": self.steps,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cache_read_tokens": self.cache_read,     # of tokens_in, served from the provider's cache
            "cache_write_tokens": self.cache_write,   # of tokens_in, written to it (marker providers)
            "reasoning_tokens": self.reasoning,       # of tokens_out, spent thinking (as the provider reports)
            "cost_usd": round(self.cost, 6),
            "cost_known": self.cost_known,
            "model_latency_s": round(self.latency, 4),
            "tool_time_s": round(self.tool_time, 4),
            "tool_cpu_s": round(self.tool_cpu, 4),
            "retries": self.retries,
            "tool_calls": dict(sorted(self.calls.items())),
            "tool_errors": self.tool_errors,
            "tool_calls_skipped": self.skipped,
            "edits_ok": session_stats.get("edits_ok", self.edits_ok),
            "edits_failed": session_stats.get("edits_failed", self.edits_failed),
            "comments_added": session_stats.get("comments_added"),
            "tool_internal_errors": session_stats.get("internal_errors", 0),
            "tool_call_faults": dict(sorted(self.faults.items())),
            "refusal": self.refusal,
        }


__all__ = ["LLMAgent", "ProviderFailure", "redact"]
