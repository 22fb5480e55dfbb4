"""The Inspect agent: Inspect's ``react`` loop over our five tools, one document per sample.

Each sample opens its own :class:`RedlineDocument` and :class:`ToolSession`; ``end_session``
is react's submit tool, so the loop ends exactly when the model declares the redline done.
If a message/token/time limit stops the loop first, the document is saved as it stands and
graded (as a local run does with ``limit_reached``). The output path and tool statistics go
into the sample store for the scorer and the log.
"""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

OUTPUT_KEY = "redlinebench:output"
STATS_KEY = "redlinebench:tool_stats"
FINISHED_KEY = "redlinebench:finished"


def task_for_state(state: Any) -> Any:
    """The :class:`redlinebench.tasks.Task` behind a sample (its directory is in the metadata)."""
    from ._common import cached_task

    root = (state.metadata or {}).get("task_root")
    if not root:
        from ..errors import TaskError

        raise TaskError(f"sample {state.sample_id!r} has no 'task_root' metadata (not a redlinebench sample)")
    return cached_task(str(root))


def agent_instructions(task: Any) -> str:
    """The system message: tool guide and grounding (the brief itself is the sample input)."""
    from ..agent.prompt import system_prompt

    return system_prompt(dataclasses.replace(task, instruction="")).strip() + "\n"


def eval_run_id(state: Any) -> str:
    """The id of the eval this sample runs in (``log.eval.eval_id``), else the sample's own uuid.

    One ``eval()`` over several models runs one eval per model; and the same ``output_dir`` may be
    reused by later runs. Either way two samples must never share a document path.
    """
    try:
        from inspect_ai.log._samples import sample_active  # no public accessor in inspect-ai 0.3

        active = sample_active()
    except ImportError:  # pragma: no cover - a future inspect-ai without the private module
        active = None
    eval_id = getattr(active, "eval_id", None) if active is not None else None
    return str(eval_id or getattr(state, "uuid", None) or uuid.uuid4().hex)


def output_path_for(output_dir: Path, state: Any) -> Path:
    """``<output_dir>/<model slug>/<eval id>/<task_id>/epoch-<n>/redline.docx``: one path per sample run."""
    from ..runner.paths import slug

    epoch = getattr(state, "epoch", 1) or 1
    return (output_dir / slug(str(state.model)) / slug(eval_run_id(state)) / slug(str(state.sample_id))
            / f"epoch-{epoch}" / "redline.docx")


def redline_agent_solver(output_dir: Path, judges: str | None = None, message_limit: int | None = None):
    """Build the solver (an Inspect ``@solver`` is registered by :mod:`.inspect_task`).

    With ``judges`` (the scorer's spec), the judge roles are checked before the agent's first
    model call, so a missing ``grader`` binding costs nothing. ``message_limit`` applies the
    native task's cap inside the solver, for hosts that build their own ``Task`` without one
    (lighteval's inspect backend); reaching it ends the loop and the document is graded as it stands.
    """
    async def solve(state: Any, generate: Any) -> Any:
        if judges is not None:
            from .inspect_scorer import check_judge_roles

            check_judge_roles(judges)

        from inspect_ai.agent import AgentPrompt, AgentSubmit, as_solver, react
        from inspect_ai.model import ChatMessageUser

        from ..agent.prompt import kickoff_message
        from ..docx import RedlineDocument
        from ..tools import ToolSession
        from .inspect_tools import session_tools

        task = task_for_state(state)
        out = output_path_for(output_dir, state)
        out.parent.mkdir(parents=True, exist_ok=True)
        doc = RedlineDocument.open(task.contract_path, name=task.task_id)
        session = ToolSession(doc, task.author, output_path=out)
        tools = session_tools(session)
        end = tools.pop("end_session")
        agent = react(
            prompt=AgentPrompt(
                instructions=agent_instructions(task),
                assistant_prompt="Work through the document with the tools; explain each edit in its comment.",
                submit_prompt="When the redline is complete, call {submit}() once; the document is saved as it stands.",
            ),
            tools=list(tools.values()),
            submit=AgentSubmit(name="end_session", tool=end, keep_in_messages=True),
        )
        state.messages.append(ChatMessageUser(content=kickoff_message(task)))
        state.store.set(OUTPUT_KEY, str(out))
        from inspect_ai.util import apply_limits
        from inspect_ai.util import message_limit as limit_messages

        limits = [limit_messages(message_limit)] if message_limit is not None else []
        try:
            with apply_limits(limits, catch_errors=True):
                state = await as_solver(agent)(state, generate)
        finally:
            # A limit or an error ended the loop before end_session: grade the document as it stands.
            if not session.finished:
                doc.save(out)
            state.store.set(FINISHED_KEY, bool(session.finished))
            state.store.set(STATS_KEY, dict(session.stats))
        return state

    return solve


def baseline_solver(agent_name: str, output_dir: Path):
    """A solver running one of our model-free baselines (``noop``, ``accept-all``, ``golden``).

    The baseline writes its redline exactly as in ``redlinebench run --agent NAME``; the scorer then
    grades it like any agent's document, so the scorer can be checked inside Inspect with no model.
    """
    async def solve(state: Any, generate: Any) -> Any:
        import shutil
        import tempfile

        from ..agent import create_agent
        from ..agent.base import REDLINE

        task = task_for_state(state)
        out = output_path_for(output_dir, state)
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="redlinebench-baseline-") as tmp:
            episode = await create_agent(agent_name).run(task, Path(tmp), trial=int(getattr(state, "epoch", 1) or 1))
            produced = Path(tmp) / REDLINE
            if episode.status == "errored" or not produced.is_file():
                from ..errors import RedlineBenchError

                raise RedlineBenchError(f"baseline {agent_name} left no redline for {task.task_id}: "
                                        f"{episode.error or episode.end_reason}")
            shutil.copyfile(produced, out)
        state.store.set(OUTPUT_KEY, str(out))
        state.store.set(FINISHED_KEY, True)
        state.store.set(STATS_KEY, {"baseline": agent_name, **{k: v for k, v in episode.metrics.items()
                                                               if k in ("golden", "accept_all")}})
        state.completed = True
        return state

    return solve


__all__ = ["OUTPUT_KEY", "baseline_solver", "STATS_KEY", "FINISHED_KEY", "agent_instructions", "eval_run_id", "output_path_for",
           "redline_agent_solver", "task_for_state"]
