"""Costs of the ecosystem bridges on a real-sized task set, printed as figures and ratios.

    python benchmarks/integrations.py [--tasks 140] [--trials 3]

* Harbor export: seconds per task, and exported bytes / source bytes (the verifier's pristine
  copy of each task doubles the tree; the Dockerfile and scripts add little).
* Harbor import: trials per second for tasks x trials Harbor trial directories (with grades),
  including the ``summarize`` that follows.
* Hub: ``push dataset`` of the exported dataset to the loopback fake Hub (real huggingface_hub
  HTTP): MB/s, and bytes on the wire / bytes of files (base64 in the ndjson commit costs ~4/3).
* ``push results --dry-run`` latency on the imported run.

Built on the test fixture tree (tests/tasks/treefactory.py), replicated to --tasks tasks. It imports
no pytest (the fake Hub server is a plain module; its fixture lives in tests/fakes/hub_fixture.py),
so it runs from a checkout installed with only the runtime dependencies.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _tree(root: Path, n_tasks: int) -> Path:
    from tests.tasks.treefactory import write_task

    tasks_dir = root / "tasks"
    cells = [(s, t) for s in (1, 2, 3) for t in (1, 2, 3, 4)]
    i = 0
    while i < n_tasks:
        scenario, turn = cells[i % 12]
        group = i // 12 + 1
        write_task(tasks_dir, scenario, turn, group, "a", golden=True)
        i += 1
    return root


def _jobs(root: Path, tasks: list, trials: int) -> Path:
    job = root / "jobs" / "bench-job"
    job.mkdir(parents=True)
    (job / "config.json").write_text(json.dumps({"agents": [{"name": "terminus-2", "model_name": "openai/bench"}]}))
    for task in tasks:
        for k in range(trials):
            d = job / f"{task.task_id}__{k:04d}"
            (d / "verifier").mkdir(parents=True)
            (d / "result.json").write_text(json.dumps({
                "task_name": task.task_id, "trial_name": d.name, "started_at": f"2026-01-01T00:{k:02d}:00",
                "verifier_result": {"rewards": {"reward": 0.5}}, "agent_result": {"n_input_tokens": 1000}}))
            (d / "verifier" / "grade.json").write_text(json.dumps({
                "task_id": task.task_id, "model": "harbor-agent", "trial": 1, "status": "graded",
                "judge_method": "llm", "judges": ["j1", "j2", "j3"], "gate": {"passed": True},
                "score": {"weighted": (hash((task.task_id, k)) % 100) / 100}}))
    return root / "jobs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=140)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="rb-bench-integrations-"))
    os.environ.setdefault("REDLINEBENCH_CACHE", str(scratch / "cache"))
    os.environ["HF_HOME"] = str(scratch / "hf")
    try:
        from redlinebench.dataset import export_dataset
        from redlinebench.integrations import harbor, hub
        from redlinebench.tasks import load_tasks
        from tests.fakes.hub_server import FakeHub

        tree = _tree(scratch / "bench", args.tasks)
        tasks = list(load_tasks(tree))
        src_bytes = _size(tree / "tasks")

        t0 = time.perf_counter()
        harbor.export_harbor(tasks, scratch / "harbor", harbor.ExportOptions(package_spec="redlinebench==0.1.0"))
        t_export = time.perf_counter() - t0
        out_bytes = _size(scratch / "harbor")
        print(f"harbor export: {len(tasks)} tasks in {t_export:.2f} s = {1000 * t_export / len(tasks):.1f} ms/task; "
              f"exported/source bytes = {out_bytes / src_bytes:.2f}")

        jobs = _jobs(scratch, tasks, args.trials)
        t0 = time.perf_counter()
        report = harbor.import_harbor(jobs, scratch / "run")
        t_import = time.perf_counter() - t0
        n = len(report.imported)
        print(f"harbor import: {n} trials in {t_import:.2f} s = {n / t_import:.0f} trials/s (incl. summarize)")
        t0 = time.perf_counter()
        again = harbor.import_harbor(jobs, scratch / "run")
        print(f"harbor re-import (all skipped): {len(again.skipped)} trials in {time.perf_counter() - t0:.2f} s")

        export_dir = scratch / "export"
        export_dataset(tree, export_dir, include_tree=True)
        plan = hub.plan_dataset_push(export_dir, repo_id="bench/RedlineBench")
        payload = sum(len(c) for c in plan.files.values())
        with FakeHub() as fake:
            from huggingface_hub import constants, hf_api

            constants.ENDPOINT = fake.url
            constants.HUGGINGFACE_CO_URL_TEMPLATE = fake.url + "/{repo_id}/resolve/{revision}/{filename}"
            constants.HF_HUB_OFFLINE = False
            hf_api.api.endpoint = fake.url
            t0 = time.perf_counter()
            hub.execute(plan, token="hf_bench")
            t_push = time.perf_counter() - t0
        print(f"push dataset: {len(plan.files)} files, {payload / 1e6:.2f} MB in {t_push:.2f} s = "
              f"{payload / 1e6 / t_push:.1f} MB/s; wire/file bytes = {(4 * ((payload + 2) // 3)) / payload:.2f} "
              f"(base64 in the ndjson commit)")

        t0 = time.perf_counter()
        plan, problems = hub.plan_results_push(scratch / "run", model_repo="bench/model", dataset_id="bench/set",
                                               force=True)
        print(f"push results --dry-run: {1000 * (time.perf_counter() - t0):.0f} ms over {n} grades "
              f"({len(problems)} refusal reason(s) noted)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
