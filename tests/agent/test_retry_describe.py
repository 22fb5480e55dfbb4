"""agent.retry.describe: every logged provider failure carries a message, even a silent timeout."""

from __future__ import annotations

import asyncio

import pytest

from redlinebench.agent.retry import call_with_retries, describe


def test_a_message_is_kept_as_before():
    assert describe(ValueError("bad reply")) == "ValueError: bad reply"


def test_empty_timeout_names_the_limit_when_known_else_says_no_detail():
    assert describe(TimeoutError(), timeout_s=305.0) == "TimeoutError: no reply within 305 s"
    assert describe(TimeoutError()) == "TimeoutError (no detail)"
    assert describe(RuntimeError("  ")) == "RuntimeError (no detail)"
    assert describe(RuntimeError(), timeout_s=5) == "RuntimeError (no detail)"   # only a timeout is about time


async def test_the_backstop_timeout_is_described_with_its_limit():
    async def stuck():
        await asyncio.sleep(10)

    retried: list[str] = []
    with pytest.raises(TimeoutError) as info:
        await call_with_retries(stuck, max_retries=1, timeout_s=0.05,
                                on_retry=lambda attempt, exc, delay: retried.append(describe(exc)))
    assert retried == ["TimeoutError: no reply within 0.05 s"]
    assert describe(info.value) == "TimeoutError: no reply within 0.05 s"
