"""Anchors quoted the way a model quotes them, through the real tool session on an embedded task.

Two reviewer findings: whitespace at the edge of an anchor was part of the replaced span (so
"For ninety (90) days after" became "For120 days after"), and a line copied from read_document
with its clause number ("13.4 Transition. ...") did not match unless read_document had been
called in the same session.
"""

from __future__ import annotations

import json

import pytest

from redlinebench import load_tasks
from redlinebench.agent.llm import open_document_tools

PID = "p-092"
BEFORE = ("Transition. For ninety (90) days after termination, Provider shall provide reasonable transition "
          "assistance at no additional charge.")
TAIL = " after termination, Provider shall provide reasonable transition assistance at no additional charge."


@pytest.fixture(scope="module")
def task():
    return load_tasks("embedded").get("redline-s1-t2-g01a")


def _session(task, tmp_path, *, read: bool = True):
    tools = open_document_tools(task, tmp_path / "out.docx")
    if read:
        view = tools.dispatch("read_document", "{}")["view"]
        assert f"[{PID}] 13.4 {BEFORE}" in view   # the line a model copies from
    return tools


def _propose(tools, op: str, text: str, new_text: str | None = None) -> dict:
    edit = {"op": op, "anchor": {"paragraph_id": PID, "text": text}, "comment": "Per our playbook."}
    if new_text is not None:
        edit["new_text"] = new_text
    (result,) = tools.dispatch("propose_edits", json.dumps({"edits": [edit]}))["results"]
    return result


def _text(tools, mode: str = "accepted") -> str:
    para = next(p for p in tools.doc.paragraphs if p.id == PID)
    return para.accepted_text if mode == "accepted" else para.original_text


@pytest.mark.parametrize("op, text, new_text, expected", [
    ("replace", " ninety (90) days", "120 days", "Transition. For 120 days" + TAIL),
    ("replace", "ninety (90) days ", "120 days", "Transition. For 120 days" + TAIL),
    ("replace", " ninety (90) days ", "120 days", "Transition. For 120 days" + TAIL),
    ("replace", " ninety (90) days", " 120 days", "Transition. For 120 days" + TAIL),
    ("replace", "ninety (90) days ", "120 days ", "Transition. For 120 days" + TAIL),
    ("replace", " ninety (90) days ", " 120 days ", "Transition. For 120 days" + TAIL),
    ("replace", " ninety (90) days ", "", "Transition. For" + TAIL),
    ("delete", " ninety (90) days", None, "Transition. For" + TAIL),
    ("delete", "ninety (90) days ", None, "Transition. For" + TAIL),
    ("delete", " ninety (90) days ", None, "Transition. For" + TAIL),
    ("insert_after", "For ninety (90) days ", "or such longer period as Customer requests ",
     "Transition. For ninety (90) days or such longer period as Customer requests" + TAIL),
    ("insert_after", "ninety (90) days ", "or longer", "Transition. For ninety (90) days or longer" + TAIL),
])
def test_edge_whitespace_keeps_one_separator(task, tmp_path, op, text, new_text, expected):
    tools = _session(task, tmp_path)
    result = _propose(tools, op, text, new_text)
    assert result["status"] == "ok", result
    assert _text(tools) == expected
    assert _text(tools, "original") == BEFORE   # rejecting everything gives the input back
    ended = tools.dispatch("end_session", "{}")
    assert "error" not in ended, ended   # saved and validated


@pytest.mark.parametrize("read", [True, False], ids=["after-read", "without-read"])
@pytest.mark.parametrize("op, text, new_text, expected", [
    ("replace", "13.4 Transition. For ninety (90) days", "13.4 Transition. For 120 days",
     "Transition. For 120 days" + TAIL),
    ("replace", "13.4 Transition.", "Handover.", "Handover. For ninety (90) days" + TAIL),
    ("delete", "13.4 Transition.", None, "For ninety (90) days" + TAIL),
    ("insert_after", "13.4 Transition.", "Exit.", "Transition. Exit. For ninety (90) days" + TAIL),
])
def test_anchor_with_the_views_clause_number(task, tmp_path, read, op, text, new_text, expected):
    tools = _session(task, tmp_path, read=read)
    result = _propose(tools, op, text, new_text)
    assert result["status"] == "ok", result
    assert _text(tools) == expected


@pytest.mark.parametrize("text", [
    "13.5 Transition.",                    # not this paragraph's number
    "13.4 after termination, Provider",    # the number only precedes the paragraph's start
])
def test_clause_number_is_dropped_only_when_it_is_this_paragraphs_and_leads(task, tmp_path, text):
    tools = _session(task, tmp_path)
    result = _propose(tools, "replace", text, "x")
    assert result["status"] == "anchor_failed" and result["error"].startswith("text_not_found"), result
    assert _text(tools) == BEFORE
