"""Tokens of the judge's annotated view per embedded golden: the old form vs the grammar of issue 16.

Target: the new view of every golden stays within 1.15x of the old one's tokens (tiktoken
cl100k_base). The old view is the one on git ref REF (default ``main``): its ``view.py`` is read
with ``git show`` and run on the same documents in this run, so both numbers come from one run.
Run: python benchmarks/judge_view.py [REF]
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redlinebench.docx import RedlineDocument  # noqa: E402
from redlinebench.tasks import load_tasks  # noqa: E402

TARGET = 1.15
EMBEDDED = ROOT / "redlinebench" / "_data" / "benchmark" / "tasks"


def _encoder():
    # tiktoken downloads its BPE files; litellm ships cl100k_base's under tiktoken's cache name
    spec = importlib.util.find_spec("litellm")
    if spec and spec.origin:
        os.environ.setdefault("TIKTOKEN_CACHE_DIR",
                              str(Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"))
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def _old_view_module(ref: str):
    """``redlinebench/docx/view.py`` as it is on ``ref``, loaded beside today's engine modules."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:redlinebench/docx/view.py"],
                            check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "view_old.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("redlinebench.docx._view_old", path)
        module = importlib.util.module_from_spec(spec)
        module.__package__ = "redlinebench.docx"
        spec.loader.exec_module(module)
    if not hasattr(module, "annotated_view"):
        raise SystemExit(f"{ref}:redlinebench/docx/view.py has no annotated_view: pass the ref of the old view")
    return module


def main(ref: str) -> int:
    enc = _encoder()
    old = _old_view_module(ref)
    worst = 0.0
    total_old = total_new = 0
    print(f"annotated view tokens (cl100k_base), old = {ref}, target <= {TARGET:.2f}x per golden")
    print(f"{'task':<24} {'old':>7} {'new':>7} {'ratio':>6}")
    for task in load_tasks(EMBEDDED).tasks:
        golden = task.golden_path
        if golden is None or not Path(golden).is_file():
            continue
        doc = RedlineDocument.open(golden)
        before = len(enc.encode(old.annotated_view(doc, focus_author=task.author)))
        after = len(enc.encode(doc.annotated_view(focus_author=task.author)))
        ratio = after / before
        worst = max(worst, ratio)
        total_old += before
        total_new += after
        print(f"{task.task_id:<24} {before:>7} {after:>7} {ratio:>6.3f}")
    if not total_old:
        print("no goldens found")
        return 1
    verdict = "meets" if worst <= TARGET else "MISSES"
    print(f"{'all goldens':<24} {total_old:>7} {total_new:>7} {total_new / total_old:>6.3f}")
    print(f"worst ratio {worst:.3f} -> {verdict} the {TARGET:.2f}x target")
    return 0 if worst <= TARGET else 1


def _last_ref_with_old_view() -> str:
    """The newest commit whose view.py still wrote the annotated view: the baseline "today's size"."""
    out = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%H", "-S", "def annotated_view",
                          "--", "redlinebench/docx/view.py"], check=True, capture_output=True, text=True).stdout
    if not out.strip():
        raise SystemExit("no commit with the old annotated view found: pass a git ref as the first argument")
    return out.strip() + "~1"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else _last_ref_with_old_view()))
