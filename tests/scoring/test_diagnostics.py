"""Document diagnostics and golden agreement on a real redline (hand-counted)."""

from __future__ import annotations

from redlinebench.docx import RedlineDocument
from redlinebench.scoring import document_diagnostics, golden_agreement
from tests.judge.docs import AUTHOR, GOLDEN_EDITS, OTHER, base_contract, redline


def test_diagnostics_count_only_the_author():
    doc = redline()
    d = document_diagnostics(doc, AUTHOR)
    # p-002: the engine marks "thirty"->"sixty" and "30"->"60" as two del+ins pairs (2 inline operations:
    #        6 and 2 changed chars against 44 unchanged); p-003: one deletion of 24 chars against 23 unchanged
    #        (block); p-006: a new paragraph (block, nothing unchanged).
    assert d["edit_operations"] == 4
    assert d["inline_operations"] == 2 and d["block_operations"] == 2
    assert d["surgicalness_score"] == 0.5
    # touched p-002, p-003 (adjacent: one redline) and p-006 (a second redline)
    assert d["touched_paragraphs"] == 3 and d["redlines"] == 2
    # revisions: 2 del + 2 ins (p-002), 2 del (p-003), 1 ins + 1 inserted paragraph mark (p-005/6)
    assert d["total_revisions"] == 8
    assert d["comments_added"] == 3
    # insertions of 5 ("sixty"), 2 ("60") and 43 chars -> median 5
    assert d["median_insertion_chars"] == 5.0


def test_no_changes_by_author():
    doc = RedlineDocument.open(base_contract())
    d = document_diagnostics(doc, AUTHOR)
    assert d["edit_operations"] == 0 and d["surgicalness_score"] is None and d["redlines"] == 0
    assert d["median_insertion_chars"] == 0.0
    # the prior turn's insertion belongs to the other author
    assert document_diagnostics(doc, OTHER)["total_revisions"] == 1


def test_golden_agreement_hand_counted():
    model, golden = redline(), redline(GOLDEN_EDITS)
    g = golden_agreement(model, golden, AUTHOR, AUTHOR)
    # paragraphs: model {1.1, 1.2, new after 1.3}, golden {1.1, 1.3}: 1 shared
    assert g["paragraph_precision"] == 0.3333 and g["paragraph_recall"] == 0.5 and g["paragraph_f1"] == 0.4
    # spans: model 13 units (1.1: 2 deleted words + 2 inserted; 1.2: 3 deleted words; new: 6 inserted words);
    #        golden 7 (1.1: same 4; 1.3: 3 deleted words); 4 shared
    assert g["span_precision"] == round(4 / 13, 4) and g["span_recall"] == round(4 / 7, 4)
    assert g["span_f1"] == 0.4
    same = golden_agreement(golden, redline(GOLDEN_EDITS), AUTHOR, AUTHOR)
    assert same["paragraph_f1"] == 1.0 and same["span_f1"] == 1.0


def test_golden_agreement_when_model_did_nothing():
    empty = RedlineDocument.open(base_contract())
    g = golden_agreement(empty, redline(GOLDEN_EDITS), AUTHOR, AUTHOR)
    assert g["paragraph_precision"] is None and g["paragraph_recall"] == 0.0 and g["model_touched_paragraphs"] == 0
