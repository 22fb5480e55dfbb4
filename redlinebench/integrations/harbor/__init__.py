"""Harbor: export runnable Harbor tasks, verify inside the container, import Harbor job trials.

Harbor runs the agent in a container on ``/app`` (our contract and grounding); the exported task
declares a separate verifier environment (a fresh container of the same image) into which Harbor
copies the agent's ``/app/output`` artifact and the task's ``tests/`` (to ``/tests``), then runs
``tests/test.sh``, which must leave a reward in ``/logs/verifier/reward.txt``. Everything the verifier writes under
``/logs/verifier`` comes back in the job directory as ``<job>/<trial>/verifier/``.

Our wiring (the SPEC §2 tree is already Harbor's task format, so export mostly copies):

* ``tests/task/<task_id>/`` — a pristine copy of the whole task (rubrics, golden redline,
  metadata). The agent never sees ``tests/`` and may overwrite ``/app/contract.docx``, so the
  verifier reads the task from here, not from ``/app``.
* ``tests/test.sh`` runs ``redlinebench verify``: gate, judge panel and reward exactly as a
  local run, writing ``reward.txt``, ``grade.json``, the graded ``redline.docx`` and the judge's
  ``annotated_view.md`` to ``/logs/verifier``.
* ``solution/solve.sh`` copies ``solution/redline.docx`` (our golden baseline's redline) to the
  output path, so Harbor's oracle agent scores each task as ``redlinebench run --agent golden``.
* ``environment/Dockerfile`` installs this package into a venv on ``PATH`` (from a wheel copied next
  to it, or from an index by requirement string; offline from a copied wheelhouse) so both the
  agent's tools and the verifier are present, on any base image with ``python3 -m venv``.

``import_harbor`` maps ``<jobs>/<job>/<trial>/`` onto our run layout
(``trials/<model_slug>/<task_id>/<n>/``), numbering a model's trials of a task 1..k in start
order. Trials without a grade become ``errored`` rows, never silently dropped.
"""

from .._common import load_single_task
from ._export import (INTEGRITY_RULES, ExportOptions, container_instruction, container_mechanics, dockerfile, export_harbor, export_task,
                      lint_command, output_note, solution_script, task_toml, verifier_env_keys, verifier_script,
                      write_solution)
from ._keys import judge_env_keys, missing_keys
from ._import import HarborTrial, ImportReport, find_trials, import_harbor, read_trial, trial_metrics, write_summary
from ._layout import APP_DIR, OUTPUT_PATH, TESTS_DIR, VERIFIER_LOGS, HarborError
from ._verify import VerifyOutcome, verify

__all__ = [
    "APP_DIR",
    "OUTPUT_PATH",
    "TESTS_DIR",
    "VERIFIER_LOGS",
    "INTEGRITY_RULES",
    "ExportOptions",
    "HarborError",
    "HarborTrial",
    "ImportReport",
    "VerifyOutcome",
    "container_instruction",
    "container_mechanics",
    "dockerfile",
    "export_harbor",
    "export_task",
    "find_trials",
    "import_harbor",
    "judge_env_keys",
    "lint_command",
    "missing_keys",
    "load_single_task",
    "output_note",
    "read_trial",
    "solution_script",
    "task_toml",
    "trial_metrics",
    "verifier_env_keys",
    "verifier_script",
    "verify",
    "write_solution",
    "write_summary",
]
