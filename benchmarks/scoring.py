"""Scoring speed and judge cost figures (issue 5).

1. Judge throughput: 140 tasks x 3 judges against the loopback fake server answering after
   200 ms, at concurrency 32, through real litellm. Target: wall time within 1.3x of the
   ideal (calls x latency / concurrency).
2. summarize over 10 models x 140 tasks x 5 trials (7,000 grade files): target under 2 s,
   in memory and from disk (read + parse + aggregate).
3. summarize with the §6.1 paired comparison over 20 models (190 pairs) x 140 tasks x 3 trials,
   beside the same summarize with pairwise and power switched off (today's work): target < 10 s.
4. Prompt characters per task (judge cost driver), on the embedded benchmark when present.

Run: python benchmarks/scoring.py
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redlinebench.judge import LiteLLMJudge, judge_messages  # noqa: E402
from redlinebench.scoring import summarize  # noqa: E402

CATEGORIES = ["Commercial Context", "Legal correctness", "Negotiation Quality", "Deal-closing Orientation",
              "Counterparty Acceptance Prediction"]


@dataclass(frozen=True)
class _Rubric:
    id: str
    criteria: str
    category: str
    weight: int
    justification: str | None = None


@dataclass(frozen=True)
class _Task:
    task_id: str
    scenario_id: int
    turn: int
    side: str
    input_group: str
    variant: str
    rubrics: tuple
    scenario_label: str = "Vendor-led SaaS MSA"
    represented_party: str = "AgentCo"
    counterparty: str = "LargeCo"
    author: str = "Reviewing Counsel (AgentCo Legal)"


def synthetic_tasks(n: int = 140, seed: int = 0) -> list[_Task]:
    rng = random.Random(seed)
    tasks = []
    for i in range(n):
        s, t = 1 + i % 3, 1 + (i // 3) % 4
        side = {1: "ABAB", 2: "BABA", 3: "ABAB"}[s][t - 1]
        rubrics = tuple(
            _Rubric(f"r{k}", f"Inserts in Section {rng.randint(1, 14)}.{rng.randint(1, 6)} a clause on item {k}",
                    rng.choice(CATEGORIES), rng.choice([-5, -2, 1, 3, 5, 8, 10]), "because it matters")
            for k in range(rng.randint(5, 15)))
        g = i // 12 + 1
        tasks.append(_Task(f"redline-s{s}-t{t}-g{g:02d}a", s, t, side, f"s{s}-t{t}-g{g:02d}", "a", rubrics))
    return tasks


def _verdict_handler(body):
    from tests.fakes.openai_server import Reply

    ids = json.loads(body["messages"][1]["content"].rsplit(": ", 1)[1])
    reply = Reply.json({"verdicts": [{"rubric_id": r, "verdict": "PASS", "justification": "ok"} for r in ids]},
                       usage=(6000, 300))
    return Reply.delay(_LATENCY, reply)


_LATENCY = 0.2


def _serve(url_queue, stop_event, latency):
    """The fake provider in its own process, so its Python threads do not share our GIL."""
    global _LATENCY
    _LATENCY = latency
    from tests.fakes.openai_server import FakeOpenAI

    with FakeOpenAI() as srv:
        srv.set_handler(_verdict_handler)
        url_queue.put(srv.url)
        stop_event.wait()


async def judge_throughput(latency: float = 0.2, concurrency: int = 32, n_tasks: int = 140) -> None:
    import multiprocessing as mp

    tasks = synthetic_tasks(n_tasks)
    view = "[p-001] 1.1 The Provider shall ++promptly ++deliver the Services. {cmt-1}\n" * 200
    ctx = mp.get_context("spawn")
    urls, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=_serve, args=(urls, stop, latency), daemon=True)
    proc.start()
    try:
        url = urls.get(timeout=60)
        # three judges litellm knows the price of (the real panel is priced the same way)
        judges = [LiteLLMJudge(m, api_base=url, api_key="sk-bench", timeout=30)
                  for m in ("openai/gpt-5.4-mini", "openai/gpt-5-mini", "openai/gpt-4.1-mini")]
        limiter = asyncio.Semaphore(concurrency)
        # warm-up: import and first-call costs are not the scorer's steady state
        await asyncio.gather(*(j.grade(tasks[0], view, None, limiter=limiter) for j in judges))
        t0, c0 = time.perf_counter(), time.process_time()
        results = await asyncio.gather(*(j.grade(t, view, None, limiter=limiter) for t in tasks for j in judges))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        stop.set()
        proc.join(10)
    calls = len(results)
    ideal = calls * latency / concurrency
    ok = sum(r.ok for r in results)
    cost = sum(r.cost_usd or 0 for r in results)
    print(f"judge calls: {calls} ({ok} ok) at {latency * 1000:.0f} ms latency, concurrency {concurrency}")
    print(f"  wall {wall:.2f} s, ideal {ideal:.2f} s, ratio {wall / ideal:.2f}x (target <= 1.30x); "
          f"priced ${cost:.4f} for 6000+300 tokens per call")
    print(f"  client CPU {cpu:.2f} s = {1000 * cpu / calls:.1f} ms per call (litellm + ours)")
    from redlinebench.judge import PROMPT_VERSION, cache_key, parse_verdicts

    c0 = time.process_time()
    for t in tasks:
        ids = [r.id for r in t.rubrics]
        cache_key("openai/x", judge_messages(t, view), PROMPT_VERSION)
        parse_verdicts(json.dumps({"verdicts": [{"rubric_id": r, "verdict": "PASS", "justification": "ok"}
                                                for r in ids]}), ids)
    ours = (time.process_time() - c0) / len(tasks)
    print(f"  of which ours (prompt, cache key, parsing): {1000 * ours:.2f} ms per call; "
          f"machine load average {__import__('os').getloadavg()[0]:.1f}")


def synthetic_grades(n_models: int, n_tasks: int, n_trials: int) -> list[dict]:
    rng = random.Random(1)
    tasks = synthetic_tasks(n_tasks)
    grades = []
    for m in range(n_models):
        for task in tasks:
            for k in range(1, n_trials + 1):
                per = [{"rubric_id": r.id, "verdict": rng.choice(["PASS", "FAIL"]), "weight": r.weight,
                        "is_penalty": r.weight < 0, "category": r.category, "criteria": r.criteria,
                        "justification": "j"} for r in task.rubrics]
                gate_ok = rng.random() > 0.03
                grades.append({
                    "task_id": task.task_id, "model": f"model-{m}", "trial": k, "scenario_id": task.scenario_id,
                    "turn": task.turn, "side": task.side, "input_group": task.input_group, "variant": "a",
                    "judge_method": "llm", "judges": ["a", "b", "c"], "gate": {"passed": gate_ok},
                    "score": {"weighted": rng.random() if gate_ok else 0.0, "per_rubric": per, "redlines": 3,
                              "edit_operations": 5, "total_revisions": 9, "touched_paragraphs": 4,
                              "comments_added": 5, "median_insertion_chars": 40.0, "surgicalness_score": 0.6}})
    return grades


def summarize_speed(n_models: int = 10, n_tasks: int = 140, n_trials: int = 5) -> None:
    grades = synthetic_grades(n_models, n_tasks, n_trials)
    t0, c0 = time.perf_counter(), time.process_time()
    summary = summarize(grades)
    mem, mem_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"summarize in memory: {len(grades)} grades, {summary['n_models']} models: {mem:.2f} s wall, "
          f"{mem_cpu:.2f} s CPU (target < 2 s)")

    from redlinebench.cli.scoring import collect_grade_files, load_grades

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for g in grades:
            d = root / g["model"] / g["task_id"] / str(g["trial"])
            d.mkdir(parents=True, exist_ok=True)
            (d / "grade.json").write_text(json.dumps(g, indent=2), encoding="utf-8")
        t0, c0 = time.perf_counter(), time.process_time()
        files = collect_grade_files([root])
        loaded, _ = load_grades(files)
        summarize(loaded)
        disk, disk_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"summarize from disk (find + read + parse + aggregate {len(files)} files): {disk:.2f} s wall, "
          f"{disk_cpu:.2f} s CPU (target < 2 s)")
    import os

    print(f"  machine load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def pairwise_speed(n_models: int = 20, n_tasks: int = 140, n_trials: int = 3) -> None:
    """summarize with and without §6.1 (pairwise + power), same grades, same process."""
    from unittest import mock

    from redlinebench.scoring import _aggregate

    grades = synthetic_grades(n_models, n_tasks, n_trials)
    with mock.patch.object(_aggregate, "pairwise", lambda *a, **k: []), \
            mock.patch.object(_aggregate, "power_section", lambda *a, **k: {}):
        t0, c0 = time.perf_counter(), time.process_time()
        summarize(grades)
        base, base_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    summary = summarize(grades)
    full, full_cpu = time.perf_counter() - t0, time.process_time() - c0
    pairs = len(summary["pairwise"])
    import os

    print(f"summarize {len(grades)} grades, {n_models} models, {pairs} pairs (target < 10 s with pairwise):")
    print(f"  without pairwise (today): {base:.2f} s wall, {base_cpu:.2f} s CPU")
    print(f"  with pairwise + power:    {full:.2f} s wall, {full_cpu:.2f} s CPU ({full / base:.1f}x wall); "
          f"{1000 * (full_cpu - base_cpu) / pairs:.1f} ms CPU per pair")
    print(f"  machine load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def prompt_chars() -> None:
    try:
        from redlinebench.docx import RedlineDocument
        from redlinebench.tasks import load_tasks

        taskset = load_tasks(None)
    except Exception as exc:  # noqa: BLE001  the embedded set may not be built yet
        print(f"prompt characters: embedded benchmark unavailable ({type(exc).__name__}: {exc})")
        return
    sizes, views = [], []
    for task in taskset.tasks:
        path = task.golden_path or task.contract_path
        doc = RedlineDocument.open(path)
        view = doc.annotated_view(focus_author=task.author)
        views.append(len(view))
        sizes.append(sum(len(m["content"]) for m in judge_messages(task, view)))
    print(f"prompt characters per task over {len(sizes)} tasks (golden redline as output): "
          f"mean {statistics.mean(sizes):,.0f}, median {statistics.median(sizes):,.0f}, max {max(sizes):,}; "
          f"of which the annotated view: mean {statistics.mean(views):,.0f}")
    print(f"  ~{statistics.mean(sizes) / 4:,.0f} prompt tokens per judge call (4 chars/token); "
          f"x3 judges x {len(sizes)} tasks = ~{3 * sum(sizes) / 4 / 1e6:.2f} M tokens per model run")


if __name__ == "__main__":
    if sys.argv[1:] == ["pairwise"]:
        pairwise_speed()
        raise SystemExit(0)
    summarize_speed()
    pairwise_speed()
    asyncio.run(judge_throughput())
    prompt_chars()
