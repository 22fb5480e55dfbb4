"""``import outputs``: redlines made by other tools (python-docx, LibreOffice) are graded exactly as
``verify`` grades each file; a task without a file is a "no output" gate failure; hostile files are
one failed trial; ``run --resume`` and ``score`` finish unfinished judging."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.runner import TaskFilter, import_outputs, run
from tests.runner.taskfixture import AGENTCO, build_tree

T1, T2, T4 = "redline-s1-t1-g01a", "redline-s1-t2-g02a", "redline-s1-t4-g03a"
#: what differs between two gradings of one file by design: which attempt, which label and trial
VOLATILE = {"attempt_id", "model", "trial"}


def _task(tree: Path, task_id: str):
    from redlinebench.tasks import load_tasks

    return load_tasks(tree).get(task_id)


def _golden_redline(tree: Path, task_id: str, dest: Path) -> Path:
    from redlinebench.agent import create_agent

    task = _task(tree, task_id)
    work = dest.parent / f".work-{task_id}"
    work.mkdir(parents=True)
    asyncio.run(create_agent("golden").run(task, work, trial=1))
    shutil.copyfile(work / "redline.docx", dest)
    return dest


def _python_docx_insertion(contract: Path, author: str, dest: Path) -> Path:
    """A tracked insertion written with python-docx's XML layer (no code of ours touches the file)."""
    import docx

    from tests.tasks.treefactory import append_tracked_insertion

    document = docx.Document(str(contract))
    para = next(p for p in document.paragraphs if "thirty (30)" in p.text)
    append_tracked_insertion(para, author, " Invoices are payable in fifteen (15) days.", date="2026-01-02T03:04:05Z")
    document.save(str(dest))
    return dest


def _python_docx_resave(src: Path, dest: Path) -> Path:
    import docx

    docx.Document(str(src)).save(str(dest))
    return dest


def _libreoffice_resave(soffice: str, src: Path, dest: Path) -> Path:
    out = src.parent / f".lo-{src.stem}"
    out.mkdir()
    profile = src.parent / f".lo-profile-{src.stem}"
    subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "docx",
                    "--outdir", str(out), str(src)], check=True, capture_output=True, timeout=180)
    shutil.move(str(out / src.name), dest)
    return dest


def _verify_grade(tree: Path, task_id: str, output: Path, logs: Path) -> dict:
    r = CliRunner().invoke(main, ["verify", "--task-dir", str(tree / "tasks" / task_id), "--output", str(output),
                                  "--logs", str(logs), "--judges", "heuristic"])
    assert r.exit_code == 0, r.output
    return json.loads((logs / "grade.json").read_text())


def _comparable(grade: dict) -> dict:
    return {k: v for k, v in grade.items() if k not in VOLATILE}


@pytest.fixture
def tree(tmp_path) -> Path:
    return build_tree(tmp_path / "bench")


def test_outside_tools_redlines_grade_exactly_as_verify_grades_each_file(tmp_path, tree, soffice):
    made = tmp_path / "made"
    made.mkdir()
    golden1 = _golden_redline(tree, T1, made / "golden-t1.docx")
    golden2 = _golden_redline(tree, T2, made / "golden-t2.docx")
    outputs = tmp_path / "outputs"
    (outputs / T1).mkdir(parents=True)
    files = {
        (T1, 1): _python_docx_insertion(_task(tree, T1).contract_path, AGENTCO, outputs / T1 / "1.docx"),
        (T1, 2): _libreoffice_resave(soffice, golden1, outputs / T1 / "2.docx"),
        (T2, 1): _python_docx_resave(golden2, outputs / f"{T2}.docx"),
    }
    (outputs / "notes.txt").write_text("not a redline")
    (outputs / "redline-s9-t9-g99z.docx").write_bytes(b"PK")
    done = import_outputs(outputs, "outside", run_dir=tmp_path / "run", source=str(tree), judges="heuristic",
                          progress=False)
    assert done.missing == [T4] and sorted(done.ignored) == [
        "notes.txt: not <task_id>.docx", "redline-s9-t9-g99z.docx: no task of this id is selected"]
    assert done.run.spec.trials == 2
    trials = done.run.run_dir / "trials" / "outside"
    for (task_id, k), path in files.items():
        ours = json.loads((trials / task_id / str(k) / "grade.json").read_text())
        theirs = _verify_grade(tree, task_id, path, tmp_path / "verify" / f"{task_id}-{k}")
        assert ours["status"] == "graded" and ours["gate"]["passed"], ours["gate"]
        assert _comparable(ours) == _comparable(theirs)
        assert (trials / task_id / str(k) / "redline.docx").read_bytes() == path.read_bytes()
    # what no file answered: a gate failure "no output" (reward 0), in the score; trial 2 of T2 too
    for task_id, k in ((T4, 1), (T4, 2), (T2, 2)):
        grade = json.loads((trials / task_id / str(k) / "grade.json").read_text())
        assert grade["status"] == "gate_failed" and grade["score"]["weighted"] == 0
        assert grade["gate"]["reason"] == "no output document was produced"
        assert not (trials / task_id / str(k) / "redline.docx").exists()
    summary = json.loads((done.run.run_dir / "metrics_summary.json").read_text())
    assert summary["n_trials"] == 6 and summary["run"]["not_graded"] == []
    cfg = json.loads((done.run.run_dir / "config.json").read_text())
    assert cfg["imported"] == [{"kind": "outputs", "label": "outside", "folder": "../outputs"}]
    assert "outside from ../outputs (no transcripts, no costs)" in (done.run.run_dir / "report.html").read_text()


def test_partial_grades_only_tasks_with_a_file_and_notes_the_grid(tmp_path, tree):
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    _golden_redline(tree, T1, outputs / f"{T1}.docx")
    done = import_outputs(outputs, "some", run_dir=tmp_path / "run", source=str(tree), judges="heuristic",
                          partial=True, progress=False)
    assert done.left_out == [T2, T4] and done.missing == []
    assert sorted(p.name for p in (done.run.run_dir / "trials" / "some").iterdir()) == [T1]
    entry = done.run.summary["leaderboard"][0]
    assert entry["grid_complete"] is False and entry["grid_note"]


def test_hostile_files_are_failed_trials_never_a_crash(tmp_path, tree):
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / f"{T1}.docx").write_bytes(b"PK\x03\x04" + os.urandom(200))
    (outputs / f"{T2}.docx").symlink_to(_task(tree, T2).contract_path)  # never followed
    (outputs / T4).mkdir()
    (outputs / T4 / "1.docx").mkdir()  # a folder where a file should be
    done = import_outputs(outputs, "hostile", run_dir=tmp_path / "run", source=str(tree), judges="heuristic",
                          progress=False)
    trials = done.run.run_dir / "trials" / "hostile"
    reasons = {t: json.loads((trials / t / "1" / "grade.json").read_text())["gate"]["reason"] for t in (T1, T2, T4)}
    assert reasons[T1].startswith("output does not open as a .docx")
    assert reasons[T2] == reasons[T4] == "no output document was produced"
    assert json.loads((trials / T2 / "1" / "metrics.json").read_text())["output"]["refused"] == \
        "a symbolic link (not followed)"
    assert f"{T2}.docx: a symbolic link, not followed (copy the file itself)" in done.ignored  # not counted
    assert T2 not in done.scan.found and T2 in done.missing
    assert not (trials / T2 / "1" / "redline.docx").exists()
    assert done.run.summary["gate_failures"]


def test_each_unusable_file_gets_a_line_and_links_and_folders_are_named(tmp_path, tree):
    """A non-.docx, an empty file and a zip with a '..' member scored 0 without a word; a link was
    counted as imported; a folder <task_id>.docx/ was "no task of this id is selected"."""
    import zipfile

    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / f"{T1}.docx").write_text("%PDF-1.4 not a word file")
    (outputs / f"{T2}.docx").write_bytes(b"")
    (outputs / T4).mkdir()
    with zipfile.ZipFile(outputs / T4 / "1.docx", "w") as z:
        z.writestr("../evil.xml", "<x/>")
    _golden_redline(tree, T1, tmp_path / "real.docx")
    (outputs / T4 / "2.docx").symlink_to(tmp_path / "real.docx")
    (outputs / "redline-s9-t9-g99a.docx").mkdir()
    (outputs / f"{T1}.docx.d").mkdir()
    linked = outputs / f"{T2}.docx"
    r = CliRunner().invoke(main, ["import", "outputs", str(outputs), "--label", "bad", "--source", str(tree),
                                  "--judges", "heuristic", "--run-dir", str(tmp_path / "run"), "--no-progress"])
    assert "Traceback" not in r.output, r.output
    assert "imported 3 file(s) for 3 task(s)" in r.output
    lines = r.output.splitlines()
    assert any(line.startswith(f"  unusable: {T1}.docx: not a .docx file") for line in lines), r.output
    assert f"  unusable: {linked.name}: an empty file (imported; the gate fails it: reward 0)" in lines
    assert any(line.startswith(f"  unusable: {T4}/1.docx: zip member name") and "'..'" in line for line in lines)
    assert f"  ignored: {T4}/2.docx: a symbolic link, not followed (copy the file itself)" in lines
    (outputs / f"{T2}.docx").unlink()
    (outputs / f"{T2}.docx").mkdir()
    done = import_outputs(outputs, "bad", run_dir=tmp_path / "run2", source=str(tree), judges="heuristic",
                          progress=False)
    assert f"{T2}.docx/: a folder, not a file (a task's trials go in {T2}/<trial>.docx)" in done.ignored
    assert done.ok is done.run.ok and done.ok is True and len(done.unusable) == 2
    metrics = json.loads((done.run.run_dir / "trials" / "bad" / T1 / "1" / "metrics.json").read_text())
    assert metrics["wall_s"] is None  # the copy's time is not a latency


def test_cli_import_then_resume_and_score_finish_judging(tmp_path, tree, monkeypatch):
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    _golden_redline(tree, T1, outputs / f"{T1}.docx")
    _golden_redline(tree, T2, outputs / f"{T2}.docx")
    run_dir = tmp_path / "run"
    r = CliRunner().invoke(main, ["import", "outputs", str(outputs), "--label", "acme", "--source", str(tree),
                                  "--judges", "heuristic", "--run-dir", str(run_dir), "--no-progress",
                                  "--tasks", f"{T1},{T2}"])
    assert r.exit_code == 0, r.output
    assert "imported 2 file(s) for 2 task(s)" in r.output
    grades = sorted(run_dir.glob("trials/acme/*/1/grade.json"))
    assert len(grades) == 2
    before = grades[0].read_bytes()
    grades[1].unlink()  # judging that never finished
    r = CliRunner().invoke(main, ["run", "--resume", "--run-dir", str(run_dir), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert grades[1].is_file() and grades[0].read_bytes() == before
    grades[1].unlink()
    r = CliRunner().invoke(main, ["score", str(run_dir)])
    assert r.exit_code == 0, r.output
    assert grades[1].is_file()


def test_a_folder_with_nothing_to_grade_is_one_clear_error(tmp_path, tree):
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "draft.docx").write_bytes(b"x")
    r = CliRunner().invoke(main, ["import", "outputs", str(outputs), "--label", "x", "--source", str(tree),
                                  "--judges", "heuristic", "--run-dir", str(tmp_path / "run")])
    assert r.exit_code == 2
    assert "no file matches a selected task" in r.output and "draft.docx" in r.output
    assert not (tmp_path / "run").exists()


def _import_golden_t1(tmp_path: Path, tree: Path, label: str, task_ids=(T1,)):
    """A folder holding T1's golden redline, imported as ``label`` for ``task_ids``: (folder, import)."""
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    _golden_redline(tree, T1, outputs / f"{T1}.docx")
    return outputs, import_outputs(outputs, label, run_dir=tmp_path / "run", source=str(tree), judges="heuristic",
                                   filter=TaskFilter(task_ids=tuple(task_ids)), progress=False)


def test_python_api_resumes_an_import(tmp_path, tree):
    _, done = _import_golden_t1(tmp_path, tree, "py")
    grade = done.run.run_dir / "trials" / "py" / T1 / "1" / "grade.json"
    grade.unlink()
    again = run(None, done.run.run_dir, resume=True, progress=False)
    assert again.progress.skipped == 0 and grade.is_file() and again.ok


def test_a_run_moved_with_its_outputs_and_data_resumes(tmp_path, tree):
    """config.json records the folder of outputs relative to the run, as it records the data."""
    _, done = _import_golden_t1(tmp_path, tree, "moved", (T1, T2))
    (done.run.run_dir / "trials" / "moved" / T2 / "1").joinpath("grade.json").unlink()
    shutil.move(str(tmp_path), str(tmp_path.parent / (tmp_path.name + "-moved")))
    moved = tmp_path.parent / (tmp_path.name + "-moved")
    _golden_redline(moved / "bench", T2, moved / "outputs" / f"{T2}.docx")  # T2's file arrives late
    (moved / "run" / "trials" / "moved" / T2 / "1" / "metrics.json").unlink()  # so its trial is redone
    again = run(None, moved / "run", resume=True, progress=False)
    assert again.ok
    grade = json.loads((moved / "run" / "trials" / "moved" / T2 / "1" / "grade.json").read_text())
    assert grade["status"] == "graded"


def test_entrants_of_imports_and_plugins_round_trip_through_config():
    from redlinebench.errors import ConfigError
    from redlinebench.runner import Entrant, RunSpec

    spec = RunSpec(entrants=(Entrant("outputs", "acme", "/x/outputs"), Entrant("pkg.mod:make", "openai/m"),
                             Entrant("my-agent")))
    assert [e.label for e in spec.entrants] == ["acme", "pkg.mod:make/openai/m", "my-agent"]
    assert RunSpec.from_dict(spec.to_dict()) == spec
    assert spec.replace(trials=2).entrants == spec.entrants
    with pytest.raises(ConfigError, match="unknown agent 'bad name!'"):
        RunSpec(entrants=(Entrant("bad name!"),))
    with pytest.raises(ConfigError, match="needs a label and a folder"):
        RunSpec(entrants=(Entrant("outputs", None, "/x"),))


def test_resuming_without_the_outputs_folder_is_an_error_not_a_row_of_zeros(tmp_path, tree):
    from redlinebench.errors import ConfigError

    outputs, done = _import_golden_t1(tmp_path, tree, "gone")
    shutil.rmtree(done.run.run_dir / "trials" / "gone" / T1)
    shutil.rmtree(outputs)
    with pytest.raises(ConfigError, match="the folder of outputs this import reads is not there"):
        run(None, done.run.run_dir, resume=True, progress=False)
