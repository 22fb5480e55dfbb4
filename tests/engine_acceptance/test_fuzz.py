"""Robustness over the whole corpus: arbitrary anchors (mid-word, across runs, hyperlinks, fields,
the other side's revisions, table cells) and arbitrary new text. Whatever succeeds or fails,
the document stays valid, its original text never changes, rejecting our changes gives the
input back exactly, and no edit dies of an internal error."""

from __future__ import annotations

from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redlinebench.docx import RedlineDocument
from redlinebench.docx.validate import errors_only, validate_package
from tests.engine_acceptance.cases import DATE
from tests.fixtures.corpus import CORPUS, US

NAMES = [n for n in CORPUS if n != "odd_text"] + ["odd_text"]
new_text = st.text(alphabet=st.sampled_from(list("abc XYZ.,;()-\u2019\u201c\t\n0123")), min_size=0, max_size=25)


@cache
def _input(name: str) -> bytes:
    return CORPUS[name].data()


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(name=st.sampled_from(NAMES), data=st.data())
def test_arbitrary_edits_never_corrupt(name, data):
    source = _input(name)
    doc = RedlineDocument.open(source)
    before = (doc.text("current"), doc.text("accepted"), doc.text("original"))
    paragraphs = [p for p in doc.paragraphs if p.text.strip()]
    batch = []
    for _ in range(data.draw(st.integers(1, 5), label="n")):
        para = data.draw(st.sampled_from(paragraphs), label="paragraph")
        text = para.text
        a = data.draw(st.integers(0, max(0, len(text) - 1)), label="a")
        z = data.draw(st.integers(a + 1, min(len(text), a + 40)), label="z")
        op = data.draw(st.sampled_from(["replace", "delete", "insert_after"]), label="op")
        edit = {"op": op, "anchor": {"paragraph_id": para.id, "text": text[a:z]}, "comment": "fuzz"}
        if data.draw(st.booleans(), label="occurrence"):
            edit["anchor"]["occurrence"] = 1
        if op != "delete":
            edit["new_text"] = data.draw(new_text, label="new")
        batch.append(edit)
    results = doc.apply_edits(batch, author=US, date=DATE)
    assert len(results) == len(batch)
    for result in results:
        assert result["status"] in ("ok", "anchor_failed", "runtime_error")
        assert "internal" not in result.get("error", ""), (batch, results)

    out = doc.to_bytes()
    assert errors_only(validate_package(out)) == [], (batch, results)
    after = RedlineDocument.open(out)
    assert after.text("original") == before[2], (batch, results)
    mine = RedlineDocument.open(out)
    mine.reject(author=US)
    back = RedlineDocument.open(mine.to_bytes())
    assert (back.text("current"), back.text("accepted"), back.text("original")) == before, (batch, results)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(name=st.sampled_from(NAMES), data=st.data())
def test_comments_and_single_revision_review_stay_valid(name, data):
    from redlinebench.errors import ToolFailure

    doc = RedlineDocument.open(_input(name))
    paragraphs = [p for p in doc.paragraphs if p.text.strip()]
    for _ in range(data.draw(st.integers(1, 4), label="n_comments")):
        para = data.draw(st.sampled_from(paragraphs), label="paragraph")
        kwargs = {"author": US, "text": data.draw(new_text, label="text") or "x", "date": DATE}
        choice = data.draw(st.sampled_from(["paragraph", "span", "reply"]), label="kind")
        if choice == "reply" and doc.comments:
            kwargs["reply_to"] = data.draw(st.sampled_from([c.id for c in doc.comments]), label="reply_to")
        else:
            kwargs["paragraph_id"] = para.id
            if choice == "span":
                a = data.draw(st.integers(0, len(para.text) - 1), label="a")
                kwargs["span"] = para.text[a: a + data.draw(st.integers(1, 30), label="len")]
        try:
            doc.add_comment(**kwargs)
        except ToolFailure:
            pass
    assert errors_only(validate_package(doc.to_bytes())) == []
    if doc.revisions:
        target = data.draw(st.sampled_from([r.id for r in doc.revisions]), label="revision")
        action = data.draw(st.sampled_from(["accept", "reject"]), label="action")
        assert getattr(doc, action)(revision_id=target) >= 1
        out = doc.to_bytes()
        assert errors_only(validate_package(out)) == []
    for action in ("accept", "reject"):
        copy = RedlineDocument.open(doc.to_bytes())
        getattr(copy, action)()
        final = RedlineDocument.open(copy.to_bytes())
        assert final.revisions == [] and errors_only(validate_package(copy.to_bytes())) == []
        assert final.text("current") == RedlineDocument.open(doc.to_bytes()).text(
            "accepted" if action == "accept" else "original")
