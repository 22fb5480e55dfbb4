"""The heuristic judge's agreement with the judge-check set (issue 5 item 8, issue 16 item 5).

Targets: accuracy at least 0.90 overall, at least 0.85 on comment and reply rubrics, at least
0.80 on rubrics whose verb is insert, delete, replace, reject or accept.
Run: python benchmarks/judge_check.py [TASK_SOURCE]  (default: the embedded set).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redlinebench.judge import create_judges  # noqa: E402
from redlinebench.judge._check import COMMENT_VERBS, CORE_VERBS, run_check  # noqa: E402
from redlinebench.tasks import load_tasks  # noqa: E402

TARGETS = (("overall", None, 0.90), ("comment and reply", "comment_and_reply", 0.85),
           ("core verbs", "core_verbs", 0.80))


def _line(label: str, s: dict, target: float | None = None) -> str:
    kappa = "-" if s.get("kappa") is None else f"{s['kappa']:.3f}"
    acc = "-" if s.get("accuracy") is None else f"{s['accuracy']:.3f}"
    out = f"    {label:38s} n={s['n']:4d}  acc={acc}  kappa={kappa}"
    if target is not None and s.get("accuracy") is not None:
        out += f"  target {target:.2f}: {'meets' if s['accuracy'] >= target else 'MISSES'}"
    return out


def main(source: str | None) -> int:
    tasks = load_tasks(source).tasks
    t0 = time.perf_counter()
    report = asyncio.run(run_check(tasks, create_judges("heuristic")))
    wall = time.perf_counter() - t0
    r = report["results"].get("heuristic")
    if r is None:
        print("no judge-check cases found")
        return 1
    print(f"heuristic judge over {report['n_judged_cases']} judged redlines of {report['n_tasks']} tasks "
          f"({r['n']} rubric verdicts) in {wall:.1f} s")
    print(f"  accuracy {r['accuracy']:.3f}  kappa {r['kappa']:.3f}  false PASS {r['false_pass_rate']:.3f}  "
          f"false FAIL {r['false_fail_rate']:.3f}")
    print("  targets:")
    missed = 0
    for label, key, target in TARGETS:
        s = r if key is None else r[key]
        verbs = {"comment_and_reply": COMMENT_VERBS, "core_verbs": CORE_VERBS}.get(key or "")
        print(_line(label + (f" ({', '.join(verbs)})" if verbs else ""), s, target))
        missed += s.get("accuracy") is None or s["accuracy"] < target
    for section in ("by_verb", "by_case", "by_category"):
        print(f"  {section.replace('_', ' ')}:")
        for key, s in r[section].items():
            target = 0.85 if section == "by_verb" and key in COMMENT_VERBS else None
            print(_line(key, s, target))
    g = report["gate"]
    print(f"  gate agrees with the expected gate on {g['agree']} of {g['n']} cases")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else None))
