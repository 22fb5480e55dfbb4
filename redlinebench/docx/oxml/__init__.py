"""Low-level XML: namespaces, the one hardened parser, thin element classes."""

from . import annotation, revision, text  # noqa: F401  (register element classes)
from .ns import NSMAP, W, nsdecls, qn
from .parser import OxmlElement, XmlPartError, fragment, make_element, parse_xml, register, serialize
from .text import MARK_REVISION_TAGS, PPR_ORDER, RPR_ORDER

__all__ = [
    "NSMAP",
    "W",
    "nsdecls",
    "qn",
    "OxmlElement",
    "XmlPartError",
    "fragment",
    "make_element",
    "parse_xml",
    "register",
    "serialize",
    "MARK_REVISION_TAGS",
    "PPR_ORDER",
    "RPR_ORDER",
]
