"""The Inspect AI task ``redlinebench`` (``inspect eval redlinebench/redlinebench --model ...``).

Samples come from our loader (input = the attorney brief, metadata = the task fields and its
directory; the tools open the contract in this process), the solver is Inspect's ``react`` agent over our
five tools, the scorer applies our gate, judge panel and reward, and the headline metric is
``redline_overall`` with the SPEC §6 group -> cell aggregation.

Registered names (with the package installed, Inspect prefixes ``redlinebench/``): task
``redlinebench``, solvers ``redline_agent`` and the baselines ``golden``, ``accept_all``, ``noop``,
scorer ``redline_scorer``, metrics ``redline_overall``, ``overall_turn_weighted``,
``mean_per_task_reward``, ``grid_cells``, ``n_trials``, ``gate_failures``, ``judging_incomplete``
(all read every epoch: ``--epochs-reducer`` cannot drop a trial).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import uuid
from pathlib import Path
from typing import Any

try:
    from inspect_ai import Epochs, Task, task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import Metric, SampleScore, metric, scorer
    from inspect_ai.solver import Solver, solver
    from inspect_ai._util.error import PrerequisiteError  # what Inspect's CLI prints as one message
except ImportError as exc:  # pragma: no cover - depends on the environment
    from redlinebench.errors import install_hint

    raise ImportError(f"the Inspect AI task needs inspect-ai: {install_hint('inspect')} ({exc})") from exc

# Absolute imports: ``inspect eval path/to/inspect_task.py@redlinebench`` loads this file as a top-level module.
from redlinebench import config
from redlinebench.errors import ConfigError, RedlineBenchError
from redlinebench.integrations.inspect_scorer import (DEFAULT_JUDGES, grades_of, judge_spec_items, metric_value,
                                                      redline_score_fn, summary_row, unbound_role_message)
from redlinebench.integrations.inspect_solver import baseline_solver, redline_agent_solver

log = logging.getLogger(__name__)
#: Messages per sample before the loop is stopped and the document graded as it stands.
DEFAULT_MESSAGE_LIMIT = 120


# ----------------------------------------------------------------------------- offline tokens
_O200K = "fb374d419588a4632f3f557e76b4b70aebbca790"  # tiktoken's cache name for o200k_base


def use_bundled_tokenizer() -> None:
    """Let Inspect count tokens offline.

    Inspect estimates token counts with tiktoken's ``o200k_base`` (mockllm does so for every
    output without usage), and tiktoken downloads that file on first use. litellm, one of our
    dependencies, ships it; point ``TIKTOKEN_CACHE_DIR`` there unless the user chose a cache.
    """
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return
    spec = importlib.util.find_spec("litellm")
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "litellm_core_utils" / "tokenizers"
        if (folder / _O200K).is_file():
            os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
            return


use_bundled_tokenizer()


# ----------------------------------------------------------------------------- samples
def sample_for(task_obj: Any) -> Sample:
    """One Inspect sample for a :class:`redlinebench.tasks.Task`.

    No ``files``: the agent's tools open the contract in this process (no sandbox is declared),
    so the solver finds the task through ``metadata["task_root"]``.
    """
    metadata = dict(task_obj.metadata())
    metadata.update({
        "turn": task_obj.turn,
        "task_root": str(task_obj.root),
        "n_rubrics": len(task_obj.rubrics),
        "has_golden": task_obj.golden_path is not None,
    })
    return Sample(id=task_obj.task_id, input=task_obj.instruction, metadata=metadata)


def _ids(value: str | list[str] | None) -> list[str] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def select_tasks(
    source: str | None = None,
    task_ids: str | list[str] | None = None,
    scenario: int | str | list | None = None,
    turn: int | str | list | None = None,
    side: str | list | None = None,
    limit: int | None = None,
) -> tuple[Any, list[Any]]:
    """(the whole resolved task set, the tasks the filters keep): the set is what the log records."""
    from redlinebench.tasks import load_tasks

    taskset = load_tasks(source)
    chosen = list(taskset.filter(_ids(task_ids), scenario=_ids(scenario) if isinstance(scenario, str) else scenario,
                                 turn=_ids(turn) if isinstance(turn, str) else turn, side=side))
    if limit is not None:  # the same first N as `run --limit N`: spread over the cells, not cell 1-1's
        from redlinebench.runner.spec import stratified_first

        chosen = stratified_first(chosen, int(limit))
    if not chosen:
        raise ConfigError("redlinebench: no task matches the given filters")
    return taskset, chosen


def load_samples(source: str | None = None, **filters: Any) -> list[Sample]:
    """One sample per task the filters keep (``task_ids``, ``scenario``, ``turn``, ``side``,
    ``limit``: see :func:`select_tasks`)."""
    _, chosen = select_tasks(source, **filters)
    return [sample_for(t) for t in chosen]


def source_record(taskset: Any, chosen: list[Any]) -> dict[str, Any]:
    """Which task set an eval used (kind, path, revision, content fingerprint), for the log's metadata.

    ``task_args.source`` is what the user typed (often nothing); this is what it resolved to, so a
    log made on the embedded synthetic fallback cannot pass for one made on the Hub dataset.
    """
    from redlinebench.runner.record import data_record

    record = data_record(taskset, chosen)
    record.pop("task_ids", None)  # the log lists its samples already
    return record


def dataset_label(taskset: Any) -> tuple[str, str]:
    """(name, location) of the Inspect dataset: the Hub id and revision, or the directory."""
    source = taskset.source
    if source.kind == "hub":
        return "redlinebench", f"hf://datasets/{config.HUB_DATASET_ID}@{source.revision}"
    return f"redlinebench-{source.kind}", str(source.path)


# ----------------------------------------------------------------------------- registered pieces
def _output_dir(output_dir: str | None) -> Path:
    return Path(output_dir) if output_dir else config.cache_dir() / "inspect-outputs" / uuid.uuid4().hex[:12]


@solver
def redline_agent(output_dir: str | None = None, judges: str | None = None,
                  message_limit: int | None = None) -> Solver:
    """Inspect's react agent over the five redlinebench document tools (``end_session`` submits).

    ``judges``: the scorer's judge spec; its Inspect roles are checked before the agent runs.
    ``message_limit``: a cap applied by the solver itself (for hosts whose Task sets none).
    """
    if judges is not None:
        judge_spec_items(judges)
    return redline_agent_solver(_output_dir(output_dir), judges, message_limit)


@solver
def golden(output_dir: str | None = None) -> Solver:
    """Baseline: the attorney redline re-attributed to the task's author (accept-all where none): the ceiling."""
    return baseline_solver("golden", _output_dir(output_dir))


@solver
def accept_all(output_dir: str | None = None) -> Solver:
    """Baseline: accept the other side's changes, reply "Accepted." to their threads, one closing comment."""
    return baseline_solver("accept-all", _output_dir(output_dir))


@solver
def noop(output_dir: str | None = None) -> Solver:
    """Baseline: hand the contract back unchanged; fails the validity gate by design (the floor)."""
    return baseline_solver("noop", _output_dir(output_dir))


# Every metric reads all epochs (scores="unreduced"): epochs are trials, and a trial dropped by a
# reducer would change the headline. So --epochs-reducer cannot change these numbers.
@metric(scores="unreduced")
def redline_overall() -> Metric:
    """The leaderboard number: 100 x turn-weighted mean of cell means, one decimal (SPEC §6)."""

    def compute(scores: list[SampleScore]) -> float:
        return metric_value(scores, "redline_overall")  # computed once, by scoring.summarize

    return compute


@metric(scores="unreduced")
def overall_turn_weighted() -> Metric:
    """Mean of the scenario x turn cell means (0-1)."""

    def compute(scores: list[SampleScore]) -> float:
        return metric_value(scores, "overall_turn_weighted")

    return compute


@metric(scores="unreduced")
def mean_per_task_reward() -> Metric:
    """Plain mean of scored trial rewards (for comparison; not the headline)."""

    def compute(scores: list[SampleScore]) -> float:
        return metric_value(scores, "mean_per_task_reward")

    return compute


@metric(scores="unreduced")
def grid_cells() -> Metric:
    """Scenario x turn cells scored, of the 12 of the full grid: below 12 the headline is not comparable."""

    def compute(scores: list[SampleScore]) -> float:
        row = summary_row(scores)
        return float((row or {}).get("n_cells") or 0)

    return compute


@metric(scores="unreduced")
def n_trials() -> Metric:
    """Trial grades counted (samples x epochs), so a reader sees that every epoch went in."""

    def compute(scores: list[SampleScore]) -> float:
        return float(len(grades_of(scores)))

    return compute


@metric(scores="unreduced")
def gate_failures() -> Metric:
    """Trials whose document failed the validity gate (each a 0 row, always counted)."""

    def compute(scores: list[SampleScore]) -> float:
        return float(sum(1 for g in grades_of(scores) if g.get("status") == "gate_failed"))

    return compute


@metric(scores="unreduced")
def judging_incomplete() -> Metric:
    """Trials whose judging did not finish: listed, never averaged in as a 0."""

    def compute(scores: list[SampleScore]) -> float:
        return float(sum(1 for g in grades_of(scores) if g.get("status") in ("judging_incomplete", "errored")))

    return compute


@scorer(metrics=[redline_overall(), overall_turn_weighted(), mean_per_task_reward(), grid_cells(), n_trials(),
                 gate_failures(), judging_incomplete()])
def redline_scorer(judges: str = DEFAULT_JUDGES):
    """Gate, judge panel (Inspect model roles by default) and reward, as grade.json records."""
    return redline_score_fn(judges)


def grid_record(chosen: list[Any]) -> dict[str, Any]:
    """The scenario x turn cells the selected tasks cover, with the caveat ``redlinebench run`` prints."""
    return _grid_of_cells({(int(t.scenario_id), int(t.turn)) for t in chosen})


def _grid_of_cells(present: set[tuple[int, int]]) -> dict[str, Any]:
    from redlinebench.scoring import FULL_GRID

    cells = sorted(present)
    missing = [f"{s}-{t}" for s, t in FULL_GRID if (s, t) not in cells]
    record: dict[str, Any] = {"cells": len(cells), "of": len(FULL_GRID), "complete": not missing,
                              "missing": missing}
    if missing:
        record["note"] = (f"{len(cells)} of {len(FULL_GRID)} scenario x turn cells selected (missing "
                          f"{', '.join(missing)}): redline_overall is the mean of the cells present and is "
                          "not comparable to a full-grid score")
    return record


class GridDataset(MemoryDataset):
    """The task's samples, re-recording the grid whenever Inspect selects from them.

    ``inspect eval --limit N`` / ``--sample-id`` slice the dataset after the task is built, just
    while the log header is made. The task's ``metadata["grid"]`` record is updated in place at that
    point, so the log (and the console warning) describe the samples that actually run, not the ones
    the task offered.
    """

    def __init__(self, samples: list[Sample], *, metadata: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(samples, **kwargs)
        self._task_metadata = metadata

    def _selected(self, dataset: Any, how: str) -> Any:
        grid = _grid_of_cells({(int(s.metadata["scenario_id"]), int(s.metadata["turn"])) for s in dataset})
        offered = len(self.samples)
        if len(dataset) < offered:
            grid["selected"] = {"samples": len(dataset), "of": offered, "by": how}
            if not grid["complete"]:
                grid["note"] += f" ({how} kept {len(dataset)} of {offered} samples)"
        current = self._task_metadata.setdefault("grid", {})
        if current != grid:
            # in place: Inspect merges the task metadata into a new dict for the log header before it
            # slices, so only the nested record is still the object the header will hold
            current.clear()
            current.update(grid)
            if not grid["complete"]:
                log.warning("redlinebench: %s", grid["note"])
        return dataset

    def __getitem__(self, index: Any) -> Any:
        picked = super().__getitem__(index)
        return self._selected(picked, "Inspect's --limit") if isinstance(index, slice) else picked

    def filter(self, predicate: Any, name: str | None = None) -> Any:
        return self._selected(super().filter(predicate, name), "Inspect's --sample-id")


class TaskArgumentError(ConfigError, PrerequisiteError):
    """A task argument that cannot work (``-T judges=heuristc``, ``-T scenario=7``): Inspect's CLI
    prints a PrerequisiteError as its one message and exits non-zero, as our CLI would."""

    def __init__(self, message: str) -> None:
        ConfigError.__init__(self, message)
        self.message = message


class JudgeRoleUnbound(TaskArgumentError):
    """No model bound to the judges' Inspect role."""


def check_judge_spec(judges: str) -> None:
    """A redlinebench judge spec (not role:/inspect:) built and its models routed now, while the task
    is built: a typo is one line then, not an error per sample after every agent episode."""
    items = judge_spec_items(judges)
    if any(i.startswith(("role:", "inspect:")) for i in items):
        return
    from redlinebench.judge import create_judges
    from redlinebench.runner.preflight import check_routable

    panel = create_judges(judges)
    check_routable((j.model, getattr(j, "api_base", None)) for j in panel
                   if getattr(j, "method", "llm") == "llm" and getattr(j, "model", None))


def check_roles_bound(judges: str) -> None:
    """Refuse, while Inspect builds the task, judges whose model role the eval leaves unbound.

    Inside ``inspect eval`` the roles (``--model-role``) are known before tasks are built, and
    an error raised here is one message; found later, it would be a traceback per sample.
    Outside an eval (a task built in Python, roles passed to ``eval()`` later) nothing is known
    yet and the solver checks again before the agent's first model call.
    """
    from inspect_ai.model._model import active_model  # no public accessor: None outside an eval
    from inspect_ai.model import model_roles

    if active_model() is None:
        return
    bound = model_roles()
    for item in judge_spec_items(judges):
        if item.startswith("role:") and item[5:] not in bound:
            raise JudgeRoleUnbound(unbound_role_message(item[5:], judges))


@task(name="redlinebench")
def redlinebench(
    source: str | None = None,
    task_ids: str | list[str] | None = None,
    scenario: int | str | list | None = None,
    turn: int | str | list | None = None,
    side: str | None = None,
    limit: int | None = None,
    judges: str = DEFAULT_JUDGES,
    trials: int = 1,
    message_limit: int | None = DEFAULT_MESSAGE_LIMIT,
    token_limit: int | None = None,
    time_limit: int | None = None,
    output_dir: str | None = None,
) -> Task:
    """RedlineBench: redline a contract as counsel for one side; graded by a judge panel.

    Args:
        source: Task source: a directory, "hub" (pinned revision), "embedded" (default: as `redlinebench run`).
        task_ids: Only these task ids (comma-separated or list).
        scenario: Only these scenarios (1-3).
        turn: Only these turns (1-4).
        side: Only side "A" (vendor) or "B" (customer).
        limit: At most this many tasks.
        judges: "role:grader" (models bound with --model-role grader=...), "inspect:provider/model,...",
            or a redlinebench judge spec ("panel", "heuristic", "a,b,c").
        trials: Trials per task (Inspect epochs; the metrics count every epoch whatever the reducer).
        message_limit: Cap on messages per sample.
        token_limit: Cap on tokens per sample.
        time_limit: Cap on seconds per sample.
        output_dir: Where the agents' redlined documents are written, as
            ``<output_dir>/<model>/<eval id>/<task_id>/epoch-<n>/redline.docx`` (never shared by two runs).
            Default: a new ``inspect-outputs/<random id>/`` in the redlinebench cache directory
            ($REDLINEBENCH_CACHE, else ~/.cache/redlinebench).
    """
    try:
        if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
            raise ConfigError(f"trials must be an integer >= 1, got {trials!r}")
        check_judge_spec(judges)
        check_roles_bound(judges)
        taskset, chosen = select_tasks(source, task_ids, scenario, turn, side, limit)
    except TaskArgumentError:
        raise
    except RedlineBenchError as exc:  # the CLI's one line, through Inspect's own front door
        raise TaskArgumentError(f"redlinebench: {exc}") from None
    name, location = dataset_label(taskset)
    grid = grid_record(chosen)
    if not grid["complete"]:
        log.warning("redlinebench: %s", grid["note"])
    metadata = {"benchmark": "redlinebench", "judges": judges, "grid": grid, "data": source_record(taskset, chosen)}
    return Task(
        dataset=GridDataset([sample_for(t) for t in chosen], metadata=metadata, name=name, location=location),
        solver=redline_agent(output_dir, judges),
        scorer=redline_scorer(judges),
        epochs=Epochs(trials),
        message_limit=message_limit,
        token_limit=token_limit,
        time_limit=time_limit,
        version=1,
        metadata=metadata,
    )


__all__ = [
    "DEFAULT_MESSAGE_LIMIT",
    "GridDataset",
    "JudgeRoleUnbound",
    "check_roles_bound",
    "dataset_label",
    "gate_failures",
    "judging_incomplete",
    "load_samples",
    "mean_per_task_reward",
    "overall_turn_weighted",
    "redline_agent",
    "redline_overall",
    "redline_scorer",
    "n_trials",
    "grid_cells",
    "grid_record",
    "golden",
    "accept_all",
    "noop",
    "redlinebench",
    "sample_for",
    "select_tasks",
    "source_record",
]
