"""Hostile task trees in the real layout: each problem is one line naming file and field, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.errors import TaskError
from redlinebench.tasks import load_tasks, validate_tasks
from tests.tasks.treefactory import edit_json

TASK = "redline-s1-t3-g01a"


def _task(tree: Path) -> Path:
    return tree / "tasks" / TASK


def _validate_cli(tree: Path) -> str:
    """``tasks validate`` output; asserts it failed cleanly (exit 1, no exception escaped)."""
    result = CliRunner().invoke(main, ["tasks", "validate", "--source", str(tree)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result.output


@pytest.mark.parametrize("value", ["¹", "²", "١", "３"])
def test_non_ascii_digits_are_refused_not_a_traceback(tree: Path, value: str) -> None:
    """str.isdigit() is true for superscripts (int() then raises) and other scripts' digits."""
    path = _task(tree) / "tests/rubrics.json"
    edit_json(path, lambda d: d.update(level=value))
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert (info.value.path, info.value.field) == (str(path), "level")
    assert "must be a positive integer" in str(info.value)
    assert f"{TASK}/tests/rubrics.json: level: must be a positive integer" in _validate_cli(tree)


@pytest.mark.parametrize("rel", ["tests/rubrics.json", "task.toml"])
def test_integer_beyond_the_digit_limit_is_malformed_not_a_traceback(tree: Path, rel: str) -> None:
    """json and tomllib raise a plain ValueError (not their decode error) for a 5000-digit integer."""
    path = _task(tree) / rel
    huge = "1" + "0" * 5000
    if rel.endswith(".json"):
        edit_json(path, lambda d: d.update(rubrics="PLACEHOLDER"))
        path.write_text(path.read_text().replace('"PLACEHOLDER"', f'[{{"id": "x", "criteria": "c", "weight": {huge}}}]'))
    else:
        path.write_text(path.read_text() + f"\n[extra]\nbig = {huge}\n")
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert info.value.path == str(path)
    assert "Exceeds the limit (4300 digits)" in str(info.value) and str(info.value).count("\n") == 0
    assert f"{TASK}/{rel}: malformed" in _validate_cli(tree)


def test_lone_surrogate_in_rubrics_json_is_refused_by_the_loader(tree: Path, tmp_path: Path) -> None:
    """JSON can spell "\\ud83d" alone; it passed the loader and crashed `tasks show` and the export."""
    path = _task(tree) / "tests/rubrics.json"
    edit_json(path, lambda d: d["rubrics"][0].update(criteria="PLACEHOLDER"))
    path.write_text(path.read_text().replace("PLACEHOLDER", "Accepts \\ud83d the cap"))
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert (info.value.path, info.value.field) == (str(path), "rubrics[0].criteria")
    assert "unpaired surrogate \\ud83d" in str(info.value)
    output = _validate_cli(tree)
    assert f"{TASK}/tests/rubrics.json: rubrics[0].criteria: contains an unpaired surrogate" in output
    result = CliRunner().invoke(main, ["dataset", "export", "--source", str(tree), "--out", str(tmp_path / "out")])
    assert result.exit_code != 0 and not isinstance(result.exception, (UnicodeError, ValueError)), repr(result.exception)
    assert "rubrics[0].criteria" in result.output


def test_hidden_files_in_grounding_are_not_grounding(tree: Path) -> None:
    """A macOS AppleDouble file (binary, named ._x.md) failed the task; a Jupyter checkpoint copy
    became grounding text, made variants of one input group differ, and escaped the fingerprint."""
    grounding = _task(tree) / "environment/app/grounding"
    (grounding / "._playbook.md").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \xff\xfe")
    (grounding / ".ipynb_checkpoints").mkdir()
    (grounding / ".ipynb_checkpoints/playbook-checkpoint.md").write_text("# draft\n", encoding="utf-8")
    (grounding / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    report = validate_tasks(tree)
    assert report.ok, [str(p) for p in report.errors]
    assert report.warnings == []
    assert set(report.tasks.get(TASK).grounding) == {"playbook.md", "commercial_context.md"}


def _validate_without_read_permission(tree: Path, *locked: Path) -> dict:
    """``tasks validate --json`` in a process that obeys file permissions (root is made to drop
    CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH), with ``locked`` folders chmod 000."""
    import os
    import shutil
    import subprocess
    import sys

    command = [sys.executable, "-m", "redlinebench", "tasks", "validate", "--json", "--source", str(tree)]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be enforced")
        caps = "-dac_override,-dac_read_search"
        command = [setpriv, "--bounding-set", caps, "--inh-caps", caps, *command]
    for folder in locked:
        folder.chmod(0)
    try:
        result = subprocess.run(command, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2],
                                env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=120)
    finally:
        for folder in locked:
            folder.chmod(0o755)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_folder_without_permission_is_one_problem_and_the_other_tasks_are_checked(tree: Path) -> None:
    """Path.is_file() raises PermissionError for a file in a folder without search permission:
    validate stopped at it (one bare line, no other task checked) and load_tasks raised OSError."""
    tests_dir = _task(tree) / "tests"
    other = tree / "tasks/redline-s2-t1-g01a/tests/rubrics.json"
    edit_json(other, lambda d: d["rubrics"][0].update(weight=99))
    report = _validate_without_read_permission(tree, tests_dir)
    problems = {(p["path"], p["field"], p["message"]) for p in report["problems"] if p["severity"] == "error"}
    assert (str(tests_dir / "rubrics.json"), None, "cannot read (Permission denied)") in problems
    assert (str(other), "rubrics[0].weight", "99 is outside [-10, 10]") in problems
    assert report["checked"] == 14 and report["valid"] == 12


def test_grounding_folder_without_permission_is_an_error_not_no_grounding(tree: Path) -> None:
    grounding = _task(tree) / "environment/app/grounding"
    report = _validate_without_read_permission(tree, grounding)
    mine = [p for p in report["problems"] if p["task_id"] == TASK]
    assert [(p["severity"], p["path"], p["message"]) for p in mine] == [
        ("error", str(grounding), "cannot read (Permission denied)")
    ]


@pytest.mark.parametrize("name", ["redline-s１-t3-g01a", "redline-s1-t٣-g01a", "redline-s1-t3-g01a\n"])
def test_task_names_with_other_digits_or_a_trailing_newline_are_not_task_names(tree: Path, name: str) -> None:
    """Python's \\d matches any script's decimal digits and $ matches before a final newline, so
    'redline-s１-t3-g01a' loaded as scenario 1 turn 3 beside the real one."""
    renamed = tree / "tasks" / name
    _task(tree).rename(renamed)
    report = validate_tasks(tree)
    assert report.checked == 14
    assert [(p.path, p.field) for p in report.errors if p.field == "name"] == [(str(renamed), "name")]
    assert name not in report.tasks


def test_input_group_with_other_digits_disagrees_with_the_name(tree: Path) -> None:
    path = _task(tree) / "tests/rubrics.json"
    edit_json(path, lambda d: d.update(input_group="s1-t3-g０1"))
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert (info.value.path, info.value.field) == (str(path), "input_group")


def test_a_key_stated_twice_in_rubrics_json_is_named_not_resolved_silently(tree: Path) -> None:
    """json.loads keeps the last of two equal keys: a rubric with "weight": 11, "weight": 5 loaded as 5."""
    path = _task(tree) / "tests/rubrics.json"
    text = path.read_text(encoding="utf-8")
    text = text.replace('"side": "A",', '"side": "B", "side": "A",', 1)
    text = text.replace('"weight": ', '"weight": 11, "weight": ', 1)
    path.write_text(text, encoding="utf-8")
    report = validate_tasks(tree)
    assert [(p.path, p.field, p.message) for p in report.errors] == [
        (str(path), "side", "stated more than once in one object (only the last would count)"),
        (str(path), "rubrics[0].weight", "stated more than once in one object (only the last would count)"),
    ]


@pytest.mark.parametrize("rel", ["tests/rubrics.json", "instruction.md", "environment/app/contract.docx",
                                 "tests/attorney_redlines.docx"])
def test_a_directory_where_a_file_belongs_is_named_as_such(tree: Path, rel: str) -> None:
    """It was reported as 'file is missing' (misleading), and a golden that is a folder silently made
    the task an accept-only task without a golden."""
    path = _task(tree) / rel
    path.unlink()
    path.mkdir()
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert info.value.path == str(path) and "is a directory, not a file" in str(info.value)


def test_every_problem_is_one_bounded_line_whatever_the_tree_holds(tree: Path) -> None:
    """A 100 000-character side was echoed whole (a 100 kB line), and a newline in a folder name or
    a JSON key split one problem over two lines."""
    path = _task(tree) / "tests/rubrics.json"
    edit_json(path, lambda d: d.update(side="A" * 100_000) or d["rubrics"][1].update(weight=[1] * 10_000))
    path.write_text(path.read_text(encoding="utf-8").replace('"counterparty"', '"bad\\nkey": 1, "bad\\nkey": 2, '
                                                              '"counterparty"', 1), encoding="utf-8")
    (tree / "tasks/redline-s1-t4-g01a").rename(tree / "tasks/redline-s1-t4-g01a\nevil")
    output = _validate_cli(tree)
    lines = output.strip().splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 4 and len(lines) == 5, output
    assert all(len(line) < 500 for line in lines), [len(line) for line in lines]
    assert "tasks/redline-s1-t4-g01a\\nevil: name: directory name does not match" in output
    assert f"{TASK}/tests/rubrics.json: bad\\nkey: stated more than once" in output
    assert f"{TASK}/tests/rubrics.json: side: must be \"A\" or \"B\", got 'AAAA" in output
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert "\n" not in str(info.value) and len(str(info.value)) < 600


def test_one_task_or_input_group_under_two_spellings_is_refused(tree: Path) -> None:
    """g1 and g01 name the same group: 'redline-s1-t3-g1a' beside 'redline-s1-t3-g01a' loaded as a
    second task of the same cell, and 'redline-s1-t3-g1b' as a separate input group."""
    import shutil

    for name in ("redline-s1-t3-g1a", "redline-s1-t3-g1b"):
        copy = tree / "tasks" / name
        shutil.copytree(_task(tree), copy)
        for rel in ("task.toml", "tests/rubrics.json"):
            path = copy / rel
            text = path.read_text(encoding="utf-8").replace(TASK, name).replace("s1-t3-g01", "s1-t3-g1")
            path.write_text(text.replace('variant = "a"', f'variant = "{name[-1]}"')
                            .replace('"variant": "a"', f'"variant": "{name[-1]}"'), encoding="utf-8")
    report = validate_tasks(tree)
    named = {(p.task_id, p.field) for p in report.errors}
    assert named == {("redline-s1-t3-g1a", "name"), ("redline-s1-t3-g1b", "name")}, [str(p) for p in report.errors]
    messages = {p.task_id: p.message for p in report.errors}
    assert messages["redline-s1-t3-g1a"].startswith("the same task as redline-s1-t3-g01a")
    assert "input group spelled s1-t3-g1 here but s1-t3-g01" in messages["redline-s1-t3-g1b"]
    with pytest.raises(TaskError):
        load_tasks(tree)


def test_a_task_folder_that_is_a_link_out_of_the_tree_is_one_problem(tree: Path, tmp_path: Path) -> None:
    """tasks/<name> -> /etc walked all of /etc (one 'outside' problem per link found there), and a
    link to a task folder elsewhere on the machine loaded it as part of this tree."""
    import shutil

    elsewhere = tmp_path / "elsewhere" / "redline-s1-t2-g01a"
    elsewhere.parent.mkdir()
    shutil.move(tree / "tasks/redline-s1-t2-g01a", elsewhere)
    (tree / "tasks/redline-s1-t2-g01a").symlink_to(elsewhere, target_is_directory=True)
    shutil.move(_task(tree), tmp_path / "gone")
    _task(tree).symlink_to("/etc", target_is_directory=True)
    report = validate_tasks(tree)
    assert [(p.path, p.field) for p in report.errors] == [
        (str(tree / "tasks/redline-s1-t2-g01a"), None), (str(_task(tree)), None)]
    assert all("the task folder is a symlink pointing outside the task tree" in p.message for p in report.errors)
    assert len(report.tasks) == 12
