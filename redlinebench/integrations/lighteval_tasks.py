"""lighteval custom-task module for RedlineBench (extra ``[lighteval]``, lighteval 0.13).

``TASKS_TABLE`` holds one :class:`LightevalTaskConfig` named ``redlinebench``: split ``test`` of
the dataset's ``tasks`` config, our Inspect solver (react agent over the five document tools)
and scorer (gate, judge panel, reward; its metrics include ``redline_overall``). lighteval runs
such tasks through its inspect-ai backend, which reads the index rows with ``hf_dataset`` and
turns each into a sample with ``sample_fields`` — ours looks the row's ``task_id`` up in the
task tree (the agent needs the contract .docx, which the index row does not carry).

Known gaps in lighteval 0.13, and the way around them
------------------------------------------------------
* ``lighteval eval`` (the inspect-ai backend command) accepts ``--custom-tasks`` but builds
  its registry with ``custom_tasks=None``, so custom tasks are never found there
  ("Cannot find task redlinebench ..."). Use the Python API instead — :func:`inspect_tasks`
  does what ``lighteval eval`` would (lighteval's ``get_inspect_ai_task`` on our configs)::

      from inspect_ai import eval
      from redlinebench.integrations.lighteval_tasks import inspect_tasks
      eval(inspect_tasks("redlinebench|0"), model="openai/gpt-5.5",
           model_roles={"grader": ["openai/gpt-5.4-mini", "anthropic/claude-haiku-4-5"]})

  or skip lighteval entirely: ``inspect eval redlinebench/redlinebench`` runs the same task.
* lighteval's ``Registry`` imports every built-in task module before it looks at custom tasks,
  and ``tiny_benchmarks`` downloads a file at import, so the Registry cannot be built offline;
  :func:`resolve_configs` reads ``TASKS_TABLE`` directly with the same ``task|few_shot`` syntax.
* The inspect-ai backend calls ``hf_dataset`` without ``hf_revision``: the index is read at the
  repo head, not the pinned revision. The task tree our ``sample_fields`` resolves *is* pinned
  (``redlinebench.tasks`` downloads the pinned snapshot), and a task id missing from it is an
  error, never a silent skip.
* Point the module at another copy of the benchmark with ``REDLINEBENCH_BENCHMARK_DIR`` (or
  :func:`make_config` with ``hf_repo`` and ``source`` = a directory written by ``redlinebench
  dataset export --include-tree``: the index rows come from its parquet, the tasks from its tree),
  and pass that config as ``inspect_tasks("redlinebench|0", table=[cfg])``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

try:
    from lighteval.tasks.lighteval_task import LightevalTaskConfig
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(f"the lighteval task needs lighteval: pip install 'redlinebench[lighteval]' ({exc})") from exc

from .. import config
from ..errors import ConfigError
from .inspect_scorer import DEFAULT_JUDGES
from .inspect_task import redline_agent, redline_scorer, sample_for

TASK_NAME = "redlinebench"


@lru_cache(maxsize=8)
def _taskset(source: str | None) -> Any:
    from ..tasks import load_tasks

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
        "(see redlinebench.integrations.lighteval_tasks) or `inspect eval redlinebench/redlinebench`")


def make_config(
    *,
    hf_repo: str | None = None,
    hf_subset: str = "tasks",
    source: str | None = None,
    judges: str = DEFAULT_JUDGES,
    name: str = TASK_NAME,
    output_dir: str | None = None,
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
        solver=[redline_agent(output_dir, judges)],
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
                  epochs: int = 1) -> list[Any]:
    """What ``lighteval eval`` would build for our tasks (the ``--custom-tasks`` gap): Inspect Tasks."""
    from lighteval.main_inspect import get_inspect_ai_task

    if not isinstance(tasks, str):
        raise ConfigError("inspect_tasks: tasks is a 'name|0' string; pass your configs as the table, e.g. "
                          "inspect_tasks(\"redlinebench|0\", table=[make_config(...)])")
    return [get_inspect_ai_task(cfg, epochs=epochs) for cfg in resolve_configs(tasks, table)]


TASKS_TABLE = [make_config()]

__all__ = ["TASKS_TABLE", "TASK_NAME", "inspect_tasks", "make_config", "prompt_function", "resolve_configs",
           "sample_fields_for"]
