"""What the MCP server adds per tool call over calling ``ToolSession`` directly.

    python benchmarks/mcp.py [--calls 40] [--repeat 3]

One session of ``--calls`` tool calls (reads of the whole document and of ranges, tracked edits,
comments, a few hostile calls, end_session) on a turn-4 contract of the embedded set, run twice
on the same machine: on a ``ToolSession`` in this process (the baseline: what our agent loop does
per call, ``dispatch`` + ``tool_message``), and through ``redlinebench mcp`` over stdio with the
official SDK's client (``mcp.client.stdio``). Server start-up and the handshake are not counted
(an agent pays them once per session). Best of ``--repeat`` sessions each; the target is at most
5 ms of overhead per call.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# this file is named mcp.py: its folder first on sys.path would shadow the SDK package `mcp`
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(REPO))

DATE = "2026-01-02T03:04:05Z"
AUTHOR = "Reviewing Counsel (benchmark)"
TARGET_MS = 5.0


def _task():
    from redlinebench.tasks import load_tasks

    return max((t for t in load_tasks("embedded").tasks if t.turn == 4),
               key=lambda t: Path(t.contract_path).stat().st_size)


def session_calls(contract: Path, n: int) -> list[tuple[str, dict]]:
    """``n`` calls an agent might make, the last one end_session."""
    from redlinebench.docx import RedlineDocument

    doc = RedlineDocument.open(contract)
    paras = [p for p in doc.paragraphs if len(p.text.split()) > 6 and "spanning_field" not in p.flags]
    calls: list[tuple[str, dict]] = []
    i = 0
    while len(calls) < n - 1:
        p, q = paras[i % len(paras)], paras[(i + 3) % len(paras)]
        kind = i % 6
        if kind == 0:
            calls.append(("read_document", {}))
        elif kind == 1:
            calls.append(("read_document", {"start_id": p.id, "end_id": q.id} if p.index < q.index
                          else {"start_id": q.id, "end_id": p.id}))
        elif kind == 2:
            word = p.text.split()[-1]
            calls.append(("propose_edits", {"edits": [{"op": "insert_after", "anchor": {"paragraph_id": p.id,
                                                                                        "text": word},
                                                       "new_text": f" (benchmark {i})", "comment": "Clarified."}]}))
        elif kind == 3:
            calls.append(("add_comment", {"paragraph_id": p.id, "text": f"Please confirm (benchmark {i})."}))
        elif kind == 4:
            calls.append(("propose_edits", {"edits": "not a list"}))
        else:
            calls.append(("add_comment", {"paragraph_id": "p-99999", "text": "nowhere"}))
        i += 1
    calls.append(("end_session", {"summary": "benchmark session"}))
    return calls


def run_local(contract: Path, calls: list[tuple[str, dict]], out: Path) -> tuple[float, list[float], list[str]]:
    from redlinebench.docx import RedlineDocument
    from redlinebench.tools import ToolSession, tool_message

    session = ToolSession(RedlineDocument.open(contract, name=contract.name), AUTHOR, output_path=out,
                          date=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    per, texts = [], []
    t0 = time.perf_counter()
    for name, args in calls:
        c0 = time.perf_counter()
        texts.append(tool_message(session.dispatch(name, args)))
        per.append(time.perf_counter() - c0)
    return time.perf_counter() - t0, per, texts


async def run_mcp(contract: Path, calls: list[tuple[str, dict]], out: Path) -> tuple[float, list[float], list[str]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "redlinebench", "mcp", "--document", str(contract), "--author", AUTHOR,
                                      "--output", str(out), "--date", DATE],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as client:
            await client.initialize()
            await client.list_tools()
            per, texts = [], []
            t0 = time.perf_counter()
            for name, args in calls:
                c0 = time.perf_counter()
                res = await client.call_tool(name, args)
                per.append(time.perf_counter() - c0)
                texts.append(res.content[0].text)
            total = time.perf_counter() - t0
    return total, per, texts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    task = _task()
    contract = Path(task.contract_path)
    calls = session_calls(contract, args.calls)
    with tempfile.TemporaryDirectory() as tmp:
        local_runs, mcp_runs = [], []
        for k in range(args.repeat):
            (Path(tmp) / f"l{k}").mkdir()
            (Path(tmp) / f"m{k}").mkdir()
            local_runs.append(run_local(contract, calls, Path(tmp) / f"l{k}" / "redline.docx"))
            mcp_runs.append(asyncio.run(run_mcp(contract, calls, Path(tmp) / f"m{k}" / "redline.docx")))
        same = all(m[2] == local_runs[0][2] for m in mcp_runs) and all(l[2] == local_runs[0][2] for l in local_runs)
    local = min(local_runs, key=lambda r: r[0])
    remote = min(mcp_runs, key=lambda r: r[0])
    n = len(calls)
    overhead_ms = (remote[0] - local[0]) / n * 1000
    per_call = [(m - l) * 1000 for m, l in zip(remote[1], local[1])]
    reads = [i for i, (name, a) in enumerate(calls) if name == "read_document" and not a]
    print(f"task: {task.task_id} (turn {task.turn}), {len(calls)} tool calls a session, best of {args.repeat}")
    print(f"ToolSession directly:      {local[0] * 1000:8.1f} ms  ({local[0] / n * 1000:6.2f} ms a call)")
    print(f"MCP server, SDK over stdio: {remote[0] * 1000:7.1f} ms  ({remote[0] / n * 1000:6.2f} ms a call)")
    print(f"overhead per call:          {overhead_ms:6.2f} ms mean, {statistics.median(per_call):.2f} ms median, "
          f"{max(per_call):.2f} ms worst; whole-document reads: "
          f"{statistics.mean(per_call[i] for i in reads):.2f} ms mean (target <= {TARGET_MS:.0f} ms)")
    print(f"ratio MCP / direct: {remote[0] / local[0]:.2f}x; results identical byte for byte: {same}")
    ok = overhead_ms <= TARGET_MS and same
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
