"""Paragraphs, runs and their properties (schema order kept on insert)."""

from __future__ import annotations

from .parser import OxmlElement, register
from .xmlchemy import Attr, Child

#: CT_RPr children (EG_RPrBase), paragraph-mark revisions first, rPrChange last.
RPR_ORDER = (
    "w:ins", "w:del", "w:moveFrom", "w:moveTo",
    "w:rStyle", "w:rFonts", "w:b", "w:bCs", "w:i", "w:iCs", "w:caps", "w:smallCaps", "w:strike",
    "w:dstrike", "w:outline", "w:shadow", "w:emboss", "w:imprint", "w:noProof", "w:snapToGrid",
    "w:vanish", "w:webHidden", "w:color", "w:spacing", "w:w", "w:kern", "w:position", "w:sz",
    "w:szCs", "w:highlight", "w:u", "w:effect", "w:bdr", "w:shd", "w:fitText", "w:vertAlign",
    "w:rtl", "w:cs", "w:em", "w:lang", "w:eastAsianLayout", "w:specVanish", "w:oMath",
    "w:rPrChange",
)

#: CT_PPr children in schema order.
PPR_ORDER = (
    "w:pStyle", "w:keepNext", "w:keepLines", "w:pageBreakBefore", "w:framePr", "w:widowControl",
    "w:numPr", "w:suppressLineNumbers", "w:pBdr", "w:shd", "w:tabs", "w:suppressAutoHyphens",
    "w:kinsoku", "w:wordWrap", "w:overflowPunct", "w:topLinePunct", "w:autoSpaceDE",
    "w:autoSpaceDN", "w:bidi", "w:adjustRightInd", "w:snapToGrid", "w:spacing", "w:ind",
    "w:contextualSpacing", "w:mirrorIndents", "w:suppressOverlap", "w:jc", "w:textDirection",
    "w:textAlignment", "w:textboxTightWrap", "w:outlineLvl", "w:divId", "w:cnfStyle", "w:rPr",
    "w:sectPr", "w:pPrChange",
)

#: Mark revisions that live first inside ``w:pPr/w:rPr``.
MARK_REVISION_TAGS = ("w:ins", "w:del", "w:moveFrom", "w:moveTo")


class CT_P(OxmlElement):
    """``<w:p>``: a paragraph."""

    CHILD_ORDER = ("w:pPr",)
    pPr = Child("w:pPr")
    para_id = Attr("w14:paraId")
    text_id = Attr("w14:textId")


class CT_PPr(OxmlElement):
    """``<w:pPr>``: paragraph properties."""

    CHILD_ORDER = PPR_ORDER
    pStyle = Child("w:pStyle")
    numPr = Child("w:numPr")
    rPr = Child("w:rPr")
    sectPr = Child("w:sectPr")
    pPrChange = Child("w:pPrChange")


class CT_R(OxmlElement):
    """``<w:r>``: a run."""

    CHILD_ORDER = ("w:rPr",)
    rPr = Child("w:rPr")


class CT_RPr(OxmlElement):
    """``<w:rPr>`` of a run or of a paragraph mark."""

    CHILD_ORDER = RPR_ORDER
    rStyle = Child("w:rStyle")
    rPrChange = Child("w:rPrChange")


class CT_Text(OxmlElement):
    """``<w:t>`` / ``<w:delText>`` / ``<w:instrText>`` / ``<w:delInstrText>``."""


class CT_String(OxmlElement):
    """Any element whose payload is a ``w:val`` attribute (pStyle, rStyle, numId, ilvl...)."""

    val = Attr("w:val")


class CT_NumPr(OxmlElement):
    CHILD_ORDER = ("w:ilvl", "w:numId", "w:numberingChange", "w:ins")
    ilvl = Child("w:ilvl")
    numId = Child("w:numId")


for _tag in ("w:t", "w:delText", "w:instrText", "w:delInstrText"):
    register(_tag, CT_Text)
for _tag in ("w:pStyle", "w:rStyle", "w:numId", "w:ilvl", "w:start", "w:numFmt", "w:lvlText",
             "w:lvlRestart", "w:basedOn", "w:abstractNumId", "w:startOverride", "w:name", "w:isLgl"):
    register(_tag, CT_String)
register("w:p", CT_P)
register("w:pPr", CT_PPr)
register("w:r", CT_R)
register("w:rPr", CT_RPr)
register("w:numPr", CT_NumPr)
