"""Task and rubric test doubles shaped like ``redlinebench.tasks`` (used until/alongside the real model)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class FakeRubric:
    id: str
    criteria: str
    category: str = "Legal correctness"
    weight: int = 5
    justification: str | None = None
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class FakeTask:
    task_id: str = "redline-s1-t2-g01a"
    scenario_id: int = 1
    scenario_label: str = "Vendor-led SaaS MSA"
    side: str = "B"
    turn: int = 2
    input_group: str = "s1-t2-g01"
    variant: str = "a"
    represented_party: str = "LargeCo"
    counterparty: str = "AgentCo"
    author: str = "Reviewing Counsel (LargeCo Legal)"
    rubrics: tuple = ()
    golden_path: Path | None = None
    instruction: str = ""
    root: Path | None = None
    contract_path: Path | None = None


RUBRICS = (
    FakeRubric("r1", "Rejects in Section 1.3 the inclusion of PCI-DSS Standards", "Legal correctness", 5,
               "PCI is out of scope for this service."),
    FakeRubric("r2", "Inserts in Section 4.2 a 30-day cure period", "Commercial Context", 3),
    FakeRubric("r3", "Deletes in Section 9.1 the uncapped indemnity", "Negotiation Quality", -4),
)
TASK = FakeTask(rubrics=RUBRICS)


def verdicts(**by_id: str) -> dict:
    return {"verdicts": [{"rubric_id": rid, "verdict": v, "justification": f"{rid} is {v}"} for rid, v in by_id.items()]}
