"""Judge check: how well judges agree with known verdicts on the synthetic judge-check set.

Each task may carry ``tests/judge_check/expected.json`` listing redlines of that task (the
golden, a null redline, perturbations of the golden) with the verdict every rubric should
get. The synthetic builder writes::

    {"task_id": ..., "cases": [{"name": "golden", "file": "tests/attorney_redlines.docx",
                                "gate": true, "verdicts": {"r1": "PASS", ...}}, ...]}

``file`` is relative to the task directory (or to ``judge_check/``); ``verdicts`` may also be
called ``expected``, may be a list of ``{rubric_id, verdict}`` and a verdict may be a boolean;
a top-level list of cases or a ``{name: case}`` object is read too. A case with
``verdicts: null`` is a gate failure (SPEC §5: judges are not called): only its ``gate`` is
checked. Judges see every other case: the check measures the judges.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..scoring import FAIL, PASS, panel_vote
from ._base import Judge, JudgeResult
from ._cache import JudgeCache
from ._audit import reply_slips
from ._gate import gate, open_output
from ._heuristic import parse_rubric

CHECK_DIR = Path("tests") / "judge_check"
EXPECTED = "expected.json"
PANEL = "panel"
#: Verbs the heuristic judge is held to (issue target: >= 80% accuracy on these).
CORE_VERBS = ("insert", "delete", "replace", "reject", "accept")
#: Comment rubrics, replies included (issue 16 target: >= 85% accuracy on these, >= 90% overall).
COMMENT_VERBS = ("comment", "reply")


@dataclass(frozen=True)
class CheckCase:
    task: Any
    name: str
    path: Path
    expected: dict[str, str] | None   # None: a gate-failure case, not for judges
    gate: bool | None = None


def _verdict(value: Any) -> str | None:
    if isinstance(value, bool):
        return PASS if value else FAIL
    if isinstance(value, str) and value.strip().upper() in (PASS, FAIL):
        return value.strip().upper()
    if isinstance(value, Mapping):
        return _verdict(value.get("verdict", value.get("expected")))
    return None


def _entries(data: Any) -> list[tuple[str, Mapping[str, Any]]]:
    if isinstance(data, Mapping) and isinstance(data.get("cases"), list):
        data = data["cases"]
    if isinstance(data, list):
        return [(str(e.get("name") or e.get("id") or f"case{i + 1}"), e) for i, e in enumerate(data)
                if isinstance(e, Mapping)]
    if isinstance(data, Mapping):
        return [(str(k), v) for k, v in data.items() if isinstance(v, Mapping)]
    return []


def load_cases(task: Any) -> list[CheckCase]:
    """The task's judge-check cases; [] when it has none. Raises ConfigError naming a bad file."""
    root = Path(getattr(task, "root", "") or "")
    path = root / CHECK_DIR / EXPECTED
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read judge-check expectations: {exc}", path=path) from None
    rubric_ids = {str(r.id) for r in task.rubrics}
    cases = []
    for name, entry in _entries(data):
        file = next((entry[k] for k in ("file", "docx", "path", "document") if isinstance(entry.get(k), str)), None)
        if file is None:
            raise ConfigError(f"case {name!r} names no file", path=path)
        key = next((k for k in ("verdicts", "expected", "expected_verdicts") if k in entry), None)
        raw = entry.get(key) if key else None
        gate_expected = entry.get("gate") if isinstance(entry.get("gate"), bool) else None
        located = root / file
        if not located.exists():
            located = path.parent / file
        if raw is None:
            if gate_expected is None:
                raise ConfigError(f"case {name!r} has neither expected verdicts nor an expected gate", path=path)
            cases.append(CheckCase(task, name, located.resolve(), None, gate_expected))
            continue
        if isinstance(raw, list):
            raw = {str(x.get("rubric_id", x.get("id"))): x for x in raw if isinstance(x, Mapping)}
        if not isinstance(raw, Mapping):
            raise ConfigError(f"case {name!r}: expected verdicts must be an object or a list", path=path)
        expected = {}
        for rid, value in raw.items():
            v = _verdict(value)
            if v is None:
                raise ConfigError(f"case {name!r}: expected verdict for {rid!r} must be PASS or FAIL", path=path)
            if str(rid) in rubric_ids:
                expected[str(rid)] = v
        cases.append(CheckCase(task, name, located.resolve(), expected, gate_expected))
    return cases


#: The comment rubrics that answer a thread ("Replies to ...") are reported apart from the others.
_REPLY_STEMS = ("repl", "respond", "answer")


def verb_of(criteria: str) -> str:
    """The rubric's kind for the report: its verb, ``reply`` for a comment rubric that answers a
    thread, ``not-`` in front when negated."""
    parsed = parse_rubric(criteria)
    verb = parsed.verb or "other"
    if verb == "comment" and parsed.first_word.startswith(_REPLY_STEMS):
        verb = "reply"
    return f"not-{verb}" if parsed.negated else verb


# ---------------------------------------------------------------- statistics
@dataclass
class _Tally:
    n: int = 0
    agree: int = 0
    tp: int = 0   # expected PASS, judged PASS
    fp: int = 0   # expected FAIL, judged PASS
    fn: int = 0   # expected PASS, judged FAIL
    tn: int = 0

    def add(self, expected: str, got: str) -> None:
        self.n += 1
        self.agree += expected == got
        if expected == PASS:
            self.tp += got == PASS
            self.fn += got != PASS
        else:
            self.fp += got == PASS
            self.tn += got != PASS

    def stats(self) -> dict[str, Any]:
        if not self.n:
            return {"n": 0, "accuracy": None, "kappa": None, "false_pass_rate": None, "false_fail_rate": None}
        po = self.agree / self.n
        exp_pass = (self.tp + self.fn) / self.n
        got_pass = (self.tp + self.fp) / self.n
        pe = exp_pass * got_pass + (1 - exp_pass) * (1 - got_pass)
        kappa = None if pe >= 1 else (po - pe) / (1 - pe)
        neg, pos = self.fp + self.tn, self.tp + self.fn
        return {
            "n": self.n,
            "accuracy": round(po, 4),
            "kappa": None if kappa is None else round(kappa, 4),
            "false_pass_rate": round(self.fp / neg, 4) if neg else None,
            "false_fail_rate": round(self.fn / pos, 4) if pos else None,
            "n_expected_pass": pos,
            "n_expected_fail": neg,
        }


def cohen_kappa(expected: Sequence[str], got: Sequence[str]) -> float | None:
    """Cohen's kappa of two PASS/FAIL sequences (``None`` when chance agreement is total)."""
    tally = _Tally()
    for e, g in zip(expected, got, strict=True):
        tally.add(e, g)
    return tally.stats()["kappa"]


def agreement_report(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """rows: {judge, expected, got, verb, category, case, task_id, rubric_id} -> per-judge statistics."""
    overall: dict[str, _Tally] = defaultdict(_Tally)
    by_verb: dict[str, dict[str, _Tally]] = defaultdict(lambda: defaultdict(_Tally))
    by_cat: dict[str, dict[str, _Tally]] = defaultdict(lambda: defaultdict(_Tally))
    by_case: dict[str, dict[str, _Tally]] = defaultdict(lambda: defaultdict(_Tally))
    core: dict[str, _Tally] = defaultdict(_Tally)
    comments: dict[str, _Tally] = defaultdict(_Tally)
    for r in rows:
        j = r["judge"]
        overall[j].add(r["expected"], r["got"])
        by_verb[j][r["verb"]].add(r["expected"], r["got"])
        by_cat[j][r["category"]].add(r["expected"], r["got"])
        by_case[j][r["case_kind"]].add(r["expected"], r["got"])
        if r["verb"] in CORE_VERBS:
            core[j].add(r["expected"], r["got"])
        if r["verb"] in COMMENT_VERBS:
            comments[j].add(r["expected"], r["got"])
    judges = sorted(overall, key=lambda n: (n == PANEL, n))
    return {
        j: {
            **overall[j].stats(),
            "core_verbs": core[j].stats(),
            "comment_and_reply": comments[j].stats(),
            "by_verb": {v: t.stats() for v, t in sorted(by_verb[j].items())},
            "by_category": {c: t.stats() for c, t in sorted(by_cat[j].items())},
            "by_case": {c: t.stats() for c, t in sorted(by_case[j].items())},
        }
        for j in judges
    }


def _case_kind(name: str) -> str:
    low = name.lower()
    return low if low in ("golden", "null") else "perturbed"


async def run_check(tasks: Sequence[Any], judges: Sequence[Judge], *, concurrency: int = 8,
                    cache: JudgeCache | None = None) -> dict[str, Any]:
    """Run every judge on every case; agreement per judge and (for several judges) for the panel."""
    if not judges:
        raise ConfigError("judge check needs at least one judge")
    cases = [c for t in tasks for c in load_cases(t)]
    limiter = asyncio.Semaphore(max(1, concurrency))
    rows: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    gate_rows: list[dict[str, Any]] = []
    slips: list[dict[str, Any]] = []  # per judge answer: verdicts not exactly PASS/FAIL, JSON repairs

    async def one(case: CheckCase) -> None:
        if case.gate is not None:
            passed = gate(case.path, case.task.author).passed
            gate_rows.append({"task_id": case.task.task_id, "case": case.name, "expected": case.gate,
                              "got": passed})
        if case.expected is None:
            return
        doc, why = open_output(case.path)
        if doc is None:
            skipped.append({"task_id": case.task.task_id, "case": case.name, "reason": why})
            return
        view = doc.annotated_view(focus_author=case.task.author)

        async def run(j: Judge) -> JudgeResult:
            try:
                return await j.grade(case.task, view, doc, cache=cache, limiter=limiter)
            except Exception as exc:  # noqa: BLE001
                return JudgeResult(judge=j.name, ok=False, error=f"{type(exc).__name__}: {exc}")

        results = await asyncio.gather(*(run(j) for j in judges))
        answered = {r.judge: r.returned() for r in results if r.ok}
        slips.extend({"judge": r.judge, "near_misses": r.near_misses, "json_repaired": r.repaired}
                     for r in results if r.ok)
        for r in results:
            if not r.ok:
                failures.append({"task_id": case.task.task_id, "case": case.name, "judge": r.judge, "error": r.error})
        votes = dict(answered)
        if len(judges) > 1:
            votes[PANEL] = panel_vote(answered, [str(r.id) for r in case.task.rubrics])
        rubrics = {str(r.id): r for r in case.task.rubrics}
        for judge_name, verdicts in votes.items():
            for rid, expected in case.expected.items():
                rub = rubrics[rid]
                rows.append({"judge": judge_name, "task_id": case.task.task_id, "case": case.name,
                             "case_kind": _case_kind(case.name), "rubric_id": rid, "expected": expected,
                             "got": verdicts.get(rid, FAIL), "verb": verb_of(str(rub.criteria or "")),
                             "category": rub.category or "(uncategorized)", "weight": int(rub.weight)})

    await asyncio.gather(*(one(c) for c in cases))
    rows.sort(key=lambda r: (r["judge"], r["task_id"], r["case"], r["rubric_id"]))
    gate_rows.sort(key=lambda r: (r["task_id"], r["case"]))
    gate_wrong = [r for r in gate_rows if r["expected"] != r["got"]]
    return {
        "n_tasks": len({c.task.task_id for c in cases}),
        "n_cases": len(cases),
        "n_judged_cases": sum(1 for c in cases if c.expected is not None),
        "gate": {"n": len(gate_rows), "agree": len(gate_rows) - len(gate_wrong), "disagreements": gate_wrong},
        "judges": [j.name for j in judges] + ([PANEL] if len(judges) > 1 else []),
        "results": agreement_report(rows),
        "judge_failures": failures,
        # verdicts not exactly PASS/FAIL (counted FAIL, SPEC 5.3) and replies read after a JSON repair, per judge
        "near_misses": reply_slips(slips)[0],
        "json_repaired": reply_slips(slips)[1],
        "skipped_cases": skipped,
        "rows": rows,
    }
