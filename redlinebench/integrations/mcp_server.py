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
step limit). Nothing is overwritten without a word: when the output already exists the server
continues from it (and says so on stderr), so a client that starts one server process per call
(the MCP Inspector's CLI) builds on the previous call's saved work; ``restart=True``
(``--restart``) starts again from the clean document and says the output will be replaced. An
output that cannot be written is refused at start, not at ``end_session``.

A line on stdin that is not JSON, or not a JSON-RPC 2.0 message (a JSON array, no ``jsonrpc``),
gets a JSON-RPC error reply (-32700 parse error, -32600 invalid request) and a line on stderr;
an unknown prompt or resource is an invalid-params error (-32602), never a traceback.

Requires the optional extra ``mcp`` (``pip install ".[mcp]"`` in the checkout).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DocxError, install_hint

SERVER_NAME = "redlinebench"
PROMPT_NAME = "redline_task"
RESOURCE_PREFIX = "redlinebench://task/"
INSTALL_HINT = f"the MCP server needs the official MCP SDK: {install_hint('mcp')} (or pip install 'mcp>=2.3,<3')"


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
    notice: str | None = None     # what happened to an existing output (printed on stderr at start)


def default_output(task: Any | None, document: Path | None, *, outputs: Path, trial: int | None) -> Path:
    """Where ``import outputs`` finds a task's redline (``<outputs>/<task_id>.docx``, or
    ``<outputs>/<task_id>/<trial>.docx``); beside a bare document, ``<name>.redline.docx``."""
    if task is not None:
        return outputs / task.task_id / f"{trial}.docx" if trial else outputs / f"{task.task_id}.docx"
    assert document is not None
    return document.with_name(f"{document.stem}.redline.docx")


def open_setup(*, document: str | Path | None = None, author: str | None = None, task_dir: str | Path | None = None,
               output: str | Path | None = None, outputs: str | Path = "redlinebench-outputs",
               trial: int | None = None, date: datetime | None = None, restart: bool = False) -> McpSetup:
    """Open the document (or the task's contract) in a ToolSession; a bad argument is a ConfigError.

    An existing output is continued from (``restart``: replaced, from the clean document); either
    way :attr:`McpSetup.notice` says so. An output that cannot be written is refused here."""
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
    out = Path(output) if output is not None else default_output(task, source, outputs=Path(outputs), trial=trial)
    if out.resolve() == source.resolve():
        raise ConfigError("--output would overwrite the input document; name another file", path=out)
    _check_writable(out)
    notice = None
    start = source
    if out.exists() and not restart:
        start = out
        notice = (f"continuing from the redline already saved at {out} (its edits and comments are kept; "
                  "--restart starts again from the clean document)")
    elif out.exists():
        notice = f"--restart: starting from the clean document; {out} will be replaced when the work is saved"
    try:
        doc = RedlineDocument.open(start, name=source.name)
    except DocxError as exc:
        if start == source:
            raise
        raise ConfigError(f"the redline already saved there cannot be continued from ({exc.problem}); "
                          "--restart starts from the clean document and replaces it", path=out) from None
    return McpSetup(ToolSession(doc, author, output_path=out, date=date), out, task, notice)


def _check_writable(out: Path) -> None:
    """Refuse an output that cannot be written now, not after the client's work (at ``end_session``)."""
    import os
    import tempfile

    if out.is_dir():
        raise ConfigError("--output is a folder; name a .docx file", path=out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out.parent, prefix=".redlinebench-probe-"):
            pass
    except OSError as exc:
        raise ConfigError(f"cannot write the output here: {exc.strerror or exc}", path=out) from None
    if out.exists() and not os.access(out, os.W_OK):
        raise ConfigError("cannot write the output: the file is read-only", path=out)


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
                raise _invalid_params(f"no prompt named {params.name!r}; the prompt is {PROMPT_NAME!r}")
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
                raise _invalid_params(f"no resource {uri!r}; see resources/list")
            return types.ReadResourceResult(contents=[
                types.TextResourceContents(uri=uri, mime_type="text/markdown", text=documents[uri][2])])

        handlers.update(on_list_prompts=list_prompts, on_get_prompt=get_prompt, on_list_resources=list_resources,
                        on_read_resource=read_resource)
    instructions = ("Five tools edit one Word document with tracked changes and comments: read_document, "
                    "propose_edits, add_comment, mark_reserved, end_session. Call end_session when done: "
                    f"it saves the redline ({setup.output.name}).")
    return Server(SERVER_NAME, version=__version__, instructions=instructions, **handlers)


def _invalid_params(message: str) -> Exception:
    """An MCP error the client receives as JSON-RPC -32602 (no traceback on the server's stderr)."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(INVALID_PARAMS, message)


def bad_message_reply(exc: Exception) -> tuple[Any, str]:
    """The JSON-RPC error reply to a stdin line the SDK could not read as a message, and the
    stderr line: -32700 for text that is not JSON, -32600 for JSON that is not a JSON-RPC 2.0
    message (an array, no ``jsonrpc``); the request's id when it can be told, else null."""
    import mcp_types as types

    errors = exc.errors() if hasattr(exc, "errors") else []
    if any(e.get("type") == "json_invalid" for e in errors) or not errors:
        code, what = types.PARSE_ERROR, "a line that is not JSON"
    else:
        code, what = types.INVALID_REQUEST, "JSON that is not a JSON-RPC 2.0 message (an object with jsonrpc \"2.0\")"
    ids = [e["input"]["id"] for e in errors if isinstance(e.get("input"), dict)
           and isinstance(e["input"].get("id"), (str, int)) and not isinstance(e["input"].get("id"), bool)]
    message = f"received {what}; ignored"
    reply = types.JSONRPCError(jsonrpc="2.0", id=ids[0] if ids else None,
                               error=types.ErrorData(code=code, message=message))
    return reply, f"redlinebench mcp: {message} (JSON-RPC error {code} sent)"


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

    from mcp.shared.message import SessionMessage

    if setup.notice:
        print(f"redlinebench mcp: {setup.notice}", file=sys.stderr, flush=True)

    async def main() -> None:
        async with stdio_server() as (read, write):
            inbox, server_read = anyio.create_memory_object_stream(0)

            async def relay() -> None:  # the SDK drops unreadable lines silently: each gets a reply here
                async with inbox:
                    async for item in read:
                        if isinstance(item, Exception):
                            reply, line = bad_message_reply(item)
                            print(line, file=sys.stderr, flush=True)
                            await write.send(SessionMessage(reply))
                        else:
                            await inbox.send(item)

            async with anyio.create_task_group() as tg:
                tg.start_soon(relay)
                await server.run(server_read, write, server.create_initialization_options())
                tg.cancel_scope.cancel()

    try:
        anyio.run(main)
    finally:
        session, stats = setup.session, setup.session.stats
        if not session.finished and (stats.get("edits_ok") or stats.get("comments_added")):
            session.doc.save(setup.output)
            from .._termtable import echo

            echo(f"redlinebench mcp: the client ended without end_session; saved the document as it stands "
                 f"to {setup.output}", err=True)
