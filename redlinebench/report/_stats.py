"""Descriptive statistics the pages show that are not scores: judge agreement, totals.

Scores (rewards, cell means, CIs) come from ``metrics_summary.json`` / ``redlinebench.scoring``
and are never recomputed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable, Sequence

from ._load import TrialRecord


@dataclass
class JudgeStats:
    name: str
    votes: int = 0
    passes: int = 0
    agree_with_panel: int = 0

    @property
    def pass_rate(self) -> float | None:
        return self.passes / self.votes if self.votes else None

    @property
    def panel_agreement(self) -> float | None:
        return self.agree_with_panel / self.votes if self.votes else None


@dataclass
class PairStats:
    a: str
    b: str
    n: int = 0
    both_pass: int = 0
    both_fail: int = 0
    a_only: int = 0
    b_only: int = 0

    @property
    def agreement(self) -> float | None:
        return (self.both_pass + self.both_fail) / self.n if self.n else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa for two raters on PASS/FAIL; None when undefined (no variation)."""
        if not self.n:
            return None
        po = (self.both_pass + self.both_fail) / self.n
        pa = (self.both_pass + self.a_only) / self.n
        pb = (self.both_pass + self.b_only) / self.n
        pe = pa * pb + (1 - pa) * (1 - pb)
        if pe >= 1.0:
            return None
        return (po - pe) / (1 - pe)


@dataclass
class Agreement:
    judges: list[JudgeStats] = field(default_factory=list)
    pairs: list[PairStats] = field(default_factory=list)
    rubric_votes: int = 0
    split_decisions: int = 0

    @property
    def unanimity(self) -> float | None:
        return 1 - self.split_decisions / self.rubric_votes if self.rubric_votes else None


def _verdict(value: object) -> str | None:
    return value if value in ("PASS", "FAIL") else None


def judge_agreement(trials: Iterable[TrialRecord]) -> Agreement:
    """Per-judge PASS rate and agreement with the panel; pairwise agreement and Cohen's kappa."""
    judges: dict[str, JudgeStats] = {}
    pairs: dict[tuple[str, str], PairStats] = {}
    out = Agreement()
    for t in trials:
        for row in t.per_rubric:
            votes = row.get("votes")
            if not isinstance(votes, dict) or not votes:
                continue
            clean = {str(j): _verdict(v) or "FAIL" for j, v in votes.items()}
            panel = _verdict(row.get("verdict"))
            out.rubric_votes += 1
            if len(set(clean.values())) > 1:
                out.split_decisions += 1
            for j, v in clean.items():
                s = judges.setdefault(j, JudgeStats(j))
                s.votes += 1
                s.passes += v == "PASS"
                s.agree_with_panel += panel is not None and v == panel
            for a, b in combinations(sorted(clean), 2):
                p = pairs.setdefault((a, b), PairStats(a, b))
                p.n += 1
                va, vb = clean[a] == "PASS", clean[b] == "PASS"
                if va and vb:
                    p.both_pass += 1
                elif not va and not vb:
                    p.both_fail += 1
                elif va:
                    p.a_only += 1
                else:
                    p.b_only += 1
    out.judges = sorted(judges.values(), key=lambda s: s.name)
    out.pairs = sorted(pairs.values(), key=lambda p: (p.a, p.b))
    return out


def total(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def cached_share(trials: Sequence[TrialRecord]) -> float | None:
    """Share of the input tokens served from the provider's prompt cache (None: not recorded)."""
    pairs = [(t.cache_read_tokens, t.tokens_in) for t in trials if t.cache_read_tokens is not None and t.tokens_in]
    total_in = sum(tin for _, tin in pairs)
    return sum(r for r, _ in pairs) / total_in if total_in else None
