"""What the model reads: partial reads, edit results that carry the new lines, text sent as text,
author aliases that stay put, the read-view cache."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.docx.build import sample_contract
from redlinebench.tools import ToolSession, tool_message

US = "Reviewing Counsel (LargeCo Legal)"
THEM = "Counterparty Counsel"
DATE = datetime(2026, 3, 1, tzinfo=timezone.utc)
_DATA = sample_contract(80, seed=3, other_author=THEM).to_bytes()


@pytest.fixture
def session(tmp_path) -> ToolSession:
    doc = RedlineDocument.open(_DATA, name="contract.docx")
    return ToolSession(doc, US, output_path=tmp_path / "out.docx", date=DATE)


def _ids(view: str) -> list[str]:
    return re.findall(r"^\[(p-\d+)\]", view, re.MULTILINE)


def _line(view: str, pid: str) -> str:
    return next(line for line in view.splitlines() if line.startswith(f"[{pid}] "))


def _block(view: str, pid: str) -> str:
    """The line of ``pid`` and the comment threads that follow it."""
    lines = view.splitlines()
    k = lines.index(_line(view, pid))
    end = k + 1
    while end < len(lines) and lines[end].startswith("cmt-"):
        end += 1
    return "\n".join(lines[k:end])


def _fresh(session: ToolSession, pid: str) -> str:
    """The block of ``pid`` (its line and threads) in a new read of just that paragraph."""
    view = session.dispatch("read_document", {"start_id": pid, "end_id": pid})["view"]
    assert _ids(view) == [pid]
    return _block(view, pid)


def test_a_partial_read_returns_exactly_the_asked_range(session):
    whole = session.dispatch("read_document", {})["view"]
    every = _ids(whole)
    part = session.dispatch("read_document", {"start_id": "p-012", "end_id": "[P-15]"})["view"]
    assert _ids(part) == ["p-012", "p-013", "p-014", "p-015"]
    for pid in _ids(part):   # each line as the whole read shows it
        assert _line(part, pid) == _line(whole, pid)
    assert "paragraphs p-012..p-015 of 80" in part.splitlines()[0]
    assert _ids(session.dispatch("read_document", {"start_id": "p-078"})["view"]) == every[77:]
    assert _ids(session.dispatch("read_document", {"end_id": "p-003"})["view"]) == every[:3]


def test_a_clause_read_is_the_clause_and_its_sub_clauses(session):
    view = session.dispatch("read_document", {"clause": "3"})["view"]
    assert _ids(view) == ["p-011", "p-012", "p-013", "p-014", "p-015"]   # 3, 3.1, 3.2, (a), (b)
    assert "(clause 3)" in view.splitlines()[0]
    # 6.3 runs through 6.3.1 and the fee table after it, up to clause 7
    assert _ids(session.dispatch("read_document", {"clause": "6.3."})["view"]) == [f"p-{i:03d}" for i in range(28, 39)]
    assert _ids(session.dispatch("read_document", {"clause": "2.1"})["view"]) == ["p-008", "p-009", "p-010"]
    assert _ids(session.dispatch("read_document", {"clause": "Section 2.1"})["view"]) == ["p-008", "p-009", "p-010"]


def test_a_partial_read_shows_only_its_own_comments_and_changes(session):
    pid = next(p.id for p in session.doc.paragraphs if p.revision_ids)
    assert session.dispatch("add_comment", {"paragraph_id": "p-002", "text": "Elsewhere."})["status"] == "ok"
    here = session.dispatch("add_comment", {"paragraph_id": pid, "text": "Here."})["comment_id"]
    view = session.dispatch("read_document", {"start_id": pid, "end_id": pid})["view"]
    body = view.split("\n\n", 1)[1]
    assert body.splitlines() == [_line(view, pid), f"{here} A2: Here."]   # its thread, nothing else
    assert "}A1" in body and "Elsewhere." not in view and "## " not in body


@pytest.mark.parametrize(("args", "message"), [
    ({"start_id": "p-999"}, "start_id: no paragraph 'p-999'; the ids run p-001..p-080"),
    ({"start_id": "p-001", "end_id": "nonsense"}, "end_id: no paragraph 'nonsense'; the ids run p-001..p-080"),
    ({"start_id": "p-020", "end_id": "p-010"}, "start_id p-020 comes after end_id p-010"),
    ({"clause": "3", "start_id": "p-001"}, "give either clause or start_id/end_id, not both"),
    ({"clause": "3.9"}, "no clause numbered '3.9'; clause numbers are like: 3, 3.1, 3.2"),
    ({"clause": ""}, "no clause numbered ''"),
    ({"clause": "(z)"}, "no clause numbered '(z)'"),
])
def test_bad_ranges_are_clear_errors(session, args, message):
    result = session.dispatch("read_document", args)
    assert result["error"] == "invalid_range" and result["message"].startswith(message), result


def test_edit_results_carry_the_touched_paragraphs_as_a_fresh_read_shows_them(session):
    session.dispatch("read_document", {})
    doc = session.doc
    p1, p2 = (p for p in doc.paragraphs if p.number == "1.1" or p.number == "2.1")
    edits = [{"op": "replace", "anchor": {"paragraph_id": p1.id, "text": p1.text.split()[1]}, "new_text": "every",
              "comment": "Mutual."},
             {"op": "insert_after", "anchor": {"paragraph_id": p2.id, "text": p2.text},
              "new_text": "\nThe parties shall cooperate in good faith.", "comment": "New clause."},
             {"op": "delete", "anchor": {"paragraph_id": p2.id, "text": "no such words"}, "comment": "x"}]
    result = session.dispatch("propose_edits", {"edits": edits})
    assert [r["status"] for r in result["results"]] == ["ok", "ok", "anchor_failed"]
    new = result["results"][1]["new_paragraph_ids"]
    assert _ids(result["view"]) == sorted([p1.id, p2.id, *new])
    blocks = [_fresh(session, pid) for pid in (p1.id, p2.id, *new)]
    assert result["view"] == "\n".join(blocks) + "\n"   # each paragraph's line and threads, nothing else
    assert "every}A2" in _line(result["view"], p1.id) and "cooperate in good faith" in result["view"]
    assert "A2: Mutual." in result["view"] and "A2: New clause." in result["view"]

    reply = session.dispatch("add_comment", {"paragraph_id": p1.id, "span": "every", "text": "See above."})
    assert reply["status"] == "ok" and f"{reply['comment_id']} A2: See above." in reply["view"]
    assert reply["view"] == _fresh(session, p1.id) + "\n"

    reserved = session.dispatch("mark_reserved", {"start_id": "p-019", "end_id": "p-021", "comment": "Not needed."})
    assert reserved["status"] == "ok"
    fresh = session.dispatch("read_document", {"start_id": "p-019", "end_id": "p-021"})["view"]
    assert reserved["view"] == fresh.split("\n\n", 1)[1]   # the struck paragraphs and the thread on them
    assert reserved["view"].splitlines()[1].endswith("A2: Not needed.")
    assert "Reserved." in reserved["view"]


def test_a_reply_shows_the_thread_paragraph(session):
    first = session.dispatch("add_comment", {"paragraph_id": "p-004", "text": "Why?"})
    reply = session.dispatch("add_comment", {"reply_to": first["comment_id"], "text": "Because."})
    assert reply["status"] == "ok" and _ids(reply["view"]) == ["p-004"]
    assert reply["view"].endswith(_fresh(session, "p-004") + "\n")
    assert reply["view"].splitlines()[-2:] == [f"{first['comment_id']} A2: Why?",
                                              f"{reply['comment_id']} A2 reply to {first['comment_id']}: Because."]


def test_results_go_to_the_model_as_text_beside_small_json(session):
    read = session.dispatch("read_document", {})
    message = tool_message(read)
    assert message == read["view"] and message.startswith("# contract.docx: 80 paragraphs.")
    assert '\\"' not in message and "\\n" not in message   # nothing escaped
    pid = session.doc.paragraphs[3].id
    word = session.doc.paragraphs[3].text.split()[1]
    result = session.dispatch("propose_edits", {"edits": [
        {"op": "replace", "anchor": {"paragraph_id": pid, "text": word}, "new_text": "each", "comment": "Why."}]})
    head, blank, view = tool_message(result).partition("\n\n")
    assert blank and json.loads(head) == {k: v for k, v in result.items() if k != "view"} and view == result["view"]
    error = session.dispatch("read_document", {"clause": "99"})
    assert json.loads(tool_message(error))["error"] == "invalid_range"


def test_aliases_are_short_stable_and_mark_the_reader(session):
    view = session.dispatch("read_document", {})["view"]
    assert "# A1 = Counterparty Counsel\n# A2 (you) = Reviewing Counsel (LargeCo Legal)\n" in view
    assert "}Counterparty" not in view and "}A1" in view   # inline tags use the alias
    pid = next(p.id for p in session.doc.paragraphs if not p.revision_ids and len(p.text.split()) > 4)
    word = session.doc.paragraph(pid).text.split()[2]
    result = session.dispatch("propose_edits", {"edits": [
        {"op": "delete", "anchor": {"paragraph_id": pid, "text": word, "occurrence": 1}, "comment": "Unneeded."}]})
    assert re.search(r"\{-[^}]*\}A2", result["view"])   # our change under our alias
    assert not result["view"].startswith("#")   # the model already has the legend
    again = session.dispatch("read_document", {})["view"]
    legend = "# A1 = Counterparty Counsel\n# A2 (you) = Reviewing Counsel (LargeCo Legal)"
    assert again.split("\n\n")[0].endswith(legend)


def test_an_edit_before_any_read_brings_the_legend(session):
    pid = "p-004"
    word = session.doc.paragraph(pid).text.split()[1]
    result = session.dispatch("propose_edits", {"edits": [
        {"op": "replace", "anchor": {"paragraph_id": pid, "text": word}, "new_text": "each", "comment": "Why."}]})
    assert result["view"].startswith("# Authors:\n# A1 = Counterparty Counsel\n# A2 (you) = ")


def test_the_header_names_the_file_never_a_host_path(tmp_path):
    path = tmp_path / "deep" / "folder" / "contract.docx"
    path.parent.mkdir(parents=True)
    path.write_bytes(_DATA)
    view = RedlineDocument.open(path).read_view()
    assert view.startswith("# contract.docx: ") and str(tmp_path) not in view


def test_a_repeated_read_is_answered_from_the_cache_until_an_edit(session):
    doc = session.doc
    first = doc.read_view(reader=US)
    assert doc.read_view(reader=US) is first   # the same string: nothing was rebuilt
    assert doc.read_view(reader=US, first=3, last=5) is doc.read_view(reader=US, first=3, last=5)
    word = doc.paragraphs[3].text.split()[1]
    session.dispatch("propose_edits", {"edits": [
        {"op": "replace", "anchor": {"paragraph_id": "p-004", "text": word}, "new_text": "each", "comment": "Why."}]})
    after = doc.read_view(reader=US)
    assert after is not first and "each}A2" in after
    session.dispatch("add_comment", {"paragraph_id": "p-002", "text": "A note."})
    assert "A note." in doc.read_view(reader=US)
    doc.accept()
    assert "each}A2" not in doc.read_view(reader=US)


def test_a_paragraph_an_edit_removed_is_named_not_shown(session):
    p = session.doc.paragraph("p-004")
    added = session.dispatch("propose_edits", {"edits": [
        {"op": "insert_after", "anchor": {"paragraph_id": p.id, "text": p.text},
         "new_text": "\nA clause of ours.", "comment": "New."}]})
    new_id = added["results"][0]["new_paragraph_ids"][0]
    assert _line(added["view"], new_id).startswith(f"[{new_id}] ")
    gone = session.dispatch("propose_edits", {"edits": [
        {"op": "delete", "anchor": {"paragraph_id": new_id, "text": "A clause of ours."}, "comment": "Withdrawn."}]})
    # taking back all of one's own insertion removes the paragraph: named, and no empty view is sent
    assert gone["results"][0]["status"] == "ok" and new_id not in session.doc.paragraph_ids()
    assert gone["removed_paragraph_ids"] == [new_id] and "view" not in gone
    assert json.loads(tool_message(gone))["removed_paragraph_ids"] == [new_id]
