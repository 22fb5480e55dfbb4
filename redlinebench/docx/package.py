"""Safe zip in, deterministic zip out, and the registry of parts, content types and rels.

A .docx is hostile input. Before anything is decompressed the central directory is checked
(entry count, declared sizes, compression ratio, duplicate or case-equivalent names); every
entry is then read through a byte budget because declared sizes can lie. Nothing is ever
extracted to disk and external relationship targets are never fetched.
"""

from __future__ import annotations

import copy
import io
import posixpath
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from lxml import etree

from .._atomic import atomic_write_bytes
from ..errors import DocxError, shown
from .oxml import XmlPartError, make_element, parse_xml, qn, serialize
from .oxml.parser import OxmlElement

MAX_ENTRIES = 2000
MAX_ENTRY_BYTES = 50 * 1024 * 1024
#: XML parts are parsed into trees about ten times their size, and indexed paragraph by paragraph:
#: a contract's document.xml is a few MB, so 25 MB leaves room while refusing element bombs early.
MAX_XML_PART_BYTES = 25 * 1024 * 1024
#: Markup (``<`` characters) over every XML part together, counted before anything is parsed: an
#: element costs libxml2 over 100 bytes, so 25 MB of ``<a/>`` would be 700 MB of tree, and every
#: part is parsed at open (then validated, saved and reopened for grading). 600,000 keeps all of
#: that under 500 MB and 2 s per call (``benchmarks/hostile.py``; a 14,500-paragraph contract near
#: every limit peaks at about 320 MB, its slowest call 1.2 s) and leaves a 9,600-paragraph contract
#: (about 270,000 tags) room to be edited; a 600-paragraph contract has about 25,000.
MAX_XML_MARKUP = 600_000
#: Every entry inflated, counted together (and the file itself): the package is held in memory
#: as bytes, parsed trees and a saved copy, so this bounds the peak well under 500 MB. A real
#: contract is well under 5 MB, images included.
MAX_TOTAL_BYTES = 100 * 1024 * 1024
MAX_RATIO = 100
#: Ratios are only meaningful for entries of some size; tiny parts compress wildly. The ratio is
#: checked per entry and over all entries together (many entries just under this size add up).
RATIO_MIN_BYTES = 1024 * 1024
#: Fixed timestamp so identical content gives identical bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)

CT_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
CT_TEMPLATE = "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml"
CT_MACRO = "application/vnd.ms-word.document.macroEnabled.main+xml"
CT_MACRO_TEMPLATE = "application/vnd.ms-word.template.macroEnabledTemplate.main+xml"
CT_WML = "application/vnd.openxmlformats-officedocument.wordprocessingml.{}+xml"
RT_OFFICE_DOCUMENT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
RT_BASE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


@dataclass
class Relationship:
    rid: str
    reltype: str
    target: str
    external: bool


def _fail(name: str, problem: str) -> DocxError:
    return DocxError(problem, path=name)


class Package:
    """The parts of one .docx: raw bytes until first parsed, XML trees afterwards."""

    def __init__(self, name: str, order: list[str], blobs: dict[str, bytes]) -> None:
        self.name = name
        self._order = order
        self._blobs = blobs
        self._xml: dict[str, OxmlElement] = {}
        self._dirty: set[str] = set()
        self._rels_cache: dict[str, list[Relationship]] = {}
        self._txn: dict[str, OxmlElement] | None = None
        if "[Content_Types].xml" not in blobs:
            raise _fail(name, "missing [Content_Types].xml: not an Office Open XML package")
        markup = sum(blob.count(b"<") for part, blob in blobs.items() if part.lower().endswith((".xml", ".rels")))
        if markup > MAX_XML_MARKUP:   # before any parse
            raise _fail(name, f"the XML parts hold {markup} tags (limit {MAX_XML_MARKUP} over all "
                              "parts; a long contract has a few tens of thousands)")
        self.markup_at_open = markup
        self.content_types: OxmlElement = self.xml("[Content_Types].xml")
        self.main_part = self._find_main_part()
        self._check_main_content_type()
        self._parse_all()
        self._check_relationships()
        self._drop_unread_trees()

    def markup_bound(self) -> int:
        """An upper bound of the tags the saved package will hold (two per element of a parsed
        part, as counted in the bytes of any other), for :data:`MAX_XML_MARKUP`."""
        total = 0
        for part in self._order:
            if not part.lower().endswith((".xml", ".rels")):
                continue
            root = self._xml.get(part)
            total += 2 * int(_COUNT_ELEMENTS(root)) if root is not None else self._blobs[part].count(b"<")
        return total

    def _drop_unread_trees(self) -> None:
        """Free the trees of parts the engine never reads (custom XML, document properties, themes):
        they were parsed only to be checked, and are written back as the bytes they came in."""
        keep = {"[Content_Types].xml", self.main_part}
        keep.update(rel.target for rel in self.rels(self.main_part) if rel.reltype in PART_ROOTS)
        for part in list(self._xml):
            if part not in keep and not part.lower().endswith(".rels") and part not in self._dirty:
                del self._xml[part]

    def _parse_all(self) -> None:
        """Parse every XML part now, with the hardened parser: a malformed or DTD-carrying part
        the engine reads later (comment parts, people, settings ...) must refuse the open, not
        fail the first edit; and ``tasks validate`` and the gate open files this same way."""
        for part in self._order:
            if part.lower().endswith((".xml", ".rels")):
                self.xml(part)

    def _check_relationships(self) -> None:
        """Every internal relationship targets a part that exists; the main part's relationships
        of the types the engine reads or writes are unique, internal and point at a part whose
        root is the one that type needs (a comments relationship to document.xml would put new
        comments after the body). Refused at open, naming the relationship."""
        for rels_name in [n for n in self._order if n.lower().endswith(".rels")]:
            source = _rels_source(rels_name)
            if source is None or (source and source not in self._blobs):
                continue
            for rel in self.rels(source):
                if not rel.external and rel.target not in self._blobs and unquote(rel.target) not in self._blobs:
                    raise _fail(self.name, f"{rels_name}: relationship {shown(rel.rid)} "
                                           f"({_short(rel.reltype)}) points at missing part {shown(rel.target)}")
        seen: dict[str, str] = {}
        for rel in self.rels(self.main_part):
            expected = PART_ROOTS.get(rel.reltype)
            if expected is None:
                continue
            kind = _short(rel.reltype)
            where = f"{self.rels_part(self.main_part)}: relationship {shown(rel.rid)} ({kind})"
            if rel.external:
                raise _fail(self.name, f"{where} is external; a {kind} part must be inside the package")
            if rel.reltype in SINGLE_PARTS and rel.reltype in seen:
                raise _fail(self.name, f"{where} is a second {kind} relationship (the first is "
                                       f"{shown(seen[rel.reltype])}); a document has one {kind} part")
            seen[rel.reltype] = rel.rid
            root = self.xml(rel.target)
            if rel.target == self.main_part or root.tag not in expected:
                found = root.tag.rsplit("}", 1)[-1]
                raise _fail(self.name, f"{where} points at {shown(rel.target)}, whose root is <{found}>, "
                                       f"not a {kind} part")

    # ---------------------------------------------------------------- opening
    @classmethod
    def open(cls, source: str | Path | bytes, *, name: str | None = None) -> "Package":
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
            label = name or "<bytes>"
        else:
            path = Path(source)
            label = name or str(path)
            try:
                if path.stat().st_size > MAX_TOTAL_BYTES:
                    raise _fail(label, f"file is larger than {MAX_TOTAL_BYTES // 2**20} MB")
                data = path.read_bytes()
            except FileNotFoundError:
                raise _fail(label, "file not found") from None
            except IsADirectoryError:
                raise _fail(label, "is a directory, not a .docx file") from None
            except PermissionError:
                raise _fail(label, "permission denied") from None
        order, blobs = _read_zip(data, label)
        return cls(label, order, blobs)

    def _find_main_part(self) -> str:
        if "[Content_Types].xml" not in self._blobs:
            raise _fail(self.name, "missing [Content_Types].xml: not an Office Open XML package")
        target = None
        if "_rels/.rels" in self._blobs:
            for rel in self.rels(""):
                if rel.reltype == RT_OFFICE_DOCUMENT and not rel.external:
                    target = rel.target
                    break
        if target is None and "word/document.xml" in self._blobs:
            target = "word/document.xml"
        if target is None or target not in self._blobs:
            raise _fail(self.name, "missing main document part (word/document.xml): not a Word document")
        return target

    def _check_main_content_type(self) -> None:
        ctype = self.content_type(self.main_part)
        if ctype in (CT_MACRO, CT_MACRO_TEMPLATE) or any(n.lower().endswith("vbaproject.bin") for n in self._order):
            raise _fail(self.name, "macro-enabled document (.docm) refused: save it as a plain .docx")
        if ctype not in (CT_MAIN, CT_TEMPLATE):
            raise _fail(self.name, f"main part {self.main_part} has content type {ctype!r}, not a Word document")

    # ---------------------------------------------------------------- parts
    def has(self, part: str) -> bool:
        return part in self._blobs or part in self._xml

    @property
    def part_names(self) -> list[str]:
        return list(self._order)

    def blob(self, part: str) -> bytes:
        if part in self._dirty:
            return serialize(self._xml[part])
        return self._blobs[part]

    def serialized_tree(self, part: str) -> OxmlElement | None:
        """The tree ``blob(part)`` holds: the one it is serialised from (a dirty part) or the one
        parsed from it at open (a clean part, unchanged since), else None (not kept).

        Lets the validator check the package without parsing every part a second time.
        """
        return self._xml.get(part)

    def xml(self, part: str) -> OxmlElement:
        """The parsed tree of ``part`` (parsed once, with the hardened parser)."""
        root = self._xml.get(part)
        if root is None:
            try:
                data = self._blobs[part]
            except KeyError:
                raise _fail(self.name, f"missing part {part}") from None
            try:
                root = parse_xml(data)
            except XmlPartError as exc:
                raise _fail(self.name, f"{part}: {exc}") from None
            self._xml[part] = root
        if self._txn is not None and part not in self._txn and part != self.main_part:
            # within an operation the first access records the part's length: the engine only
            # appends to parts other than the body (comments, people, styles, rels), so a rollback
            # cuts the new children off; a change to existing content calls will_change first
            self._txn[part] = (root, len(root))
        return root

    def will_change(self, part: str) -> OxmlElement:
        """The tree of ``part``, copied first when an operation is open: call before changing
        (not just appending to) its existing content, or replacing its root."""
        root = self.xml(part)
        if self._txn is not None and part != self.main_part:
            entry = self._txn[part]
            if len(entry) == 2:   # only its length so far: copy it as it was before the operation
                clone = copy.deepcopy(root)
                del clone[entry[1]:]
                self._txn[part] = (clone,)
        return root

    # ---------------------------------------------------------------- transactions
    def begin_transaction(self) -> tuple:
        """Remember the registry before an operation (see :meth:`xml` and :meth:`will_change`).

        The main part is not tracked here (the document guards the body blocks it changes).
        """
        if self._txn is not None:
            raise RuntimeError("nested package transaction")
        self._txn = {"[Content_Types].xml": (copy.deepcopy(self.content_types),)}
        return (list(self._order), dict(self._blobs), dict(self._xml), set(self._dirty), dict(self._rels_cache))

    def end_transaction(self, state: tuple, *, rollback: bool) -> None:
        """Forget the copies (success) or put every part back as it was (failure)."""
        saved, self._txn = self._txn, None
        if not rollback or saved is None:
            return
        order, blobs, trees, dirty, rels_cache = state
        for part, entry in saved.items():
            if part not in trees:
                continue   # parsed (or added) during the operation: dropped with the new registry
            if len(entry) == 2:
                root, length = entry
                del root[length:]
                trees[part] = root
            else:
                trees[part] = entry[0]
        self._order, self._blobs, self._xml, self._dirty, self._rels_cache = order, blobs, trees, dirty, rels_cache
        self.content_types = trees["[Content_Types].xml"]

    def mark_dirty(self, part: str) -> None:
        self._dirty.add(part)

    def add_part(self, part: str, root: OxmlElement, content_type: str) -> None:
        """Register a new XML part with its content-type override."""
        if part not in self._blobs:
            self._order.append(part)
        self._blobs[part] = b""
        self._xml[part] = root
        self._dirty.add(part)
        self.set_override(part, content_type)

    def content_type(self, part: str) -> str | None:
        ct = self.content_types
        for el in ct.iterfind(qn("ct:Override")):
            if el.get("PartName", "").lstrip("/").lower() == part.lower():
                return el.get("ContentType")
        ext = part.rsplit(".", 1)[-1].lower()
        for el in ct.iterfind(qn("ct:Default")):
            if el.get("Extension", "").lower() == ext:
                return el.get("ContentType")
        return None

    def set_override(self, part: str, content_type: str) -> None:
        ct = self.content_types
        for el in ct.iterfind(qn("ct:Override")):
            if el.get("PartName", "").lstrip("/").lower() == part.lower():
                if el.get("ContentType") != content_type:
                    el.set("ContentType", content_type)
                    self.mark_dirty("[Content_Types].xml")
                return
        el = make_element("ct:Override", {"PartName": "/" + part, "ContentType": content_type})
        ct.append(el)
        self.mark_dirty("[Content_Types].xml")

    # ---------------------------------------------------------------- relationships
    @staticmethod
    def rels_part(part: str) -> str:
        folder, base = posixpath.split(part)
        return posixpath.join(folder, "_rels", base + ".rels")

    def rels(self, part: str) -> list[Relationship]:
        cached = self._rels_cache.get(part)
        if cached is not None:
            return cached
        rels_name = self.rels_part(part)
        if not self.has(rels_name):
            return []
        folder = posixpath.dirname(part)
        out = []
        for el in self.xml(rels_name).iterfind(qn("pr:Relationship")):
            external = el.get("TargetMode") == "External"
            target = el.get("Target", "")
            if not external:
                if target.startswith("/"):
                    target = target.lstrip("/")
                else:
                    target = posixpath.normpath(posixpath.join(folder, target))
            out.append(Relationship(el.get("Id", ""), el.get("Type", ""), target, external))
        self._rels_cache[part] = out
        return out

    def related_part(self, part: str, reltype: str) -> str | None:
        for rel in self.rels(part):
            if rel.reltype == reltype and not rel.external and self.has(rel.target):
                return rel.target
        return None

    def relate(self, part: str, target: str, reltype: str) -> str:
        """Add (or find) a relationship from ``part`` to ``target``; returns its rId."""
        for rel in self.rels(part):
            if rel.reltype == reltype and rel.target == target:
                return rel.rid
        rels_name = self.rels_part(part)
        if not self.has(rels_name):
            root = make_element("pr:Relationships", nsmap={None: "http://schemas.openxmlformats.org/package/2006/relationships"})
            self._order.append(rels_name)
            self._blobs[rels_name] = b""
            self._xml[rels_name] = root
        root = self.xml(rels_name)
        taken = {el.get("Id") for el in root}
        n = len(taken) + 1
        while f"rId{n}" in taken:
            n += 1
        rid = f"rId{n}"
        rel_target = posixpath.relpath(target, posixpath.dirname(part) or ".")
        root.append(make_element("pr:Relationship", {"Id": rid, "Type": reltype, "Target": rel_target}))
        self.mark_dirty(rels_name)
        self._rels_cache.pop(part, None)
        return rid

    # ---------------------------------------------------------------- writing
    def to_bytes(self) -> bytes:
        """Deterministic zip: fixed timestamps, [Content_Types].xml first, stable order."""
        buffer = io.BytesIO()
        names = ["[Content_Types].xml"] + [n for n in self._order if n != "[Content_Types].xml"]
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for part in names:
                info = zipfile.ZipInfo(part, date_time=ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o600 << 16
                info.create_system = 0
                zf.writestr(info, self.blob(part), compresslevel=6)
        return buffer.getvalue()


_COUNT_ELEMENTS = etree.XPath("count(//*)")
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_W15 = "{http://schemas.microsoft.com/office/word/2012/wordml}"
_MS = "http://schemas.microsoft.com/office/"
#: Relationship types of the main part the engine reads or writes -> the root tags their target may have.
PART_ROOTS: dict[str, tuple[str, ...]] = {
    RT_BASE + "comments": (_W + "comments",),
    RT_BASE + "numbering": (_W + "numbering",),
    RT_BASE + "styles": (_W + "styles",),
    RT_BASE + "settings": (_W + "settings",),
    RT_BASE + "header": (_W + "hdr",),
    RT_BASE + "footer": (_W + "ftr",),
    RT_BASE + "footnotes": (_W + "footnotes",),
    RT_BASE + "endnotes": (_W + "endnotes",),
    _MS + "2011/relationships/commentsExtended": (_W15 + "commentsEx",),
    _MS + "2016/09/relationships/commentsIds": ("{http://schemas.microsoft.com/office/word/2016/wordml/cid}commentsIds",),
    _MS + "2018/08/relationships/commentsExtensible": (
        "{http://schemas.microsoft.com/office/word/2018/wordml/cex}commentsExtensible",),
    _MS + "2011/relationships/people": (_W15 + "people",),
    _MS + "2007/relationships/stylesWithEffects": (_W + "styles",),
}
#: Of those, the ones a document has at most one of (headers and footers come per section).
SINGLE_PARTS = frozenset(t for t in PART_ROOTS if not t.endswith(("/header", "/footer")))


def _short(reltype: str) -> str:
    return shown(reltype.rsplit("/", 1)[-1], 40).strip("'")


def _rels_source(rels_name: str) -> str | None:
    """The part a .rels part describes ("" for the package), or None for a misplaced .rels."""
    folder, base = posixpath.split(rels_name)
    if posixpath.basename(folder) != "_rels" or not base.endswith(".rels"):
        return None
    return posixpath.join(posixpath.dirname(folder), base[: -len(".rels")])


_DRIVE = re.compile(r"^[A-Za-z]:")


def unsafe_member_name(name: str) -> bool:
    """Absolute, drive-letter, backslash, ``..`` / ``.`` / empty segments: never a part name."""
    if "\\" in name or name.startswith("/") or _DRIVE.match(name) or "\x00" in name:
        return True
    segments = name.rstrip("/").split("/")
    return any(seg in ("", ".", "..") for seg in segments)


def _read_zip(data: bytes, name: str) -> tuple[list[str], dict[str, bytes]]:
    if data.startswith(_OLE_MAGIC):
        raise _fail(name, "is an OLE container (a password-protected or legacy .doc file), not a .docx")
    if not data.startswith(b"PK"):
        raise _fail(name, "not a .docx file (not a zip archive)")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise _fail(name, f"corrupt zip archive: {exc}") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise _fail(name, f"zip has {len(infos)} entries (limit {MAX_ENTRIES})")
        seen: dict[str, str] = {}
        total_declared = 0
        total_compressed = 0
        for info in infos:
            if unsafe_member_name(info.filename):
                raise _fail(name, f"zip member name {shown(info.filename)} is unsafe (absolute, a "
                                  "backslash, or a '..', '.' or empty segment): refused, it would be written back")
            lowered = info.filename.lower()
            if lowered in seen:
                same = seen[lowered] == info.filename
                raise _fail(
                    name,
                    f"{'duplicate' if same else 'case-equivalent'} part name {info.filename!r} in the zip",
                )
            seen[lowered] = info.filename
            if info.file_size > MAX_ENTRY_BYTES:
                raise _fail(name, f"part {info.filename} is {info.file_size} bytes (limit {MAX_ENTRY_BYTES})")
            if lowered.endswith((".xml", ".rels")) and info.file_size > MAX_XML_PART_BYTES:
                raise _fail(name, f"XML part {info.filename} is {info.file_size} bytes (limit "
                                  f"{MAX_XML_PART_BYTES // 2**20} MB for an XML part)")
            if info.file_size >= RATIO_MIN_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                raise _fail(name, f"part {info.filename} has compression ratio above {MAX_RATIO}x (zip bomb?)")
            total_declared += info.file_size
            total_compressed += info.compress_size
        if total_declared > MAX_TOTAL_BYTES:
            raise _fail(name, f"uncompressed size {total_declared} bytes exceeds the limit of "
                              f"{MAX_TOTAL_BYTES // 2**20} MB for all parts together")
        if total_declared >= RATIO_MIN_BYTES and total_declared > MAX_RATIO * max(total_compressed, 1):
            raise _fail(name, f"the parts together have compression ratio above {MAX_RATIO}x (zip bomb?)")
        order: list[str] = []
        blobs: dict[str, bytes] = {}
        budget = MAX_TOTAL_BYTES
        for info in infos:
            if info.is_dir():
                continue
            limit = min(info.file_size, MAX_ENTRY_BYTES, budget)
            try:
                with zf.open(info) as fh:
                    # one read to the end (CRC checked there) or to one byte past the limit
                    blob = fh.read(limit + 1)
            except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
                raise _fail(name, f"cannot read part {info.filename}: {exc}") from None
            if len(blob) > limit:
                raise _fail(name, f"part {info.filename} decompresses beyond its declared size")
            budget -= len(blob)
            order.append(info.filename)
            blobs[info.filename] = blob
    return order, blobs


def atomic_write(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and ``os.replace``."""
    target = Path(path)
    try:
        atomic_write_bytes(target, data, durable=True, parents=False)
    except OSError as exc:
        raise DocxError(f"cannot write: {exc.strerror or exc}", path=target) from None


__all__ = ["Package", "Relationship", "atomic_write", "CT_WML", "RT_BASE"]
