"""Every leaderboard entry of metrics_summary.json has the same keys, ``null`` where a value does not apply."""

from __future__ import annotations

import json

from redlinebench.scoring import summarize
from redlinebench.scoring._diagnostics import GOLDEN_AGREEMENT_FIELDS
from redlinebench.scoring._grade import DIAGNOSTIC_FIELDS
from tests.scoring.test_aggregate import grade, rv

FULL_DIAG = {"redlines": 2, "edit_operations": 3, "total_revisions": 5, "touched_paragraphs": 2,
             "comments_added": 1, "median_insertion_chars": 14.0, "surgicalness_score": 0.6667}
GOLDEN_GA = {"paragraph_precision": 1.0, "paragraph_recall": 1.0, "paragraph_f1": 1.0, "span_precision": 1.0,
             "span_recall": 1.0, "span_f1": 1.0, "model_touched_paragraphs": 2, "golden_touched_paragraphs": 2}
# what accept-all looked like: the model has no span of its own, so only recall is defined
ACCEPT_GA = {"paragraph_recall": 0.0, "span_recall": 0.0, "model_touched_paragraphs": 0,
             "golden_touched_paragraphs": 2}


def _with(g, **top):
    g.update(top)
    return g


def test_every_entry_has_the_same_keys_with_null_where_not_applicable():
    rubric = [rv("r1", 5, "PASS", "Legal correctness")]
    grades = [
        _with(grade("redline-s1-t1-g01a", 1, 1.0, model="golden", per_rubric=rubric, **FULL_DIAG),
              golden_agreement=GOLDEN_GA),
        _with(grade("redline-s1-t1-g01a", 1, 0.0, model="accept-all", comments_added=1, surgicalness_score=None),
              golden_agreement=ACCEPT_GA),
        grade("redline-s1-t1-g01a", 1, 0.0, model="noop", gate=False),
        grade("redline-s1-t1-g01a", 1, 0.0, model="unjudged", status="judging_incomplete"),
    ]
    summary = json.loads(json.dumps(summarize(grades)))  # as metrics_summary.json holds it
    entries = {e["model"]: e for e in summary["leaderboard"]}
    assert set(entries) == {"golden", "accept-all", "noop", "unjudged"}
    shapes = {m: sorted(e) for m, e in entries.items()}
    assert len({tuple(s) for s in shapes.values()}) == 1, shapes
    for m, e in entries.items():
        assert list(e["diagnostics"]) == list(DIAGNOSTIC_FIELDS), m
        assert list(e["golden_agreement"]) == list(GOLDEN_AGREEMENT_FIELDS), m
    assert entries["golden"]["golden_agreement"]["span_f1"] == 1.0
    assert entries["golden"]["diagnostics"]["surgicalness_score"] == 0.6667
    assert entries["accept-all"]["golden_agreement"]["paragraph_precision"] is None
    assert entries["accept-all"]["golden_agreement"]["paragraph_recall"] == 0.0
    assert entries["accept-all"]["diagnostics"]["surgicalness_score"] is None
    assert all(v is None for v in entries["noop"]["golden_agreement"].values())
    assert entries["noop"]["diagnostics"]["surgicalness_score"] is None
    assert entries["unjudged"]["overall_turn_weighted"] is None
    assert all(v is None for v in entries["unjudged"]["diagnostics"].values())
    # grid notes: a key everywhere, a text only where the grid is incomplete
    assert all(isinstance(e["grid_note"], str) for e in entries.values() if not e["grid_complete"])
