"""The engine makes no reference cycles: what it builds is freed by reference counting at once.

A walk that was cyclic garbage (a recursive closure referring to itself through its cell) kept
every paragraph's atoms and lxml proxies alive until the cyclic collector ran; the pass that then
freed a whole document's walks made reading superlinear in the paragraphs (issue 14, item 6).
These tests count the objects the collector finds unreachable after each operation: none.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from datetime import datetime, timezone

from redlinebench.docx import RedlineDocument
from redlinebench.docx.runs import walk_paragraph
from tests.docx.util import dele, docx, ins, p, r_
from tests.docx.viewgrammar import shipped_redlines

WHEN = datetime(2026, 3, 1, tzinfo=timezone.utc)
FIELD = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> REF _Ref1 \\h </w:instrText></w:r>'
         '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>Section 2</w:t></w:r>'
         '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
SIMPLE = '<w:fldSimple w:instr=" PAGE "><w:r><w:t>3</w:t></w:r></w:fldSimple>'
SDT = '<w:sdt><w:sdtContent><w:r><w:t>boxed</w:t></w:r></w:sdtContent></w:sdt>'


@contextmanager
def no_cyclic_garbage():
    """Fail when the block leaves anything only the cyclic collector could free."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        found = gc.collect()
    finally:
        if enabled:
            gc.enable()
    assert found == 0, f"{found} objects were left in reference cycles"


def test_walking_a_paragraph_with_every_construct_leaves_no_cycle():
    data = docx(p(r_("Pay "), ins(r_("promptly ")), dele("late ", rid=902), FIELD, SIMPLE, SDT,
                  '<w:hyperlink><w:r><w:t> here</w:t></w:r></w:hyperlink>'))
    doc = RedlineDocument.open(data)
    element = doc.paragraphs[0].element
    with no_cyclic_garbage():
        walk = walk_paragraph(element)
        assert "Section 2" in walk.current and "3" in walk.current
        del walk


def test_a_whole_redlining_cycle_on_a_shipped_redline_leaves_no_cycle(tmp_path):
    path = shipped_redlines()[0]
    with no_cyclic_garbage():
        doc = RedlineDocument.open(path)
        doc.read_view(reader="Reviewer")
        doc.annotated_view(focus_author="Reviewer")
        target = next(para for para in doc.paragraphs if len(para.text.split()) >= 6 and not para.in_table)
        words = target.text.split()
        results = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": target.id,
                                                              "text": " ".join(words[:2]), "occurrence": 1},
                                    "new_text": "Either party", "comment": "Mutual."}], author="Reviewer",
                                  date=WHEN)
        assert results[0]["status"] == "ok", results
        doc.add_comment(author="Reviewer", text="Why?", paragraph_id=target.id, date=WHEN)
        doc.read_view(reader="Reviewer")
        doc.save(tmp_path / "out.docx")
        again = RedlineDocument.open(tmp_path / "out.docx")
        again.accept()
        again.text("accepted")
        again.to_bytes()
        del doc, again, target, results


def test_a_rendered_document_is_freed_with_its_model():
    """The rendering model is cached per document; the cache must not keep the document alive."""
    import weakref

    from redlinebench.docx.render import rendering

    doc = RedlineDocument.open(docx(p(r_("Pay promptly."))))
    model = rendering(doc)
    model.reason(doc.paragraphs[0].element.find(".//{http://schemas.openxmlformats.org/wordprocessingml/2006/main}r"))
    alive = weakref.ref(doc)
    with no_cyclic_garbage():
        del doc, model
    assert alive() is None
