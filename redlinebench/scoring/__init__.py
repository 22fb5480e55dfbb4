"""Scoring: the reward formula, panel vote, aggregation, bootstrap CI, diagnostics, grade files.

Pure functions over plain data: nothing here calls a network or reads a run directory.
"""

from ._aggregate import FULL_GRID, redline_overall, summarize
from ._ci import bootstrap_ci, seed_for
from ._diagnostics import document_diagnostics, golden_agreement, no_document_diagnostics
from ._grade import SCHEMA_VERSION, GradeFileError, RubricVerdict, TrialGrade
from ._integrity import (finding_kinds, grade_integrity, integrity_counts, integrity_failed, integrity_flagged,
                         with_integrity)
from ._reward import RewardBreakdown, reward, rubric_satisfied
from ._vote import FAIL, PASS, majority, normalize_verdict, panel_vote, votes_cast

__all__ = [
    "FAIL",
    "FULL_GRID",
    "PASS",
    "SCHEMA_VERSION",
    "GradeFileError",
    "RewardBreakdown",
    "RubricVerdict",
    "TrialGrade",
    "bootstrap_ci",
    "document_diagnostics",
    "finding_kinds",
    "grade_integrity",
    "integrity_counts",
    "integrity_failed",
    "integrity_flagged",
    "no_document_diagnostics",
    "golden_agreement",
    "majority",
    "normalize_verdict",
    "panel_vote",
    "redline_overall",
    "reward",
    "rubric_satisfied",
    "seed_for",
    "summarize",
    "votes_cast",
    "with_integrity",
]
