"""Comments and their anchors in the body."""

from __future__ import annotations

from .parser import OxmlElement, register
from .xmlchemy import Attr


class CT_Comment(OxmlElement):
    """``<w:comment>`` in comments.xml."""

    id = Attr("w:id", int)
    author = Attr("w:author")
    date = Attr("w:date")
    initials = Attr("w:initials")


class CT_Markup(OxmlElement):
    """``commentRangeStart`` / ``commentRangeEnd`` / ``commentReference`` / bookmarks."""

    id = Attr("w:id", int)
    name = Attr("w:name")


class CT_CommentEx(OxmlElement):
    para_id = Attr("w15:paraId")
    para_id_parent = Attr("w15:paraIdParent")
    done = Attr("w15:done", bool, default=False)


register("w:comment", CT_Comment)
for _tag in ("w:commentRangeStart", "w:commentRangeEnd", "w:commentReference", "w:bookmarkStart",
             "w:bookmarkEnd"):
    register(_tag, CT_Markup)
register("w15:commentEx", CT_CommentEx)
