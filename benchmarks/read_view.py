"""Read-view tokens on the embedded turn-4 contracts, beside the reference engine's read output.

    python benchmarks/read_view.py

For each contract: the tokens (tiktoken ``cl100k_base``) of the tool message ``read_document``
sends the model (``tools.tool_message`` of the result of a fresh ``ToolSession`` with the task's
author), the reference engine's figure on the same document (issue 14: 8,937 / 9,483 / 9,095, with
no clause numbers and no inserted text shown) and the ratio. Target: ratio at most 1.1 on each.
``measure()`` returns the rows for other scripts (benchmarks/economics.py).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

#: the reference engine's read output on these documents, cl100k tokens (issue 14)
REFERENCE = {"redline-s1-t4-g01a": 8937, "redline-s2-t4-g01a": 9483, "redline-s2-t4-g03a": 9095}
TARGET_RATIO = 1.1


def encoding():
    """cl100k_base from the copy litellm ships (no download: the machine may be offline)."""
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.submodule_search_locations:
        bundled = Path(list(spec.submodule_search_locations)[0]) / "litellm_core_utils" / "tokenizers"
        if bundled.is_dir():
            os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(bundled))
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def measure() -> list[dict]:
    """One row per contract: task id, our tokens, the reference's, the ratio, characters."""
    from redlinebench.docx import RedlineDocument
    from redlinebench.tasks import load_tasks
    from redlinebench.tools import ToolSession, tool_message

    enc = encoding()
    tasks = load_tasks("embedded")
    rows = []
    for task_id, reference in REFERENCE.items():
        task = tasks.get(task_id)
        session = ToolSession(RedlineDocument.open(task.contract_path), task.author)
        message = tool_message(session.dispatch("read_document", {}))
        ours = len(enc.encode(message))
        rows.append({"task": task_id, "tokens": ours, "reference": reference, "ratio": ours / reference,
                     "chars": len(message)})
    return rows


def main() -> int:
    rows = measure()
    print(f"{'task':<22} {'ours':>7} {'reference':>10} {'ratio':>7}   (cl100k tokens of the read_document message)")
    for row in rows:
        mark = "ok" if row["ratio"] <= TARGET_RATIO else "OVER"
        print(f"{row['task']:<22} {row['tokens']:>7,} {row['reference']:>10,} {row['ratio']:>7.3f}  {mark}")
    worst = max(row["ratio"] for row in rows)
    print(f"target: ratio <= {TARGET_RATIO} on each; worst {worst:.3f}: {'met' if worst <= TARGET_RATIO else 'MISSED'}")
    return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
