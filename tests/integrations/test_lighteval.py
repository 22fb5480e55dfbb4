"""lighteval 0.13: our custom-task module builds a task that evaluates a sample with a mock model."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from redlinebench.config import require_external_tools

# lighteval imports PyTorch, so the README's test command (`.[dev]`) leaves it out; `.ci/run` installs
# the `lighteval` extra and there a missing lighteval fails instead of skipping.
if importlib.util.find_spec("lighteval") is None:
    if require_external_tools():
        raise RuntimeError("lighteval is required in CI (.ci/run installs the `lighteval` extra)")
    pytest.skip("lighteval is not installed (it pulls PyTorch): pip install \".[lighteval]\"",
                allow_module_level=True)

from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from redlinebench import config
from redlinebench.dataset import export_dataset
from redlinebench.errors import ConfigError
from redlinebench.integrations import lighteval_tasks as lt
from tests.integrations.scripted import editing_agent, metric, only_score, role_panel
from tests.tasks.treefactory import build_tree

ROOT = Path(__file__).resolve().parents[2]


def test_tasks_table_declares_the_inspect_backed_task():
    cfg = lt.TASKS_TABLE[0]
    assert (cfg.name, cfg.hf_repo, cfg.hf_subset) == ("redlinebench", config.HUB_DATASET_ID, "tasks")
    assert cfg.hf_revision == config.HUB_DATASET_REVISION
    assert cfg.evaluation_splits == ("test",)
    assert cfg.sample_fields is not None and cfg.scorer is not None and len(cfg.solver) == 1
    with pytest.raises(ConfigError, match="agentic"):
        cfg.prompt_function({"task_id": "x"}, "redlinebench")
    with pytest.raises(ConfigError, match="no few-shot"):
        lt.resolve_configs("redlinebench|5")
    with pytest.raises(ConfigError, match="no task 'mmlu'"):
        lt.resolve_configs("mmlu|0")


def test_lighteval_builds_the_task_from_an_exported_dataset_and_scores_a_sample(tmp_path):
    tree = build_tree(tmp_path / "bench", [(1, 1, 1, "a", True), (2, 4, 1, "a", False)])
    ds = tmp_path / "export"
    export_dataset(tree, ds, include_tree=True)
    cfg = lt.make_config(hf_repo=str(ds), source=str(ds), output_dir=str(tmp_path / "out"))
    [task] = lt.inspect_tasks("redlinebench|0", table=[cfg])
    calls: list[str] = []
    [log] = inspect_eval(
        task, model=get_model("mockllm/agent", custom_outputs=editing_agent),
        model_roles={"grader": role_panel(calls)}, sample_id="redline-s1-t1-g01a",
        log_dir=str(tmp_path / "logs"), display="none",
    )
    assert log.status == "success", log.error
    [sample] = log.samples
    assert sample.id == "redline-s1-t1-g01a"
    # PASS r01 (7) + r02 (8) - penalty r06 (3), of 27 positive weight
    assert only_score(sample).value == pytest.approx(12 / 27, abs=1e-4)
    assert metric(log, "redline_overall") == 44.4
    assert len(calls) == 3


def test_a_plain_export_or_a_config_list_gets_a_message_saying_what_to_do(tmp_path):
    """The documented recipe needs `dataset export --include-tree` and `table=[cfg]`; the two easy
    mistakes say so instead of failing deep inside."""
    from redlinebench.errors import TaskError

    tree = build_tree(tmp_path / "bench", [(1, 1, 1, "a", True)])
    plain = tmp_path / "plain"
    export_dataset(tree, plain)
    cfg = lt.make_config(hf_repo=str(plain), source=str(plain), output_dir=str(tmp_path / "out"))
    with pytest.raises(TaskError, match="export it again with `redlinebench dataset export --include-tree`"):
        lt.inspect_tasks("redlinebench|0", table=[cfg])
    with pytest.raises(ConfigError, match=r"pass your configs as the table, e.g. inspect_tasks\(\"redlinebench\|0\", "
                                          r"table=\[make_config"):
        lt.inspect_tasks([cfg])


# ----------------------------------------------------------------------------- front door
MODULE = Path(lt.__file__)


@pytest.fixture
def exported(tmp_path) -> Path:
    tree = build_tree(tmp_path / "bench", [(1, 1, 1, "ab", True), (2, 4, 1, "a", False)])
    ds = tmp_path / "export"
    export_dataset(tree, ds, include_tree=True)
    return ds


def _cli(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "redlinebench", "lighteval", "eval", *args,
                           "--log-dir", str(tmp_path / "logs")], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **env})


def _log(tmp_path: Path):
    from inspect_ai.log import read_eval_log

    [path] = list((tmp_path / "logs").glob("*.eval"))
    return read_eval_log(str(path))


def test_our_module_loads_by_file_path_and_runs_through_the_entry_point(exported, tmp_path):
    """`redlinebench lighteval eval "redlinebench|0" --custom-tasks .../lighteval_tasks.py`: lighteval's
    own loader reads the file by path (absolute imports), lighteval's get_inspect_ai_task builds the
    task, every epoch is a trial, and the native message limit stops an agent that never submits."""
    proc = _cli(["redlinebench|0", "--custom-tasks", str(MODULE), "--model", "mockllm/model",
                 "--model-role", "grader=mockllm/model", "--epochs", "2", "--epochs-reducer", "max",
                 "--limit", "1"], {"REDLINEBENCH_BENCHMARK_DIR": str(exported), "REDLINEBENCH_CACHE": str(tmp_path)},
                tmp_path)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "redlinebench: success" in proc.stdout and "n_trials 2" in proc.stdout
    log = _log(tmp_path)
    assert metric(log, "n_trials") == 2 and metric(log, "gate_failures") == 2  # mockllm never edits
    for sample in log.samples:
        assert sample.error is None
        assert len(sample.messages) <= lt.DEFAULT_MESSAGE_LIMIT + 2  # stopped by the native limit, then graded


def test_a_users_custom_tasks_file_with_heuristic_judges(exported, tmp_path):
    custom = tmp_path / "my_tasks.py"
    custom.write_text("from redlinebench.integrations.lighteval_tasks import make_config\n"
                      f"TASKS_TABLE = [make_config(hf_repo={str(exported)!r}, source={str(exported)!r}, "
                      "judges='heuristic', message_limit=6)]\n")
    proc = _cli(["redlinebench|0", "--custom-tasks", str(custom), "--model", "mockllm/model"],
                {"REDLINEBENCH_CACHE": str(tmp_path)}, tmp_path)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    log = _log(tmp_path)
    assert metric(log, "n_trials") == 3 and metric(log, "grid_cells") == 2
    assert all(len(s.messages) <= 8 for s in log.samples)
    bad = _cli(["redlinebench|0", "--custom-tasks", str(tmp_path / "nope.py"), "--model", "mockllm/model"], {},
               tmp_path)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr and "nope" in bad.stderr


def test_the_docstring_is_in_lighteval_metadata_format_as_tasks_dump_parses_it(monkeypatch):
    """lighteval's own get_tasks_dump (what `lighteval tasks dump` prints) on our module. Its
    built-in task modules are stubbed: importing them is what fails under huggingface_hub 2.x."""
    import importlib
    import types

    from lighteval.tasks.registry import Registry

    real = importlib.import_module

    def stub(name, *args, **kwargs):
        if name.startswith("lighteval.tasks.tasks.") or name.startswith("lighteval.tasks.multilingual."):
            return types.ModuleType(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", stub)
    registry = object.__new__(Registry)
    registry._task_registry = {cfg.name: cfg for cfg in lt.TASKS_TABLE}
    registry._custom_tasks = lt
    registry._load_multilingual = False
    [entry] = registry.get_tasks_dump()
    doc = entry["docstring"]
    assert doc["name"] == "RedlineBench" and doc["dataset"] == [config.HUB_DATASET_ID]
    assert doc["languages"] == ["english"] and "tool-use" in doc["tags"]
    assert doc["abstract"].startswith("Agentic contract negotiation") and "redlinebench lighteval eval" in doc["abstract"]
    assert set(doc) == {"name", "dataset", "abstract", "languages", "tags", "paper"}
    assert [t["name"] for t in entry["tasks"]] == ["redlinebench", "redlinebench_baseline:golden",
                                                   "redlinebench_baseline:accept_all", "redlinebench_baseline:noop"]


# ----------------------------------------------------------------------------- baselines, offline
def test_the_baselines_are_subset_tasks_expanded_as_lighteval_expands_a_superset():
    """lighteval has no --solver: a variant is a `task:subset` entry, and `suite|0` runs every subset."""
    from inspect_ai._util.registry import registry_info

    names = [cfg.full_name for cfg in lt.resolve_configs("redlinebench_baseline|0")]
    assert names == ["redlinebench_baseline:accept_all|0", "redlinebench_baseline:golden|0",
                     "redlinebench_baseline:noop|0"]
    [cfg] = lt.resolve_configs("redlinebench_baseline:golden|0")
    assert registry_info(cfg.solver[0]).name.endswith("golden")
    [cfg] = lt.resolve_configs("redlinebench|0")  # not a superset of the baselines
    assert registry_info(cfg.solver[0]).name.endswith("redline_agent")
    with pytest.raises(ConfigError, match="unknown baseline 'oracle'"):
        lt.make_config(baseline="oracle")


def test_offline_with_no_tree_the_default_task_runs_the_embedded_set_and_says_so_once(tmp_path, monkeypatch, caplog):
    """HF_HUB_OFFLINE=1 makes load_tasks pick the embedded set quietly; lighteval would still have
    asked the Hub for the index. The task reads an index exported from the tree it runs on."""
    from redlinebench.tasks import load_tasks

    monkeypatch.chdir(tmp_path)  # no ./benchmark
    monkeypatch.delenv("REDLINEBENCH_BENCHMARK_DIR", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("REDLINEBENCH_CACHE", str(tmp_path / "cache"))
    lt._taskset.cache_clear()
    with caplog.at_level("WARNING"):
        [task] = lt.inspect_tasks("redlinebench_baseline:noop|0", table=[lt.make_config(baseline="noop")])
    lines = [r.getMessage() for r in caplog.records if "embedded synthetic" in r.getMessage()]
    assert len(lines) == 1 and "redlinebench_baseline:noop" in lines[0] and config.HUB_DATASET_ID in lines[0]
    embedded = [t.task_id for t in load_tasks("embedded")]
    assert [s.id for s in task.dataset] == embedded
    assert str(tmp_path / "cache") in task.dataset.location  # the exported index, not the Hub id


def test_the_front_door_with_the_hub_unreachable_falls_back_instead_of_a_traceback(tmp_path):
    """`redlinebench lighteval eval "redlinebench|0" --custom-tasks lighteval_tasks.py` with no tree and
    the Hub out of reach (not HF_HUB_OFFLINE): the embedded set, one warning line, both the model's
    task and the golden baseline run."""
    from redlinebench.tasks import load_tasks

    work = tmp_path / "cwd"
    work.mkdir()
    env = {"HF_HUB_OFFLINE": "", "HF_ENDPOINT": "http://127.0.0.1:9", "REDLINEBENCH_CACHE": str(tmp_path / "cache")}
    env_clean = {k: v for k, v in os.environ.items() if k != "REDLINEBENCH_BENCHMARK_DIR"}
    proc = subprocess.run([sys.executable, "-m", "redlinebench", "lighteval", "eval",
                           "redlinebench|0,redlinebench_baseline:golden|0", "--custom-tasks", str(MODULE),
                           "--model", "mockllm/model", "--model-role", "grader=mockllm/model", "--limit", "1",
                           "--log-dir", str(tmp_path / "logs")], capture_output=True, text=True, timeout=900,
                          cwd=work, env={**env_clean, "PYTHONPATH": str(ROOT), **env})
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "Traceback" not in proc.stderr and "Couldn't reach" not in proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "embedded synthetic" in line]
    assert len(warned) == 1 and config.HUB_DATASET_ID in warned[0], proc.stderr
    assert "redlinebench: success" in proc.stdout and "redlinebench_baseline:golden: success" in proc.stdout
    from inspect_ai.log import read_eval_log

    logs = {read_eval_log(str(p)).eval.task: read_eval_log(str(p)) for p in (tmp_path / "logs").glob("*.eval")}
    embedded = {t.task_id for t in load_tasks("embedded")}
    [golden_sample] = logs["redlinebench_baseline:golden"].samples
    assert golden_sample.id in embedded and golden_sample.store["redlinebench:tool_stats"]["baseline"] == "golden"
    assert metric(logs["redlinebench_baseline:golden"], "gate_failures") == 0  # the attorney redline passes
    assert metric(logs["redlinebench"], "gate_failures") == 1  # mockllm never edits
