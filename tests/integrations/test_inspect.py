"""The Inspect AI task, run offline: mockllm scripts the agent's tool calls and the judges' replies.

Every mock output carries token usage, so Inspect never reaches for a tokenizer download.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from redlinebench.integrations.inspect_task import redlinebench, sample_for
from redlinebench.tasks import load_tasks
from tests.integrations.scripted import document, editing_agent, idle_agent, metric, only_score, role_panel
from tests.tasks.treefactory import build_tree

ROOT = Path(__file__).resolve().parents[2]
AUTHOR = "Reviewing Counsel (AgentCo Legal)"


@pytest.fixture
def tree(tmp_path) -> Path:
    return build_tree(tmp_path / "bench", [(1, 1, 1, "ab", True), (2, 4, 1, "a", False)])


def test_samples_come_from_our_loader(tree):
    task = load_tasks(tree).get("redline-s1-t1-g01a")
    sample = sample_for(task)
    assert sample.id == "redline-s1-t1-g01a"
    assert sample.input == task.instruction
    assert not sample.files  # no sandbox: the tools open the contract through metadata["task_root"]
    assert sample.metadata["task_root"] == str(task.root)
    assert sample.metadata["author"] == AUTHOR and sample.metadata["input_group"] == "s1-t1-g01"
    assert sample.metadata["side"] == "A" and sample.metadata["turn"] == 1


def test_the_default_output_dir_is_a_fresh_folder_in_the_cache(tree, tmp_path, monkeypatch):
    """As docs/INTEGRATIONS.md says: <REDLINEBENCH_CACHE>/inspect-outputs/<12 hex>/, new per task."""
    from redlinebench.integrations import inspect_task

    seen: list[Path] = []
    real = inspect_task.redline_agent_solver
    monkeypatch.setattr(inspect_task, "redline_agent_solver", lambda out, judges, limit=None: seen.append(out) or real(out, judges, limit))
    monkeypatch.setenv("REDLINEBENCH_CACHE", str(tmp_path / "cache"))
    redlinebench(source=str(tree), judges="heuristic")
    redlinebench(source=str(tree), judges="heuristic")
    redlinebench(source=str(tree), judges="heuristic", output_dir=str(tmp_path / "mine"))
    first, second, chosen = seen
    assert first.parent == second.parent == tmp_path / "cache" / "inspect-outputs"
    assert len(first.name) == 12 and int(first.name, 16) >= 0 and first != second
    assert chosen == tmp_path / "mine"


def test_react_agent_edits_and_the_role_panel_grades(tree, tmp_path):
    calls: list[str] = []
    out_dir = tmp_path / "outputs"
    [log] = inspect_eval(
        redlinebench(source=str(tree), scenario=1, output_dir=str(out_dir)),
        model=get_model("mockllm/agent", custom_outputs=editing_agent),
        model_roles={"grader": role_panel(calls)},
        log_dir=str(tmp_path / "logs"), display="none",
    )
    assert log.status == "success", log.error
    scores = {s.id: only_score(s) for s in log.samples}
    # a: PASS r01 (7) r02 (8), penalty r06 (3) of 27 positive -> 12/27; b: (8 + 9 - 3) / 23 = 14/23
    assert scores["redline-s1-t1-g01a"].value == pytest.approx(12 / 27, abs=1e-4)
    assert scores["redline-s1-t1-g01b"].value == pytest.approx(14 / 23, abs=1e-4)
    grade = scores["redline-s1-t1-g01a"].metadata["grades"][0]
    assert grade["status"] == "graded" and grade["gate"]["passed"] is True
    votes = {r["rubric_id"][-3:]: (r["verdict"], r.get("votes")) for r in grade["score"]["per_rubric"]}
    assert votes["r03"][0] == "FAIL" and votes["r02"][0] == "PASS" and len(votes["r02"][1]) == 3
    assert len(calls) == 6  # three judges x two tasks
    # one group, one cell: mean(12/27, 14/23) = 0.52657 -> cell 0.5266 -> 52.7
    assert metric(log, "redline_overall") == 52.7
    assert metric(log, "overall_turn_weighted") == 0.5266
    assert metric(log, "gate_failures") == 0
    from redlinebench.docx import RedlineDocument

    path = document(scores["redline-s1-t1-g01a"])
    assert path == out_dir / "mockllm_agent" / log.eval.eval_id / "redline-s1-t1-g01a" / "epoch-1" / "redline.docx"
    doc = RedlineDocument.open(path)
    mine = [r for r in doc.revisions if r.author == AUTHOR]
    assert sorted((r.type, r.text) for r in mine) == [("del", "30"), ("ins", "45")]


def test_an_agent_that_changes_nothing_fails_the_gate_without_judging(tree, tmp_path):
    calls: list[str] = []
    [log] = inspect_eval(
        redlinebench(source=str(tree), task_ids="redline-s1-t1-g01a", trials=2, output_dir=str(tmp_path / "o")),
        model=get_model("mockllm/agent", custom_outputs=idle_agent),
        model_roles={"grader": role_panel(calls)},
        log_dir=str(tmp_path / "logs"), display="none",
    )
    assert log.status == "success", log.error
    assert calls == []
    assert metric(log, "gate_failures") == 2  # both trials kept by the reducer, both 0 rows
    assert metric(log, "redline_overall") == 0.0
    grades = [g for s in log.samples for g in only_score(s).metadata["grades"]]
    assert [(g["status"], g["trial"]) for g in grades] == [("gate_failed", 1), ("gate_failed", 2)]


def test_two_models_sharing_an_output_dir_each_grade_their_own_document(tree, tmp_path):
    """One eval() over two models (and a second eval into the same output_dir) never share a
    document path: the editing model's score reads its edits, the idle model's its untouched copy."""
    out_dir = tmp_path / "outputs"
    task = redlinebench(source=str(tree), task_ids="redline-s1-t1-g01a", judges="heuristic",
                        output_dir=str(out_dir))
    models = [get_model("mockllm/editor", custom_outputs=editing_agent),
              get_model("mockllm/idle", custom_outputs=idle_agent)]
    logs = inspect_eval(task, model=models, log_dir=str(tmp_path / "logs"), display="none")
    assert [log.status for log in logs] == ["success", "success"]
    by_model = {log.eval.model: (log, only_score(log.samples[0])) for log in logs}
    editor_log, editor = by_model["mockllm/editor"]
    idle_log, idle = by_model["mockllm/idle"]
    assert document(editor) != document(idle)
    assert document(editor).is_relative_to(out_dir / "mockllm_editor" / editor_log.eval.eval_id)
    assert document(idle).is_relative_to(out_dir / "mockllm_idle" / idle_log.eval.eval_id)
    assert editor.metadata["grades"][0]["status"] == "graded"
    assert idle.metadata["grades"][0]["status"] == "gate_failed"
    from redlinebench.docx import RedlineDocument

    assert [r.author for r in RedlineDocument.open(document(editor)).revisions if r.author == AUTHOR]
    assert not [r for r in RedlineDocument.open(document(idle)).revisions if r.author == AUTHOR]
    # the same task and output_dir again: a new eval id, so the first run's document is kept
    [again] = inspect_eval(task, model=models[0], log_dir=str(tmp_path / "logs"), display="none")
    assert document(only_score(again.samples[0])) != document(editor) and document(editor).is_file()


def test_without_a_grader_role_the_sample_errors_before_the_agent_runs(tree, tmp_path):
    """The judges need the `grader` role: a missing binding is reported before the agent's first
    (paid) model call, not by the scorer after the whole episode."""
    agent_calls: list[int] = []

    def counted_agent(messages, tools, tool_choice, config):
        agent_calls.append(len(messages))
        return editing_agent(messages, tools, tool_choice, config)

    [log] = inspect_eval(
        redlinebench(source=str(tree), task_ids="redline-s1-t1-g01a", output_dir=str(tmp_path / "o")),
        model=get_model("mockllm/agent", custom_outputs=counted_agent),
        log_dir=str(tmp_path / "logs"), display="none", fail_on_error=False,
    )
    [sample] = log.samples
    assert sample.error is not None and "no model is bound to the Inspect role 'grader'" in sample.error.message
    assert "--model-role grader=PROVIDER/MODEL" in sample.error.message
    assert agent_calls == [] and not (tmp_path / "o").exists()


def test_a_malformed_judge_spec_is_refused_when_the_task_is_built(tree):
    from redlinebench.errors import ConfigError

    with pytest.raises(ConfigError, match="cannot mix 'heuristic' with role:/inspect: judges"):
        redlinebench(source=str(tree), judges="role:grader,heuristic")
    with pytest.raises(ConfigError, match="empty judge spec"):
        redlinebench(source=str(tree), judges=" , ")


def _installed(tmp_path: Path) -> dict[str, str]:
    """An environment where redlinebench looks installed (editable dist-info with our entry point)."""
    site = tmp_path / "site"
    dist = site / "redlinebench-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: redlinebench\nVersion: 0.1.0\n")
    [ep] = [line for line in (ROOT / "pyproject.toml").read_text().splitlines()
            if line.startswith('redlinebench = "redlinebench.integrations')]
    (dist / "entry_points.txt").write_text("[inspect_ai]\n" + ep.replace('"', "") + "\n")
    (dist / "direct_url.json").write_text(json.dumps({"url": ROOT.as_uri(), "dir_info": {"editable": True}}))
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}
    env["PYTHONPATH"] = f"{site}{os.pathsep}{ROOT}"
    return env


def test_the_inspect_cli_runs_the_task_with_the_stock_mock_model_offline(tree, tmp_path):
    """`inspect eval redlinebench/redlinebench --model mockllm/model` with the package installed: the
    entry point resolves the namespaced name; mockllm's default output calls
    no tool, so the message limit ends each sample and the untouched document fails the gate.
    Token estimates use the o200k_base file litellm ships (no download)."""
    from inspect_ai.log import read_eval_log

    inspect_cli = Path(sys.executable).with_name("inspect")
    logs = tmp_path / "logs"
    proc = subprocess.run(
        [str(inspect_cli), "eval", "redlinebench/redlinebench", "--model", "mockllm/model",
         "-T", f"source={tree}", "-T", "scenario=2", "-T", "judges=heuristic", "-T", "message_limit=6",
         "-T", f"output_dir={tmp_path / 'o'}", "--log-dir", str(logs), "--display", "none"],
        env=_installed(tmp_path), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    [path] = list(logs.glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.status == "success" and log.eval.task == "redlinebench/redlinebench"
    assert [s.id for s in log.samples] == ["redline-s2-t4-g01a"]
    assert log.samples[0].limit is not None and log.samples[0].limit.type == "message"
    assert metric(log, "gate_failures") == 1 and metric(log, "redline_overall") == 0.0


def test_metrics_refuse_scores_not_made_by_the_redline_scorer():
    from inspect_ai.scorer import SampleScore, Score

    from redlinebench.integrations.inspect_scorer import grades_of, metric_value

    grade = {"task_id": "redline-s1-t2-g01a", "model": "m", "trial": 1, "status": "graded", "judge_method": "llm",
             "judges": ["j"], "gate": {"passed": True}, "score": {"weighted": 0.8}}
    kept = SampleScore(score=Score(value=0.8, metadata={"grades": [grade]}), sample_id="redline-s1-t2-g01a")
    assert metric_value([kept], "overall_turn_weighted") == 0.8
    assert metric_value([kept], "overall_turn_weighted", scale=100.0, digits=1) == 80.0
    reduced = SampleScore(score=Score(value=0.8), sample_id="redline-s1-t1-g01a")
    with pytest.raises(ValueError, match="no redlinebench grade"):
        grades_of([kept, reduced])


def test_inspect_eval_on_the_embedded_set_with_a_mock_model(tmp_path):
    """The default source (the shipped synthetic benchmark): an agent that accepts nothing and
    leaves the document untouched scores 0 on every task, each a counted gate failure."""
    from redlinebench.tasks import load_tasks

    embedded = load_tasks("embedded")
    [log] = inspect_eval(
        redlinebench(source="embedded", scenario=2, judges="heuristic", output_dir=str(tmp_path / "o")),
        model=get_model("mockllm/agent", custom_outputs=idle_agent),
        log_dir=str(tmp_path / "logs"), display="none",
    )
    assert log.status == "success", log.error
    expected = [t.task_id for t in embedded if t.scenario_id == 2]
    assert sorted(s.id for s in log.samples) == sorted(expected) and len(expected) >= 4
    assert metric(log, "gate_failures") == len(expected)
    assert metric(log, "redline_overall") == 0.0


def test_a_message_limit_ends_the_loop_and_the_document_is_graded_as_it_stands(tree, tmp_path):
    from tests.integrations.scripted import looping_agent

    [log] = inspect_eval(
        redlinebench(source=str(tree), task_ids="redline-s1-t1-g01a", judges="heuristic", message_limit=8,
                     output_dir=str(tmp_path / "o")),
        model=get_model("mockllm/agent", custom_outputs=looping_agent),
        log_dir=str(tmp_path / "logs"), display="none",
    )
    assert log.status == "success", log.error
    [sample] = log.samples
    assert sample.limit is not None and sample.limit.type == "message"
    [grade] = only_score(sample).metadata["grades"]
    assert grade["status"] == "gate_failed" and grade["inspect"]["finished"] is False
    assert grade["inspect"]["tool_stats"]["calls_by_tool"]["read_document"] >= 3
    assert document(only_score(sample)).is_file()
    assert document(only_score(sample)).is_relative_to(tmp_path / "o" / "mockllm_agent" / log.eval.eval_id)


def test_redline_overall_metric_aggregates_groups_then_cells_not_a_plain_mean():
    from inspect_ai.scorer import SampleScore, Score

    from redlinebench.integrations.inspect_task import mean_per_task_reward, redline_overall

    def scored(task_id: str, *rewards: float) -> SampleScore:
        grades = [{"task_id": task_id, "model": "m", "trial": k + 1, "status": "graded", "judge_method": "llm",
                   "judges": ["j"], "gate": {"passed": True}, "score": {"weighted": r}} for k, r in enumerate(rewards)]
        return SampleScore(score=Score(value=sum(rewards) / len(rewards), metadata={"grades": grades}),
                           sample_id=task_id)

    scores = [
        scored("redline-s1-t1-g01a", 1.0, 0.5),  # group s1-t1-g01: mean(1.0, 0.5, 0.0) = 0.5
        scored("redline-s1-t1-g01b", 0.0),
        scored("redline-s1-t1-g02a", 0.0),       # group s1-t1-g02: 0.0  -> cell 1-1 = 0.25
        scored("redline-s1-t2-g01a", 1.0),       # cell 1-2 = 1.0
    ]
    # cells 0.25 and 1.0 -> 0.625 -> 62.5; a plain mean of the five trial rewards would be 0.5
    assert redline_overall()(scores) == 62.5
    assert mean_per_task_reward()(scores) == 0.5


async def test_role_judges_ask_for_json_and_drop_it_once_when_the_provider_refuses(tmp_path):
    from inspect_ai.model import ModelOutput, ModelUsage

    from redlinebench.integrations.inspect_scorer import InspectModelJudge

    task = load_tasks(build_tree(tmp_path / "bench", [(1, 1, 1, "a", True)])).get("redline-s1-t1-g01a")
    seen: list[bool] = []

    def provider(messages, tools, tool_choice, config):
        seen.append(config.response_schema is not None)
        if config.response_schema is not None:
            raise RuntimeError("400: response_format is not supported by this model")
        ids = sorted({r.id for r in task.rubrics})
        out = ModelOutput.from_content(model="mockllm", content=json.dumps(
            {"verdicts": [{"rubric_id": i, "verdict": "PASS", "justification": "x"} for i in ids]}))
        out.usage = ModelUsage(input_tokens=5, output_tokens=5, total_tokens=10)
        return out

    judge = InspectModelJudge(get_model("mockllm/strict", custom_outputs=provider), label="strict")
    first = await judge.grade(task, "[p-001] text", None)
    second = await judge.grade(task, "[p-001] text", None)
    assert first.ok and second.ok and set(first.verdicts.values()) == {"PASS"}
    assert seen == [True, False, False]  # asked once with JSON mode, then never again


def test_the_log_records_which_task_set_was_used(tree, tmp_path, monkeypatch):
    """task_args.source is what the user typed (often nothing); the metadata and dataset say what it
    resolved to, so a run on the embedded synthetic fallback is told apart from the Hub dataset."""
    from redlinebench import config

    def run(source):
        [log] = inspect_eval(
            redlinebench(source=source, task_ids="redline-s1-t1-g01a" if source else None, limit=1,
                         judges="heuristic", output_dir=str(tmp_path / "o")),
            model=get_model("mockllm/agent", custom_outputs=idle_agent),
            log_dir=str(tmp_path / "logs"), display="none",
        )
        assert log.status == "success", log.error
        return log

    explicit = run(str(tree))
    data = explicit.eval.metadata["data"]
    expected = load_tasks(tree)
    assert (data["kind"], data["path"], data["revision"]) == ("path", str(tree.resolve()), None)
    assert data["fingerprint"] == expected.fingerprint() and data["n_tasks_in_source"] == len(expected)
    assert (explicit.eval.dataset.name, explicit.eval.dataset.location) == ("redlinebench-path", str(tree.resolve()))
    # no source at all, the Hub unavailable (offline here): the embedded set, and the log says so
    monkeypatch.chdir(tmp_path)
    fallback = run(None)
    assert fallback.eval.task_args.get("source") is None
    data = fallback.eval.metadata["data"]
    embedded = load_tasks("embedded")
    assert data["kind"] == "embedded" and data["fingerprint"] == embedded.fingerprint()
    assert data["path"] == str(config.embedded_benchmark_dir().resolve()) and data["reason"] == "no local tree and no Hub snapshot"
    assert fallback.eval.dataset.name == "redlinebench-embedded"


def test_a_hub_source_is_labelled_with_the_dataset_id_and_revision(tree):
    from redlinebench import config
    from redlinebench.integrations.inspect_task import dataset_label
    from redlinebench.tasks import Source, TaskSet

    hub = Source(kind="hub", path=tree, reason="pinned Hub snapshot", revision=config.HUB_DATASET_REVISION)
    label = dataset_label(TaskSet(list(load_tasks(tree)), hub))
    assert label == ("redlinebench", f"hf://datasets/{config.HUB_DATASET_ID}@{config.HUB_DATASET_REVISION}")


# ----------------------------------------------------------------------------- front door: the inspect CLI
TASK_FILE = ROOT / "redlinebench" / "integrations" / "inspect_task.py"


def _inspect_cli(args: list[str], tmp_path: Path) -> object:
    """Run ``inspect eval`` in a subprocess (the user's command) and read back its one log."""
    from inspect_ai.log import read_eval_log

    logs = tmp_path / "logs"
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("inspect")), "eval", *args, "--model", "mockllm/model",
         "--log-dir", str(logs), "--display", "plain", "-T", f"output_dir={tmp_path / 'o'}"],
        env={**_installed(tmp_path), "COLUMNS": "400"}, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    [path] = list(logs.glob("*.eval"))
    return read_eval_log(str(path)), proc.stdout + proc.stderr


def _run_summary(tmp_path: Path, agent: str, *args: str) -> dict:
    """``redlinebench run --agent AGENT --judges heuristic ...``: the leaderboard row Inspect must match."""
    from click.testing import CliRunner

    from redlinebench.cli import main

    run_dir = tmp_path / f"run-{agent}"
    res = CliRunner().invoke(main, ["run", "--agent", agent, "--judges", "heuristic", "--run-dir", str(run_dir),
                                    *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads((run_dir / "metrics_summary.json").read_text())["leaderboard"][0]


def test_the_task_file_runs_by_path_and_golden_scores_what_redlinebench_run_scores(tree, tmp_path):
    """`inspect eval .../inspect_task.py@redlinebench --solver golden --epochs 2 --epochs-reducer mean`:
    the file loads by path (absolute imports), the baseline solver is registered, every epoch is a
    counted trial, and the headline equals `redlinebench run --agent golden` with the same judges."""
    log, _ = _inspect_cli([f"{TASK_FILE}@redlinebench", "--solver", "golden", "-T", f"source={tree}",
                           "-T", "judges=heuristic", "--epochs", "2", "--epochs-reducer", "mean"], tmp_path)
    assert log.status == "success"
    row = _run_summary(tmp_path, "golden", "--source", str(tree), "--trials", "2")
    assert metric(log, "n_trials") == row["n_trials"] == 6  # 3 tasks x 2 epochs, none reduced away
    assert metric(log, "redline_overall") == row["redline_overall"] > 0
    assert metric(log, "mean_per_task_reward") == pytest.approx(row["mean_per_task_reward"])
    answer = log.samples[0].scores["redline_scorer"].answer
    assert answer.startswith("redline by ") and "tracked change" in answer and str(tmp_path) not in answer


@pytest.mark.parametrize("solver, agent", [("redlinebench/accept_all", "accept-all"), ("redlinebench/noop", "noop")])
def test_the_registered_baseline_solvers_score_as_the_local_baselines(tree, tmp_path, solver, agent):
    log, _ = _inspect_cli(["redlinebench/redlinebench", "--solver", solver, "-T", f"source={tree}",
                           "-T", "judges=heuristic"], tmp_path)
    row = _run_summary(tmp_path, agent, "--source", str(tree))
    assert metric(log, "redline_overall") == row["redline_overall"]
    assert metric(log, "gate_failures") == row["n_gate_failures"]
    if agent == "noop":
        assert metric(log, "gate_failures") == 3


def test_a_foreign_epochs_reducer_cannot_drop_a_trial(tree, tmp_path):
    """Epoch 1 hands in the golden redline, epoch 2 the untouched contract: with Inspect's `max`
    reducer (which keeps epoch 1's metadata) the headline must still average both trials."""
    from inspect_ai import Epochs
    from inspect_ai.solver import solver

    from redlinebench.integrations.inspect_solver import baseline_solver

    @solver
    def golden_then_noop():
        first, second = baseline_solver("golden", tmp_path / "o"), baseline_solver("noop", tmp_path / "o")

        async def solve(state, generate):
            return await (first if state.epoch == 1 else second)(state, generate)

        return solve

    def headline(epochs):
        [log] = inspect_eval(redlinebench(source=str(tree), judges="heuristic"), solver=golden_then_noop(),
                             epochs=epochs, model=get_model("mockllm/agent", custom_outputs=idle_agent),
                             log_dir=str(tmp_path / "logs"), display="none")
        assert log.status == "success", log.error
        return log

    both = headline(Epochs(2, "max"))
    assert metric(both, "n_trials") == 6 and metric(both, "gate_failures") == 3
    golden_only = _run_summary(tmp_path, "golden", "--source", str(tree))
    assert 0 < metric(both, "redline_overall") < golden_only["redline_overall"]
    assert metric(both, "mean_per_task_reward") == pytest.approx(golden_only["mean_per_task_reward"] / 2, abs=1e-3)


def test_a_partial_grid_is_named_in_the_log_and_on_the_console(tree, tmp_path):
    log, output = _inspect_cli(["redlinebench/redlinebench", "--solver", "redlinebench/golden",
                                "-T", f"source={tree}", "-T", "judges=heuristic"], tmp_path)
    grid = log.eval.metadata["grid"]
    assert grid["cells"] == 2 and grid["of"] == 12 and not grid["complete"]
    assert "2 of 12 scenario x turn cells" in grid["note"] and "not comparable to a full-grid score" in grid["note"]
    assert metric(log, "grid_cells") == 2
    assert "not comparable to a full-grid score" in " ".join(output.split())  # Inspect's console warning
    full = redlinebench(source="embedded", judges="heuristic")
    assert full.metadata["grid"] == {"cells": 12, "of": 12, "complete": True, "missing": []}


def test_inspects_own_limit_is_recorded_as_a_partial_grid(tree, tmp_path):
    """`inspect eval ... --limit 2` slices the samples after the task is built: the log's grid and the
    console must describe the 2 samples that ran (one cell), not the 3 the task offered (two cells)."""
    log, output = _inspect_cli(["redlinebench/redlinebench", "--solver", "redlinebench/golden", "-T", f"source={tree}",
                                "-T", "judges=heuristic", "-T", "task_ids=redline-s1-t1-g01a,redline-s1-t1-g01b,"
                                "redline-s2-t4-g01a", "--limit", "2"], tmp_path)
    assert [s.id for s in log.samples] == ["redline-s1-t1-g01a", "redline-s1-t1-g01b"]
    grid = log.eval.metadata["grid"]
    assert grid["cells"] == 1 and not grid["complete"] and "2-4" in grid["missing"]
    assert grid["selected"] == {"samples": 2, "of": 3, "by": "Inspect's --limit"}
    assert "(Inspect's --limit kept 2 of 3 samples)" in " ".join(output.split())
    assert metric(log, "grid_cells") == 1


def test_inspects_sample_id_selection_is_recorded_too(tree, tmp_path):
    log, _ = _inspect_cli(["redlinebench/redlinebench", "--solver", "redlinebench/golden", "-T", f"source={tree}",
                           "-T", "judges=heuristic", "--sample-id", "redline-s2-t4-g01a"], tmp_path)
    grid = log.eval.metadata["grid"]
    assert grid["cells"] == 1 and grid["missing"][0] == "1-1"
    assert grid["selected"] == {"samples": 1, "of": 3, "by": "Inspect's --sample-id"}


def test_the_mock_model_with_default_judges_is_one_clear_error_naming_heuristic(tree, tmp_path):
    """`inspect eval redlinebench/redlinebench --model mockllm/model`: no grader role is bound. One
    message (no traceback) before any sample runs, and it names -T judges=heuristic."""
    logs = tmp_path / "logs"
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("inspect")), "eval", "redlinebench/redlinebench", "--model",
         "mockllm/model", "-T", f"source={tree}", "--log-dir", str(logs), "--display", "plain"],
        env={**_installed(tmp_path), "COLUMNS": "400"}, capture_output=True, text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "Traceback" not in output and len(output.strip().splitlines()) <= 3, output
    assert "-T judges=heuristic" in output and "--model-role grader=PROVIDER/MODEL" in output
    assert not list(logs.glob("*.eval"))  # refused before the eval started


def test_a_grader_that_answers_garbage_leaves_the_headline_not_graded_rather_than_zero(tree, tmp_path):
    """Golden documents, graded by mockllm's canned text: every trial is judging_incomplete, so the
    headline is nan (Inspect prints it so), not 0.000, and the console says why."""
    import math

    log, output = _inspect_cli(["redlinebench/redlinebench", "--solver", "redlinebench/golden", "-T", f"source={tree}",
                                "--model-role", "grader=mockllm/model"], tmp_path)
    assert metric(log, "judging_incomplete") == 3 and metric(log, "gate_failures") == 0
    assert math.isnan(metric(log, "redline_overall")) and math.isnan(metric(log, "mean_per_task_reward"))
    flat = " ".join(output.split())
    assert "no trial was graded" in flat and "redline_overall is nan, not a score" in flat
    assert "unparseable reply" in flat


def test_task_limit_takes_the_same_tasks_as_run_limit():
    """`-T limit=3` took the first three samples (all of cell 1-1); `run --limit 3` spreads them."""
    from redlinebench.integrations.inspect_task import select_tasks
    from redlinebench.runner import TaskFilter

    taskset, chosen = select_tasks(source="embedded", limit=3)
    assert len({t.scenario_id for t in chosen}) == 3
    assert [t.task_id for t in chosen] == [t.task_id for t in TaskFilter(limit=3).select(list(taskset))]


@pytest.mark.parametrize("arg, expected", [
    ("judges=heuristc", "did you mean 'heuristic'?"),
    ("scenario=7 judges=heuristic", "no task has scenario 7"),
    ("trials=0 judges=heuristic", "trials must be an integer >= 1"),
])
def test_a_bad_task_argument_is_one_line_and_a_non_zero_exit(tree, tmp_path, arg, expected):
    """`-T judges=heuristc` printed a 112-line traceback and exited 0; `-T scenario=7` 273 lines."""
    logs = tmp_path / "logs"
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("inspect")), "eval", f"{TASK_FILE}@redlinebench", "--model",
         "mockllm/model", "-T", f"source={tree}", *(x for a in arg.split() for x in ("-T", a)), "--log-dir",
         str(logs), "--display", "plain"],
        env={**_installed(tmp_path), "COLUMNS": "400"}, capture_output=True, text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in output, output
    assert len(output.strip().splitlines()) == 1 and output.strip().startswith("redlinebench: ")
    assert expected in output and not list(logs.glob("*.eval"))
