"""Input tokens and their bill per episode, with and without prompt caching (issue 14).

    python benchmarks/economics.py [--tasks redline-s1-t2-g01a,redline-s1-t4-g01a]

A scripted 8-call episode (read, 3 edit batches, 2 thread replies, a re-read, end) on real
embedded tasks, through the real agent loop, the real tools and real litellm, against the
loopback fake server speaking both wire formats and reporting caching as the providers do
(tests/fakes/prompt_cache.py): the Anthropic route (``anthropic/claude-haiku-4-5``, cache reads
and writes only for prefixes marked with ``cache_control``) and the OpenAI route
(``openai/gpt-5.4-mini``, ``cached_tokens`` for byte-identical prefixes). Each route runs with
caching on and with ``--no-prompt-cache``.

Prints per episode: input tokens, the cached share, and billed-equivalent input tokens
(uncached x 1, cache reads x 0.10, cache writes x 1.25), beside the old main's 107,620 (issue 14,
same script, turn-2 task) and beside this run's own baseline with caching off.
Target: billed-equivalent input tokens per episode at most 35% of 107,620.

Then the same episodes with the agent-2 package (issue 25): the tree of git ref ``--agent2-ref``
(default: the last commit with the agent-2 read view) is exported to a temporary directory and this
script runs there in a subprocess (``--root DIR --json``), so its prompt, tool descriptions, read
view and edit results are agent-2's; both versions' billed-equivalent input tokens are printed side
by side. ``--no-agent2`` skips it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if "--root" in sys.argv[:-1]:   # run against another tree (the agent-2 export): its package and fakes first
    ROOT = Path(sys.argv[sys.argv.index("--root") + 1]).resolve()
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

OLD_MAIN_INPUT_TOKENS = 107_620   # issue 14: old main, this script's episode on the turn-2 task
TARGET_SHARE = 0.35
READ_WEIGHT, WRITE_WEIGHT = 0.10, 1.25
ROUTES = {"anthropic": "anthropic/claude-haiku-4-5", "openai": "openai/gpt-5.4-mini"}
LINE = re.compile(r"^\[(p-\d+)\]\s+(.*)$", re.MULTILINE)


def _view(messages: list[dict]) -> str:
    """The latest read_document text among the tool results, whatever shape it came in."""
    for m in reversed(messages):
        if m.get("role") != "tool":
            continue
        content = m.get("content") or ""
        try:
            data = json.loads(content)
        except (TypeError, ValueError):
            data = content
        texts = [data] if isinstance(data, str) else [v for v in (data.values() if isinstance(data, dict) else [])
                                                         if isinstance(v, str)]
        for text in texts:
            if LINE.search(text) and len(text) > 2000:
                return text
    return ""


def _plain_paragraphs(view: str) -> list[tuple[str, list[str]]]:
    """Paragraphs with no markup in them (safe anchors), with their words."""
    out = []
    for pid, text in LINE.findall(view):
        if any(c in text for c in "{}[]~+<>") or len(text.split()) < 8:
            continue
        out.append((pid, text.split()))
    return out


def script(body: dict):
    from tests.fakes.openai_server import Reply

    messages = body.get("messages", [])
    step = sum(1 for m in messages if m.get("role") == "assistant")
    view = _view(messages)
    paras = _plain_paragraphs(view)
    threads = sorted(set(re.findall(r"\b(cmt-\d+)\b", view)), key=lambda c: int(c.split("-")[1]))
    pick = lambda i: paras[(5 * i + 2) % len(paras)] if paras else ("p-001", ["x"] * 8)  # noqa: E731

    def edit(i: int, op: str) -> dict:
        pid, words = pick(i)
        if op == "replace":
            return {"op": "replace", "anchor": {"paragraph_id": pid, "text": " ".join(words[2:4])},
                    "new_text": " ".join(words[2:4]) + " (acting reasonably)", "comment": "Adds a reasonableness standard."}
        if op == "delete":
            return {"op": "delete", "anchor": {"paragraph_id": pid, "text": words[-2]}, "comment": "Not needed."}
        return {"op": "insert_after", "anchor": {"paragraph_id": pid, "text": words[-1]},
                "new_text": " subject to clause 12", "comment": "Ties this to the liability cap."}

    if step in (0, 6):
        calls = [("read_document", {})]
    elif step in (1, 2, 3):
        base = 3 * step
        calls = [("propose_edits", {"edits": [edit(base, "replace"), edit(base + 1, "delete"),
                                              edit(base + 2, "insert_after")]})]
    elif step in (4, 5):
        target = threads[step - 4] if len(threads) > step - 4 else None
        args = {"reply_to": target, "text": "We can accept this if the cap applies."} if target else \
            {"paragraph_id": pick(20 + step)[0], "text": "Please explain the intent of this clause."}
        calls = [("add_comment", args)]
    else:
        calls = [("end_session", {})]
    return Reply.tool_calls(calls, usage=(0, 120))


async def _episode(task, model: str, base_url: str, workdir: Path, prompt_cache: bool) -> dict:
    from redlinebench.agent.llm import LLMAgent

    agent = LLMAgent(model, api_base=base_url, extra_params={"api_key": "sk-benchmark"}, prompt_cache=prompt_cache)
    workdir.mkdir(parents=True)
    ep = await agent.run(task, workdir, trial=1)
    return ep.metrics | {"status": ep.status}


def measure(task_ids: list[str], progress=None) -> list[dict]:
    """One row per task, route and caching: the episode's input tokens, cache reads/writes, billed-equivalent."""
    from redlinebench.agent.prompt import PROMPT_VERSION
    from redlinebench.tasks import load_tasks
    from tests.fakes.openai_server import FakeOpenAI
    from tests.fakes.prompt_cache import PromptCache

    taskset = load_tasks("embedded")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for task_id in task_ids:
            task = taskset.get(task_id)
            for route, model in ROUTES.items():
                for cache_on in (False, True):
                    with FakeOpenAI() as srv:  # a fresh provider cache for each episode
                        srv.prompt_cache = PromptCache()
                        srv.set_handler(script)
                        base = srv.base_url if route == "anthropic" else srv.url
                        wd = Path(tmp) / task_id / route / ("on" if cache_on else "off")
                        m = asyncio.run(_episode(task, model, base, wd, cache_on))
                        log = list(srv.usage_log)
                    tokens = sum(u["prompt_tokens"] for u in log)
                    reads = sum(u["cache_read"] for u in log)
                    writes = sum(u["cache_write"] for u in log)
                    billed = (tokens - reads - writes) + READ_WEIGHT * reads + WRITE_WEIGHT * writes
                    assert m["tokens_in"] == tokens and m["cache_read_tokens"] == reads, "metrics disagree with the wire"
                    row = {"task": task_id, "turn": task.turn, "route": route, "cache": cache_on,
                           "steps": m["steps"], "tokens": tokens, "reads": reads, "writes": writes, "billed": billed,
                           "cost": m["cost_usd"], "status": m["status"], "edits_ok": m["edits_ok"],
                           "edits_failed": m["edits_failed"], "version": PROMPT_VERSION}
                    rows.append(row)
                    if progress:
                        progress(row)
    return rows


def agent2_rows(ref: str | None, task_ids: list[str]) -> tuple[str, list[dict]]:
    """This script's episodes run on the agent-2 tree (``git archive`` of ``ref``) in a subprocess."""
    import subprocess

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from read_view import agent2_ref

    ref = ref or agent2_ref()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": tmp}
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--tasks", ",".join(task_ids),
                               "--json", "--root", tmp], capture_output=True, text=True, env=env, cwd=tmp)
    if done.returncode != 0:
        raise SystemExit(f"the agent-2 episodes failed:\n{done.stderr[-2000:]}")
    return ref, json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default="redline-s1-t2-g01a,redline-s1-t4-g01a")
    ap.add_argument("--agent2-ref", default=None, help="git ref of the agent-2 tree (default: the last with its view)")
    ap.add_argument("--no-agent2", action="store_true", help="skip the agent-2 episodes")
    ap.add_argument("--json", action="store_true", help="print the rows as one JSON line (used for the agent-2 run)")
    ap.add_argument("--root", default=None, help="the tree to run (set by the agent-2 run)")
    args = ap.parse_args()
    task_ids = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if args.json:
        print(json.dumps(measure(task_ids)))
        return

    print(f"episode: 8 calls (read, 3 edit batches, 2 thread replies, re-read, end); billed-equivalent = "
          f"uncached + {READ_WEIGHT:.2f} x cache reads + {WRITE_WEIGHT:.2f} x cache writes")
    print(f"old main (issue 14, turn-2 task): {OLD_MAIN_INPUT_TOKENS:,} input tokens per episode, none cached; "
          f"target: billed-equivalent <= {TARGET_SHARE:.0%} of it = {TARGET_SHARE * OLD_MAIN_INPUT_TOKENS:,.0f}")
    header = (f"  {'route':<10} {'caching':<8} {'calls':>5} {'input tok':>10} {'cached':>7} {'reads':>9} "
              f"{'writes':>8} {'billed-eq':>10} {'vs 107,620':>10} {'vs uncached':>11} {'cost USD':>9}")
    current = {"task": None}

    def show(row: dict) -> None:
        if row["task"] != current["task"]:
            current["task"] = row["task"]
            print(f"\n{row['task']} (turn {row['turn']}, {row['version']})")
            print(header)
        tokens, reads, billed = row["tokens"], row["reads"], row["billed"]
        print(f"  {row['route']:<10} {'on' if row['cache'] else 'off':<8} {row['steps']:>5} {tokens:>10,} "
              f"{reads / tokens:>7.1%} {reads:>9,} {row['writes']:>8,} {billed:>10,.0f} "
              f"{billed / OLD_MAIN_INPUT_TOKENS:>10.1%} {billed / tokens:>11.1%} {row['cost']:>9.5f}")
        if row["status"] != "completed" or row["edits_ok"] == 0:
            print(f"    note: episode {row['status']}, edits ok {row['edits_ok']}, failed {row['edits_failed']}")

    rows = measure(task_ids, show)
    print()
    print("(the OpenAI route caches automatically, so --no-prompt-cache changes nothing there: its 'off' row is "
          "what a byte-stable prefix earns without markers; 'vs uncached' = billed-equivalent / input tokens)")
    for row in rows:
        if not row["cache"]:
            continue
        share, own = row["billed"] / OLD_MAIN_INPUT_TOKENS, row["billed"] / row["tokens"]
        if row["turn"] == 2:  # the issue's figure is for the turn-2 episode
            print(f"{row['task']} {row['route']}: billed-equivalent {share:.1%} of old main's 107,620 "
                  f"({'meets' if share <= TARGET_SHARE else 'misses'} the {TARGET_SHARE:.0%} target); "
                  f"{own:.1%} of this run's uncached input")
        else:
            print(f"{row['task']} {row['route']}: billed-equivalent {own:.1%} of this run's uncached input "
                  f"(no old-main figure for this task)")
    if args.no_agent2:
        return
    ref, before = agent2_rows(args.agent2_ref, task_ids)
    version = rows[0]["version"] if rows else "?"
    was_version = before[0]["version"] if before else "?"
    print(f"\nthe same episodes, {was_version} (tree of {ref}) beside {version} (this tree), in this run:")
    print(f"  {'task':<20} {'route':<10} {'caching':<8} {was_version + ' in':>10} {version + ' in':>10} "
          f"{was_version + ' billed':>14} {version + ' billed':>14} {'ratio':>6}")
    old = {(r["task"], r["route"], r["cache"]): r for r in before}
    for row in rows:
        was = old.get((row["task"], row["route"], row["cache"]))
        if was is None:
            continue
        print(f"  {row['task']:<20} {row['route']:<10} {'on' if row['cache'] else 'off':<8} {was['tokens']:>10,} "
              f"{row['tokens']:>10,} {was['billed']:>14,.0f} {row['billed']:>14,.0f} "
              f"{row['billed'] / was['billed']:>6.3f}")


if __name__ == "__main__":
    main()
