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
