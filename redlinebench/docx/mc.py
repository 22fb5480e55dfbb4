"""Markup compatibility (ECMA-376 Part 3): which branch of an ``mc:AlternateContent`` Word renders.

Word renders the first ``mc:Choice`` whose ``Requires`` names only namespaces it understands, else
the ``mc:Fallback`` (Part 3 §10.2.1). A reader that takes another branch (the first choice always,
or the fallback never) reads text no Word reader sees, or misses text every Word reader sees.
"""

from __future__ import annotations

from .oxml import qn

MC_ALTERNATE = qn("mc:AlternateContent")
MC_CHOICE = qn("mc:Choice")
MC_FALLBACK = qn("mc:Fallback")

#: Namespaces whose ``mc:Choice Requires`` Word understands.
WORD_NAMESPACES = frozenset({
    "http://schemas.microsoft.com/office/word/2010/wordml",
    "http://schemas.microsoft.com/office/word/2012/wordml",
    "http://schemas.microsoft.com/office/word/2015/wordml/symex",
    "http://schemas.microsoft.com/office/word/2016/wordml/cid",
    "http://schemas.microsoft.com/office/word/2018/wordml",
    "http://schemas.microsoft.com/office/word/2018/wordml/cex",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingShape",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingGroup",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingCanvas",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingInk",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingDrawing",
    "http://schemas.microsoft.com/office/drawing/2010/main",
    "http://schemas.microsoft.com/office/drawing/2014/chartex",
    "http://schemas.microsoft.com/office/drawing/2015/9/8/chartex",
    "http://schemas.microsoft.com/office/drawing/2016/5/9/chartex",
    "http://schemas.microsoft.com/office/drawing/2016/ink",
    "http://schemas.microsoft.com/office/drawing/2017/model3d",
    "http://schemas.openxmlformats.org/officeDocument/2006/math",
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "http://schemas.openxmlformats.org/drawingml/2006/main",
    "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing",
    "urn:schemas-microsoft-com:vml",
    "urn:schemas-microsoft-com:office:office",
    "urn:schemas-microsoft-com:office:word",
})


#: Prefixes Word writes for the namespaces it understands: a ``Requires`` naming one the file does
#: not declare (a hand-written fragment) is read by its usual meaning.
WORD_PREFIXES = frozenset({"w", "w14", "w15", "w16", "w16cid", "w16cex", "w16se", "w16du", "w16sdtdh", "wps", "wpg",
                           "wpc", "wpi", "wp", "wp14", "a", "a14", "m", "v", "o", "w10", "cx", "cx1", "cx2",
                           "aink", "am3d"})


def _understood(choice) -> bool:
    requires = (choice.get("Requires") or "").split()
    nsmap = choice.nsmap
    return bool(requires) and all(
        nsmap[prefix] in WORD_NAMESPACES if prefix in nsmap else prefix in WORD_PREFIXES for prefix in requires)


def chosen_branch(alternate):
    """The branch of ``alternate`` Word renders (None when it has neither an understood choice
    nor a fallback)."""
    fallback = None
    for child in alternate:
        if child.tag == MC_CHOICE and _understood(child):
            return child
        if child.tag == MC_FALLBACK and fallback is None:
            fallback = child
    return fallback


def in_unrendered_branch(el) -> bool:
    """``el`` sits in a branch of some ``mc:AlternateContent`` that Word does not render."""
    for branch in el.iterancestors(MC_CHOICE, MC_FALLBACK):
        parent = branch.getparent()
        if parent is None or chosen_branch(parent) is not branch:
            return True
    return False


__all__ = ["MC_ALTERNATE", "MC_CHOICE", "MC_FALLBACK", "WORD_NAMESPACES", "chosen_branch", "in_unrendered_branch"]
