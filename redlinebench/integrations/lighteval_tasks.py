"""
name:
RedlineBench

dataset:
crosbylegal/RedlineBench

abstract:
Agentic contract negotiation: the model redlines a Word contract as counsel for one side with five document tools (native tracked changes and margin comments); a judge panel grades each redline against weighted rubrics and redline_overall is the turn-weighted mean of the scenario x turn cells. Runs on lighteval's inspect-ai backend only (no text backend). Run it with `redlinebench lighteval eval "redlinebench|0" --custom-tasks path/to/lighteval_tasks.py --model PROVIDER/MODEL --model-role grader=PROVIDER/MODEL`: lighteval 0.13's own `lighteval eval` ignores --custom-tasks and its registry cannot be built under huggingface_hub 2.x (docs/INTEGRATIONS.md). The model-free baselines are the tasks `redlinebench_baseline:golden`, `:accept_all` and `:noop` (`redlinebench_baseline|0` runs all three). With no task tree given and the Hub out of reach, the task runs on the embedded synthetic set and says so, as `redlinebench run` does.

languages:
english

tags:
agentic, legal, tool-use, docx, contract-negotiation

paper:
https://huggingface.co/datasets/crosbylegal/RedlineBench
"""

# The docstring above is lighteval's task metadata format (`lighteval tasks dump` parses it: a
# "key:" line, then one paragraph). What the module does: ``TASKS_TABLE`` holds a
# ``LightevalTaskConfig`` named ``redlinebench`` (split ``test`` of the dataset's ``tasks`` config)
# whose solver is our Inspect agent (react over the five document tools, the native message limit
# applied inside the solver because lighteval's ``Task`` sets none) and whose scorer is ours (gate,
# judge panel, reward; its metrics read every epoch, so no epochs reducer drops a trial).
# ``sample_fields`` looks each index row's ``task_id`` up in the task tree: the agent needs the
# contract .docx, which the index row does not carry. Three more configs, ``redlinebench_baseline:
# golden|accept_all|noop``, put a model-free baseline in the solver's place (lighteval has no
# ``--solver``; its way to vary a task is a ``task:subset`` entry in the table). The imports are
# absolute so lighteval can load this file by path.

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

try:
    from lighteval.tasks.lighteval_task import LightevalTaskConfig
except ImportError as exc:  # pragma: no cover - depends on the environment
    from redlinebench.errors import install_hint

    raise ImportError(f"the lighteval task needs lighteval: {install_hint('lighteval')} ({exc})") from exc

from redlinebench import config
from redlinebench.errors import ConfigError
from redlinebench.integrations.inspect_scorer import DEFAULT_JUDGES
from redlinebench.integrations.inspect_task import (DEFAULT_MESSAGE_LIMIT, accept_all, golden, noop, redline_agent,
                                                    redline_scorer, sample_for)

TASK_NAME = "redlinebench"
log = logging.getLogger(__name__)


@lru_cache(maxsize=8)
def _taskset(source: Any) -> Any:
    from redlinebench.tasks import load_tasks

    return load_tasks(source)


class TaskSamples:
    """``sample_fields`` for lighteval's inspect backend: index row -> full Inspect sample.

    The agent needs the contract .docx, which the index row does not carry, so each row's
    ``task_id`` is looked up in the task tree ``source``. ``source`` None: the tree is decided when
    the task is built (:func:`bind_tree`), as ``load_tasks`` decides it.
    """

    def __init__(self, source: Any = None) -> None:
        self.source = source

    def __call__(self, row: dict) -> Any:
        task_id = row.get("task_id")
        if not isinstance(task_id, str) or not task_id:
            raise ConfigError(f"redlinebench: index row without a task_id: {sorted(row)}")
        return sample_for(_taskset(self.source).get(task_id))


def sample_fields_for(source: str | None = None) -> TaskSamples:
    """``sample_fields`` resolving index rows against the task tree ``source``."""
    return TaskSamples(source)


def prompt_function(line: dict, task_name: str = TASK_NAME) -> Any:
    """lighteval's text backends cannot run an agentic tool-use task; say so plainly."""
    raise ConfigError(
        "RedlineBench is an agentic tool-use benchmark: run it with lighteval's inspect-ai backend "
        "(`redlinebench lighteval eval \"redlinebench|0\" ...`) or `inspect eval redlinebench/redlinebench`")


#: The model-free baselines, as lighteval subset tasks ``redlinebench_baseline:<name>`` (lighteval's
#: ``task:subset`` convention; ``redlinebench_baseline|0`` runs all three, as ``mmlu`` runs its subsets).
BASELINE_SUITE = "redlinebench_baseline"
BASELINES = ("golden", "accept_all", "noop")


def _solver(baseline: str | None, output_dir: str | None, judges: str, message_limit: int | None) -> Any:
    if baseline is None:
        return redline_agent(output_dir, judges, message_limit)
    factories = {"golden": golden, "accept_all": accept_all, "noop": noop}
    if baseline not in factories:
        raise ConfigError(f"lighteval: unknown baseline {baseline!r} (have: {', '.join(BASELINES)})")
    return factories[baseline](output_dir)


def make_config(
    *,
    hf_repo: str | None = None,
    hf_subset: str = "tasks",
    source: str | None = None,
    judges: str = DEFAULT_JUDGES,
    name: str | None = None,
    output_dir: str | None = None,
    message_limit: int | None = DEFAULT_MESSAGE_LIMIT,
    baseline: str | None = None,
) -> LightevalTaskConfig:
    """One RedlineBench task config. ``hf_repo`` may be a Hub id or an exported dataset directory.

    ``baseline`` ("golden", "accept_all", "noop"): that model-free baseline is the solver instead of
    the model's agent (named ``redlinebench_baseline:<baseline>`` unless ``name`` is given). With no
    ``hf_repo`` and no ``source`` (nor ``$REDLINEBENCH_BENCHMARK_DIR``) the tree is chosen when the
    task is built, as ``load_tasks`` chooses it: see :func:`bind_tree`.
    """
    env = config.benchmark_dir_env()
    source = source if source is not None else (str(env) if env is not None else None)
    repo = hf_repo or source or config.HUB_DATASET_ID
    return LightevalTaskConfig(
        name=name or (TASK_NAME if baseline is None else f"{BASELINE_SUITE}:{baseline}"),
        prompt_function=prompt_function,
        hf_repo=repo,
        hf_subset=hf_subset,
        hf_revision=config.HUB_DATASET_REVISION if repo == config.HUB_DATASET_ID else None,
        hf_avail_splits=["test"],
        evaluation_splits=["test"],
        metrics=[],  # the Inspect scorer carries the metrics (redline_overall first)
        solver=[_solver(baseline, output_dir, judges, message_limit)],
        scorer=redline_scorer(judges),
        sample_fields=TaskSamples(source),
        version=1,
    )


def _expand(name: str, names: list[str]) -> list[str]:
    """lighteval's superset rule: ``suite`` names every ``suite:subset`` when there are several."""
    members = sorted(n for n in names if n.split(":")[0] == name)
    return members if len(members) > 1 else [name]


def resolve_configs(tasks: str = f"{TASK_NAME}|0", table: list[LightevalTaskConfig] | None = None) -> list[LightevalTaskConfig]:
    """``name|fewshots,...`` -> configs from ``table`` (default ``TASKS_TABLE``), as lighteval's Registry would
    (``redlinebench_baseline|0`` expands to its subsets, as lighteval expands ``mmlu``).

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
        if shots.strip() != "0":
            raise ConfigError(f"lighteval: {name} is agentic and takes no few-shot examples (got {spec!r})")
        for member in _expand(name, list(by_name)):
            if member not in by_name:
                raise ConfigError(f"lighteval: no task {member!r} here (have: {', '.join(sorted(by_name))})")
            cfg = copy.deepcopy(by_name[member])
            cfg.num_fewshots = 0
            cfg.full_name = f"{member}|0"
            out.append(cfg)
    return out


def _exported_index(taskset: Any) -> str:
    """A plain export (parquet index + card) of ``taskset`` in the cache, keyed by its content."""
    from redlinebench.dataset import export_dataset

    folder = config.cache_dir() / "lighteval" / f"{taskset.source.kind}-{taskset.fingerprint()[:16]}"
    if not (folder / "README.md").is_file():
        export_dataset(taskset.source, folder)
    return str(folder)


def bind_tree(cfg: LightevalTaskConfig) -> LightevalTaskConfig:
    """Give a config made with no tree (the default: the Hub dataset) the tree ``load_tasks`` picks.

    ``load_tasks`` tries ``$REDLINEBENCH_BENCHMARK_DIR``, ``./benchmark/``, the pinned Hub snapshot,
    then the embedded synthetic set. lighteval would read the index from the Hub at its head
    whatever happens (a traceback offline); here the index is exported from the chosen tree
    instead, so index and tree are the same snapshot, offline too. A fallback off the Hub is said
    in one log line. Other configs are returned unchanged.
    """
    # by attribute, not isinstance: a custom-tasks file loaded by path is a second copy of this module
    fields = cfg.sample_fields
    if type(fields).__name__ != "TaskSamples" or getattr(fields, "source", "") is not None \
            or cfg.hf_repo != config.HUB_DATASET_ID:
        return cfg
    taskset = _taskset(None)
    source = taskset.source
    cfg.hf_repo, cfg.hf_revision = _exported_index(taskset), None
    cfg.sample_fields = TaskSamples(source)
    # load_tasks itself warns once when an unreachable Hub (not HF_HUB_OFFLINE) made it pick the
    # embedded set (tasks/_source.py); every other fallback is said here, so there is one line
    announced = source.kind == "embedded" and not config.hub_offline()
    if source.kind != "hub" and not announced:
        log.warning("warning: lighteval task %s runs on %s, not the Hub dataset %s (%s): its scores are not "
                    "comparable with the real set's", cfg.name, source.label, config.HUB_DATASET_ID, source.skipped[-1] if source.skipped else source.reason)
    return cfg


def inspect_tasks(tasks: str = f"{TASK_NAME}|0", *, table: list[LightevalTaskConfig] | None = None,
                  epochs: int = 1, epochs_reducer: str | None = None) -> list[Any]:
    """What ``lighteval eval`` would build for our tasks (the ``--custom-tasks`` gap): Inspect Tasks,
    made by lighteval's own ``get_inspect_ai_task``."""
    from lighteval.main_inspect import get_inspect_ai_task

    from redlinebench.dataset._load import quiet_progress

    if not isinstance(tasks, str):
        raise ConfigError("inspect_tasks: tasks is a 'name|0' string; pass your configs as the table, e.g. "
                          "inspect_tasks(\"redlinebench|0\", table=[make_config(...)])")
    built = []
    for cfg in resolve_configs(tasks, table):
        cfg = bind_tree(cfg)
        try:
            with quiet_progress():  # datasets' progress bars while Inspect reads and caches the index
                built.append(get_inspect_ai_task(cfg, epochs=epochs, epochs_reducer=epochs_reducer))
        except (ConnectionError, FileNotFoundError) as exc:  # datasets' "Couldn't reach" / "not found"
            raise ConfigError(f"lighteval task {cfg.name}: cannot read the index {cfg.hf_repo}: "
                              f"{' '.join(str(exc).split())}") from None
    return built


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


TASKS_TABLE = [make_config(), *(make_config(baseline=b) for b in BASELINES)]

__all__ = ["BASELINES", "BASELINE_SUITE", "TASKS_TABLE", "TASK_NAME", "TaskSamples", "bind_tree", "inspect_tasks",
           "load_table", "make_config", "prompt_function", "resolve_configs", "sample_fields_for"]
