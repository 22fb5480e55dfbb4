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

from pathlib import Path


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


def shown(value: object, limit: int = 60) -> str:
    """``repr`` of a value a model or file sent, clipped: an error must not echo a 5,000-digit id
    (or a whole hostile argument) back into the model's context or a log."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def echoed(value: object, limit: int = 60) -> object:
    """A field a tool result echoes back (an op, a paragraph id): as sent when short, else ``shown``."""
    if value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= limit):
        return value
    return shown(value, limit)


__all__ = [
    "RedlineBenchError",
    "DocxError",
    "TaskError",
    "ConfigError",
    "JudgeError",
    "HubError",
    "ToolFailure",
    "echoed",
    "shown",
]
