"""The public way to write an agent: open one episode and drive the five tools yourself.

An agent is any object with ``name``, ``label`` and ``async run(task, workdir, *, trial) -> Episode``
(:class:`~redlinebench.agent.base.Agent`). Inside ``run``, :func:`open_episode` gives it what our own
litellm loop uses, so the grading sees the same kind of document::

    async def run(self, task, workdir, *, trial):
        with open_episode(task, workdir, trial=trial, limits=self.limits) as ep:
            ep.system_prompt                     # instruction + tool guide + grounding (prompt_version)
            ep.schemas                           # the five tools, OpenAI function format
            result = ep.call("read_document", {})            # a dict, never raises
            text = ep.message(result)                         # what our loop sends a model for it
            ep.transcript.write({"type": "note", "text": "..."})  # your own events
            ...
            ep.call("end_session", {"summary": "..."})        # saves the redline
        return ep.episode()                                   # Episode with metrics.json figures

On leaving the block the redline is saved to ``workdir/redline.docx`` (if ``end_session`` did not
save it already) and the transcript is closed. The tool calls are counted and written to the
transcript for you, in the same event shape as the litellm loop's (``{"type": "tool", ...}``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .base import REDLINE, TRANSCRIPT, Episode
from .limits import AgentLimits
from .transcript import Transcript


@dataclass
class EpisodeContext:
    """What an agent receives for one trial (see the module docstring)."""

    task: Any                 # redlinebench.tasks.Task: instruction, grounding, author, contract_path
    session: Any              # redlinebench.tools.ToolSession over the opened contract, for task.author
    transcript: Transcript    # workdir/transcript.jsonl: write(dict) appends one redacted line
    limits: AgentLimits       # the run's --max-steps / --max-tokens / --max-cost / --timeout
    workdir: Path
    trial: int
    steps: int = 0            # model calls: the agent counts them (``ep.steps += 1``)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None   # None: unknown (cost_known false in metrics.json)
    status: str = "completed"
    end_reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return self.session.schemas

    @property
    def system_prompt(self) -> str:
        from .prompt import system_prompt

        return system_prompt(self.task)

    @property
    def kickoff_message(self) -> str:
        from .prompt import kickoff_message

        return kickoff_message(self.task)

    def call(self, name: str, arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
        """Run one tool call (never raises: errors come back as ``{"error", "message"}``), logged."""
        result = self.session.dispatch(name, arguments)
        self.transcript.write({"type": "tool", "step": self.steps, "name": name, "arguments": arguments,
                               "result": result})
        return result

    @staticmethod
    def message(result: Mapping[str, Any]) -> str:
        """The text our litellm loop sends the model for ``result`` (``tools.tool_message``)."""
        from ..tools import tool_message

        return tool_message(result)

    @property
    def finished(self) -> bool:
        return bool(self.session.finished)

    def metrics(self) -> dict[str, Any]:
        stats = self.session.stats
        return {"steps": self.steps, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "cost_usd": self.cost_usd, "cost_known": self.cost_usd is not None, "retries": 0,
                "tool_calls": dict(stats.get("calls_by_tool") or {}), "tool_errors": stats.get("errors", 0),
                "edits_ok": stats.get("edits_ok", 0), "edits_failed": stats.get("edits_failed", 0),
                **self.extra}

    def episode(self, error: str | None = None) -> Episode:
        """The :class:`Episode` to return from ``run`` (status ``errored`` when ``error`` is given)."""
        status = "errored" if error else self.status
        reason = self.end_reason or ("end_session" if self.finished else "agent_stopped")
        return Episode(status, reason, self.metrics(), error=error)


@contextmanager
def open_episode(task: Any, workdir: str | Path, *, trial: int, limits: AgentLimits | None = None,
                 agent: str = "") -> Iterator[EpisodeContext]:
    """Open the task's contract in a ToolSession for ``task.author`` and a transcript in ``workdir``;
    on a normal exit save the redline to ``workdir/redline.docx`` (see the module docstring)."""
    from ..docx import RedlineDocument
    from ..tools import ToolSession

    workdir = Path(workdir)
    out = workdir / REDLINE
    doc = RedlineDocument.open(task.contract_path, name=f"{task.task_id}/contract.docx")
    with Transcript(workdir / TRANSCRIPT) as log:
        ctx = EpisodeContext(task=task, session=ToolSession(doc, task.author, output_path=out), transcript=log,
                             limits=limits or AgentLimits(), workdir=workdir, trial=trial)
        log.write({"type": "start", "task_id": task.task_id, "agent": agent, "trial": trial,
                   "tools": [s["function"]["name"] for s in ctx.schemas]})
        yield ctx
        if not (ctx.session.finished and out.is_file()):
            doc.save(out)
        log.write({"type": "end", "status": ctx.status, "end_reason": ctx.end_reason or
                   ("end_session" if ctx.finished else "agent_stopped"), "steps": ctx.steps})
