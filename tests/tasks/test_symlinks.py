"""A symlink in a task folder never brings a file from outside the task into a prompt, an export or a copy.

Real symlinks in a temporary copy of an embedded task: the loader and ``tasks validate`` refuse the
task naming the link, ``dataset export --include-tree`` copies nothing from outside (not even a link
added after loading), and a link that stays inside the task folder keeps working.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench import config
from redlinebench.cli import main
from redlinebench.errors import TaskError
from redlinebench.tasks import load_tasks, validate_tasks
from redlinebench.tasks._files import copy_task_tree

TASK = "redline-s1-t1-g01a"
SECRET = "root:x:0:0:SECRET-MARKER-7f3a:/root:/bin/bash\n"
OUTSIDE = "symlink pointing outside the task folder"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """One embedded task copied into tmp (``<tmp>/bench/tasks/<TASK>``)."""
    source = config.embedded_benchmark_dir() / "tasks" / TASK
    assert source.is_dir()
    root = tmp_path / "bench"
    shutil.copytree(source, root / "tasks" / TASK)
    return root


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the task folder standing in for /etc/passwd (its text must never leak)."""
    path = tmp_path / "private" / "passwd"
    path.parent.mkdir()
    path.write_text(SECRET, encoding="utf-8")
    return path


def _task(tree: Path) -> Path:
    return tree / "tasks" / TASK


def _link(link: Path, target: Path) -> Path:
    if link.is_dir() and not link.is_symlink():
        shutil.rmtree(link)
    elif link.exists() or link.is_symlink():
        link.unlink()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return link


# Every file the loader, the verifier or the exporter reads or copies.
FILES = [
    "environment/app/grounding/secrets.md",  # a new grounding text (the reported attack)
    "environment/app/grounding/agentco_playbook.md",  # an existing one replaced
    "instruction.md",
    "task.toml",
    "tests/rubrics.json",
    "environment/app/contract.docx",
    "tests/attorney_redlines.docx",
    "tests/judge_check/expected.json",
    "tests/judge_check/reverse.docx",
    "tests/test.sh",
    "environment/Dockerfile",
    "environment/skills/contract-redliner/SKILL.md",
]


@pytest.mark.parametrize("rel", FILES)
def test_symlinked_file_outside_the_task_is_refused(tree: Path, secret: Path, rel: str) -> None:
    link = _link(_task(tree) / rel, secret)
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert info.value.path == str(link)
    assert OUTSIDE in str(info.value) and str(secret) in str(info.value)
    report = validate_tasks(tree)
    assert not report.ok and len(report.tasks) == 0
    [problem] = report.errors
    assert problem.path == str(link) and problem.message.startswith(OUTSIDE)


@pytest.mark.parametrize("rel", ["environment/app/grounding/more", "environment/app/grounding", "tests/judge_check"])
def test_symlinked_folder_outside_the_task_is_refused(tree: Path, secret: Path, rel: str) -> None:
    link = _link(_task(tree) / rel, secret.parent)
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert info.value.path == str(link) and OUTSIDE in str(info.value)


def test_relative_link_climbing_out_of_the_task_is_refused(tree: Path, secret: Path) -> None:
    link = _task(tree) / "environment/app/grounding/secrets.md"
    link.symlink_to(os.path.relpath(secret, link.parent))
    with pytest.raises(TaskError, match=OUTSIDE):
        load_tasks(tree)


def test_link_into_a_sibling_task_is_outside_too(tree: Path) -> None:
    sibling = tree / "tasks" / "redline-s1-t1-g01b"
    shutil.copytree(_task(tree), sibling)
    for name in ("task.toml", "tests/rubrics.json"):
        path = sibling / name
        path.write_text(path.read_text(encoding="utf-8").replace("g01a", "g01b").replace('"a"', '"b"'), "utf-8")
    assert len(load_tasks(tree)) == 2
    link = _link(_task(tree) / "environment/app/grounding/notes.md", sibling / "instruction.md")
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert info.value.path == str(link) and OUTSIDE in str(info.value)


def test_cli_validate_names_the_link_without_a_traceback(tree: Path, secret: Path) -> None:
    _link(_task(tree) / "environment/app/grounding/secrets.md", secret)
    result = CliRunner().invoke(main, ["tasks", "validate", "--source", str(tree)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and SECRET.strip() not in result.output
    assert "secrets.md" in result.output and OUTSIDE in result.output


def test_broken_and_looping_links_are_refused(tree: Path) -> None:
    grounding = _task(tree) / "environment/app/grounding"
    (grounding / "gone.md").symlink_to(grounding / "missing.md")
    with pytest.raises(TaskError, match="broken symlink"):
        load_tasks(tree)
    (grounding / "gone.md").unlink()
    (grounding / "loop").symlink_to(grounding)  # a folder linking to its own parent: a copy never ends
    with pytest.raises(TaskError, match="a loop"):
        load_tasks(tree)


def test_link_that_stays_inside_the_task_is_allowed(tree: Path) -> None:
    grounding = _task(tree) / "environment/app/grounding"
    (grounding / "alias.md").symlink_to("agentco_playbook.md")
    [task] = load_tasks(tree)
    assert task.grounding["alias.md"] == task.grounding["agentco_playbook.md"]
    assert validate_tasks(tree).ok


# -- the dataset export -----------------------------------------------------------------------
def _leaks(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and b"SECRET-MARKER" in p.read_bytes()]


def test_export_refuses_a_task_with_an_outside_link(tree: Path, secret: Path, tmp_path: Path,
                                                    monkeypatch) -> None:
    import datasets

    from redlinebench.dataset import export_dataset

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-datasets-cache")
    link = _link(_task(tree) / "environment/app/grounding/secrets.md", secret)
    out = tmp_path / "export"
    with pytest.raises(TaskError) as info:
        export_dataset(tree, out, include_tree=True)
    assert info.value.path == str(link)
    assert not out.exists() or not _leaks(out)
    result = CliRunner().invoke(main, ["dataset", "export", "--source", str(tree), "--out", str(tmp_path / "cli"),
                                       "--include-tree"])
    assert result.exit_code != 0 and "Traceback" not in result.output and OUTSIDE in result.output
    assert not (tmp_path / "cli").exists() or not _leaks(tmp_path / "cli")


def test_export_copies_an_inside_link_as_a_file(tree: Path, tmp_path: Path, monkeypatch) -> None:
    import datasets

    from redlinebench.dataset import export_dataset

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-datasets-cache")
    (_task(tree) / "environment/app/grounding/alias.md").symlink_to("agentco_playbook.md")
    out = tmp_path / "export"
    export_dataset(tree, out, include_tree=True)
    copied = out / "tasks" / TASK / "environment/app/grounding/alias.md"
    assert copied.is_file() and not copied.is_symlink()
    assert copied.read_bytes() == (_task(tree) / "environment/app/grounding/agentco_playbook.md").read_bytes()


@pytest.mark.parametrize("rel,folder", [("tests/judge_check/extra.docx", False), ("environment/extra", True)])
def test_tree_copy_refuses_a_link_added_after_loading(tree: Path, secret: Path, tmp_path: Path, rel: str,
                                                      folder: bool) -> None:
    [task] = load_tasks(tree)
    link = _link(task.root / rel, secret.parent if folder else secret)
    with pytest.raises(TaskError) as info:
        copy_task_tree(task.root, tmp_path / "copy")
    assert OUTSIDE in str(info.value) and str(info.value.path).startswith(str(link))
    assert not _leaks(tmp_path / "copy")


def test_export_tree_copy_refuses_a_link_added_after_loading(tree: Path, secret: Path, tmp_path: Path,
                                                             monkeypatch) -> None:
    """The export's own copy checks every file: a link planted between loading and copying is not followed."""
    import datasets

    from redlinebench.dataset import _export, export_dataset

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-datasets-cache")
    render = _export.render_eval_yaml
    link = _task(tree) / "tests/judge_check/planted.docx"

    def render_then_plant() -> str:  # runs after the tasks and parquet are done, just before the tree copy
        link.symlink_to(secret)
        return render()

    monkeypatch.setattr(_export, "render_eval_yaml", render_then_plant)
    out = tmp_path / "export"
    with pytest.raises(TaskError) as info:
        export_dataset(tree, out, include_tree=True)
    assert info.value.path == str(link) and OUTSIDE in str(info.value)
    assert not (out / "tasks").exists() and not _leaks(out)


def test_a_hugging_face_cache_snapshot_whose_files_link_into_blobs_loads(tmp_path):
    """`hf download` without --local-dir gives snapshots/<rev>/... whose files link to ../blobs/."""
    repo = tmp_path / "datasets--org--RedlineBench"
    snapshot = repo / "snapshots" / "abc123"
    blobs = repo / "blobs"
    blobs.mkdir(parents=True)
    source = config.embedded_benchmark_dir() / "tasks" / TASK
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        dest = snapshot / "tasks" / TASK / rel
        if path.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        blob = blobs / f"{abs(hash(str(rel))):x}"
        blob.write_bytes(path.read_bytes())
        dest.symlink_to(os.path.relpath(blob, dest.parent))
    taskset = load_tasks(str(snapshot))
    assert [t.task_id for t in taskset.tasks] == [TASK]
    out = tmp_path / "copy"
    copy_task_tree(snapshot / "tasks" / TASK, out)
    assert (out / "instruction.md").read_bytes() == (source / "instruction.md").read_bytes()
    # a link out of the cache repository is still refused
    (snapshot / "tasks" / TASK / "environment" / "app" / "grounding" / "x.md").symlink_to(tmp_path / "secret")
    (tmp_path / "secret").write_text("no")
    with pytest.raises(TaskError, match="outside the task folder"):
        load_tasks(str(snapshot))
