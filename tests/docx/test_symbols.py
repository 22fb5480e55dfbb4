"""w:sym glyphs read as the character they show; hostile codes read as U+FFFD and never break a view."""

from __future__ import annotations

import json

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.docx.symbols import UNKNOWN, sym_text
from tests.docx.util import docx, p


@pytest.mark.parametrize("font, char, expected", [
    ("Symbol", "F0B7", "\u2022"),          # the bullet Word writes for lists typed by hand
    ("Symbol", "F0D3", "\u00a9"),
    ("Symbol", "F0B3", "\u2265"),
    ("Symbol", "F061", "\u03b1"),
    ("Symbol", "00B1", "\u00b1"),          # some writers leave out the F000 offset
    ("Times New Roman", "F0A7", "\u00a7"),  # a text font: its slot through Windows-1252
    ("Arial", "F080", "\u20ac"),
    (None, "2192", "\u2192"),               # a plain Unicode code point
    ("Wingdings", "F0FE", "\u2611"),
    ("Wingdings", "F0A8", "\u25fb"),
    ("Wingdings", "F021", UNKNOWN),          # a dingbat we do not know is not guessed
    ("Webdings", "F061", UNKNOWN),
    ("Symbol", "F0F0", UNKNOWN),             # the one empty slot of Symbol (Apple's logo elsewhere)
    ("Calibri", "F0F0", "\u00f0"),
])
def test_glyphs_read_as_their_character(font, char, expected):
    assert sym_text(font, char) == expected


@pytest.mark.parametrize("char", ["D800", "DFFF", "0", "1B", "7F", "FFFE", "110000", "-5", "zz", "", None])
def test_hostile_codes_read_as_the_replacement_character(char):
    assert sym_text("Symbol", char) == UNKNOWN
    assert sym_text("Calibri", char) == UNKNOWN


def test_a_lone_surrogate_glyph_leaves_every_view_encodable(tmp_path):
    data = docx(p("Fees ", '<w:r><w:sym w:font="Symbol" w:char="D800"/></w:r>', " due."))
    doc = RedlineDocument.open(data, name="t.docx")
    assert doc.paragraphs[0].text == "Fees \ufffd due."
    for view in (doc.read_view(), doc.annotated_view(), doc.text("accepted")):
        view.encode("utf-8")
        json.dumps(view, ensure_ascii=False).encode("utf-8")
    (res,) = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "due"},
                               "new_text": "payable", "comment": "Clearer."}], author="Me")
    assert res["status"] == "ok"
    out = tmp_path / "out.docx"
    doc.save(out)
    assert RedlineDocument.open(out.read_bytes()).text("accepted") == "Fees \ufffd payable."
