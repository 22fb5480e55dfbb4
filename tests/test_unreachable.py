"""An endpoint that cannot be reached (refused, unresolvable, TLS failure) is told apart from a
provider error, retried once, quickly, and reported in one line naming host:port and the cause:
through real litellm against real loopback sockets, for the agent and for the judges."""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest

from redlinebench._retry import UNREACHABLE_RETRIES, classify, connection_failure, unreachable_message
from redlinebench.agent.limits import AgentLimits
from redlinebench.agent.llm import LLMAgent
from redlinebench.judge import LiteLLMJudge
from tests.agent.doubles import FakeTools, make_task
from tests.judge.doubles import TASK


def refused_port() -> int:
    """A loopback port nobody listens on: bound, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NotTls:
    """A loopback server that answers a TLS handshake with plain text."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                try:
                    conn.recv(4096)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    pass

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.sock.close()


async def _litellm_failure(api_base: str) -> BaseException:
    from redlinebench._litellm import get_litellm

    try:
        await get_litellm().acompletion(model="openai/x", messages=[{"role": "user", "content": "hi"}],
                                        api_base=api_base, api_key="sk-test", num_retries=0, max_retries=0,
                                        timeout=10)
    except Exception as exc:  # noqa: BLE001  the failure is what is tested
        return exc
    raise AssertionError("the call succeeded")


async def test_a_refused_port_is_unreachable_and_named_with_its_cause():
    port = refused_port()
    exc = await _litellm_failure(f"http://127.0.0.1:{port}/v1")
    assert getattr(exc, "status_code", None) == 500  # litellm calls it an internal server error ...
    failure = connection_failure(exc)  # ... the chain says what happened
    assert failure is not None and failure.cause == "connection refused" and not failure.heals
    assert failure.where == f"127.0.0.1:{port}"
    assert classify(exc) == "unreachable"
    assert unreachable_message(exc, model="openai/x", api_base=f"http://127.0.0.1:{port}/v1") == (
        f"cannot reach 127.0.0.1:{port} (api base http://127.0.0.1:{port}/v1) for openai/x: connection refused")


async def test_a_name_that_does_not_resolve_and_a_failed_tls_handshake_are_named():
    exc = await _litellm_failure("http://no-such-host.invalid:8000/v1")
    assert connection_failure(exc).cause == "name not resolved" and classify(exc) == "unreachable"
    assert unreachable_message(exc, model="openai/x", api_base="http://no-such-host.invalid:8000/v1").startswith(
        "cannot reach no-such-host.invalid:8000 (api base http://no-such-host.invalid:8000/v1)")
    server = NotTls()
    try:
        exc = await _litellm_failure(f"https://127.0.0.1:{server.port}/v1")
    finally:
        server.close()
    failure = connection_failure(exc)
    assert failure is not None and failure.cause.startswith("TLS handshake failed") and classify(exc) == "unreachable"


def test_a_connect_timeout_is_named_but_retried_like_a_5xx():
    request = httpx.Request("POST", "https://api.example.test/v1/chat/completions")
    try:
        try:
            raise httpx.ConnectTimeout("timed out", request=request)
        except httpx.ConnectTimeout as inner:
            raise RuntimeError("Connection error.") from inner
    except RuntimeError as exc:
        wrapped = exc
    wrapped.status_code = 500  # type: ignore[attr-defined]  # as litellm labels it
    failure = connection_failure(wrapped)
    assert failure is not None and failure.heals and failure.where == "api.example.test:443"
    assert classify(wrapped) == "retry"
    assert unreachable_message(wrapped, model="openai/x", api_base=None) == (
        "cannot reach api.example.test:443 (the provider's default endpoint) for openai/x: connect timed out")
    # a server that answered (even badly) is no connection failure
    assert connection_failure(httpx.HTTPStatusError("500", request=request, response=httpx.Response(500))) is None


async def test_the_agent_reports_a_refused_endpoint_in_seconds_not_a_minute(tmp_path, monkeypatch):
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "1")  # the real backoff: 1 s, 2 s, 4 s, ... (58 s in all)
    from redlinebench._litellm import get_litellm

    get_litellm()  # the import is not the endpoint's time
    base = f"http://127.0.0.1:{refused_port()}"
    agent = LLMAgent("openai/x", api_base=base, limits=AgentLimits(), backend=lambda task, out: FakeTools())
    workdir = tmp_path / "trial"
    workdir.mkdir()
    t0 = time.perf_counter()
    ep = await agent.run(make_task(tmp_path), workdir, trial=1)
    elapsed = time.perf_counter() - t0
    print(f"agent: refused endpoint reported after {elapsed:.2f} s")
    assert ep.status == "errored" and ep.end_reason == "endpoint_unreachable"
    host = base.removeprefix("http://")
    assert ep.error == f"cannot reach {host} (api base {base}) for openai/x: connection refused"
    assert ep.metrics["retries"] == UNREACHABLE_RETRIES == 1
    events = [json.loads(line) for line in (workdir / "transcript.jsonl").read_text().splitlines()]
    assert [e["error"] for e in events if e["type"] == "retry"] == [ep.error]
    assert elapsed < 10, elapsed


async def test_a_judge_reports_a_refused_endpoint_after_one_quick_retry(monkeypatch):
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "1")
    from redlinebench._litellm import get_litellm

    get_litellm()
    base = f"http://127.0.0.1:{refused_port()}/v1"
    judge = LiteLLMJudge("openai/judge-a", api_base=base, api_key="sk-test-secret-123456", timeout=5)
    t0 = time.perf_counter()
    result = await judge.grade(TASK, "[p-001] text", None)
    elapsed = time.perf_counter() - t0
    print(f"judge: refused endpoint reported after {elapsed:.2f} s")
    assert not result.ok and result.unreachable and result.attempts == 2
    port = base.split(":")[2].split("/")[0]
    assert result.error.endswith(f"cannot reach 127.0.0.1:{port} (api base {base}) for openai/judge-a: "
                                 "connection refused")
    assert result.to_dict()["unreachable"] is True
    assert elapsed < 10, elapsed  # ten retries with backoff: minutes


@pytest.mark.parametrize("reply_status", [500])
async def test_a_server_that_answers_500_is_still_retried_in_full(fake_openai, reply_status):
    from tests.fakes.openai_server import Reply

    fake_openai.enqueue(*[Reply.error(reply_status)] * 4, model="judge-a")
    judge = LiteLLMJudge("openai/judge-a", api_base=fake_openai.url, api_key="sk-test-secret-123456",
                         timeout=5, max_retries=3)
    result = await judge.grade(TASK, "[p-001] text", None)
    assert not result.ok and not result.unreachable and result.attempts == 4
