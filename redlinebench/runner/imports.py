"""``import outputs``: a folder of redlines made by any tool becomes a run, graded as a run is.

It is a run whose one entrant is the ``outputs`` agent (``agent.outputs``), so nothing here writes
a trial: the runner stages and publishes each trial, the grader applies the gate, the integrity
audit and the judges, and the summary, report and ``--resume`` / ``score`` are the run's own.
(``import harbor`` is different in kind: Harbor's verifier already graded its trials, so it
copies grades; this grades.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent.outputs import OutputsScan, scan_outputs
from ..errors import ConfigError
from .api import RunResult, load_selected_tasks, run
from .paths import slug
from .spec import OUTPUTS, Entrant, RunSpec, TaskFilter, new_run_id


@dataclass
class OutputsImport:
    """What ``import_outputs`` did: the run, the files it matched, the tasks without one, the rest."""

    run: RunResult
    scan: OutputsScan
    missing: list[str] = field(default_factory=list)   # selected tasks with no file (gate failures)
    left_out: list[str] = field(default_factory=list)  # with ``partial``: selected tasks with no file, not graded

    @property
    def ignored(self) -> list[str]:
        return self.scan.ignored

    @property
    def unusable(self) -> list[str]:
        """Matched files that cannot be a Word document (imported; the gate fails them)."""
        return self.scan.unusable

    @property
    def ok(self) -> bool:
        """As :attr:`RunResult.ok`: every trial finished and graded."""
        return self.run.ok

    def problems(self) -> list[str]:
        """The run's problems, then each unusable file."""
        return [*self.run.problems(), *(f"unusable output {u}" for u in self.unusable)]


def outputs_spec(folder: str | Path, label: str, *, source: str | None = None,
                 filter: TaskFilter | None = None, judges: str = "panel", partial: bool = False,
                 concurrency: int = 4, judge_api_base: str | None = None, run_id: str | None = None,
                 taskset: Any | None = None) -> tuple[RunSpec, OutputsScan, list[str], list[str]]:
    """The RunSpec that grades ``folder`` as ``label``, with the scan behind it (no run started).

    Trials per task = the highest trial number found. Without ``partial`` every selected task is
    in the run and one without a file is a gate failure (reward 0); with it, such tasks are left
    out of the selection (the summary's grid note then says which cells are missing).
    """
    if not isinstance(label, str) or not label.strip():
        raise ConfigError("--label names the imported outputs (the model column of the leaderboard)")
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise ConfigError("the folder of outputs does not exist or is not a folder", path=folder)
    base = RunSpec(entrants=(Entrant(OUTPUTS, label.strip(), str(folder.resolve())),), source=source,
                   filter=filter or TaskFilter(), judges=judges, concurrency=concurrency,
                   judge_api_base=judge_api_base, run_id=run_id or f"import-{slug(label.strip())}-{new_run_id()}")
    _, tasks = load_selected_tasks(base, taskset)
    ids = [t.task_id for t in tasks]
    scan = scan_outputs(folder, set(ids))
    without = [i for i in ids if i not in scan.found]
    if not scan.found:
        shown = "; ".join(scan.ignored[:5]) + (f"; and {len(scan.ignored) - 5} more" if len(scan.ignored) > 5 else "")
        raise ConfigError(f"no file matches a selected task ({len(ids)} selected: {base.filter.describe()}); "
                          f"expected <task_id>.docx or <task_id>/<trial>.docx" + (f"; found: {shown}" if shown else ""),
                          path=folder)
    spec = base.replace(trials=scan.max_trial(ids))
    if partial and without:
        spec = spec.replace(filter=TaskFilter(task_ids=tuple(i for i in ids if i in scan.found)))
        return spec, scan, [], without
    return spec, scan, without, []


def import_outputs(folder: str | Path, label: str, *, run_dir: str | Path | None = None,
                   source: str | None = None, filter: TaskFilter | None = None, judges: str = "panel",
                   partial: bool = False, concurrency: int = 4, judge_api_base: str | None = None,
                   run_id: str | None = None, progress: bool = True, check_keys: bool = True,
                   taskset: Any | None = None, judge_list: list[Any] | None = None) -> OutputsImport:
    """Grade a folder of redlines (``DIR/<task_id>.docx`` or ``DIR/<task_id>/<trial>.docx``) into a
    new run directory, exactly as a run grades its agents' redlines; ``run(None, run_dir,
    resume=True)`` (``run --resume``) or ``redlinebench score`` finish what is left."""
    if run_dir is not None and run_id is None:
        run_id = slug(Path(run_dir).expanduser().resolve().name)
    spec, scan, missing, left_out = outputs_spec(folder, label, source=source, filter=filter, judges=judges,
                                                 partial=partial, concurrency=concurrency,
                                                 judge_api_base=judge_api_base, run_id=run_id, taskset=taskset)
    result = run(spec, Path(run_dir) if run_dir is not None else Path("runs") / spec.run_id, progress=progress,
                 check_keys=check_keys, taskset=taskset, judges=judge_list)
    return OutputsImport(result, scan, missing, left_out)
