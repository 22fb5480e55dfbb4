"""The redline engine: read, edit, comment on and accept/reject Word tracked changes.

Public API (docs/ARCHITECTURE.md)::

    doc = RedlineDocument.open("contract.docx")           # DocxError on a bad/hostile file
    print(doc.read_view())                                 # [p-NNN] 3.3.5 text {-old+new}A1 [notes], threads
    results = doc.apply_edits([
        {"op": "replace", "anchor": {"paragraph_id": "p-014", "text": "thirty (30) days"},
         "new_text": "sixty (60) days", "comment": "Align with our cash-flow policy."},
    ], author="Reviewing Counsel (AgentCo Legal)")         # one result dict per edit, never raises
    doc.add_comment(author=..., text="Please confirm.", reply_to="cmt-3")
    doc.mark_reserved(start_id="p-040", end_id="p-043", comment="Not applicable.", author=...)
    doc.annotated_view(focus_author=...)                   # the judge's view: ~~del~~ ++ins++ {cmt-N}
    doc.save("redline.docx")                               # deterministic zip, atomic write

Rules the engine follows (SPEC §4, OOXML.md):

* Anchors match the paragraph's *current* text (pending insertions shown, deletions omitted)
  after normalisation; offsets map back to the raw runs exactly.
* ``replace`` marks only the words that differ; run formatting is kept on every split,
  deleted and inserted run; fields are atomic.
* Striking another author's insertion writes ``w:del`` inside their ``w:ins`` (theirs keeps
  its id); inserting inside it splits theirs (fresh id for the new half), never nesting.
* ``insert_after`` adds a new paragraph (pPr copied, paragraph mark inserted) when no anchor
  text is given, when the anchor is the whole paragraph, or when ``new_text`` starts with a
  line break at the end of the paragraph; otherwise it is a pure inline insertion.
* Deleting a whole paragraph also deletes its mark, so it disappears on accept.
* One id allocator above every ``w:id`` in every story part; comment paraIds/durableIds are
  derived from the input bytes and a counter, so outputs are reproducible.
"""

from .document import Paragraph, RedlineDocument
from .types import Comment, Finding, Revision, Segment

__all__ = ["RedlineDocument", "Paragraph", "Segment", "Comment", "Revision", "Finding"]
