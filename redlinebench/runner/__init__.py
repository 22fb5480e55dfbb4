"""Run agents over the benchmark: RunSpec, the resumable async scheduler and the run directory."""

from .api import RunResult, arun, default_run_dir, load_selected_tasks, run
from .imports import OutputsImport, import_outputs, outputs_spec
from .paths import RunLayout, slug
from .spec import BASELINES, Entrant, RunSpec, TaskFilter

__all__ = ["BASELINES", "Entrant", "OutputsImport", "RunLayout", "RunResult", "RunSpec", "TaskFilter", "arun",
           "default_run_dir", "import_outputs", "load_selected_tasks", "outputs_spec", "run", "slug"]
