"""The heuristic judge's agreement with the judge-check set (issue 5, item 8).

Target: at least 80% accuracy on rubrics whose verb is insert, delete, replace, reject or
accept. Run: python benchmarks/judge_check.py [TASK_SOURCE]  (default: the embedded set).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redlinebench.judge import create_judges  # noqa: E402
from redlinebench.judge._check import CORE_VERBS, run_check  # noqa: E402
from redlinebench.tasks import load_tasks  # noqa: E402


def main(source: str | None) -> None:
    tasks = load_tasks(source).tasks
    t0 = time.perf_counter()
    report = asyncio.run(run_check(tasks, create_judges("heuristic")))
    wall = time.perf_counter() - t0
    r = report["results"].get("heuristic")
    if r is None:
        print("no judge-check cases found")
        return
    print(f"heuristic judge over {report['n_judged_cases']} judged redlines of {report['n_tasks']} tasks "
          f"({r['n']} rubric verdicts) in {wall:.1f} s")
    print(f"  accuracy {r['accuracy']:.3f}  kappa {r['kappa']:.3f}  false PASS {r['false_pass_rate']:.3f}  "
          f"false FAIL {r['false_fail_rate']:.3f}")
    core = r["core_verbs"]
    verdict = "meets" if core["accuracy"] >= 0.8 else "MISSES"
    print(f"  core verbs ({', '.join(CORE_VERBS)}): accuracy {core['accuracy']:.3f} over {core['n']} verdicts "
          f"-> {verdict} the 0.80 target")
    for section in ("by_verb", "by_case", "by_category"):
        print(f"  {section.replace('_', ' ')}:")
        for key, s in r[section].items():
            kappa = "-" if s["kappa"] is None else f"{s['kappa']:.3f}"
            print(f"    {key:38s} n={s['n']:4d}  acc={s['accuracy']:.3f}  kappa={kappa}")
    g = report["gate"]
    print(f"  gate agrees with the expected gate on {g['agree']} of {g['n']} cases")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
