"""Normalisation with an exact offset map, and anchor location."""

from __future__ import annotations

import pytest

from redlinebench.docx.anchor import AnchorError, locate, normalize, normalize_map, sanitize, strip_view_markup


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("\u201cSmart\u201d \u2018quotes\u2019", "\"Smart\" 'quotes'"),
        ("en\u2013dash em\u2014dash minus\u2212", "en-dash em-dash minus-"),
        ("a\u00a0b\u202fc", "a b c"),
        ("a \t  b\n\nc", "a b c"),
        ("  leading", " leading"),
        ("cafe\u0301", "caf\u00e9"),
        ("zero\u200bwidth", "zerowidth"),
    ],
)
def test_normalize(raw, expected):
    assert normalize(raw) == expected


def test_offset_map_covers_collapsed_whitespace():
    raw = "pay  within\tthirty days"
    norm = normalize_map(raw)
    assert norm.text == "pay within thirty days"
    i = norm.text.index("within thirty")
    start, end = norm.raw_span(i, i + len("within thirty"))
    assert raw[start:end] == "within\tthirty"
    i = norm.text.index(" within")
    assert norm.raw_span(i, i + 7) == (3, 11)   # both raw spaces belong to the match


@pytest.mark.parametrize(
    "raw, text, kwargs, span",
    [
        ("The fee is thirty (30) days.", "thirty (30) days", {}, (11, 27)),
        ("The \u201cFee\u201d is due.", '"Fee"', {}, (4, 9)),
        ("a\tb  c", "b c", {}, (2, 6)),
        ("x and y and z", "and", {"occurrence": 2}, (8, 11)),
        ("x and y and z", "and", {"context_before": "y"}, (8, 11)),
        ("x and y and z", "and", {"context_after": "y"}, (2, 5)),
        ("Vendor shall promptly notify", "shall {++promptly++}[rev-4 ins: X] notify", {}, (7, 28)),
        ("Vendor shall notify", "[p-004] Vendor shall notify  [flags: revisions rev-4]", {}, (0, 19)),
        ("line\ntwo", "line \u21b5 two", {}, (0, 8)),
        ("Vendor shall notify", "3.3.5 Vendor shall", {"label": "3.3.5"}, (0, 12)),
        ("Vendor shall notify", "3.3.5 Vendor shall", {"label": lambda: "3.3.5"}, (0, 12)),
        ("x and y", " and ", {}, (2, 5)),               # edge whitespace is not in the span...
        ("band and y", " and", {}, (5, 8)),             # ...but still selects the match
        ("x  and\ty", " and ", {}, (3, 6)),
    ],
)
def test_locate(raw, text, kwargs, span):
    m = locate(raw, text, **kwargs)
    assert (m.start, m.end) == span


@pytest.mark.parametrize(
    "raw, text, kwargs, code",
    [
        ("abc", "xyz", {}, "text_not_found"),
        ("x and y and z", "and", {}, "ambiguous"),
        ("x and y and z", "and", {"occurrence": 3}, "text_not_found"),
        ("x and y and z", "and", {"context_before": "q"}, "text_not_found"),
        ("Vendor shall notify", "3.3.5 shall notify", {"label": "3.3.5"}, "text_not_found"),  # not the start
        ("Vendor shall notify", "3.3.6 Vendor shall", {"label": "3.3.5"}, "text_not_found"),
    ],
)
def test_locate_errors(raw, text, kwargs, code):
    with pytest.raises(AnchorError) as err:
        locate(raw, text, **kwargs)
    assert err.value.code == code
    if code == "ambiguous":
        assert [c["occurrence"] for c in err.value.candidates] == [1, 2]


def test_sanitize_and_markup_strip():
    assert sanitize("a\x00b\x07c\r\nd\x0be") == "abc\nde"
    assert strip_view_markup("keep {--gone--}[rev-1 del: A]{++new++}[rev-2 ins: B] text{cmt-3}") == "keep new text"
