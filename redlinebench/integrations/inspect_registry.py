"""Inspect AI entry point (``[project.entry-points.inspect_ai] redlinebench = ...``).

Inspect imports this module when it meets a ``redlinebench/...`` name; importing it registers
the task ``redlinebench/redlinebench`` with its solvers (agent and baselines), scorer and metrics.
"""

from .inspect_task import (  # noqa: F401  (registration side effects)
    accept_all,
    gate_failures,
    golden,
    grid_cells,
    judging_incomplete,
    mean_per_task_reward,
    n_trials,
    noop,
    overall_turn_weighted,
    redline_agent,
    redline_overall,
    redline_scorer,
    redlinebench,
)
