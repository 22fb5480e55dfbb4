"""A loopback OpenAI-compatible chat server for tests (and the Anthropic Messages API beside it).

Real HTTP on 127.0.0.1 (port 0), so litellm's real client code is exercised. Replies are
scripted: per-model queues, a default queue, or a handler function that sees the request.

Two wire formats on one server: ``/v1/chat/completions`` (OpenAI) and ``/v1/messages``
(Anthropic: ``anthropic/NAME`` with ``api_base=srv.base_url``). A handler always sees an
OpenAI-shaped body (an Anthropic request is translated), and a scripted :class:`Reply` is sent
in the route's own format (tool calls become ``tool_use`` blocks).

Options, off by default: ``srv.prompt_cache = PromptCache()`` makes usage report the request's
real token count and cached tokens as each provider does (see ``prompt_cache.py``);
``srv.bucket = TokenBucket(...)`` answers 429 beyond a rate (see ``token_bucket.py``);
``srv.rules = {...}`` rejects what real providers document they reject (:data:`RULES`): a
thinking model's history without its thinking blocks / ``reasoning_content`` / thought
signatures, a vLLM history with a repeated ``tool_call_id`` or arguments that do not parse.

    with FakeOpenAI() as srv:
        srv.enqueue(Reply.tool_calls([("read_document", {})]), Reply.text("done"), model="agent")
        litellm.completion(model="openai/agent", api_base=srv.url, api_key="sk-test", messages=[...])

Every request is recorded in ``srv.requests`` (path, JSON body, headers) so tests can assert
on what was sent (and that no secret leaked into a file).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ids = itertools.count(1)


@dataclass
class Reply:
    """One scripted answer. Build with the static constructors."""

    kind: str  # "message" | "error" | "garbage" | "hang"
    status: int = 200
    message: dict[str, Any] | None = None
    finish_reason: str = "stop"
    usage: tuple[int, int] = (100, 20)
    raw: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    wait_s: float = 0.0

    # -- constructors -------------------------------------------------------------------
    @staticmethod
    def text(content: str, *, usage: tuple[int, int] = (100, 20)) -> Reply:
        return Reply("message", message={"role": "assistant", "content": content}, usage=usage)

    @staticmethod
    def json(obj: Any, *, usage: tuple[int, int] = (100, 20)) -> Reply:
        return Reply.text(json.dumps(obj), usage=usage)

    @staticmethod
    def tool_calls(
        calls: Iterable[tuple[str, Mapping[str, Any] | str]],
        *,
        content: str | None = None,
        usage: tuple[int, int] = (100, 20),
        ids: Iterable[str] | None = None,
        finish_reason: str = "tool_calls",
        reasoning: str | None = None,
        thinking: Iterable[Mapping[str, Any]] | None = None,
        thought_signature: str | None = None,
        reasoning_tokens: int | None = None,
    ) -> Reply:
        """``calls`` are (name, arguments) pairs; a str argument is sent verbatim (malformed JSON tests).

        Provider state, as each provider sends it: ``reasoning`` (DeepSeek's ``reasoning_content``),
        ``thinking`` (Anthropic ``thinking`` / ``redacted_thinking`` blocks, sent first on the
        Messages route), ``thought_signature`` (Gemini's OpenAI-compatible endpoint, on each call's
        ``extra_content``). ``ids``: the call ids to send (repeated ids, as vLLM sends them)."""
        tool_calls = []
        given = iter(ids) if ids is not None else None
        for name, args in calls:
            call: dict[str, Any] = {
                "id": next(given) if given is not None else f"call_{next(_ids)}",
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            if thought_signature is not None:
                call["extra_content"] = {"google": {"thought_signature": thought_signature}}
            tool_calls.append(call)
        message: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": tool_calls}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        if thinking is not None:
            message["thinking"] = [dict(b) for b in thinking]
        if reasoning_tokens is not None:
            message["_reasoning_tokens"] = reasoning_tokens
        return Reply("message", message=message, finish_reason=finish_reason, usage=usage)

    @staticmethod
    def refusal(text: str) -> Reply:
        """OpenAI's refusal: ``content`` null, the reason in ``refusal``."""
        return Reply("message", message={"role": "assistant", "content": None, "refusal": text})

    @staticmethod
    def anthropic_error(status: int, kind: str, message: str, *, headers: Mapping[str, str] | None = None) -> Reply:
        """An error in the Messages API's shape (``overloaded_error`` with 529, ...)."""
        body = {"type": "error", "error": {"type": kind, "message": message}}
        return Reply("error", status=status, raw=json.dumps(body).encode(), headers=dict(headers or {}))

    @staticmethod
    def insufficient_quota() -> Reply:
        """OpenAI's billing error: a 429 that no wait will heal."""
        body = {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                          "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}
        return Reply("error", status=429, raw=json.dumps(body).encode())

    @staticmethod
    def gemini_error(status: int, message: str, state: str = "INVALID_ARGUMENT") -> Reply:
        """Gemini's OpenAI-compatible endpoint: the error body is a JSON *list*."""
        body = [{"error": {"code": status, "message": message, "status": state}}]
        return Reply("error", status=status, raw=json.dumps(body).encode())

    @staticmethod
    def error(status: int, message: str | None = None, *, headers: Mapping[str, str] | None = None) -> Reply:
        body = {"error": {"message": message or f"scripted error {status}", "type": "fake_error", "code": status}}
        return Reply("error", status=status, raw=json.dumps(body).encode(), headers=dict(headers or {}))

    @staticmethod
    def garbage(raw: bytes = b"<html>not json</html>", *, status: int = 200) -> Reply:
        return Reply("garbage", status=status, raw=raw)

    @staticmethod
    def delay(seconds: float, reply: Reply) -> Reply:
        """``reply`` after ``seconds`` (timeouts are tested with a short client timeout)."""
        return Reply(**{**reply.__dict__, "wait_s": seconds})

    @staticmethod
    def hang() -> Reply:
        """Never answer (until the server stops): a judge or model that never responds."""
        return Reply("hang")


Handler = Callable[[dict[str, Any]], Reply]


@dataclass
class RecordedRequest:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))


class FakeOpenAI:
    """Start with ``with FakeOpenAI() as srv`` or ``start()`` / ``stop()``."""

    def __init__(self, *, default: Reply | None = None) -> None:
        self._queues: dict[str | None, deque[Reply]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.handler: Handler | None = None
        self.default = default
        self.requests: list[RecordedRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.prompt_cache: Any = None   # a prompt_cache.PromptCache, or None: usage as scripted
        self.bucket: Any = None         # a token_bucket.TokenBucket, or None: no rate limit
        self.rules: set[str] = set()    # provider rejections to enforce (RULES)
        self._state_sent: dict[str, Any] = {}  # call id -> the provider state sent with it
        #: per answered request: {"route", "prompt_tokens", "cache_read", "cache_write", "marks"}
        self.usage_log: list[dict[str, Any]] = []

    # -- scripting ----------------------------------------------------------------------
    def enqueue(self, *replies: Reply, model: str | None = None) -> None:
        """Queue replies for one model (the name the server sees, provider prefix optional) or any model."""
        key = _bare(model) if model else None
        with self._lock:
            self._queues.setdefault(key, deque()).extend(replies)

    def set_handler(self, handler: Handler | None) -> None:
        """A function of the request body, consulted before the queues (dynamic judges)."""
        self.handler = handler

    def pending(self, model: str | None = None) -> int:
        with self._lock:
            return len(self._queues.get(_bare(model) if model else None, ()))

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        if self.handler is not None:
            return self.handler(body)
        model = _bare(str(body.get("model", "")))
        with self._lock:
            for key in (model, None):
                queue = self._queues.get(key)
                if queue:
                    return queue.popleft()
        if self.default is not None:
            return self.default
        return Reply.error(500, f"fake server: no scripted reply left for model {model!r}")

    def _usage(self, route: str, body: Mapping[str, Any], reply: Reply) -> dict[str, Any] | None:
        """Usage computed from the request when a prompt cache is simulated (else: as scripted)."""
        if self.prompt_cache is None:
            return None
        from .prompt_cache import marked

        if route == "openai":
            blocks = [*(body.get("tools") or []), *(body.get("messages") or [])]
            total, read = self.prompt_cache.automatic(blocks)
            usage = {"route": route, "prompt_tokens": total, "cache_read": read, "cache_write": 0, "marks": 0}
        else:
            system = body.get("system") or []
            if isinstance(system, str):
                system = [{"type": "text", "text": system}]
            blocks = [*(body.get("tools") or []), *system]
            for m in body.get("messages") or []:  # each content block is a block of the prefix
                content = m.get("content")
                parts = content if isinstance(content, list) else [{"type": "text", "text": str(content)}]
                blocks += [{"role": m.get("role"), **p} if isinstance(p, dict) else p for p in parts]
            marks = [i for i, b in enumerate(blocks) if marked(b)]
            plain, read, write = self.prompt_cache.marked(blocks, marks)
            usage = {"route": route, "prompt_tokens": plain + read + write, "input_tokens": plain,
                     "cache_read": read, "cache_write": write, "marks": len(marks)}
        with self._lock:
            self.usage_log.append(usage)
        return usage

    # -- lifecycle ----------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def base_url(self) -> str:
        """The server root, as litellm's ``anthropic/`` provider wants it (it appends ``/v1/messages``)."""
        return self.url[: -len("/v1")]

    def start(self) -> FakeOpenAI:
        server = _Server(("127.0.0.1", 0), _make_handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Server(ThreadingHTTPServer):
    # socketserver's default listen backlog is 5: a burst of concurrent clients (benchmarks at
    # concurrency 32) would see connection resets that have nothing to do with the code under test.
    request_queue_size = 256


def _bare(model: str) -> str:
    """``openai/judge-a`` -> ``judge-a``: the name litellm actually sends."""
    return model.split("/", 1)[1] if "/" in model else model


def completion_body(body: Mapping[str, Any], reply: Reply, usage: dict[str, int] | None = None) -> dict[str, Any]:
    prompt_tokens, completion_tokens = reply.usage
    cached = 0
    if usage is not None:
        prompt_tokens, cached = usage["prompt_tokens"], usage["cache_read"]
    out = {
        "id": f"chatcmpl-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model", "fake")),
        "choices": [{"index": 0, "message": _openai_message(reply.message), "finish_reason": reply.finish_reason,
                     "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    if usage is not None:
        out["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
    reasoning = (reply.message or {}).get("_reasoning_tokens")
    if reasoning is not None:
        out["usage"]["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return out


def _openai_message(message: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The message as the OpenAI route sends it (Anthropic thinking blocks and private keys left out)."""
    if message is None:
        return None
    return {k: v for k, v in message.items() if k != "thinking" and not k.startswith("_")}


def _make_handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as separate writes; without TCP_NODELAY, Nagle plus the
        # client's delayed ACK adds ~40 ms to every reply and swamps latency benchmarks.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(self, status: int, payload: bytes, headers: Mapping[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:  # /v1/models, for clients that probe
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, json.dumps({"object": "list", "data": []}).encode())
            else:
                self._send(404, b'{"error": {"message": "not found"}}')

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, b'{"error": {"message": "request body is not JSON"}}')
                return
            server.requests.append(RecordedRequest(self.path, body, dict(self.headers.items())))
            path = self.path.split("?", 1)[0].rstrip("/")
            if path.endswith("/chat/completions"):
                route = "openai"
            elif path.endswith("/messages"):
                route = "anthropic"
            else:
                self._send(404, b'{"error": {"message": "only /chat/completions and /v1/messages are faked"}}')
                return
            if server.bucket is not None:
                wait = server.bucket.take()
                if wait is not None:
                    self._send(429, json.dumps({"error": {"message": "rate limit exceeded", "type": "rate_limit",
                                                          "code": 429}}).encode(), server.bucket.headers(wait))
                    return
            rejected = reject(server, route, body)
            if rejected is not None:
                self._send(400, json.dumps(rejected).encode())
                return
            reply = server._next_reply(body if route == "openai" else anthropic_to_openai(body))
            if reply.wait_s:
                if server._stop.wait(reply.wait_s):
                    return
            if reply.kind == "hang":
                server._stop.wait(600)
                return
            if reply.kind == "message":
                usage = server._usage(route, body, reply)
                payload = completion_body(body, reply, usage) if route == "openai" else \
                    anthropic_body(body, reply, usage)
                remember(server, reply)
                self._send(200, json.dumps(payload).encode())
            else:  # error / garbage
                self._send(reply.status, reply.raw, reply.headers)

    return _Handler


# -- the Anthropic Messages API ------------------------------------------------------------

def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def anthropic_to_openai(body: Mapping[str, Any]) -> dict[str, Any]:
    """An Anthropic request as the OpenAI-shaped body scripted handlers read."""
    messages: list[dict[str, Any]] = []
    system = _text(body.get("system"))
    if system:
        messages.append({"role": "system", "content": system})
    for m in body.get("messages") or []:
        content = m.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
        if m.get("role") == "assistant":
            calls = [{"id": p.get("id"), "type": "function",
                      "function": {"name": p.get("name"), "arguments": json.dumps(p.get("input") or {})}}
                     for p in parts if isinstance(p, dict) and p.get("type") == "tool_use"]
            out: dict[str, Any] = {"role": "assistant", "content": _text(parts) or None}
            if calls:
                out["tool_calls"] = calls
            messages.append(out)
            continue
        for p in parts:
            if isinstance(p, dict) and p.get("type") == "tool_result":
                messages.append({"role": "tool", "tool_call_id": p.get("tool_use_id"),
                                 "content": _text(p.get("content")) if not isinstance(p.get("content"), str)
                                 else p["content"]})
        text = _text(parts)
        if text:
            messages.append({"role": "user", "content": text})
    return {"model": body.get("model"), "messages": messages, "tools": body.get("tools") or []}


def anthropic_body(body: Mapping[str, Any], reply: Reply, usage: dict[str, int] | None) -> dict[str, Any]:
    """A scripted reply in Messages API format: text and ``tool_use`` blocks, Anthropic usage."""
    message = reply.message or {}
    blocks: list[dict[str, Any]] = [dict(b) for b in message.get("thinking") or []]
    if message.get("content"):
        blocks.append({"type": "text", "text": message["content"]})
    for call in message.get("tool_calls") or []:
        try:
            args = json.loads(call["function"]["arguments"] or "{}")
        except (TypeError, ValueError):
            args = {}
        blocks.append({"type": "tool_use", "id": call["id"].replace("call_", "toolu_"),
                       "name": call["function"]["name"], "input": args if isinstance(args, dict) else {}})
    prompt_tokens, completion_tokens = reply.usage
    u = {"input_tokens": prompt_tokens, "output_tokens": completion_tokens,
         "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    if usage is not None:
        u.update(input_tokens=usage["input_tokens"], cache_read_input_tokens=usage["cache_read"],
                 cache_creation_input_tokens=usage["cache_write"])
    return {"id": f"msg_fake_{next(_ids)}", "type": "message", "role": "assistant",
            "model": str(body.get("model", "fake")), "content": blocks,
            "stop_reason": "max_tokens" if reply.finish_reason == "length" else
            "tool_use" if message.get("tool_calls") else "end_turn", "stop_sequence": None,
            "usage": u}


# -- what real providers reject ------------------------------------------------------------

#: The rejections ``srv.rules`` can turn on, each as its provider documents it:
#: ``anthropic_thinking``: with thinking on, an assistant turn with ``tool_use`` must start with
#: the thinking blocks (and signatures) the model sent (400 "Expected `thinking` or
#: `redacted_thinking`, but found `tool_use`"); ``deepseek_reasoning``: an assistant turn of the
#: thinking mode must carry its ``reasoning_content`` back (400); ``gemini_signature``: a function
#: call must carry its ``thought_signature`` back (400); ``vllm``: every ``tool_call_id`` unique
#: and every tool call's arguments parseable JSON (400 "Duplicate value for 'tool_call_id'",
#: 400 "Unterminated string ...").
RULES = frozenset({"anthropic_thinking", "deepseek_reasoning", "gemini_signature", "vllm"})


def remember(server: FakeOpenAI, reply: Reply) -> None:
    """Note the provider state a reply carried, by its calls' ids (what must come back)."""
    message = reply.message or {}
    for call in message.get("tool_calls") or []:
        cid = call["id"]
        state = {"reasoning": message.get("reasoning_content"), "thinking": message.get("thinking"),
                 "signature": ((call.get("extra_content") or {}).get("google") or {}).get("thought_signature")}
        server._state_sent[cid] = state
        server._state_sent[cid.replace("call_", "toolu_")] = state


def _error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": 400}}


def reject(server: FakeOpenAI, route: str, body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The 400 body a real provider would send for this request under ``server.rules``, or None."""
    rules = server.rules
    if not rules:
        return None
    messages = body.get("messages") or []
    if route == "anthropic":
        for i, m in enumerate(messages):
            parts = m.get("content") if isinstance(m.get("content"), list) else []
            uses = [p for p in parts if isinstance(p, dict) and p.get("type") == "tool_use"]
            if m.get("role") != "assistant" or not uses or "anthropic_thinking" not in rules:
                continue
            sent = (server._state_sent.get(uses[0].get("id")) or {}).get("thinking")
            if not sent:
                continue
            got = [p for p in parts if isinstance(p, dict) and p.get("type") in ("thinking", "redacted_thinking")]
            if not parts or parts[0].get("type") not in ("thinking", "redacted_thinking"):
                return {"type": "error", "error": {"type": "invalid_request_error", "message":
                        f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                        f"`{parts[0].get('type') if parts else 'none'}`. When `thinking` is enabled, a final "
                        "`assistant` message must start with a thinking block (preceeding the lastmost set of "
                        "`tool_use` and `tool_result` blocks)."}}
            if [dict(b) for b in got] != [dict(b) for b in sent]:
                return {"type": "error", "error": {"type": "invalid_request_error",
                                                   "message": f"messages.{i}.content.0: Invalid `signature` in "
                                                              "`thinking` block"}}
        return None
    ids: set[str] = set()
    for i, m in enumerate(messages):
        if m.get("role") == "tool" and "vllm" in rules:
            cid = m.get("tool_call_id")
            if cid in ids:
                return _error(f"Duplicate value for 'tool_call_id' of {cid} in message[{i}]")
            ids.add(cid)
        if m.get("role") != "assistant":
            continue
        for call in m.get("tool_calls") or []:
            sent = server._state_sent.get(call.get("id")) or {}
            if "vllm" in rules:
                try:
                    json.loads(call["function"]["arguments"])
                except (ValueError, TypeError) as exc:
                    return _error(f"{exc}", "BadRequestError")
            if "deepseek_reasoning" in rules and sent.get("reasoning") is not None \
                    and m.get("reasoning_content") != sent["reasoning"]:
                return _error("The reasoning_content in the thinking mode must be passed back to the API.")
            if "gemini_signature" in rules and sent.get("signature") is not None:
                got = ((call.get("extra_content") or {}).get("google") or {}).get("thought_signature")
                if got != sent["signature"]:
                    return _error(f"Function call is missing a thought_signature in functionCall parts. This is "
                                  f"required for tools to work correctly, and missing thought_signature may lead "
                                  f"to degraded model performance. (message {i})", "INVALID_ARGUMENT")
    return None
