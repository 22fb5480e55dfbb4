"""SPEC §5.1 (integrity v3) gate evidence: every story counts, and only text a reader sees."""

from __future__ import annotations

import pytest

from redlinebench.docx.evidence import is_visible_char
from redlinebench.judge import gate
from tests.docx.util import dele, docx, ins, p, r_

AUTHOR = "Reviewing Counsel (AgentCo Legal)"
OTHER = "Opposing Counsel (LargeCo Legal)"
BODY = p(r_("The Customer shall pay within 30 days."))
FOOTNOTES = ('<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
             '<w:footnote w:id="1">{}</w:footnote>')


def _comment(cid: int, author: str, *runs: str) -> str:
    return f'<w:comment w:id="{cid}" w:author="{author}" w:date="2026-03-01T10:00:00Z">' \
        + "".join(p(x) for x in runs) + "</w:comment>"


def test_the_authors_only_comment_anchored_in_a_footnote_passes():
    note = p(r_("Net "), '<w:commentRangeStart w:id="5"/>', r_("30"), '<w:commentRangeEnd w:id="5"/>',
             '<w:r><w:commentReference w:id="5"/></w:r>', r_("."))
    data = docx(BODY, footnotes=FOOTNOTES.format(note), comments=_comment(5, AUTHOR, r_("Why 30 days?")))
    assert gate(data, AUTHOR).passed


def test_the_authors_only_change_a_tracked_insertion_in_a_header_passes():
    data = docx(BODY, header=p(r_("Confidential"), ins(r_(" - Draft 2"), author=AUTHOR, rid=71)))
    assert gate(data, AUTHOR).passed


def test_a_tracked_deletion_in_a_footnote_counts():
    data = docx(BODY, footnotes=FOOTNOTES.format(p(r_("Net "), dele("30", author=AUTHOR, rid=7), r_("."))))
    assert gate(data, AUTHOR).passed


@pytest.mark.parametrize("text", ["\u200b", "\u2060\ufeff", "\u00ad", " \u200b\u00a0 ", "\u2028\u2029", "\u202e"])
def test_an_insertion_of_only_invisible_characters_is_no_evidence(text):
    data = docx(p(r_("The Customer shall pay"), ins(r_(text), author=AUTHOR, rid=9), r_(" within 30 days.")))
    result = gate(data, AUTHOR)
    assert not result.passed and "carry no visible text" in result.reason
    one = docx(p(r_("The Customer shall pay"), ins(r_(text + "6" + text), author=AUTHOR, rid=9), r_(" days.")))
    assert gate(one, AUTHOR).passed   # one visible character is enough


@pytest.mark.parametrize("text", ["\u200b\u200c\u200d", "\ufeff", "\u00ad\u2060", "\u3000"])
def test_a_comment_of_only_invisible_characters_is_no_evidence(text):
    body = p('<w:commentRangeStart w:id="1"/>', r_("The Customer shall pay."), '<w:commentRangeEnd w:id="1"/>',
             '<w:r><w:commentReference w:id="1"/></w:r>')
    result = gate(docx(body, comments=_comment(1, AUTHOR, r_(text))), AUTHOR)
    assert not result.passed and "carry no visible text" in result.reason


def test_hidden_insertion_or_hidden_comment_is_no_evidence():
    hidden = ins(r_("Net 60.", rpr="<w:vanish/>"), author=AUTHOR, rid=9)
    assert not gate(docx(p(r_("Pay"), hidden)), AUTHOR).passed
    body = p('<w:commentRangeStart w:id="1"/>', r_("Pay."), '<w:commentRangeEnd w:id="1"/>',
             '<w:r><w:commentReference w:id="1"/></w:r>')
    white = _comment(1, AUTHOR, r_("Agreed.", rpr='<w:color w:val="FFFFFF"/>'))
    assert not gate(docx(body, comments=white), AUTHOR).passed
    shown = _comment(1, AUTHOR, r_("Agreed."))
    assert gate(docx(body, comments=shown), AUTHOR).passed
    # text only in a shape's mc:Fallback copy is never on the page (Word renders the mc:Choice)
    box = ('<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing/></mc:Choice><mc:Fallback><w:pict>'
           '<w:txbxContent>' + p(ins(r_("Net 60."), author=AUTHOR, rid=9)) + '</w:txbxContent></w:pict>'
           '</mc:Fallback></mc:AlternateContent></w:r>')
    assert not gate(docx(p(r_("Pay"), box)), AUTHOR).passed


def test_visible_character_rule():
    assert is_visible_char("a") and is_visible_char("§") and is_visible_char("—")
    assert not any(is_visible_char(c) for c in " \t\n\u00a0\u200b\u200c\u200d\u2060\ufeff\u00ad\u2028\u2029\u202e")
