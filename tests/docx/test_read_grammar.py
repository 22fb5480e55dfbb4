"""Round trip of the agent's read view (issues 16 and 25): a reader of its documented grammar
(tests/docx/viewgrammar.py ``parse_read``) recovers every body revision (kind, author, text,
paragraph), every comment (author, parent, resolved, and its anchor: paragraphs and text) and every
paragraph's clause number and current text, from the inline marks, notes and threads alone: no
appendix, nothing clipped.

The read view writes document text verbatim and line breaks as `` ↵ ``, so this property is drawn
on documents whose text holds no marker characters and no line breaks (docs/VIEWS.md "Read view",
known limit); the annotated view's test (test_annotated_grammar.py) draws hostile text.
"""

from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redlinebench.docx import RedlineDocument
from tests.docx.viewgrammar import engine_read_facts, parse_read, shipped_redlines
from tests.fixtures import multiauthor

PLAIN_AUTHORS = ("Alice (LargeCo)", "Bob B.", "Carol")


SHIPPED = shipped_redlines()


def assert_round_trip(doc) -> None:
    view = doc.read_view()
    assert "## Tracked changes" not in view and "rev-" not in view   # every change once, inline
    parsed, engine = parse_read(view), engine_read_facts(doc)
    assert parsed == engine, parsed.diff(engine) + "\n" + view


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(multiauthor.documents_of(st.text(alphabet="ab .,()", min_size=1, max_size=6),
                                st.sampled_from(PLAIN_AUTHORS)))
def test_generated_multi_author_documents_round_trip_through_the_read_view(drawn):
    data, _ = multiauthor.build(drawn, comment_authors=PLAIN_AUTHORS)
    assert_round_trip(RedlineDocument.open(data, name="generated.docx"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parts[-3]}/{p.name}" if p.parent.name == "tests"
                         else f"{p.parts[-4]}/{p.parent.name}/{p.name}")
def test_shipped_goldens_and_judge_check_documents_round_trip_through_the_read_view(path):
    assert_round_trip(RedlineDocument.open(path))
