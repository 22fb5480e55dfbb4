"""Rendered redlines kept in the run directory, so a report is assembled rather than re-rendered.

Rendering a contract as HTML means opening the .docx with the engine: most of the cost of a
report. The run's workers render each trial's redline as soon as it is graded (in parallel,
while other trials wait on the model), and ``redlinebench report`` re-uses those renderings.
Entries are keyed by the document's bytes, the rendering options and the renderer's own source,
so an edited file or a new renderer is never served stale; an unreadable entry is a miss.
They live in ``<run>/.cache/redlines/`` and may be deleted at any time.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from functools import lru_cache
from pathlib import Path

from .._atomic import atomic_write_bytes
from ._redline import Fragment

CACHE_SUBDIR = (".cache", "redlines")


def cache_dir(run_dir: Path) -> Path:
    return Path(run_dir).joinpath(*CACHE_SUBDIR)


@lru_cache(maxsize=1)
def renderer_id() -> str:
    """A digest of the code that turns a document into HTML: a changed renderer misses the cache."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    for name in ("_redline.py", "_html.py", "_palette.py"):
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(name.encode())
    return h.hexdigest()[:16]


class FragmentCache:
    """Gzipped JSON files ``<root>/<key>.json.gz`` (``zcat`` reads them); writes are atomic, and a
    failure to read or write one only costs the time to render again."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @staticmethod
    def key(data: bytes, *, dom: str, focus_author: str | None, label: str) -> str:
        h = hashlib.sha256(data)
        h.update(json.dumps([renderer_id(), dom, focus_author, label]).encode("utf-8"))
        return h.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / f"{key}.json.gz"

    def get(self, key: str) -> Fragment | None:
        try:
            return Fragment.from_dict(json.loads(gzip.decompress(self._path(key).read_bytes())))
        except (OSError, ValueError, EOFError, zlib.error):
            return None

    def put(self, key: str, fragment: Fragment) -> None:
        try:
            blob = gzip.compress(json.dumps(fragment.to_dict(), ensure_ascii=False).encode("utf-8"), 1, mtime=0)
            atomic_write_bytes(self._path(key), blob)
        except OSError:
            return
