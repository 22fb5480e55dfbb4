"""The five JSON tools over one open ``RedlineDocument`` (SPEC §4).

``TOOL_SCHEMAS`` is what a model is shown; ``ToolSession.dispatch(name, arguments)`` runs a
call and always returns a dict (errors as ``{"error": code, "message": ...}``);
``tool_message(result)`` is the text the model is sent for it (a view as text, the rest as JSON).
The tools know the document, never litellm.
"""

from ._functions import Anchor, Edit, read_range
from ._render import tool_message
from ._session import TOOL_NAMES, TOOL_SCHEMAS, ToolLimits, ToolSession, tool_schemas

__all__ = ["TOOL_SCHEMAS", "TOOL_NAMES", "ToolLimits", "ToolSession", "tool_schemas", "tool_message", "Anchor",
           "Edit", "read_range"]
