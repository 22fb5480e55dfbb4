"""Integrity counts of trial grades (SPEC §5.1): which trials the audit failed or flagged.

A grade's ``integrity`` (written by grading) is read back leniently: an older grade without one
counts as neither failed nor flagged, since it was never audited.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ..docx.integrity_types import IntegrityReport


def grade_integrity(grade: Any) -> IntegrityReport | None:
    """The audit recorded in a grade (a :class:`TrialGrade` or a grade dict); None when never audited."""
    if isinstance(grade, Mapping):
        raw = grade.get("integrity")
    else:
        raw = getattr(grade, "integrity", None)
        if raw is None:
            raw = (getattr(grade, "extra", None) or {}).get("integrity")
    if isinstance(raw, IntegrityReport):
        return raw
    if not isinstance(raw, Mapping):
        return None
    try:
        return IntegrityReport.from_dict(raw)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _status(grade: Any) -> str | None:
    return grade.get("status") if isinstance(grade, Mapping) else getattr(grade, "status", None)


def _gate_reason(grade: Any) -> str:
    gate = grade.get("gate") if isinstance(grade, Mapping) else getattr(grade, "gate", None)
    return str((gate or {}).get("reason") or "") if isinstance(gate, Mapping) else ""


def integrity_failed(grade: Any) -> bool:
    """The trial's gate failed on a fatal integrity finding."""
    report = grade_integrity(grade)
    if report is not None and report.fatal:
        return True
    return _status(grade) == "gate_failed" and _gate_reason(grade).startswith("integrity:")


def integrity_flagged(grade: Any) -> bool:
    """The trial was graded (gate passed) with at least one flagged finding."""
    report = grade_integrity(grade)
    return report is not None and bool(report.flags) and not integrity_failed(grade)


def integrity_counts(grades: Iterable[Any]) -> dict[str, int]:
    """``n_integrity_failures`` and ``n_integrity_flags`` over ``grades`` (0 when none)."""
    grades = list(grades)
    return {"n_integrity_failures": sum(1 for g in grades if integrity_failed(g)),
            "n_integrity_flags": sum(1 for g in grades if integrity_flagged(g))}


def finding_kinds(grades: Iterable[Any]) -> Counter[str]:
    """How many trials carry each finding kind (a trial counts once per kind)."""
    kinds: Counter[str] = Counter()
    for g in grades:
        report = grade_integrity(g)
        if report is not None:
            kinds.update({f.kind for f in report.findings})
    return kinds


def with_integrity(grade: Mapping[str, Any], report: IntegrityReport) -> dict[str, Any]:
    """A grade dict written before the audit, with the audit folded in: ``integrity`` recorded and,
    on a fatal finding, the gate failed as SPEC §5.1 says (reward 0, every rubric FAIL, the reason
    naming the finding). Diagnostics and identity are kept; the input is not changed."""
    out = dict(grade)
    out["integrity"] = report.to_dict()
    if report.passed or out.get("status") not in ("graded", "gate_failed"):
        return out
    reason = report.gate_reason()
    note = f"gate failed: {reason}"
    score = dict(out.get("score") or {})
    score.update(weighted=0.0, earned_weight=0, penalty_weight=0, n_pass=0)
    score["per_rubric"] = [{**row, "verdict": "FAIL", "justification": note, **({"votes": {}} if "votes" in row else {})}
                           for row in score.get("per_rubric") or [] if isinstance(row, Mapping)]
    out.update(status="gate_failed", gate={"passed": False, "reason": reason}, score=score)
    return out
