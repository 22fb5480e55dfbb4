"""Text boxes and shapes anchored in a paragraph: the stories a body walk does not enter.

A clause typed into a text box (``w:txbxContent`` inside a DrawingML ``wps:txbx`` or a VML
``v:textbox``) is part of what a Word reader sees, but the paragraph walk (``runs.walk_paragraph``)
treats the drawing that holds it as one atomic object with no text. Views and checks that must
show or weigh every visible word ask this module for those paragraphs.

Word writes most shapes twice, as ``mc:AlternateContent`` with a DrawingML ``mc:Choice`` and a VML
``mc:Fallback`` copy; Word shows the first choice whose namespaces it understands, else the
fallback (``mc.chosen_branch``), and only that branch's text is taken.
"""

from __future__ import annotations

from dataclasses import dataclass

from .mc import chosen_branch
from .oxml import qn
from .runs import REVISION_WRAPPERS, W_P, W_R, _context

W_TXBXCONTENT = qn("w:txbxContent")
_MC_ALTERNATE = qn("mc:AlternateContent")
_MC_CHOICE = qn("mc:Choice")
_MC_FALLBACK = qn("mc:Fallback")
_W_TBL = qn("w:tbl")
_W_TR = qn("w:tr")
_W_TC = qn("w:tc")
_W_SDT = qn("w:sdt")
_W_SDTCONTENT = qn("w:sdtContent")
_W_CUSTOMXML = qn("w:customXml")


@dataclass(frozen=True)
class TextBox:
    """One text box anchored in a paragraph: its content's paragraphs and the anchor's revision.

    ``kind`` is the revision context of the run holding the shape (``text`` when untracked,
    ``ins`` when the whole shape was inserted as a tracked change, ``del``...), ``rev`` that
    revision's wrapper: the box's text is attributed to it like any text of that run.
    """

    content: object            # the w:txbxContent element
    paragraphs: tuple          # its w:p elements in document order (tables included)
    kind: str
    rev: object | None
    run: object                # the w:r anchoring the shape in the host paragraph


def _block_paragraphs(container):
    for child in container:
        tag = child.tag
        if tag == W_P:
            yield child
        elif tag == _W_TBL:
            for tr in child.iter(_W_TR):
                for tc in tr.iter(_W_TC):
                    if tc.getparent() is tr:
                        yield from _block_paragraphs(tc)
        elif tag == _W_SDT:
            content = child.find(_W_SDTCONTENT)
            if content is not None:
                yield from _block_paragraphs(content)
        elif tag == _W_CUSTOMXML:
            yield from _block_paragraphs(child)


def _shown(content, host) -> bool:
    """False for a box in an alternate-content branch Word does not render (``mc.chosen_branch``:
    the first choice it understands, else the fallback), as the integrity audit reads them."""
    node = content.getparent()
    while node is not None and node is not host:
        if node.tag in (_MC_FALLBACK, _MC_CHOICE):
            alternate = node.getparent()
            if alternate is not None and alternate.tag == _MC_ALTERNATE and chosen_branch(alternate) is not node:
                return False
        node = node.getparent()
    return True


def text_boxes(p) -> list[TextBox]:
    """The text boxes anchored in paragraph ``p``'s own runs, in document order.

    A box inside another box belongs to the paragraph of the outer box that anchors it (ask
    again with that paragraph), so each box is returned once by exactly one host.
    """
    out: list[TextBox] = []
    if next(p.iter(W_TXBXCONTENT), None) is None:   # the common case: one C-level scan
        return out
    for content in p.iter(W_TXBXCONTENT):
        run, stack, nested = None, [], False
        node = content.getparent()
        while node is not None and node is not p:
            if node.tag == W_P:         # inside a paragraph of another box: that host reports it
                nested = True
                break
            if node.tag == W_R and run is None:
                run = node
            elif node.tag in REVISION_WRAPPERS and run is not None:
                stack.append(node)
            node = node.getparent()
        if nested or run is None or not _shown(content, p):
            continue
        kind, rev, _outer = _context(list(reversed(stack))) if stack else ("text", None, None)
        out.append(TextBox(content, tuple(_block_paragraphs(content)), kind, rev, run))
    return out


def box_paragraphs(p, head: str):
    """``(id, w:p, box)`` for every paragraph of every text box anchored in ``p``, boxes inside
    boxes included, in document order. Ids name the host: ``p-012/tb1.2`` is paragraph 2 of the
    first box anchored in ``p-012`` (the views and the integrity audit use the same ids)."""
    for n, box in enumerate(text_boxes(p), 1):
        for k, inner in enumerate(box.paragraphs, 1):
            pid = f"{head}/tb{n}.{k}"
            yield pid, inner, box
            yield from box_paragraphs(inner, pid)


__all__ = ["TextBox", "W_TXBXCONTENT", "box_paragraphs", "text_boxes"]
