"""Anchors quoted the way a model quotes them, through the real tool session on an embedded task.

Reviewer finding: whitespace at the edge of an anchor was part of the replaced span (so
"For ninety (90) days after" became "For120 days after").
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
        view = tools.dispatch("read_document", "{}")["document"]
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
