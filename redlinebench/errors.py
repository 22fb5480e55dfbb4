"""The error tree.

Two families, kept apart on purpose:

* ``RedlineBenchError`` and subclasses are *user* errors (bad file, bad task tree, bad
  configuration). The CLI prints them as one clear line and exits non-zero, never with a
  traceback. They always name the file (or thing) and the problem.
* ``ToolFailure`` is what a *model* sees when a tool call is wrong. It is not a bug and is
  never raised past the tool dispatcher: it becomes a structured error dict the model can
  read and correct.

Anything else that escapes is a bug and keeps its traceback.
"""

from __future__ import annotations

import re
from pathlib import Path


def install_hint(extra: str) -> str:
    """How to install an optional extra: from the checkout (redlinebench is not on PyPI, so
    an install of the package by name from an index cannot work). The one wording every message uses."""
    return f'pip install ".[{extra}]" in the redlinebench checkout'


class RedlineBenchError(Exception):
    """A user-facing error: printed without a traceback by the CLI."""

    exit_code: int = 1

    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        self.path = str(path) if path is not None else None
        self.problem = message
        super().__init__(f"{self.path}: {message}" if self.path else message)


class DocxError(RedlineBenchError):
    """A .docx that cannot be opened, parsed or written safely."""


class TaskError(RedlineBenchError):
    """A task directory, task.toml, instruction.md or rubrics.json that is malformed."""

    def __init__(self, message: str, *, path: str | Path | None = None, field: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message, path=path)


class ConfigError(RedlineBenchError):
    """A bad command-line option, YAML config or environment setting."""

    exit_code = 2


class JudgeError(RedlineBenchError):
    """A judge that could not produce a verdict after all retries."""


class JudgesUnreachable(JudgeError):
    """A judge's endpoint could not be reached (refused, unresolvable): raised by the run's grader
    after the trial's grade.json is written, so the runner can stop starting episodes whose grading
    would fail alike. ``document``: the redline grading opened (for the report's pre-render).
    ``final``: no wait heals it (the account is out of credit or quota): the run stops at once."""

    def __init__(self, message: str, document: object = None, *, final: bool = False) -> None:
        super().__init__(message)
        self.document = document
        self.final = final


class HubError(RedlineBenchError):
    """A refused or failed push to / pull from the Hugging Face Hub."""


class ToolFailure(Exception):
    """A model-facing tool error. ``code`` is a short machine token, ``message`` a sentence."""

    def __init__(self, code: str, message: str, **details: object) -> None:
        self.code = code
        self.message = message
        self.details = details
        super().__init__(f"{code}: {message}")

    def to_dict(self) -> dict[str, object]:
        return {"error": self.code, "message": self.message, **self.details}


#: Characters shown of anything a model or file sent, when an error or result echoes it back.
ECHO_LIMIT = 60
#: The longest id the engine will look up (``p-0012``, ``cmt-3``, ``rev-12``, an occurrence): far
#: more than any document needs, and short enough that parsing one is never costly.
MAX_ID_CHARS = 24
_PADDING = re.compile(r"(?<![0-9])0+(?=[0-9])")
_ID_NUMBER = re.compile(r"\s*(?:([A-Za-z]+)-?)?0*(\d{1,%d})\s*" % MAX_ID_CHARS)


def _huge_int(value: object) -> bool:
    # str() of an int over 4,300 digits raises (Python's conversion limit), and one of a few
    # hundred is already no id: such an int is described, never formatted
    return isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 1000


def shown(value: object, limit: int = ECHO_LIMIT) -> str:
    """``repr`` of a value a model or file sent, clipped: an error must not echo a 5,000-digit id
    (or a whole hostile argument) back into the model's context or a log."""
    if _huge_int(value):
        return f"<an integer of about {int(value.bit_length() * 0.30103)} digits>"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile object's repr must not break an error message
        return f"<a {type(value).__name__}>"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def echoed(value: object, limit: int = ECHO_LIMIT) -> object:
    """A field a tool result echoes back (an op, a paragraph id): as sent when short, else ``shown``."""
    if value is None or isinstance(value, (bool, float)) or (isinstance(value, str) and len(value) <= limit):
        return value
    if isinstance(value, int) and abs(value) < 10 ** 18:
        return value
    return shown(value, limit)


def bounded_id(value: object) -> str | int | None:
    """The one rule for every id a model sends: a string of at most :data:`MAX_ID_CHARS`
    significant characters (surrounding spaces and leading zeros do not count: ``p-0002`` is
    ``p-2``) or an integer of at most that many digits is looked up; anything else is no id of
    this document (None), refused before any parsing. Echo a refused id with :func:`shown`."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 10 ** MAX_ID_CHARS else None
    if isinstance(value, str) and (len(value) <= MAX_ID_CHARS
                                   or len(_PADDING.sub("", value.strip())) <= MAX_ID_CHARS):
        return value
    return None


def id_number(value: object, prefix: str) -> int | None:
    """The number of a bounded id such as ``cmt-3`` / ``3`` (``prefix`` "cmt"), else None."""
    value = bounded_id(value)
    if value is None:
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    match = _ID_NUMBER.fullmatch(value)
    if match is None or (match.group(1) is not None and match.group(1).lower() != prefix.lower()):
        return None
    return int(match.group(2))


def internal_error(exc: BaseException) -> str:
    """The ``error`` text of an operation that failed inside the engine (the document is intact)."""
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001
        message = ""
    if len(message) > 200:
        message = message[:200] + "..."
    return f"internal: {type(exc).__name__}: {message}; nothing was changed"


__all__ = [
    "RedlineBenchError",
    "DocxError",
    "TaskError",
    "ConfigError",
    "JudgeError",
    "HubError",
    "ToolFailure",
    "bounded_id",
    "echoed",
    "id_number",
    "internal_error",
    "shown",
]
