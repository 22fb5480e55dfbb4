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


def test_a_traceback_inside_a_provider_message_is_cut_to_one_line():
    # litellm wraps a reply it cannot convert (e.g. total_tokens: "x") with the traceback in the text
    exc = RuntimeError("litellm.InternalServerError: OpenAIException - Invalid response object Traceback "
                       "(most recent call last):\n  File \"/venv/litellm/utils.py\", line 12, in convert\n"
                       "    raise Exception(\n\nException: Invalid response object\n\nreceived_args={'a': 1}")
    assert describe(exc) == "RuntimeError: litellm.InternalServerError: OpenAIException - Invalid response object"
    assert describe(ValueError("first line\n  second line")) == "ValueError: first line second line"
