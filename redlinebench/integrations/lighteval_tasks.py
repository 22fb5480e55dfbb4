"""
name:
RedlineBench

dataset:
crosbylegal/RedlineBench

abstract:
Agentic contract negotiation: the model redlines a Word contract as counsel for one side with five document tools (native tracked changes and margin comments); a judge panel grades each redline against weighted rubrics and redline_overall is the turn-weighted mean of the scenario x turn cells. Runs on lighteval's inspect-ai backend only (no text backend). Run it with `redlinebench lighteval eval "redlinebench|0" --custom-tasks path/to/lighteval_tasks.py --model PROVIDER/MODEL --model-role grader=PROVIDER/MODEL`: lighteval 0.13's own `lighteval eval` ignores --custom-tasks and its registry cannot be built under huggingface_hub 2.x (docs/INTEGRATIONS.md).

languages:
english

tags:
agentic, legal, tool-use, docx, contract-negotiation

paper:
https://huggingface.co/datasets/crosbylegal/RedlineBench
"""

# The docstring above is lighteval's task metadata format (`lighteval tasks dump` parses it: a
# "key:" line, then one paragraph). What the module does: ``TASKS_TABLE`` holds one
# ``LightevalTaskConfig`` named ``redlinebench`` (split ``test`` of the dataset's ``tasks`` config)
# whose solver is our Inspect agent (react over the five document tools, the native message limit
# applied inside the solver because lighteval's ``Task`` sets none) and whose scorer is ours (gate,
# judge panel, reward; its metrics read every epoch, so no epochs reducer drops a trial).
# ``sample_fields`` looks each index row's ``task_id`` up in the task tree: the agent needs the
# contract .docx, which the index row does not carry. The imports are absolute so lighteval can
# load this file by path.

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

try:
    from lighteval.tasks.lighteval_task import LightevalTaskConfig
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(f"the lighteval task needs lighteval: pip install 'redlinebench[lighteval]' ({exc})") from exc

from redlinebench import config
from redlinebench.errors import ConfigError
from redlinebench.integrations.inspect_scorer import DEFAULT_JUDGES
from redlinebench.integrations.inspect_task import DEFAULT_MESSAGE_LIMIT, redline_agent, redline_scorer, sample_for

TASK_NAME = "redlinebench"


@lru_cache(maxsize=8)
def _taskset(source: str | None) -> Any:
    from redlinebench.tasks import load_tasks

    return load_tasks(source)


def sample_fields_for(source: str | None = None):
    """``sample_fields`` for lighteval's inspect backend: index row -> full Inspect sample."""

    def record_to_sample(row: dict) -> Any:
        task_id = row.get("task_id")
        if not isinstance(task_id, str) or not task_id:
            raise ConfigError(f"redlinebench: index row without a task_id: {sorted(row)}")
        return sample_for(_taskset(source).get(task_id))

    return record_to_sample


def prompt_function(line: dict, task_name: str = TASK_NAME) -> Any:
    """lighteval's text backends cannot run an agentic tool-use task; say so plainly."""
    raise ConfigError(
        "RedlineBench is an agentic tool-use benchmark: run it with lighteval's inspect-ai backend "
        "(`redlinebench lighteval eval \"redlinebench|0\" ...`) or `inspect eval redlinebench/redlinebench`")


def make_config(
    *,
    hf_repo: str | None = None,
    hf_subset: str = "tasks",
    source: str | None = None,
    judges: str = DEFAULT_JUDGES,
    name: str = TASK_NAME,
    output_dir: str | None = None,
    message_limit: int | None = DEFAULT_MESSAGE_LIMIT,
) -> LightevalTaskConfig:
    """One RedlineBench task config. ``hf_repo`` may be a Hub id or an exported dataset directory."""
    source = source if source is not None else os.environ.get("REDLINEBENCH_BENCHMARK_DIR")
    repo = hf_repo or source or config.HUB_DATASET_ID
    return LightevalTaskConfig(
        name=name,
        prompt_function=prompt_function,
        hf_repo=repo,
        hf_subset=hf_subset,
        hf_revision=config.HUB_DATASET_REVISION if repo == config.HUB_DATASET_ID else None,
        hf_avail_splits=["test"],
        evaluation_splits=["test"],
        metrics=[],  # the Inspect scorer carries the metrics (redline_overall first)
        solver=[redline_agent(output_dir, judges, message_limit)],
        scorer=redline_scorer(judges),
        sample_fields=sample_fields_for(source),
        version=1,
    )


def resolve_configs(tasks: str = f"{TASK_NAME}|0", table: list[LightevalTaskConfig] | None = None) -> list[LightevalTaskConfig]:
    """``name|fewshots,...`` -> configs from ``table`` (default ``TASKS_TABLE``), as lighteval's Registry would.

    lighteval's own ``Registry`` first imports every built-in task module, and one of them
    (``tiny_benchmarks``) downloads a file at import time, so it cannot even be built offline.
    We resolve against our table directly, with the same ``task|few_shot`` syntax.
    """
    import copy

    by_name = {cfg.name: cfg for cfg in (table if table is not None else TASKS_TABLE)}
    out = []
    for spec in [t.strip() for t in tasks.split(",") if t.strip()]:
        parts = spec.split("|")
        name = parts[-2] if len(parts) == 3 else parts[0]
        shots = parts[-1] if len(parts) >= 2 else "0"
        if name not in by_name:
            raise ConfigError(f"lighteval: no task {name!r} here (have: {', '.join(sorted(by_name))})")
        if shots.strip() != "0":
            raise ConfigError(f"lighteval: {name} is agentic and takes no few-shot examples (got {spec!r})")
        cfg = copy.deepcopy(by_name[name])
        cfg.num_fewshots = 0
        cfg.full_name = f"{name}|0"
        out.append(cfg)
    return out


def inspect_tasks(tasks: str = f"{TASK_NAME}|0", *, table: list[LightevalTaskConfig] | None = None,
                  epochs: int = 1, epochs_reducer: str | None = None) -> list[Any]:
    """What ``lighteval eval`` would build for our tasks (the ``--custom-tasks`` gap): Inspect Tasks,
    made by lighteval's own ``get_inspect_ai_task``."""
    from lighteval.main_inspect import get_inspect_ai_task

    if not isinstance(tasks, str):
        raise ConfigError("inspect_tasks: tasks is a 'name|0' string; pass your configs as the table, e.g. "
                          "inspect_tasks(\"redlinebench|0\", table=[make_config(...)])")
    return [get_inspect_ai_task(cfg, epochs=epochs, epochs_reducer=epochs_reducer)
            for cfg in resolve_configs(tasks, table)]


def load_table(custom_tasks: str | None = None) -> list[LightevalTaskConfig]:
    """``TASKS_TABLE`` of a custom-tasks file (or module name), read with lighteval's own loader
    (``Registry.create_custom_tasks_module``) without building lighteval's registry, which imports
    every built-in task module first and fails under huggingface_hub 2.x. None: this module's table."""
    if custom_tasks is None:
        return TASKS_TABLE
    from lighteval.tasks.registry import Registry

    try:
        module = Registry.create_custom_tasks_module(custom_tasks)
    except (ImportError, OSError, SyntaxError) as exc:
        raise ConfigError(f"--custom-tasks: cannot load {custom_tasks}: {type(exc).__name__}: {exc}") from None
    table = getattr(module, "TASKS_TABLE", None)
    if not isinstance(table, list) or not all(isinstance(c, LightevalTaskConfig) for c in table):
        raise ConfigError(f"--custom-tasks: {custom_tasks} has no TASKS_TABLE list of LightevalTaskConfig")
    return table


TASKS_TABLE = [make_config()]

__all__ = ["TASKS_TABLE", "TASK_NAME", "inspect_tasks", "load_table", "make_config", "prompt_function",
           "resolve_configs", "sample_fields_for"]
