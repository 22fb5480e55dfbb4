"""The judge-check set: known redlines of every task with the verdict each rubric must get.

Each rubric's ground truth names golden ops (``requires``: PASS only if all are present) and
violation ops (``unless``: FAIL if any is present; a penalty rubric ``requires`` its violation).
From a set of present ops the expected verdict follows mechanically, so a perturbed golden
(ops removed, or reversed into the violation they guard against) comes with exact expected
verdicts and a judge's accuracy can be measured rubric by rubric.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .sources import Op, RubricSpec, Script, VariantSpec


@dataclass(frozen=True)
class Case:
    """One checked redline: which ops it plays, in order, and why."""

    name: str
    description: str
    ops: tuple[Op, ...]
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()

    @property
    def present(self) -> frozenset[str]:
        return frozenset(o.id for o in self.ops)


def expected_verdict(rubric: RubricSpec, present: Iterable[str]) -> str:
    """PASS iff every required op is present and no disqualifying op is."""
    have = set(present)
    ok = all(r in have for r in rubric.requires) and not any(u in have for u in rubric.unless)
    return "PASS" if ok else "FAIL"


def expected_verdicts(variant: VariantSpec, present: Iterable[str]) -> dict[str, str]:
    have = set(present)
    return {rubric.id: expected_verdict(rubric, have) for rubric, _ in variant.rubrics}


def _without(ops: Sequence[Op], drop: set[str]) -> tuple[Op, ...]:
    return tuple(o for o in ops if o.id not in drop)


def _with_violations(script: Script, violations: Sequence[Op]) -> tuple[Op, ...]:
    """The golden with each violation standing in for the ops it replaces (or appended)."""
    replaced = {r: v for v in violations for r in v.replaces}
    out: list[Op] = []
    placed: set[str] = set()
    for op in script.ops:
        v = replaced.get(op.id)
        if v is None:
            out.append(op)
        elif v.id not in placed:
            out.append(v)
            placed.add(v.id)
    out.extend(v for v in violations if v.id not in placed)
    return tuple(out)


def cases(script: Script, variant: VariantSpec) -> list[Case]:
    """Golden, three or more perturbations, deterministic and distinct (the null case is separate).

    1. ``drop-top``: remove the ops behind the variant's heaviest positive rubric that the golden
       satisfies through present ops (the single most valuable move).
    2. ``drop-alternate``: remove every second op of the script (markup, comments and replies).
    3. ``reverse``: replace golden ops by the violations that reverse them and add the other
       violations (every penalty rubric of the task turns PASS).
    4. ``reverse-one``: only the first violation this variant's rubrics grade, when there are several.
    5. ``comments-only``: keep only comments and replies (no tracked change), when that differs.
    """
    golden = Case("golden", "the attorney's redline as scripted", script.ops)
    out = [golden]
    positives = sorted(
        ((w, r) for r, w in variant.rubrics if w > 0 and r.requires),
        key=lambda wr: (-wr[0], wr[1].id),
    )
    if positives:
        top = positives[0][1]
        drop = set(top.requires)
        out.append(Case("drop-top", f"golden without {', '.join(sorted(drop))} (the moves behind {top.id})",
                        _without(script.ops, drop), removed=tuple(sorted(drop))))
    alternate = {o.id for o in script.ops[1::2]}
    if alternate:
        out.append(Case("drop-alternate", "golden without every second op", _without(script.ops, alternate),
                        removed=tuple(o.id for o in script.ops if o.id in alternate)))
    if script.violations:
        reversed_ops = _with_violations(script, script.violations)
        removed = tuple(o.id for o in script.ops if o not in reversed_ops)
        out.append(Case("reverse", "golden with the undesirable moves (violations) in place of the ops they reverse",
                        reversed_ops, removed=removed, added=tuple(v.id for v in script.violations)))
    if len(script.violations) > 1:
        graded = {ref for r, _ in variant.rubrics for ref in r.requires + r.unless}
        first = next((v for v in script.violations if v.id in graded or graded & set(v.replaces)), None)
        if first is not None:
            one = _with_violations(script, [first])
            out.append(Case("reverse-one", f"golden with only one violation ({first.id})", one,
                            removed=tuple(o.id for o in script.ops if o not in one), added=(first.id,)))
    comments_only = tuple(o for o in script.ops if not o.is_markup)
    if comments_only and len(comments_only) < len(script.ops):
        out.append(Case("comments-only", "only the comments and replies of the golden, no tracked change",
                        comments_only, removed=tuple(o.id for o in script.ops if o.is_markup)))
    unique: list[Case] = []
    seen: set[tuple[str, ...]] = set()
    for case in out:
        key = tuple(o.id for o in case.ops)
        if key in seen:
            continue
        seen.add(key)
        unique.append(case)
    return unique


__all__ = ["Case", "cases", "expected_verdict", "expected_verdicts"]
