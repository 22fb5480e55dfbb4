"""A loopback OpenAI-compatible chat server for tests.

Real HTTP on 127.0.0.1 (port 0), so litellm's real client code is exercised. Replies are
scripted: per-model queues, a default queue, or a handler function that sees the request.

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
    ) -> Reply:
        """``calls`` are (name, arguments) pairs; a str argument is sent verbatim (malformed JSON tests)."""
        tool_calls = []
        for name, args in calls:
            tool_calls.append(
                {
                    "id": f"call_{next(_ids)}",
                    "type": "function",
                    "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
                }
            )
        message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
        return Reply("message", message=message, finish_reason="tool_calls", usage=usage)

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

    # -- lifecycle ----------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

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


def completion_body(body: Mapping[str, Any], reply: Reply) -> dict[str, Any]:
    prompt_tokens, completion_tokens = reply.usage
    return {
        "id": f"chatcmpl-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model", "fake")),
        "choices": [{"index": 0, "message": reply.message, "finish_reason": reply.finish_reason, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


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
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, b'{"error": {"message": "only /chat/completions is faked"}}')
                return
            reply = server._next_reply(body)
            if reply.wait_s:
                if server._stop.wait(reply.wait_s):
                    return
            if reply.kind == "hang":
                server._stop.wait(600)
                return
            if reply.kind == "message":
                self._send(200, json.dumps(completion_body(body, reply)).encode())
            else:  # error / garbage
                self._send(reply.status, reply.raw, reply.headers)

    return _Handler
