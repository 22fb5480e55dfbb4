"""The task model: what one RedlineBench task *is*, independent of where it was read from.

Everything here is plain data (frozen dataclasses) so tasks can be hashed, compared, pickled
into worker processes and turned into dataset rows without touching the file system again.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

#: ``redline-s{S}-t{T}-g{GG}{v}`` (SPEC §2).
TASK_NAME_RE = re.compile(r"^redline-s(\d+)-t(\d+)-g(\d+)([a-z])\Z", re.ASCII)  # ASCII: \d is 0-9 only

#: Rubric categories, spelled exactly as in the real set (SPEC §2), in the order of their share.
CATEGORIES: tuple[str, ...] = (
    "Commercial Context",
    "Legal correctness",
    "Negotiation Quality",
    "Deal-closing Orientation",
    "Counterparty Acceptance Prediction",
)
#: What a rubric without a category is counted as.
UNCATEGORIZED = "(uncategorized)"

#: Scenario labels of the real set, used when a task does not state its own.
SCENARIO_LABELS: dict[int, str] = {
    1: "Vendor-led SaaS MSA",
    2: "Customer-led SaaS MSA",
    3: "Professional-services MSA",
}

#: Which side acts at each turn of the real scenarios (SPEC §1). Other scenarios are unconstrained.
SIDE_PATTERN: dict[int, tuple[str, ...]] = {
    1: ("A", "B", "A", "B"),
    2: ("B", "A", "B", "A"),
    3: ("A", "B", "A", "B"),
}

WEIGHT_MIN, WEIGHT_MAX = -10, 10

#: Relative locations inside a task directory (SPEC §2).
TASK_TOML = "task.toml"
INSTRUCTION = "instruction.md"
DOCKERFILE = "environment/Dockerfile"
CONTRACT = "environment/app/contract.docx"
GROUNDING_DIR = "environment/app/grounding"
RUBRICS = "tests/rubrics.json"
GOLDEN = "tests/attorney_redlines.docx"
TEST_SH = "tests/test.sh"

#: Text files read from the grounding directory (originals such as .docx / .pdf are optional and skipped).
GROUNDING_SUFFIXES = (".md", ".txt")


def parse_task_name(name: str) -> tuple[int, int, int, str] | None:
    """``redline-s1-t2-g03b`` -> ``(1, 2, 3, "b")``; ``None`` when the name is not a task name."""
    match = TASK_NAME_RE.match(name)
    if match is None:
        return None
    s, t, g, v = match.groups()
    return int(s), int(t), int(g), v


def input_group_of(name: str) -> str | None:
    """``redline-s1-t2-g03b`` -> ``s1-t2-g03`` (the group keeps the name's own digits)."""
    match = TASK_NAME_RE.match(name)
    if match is None:
        return None
    return f"s{match.group(1)}-t{match.group(2)}-g{match.group(3)}"


def default_author(represented_party: str) -> str:
    """The SPEC §2 author convention: ``Reviewing Counsel (<Party> Legal)``."""
    return f"Reviewing Counsel ({represented_party} Legal)"


@dataclass(frozen=True)
class Rubric:
    """One attorney-written PASS/FAIL criterion. A negative weight marks a penalty rubric."""

    id: str
    criteria: str
    category: str
    weight: int
    justification: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def is_penalty(self) -> bool:
        return self.weight < 0

    def __repr__(self) -> str:
        # short for notebooks: the criterion clipped to one line, never the justification
        return f"Rubric({self.id!r}, {self.weight:+d}, {self.category!r}, {_gist(self.criteria)!r})"


@dataclass(frozen=True)
class Task:
    """One task: SPEC §2 metadata, the agent-side inputs, and the verifier-side rubrics.

    ``extra`` keeps every metadata key this package does not know (from ``task.toml``
    ``[metadata]`` and the top of ``rubrics.json``, the latter winning), so nothing a newer
    release of the dataset adds is lost. ``config`` is the whole parsed ``task.toml``.
    """

    task_id: str
    scenario_id: int
    scenario_label: str
    side: Literal["A", "B"]
    turn: int
    input_group: str
    variant: str
    represented_party: str
    counterparty: str
    author: str
    instruction: str
    grounding: dict[str, str]
    rubrics: tuple[Rubric, ...]
    root: Path
    contract_path: Path
    golden_path: Path | None
    source_task_path: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    config: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __repr__(self) -> str:
        # A notebook prints lists and dicts of tasks: the identity and the counts, not the
        # instruction, playbooks and rubrics (those are one attribute away).
        golden = "golden" if self.has_golden else "no golden"
        return (f"Task({self.task_id!r}, scenario {self.scenario_id}, turn {self.turn}, side {self.side}, "
                f"{len(self.rubrics)} rubrics, {len(self.grounding)} grounding texts, {golden})")

    # -- derived views -------------------------------------------------------------------
    @property
    def level(self) -> int:
        """The real data calls the turn ``level``."""
        return self.turn

    @property
    def cell(self) -> tuple[int, int]:
        """The (scenario, turn) cell this task belongs to (aggregation unit of SPEC §6)."""
        return (self.scenario_id, self.turn)

    @property
    def has_golden(self) -> bool:
        return self.golden_path is not None

    @property
    def rubrics_path(self) -> Path:
        return self.root / RUBRICS

    @property
    def instruction_path(self) -> Path:
        return self.root / INSTRUCTION

    @property
    def total_positive_weight(self) -> int:
        return sum(r.weight for r in self.rubrics if r.weight > 0)

    def rubric_category_counts(self) -> dict[str, int]:
        """Rubrics per category, keys sorted (the viewer's ``rubric_category_counts``)."""
        counts = Counter(r.category for r in self.rubrics)
        return {key: counts[key] for key in sorted(counts)}

    def metadata(self) -> dict[str, Any]:
        """The SPEC §2 metadata as the real files spell it (``level``, not ``turn``)."""
        return {
            "task_id": self.task_id,
            "scenario_id": self.scenario_id,
            "scenario_label": self.scenario_label,
            "side": self.side,
            "level": self.turn,
            "input_group": self.input_group,
            "variant": self.variant,
            "represented_party": self.represented_party,
            "counterparty": self.counterparty,
            "author": self.author,
        }


def _gist(text: str, limit: int = 60) -> str:
    """The start of ``text`` on one line (whitespace runs folded), with an ellipsis when cut."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def printable(text: str) -> str:
    """``text`` fit for one line of a report: control and other unprintable characters (a newline
    or a right-to-left override in a file name or a JSON key) are shown escaped."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def clip(text: str, limit: int = 400) -> str:
    """``text`` cut in the middle when longer than ``limit`` (a hostile value quoted in a message)."""
    if len(text) <= limit:
        return text
    head, tail = limit * 2 // 3, limit // 6  # with the marker, at most ``limit``: clipping twice changes nothing
    return f"{text[:head]} [... {len(text) - head - tail} characters ...] {text[-tail:]}"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a task tree, named by file and field so a user can fix it."""

    path: str
    message: str
    field: str | None = None
    severity: Literal["error", "warning"] = "error"
    task_id: str | None = None

    def __str__(self) -> str:
        return self.display()

    def display(self, root: Path | None = None) -> str:
        """Like ``str`` but with the path shown relative to ``root`` when it lies below it."""
        path = self.path
        if root is not None:
            try:
                path = str(Path(self.path).relative_to(root))
            except ValueError:
                pass
        where = f"{path}: {self.field}" if self.field else path
        return printable(f"{where}: {clip(self.message)}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "path": self.path,
            "field": self.field,
            "message": self.message,
            "task_id": self.task_id,
        }
