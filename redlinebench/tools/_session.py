"""ToolSession: one open document, one author, the dispatcher that never raises."""

from __future__ import annotations

import copy
import json
import logging
import traceback
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._text import encodable_obj
from ..errors import ToolFailure
from ._functions import TOOL_FUNCTIONS, paragraph_ids_by_number
from ._schema import check_arguments, function_schema

if TYPE_CHECKING:
    from ..docx import RedlineDocument

__all__ = ["ToolLimits", "ToolSession", "TOOL_SCHEMAS", "TOOL_NAMES", "tool_schemas"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolLimits:
    """What one call may carry. Over-limit calls come back as errors the model can act on."""

    max_edits_per_batch: int = 50
    max_text_chars: int = 4000
    max_comment_chars: int = 4000
    max_argument_chars: int = 400_000  # the raw JSON string of one call


_BASE_SCHEMAS: dict[str, dict[str, Any]] = {fn.__name__: function_schema(fn) for fn in TOOL_FUNCTIONS}
TOOL_NAMES: tuple[str, ...] = tuple(_BASE_SCHEMAS)


def tool_schemas(limits: ToolLimits | None = None) -> list[dict[str, Any]]:
    """The five schemas, with ``limits`` written into them (batch size, text lengths)."""
    limits = limits or ToolLimits()
    schemas = copy.deepcopy(list(_BASE_SCHEMAS.values()))
    for schema in schemas:
        fn = schema["function"]
        props = fn["parameters"]["properties"]
        if fn["name"] == "propose_edits":
            props["edits"]["maxItems"] = limits.max_edits_per_batch
            props["edits"]["minItems"] = 1
            item = props["edits"]["items"]["properties"]
            item["new_text"]["maxLength"] = limits.max_text_chars
            item["anchor"]["properties"]["text"]["maxLength"] = limits.max_text_chars
            item["comment"]["maxLength"] = limits.max_comment_chars
            item["anchor"]["properties"]["occurrence"]["minimum"] = 1
        for key in ("text", "comment", "summary"):
            if key in props:
                props[key]["maxLength"] = limits.max_comment_chars
        if "span" in props:
            props["span"]["maxLength"] = limits.max_text_chars
    return schemas


#: OpenAI function-calling schemas of the five tools, with the default limits.
TOOL_SCHEMAS: list[dict[str, Any]] = tool_schemas()

_FUNCTIONS = {fn.__name__: fn for fn in TOOL_FUNCTIONS}
_PARAMETERS = {name: schema["function"]["parameters"] for name, schema in _BASE_SCHEMAS.items()}


class ToolSession:
    """Holds one open ``RedlineDocument`` for one author and runs the model's tool calls.

    Args:
        doc: the open document (edited in place).
        author: the tracked-change author every edit and comment carries.
        limits: per-call limits (``ToolLimits()`` by default).
        output_path: where ``end_session`` saves (atomically); ``None`` keeps it in memory.
        date: the timestamp written on revisions and comments (``None``: now, per the engine).
    """

    def __init__(self, doc: RedlineDocument, author: str, *, limits: ToolLimits | None = None,
                 output_path: str | Path | None = None, date: datetime | None = None) -> None:
        if not isinstance(author, str) or not author.strip():
            raise ValueError("a ToolSession needs a non-empty author")
        self.doc = doc
        self.author = author
        self.limits = limits or ToolLimits()
        self.output_path = Path(output_path) if output_path is not None else None
        self.date = date
        self.finished = False
        self.summary: str | None = None
        self.last_exception: str | None = None  # traceback text of the last internal error
        self._calls: Counter[str] = Counter()
        self._edits_ok = 0
        self._edits_failed = 0
        self._errors = 0
        self._internal = 0
        self._comments = 0
        self._pid_cache: dict[int, str] | None = None
        self.legend_shown = 0   # how many author aliases the model has seen in a legend
        self.schemas = tool_schemas(self.limits)

    # ------------------------------------------------------------------ dispatcher

    def dispatch(self, name: str, arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
        """Run one tool call. Always returns a dict: the tool's result or ``{"error", "message", ...}``."""
        label = name if isinstance(name, str) and name in _FUNCTIONS else "<unknown>"
        self._calls[label] += 1
        try:
            if label == "<unknown>":
                raise ToolFailure("unknown_tool", f"no tool named {str(name)[:80]!r}; the tools are: "
                                                  f"{', '.join(TOOL_NAMES)}")
            if self.finished:
                raise ToolFailure("session_finished", "end_session was already called; no further tool calls "
                                                      "are accepted")
            args = self._parse_arguments(arguments)
            check_arguments(_PARAMETERS[name], args)
            args = {k: v for k, v in args.items() if v is not None}
            result = _FUNCTIONS[name](self, **args)
        except ToolFailure as failure:
            self._errors += 1
            return failure.to_dict()
        except Exception as exc:  # a bug in the engine must not end the episode: report it, keep the trace
            self._errors += 1
            self._internal += 1
            self.last_exception = traceback.format_exc()
            log.error("tool %s raised %s", name, self.last_exception)
            return ToolFailure("internal_error", f"the tool failed unexpectedly ({type(exc).__name__}: "
                                                 f"{str(exc)[:200]}); the document is unchanged by this "
                                                 f"call only if no result was reported").to_dict()
        if self._pid_cache is not None and name in ("propose_edits", "mark_reserved"):
            self._pid_cache = None  # new paragraphs may exist now
        return result

    def _parse_arguments(self, arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
        if arguments is None:
            return {}
        if isinstance(arguments, (bytes, bytearray)):
            try:
                arguments = arguments.decode("utf-8")
            except UnicodeDecodeError:
                raise ToolFailure("invalid_json", "arguments are not UTF-8 text") from None
        if isinstance(arguments, str):
            if len(arguments) > self.limits.max_argument_chars:
                raise ToolFailure("arguments_too_large", f"the arguments are {len(arguments)} characters; the "
                                                         f"limit is {self.limits.max_argument_chars}",
                                  limit=self.limits.max_argument_chars)
            if not arguments.strip():
                return {}
            try:
                value = json.loads(arguments)
            except json.JSONDecodeError as exc:
                raise ToolFailure("invalid_json", f"arguments are not valid JSON: {exc.msg} at line {exc.lineno} "
                                                  f"column {exc.colno}") from None
            except RecursionError:
                raise ToolFailure("invalid_json", "arguments are nested too deeply") from None
        else:
            value = arguments
        if not isinstance(value, Mapping):
            raise ToolFailure("invalid_arguments", f"arguments must be a JSON object, got "
                                                   f"{type(value).__name__}")
        return encodable_obj(dict(value))  # "\ud800" escapes decode to text no file can hold

    # ------------------------------------------------------------------ bookkeeping used by the tools

    @property
    def paragraph_ids_by_number(self) -> dict[int, str]:
        if self._pid_cache is None:
            self._pid_cache = paragraph_ids_by_number(self.doc)
        return self._pid_cache

    def record_edits(self, ok: int, failed: int, comments: int = 0) -> None:
        """A batch's outcome; ``comments``: the margin comments its applied edits carry."""
        self._edits_ok += ok
        self._edits_failed += failed
        self._comments += comments
        self._pid_cache = None

    def record_comment(self) -> None:
        self._comments += 1

    def finish(self, summary: str) -> None:
        self.finished = True
        self.summary = summary

    @property
    def stats(self) -> dict[str, Any]:
        return {
            "calls_by_tool": {name: self._calls[name] for name in sorted(self._calls)},
            "edits_ok": self._edits_ok,
            "edits_failed": self._edits_failed,
            "errors": self._errors,
            "internal_errors": self._internal,
            "comments_added": self._comments,
            "finished": self.finished,
        }
