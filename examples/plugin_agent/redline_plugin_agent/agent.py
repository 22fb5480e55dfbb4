"""A terse contract reviewer: its own system prompt, the five RedlineBench tools, litellm.

The factory receives the run's ``model``, ``limits``, ``api_base``, ``seed`` and ``prompt_cache``
(keyword arguments); ``run`` is called once per trial with a fresh working directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from redlinebench.agent import AgentLimits, Episode, endpoint_params, get_litellm, open_episode

PROMPT = (
    "You review a contract for {party} (the counterparty is {counterparty}). Read the document, then "
    "propose tracked edits or comments where {party}'s interests need them, and finish with end_session. "
    "Be brief.\n\nInstructions from the client:\n{instruction}"
)


class TerseReviewer:
    name = "terse-reviewer"

    def __init__(self, model: str | None, limits: AgentLimits, api_base: str | None = None,
                 seed: int | None = None) -> None:
        if not model:
            raise ValueError("terse-reviewer needs --model (a litellm model string)")
        self.model, self.limits, self.api_base, self.seed = model, limits, api_base, seed
        self.label = f"terse-reviewer/{model}"

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        litellm = get_litellm()  # litellm as RedlineBench configures it (quiet on failures)

        with open_episode(task, workdir, trial=trial, limits=self.limits, agent=self.name) as ep:
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": PROMPT.format(party=task.represented_party,
                                                            counterparty=task.counterparty,
                                                            instruction=task.instruction)},
                {"role": "user", "content": "Begin."},
            ]
            ep.cost_usd = 0.0
            while ep.steps < self.limits.max_steps and not ep.finished:
                try:
                    response = await litellm.acompletion(
                        model=self.model, messages=messages, tools=ep.schemas,
                        **endpoint_params(self.model, self.api_base),  # a placeholder key for a keyless server
                        timeout=self.limits.call_timeout_s, num_retries=self.limits.max_retries)
                except Exception as exc:  # the provider failed: an errored trial that --resume retries
                    return ep.episode(error=f"{type(exc).__name__}: {exc}")
                ep.steps += 1
                usage = getattr(response, "usage", None)
                ep.tokens_in += int(getattr(usage, "prompt_tokens", 0) or 0)
                ep.tokens_out += int(getattr(usage, "completion_tokens", 0) or 0)
                message = response.choices[0].message
                calls = list(message.tool_calls or [])
                messages.append({"role": "assistant", "content": message.content or "",
                                 **({"tool_calls": [c.model_dump() for c in calls]} if calls else {})})
                ep.transcript.write({"type": "model", "step": ep.steps, "content": message.content,
                                     "tool_calls": [c.function.name for c in calls]})
                if not calls:
                    ep.end_reason = "no_tool_calls"
                    break
                for call in calls:
                    result = ep.call(call.function.name, call.function.arguments)
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": ep.message(result)})
            if not ep.finished and ep.steps >= self.limits.max_steps:
                ep.status, ep.end_reason = "limit_reached", "max_steps"
            ep.extra["prompt"] = "terse-reviewer-v1"
            ep.extra["messages_sent"] = len(json.dumps(messages))
        return ep.episode()


def make_agent(*, model: str | None = None, limits: AgentLimits | None = None, api_base: str | None = None,
               seed: int | None = None, **_: Any) -> TerseReviewer:
    """The factory RedlineBench calls (by import path or through the entry point)."""
    return TerseReviewer(model, limits or AgentLimits(), api_base=api_base, seed=seed)
