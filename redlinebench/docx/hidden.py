"""Whether a Word reader can see a run's text (SPEC §5.1 ``hidden_text``), run by run.

Text can be in the document and still invisible on the page: hidden (``w:vanish``,
``w:specVanish``, ``w:webHidden``), coloured like what is behind it, set under 4 pt, squeezed,
condensed or shifted off its line. The
integrity audit owns the rule (``integrity.hidden_reason`` over the run's effective formatting,
``integrity.RunStyles``); the judges' view marks such text and the heuristic judge gives it no
credit, through :class:`Visibility`, which asks that rule for one run at a time and decides a
document in which nothing could hide text with one scan.
"""

from __future__ import annotations

from .integrity import (
    MAX_CONDENSE,
    MAX_SHIFT,
    MIN_HALF_POINTS,
    MIN_SCALE,
    RunStyles,
    colour_near,
    hidden_reason,
)
from .oxml import qn

_W_PPR = qn("w:pPr")
_W_PSTYLE = qn("w:pStyle")
_W_VAL = qn("w:val")
_W_FILL = qn("w:fill")
_W_P = qn("w:p")
_W_SZ = qn("w:sz")
_W_COLOR = qn("w:color")
_W_HIGHLIGHT = qn("w:highlight")
_W_SHD = qn("w:shd")
_TOGGLES = (qn("w:vanish"), qn("w:specVanish"), qn("w:webHidden"))
_W_SCALE = qn("w:w")
_W_SPACING = qn("w:spacing")
_W_POSITION = qn("w:position")
_W_RPR = qn("w:rPr")
_FALSE = {"0", "false", "off"}
_RT_STYLES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"


class Visibility:
    """Answers "can a Word reader see this run?" for one document (styles read once)."""

    def __init__(self, doc) -> None:
        self._styles = RunStyles(doc)
        styles_part = doc.part_for(_RT_STYLES)
        # every story a view shows (body, headers, footers, notes, comments) and the styles
        roots = [root for _part, root in doc.story_parts(comments=True)]
        roots += [doc.package.xml(styles_part)] if styles_part else []
        #: no run of the document can be hidden (the usual case: one C-level scan decides it)
        self.never = _nothing_hides(roots, self._styles.page)
        self._pstyles: dict[object, str | None] = {}   # w:p -> its paragraph style

    def _pstyle(self, run) -> str | None:
        p = run.getparent()
        while p is not None and p.tag != _W_P:
            p = p.getparent()
        try:
            return self._pstyles[p]
        except KeyError:
            ppr = p.find(_W_PPR) if p is not None else None
            pstyle = ppr.find(_W_PSTYLE) if ppr is not None else None
            sid = self._pstyles[p] = pstyle.get(_W_VAL) if pstyle is not None else None
            return sid

    def reason(self, run) -> str | None:
        """Why ``run``'s text is invisible to a Word reader, or None when it is visible."""
        if run is None or self.never:
            return None
        return hidden_reason(self._styles.effective(run, self._pstyle(run)), self._styles.page)


def _nothing_hides(roots, page: str) -> bool:
    """True when no element under ``roots`` could hide text: no hiding toggle, no tiny size, no
    highlight or shading, no font colour (or theme colour) near the page's."""
    for root in roots:
        for el in root.iter(*_TOGGLES, _W_SZ, _W_COLOR, _W_HIGHLIGHT, _W_SHD, _W_SCALE, _W_SPACING, _W_POSITION):
            tag = el.tag
            if tag in (_W_SCALE, _W_SPACING, _W_POSITION):
                if el.getparent() is not None and el.getparent().tag == _W_RPR and _squeezes(tag, el.get(_W_VAL)):
                    return False
            elif tag in _TOGGLES:
                if (el.get(_W_VAL) or "true").lower() not in _FALSE:
                    return False
            elif tag == _W_SZ:
                try:
                    if float(el.get(_W_VAL) or "") < MIN_HALF_POINTS:
                        return False
                except ValueError:
                    pass
            elif tag == _W_COLOR:
                if el.get(qn("w:themeColor")) or colour_near(el.get(_W_VAL), page):
                    return False
            elif tag == _W_HIGHLIGHT and (el.get(_W_VAL) or "none") != "none":
                return False
            elif tag == _W_SHD and (el.get(_W_FILL) or "auto") != "auto":
                return False
    return True


def _squeezes(tag: str, value: str | None) -> bool:
    """A scale, spacing or position value that could hide text at some font size >= 4 pt (the
    exact rule, which needs the size, is ``hidden_reason``'s)."""
    try:
        number = float(value or "")
    except ValueError:
        return False
    if tag == _W_SCALE:
        return 0 < number < MIN_SCALE
    if tag == _W_SPACING:
        return -number > MAX_CONDENSE * MIN_HALF_POINTS * 10
    return abs(number) > MAX_SHIFT * MIN_HALF_POINTS


__all__ = ["Visibility"]
