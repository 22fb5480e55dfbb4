"""``grade.json``: the one reader and writer of a trial's grade (SPEC §6).

The reader is lenient about what it may infer and strict about what it may not: a grade file
written by another implementation with only the SPEC fields (no ``status``, no
``schema_version``) is read, its status inferred from the gate; a file missing the model, the
task or the score is refused with an error naming the file and the field.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .._atomic import atomic_write_json
from ..errors import RedlineBenchError
from ._reward import REWARD_FIELDS, reward
from ._vote import PASS, normalize_verdict

SCHEMA_VERSION = 1
Status = Literal["graded", "gate_failed", "judging_incomplete", "errored"]
STATUSES: tuple[str, ...] = ("graded", "gate_failed", "judging_incomplete", "errored")
#: Statuses whose reward enters the aggregates. The others are listed, never averaged in.
SCORED_STATUSES = frozenset({"graded", "gate_failed"})
DIAGNOSTIC_FIELDS = (
    "redlines",
    "edit_operations",
    "total_revisions",
    "touched_paragraphs",
    "comments_added",
    "median_insertion_chars",
    "surgicalness_score",
)
_TASK_RE = re.compile(r"^redline-s(\d+)-t(\d+)-g(\d+)([a-z])$")
# SPEC §1: which side owns each turn, per scenario of the real set.
_SIDE_BY_SCENARIO = {1: "ABAB", 2: "BABA", 3: "ABAB"}


class GradeFileError(RedlineBenchError):
    """A grade.json that cannot be read as a grade."""


@dataclass(slots=True)
class RubricVerdict:
    """One rubric's final verdict in a trial (``score.per_rubric`` entry)."""

    rubric_id: str
    verdict: str
    weight: int
    category: str = "(uncategorized)"
    criteria: str = ""
    justification: str = ""
    votes: dict[str, str] | None = None

    @property
    def is_penalty(self) -> bool:
        return self.weight < 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rubric_id": self.rubric_id,
            "verdict": self.verdict,
            "weight": self.weight,
            "is_penalty": self.is_penalty,
            "category": self.category,
            "criteria": self.criteria,
            "justification": self.justification,
        }
        if self.votes is not None:
            out["votes"] = dict(self.votes)
        return out


@dataclass
class TrialGrade:
    """A trial's grade: identity, gate, verdicts, reward parts and document diagnostics."""

    task_id: str
    model: str
    trial: int
    scenario_id: int
    turn: int
    side: str
    input_group: str
    variant: str
    status: Status
    judge_method: str
    judges: list[str]
    gate: dict[str, Any]
    weighted: float
    earned_weight: float = 0
    penalty_weight: float = 0
    total_weight: float = 0
    n_pass: int = 0
    n_total: int = 0
    per_rubric: list[RubricVerdict] = field(default_factory=list)
    diagnostics: dict[str, Any] = field(default_factory=dict)
    prompt_version: str | None = None
    incomplete_judges: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    golden_agreement: dict[str, Any] | None = None
    attempt_id: str | None = None   # the grading attempt that wrote this grade (its judge_audit.jsonl lines)
    #: SPEC §5.1's integrity audit of the output against the task input (``IntegrityReport.to_dict()``);
    #: None in grades written before the audit existed
    integrity: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION
    source: str | None = None   # where it was read from; not serialised
    # Produced while grading, written beside grade.json (judges/<judge>.json, annotated_view.md), not in it:
    judge_results: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    annotated_view: str | None = field(default=None, repr=False)

    # ---------------------------------------------------------------- writing
    def to_dict(self) -> dict[str, Any]:
        score: dict[str, Any] = {name: getattr(self, name) for name in REWARD_FIELDS}
        score["per_rubric"] = [r.to_dict() for r in self.per_rubric]
        score.update(self.diagnostics)
        out: dict[str, Any] = {
            "schema_version": self.schema_version,
            "status": self.status,
            "task_id": self.task_id,
            "model": self.model,
            "trial": self.trial,
            "scenario_id": self.scenario_id,
            "turn": self.turn,
            "side": self.side,
            "input_group": self.input_group,
            "variant": self.variant,
            "judge_method": self.judge_method,
            "judges": list(self.judges),
            "prompt_version": self.prompt_version,
            "gate": dict(self.gate),
            "score": score,
        }
        if self.incomplete_judges:
            out["incomplete_judges"] = list(self.incomplete_judges)
        if self.errors:
            out["errors"] = list(self.errors)
        if self.usage:
            out["usage"] = dict(self.usage)
        if self.golden_agreement is not None:
            out["golden_agreement"] = dict(self.golden_agreement)
        if self.attempt_id is not None:
            out["attempt_id"] = self.attempt_id
        if self.integrity is not None:
            out["integrity"] = dict(self.integrity)
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    def write(self, path: str | Path) -> Path:
        """Write atomically (temp file + rename): a crash never leaves half a grade."""
        return atomic_write_json(path, self.to_dict(), allow_nan=False)

    # ---------------------------------------------------------------- reading
    @classmethod
    def read(cls, path: str | Path) -> TrialGrade:
        path = Path(path)
        try:
            raw = path.read_text(encoding="utf-8-sig")  # a byte-order mark (PowerShell, Notepad) is not content
        except OSError as exc:
            raise GradeFileError(f"cannot read grade file: {exc.strerror or exc}", path=path) from None
        except UnicodeDecodeError:
            raise GradeFileError("grade file is not UTF-8 text", path=path) from None
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise GradeFileError(f"not valid JSON ({exc.msg}: line {exc.lineno} column {exc.colno})", path=path) from None
        return cls.from_dict(data, source=str(path))

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> TrialGrade:
        where = source or "grade"

        def fail(msg: str) -> GradeFileError:
            return GradeFileError(msg, path=where)

        if not isinstance(data, Mapping):
            raise fail("a grade must be a JSON object")
        version = data.get("schema_version", SCHEMA_VERSION)
        if not isinstance(version, int) or isinstance(version, bool) or version > SCHEMA_VERSION:
            raise fail(f"unsupported schema_version {version!r} (this reader knows up to {SCHEMA_VERSION})")

        task_id = _req_str(data, "task_id", fail)
        model = _req_str(data, "model", fail)
        m = _TASK_RE.match(task_id)
        scenario = _int_field(data, "scenario_id", int(m.group(1)) if m else None, fail)
        turn = _int_field(data, "turn", int(m.group(2)) if m else None, fail)
        trial = _int_field(data, "trial", 1, fail)
        group = data.get("input_group")
        if group is None and m:
            group = f"s{m.group(1)}-t{m.group(2)}-g{m.group(3)}"
        if not isinstance(group, str) or not group:
            raise fail("input_group: missing (and not derivable from task_id)")
        variant = data.get("variant")
        if variant is None:
            variant = m.group(4) if m else ""
        side = data.get("side")
        if side is None:
            sides = _SIDE_BY_SCENARIO.get(scenario)
            if sides is None or not 1 <= turn <= len(sides):
                raise fail("side: missing (and not derivable for this scenario/turn)")
            side = sides[turn - 1]
        if side not in ("A", "B"):
            raise fail(f"side: must be 'A' or 'B', got {side!r}")

        gate = data.get("gate", {"passed": True})
        if not isinstance(gate, Mapping) or not isinstance(gate.get("passed"), bool):
            raise fail("gate: must be an object with a boolean 'passed'")
        score = data.get("score")
        if not isinstance(score, Mapping):
            raise fail("score: missing or not an object")

        status = data.get("status")
        if status is None:
            status = "graded" if gate["passed"] else "gate_failed"
        if status not in STATUSES:
            raise fail(f"status: must be one of {', '.join(STATUSES)}, got {status!r}")
        per_rubric_raw = score.get("per_rubric", [])
        if not isinstance(per_rubric_raw, list):
            raise fail("score.per_rubric: must be a list")
        per_rubric = [_rubric_verdict(i, r, fail) for i, r in enumerate(per_rubric_raw)]
        weighted = score.get("weighted")
        if weighted is None and status in ("judging_incomplete", "errored", "gate_failed"):
            weighted = 0.0
        elif weighted is None and per_rubric:
            # a writer that kept the verdicts but not the number: the one reward function fills it in
            weighted = reward([{"id": r.rubric_id, "weight": r.weight} for r in per_rubric],
                              {r.rubric_id: r.verdict == PASS for r in per_rubric}).weighted
        if isinstance(weighted, bool) or not isinstance(weighted, (int, float)) or not math.isfinite(weighted):
            raise fail(f"score.weighted: must be a finite number, got {weighted!r}")
        if not 0.0 <= weighted <= 1.0:
            raise fail(f"score.weighted: {weighted} is outside [0, 1]")
        if status == "gate_failed" and weighted != 0:
            raise fail(f"score.weighted: a gate failure scores 0, got {weighted}")

        known_score = {"weighted", "earned_weight", "penalty_weight", "total_weight", "n_pass",
                       "n_total", "per_rubric"}
        diagnostics = {k: v for k, v in score.items() if k not in known_score}
        judges = data.get("judges", [])
        if not isinstance(judges, list):
            raise fail("judges: must be a list")
        known = {"schema_version", "status", "task_id", "model", "trial", "scenario_id", "turn", "side",
                 "input_group", "variant", "judge_method", "judges", "prompt_version", "gate", "score",
                 "incomplete_judges", "errors", "usage", "golden_agreement", "attempt_id", "integrity"}
        golden = data.get("golden_agreement")
        integrity = data.get("integrity")
        if integrity is not None and not (isinstance(integrity, Mapping) and isinstance(integrity.get("findings", []), list)):
            raise fail("integrity: must be an object with a 'findings' list")
        return cls(
            task_id=task_id,
            model=model,
            trial=trial,
            scenario_id=scenario,
            turn=turn,
            side=side,
            input_group=group,
            variant=str(variant),
            status=status,
            judge_method=str(data.get("judge_method") or "unknown"),
            judges=[str(j) for j in judges],
            gate=dict(gate),
            weighted=float(weighted),
            earned_weight=_num(score.get("earned_weight", 0)),
            penalty_weight=_num(score.get("penalty_weight", 0)),
            total_weight=_num(score.get("total_weight", 0)),
            n_pass=int(_num(score.get("n_pass", 0))),
            n_total=int(_num(score.get("n_total", 0))),
            per_rubric=per_rubric,
            diagnostics=diagnostics,
            prompt_version=data.get("prompt_version"),
            incomplete_judges=[str(j) for j in data.get("incomplete_judges", []) or []],
            errors=[str(e) for e in data.get("errors", []) or []],
            usage=dict(data.get("usage") or {}),
            golden_agreement=dict(golden) if isinstance(golden, Mapping) else None,
            attempt_id=data["attempt_id"] if isinstance(data.get("attempt_id"), str) else None,
            integrity=dict(integrity) if integrity is not None else None,
            extra={k: v for k, v in data.items() if k not in known},
            schema_version=version,
            source=source,
        )

    @property
    def scored(self) -> bool:
        """True when this trial's reward enters the aggregates (graded or a gate failure)."""
        return self.status in SCORED_STATUSES


def _num(value: Any) -> float:
    """A reward part or count as recorded; anything but a finite number (junk, NaN, infinity) reads as 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 0
    return value


def _req_str(data: Mapping, key: str, fail) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise fail(f"{key}: missing or not a non-empty string")
    return value


def _int_field(data: Mapping, key: str, default: int | None, fail) -> int:
    value = data.get(key, default)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(f"{key}: must be an integer, got {value!r}")
    return value


def _text(value: Any, default: str = "") -> str:
    if value.__class__ is str:
        return value or default
    return str(value) if value else default


def _rubric_verdict(index: int, raw: Any, fail) -> RubricVerdict:
    # hot path of summarize (tens of thousands of entries): plain dict checks first
    if raw.__class__ is not dict and not isinstance(raw, Mapping):
        raise fail(f"score.per_rubric[{index}]: must be an object")
    rid = raw.get("rubric_id")
    if rid is None:
        rid = raw.get("id")
        if rid is None:
            raise fail(f"score.per_rubric[{index}]: missing rubric_id")
    weight = raw.get("weight")
    if weight.__class__ is not int and (isinstance(weight, bool) or not isinstance(weight, (int, float))
                                        or not math.isfinite(weight)):
        raise fail(f"score.per_rubric[{index}].weight: must be a finite number, got {weight!r}")
    votes = raw.get("votes")
    verdict = raw.get("verdict")
    return RubricVerdict(
        _text(rid),
        PASS if verdict == PASS else normalize_verdict(verdict),
        weight,
        _text(raw.get("category"), "(uncategorized)"),
        _text(raw.get("criteria")),
        _text(raw.get("justification")),
        None if votes is None else ({str(k): str(v) for k, v in votes.items()}
                                    if isinstance(votes, Mapping) else None),
    )
