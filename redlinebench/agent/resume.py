"""Continuing an errored episode: its transcript and partial redline, rebuilt into the history.

An episode that errors (a provider outage after some edits) saves the document as it stood after
its last applied change (``redline.partial.docx``). On ``--resume`` the runner hands the previous
attempt to the new one in ``workdir/resume/``; the litellm loop then continues it when it can:
same model and ``prompt_version``, a transcript that names every tool call's id, and a partial
document. The messages are rebuilt exactly as they were sent (provider state included: thinking
blocks, reasoning content, replayed ids, shortenings, nudges), so a thinking provider accepts the
history. Otherwise the episode starts over from the contract, and says why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .base import PARTIAL_REDLINE, TRANSCRIPT

#: The folder of a trial's working directory holding its previous, errored attempt.
RESUME_DIR = "resume"


@dataclass
class Continuation:
    """What the previous attempt left: the history to send next, its figures, its transcript lines."""

    messages: list[dict[str, Any]]
    lines: list[str]
    partial: Path
    steps: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    reasoning: int = 0
    cost: float = 0.0
    cost_known: bool = True
    budget: int | None = None
    nudged: bool = False
    seen_ids: set[str] = field(default_factory=set)
    dropped_state: set[str] = field(default_factory=set)


def previous_attempt(workdir: Path) -> tuple[Path, Path] | None:
    """(transcript, partial redline) of the previous attempt in ``workdir/resume``, if both are there."""
    folder = workdir / RESUME_DIR
    transcript, partial = folder / TRANSCRIPT, folder / PARTIAL_REDLINE
    return (transcript, partial) if transcript.is_file() and partial.is_file() else None


def continuation(workdir: Path, *, model: str, prompt_version: str, context_tokens: int,
                 shorten: Callable[..., Any]) -> tuple[Continuation | None, str | None]:
    """The previous attempt rebuilt, or ``(None, why not)``; ``(None, None)`` when there is none.

    ``shorten``: the loop's own history shortening, replayed where the transcript says it ran."""
    found = previous_attempt(workdir)
    if found is None:
        if (workdir / RESUME_DIR).is_dir():
            return None, "the previous attempt left no partial redline (no change was applied)"
        return None, None
    transcript, partial = found
    lines = [line for line in transcript.read_text(encoding="utf-8").splitlines() if line.strip()]
    try:
        events = [json.loads(line) for line in lines]
    except ValueError:
        return None, "the previous transcript is not readable JSON lines"
    start = events[0] if events else {}
    if start.get("type") != "start" or start.get("model") != model:
        return None, "the previous transcript is of another model"
    if start.get("prompt_version") != prompt_version:
        return None, f"the previous attempt used prompt_version {start.get('prompt_version')}, this one {prompt_version}"
    try:
        return _rebuild(events, lines, partial, context_tokens, shorten), None
    except _CannotContinue as exc:
        return None, str(exc)


class _CannotContinue(Exception):
    pass


def _rebuild(events: list[dict], lines: list[str], partial: Path, context_tokens: int,
             shorten: Callable[..., Any]) -> Continuation:
    cont = Continuation(messages=[dict(m) for m in events[0].get("messages") or []], lines=lines, partial=partial)
    if len(cont.messages) < 2:
        raise _CannotContinue("the previous transcript does not record the opening messages")
    messages = cont.messages
    budget = context_tokens
    last_reply: dict[str, Any] | None = None
    for ev in events[1:]:
        kind = ev.get("type")
        if kind == "shorten":
            if ev.get("reason") == "context_window":
                budget = int(ev["budget_tokens"])
                shorten(messages, budget_tokens=budget, keep_recent=1)
            else:
                shorten(messages, budget_tokens=budget)
        elif kind == "state_dropped":
            from .history import without_state

            cont.dropped_state.add(str(ev["field"]))
            without_state(messages, {str(ev["field"])})
        elif kind == "model":
            reply = dict(ev["message"])
            if "replayed_as" in ev:
                reply.update(ev["replayed_as"])
            for key in cont.dropped_state:
                reply.pop(key, None)
            messages.append(reply)
            last_reply = reply
            cont.steps = max(cont.steps, int(ev.get("step") or 0))
            cont.tokens_in += int(ev.get("tokens_in") or 0)
            cont.tokens_out += int(ev.get("tokens_out") or 0)
            cont.reasoning += int(ev.get("reasoning_tokens") or 0)
            if ev.get("cost_usd") is None:
                cont.cost_known = False
            else:
                cont.cost += float(ev["cost_usd"])
            cont.seen_ids.update(c["id"] for c in reply.get("tool_calls") or [])
        elif kind == "tool":
            if "id" not in ev:
                raise _CannotContinue("the previous transcript does not name its tool calls' ids")
            from ..tools import tool_message

            messages.append({"role": "tool", "tool_call_id": ev["id"], "content": tool_message(ev["result"])})
        elif kind == "tool_calls_skipped":
            if last_reply is not None:
                last_reply["tool_calls"] = last_reply["tool_calls"][: int(ev["limit"])]
            messages.append({"role": "user", "content": json.dumps(ev["result"])})
        elif kind == "nudge":
            messages.pop()
            messages.append({"role": "user", "content": ev["content"]})
            cont.nudged = True
        elif kind == "end":
            if ev.get("status") != "errored":
                raise _CannotContinue("the previous attempt did not error")
    cont.budget = budget
    return cont
