"""Retry timing shared by the agent and the judges (redlinebench._retry)."""

from __future__ import annotations

import email.utils
import random
from types import SimpleNamespace

import httpx
import pytest

from redlinebench._retry import RETRY_AFTER_CAP_S, backoff, retry_after, retry_delay


def _exc(**headers: str) -> Exception:
    exc = Exception("429")
    exc.response = httpx.Response(429, headers=headers)  # type: ignore[attr-defined]
    return exc


def test_retry_after_reads_seconds_milliseconds_and_http_dates():
    assert retry_after(_exc(**{"Retry-After": "7"})) == 7.0
    assert retry_after(_exc(**{"Retry-After": "1.5"})) == 1.5
    assert retry_after(_exc(**{"retry-after-ms": "250", "Retry-After": "9"})) == 0.25  # the finer one wins
    now = 1_800_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert retry_after(_exc(**{"Retry-After": date}), now=now) == pytest.approx(30.0, abs=1.0)


def test_retry_after_is_bounded_and_ignores_nonsense():
    assert retry_after(_exc(**{"Retry-After": "86400"})) == RETRY_AFTER_CAP_S
    assert retry_after(_exc(**{"Retry-After": "-5"})) == 0.0
    old = email.utils.formatdate(1_000_000_000, usegmt=True)
    assert retry_after(_exc(**{"Retry-After": old})) == 0.0  # a date in the past: go now
    for junk in ("soon", "", "NaN", "1e999999"):
        value = retry_after(_exc(**{"Retry-After": junk}))
        assert value is None or value == RETRY_AFTER_CAP_S  # inf is clamped, the rest ignored
    assert retry_after(_exc()) is None and retry_after(Exception("no response")) is None
    assert retry_after(None) is None
    litellm_style = SimpleNamespace(response=None, litellm_response_headers=httpx.Headers({"retry-after": "3"}))
    assert retry_after(litellm_style) == 3.0  # type: ignore[arg-type]


def test_retry_delay_prefers_the_hint_and_tests_can_turn_waiting_off(monkeypatch):
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "1")
    assert retry_delay(1, _exc(**{"Retry-After": "12"})) == 12.0
    random.seed(3)
    assert 2.0 <= retry_delay(3, _exc()) <= 4.0  # no hint: backoff step 4 s, its upper half jittered
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "0")
    assert retry_delay(1, _exc(**{"Retry-After": "12"})) == 0.0 and backoff(5) == 0.0


def test_backoff_is_exponential_capped_and_jittered():
    rng = random.Random(0)
    delays = [backoff(n, base=1.0, rng=rng) for n in range(1, 10)]
    assert 0.5 <= delays[0] <= 1.0 and 4 <= delays[3] <= 8
    assert all(30 <= d <= 60 for d in delays[6:])


def test_a_retry_after_longer_than_the_spec_cap_is_waited_as_60_s(monkeypatch):
    """SPEC §5.3: exponential backoff, cap 60 s. A provider's header does not lift the cap."""
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "1")
    assert RETRY_AFTER_CAP_S == 60.0
    for value in ("3600", "300", "61", "1e999999"):
        assert retry_after(_exc(**{"Retry-After": value})) == 60.0
        assert retry_delay(1, _exc(**{"Retry-After": value})) == 60.0
    assert retry_delay(1, _exc(**{"retry-after-ms": "600000"})) == 60.0
    assert retry_delay(1, _exc(**{"Retry-After": "45"})) == 45.0  # a hint under the cap is waited as asked


@pytest.mark.parametrize("value", ["-5", "0", "0.0", "-1e9", email.utils.formatdate(1_000_000_000, usegmt=True)])
def test_a_zero_negative_or_past_retry_after_still_waits_the_backoff(monkeypatch, value):
    """Retries must not go out back to back because a provider said "0" (or nonsense below it)."""
    monkeypatch.setenv("REDLINEBENCH_RETRY_BASE_DELAY", "1")
    for retry, floor in ((1, 0.5), (3, 2.0), (8, 30.0)):  # backoff's lower bound: half its step
        delay = retry_delay(retry, _exc(**{"Retry-After": value}))
        assert floor <= delay <= 60.0, (retry, delay)
    assert retry_delay(1, _exc(**{"retry-after-ms": "0"})) >= 0.5
    assert 2.0 <= retry_delay(3, _exc(**{"Retry-After": "1"})) <= 4.0  # a hint below the backoff: the backoff
