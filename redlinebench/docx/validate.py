"""Semantic checks Word enforces but the schemas (and ``openxml-audit``) miss.

``validate_package`` reads a package (bytes, a path, a ``{part: bytes}`` mapping or any
object with ``part_names`` and ``blob(name)``, such as the engine's ``Package``) and returns
``Finding`` records; it never raises on a bad document, because a bad document is exactly
what it reports. Every check is one small function over the parsed parts so a finding's
``code`` says which rule fired:

======================== ===================================================================
code                     rule
======================== ===================================================================
zip-unreadable           not a zip / entry limits exceeded (nothing else can be checked)
xml-malformed            a part is not well-formed XML (or has a DTD)
content-type-missing     a part has no content type (Override or Default)
content-type-dangling    an Override names a part that is not in the package (warning)
rel-dangling             an internal relationship points at a missing part
rel-id-missing           an ``r:id`` in a part is not among that part's relationships
main-part-missing        no officeDocument relationship to an existing part, or no w:body
main-part-type           the main part is macro-enabled or not a Word document
zip-duplicate-entry      a part name appears twice in the zip (or differs only in case)
zip-unsafe-name          a member name that is absolute, has a backslash or a ``..`` segment
revision-attr-missing    a revision element without ``w:id`` or ``w:author``
revision-id-duplicate    two revision elements share a ``w:id`` (across parts; across kinds: warning)
revision-misplaced       a revision element inside ``w:r``/``w:t``/a run's ``w:rPr``
revision-nested          ``w:ins`` in ``w:ins`` or ``w:del`` in ``w:del`` (``w:ins`` in ``w:del``: warning)
deltext-outside-del      ``w:delText``/``w:delInstrText`` not inside ``w:del``
text-inside-del          ``w:t``/``w:instrText`` inside ``w:del``
comment-id-duplicate     two comments share an id
comment-range-unclosed   a ``commentRangeStart`` without its end (or the end first)
comment-range-orphan     a ``commentRangeEnd`` without its start
comment-reference-missing a ``commentReference`` (or range) whose comment does not exist
comment-unanchored       a comment with no ``commentReference`` in any story
comment-thread-broken    ``w15:paraIdParent`` names no comment (reply to a reply: warning)
comments-part-empty      a registered comments part with no entries
bookmark-id-duplicate    two ``bookmarkStart`` share an id
bookmark-unclosed        a ``bookmarkStart`` without its end, or an end without start (warning)
paraid-range             ``w14:paraId``/``textId`` not 8 hex digits in (0, 0x80000000)
paraid-duplicate         a ``w14:paraId`` used twice in one part (in two parts: warning)
durableid-range          a ``durableId`` not 8 hex digits in (0, 0x7FFFFFFF)
rpr-order / ppr-order    ``w:rPr``/``w:pPr`` children out of schema sequence or repeated
field-unbalanced         ``fldChar`` begin/separate/end out of step
field-no-result          a result-producing field (REF, PAGE, ...) with no ``separate``
footnote-missing         a footnote/endnote reference to a note that does not exist
date-format              a ``w:date``/``dateUtc`` that is not xsd:dateTime
======================== ===================================================================
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from lxml import etree

from ..errors import shown
from .oxml.parser import hardened_parser
from .package import unsafe_member_name

__all__ = ["Finding", "validate", "validate_package", "RPR_ORDER", "PPR_ORDER", "errors_only"]

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
W15 = "http://schemas.microsoft.com/office/word/2012/wordml"
W16CID = "http://schemas.microsoft.com/office/word/2016/wordml/cid"
W16CEX = "http://schemas.microsoft.com/office/word/2018/wordml/cex"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
CT = "http://schemas.openxmlformats.org/package/2006/content-types"
OFFICE_DOCUMENT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"

_MAX_ENTRIES = 2000
_MAX_ENTRY_BYTES = 50 * 1024 * 1024
_MAX_TOTAL_BYTES = 200 * 1024 * 1024
_MAX_RATIO = 100
_RATIO_MIN_BYTES = 1024 * 1024
_MAIN_TYPES = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
)


@dataclass(frozen=True)
class Finding:
    """One problem in a package: ``code`` (stable token), a sentence, the part, the severity."""

    code: str
    message: str
    part: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return f"{self.severity}: {self.part}: [{self.code}] {self.message}"


def errors_only(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that make Word refuse or repair the file."""
    return [f for f in findings if f.severity == "error"]


def _w(local: str) -> str:
    return f"{{{W}}}{local}"


# Schema sequences (ECMA-376 Part 1, CT_RPr / EG_RPrBase and CT_PPrBase), in order.
RPR_ORDER: tuple[str, ...] = (
    "ins", "del", "moveFrom", "moveTo",  # paragraph-mark rPr only (CT_ParaRPr)
    "rStyle", "rFonts", "b", "bCs", "i", "iCs", "caps", "smallCaps", "strike", "dstrike", "outline",
    "shadow", "emboss", "imprint", "noProof", "snapToGrid", "vanish", "webHidden", "color", "spacing",
    "w", "kern", "position", "sz", "szCs", "highlight", "u", "effect", "bdr", "shd", "fitText",
    "vertAlign", "rtl", "cs", "em", "lang", "eastAsianLayout", "specVanish", "oMath", "rPrChange",
)
PPR_ORDER: tuple[str, ...] = (
    "pStyle", "keepNext", "keepLines", "pageBreakBefore", "framePr", "widowControl", "numPr",
    "suppressLineNumbers", "pBdr", "shd", "tabs", "suppressAutoHyphens", "kinsoku", "wordWrap",
    "overflowPunct", "topLinePunct", "autoSpaceDE", "autoSpaceDN", "bidi", "adjustRightInd", "snapToGrid",
    "spacing", "ind", "contextualSpacing", "mirrorIndents", "suppressOverlap", "jc", "textDirection",
    "textAlignment", "textboxTightWrap", "outlineLvl", "divId", "cnfStyle", "rPr", "sectPr", "pPrChange",
)
_RPR_INDEX = {name: i for i, name in enumerate(RPR_ORDER)}
_PPR_INDEX = {name: i for i, name in enumerate(PPR_ORDER)}
# by Clark tag: (schema position, local name)
_RPR_TAG_INDEX = {f"{{{W}}}{name}": (i, name) for name, i in _RPR_INDEX.items()}
_PPR_TAG_INDEX = {f"{{{W}}}{name}": (i, name) for name, i in _PPR_INDEX.items()}

# Elements carrying a revision id (w:id) and author.
_REVISION_TAGS = frozenset(_w(t) for t in (
    "ins", "del", "moveFrom", "moveTo", "moveFromRangeStart", "moveToRangeStart", "rPrChange", "pPrChange",
    "sectPrChange", "tblPrChange", "tblGridChange", "trPrChange", "tcPrChange", "tblPrExChange",
    "numberingChange", "cellIns", "cellDel", "cellMerge", "customXmlInsRangeStart", "customXmlDelRangeStart",
    "customXmlMoveFromRangeStart", "customXmlMoveToRangeStart",
))
_NEEDS_ONLY_ID = frozenset({_w("tblGridChange")})  # CT_Markup: id only
_RUN_WRAPPERS = frozenset(_w(t) for t in ("ins", "del", "moveFrom", "moveTo"))
_STORY_ROOTS = frozenset(_w(t) for t in ("document", "hdr", "ftr", "footnotes", "endnotes", "comments", "glossaryDocument"))
_COMMENT_PART_ROOTS = {
    _w("comments"): _w("comment"),
    f"{{{W15}}}commentsEx": f"{{{W15}}}commentEx",
    f"{{{W16CID}}}commentsIds": f"{{{W16CID}}}commentId",
    f"{{{W16CEX}}}commentsExtensible": f"{{{W16CEX}}}commentExtensible",
}
# Fields whose result Word shows; without a cached result Word repairs the file.
_RESULT_FIELDS = frozenset({
    "REF", "PAGEREF", "NOTEREF", "PAGE", "NUMPAGES", "SECTIONPAGES", "SEQ", "DATE", "TIME", "CREATEDATE",
    "SAVEDATE", "PRINTDATE", "HYPERLINK", "STYLEREF", "DOCPROPERTY", "FILENAME", "AUTHOR", "TITLE",
    "LISTNUM", "MERGEFIELD", "TOC", "IF", "QUOTE", "SYMBOL",
})
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$")
_HEX8 = re.compile(r"^[0-9A-Fa-f]{8}$")


# --------------------------------------------------------------------------- package input


class _Input:
    """The raw parts of the package, read within limits."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.blobs: dict[str, bytes] = {}
        self.trees: dict[str, etree._Element] = {}
        # parsed trees whose serialisation is exactly the part's blob: used instead of a re-parse
        self.live: dict[str, etree._Element] = {}


def _load(source: Any, findings: list[Finding]) -> _Input | None:
    pkg = _Input()
    if isinstance(source, (str, Path)):
        try:
            source = Path(source).read_bytes()
        except OSError as exc:
            findings.append(Finding("zip-unreadable", f"cannot read file: {exc.strerror or exc}", str(source)))
            return None
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _load_zip(bytes(source), findings)
    if isinstance(source, Mapping):
        for name, value in source.items():
            pkg.names.append(str(name))
            if isinstance(value, etree._Element):
                pkg.trees[str(name)] = value
                pkg.blobs[str(name)] = b""
            else:
                pkg.blobs[str(name)] = bytes(value)
        return pkg
    if hasattr(source, "part_names") and hasattr(source, "blob"):
        names = source.part_names() if callable(source.part_names) else source.part_names
        live = getattr(source, "serialized_tree", None)
        for name in names:
            pkg.names.append(name)
            pkg.blobs[name] = source.blob(name)
            tree = live(name) if live is not None else None
            if tree is not None:
                pkg.live[name] = tree
        return pkg
    if hasattr(source, "to_bytes"):
        return _load_zip(source.to_bytes(), findings)
    raise TypeError(f"cannot validate a {type(source).__name__}")


def _load_zip(data: bytes, findings: list[Finding]) -> _Input | None:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        findings.append(Finding("zip-unreadable", "not a zip archive (a .docx is a zip package)", "<package>"))
        return None
    pkg = _Input()
    with zf:
        infos = zf.infolist()
        if len(infos) > _MAX_ENTRIES:
            findings.append(Finding("zip-unreadable", f"{len(infos)} entries (limit {_MAX_ENTRIES})", "<package>"))
            return None
        total = 0
        seen_names: set[str] = set()
        for info in infos:
            if info.is_dir():
                continue
            if info.filename.lower() in seen_names:
                findings.append(Finding("zip-duplicate-entry", "the zip holds this part name twice (or in two "
                                                               "letter cases)", info.filename))
                continue
            seen_names.add(info.filename.lower())
            if unsafe_member_name(info.filename):   # the engine refuses it at open; never written back
                findings.append(Finding("zip-unsafe-name", "absolute, backslash or '..' member name",
                                        shown(info.filename)))
                continue
            if info.file_size >= _RATIO_MIN_BYTES and info.file_size > _MAX_RATIO * max(info.compress_size, 1):
                findings.append(Finding("zip-unreadable", f"compression ratio above {_MAX_RATIO}x "
                                                          f"(zip bomb?)", info.filename))
                return None
            budget = min(_MAX_ENTRY_BYTES, _MAX_TOTAL_BYTES - total)
            try:
                with zf.open(info) as fh:
                    blob = fh.read(budget + 1)
            except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, EOFError, ValueError) as exc:
                findings.append(Finding("zip-unreadable", f"entry cannot be read: {exc}", info.filename))
                return None
            if len(blob) > budget:
                findings.append(Finding("zip-unreadable", "entry larger than the size limit", info.filename))
                return None
            total += len(blob)
            pkg.names.append(info.filename)
            pkg.blobs[info.filename] = blob
    return pkg


def _parse_all(pkg: _Input, findings: list[Finding]) -> None:
    for name in pkg.names:
        if name in pkg.trees or not (name.endswith(".xml") or name.endswith(".rels")):
            continue
        blob = pkg.blobs[name]
        if b"<!DOCTYPE" in blob[:4096] or b"<!ENTITY" in blob[:65536]:
            findings.append(Finding("xml-malformed", "part declares a DTD (forbidden in OOXML packages)", name))
            continue
        if name in pkg.live:
            # the blob was just serialised from this tree: parsing it back gives the same tree
            pkg.trees[name] = pkg.live[name]
            continue
        try:
            root = etree.fromstring(blob, hardened_parser())
        except etree.XMLSyntaxError as exc:
            findings.append(Finding("xml-malformed", f"not well-formed XML: {exc}", name))
            continue
        if root is None:
            findings.append(Finding("xml-malformed", "empty XML part", name))
            continue
        pkg.trees[name] = root


# --------------------------------------------------------------------------- entry point


def validate_package(package_or_bytes: Any) -> list[Finding]:
    """Every semantic finding for the package (empty list when clean).

    Accepts ``bytes``, a path, a ``{part name: bytes | lxml element}`` mapping or an object
    with ``part_names`` and ``blob(name)``. Never raises for a malformed document.
    """
    findings: list[Finding] = []
    pkg = _load(package_or_bytes, findings)
    if pkg is None:
        return findings
    _parse_all(pkg, findings)
    rels = _check_package(pkg, findings)
    stories = [n for n in pkg.names if n in pkg.trees and pkg.trees[n].tag in _STORY_ROOTS]
    for name in stories:
        _check_rel_ids(name, pkg.trees[name], rels.get(name, {}), findings)
    _check_revisions(pkg, stories, findings)
    _check_bookmarks(pkg, stories, findings)
    _check_comments(pkg, stories, findings)
    para_ids: dict[str, str] = {}  # paraId -> first part using it (document-wide uniqueness)
    for name in pkg.names:
        tree = pkg.trees.get(name)
        if tree is None:
            continue
        _check_property_order(name, tree, findings)
        _check_ids_w14(name, tree, findings, para_ids)
        _check_dates(name, tree, findings)
    for name in stories:
        _check_fields(name, pkg.trees[name], findings)
    _check_notes(pkg, stories, findings)
    return findings


def validate(document: Any) -> list[Finding]:
    """``validate_package`` for an open ``RedlineDocument`` (its in-memory package, unsaved edits included)."""
    package = getattr(document, "package", None)
    if package is not None and not isinstance(package, (bytes, bytearray)):
        return validate_package(package)
    return validate_package(document)


# --------------------------------------------------------------------------- package level


def _rels_name(part: str) -> str:
    folder, base = posixpath.split(part)
    return posixpath.join(folder, "_rels", f"{base}.rels")


def _check_package(pkg: _Input, findings: list[Finding]) -> dict[str, dict[str, str]]:
    """Content types and relationships; returns part -> {rId: target part or ''}."""
    ct = pkg.trees.get("[Content_Types].xml")
    present = {n.lower(): n for n in pkg.names}
    if ct is None:
        if "[Content_Types].xml" not in pkg.blobs:
            findings.append(Finding("content-type-missing", "no [Content_Types].xml", "[Content_Types].xml"))
    else:
        defaults = {e.get("Extension", "").lower() for e in ct.iter(f"{{{CT}}}Default")}
        overrides = {e.get("PartName", "").lstrip("/").lower() for e in ct.iter(f"{{{CT}}}Override")}
        for name in pkg.names:
            if name == "[Content_Types].xml" or name.endswith("/"):
                continue
            ext = name.rsplit(".", 1)[-1].lower() if "." in name.rsplit("/", 1)[-1] else ""
            if name.lower() not in overrides and ext not in defaults:
                findings.append(Finding("content-type-missing", "part has no content type", name))
        for over in sorted(overrides - set(present)):
            findings.append(Finding("content-type-dangling", f"Override for /{over} but no such part",
                                    "[Content_Types].xml", "warning"))
    rel_map: dict[str, dict[str, str]] = {}
    main_ok = False
    for name in pkg.names:
        if not name.endswith(".rels"):
            continue
        tree = pkg.trees.get(name)
        if tree is None:
            continue
        folder = posixpath.dirname(posixpath.dirname(name))
        source = posixpath.join(folder, posixpath.basename(name)[: -len(".rels")]) if name != "_rels/.rels" else ""
        ids: dict[str, str] = {}
        for rel in tree.iter(f"{{{PKG_REL}}}Relationship"):
            rid, target, mode = rel.get("Id", ""), rel.get("Target", ""), rel.get("TargetMode", "Internal")
            if rid in ids:
                findings.append(Finding("rel-dangling", f"relationship id {rid} used twice", name))
            if mode == "External":
                ids[rid] = ""
                continue
            if target.startswith("/"):
                resolved = posixpath.normpath(target.lstrip("/"))
            else:
                resolved = posixpath.normpath(posixpath.join(folder, target))
            ids[rid] = resolved
            if resolved.lower() not in present:
                findings.append(Finding("rel-dangling", f"relationship {rid} targets missing part {resolved}", name))
            elif source == "" and rel.get("Type") == OFFICE_DOCUMENT:
                main_ok = True
                _check_main_part(pkg, present[resolved.lower()], ct, findings)
        rel_map[source] = ids
    if not main_ok:
        findings.append(Finding("main-part-missing", "no officeDocument relationship to an existing part",
                                "_rels/.rels"))
    return rel_map


def _check_main_part(pkg: _Input, name: str, ct: etree._Element | None, findings: list[Finding]) -> None:
    if ct is not None:
        ctype = next((e.get("ContentType") for e in ct.iter(f"{{{CT}}}Override")
                      if e.get("PartName", "").lstrip("/").lower() == name.lower()), None)
        if ctype is not None and ctype not in _MAIN_TYPES:
            kind = "macro-enabled document" if "macroEnabled" in ctype else "not a Word document"
            findings.append(Finding("main-part-type", f"main part content type {ctype!r}: {kind}", name))
    tree = pkg.trees.get(name)
    if tree is not None and (tree.tag != _w("document") or tree.find(_w("body")) is None):
        findings.append(Finding("main-part-missing", "main part is not a w:document with a w:body", name))


_REL_ATTRS = (f"{{{R}}}id", f"{{{R}}}embed", f"{{{R}}}link")
_DATE_ATTRS = (f"{{{W}}}date", f"{{{W16CEX}}}dateUtc")
_XP_NS = {"r": R, "w": W, "cex": W16CEX}


class _Carriers:
    """Elements (document order, the root included) carrying any of some attributes, found by
    libxml2 instead of a Python loop over every element. One attribute axis per name is much
    cheaper than an ``or`` predicate on every element, so that is tried first; only when two of
    the names occur in one part are the elements collected in one ordered pass."""

    def __init__(self, *names: str) -> None:
        self._each = [etree.XPath(f"descendant-or-self::*/@{name}", namespaces=_XP_NS) for name in names]
        self._any = etree.XPath("descendant-or-self::*[" + " or ".join(f"@{n}" for n in names) + "]",
                                namespaces=_XP_NS)

    def __call__(self, root: etree._Element) -> list[etree._Element]:
        found = [values for values in (each(root) for each in self._each) if values]
        if not found:
            return []
        if len(found) == 1:
            return [value.getparent() for value in found[0]]   # one attribute per element
        return self._any(root)


_WITH_REL_ATTR = _Carriers("r:id", "r:embed", "r:link")
_WITH_DATE = _Carriers("w:date", "cex:dateUtc")


def _check_rel_ids(name: str, root: etree._Element, ids: Mapping[str, str], findings: list[Finding]) -> None:
    seen: set[str] = set()
    for el in _WITH_REL_ATTR(root):
        for key in _REL_ATTRS:
            rid = el.get(key)
            if rid and rid not in ids and rid not in seen:
                seen.add(rid)
                findings.append(Finding("rel-id-missing", f"{etree.QName(el).localname} refers to relationship "
                                                          f"{rid}, which the part does not have", name))


# --------------------------------------------------------------------------- revisions


def _revision_family(tag: str) -> str:
    local = tag[len(W) + 2:]
    if local.endswith("Change"):
        return "property"
    if local.endswith("RangeStart"):
        return "range"
    return "content"


def _check_revisions(pkg: _Input, stories: list[str], findings: list[Finding]) -> None:
    # Ids must be unique; a clash inside one family (content wrappers, property changes, move
    # ranges) breaks Word's review pane, a clash across families is what LibreOffice writes
    # (separate counters) and Word tolerates: a warning.
    seen: dict[str, tuple[str, str, str]] = {}  # id -> (part, family, local name)
    for name in stories:
        for el in pkg.trees[name].iter(*_REVISION_TAGS):
            local = etree.QName(el).localname
            rid = el.get(_w("id"))
            if rid is None or (el.tag not in _NEEDS_ONLY_ID and not el.get(_w("author"))):
                findings.append(Finding("revision-attr-missing", f"w:{local} without w:id or w:author", name))
            if rid is not None:
                family = _revision_family(el.tag)
                if rid in seen:
                    part, other_family, other = seen[rid]
                    same = other_family == family
                    findings.append(Finding("revision-id-duplicate", f"revision id {rid} (w:{local}) is also used "
                                                                     f"by w:{other} in {part}", name,
                                            "error" if same else "warning"))
                else:
                    seen[rid] = (name, family, local)
            if el.tag in _RUN_WRAPPERS:
                _check_wrapper_place(name, el, local, findings)
            if el.tag == _w("ins") and sum(1 for c in el if c.tag == _w("del")) > 1:
                # The Open XML schema Word validates against allows one w:del per w:ins.
                findings.append(Finding("ins-multiple-del", f"w:ins {rid} holds more than one w:del "
                                                            "(give each strike its own w:ins)", name))
        w_del = _w("del")
        for el in pkg.trees[name].iter(_w("delText"), _w("delInstrText")):
            if not _has_ancestor(el, w_del):
                findings.append(Finding("deltext-outside-del",
                                        f"w:{etree.QName(el).localname} {_snippet(el.text)} is not inside w:del", name))
        for el in pkg.trees[name].iter(_w("t"), _w("instrText")):
            if _has_ancestor(el, w_del):
                findings.append(Finding("text-inside-del",
                                        f"w:{etree.QName(el).localname} {_snippet(el.text)} inside w:del "
                                        f"(must be w:del{'Text' if el.tag == _w('t') else 'InstrText'})", name))


def _check_wrapper_place(name: str, el: etree._Element, local: str, findings: list[Finding]) -> None:
    parent = el.getparent()
    if parent is None:
        return
    if parent.tag in (_w("r"), _w("t"), _w("delText")):
        findings.append(Finding("revision-misplaced", f"w:{local} inside w:{etree.QName(parent).localname}", name))
        return
    if parent.tag == _w("rPr"):
        holder = parent.getparent()
        if holder is None or holder.tag != _w("pPr"):
            findings.append(Finding("revision-misplaced", f"w:{local} in a run's w:rPr (only a paragraph mark's "
                                                          f"w:pPr/w:rPr may carry it)", name))
        return
    if parent.tag in (_w("trPr"), _w("numPr")):
        return
    ancestor = parent
    while ancestor is not None and ancestor.tag != _w("p"):
        if ancestor.tag == el.tag and local in ("ins", "del"):
            findings.append(Finding("revision-nested", f"w:{local} nested in another w:{local}", name))
            return
        if local == "ins" and ancestor.tag == _w("del"):
            findings.append(Finding("revision-nested", "w:ins inside w:del (Word writes w:del inside w:ins)",
                                    name, "warning"))
            return
        ancestor = ancestor.getparent()


_STOP_ANCESTORS = (f"{{{W}}}p", f"{{{W}}}body")


def _has_ancestor(el: etree._Element, tag: str) -> bool:
    node = el.getparent()
    while node is not None:
        if node.tag == tag:
            return True
        if node.tag in _STOP_ANCESTORS:
            return False
        node = node.getparent()
    return False


def _snippet(text: str | None) -> str:
    text = text or ""
    return repr(text if len(text) <= 30 else text[:27] + "...")


# --------------------------------------------------------------------------- bookmarks


def _check_bookmarks(pkg: _Input, stories: list[str], findings: list[Finding]) -> None:
    seen: dict[str, str] = {}
    for name in stories:
        starts: dict[str, int] = {}
        ends: Counter[str] = Counter()
        for el in pkg.trees[name].iter(_w("bookmarkStart"), _w("bookmarkEnd")):
            bid = el.get(_w("id"), "")
            if el.tag == _w("bookmarkStart"):
                if bid in seen:
                    findings.append(Finding("bookmark-id-duplicate", f"bookmark id {bid} "
                                            f"({el.get(_w('name'))!r}) is used twice", name))
                seen.setdefault(bid, name)
                starts[bid] = starts.get(bid, 0) + 1
            else:
                ends[bid] += 1
        for bid in starts:
            if not ends.get(bid):
                findings.append(Finding("bookmark-unclosed", f"bookmarkStart {bid} has no bookmarkEnd", name, "warning"))
        for bid in ends:
            if bid not in starts:
                findings.append(Finding("bookmark-unclosed", f"bookmarkEnd {bid} has no bookmarkStart", name, "warning"))


# --------------------------------------------------------------------------- comments


def _check_comments(pkg: _Input, stories: list[str], findings: list[Finding]) -> None:
    comment_part = next((n for n in pkg.names if n in pkg.trees and pkg.trees[n].tag == _w("comments")), None)
    for name in pkg.names:
        tree = pkg.trees.get(name)
        if tree is not None and tree.tag in _COMMENT_PART_ROOTS and not len(tree.findall(_COMMENT_PART_ROOTS[tree.tag])):
            findings.append(Finding("comments-part-empty", "registered comments part has no entries", name))

    comments: dict[str, etree._Element] = {}
    last_para_id: dict[str, str] = {}  # comment id -> paraId of its last paragraph
    if comment_part is not None:
        for c in pkg.trees[comment_part].iter(_w("comment")):
            cid = c.get(_w("id"), "")
            if cid in comments:
                findings.append(Finding("comment-id-duplicate", f"comment id {cid} is used twice", comment_part))
            comments[cid] = c
            paras = c.findall(_w("p"))
            if paras and paras[-1].get(f"{{{W14}}}paraId"):
                last_para_id[cid] = paras[-1].get(f"{{{W14}}}paraId", "").upper()

    referenced: set[str] = set()
    body_stories = [n for n in stories if pkg.trees[n].tag != _w("comments")]
    for name in body_stories:
        open_ranges: dict[str, int] = {}
        closed: set[str] = set()
        for el in pkg.trees[name].iter(_w("commentRangeStart"), _w("commentRangeEnd"), _w("commentReference")):
            cid = el.get(_w("id"), "")
            local = etree.QName(el).localname
            if cid not in comments:
                findings.append(Finding("comment-reference-missing", f"w:{local} {cid} names no comment in "
                                                                     f"comments.xml", name))
            if el.tag == _w("commentRangeStart"):
                open_ranges[cid] = open_ranges.get(cid, 0) + 1
            elif el.tag == _w("commentRangeEnd"):
                if open_ranges.get(cid):
                    open_ranges[cid] -= 1
                    closed.add(cid)
                else:
                    kind = "comment-range-unclosed" if cid in closed else "comment-range-orphan"
                    findings.append(Finding(kind, f"commentRangeEnd {cid} comes before (or without) its "
                                                  f"commentRangeStart", name))
            else:
                referenced.add(cid)
        for cid, count in open_ranges.items():
            if count:
                findings.append(Finding("comment-range-unclosed", f"commentRangeStart {cid} is never closed", name))
    for cid in comments:
        if cid not in referenced:
            findings.append(Finding("comment-unanchored", f"comment {cid} has no commentReference in the document "
                                                          f"(Word drops it)", comment_part or "word/comments.xml"))

    ex_part = next((n for n in pkg.names if n in pkg.trees and pkg.trees[n].tag == f"{{{W15}}}commentsEx"), None)
    if ex_part is not None:
        known = set(last_para_id.values())
        parent_of: dict[str, str] = {}
        for ex in pkg.trees[ex_part].iter(f"{{{W15}}}commentEx"):
            pid = (ex.get(f"{{{W15}}}paraId") or "").upper()
            parent = ex.get(f"{{{W15}}}paraIdParent")
            if pid not in known:
                findings.append(Finding("comment-thread-broken", f"commentEx {pid} matches no comment's last "
                                                                 f"paragraph", ex_part, "warning"))
            if parent is not None:
                parent_of[pid] = parent.upper()
                if parent.upper() not in known:
                    findings.append(Finding("comment-thread-broken", f"reply {pid} points at parent {parent}, which "
                                                                     f"is no comment", ex_part))
        for pid, parent in parent_of.items():
            if parent in parent_of:
                findings.append(Finding("comment-thread-broken", f"reply {pid} replies to a reply ({parent}); "
                                                                 f"threads are one level deep", ex_part, "warning"))

    for name in pkg.names:
        tree = pkg.trees.get(name)
        if tree is None:
            continue
        for tag, attr in ((f"{{{W16CID}}}commentId", f"{{{W16CID}}}durableId"),
                          (f"{{{W16CEX}}}commentExtensible", f"{{{W16CEX}}}durableId")):
            for el in tree.iter(tag):
                value = el.get(attr, "")
                if not _in_range(value, 0x7FFFFFFF):
                    findings.append(Finding("durableid-range", f"durableId {value!r} is not 8 hex digits in "
                                                               f"(0, 0x7FFFFFFF)", name))


def _in_range(value: str, upper: int) -> bool:
    return bool(_HEX8.match(value)) and 0 < int(value, 16) < upper


# --------------------------------------------------------------------------- paraIds, order, dates


def _check_ids_w14(name: str, root: etree._Element, findings: list[Finding], elsewhere: dict[str, str]) -> None:
    para_key, text_key = f"{{{W14}}}paraId", f"{{{W14}}}textId"
    seen: set[str] = set()
    for el in root.iter(_w("p"), _w("tr")):
        pid = el.get(para_key)
        if pid is not None:
            if not _in_range(pid, 0x80000000):
                findings.append(Finding("paraid-range", f"w14:paraId {pid!r} is not 8 hex digits in "
                                                        f"(0, 0x80000000)", name))
            elif pid.upper() in seen:
                findings.append(Finding("paraid-duplicate", f"w14:paraId {pid} is used twice", name))
            elif elsewhere.get(pid.upper(), name) != name:
                findings.append(Finding("paraid-duplicate", f"w14:paraId {pid} is also used in "
                                                            f"{elsewhere[pid.upper()]} (Word keys comment threads "
                                                            f"on paraIds document-wide)", name, "warning"))
            seen.add(pid.upper())
            elsewhere.setdefault(pid.upper(), name)
        tid = el.get(text_key)
        if tid is not None and not _in_range(tid, 0x80000000):
            findings.append(Finding("paraid-range", f"w14:textId {tid!r} is not 8 hex digits in (0, 0x80000000)",
                                    name))


def _check_property_order(name: str, root: etree._Element, findings: list[Finding]) -> None:
    for tag, index, code in ((_w("rPr"), _RPR_TAG_INDEX, "rpr-order"), (_w("pPr"), _PPR_TAG_INDEX, "ppr-order")):
        for props in root.iter(tag):
            if len(props) < 2:
                continue  # one child can be neither repeated nor out of order
            last = -1
            seen: set[str] = set()
            for child in props:
                # extension (w14:...) elements, unknown elements and comments are outside the sequence
                hit = index.get(child.tag)
                if hit is None:
                    continue
                pos, local = hit
                if local in seen:
                    findings.append(Finding(code, f"w:{local} appears twice in one w:{etree.QName(tag).localname}",
                                            name))
                elif pos < last:
                    findings.append(Finding(code, f"w:{local} is out of schema order in "
                                                  f"w:{etree.QName(tag).localname}", name))
                seen.add(local)
                last = max(last, pos)


def _check_dates(name: str, root: etree._Element, findings: list[Finding]) -> None:
    keys = (_w("date"), f"{{{W16CEX}}}dateUtc")
    bad: set[str] = set()
    for el in _WITH_DATE(root):
        for key in keys:
            value = el.get(key)
            if value is not None and not _DATE_RE.match(value) and value not in bad:
                bad.add(value)
                findings.append(Finding("date-format", f"{etree.QName(el).localname} date {value!r} is not "
                                                       f"xsd:dateTime", name))


# --------------------------------------------------------------------------- fields and notes


def _check_fields(name: str, root: etree._Element, findings: list[Finding]) -> None:
    # A stack of open complex fields: [instruction text, saw separate].
    stack: list[list[Any]] = []
    for el in root.iter(_w("fldChar"), _w("instrText"), _w("delInstrText")):
        if el.tag != _w("fldChar"):
            if stack:
                stack[-1][0] += el.text or ""
            continue
        kind = el.get(_w("fldCharType"))
        if kind == "begin":
            stack.append(["", False])
        elif kind == "separate":
            if not stack:
                findings.append(Finding("field-unbalanced", "fldChar separate outside a field", name))
            else:
                stack[-1][1] = True
        elif kind == "end":
            if not stack:
                findings.append(Finding("field-unbalanced", "fldChar end without begin", name))
                continue
            instr, separated = stack.pop()
            keyword = instr.strip().split(" ", 1)[0].upper() if instr.strip() else ""
            if not separated and keyword in _RESULT_FIELDS:
                findings.append(Finding("field-no-result", f"field {instr.strip()[:40]!r} has no cached result",
                                        name))
    if stack:
        findings.append(Finding("field-unbalanced", f"{len(stack)} field(s) begun but never ended", name))


def _check_notes(pkg: _Input, stories: list[str], findings: list[Finding]) -> None:
    for kind in ("footnote", "endnote"):
        part = next((n for n in pkg.names if n in pkg.trees and pkg.trees[n].tag == _w(f"{kind}s")), None)
        have = {e.get(_w("id")) for e in pkg.trees[part].iter(_w(kind))} if part else set()
        for name in stories:
            for ref in pkg.trees[name].iter(_w(f"{kind}Reference")):
                if ref.get(_w("id")) not in have:
                    findings.append(Finding("footnote-missing", f"{kind}Reference {ref.get(_w('id'))} names no "
                                                                f"{kind}", name))
