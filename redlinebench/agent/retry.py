"""Provider calls with retries for the agent; the policy itself is :mod:`redlinebench._retry`'s."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

from .._retry import backoff, retry_delay  # noqa: F401  (backoff: the one formula, re-exported)
from .._retry import classify, is_provider_error, retries_allowed, status_of  # noqa: F401  (the one policy)
from .._retry import body_messages, is_overloaded, is_quota
from .redact import redact



def is_retryable(exc: BaseException) -> bool:
    """Whether the shared policy (:func:`redlinebench._retry.classify`) retries this provider error."""
    return is_provider_error(exc) and classify(exc) in ("retry", "unreachable")


def describe(exc: BaseException, *, timeout_s: float | None = None) -> str:
    """``Name (status): message`` on one line for logs and metrics, never an empty message.

    A traceback a provider library put in its message is left out (its head names the problem).
    The provider's own error body is added when the message lacks it (any shape: Gemini's JSON
    list), an overloaded provider is named so (529), and a quota or billing error says so.

    A timeout without a message (``asyncio.wait_for``'s own) says how long it waited, from
    ``timeout_s`` or the ``timeout_s`` that :func:`call_with_retries` attaches to it; any other
    exception without a message says ``(no detail)``.
    """
    status = status_of(exc)
    tags = [str(status)] if status else []
    if is_overloaded(exc):  # Anthropic's 529, which litellm reports as a 500
        tags = ["529 overloaded"]
    elif is_quota(exc):
        tags.append("out of credit or quota")
    name = type(exc).__name__ + (f" ({', '.join(tags)})" if tags else "")
    message = str(exc).split("Traceback (most recent call last):")[0]  # litellm embeds its own
    message = " ".join(line.strip() for line in message.splitlines() if line.strip())  # one line
    # a body litellm did not put in its message (Gemini's JSON list: "Error code: 400") is added
    unsaid = [m for m in body_messages(exc) if m not in message]
    if unsaid:
        message = f"{message} (provider: {'; '.join(unsaid)})" if message else f"provider: {'; '.join(unsaid)}"
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
    endpoint: tuple[str, str | None] | None = None,
    key_missing: bool = False,
) -> Any:
    """Await ``make_call()`` under ``timeout_s``; retry what the shared policy retries, up to
    ``max_retries`` times (an unreachable endpoint at most ``UNREACHABLE_RETRIES`` times).
    ``endpoint`` (model, api_base): each attempt holds a place in that endpoint's adaptive limit
    (:mod:`redlinebench._throttle`) and reports how it went."""
    from .._throttle import slot

    attempt = 0
    while True:
        try:
            if endpoint is None:
                return await asyncio.wait_for(make_call(), timeout=timeout_s)
            async with slot(*endpoint) as outcome:
                try:
                    result = await asyncio.wait_for(make_call(), timeout=timeout_s)
                except Exception as exc:
                    outcome.failed(exc)
                    raise
                outcome.ok()
                return result
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # classified below; our own bugs are re-raised untouched
            if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) and not str(exc):
                exc.timeout_s = timeout_s  # type: ignore[attr-defined]  # the backstop's silence: say how long
            if not is_provider_error(exc) or attempt >= retries_allowed(classify(exc, key_missing=key_missing),
                                                                        max_retries):
                raise
            delay = retry_delay(attempt + 1, exc)
            if on_retry is not None:
                on_retry(attempt + 1, exc, delay)
            attempt += 1
            if delay:
                await asyncio.sleep(delay)

