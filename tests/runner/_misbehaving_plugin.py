"""Plugin agents that break the agent contract (test_plugin_agent: the trials error with one clear
line, the other entrants go on, ``--resume`` works), and one that names itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from redlinebench.agent import Episode, open_episode


class _Base:
    name = "misbehaving"
    label = ""

    def __init__(self, **_: Any) -> None:
        pass


class ReturnsNone(_Base):
    async def run(self, task: Any, workdir: Path, *, trial: int) -> Any:
        return None


class Synchronous(_Base):
    def run(self, task: Any, workdir: Path, *, trial: int) -> Any:  # not async
        return Episode("completed", "end_session", {})


class Raises(_Base):
    async def run(self, task: Any, workdir: Path, *, trial: int) -> Any:
        raise ValueError("no such\nthing")


class Named(_Base):
    label = "my-reviewer"

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        with open_episode(task, workdir, trial=trial, agent=self.name) as ep:
            ep.call("end_session", {"summary": "nothing to change"})
        return ep.episode()
