"""Our five document tools as Inspect AI tools, with the same schemas, semantics and results.

Every Inspect tool is a thin door into one :class:`redlinebench.tools.ToolSession`: the
arguments the model sent go to ``session.dispatch`` untouched and its JSON result comes back
as the tool output. So validation, limits, error dicts (``{"error", "message"}``) and the
document itself behave exactly as in a local ``redlinebench run``. The parameter schemas are
taken from ``TOOL_SCHEMAS`` (the one declaration), not re-derived from Python signatures.
"""

from __future__ import annotations

from typing import Any

TOOL_NAMES = ("read_document", "propose_edits", "add_comment", "mark_reserved", "end_session")


def _schemas() -> dict[str, dict[str, Any]]:
    from ..tools import TOOL_SCHEMAS

    out: dict[str, dict[str, Any]] = {}
    for schema in TOOL_SCHEMAS:
        fn = schema.get("function", schema)
        out[fn["name"]] = fn
    missing = [n for n in TOOL_NAMES if n not in out]
    if missing:
        raise RuntimeError(f"redlinebench.tools.TOOL_SCHEMAS lacks {', '.join(missing)}")
    return out


def _params(fn_schema: dict[str, Any]):
    from inspect_ai.tool import ToolParams

    params = dict(fn_schema.get("parameters") or {"type": "object", "properties": {}})
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    params.setdefault("required", [])
    return ToolParams.model_validate(params)


def render_result(result: Any) -> str:
    """A tool result as the model reads it: the same text the local agent loop sends."""
    from ..tools import tool_message

    return tool_message(result)


def session_tool(session: Any, name: str, fn_schema: dict[str, Any]):
    """One Inspect ``ToolDef`` that forwards to ``session.dispatch(name, arguments)``."""
    from inspect_ai.tool import ToolDef

    async def execute(**kwargs: Any) -> str:
        return render_result(session.dispatch(name, kwargs))

    return ToolDef(
        tool=execute,
        name=name,
        description=fn_schema.get("description") or name,
        parameters=_params(fn_schema),
        parallel=False,  # one document, edits apply in order
        max_output=0,    # never truncate: the read view must reach the model whole, as in local runs
    )


def session_tools(session: Any) -> dict[str, Any]:
    """The five tools over ``session``, by name (``end_session`` is used as the agent's submit)."""
    schemas = _schemas()
    return {name: session_tool(session, name, schemas[name]) for name in TOOL_NAMES}


__all__ = ["TOOL_NAMES", "render_result", "session_tool", "session_tools"]
