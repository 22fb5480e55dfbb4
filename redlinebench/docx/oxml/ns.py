"""Namespace prefixes used by WordprocessingML parts, and Clark-notation helpers."""

from __future__ import annotations

NSMAP: dict[str, str] = {
    "w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "w14": "http://schemas.microsoft.com/office/word/2010/wordml",
    "w15": "http://schemas.microsoft.com/office/word/2012/wordml",
    "w16cid": "http://schemas.microsoft.com/office/word/2016/wordml/cid",
    "w16cex": "http://schemas.microsoft.com/office/word/2018/wordml/cex",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "m": "http://schemas.openxmlformats.org/officeDocument/2006/math",
    "wp": "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing",
    "v": "urn:schemas-microsoft-com:vml",
    "ct": "http://schemas.openxmlformats.org/package/2006/content-types",
    "pr": "http://schemas.openxmlformats.org/package/2006/relationships",
    "xml": "http://www.w3.org/XML/1998/namespace",
}

W = NSMAP["w"]
_CACHE: dict[str, str] = {}


def qn(tag: str) -> str:
    """``"w:p"`` -> ``"{http://...main}p"`` (cached: called in hot loops)."""
    try:
        return _CACHE[tag]
    except KeyError:
        prefix, local = tag.split(":", 1)
        clark = f"{{{NSMAP[prefix]}}}{local}"
        _CACHE[tag] = clark
        return clark


def nsdecls(*prefixes: str) -> str:
    """Namespace declarations for an XML snippet, e.g. ``nsdecls("w", "w14")``."""
    return " ".join(f'xmlns:{p}="{NSMAP[p]}"' for p in prefixes)
