"""Scoring: the reward formula, panel vote, aggregation, bootstrap CI, diagnostics, grade files.

Pure functions over plain data: nothing here calls a network or reads a run directory.
"""

from ._aggregate import FULL_GRID, by_category_gate_zero, power_of, redline_overall, summarize
from ._ci import bootstrap_ci, seed_for
from ._diagnostics import document_diagnostics, golden_agreement, no_document_diagnostics
from ._grade import SCHEMA_VERSION, GradeFileError, RubricVerdict, TrialGrade
from ._integrity import (finding_kinds, grade_integrity, integrity_counts, integrity_failed, integrity_flagged,
                         with_integrity)
from ._pairwise import NOT_DISTINGUISHABLE, compare_pair, holm, pair_seed, pairwise, rank_bands, verdict
from ._ratings import Pairing, bt_ratings, pairing_result, rating_intervals, ratings_seed
from ._power import design_weights, mdd, planned_mdd, power_section
from ._reward import RewardBreakdown, reward, rubric_satisfied
from ._vote import FAIL, PASS, majority, normalize_verdict, panel_vote, votes_cast

__all__ = [
    "FAIL",
    "FULL_GRID",
    "GradeFileError",
    "NOT_DISTINGUISHABLE",
    "PASS",
    "Pairing",
    "RewardBreakdown",
    "RubricVerdict",
    "SCHEMA_VERSION",
    "TrialGrade",
    "bootstrap_ci",
    "bt_ratings",
    "by_category_gate_zero",
    "compare_pair",
    "design_weights",
    "document_diagnostics",
    "finding_kinds",
    "grade_integrity",
    "integrity_counts",
    "integrity_failed",
    "integrity_flagged",
    "no_document_diagnostics",
    "golden_agreement",
    "holm",
    "majority",
    "mdd",
    "normalize_verdict",
    "pair_seed",
    "pairing_result",
    "pairwise",
    "panel_vote",
    "planned_mdd",
    "power_of",
    "power_section",
    "rank_bands",
    "rating_intervals",
    "ratings_seed",
    "redline_overall",
    "reward",
    "rubric_satisfied",
    "seed_for",
    "summarize",
    "verdict",
    "votes_cast",
    "with_integrity",
]
