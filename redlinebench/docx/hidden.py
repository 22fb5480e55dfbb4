"""Whether a Word reader can see a run's text (SPEC §5.1 ``hidden_text``).

Text can be in the document and still invisible on the page: hidden (``w:vanish``,
``w:specVanish``, ``w:webHidden``), coloured like what is behind it (the run's highlight or
shading, else the page colour of ``w:background``, white by default), or set under 4 pt. The
judges' view marks such text and the heuristic judge gives it no credit, so a grade never rests
on words the other side's lawyer would not see. Formatting is resolved the way Word does for
these properties: direct run formatting, then the character style chain, then the paragraph
style chain, then the document defaults.
"""

from __future__ import annotations

from .oxml import qn
from .package import RT_BASE

_W_RPR = qn("w:rPr")
_W_PPR = qn("w:pPr")
_W_VAL = qn("w:val")
_W_COLOR = qn("w:color")
_W_FILL = qn("w:fill")
_W_STYLE = qn("w:style")
_W_STYLEID = qn("w:styleId")
_W_BASEDON = qn("w:basedOn")
_W_RSTYLE = qn("w:rStyle")
_W_PSTYLE = qn("w:pStyle")
_W_BACKGROUND = qn("w:background")
_W_DOCDEFAULTS = qn("w:docDefaults")
_W_RPRDEFAULT = qn("w:rPrDefault")
_W_P = qn("w:p")
_TOGGLES = (("w:vanish", "hidden (w:vanish)"), ("w:specVanish", "hidden (w:specVanish)"),
            ("w:webHidden", "hidden (w:webHidden)"))
_TOGGLE_TAGS = tuple((qn(tag), why) for tag, why in _TOGGLES)
_W_SZ = qn("w:sz")
_W_HIGHLIGHT = qn("w:highlight")
_W_SHD = qn("w:shd")
_RT_STYLES = RT_BASE + "styles"
_FALSE = {"0", "false", "off"}
#: Font size under this many half-points is unreadable (SPEC §5.1: under 4 pt).
MIN_HALF_POINTS = 8
#: Largest per-channel difference (0-255) at which a font colour counts as the background's.
COLOUR_DISTANCE = 24
_HIGHLIGHTS = {"black": "000000", "blue": "0000FF", "cyan": "00FFFF", "green": "00FF00", "magenta": "FF00FF",
               "red": "FF0000", "yellow": "FFFF00", "white": "FFFFFF", "darkBlue": "000080", "darkCyan": "008080",
               "darkGreen": "008000", "darkMagenta": "800080", "darkRed": "800000", "darkYellow": "808000",
               "darkGray": "808080", "lightGray": "C0C0C0"}


def _rgb(value: str | None) -> tuple[int, int, int] | None:
    if not value or len(value) != 6:
        return None
    try:
        return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
    except ValueError:
        return None


class Visibility:
    """Answers "can a Word reader see this run?" for one document (styles read once)."""

    def __init__(self, doc) -> None:
        root = doc.body.getparent()
        background = root.find(_W_BACKGROUND) if root is not None else None
        self.page = _rgb(background.get(_W_COLOR) if background is not None else None) or (255, 255, 255)
        self._styles: dict[str, object] = {}
        self._defaults = None
        styles_part = doc.part_for(_RT_STYLES)
        if styles_part:
            styles = doc.package.xml(styles_part)
            for style in styles.iter(_W_STYLE):
                sid = style.get(_W_STYLEID)
                if sid and sid not in self._styles:
                    self._styles[sid] = style
            defaults = styles.find(_W_DOCDEFAULTS)
            if defaults is not None:
                holder = defaults.find(_W_RPRDEFAULT)
                self._defaults = holder.find(_W_RPR) if holder is not None else None
        self._cache: dict[object, str | None] = {}

    def _chain(self, sid: str | None) -> list:
        """The rPr of a style and the styles it is based on, nearest first (cycles cut)."""
        out, seen = [], set()
        while sid and sid not in seen and sid in self._styles:
            seen.add(sid)
            style = self._styles[sid]
            rpr = style.find(_W_RPR)
            if rpr is not None:
                out.append(rpr)
            based = style.find(_W_BASEDON)
            sid = based.get(_W_VAL) if based is not None else None
        return out

    def _layers(self, run) -> list:
        """Every rPr that formats ``run``, highest priority first."""
        layers = []
        rpr = run.find(_W_RPR)
        if rpr is not None:
            layers.append(rpr)
            rstyle = rpr.find(_W_RSTYLE)
            if rstyle is not None:
                layers.extend(self._chain(rstyle.get(_W_VAL)))
        p = run.getparent()
        while p is not None and p.tag != _W_P:
            p = p.getparent()
        if p is not None:
            ppr = p.find(_W_PPR)
            pstyle = ppr.find(_W_PSTYLE) if ppr is not None else None
            layers.extend(self._chain(pstyle.get(_W_VAL) if pstyle is not None else "Normal"))
        if self._defaults is not None:
            layers.append(self._defaults)
        return layers

    def reason(self, run) -> str | None:
        """Why ``run``'s text is invisible to a Word reader, or None when it is visible."""
        if run is None:
            return None
        try:
            return self._cache[run]
        except KeyError:
            pass
        why = self._reason(self._layers(run))
        self._cache[run] = why
        return why

    def _reason(self, layers: list) -> str | None:
        def first(tag):
            for layer in layers:
                el = layer.find(tag)
                if el is not None:
                    return el
            return None

        for tag, why in _TOGGLE_TAGS:
            el = first(tag)
            if el is not None and (el.get(_W_VAL) or "true").lower() not in _FALSE:
                return why
        size = first(_W_SZ)
        if size is not None:
            try:
                half_points = int(size.get(_W_VAL) or "")
            except ValueError:
                half_points = MIN_HALF_POINTS
            if half_points < MIN_HALF_POINTS:
                return f"font size {half_points / 2:g} pt"
        colour = first(_W_COLOR)
        rgb = _rgb(colour.get(_W_VAL)) if colour is not None else None
        if rgb is not None:
            behind, what = self.page, "the page"
            highlight = first(_W_HIGHLIGHT)
            shading = first(_W_SHD)
            if highlight is not None and _HIGHLIGHTS.get(highlight.get(_W_VAL) or ""):
                behind, what = _rgb(_HIGHLIGHTS[highlight.get(_W_VAL)]), "its highlight"
            elif shading is not None and _rgb(shading.get(_W_FILL)) is not None:
                behind, what = _rgb(shading.get(_W_FILL)), "its shading"
            if max(abs(a - b) for a, b in zip(rgb, behind)) <= COLOUR_DISTANCE:
                return f"font colour {colour.get(_W_VAL).upper()} on {what} ({'%02X%02X%02X' % behind})"
        return None


__all__ = ["COLOUR_DISTANCE", "MIN_HALF_POINTS", "Visibility"]
