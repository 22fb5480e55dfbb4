"""Who signed each revision (SPEC §5.1, integrity v3): every revision element new in the output
carries exactly the task's author.

The text comparison of ``integrity`` sees insertions and deletions by their text; formatting,
paragraph, section, table, row, cell and numbering revisions carry no text, so a formatting
revision signed with the other side's name (a change made to look agreed) passed. Here every
revision element of every story (body, headers, footers, notes, comments) and of ``styles.xml``
and ``numbering.xml`` is read with its author and date. One by another author counts as *known*
when the input holds a revision of the same family by the same author on the same minute (a
re-save may split, merge or re-number revisions, and turns a move into an insertion and a
deletion); anything else by another author is ``forged_revision``. A property revision that
records no difference from the current properties is non-textual and ignored: LibreOffice
writes such ``w:rPrChange`` elements, by "Unknown Author", on every re-save.
"""

from __future__ import annotations

from collections.abc import Iterator

from .oxml import qn

__all__ = ["RunBase", "records_difference", "revision_findings"]

_RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_AUX_RELTYPES = (_RT + "styles", _RT + "numbering")
W_AUTHOR, W_DATE = qn("w:author"), qn("w:date")

#: revision element -> family (a re-save may turn a move into an insertion and a deletion)
FAMILIES = {qn("w:" + tag): family for tag, family in (
    ("ins", "insertion"), ("moveTo", "insertion"), ("moveToRangeStart", "insertion"),
    ("del", "deletion"), ("moveFrom", "deletion"), ("moveFromRangeStart", "deletion"),
    ("rPrChange", "formatting"), ("pPrChange", "paragraph formatting"), ("sectPrChange", "section formatting"),
    ("tblPrChange", "table formatting"), ("tblPrExChange", "table formatting"), ("trPrChange", "row formatting"),
    ("tcPrChange", "cell formatting"), ("tblGridChange", "table grid"),
    ("cellIns", "cell insertion"), ("cellDel", "cell deletion"), ("cellMerge", "cell merge"),
    ("numberingChange", "numbering"),
)}
#: property revisions: each holds the old properties, compared with the current ones
_PROPERTY_CHANGES = {qn("w:" + t) for t in ("rPrChange", "pPrChange", "sectPrChange", "tblPrChange", "tblPrExChange",
                                            "trPrChange", "tcPrChange", "tblGridChange")}
#: children of a properties element that are not properties: the change records, the paragraph
#: mark's run properties and revisions, a section break
_NOT_PROPERTIES = _PROPERTY_CHANGES | {qn("w:" + t) for t in (
    "rPr", "sectPr", "ins", "del", "moveFrom", "moveTo", "cellIns", "cellDel", "cellMerge", "numberingChange")}
_IGNORED_ATTRS = {qn("w:" + t) for t in ("rsidR", "rsidRPr", "rsidDel", "rsidRDefault", "rsidP", "rsidSect",
                                         "rsidTr", "id", "author", "date")}
_MC_FALLBACK = qn("mc:Fallback")


def _shape(el) -> tuple:
    """A properties element as a comparable value: tag, attributes (rsids aside), children in any order."""
    attrs = tuple(sorted((k, v) for k, v in el.attrib.items() if k not in _IGNORED_ATTRS))
    kids = tuple(sorted(_shape(c) for c in el if isinstance(c.tag, str) and c.tag not in _NOT_PROPERTIES))
    return (el.tag, attrs, kids)


def _properties(el) -> tuple:
    return tuple(sorted(_shape(c) for c in el if isinstance(c.tag, str) and c.tag not in _NOT_PROPERTIES))


def records_difference(change, base: "RunBase | None" = None) -> bool:
    """True when a property revision (``w:rPrChange``, ``w:pPrChange``, table, row, cell, section
    or grid change) records old properties that differ from the current ones; any other revision
    element is always a change. With ``base`` (the document's style inheritance), a run's old and
    new properties are compared as a reader sees them: each resolved over the styles, only what
    shows on the page (LibreOffice records an empty old ``w:rPr`` under direct properties that
    equal the inherited ones). A style's or numbering level's own revision is compared as written."""
    if change.tag not in _PROPERTY_CHANGES:
        return True
    current = change.getparent()
    if current is None:
        return False
    old = next((c for c in change if isinstance(c.tag, str)), None)
    holder = current.getparent()
    if base is not None and change.tag == _W_RPRCHANGE and holder is not None and holder.tag in (_W_R, _W_PPR):
        pstyle = _paragraph_style(current)
        return base.seen(old, pstyle) != base.seen(current, pstyle)
    before = _properties(old) if old is not None else ()
    return before != _properties(current)


_W_RPRCHANGE, _W_R = qn("w:rPrChange"), qn("w:r")
_W_VAL = qn("w:val")
_W_STYLE, _W_STYLEID, _W_BASEDON = qn("w:style"), qn("w:styleId"), qn("w:basedOn")
_W_RSTYLE, _W_PSTYLE, _W_PPR, _W_RPR = qn("w:rStyle"), qn("w:pStyle"), qn("w:pPr"), qn("w:rPr")
#: on/off run properties (absent: off)
_TOGGLES = {qn("w:" + t) for t in ("b", "i", "caps", "smallCaps", "strike", "dstrike", "vanish", "specVanish",
                                    "webHidden", "emboss", "imprint", "outline", "shadow")}
#: run properties a reader sees, with the attributes that matter and their values when absent
_SEEN = {qn("w:" + tag): attrs for tag, attrs in (
    ("u", {"val": "none", "color": None}), ("color", {"val": "auto", "themeColor": None}),
    ("sz", {"val": None}), ("highlight", {"val": "none"}), ("shd", {"val": None, "fill": "auto", "color": None}),
    ("vertAlign", {"val": "baseline"}), ("position", {"val": "0"}), ("spacing", {"val": "0"}),
    ("w", {"val": "100"}), ("effect", {"val": "none"}), ("em", {"val": "none"}), ("fitText", {"val": None}),
    ("rFonts", {"ascii": None, "hAnsi": None, "asciiTheme": None, "hAnsiTheme": None}),
    ("bdr", {"val": None, "color": None, "sz": None}),
)}
_FALSE = ("0", "false", "off")


def _paragraph_style(props) -> str | None:
    p = next(props.iterancestors(qn("w:p")), None)
    ppr = p.find(_W_PPR) if p is not None else None
    pstyle = ppr.find(_W_PSTYLE) if ppr is not None else None
    return pstyle.get(_W_VAL) if pstyle is not None else None


class RunBase:
    """A document's run-property inheritance (docDefaults, paragraph and character style chains),
    enough to tell what of a run's formatting a reader sees."""

    def __init__(self, doc) -> None:
        self.defaults: dict = {}
        self.styles: dict[str, tuple[str | None, object | None]] = {}
        self.default_para: str | None = None
        part = doc.part_for(_RT + "styles")
        if part is None:
            return
        root = doc.package.xml(part)
        rpr = root.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{_W_RPR}")
        self.defaults = self._overlay({}, rpr)
        for style in root.iter(_W_STYLE):
            sid = style.get(_W_STYLEID)
            if sid:
                based = style.find(_W_BASEDON)
                self.styles[sid] = (based.get(_W_VAL) if based is not None else None, style.find(_W_RPR))
                if style.get(qn("w:default")) in ("1", "true", "on") and style.get(qn("w:type")) == "paragraph":
                    self.default_para = sid

    @staticmethod
    def _overlay(into: dict, rpr) -> dict:
        for child in rpr if rpr is not None else ():
            tag = child.tag
            if tag in _TOGGLES:
                into[tag] = (child.get(_W_VAL) or "true").lower() not in _FALSE
            elif tag in _SEEN:
                merged = dict(into.get(tag, ()))
                for attr in _SEEN[tag]:
                    value = child.get(qn("w:" + attr))
                    if value is not None:
                        merged[attr] = value
                into[tag] = tuple(sorted(merged.items()))
        return into

    def _chain(self, sid: str | None, into: dict) -> None:
        chain, seen = [], set()
        while sid and sid not in seen and sid in self.styles:
            seen.add(sid)
            based, rpr = self.styles[sid]
            chain.append(rpr)
            sid = based
        for rpr in reversed(chain):
            self._overlay(into, rpr)

    def seen(self, rpr, pstyle: str | None) -> tuple:
        """The visible run properties of a run whose direct properties are ``rpr``."""
        out = dict(self.defaults)
        self._chain(pstyle or self.default_para, out)
        rstyle = rpr.find(_W_RSTYLE) if rpr is not None else None
        if rstyle is not None:
            self._chain(rstyle.get(_W_VAL), out)
        self._overlay(out, rpr)
        shown = []
        for tag in sorted(_TOGGLES | set(_SEEN)):
            value = out.get(tag)
            if tag in _TOGGLES:
                shown.append(bool(value))
            else:
                attrs = dict(value or ())
                shown.append(tuple(attrs.get(a, d) for a, d in sorted(_SEEN[tag].items())))
        return tuple(shown)


def _revisions(doc) -> Iterator[tuple[str, object]]:
    """(part file name, revision element) of every story and of the styles and numbering parts."""
    roots = [(part, root) for part, root in doc.story_parts(comments=True)]
    for reltype in _AUX_RELTYPES:
        part = doc.part_for(reltype)
        if part is not None:
            roots.append((part, doc.package.xml(part)))
    tags = tuple(FAMILIES)
    for part, root in roots:
        name = part.rsplit("/", 1)[-1]
        for el in root.iter(*tags):
            yield name, el


_W_P = qn("w:p")


def _paragraph_near(el):
    """The paragraph a revision element stands in, or (a table, row or cell revision) the first
    paragraph of what it describes."""
    p = next(el.iterancestors(_W_P), None)
    if p is not None:
        return p
    holder = el.getparent()
    owner = holder.getparent() if holder is not None else None
    return next(owner.iter(_W_P), None) if owner is not None else None


def revision_findings(original, output, author: str, locate=None) -> list[tuple[str, str, str]]:
    """(kind, where, detail) for each revision element of ``output`` by another author than
    ``author`` that the input does not hold (same family, author and minute), one per family,
    author and part. ``locate(paragraph, part)`` names a paragraph as the audit does (else the
    part's file name is the location)."""
    from .integrity import _date_key, _near

    base = RunBase(output)
    minutes: dict = {}

    def minute(value):
        hit = minutes.get(value)
        if hit is None:
            hit = minutes[value] = _date_key(value)
        return hit
    known = {(FAMILIES[el.tag], el.get(W_AUTHOR) or "", minute(el.get(W_DATE))) for _name, el in _revisions(original)}
    out: list[tuple[str, str, str]] = []
    reported: set[tuple] = set()
    for name, el in _revisions(output):
        who = el.get(W_AUTHOR) or ""
        if who == author:
            continue
        family = FAMILIES[el.tag]
        if (family, who, minute(el.get(W_DATE))) in known:
            continue
        if any(True for _ in el.iterancestors(_MC_FALLBACK)) or not records_difference(el, base):
            continue
        if (family, who, name) in reported:
            continue
        reported.add((family, who, name))
        near = " (a near miss of the task's author)" if _near(who, author) else ""
        local = el.tag.rsplit("}", 1)[-1]
        p = _paragraph_near(el) if locate is not None and name not in ("styles.xml", "numbering.xml") else None
        out.append(("forged_revision", locate(p, name) if p is not None else name,
                    f"new {family} revision (w:{local}) by {who!r}{near}, not the task's author"))
    return out
