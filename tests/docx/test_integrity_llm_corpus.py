"""Zero false positives of the integrity audit on real agent runs (SPEC §5.1): a scripted model
behind the loopback fake LLM server redlines embedded tasks of every turn through
``redlinebench.runner.run`` (tests/docx/llm_corpus.py); every output audits with no finding at
all (the tools never change text untracked, never remove a comment, never reject silently), as
graded, as written, and after an open-and-save by python-docx and by LibreOffice."""

from __future__ import annotations

from collections import Counter

import pytest

from .integrity_util import python_docx_roundtrip, run_audit
from .llm_corpus import TASK_IDS, scripted_llm_outputs


#: the turn-2 task again over the Anthropic route (tool_use blocks), the rest over OpenAI's
ANTHROPIC_TASKS = ("redline-s2-t2-g01b",)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return (scripted_llm_outputs(tmp_path_factory.mktemp("llm") / "run")
            + scripted_llm_outputs(tmp_path_factory.mktemp("llm") / "run", ANTHROPIC_TASKS, provider="anthropic"))


def _findings(items):
    found = {name: [f.to_dict() for f in run_audit(src, out, author).findings] for name, src, out, author in items}
    return {name: hits for name, hits in found.items() if hits}


def test_the_scripted_model_made_a_varied_redline_on_every_task(runs):
    assert [name.split()[0] for name, *_ in runs] == list(TASK_IDS) + list(ANTHROPIC_TASKS)
    calls = Counter()
    for name, _src, _out, _author, grade in runs:
        metrics = grade["metrics"]
        assert metrics["status"] == "completed" and metrics["end_reason"] == "end_session", name
        assert metrics["edits_failed"] == 0 and metrics["edits_ok"] >= 4, (name, metrics)
        calls.update(metrics["tool_calls"])
    assert set(calls) == {"read_document", "propose_edits", "add_comment", "mark_reserved", "end_session"}
    assert calls["add_comment"] >= len(runs) + 4       # new threads, and replies on turns 2-4


def test_graded_llm_outputs_pass_the_audit_with_no_finding(runs):
    for name, _src, _out, _author, grade in runs:
        assert grade["gate"]["passed"] is True, (name, grade["gate"])
        assert grade["integrity"]["passed"] is True and grade["integrity"]["findings"] == [], (name, grade["integrity"])
    assert _findings([(n, s, o, a) for n, s, o, a, _g in runs]) == {}


def test_python_docx_open_and_save_of_llm_outputs_adds_no_finding(runs):
    assert _findings([(n, s, python_docx_roundtrip(o), a) for n, s, o, a, _g in runs]) == {}


@pytest.mark.libreoffice
def test_libreoffice_open_and_save_of_llm_outputs_adds_no_finding(runs, soffice, tmp_path):
    from tests.fixtures.libreoffice import round_trip_docx

    stems = {f"llm{i:02d}": item for i, item in enumerate(runs)}
    saved = round_trip_docx(soffice, {stem: item[2] for stem, item in stems.items()}, tmp_path)
    assert _findings([(item[0], item[1], saved[stem], item[3]) for stem, item in stems.items()]) == {}
