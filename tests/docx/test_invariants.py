"""Property tests: random paragraphs with prior markup, random edits, invariants that must hold.

For every edit that reports ``ok``: the output reopens, rejecting everything gives back the
input's original text, rejecting only our author gives back the input's current text, the
edited paragraph's accepted text is the intended text, and other paragraphs are untouched.
"""

from __future__ import annotations

import itertools
import re
from datetime import datetime, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redlinebench.docx import RedlineDocument
from redlinebench.docx.anchor import normalize
from tests.docx.util import dele, docx, ins, p, r_

ME = "Me"
WHEN = datetime(2025, 1, 1, tzinfo=timezone.utc)
WORDS = ["the", "Vendor", "shall", "pay", "thirty", "(30)", "days", "fees,", "Customer's", "\u201cTerm\u201d",
         "net", "\u2013", "audit", "rights."]
FIELD = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> REF _Ref1 \\h '
         '</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>{}</w:t></w:r>'
         '<w:r><w:fldChar w:fldCharType="end"/></w:r>')

phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(lambda ws: " ".join(ws) + " ")


@st.composite
def segment(draw):
    kind = draw(st.sampled_from(["text", "text", "bold", "ins", "del", "link", "tab", "field", "space"]))
    text = draw(phrase)
    rid = draw(st.integers(100, 900))
    if kind == "text":
        return r_(text)
    if kind == "bold":
        return r_(text, "<w:b/>")
    if kind == "ins":
        return ins(r_(text), author="Other", rid=rid)
    if kind == "del":
        return dele(text, author="Other", rid=rid)
    if kind == "link":
        return f'<w:hyperlink w:anchor="target"><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:hyperlink>'
    if kind == "tab":
        return "<w:r><w:tab/></w:r>"
    if kind == "space":
        return r_("  ")
    return FIELD.format("3.2")


paragraph = st.lists(segment(), min_size=1, max_size=6).map(lambda segs: p(*segs))


def _squash(text: str) -> str:
    return "".join(normalize(text).split())


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paras=st.lists(paragraph, min_size=2, max_size=4), data=st.data())
def test_random_edits_keep_invariants(paras, data):
    counter = itertools.count(100)
    source = docx(re.sub(r'w:id="\d+"', lambda m: f'w:id="{next(counter)}"', "".join(paras)))
    doc = RedlineDocument.open(source)
    before_current = [x.text for x in doc.paragraphs]
    before_original = doc.text("original")
    target = data.draw(st.integers(0, len(doc.paragraphs) - 1))
    raw = doc.paragraphs[target].text
    words = raw.split()
    if not words:
        return
    i = data.draw(st.integers(0, len(words) - 1))
    j = data.draw(st.integers(i + 1, min(len(words), i + 3)))
    anchor = " ".join(words[i:j])
    op = data.draw(st.sampled_from(["replace", "delete", "insert_after"]))
    new_text = data.draw(st.sampled_from(["sixty (60) days", "Licensee", "net 45", "the Vendor's"]))
    edit = {"op": op, "anchor": {"paragraph_id": doc.paragraphs[target].id, "text": anchor},
            "comment": "Why."}
    if op != "delete":
        edit["new_text"] = new_text
    (res,) = doc.apply_edits([edit], author=ME, date=WHEN)
    assert res["status"] != "runtime_error" or res["error"].startswith("no_change"), res
    out = RedlineDocument.open(doc.to_bytes())
    assert out.text("original") == before_original
    assert [f for f in out.validate() if f.severity == "error"] == []
    mine_rejected = RedlineDocument.open(doc.to_bytes())
    mine_rejected.reject(author=ME)
    assert [x.text for x in mine_rejected.paragraphs] == before_current
    if res["status"] != "ok":
        return
    norm = normalize(raw)
    start = norm.find(normalize(anchor))
    end = start + len(normalize(anchor))
    if op == "replace":
        expected = norm[:start] + new_text + norm[end:]
    elif op == "delete":
        expected = norm[:start] + norm[end:]
    else:
        expected = norm[:end] + new_text + norm[end:]
    after = [x.text for x in out.paragraphs]
    if op == "insert_after" and res.get("new_paragraph_ids"):
        assert after[target] == before_current[target]
        assert _squash(after[target + 1]) == _squash(new_text)
        return
    if op == "delete" and after[target].strip() == "" and not expected.strip():
        return
    assert _squash(after[target]) == _squash(expected)
    assert [a for k, a in enumerate(after) if k != target] == [b for k, b in enumerate(before_current) if k != target]


MARK = '<w:rPr><w:{kind} w:id="1" w:author="Other" w:date="2025-01-01T00:00:00Z"/></w:rPr>'
MOVE_FROM = ('<w:moveFrom w:id="1" w:author="Other" w:date="2025-01-01T00:00:00Z"><w:r><w:t xml:space="preserve">'
             'moved words </w:t></w:r></w:moveFrom>')
MOVE_TO = ('<w:moveTo w:id="1" w:author="Other" w:date="2025-01-01T00:00:00Z"><w:r><w:t xml:space="preserve">'
           'moved words </w:t></w:r></w:moveTo>')


@st.composite
def block(draw):
    kind = draw(st.sampled_from(["p", "p", "p", "mark_ins", "mark_del", "table", "move"]))
    segs = draw(st.lists(segment(), min_size=1, max_size=4))
    if kind == "p":
        return p(*segs)
    if kind == "mark_ins":
        return p(ins("".join(s for s in segs if s.startswith("<w:r>")) or r_("x "), author="Other", rid=1),
                 ppr=MARK.format(kind="ins"))
    if kind == "mark_del":
        return p(*segs, ppr=MARK.format(kind="del"))
    if kind == "move":
        return p(MOVE_FROM, *segs) + p(*segs[:1], MOVE_TO)
    return "<w:tbl><w:tr><w:tc>" + p(*segs) + "</w:tc><w:tc>" + p(*segs[::-1]) + "</w:tc></w:tr></w:tbl>"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks=st.lists(block(), min_size=2, max_size=5), data=st.data())
def test_random_batches_then_review_stay_valid(blocks, data):
    counter = itertools.count(100)
    source = docx(re.sub(r'w:id="\d+"', lambda m: f'w:id="{next(counter)}"', "".join(blocks) + p("End.")))
    doc = RedlineDocument.open(source)
    before_original = doc.text("original")
    before_current = doc.text("current")
    edits = []
    for _ in range(data.draw(st.integers(1, 5))):
        para = doc.paragraphs[data.draw(st.integers(0, len(doc.paragraphs) - 1))]
        words = para.text.split()
        op = data.draw(st.sampled_from(["replace", "delete", "insert_after"]))
        e = {"op": op, "anchor": {"paragraph_id": para.id}, "comment": "c"}
        if words:
            i = data.draw(st.integers(0, len(words) - 1))
            e["anchor"]["text"] = " ".join(words[i:i + 2])
            e["anchor"]["occurrence"] = 1
        elif op == "replace":
            continue
        if op != "delete":
            e["new_text"] = data.draw(st.sampled_from(["net 45", "\nA new clause.", "Licensee's"]))
        edits.append(e)
    results = doc.apply_edits(edits, author=ME, date=WHEN)
    assert all(r["status"] in ("ok", "anchor_failed") or r["error"].startswith("no_change") for r in results), results
    if doc.comments:
        doc.add_comment(author=ME, text="Reply.", reply_to=doc.comments[0].id, date=WHEN)
    out = doc.to_bytes()
    for action in ("accept", "reject", None):
        view = RedlineDocument.open(out)
        if action:
            getattr(view, action)()
        assert [f for f in view.validate() if f.severity == "error"] == [], action
        view.read_view()
        view.annotated_view(focus_author=ME)
    assert RedlineDocument.open(out).text("original") == before_original
    mine = RedlineDocument.open(out)
    mine.reject(author=ME)
    assert mine.text("current") == before_current
    everything = RedlineDocument.open(out)
    everything.reject()
    assert everything.text("current") == before_original
