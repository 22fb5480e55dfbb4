"""Read-view tokens on the embedded turn-4 contracts: ours (agent-5), the agent-2 view, and jubarte-redlines.

    python benchmarks/read_view.py [REF]

For each contract: the cl100k tokens of the tool message ``read_document`` sends the model
(``tools.tool_message`` of a fresh ``ToolSession`` with the task's author); the same for the
agent-2 view (``redlinebench/docx/view.py`` as it is on git ref REF, default: the last commit with
the agent-2 view, loaded beside today's engine); and ``jubarte-redlines read`` on the same file, run from
the separate venv ``/work/peers-venv`` (or ``$PEERS_VENV``) when it is installed there. It is a
measuring stick only, never a dependency: when it is missing the figures recorded in issue 25 stand
in and the table says so.

Target (issue 25): ours at most 0.9x jubarte's tokens on each contract, with nothing lost: the
round-trip reader of the view's grammar (tests/docx/viewgrammar.py) must recover every revision
(kind, author, text, paragraph) and every comment (author, parent, resolved, anchor) from our view.
``measure()`` returns the rows for other scripts.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TASKS = ("redline-s1-t4-g01a", "redline-s2-t4-g01a", "redline-s2-t4-g03a")
#: jubarte-redlines ``read`` on these documents, cl100k tokens, as issue 25 recorded them
JUBARTE_RECORDED = {"redline-s1-t4-g01a": 8052, "redline-s2-t4-g01a": 7950, "redline-s2-t4-g03a": 7582}
TARGET_RATIO = 0.9
PEERS_VENV = Path(os.environ.get("PEERS_VENV", "/work/peers-venv"))


def encoding():
    """cl100k_base from the copy litellm ships (no download: the machine may be offline)."""
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.submodule_search_locations:
        bundled = Path(list(spec.submodule_search_locations)[0]) / "litellm_core_utils" / "tokenizers"
        if bundled.is_dir():
            os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(bundled))
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def agent2_ref() -> str:
    """The newest commit with the agent-2 read view (the parent of the one that dropped its
    tracked-changes appendix)."""
    out = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%H", "-S", "## Tracked changes (",
                          "--", "redlinebench/docx/view.py"], check=True, capture_output=True, text=True).stdout
    if not out.strip():
        raise SystemExit("no commit dropping the agent-2 appendix found: pass the agent-2 git ref as the first argument")
    return out.strip() + "~1"


def old_view_module(ref: str):
    """``redlinebench/docx/view.py`` as it is on ``ref``, run as a module of today's package."""
    source = subprocess.run(["git", "-C", str(REPO), "show", f"{ref}:redlinebench/docx/view.py"],
                            check=True, capture_output=True, text=True).stdout
    module = types.ModuleType("redlinebench.docx._view_agent2")
    module.__package__ = "redlinebench.docx"
    exec(compile(source, f"{ref}:redlinebench/docx/view.py", "exec"), module.__dict__)   # noqa: S102
    return module


def jubarte_read(path: Path) -> str | None:
    """``jubarte-redlines read`` of ``path`` from the peers' venv, or None when it is not installed there."""
    exe = PEERS_VENV / "bin" / "jubarte-redlines"
    if not exe.is_file():
        return None
    done = subprocess.run([str(exe), "read", "-q", str(path)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"jubarte-redlines read {path.name} failed: {done.stderr.strip()[:300]}")
    return done.stdout


def measure(ref: str | None = None) -> list[dict]:
    """One row per contract: our tokens, agent-2's, jubarte's (measured or recorded), the round trip."""
    from redlinebench.docx import RedlineDocument
    from redlinebench.tasks import load_tasks
    from redlinebench.tools import ToolSession, tool_message
    from tests.docx.viewgrammar import engine_read_facts, parse_read

    enc = encoding()
    old = old_view_module(ref or agent2_ref())
    tasks = load_tasks("embedded")
    rows = []
    for task_id in TASKS:
        task = tasks.get(task_id)
        doc = RedlineDocument.open(task.contract_path)
        message = tool_message(ToolSession(doc, task.author).dispatch("read_document", {}))
        before = old.read_view(RedlineDocument.open(task.contract_path), reader=task.author)
        peer = jubarte_read(Path(task.contract_path))
        facts, engine = parse_read(message), engine_read_facts(doc)
        rows.append({"task": task_id, "tokens": len(enc.encode(message)), "agent2": len(enc.encode(before)),
                     "jubarte": len(enc.encode(peer)) if peer is not None else JUBARTE_RECORDED[task_id],
                     "jubarte_measured": peer is not None, "chars": len(message),
                     "lossless": facts == engine, "revisions": sum(engine.revisions.values()),
                     "comments": len(engine.comments)})
    return rows


def main(argv: list[str]) -> int:
    rows = measure(argv[0] if argv else None)
    measured = all(r["jubarte_measured"] for r in rows)
    print("cl100k tokens of the read_document message (ours: agent-5) beside the agent-2 view and "
          f"jubarte-redlines `read` ({'measured now from ' + str(PEERS_VENV) if measured else 'not installed in ' + str(PEERS_VENV) + ': figures recorded in issue 25'})")
    print(f"{'task':<22} {'ours':>7} {'agent-2':>8} {'jubarte':>8} {'ours/jub':>9} {'target':>7} "
          f"{'ours/a2':>8}  round trip")
    ok = True
    for r in rows:
        ratio = r["tokens"] / r["jubarte"]
        target = int(TARGET_RATIO * r["jubarte"])
        fine = ratio <= TARGET_RATIO and r["lossless"]
        ok = ok and fine
        trip = (f"all {r['revisions']} revisions, {r['comments']} comments recovered" if r["lossless"]
                else "FACTS LOST")
        print(f"{r['task']:<22} {r['tokens']:>7,} {r['agent2']:>8,} {r['jubarte']:>8,} {ratio:>9.3f} {target:>7,} "
              f"{r['tokens'] / r['agent2']:>8.3f}  {trip}{'' if fine else '  MISSED'}")
    if measured:
        print("issue 25 recorded jubarte at " + " / ".join(f"{JUBARTE_RECORDED[t]:,}" for t in TASKS))
    print(f"target: ours <= {TARGET_RATIO}x jubarte on each, nothing lost: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
