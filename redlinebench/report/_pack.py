"""Compressed blocks for big runs.

A full run holds hundreds of 40-page contracts; as plain HTML that is tens of megabytes a
browser opens slowly. Above a size limit the heavy blocks (redlines, goldens, judge views) are
stored deflate-compressed and base64-encoded in a ``data-z`` attribute and expanded by the page's
script when the reader opens that task (or all at once, synchronously, when the page is printed), so
the file stays one self-contained page.
"""

from __future__ import annotations

import base64
import re
import zlib

from ._html import Markup, el

#: Pages whose uncompressed size would exceed this are written with packed blocks.
PACK_LIMIT_BYTES = 8 * 1024 * 1024

NO_SCRIPT = ("This block is stored compressed to keep the page small. Open the page in a current browser "
             "(Chrome, Edge, Firefox, Safari) with JavaScript enabled to read it.")


def pack(html: Markup) -> Markup:
    """*html* (already escaped markup) as a compressed placeholder the page script expands."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate, as the page script's inflate() reads it
    data = comp.compress(html.encode("utf-8")) + comp.flush()
    return el("div", el("p", NO_SCRIPT, class_="small muted"), class_="packed",
              data_z=base64.b64encode(data).decode("ascii"))


def unpack(encoded: str) -> str:
    """The inverse of :func:`pack`'s payload (for tests and tools)."""
    return zlib.decompress(base64.b64decode(encoded), -15).decode("utf-8")


_TOKEN = re.compile("\x00(\\d+)\x00")


class Packer:
    """Collects heavy blocks while a page is built, then inlines them plain or packed.

    Blocks are replaced by ``NUL<n>NUL`` tokens (NUL cannot occur in escaped text), so the page is
    rendered once and the choice is made on its real size.
    """

    def __init__(self, pack: bool | None) -> None:
        self.pack = pack
        self.blocks: list[Markup] = []

    def __call__(self, html: Markup) -> Markup:
        self.blocks.append(html)
        return Markup(f"\x00{len(self.blocks) - 1}\x00")

    def finish(self, page: str) -> str:
        do_pack = self.pack if self.pack is not None else len(page) + sum(map(len, self.blocks)) > PACK_LIMIT_BYTES
        return _TOKEN.sub(lambda m: pack(self.blocks[int(m.group(1))]) if do_pack else self.blocks[int(m.group(1))], page)
