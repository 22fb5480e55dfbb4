"""Tracked-change wrappers and property changes."""

from __future__ import annotations

from .parser import OxmlElement, register
from .xmlchemy import Attr


class CT_TrackChange(OxmlElement):
    """``w:ins`` / ``w:del`` / ``w:moveFrom`` / ``w:moveTo`` and the ``*PrChange`` family."""

    id = Attr("w:id", int)
    author = Attr("w:author", required=True)
    date = Attr("w:date")


class CT_MoveRange(OxmlElement):
    """``w:moveFromRangeStart`` / ``w:moveToRangeStart`` (and their ends: id only)."""

    id = Attr("w:id", int)
    name = Attr("w:name")
    author = Attr("w:author")
    date = Attr("w:date")


for _tag in ("w:ins", "w:del", "w:moveFrom", "w:moveTo", "w:rPrChange", "w:pPrChange",
             "w:sectPrChange", "w:tblPrChange", "w:trPrChange", "w:tcPrChange", "w:numberingChange"):
    register(_tag, CT_TrackChange)
for _tag in ("w:moveFromRangeStart", "w:moveFromRangeEnd", "w:moveToRangeStart", "w:moveToRangeEnd"):
    register(_tag, CT_MoveRange)
