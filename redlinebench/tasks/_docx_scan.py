"""Open a task's .docx the way ``run`` will, and take a census of its tracked changes and comments.

``tasks validate`` must refuse every document the redline engine refuses (a DTD in any part, no
``[Content_Types].xml``, no ``w:body``, a broken numbering or styles part, a zip bomb ...),
or it passes a tree whose every trial then errors. So each file is opened with the engine itself,
:meth:`redlinebench.docx.RedlineDocument.open`, and the census is read from the trees the engine
has already parsed (nothing is parsed twice). A quick look at the zip first keeps the plain
answers for files that are not Word documents at all. Variants of one input group share their
documents byte for byte, so results are remembered by content digest for the length of one
validation.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections import Counter
from pathlib import Path

from ..docx import RedlineDocument
from ..docx.document import RT_COMMENTS
from ..docx.package import MAX_TOTAL_BYTES
from ..errors import DocxError

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CHANGE_TAGS = {f"{{{_W}}}{t}": t for t in ("ins", "del", "moveFrom", "moveTo")}
_TEXT_TAGS = {f"{{{_W}}}t", f"{{{_W}}}delText", f"{{{_W}}}instrText"}
_COMMENT = f"{{{_W}}}comment"
_AUTHOR = f"{{{_W}}}author"

Census = Counter[tuple[str, str, str]]


class NotADocx(ValueError):
    """The file is not a Word document the redline engine accepts."""


def _read(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_TOTAL_BYTES:
            raise NotADocx(f"file is {size} bytes, larger than the {MAX_TOTAL_BYTES // 2**20} MB allowed")
        return path.read_bytes()
    except OSError as exc:
        raise NotADocx(f"cannot read ({exc.strerror or exc})") from exc


def _zip_check(data: bytes) -> None:
    """The plain answers for a file that is no Word document at all (the engine's come after)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise NotADocx(f"not a zip archive ({exc})") from exc
    if "word/document.xml" not in names:
        raise NotADocx("no word/document.xml part (not a Word document)")


def _census(doc: RedlineDocument) -> Census:
    package = doc.package
    census: Census = Counter()
    for element in package.xml(package.main_part).iter(*_CHANGE_TAGS):
        text = "".join(t.text or "" for t in element.iter(*_TEXT_TAGS))
        census[(_CHANGE_TAGS[element.tag], element.get(_AUTHOR) or "", text)] += 1
    comments = doc.part_for(RT_COMMENTS) or "word/comments.xml"
    if package.has(comments):
        for element in package.xml(comments).iter(_COMMENT):
            text = "".join(t.text or "" for t in element.iter(f"{{{_W}}}t"))
            census[("comment", element.get(_AUTHOR) or "", text)] += 1
    return census


def change_census(path: Path, memo: dict[str, Census | NotADocx] | None = None) -> Census:
    """Multiset of ``(kind, author, text)`` for every tracked change and comment in the file.

    ``kind`` is ``ins``/``del``/``moveFrom``/``moveTo`` or ``comment``. Raises :class:`NotADocx`
    with the reason, including every reason the redline engine has to refuse the file.
    ``memo`` (digest -> result) lets identical files be opened once.
    """
    data = _read(path)
    key = hashlib.blake2b(data, digest_size=16).hexdigest()
    result = memo.get(key) if memo is not None else None
    if result is None:
        try:
            _zip_check(data)
            try:
                result = _census(RedlineDocument.open(data, name=str(path)))
            except DocxError as exc:
                raise NotADocx(f"refused by the redline engine (so every trial would fail): {exc.problem}") from None
        except NotADocx as exc:
            result = exc
        if memo is not None:
            memo[key] = result
    if isinstance(result, NotADocx):
        raise NotADocx(str(result))
    return result
