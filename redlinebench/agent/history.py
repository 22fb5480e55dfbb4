"""The assistant turn as the provider sent it, and as it can be sent back.

Two copies of every reply: the *raw* one (what the model really sent, for the transcript) and the
*replayed* one (what the next request carries). They differ only where replaying the raw reply
would make the provider reject every later request:

- provider state is kept on both exactly: Anthropic ``thinking`` / ``redacted_thinking`` blocks
  with their signatures (litellm's ``thinking_blocks``), DeepSeek's ``reasoning_content``,
  Gemini's thought signatures on tool calls (``provider_specific_fields`` / ``extra_content``),
  and any field litellm passes through that we do not rebuild ourselves (a message field litellm
  has no name for, which it files under ``provider_specific_fields``, goes back to the top level
  where the provider sent it). Thinking providers answer 400 when it is missing on the next call;
- a tool call whose arguments do not parse (cut off at the output limit, or just broken) is
  replayed with arguments that parse (vLLM answers 400 "Unterminated string" to every later
  request otherwise), and its tool result says what happened;
- a tool-call id already used in the episode (vLLM and some proxies reuse ``call_0``) is replayed
  under a fresh id (400 "Duplicate value for 'tool_call_id'" otherwise); a call that repeats an
  earlier call of the same reply exactly (same id, name and arguments) is not run twice.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .._text import encodable

#: Message keys rebuilt here; every other non-empty key litellm exposes is provider state, kept.
_REBUILT = frozenset({"role", "content", "tool_calls", "function_call"})
#: Where litellm keeps the message fields it has no name for (lifted back to the top level).
_WRAPPED = "provider_specific_fields"
#: Tool-call keys rebuilt here (``index`` is a streaming position, not part of the call).
_CALL_REBUILT = frozenset({"id", "type", "function", "index"})
#: How much of unparsable arguments the replayed call keeps (the transcript keeps them whole).
_ARGS_HEAD = 600
#: The key replayed arguments carry when the model's did not parse.
UNPARSABLE_KEY = "unparsable_arguments"


def _plain(obj: Any) -> dict[str, Any]:
    """A provider object (litellm's pydantic Message / tool call, or a dict) as a plain dict."""
    if isinstance(obj, dict):
        return {k: v for k, v in obj.items() if v is not None}
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            data = dump(exclude_none=True)
        except Exception:  # noqa: BLE001  a malformed reply: fall back to the attributes
            data = None
        if isinstance(data, dict):
            return data
    return {k: v for k, v in vars(obj).items() if not k.startswith("_") and v is not None} \
        if hasattr(obj, "__dict__") else {}


def _json_safe(value: Any) -> Any:
    """``value`` if it survives a JSON round trip (it must be sent back), else its text."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


def assistant_message(response: Any) -> dict[str, Any]:
    """The reply's assistant message as a plain dict: content, tool calls, and every piece of
    provider state litellm exposes on it, exactly as received (see the module docstring)."""
    msg = response.choices[0].message
    data = _plain(msg)
    content = data.get("content")
    if isinstance(content, list):  # content parts: keep the text ones
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict)) or None
    out: dict[str, Any] = {"role": "assistant", "content": encodable(content) if isinstance(content, str) else None}
    for key, value in data.items():
        if key not in _REBUILT and key != _WRAPPED and value not in (None, [], {}):
            out[key] = _json_safe(value)
    # litellm files a field it has no name for under provider_specific_fields; the provider wants it
    # back where it sent it (OpenRouter's reasoning_details, ...), so it goes back to the top level
    wrapped = data.get(_WRAPPED)
    for key, value in (wrapped.items() if isinstance(wrapped, dict) else ()):
        if key not in out and key not in _REBUILT and value not in (None, [], {}):
            out[key] = _json_safe(value)
    calls = []
    for i, call in enumerate(data.get("tool_calls") or []):
        raw = _plain(call)
        fn = raw.get("function")
        fn = _plain(fn) if fn is not None else {}
        name = fn.get("name") or ""
        args = fn.get("arguments")
        if not isinstance(args, str):
            args = json.dumps(args) if args is not None else "{}"
        entry: dict[str, Any] = {"id": encodable(str(raw.get("id") or f"call_{i}")), "type": "function",
                                 "function": {"name": encodable(str(name)), "arguments": encodable(args)}}
        for key, value in fn.items():  # e.g. a thought signature litellm put on the function
            if key not in ("name", "arguments") and value not in (None, [], {}):
                entry["function"][key] = _json_safe(value)
        for key, value in raw.items():
            if key not in _CALL_REBUILT and value not in (None, [], {}):
                entry[key] = _json_safe(value)
        calls.append(entry)
    if calls:
        out["tool_calls"] = calls
    return out


@dataclass(frozen=True)
class Fault:
    """What was wrong with one tool call: ``kind`` (``truncated``, ``unparsable``, ``repeated``,
    ``renamed``), the id the model sent, and the id replayed for it."""

    kind: str
    sent_id: str
    replayed_id: str

    @property
    def runs(self) -> bool:
        """Whether the call is run: a cut-off call cannot be meant as it stands, a repeat ran once."""
        return self.kind in ("unparsable", "renamed")


def _parses(args: str) -> bool:
    try:
        return isinstance(json.loads(args), dict)
    except (ValueError, RecursionError):
        return False


def _fresh_id(base: str, seen: set[str]) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]", "", base)[:40] or "call"  # Anthropic ids: [A-Za-z0-9_-]+
    n = 2
    while f"{stem}_r{n}" in seen:
        n += 1
    return f"{stem}_r{n}"


def replayable(raw: dict[str, Any], finish_reason: str | None, seen_ids: set[str]) -> tuple[dict[str, Any],
                                                                                                dict[int, Fault]]:
    """The message to replay for ``raw`` and the faults of its tool calls, by position.

    ``seen_ids``: the tool-call ids already replayed in this episode (updated here). ``raw`` is not
    changed; when nothing needs changing the same dict is returned. Blank arguments are replayed
    as ``{}`` (what the tools read them as) without a fault.
    """
    calls = raw.get("tool_calls") or []
    faults: dict[int, Fault] = {}
    new_calls = []
    this_reply: dict[str, tuple[str, str]] = {}  # id -> (name, arguments) of this reply's calls
    changed = False
    for i, call in enumerate(calls):
        cid, fn = call["id"], call["function"]
        args = fn["arguments"]
        kind = None
        if not args.strip():  # no arguments at all (Ollama, some vLLM parsers): the tools read {}
            call = {**call, "function": {**fn, "arguments": "{}"}}
            changed = True
        elif not _parses(args) or (finish_reason == "length" and i == len(calls) - 1):
            # the last call of a reply cut at the output limit is cut too, even if what arrived parses
            # (a route that hands over a parsed prefix): running half a batch is not what was meant
            kind = "truncated" if finish_reason == "length" else "unparsable"
            if not _parses(args):
                head = args[:_ARGS_HEAD] + ("..." if len(args) > _ARGS_HEAD else "")
                call = {**call, "function": {**fn, "arguments": json.dumps({UNPARSABLE_KEY: head},
                                                                           ensure_ascii=False)}}
        new_id = cid
        if cid in seen_ids:
            new_id = _fresh_id(cid, seen_ids)
            call = {**call, "id": new_id}
            if this_reply.get(cid) == (fn["name"], args) and kind is None:
                kind = "repeated"
            kind = kind or "renamed"
        seen_ids.add(new_id)
        this_reply.setdefault(cid, (fn["name"], args))
        if kind is not None:
            faults[i] = Fault(kind, cid, new_id)
        new_calls.append(call)
    if not faults and not changed:
        return raw, faults
    return {**raw, "tool_calls": new_calls}, faults


#: How a strict server says it does not take a field: "property 'x' is unsupported", "Extra inputs
#: are not permitted", "Unrecognized request argument", "Additional properties are not allowed".
_REFUSING = re.compile(r"unsupported|not supported|not permitted|not allowed|unrecognized|unknown (?:field|"
                       r"parameter|property|key)|unexpected|extra (?:inputs|fields)", re.IGNORECASE)


def refused_state(exc: BaseException, messages: list[dict[str, Any]], dropped: set[str]) -> str | None:
    """A provider-state field of the history that a 400 names (a strict OpenAI-compatible server
    answering "property 'reasoning_content' is unsupported"), not yet dropped; else ``None``."""
    from .._retry import body_messages, status_of

    if status_of(exc) not in (400, 422):
        return None
    text = f"{exc} {' '.join(body_messages(exc))}"
    if not _REFUSING.search(text):  # "must be passed back" asks for more state, not less
        return None
    keys = {k for m in messages if m.get("role") == "assistant" for k in m if k not in _REBUILT}
    for key in sorted(keys - dropped):
        if re.search(rf"\b{re.escape(key)}\b", text):
            return key
    return None


def without_state(messages: list[dict[str, Any]], fields: set[str]) -> None:
    """Leave ``fields`` out of every assistant message of the history (in place, new dicts)."""
    for i, m in enumerate(messages):
        if m.get("role") == "assistant" and fields.intersection(m):
            messages[i] = {k: v for k, v in m.items() if k not in fields}


def fault_result(fault: Fault, name: str, max_output_tokens: int | None) -> dict[str, str]:
    """The tool error a call that is not run gets: what happened, and what to do instead."""
    if fault.kind == "truncated":
        limit = f" ({max_output_tokens} tokens)" if max_output_tokens else ""
        return {"error": "call_cut_off",
                "message": f"your call to {name[:80]} was cut off at the output limit{limit} before its arguments "
                           "were complete, so it was not run: send a shorter batch (fewer or shorter edits per "
                           "call)"}
    return {"error": "repeated_call",
            "message": f"this call repeats call {fault.sent_id[:80]} of the same reply (same id, name and "
                       "arguments); it was run once, not twice"}


#: A tool call written as text: a JSON object naming one of the tools, or a tool-call tag.
_TEXT_CALL = re.compile(r'<tool_call>|<\|tool_call|\[TOOL_CALLS\]|"(?:name|function)"\s*:\s*"(\w+)"')


def tool_calls_in_text(content: Any, tool_names: set[str]) -> bool:
    """Whether a reply without tool calls wrote one as text instead (a server without a tool
    parser, a model that ignores the tools API): the episode ends, and its status says why."""
    if not isinstance(content, str) or not content:
        return False
    for m in _TEXT_CALL.finditer(content):
        if m.group(1) is None or m.group(1) in tool_names:
            return True
    return False


def refusal(message: dict[str, Any], finish_reason: str | None) -> dict[str, Any] | None:
    """``{"reason", "text"}`` when the provider says the model refused (OpenAI's ``refusal`` field,
    a ``content_filter`` / ``refusal`` finish reason), else ``None``."""
    text = message.get("refusal")
    if isinstance(text, str) and text:
        return {"reason": "refusal", "text": text[:2000]}
    if finish_reason in ("content_filter", "refusal"):
        content = message.get("content")
        return {"reason": finish_reason, "text": content[:2000] if isinstance(content, str) else ""}
    return None
