"""A tool result as the model reads it: text as text, structure as small JSON beside it.

A result dict may carry a ``"view"``: lines of the read view (the whole document for
``read_document``, the touched paragraphs for the editing tools). The model gets the rest of the
result as one line of compact JSON, a blank line, then the view verbatim, so a contract's quotes and
line breaks reach it unescaped (a view inside a JSON string costs a backslash per quote and newline).
A result without a view is its JSON. Transcripts keep the dict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["VIEW_KEY", "tool_message"]

#: The result key holding read-view text (sent as text, never escaped into JSON).
VIEW_KEY = "view"


def tool_message(result: Mapping[str, Any] | Any) -> str:
    """The content of the tool message for ``result`` (what every agent loop sends the model)."""
    if not isinstance(result, Mapping) or not isinstance(result.get(VIEW_KEY), str):
        return json.dumps(result, ensure_ascii=False, default=str)
    rest = {k: v for k, v in result.items() if k != VIEW_KEY}
    view = result[VIEW_KEY]
    if not rest:
        return view
    return json.dumps(rest, ensure_ascii=False, default=str) + "\n\n" + view
