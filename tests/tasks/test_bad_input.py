"""Broken trees: every problem is named by file and field, found in one pass, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.errors import TaskError
from redlinebench.tasks import load_tasks, validate_tasks
from tests.tasks.treefactory import edit_json, make_docx

REPO = Path(__file__).resolve().parents[2]


def _rubrics(tree: Path, task: str) -> Path:
    return tree / "tasks" / task / "tests" / "rubrics.json"


def _set_rubric(task: str, index: int, **changes) -> Callable[[Path], None]:
    def mutate(tree: Path) -> None:
        def change(data):
            for key, value in changes.items():
                if value is _DELETE:
                    del data["rubrics"][index][key]
                else:
                    data["rubrics"][index][key] = value

        edit_json(_rubrics(tree, task), change)

    return mutate


_DELETE = object()


def _write(task: str, rel: str, content: bytes) -> Callable[[Path], None]:
    return lambda tree: (tree / "tasks" / task / rel).write_bytes(content)


def _delete(task: str, rel: str) -> Callable[[Path], None]:
    return lambda tree: (tree / "tasks" / task / rel).unlink()


def _meta(task: str, key: str, value, file: str = "tests/rubrics.json") -> Callable[[Path], None]:
    def mutate(tree: Path) -> None:
        path = tree / "tasks" / task / file
        if file.endswith(".json"):
            edit_json(path, lambda d: d.__setitem__(key, value))
        else:
            text = path.read_text()
            lines = [f"{key} = {json.dumps(value)}" if line.startswith(f"{key} = ") else line for line in text.splitlines()]
            path.write_text("\n".join(lines) + "\n")

    return mutate


# (task, mutation, file relative to the task, field, message fragment)
PER_TASK_CASES = [
    ("redline-s1-t1-g01a", _write("redline-s1-t1-g01a", "task.toml", b"[metadata\nside = 'A'\n"),
     "task.toml", None, "malformed TOML"),
    ("redline-s1-t2-g01a", _write("redline-s1-t2-g01a", "tests/rubrics.json", b'{"rubrics": [}'),
     "tests/rubrics.json", None, "malformed JSON: Expecting value at line 1 column 14"),
    ("redline-s1-t3-g01a", _set_rubric("redline-s1-t3-g01a", 1, criteria=_DELETE),
     "tests/rubrics.json", "rubrics[1].criteria", "missing"),
    ("redline-s1-t4-g01a", _set_rubric("redline-s1-t4-g01a", 0, weight=11),
     "tests/rubrics.json", "rubrics[0].weight", "11 is outside [-10, 10]"),
    ("redline-s2-t1-g01a", _set_rubric("redline-s2-t1-g01a", 2, category="Legal Correctness"),
     "tests/rubrics.json", "rubrics[2].category", "unknown category 'Legal Correctness' (spelled 'Legal correctness'"),
    ("redline-s2-t2-g01a", _delete("redline-s2-t2-g01a", "environment/app/contract.docx"),
     "environment/app/contract.docx", None, "file is missing"),
    ("redline-s3-t1-g01a", _meta("redline-s3-t1-g01a", "level", 2),
     "tests/rubrics.json", "level", "2 disagrees with the directory name 'redline-s3-t1-g01a' (which says 1)"),
    ("redline-s3-t2-g01a", _meta("redline-s3-t2-g01a", "variant", "z", "task.toml"),
     "task.toml", "variant", "'z' disagrees with the directory name 'redline-s3-t2-g01a' (which says 'a')"),
    ("redline-s3-t3-g01a", _set_rubric("redline-s3-t3-g01a", 3, weight="5"),
     "tests/rubrics.json", "rubrics[3].weight", "must be an integer, got '5'"),
    ("redline-s3-t4-g01a", _set_rubric("redline-s3-t4-g01a", 1, id="redline-s3-t4-g01a-r01"),
     "tests/rubrics.json", "rubrics[1].id", "duplicate rubric id"),
    ("redline-s1-t1-g01b", lambda tree: edit_json(_rubrics(tree, "redline-s1-t1-g01b"), lambda d: d.update(rubrics=[])),
     "tests/rubrics.json", "rubrics", "is empty"),
    ("redline-s2-t3-g02a", _meta("redline-s2-t3-g02a", "side", "C"),
     "tests/rubrics.json", "side", "must be \"A\" or \"B\", got 'C'"),
    ("redline-s2-t3-g02b", _write("redline-s2-t3-g02b", "tests/rubrics.json", b'["not", "an", "object"]'),
     "tests/rubrics.json", None, "must be a JSON object"),
    ("redline-s2-t4-g01a", _delete("redline-s2-t4-g01a", "instruction.md"), "instruction.md", None, "file is missing"),
]


@pytest.mark.parametrize("task,mutate,rel,field,fragment", PER_TASK_CASES, ids=[c[4][:30] for c in PER_TASK_CASES])
def test_load_names_file_and_field(tree: Path, task, mutate, rel, field, fragment) -> None:
    mutate(tree)
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    error = info.value
    assert error.path == str(tree / "tasks" / task / rel)
    assert error.field == field
    assert fragment in str(error)


@pytest.mark.parametrize("task,mutate,rel,field,fragment", PER_TASK_CASES[:7], ids=[c[4][:30] for c in PER_TASK_CASES[:7]])
def test_cli_validate_exits_1_without_traceback(tree: Path, task, mutate, rel, field, fragment) -> None:
    mutate(tree)
    result = CliRunner().invoke(main, ["tasks", "validate", "--source", str(tree)])
    assert result.exit_code == 1, result.output
    where = f"tasks/{task}/{rel}" + (f": {field}" if field else "")
    assert any(line.startswith(f"error: {where}: ") and fragment in line for line in result.output.splitlines()), result.output
    assert "Traceback" not in result.output


def test_validate_reports_every_problem_in_one_pass(tree: Path) -> None:
    for _, mutate, *_ in PER_TASK_CASES:
        mutate(tree)
    report = validate_tasks(tree)
    assert not report.ok
    found = {(p.path, p.field) for p in report.errors}
    for task, _, rel, field, fragment in PER_TASK_CASES:
        assert (str(tree / "tasks" / task / rel), field) in found, (task, field)
        assert any(fragment in p.message for p in report.errors if p.task_id == task), fragment
    # every task in the tree was broken once, so none is valid
    assert report.checked == 14 and len(report.tasks) == 0


def test_several_problems_in_one_file_are_all_listed(tree: Path) -> None:
    def change(data):
        data["rubrics"][0]["weight"] = 11
        data["rubrics"][1]["category"] = "Vibes"
        del data["rubrics"][2]["criteria"]
        data["level"] = 4

    edit_json(_rubrics(tree, "redline-s1-t1-g01a"), change)
    report = validate_tasks(tree)
    fields = sorted(p.field for p in report.errors)
    assert fields == ["level", "rubrics[0].weight", "rubrics[1].category", "rubrics[2].criteria"]
    with pytest.raises(TaskError, match=r"and 3 more problems; run `redlinebench tasks validate`"):
        load_tasks(tree)


def test_variants_with_different_contracts_are_caught(tree: Path) -> None:
    other = make_docx(["A different contract."])
    (tree / "tasks/redline-s2-t3-g02b/environment/app/contract.docx").write_bytes(other)
    report = validate_tasks(tree)
    [problem] = report.errors
    assert problem.path.endswith("redline-s2-t3-g02b/environment/app/contract.docx")
    assert "variants of input group s2-t3-g02 must have byte-identical input" in problem.message
    # the loader does not compare documents, so the tree still loads
    assert len(load_tasks(tree)) == 14


def test_variants_with_different_grounding_or_parties_are_caught(tree: Path) -> None:
    (tree / "tasks/redline-s1-t1-g01b/environment/app/grounding/playbook.md").write_text("changed")
    for file in ("tests/rubrics.json",):
        edit_json(tree / "tasks/redline-s1-t1-g01b" / file, lambda d: d.update(author="Someone Else"))
    text = (tree / "tasks/redline-s1-t1-g01b/task.toml").read_text().replace(
        'author = "Reviewing Counsel (AgentCo Legal)"', 'author = "Someone Else"'
    )
    (tree / "tasks/redline-s1-t1-g01b/task.toml").write_text(text)
    messages = [(p.field, p.message) for p in validate_tasks(tree).errors]
    assert (None, "grounding texts differ from redline-s1-t1-g01a's (same input group s1-t1-g01)") in messages
    assert ("author", "'Someone Else' but redline-s1-t1-g01a in the same input group s1-t1-g01 says "
            "'Reviewing Counsel (AgentCo Legal)'") in messages


def test_golden_without_an_expert_change_is_caught(tree: Path) -> None:
    task = tree / "tasks/redline-s1-t3-g01a"
    (task / "tests/attorney_redlines.docx").write_bytes((task / "environment/app/contract.docx").read_bytes())
    [problem] = validate_tasks(tree).errors
    assert problem.path == str(task / "tests/attorney_redlines.docx")
    assert problem.message.startswith("golden redline has no change by an expert")


def test_golden_by_another_author_is_a_warning(tree: Path) -> None:
    task = tree / "tasks/redline-s1-t3-g01a"
    paragraphs = ["MASTER SERVICES AGREEMENT (scenario 1)"]
    (task / "tests/attorney_redlines.docx").write_bytes(make_docx(paragraphs, insert=("Jane Attorney", "new text")))
    report = validate_tasks(tree)
    assert report.ok
    [warning] = [p for p in report.warnings if p.task_id == "redline-s1-t3-g01a"]
    assert warning.field == "author" and "'Jane Attorney'" in warning.message


@pytest.mark.parametrize(
    "content,fragment",
    [(b"plain text", "not a zip archive"), (make_docx(["x"])[:200], "not a zip archive")],
)
def test_contract_that_is_not_a_docx(tree: Path, content: bytes, fragment: str) -> None:
    path = tree / "tasks/redline-s3-t2-g01a/environment/app/contract.docx"
    path.write_bytes(content)
    [problem] = validate_tasks(tree).errors
    assert problem.path == str(path) and fragment in problem.message


def test_zip_without_document_part(tree: Path) -> None:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "hi")
    path = tree / "tasks/redline-s3-t2-g01a/environment/app/contract.docx"
    path.write_bytes(buffer.getvalue())
    [problem] = validate_tasks(tree).errors
    assert "no word/document.xml part" in problem.message


def test_stray_and_misnamed_directories(tree: Path) -> None:
    (tree / "tasks" / ".git").mkdir()  # hidden: ignored
    (tree / "tasks" / "notes").mkdir()  # no task files: ignored
    misnamed = tree / "tasks" / "redline-s1-t1"
    (tree / "tasks/redline-s1-t1-g01a").rename(misnamed)
    report = validate_tasks(tree)
    assert report.checked == 14
    assert any(p.path == str(misnamed) and p.field == "name" for p in report.errors)
    assert [p.task_id for p in report.errors] == ["redline-s1-t1"]


def test_real_entry_point_prints_one_line(tree: Path) -> None:
    _set_rubric("redline-s1-t1-g01a", 0, weight=11)(tree)
    proc = subprocess.run(
        [sys.executable, "-m", "redlinebench", "tasks", "list", "--source", str(tree)],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0] == (
        f"error: {tree}/tasks/redline-s1-t1-g01a/tests/rubrics.json: rubrics[0].weight: 11 is outside [-10, 10]"
    )


def test_brief_contradicting_the_metadata_is_a_warning(tree: Path) -> None:
    path = tree / "tasks/redline-s1-t3-g01a/instruction.md"
    path.write_text(path.read_text(encoding="utf-8").replace("(Side A)", "(Side B)", 1), encoding="utf-8")
    report = validate_tasks(tree)
    assert report.ok
    [warning] = report.warnings
    assert (warning.path, warning.field) == (str(path), "side")
    assert warning.message == "the brief says Side B but the metadata says 'A'"


@pytest.mark.parametrize(
    "rel,content,field,fragment",
    [
        ("tests/rubrics.json", b'{"rubrics": "\xff\xfe"}', None, "not UTF-8 text"),
        ("task.toml", b'metadata = "flat"\n', "metadata", "must be a table, got str"),
        ("tests/rubrics.json", b"", None, "malformed JSON"),
        ("tests/rubrics.json", b'{"task_id": "redline-s1-t3-g01a"}', "rubrics", "missing"),
        ("tests/rubrics.json", b'{"rubrics": [7]}', "rubrics[0]", "must be an object, got int"),
        ("tests/rubrics.json", b'{"rubrics": [{"id": "x", "criteria": "c", "weight": true}]}', "rubrics[0].weight",
         "must be an integer, got True"),
        ("tests/rubrics.json", b'{"rubrics": [{"id": "x", "criteria": "c", "weight": 2.5}]}', "rubrics[0].weight",
         "must be an integer, got 2.5"),
        ("tests/rubrics.json", b'{"rubrics": [{"id": "x", "criteria": "  ", "weight": 2}]}', "rubrics[0].criteria",
         "must be a non-empty string"),
        ("instruction.md", b"\n  \n", None, "is empty"),
    ],
)
def test_more_hostile_files(tree: Path, rel: str, content: bytes, field, fragment: str) -> None:
    path = tree / "tasks/redline-s1-t3-g01a" / rel
    path.write_bytes(content)
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert info.value.path == str(path) and info.value.field == field and fragment in str(info.value)


def test_turn_and_level_disagreeing(tree: Path) -> None:
    path = _rubrics(tree, "redline-s1-t3-g01a")
    edit_json(path, lambda d: d.update(turn=2))
    with pytest.raises(TaskError) as info:
        load_tasks(tree)
    assert (info.value.path, info.value.field) == (str(path), "turn")
    assert "turn = 2 disagrees with level = 3" in str(info.value)


def test_the_two_files_disagreeing_is_a_warning_and_rubrics_json_wins(tree: Path) -> None:
    """SPEC §2: metadata is read from either file, preferring rubrics.json when both exist."""
    task = "redline-s3-t2-g01a"
    _meta(task, "represented_party", "AgentCo", "task.toml")(tree)
    loaded = load_tasks(tree).get(task)
    assert loaded.represented_party == "GiantCo"
    report = validate_tasks(tree)
    assert report.ok and task in report.tasks
    (warning,) = [p for p in report.warnings if p.task_id == task]
    assert warning.field == "represented_party" and warning.path == str(tree / "tasks" / task / "tests/rubrics.json")
    assert "'GiantCo' disagrees with 'AgentCo' in task.toml; this value (rubrics.json) is used" in warning.message
    strict = CliRunner().invoke(main, ["tasks", "validate", "--source", str(tree), "--strict"])
    assert strict.exit_code == 1 and "warning: " in strict.output
