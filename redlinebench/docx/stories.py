"""The paragraphs of the stories outside the body: headers, footers, footnotes and endnotes.

The tools edit the body only, but a Word reader sees the page header and the notes, and an agent
writing the ``.docx`` itself can change them (SPEC §5.1: every story counts and the views show
it). Both views name such a paragraph ``<part file>/p<k>`` (``header1.xml/p2``: the part's second
paragraph, table cells included, in document order; a note part's separator notes are skipped),
and its text boxes ``header1.xml/p2/tb1.1`` as in the body. The integrity audit names a finding
in these stories by the part's file name (``header1.xml``), which the views map to these lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .document import _format_changes_by_paragraph, iter_block_paragraphs
from .oxml import qn
from .runs import walk_paragraph
from .textboxes import W_TXBXCONTENT

_W_HDR, _W_FTR = qn("w:hdr"), qn("w:ftr")
_NOTES = (qn("w:footnote"), qn("w:endnote"))
_W_TYPE = qn("w:type")
_W_AUTHOR = qn("w:author")
_COMMENT_MARKS = (qn("w:commentRangeStart"), qn("w:commentRangeEnd"), qn("w:commentReference"))
#: every element that is a tracked change with an author (text, paragraph mark, formatting)
REVISION_TAGS = tuple(qn("w:" + t) for t in ("ins", "del", "moveFrom", "moveTo", "rPrChange", "pPrChange"))


@dataclass(frozen=True)
class StoryParagraph:
    """One paragraph of a header, footer or note part: ``pid`` as the views write it."""

    part: str           # the part's file name, e.g. "header1.xml"
    pid: str            # "header1.xml/p2"
    element: object     # the w:p
    running: bool       # a header or footer (shown whole), not a note (shown where it changed)
    format_changes: dict  # the part's paragraphs (text boxes' too) -> their formatting changes


def story_paragraphs(doc) -> list[StoryParagraph]:
    """Every paragraph of the document's headers, footers and notes, part by part in the order
    of the main document's relationships, each part's paragraphs in document order."""
    out: list[StoryParagraph] = []
    for part, root in doc.story_parts()[1:]:
        name = part.rsplit("/", 1)[-1]
        running = root.tag in (_W_HDR, _W_FTR)
        containers = [root] if running else [n for n in root if n.tag in _NOTES
                                             and (n.get(_W_TYPE) or "normal") == "normal"]
        fmt = _format_changes_by_paragraph(root)
        k = 0
        for container in containers:
            for p, _in_table in iter_block_paragraphs(container):
                k += 1
                out.append(StoryParagraph(name, f"{name}/p{k}", p, running, fmt))
    return out


def has_change(sp: StoryParagraph) -> bool:
    """True when the paragraph (or a text box in it) carries a tracked change: text, paragraph
    mark or formatting."""
    return next(sp.element.iter(*REVISION_TAGS), None) is not None


def has_comment(sp: StoryParagraph) -> bool:
    """True when a comment's range starts or ends, or its reference stands, in the paragraph."""
    return next(sp.element.iter(*_COMMENT_MARKS), None) is not None


def has_text(sp: StoryParagraph) -> bool:
    """True when the paragraph holds text (current or struck) or a text box."""
    walk = walk_paragraph(sp.element)
    return bool(walk.current.strip() or walk.original.strip()
                or next(sp.element.iter(W_TXBXCONTENT), None) is not None)


def story_authors(doc):
    """Authors of the tracked changes in headers, footers and notes (usually none)."""
    for _part, root in doc.story_parts()[1:]:
        for el in root.iter(*REVISION_TAGS):
            yield el.get(_W_AUTHOR)


def part_of(where: str) -> str | None:
    """The header, footer or note part a finding's location starts with (``header1.xml``,
    ``header1.xml/p2``, ``footnotes.xml note 3``), or None."""
    m = _PART.match(where)
    return m.group(1) if m and m.group(1) != "document.xml" else None


#: a location that is one of the views' story lines (``header1.xml/p2``, ``header1.xml/p2/tb1.1``)
STORY_LINE = re.compile(r"[A-Za-z0-9_.-]+\.xml/p\d+(?:/tb\d+\.\d+)*")
_PART = re.compile(r"^([A-Za-z0-9_.-]+\.xml)(?=$|[/ :,;(])")


__all__ = ["REVISION_TAGS", "STORY_LINE", "StoryParagraph", "has_change", "has_comment", "has_text", "part_of",
           "story_authors", "story_paragraphs"]
