"""The one retry policy for provider calls, shared by the agent and the judges.

Which failures are retried (:func:`classify`): a missing or rejected key (401, 403, litellm's
AuthenticationError / PermissionDeniedError, or no key in the environment for a provider that
needs one) stops at once, since every retry would fail alike; any 5xx, 429, 408 (a timeout), timeout,
dropped connection or unparseable reply is retried *whatever its body says* (a 500 whose text
mentions an API key is still a 500: providers put all sorts of words in error bodies); any other
4xx is the request's fault and is not retried (the caller may drop a parameter and try again).

A failure to connect at all (:func:`connection_failure`) is told by the exception chain, not by
the status litellm puts on it (it reports a refused port as a 500 "Connection error"): a refused
connection, a host name that does not resolve, a TLS handshake that fails do not heal in seconds,
so they are ``unreachable``: retried at most :data:`UNREACHABLE_RETRIES` times, quickly, and then
reported in one line naming the endpoint and the cause (:func:`unreachable_message`). A connect
timeout may be a passing network fault: it is retried like a 5xx, and described the same way.

How long to wait: one backoff formula (exponential, capped, jittered so parallel trials do not retry in lockstep),
and the provider's own ``Retry-After`` when it sends one: a rate-limited API knows better than
our formula when it will accept the next request, and retrying earlier only burns an attempt.
SPEC §5.3 caps a wait at 60 s, so a longer ``Retry-After`` is waited as 60 s; a shorter one than
the backoff (``0``, negative, a date in the past) never makes retries go out back to back: the
backoff is the floor.
"""

from __future__ import annotations

import asyncio
import email.utils
import errno
import random
import re
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from .config import retry_base_delay

#: SPEC §5.3: "exponential backoff (cap 60 s, jitter)": no wait is longer, whoever asks for it.
BACKOFF_CAP_S = 60.0
#: The longest ``Retry-After`` we honour; a larger one is treated as this. The SPEC's one cap.
RETRY_AFTER_CAP_S = BACKOFF_CAP_S


def backoff(retry: int, *, base: float | None = None, rng: random.Random | None = None) -> float:
    """Delay before retry number ``retry`` (1-based): ``step = min(60, base * 2**(retry-1))``, the
    upper half of it jittered. ``base`` defaults to ``$REDLINEBENCH_RETRY_BASE_DELAY`` (1 s)."""
    base = retry_base_delay() if base is None else base
    if base <= 0:
        return 0.0
    step = min(BACKOFF_CAP_S, base * 2 ** max(0, retry - 1))
    return step / 2 + (rng or random).uniform(0, step / 2)


def header(exc: BaseException, name: str) -> str | None:
    """One response header of a failed call, wherever litellm's exception shapes keep it: the
    HTTP response's headers (the OpenAI route), ``litellm_response_headers`` (the Anthropic route,
    whose ``response`` carries none), ``headers``, and the same on the exceptions it wraps."""
    for link in _chain(exc) or [exc]:
        for holder in (getattr(link, "response", None), link):
            for attr in ("headers", "litellm_response_headers"):
                try:
                    headers = getattr(holder, attr, None)
                    value = headers.get(name) if headers is not None and hasattr(headers, "get") else None
                except Exception:  # noqa: BLE001  httpx raises on a response without a request, etc.
                    continue
                if value is not None:
                    return str(value)
    return None


def retry_after(exc: BaseException | None, *, now: float | None = None) -> float | None:
    """Seconds the provider asked us to wait (``retry-after-ms``, or ``Retry-After`` as seconds or
    an HTTP date, or for want of a header the delay its error body names: Gemini's ``retryDelay``),
    capped at ``RETRY_AFTER_CAP_S``; ``None`` when it did not say (or said nonsense)."""
    if exc is None:
        return None
    ms = header(exc, "retry-after-ms")
    if ms is not None:
        try:
            return _clamp(float(ms) / 1000.0)
        except ValueError:
            pass
    value = header(exc, "retry-after")
    if value is None:
        return _body_retry_delay(exc)
    text = str(value).strip()
    try:
        return _clamp(float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return _clamp(when.timestamp() - (time.time() if now is None else now))


#: Gemini sends no Retry-After header: the wait is in the body (RetryInfo's ``retryDelay: "37s"``,
#: and "Please retry in 37.1s." in the message).
_BODY_DELAYS = (re.compile(r'"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"'),  # the structured one first
                re.compile(r"retry in (\d+(?:\.\d+)?)\s*s\b", re.IGNORECASE))


def _body_retry_delay(exc: BaseException) -> float | None:
    """The wait a provider put in its error body instead of a header (Gemini), or ``None``."""
    if status_of(exc) not in (429, 503, None):
        return None
    body = error_body(exc) or ""
    for pattern in _BODY_DELAYS:
        m = pattern.search(body)
        if m:
            return _clamp(float(m.group(1)))
    return None


def _clamp(seconds: float) -> float | None:
    if seconds != seconds:  # NaN
        return None
    return min(RETRY_AFTER_CAP_S, max(0.0, seconds))


def retry_delay(retry: int, exc: BaseException | None = None) -> float:
    """The wait before retry ``retry``: the provider's ``Retry-After`` when given (at most
    ``RETRY_AFTER_CAP_S``), never less than :func:`backoff`, which is the wait when there is no
    hint. ``$REDLINEBENCH_RETRY_BASE_DELAY=0`` (tests) disables waiting altogether."""
    if retry_base_delay() <= 0:
        return 0.0
    floor = backoff(retry)
    hint = retry_after(exc)
    return floor if hint is None else min(RETRY_AFTER_CAP_S, max(hint, floor))


#: The 4xx statuses retried (SPEC §5.3: no retry on 4xx other than 429; 408 is a timeout).
RETRY_STATUS = frozenset({408, 429})
AUTH_STATUS = frozenset({401, 403})
_AUTH_TYPES = frozenset({"AuthenticationError", "PermissionDeniedError"})
_PROVIDER_MODULES = frozenset({"litellm", "openai", "httpx", "httpcore", "aiohttp", "anthropic"})

Verdict = Literal["auth", "quota", "retry", "unreachable", "fail"]

#: Retries for an ``unreachable`` endpoint (refused, unresolvable, TLS failure): one quick retry
#: catches a server that was restarting; more would only make a dead endpoint cost a minute.
UNREACHABLE_RETRIES = 1


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries (``status_code`` or ``status``), if any."""
    for attr in ("status_code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def is_provider_error(exc: BaseException) -> bool:
    """An error raised by the provider stack (litellm, openai, httpx) or a timeout, not by our code."""
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True
    module = type(exc).__module__ or ""
    return module.split(".")[0] in _PROVIDER_MODULES


def is_rate_limit(exc: BaseException) -> bool:
    return status_of(exc) == 429 or any(c.__name__ == "RateLimitError" for c in type(exc).__mro__)


def classify(exc: BaseException, *, key_missing: bool = False) -> Verdict:
    """``auth`` (stop, name the key), ``retry``, ``unreachable`` (retry at most
    :data:`UNREACHABLE_RETRIES` times) or ``fail`` (not retryable) for one failed call.

    ``key_missing``: the caller knows no key was available for this provider (none in the
    environment, none configured, no explicit endpoint), so a failure is the missing key (litellm
    reports a missing OpenAI key as a 500). ``quota``: the account is out of credit or quota
    (:func:`is_quota`, the one verdict read from the error's text): stop, like ``auth``.
    """
    status = status_of(exc)
    if status in AUTH_STATUS or any(c.__name__ in _AUTH_TYPES for c in type(exc).__mro__):
        return "auth"
    if key_missing:
        return "auth"
    if is_quota(exc):
        return "quota"
    failure = connection_failure(exc)
    if failure is not None:
        return "retry" if failure.heals else "unreachable"
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return "retry"
    if type(exc).__name__ == "ContextWindowExceededError":
        return "fail"  # a 400: the caller shortens the prompt instead
    if status is None:
        return "retry"  # connection failures, garbage bodies, unknown provider failures
    return "retry" if status in RETRY_STATUS or status >= 500 else "fail"


#: What an out-of-credit or out-of-quota error says, in its code, type or message, at OpenAI
#: (429 ``insufficient_quota``), Anthropic (400 "credit balance is too low"), OpenRouter and
#: others (402), Mistral and Together ("billing"). Matched on the error body, lower case.
_QUOTA_WORDS = ("insufficient_quota", "credit balance", "billing_hard_limit", "insufficient credits",
                "insufficient balance", "payment required", "billing")
#: A 429 that says when to come back is a rate limit, even when its text mentions billing
#: (Gemini's per-minute quota message does).
_RETRY_WORDS = ("retry in", "retrydelay", "try again in")


def is_quota(exc: BaseException) -> bool:
    """Whether the account is out of credit or quota: no wait heals it, so the run stops at once.

    A 402, or an error whose body says so (:data:`_QUOTA_WORDS`), unless it also says when to
    retry (a ``Retry-After`` header, "retry in 37s"): that is a rate limit.
    """
    status = status_of(exc)
    if status == 402:
        return True
    if status is not None and status >= 500:
        return False
    text = f"{exc} {error_body(exc) or ''}".lower()
    if not any(word in text for word in _QUOTA_WORDS):
        return False
    told_when = header(exc, "retry-after") is not None or header(exc, "retry-after-ms") is not None
    return "insufficient_quota" in text or not (told_when or any(w in text for w in _RETRY_WORDS))


def error_body(exc: BaseException) -> str | None:
    """The provider's error body as text, whatever its shape (an object, Gemini's JSON list, plain
    text): litellm keeps it as ``body`` on OpenAI-route errors, else on the HTTP response."""
    import json

    for link in _chain(exc):
        body = getattr(link, "body", None)
        if body is not None and not isinstance(body, (bytes, bytearray)):
            try:
                return body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
            except (TypeError, ValueError):
                return str(body)
        response = getattr(link, "response", None)
        try:
            text = response.text if response is not None else None
        except Exception:  # noqa: BLE001  a streamed or unread response
            text = None
        if isinstance(text, str) and text.strip():
            return text
    return None


def body_messages(exc: BaseException) -> list[str]:
    """The messages in the provider's error body (every ``message`` string, at any depth: an
    object, Gemini's list of objects), or the body itself when it is not JSON; at most 3."""
    import json

    body = error_body(exc)
    if not body:
        return []
    try:
        data = json.loads(body)
    except ValueError:
        return [" ".join(body.split())[:500]]
    found: list[str] = []
    todo = [data]
    while todo and len(found) < 3:
        item = todo.pop(0)
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "message" and isinstance(value, str) and value.strip():
                    found.append(" ".join(value.split())[:500])
                elif isinstance(value, (dict, list)):
                    todo.append(value)
        elif isinstance(item, list):
            todo.extend(item[:10])
    return found


def is_overloaded(exc: BaseException) -> bool:
    """The provider says it is overloaded (Anthropic's 529 ``overloaded_error``, reported as a 500)."""
    return status_of(exc) == 529 or "overloaded_error" in f"{exc} {error_body(exc) or ''}"


def retries_allowed(verdict: Verdict, max_retries: int) -> int:
    """How many retries in all a failure of this :func:`classify` verdict gets: ``max_retries``
    to retry, at most :data:`UNREACHABLE_RETRIES` to an unreachable endpoint, none otherwise."""
    if verdict == "retry":
        return max_retries
    if verdict == "unreachable":
        return min(max_retries, UNREACHABLE_RETRIES)
    return 0


@dataclass(frozen=True)
class ConnectionFailure:
    """Why no connection to the endpoint was made: ``cause`` in words, ``where`` (host:port) when
    the error says, ``heals`` when waiting may help (a connect timeout)."""

    cause: str
    where: str | None = None
    heals: bool = False


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what caused it (``__cause__``, ``__context__``, litellm's ``original_exception``)."""
    seen: list[BaseException] = []
    todo = [exc]
    while todo and len(seen) < 32:
        cur = todo.pop(0)
        if cur is None or any(cur is s for s in seen) or not isinstance(cur, BaseException):
            continue
        seen.append(cur)
        todo.extend([cur.__cause__, cur.__context__, getattr(cur, "original_exception", None)])  # type: ignore[list-item]
    return seen


def _where(chain: list[BaseException]) -> str | None:
    """host:port of the connection that failed, from the deepest error that names it (aiohttp's
    connector errors carry ``host``/``port``; httpx errors their request, which the wrappers above
    may replace by a placeholder of their own, hence deepest first)."""
    for exc in reversed(chain):
        host, port = getattr(exc, "host", None), getattr(exc, "port", None)
        if isinstance(host, str) and host and isinstance(port, int):
            return f"{host}:{port}"
        try:
            url = getattr(getattr(exc, "request", None), "url", None)
        except Exception:  # noqa: BLE001  httpx raises when an error has no request
            continue
        host = getattr(url, "host", None)
        if host:
            port = getattr(url, "port", None) or {"https": 443, "http": 80}.get(str(getattr(url, "scheme", "")))
            return f"{host}:{port}" if port else str(host)
    return None


def _cause(exc: BaseException) -> tuple[str, bool] | None:
    name = type(exc).__name__
    if isinstance(exc, ConnectionRefusedError) or getattr(exc, "errno", None) == errno.ECONNREFUSED:
        return "connection refused", False
    if isinstance(exc, socket.gaierror):
        return "name not resolved", False
    if isinstance(exc, ssl.SSLError):
        reason = getattr(exc, "reason", None) or getattr(exc, "verify_message", None) or str(exc)
        return f"TLS handshake failed ({str(reason).strip()[:120]})", False
    if getattr(exc, "errno", None) in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return "no route to the host", False
    if name == "ConnectTimeout" and (type(exc).__module__ or "").split(".")[0] in ("httpx", "httpcore"):
        return "connect timed out", True
    return None


def connection_failure(exc: BaseException) -> ConnectionFailure | None:
    """The failure to connect behind ``exc`` (whatever wraps it: litellm, openai, httpx), or
    ``None`` when a connection was made (the server answered, even with an error)."""
    chain = _chain(exc)
    for link in chain:
        found = _cause(link)
        if found is not None:
            return ConnectionFailure(found[0], _where(chain), found[1])
    return None


def endpoint_of(api_base: str | None, where: str | None = None) -> str:
    """The endpoint as messages name it: ``host:port (api base URL)``, else what the error said."""
    if api_base:
        parts = urlsplit(api_base if "://" in api_base else f"http://{api_base}")
        try:
            port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
        except ValueError:
            port = None
        hostport = f"{parts.hostname}:{port}" if parts.hostname and port else (parts.hostname or api_base)
        return f"{hostport} (api base {api_base})"
    return f"{where} (the provider's default endpoint)" if where else "the provider's default endpoint"


def unreachable_message(exc: BaseException, *, model: str, api_base: str | None) -> str | None:
    """One line for a call that never reached its endpoint: ``cannot reach 127.0.0.1:9 (api base
    http://127.0.0.1:9) for openai/x: connection refused``; ``None`` for any other failure."""
    failure = connection_failure(exc)
    if failure is None:
        return None
    return f"cannot reach {endpoint_of(api_base, failure.where)} for {model}: {failure.cause}"
