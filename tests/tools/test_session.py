"""ToolSession.dispatch over a real document: results, structured errors, limits, stats, save."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redlinebench.docx import RedlineDocument
from redlinebench.tools import TOOL_NAMES, ToolLimits, ToolSession
from tests.fixtures.audit import new_audit_errors
from tests.fixtures.corpus import COMMENTS, CORPUS, PRIOR_CHANGES, US

DATE = datetime(2026, 3, 1, tzinfo=timezone.utc)


@pytest.fixture
def session(tmp_path) -> ToolSession:
    doc = RedlineDocument.open(PRIOR_CHANGES.data(), name="contract.docx")
    return ToolSession(doc, US, output_path=tmp_path / "out.docx", date=DATE)


def _edit(pid: str, text: str, new: str | None = "x", op: str = "replace", comment: str = "Because.") -> dict:
    edit = {"op": op, "anchor": {"paragraph_id": pid, "text": text}, "comment": comment}
    if new is not None:
        edit["new_text"] = new
    return edit


def test_read_document(session):
    result = session.dispatch("read_document", "{}")
    assert list(result) == ["view"]   # the view alone: the model gets it as plain text
    assert "[p-001]" in result["view"] and f": {len(session.doc.paragraphs)} paragraphs." in result["view"]
    assert session.dispatch("read_document", None)["view"] == result["view"]
    assert session.dispatch("read_document", "")["view"] == result["view"]


def test_propose_edits_and_stats(session):
    pid = session.doc.paragraphs[0].id
    args = json.dumps({"edits": [_edit(pid, "sixty (60)", "forty-five (45)"), _edit(pid, "absent text")]})
    result = session.dispatch("propose_edits", args)
    assert [r["status"] for r in result["results"]] == ["ok", "anchor_failed"]
    assert result["applied"] == 1 and result["failed"] == 1
    assert session.doc.paragraphs[0].text == "Fees are payable within forty-five (45) days of invoice."
    stats = session.stats
    assert stats["edits_ok"] == 1 and stats["edits_failed"] == 1 and stats["errors"] == 0
    assert stats["calls_by_tool"] == {"propose_edits": 1}


def test_comments_added_counts_the_comments_edits_carry_like_the_grade_does(session):
    from redlinebench.scoring._diagnostics import document_diagnostics

    p1, p2 = session.doc.paragraphs[0].id, session.doc.paragraphs[1].id
    result = session.dispatch("propose_edits", {"edits": [_edit(p1, "sixty (60)", "forty-five (45)"),
                                                          _edit(p2, "promptly", "immediately"),
                                                          _edit(p1, "absent text")]})
    assert [r["status"] for r in result["results"]] == ["ok", "ok", "anchor_failed"]
    assert session.dispatch("add_comment", {"text": "See clause 2.", "paragraph_id": p2})["status"] == "ok"
    assert session.stats["comments_added"] == 3  # two edits' comments and one thread
    assert document_diagnostics(session.doc, US)["comments_added"] == 3
    assert session.dispatch("end_session", {})["comments_added"] == 3


def test_unknown_paragraph_is_an_edit_result_not_an_error(session):
    result = session.dispatch("propose_edits", {"edits": [_edit("p-999", "Vendor")]})
    (r,) = result["results"]
    assert r["status"] == "anchor_failed" and r["error"].startswith("paragraph_not_found")


@pytest.mark.parametrize("given_id", ["[p-2]", "p-2", "P-0002", " p-002 "])
def test_paragraph_ids_are_normalised(session, given_id):
    result = session.dispatch("propose_edits", {"edits": [_edit(given_id, "promptly", "immediately")]})
    assert result["results"][0]["status"] == "ok", result
    assert "immediately" in session.doc.paragraphs[1].text


@pytest.mark.parametrize("arguments,code,fragment", [
    ("{not json", "invalid_json", "not valid JSON"),
    ("[1, 2]", "invalid_arguments", "must be a JSON object"),
    ('"text"', "invalid_arguments", "must be a JSON object"),
    ({"edits": []}, "invalid_arguments", "edits is empty"),
    ({"edits": "replace all"}, "invalid_arguments", "must be a JSON array"),
    ({"edits": [{"op": "replace", "anchor": {"paragraph_id": "p-001"}, "new_text": "x", "comment": "c"}]},
     "invalid_arguments", "anchor.text is required"),
    ({"edits": [{"op": "delete", "anchor": {"paragraph_id": "p-001", "text": "x"}}]}, "invalid_arguments",
     "comment is required"),
    ({"edits": [{"op": "delete", "anchor": {"paragraph_id": "p-001", "text": "x", "offset": 3}, "comment": "c"}]},
     "invalid_arguments", "unknown field 'offset'"),
])
def test_bad_arguments_are_structured_errors(session, arguments, code, fragment):
    before = session.doc.to_bytes()
    result = session.dispatch("propose_edits", arguments)
    assert result["error"] == code and fragment in result["message"], result
    assert session.doc.to_bytes() == before  # nothing applied
    assert session.stats["errors"] == 1


@pytest.mark.parametrize("bad,fragment", [
    ({"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "x"}, "comment": "c"},
     "new_text is required for replace"),
    ({"op": "delete", "anchor": {"paragraph_id": "p-001", "text": "x"}, "new_text": "y", "comment": "c"},
     "delete takes no new_text"),
    ({"op": "delete", "anchor": {"paragraph_id": "p-001", "text": "x"}, "comment": "  "}, "comment is empty"),
    ({"op": "insert_after", "anchor": {"paragraph_id": "p-001", "text": "x"}, "new_text": " ", "comment": "c"},
     "nothing to insert"),
    ({"op": "delete", "anchor": {"paragraph_id": "p-001", "text": "x", "occurrence": 0}, "comment": "c"},
     "occurrence must be 1 or more"),
])
def test_an_edit_with_bad_arguments_fails_alone_and_the_others_apply(session, bad, fragment):
    """SPEC §4: edits apply in order, independently; a bad one is its own failed result."""
    result = session.dispatch("propose_edits", {"edits": [bad, _edit("p-2", "promptly", "immediately")]})
    first, second = result["results"]
    assert first["status"] == "runtime_error" and first["error"].startswith("invalid_arguments: ")
    assert fragment in first["error"] and "arguments.edits[0]" in first["error"]
    assert second["status"] == "ok" and "immediately" in session.doc.paragraphs[1].text
    assert (result["applied"], result["failed"]) == (1, 1)


def test_limits(tmp_path):
    doc = RedlineDocument.open(PRIOR_CHANGES.data())
    s = ToolSession(doc, US, limits=ToolLimits(max_edits_per_batch=2, max_text_chars=10, max_comment_chars=20,
                                               max_argument_chars=2000))
    pid = doc.paragraphs[0].id
    r = s.dispatch("propose_edits", {"edits": [_edit(pid, "a")] * 3})
    assert r["error"] == "batch_too_large" and r["limit"] == 2
    r = s.dispatch("propose_edits", {"edits": [_edit(pid, "sixty", "x" * 11)]})  # a per-edit failure
    assert r["results"][0]["error"].startswith("text_too_long: arguments.edits[0].new_text has 11 characters")
    r = s.dispatch("propose_edits", {"edits": [_edit(pid, "sixty", "y", comment="c" * 21)]})
    assert r["results"][0]["error"].startswith("text_too_long: arguments.edits[0].comment")
    r = s.dispatch("add_comment", {"text": "t" * 21, "paragraph_id": pid})
    assert r["error"] == "text_too_long"
    r = s.dispatch("propose_edits", json.dumps({"edits": [_edit(pid, "z" * 3000)]}))
    assert r["error"] == "arguments_too_large"
    assert s.stats["errors"] == 3 and s.stats["edits_ok"] == 0 and s.stats["edits_failed"] == 2


def test_unknown_tool_and_odd_names(session):
    for name in ("delete_everything", None, 42, ""):
        result = session.dispatch(name, "{}")  # type: ignore[arg-type]
        assert result["error"] == "unknown_tool" and "read_document" in result["message"]
    assert session.stats["calls_by_tool"] == {"<unknown>": 4}


def test_add_comment_thread_and_reply(tmp_path):
    doc = RedlineDocument.open(COMMENTS.data())
    s = ToolSession(doc, US, date=DATE)
    pid = doc.paragraphs[2].id
    new = s.dispatch("add_comment", {"text": "Please confirm.", "paragraph_id": pid, "span": "in writing"})
    assert new["status"] == "ok" and new["comment_id"].startswith("cmt-")
    root = doc.comments[0].id
    reply = s.dispatch("add_comment", {"text": "Agreed.", "reply_to": root})
    assert reply["status"] == "ok"
    by_id = {c.id: c for c in doc.comments}
    assert by_id[reply["comment_id"]].parent == root and by_id[new["comment_id"]].anchor_text == "in writing"
    assert s.dispatch("add_comment", {"text": "x"})["error"] == "invalid_arguments"
    assert s.dispatch("add_comment", {"text": "x", "paragraph_id": pid, "reply_to": root})["error"] == \
        "invalid_arguments"
    assert s.dispatch("add_comment", {"text": "x", "reply_to": "cmt-999"}).get("error")
    assert s.dispatch("add_comment", {"text": "x", "paragraph_id": "p-999"}).get("error")
    assert s.dispatch("add_comment", {"text": "x", "paragraph_id": pid, "span": "no such span"}).get("error")
    assert s.stats["comments_added"] == 2


def test_mark_reserved(tmp_path):
    doc = RedlineDocument.open(CORPUS["clauses"].data())
    s = ToolSession(doc, US, date=DATE)
    ids = {p.text: p.id for p in doc.paragraphs}
    result = s.dispatch("mark_reserved", {"start_id": ids["Email support within one day."],
                                          "end_id": ids["Phone support within four hours."],
                                          "comment": "Not needed."})
    assert "error" not in result, result
    assert "Reserved." in doc.text("accepted")
    bad = s.dispatch("mark_reserved", {"start_id": "p-999", "end_id": "p-999", "comment": "x"})
    assert bad.get("error")


def test_end_session_saves_validates_and_closes(session, tmp_path):
    pid = session.doc.paragraphs[0].id
    session.dispatch("propose_edits", {"edits": [_edit(pid, "invoice", "receipt")]})
    result = session.dispatch("end_session", {"summary": "Changed the payment trigger."})
    assert result["status"] == "saved" and result["valid"] is True and result["validation_errors"] == []
    assert result["path"] == "out.docx"  # no host path for the model; a runner may move the file
    saved = RedlineDocument.open(tmp_path / "out.docx")
    assert "receipt" in saved.text("accepted")
    audit_dir = tmp_path.parent / f"{tmp_path.name}-audit"
    audit_dir.mkdir()
    assert new_audit_errors(PRIOR_CHANGES.data(), (tmp_path / "out.docx").read_bytes(), audit_dir) == []
    assert [p.name for p in tmp_path.iterdir()] == ["out.docx"]  # no temp files left
    again = session.dispatch("read_document", {})
    assert again["error"] == "session_finished"
    assert session.finished and session.stats["finished"] is True


def test_end_session_save_failure_keeps_session_open(tmp_path):
    doc = RedlineDocument.open(PRIOR_CHANGES.data())
    s = ToolSession(doc, US, output_path=tmp_path / "missing-dir" / "out.docx")
    result = s.dispatch("end_session", {})
    assert result["error"] == "save_failed" and not s.finished
    assert "out.docx" in result["message"] and str(tmp_path) not in result["message"]   # no host path
    s.output_path = tmp_path / "ok.docx"
    assert s.dispatch("end_session", {})["status"] == "saved"


def test_internal_errors_never_escape(session, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(session.doc, "apply_edits", boom)
    pid = session.doc.paragraphs[0].id
    result = session.dispatch("propose_edits", {"edits": [_edit(pid, "invoice")]})
    assert result["error"] == "internal_error" and "engine exploded" in result["message"]
    assert session.stats["internal_errors"] == 1 and "RuntimeError" in (session.last_exception or "")


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                   max_size=4), max_leaves=12)
_edit_like = st.fixed_dictionaries({
    "op": st.sampled_from(["replace", "delete", "insert_after", "x"]),
    "anchor": st.fixed_dictionaries({"paragraph_id": st.sampled_from(["p-001", "p-002", "p-999", "", "[p-3]"]),
                                     "text": st.sampled_from(["sixty", "Vendor", "", " ", "payments", "\x00x"])},
                                    optional={"occurrence": st.integers(-1, 3), "context_before": st.text(max_size=5)}),
}, optional={"new_text": st.text(max_size=15), "comment": st.text(max_size=10)})


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from([*TOOL_NAMES, "nope"]),
       arguments=st.one_of(_json, st.text(max_size=40), st.fixed_dictionaries({"edits": st.lists(_edit_like,
                                                                                                   max_size=3)})))
def test_dispatch_never_raises(name, arguments):
    doc = RedlineDocument.open(_CACHED)
    s = ToolSession(doc, US, date=DATE)
    result = s.dispatch(name, arguments)
    assert isinstance(result, dict)
    if "error" in result:
        assert isinstance(result["error"], str) and isinstance(result["message"], str)
        assert result["error"] != "internal_error", result
    json.dumps(result)


_CACHED = PRIOR_CHANGES.data()


def test_insert_after_does_what_the_schema_says():
    doc = RedlineDocument.open(CORPUS["clauses"].data())
    s = ToolSession(doc, US, date=DATE)
    by_text = {p.text: p.id for p in doc.paragraphs}
    n = len(doc.paragraphs)
    whole = "Service credits apply."
    r = s.dispatch("propose_edits", {"edits": [
        _edit(by_text[whole], whole, "Credits are the sole remedy.", op="insert_after"),
        _edit(by_text["Fees are payable within thirty (30) days."], "(30) days.",
              "\nLate fees accrue monthly.\nInterest is capped.", op="insert_after"),
        _edit(by_text["Second exception."], "Second", " and final", op="insert_after"),
    ]})
    assert [x["status"] for x in r["results"]] == ["ok", "ok", "ok"], r
    texts = [p.text for p in doc.paragraphs]
    assert len(texts) == n + 3
    assert texts[texts.index(whole) + 1] == "Credits are the sole remedy."
    i = texts.index("Fees are payable within thirty (30) days.")
    assert texts[i + 1: i + 3] == ["Late fees accrue monthly.", "Interest is capped."]
    assert "Second and final exception." in texts


def test_an_ambiguous_comment_span_asks_for_a_longer_span_not_for_fields_it_lacks(session):
    # p-011 reads "Support covers email support only.": "upport" occurs twice
    result = session.dispatch("add_comment", {"text": "which one?", "paragraph_id": "p-011", "span": "upport"})
    assert result["error"] == "ambiguous" and "longer span" in result["message"]
    assert "context_before" not in result["message"] and "occurrence" not in result["message"]


def test_escaped_lone_surrogates_in_arguments_never_reach_a_result():
    import json as _json

    from redlinebench.docx import RedlineDocument
    from redlinebench.tools import ToolSession
    from tests.docx.util import docx, p

    session = ToolSession(RedlineDocument.open(docx(p("Fees are due.")), name="t.docx"), "Me")
    result = session.dispatch("propose_edits", '{"edits": [{"op": "replace", "anchor": {"paragraph_id": '
                                               '"p-0\\ud800", "text": "Fees"}, "new_text": "x", "comment": "c"}], '
                                               '"\\udc00extra": 1}')
    _json.dumps(result, ensure_ascii=False).encode("utf-8")  # would raise on a lone surrogate
    assert "\ufffd" in _json.dumps(result, ensure_ascii=False)


@pytest.mark.parametrize("given_id", ["p-" + "1" * 5000, "[P-" + "9" * 4301 + "]", "p-" + "0" * 5000 + "1" * 13])
def test_a_paragraph_id_with_thousands_of_digits_is_not_found_not_an_internal_error(session, given_id):
    """int() refuses over 4,300 digits: that ValueError escaped as internal_error."""
    before = session.doc.to_bytes()
    (r,) = session.dispatch("propose_edits", {"edits": [_edit(given_id, "Vendor")]})["results"]
    assert r["status"] == "anchor_failed" and r["error"].startswith("paragraph_not_found"), r
    assert session.dispatch("add_comment", {"paragraph_id": given_id, "text": "c"})["error"] == "paragraph_not_found"
    result = session.dispatch("mark_reserved", {"start_id": given_id, "end_id": given_id, "comment": "c"})
    assert result["error"] == "paragraph_not_found"
    assert session.stats["errors"] == 2 and session.doc.to_bytes() == before
    # nothing echoes the whole id back into the model's context
    import json

    for reply in (r, session.dispatch("add_comment", {"paragraph_id": given_id, "text": "c"}), result):
        assert len(json.dumps(reply)) < 1000, reply  # was over 5,000: the id twice
    # leading zeros still do not count: p-000…0002 is p-002
    ok = session.dispatch("propose_edits", {"edits": [_edit("p-" + "0" * 5000 + "2", "promptly", "immediately")]})
    assert ok["results"][0]["status"] == "ok"


def _gate(path):
    from redlinebench.judge._gate import gate

    return gate(path, US)


@pytest.mark.parametrize("limit", ["part_bytes", "paragraphs"])
def test_end_session_is_not_valid_when_the_grading_gate_would_refuse_the_saved_document(tmp_path, monkeypatch, limit):
    """The engine's own limits, lowered so a few edits cross them: end_session must agree with
    the gate's open, not report valid: true for a document that then scores 0."""
    from redlinebench.docx import document, package

    doc = RedlineDocument.open(PRIOR_CHANGES.data(), name="contract.docx")
    s = ToolSession(doc, US, output_path=tmp_path / "out.docx", date=DATE)
    first = doc.paragraphs[0]
    result = s.dispatch("propose_edits", {"edits": [
        {"op": "insert_after", "anchor": {"paragraph_id": first.id, "text": first.text},
         "new_text": "\n".join(["Added clause."] * 40), "comment": "More."}]})
    assert result["applied"] == 1
    if limit == "part_bytes":
        monkeypatch.setattr(package, "MAX_XML_PART_BYTES", len(doc.package.blob(doc.package.main_part)) - 1)
    else:
        monkeypatch.setattr(document, "MAX_PARAGRAPHS", 40)
    result = s.dispatch("end_session", {})
    assert result["status"] == "saved" and result["valid"] is False, result
    assert result["validation_errors"][0].startswith("unopenable:")
    assert ("limit" in result["validation_errors"][0]) and s.finished
    assert not _gate(tmp_path / "out.docx").passed  # the gate agrees


def test_end_session_stays_valid_for_a_normal_document_the_gate_accepts(session, tmp_path):
    session.dispatch("propose_edits", {"edits": [_edit(session.doc.paragraphs[0].id, "invoice", "receipt")]})
    result = session.dispatch("end_session", {})
    assert result["valid"] is True and result["validation_errors"] == []
    assert _gate(tmp_path / "out.docx").passed


@pytest.mark.slow
def test_edits_that_would_outgrow_the_open_limits_are_refused_so_the_output_reopens(tmp_path):
    """The real case: 50 insert_after edits of 2,000 lines each (one batch within the tool limits)
    once made a document.xml over the 25 MB part limit, which the gate could not open (issue 17:
    the engine now refuses the edits that would take a part past the open limits)."""
    doc = RedlineDocument.open(PRIOR_CHANGES.data(), name="contract.docx")
    s = ToolSession(doc, US, output_path=tmp_path / "out.docx", date=DATE)
    first = doc.paragraphs[0]
    edit = {"op": "insert_after", "anchor": {"paragraph_id": first.id, "text": first.text},
            "new_text": "\n".join(["x"] * 2000), "comment": "c"}
    out = s.dispatch("propose_edits", {"edits": [edit] * 50})
    assert 0 < out["applied"] < 50
    assert "document_too_large" in str(out)
    result = s.dispatch("end_session", {})
    assert result["valid"] is True, result
    assert _gate(tmp_path / "out.docx").passed


def test_hostile_ops_and_field_names_are_not_echoed_whole():
    import json as _json

    from redlinebench.docx import RedlineDocument
    from redlinebench.tools import ToolSession
    from tests.docx.util import docx, p

    session = ToolSession(RedlineDocument.open(docx(p("Fees are due.")), name="t.docx"), "Me")
    big = "x" * 20000
    out = session.dispatch("propose_edits", {"edits": [{"op": big, "anchor": {"paragraph_id": "p-001", "text": "F"},
                                                        "comment": "c"}]})
    assert len(_json.dumps(out)) < 1000 and "(20002 characters)" in _json.dumps(out), out
    out = session.dispatch("add_comment", {"paragraph_id": "p-001", "text": "c", big: 1})
    assert out["error"] == "invalid_arguments" and len(_json.dumps(out)) < 1000, out
    out = session.dispatch("add_comment", {"reply_to": big, "text": "c"})
    assert len(_json.dumps(out)) < 1000, out
