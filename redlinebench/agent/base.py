"""What every agent is: given a task and an empty directory, leave a redline and a transcript there.

Agents are registered by name so a run stores names and rebuilds the same agents on resume.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from ..errors import ConfigError

#: The files an agent leaves in its working directory (the runner's layout reuses these names).
REDLINE = "redline.docx"
TRANSCRIPT = "transcript.jsonl"


class Agent(Protocol):
    name: str
    label: str   # the "model" column of grades and the leaderboard

    async def run(self, task: Any, workdir: Path, *, trial: int) -> "Episode": ...


@dataclass
class Episode:
    """The outcome of one episode; ``metrics`` becomes metrics.json (plus runner fields).

    ``status``: ``completed`` (the agent finished on its own), ``limit_reached`` (a step, token or
    cost budget ended it: the document as it stands is graded), ``errored`` (the provider failed
    after all retries, or the input could not be opened: nothing is graded and ``--resume`` tries
    the trial again).
    """

    status: str
    end_reason: str
    metrics: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


_REGISTRY: dict[str, Callable[..., Agent]] = {}


def agent(name: str) -> Callable[[Callable[..., Agent]], Callable[..., Agent]]:
    def deco(factory: Callable[..., Agent]) -> Callable[..., Agent]:
        _REGISTRY[name] = factory
        return factory

    return deco


def agent_names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def create_agent(name: str, **kwargs: Any) -> Agent:
    """Build the agent registered as ``name`` (``llm``, ``noop``, ``accept-all``, ``golden``)."""
    _load_builtins()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown agent {name!r} (known: {', '.join(sorted(_REGISTRY))})") from None
    return factory(**kwargs)


def _load_builtins() -> None:
    from . import baselines, llm  # noqa: F401  (register on import)
