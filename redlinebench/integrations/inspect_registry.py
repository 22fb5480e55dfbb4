"""Inspect AI entry point (``[project.entry-points.inspect_ai] redlinebench = ...``).

Inspect imports this module when it meets a ``redlinebench/...`` name; importing it registers
the task ``redlinebench/redlinebench`` with its solver, scorer, reducer and metrics.
"""

from .inspect_task import (  # noqa: F401  (registration side effects)
    gate_failures,
    judging_incomplete,
    mean_per_task_reward,
    overall_turn_weighted,
    redline_agent,
    redline_overall,
    redline_scorer,
    redline_trials,
    redlinebench,
)
