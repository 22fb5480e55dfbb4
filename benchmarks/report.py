"""How big and how fast are the pages for a full-size run?

Builds a run directory shaped like the real benchmark (140 tasks over the 12 scenario x turn
cells, 3 models, 40-page contracts of ~260 clauses with ~25 tracked changes and 6 comment
threads each, a golden per task, 3 judges), then times ``write_run_report`` and
``write_comparison`` and, if Chromium is installed, the page load in headless Chromium.

    python benchmarks/report.py [--tasks 140] [--models 3] [--paragraphs 260]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redlinebench.report import write_comparison, write_run_report  # noqa: E402
from redlinebench.scoring import summarize  # noqa: E402
from tests.report.docxfixture import Cmt, Doc, Para, write_docx  # noqa: E402

JUDGES = ["openai/gpt-5.4-mini", "anthropic/claude-haiku-4-5", "gemini/gemini-3.1-flash-lite"]
WORDS = ("the supplier shall provide services in accordance with the agreement and applicable law including any "
         "data protection obligations liability indemnity fees invoice termination confidentiality customer").split()
SIDES = {1: "ABAB", 2: "BABA", 3: "ABAB"}


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def contract(rng: random.Random, n_par: int, author: str) -> Doc:
    paras = []
    for i in range(n_par):
        level = 0 if i % 12 == 0 else 1
        text = sentence(rng, 6 if level == 0 else rng.randint(25, 60))
        runs = [("text", text, None)]
        if i % 10 == 3:
            cut = text.index(" ", len(text) // 2)
            runs = [("text", text[:cut], None), ("del", text[cut:cut + 30], author), ("ins", sentence(rng, 8), author),
                    ("text", text[cut + 30:], None)]
        elif i % 23 == 7:
            runs = [("text", text, None), ("ins", " " + sentence(rng, 12), "Counterparty Legal")]
        paras.append(Para(runs, level=level))
    comments = []
    for k in range(6):
        comments.append(Cmt(2 * k + 1, "Counterparty Legal", sentence(rng, 14), para=3 + 10 * k))
        comments.append(Cmt(2 * k + 2, author, sentence(rng, 10), para=3 + 10 * k, parent=2 * k + 1))
    return Doc(paras, comments)


def build(root: Path, n_tasks: int, n_models: int, n_par: int) -> Path:
    rng = random.Random(7)
    bench, run = root / "bench", root / "run"
    cells = [(s, t) for s in (1, 2, 3) for t in (1, 2, 3, 4)]
    tasks = []
    for i in range(n_tasks):
        s, t = cells[i % 12]
        tasks.append((f"redline-s{s}-t{t}-g{i // 12 + 1:02d}a", s, t, SIDES[s][t - 1]))
    golden_cache: dict[int, bytes] = {}
    for task_id, s, t, side in tasks:
        d = bench / "tasks" / task_id / "tests"
        d.mkdir(parents=True)
        write_docx(d / "attorney_redlines.docx", contract(random.Random(s * 10 + t), n_par, "Attorney"))
    config = {"spec": {"run_id": "bench"}, "data": {"kind": "path", "path": str(bench), "fingerprint": "x"},
              "judges": {"spec": "panel", "names": JUDGES}}
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps(config))
    grades = []
    for m in range(n_models):
        model = f"provider/model-{m}"
        for task_id, s, t, side in tasks:
            tdir = run / "trials" / model.replace("/", "_") / task_id / "1"
            (tdir / "judges").mkdir(parents=True)
            author = "Reviewing Counsel (AgentCo Legal)"
            write_docx(tdir / "redline.docx", contract(random.Random(hash((m, task_id)) & 0xFFFF), n_par, author))
            per = []
            for r in range(12):
                votes = {j: rng.choice(["PASS", "FAIL"]) for j in JUDGES}
                verdict = "PASS" if sum(v == "PASS" for v in votes.values()) >= 2 else "FAIL"
                per.append({"rubric_id": f"r{r:02d}", "verdict": verdict, "weight": rng.randint(1, 10), "is_penalty": False,
                            "category": rng.choice(["Commercial Context", "Legal correctness", "Negotiation Quality"]),
                            "criteria": sentence(rng, 14), "justification": sentence(rng, 12), "votes": votes})
            total = sum(r["weight"] for r in per)
            earned = sum(r["weight"] for r in per if r["verdict"] == "PASS")
            g = {"task_id": task_id, "model": model, "trial": 1, "scenario_id": s, "turn": t, "side": side,
                 "input_group": task_id[:-1], "variant": "a", "judge_method": "llm", "judges": JUDGES, "status": "graded",
                 "gate": {"passed": True}, "score": {"weighted": round(earned / total, 4), "earned_weight": earned,
                                                      "penalty_weight": 0, "total_weight": total, "n_pass": 0, "n_total": 12,
                                                      "per_rubric": per}}
            grades.append(g)
            (tdir / "grade.json").write_text(json.dumps(g))
            (tdir / "metrics.json").write_text(json.dumps({"tokens_in": 90000, "tokens_out": 4000, "cost_usd": 0.3, "wall_s": 80}))
            (tdir / "annotated_view.md").write_text("\n".join(sentence(rng, 40) for _ in range(n_par)))
            for j in JUDGES:
                (tdir / "judges" / f"{j.replace('/', '_')}.json").write_text(json.dumps(
                    {"judge": j, "verdicts": {r["rubric_id"]: r["votes"][j] for r in per},
                     "justifications": {r["rubric_id"]: sentence(rng, 15) for r in per}}))
    (run / "metrics_summary.json").write_text(json.dumps(summarize(grades)))
    del golden_cache
    return run


async def chromium_load(page: Path) -> float | None:
    if not shutil.which("chromium"):
        return None
    from tests.report.browser import Chromium

    async with Chromium(shutil.which("chromium")) as browser:
        t0 = time.perf_counter()
        result = await browser.open(page, evaluate={"n": "document.querySelectorAll('*').length"}, full_page=False)
        elapsed = time.perf_counter() - t0
    if result.errors:
        print("  chromium errors:", result.errors[:3])
    print(f"  DOM elements: {result.values['n']:,}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=140)
    ap.add_argument("--models", type=int, default=3)
    ap.add_argument("--paragraphs", type=int, default=260)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run = build(Path(tmp), args.tasks, args.models, args.paragraphs)
        trials = args.tasks * args.models
        print(f"built {trials} trials ({args.paragraphs} paragraphs per contract) in {time.perf_counter() - t0:.1f} s")
        t0, c0 = time.perf_counter(), time.process_time()
        page = write_run_report(run)
        t_report, c_report = time.perf_counter() - t0, time.process_time() - c0
        size = page.stat().st_size
        packed = b'class="packed"' in page.read_bytes()
        print(f"report.html: {size / 1e6:.1f} MB{' (documents packed)' if packed else ''}, {t_report:.1f} s wall, "
              f"{c_report:.1f} s CPU ({1000 * c_report / trials:.0f} ms CPU and {size / trials / 1e3:.0f} kB per trial)")
        t0 = time.perf_counter()
        plain = write_run_report(run, Path(tmp) / "plain.html", pack=False)
        print(f"  same page unpacked: {plain.stat().st_size / 1e6:.1f} MB "
              f"(packing ratio {plain.stat().st_size / size:.1f}x)")
        t0 = time.perf_counter()
        cmp_page = write_comparison([run], Path(tmp) / "compare.html")
        print(f"compare.html: {cmp_page.stat().st_size / 1e6:.2f} MB, {time.perf_counter() - t0:.1f} s")
        t = asyncio.run(chromium_load(page))
        if t is not None:
            print(f"headless Chromium: report.html open + load + first screenshot {t:.1f} s")


if __name__ == "__main__":
    main()
