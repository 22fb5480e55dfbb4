"""Comment threads across the five parts, anchored as Word anchors them."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.errors import ToolFailure
from tests.docx.util import docx, p, r_, read_part

WHEN = datetime(2025, 6, 1, 9, 30, tzinfo=timezone.utc)
ME = "Reviewing Counsel (AgentCo Legal)"
PARTS = ["word/comments.xml", "word/commentsExtended.xml", "word/commentsIds.xml", "word/commentsExtensible.xml",
         "word/people.xml"]


def open_body(body, **kw):
    return RedlineDocument.open(docx(body, **kw), name="t.docx")


def test_new_thread_on_paragraph_creates_all_parts():
    doc = open_body(p("Alpha beta.") + p("Gamma."))
    cid = doc.add_comment(author=ME, text="Please confirm.", paragraph_id="p-002", date=WHEN)
    assert cid == "cmt-1"
    data = doc.to_bytes()
    ct = read_part(data, "[Content_Types].xml")
    rels = read_part(data, "word/_rels/document.xml.rels")
    for part in PARTS:
        read_part(data, part)
        name = part.split("/")[1][:-4]
        assert f'PartName="/{part}" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.{name}+xml"' in ct
        assert f'Target="{part.split("/")[1]}"' in rels
    styles = read_part(data, "word/styles.xml")
    assert 'w:styleId="CommentText"' in styles and 'w:styleId="CommentReference"' in styles
    body = read_part(data, "word/document.xml")
    assert re.search(r'<w:p><w:commentRangeStart w:id="1"/><w:r><w:t>Gamma.</w:t></w:r><w:commentRangeEnd w:id="1"/>'
                     r'<w:r><w:rPr><w:rStyle w:val="CommentReference"/></w:rPr><w:commentReference w:id="1"/></w:r></w:p>',
                     body)
    comments = read_part(data, "word/comments.xml")
    assert 'w:author="Reviewing Counsel (AgentCo Legal)" w:date="2025-06-01T09:30:00Z" w:initials="RCAL"' in comments
    para_id = re.search(r'w14:paraId="([0-9A-F]{8})"', comments).group(1)
    assert 0 < int(para_id, 16) < 0x80000000
    durable = re.search(r'w16cid:durableId="([0-9A-F]{8})"', read_part(data, "word/commentsIds.xml")).group(1)
    assert 0 < int(durable, 16) < 0x7FFFFFFF
    assert f'w15:paraId="{para_id}" w15:done="0"' in read_part(data, "word/commentsExtended.xml")
    assert f'w16cex:durableId="{durable}" w16cex:dateUtc="2025-06-01T09:30:00Z"' in read_part(
        data, "word/commentsExtensible.xml")
    assert 'w15:providerId="None" w15:userId="Reviewing Counsel (AgentCo Legal)"' in read_part(data, "word/people.xml")
    out = RedlineDocument.open(data)
    (c,) = out.comments
    assert (c.id, c.author, c.text, c.paragraph_ids, c.anchor_text, c.parent) == (
        "cmt-1", ME, "Please confirm.", ["p-002"], "Gamma.", None)


def test_comment_on_span_and_reply_threading():
    doc = open_body(p("The Vendor shall indemnify the Customer."))
    root = doc.add_comment(author="LargeCo", text="Too broad.", paragraph_id="p-001", span="indemnify", date=WHEN)
    reply = doc.add_comment(author=ME, text="Narrowed.", reply_to=root, date=WHEN)
    reply2 = doc.add_comment(author="LargeCo", text="Thanks.", reply_to=reply, date=WHEN)
    out = RedlineDocument.open(doc.to_bytes())
    by = {c.id: c for c in out.comments}
    assert by[root].anchor_text == "indemnify"
    assert by[reply].parent == root
    assert by[reply2].parent == root          # one level deep: reply to a reply points at the root
    body = read_part(out.to_bytes(), "word/document.xml")
    r, a, b = (x.split("-")[1] for x in (root, reply, reply2))
    order = [f'commentRangeStart w:id="{r}"', f'commentRangeStart w:id="{a}"', f'commentRangeStart w:id="{b}"',
             "indemnify", f'commentRangeEnd w:id="{r}"', f'commentReference w:id="{r}"',
             f'commentRangeEnd w:id="{a}"', f'commentReference w:id="{a}"',
             f'commentRangeEnd w:id="{b}"', f'commentReference w:id="{b}"']
    positions = [body.index(x) for x in order]
    assert positions == sorted(positions)


def test_ids_are_deterministic_and_unique():
    outs = []
    for _ in range(2):
        doc = open_body(p("a") + p("b"))
        for i in range(5):
            doc.add_comment(author=ME, text=f"c{i}", paragraph_id="p-001", date=WHEN)
        outs.append(doc.to_bytes())
    assert outs[0] == outs[1]
    ids = re.findall(r'w14:(?:paraId|textId)="([0-9A-F]{8})"', read_part(outs[0], "word/comments.xml"))
    assert len(ids) == 10 == len(set(ids))


@pytest.mark.parametrize(
    "kwargs, code",
    [
        ({"paragraph_id": "p-099", "text": "x"}, "paragraph_not_found"),
        ({"paragraph_id": "p-001", "text": "  "}, "empty_comment"),
        ({"reply_to": "cmt-77", "text": "x"}, "comment_not_found"),
        ({"reply_to": "bogus", "text": "x"}, "comment_not_found"),
        ({"paragraph_id": "p-001", "span": "absent", "text": "x"}, "text_not_found"),
    ],
)
def test_bad_comment_requests_raise_tool_failures(kwargs, code):
    doc = open_body(p("text here"))
    with pytest.raises(ToolFailure) as err:
        doc.add_comment(author=ME, date=WHEN, **kwargs)
    assert err.value.code == code
    assert doc.comments == []


def test_edit_comment_anchors_on_the_edited_span():
    doc = open_body(p(r_("Fees are due in thirty days.")))
    (res,) = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "thirty"},
                               "new_text": "sixty", "comment": "Cash-flow."}], author=ME, date=WHEN)
    body = read_part(doc.to_bytes(), "word/document.xml")
    n = res["comment_id"].split("-")[1]
    assert body.index(f'commentRangeStart w:id="{n}"') < body.index("thirty") < body.index("sixty") < body.index(
        f'commentRangeEnd w:id="{n}"')
