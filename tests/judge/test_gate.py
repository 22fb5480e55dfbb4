"""The validity gate (SPEC §5.1) on real files."""

from __future__ import annotations

import io
import zipfile

from redlinebench.judge import gate
from tests.judge.docs import AUTHOR, OTHER, base_contract, comment_only, redline


def test_author_change_passes(tmp_path):
    path = tmp_path / "redline.docx"
    redline().save(path)
    result = gate(path, AUTHOR)
    assert result.passed and result.reason is None and result.doc is not None
    assert result.to_dict() == {"passed": True}


def test_comment_alone_passes():
    assert gate(comment_only().to_bytes(), AUTHOR).passed


def test_untouched_input_fails_and_names_the_authors_present():
    result = gate(base_contract(), AUTHOR)
    assert not result.passed
    assert AUTHOR in result.reason and OTHER in result.reason
    assert result.to_dict()["passed"] is False


def test_author_must_match_exactly():
    doc = redline(author="Reviewing Counsel (AgentCo)")
    assert not gate(doc.to_bytes(), AUTHOR).passed


def test_missing_and_hostile_files(tmp_path):
    assert "no output" in gate(None, AUTHOR).reason
    assert "not found" in gate(tmp_path / "nope.docx", AUTHOR).reason
    (tmp_path / "junk.docx").write_bytes(b"this is not a zip")
    assert "does not open" in gate(tmp_path / "junk.docx", AUTHOR).reason
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("word/document.xml", "<not-closed")
    result = gate(buf.getvalue(), AUTHOR)
    assert not result.passed and "does not open" in result.reason



def test_a_padded_author_string_does_not_pass():
    """SPEC §5.1 'equals': the judge's view and the diagnostics attribute work by exact comparison,
    so a padded author must not pass the gate either; the reason shows the difference."""
    result = gate(redline(author=AUTHOR + " ").to_bytes(), AUTHOR)
    assert not result.passed and repr(AUTHOR + " ") in result.reason


def test_an_output_that_does_not_open_still_has_every_diagnostic_field(tmp_path):
    import asyncio

    from redlinebench.judge import HeuristicJudge, grade_trial
    from redlinebench.scoring import document_diagnostics, no_document_diagnostics
    from tests.judge.test_grade_trial import TASK

    grade = asyncio.run(grade_trial(TASK, b"garbage", [HeuristicJudge()], model="m", trial=1, cache=False))
    assert grade.status == "gate_failed" and grade.diagnostics == no_document_diagnostics()
    assert set(no_document_diagnostics()) == set(document_diagnostics(redline(), AUTHOR))
