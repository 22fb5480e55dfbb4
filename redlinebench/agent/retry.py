"""Provider calls with retries: which errors are worth another try, and how long to wait."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

from .._retry import backoff, retry_delay  # noqa: F401  (backoff: the one formula, re-exported)
from .redact import redact

_RETRY_STATUS = {408, 409, 425, 429}


def status_of(exc: BaseException) -> int | None:
    for attr in ("status_code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    return None


def is_provider_error(exc: BaseException) -> bool:
    """An error raised by the provider stack (litellm, openai, httpx) or a timeout, not by our code."""
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True
    module = type(exc).__module__ or ""
    return module.split(".")[0] in {"litellm", "openai", "httpx", "httpcore", "aiohttp", "anthropic"}


def is_retryable(exc: BaseException) -> bool:
    """Retry 429/408/409, 5xx, timeouts, connection failures and unparseable replies; not other 4xx."""
    if not is_provider_error(exc):
        return False
    if type(exc).__name__ in {"ContextWindowExceededError", "AuthenticationError", "PermissionDeniedError"}:
        return False
    if "missing credentials" in str(exc).lower():  # litellm reports a missing key as a 500
        return False
    status = status_of(exc)
    if status is None:
        return True
    return status in _RETRY_STATUS or status >= 500


def describe(exc: BaseException, *, timeout_s: float | None = None) -> str:
    """``Name (status): message`` on one line for logs and metrics, never an empty message.

    A traceback a provider library put in its message is left out (its head names the problem).

    A timeout without a message (``asyncio.wait_for``'s own) says how long it waited, from
    ``timeout_s`` or the ``timeout_s`` that :func:`call_with_retries` attaches to it; any other
    exception without a message says ``(no detail)``.
    """
    status = status_of(exc)
    name = type(exc).__name__ + (f" ({status})" if status else "")
    message = str(exc).split("Traceback (most recent call last):")[0]  # litellm embeds its own
    message = " ".join(line.strip() for line in message.splitlines() if line.strip())  # one line
    if not message:
        limit = timeout_s if timeout_s is not None else getattr(exc, "timeout_s", None)
        if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) and isinstance(limit, (int, float)):
            message = f"no reply within {limit:g} s"
        else:
            return redact(f"{name} (no detail)")[:2000]
    return redact(f"{name}: {message}")[:2000]


async def call_with_retries(
    make_call: Callable[[], Awaitable[Any]],
    *,
    max_retries: int,
    timeout_s: float,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
) -> Any:
    """Await ``make_call()`` under ``timeout_s``; retry retryable provider errors up to ``max_retries`` times."""
    attempt = 0
    while True:
        try:
            return await asyncio.wait_for(make_call(), timeout=timeout_s)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # classified below; our own bugs are re-raised untouched
            if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) and not str(exc):
                exc.timeout_s = timeout_s  # type: ignore[attr-defined]  # the backstop's silence: say how long
            if not is_retryable(exc) or attempt >= max_retries:
                raise
            delay = retry_delay(attempt + 1, exc)
            if on_retry is not None:
                on_retry(attempt + 1, exc, delay)
            attempt += 1
            if delay:
                await asyncio.sleep(delay)
