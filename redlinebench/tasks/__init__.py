"""The task model: read RedlineBench task trees (Harbor layout, SPEC §2) from any source.

>>> from redlinebench.tasks import load_tasks
>>> tasks = load_tasks()                       # explicit > $REDLINEBENCH_BENCHMARK_DIR > ./benchmark > Hub > embedded
>>> tasks.filter(scenario=1, turn=2).input_groups()
"""

from ._model import (
    CATEGORIES,
    SCENARIO_LABELS,
    SIDE_PATTERN,
    TASK_NAME_RE,
    UNCATEGORIZED,
    Problem,
    Rubric,
    Task,
    default_author,
    input_group_of,
    parse_task_name,
)
from ._parse import read_task
from ._positions import Position, positions
from ._source import Source, download_hub_snapshot, hub_snapshot_dir, is_embedded_dir, resolve_source, task_dirs
from ._taskset import TaskSet, ValidationReport, fingerprint_dirs, load_tasks, validate_tasks

__all__ = [
    "CATEGORIES",
    "SCENARIO_LABELS",
    "SIDE_PATTERN",
    "TASK_NAME_RE",
    "UNCATEGORIZED",
    "Position",
    "Problem",
    "Rubric",
    "Source",
    "Task",
    "TaskSet",
    "ValidationReport",
    "default_author",
    "download_hub_snapshot",
    "fingerprint_dirs",
    "hub_snapshot_dir",
    "input_group_of",
    "is_embedded_dir",
    "load_tasks",
    "parse_task_name",
    "positions",
    "read_task",
    "resolve_source",
    "task_dirs",
    "validate_tasks",
]
