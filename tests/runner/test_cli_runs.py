"""`redlinebench runs`: past runs listed from real run folders, newest first, damaged ones in one line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from tests.runner.taskfixture import build_tree


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Two runs of golden + noop on the three-task tree, ``old`` first, then ``new``."""
    root = tmp_path_factory.mktemp("made")
    tree = build_tree(root / "tree")
    for name in ("old", "new"):
        r = CliRunner().invoke(main, ["run", "--agent", "golden", "--agent", "noop", "--judges", "heuristic",
                                      "--source", str(tree), "--run-dir", str(root / "runs" / name), "--no-progress"])
        assert r.exit_code == 0, r.output
    return root


@pytest.fixture
def runs(made, tmp_path):
    """A copy of the two runs the test may change."""
    shutil.copytree(made / "tree", tmp_path / "tree")
    return Path(shutil.copytree(made / "runs", tmp_path / "runs"))


def _listed(folder: Path) -> dict[str, dict]:
    r = CliRunner().invoke(main, ["runs", str(folder), "--json"])
    assert r.exit_code == 0, r.output
    return {row["run"]: row for row in json.loads(r.output)}


def test_runs_lists_newest_first_with_the_headline_and_how_to_open_a_report(runs):
    (runs / "notes").mkdir()                       # a foreign folder
    (runs / "notes" / "todo.txt").write_text("x")
    shutil.copytree(runs / "old", runs / "exp1" / "a")  # runs kept in a subfolder
    (runs / "torn").mkdir()                        # a damaged run
    (runs / "torn" / "config.json").write_text('{"run_id": ', encoding="utf-8")
    r = CliRunner().invoke(main, ["runs", str(runs)])
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    lines = [line for line in r.output.splitlines() if line.startswith("│ ")]
    rows = [line for line in lines if line.split("│")[1].strip()]  # a run's first line (one model a line)
    assert [row.split("│")[1].strip() for row in rows] == ["new", "old"]
    summary = json.loads((runs / "new" / "metrics_summary.json").read_text())
    best = summary["leaderboard"][0]
    headline, (lo, hi) = f"{100 * best['overall_turn_weighted']:.1f}", best["ci"]
    second = lines[lines.index(rows[0]) + 1]
    assert best["model"] == "golden" and rows[0].split("│")[2].strip() == "golden"
    assert second.split("│")[2].strip() == "noop"
    assert headline in rows[0] and f"{100 * lo:.1f}-{100 * hi:.1f}" in rows[0] and "complete" in rows[0]
    assert f"{runs / 'notes'}: unreadable: no config.json: not a run folder" in r.output
    exp1 = runs / "exp1"
    assert f"{exp1}: unreadable: a folder of 1 run(s), not a run: `redlinebench runs {exp1}` lists them" in r.output
    assert f"{runs / 'torn'}: unreadable: config.json is damaged (not JSON at line 1 column 12)" in r.output
    assert f"open a report: redlinebench report {runs / 'new'} --open" in r.output


def test_runs_json_says_status_size_and_score_of_each_run(runs):
    (runs / "notes").mkdir()
    listed = _listed(runs)
    assert list(listed) == ["new", "old", "notes"]
    new = listed["new"]
    summary = json.loads((runs / "new" / "metrics_summary.json").read_text())
    assert new["status"] == "complete" and new["n_done"] == new["n_planned"] == 6
    assert new["redline_overall"] == summary["leaderboard"][0]["redline_overall"]
    assert new["ci"] == [round(100 * x, 1) for x in summary["leaderboard"][0]["ci"]]
    assert new["models"] == ["golden", "noop"] and new["judge_method"] == "heuristic"
    assert new["path"] == str((runs / "new").resolve())
    assert listed["notes"]["status"] == "unreadable" and listed["notes"]["error"]


def test_partial_interrupted_running_and_damaged_runs_are_told_apart(runs):
    from redlinebench.runner.lock import hold, release

    # partial: a trial lost, the run graded again -> 5 of the 6 planned trials have a grade
    shutil.rmtree(runs / "old" / "trials" / "noop" / "redline-s1-t1-g01a")
    r = CliRunner().invoke(main, ["score", str(runs / "old")])
    assert r.exit_code == 0, r.output
    # interrupted: stopped before the summary was written, 5 episodes on disk
    shutil.copytree(runs / "old", runs / "cut")
    (runs / "cut" / "metrics_summary.json").unlink()
    # a summary cut in half
    shutil.copytree(runs / "new", runs / "torn")
    (runs / "torn" / "metrics_summary.json").write_text('{"n_trials": 6,', encoding="utf-8")
    lock = hold(runs / "new")  # a process is working in it
    try:
        listed = _listed(runs)
        text = CliRunner().invoke(main, ["runs", str(runs)]).output
    finally:
        release(lock)
    assert (listed["old"]["status"], listed["old"]["n_done"], listed["old"]["n_planned"]) == ("partial", 5, 6)
    assert (listed["cut"]["status"], listed["cut"]["n_done"]) == ("interrupted", 5)
    assert (listed["new"]["status"], listed["new"]["n_done"]) == ("running", 6)
    assert listed["torn"]["status"] == "unreadable" and "metrics_summary.json is damaged" in listed["torn"]["error"]
    assert "partial 5/6" in text and "interrupted 5/6" in text and "running 6/6" in text
    assert _listed(runs)["new"]["status"] == "complete"  # the lock released: finished again


def test_the_default_folder_is_runs_here_and_a_missing_one_is_one_line(runs, monkeypatch):
    monkeypatch.chdir(runs.parent)
    r = CliRunner().invoke(main, ["runs"])
    assert r.exit_code == 0, r.output
    assert "new" in r.output and "open a report: redlinebench report runs/new --open" in r.output
    monkeypatch.chdir(runs / "new" / "trials")
    r = CliRunner().invoke(main, ["runs"])
    assert r.exit_code == 1
    [line] = r.output.strip().splitlines()
    assert line.startswith("error: runs: no such folder; `redlinebench run` and `redlinebench demo` write")
    one = CliRunner().invoke(main, ["runs", str(runs / "new"), "--json"])  # a run folder itself
    assert [row["run"] for row in json.loads(one.output)] == ["new"]


def test_runs_in_an_80_column_terminal(runs):
    from tests.cli_doc.pty_term import run_in_terminal

    long = "openai/gpt-5.4-mini-2026-03-01"
    config = json.loads((runs / "new" / "config.json").read_text())
    config["models"] = [long, "noop"]
    (runs / "new" / "config.json").write_text(json.dumps(config))
    (runs / "new" / "metrics_summary.json").unlink()  # interrupted: models from config.json
    code, lines = run_in_terminal(["runs"], cwd=runs.parent)
    assert code == 0, "\n".join(lines)
    assert lines and max(len(line) for line in lines) <= 80, "\n".join(lines)
    rows = [line for line in lines if line.startswith("│ ")]
    assert rows[0].split("│")[1].strip() == "new" and "interrupted 6/6" in "".join(rows)
    flat = "".join(row.split("│")[2].strip() for row in rows)
    assert long in flat  # a long model name wraps, never vanishes
    old = next(row for row in rows if row.split("│")[1].strip() == "old")
    assert re.search(r"│ +\d+\.\d │", old), old  # the headline (its 95% CI made room for the long name)


def _run(tree: Path, run_dir: Path, *args: str) -> None:
    r = CliRunner().invoke(main, ["run", "--judges", "heuristic", "--source", str(tree), "--run-dir", str(run_dir),
                                  "--no-progress", *args])
    assert r.exit_code == 0, r.output


def test_summarize_counts_a_repeated_run_once_and_names_the_run_it_left_out(runs):
    r = CliRunner().invoke(main, ["summarize", str(runs), "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    own = json.loads((runs / "new" / "metrics_summary.json").read_text())  # what the newest run says alone
    assert summary["n_trials"] == own["n_trials"] == 6
    assert summary["redline_overall"] == own["redline_overall"]
    assert summary["warnings"] == []  # no trial counted twice
    assert summary["left_out_runs"] == [{"run_dir": str((runs / "old").resolve()), "n_trials": 6,
                                         "models": ["golden", "noop"], "replaced_by": [str((runs / "new").resolve())]}]
    note = ("left out 6 trials that a newer run repeats: old (6); the newest run of each model and task counts "
            "(--all-runs counts every run)")
    assert r.stderr.strip() == note  # --json keeps stdout for the JSON
    table = CliRunner().invoke(main, ["summarize", str(runs)])
    assert note in " ".join(table.stdout.split())
    every = json.loads(CliRunner().invoke(main, ["summarize", str(runs), "--all-runs", "--json"]).stdout)
    assert every["n_trials"] == 12 and "left_out_runs" not in every
    assert any("appear more than once" in w for w in every["warnings"])


def test_summarize_keeps_runs_that_graded_different_tasks(runs):
    tree = runs.parent / "tree"
    _run(tree, runs / "t1", "--agent", "accept-all", "--tasks", "redline-s1-t1-g01a")
    _run(tree, runs / "t23", "--agent", "accept-all", "--tasks", "redline-s1-t2-g02a,redline-s1-t4-g03a")
    r = CliRunner().invoke(main, ["summarize", str(runs / "t1"), str(runs / "t23"), "--json"])
    summary = json.loads(r.stdout)
    assert summary["n_trials"] == 3 and "left_out_runs" not in summary and r.stderr == ""
    _run(tree, runs / "again", "--agent", "accept-all", "--tasks", "redline-s1-t1-g01a")  # t1 graded again
    summary = json.loads(CliRunner().invoke(main, ["summarize", str(runs), "--json"]).stdout)
    entry = next(e for e in summary["leaderboard"] if e["model"] == "accept-all")
    assert entry["n_trials"] == 3
    assert [(x["run_dir"], x["n_trials"]) for x in summary["left_out_runs"]] == [(str((runs / "t1").resolve()), 1),
                                                                              (str((runs / "old").resolve()), 6)]


def test_the_demo_prints_its_run_folder_and_report_absolute_and_runs_lists_it(runs, monkeypatch):
    monkeypatch.chdir(runs.parent)
    shutil.rmtree(runs)
    r = CliRunner().invoke(main, ["demo", "--source", "tree", "--workers", "1", "--no-progress"])
    assert r.exit_code == 0, r.output
    [made] = list((runs.parent / "runs").iterdir())  # runs/demo-<time>, below the current folder
    full = made.resolve()
    assert f"run directory: {full}\n" in r.output
    assert f"report: {full / 'report.html'} ({(full / 'report.html').as_uri()})" in r.output
    listed = CliRunner().invoke(main, ["runs"])
    assert listed.exit_code == 0, listed.output
    assert made.name in listed.output and f"open a report: redlinebench report runs/{made.name} --open" in listed.output


def test_runs_says_what_continues_an_unfinished_run(tmp_path, fake_openai):
    from tests.fakes.openai_server import Reply

    tree = build_tree(tmp_path / "tree")
    fake_openai.enqueue(Reply.error(400, "model not found"))
    r = CliRunner().invoke(main, ["run", "--model", "openai/local-x", "--api-base", fake_openai.url,
                                  "--judges", "heuristic", "--source", str(tree), "--tasks", "redline-s1-t1-g01a",
                                  "--run-dir", str(tmp_path / "runs" / "bad"), "--no-progress"])
    assert r.exit_code == 1, r.output
    _run(tree, tmp_path / "runs" / "cut", "--agent", "noop")
    (tmp_path / "runs" / "cut" / "metrics_summary.json").unlink()
    listed = _listed(tmp_path / "runs")
    bad = listed["bad"]
    assert (bad["status"], bad["n_done"], bad["n_planned"], bad["redline_overall"], bad["n_errored"]) == (
        "failed", 0, 1, None, 1)
    assert listed["cut"]["status"] == "interrupted"
    out = CliRunner().invoke(main, ["runs", str(tmp_path / "runs")]).output
    bad, cut = tmp_path / "runs" / "bad", tmp_path / "runs" / "cut"
    assert f"bad: 1 trial(s) errored; continue with `redlinebench run --resume --run-dir {bad}`" in out
    assert f"cut: interrupted; continue with `redlinebench run --resume --run-dir {cut}`" in out


def test_runs_at_80_columns_keeps_each_model_name_whole(runs):
    """With default-length run ids, a run of several models lists one model per line, each whole
    (not `openai/gpt` over `-4o`, not `accept-all` over `, noop`)."""
    from tests.cli_doc.pty_term import run_in_terminal

    models = ["openai/gpt-4o", "accept-all", "noop"]
    for name in ("new", "old"):
        config = json.loads((runs / name / "config.json").read_text())
        config["models"] = models
        (runs / name / "config.json").write_text(json.dumps(config))
        (runs / name / "metrics_summary.json").unlink()  # models from config.json
    (runs / "new").rename(runs / "demo-20261202-110916-5c1488")
    code, lines = run_in_terminal(["runs"], cwd=runs.parent)
    assert code == 0, "\n".join(lines)
    assert max(len(line) for line in lines if line[:1] in "┏┃┡│└") <= 80, "\n".join(lines)
    cells = [line.split("│")[2].strip() for line in lines if line.startswith("│ ")]
    assert all(model in cells for model in models), "\n".join(lines)


def test_summarize_says_how_many_trials_of_each_older_run_it_left_out(runs):
    """A newer run that repeats one task of an older one replaces that task only: the note says so
    (it used to say the whole older run was left out, while the table still counted the rest)."""
    _run(runs.parent / "tree", runs / "again", "--agent", "golden", "--tasks", "redline-s1-t1-g01a")
    r = CliRunner().invoke(main, ["summarize", str(runs)])
    assert r.exit_code == 0, r.output
    note = " ".join(r.stdout.split())
    assert ("left out 7 trials that newer runs repeat: new (1), old (6); the newest run of each model and task "
            "counts") in note, note


@pytest.mark.parametrize("command", ["report", "compare", "score"])
def test_a_command_given_the_folder_of_runs_says_so_and_names_one(runs, command):
    r = CliRunner().invoke(main, [command, str(runs)])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert r.output.strip() == (f"error: {runs}: a folder of 2 run(s), not a run: `redlinebench runs {runs}` lists "
                                f"them; `redlinebench {command} {runs / 'new'}` takes one (the newest)")
    assert not (runs / ".lock").exists()


def test_an_interrupted_run_counts_its_graded_trials_as_the_progress_bar_did(runs):
    """Ctrl-C while judging (golden episodes are instant): 78 episodes on disk, 52 graded, and the
    bar said 52/78; `runs` said `interrupted 78/78`, which reads as nothing left to do."""
    cut = runs / "new"
    (cut / "metrics_summary.json").unlink()
    graded = sorted(cut.glob("trials/*/*/*/grade.json"))
    for grade in graded[:2]:
        grade.unlink()
    listed = _listed(runs)
    assert (listed["new"]["status"], listed["new"]["n_done"], listed["new"]["n_planned"]) == ("interrupted", 4, 6)


def test_runs_on_a_folder_of_non_runs_says_there_is_no_run_not_that_each_is_unreadable(tmp_path, monkeypatch):
    for name in ("src", "docs"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("mine")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["runs", "."])
    assert r.exit_code == 0 and "unreadable" not in r.output, r.output
    assert r.output.strip() == "no runs in . (its 2 folder(s) hold no run); start one with `redlinebench demo`"
