"""What every agent is: given a task and an empty directory, leave a redline and a transcript there.

Agents are registered by name so a run stores names and rebuilds the same agents on resume. Besides
the built-in names, :func:`create_agent` takes an import path (``pkg.module:factory``) or a name a
package registers in the ``redlinebench.agents`` entry-point group (``agent.plugins``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from ..errors import ConfigError

#: The files an agent leaves in its working directory (the runner's layout reuses these names).
REDLINE = "redline.docx"
TRANSCRIPT = "transcript.jsonl"


#: ``Episode.end_reason`` of an agent that deliberately leaves no redline (an imported folder with
#: no file for the task): graded as a gate failure ("no output document was produced", reward 0),
#: not as an errored episode that ``--resume`` would retry.
NO_OUTPUT = "no_output"

#: ``Episode.end_reason`` of an episode whose provider endpoint could not be reached at all
#: (connection refused, name not resolved, TLS failure): errored like any provider failure, and
#: the runner stops starting episodes of that entrant after a few in a row (they cannot heal).
UNREACHABLE = "endpoint_unreachable"
#: ``Episode.end_reason`` of an episode whose key was missing or rejected, and of one whose account
#: is out of credit or quota: no retry and no other episode can succeed, so the runner stops
#: starting episodes of that entrant after the first (``STOPS_AT_ONCE``).
AUTH_FAILED = "auth_failed"
QUOTA_EXHAUSTED = "quota_exhausted"
STOPS_AT_ONCE = frozenset({AUTH_FAILED, QUOTA_EXHAUSTED})
#: The partial document of an errored episode: the redline as it stood after its last applied
#: change, kept so the work is not lost (named in metrics.json as ``partial_redline``).
PARTIAL_REDLINE = "redline.partial.docx"


class Agent(Protocol):
    """What the runner calls, once per trial, in a fresh empty ``workdir``.

    It must leave ``workdir/redline.docx`` (the document to grade; ``agent.episode`` saves it for
    you) and should leave ``workdir/transcript.jsonl`` (one JSON object a line; the report shows
    it), then return an :class:`Episode`. Exceptions are recorded as an errored trial.
    """

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
    """Build the agent registered as ``name`` (``llm``, ``noop``, ``accept-all``, ``golden``,
    ``outputs``), or a plugin: an import path ``pkg.module:factory`` or a ``redlinebench.agents``
    entry-point name (``agent.plugins``). A plugin that cannot be loaded is a ConfigError."""
    _load_builtins()
    factory = _REGISTRY.get(name)
    if factory is None:
        from .plugins import load_plugin

        factory = load_plugin(name, known=sorted(_REGISTRY)).factory
    return factory(**kwargs)


def _load_builtins() -> None:
    from . import baselines, llm, outputs  # noqa: F401  (register on import)
