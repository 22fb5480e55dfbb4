"""`redlinebench reproduce` without Docker: the preflight's one-line refusals, the export reuse, the job
resume that never pays twice, the baseline delta table. Harbor itself is stood in for by a function that
does what its oracle does (solve.sh's file, then the exported verifier); test_harbor_docker.py runs the
real Harbor in Docker through the same command.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.integrations import harbor
from redlinebench.integrations.harbor import _reproduce as rp
from redlinebench.integrations.harbor import _wheel

TASK = "redline-s1-t1-g01a"
AGENTS = ("claude-code", "codex", "oracle", "terminus-2")


@pytest.fixture(autouse=True)
def _stand_in_wheel_build(tmp_path_factory, monkeypatch):
    """Exports get one real tools-only wheel, built once per module."""
    cache = tmp_path_factory.getbasetemp() / "reproduce-wheel"
    if not cache.is_dir():
        _wheel.build_wheel(cache, tools_only=True)
    built = next(cache.glob("*.whl"))

    def build(dest: Path, **_kw) -> Path:
        dest.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copyfile(built, dest / built.name))

    monkeypatch.setattr(_wheel, "build_wheel", build)


@pytest.fixture
def fake_harbor(tmp_path) -> Path:
    """A `harbor` whose Python knows four agents (what preflight asks Harbor's own Python)."""
    bin_dir = tmp_path / "harbor-bin"
    bin_dir.mkdir()
    python = bin_dir / "python"  # answers the probe as Harbor's Python does; modal wants its token
    known = json.dumps({"agents": list(AGENTS), "envs": ["docker", "modal"], "env_problem": None})
    missing = known.replace('"env_problem": null', '"env_problem": "Modal requires authentication. Set MODAL_TOKEN_ID."')
    python.write_text(f"#!/bin/sh\nif [ \"$3\" = modal ] && [ -z \"$MODAL_TOKEN_ID\" ]; then echo '{missing}'; "
                      f"else echo '{known}'; fi\n")
    python.chmod(0o755)
    cli = bin_dir / "harbor"
    cli.write_text(f"#!{python}\necho the real harbor is not run here; exit 3\n")
    cli.chmod(0o755)
    return cli


def _no_keys(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN"))}
    return {**env, "MODAL_TOKEN_ID": "ak-test", **extra}


def _opts(tmp_path: Path, harbor_cli: Path, **kw) -> rp.ReproduceOptions:
    base = dict(agent="oracle", model="oracle", task_ids=(TASK,), source="embedded", judges="heuristic",
                env="modal", workdir=tmp_path / "work", harbor=str(harbor_cli))
    return rp.ReproduceOptions(**{**base, **kw})


class OracleHarbor:
    """Does what `harbor run -a oracle` / `harbor jobs resume` do to a job folder, counting the trials run."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.trials = 0

    def __call__(self, cmd: list[str], env: dict[str, str]) -> int:
        self.calls.append(cmd)
        if cmd[1:3] == ["jobs", "resume"]:
            job_dir = Path(cmd[cmd.index("-p") + 1])
            tasks_dir = Path(json.loads((job_dir / "config.json").read_text())["path"])
        else:
            tasks_dir = Path(cmd[cmd.index("-p") + 1])
            job_dir = Path(cmd[cmd.index("-o") + 1]) / cmd[cmd.index("--job-name") + 1]
            job_dir.mkdir(parents=True)
            model = cmd[cmd.index("-m") + 1] if "-m" in cmd else None
            (job_dir / "config.json").write_text(json.dumps({"path": str(tasks_dir), "model": model}))
        model = json.loads((job_dir / "config.json").read_text())["model"]
        for task in sorted(p for p in tasks_dir.iterdir() if (p / "task.toml").is_file()):
            if any(job_dir.glob(f"{task.name}__*/result.json")):
                continue
            trial = job_dir / f"{task.name}__{self.trials:03d}"
            out = trial / "artifacts" / "redline.docx"
            out.parent.mkdir(parents=True)
            shutil.copyfile(task / "solution" / "redline.docx", out)
            verdict = harbor.verify(task / "tests" / "task" / task.name, out, trial / "verifier",
                                    judges="heuristic")
            self.trials += 1
            (trial / "result.json").write_text(json.dumps({
                "task_name": task.name, "trial_name": trial.name, "started_at": "2026-12-01T10:00:00",
                "finished_at": "2026-12-01T10:01:00", "agent_info": {"name": "oracle"},
                "config": {"agent": {"name": "oracle", "model_name": model}},
                "agent_result": {"n_input_tokens": None, "n_output_tokens": None, "cost_usd": None},
                "verifier_result": {"rewards": {"reward": verdict.reward}}, "exception_info": None}))
        return 0


def test_each_missing_piece_is_one_line_and_exit_2_before_anything_is_built(tmp_path, fake_harbor, monkeypatch):
    work = tmp_path / "work"
    monkeypatch.setattr(os, "environ", _no_keys(PATH="/nonexistent"))
    res = CliRunner().invoke(main, ["reproduce", "--agent", "claud-code", "--model", "anthropic/claude-opus-4-8",
                                    "--task", TASK, "--source", "embedded", "--workdir", str(work)])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert lines[0].startswith("error: harbor: not found on PATH")
    assert any(ln.startswith("error: docker: not found on PATH") for ln in lines)
    assert any(ln.startswith("error: agent key: claud-code with anthropic/claude-opus-4-8 needs ANTHROPIC_API_KEY")
               for ln in lines)
    assert any(ln.startswith("error: judge keys: the judges (panel)") and "OPENAI_API_KEY" in ln for ln in lines)
    assert len(lines) == 4 and not work.exists()
    # an agent Harbor does not know, with the name it probably meant
    res = CliRunner().invoke(main, ["reproduce", "--agent", "claud-code", "--model", "anthropic/claude-opus-4-8",
                                    "--harbor", str(fake_harbor), "--env", "modal", "--judges", "heuristic",
                                    "--agent-env", "ANTHROPIC_API_KEY=sk-test", "--workdir", str(work)])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "error: --agent 'claud-code': Harbor has no such agent (did you mean 'claude-code'? known: "
        + ", ".join(AGENTS) + ")"]
    assert not work.exists()
    # an environment Harbor does not know, and Harbor's own preflight of a cloud one, each one line
    res = CliRunner().invoke(main, ["reproduce", "--agent", "oracle", "--harbor", str(fake_harbor), "--env", "modl",
                                    "--judges", "heuristic", "--workdir", str(work)])
    assert res.exit_code == 2 and res.output.strip().splitlines() == [
        "error: --env 'modl': Harbor has no such environment (did you mean 'modal'? known: docker, modal)"]
    monkeypatch.setattr(os, "environ", _no_keys(MODAL_TOKEN_ID=""))
    res = CliRunner().invoke(main, ["reproduce", "--agent", "oracle", "--harbor", str(fake_harbor), "--env", "modal",
                                    "--judges", "heuristic", "--workdir", str(work)])
    assert res.exit_code == 2 and res.output.strip().splitlines() == [
        "error: --env modal: Modal requires authentication. Set MODAL_TOKEN_ID."]
    assert not work.exists()


def test_keys_from_the_env_file_or_an_explicit_endpoint_satisfy_the_preflight(tmp_path, fake_harbor, monkeypatch):
    monkeypatch.setattr(os, "environ", _no_keys())
    opts = _opts(tmp_path, fake_harbor, agent="codex", model="openai/gpt-5.5", judges="heuristic")
    assert rp.preflight(opts) == [f"agent key: codex with openai/gpt-5.5 needs OPENAI_API_KEY (set it, put it in "
                                  "--env-file, or pass --agent-env OPENAI_API_KEY=...)"]
    env_file = tmp_path / ".env"
    env_file.write_text("# keys\nexport OPENAI_API_KEY='sk-x'\n")
    assert rp.preflight(rp.ReproduceOptions(**{**opts.__dict__, "env_file": env_file})) == []
    assert rp.preflight(rp.ReproduceOptions(**{**opts.__dict__, "agent_kwargs": ("api_base=http://127.0.0.1:9/v1",)
                                               })) == []
    env_file.write_text("not a pair\n")
    [line] = rp.preflight(rp.ReproduceOptions(**{**opts.__dict__, "env_file": env_file}))
    assert str(env_file) in line and "line 1: expected KEY=VALUE" in line


def test_reproduce_matches_the_golden_run_and_a_rerun_pays_for_nothing(tmp_path, fake_harbor, monkeypatch):
    monkeypatch.setattr(os, "environ", _no_keys())
    oracle = OracleHarbor()
    opts = _opts(tmp_path, fake_harbor)
    first = rp.reproduce(opts, run_harbor=oracle)
    assert (first.reused_export, first.harbor_ran, first.imported, oracle.trials) == (False, True, 1, 1)
    cmd = oracle.calls[0]
    assert cmd[:2] == [str(fake_harbor), "run"] and cmd[cmd.index("-a") + 1] == "oracle"
    assert [cmd[cmd.index(f) + 1] for f in ("-e", "-n", "-m")] == ["modal", "4", "oracle"]
    golden = tmp_path / "golden"
    ran = CliRunner().invoke(main, ["run", "--agent", "golden", "--judges", "heuristic", "--source", "embedded",
                                    "--tasks", TASK, "--run-dir", str(golden)], catch_exceptions=False)
    assert ran.exit_code == 0, ran.output
    ours = json.loads((golden / "metrics_summary.json").read_text())["leaderboard"][0]
    theirs = json.loads((opts.run_dir / "metrics_summary.json").read_text())["leaderboard"][0]
    assert (ours.pop("model"), theirs.pop("model")) == ("golden", "oracle")
    assert theirs == ours
    assert first.report_path is not None and first.report_path.is_file()
    # again: the export is reused, the job is complete, nothing is run or imported twice
    again = rp.reproduce(opts, run_harbor=oracle)
    assert (again.reused_export, again.harbor_ran, again.imported, oracle.trials) == (True, False, 0, 1)
    # a job that stopped half way is resumed, not started again
    shutil.rmtree(next(first.job_dir.glob(f"{TASK}__*")))
    resumed = rp.reproduce(opts, run_harbor=oracle)
    assert oracle.calls[-1] == [str(fake_harbor), "jobs", "resume", "-p", str(first.job_dir)]
    assert (resumed.reused_export, resumed.harbor_ran, oracle.trials) == (True, True, 2)


def test_a_changed_task_set_is_exported_again_and_runs_as_a_new_job(tmp_path, fake_harbor, monkeypatch):
    monkeypatch.setattr(os, "environ", _no_keys())
    oracle = OracleHarbor()
    one = rp.reproduce(_opts(tmp_path, fake_harbor), run_harbor=oracle)
    two = rp.reproduce(_opts(tmp_path, fake_harbor, task_ids=(TASK, "redline-s1-t2-g01a")), run_harbor=oracle)
    assert not two.reused_export and two.job_dir != one.job_dir and oracle.trials == 3
    exported = sorted(p.name for p in (tmp_path / "work" / "tasks").iterdir() if (p / "task.toml").is_file())
    assert exported == [TASK, "redline-s1-t2-g01a"]


def test_the_cli_prints_the_leaderboard_and_a_delta_against_either_summary_shape(tmp_path, fake_harbor,
                                                                                  monkeypatch):
    monkeypatch.setattr(os, "environ", _no_keys())
    monkeypatch.setattr(rp, "reproduce", _with_oracle(rp.reproduce))
    ours = {"leaderboard": [{"model": "oracle", "overall_turn_weighted": 0.5, "by_turn": {"1": 0.5}}]}
    public = {"model": "anthropic/claude-opus-4-8", "overall_turn_weighted": 0.43, "by_turn": {"1": 0.40}}
    for shape in (ours, public):
        path = tmp_path / "baseline.json"
        path.write_text(json.dumps(shape))
        res = CliRunner().invoke(main, ["reproduce", "--agent", "oracle", "--model", "oracle", "--task", TASK,
                                        "--source", "embedded", "--judges", "heuristic", "--env", "modal",
                                        "--harbor", str(fake_harbor), "--workdir", str(tmp_path / "w"),
                                        "--baseline", str(path)], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        assert "redline_overall (0-100)" in res.output and "metrics_summary.json" in res.output
        summary = json.loads((tmp_path / "w/results/metrics_summary.json").read_text())
        [overall] = [r for r in rp.baseline_delta(summary, shape) if r["metric"] == "overall"]
        assert overall["ours"] == summary["leaderboard"][0]["redline_overall"]
        assert overall["delta"] == round(overall["ours"] - 100 * shape.get("overall_turn_weighted", 0.5), 1)
        assert f"{overall['delta']:+.1f}" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"n_trials": 3}')
    res = CliRunner().invoke(main, ["reproduce", "--agent", "oracle", "--baseline", str(bad), "--harbor",
                                    str(fake_harbor), "--env", "modal", "--judges", "heuristic"])
    assert res.exit_code == 2 and str(bad) in res.output and "not a metrics summary" in res.output


def _with_oracle(real):
    def run(opts, **_kw):
        return real(opts, run_harbor=OracleHarbor())
    return run


def test_the_console_script_takes_the_public_release_flags(tmp_path, fake_harbor, monkeypatch):
    """`redlinebench-reproduce` is declared and parses the flags as the public guide types them."""
    import subprocess
    import tomllib

    root = Path(__file__).resolve().parents[2]
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["redlinebench-reproduce"] == "redlinebench.cli.reproduce:standalone"
    env_file = tmp_path / ".env"
    env_file.write_text("ANTHROPIC_API_KEY=sk-test\n")
    code = "import sys; from redlinebench.cli.reproduce import standalone; sys.argv[0] = 'redlinebench-reproduce'; " \
           "standalone()"
    proc = subprocess.run([sys.executable, "-c", code, "--agent", "claude-code", "--model", "anthropic/claude-opus-4-8",
                           "--n-concurrent", "8", "--task", TASK, "--env", "modal", "--env-file", str(env_file),
                           "--agent-env", "FOO=bar", "--workdir", str(tmp_path / "w"), "--out", str(tmp_path / "o"),
                           "--judges", "heuristic", "--source", "embedded", "--harbor", str(fake_harbor),
                           "--dry-run"],
                          capture_output=True, text=True, timeout=300, cwd=root,
                          env={**_no_keys(), "PYTHONPATH": str(root)})
    assert proc.returncode == 0, proc.stderr
    assert "1 task(s) would be exported" in proc.stdout
    run_line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("would run: "))
    for part in ("run -p", "-a claude-code", "-n 8", "-e modal", "-m anthropic/claude-opus-4-8", "--ae FOO=bar",
                 f"--env-file {env_file}"):
        assert part in run_line
    assert not (tmp_path / "w").exists()


@pytest.mark.slow
def test_the_oracle_on_the_whole_embedded_set_scores_as_the_golden_run(tmp_path, fake_harbor, monkeypatch):
    """Every exported task's solution through the exported verifier, imported and summarized by reproduce,
    gives the leaderboard row `run --agent golden` gives on the same 39 tasks (Docker runs two of them
    through the real Harbor in test_harbor_docker.py)."""
    monkeypatch.setattr(os, "environ", _no_keys())
    oracle = OracleHarbor()
    opts = _opts(tmp_path, fake_harbor, task_ids=(), model="golden")  # the label seeds the bootstrap CI
    result = rp.reproduce(opts, run_harbor=oracle)
    assert result.imported == oracle.trials == 39
    golden = tmp_path / "golden"
    ran = CliRunner().invoke(main, ["run", "--agent", "golden", "--judges", "heuristic", "--source", "embedded",
                                    "--run-dir", str(golden), "--no-progress"], catch_exceptions=False)
    assert ran.exit_code == 0, ran.output
    ours = json.loads((golden / "metrics_summary.json").read_text())["leaderboard"][0]
    theirs = json.loads((opts.run_dir / "metrics_summary.json").read_text())["leaderboard"][0]
    assert theirs == ours and ours["model"] == "golden" and ours["n_trials"] == 39


def test_a_workdir_whose_tasks_folder_is_not_an_export_is_refused_not_emptied(tmp_path, fake_harbor, monkeypatch):
    monkeypatch.setattr(os, "environ", _no_keys())
    mine = tmp_path / "work" / "tasks" / "notes.txt"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own file")
    with pytest.raises(rp.ConfigError, match="is not an export reproduce made"):
        rp.reproduce(_opts(tmp_path, fake_harbor), run_harbor=OracleHarbor())
    assert mine.read_text() == "my own file"
