"""Doubles for runner tests: a task set and an agent that writes a trial without any engine."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from redlinebench.agent.base import Episode
from tests.agent.doubles import make_task


def make_taskset(tmp: Path, n: int = 4, fingerprint: str = "fp-1") -> SimpleNamespace:
    tasks = []
    for i in range(n):
        d = tmp / f"t{i}"
        d.mkdir(parents=True, exist_ok=True)
        tasks.append(make_task(d, task_id=f"redline-s1-t{1 + i % 4}-g0{i}a", turn=1 + i % 4,
                               side="A" if i % 2 == 0 else "B"))
    return SimpleNamespace(tasks=tasks, fingerprint=lambda: fingerprint,
                           source=SimpleNamespace(kind="directory", path=tmp, revision=None, reason="test"))


class CountingAgent:
    """Writes redline + transcript after a short sleep; records concurrency and calls."""

    name = "fake"

    def __init__(self, label: str = "fake-model", delay: float = 0.01, fail_on: set[str] | None = None,
                 cost: float = 0.5) -> None:
        self.label = label
        self.delay = delay
        self.fail_on = set(fail_on or ())
        self.cost = cost
        self.calls: list[tuple[str, int]] = []
        self.active = 0
        self.max_active = 0

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        self.calls.append((task.task_id, trial))
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            (workdir / "transcript.jsonl").write_text('{"type": "start"}\n')
            await asyncio.sleep(self.delay)
            if task.task_id in self.fail_on:
                return Episode("errored", "provider_error", {"cost_usd": 0.0}, error="503 from provider")
            (workdir / "redline.docx").write_bytes(b"docx:" + task.task_id.encode())
            return Episode("completed", "end_session", {"cost_usd": self.cost, "steps": 3})
        finally:
            self.active -= 1
