"""How long to wait before calling a provider again: shared by the agent and the judges.

One backoff formula (exponential, capped, jittered so parallel trials do not retry in lockstep),
and the provider's own ``Retry-After`` when it sends one: a rate-limited API knows better than
our formula when it will accept the next request, and retrying earlier only burns an attempt.
SPEC §5.3 caps a wait at 60 s, so a longer ``Retry-After`` is waited as 60 s; a shorter one than
the backoff (``0``, negative, a date in the past) never makes retries go out back to back: the
backoff is the floor.
"""

from __future__ import annotations

import email.utils
import random
import time
from typing import Any

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


def _headers(exc: BaseException) -> Any:
    for holder in (getattr(exc, "response", None), exc):
        for attr in ("headers", "litellm_response_headers"):
            headers = getattr(holder, attr, None)
            if headers is not None and hasattr(headers, "get"):
                return headers
    return None


def retry_after(exc: BaseException | None, *, now: float | None = None) -> float | None:
    """Seconds the provider asked us to wait (``retry-after-ms``, or ``Retry-After`` as seconds or
    an HTTP date), capped at ``RETRY_AFTER_CAP_S``; ``None`` when it did not say (or said nonsense)."""
    if exc is None:
        return None
    headers = _headers(exc)
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return _clamp(float(ms) / 1000.0)
        value = headers.get("retry-after")
    except (TypeError, ValueError, AttributeError):
        return None
    if value is None:
        return None
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
