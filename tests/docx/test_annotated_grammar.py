"""Round trip of the judge's annotated view (issue 16): a reader of the documented grammar
(tests/docx/viewgrammar.py) recovers every body revision (kind, author, text, paragraph), every
comment anchor and every paragraph's current text, equal to the engine's own lists."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from redlinebench.docx import RedlineDocument
from tests.docx.viewgrammar import engine_facts, parse_annotated
from tests.fixtures import multiauthor

TASKS = Path(__file__).resolve().parents[2] / "redlinebench" / "_data" / "benchmark" / "tasks"


def _distinct(paths):
    """One path per distinct file: tasks of one turn share their golden, so each is checked once."""
    seen: dict[str, Path] = {}
    for path in paths:
        seen.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), path)
    return list(seen.values())


SHIPPED = _distinct(sorted(TASKS.glob("*/tests/attorney_redlines.docx"))
                    + sorted(TASKS.glob("*/tests/judge_check/*.docx")))


def assert_round_trip(doc, focus_author=None) -> None:
    view = doc.annotated_view(focus_author=focus_author)
    parsed, engine = parse_annotated(view), engine_facts(doc)
    assert parsed == engine, parsed.diff(engine) + "\n" + view


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(multiauthor.documents)
def test_generated_multi_author_documents_round_trip(drawn):
    data, _ = multiauthor.build(drawn)
    doc = RedlineDocument.open(data, name="generated.docx")
    assert_round_trip(doc, focus_author=multiauthor.AUTHORS[0])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parts[-3]}/{p.name}" if p.parent.name == "tests"
                         else f"{p.parts[-4]}/{p.parent.name}/{p.name}")
def test_shipped_goldens_and_judge_check_documents_round_trip(path):
    assert len(SHIPPED) > 50   # the embedded set's goldens and judge-check redlines were found
    assert_round_trip(RedlineDocument.open(path), focus_author="Reviewing Counsel (LargeCo Legal)")
