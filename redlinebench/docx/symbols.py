"""The character a ``w:sym`` glyph stands for, as text an anchor can quote and a judge can read.

``w:sym`` names a font and a code. Word writes codes of symbol fonts in the private-use range
F000-F0FF (the low byte is the glyph's slot in the font), so the same code means a bullet in
Symbol, a check box in Wingdings and a middle dot in a text font. Text fonts map their slot
through Windows-1252; Symbol through its own (Adobe) encoding; the dingbat fonts only for the few
glyphs contracts use (boxes, ticks, bullets). Anything else, and any code that is not a
printable character (a surrogate, a control code), reads as U+FFFD: a hostile code must never
reach the views, the transcripts or an XML part.
"""

from __future__ import annotations

import unicodedata

UNKNOWN = "\ufffd"

# Adobe Symbol encoding, slots 0x20-0x7E then 0xA0-0xFE ("\0" marks the one unused slot, 0xF0).
_SYMBOL_LOW = (" !\u2200#\u2203%&\u220b()\u2217+,\u2212./0123456789:;<=>?"
               "\u2245\u0391\u0392\u03a7\u0394\u0395\u03a6\u0393\u0397\u0399\u03d1\u039a\u039b\u039c\u039d\u039f"
               "\u03a0\u0398\u03a1\u03a3\u03a4\u03a5\u03c2\u03a9\u039e\u03a8\u0396[\u2234]\u22a5_"
               "\u203e\u03b1\u03b2\u03c7\u03b4\u03b5\u03c6\u03b3\u03b7\u03b9\u03d5\u03ba\u03bb\u03bc\u03bd\u03bf"
               "\u03c0\u03b8\u03c1\u03c3\u03c4\u03c5\u03d6\u03c9\u03be\u03c8\u03b6{|}\u223c")
_SYMBOL_HIGH = ("\u20ac\u03d2\u2032\u2264\u2044\u221e\u0192\u2663\u2666\u2665\u2660\u2194\u2190\u2191\u2192\u2193"
                "\u00b0\u00b1\u2033\u2265\u00d7\u221d\u2202\u2022\u00f7\u2260\u2261\u2248\u2026\u23d0\u23af\u21b5"
                "\u2135\u2111\u211c\u2118\u2297\u2295\u2205\u2229\u222a\u2283\u2287\u2284\u2282\u2286\u2208\u2209"
                "\u2220\u2207\u00ae\u00a9\u2122\u220f\u221a\u22c5\u00ac\u2227\u2228\u21d4\u21d0\u21d1\u21d2\u21d3"
                "\u25ca\u2329\u00ae\u00a9\u2122\u2211\u239b\u239c\u239d\u23a1\u23a2\u23a3\u23a7\u23a8\u23a9\u23aa"
                "\0\u232a\u222b\u2320\u23ae\u2321\u239e\u239f\u23a0\u23a4\u23a5\u23a6\u23ab\u23ac\u23ad")
assert len(_SYMBOL_LOW) == 0x7F - 0x20 and len(_SYMBOL_HIGH) == 0xFF - 0xA0

# The dingbat glyphs that turn up in contracts (check boxes, ticks, bullets); the rest are unknown.
_WINGDINGS = {0x6C: "\u25cf", 0x6E: "\u25a0", 0x6F: "\u25a1", 0x71: "\u2751", 0x9F: "\u2022", 0xA7: "\u25aa",
              0xA8: "\u25fb", 0xD8: "\u27a2", 0xE0: "\u2192", 0xFB: "\u2717", 0xFC: "\u2713", 0xFD: "\u2612",
              0xFE: "\u2611"}
_DINGBAT_FONTS = {"wingdings": _WINGDINGS, "wingdings 2": {}, "wingdings 3": {}, "webdings": {},
                  "zapfdingbats": {}, "zapf dingbats": {}, "marlett": {}}


def _symbol(slot: int) -> str:
    if 0x20 <= slot <= 0x7E:
        return _SYMBOL_LOW[slot - 0x20]
    if 0xA0 <= slot <= 0xFE:
        return _SYMBOL_HIGH[slot - 0xA0]
    return "\0"


def _printable(ch: str) -> str:
    """``ch`` when it is a character text may carry, else U+FFFD."""
    if not ch or ch == "\0":
        return UNKNOWN
    category = unicodedata.category(ch)
    return UNKNOWN if category in ("Cc", "Cs", "Cn", "Co") and ch != "\t" else ch


def sym_text(font: str | None, char: str | None) -> str:
    """The one character ``<w:sym w:font=font w:char=char/>`` shows, or U+FFFD."""
    try:
        code = int((char or "").strip(), 16)
    except ValueError:
        return UNKNOWN
    if code < 0 or code > 0x10FFFF:
        return UNKNOWN
    name = (font or "").strip().lower()
    slot = code - 0xF000 if 0xF000 <= code <= 0xF0FF else code if code <= 0xFF else None
    if slot is not None and name == "symbol":
        return _printable(_symbol(slot))
    if name in _DINGBAT_FONTS:
        return _DINGBAT_FONTS[name].get(slot, UNKNOWN) if slot is not None else UNKNOWN
    if slot is not None:
        return _printable(bytes([slot]).decode("cp1252", errors="replace"))
    return _printable(chr(code))
