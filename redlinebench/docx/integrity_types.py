"""The integrity audit's findings (SPEC §5.1): what an output changed that it may not have.

Types only, so the gate, the views, grading and reports share one vocabulary; the audit that
produces them compares an output with its task's input (``docx.integrity``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

#: Recorded in every grade's ``integrity.version``; bumped whenever what the audit finds changes.
#: v2: a partial accept or reject inside one revision, field instructions and hyperlink targets,
#: cell revision markers, text hidden by character scale, spacing or position, moved comment anchors.
INTEGRITY_VERSION = "integrity-v3"

#: Fail the gate (reward 0, no judge called).
FATAL_KINDS: tuple[str, ...] = (
    "untracked_change",
    "forged_revision",
    "altered_prior_revision",
    "altered_comment",
    "hidden_text",
)
#: Graded, but shown to the judges and in reports; ``push`` refuses them unless forced.
FLAG_KINDS: tuple[str, ...] = (
    "silent_reject",
    "deleted_comment",
    "resolved_comment",
    "judge_directed_text",
    "retyped_text",
    "untracked_formatting",
)
Severity = Literal["fatal", "flag"]


def severity_of(kind: str) -> Severity:
    """The severity SPEC §5.1 gives a finding kind (ValueError for an unknown kind)."""
    if kind in FATAL_KINDS:
        return "fatal"
    if kind in FLAG_KINDS:
        return "flag"
    raise ValueError(f"unknown integrity finding kind: {kind!r}")


@dataclass(frozen=True)
class IntegrityFinding:
    """One thing the output changed outside the rules: its kind, the paragraph, a short quote."""

    kind: str
    detail: str
    paragraph_id: str | None = None

    @property
    def severity(self) -> Severity:
        return severity_of(self.kind)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "severity": self.severity}
        if self.paragraph_id is not None:
            out["paragraph_id"] = self.paragraph_id
        out["detail"] = self.detail
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IntegrityFinding:
        return cls(kind=str(data["kind"]), detail=str(data.get("detail", "")),
                   paragraph_id=data.get("paragraph_id"))


@dataclass(frozen=True)
class IntegrityReport:
    """Every finding of one audit; ``passed`` iff none is fatal (``grade.json``'s ``integrity``)."""

    findings: tuple[IntegrityFinding, ...] = field(default_factory=tuple)
    version: str = INTEGRITY_VERSION
    #: why the audit did not run (no task input known, an input that does not open...); None when it ran
    skipped: str | None = None

    @classmethod
    def of(cls, findings: Iterable[IntegrityFinding]) -> IntegrityReport:
        return cls(tuple(findings))

    @property
    def fatal(self) -> tuple[IntegrityFinding, ...]:
        return tuple(f for f in self.findings if f.severity == "fatal")

    @property
    def flags(self) -> tuple[IntegrityFinding, ...]:
        return tuple(f for f in self.findings if f.severity == "flag")

    @property
    def passed(self) -> bool:
        return not self.fatal

    def gate_reason(self) -> str | None:
        """``integrity: <kind> ...`` naming the first fatal finding (None when none is fatal)."""
        if not self.fatal:
            return None
        first = self.fatal[0]
        more = f" (+{len(self.fatal) - 1} more fatal finding(s))" if len(self.fatal) > 1 else ""
        where = f" in {first.paragraph_id}" if first.paragraph_id else ""
        return f"integrity: {first.kind}{where}: {first.detail}{more}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"passed": self.passed, "version": self.version,
                               "findings": [f.to_dict() for f in self.findings]}
        if self.skipped is not None:
            out["skipped"] = self.skipped
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IntegrityReport:
        skipped = data.get("skipped")
        return cls(tuple(IntegrityFinding.from_dict(f) for f in data.get("findings") or ()),
                   str(data.get("version") or INTEGRITY_VERSION), str(skipped) if skipped is not None else None)
