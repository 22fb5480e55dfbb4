"""Speed of the task loader and the dataset on a real-sized (140-task) tree.

    python benchmarks/dataset.py [--source DIR] [--tasks 140]

Replicates the source tree (default: the embedded synthetic set; the test fixture tree until
that is built) into new input groups until it holds --tasks tasks, then times, each in a fresh
cache: ``load_dataset`` cold and warm (config ``tasks``), ``full`` cold, ``load_tasks`` and
``validate_tasks``. Targets (issue 3): cold < 3 s, warm < 0.5 s, validate < 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TARGETS = {"load_dataset cold": 3.0, "load_dataset warm": 0.5, "tasks validate": 5.0}


def _seed_tree(source: str | None, scratch: Path) -> Path:
    from redlinebench import config
    from redlinebench.tasks import resolve_source

    if source:
        return resolve_source(source).tasks_dir
    if (config.embedded_benchmark_dir() / "tasks").is_dir():
        return config.embedded_benchmark_dir() / "tasks"
    from tests.tasks.treefactory import build_tree

    print("(embedded set not built yet: replicating the test fixture tree)")
    return build_tree(scratch / "seed") / "tasks"


def replicate(seed_tasks: Path, out: Path, total: int) -> Path:
    """Copy every task of ``seed_tasks`` into fresh input groups (g+100k) until ``total`` tasks exist."""
    from redlinebench.tasks import parse_task_name, task_dirs

    seeds = task_dirs(seed_tasks)
    tasks_dir = out / "tasks"
    tasks_dir.mkdir(parents=True)
    made, copy = 0, 0
    while made < total:
        for seed in seeds:
            if made == total:
                break
            s, t, g, v = parse_task_name(seed.name)
            group = g + 100 * copy
            name = f"redline-s{s}-t{t}-g{group:02d}{v}"
            target = tasks_dir / name
            shutil.copytree(seed, target)
            rubrics = target / "tests" / "rubrics.json"
            data = json.loads(rubrics.read_text(encoding="utf-8"))
            data.update(task_id=name, input_group=f"s{s}-t{t}-g{group:02d}")
            rubrics.write_text(json.dumps(data, indent=2), encoding="utf-8")
            toml = target / "task.toml"
            text = toml.read_text(encoding="utf-8")
            text = re.sub(r'(?m)^task_id = ".*"$', f'task_id = "{name}"', text)
            text = re.sub(r'(?m)^input_group = ".*"$', f'input_group = "s{s}-t{t}-g{group:02d}"', text)
            toml.write_text(text, encoding="utf-8")
            made += 1
        copy += 1
    return out


def _timed(label: str, fn, results: dict[str, float]):
    start = time.perf_counter()
    value = fn()
    results[label] = time.perf_counter() - start
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default=None)
    parser.add_argument("--tasks", type=int, default=140)
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="rb-bench-"))
    os.environ["REDLINEBENCH_CACHE"] = str(scratch / "cache")
    os.environ["HF_DATASETS_CACHE"] = str(scratch / "hf-datasets")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    try:
        results: dict[str, float] = {}
        start = time.perf_counter()
        import redlinebench
        from redlinebench.tasks import load_tasks, validate_tasks

        import datasets  # noqa: F401

        results["import redlinebench + datasets"] = time.perf_counter() - start
        seed = _seed_tree(args.source, scratch)
        root = replicate(seed, scratch / "tree", args.tasks)
        # Files written in the last 2 s are always re-hashed (see tasks/_fingerprint.py); a real
        # tree is older than that, so let the fresh copy age before timing.
        time.sleep(2.1)
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
        n_files = sum(1 for f in root.rglob("*") if f.is_file())

        tasks = _timed("load_tasks", lambda: load_tasks(root), results)
        _timed("content fingerprint (first)", tasks.fingerprint, results)
        from redlinebench.tasks import fingerprint_dirs, task_dirs

        _timed("content fingerprint (memo)", lambda: fingerprint_dirs(task_dirs(root / "tasks")), results)
        ds = _timed("load_dataset cold", lambda: redlinebench.load_dataset(root), results)
        _timed("load_dataset warm", lambda: redlinebench.load_dataset(root), results)
        full = _timed("load_dataset full cold", lambda: redlinebench.load_dataset(root, config="full"), results)
        _timed("load_dataset full warm", lambda: redlinebench.load_dataset(root, config="full"), results)
        report = _timed("tasks validate", lambda: validate_tasks(root), results)
        assert ds.num_rows == full.num_rows == len(tasks) == args.tasks
        assert report.ok, [str(p) for p in report.errors[:5]]

        print(f"tree: {len(tasks)} tasks, {n_files} files, {size / 1e6:.1f} MB (seed: {seed})")
        print(f"{'step':<32} {'seconds':>8} {'target':>8} {'ratio':>7}")
        for label, seconds in results.items():
            target = TARGETS.get(label)
            ratio = f"{seconds / target:.2f}" if target else ""
            print(f"{label:<32} {seconds:>8.3f} {target or '':>8} {ratio:>7}")
        cold, warm = results["load_dataset cold"], results["load_dataset warm"]
        print(f"cold / warm: {cold / warm:.0f}x")
        failed = [label for label, target in TARGETS.items() if results[label] > target]
        print("all targets met" if not failed else f"MISSED: {', '.join(failed)}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
