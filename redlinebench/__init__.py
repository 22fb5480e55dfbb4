"""redlinebench: the RedlineBench contract-negotiation benchmark as software.

The public API is re-exported lazily so ``import redlinebench`` stays cheap (no litellm,
no datasets until used).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from . import config as _config  # noqa: F401  (offline-safe environment defaults)
from .errors import ConfigError, DocxError, RedlineBenchError, TaskError, ToolFailure

__version__ = "0.1.0"

# name -> module that defines it
_LAZY = {
    "RedlineDocument": ".docx",
    "Task": ".tasks",
    "TaskSet": ".tasks",
    "Rubric": ".tasks",
    "load_tasks": ".tasks",
    "load_dataset": ".dataset",
    "resolve_source": ".tasks",
    "validate_tasks": ".tasks",
    "reward": ".scoring",
    "summarize": ".scoring",
    "arena": ".runner",
    "ArenaSpec": ".runner",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'redlinebench' has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)


__all__ = [
    "ConfigError",
    "DocxError",
    "RedlineBenchError",
    "TaskError",
    "ToolFailure",
    *_LAZY,
]
