"""The built tree: shipped copy fresh, shape, valid documents, goldens that do what the script says,
the negotiation tree wired turn to turn, and a judge-check set whose expected verdicts hold."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.synthetic import PACKAGED_DIR, build_synthetic
from redlinebench.synthetic.negotiate import reviewing_author
from redlinebench.tasks import load_tasks, validate_tasks

MB = 1_000_000


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _task_dirs(root: Path) -> list[Path]:
    return sorted((root / "tasks").iterdir())


def test_shipped_tree_is_byte_identical_to_a_fresh_build(built):
    fresh, shipped = _files(built), _files(PACKAGED_DIR)
    assert sorted(fresh) == sorted(shipped), "shipped tree has missing or extra files: run redlinebench data build-synthetic --out redlinebench/_data/benchmark"
    stale = [name for name in fresh if fresh[name] != shipped[name]]
    assert not stale, f"shipped copy is stale ({len(stale)} files differ, e.g. {stale[:3]})"


def test_rebuild_replaces_a_previous_build(built, tmp_path):
    """A one-scenario rebuild into an old build dir: leftovers go, files equal the full build's."""
    import shutil

    from redlinebench.synthetic import SOURCES_DIR

    sources = tmp_path / "sources"
    shutil.copytree(SOURCES_DIR / "s1", sources / "s1")
    out = tmp_path / "again"
    (out / "tasks" / "leftover").mkdir(parents=True)
    report = build_synthetic(out, sources)
    assert len(report.tasks) == 13
    assert not (out / "tasks" / "leftover").exists()
    full = _files(built)
    for name, data in _files(out).items():
        if name.startswith("tasks/"):
            assert full[name] == data, name


def test_refuses_to_overwrite_a_directory_that_is_not_a_build(tmp_path):
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    from redlinebench.errors import RedlineBenchError

    with pytest.raises(RedlineBenchError, match="does not hold a previous build"):
        build_synthetic(precious)
    assert (precious / "notes.txt").read_text() == "keep me"


def test_size_and_shape_of_the_tree(built):
    total = sum(len(b) for b in _files(built).values())
    assert total < 15 * MB
    names = [d.name for d in _task_dirs(built)]
    assert len(names) >= 36
    no_golden = [d.name for d in _task_dirs(built) if not (d / "tests" / "attorney_redlines.docx").exists()]
    assert no_golden == ["redline-s2-t4-g03a", "redline-s3-t4-g01a"]
    for d in _task_dirs(built):
        assert not list((d / "environment").rglob("*judge*")), d.name
        assert not list((d / "environment").rglob("rubrics*")), d.name


def test_tasks_load_and_validate_with_the_task_model(built):
    report = validate_tasks(built)
    assert report.ok, [str(p) for p in report.errors]
    assert not report.warnings, [str(p) for p in report.warnings]
    tasks = load_tasks(built)
    assert len(tasks) == 39
    assert len(tasks.cells()) == 12
    groups = tasks.input_groups()
    assert sum(1 for members in groups.values() if 2 <= len(members) <= 3) >= 4
    for task in tasks:
        assert task.author == reviewing_author(task.represented_party)
        assert 5 <= len(task.rubrics) <= 20
        assert task.instruction.startswith(f"# Representation — {task.represented_party} Legal (Side {task.side})")
        assert "## Mandate" in task.instruction and task.author in task.instruction
        assert set(task.grounding) == {"commercial_context.md", f"{task.represented_party.lower()}_playbook.md"}
        other = task.counterparty.lower()
        assert not any(other in name for name in task.grounding), "counterparty playbook leaked"


def test_task_toml_and_rubrics_json_agree(built):
    for d in _task_dirs(built):
        meta = tomllib.loads((d / "task.toml").read_text())["metadata"]
        rubrics = json.loads((d / "tests" / "rubrics.json").read_text())
        for key in ("task_id", "scenario_id", "scenario_label", "side", "level", "input_group", "variant",
                    "represented_party", "counterparty", "author"):
            assert meta[key] == rubrics[key], (d.name, key)
        assert meta["task_id"] == d.name
        assert (d / "tests" / "test.sh").stat().st_mode & 0o111


def _open(path: Path) -> RedlineDocument:
    return RedlineDocument.open(path)


def test_every_document_validates(built):
    docs = sorted(built.rglob("*.docx"))
    assert len(docs) > 150
    for path in docs:
        errors = [f for f in _open(path).validate() if f.severity == "error"]
        assert not errors, (path, errors[:3])


def test_goldens_carry_the_task_author_and_inputs_never_do(built):
    for d in _task_dirs(built):
        author = json.loads((d / "tests" / "rubrics.json").read_text())["author"]
        source = _open(d / "environment" / "app" / "contract.docx")
        assert not any("Reviewing Counsel" in (r.author or "") for r in source.revisions)
        assert not any("Reviewing Counsel" in (c.author or "") for c in source.comments)
        level = json.loads((d / "tests" / "rubrics.json").read_text())["level"]
        if level > 1:
            assert source.revisions and source.comments, d.name  # the other side's real history
        golden_path = d / "tests" / "attorney_redlines.docx"
        if golden_path.exists():
            golden = _open(golden_path)
            mine = [r for r in golden.revisions if r.author == author]
            assert mine, f"{d.name}: golden has no tracked change by {author}"


def _expected_accepted(task_dir: Path, scenarios) -> tuple[list[str], list[str]]:
    """Scripted intent computed without the engine's edit code: string edits on the input's accepted text."""
    meta = json.loads((task_dir / "tests" / "rubrics.json").read_text())
    spec = next(s for s in scenarios if s.id == meta["scenario_id"])
    group = next(g for g in spec.groups if g.turn == meta["level"] and f"g{g.group:02d}" == meta["input_group"][-3:])
    variant = next(v for v in group.variants if v.letter == meta["variant"])
    script = group.scripts[variant.script_key]
    source = _open(task_dir / "environment" / "app" / "contract.docx")
    paras = source.paragraphs
    texts = [p.accepted_text for p in paras]
    for op in script.ops:
        if not op.is_markup:
            continue
        number = op.clause or op.cell[0]
        index = next(i for i, p in enumerate(paras) if (p.number or "") == number and not p.in_table)
        if op.cell:
            clause = spec.contract.clause(number)
            index += 1 + op.cell[1] * len(clause.table.header) + op.cell[2] - 1
        before = texts[index]
        if op.op == "replace":
            assert before.count(op.text) == 1, (task_dir.name, op.id)
            texts[index] = before.replace(op.text, op.new_text)
        elif op.op == "delete":
            texts[index] = " ".join(before.replace(op.text, "").split())
        elif op.op == "insert":
            assert before.count(op.after) == 1, (task_dir.name, op.id)
            texts[index] = before.replace(op.after, op.after + op.new_text)
    golden = _open(task_dir / "tests" / "attorney_redlines.docx")
    golden.accept()
    return texts, [p.text for p in golden.paragraphs]


def test_accept_all_of_every_golden_equals_the_scripted_intent(built, scenarios):
    checked = 0
    for d in _task_dirs(built):
        if not (d / "tests" / "attorney_redlines.docx").exists():
            continue
        expected, actual = _expected_accepted(d, scenarios)
        assert actual == expected, d.name
        checked += 1
    assert checked == 37


def test_turn_inputs_are_the_parent_goldens(built, scenarios):
    """Input of turn t equals (accept-all) the parent's golden; only the author differs."""
    tasks = {d.name: d for d in _task_dirs(built)}
    pairs = [
        ("redline-s1-t2-g01a", "redline-s1-t1-g01a"), ("redline-s1-t4-g01a", "redline-s1-t3-g01a"),
        ("redline-s2-t4-g01a", "redline-s2-t3-g01a"), ("redline-s2-t4-g03a", "redline-s2-t3-g01c"),
        ("redline-s3-t4-g01a", "redline-s3-t3-g01a"), ("redline-s3-t4-g02a", "redline-s3-t3-g01c"),
    ]
    for child, parent in pairs:
        child_doc = _open(tasks[child] / "environment" / "app" / "contract.docx")
        parent_doc = _open(tasks[parent] / "tests" / "attorney_redlines.docx")
        assert child_doc.text("accepted") == parent_doc.text("accepted"), (child, parent)
        assert child_doc.text("original") == parent_doc.text("original")
        parent_author = json.loads((tasks[parent] / "tests" / "rubrics.json").read_text())["author"]
        assert {r.author for r in parent_doc.revisions} - {r.author for r in child_doc.revisions} == {parent_author}
        assert {c.text for c in child_doc.comments} == {c.text for c in parent_doc.comments}
    # the two branches of S2 and S3 turn 4 really differ
    a = _open(tasks["redline-s2-t4-g01a"] / "environment" / "app" / "contract.docx").text("accepted")
    b = _open(tasks["redline-s2-t4-g03a"] / "environment" / "app" / "contract.docx").text("accepted")
    assert a != b


def test_variants_of_a_group_share_input_and_golden(built):
    by_group: dict[str, list[Path]] = {}
    for d in _task_dirs(built):
        by_group.setdefault(d.name[:-1], []).append(d)
    for group, members in by_group.items():
        inputs = {(m / "environment" / "app" / "contract.docx").read_bytes() for m in members}
        assert len(inputs) == 1, group
        instructions = {(m / "instruction.md").read_text() for m in members}
        assert len(instructions) == 1, group


def test_judge_check_set_is_complete_and_consistent(built):
    cases_total = 0
    for d in _task_dirs(built):
        body = json.loads((d / "tests" / "judge_check" / "expected.json").read_text())
        rubric_ids = [r["id"] for r in json.loads((d / "tests" / "rubrics.json").read_text())["rubrics"]]
        weights = {r["id"]: r["weight"] for r in json.loads((d / "tests" / "rubrics.json").read_text())["rubrics"]}
        cases = {c["name"]: c for c in body["cases"]}
        assert list(cases)[:2] == ["golden", "null"]
        assert cases["null"]["gate"] is False
        assert (d / "tests" / "judge_check" / cases["null"]["file"]).resolve() == (d / "environment/app/contract.docx").resolve()
        assert cases["null"]["verdicts"] == {r: ("PASS" if weights[r] > 0 and r in body["ground_truth"] and not body["ground_truth"][r]["requires"] else "FAIL") for r in rubric_ids}
        perturbations = [c for c in body["cases"] if c["name"] not in ("golden", "null")]
        assert len(perturbations) >= 3, d.name
        golden = cases["golden"]["verdicts"]
        assert list(golden) == rubric_ids
        assert all((golden[r] == "PASS") == (weights[r] > 0) for r in rubric_ids), d.name
        for case in perturbations:
            path = d / "tests" / "judge_check" / case["file"]
            assert path.is_file() and "environment" not in case["file"], (d.name, case["name"])
            assert case["verdicts"] != golden or case["name"] == "comments-only", (d.name, case["name"])
            doc = _open(path)
            mine = [r for r in doc.revisions if r.author == body["author"]]
            markup_ops = [o for o in case["ops"] if not o.startswith(("r", "c"))]
            assert bool(mine) == bool(markup_ops), (d.name, case["name"])
        assert any(c["name"] == "reverse" for c in perturbations), d.name
        reverse = cases["reverse"]["verdicts"]
        assert any(reverse[r] == "PASS" for r in rubric_ids if weights[r] < 0), d.name
        cases_total += len(body["cases"])
    assert cases_total >= 39 * 5


def test_inputs_and_goldens_pass_openxml_audit(built):
    """Every distinct agent input, golden and accept-only reference (benchmarks/synthetic.py --audit
    checks the perturbations too)."""
    import hashlib

    from openxml_audit import OpenXmlValidator

    paths = sorted(built.glob("tasks/*/environment/app/contract.docx")) + sorted(
        built.glob("tasks/*/tests/attorney_redlines.docx")) + sorted(built.glob("tasks/*/tests/judge_check/reference.docx"))
    distinct = {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in paths}
    assert len(distinct) >= 28
    for path in distinct.values():
        result = OpenXmlValidator().validate(path)  # a fresh validator per file: it keeps per-package state
        assert result.is_valid, (path, [str(e) for e in result.errors][:3])


@pytest.mark.libreoffice
def test_libreoffice_opens_every_input_and_golden(built, soffice, tmp_path):
    """One headless LibreOffice run converts every distinct input, golden and reference to text."""
    import hashlib
    import shutil

    paths = sorted(built.glob("tasks/*/environment/app/contract.docx")) + sorted(
        built.glob("tasks/*/tests/attorney_redlines.docx")) + sorted(built.glob("tasks/*/tests/judge_check/reference.docx"))
    distinct = {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in paths}
    src = tmp_path / "in"
    src.mkdir()
    for i, path in enumerate(distinct.values()):
        shutil.copy(path, src / f"d{i:02d}.docx")
    out = tmp_path / "out"
    subprocess.run(
        [soffice, f"-env:UserInstallation=file://{tmp_path}/profile", "--headless", "--convert-to", "txt:Text",
         "--outdir", str(out), *sorted(str(p) for p in src.iterdir())],
        check=True, capture_output=True, timeout=600,
    )
    texts = sorted(out.glob("*.txt"))
    assert len(texts) == len(distinct)
    for text_path in texts:
        text = text_path.read_text(encoding="utf-8-sig")
        assert "Limitation of Liability" in text, text_path.name


def test_golden_tool_calls_replay_through_the_tool_layer(built):
    """The golden as an agent would produce it: replaying golden_calls.json in a ToolSession gives
    the attorney redline (or the accept-only reference) byte for byte."""
    from datetime import datetime

    from redlinebench.tools import ToolSession

    for d in _task_dirs(built):
        body = json.loads((d / "tests" / "judge_check" / "golden_calls.json").read_text())
        date = datetime.fromisoformat(body["date"].replace("Z", "+00:00"))
        session = ToolSession(_open(d / "environment" / "app" / "contract.docx"), body["author"], date=date)
        names = [call["name"] for call in body["calls"]]
        assert names[-1] == "end_session" and names.count("end_session") == 1
        for call in body["calls"]:
            result = session.dispatch(call["name"], json.dumps(call["arguments"]))
            assert "error" not in result, (d.name, call["name"], result)
            for item in result.get("results", []):
                assert item["status"] == "ok", (d.name, item)
        assert session.finished
        golden = d / "tests" / "attorney_redlines.docx"
        if not golden.exists():
            golden = d / "tests" / "judge_check" / "reference.docx"
        assert session.doc.to_bytes() == golden.read_bytes(), d.name
