"""The one hardened XML parser and its tag -> element-class lookup.

Every part of every .docx goes through :func:`parse_xml`: no entity resolution, no network,
no DTD loading, no huge text nodes, and any ``<!DOCTYPE`` is refused outright (the Open
Packaging Conventions forbid DTDs, so one is a sign of an attack, not of Word).
"""

from __future__ import annotations

from lxml import etree

from .ns import NSMAP, qn

_DOCTYPE_MARKERS = (
    b"<!DOCTYPE",
    b"<!doctype",
    "<!DOCTYPE".encode("utf-16-le"),
    "<!DOCTYPE".encode("utf-16-be"),
)


class XmlPartError(ValueError):
    """A part that is not acceptable XML; the package layer adds the file name."""


class OxmlElement(etree.ElementBase):
    """Base of every element we parse: schema-ordered child insertion for all classes."""

    #: Child tags in schema order (Clark notation filled in by ``register``); empty = append.
    CHILD_ORDER: tuple[str, ...] = ()

    def first(self, tag: str) -> "OxmlElement | None":
        return self.find(qn(tag))

    def get_or_add(self, tag: str) -> "OxmlElement":
        """The first ``tag`` child, created at its schema position when absent."""
        child = self.find(qn(tag))
        if child is None:
            child = make_element(tag)
            self.insert_ordered(child)
        return child

    def insert_ordered(self, child: etree._Element) -> etree._Element:
        """Insert ``child`` before the first existing sibling that must follow it."""
        order = type(self).CHILD_ORDER
        if child.tag in order:
            later = set(order[order.index(child.tag) + 1 :])
            for index, existing in enumerate(self):
                if existing.tag in later:
                    self.insert(index, child)
                    return child
        self.append(child)
        return child


def hardened_parser() -> etree.XMLParser:
    """A fresh lxml parser with the hardened settings, yielding plain elements.

    For readers that look at raw parts without the element classes (the validator, quick scans,
    byte-level rewrites); :func:`parse_xml` uses the same settings plus the class lookup.
    """
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=False,
        strip_cdata=False,
    )


_lookup = etree.ElementNamespaceClassLookup(etree.ElementDefaultClassLookup(element=OxmlElement))
_PARSER = hardened_parser()
_PARSER.set_element_class_lookup(_lookup)


def register(tag: str, cls: type[OxmlElement]) -> None:
    """Bind an element class to a namespaced tag such as ``"w:p"``."""
    prefix, local = tag.split(":", 1)
    _lookup.get_namespace(NSMAP[prefix])[local] = cls
    if cls.CHILD_ORDER and not cls.CHILD_ORDER[0].startswith("{"):
        cls.CHILD_ORDER = tuple(qn(t) for t in cls.CHILD_ORDER)


def parse_xml(data: bytes) -> OxmlElement:
    """Parse one part with the hardened parser; raises :class:`XmlPartError`."""
    if any(marker in data for marker in _DOCTYPE_MARKERS):
        raise XmlPartError("contains a DTD (<!DOCTYPE>), which .docx parts may not have")
    try:
        root = etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise XmlPartError(f"malformed XML: {exc}") from None
    if root is None:
        raise XmlPartError("empty XML part")
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None:  # a DTD in an encoding the byte check misses
        raise XmlPartError("contains a DTD (<!DOCTYPE>), which .docx parts may not have")
    return root


def make_element(tag: str, attrs: dict[str, str] | None = None, nsmap: dict[str, str] | None = None) -> OxmlElement:
    """A new element of the right class; ``attrs`` keys may be prefixed (``"w:val"``)."""
    el = _PARSER.makeelement(qn(tag), nsmap=nsmap)
    if attrs:
        for key, value in attrs.items():
            el.set(qn(key) if ":" in key else key, value)
    return el


def fragment(xml: str) -> OxmlElement:
    """Parse a trusted snippet written in this package (namespaces must be declared)."""
    return etree.fromstring(xml.encode("utf-8"), _PARSER)


def serialize(root: etree._Element) -> bytes:
    """Serialize a part as Word writes it: UTF-8, XML declaration, standalone."""
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
