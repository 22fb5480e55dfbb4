"""Ctrl-C mid-call: litellm leaves its provider coroutine unawaited, which must not print a warning."""

from __future__ import annotations

import asyncio
import gc
import warnings

from redlinebench.agent.llm import _litellm
from tests.fakes.openai_server import FakeOpenAI, Reply


def test_cancelling_a_model_call_prints_no_never_awaited_warning():
    async def cancel_calls(url: str) -> None:
        litellm = _litellm()
        for i in range(20):  # cancelled at different awaits, some while litellm's executor step runs
            call = asyncio.ensure_future(litellm.acompletion(
                model="openai/m", api_base=url, api_key="sk-test", num_retries=0,
                messages=[{"role": "user", "content": "hi"}]))
            for _ in range(i % 5 + 1):
                await asyncio.sleep(0)
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)
        await asyncio.sleep(0.3)

    with FakeOpenAI(default=Reply.text("ok")) as srv, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # as on a terminal: RuntimeWarnings are shown
        asyncio.run(cancel_calls(srv.url))
        gc.collect()
    assert not [str(w.message) for w in caught if "never awaited" in str(w.message)]
