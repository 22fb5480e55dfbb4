"""The gate with SPEC §5.1's evidence rule and integrity audit, and grade.json's ``integrity``."""

from __future__ import annotations

import dataclasses
import json

from redlinebench.judge import HeuristicJudge, gate, grade_trial
from redlinebench.scoring import TrialGrade
from tests.docx.integrity_util import (
    AUTHOR,
    append_xml,
    base_contract,
    engine,
    ins_xml,
    replace_text,
    rewrite,
)
from tests.judge.doubles import FakeRubric, FakeTask

SRC = base_contract()
EDIT = [{"op": "replace", "anchor": {"paragraph_id": "p-002", "text": "twelve (12)"}, "new_text": "six (6)",
         "comment": "Shorter."}]
HONEST = engine(SRC, lambda d: d.apply_edits(EDIT, author=AUTHOR))


def test_whitespace_only_change_or_empty_comment_is_no_evidence():
    space = rewrite(SRC, "word/document.xml", append_xml("aggregate liability", ins_xml(" ")))
    result = gate(space, AUTHOR)
    assert not result.passed and "carry no text" in result.reason
    commented = engine(SRC, lambda d: d.add_comment(author=AUTHOR, text="x", paragraph_id="p-002"))
    empty = rewrite(commented, "word/comments.xml", replace_text("x", " "))   # the engine refuses to write one
    assert not gate(empty, AUTHOR).passed
    assert gate(engine(SRC, lambda d: d.add_comment(author=AUTHOR, text="Agreed.", paragraph_id="p-002")),
                AUTHOR).passed


def test_fatal_finding_fails_the_gate_naming_it():
    forged = rewrite(HONEST, "word/document.xml", replace_text("indemnifies", "need not indemnify"))
    result = gate(forged, AUTHOR, original=SRC)
    assert not result.passed and result.reason.startswith("integrity: untracked_change in p-")
    assert result.integrity.to_dict()["passed"] is False
    honest = gate(HONEST, AUTHOR, original=SRC)
    assert honest.passed and honest.integrity.findings == () and honest.integrity.skipped is None


def test_audit_skipped_without_input_or_with_a_broken_one(tmp_path):
    assert gate(HONEST, AUTHOR).integrity.skipped == "no task input document known"
    assert gate(HONEST, AUTHOR).passed
    bad = tmp_path / "contract.docx"
    bad.write_bytes(b"not a zip")
    result = gate(HONEST, AUTHOR, original=bad)
    assert result.passed and "task input" in result.integrity.skipped
    assert "not found" in gate(HONEST, AUTHOR, original=tmp_path / "nope.docx").integrity.skipped


TASK = FakeTask(task_id="redline-s1-t1-g01a", scenario_id=1, turn=1, side="A", input_group="s1-t1-g01",
                author=AUTHOR, rubrics=(FakeRubric("r1", "Replaces in Section 1 twelve months with six months",
                                                   "Commercial Context", 5),))


async def test_grade_json_carries_integrity(tmp_path):
    contract = tmp_path / "contract.docx"
    contract.write_bytes(SRC)
    task = dataclasses.replace(TASK, contract_path=contract)   # grade_trial audits against it by default
    forged = rewrite(HONEST, "word/document.xml", replace_text("indemnifies", "need not indemnify"))
    grade = await grade_trial(task, forged, [HeuristicJudge()], model="m", trial=1, trial_dir=tmp_path / "t1",
                              cache=False, original=contract)
    data = json.loads((tmp_path / "t1" / "grade.json").read_text())
    assert grade.status == "gate_failed" and data["gate"]["reason"].startswith("integrity: untracked_change")
    assert data["integrity"]["passed"] is False and data["integrity"]["findings"][0]["severity"] == "fatal"
    assert TrialGrade.read(tmp_path / "t1" / "grade.json").integrity == data["integrity"]

    grade = await grade_trial(task, HONEST, [HeuristicJudge()], model="m", trial=2, trial_dir=tmp_path / "t2",
                              cache=False, original=contract)
    data = json.loads((tmp_path / "t2" / "grade.json").read_text())
    assert grade.status == "graded" and data["integrity"] == {"passed": True, "version": "integrity-v3",
                                                              "findings": []}


def test_old_grade_files_without_integrity_still_read(tmp_path):
    grade = TrialGrade(task_id="redline-s1-t1-g01a", model="m", trial=1, scenario_id=1, turn=1, side="A",
                       input_group="s1-t1-g01", variant="a", status="graded", judge_method="heuristic",
                       judges=["heuristic"], gate={"passed": True}, weighted=0.5)
    data = grade.to_dict()
    assert "integrity" not in data
    assert TrialGrade.from_dict(data).integrity is None


async def test_grade_without_a_task_input_records_the_skip(tmp_path):
    grade = await grade_trial(TASK, HONEST, [HeuristicJudge()], model="m", trial=1, cache=False)
    assert grade.status == "graded" and grade.integrity["skipped"] == "no task input document known"
