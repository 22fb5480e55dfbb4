"""The Inspect scorer (and lighteval, which runs it) audits the document against the task's input,
through ``inspect eval`` and ``redlinebench lighteval eval --custom-tasks``."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integrations.scripted import metric, only_score
from tests.integrations.test_inspect import _inspect_cli
from tests.manipulated import TASK_ID, assert_untracked_gate_failure

ROOT = Path(__file__).resolve().parents[2]
SOLVER = Path(__file__).with_name("manipulating_solver.py")


@pytest.mark.parametrize("honest", [False, True])
def test_inspect_eval_fails_an_untracked_change(tmp_path, honest):
    log, _ = _inspect_cli(["redlinebench/redlinebench", "--solver", f"{SOLVER}@manipulator",
                           "-S", f"output_dir={tmp_path / 'docs'}", "-S", f"honest={honest}",
                           "-T", "source=embedded", "-T", f"task_ids={TASK_ID}", "-T", "judges=heuristic"], tmp_path)
    assert log.status == "success"
    [sample] = log.samples
    [grade] = only_score(sample).metadata["grades"]
    if honest:
        assert grade["gate"]["passed"] is True and grade["integrity"]["passed"] is True
        return
    assert_untracked_gate_failure(grade)
    assert only_score(sample).explanation.startswith("gate failed: integrity: untracked_change")
    assert metric(log, "gate_failures") == 1


def test_lighteval_custom_tasks_fail_an_untracked_change(tmp_path):
    if importlib.util.find_spec("lighteval") is None:
        from redlinebench.config import require_external_tools

        if require_external_tools():
            raise RuntimeError("lighteval is required in CI (.ci/run installs the `lighteval` extra)")
        pytest.skip("lighteval is not installed (it pulls PyTorch): pip install \".[lighteval]\"")
    import shutil

    from redlinebench.dataset import export_dataset
    from redlinebench.tasks import load_tasks

    tree = tmp_path / "bench" / "tasks" / TASK_ID  # the one embedded task, as a task tree of its own
    shutil.copytree(load_tasks("embedded").get(TASK_ID).root, tree)
    ds = tmp_path / "export"
    export_dataset(str(tree.parent.parent), ds, include_tree=True)
    custom = tmp_path / "my_tasks.py"
    custom.write_text(
        "import dataclasses\n"
        "from redlinebench.integrations.lighteval_tasks import make_config\n"
        "from tests.integrations.manipulating_solver import manipulator\n"
        f"cfg = make_config(hf_repo={str(ds)!r}, source={str(ds)!r}, judges='heuristic')\n"
        f"TASKS_TABLE = [dataclasses.replace(cfg, solver=[manipulator({str(tmp_path / 'docs')!r})])]\n")
    proc = subprocess.run([sys.executable, "-m", "redlinebench", "lighteval", "eval", "redlinebench|0",
                           "--custom-tasks", str(custom), "--model", "mockllm/model",
                           "--log-dir", str(tmp_path / "logs")], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
                               "REDLINEBENCH_CACHE": str(tmp_path)})
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    from inspect_ai.log import read_eval_log

    [path] = list((tmp_path / "logs").glob("*.eval"))
    [sample] = read_eval_log(str(path)).samples
    assert_untracked_gate_failure(only_score(sample).metadata["grades"][0])
