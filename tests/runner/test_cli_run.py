"""`redlinebench demo`, `run --dry-run` and `run --judges none` through the CLI on a real task tree."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from tests.runner.taskfixture import build_tree


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return build_tree(tmp_path_factory.mktemp("tree"))


def test_demo_prints_leaderboard_golden_first_and_the_report(tree, tmp_path):
    run_dir = tmp_path / "demo"
    r = CliRunner().invoke(main, ["demo", "--source", str(tree), "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 0, r.output
    rows = [line for line in r.output.splitlines() if re.match(r"^\W*(golden|accept-all|noop)\b", line)]
    assert [re.match(r"^\W*(\S+)", x).group(1) for x in rows] == ["golden", "accept-all", "noop"]
    assert f"report: {run_dir / 'report.html'}" in r.output
    assert (run_dir / "report.html").is_file()
    summary = json.loads((run_dir / "metrics_summary.json").read_text())
    assert summary["judge_method"] == "heuristic" and summary["n_trials"] == 9
    scores = {e["model"]: e["overall_turn_weighted"] for e in summary["leaderboard"]}
    assert scores["golden"] >= scores["accept-all"] >= scores["noop"] == 0.0
    noop = next(e for e in summary["leaderboard"] if e["model"] == "noop")
    assert noop["n_gate_failures"] == 3


def test_dry_run_prints_plan_and_estimate_and_runs_nothing(tree, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["run", "--model", "openai/gpt-4o-mini", "--source", str(tree), "--trials", "2",
                                  "--judges", "heuristic", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "1 entrant(s) x 3 task(s) x 2 trial(s) = 6 trials" in r.output
    assert re.search(r"total: about \$\d+\.\d{2,4}\n", r.output)
    assert "nothing was run" in r.output
    assert not (tmp_path / "runs").exists()
    r = CliRunner().invoke(main, ["run", "--model", "openai/not-a-priced-model", "--source", str(tree),
                                  "--judges", "none", "--dry-run"])
    assert r.exit_code == 0 and "unknown price" in r.output


def test_run_without_judges_writes_trials_and_a_report_but_no_grades(tree, tmp_path):
    run_dir = tmp_path / "r"
    r = CliRunner().invoke(main, ["run", "--agent", "golden", "--source", str(tree), "--judges", "none",
                                  "--run-dir", str(run_dir), "--no-progress", "--scenario", "1", "--turn", "2"])
    assert r.exit_code == 0, r.output
    trials = list((run_dir / "trials" / "golden").glob("*/*"))
    assert [t.parent.name for t in trials] == ["redline-s1-t2-g02a"]
    assert not list(run_dir.rglob("grade.json")) and not (run_dir / "metrics_summary.json").exists()
    assert (run_dir / "report.html").is_file()
    # Resuming a finished run does nothing and says so.
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 0 and "trials: 1 (1 already done)" in r.output


def test_unknown_task_and_empty_selection_are_one_line_errors(tree, tmp_path):
    r = CliRunner().invoke(main, ["run", "--agent", "noop", "--source", str(tree), "--tasks", "redline-s9-t9-g99z",
                                  "--run-dir", str(tmp_path / "x")])
    assert r.exit_code == 2 and "unknown task id(s): redline-s9-t9-g99z" in r.output
    r = CliRunner().invoke(main, ["run", "--agent", "noop", "--source", str(tree), "--scenario", "3",
                                  "--run-dir", str(tmp_path / "y")])
    assert r.exit_code == 2 and "no task matches" in r.output and "Traceback" not in r.output


def test_errored_trials_are_reported_not_dropped_and_resume_redoes_them(tree, tmp_path):
    from redlinebench.agent import create_agent
    from redlinebench.agent.base import Episode
    from redlinebench.runner import Entrant, RunSpec, run

    class Flaky:
        name, label = "accept-all", "accept-all"

        def __init__(self, fail: bool) -> None:
            self.inner, self.fail = create_agent("accept-all"), fail

        async def run(self, task, workdir, *, trial):
            if self.fail and task.task_id == "redline-s1-t2-g02a":
                return Episode("errored", "provider_error", {}, error="RateLimitError (429): slow down")
            return await self.inner.run(task, workdir, trial=trial)

    spec = RunSpec(entrants=(Entrant("accept-all"),), source=str(tree), judges="heuristic", run_id="flaky")
    first = run(spec, tmp_path / "r", progress=False, agents={"accept-all": Flaky(True)})
    assert first.progress.failures == 1
    entry = first.summary["leaderboard"][0]
    # Scored rows exclude it, and the summary lists it as incomplete with the provider's reason.
    assert entry["n_trials"] == 2 and entry["n_incomplete"] == 1
    incomplete = first.summary["incomplete"]
    assert [(i["task_id"], i["status"]) for i in incomplete] == [("redline-s1-t2-g02a", "errored")]
    assert "429" in incomplete[0]["reason"]
    assert first.summary["run"]["errors"][0]["task_id"] == "redline-s1-t2-g02a"
    assert not (tmp_path / "r" / "trials" / "accept-all" / "redline-s1-t2-g02a" / "1" / "grade.json").exists()

    second = run(None, tmp_path / "r", resume=True, progress=False, agents={"accept-all": Flaky(False)})
    assert second.progress.failures == 0 and second.progress.skipped == 2
    entry = second.summary["leaderboard"][0]
    assert entry["n_trials"] == 3 and entry["n_incomplete"] == 0 and second.summary["incomplete"] == []


@pytest.mark.slow
def test_demo_on_the_embedded_set_ranks_golden_first_offline(tmp_path):
    """The README's first command: three baselines on the shipped synthetic set, no key, no network."""
    from redlinebench.config import embedded_benchmark_dir

    assert embedded_benchmark_dir().is_dir(), "the embedded synthetic benchmark is not built"
    r = CliRunner().invoke(main, ["demo", "--run-dir", str(tmp_path / "demo"), "--no-progress"])
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "demo" / "metrics_summary.json").read_text())
    order = [e["model"] for e in summary["leaderboard"]]
    assert order == ["golden", "accept-all", "noop"]
    golden, noop = summary["leaderboard"][0], summary["leaderboard"][2]
    assert golden["n_gate_failures"] == 0 and noop["n_gate_failures"] == noop["n_trials"] > 0
    assert summary["run"]["errors"] == [] and summary["run"]["not_graded"] == []
    assert f"report: {tmp_path / 'demo' / 'report.html'}" in r.output


def test_missing_provider_keys_stop_the_run_before_anything_is_spent(tree, tmp_path):
    run_dir = tmp_path / "k"
    r = CliRunner().invoke(main, ["run", "--model", "openai/gpt-4o-mini", "--source", str(tree),
                                  "--run-dir", str(run_dir)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "openai/gpt-4o-mini needs OPENAI_API_KEY" in r.output
    assert "anthropic/claude-haiku-4-5 needs ANTHROPIC_API_KEY" in r.output  # the default panel
    assert not run_dir.exists()
    # Baselines graded offline need nothing; a finished run resumes without keys.
    r = CliRunner().invoke(main, ["run", "--agent", "noop", "--source", str(tree), "--judges", "heuristic",
                                  "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 0 and "(3 already done)" in r.output


def test_key_check_can_be_skipped_and_local_endpoints_are_not_checked(tree, tmp_path, monkeypatch):
    from redlinebench.runner.preflight import check_credentials

    check_credentials(["openai/some-local-model"], [], api_base="http://127.0.0.1:9/v1", judge_api_base=None)
    with pytest.raises(Exception, match="GOOGLE_API_KEY or GEMINI_API_KEY"):
        check_credentials(["gemini/gemini-3.1-flash-lite"], [], api_base=None, judge_api_base=None)
    monkeypatch.setenv("GEMINI_API_KEY", "g-key-123456789")
    check_credentials(["gemini/gemini-3.1-flash-lite"], [], api_base=None, judge_api_base=None)


def test_unwritable_run_directory_is_a_one_line_error(tree, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    r = CliRunner().invoke(main, ["run", "--agent", "noop", "--source", str(tree), "--judges", "none",
                                  "--run-dir", str(blocker / "run")])
    assert r.exit_code == 2 and "cannot write the run directory" in r.output and "Traceback" not in r.output


def test_a_run_whose_episodes_errored_exits_non_zero_with_a_resume_hint(tree, tmp_path, fake_openai):
    # The provider answers 400 (not retried): the episode errors, is not scored, and the exit code says so.
    from tests.fakes.openai_server import Reply

    fake_openai.enqueue(Reply.error(400, "model not found"))
    run_dir = tmp_path / "r"
    r = CliRunner().invoke(main, ["run", "--model", "openai/local-x", "--api-base", fake_openai.url,
                                  "--judges", "heuristic", "--source", str(tree), "--tasks", "redline-s1-t1-g01a",
                                  "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 1, r.output
    assert "1 trial(s) errored" in r.output and "--resume" in r.output and "Traceback" not in r.output
    assert (run_dir / "metrics_summary.json").is_file()


def test_a_model_without_a_known_price_is_not_reported_as_free(tree, tmp_path, fake_openai):
    from tests.fakes.openai_server import Reply

    fake_openai.enqueue(Reply.text("Nothing to change."))  # no tool call: the episode ends
    r = CliRunner().invoke(main, ["run", "--model", "openai/local-x", "--api-base", fake_openai.url,
                                  "--judges", "none", "--source", str(tree), "--tasks", "redline-s1-t1-g01a",
                                  "--run-dir", str(tmp_path / "r"), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "1 episode(s) whose model has no known price" in r.output
