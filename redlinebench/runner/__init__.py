"""Run agents over the benchmark: RunSpec, the resumable async scheduler and the run directory."""

from .arena import ArenaResult, aarena, arena
from .arena_spec import ArenaSpec
from .api import RunResult, arun, default_run_dir, load_selected_tasks, run
from .imports import OutputsImport, import_outputs, outputs_spec
from .paths import RunLayout, slug
from .spec import BASELINES, Entrant, RunSpec, TaskFilter

__all__ = ["ArenaResult", "ArenaSpec", "aarena", "arena", "BASELINES", "Entrant", "OutputsImport", "RunLayout", "RunResult", "RunSpec", "TaskFilter", "arun",
           "default_run_dir", "import_outputs", "load_selected_tasks", "outputs_spec", "run", "slug"]
