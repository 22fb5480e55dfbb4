"""Figures for the embedded synthetic benchmark: build time, size, shape and realism ratios.

    python benchmarks/synthetic.py [--out DIR] [--audit]

Builds the tree from data/synthetic (timed), then prints: tasks, input groups, cells, accept-only
tasks, rubric category shares against the real set's, penalty share, contract size (numbered
clauses, words), per-turn document growth (tracked changes and comments per task input), golden
edit counts by the task author, surgicalness-style ratio (inserted+deleted chars over paragraph
chars per golden edit), judge-check cases, and the tree size against the 15 MB budget.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

REAL = {"Commercial Context": 33.4, "Legal correctness": 25.7, "Negotiation Quality": 17.0,
        "Deal-closing Orientation": 13.7, "Counterparty Acceptance Prediction": 10.2}


def main() -> None:
    from redlinebench.docx import RedlineDocument
    from redlinebench.synthetic import SOURCES_DIR, build_synthetic, load_sources

    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--audit", action="store_true", help="also run openxml-audit on every distinct document")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp()) / "benchmark"

    t0 = time.perf_counter()
    report = build_synthetic(out)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    build_synthetic(out)
    rebuild_s = time.perf_counter() - t0

    print(f"build: {build_s:.1f} s (rebuild {rebuild_s:.1f} s); {report.summary()}")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"tree size: {size / 1e6:.2f} MB = {size / 15e6:.0%} of the 15 MB budget")

    scenarios = load_sources(SOURCES_DIR)
    for spec in scenarios:
        words = sum(len((c.text or c.heading or "").split()) for c in spec.contract.clauses)
        tables = sum(1 for c in spec.contract.clauses if c.table)
        print(f"s{spec.id} {spec.label}: {len(spec.contract.clauses)} numbered clauses, {tables} tables, {words} words")

    cats: Counter[str] = Counter()
    penalties = total = 0
    per_turn: dict[int, list[tuple[int, int]]] = defaultdict(list)
    golden_edits: dict[int, list[int]] = defaultdict(list)
    ratios: list[float] = []
    for task_dir in sorted((out / "tasks").iterdir()):
        meta = json.loads((task_dir / "tests" / "rubrics.json").read_text())
        for r in meta["rubrics"]:
            cats[r["category"]] += 1
            total += 1
            penalties += r["weight"] < 0
        src = RedlineDocument.open(task_dir / "environment" / "app" / "contract.docx")
        per_turn[meta["level"]].append((len(src.revisions), len(src.comments)))
        golden_path = task_dir / "tests" / "attorney_redlines.docx"
        if golden_path.exists():
            golden = RedlineDocument.open(golden_path)
            mine = [r for r in golden.revisions if r.author == meta["author"]]
            golden_edits[meta["level"]].append(len(mine))
            touched = {r.paragraph_id for r in mine}
            for pid in touched:
                p = golden.paragraph(pid)
                changed = sum(len(r.text) for r in mine if r.paragraph_id == pid)
                ratios.append(changed / max(len(p.original_text), 1))
    print("rubric categories (ours vs real, percentage points):")
    for name, real in REAL.items():
        ours = 100 * cats[name] / total
        print(f"  {name:<36} {ours:5.1f} vs {real:5.1f}  (diff {ours - real:+.1f})")
    print(f"rubrics: {total}, penalty share {penalties / total:.1%}")
    for turn in sorted(per_turn):
        revs = statistics.mean(r for r, _ in per_turn[turn])
        cmts = statistics.mean(c for _, c in per_turn[turn])
        edits = statistics.mean(golden_edits[turn]) if golden_edits[turn] else 0
        print(f"turn {turn}: input carries {revs:.1f} revisions / {cmts:.1f} comments; golden adds {edits:.1f} "
              "revisions by the task author")
    if args.audit:
        import hashlib

        from openxml_audit import OpenXmlValidator

        docs = {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in sorted(out.rglob("*.docx"))}
        t0 = time.perf_counter()
        invalid = [p for p in docs.values() if not OpenXmlValidator().validate(p).is_valid]
        print(f"openxml-audit: {len(docs) - len(invalid)}/{len(docs)} distinct documents valid "
              f"({time.perf_counter() - t0:.0f} s)" + (f"; invalid: {[str(p) for p in invalid]}" if invalid else ""))
    inline = sum(1 for r in ratios if r < 0.30)
    print(f"golden paragraph edits: {len(ratios)}, median changed/original chars {statistics.median(ratios):.2f}, "
          f"inline share (<0.30) {inline / len(ratios):.0%}")


if __name__ == "__main__":
    main()
