"""``push results`` / ``push dataset`` against the loopback fake Hub (real huggingface_hub HTTP)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from redlinebench import config
from redlinebench.cli import main
from redlinebench.errors import HubError
from redlinebench.integrations import hub

TOKEN = "hf_TESTtokenNEVERprinted123"
JUDGES = ["anthropic/claude-haiku-4-5", "gemini/gemini-3.1-flash-lite", "openai/gpt-5.4-mini"]


def _row(model: str = "openai/gpt-5.5", otw: float = 0.4237, **over) -> dict:
    row = {
        "model": model, "overall_turn_weighted": otw, "redline_overall": None if otw is None else round(100 * otw, 1),
        "best_at_k_turn_weighted": otw, "ci": [0.38, 0.47], "n_trials": 280, "n_tasks": 140,
        "n_input_groups": 60, "n_gate_failures": 3, "grid_complete": True, "missing_cells": [],
        "n_incomplete": 0, "judge_method": "panel",
    }
    row.update(over)
    return row


def _run_dir(tmp_path: Path, rows: list[dict], *, method: str = "panel", judges=JUDGES, statuses=("graded",),
             run_config: dict | None = None) -> Path:
    run = tmp_path / "run"
    for row in rows:
        for i, status in enumerate(statuses):
            d = run / "trials" / row["model"].replace("/", "_") / f"redline-s1-t1-g0{i + 1}a" / "1"
            d.mkdir(parents=True)
            (d / "grade.json").write_text(json.dumps({
                "task_id": f"redline-s1-t1-g0{i + 1}a", "model": row["model"], "trial": 1, "status": status,
                "judge_method": method, "judges": list(judges), "gate": {"passed": True}, "score": {"weighted": 0.5},
            }))
    summary = {"n_trials": sum(r["n_trials"] for r in rows), "n_models": len(rows), "models": [r["model"] for r in rows],
               "judge_method": method, "leaderboard": rows, "n_incomplete": 0, "incomplete": []}
    (run / "metrics_summary.json").write_text(json.dumps(summary))
    (run / "config.json").write_text(json.dumps(run_config or _runner_config(rows)))
    return run


def _runner_config(rows: list[dict], **data) -> dict:
    """config.json as redlinebench.runner writes it."""
    return {
        "schema_version": 1, "created": "2026-11-20T10:00:00Z",
        "spec": {"entrants": [{"agent": "llm", "model": r["model"], "label": r["model"]} for r in rows],
                 "filter": {"task_ids": [], "scenario": None, "turn": None, "side": None},
                 "trials": 2, "judges": "panel", "limits": {"max_steps": 40}},
        "judges": {"spec": "panel", "names": JUDGES},
        "data": {"kind": "hub", "path": "/cache/snapshot", "revision": config.HUB_DATASET_REVISION,
                 "n_tasks_in_source": 140, "n_tasks": 140, **data},
    }


def _invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env or {}, catch_exceptions=False)


def test_dry_run_shows_the_yaml_and_contacts_nothing(tmp_path, fake_hub):
    run = _run_dir(tmp_path, [_row()])
    res = _invoke("push", "results", str(run), "--model-repo", "org/model", "--dry-run")
    assert res.exit_code == 0, res.output
    assert "dry run: nothing was sent" in res.output
    assert ".eval_results/redlinebench.yaml" in res.output
    assert "value: 42.4" in res.output
    assert f"revision: {config.HUB_DATASET_REVISION}" in res.output
    assert fake_hub.requests == []


def test_push_results_opens_a_pr_whose_yaml_reads_back(tmp_path, fake_hub):
    from huggingface_hub import parse_eval_result_entries

    fake_hub.seed("org/model", {"config.json": "{}"})
    run = _run_dir(tmp_path, [_row()])
    for metrics in run.glob("trials/*/*/*/"):  # what the llm agent writes beside each grade
        (metrics / "metrics.json").write_text(json.dumps({"prompt_version": "agent-1", "status": "completed"}))
    res = _invoke("push", "results", str(run), "--model-repo", "org/model", "--create-pr",
                  "--source-url", "https://example.org/logs", env={"HF_TOKEN": TOKEN})
    assert res.exit_code == 0, res.output
    assert TOKEN not in res.output
    rec = fake_hub.commits[-1]
    assert (rec.repo_id, rec.create_pr, rec.pr_num, rec.token) == ("org/model", True, 1, TOKEN)
    assert set(rec.files) == {".eval_results/redlinebench.yaml"}
    [entry] = parse_eval_result_entries(yaml.safe_load(rec.files[".eval_results/redlinebench.yaml"]))
    assert (entry.dataset_id, entry.task_id, entry.value) == (config.HUB_DATASET_ID, "redline_overall", 42.4)
    assert entry.dataset_revision == config.HUB_DATASET_REVISION
    assert entry.date == "2026-11-20T10:00:00Z"
    assert (entry.source_url, entry.source_name) == ("https://example.org/logs", "redlinebench")
    from redlinebench import __version__

    for needle in (f"harness: redlinebench {__version__}", "agent: redlinebench llm agent (max 40 steps)",
                   "agent prompt agent-1", "model: openai/gpt-5.5", "judge panel: " + ", ".join(JUDGES) + " (panel)",
                   "trials: 2 per task, 280 graded over 140 tasks", "95% CI 38.0-47.0"):
        assert needle in entry.notes, entry.notes
    assert "/cache/snapshot" not in rec.files[".eval_results/redlinebench.yaml"].decode()
    assert "discussions/1" in res.output


def test_existing_entries_are_kept_and_the_superseded_one_replaced(tmp_path, fake_hub):
    old = [
        {"dataset": {"id": "cais/hle", "task_id": "default"}, "value": 20.9},
        {"dataset": {"id": config.HUB_DATASET_ID, "task_id": "redline_overall",
                     "revision": config.HUB_DATASET_REVISION}, "value": 30.0},
    ]
    fake_hub.seed("org/model", {".eval_results/redlinebench.yaml": yaml.safe_dump(old)})
    run = _run_dir(tmp_path, [_row(otw=0.5)])
    res = _invoke("push", "results", str(run), "--model-repo", "org/model", env={"HF_TOKEN": TOKEN})
    assert res.exit_code == 0, res.output
    data = yaml.safe_load(fake_hub.files_at("org/model")[".eval_results/redlinebench.yaml"])
    assert [(d["dataset"]["id"], d["value"]) for d in data] == [("cais/hle", 20.9), (config.HUB_DATASET_ID, 50.0)]


def test_an_unchanged_result_makes_no_commit_and_no_pr_and_says_so(tmp_path, fake_hub):
    fake_hub.seed("org/model", {"config.json": "{}"})
    run = _run_dir(tmp_path, [_row()])
    first = _invoke("push", "results", str(run), "--model-repo", "org/model", env={"HF_TOKEN": TOKEN})
    assert first.exit_code == 0, first.output
    head = fake_hub.head("org/model")
    assert len(fake_hub.commits) == 1 and "/commit/" in first.output
    for extra in (["--create-pr"], []):
        again = _invoke("push", "results", str(run), "--model-repo", "org/model", *extra, env={"HF_TOKEN": TOKEN})
        assert again.exit_code == 0, again.output
        assert again.output.startswith(f"nothing changed: org/model already has this {hub.RESULTS_PATH}")
        assert "pushed" not in again.output and head not in again.output and "discussions" not in again.output
        assert ("no pull request" in again.output) == bool(extra)
    assert len(fake_hub.commits) == 1 and fake_hub.head("org/model") == head
    assert fake_hub.repos[("model", "org/model")].n_prs == 0
    # a different score is a change again, and the PR is opened
    changed = _run_dir(tmp_path / "later", [_row(otw=0.5)])
    res = _invoke("push", "results", str(changed), "--model-repo", "org/model", "--create-pr", env={"HF_TOKEN": TOKEN})
    assert res.exit_code == 0 and "discussions/1" in res.output
    assert len(fake_hub.commits) == 2 and fake_hub.commits[-1].create_pr


def test_a_pr_the_library_skipped_as_empty_is_reported_as_unchanged(tmp_path, fake_hub, monkeypatch):
    # the file reached main between our check and the commit: huggingface_hub skips the empty
    # commit and returns main's head without a PR; that is not a push
    run = _run_dir(tmp_path, [_row()])
    plan, _ = hub.plan_results_push(run, model_repo="org/model", create_pr=True)
    fake_hub.seed("org/model", {hub.RESULTS_PATH: plan.files[hub.RESULTS_PATH]})
    monkeypatch.setattr(hub, "_already_there", lambda *a, **k: False)
    outcome = hub.execute(plan, token=TOKEN)
    assert (outcome.changed, outcome.commit_url, outcome.pr_url) == (False, None, None)
    assert fake_hub.commits == []


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"method": "heuristic", "judges": ["heuristic"]}, "heuristic judge"),
        ({"statuses": ("graded", "judging_incomplete")}, "incomplete judging"),
        ({"rows": [_row(grid_complete=False, missing_cells=["3-4"])]}, "cells missing: 3-4"),
        ({"rows": [_row(n_tasks=12)]}, "12 of the 140 tasks"),
        ({"run_config": _runner_config([_row()], n_tasks=20)}, "covers 20 of the 140 tasks"),
        ({"run_config": {**_runner_config([_row()]), "spec": {"filter": {"scenario": [1]}}}}, "task filter or limit"),
    ],
)
def test_misleading_results_are_refused_unless_forced(tmp_path, fake_hub, kwargs, needle):
    rows = kwargs.pop("rows", [_row()])
    run = _run_dir(tmp_path, rows, **kwargs)
    fake_hub.seed("org/model", {"config.json": "{}"})
    res = _invoke("push", "results", str(run), "--model-repo", "org/model", env={"HF_TOKEN": TOKEN})
    assert res.exit_code != 0
    assert needle in res.output and "--force" in res.output and "Traceback" not in res.output
    assert fake_hub.commits == []
    forced = _invoke("push", "results", str(run), "--model-repo", "org/model", "--force", env={"HF_TOKEN": TOKEN})
    assert forced.exit_code == 0, forced.output
    assert needle in forced.output  # the warning is still shown
    assert len(fake_hub.commits) == 1


def _embedded_fingerprint() -> str:
    from redlinebench.tasks import fingerprint_dirs, task_dirs

    return fingerprint_dirs(task_dirs(config.embedded_benchmark_dir() / "tasks"))


def _synthetic_case(case: str, tmp: Path) -> tuple[dict, str]:
    """(the run's recorded ``data``, the reason ``push results`` must give) for each way to recognise it."""
    embedded = config.embedded_benchmark_dir()
    if case == "recorded-path":  # older `demo` runs recorded the shipped set as a plain path
        return {"kind": "path", "path": str(embedded)}, f"the embedded synthetic set (at {embedded})"
    if case == "fingerprint":  # the same tasks copied elsewhere, or the run moved to another machine
        fp = _embedded_fingerprint()
        return ({"kind": "path", "path": "/elsewhere/bench", "fingerprint": fp},
                f"the embedded synthetic set (same fingerprint {fp[:12]})")
    # a tree built with `redlinebench data build-synthetic --out DIR`
    return {"kind": "local", "path": str(tmp / "synth")}, "a synthetic task set ("


@pytest.mark.parametrize("case", ["recorded-path", "fingerprint", "benchmark-json"])
def test_the_synthetic_set_under_a_path_is_refused_and_forced_claims_no_hub_revision(tmp_path, case):
    (tmp_path / "synth").mkdir()
    (tmp_path / "synth" / "benchmark.json").write_text(json.dumps({"name": "redlinebench-synthetic"}))
    data, needle = _synthetic_case(case, tmp_path)
    run = _run_dir(tmp_path, [_row()], run_config=_runner_config([_row()], revision=None, **data))
    for force in (False, True):  # a forced result (and its dry run) named the Hub dataset it was not measured on
        with pytest.raises(HubError, match="even with --force") as err:
            hub.plan_results_push(run, model_repo="org/m", force=force)
        assert needle in str(err.value) and f"not {config.HUB_DATASET_ID}" in str(err.value)
        assert "--dataset-repo ORG/NAME" in str(err.value)
    # another dataset id is the caller's own claim: the synthetic set may be published under it
    plan, problems = hub.plan_results_push(run, model_repo="org/m", dataset_id="org/synthetic")
    assert problems == []
    from huggingface_hub import parse_eval_result_entries

    [entry] = parse_eval_result_entries(yaml.safe_load(plan.files[hub.RESULTS_PATH]))
    assert entry.dataset_id == "org/synthetic" and entry.dataset_revision is None
    assert f"tasks: {needle.split(' (')[0]}" in entry.notes and "not a Hub revision" in entry.notes


def test_a_dry_run_of_an_embedded_heuristic_run_names_no_hub_dataset(tmp_path):
    run = _run_dir(tmp_path, [_row()], method="heuristic", judges=["heuristic"],
                   run_config=_runner_config([_row()], kind="embedded"))
    res = _invoke("push", "results", str(run), "--model-repo", "org/model", "--dry-run", "--force")
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert f"dataset: {config.HUB_DATASET_ID}" not in res.output and "--dataset-repo ORG/NAME" in res.output


def test_only_a_hub_source_puts_a_revision_in_the_yaml(tmp_path):
    from huggingface_hub import parse_eval_result_entries

    def revision_of(**data) -> tuple[str | None, str]:
        run = _run_dir(tmp_path / str(len(list(tmp_path.iterdir()))), [_row()],
                       run_config=_runner_config([_row()], **data))
        plan, _ = hub.plan_results_push(run, model_repo="org/m", force=True)
        [entry] = parse_eval_result_entries(yaml.safe_load(plan.files[hub.RESULTS_PATH]))
        return entry.dataset_revision, entry.notes

    assert revision_of()[0] == config.HUB_DATASET_REVISION
    assert revision_of(revision="abc1234")[0] == "abc1234"  # the Hub revision the run actually used
    local, notes = revision_of(kind="local", path="/home/me/bench", revision=None, fingerprint="f" * 40)
    assert local is None and "tasks: a local task tree, fingerprint ffffffffffff, not a Hub revision" in notes
    assert "/home/me" not in notes
    assert revision_of(kind="path", path="/x", revision=None)[0] is None


def test_no_token_is_a_one_line_error(tmp_path, fake_hub):
    run = _run_dir(tmp_path, [_row()])
    res = _invoke("push", "results", str(run), "--model-repo", "org/model")
    assert res.exit_code == 1
    assert res.output.strip().splitlines() == [
        "error: no Hugging Face token: set HF_TOKEN or run `hf auth login` (or use --dry-run)"]


def test_several_models_need_a_choice(tmp_path):
    run = _run_dir(tmp_path, [_row("a/one", 0.3), _row("b/two", 0.2)])
    with pytest.raises(HubError, match="holds 2 models"):
        hub.plan_results_push(run, model_repo="org/m")
    plan, problems = hub.plan_results_push(run / "metrics_summary.json", model_repo="org/m", model="b/two")
    assert problems == []
    assert b"value: 20.0" in plan.files[hub.RESULTS_PATH]


def test_a_summary_without_a_score_or_with_bad_json_is_a_clear_error(tmp_path):
    run = _run_dir(tmp_path, [_row(otw=None)])
    with pytest.raises(HubError, match="no overall_turn_weighted"):
        hub.plan_results_push(run, model_repo="org/m")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(HubError, match=r"bad\.json: metrics summary is not valid JSON"):
        hub.load_results(bad)
    with pytest.raises(HubError, match="expected ORG/NAME"):
        hub.plan_results_push(run, model_repo="no-namespace")


def _export(tmp_path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "export"
    (out / "data").mkdir(parents=True)
    pq.write_table(pa.table({"task_id": ["redline-s1-t1-g01a"]}), out / "data" / "test-00000-of-00001.parquet")
    (out / "README.md").write_text("---\nlicense: cc-by-4.0\npretty_name: RedlineBench\n---\n# RedlineBench\n")
    (out / "eval.yaml").write_text(yaml.safe_dump({
        "name": "RedlineBench", "description": "d", "evaluation_framework": "redline-bench",
        "tasks": [{"id": "redline_overall", "config": "tasks", "split": "test"}]}))
    task = out / "tasks" / "redline-s1-t1-g01a"
    (task / "environment" / "app").mkdir(parents=True)
    (task / "environment" / "app" / "contract.docx").write_bytes(b"PK\x03\x04binary\x00\xff")
    (task / "task.toml").write_text("[metadata]\n")
    (out / ".cache").mkdir()
    (out / ".cache" / "junk").write_text("x")
    return out


def test_push_dataset_uploads_the_whole_export_in_one_commit(tmp_path, fake_hub):
    out = _export(tmp_path)
    res = _invoke("push", "dataset", "--repo", "org/RedlineBench", "--from", str(out), env={"HF_TOKEN": TOKEN})
    assert res.exit_code == 0, res.output
    assert "pushed 5 files" in res.output
    files = fake_hub.files_at("org/RedlineBench", repo_type="dataset")
    assert files["tasks/redline-s1-t1-g01a/environment/app/contract.docx"] == b"PK\x03\x04binary\x00\xff"
    assert yaml.safe_load(files["eval.yaml"])["evaluation_framework"] == "redline-bench"
    assert not any(p.startswith(".cache") for p in files)
    assert fake_hub.commits[-1].message == "Upload RedlineBench dataset (1 tasks)"


def test_pushing_the_same_dataset_again_makes_no_commit(tmp_path, fake_hub):
    out = _export(tmp_path)
    first = _invoke("push", "dataset", "--repo", "org/RB", "--from", str(out), env={"HF_TOKEN": TOKEN})
    assert first.exit_code == 0, first.output
    again = _invoke("push", "dataset", "--repo", "org/RB", "--from", str(out), "--create-pr", env={"HF_TOKEN": TOKEN})
    assert again.exit_code == 0, again.output
    assert again.output.startswith("nothing changed: dataset org/RB already has these 5 files")
    assert len(fake_hub.commits) == 1 and fake_hub.repos[("dataset", "org/RB")].n_prs == 0


def test_push_dataset_dry_run_and_bad_exports(tmp_path, fake_hub):
    out = _export(tmp_path)
    res = _invoke("push", "dataset", "--repo", "org/RB", "--from", str(out), "--dry-run")
    assert res.exit_code == 0 and "eval.yaml" in res.output and fake_hub.requests == []
    (out / "eval.yaml").write_text(yaml.safe_dump({"tasks": [{"id": "other"}]}))
    res = _invoke("push", "dataset", "--repo", "org/RB", "--from", str(out))
    assert res.exit_code == 1 and "must list a task with id 'redline_overall'" in res.output
    (out / "eval.yaml").unlink()
    res = _invoke("push", "dataset", "--repo", "org/RB", "--from", str(out))
    assert "missing eval.yaml" in res.output


def test_an_export_without_its_tree_says_how_to_export_it(tmp_path, fake_hub):
    import shutil

    out = _export(tmp_path)
    shutil.rmtree(out / "tasks")  # what `dataset export` without --include-tree writes
    res = _invoke("push", "dataset", "--repo", "org/RB", "--from", str(out))
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert "has no tasks/ tree" in res.output and "dataset export --include-tree" in res.output
    assert fake_hub.requests == []


def test_a_real_run_with_an_llm_panel_is_published_and_a_heuristic_one_refused(tmp_path, fake_hub, fake_openai,
                                                                            monkeypatch):
    """redlinebench run (golden agent; judges through litellm to the fake server) -> push -> YAML read back."""
    import re

    from huggingface_hub import parse_eval_result_entries

    from tests.fakes.openai_server import Reply
    from tests.tasks.treefactory import build_tree

    def verdicts(body: dict) -> Reply:
        text = "\n".join(str(m.get("content")) for m in body["messages"])
        ids = sorted(set(re.findall(r"redline-s\d+-t\d+-g\d+[a-z]-r\d\d", text)))
        # every positive rubric PASS, the penalty rubric (r06) FAIL
        return Reply.json({"verdicts": [{"rubric_id": i, "verdict": "FAIL" if i.endswith("r06") else "PASS",
                                         "justification": "ok"} for i in ids]})

    fake_openai.set_handler(verdicts)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    tree = build_tree(tmp_path / "bench")  # all 12 scenario x turn cells
    run = tmp_path / "run"
    res = _invoke("run", "--agent", "golden", "--source", str(tree), "--run-dir", str(run),
                  "--judges", "openai/j1,openai/j2,openai/j3", "--judge-api-base", fake_openai.url, "-j", "6")
    assert res.exit_code == 0, res.output
    summary = json.loads((run / "metrics_summary.json").read_text())
    [row] = summary["leaderboard"]
    assert row["grid_complete"] is True and row["n_incomplete"] == 0
    # the fixture's goldens keep the prior turn's insertion pending (tests/tasks/treefactory): nothing is flagged
    assert row["n_integrity_failures"] == 0 and row["n_integrity_flags"] == 0
    missing = _invoke("push", "results", str(run), "--model-repo", "org/golden", "--dataset-repo", "org/synthetic",
                      env={"HF_TOKEN": TOKEN})
    assert missing.exit_code == 1 and "(repository or revision not found)" in missing.output
    fake_hub.seed("org/golden", {"README.md": "# golden baseline"})
    pushed = _invoke("push", "results", str(run), "--model-repo", "org/golden", "--dataset-repo", "org/synthetic",
                     "--revision", "abc123", env={"HF_TOKEN": TOKEN})
    assert pushed.exit_code == 0, pushed.output
    [entry] = parse_eval_result_entries(yaml.safe_load(fake_hub.files_at("org/golden")[hub.RESULTS_PATH]))
    assert entry.value == row["redline_overall"] == round(100 * row["overall_turn_weighted"], 1)
    assert (entry.dataset_id, entry.dataset_revision) == ("org/synthetic", "abc123")
    assert "openai/j1, openai/j2, openai/j3 (llm)" in entry.notes and "agent: golden baseline (attorney redline, no model);" in entry.notes
    from redlinebench import __version__
    from redlinebench.judge._prompt import PROMPT_VERSION as JUDGE_PROMPT

    text = fake_hub.files_at("org/golden")[hub.RESULTS_PATH]
    text = text.decode() if isinstance(text, bytes) else text
    for needle in (f"harness: redlinebench {__version__}", "agent prompt: none recorded", f"judge prompt {JUDGE_PROMPT}",
                   "trials: 1 per task"):
        assert needle in entry.notes, entry.notes
    assert str(tmp_path) not in text and "/tmp/" not in text  # no local path in a shared file (issue 18)
    # the same run claimed for the real dataset: a partial task set, refused
    refused = _invoke("push", "results", str(run), "--model-repo", "org/golden", env={"HF_TOKEN": TOKEN})
    assert refused.exit_code == 1 and f"of the 140 tasks of {config.HUB_DATASET_ID}" in refused.output

    heuristic = tmp_path / "run-h"
    res = _invoke("run", "--agent", "golden", "--source", str(tree), "--run-dir", str(heuristic),
                  "--judges", "heuristic", "--scenario", "1", "--turn", "1")
    assert res.exit_code == 0, res.output
    refused = _invoke("push", "results", str(heuristic), "--model-repo", "org/golden", "--dataset-repo",
                      "org/synthetic", env={"HF_TOKEN": TOKEN})
    assert refused.exit_code == 1
    assert "heuristic judge" in refused.output and "task filter or limit" in refused.output


def test_push_dataset_exports_the_source_itself_when_no_directory_is_given(tmp_path, fake_hub):
    from tests.tasks.treefactory import build_tree

    tree = build_tree(tmp_path / "bench", [(1, 1, 1, "ab", True)])
    res = _invoke("push", "dataset", "--repo", "org/RB", "--source", str(tree), "--dry-run")
    assert res.exit_code == 0, res.output
    assert "README.md" in res.output and "eval.yaml" in res.output and ".parquet" in res.output
    assert "tasks/redline-s1-t1-g01b/tests/rubrics.json" in res.output
    assert "tasks: 2" in res.output and fake_hub.requests == []
    res = _invoke("push", "dataset", "--repo", "org/RB", "--source", str(tree), "--private", env={"HF_TOKEN": TOKEN})
    assert res.exit_code == 0, res.output
    files = fake_hub.files_at("org/RB", repo_type="dataset")
    assert files["tasks/redline-s1-t1-g01a/environment/app/contract.docx"] == (
        tree / "tasks/redline-s1-t1-g01a/environment/app/contract.docx").read_bytes()
    assert fake_hub.repos[("dataset", "org/RB")].private is True
    card = files["README.md"].decode()
    assert card.startswith("---\n") and "cc-by-4.0" in card


def test_a_pushed_dataset_loads_back_through_the_task_loader_at_its_commit(tmp_path, fake_hub):
    """push dataset -> fake Hub -> `hub@<sha>` source -> snapshot_download -> the same tasks."""
    from redlinebench.tasks import load_tasks
    from tests.tasks.treefactory import build_tree

    tree = build_tree(tmp_path / "bench", [(1, 1, 1, "ab", True), (2, 4, 1, "a", False)])
    res = _invoke("push", "dataset", "--repo", config.HUB_DATASET_ID, "--source", str(tree), env={"HF_TOKEN": TOKEN})
    assert res.exit_code == 0, res.output
    sha = fake_hub.head(config.HUB_DATASET_ID, repo_type="dataset")
    loaded = load_tasks(f"hub@{sha}")
    original = load_tasks(tree)
    assert loaded.ids == original.ids == ["redline-s1-t1-g01a", "redline-s1-t1-g01b", "redline-s2-t4-g01a"]
    for task_id in original.ids:
        assert loaded.get(task_id).rubrics == original.get(task_id).rubrics
    assert loaded.source.kind == "hub" and loaded.source.revision == sha


def _with_integrity(run: Path, *findings_per_trial: list[dict]) -> None:
    """Record the integrity audit in the run's grades, one list of findings per grade (in path order)."""
    for path, findings in zip(sorted(run.glob("trials/**/grade.json")), findings_per_trial):
        grade = json.loads(path.read_text())
        fatal = [f for f in findings if f["severity"] == "fatal"]
        grade["integrity"] = {"passed": not fatal, "version": "integrity-v1", "findings": findings}
        if fatal:
            grade.update(status="gate_failed", gate={"passed": False, "reason": f"integrity: {fatal[0]['kind']}"},
                         score={"weighted": 0.0})
        path.write_text(json.dumps(grade))


def test_a_run_the_integrity_audit_flagged_is_refused_in_one_line_unless_forced(tmp_path, fake_hub):
    run = _run_dir(tmp_path, [_row()], statuses=("graded", "graded", "graded"))
    _with_integrity(run,
                    [{"kind": "untracked_change", "severity": "fatal", "paragraph_id": "p-012", "detail": "q"}],
                    [{"kind": "silent_reject", "severity": "flag", "detail": "q"},
                     {"kind": "judge_directed_text", "severity": "flag", "detail": "q"}],
                    [])
    fake_hub.seed("org/model", {"config.json": "{}"})
    res = _invoke("push", "results", str(run), "--model-repo", "org/model", env={"HF_TOKEN": TOKEN})
    assert res.exit_code != 0 and "Traceback" not in res.output
    [line] = [ln for ln in res.output.splitlines() if "integrity" in ln]
    assert "integrity audit found problems in 2 trial(s): 1 failed the gate, 1 flagged" in line
    assert "judge_directed_text x1, silent_reject x1, untracked_change x1" in line and "--force" in line
    assert fake_hub.commits == []
    forced = _invoke("push", "results", str(run), "--model-repo", "org/model", "--force", env={"HF_TOKEN": TOKEN})
    assert forced.exit_code == 0, forced.output
    assert "integrity audit found problems in 2 trial(s)" in forced.output and len(fake_hub.commits) == 1


def test_a_summary_alone_is_refused_on_its_integrity_counts(tmp_path):
    summary = tmp_path / "metrics_summary.json"
    summary.write_text(json.dumps({"judge_method": "panel", "leaderboard": [
        _row(judges=JUDGES, n_integrity_failures=0, n_integrity_flags=3)]}))
    with pytest.raises(HubError, match=r"problems in 3 trial\(s\): 0 failed the gate, 3 flagged; see"):
        hub.plan_results_push(summary, model_repo="org/model")
    plan, problems = hub.plan_results_push(summary, model_repo="org/model", force=True)
    assert any("3 flagged" in p for p in problems)


def test_a_clean_audit_is_no_problem(tmp_path):
    run = _run_dir(tmp_path, [_row()])
    _with_integrity(run, [])
    assert hub.integrity_problem(hub.load_results(run), _row()) is None


@pytest.mark.parametrize("agent, words", [
    ("golden", "golden baseline (attorney redline, no model)"),
    ("accept-all", "accept-all baseline (accepts the other side's changes, no model)"),
    ("noop", "noop baseline (contract returned unchanged, no model)"),
    ("outputs", "imported redlines (`import outputs`, no model run by redlinebench)"),
    ("llm", "redlinebench llm agent (max 40 steps)"),
])
def test_the_notes_name_a_baseline_by_what_it_hands_in_and_give_steps_only_to_a_loop(tmp_path, agent, words):
    """A model-free baseline takes no steps: "golden agent (max 40 steps)" described a loop that never ran."""
    from huggingface_hub import parse_eval_result_entries

    cfg = _runner_config([_row()])
    cfg["spec"]["entrants"][0]["agent"] = agent
    run = _run_dir(tmp_path, [_row()], run_config=cfg)
    plan, _ = hub.plan_results_push(run, model_repo="org/m", force=True)
    [entry] = parse_eval_result_entries(yaml.safe_load(plan.files[hub.RESULTS_PATH]))
    assert f"agent: {words};" in entry.notes
    assert ("steps" in entry.notes) == (agent == "llm")
