"""Throughput against a rate-limited provider: adaptive concurrency vs a fixed one (issue 14.4).

    python benchmarks/ratelimit.py [--rate 10] [--burst 10] [--concurrency 32] [--latency 0.3] [--tasks N]

Every embedded task (or the first N), a scripted agent (read, one edit batch, end: 3 calls) and
two litellm judges, all on one loopback endpoint that enforces a token bucket (``--rate``
requests/s, ``--burst``) and answers 429 beyond it, once with ``Retry-After`` (and
``retry-after-ms``) and once without; each call takes ``--latency`` s when admitted. The real
scheduler, real litellm, the real agent loop and real litellm judges; the document engine is
stubbed and the judges grade a fixed view (on a shared 2-core machine the engine's and the
report's CPU, not the provider, would otherwise set the pace: about 9.5 completed requests/s
with no rate limit at all, measured with the full pipeline).

Prints per mode: completed requests per second against the bucket's rate, 429s as a share of
all requests, errored trials, and the limiter's final and lowest limit; then the same with the
adaptive limit turned off (a fixed ``--concurrency``) for comparison.
Target (adaptive): completed requests/s >= 90% of the rate, 429s <= 5% of requests, no trial errored.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_API_KEY", "sk-benchmark")


def _script(latency: float):
    from tests.fakes.openai_server import Reply

    def handle(body: dict):
        messages = body.get("messages", [])
        if body.get("response_format") or "rubric" in json.dumps(messages[:1]).lower():  # a judge
            user = messages[-1]["content"] if messages else ""
            ids = json.loads(user.rsplit("rubric ids:", 1)[1].strip()) if "rubric ids:" in user else []
            verdicts = {"verdicts": [{"rubric_id": i, "verdict": "PASS", "justification": "ok"} for i in ids]}
            return Reply.delay(latency, Reply.json(verdicts, usage=(3000, 200)))
        step = sum(1 for m in messages if m.get("role") == "assistant")
        if step == 0:
            calls = [("read_document", {})]
        elif step == 1:
            calls = [("add_comment", {"paragraph_id": "p-003", "text": "Please confirm the parties' details."})]
        else:
            calls = [("end_session", {})]
        return Reply.delay(latency, Reply.tool_calls(calls, usage=(2000, 100)))

    return handle


class _Clock:
    """First and last admitted request, seen by the server."""

    def __init__(self, bucket) -> None:
        self.first = self.last = None
        self._lock = threading.Lock()
        take = bucket.take

        def timed():
            wait = take()
            if wait is None:
                with self._lock:
                    now = time.monotonic()
                    self.first = self.first or now
                    self.last = now
            return wait

        bucket.take = timed


class StubTools:
    """The document side without the engine (its CPU is not what is measured here, and on a
    shared 2-core machine it, not the provider, would set the pace): a fixed view, ok results."""

    def __init__(self, task, out_path) -> None:
        from redlinebench.tools import TOOL_SCHEMAS

        self.schemas, self.finished, self.stats = TOOL_SCHEMAS, False, {}
        self.view = "\n".join(f"[p-{i:03d}] {i}. The Supplier shall perform clause {i} diligently." for i in range(80))

    def dispatch(self, name, arguments):
        if name == "read_document":
            return {"document": self.view}
        if name == "end_session":
            self.finished = True
        return {"status": "ok"}

    def save(self, path) -> None:
        Path(path).write_bytes(b"stub")


def run_mode(args, *, retry_after: bool, adaptive: bool) -> dict:
    from redlinebench import _throttle
    from redlinebench.agent.limits import AgentLimits
    from redlinebench.agent.llm import LLMAgent
    from redlinebench.judge import LiteLLMJudge
    from redlinebench.runner import Entrant, RunSpec
    from redlinebench.runner.paths import RunLayout
    from redlinebench.runner.scheduler import Launch
    from redlinebench.runner.spec import TaskFilter
    from redlinebench.tasks import load_tasks
    from tests.fakes.openai_server import FakeOpenAI
    from tests.fakes.token_bucket import TokenBucket

    taskset = load_tasks("embedded")
    tasks = list(taskset.tasks)[: args.tasks or None]
    configure = _throttle.configure
    if not adaptive:  # the comparison: the runner's fixed --concurrency, no adaptation
        _throttle.configure = lambda n, adaptive=True: configure(n, adaptive=False)  # type: ignore[assignment]
    try:
        with FakeOpenAI() as srv, tempfile.TemporaryDirectory() as tmp:
            srv.set_handler(_script(args.latency))
            srv.bucket = TokenBucket(args.rate, args.burst, retry_after=retry_after)
            clock = _Clock(srv.bucket)
            judges = [LiteLLMJudge(f"openai/judge-{x}", api_base=srv.url, api_key="sk-benchmark", timeout=30)
                      for x in "ab"]
            view = "[p-001] 1. The Supplier shall ~~not~~ perform diligently. {cmt-1}"
            outcomes: list[bool] = []

            async def grade(key, tdir):  # the judges through real litellm; gate and views are not measured
                results = await asyncio.gather(*(j.grade(key.task, view, None) for j in judges))
                outcomes.extend(r.ok for r in results)

            model = "openai/agent"
            spec = RunSpec(entrants=(Entrant("llm", model),), source="embedded", judges="x,y",
                           filter=TaskFilter(task_ids=tuple(t.task_id for t in tasks)), concurrency=args.concurrency,
                           api_base=srv.url, run_id="ratelimit")
            agent = LLMAgent(model, api_base=srv.url, backend=StubTools, limits=AgentLimits(max_retries=10))
            layout = RunLayout(Path(tmp) / "run")
            layout.root.mkdir(parents=True)
            t0 = time.monotonic()
            with Launch(spec, layout, tasks, grader=grade, agents={model: agent}) as launch:
                state = asyncio.run(launch.run())
            wall = time.monotonic() - t0
            metrics = [json.loads(p.read_text()) for p in layout.trials.rglob("metrics.json")]
    finally:
        _throttle.configure = configure  # type: ignore[assignment]
    accepted, refused = srv.bucket.accepted, srv.bucket.refused
    span = (clock.last - clock.first) if clock.first and clock.last and clock.last > clock.first else wall
    errored = sum(1 for m in metrics if m.get("status") == "errored")
    return {"accepted": accepted, "refused": refused, "span": span, "wall": wall, "errored": errored,
            "trials": len(metrics), "graded": sum(outcomes), "judge_failures": outcomes.count(False),
            "limits": state.rate_limits}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=10.0)
    ap.add_argument("--burst", type=int, default=10)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--tasks", type=int, default=0, help="only the first N embedded tasks [all]")
    ap.add_argument("--skip-fixed", action="store_true", help="do not run the fixed-concurrency comparison")
    args = ap.parse_args()
    os.environ.setdefault("REDLINEBENCH_RETRY_BASE_DELAY", "1")
    print(f"bucket {args.rate:g} req/s, burst {args.burst}; --concurrency {args.concurrency}; "
          f"{args.latency:g} s per admitted call; agent 3 calls + 2 judges per trial")
    modes = [(True, True), (False, True)] + ([] if args.skip_fixed else [(True, False), (False, False)])
    for retry_after, adaptive in modes:
        r = run_mode(args, retry_after=retry_after, adaptive=adaptive)
        total = r["accepted"] + r["refused"]
        rate = r["accepted"] / r["span"]
        share_429 = r["refused"] / total if total else 0.0
        lim = "; ".join(f"{k}: final {v['limit']}, lowest {v['min_limit']}, max {v['max']}"
                        for k, v in r["limits"].items()) or "-"
        name = f"{'adaptive' if adaptive else 'fixed':<8} {'Retry-After' if retry_after else 'no hint':<11}"
        ok = rate >= 0.9 * args.rate and share_429 <= 0.05 and r["errored"] == 0 and not r["judge_failures"]
        print(f"{name} completed {r['accepted']} requests in {r['span']:.1f} s = {rate:.2f} req/s "
              f"({rate / args.rate:.0%} of the bucket), 429s {r['refused']} ({share_429:.1%} of {total}), "
              f"trials {r['trials']} errored {r['errored']}, judge calls ok {r['graded']} failed "
              f"{r['judge_failures']}, wall {r['wall']:.1f} s"
              + (f" -> {'meets' if ok else 'misses'} the target" if adaptive else ""))
        print(f"         limiter: {lim}")


if __name__ == "__main__":
    main()
