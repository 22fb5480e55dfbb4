"""The page as a Word reader sees it (SPEC §5.1, integrity v3): one model every consumer asks.

The XML's text is not what a reader of the document reads. Clause numbers are computed (from
``numbering.xml``, the style chain and the paragraphs before); a content control bound to a custom
XML part shows that part's value; ``mc:AlternateContent`` shows one branch; and text can stand in
the XML yet be unreadable on the page: hidden, coloured like what is behind it (a theme colour is
resolved through ``theme1.xml`` and the settings' colour-scheme mapping; what is behind it is the
topmost of highlight, run shading, paragraph shading, cell and table shading, page colour), under
4 pt, squeezed, shifted off its line or off the page, switched to a symbol font, or in a table cell
that a merge covers. :class:`Rendering` answers, per document and cached, for any story's
paragraph: its displayed label, why each run is not readable (or None), the value shown by a bound
content control, and which ``mc:AlternateContent`` branch Word renders. The integrity audit
compares two documents' renderings; the read view and the annotated view show its labels and marks.
"""

from __future__ import annotations

import hashlib
import re
import weakref

from lxml import etree

from .mc import chosen_branch, in_unrendered_branch
from .numbering import Counter, Numbering
from .oxml import qn
from .runs import W_AUTHOR, W_P, W_PPR, W_R, W_RPR, W_TBL, W_TC

__all__ = [
    "COLOUR_DISTANCE", "MIN_HALF_POINTS", "MIN_SCALE", "MAX_CONDENSE", "MAX_SHIFT", "Rendering", "RunStyles",
    "chosen_branch", "colour_near", "context_digest", "hidden_reason", "in_unrendered_branch", "rendering",
    "story_labels",
]

W_VAL = qn("w:val")
W_COLOR = qn("w:color")
W_THEMECOLOR = qn("w:themeColor")
W_THEMETINT = qn("w:themeTint")
W_THEMESHADE = qn("w:themeShade")
W_FILL = qn("w:fill")
W_SZ = qn("w:sz")
W_HIGHLIGHT = qn("w:highlight")
W_SHD = qn("w:shd")
W_BACKGROUND = qn("w:background")
W_RSTYLE = qn("w:rStyle")
W_PSTYLE = qn("w:pStyle")
W_STYLE = qn("w:style")
W_STYLEID = qn("w:styleId")
W_BASEDON = qn("w:basedOn")
W_TYPE = qn("w:type")
W_SCALE = qn("w:w")
W_SPACING = qn("w:spacing")
W_POSITION = qn("w:position")
W_RFONTS = qn("w:rFonts")
W_FITTEXT = qn("w:fitText")
W_TBLPR = qn("w:tblPr")
W_TCPR = qn("w:tcPr")
W_TBLSTYLE = qn("w:tblStyle")
W_VMERGE = qn("w:vMerge")
W_HMERGE = qn("w:hMerge")
W_FRAMEPR = qn("w:framePr")
W_PPRCHANGE = qn("w:pPrChange")
W_NUMPR = qn("w:numPr")
W_NUMBERINGCHANGE = qn("w:numberingChange")
W_INS = qn("w:ins")
W_DEL = qn("w:del")
W_MOVEFROM = qn("w:moveFrom")
W_MOVETO = qn("w:moveTo")
W_TXBXCONTENT = qn("w:txbxContent")
W_SDT = qn("w:sdt")
W_SDTPR = qn("w:sdtPr")
W_DATABINDING = qn("w:dataBinding")
W_SECTPR = qn("w:sectPr")
W_PGSZ = qn("w:pgSz")
_WP = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
WP_ANCHOR = f"{{{_WP}}}anchor"
WP_POSH = f"{{{_WP}}}positionH"
WP_POSV = f"{{{_WP}}}positionV"
WP_OFFSET = f"{{{_WP}}}posOffset"
V_SHAPE_STYLE = re.compile(r"(margin-left|margin-top|left|top)\s*:\s*(-?[\d.]+)(pt|in|px|)", re.I)

_BOOL_OFF = ("0", "false", "off", "none")
HIDING = (qn("w:vanish"), qn("w:specVanish"), qn("w:webHidden"))
_VISUAL = tuple(qn("w:" + t) for t in ("b", "i", "strike", "dstrike", "caps", "smallCaps", "vanish"))
_U = qn("w:u")
_VERTALIGN = qn("w:vertAlign")
HIGHLIGHT_RGB = {"black": "000000", "blue": "0000FF", "cyan": "00FFFF", "green": "00FF00",
                 "magenta": "FF00FF", "red": "FF0000", "yellow": "FFFF00", "white": "FFFFFF",
                 "darkBlue": "000080", "darkCyan": "008080", "darkGreen": "008000",
                 "darkMagenta": "800080", "darkRed": "800000", "darkYellow": "808000",
                 "darkGray": "808080", "lightGray": "C0C0C0"}
#: Font colour this close (largest channel difference) to the background reads as invisible.
COLOUR_DISTANCE = 24
#: Font size (half-points) under which text is unreadable: 4 pt.
MIN_HALF_POINTS = 8
#: Character scale (``w:w``, percent of normal width) under which glyphs are squeezed to nothing.
MIN_SCALE = 20
#: Condensed spacing (``w:spacing``, twips) beyond this share of the font size stacks glyphs on one another.
MAX_CONDENSE = 0.5
#: Raised or lowered (``w:position``) by more than this many times its own size: off its line, or the page.
MAX_SHIFT = 4
#: Word's size when nothing sets one (10 pt), in half-points.
DEFAULT_HALF_POINTS = 20
#: ``w:fitText`` squeezing its text below this share of the text's natural width hides it.
MIN_FIT = 0.2
#: Natural width of an average character, as a share of the font size (Latin text in a proportional font).
CHAR_WIDTH = 0.5
#: Fonts whose glyphs are pictures, not letters: text switched to one no longer reads (by name
#: prefix; "Symbol" exactly, so "Segoe UI Symbol", which draws letters, is not one).
SYMBOL_FONTS = ("wingdings", "webdings", "marlett", "zapf dingbats", "itc zapf dingbats", "bookshelf symbol",
                "ms outlook", "ms reference specialty")


def symbol_font(name: str | None) -> bool:
    """``name`` is a font whose glyphs are pictures (Wingdings, Webdings, Symbol, Marlett, dingbats)."""
    if not name:
        return False
    low = " ".join(name.lower().split())
    return low == "symbol" or low.startswith(SYMBOL_FONTS) or "dingbat" in low
_THEME_SLOTS = ("dk1", "lt1", "dk2", "lt2", "accent1", "accent2", "accent3", "accent4", "accent5", "accent6",
                "hlink", "folHlink")
#: ``w:themeColor`` value -> (clrSchemeMapping attribute, its default) or the scheme slot itself (§17.18.97).
_THEME_NAMES = {"background1": ("bg1", "light1"), "text1": ("t1", "dark1"), "background2": ("bg2", "light2"),
                "text2": ("t2", "dark2"), "accent1": ("accent1", "accent1"), "accent2": ("accent2", "accent2"),
                "accent3": ("accent3", "accent3"), "accent4": ("accent4", "accent4"),
                "accent5": ("accent5", "accent5"), "accent6": ("accent6", "accent6"),
                "hyperlink": ("hyperlink", "hyperlink"), "followedHyperlink": ("followedHyperlink",
                                                                              "followedHyperlink")}
_SLOT_OF = {"dark1": "dk1", "light1": "lt1", "dark2": "dk2", "light2": "lt2", "hyperlink": "hlink",
            "followedHyperlink": "folHlink", **{f"accent{k}": f"accent{k}" for k in range(1, 7)}}
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
RT_THEME = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/theme"
RT_SETTINGS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings"
RT_STYLES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"
RT_NUMBERING = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering"


# ---------------------------------------------------------------------------------------------- colours
def _rgb(value: str | None) -> str | None:
    if value and len(value) == 6:
        try:
            int(value, 16)
        except ValueError:
            return None
        return value.upper()
    return None


def colour_near(colour: str | None, background: str) -> bool:
    """``colour`` (RRGGBB) is within COLOUR_DISTANCE of ``background`` on every channel (False
    when it is not an RGB value)."""
    rgb = _rgb(colour)
    if rgb is None:
        return False
    return max(abs(int(rgb[i:i + 2], 16) - int(background[i:i + 2], 16)) for i in (0, 2, 4)) <= COLOUR_DISTANCE


def _tint(rgb: str, tint: str | None, shade: str | None) -> str:
    """``w:themeTint`` lightens toward white, ``w:themeShade`` darkens toward black (§17.3.2.6)."""
    out = []
    for i in (0, 2, 4):
        c = int(rgb[i:i + 2], 16)
        try:
            if tint:
                c = 255 - (255 - c) * int(tint, 16) // 255
            if shade:
                c = c * int(shade, 16) // 255
        except ValueError:
            pass
        out.append(f"{max(0, min(255, c)):02X}")
    return "".join(out)


class Theme:
    """The document's colour scheme (``theme1.xml``) seen through ``w:clrSchemeMapping`` (settings)."""

    def __init__(self, doc) -> None:
        self.slots: dict[str, str] = {}
        self.mapping: dict[str, str] = {}
        part = doc.part_for(RT_THEME)
        if part is not None:
            root = doc.package.xml(part)
            scheme = next(root.iter(f"{{{_A}}}clrScheme"), None)
            for slot in _THEME_SLOTS:
                el = scheme.find(f"{{{_A}}}{slot}") if scheme is not None else None
                if el is None:
                    continue
                for child in el:
                    value = child.get("val") if child.tag == f"{{{_A}}}srgbClr" else child.get("lastClr")
                    if _rgb(value):
                        self.slots[slot] = _rgb(value)
                        break
        settings = doc.part_for(RT_SETTINGS)
        if settings is not None:
            mapping = doc.package.xml(settings).find(qn("w:clrSchemeMapping"))
            if mapping is not None:
                for key, value in mapping.attrib.items():
                    self.mapping[key.rsplit("}", 1)[-1]] = value

    def colour(self, name: str, tint: str | None = None, shade: str | None = None) -> str | None:
        """RGB of a ``w:themeColor`` name, or None when the document does not define it."""
        if name in _THEME_NAMES:
            attr, default = _THEME_NAMES[name]
            name = self.mapping.get(attr, default)
        slot = _SLOT_OF.get(name, name)
        rgb = self.slots.get(slot)
        return _tint(rgb, tint, shade) if rgb else None


# ---------------------------------------------------------------------------------------------- run formatting
class RunStyles:
    """Effective run properties of a run: direct rPr over character style over paragraph style
    over table style over document defaults (only the properties the audit reads), theme colours
    resolved, and the page colour: what :func:`hidden_reason` needs to tell whether a reader sees a run."""

    def __init__(self, doc) -> None:
        self.by_id: dict[str, tuple[str | None, object | None, object | None]] = {}
        self.elements: dict[str, object] = {}
        self.defaults: dict[str, object] = {}
        self.default_para: str | None = None
        self.page = "FFFFFF"
        self.theme = Theme(doc)
        bg = doc.package.xml(doc.package.main_part).find(W_BACKGROUND)
        if bg is not None:
            colour = _rgb(bg.get(W_COLOR))
            if bg.get(W_THEMECOLOR):
                colour = self.theme.colour(bg.get(W_THEMECOLOR), bg.get(W_THEMETINT), bg.get(W_THEMESHADE)) or colour
            self.page = colour or self.page
        self._cache: dict[tuple, dict] = {}
        part = doc.part_for(RT_STYLES)
        if part is None:
            return
        root = doc.package.xml(part)
        rpr_default = root.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{W_RPR}")
        if rpr_default is not None:
            self.defaults = self._resolved(_props(rpr_default))
        for style in root.iter(W_STYLE):
            sid = style.get(W_STYLEID)
            if not sid:
                continue
            based = style.find(W_BASEDON)
            self.by_id[sid] = (based.get(W_VAL) if based is not None else None, style.find(W_RPR),
                               style.get(W_TYPE))
            self.elements[sid] = style
            if style.get(qn("w:default")) in ("1", "true", "on") and style.get(W_TYPE) == "paragraph":
                self.default_para = sid

    def _resolved(self, props: dict) -> dict:
        colour = props.get(W_COLOR)
        if isinstance(colour, tuple):   # ("theme", name, tint, shade, fallback)
            _, name, tint, shade, fallback = colour
            props[W_COLOR] = self.theme.colour(name, tint, shade) or (
                "theme:" + name if name in ("background1", "light1") else fallback)
        return props

    def chain(self, sid: str | None) -> list:
        """The style elements of ``sid``'s basedOn chain, the style itself first."""
        out, seen = [], set()
        while sid and sid not in seen and sid in self.elements:
            seen.add(sid)
            out.append(self.elements[sid])
            sid = self.by_id[sid][0]
        return out

    def style_props(self, sid: str | None) -> dict:
        key = ("s", sid)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        out: dict = {}
        for style in reversed(self.chain(sid)):
            rpr = self.by_id[style.get(W_STYLEID)][1]
            if rpr is not None:
                out.update(_props(rpr))
        self._cache[key] = self._resolved(out)
        return out

    def effective(self, run, pstyle: str | None, tstyle: str | None = None) -> dict:
        rpr = None
        for child in run:
            if child.tag == W_RPR:
                rpr = child
                break
        return self.effective_rpr(rpr, pstyle, tstyle)

    def effective_rpr(self, rpr, pstyle: str | None, tstyle: str | None = None) -> dict:
        """:meth:`effective` of a run whose (first) ``w:rPr`` is ``rpr`` (None: it has none)."""
        rstyle = None
        if rpr is not None:
            for child in rpr:
                if child.tag == W_RSTYLE:
                    rstyle = child.get(W_VAL)
        key = (pstyle, rstyle, tstyle)
        base = self._cache.get(key)
        if base is None:
            base = dict(self.defaults)
            if tstyle:
                base.update(self.style_props(tstyle))
            base.update(self.style_props(pstyle or self.default_para))
            if rstyle:
                base.update(self.style_props(rstyle))
            self._cache[key] = base
        if rpr is None:
            return base
        out = dict(base)
        out.update(self._resolved(_props(rpr)))
        return out


def _props(rpr) -> dict:
    """The audited properties set by one ``w:rPr`` (its ``w:rPrChange`` is the old state: skipped)."""
    out: dict = {}
    for child in rpr:
        tag = child.tag
        if tag in _VISUAL or tag in HIDING:
            out[tag] = child.get(W_VAL, "1").lower() not in _BOOL_OFF
        elif tag == W_COLOR:
            theme = child.get(W_THEMECOLOR)
            if theme and theme != "none":
                out[W_COLOR] = ("theme", theme, child.get(W_THEMETINT), child.get(W_THEMESHADE),
                                child.get(W_VAL) or "auto")
            else:
                out[W_COLOR] = child.get(W_VAL) or "auto"
        elif tag in (W_SZ, W_SCALE, W_SPACING, W_POSITION):
            try:
                out[tag] = int(float(child.get(W_VAL) or "0"))
            except (ValueError, OverflowError):   # "nan", "inf": no size Word would apply
                pass
        elif tag == W_HIGHLIGHT:
            out[W_HIGHLIGHT] = child.get(W_VAL) or "none"
        elif tag == W_SHD:
            out[W_SHD] = shading_colour(child) or "auto"
        elif tag == _U:
            out[_U] = (child.get(W_VAL) or "single") != "none"
        elif tag == _VERTALIGN:
            out[_VERTALIGN] = child.get(W_VAL) or "baseline"
        elif tag == W_RFONTS:
            font = child.get(qn("w:ascii")) or child.get(qn("w:hAnsi"))
            if font:
                out[W_RFONTS] = font
        elif tag == W_FITTEXT:
            try:
                out[W_FITTEXT] = (int(child.get(W_VAL) or "0"), child.get(qn("w:id")))
            except ValueError:
                pass
    return out


def shading_colour(shd) -> str | None:
    """The colour a ``w:shd`` paints: its fill, or its pattern colour for a solid pattern (None: none)."""
    if shd is None:
        return None
    pattern = shd.get(W_VAL) or "clear"
    if pattern == "nil":
        return None
    if pattern == "solid":
        colour = shd.get(W_COLOR)
        return "000000" if colour in (None, "auto") else _rgb(colour)
    return _rgb(shd.get(W_FILL))


def hidden_reason(props: dict, page: str, background: str | None = None) -> str | None:
    """Why a reader of the document in Word would not see text with these properties, or None.
    ``background`` is the colour behind the paragraph (its shading, its cell's or table's) when
    it is not the page's."""
    for tag in HIDING:
        if props.get(tag):
            return tag.split("}")[1]
    size = props.get(W_SZ)
    if size is not None and 0 < size < MIN_HALF_POINTS:
        return f"{size / 2:g} pt font"
    scale = props.get(W_SCALE)
    if scale is not None and 0 < scale < MIN_SCALE:
        return f"{scale}% character scale"
    half_points = size if size else DEFAULT_HALF_POINTS
    spacing = props.get(W_SPACING)
    if spacing is not None and -spacing > MAX_CONDENSE * half_points * 10:
        return f"characters condensed by {-spacing / 20:g} pt"
    position = props.get(W_POSITION)
    if position is not None and abs(position) > MAX_SHIFT * half_points:
        return f"text {'raised' if position > 0 else 'lowered'} by {abs(position) / 2:g} pt"
    font = props.get(W_RFONTS)
    if font and symbol_font(font):
        return f"symbol font {font}"
    colour = props.get(W_COLOR)
    if colour and colour != "auto":   # "auto" is black or white, whichever contrasts (never hidden)
        behind = background or page
        highlight = props.get(W_HIGHLIGHT)
        shading = _rgb(props.get(W_SHD))
        if highlight and highlight != "none" and highlight in HIGHLIGHT_RGB:
            behind = HIGHLIGHT_RGB[highlight]
        elif shading:
            behind = shading
        rgb = behind if colour.startswith("theme:") and behind == page else _rgb(colour)
        if rgb and colour_near(rgb, behind):
            return f"font colour {rgb} on background {behind}"
    return None


# ---------------------------------------------------------------------------------------------- data binding
class DataStore:
    """Custom XML parts by their ``ds:itemID`` (what ``w:dataBinding/@w:storeItemID`` names)."""

    _DS = "http://schemas.openxmlformats.org/officeDocument/2006/customXml"

    def __init__(self, doc) -> None:
        self.items: dict[str, object] = {}
        self.roots: list = []
        package = doc.package
        for name in package.part_names:
            if not re.fullmatch(r"customXml/item\d+\.xml", name):
                continue
            props = name.replace("/item", "/itemProps")
            try:
                root = package.xml(name)
            except Exception:   # a custom XML part Word would not parse: nothing bound to it shows
                continue
            self.roots.append(root)
            if package.has(props):
                try:
                    item = package.xml(props).get(f"{{{self._DS}}}itemID")
                except Exception:
                    item = None
                if item:
                    self.items[item.strip("{}").upper()] = root

    def value(self, binding) -> str | None:
        """The text a ``w:dataBinding`` shows, or None when its part or node does not exist."""
        store = (binding.get(qn("w:storeItemID")) or "").strip("{}").upper()
        xpath = binding.get(qn("w:xpath")) or ""
        root = self.items.get(store)
        candidates = [root] if root is not None else ([] if store else self.roots)
        namespaces = dict(re.findall(r"xmlns:(\w+)=['\"]([^'\"]+)['\"]", binding.get(qn("w:prefixMappings")) or ""))
        for root in candidates:
            try:
                hits = etree.XPath(xpath, namespaces=namespaces)(root.getroottree())
            except (etree.XPathError, TypeError, ValueError):
                return None
            if isinstance(hits, list) and hits:
                hit = hits[0]
                return hit if isinstance(hit, str) else "".join(hit.itertext())
            if isinstance(hits, str):
                return hits
        return None


# ---------------------------------------------------------------------------------------------- labels
def _mark_revisions(ppr) -> list:
    """The tracked insertion, deletion or move of the paragraph mark of a paragraph with this ``w:pPr``."""
    rpr = ppr[-1] if ppr[-1].tag == W_RPR else ppr.find(W_RPR)
    if rpr is None:
        return []
    return [c for c in rpr if c.tag in (W_INS, W_DEL, W_MOVEFROM, W_MOVETO)]


def _old_ppr(ppr, author: str | None):
    """``ppr`` with ``author``'s tracked paragraph-property change rejected (its old ``w:pPr``)."""
    if ppr is None or author is None:
        return ppr
    change = ppr.find(W_PPRCHANGE)
    if change is None or (change.get(W_AUTHOR) or "") != author:
        return ppr
    old = change.find(W_PPR)
    return old if old is not None else ppr


def story_labels(paragraphs, numbering: Numbering, *, reject: str | None = None, current: bool = False,
                 skip=frozenset(), reject_all_ppr: bool = False) -> dict:
    """Each paragraph's displayed list label (clause number), in document order.

    ``current``: the current view (a paragraph whose mark is deleted does not count: the read view);
    ``reject``: the view with that author's revisions rejected (their inserted paragraph marks do not
    count, their deleted ones do, their ``w:pPrChange`` gives the old properties); otherwise every
    paragraph counts. ``skip``: paragraphs left out of the count. ``reject_all_ppr``: every
    ``w:pPrChange`` rejected, whoever made it."""
    counter = Counter(numbering)
    out: dict = {}
    marked = current or reject is not None
    for p in paragraphs:
        if skip and p in skip:
            continue
        ppr = p[0] if len(p) and p[0].tag == W_PPR else p.find(W_PPR)
        marks = _mark_revisions(ppr) if marked and ppr is not None and len(ppr) else ()
        if marks:
            if current and any(m.tag in (W_DEL, W_MOVEFROM) for m in marks):
                continue
            if reject is not None and any(m.tag in (W_INS, W_MOVETO) and (m.get(W_AUTHOR) or "") == reject
                                          for m in marks):
                continue
        if reject is not None:
            ppr = _old_ppr(ppr, reject)
        elif reject_all_ppr and ppr is not None and ppr.find(W_PPRCHANGE) is not None:
            old = ppr.find(W_PPRCHANGE).find(W_PPR)
            ppr = old if old is not None else ppr
        out[p] = counter.next_label(ppr)
    return out


# ---------------------------------------------------------------------------------------------- the model
def context_digest(doc) -> str:
    """A digest of every part outside the stories that changes what the page shows: styles, numbering,
    theme, settings (colour mapping), custom XML (bound content), the page colour. Two documents
    with equal digests render byte-identical paragraphs alike (their tables' properties aside)."""
    h = hashlib.sha256()
    package = doc.package
    for reltype in (RT_STYLES, RT_NUMBERING, RT_THEME, RT_SETTINGS):
        part = doc.part_for(reltype)
        h.update(etree.tostring(package.xml(part)) if part else b"-")
        h.update(b"\x00")
    for name in package.part_names:
        if name.startswith("customXml/item") and name.endswith(".xml"):
            h.update(package.blob(name))
    bg = package.xml(package.main_part).find(W_BACKGROUND)
    h.update(etree.tostring(bg) if bg is not None else b"-")
    return h.hexdigest()


class Rendering:
    """What a Word reader sees of one document (see the module's docstring); build with :func:`rendering`."""

    def __init__(self, doc) -> None:
        self._doc = weakref.ref(doc)   # the cache maps the document to its model: no strong way back
        self.numbering: Numbering = doc.numbering
        self._styles: RunStyles | None = None
        self._digest: str | None = None
        self._data: DataStore | None = None
        self._para_ctx: dict = {}
        self._run_cache: dict = {}
        self._tables: dict = {}
        self._fits: dict = {}
        self._could_hide: bool | None = None
        body = doc.body
        sect = body.find(W_SECTPR) if body is not None else None
        size = sect.find(W_PGSZ) if sect is not None else None
        self.page_w = _twips(size.get(qn("w:w")) if size is not None else None, 12240)
        self.page_h = _twips(size.get(qn("w:h")) if size is not None else None, 15840)

    @property
    def doc(self):
        """The rendered document (held weakly: a cached model never keeps its document alive)."""
        return self._doc()

    @property
    def styles(self) -> RunStyles:
        """The effective-formatting reader (built on first use: a read view that never asks about
        visibility does not pay for it)."""
        if self._styles is None:
            self._styles = RunStyles(self.doc)
        return self._styles

    @property
    def digest(self) -> str:
        """:func:`context_digest` of the document."""
        if self._digest is None:
            self._digest = context_digest(self.doc)
        return self._digest

    def reason(self, run) -> str | None:
        """Why ``run``'s text is unreadable on the page, or None: :meth:`run_reason` in its paragraph,
        and ``w:fitText`` squeezing its group (every story: body, headers, notes, comments, boxes)."""
        if run is None:
            return None
        p = run.getparent()
        while p is not None and p.tag != W_P:
            p = p.getparent()
        if p is None:
            return None
        why = self.run_reason(run, p)
        if why is None and next(p.iter(W_FITTEXT), None) is not None:
            fits = self._fits.get(p)
            if fits is None:
                from .runs import walk_paragraph

                fits = self._fits[p] = self.fit_reasons(walk_paragraph(p).atoms, p)
            why = fits.get(run)
        return why

    def visible_text(self, p) -> str:
        """The text of ``p`` a Word reader reads in the current view (insertions shown, deletions
        not, field results, hidden runs left out), without its label."""
        from .runs import VISIBLE, walk_paragraph

        if self.doc is not None and in_unrendered_branch(p):
            return ""
        bound: dict = {}   # run inside a data-bound content control -> that control
        for sdt in p.iter(W_SDT):
            if next(sdt.iter(W_DATABINDING), None) is not None:
                for run in sdt.iter(W_R):
                    bound.setdefault(run, sdt)
        parts = []
        shown: set = set()
        for atom in walk_paragraph(p).atoms:
            sdt = bound.get(atom.run) if bound else None
            if sdt is not None:   # a bound control shows its custom XML value, once
                if sdt not in shown:
                    shown.add(sdt)
                    value = self.bound_text(sdt)
                    parts.append(value if value is not None else "".join(
                        a.text for a in walk_paragraph(p).atoms if bound.get(a.run) is sdt and a.kind in VISIBLE))
                continue
            if atom.kind in VISIBLE and atom.text and self.reason(atom.run) is None:
                parts.append(atom.text)
        return "".join(parts)

    def nothing_hides(self) -> bool:
        """True when nothing in any story (comments included) or the styles could make text unreadable."""
        if self._could_hide is None:
            self._could_hide = self.could_hide([root for _part, root in self.doc.story_parts(comments=True)])
        return not self._could_hide

    # ------------------------------------------------------------------ labels
    def labels(self, paragraphs, **kw) -> dict:
        """:func:`story_labels` of these paragraphs with this document's numbering."""
        return story_labels(paragraphs, self.numbering, **kw)

    # ------------------------------------------------------------------ displayed text
    @property
    def data(self) -> DataStore:
        if self._data is None:
            self._data = DataStore(self.doc)
        return self._data

    def bound_text(self, sdt) -> str | None:
        """What a data-bound content control shows (its custom XML value), or None when unbound."""
        sdtpr = sdt.find(W_SDTPR)
        binding = sdtpr.find(W_DATABINDING) if sdtpr is not None else None
        if binding is None:
            return None
        return self.data.value(binding)

    # ------------------------------------------------------------------ visibility
    def context(self, p) -> tuple:
        """(paragraph style, table style, colour behind the text or None, why the whole paragraph is
        unreadable or None) of ``p``; cached."""
        hit = self._para_ctx.get(p)
        if hit is not None:
            return hit
        ppr = p.find(W_PPR)
        pstyle = None
        shade = None
        frame = None
        if ppr is not None:
            ps = ppr.find(W_PSTYLE)
            pstyle = ps.get(W_VAL) if ps is not None else None
            shade = shading_colour(ppr.find(W_SHD))
            frame = ppr.find(W_FRAMEPR)
        if shade is None or frame is None:
            s_shade, s_frame = self._style_para(pstyle)
            shade = shade if shade is not None else s_shade
            frame = frame if frame is not None else s_frame
        why = self._frame_off_page(frame) if frame is not None else None
        tstyle, cell_bg, cell_why = self._cell(p)
        why = why or cell_why or self._shape_off_page(p)
        behind = shade or cell_bg
        out = self._para_ctx[p] = (pstyle, tstyle, behind, why)
        return out

    def _style_para(self, pstyle: str | None) -> tuple:
        """(shading colour, w:framePr) a paragraph style's chain gives its paragraphs; cached."""
        key = ("p", pstyle)
        hit = self._tables.get(key)
        if hit is not None:
            return hit
        shade = frame = None
        styles = self.styles
        for style in styles.chain(pstyle or styles.default_para):
            s_ppr = style.find(W_PPR)
            if s_ppr is None:
                continue
            if shade is None and s_ppr.find(W_SHD) is not None:
                shade = shading_colour(s_ppr.find(W_SHD))
            if frame is None:
                frame = s_ppr.find(W_FRAMEPR)
        out = self._tables[key] = (shade, frame)
        return out

    def _cell(self, p) -> tuple:
        """(table style, cell or table shading, why the cell's content is not shown) of ``p``'s cell."""
        tc = None
        for anc in p.iterancestors(W_TC, W_TXBXCONTENT):
            if anc.tag == W_TC:
                tc = anc
            break
        if tc is None:
            return None, None, None
        hit = self._tables.get(tc)
        if hit is not None:
            return hit
        tbl = next(tc.iterancestors(W_TBL), None)
        tblpr = tbl.find(W_TBLPR) if tbl is not None else None
        tstyle = None
        bg = None
        if tblpr is not None:
            ts = tblpr.find(W_TBLSTYLE)
            tstyle = ts.get(W_VAL) if ts is not None else None
            bg = shading_colour(tblpr.find(W_SHD))
        if bg is None and tstyle:
            for style in self.styles.chain(tstyle):
                for holder in (style.find(W_TCPR), style.find(W_TBLPR)):
                    if holder is not None and bg is None:
                        bg = shading_colour(holder.find(W_SHD))
        tcpr = tc.find(W_TCPR)
        why = None
        if tcpr is not None:
            bg = shading_colour(tcpr.find(W_SHD)) or bg
            vmerge = tcpr.find(W_VMERGE)
            if vmerge is not None and (vmerge.get(W_VAL) or "continue") == "continue":
                why = "in a cell merged into the one above (w:vMerge)"
            hmerge = tcpr.find(W_HMERGE)
            if hmerge is not None and (hmerge.get(W_VAL) or "continue") == "continue":
                why = "in a cell merged into the one before (w:hMerge)"
        out = self._tables[tc] = (tstyle, bg, why)
        return out

    def _frame_off_page(self, frame) -> str | None:
        x = _twips(frame.get(qn("w:x")), None)
        y = _twips(frame.get(qn("w:y")), None)
        w = _twips(frame.get(qn("w:w")), 0) or 0
        h = _twips(frame.get(qn("w:h")), 0) or 0
        if x is not None and (x >= self.page_w or x + max(w, 1) <= 0):
            return f"in a frame placed off the page (x = {x / 20:g} pt)"
        if y is not None and (y >= self.page_h or y + max(abs(h), 1) <= 0):
            return f"in a frame placed off the page (y = {y / 20:g} pt)"
        return None

    def _shape_off_page(self, p) -> str | None:
        """A text box paragraph whose shape is anchored at an offset beyond the page."""
        box = next(p.iterancestors(W_TXBXCONTENT), None)
        if box is None:
            return None
        for anc in box.iterancestors():
            if anc.tag == WP_ANCHOR:
                return self._anchor_off_page(anc)
            style = anc.get("style")
            if style and anc.tag.startswith("{urn:schemas-microsoft-com:vml}"):
                for _name, value, unit in V_SHAPE_STYLE.findall(style):
                    try:
                        pt = float(value) * {"in": 72, "px": 0.75}.get(unit.lower(), 1)
                    except ValueError:
                        continue
                    if pt >= max(self.page_w, self.page_h) / 20 or pt <= -max(self.page_w, self.page_h) / 20:
                        return f"in a shape placed off the page ({pt:g} pt)"
                return None
        return None

    def _anchor_off_page(self, anchor) -> str | None:
        """A DrawingML anchor whose offset puts the shape beyond the page (why), or None."""
        for tag, limit in ((WP_POSH, self.page_w), (WP_POSV, self.page_h)):
            pos = anchor.find(tag)
            off = pos.find(WP_OFFSET) if pos is not None else None
            try:
                emu = int(off.text) if off is not None and off.text else None
            except ValueError:
                emu = None
            if emu is not None and (emu >= limit * 635 or emu <= -limit * 635):
                return f"in a shape placed off the page ({emu / 12700:g} pt)"
        return None

    def run_reason(self, run, p) -> str | None:
        """Why ``run``'s text in paragraph ``p`` is unreadable on the page, or None (w:fitText aside:
        see :meth:`fit_reasons`)."""
        pstyle, tstyle, behind, why = self.context(p)
        if why is not None:
            return why
        rpr = None
        if run is not None:
            for child in run:
                if child.tag == W_RPR:
                    rpr = child
                    break
        key = (pstyle, tstyle, behind, etree.tostring(rpr) if rpr is not None and len(rpr) else None)
        try:
            return self._run_cache[key]
        except KeyError:
            pass
        props = self.styles.effective_rpr(rpr, pstyle, tstyle)
        out = self._run_cache[key] = hidden_reason(props, self.styles.page, behind)
        return out

    def fit_reasons(self, atoms, p) -> dict:
        """Run -> why ``w:fitText`` squeezes it below MIN_FIT of its natural width (the runs sharing
        one fit-text id are fitted together)."""
        groups: dict = {}
        pstyle, tstyle, _behind, _why = self.context(p)
        for atom in atoms:
            run = atom.run
            if run is None or not atom.text:
                continue
            rpr = run.find(W_RPR)
            if rpr is None or rpr.find(W_FITTEXT) is None:
                continue
            props = self.styles.effective_rpr(rpr, pstyle, tstyle)
            width, fid = props.get(W_FITTEXT, (0, None))
            size = props.get(W_SZ) or DEFAULT_HALF_POINTS
            key = fid if fid is not None else id(run)
            g = groups.setdefault(key, [width, 0.0, []])
            g[1] += len(atom.text) * size * 10 * CHAR_WIDTH
            g[2].append(run)
        out = {}
        for width, natural, runs in groups.values():
            if width > 0 and natural > 0 and width < MIN_FIT * natural:
                for run in runs:
                    out[run] = f"squeezed by w:fitText to {100 * width / natural:.0f}% of its width"
        return out

    def could_hide(self, roots) -> bool:
        """Whether anything in these stories or the styles could make text unreadable (False lets a
        caller skip the per-run work: the usual document). A font colour counts only when it is near
        the page colour or a shading or highlight colour the document uses."""
        tags = (*HIDING, W_SZ, W_COLOR, W_HIGHLIGHT, W_SHD, W_SCALE, W_SPACING, W_POSITION, W_RFONTS, W_FITTEXT,
                W_VMERGE, W_HMERGE, W_FRAMEPR, WP_ANCHOR)
        styles_part = self.doc.part_for(RT_STYLES)
        all_roots = list(roots) + ([self.doc.package.xml(styles_part)] if styles_part else [])
        colours = []
        backgrounds = {self.styles.page}
        for root in all_roots:
            for el in root.iter(*tags):
                tag = el.tag
                if tag == W_COLOR:
                    colours.append(el)
                elif tag == W_SHD:
                    shade = shading_colour(el)
                    if shade:
                        backgrounds.add(shade)
                elif tag == W_HIGHLIGHT:
                    if (el.get(W_VAL) or "none") != "none":
                        backgrounds.add(HIGHLIGHT_RGB.get(el.get(W_VAL), "000000"))
                elif tag == W_FRAMEPR:
                    if self._frame_off_page(el):
                        return True
                elif tag == WP_ANCHOR:
                    if self._anchor_off_page(el):
                        return True
                elif _could_hide(el, self.styles.page):
                    return True
        if any(True for root in roots for _ in root.iter("{urn:schemas-microsoft-com:vml}*")):
            return True   # VML shapes: positions in their style strings, decided per paragraph
        theme = self.styles.theme
        for el in colours:
            name = el.get(W_THEMECOLOR)
            if name and name != "none":
                rgb = theme.colour(name, el.get(W_THEMETINT), el.get(W_THEMESHADE))
                if rgb is None and name in ("background1", "light1"):
                    return True
            else:
                rgb = _rgb(el.get(W_VAL))
            if rgb and any(colour_near(rgb, bg) for bg in backgrounds):
                return True
        return False


def _could_hide(el, page: str) -> bool:
    tag = el.tag
    value = el.get(W_VAL)
    if tag in HIDING:
        return (value or "true").lower() not in _BOOL_OFF
    if tag == W_SZ:
        try:
            return float(value or "") < MIN_HALF_POINTS
        except ValueError:
            return False
    if tag == W_COLOR:
        return bool(el.get(W_THEMECOLOR)) or (value not in (None, "auto") and el.getparent().tag == W_RPR)
    if tag == W_HIGHLIGHT:
        return (value or "none") != "none"
    if tag == W_SHD:
        return shading_colour(el) is not None
    if tag in (W_SCALE, W_SPACING, W_POSITION):
        parent = el.getparent()
        if parent is None or parent.tag != W_RPR:
            return False
        try:
            number = float(value or "")
        except ValueError:
            return False
        if tag == W_SCALE:
            return 0 < number < MIN_SCALE
        if tag == W_SPACING:
            return -number > MAX_CONDENSE * MIN_HALF_POINTS * 10
        return abs(number) > MAX_SHIFT * MIN_HALF_POINTS
    if tag == W_RFONTS:
        return symbol_font(el.get(qn("w:ascii")) or el.get(qn("w:hAnsi")))
    if tag in (W_VMERGE, W_HMERGE):
        return (value or "continue") == "continue"
    return True   # a frame, an anchored shape, a page colour: decided per paragraph


def _twips(value, default):
    try:
        return int(float(value)) if value is not None else default
    except (ValueError, OverflowError):
        return default


_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def rendering(doc) -> Rendering:
    """The document's :class:`Rendering`, built once per state (an edit starts a new one)."""
    generation = getattr(doc, "_generation", 0)
    hit = _CACHE.get(doc)
    if hit is not None and hit[0] == generation:
        return hit[1]
    model = Rendering(doc)
    _CACHE[doc] = (generation, model)
    return model
