"""Defects found in round 3 by acting as the checker on unseen Word- and LibreOffice-authored files."""

from __future__ import annotations

from datetime import datetime, timezone

from redlinebench.docx import RedlineDocument
from tests.docx.util import docx, ins, p, r_

WHEN = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
ME = "Reviewing Counsel (AgentCo Legal)"
O = 'w:author="Other" w:date="2025-01-01T00:00:00Z"'


# ---------------------------------------------------------------------------- 1. LibreOffice's id counters
# LibreOffice numbers w:rPrChange ids with their own counter, so a format change shares w:id="0" with
# the first w:ins/w:del. rev-N must still name exactly one tracked change.
LO_CLASH = (p(ins(r_("Inserted words. "), rid=0), r_("Original text."))
            + p(f'<w:r><w:rPr><w:b/><w:rPrChange w:id="0" {O}><w:rPr/></w:rPrChange></w:rPr><w:t>Bold</w:t></w:r>',
                r_(" tail.")))


def test_revision_ids_are_unique_when_the_input_reuses_an_id_across_kinds():
    doc = RedlineDocument.open(docx(LO_CLASH), name="lo.docx")
    ids = [r.id for r in doc.revisions]
    assert len(ids) == 2 and len(set(ids)) == 2, ids


def test_accepting_one_revision_of_a_clashing_pair_leaves_the_other():
    doc = RedlineDocument.open(docx(LO_CLASH), name="lo.docx")
    fmt = next(r for r in doc.revisions if r.type == "format")
    ins_rev = next(r for r in doc.revisions if r.type == "ins")
    assert doc.reject(revision_id=ins_rev.id) == 1
    assert doc.text() == "Original text.\nBold tail."
    assert [r.id for r in doc.revisions] == [fmt.id]
    out = RedlineDocument.open(doc.to_bytes())
    assert [(r.id, r.type) for r in out.revisions] == [(fmt.id, "format")]
    assert [f for f in out.validate() if f.code == "revision-id-duplicate"] == []
