"""lighteval 0.13: our custom-task module builds a task that evaluates a sample with a mock model."""

from __future__ import annotations

import importlib.util

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


def test_tasks_table_declares_the_inspect_backed_task():
    [cfg] = lt.TASKS_TABLE
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
