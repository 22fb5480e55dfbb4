"""``run`` and ``score`` audit every output against its task's input (SPEC §5.1, issue 22).

An agent that writes the .docx itself changes the liability cap without tracking and adds one honest
comment: both grading paths fail the gate with an ``integrity: untracked_change`` reason, and the
summary counts it; the same comment on the untouched contract (the control) passes the gate.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from redlinebench.agent.base import REDLINE, Episode
from redlinebench.cli import main
from redlinebench.runner import Entrant, RunSpec, TaskFilter, run
from tests.manipulated import TASK_ID, assert_untracked_gate_failure, honest_output, manipulated_output


class WritesItsOwnDocx:
    """An agent with a shell: it writes the output file itself (as Harbor container agents do)."""

    name = "accept-all"
    label = "accept-all"

    def __init__(self, make) -> None:
        self.make = make

    async def run(self, task, workdir: Path, *, trial: int) -> Episode:
        (workdir / REDLINE).write_bytes(self.make(task.contract_path, task.author))
        (workdir / "transcript.jsonl").write_text('{"type": "start"}\n')
        return Episode("completed", "end_session", {"cost_usd": 0.0})


def _run(tmp_path: Path, make, judges: str = "heuristic") -> Path:
    spec = RunSpec(entrants=(Entrant("accept-all"),), source="embedded", filter=TaskFilter(task_ids=(TASK_ID,)),
                   judges=judges)
    run_dir = tmp_path / "run"
    run(spec, run_dir, progress=False, agents={"accept-all": WritesItsOwnDocx(make)})
    return run_dir


def _grade(run_dir: Path) -> dict:
    [path] = list(run_dir.glob(f"trials/*/{TASK_ID}/1/grade.json"))
    return json.loads(path.read_text())


def test_run_fails_an_untracked_change_and_counts_it(tmp_path):
    run_dir = _run(tmp_path, manipulated_output)
    assert_untracked_gate_failure(_grade(run_dir))
    [entry] = json.loads((run_dir / "metrics_summary.json").read_text())["leaderboard"]
    assert entry["n_integrity_failures"] == 1 and entry["n_gate_failures"] == 1


def test_run_passes_the_honest_control(tmp_path):
    grade = _grade(_run(tmp_path, honest_output))
    assert grade["gate"]["passed"] is True and grade["integrity"]["passed"] is True


def test_score_audits_a_run_graded_later(tmp_path):
    run_dir = _run(tmp_path, manipulated_output, judges="none")
    assert not list(run_dir.glob("trials/**/grade.json"))
    res = CliRunner().invoke(main, ["score", str(run_dir), "--judges", "heuristic"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert_untracked_gate_failure(_grade(run_dir))
    assert "integrity fail" in res.output
