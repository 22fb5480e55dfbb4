"""Issue 17: ids bounded by one rule, the gate counts anchored work only, parts checked at open."""

from __future__ import annotations

import io
import zipfile

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.docx.build import sample_contract
from redlinebench.errors import DocxError, ToolFailure, bounded_id, echoed, id_number, shown
from redlinebench.judge import gate
from redlinebench.tools import ToolSession

AUTHOR = "Reviewing Counsel"


@pytest.fixture()
def doc():
    d = RedlineDocument.open(sample_contract(20, seed=3).to_bytes())
    d.add_comment(author="Other Side", text="Please confirm.", paragraph_id="p-004")
    return d


@pytest.mark.parametrize("digits", [4_300, 4_301, 10_000])
def test_a_huge_reply_to_is_a_clean_refusal_clipped_when_echoed(doc, digits):
    with pytest.raises(ToolFailure) as info:
        doc.add_comment(author=AUTHOR, text="Reply.", reply_to="cmt-" + "7" * digits)
    assert info.value.code == "comment_not_found"
    assert len(info.value.message) < 200, info.value.message
    with pytest.raises(ToolFailure) as info:
        doc.add_comment(author=AUTHOR, text="Reply.", reply_to=7 * 10 ** digits)
    assert info.value.code == "comment_not_found" and len(info.value.message) < 200


def test_the_tools_refuse_every_huge_id_the_same_way(doc):
    session = ToolSession(doc, AUTHOR)
    huge = "9" * 5_000
    results = [
        session.dispatch("add_comment", {"reply_to": huge, "text": "x"}),
        session.dispatch("add_comment", {"paragraph_id": "p-" + huge, "text": "x"}),
        session.dispatch("mark_reserved", {"start_id": "p-" + huge, "end_id": "p-001", "comment": "x"}),
        session.dispatch("propose_edits", {"edits": [{"op": "delete", "anchor": {"paragraph_id": "p-" + huge},
                                                      "comment": "x"}]}),
        session.dispatch("propose_edits", {"edits": [{"op": "delete", "anchor": {
            "paragraph_id": "p-002", "text": "the", "occurrence": 10 ** 5_000}, "comment": "x"}]}),
    ]
    for result in results:
        text = str(result)
        assert "internal" not in text, result
        assert len(text) < 1_500, text[:300]
    assert session.stats["internal_errors"] == 0


def test_one_rule_for_ids():
    assert bounded_id("p-0012") == "p-0012" and bounded_id(12) == 12
    assert bounded_id("x" * 25) is None and bounded_id(10 ** 30) is None and bounded_id(True) is None
    assert id_number("cmt-3", "cmt") == 3 and id_number(" 12 ", "rev") == 12 and id_number("rev-3", "cmt") is None
    assert id_number("1" * 4_301, "cmt") is None
    assert len(shown(10 ** 5_000)) < 60 and len(str(echoed(10 ** 5_000))) < 60
    assert len(shown("7" * 4_300)) < 100


def test_a_revision_id_over_the_bound_is_not_found(doc):
    with pytest.raises(ToolFailure) as info:
        doc.accept(revision_id="rev-" + "1" * 5_000)
    assert info.value.code == "revision_not_found" and len(info.value.message) < 200


def _orphan_comment(data: bytes) -> bytes:
    """Remove the body anchors of every comment: comments.xml keeps them, the body does not."""
    import re

    from tests.fixtures.hostile import rewrite_parts

    body = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml")
    body = re.sub(rb"<w:commentRange(Start|End) [^>]*/>", b"", body)
    body = re.sub(rb"<w:r><w:rPr><w:rStyle w:val=\"CommentReference\"/></w:rPr>"
                  rb"<w:commentReference [^>]*/></w:r>", b"", body)
    return rewrite_parts(data, replace={"word/document.xml": body})


def test_the_gate_does_not_count_an_orphan_comment():
    doc = RedlineDocument.open(sample_contract(10, seed=3).to_bytes())
    doc.add_comment(author=AUTHOR, text="Our point.", paragraph_id="p-003")
    assert gate(doc.to_bytes(), AUTHOR).passed
    orphaned = _orphan_comment(doc.to_bytes())
    assert b"commentReference" not in zipfile.ZipFile(io.BytesIO(orphaned)).read("word/document.xml")
    result = gate(orphaned, AUTHOR)
    assert not result.passed
    assert "no anchor" in result.reason


def _with(data: bytes, name: str, blob: bytes) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, blob if info.filename == name else src.read(info))
    return out.getvalue()


@pytest.mark.parametrize("part", ["word/commentsExtended.xml", "word/commentsIds.xml",
                                  "word/commentsExtensible.xml", "word/people.xml"])
@pytest.mark.parametrize("blob", [b"<not closed", b'<?xml version="1.0"?><!DOCTYPE x []><x/>'])
def test_a_broken_comment_part_is_refused_at_open_and_by_tasks_validate(doc, part, blob, tmp_path):
    from redlinebench.tasks._docx_scan import NotADocx, change_census

    doc.add_comment(author=AUTHOR, text="Ours.", paragraph_id="p-005")   # all five parts exist now
    data = _with(doc.to_bytes(), part, blob)
    with pytest.raises(DocxError) as info:
        RedlineDocument.open(data, name="in.docx")
    assert part in str(info.value)
    path = tmp_path / "in.docx"
    path.write_bytes(data)
    with pytest.raises(NotADocx, match=part.split("/")[1]):
        change_census(path)
    assert not gate(data, AUTHOR).passed


def test_unsafe_names_are_never_written_back():
    data = sample_contract(5, seed=1).to_bytes()
    for name in ("../x.xml", "/x.xml", "word\\x.xml", "word/../x.xml"):
        out = io.BytesIO(data)
        with zipfile.ZipFile(out, "a") as zf:
            zf.writestr(name, b"<a/>")
        with pytest.raises(DocxError, match="unsafe"):
            RedlineDocument.open(out.getvalue())


def test_a_second_comments_relationship_is_refused():
    from tests.fixtures.hostile import bad_relationship

    with pytest.raises(DocxError, match="second comments relationship"):
        RedlineDocument.open(bad_relationship("comments", "second"))
