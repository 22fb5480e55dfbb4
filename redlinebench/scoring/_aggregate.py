"""From trial grades to ``metrics_summary.json`` (SPEC §6).

Order of operations, fixed so two implementations agree to the last digit:
trial rewards -> mean per input group (over variants and trials) -> mean per scenario x turn
cell, rounded to 4 decimals -> headline = mean of the cell means -> every score rounded to 4
decimals. Trials that were not scored (judging incomplete, errored) are excluded from the
numbers and listed by name; gate failures are 0 rows and always counted.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._ci import bootstrap_ci
from ._diagnostics import GOLDEN_AGREEMENT_FIELDS
from ._grade import DIAGNOSTIC_FIELDS, TrialGrade
from ._integrity import integrity_counts
from ._pairwise import pairwise
from ._power import power_section
from ._reward import rubric_satisfied
from ._vote import PASS

DECIMALS = 4
UNCATEGORIZED = "(uncategorized)"
#: The real benchmark's grid: 3 scenarios x 4 turns.
FULL_GRID: tuple[tuple[int, int], ...] = tuple((s, t) for s in (1, 2, 3) for t in (1, 2, 3, 4))

Cell = tuple[int, int]


def _r(x: float) -> float:
    return round(x, DECIMALS)


def _mean(values: Sequence[float]) -> float:
    """The exact mean, correctly rounded to a float (``statistics.mean``).

    Means of 4-decimal cell values land exactly on a 5 in the fifth decimal often; how such
    a tie rounds depends on the last bit of the float. ``statistics.mean`` has one right
    answer for that bit (RedlineBench's own aggregation uses it too), where a running sum
    can be off by one unit in the last place and round the other way.
    """
    return statistics.mean(values)


def redline_overall(overall_turn_weighted: float | None) -> float | None:
    """The leaderboard number: ``round(100 * overall_turn_weighted, 1)``."""
    return None if overall_turn_weighted is None else round(100 * overall_turn_weighted, 1)


@dataclass(frozen=True)
class _Row:
    task_id: str
    trial: int
    scenario: int
    turn: int
    side: str
    group: str
    reward: float


@dataclass
class _Agg:
    group_scores: dict[tuple[int, int, str], float]
    cells: dict[Cell, float]          # rounded cell means, in (scenario, turn) order
    cell_sides: dict[Cell, str]

    @property
    def overall_turn_weighted(self) -> float | None:
        return _r(_mean(list(self.cells.values()))) if self.cells else None


def group_scores(rows: Iterable[_Row]) -> dict[tuple[int, int, str], float]:
    """``{(scenario, turn, input group): mean reward}`` in key order: the §6 group scores, which
    the headline (§6) and the paired comparison (§6.1) both start from."""
    by_group: dict[tuple[int, int, str], list[float]] = defaultdict(list)
    for row in rows:
        by_group[(row.scenario, row.turn, row.group)].append(row.reward)
    return {key: _mean(vals) for key, vals in sorted(by_group.items())}


def _aggregate(rows: Sequence[_Row], warnings: list[str], label: str) -> _Agg:
    sides: dict[Cell, set[str]] = defaultdict(set)
    for row in rows:
        sides[(row.scenario, row.turn)].add(row.side)
    scores = group_scores(rows)
    by_cell: dict[Cell, list[float]] = defaultdict(list)
    for (scenario, turn, _group), score in scores.items():
        by_cell[(scenario, turn)].append(score)
    cells = {cell: _r(_mean(by_cell[cell])) for cell in sorted(by_cell)}
    cell_sides: dict[Cell, str] = {}
    for cell in cells:
        found = sorted(sides[cell])
        if len(found) > 1:
            warnings.append(f"{label}: cell {cell[0]}-{cell[1]} has trials of both sides {found}; using {found[0]}")
        cell_sides[cell] = found[0]
    return _Agg(scores, cells, cell_sides)


def _category_shares(outcomes: Iterable[tuple[str | None, float, bool]]) -> dict[str, float]:
    """``{category: sum of |w| over correct outcomes / sum of |w|}`` of (category, weight, correct)."""
    correct: dict[str, float] = defaultdict(float)
    total: dict[str, float] = defaultdict(float)
    for category, weight, ok in outcomes:
        cat = category or UNCATEGORIZED
        total[cat] += abs(weight)
        if ok:
            correct[cat] += abs(weight)
    return {cat: _r(correct[cat] / total[cat]) for cat in sorted(total) if total[cat] > 0}


def _by_category(grades: Sequence[TrialGrade]) -> dict[str, float]:
    """SPEC §6 ``by_category``: every rubric of every trial, a penalty rubric correct when FAIL
    (also in a trial that failed the gate, whose rubrics are all FAIL)."""
    return _category_shares((rv.category, rv.weight, rubric_satisfied(rv.verdict == PASS, penalty=rv.is_penalty))
                            for grade in grades for rv in grade.per_rubric)


def by_category_gate_zero(grades: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """``by_category`` of grade dicts with a trial that failed the gate counted as all wrong, as its
    reward is 0: SPEC's ``by_category`` credits such a trial with every penalty rubric it did not
    trigger (noop, which fails every gate, scored 46 in a category). The pages chart this one."""
    def outcomes() -> Iterable[tuple[str | None, float, bool]]:
        for g in grades:
            passed = (g.get("gate") or {}).get("passed") is True
            for r in ((g.get("score") or {}).get("per_rubric") or []):
                w = r.get("weight")
                if not isinstance(r, dict) or not isinstance(w, (int, float)) or isinstance(w, bool):
                    continue
                penalty = bool(r.get("is_penalty")) or w < 0
                yield r.get("category"), float(w), passed and rubric_satisfied(r.get("verdict") == PASS, penalty=penalty)
    return _category_shares(outcomes())


def _means_of(records: Iterable[Mapping[str, Any] | None], fields: Sequence[str]) -> dict[str, float | None]:
    """Mean of each of ``fields`` over the records that have a finite number for it; every field is
    in the result, ``None`` where no record has a value (a noop redline has no surgicalness, a
    trial without a golden no agreement), so every leaderboard entry has the same keys."""
    acc: dict[str, list[float]] = defaultdict(list)
    wanted = set(fields)
    for rec in records:
        if not rec:
            continue
        for key, value in rec.items():
            if key not in wanted:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                continue
            acc[key].append(float(value))
    return {k: _r(_mean(acc[k])) if acc.get(k) else None for k in fields}


def _rubrics_without_vote(grades: Iterable[TrialGrade]) -> int:
    """Rubric verdicts no judge voted on (SPEC §5.4: FAIL by rule), counted so they are never silent."""
    return sum(1 for g in grades for rv in g.per_rubric if rv.votes is not None and not rv.votes)


def _rows(grades: Sequence[TrialGrade], reward_of=lambda g: g.weighted) -> list[_Row]:
    return [_Row(g.task_id, g.trial, g.scenario_id, g.turn, g.side, g.input_group, reward_of(g)) for g in grades]


def _judge_methods(grades: Iterable[TrialGrade]) -> list[str]:
    """The judge methods that graded these trials, sorted.

    An errored trial never reached the judges (a Harbor import labels it ``none``), so it does not
    make a heuristic-only or LLM-only run look ``mixed``; with nothing but errored trials, their
    own labels are all there is.
    """
    grades = list(grades)
    judged = {g.judge_method for g in grades if g.status != "errored"}
    return sorted(judged or {g.judge_method for g in grades})


def _method_label(methods: Sequence[str]) -> str | None:
    return (methods[0] if len(methods) == 1 else "mixed") if methods else None


def _trials_by_task(rows: Iterable[_Row]) -> dict[tuple[int, int, str, str], list[float]]:
    """``{(scenario, turn, group, task id): [reward of each trial]}``: what the variance split reads."""
    out: dict[tuple[int, int, str, str], list[float]] = defaultdict(list)
    for row in rows:
        out[(row.scenario, row.turn, row.group, row.task_id)].append(row.reward)
    return dict(out)


def power_of(grades: Iterable[Mapping[str, Any] | TrialGrade]) -> dict[str, Any]:
    """The ``power`` section for these grades alone (``run --dry-run --power-from``), without the rest
    of the summary; models in name order."""
    by_model: dict[str, list[_Row]] = defaultdict(list)
    for i, g in enumerate(grades):
        grade = g if isinstance(g, TrialGrade) else TrialGrade.from_dict(g, source=f"grade #{i + 1}")
        if grade.scored:
            by_model[grade.model].extend(_rows([grade]))
    return power_section({m: _trials_by_task(rows) for m, rows in by_model.items()}, sorted(by_model))


def _model_entry(model: str, grades: Sequence[TrialGrade], warnings: list[str],
                 expected_cells: Sequence[Cell]) -> tuple[dict[str, Any], list[_Row], _Agg]:
    scored = [g for g in grades if g.scored]
    unscored = [g for g in grades if not g.scored]
    rows = _rows(scored)
    agg = _aggregate(rows, warnings, model)
    overall = agg.overall_turn_weighted

    # best@k: the best trial per task, then the same aggregation
    best: dict[str, _Row] = {}
    for row in rows:
        if row.task_id not in best or row.reward > best[row.task_id].reward:
            best[row.task_id] = row
    best_agg = _aggregate(list(best.values()), [], model)

    by_turn_vals: dict[int, list[float]] = defaultdict(list)
    for (_s, turn, _g), score in agg.group_scores.items():
        by_turn_vals[turn].append(score)
    by_scen: dict[int, list[float]] = defaultdict(list)
    by_side: dict[str, list[float]] = defaultdict(list)
    for cell, value in agg.cells.items():
        by_scen[cell[0]].append(value)
        by_side[agg.cell_sides[cell]].append(value)

    present = list(agg.cells)
    missing = [c for c in expected_cells if c not in agg.cells]
    extra = [c for c in present if c not in set(expected_cells)]
    gate_failures = sorted((g.task_id, g.trial) for g in scored if g.status == "gate_failed")
    judge_methods = _judge_methods(grades)
    entry: dict[str, Any] = {
        "model": model,
        "redline_overall": redline_overall(overall),
        "overall_turn_weighted": overall,
        "best_at_k_turn_weighted": best_agg.overall_turn_weighted,
        "ci": bootstrap_ci(list(agg.cells.values()), model),
        "overall_score": _r(_mean(list(agg.group_scores.values()))) if agg.group_scores else None,
        "mean_per_task_reward": _r(_mean([r.reward for r in rows])) if rows else None,
        "by_turn": {str(t): _r(_mean(v)) for t, v in sorted(by_turn_vals.items())},
        "by_scenario_turn": {f"{s}-{t}": v for (s, t), v in agg.cells.items()},
        "by_scenario_turn_weighted": {str(s): _r(_mean(v)) for s, v in sorted(by_scen.items())},
        "by_side_turn_weighted": {side: _r(_mean(v)) for side, v in sorted(by_side.items())},
        "by_category": _by_category(scored),
        "diagnostics": _means_of((g.diagnostics for g in scored), DIAGNOSTIC_FIELDS),
        "golden_agreement": _means_of((g.golden_agreement for g in scored), GOLDEN_AGREEMENT_FIELDS),
        "n_gate_failures": len(gate_failures),
        **integrity_counts(scored),
        "n_trials": len(scored),
        "n_tasks": len({g.task_id for g in scored}),
        "n_input_groups": len(agg.group_scores),
        "n_cells": len(agg.cells),
        "grid_complete": not missing and not extra,
        "missing_cells": [f"{s}-{t}" for s, t in missing],
        "n_incomplete": len(unscored),
        "n_rubrics_without_vote": _rubrics_without_vote(scored),
        "judge_method": _method_label(judge_methods),
        "judge_methods": judge_methods,
        "grid_note": None,
    }
    if missing or extra:
        entry["grid_note"] = (
            f"{len(agg.cells)} of {len(expected_cells)} scenario x turn cells scored"
            + (f"; missing {', '.join(entry['missing_cells'])}" if missing else "")
            + (f"; outside the standard grid {', '.join(f'{s}-{t}' for s, t in extra)}" if extra else "")
            + ": the headline is the mean of the cells present and is not comparable to a full-grid score"
        )
    return entry, rows, agg


def summarize(grades: Iterable[Mapping[str, Any] | TrialGrade], *,
              expected_cells: Sequence[Cell] = FULL_GRID) -> dict[str, Any]:
    """Build the ``metrics_summary.json`` content from trial grades (dicts or :class:`TrialGrade`).

    Deterministic and invariant under reordering of ``grades``. Models are grouped by the
    ``model`` field; the leaderboard is sorted by ``overall_turn_weighted`` descending (then by
    model name); a model with no scored trial is listed last with ``null`` scores.
    """
    parsed: list[TrialGrade] = []
    for i, g in enumerate(grades):
        parsed.append(g if isinstance(g, TrialGrade) else TrialGrade.from_dict(g, source=f"grade #{i + 1}"))
    parsed.sort(key=lambda g: (g.model, g.scenario_id, g.turn, g.input_group, g.task_id, g.trial,
                               g.status, g.weighted, g.source or ""))
    warnings: list[str] = []
    seen: dict[tuple[str, str, int], str] = {}
    repeated: dict[str, list[str]] = defaultdict(list)  # model -> one line per repeated trial
    for g in parsed:
        key = (g.model, g.task_id, g.trial)
        if key in seen:
            repeated[g.model].append(f"{g.task_id} trial {g.trial} ({seen[key]} and {g.source or 'another grade'})")
        else:
            seen[key] = g.source or "a grade"
    for model, lines in sorted(repeated.items()):  # one warning per model, not one per trial
        more = f" and {len(lines) - 1} more" if len(lines) > 1 else ""
        warnings.append(f"{model}: {len(lines)} trial(s) appear more than once, e.g. {lines[0]}{more}; every copy "
                        "is counted (summarize one run, or give each run's model its own label)")

    by_model: dict[str, list[TrialGrade]] = defaultdict(list)
    for g in parsed:
        by_model[g.model].append(g)
    built = {m: _model_entry(m, gs, warnings, expected_cells) for m, gs in sorted(by_model.items())}
    entries = [entry for entry, _rows_, _agg in built.values()]
    entries.sort(key=lambda e: (e["overall_turn_weighted"] is None, -(e["overall_turn_weighted"] or 0.0), e["model"]))

    methods = _judge_methods(parsed)
    incomplete = [
        {"model": g.model, "task_id": g.task_id, "trial": g.trial, "status": g.status,
         "reason": "; ".join(g.errors) or (f"judges without an answer: {', '.join(g.incomplete_judges)}"
                                           if g.incomplete_judges else g.status)}
        for g in parsed if not g.scored
    ]
    gate_failures = [
        {"model": g.model, "task_id": g.task_id, "trial": g.trial, "reason": str(g.gate.get("reason") or "")}
        for g in parsed if g.status == "gate_failed"
    ]
    all_complete = all(e["grid_complete"] for e in entries)
    order = [e["model"] for e in entries]
    return {
        "n_trials": sum(e["n_trials"] for e in entries),
        "n_models": len(entries),
        "models": [e["model"] for e in entries],
        "judge_method": _method_label(methods),
        "redline_overall": {e["model"]: e["redline_overall"] for e in entries},
        "leaderboard": entries,
        "grid": {
            "expected_cells": [f"{s}-{t}" for s, t in expected_cells],
            "complete": all_complete,
            "note": None if all_complete else
            "at least one model was not scored on every scenario x turn cell; see each entry's grid_note",
        },
        "n_incomplete": len(incomplete),
        "incomplete": incomplete,
        "n_gate_failures": len(gate_failures),
        "gate_failures": gate_failures,
        **integrity_counts(g for g in parsed if g.scored),
        "warnings": warnings,
        # §6.1: every pair compared on the groups both were graded on, Holm-adjusted
        "pairwise": pairwise({m: agg.group_scores for m, (_e, _rows_, agg) in built.items()}, order),
        "power": power_section({m: _trials_by_task(rows) for m, (_e, rows, _agg) in built.items()}, order),
    }
