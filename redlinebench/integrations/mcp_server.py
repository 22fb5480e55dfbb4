"""``redlinebench mcp``: the five tools as an MCP server (stdio), for agents that speak MCP.

One tool surface: the server holds a :class:`~redlinebench.tools.ToolSession` and answers
``tools/list`` with ``ToolSession.schemas`` and ``tools/call`` with ``tool_message(dispatch(...))``,
the very text our litellm loop sends a model (``isError`` set when the result is an error). So a
Claude Code, Codex or Cursor session edits the document through the engine that grades it, with
the benchmark's schemas, results and errors.

With a task (``--task-dir``) the server also offers its instruction and grounding: the prompt
``redline_task`` (the benchmark's system prompt and kickoff message) and resources
``redlinebench://task/instruction`` and ``redlinebench://task/grounding/<name>``; the redline is
saved where ``import outputs`` looks for it (``<outputs>/<task_id>.docx``).

``end_session`` saves the redline; if the client disconnects without it after changing the
document, the document as it stands is saved on exit (as a run grades an episode that hit its
step limit).

Requires the optional extra ``mcp`` (``pip install ".[mcp]"`` in the checkout).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import ConfigError

SERVER_NAME = "redlinebench"
PROMPT_NAME = "redline_task"
RESOURCE_PREFIX = "redlinebench://task/"
INSTALL_HINT = ('the MCP server needs the official MCP SDK: pip install ".[mcp]" in the redlinebench checkout '
                "(or pip install 'mcp>=2.3,<3')")


def _sdk() -> tuple[Any, Any]:
    try:
        import mcp_types
        from mcp.server.lowlevel import Server
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return Server, mcp_types


@dataclass
class McpSetup:
    """What one server serves: a session over one document, and optionally the task it answers."""

    session: Any                  # redlinebench.tools.ToolSession
    output: Path                  # where the redline is saved
    task: Any | None = None       # redlinebench.tasks.Task


def default_output(task: Any | None, document: Path | None, *, outputs: Path, trial: int | None) -> Path:
    """Where ``import outputs`` finds a task's redline (``<outputs>/<task_id>.docx``, or
    ``<outputs>/<task_id>/<trial>.docx``); beside a bare document, ``<name>.redline.docx``."""
    if task is not None:
        return outputs / task.task_id / f"{trial}.docx" if trial else outputs / f"{task.task_id}.docx"
    assert document is not None
    return document.with_name(f"{document.stem}.redline.docx")


def open_setup(*, document: str | Path | None = None, author: str | None = None, task_dir: str | Path | None = None,
               output: str | Path | None = None, outputs: str | Path = "redlinebench-outputs",
               trial: int | None = None, date: datetime | None = None) -> McpSetup:
    """Open the document (or the task's contract) in a ToolSession; a bad argument is a ConfigError."""
    from ..docx import RedlineDocument
    from ..tools import ToolSession

    task = None
    if task_dir is not None:
        if document is not None:
            raise ConfigError("give --document or --task-dir, not both (a task's document is its contract)")
        from ._common import load_single_task

        task = load_single_task(task_dir)
        if author is not None and author != task.author:
            raise ConfigError(f"--author {author!r} is not the task's author string {task.author!r}; the gate "
                              "counts only work by the task's author (leave --author out)")
        author, source = task.author, Path(task.contract_path)
    elif document is not None:
        source = Path(document)
        if not author or not author.strip():
            raise ConfigError("--author is required with --document (the tracked-change author of every edit)")
    else:
        raise ConfigError("give --document FILE --author NAME, or --task-dir DIR")
    doc = RedlineDocument.open(source, name=source.name)
    out = Path(output) if output is not None else default_output(task, source, outputs=Path(outputs), trial=trial)
    if out.resolve() == source.resolve():
        raise ConfigError("--output would overwrite the input document; name another file", path=out)
    out.parent.mkdir(parents=True, exist_ok=True)
    return McpSetup(ToolSession(doc, author, output_path=out, date=date), out, task)


def build_server(setup: McpSetup) -> Any:
    """The MCP server (``mcp.server.lowlevel.Server``) over ``setup``'s session."""
    Server, types = _sdk()
    from .. import __version__
    from ..tools import tool_message

    session = setup.session
    tools = [types.Tool(name=s["function"]["name"], description=s["function"].get("description"),
                        input_schema=s["function"]["parameters"]) for s in session.schemas]
    task = setup.task

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        result = session.dispatch(params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=tool_message(result))],
                                    is_error="error" in result)

    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if task is not None:
        documents = _task_resources(task)

        async def list_prompts(ctx: Any, params: Any) -> Any:
            return types.ListPromptsResult(prompts=[types.Prompt(
                name=PROMPT_NAME, description=f"Redline {task.task_id} for {task.represented_party} "
                                              f"(author {task.author!r}): the benchmark's instruction, "
                                              "tool guide and grounding")])

        async def get_prompt(ctx: Any, params: Any) -> Any:
            from ..agent import kickoff_message, system_prompt

            if params.name != PROMPT_NAME:
                raise ValueError(f"no prompt named {params.name!r}; the prompt is {PROMPT_NAME!r}")
            text = system_prompt(task) + "\n\n" + kickoff_message(task)
            return types.GetPromptResult(description=task.task_id, messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))])

        async def list_resources(ctx: Any, params: Any) -> Any:
            return types.ListResourcesResult(resources=[
                types.Resource(name=name, uri=uri, mime_type="text/markdown", description=desc)
                for uri, (name, desc, _) in documents.items()])

        async def read_resource(ctx: Any, params: Any) -> Any:
            uri = str(params.uri)
            if uri not in documents:
                raise ValueError(f"no resource {uri!r}; see resources/list")
            return types.ReadResourceResult(contents=[
                types.TextResourceContents(uri=uri, mime_type="text/markdown", text=documents[uri][2])])

        handlers.update(on_list_prompts=list_prompts, on_get_prompt=get_prompt, on_list_resources=list_resources,
                        on_read_resource=read_resource)
    instructions = ("Five tools edit one Word document with tracked changes and comments: read_document, "
                    "propose_edits, add_comment, mark_reserved, end_session. Call end_session when done: "
                    f"it saves the redline ({setup.output.name}).")
    return Server(SERVER_NAME, version=__version__, instructions=instructions, **handlers)


def _task_resources(task: Any) -> dict[str, tuple[str, str, str]]:
    """uri -> (name, description, text): the instruction and each grounding document."""
    out = {f"{RESOURCE_PREFIX}instruction": ("instruction", f"{task.task_id}: the client's instruction",
                                             task.instruction)}
    for name, text in sorted((task.grounding or {}).items()):
        out[f"{RESOURCE_PREFIX}grounding/{name}"] = (name, f"grounding document {name}", text)
    return out


def serve_stdio(setup: McpSetup) -> None:
    """Serve until the client closes stdin; then save the redline if ``end_session`` did not."""
    import anyio

    server = build_server(setup)
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        session, stats = setup.session, setup.session.stats
        if not session.finished and (stats.get("edits_ok") or stats.get("comments_added")):
            session.doc.save(setup.output)
            from .._termtable import echo

            echo(f"redlinebench mcp: the client ended without end_session; saved the document as it stands "
                 f"to {setup.output}", err=True)
