"""Safe opening and deterministic saving."""

from __future__ import annotations

import io
import os
import zipfile

import pytest

from redlinebench.docx import RedlineDocument
from redlinebench.docx import package as pkgmod
from redlinebench.errors import DocxError
from tests.docx.util import docx, p

BODY = p("Hello world.")


def _rezip(data: bytes, mutate) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        entries = [(i.filename, zf.read(i.filename)) for i in zf.infolist()]
    entries = mutate(entries)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, blob in entries:
            zf.writestr(name, blob)
    return buf.getvalue()


def test_opens_from_bytes_and_path(tmp_path):
    data = docx(BODY)
    path = tmp_path / "a.docx"
    path.write_bytes(data)
    assert RedlineDocument.open(data).paragraphs[0].text == "Hello world."
    doc = RedlineDocument.open(path)
    assert doc.name == str(path)
    assert doc.paragraphs[0].id == "p-001"


@pytest.mark.parametrize(
    "data, problem",
    [
        (b"not a zip at all", "not a .docx file"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100, "OLE container"),
        (b"PK\x03\x04garbage", "corrupt zip"),
    ],
)
def test_rejects_non_docx(data, problem):
    with pytest.raises(DocxError) as err:
        RedlineDocument.open(data, name="bad.docx")
    assert problem in str(err.value)
    assert str(err.value).startswith("bad.docx: ")


def test_missing_file_names_it(tmp_path):
    with pytest.raises(DocxError, match="nope.docx: file not found"):
        RedlineDocument.open(tmp_path / "nope.docx", name="nope.docx")


def test_rejects_missing_content_types():
    data = _rezip(docx(BODY), lambda es: [e for e in es if e[0] != "[Content_Types].xml"])
    with pytest.raises(DocxError, match=r"missing \[Content_Types\].xml"):
        RedlineDocument.open(data)


def test_rejects_missing_main_part():
    data = _rezip(docx(BODY), lambda es: [e for e in es if e[0] != "word/document.xml"])
    with pytest.raises(DocxError, match="missing main document part"):
        RedlineDocument.open(data)


def test_rejects_case_equivalent_names():
    data = _rezip(docx(BODY), lambda es: es + [("WORD/document.xml", b"<x/>")])
    with pytest.raises(DocxError, match="case-equivalent part name"):
        RedlineDocument.open(data)


def test_rejects_macro_enabled():
    data = docx(BODY, main_ct="application/vnd.ms-word.document.macroEnabled.main+xml")
    with pytest.raises(DocxError, match="macro-enabled"):
        RedlineDocument.open(data)
    data = _rezip(docx(BODY), lambda es: es + [("word/vbaProject.bin", b"\0")])
    with pytest.raises(DocxError, match="macro-enabled"):
        RedlineDocument.open(data)


def test_rejects_doctype_and_billion_laughs():
    lol = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
           b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
           b"<w:body><w:p><w:r><w:t>&lol2;</w:t></w:r></w:p></w:body></w:document>")
    data = _rezip(docx(BODY), lambda es: [(n, lol if n == "word/document.xml" else b) for n, b in es])
    with pytest.raises(DocxError, match="word/document.xml: contains a DTD"):
        RedlineDocument.open(data, name="lol.docx")


def test_rejects_malformed_xml():
    data = _rezip(docx(BODY), lambda es: [(n, b"<w:document" if n == "word/document.xml" else b) for n, b in es])
    with pytest.raises(DocxError, match="malformed XML"):
        RedlineDocument.open(data)


def test_zip_bomb_ratio_refused():
    bomb = b"<a>" + b" " * (3 * 1024 * 1024) + b"</a>"
    data = _rezip(docx(BODY), lambda es: es + [("word/media/bomb.xml", bomb)])
    with pytest.raises(DocxError, match="compression ratio"):
        RedlineDocument.open(data)


def test_limits_on_entries_and_sizes(monkeypatch):
    data = docx(BODY)
    monkeypatch.setattr(pkgmod, "MAX_ENTRIES", 3)
    with pytest.raises(DocxError, match="entries"):
        RedlineDocument.open(data)
    monkeypatch.setattr(pkgmod, "MAX_ENTRIES", 2000)
    monkeypatch.setattr(pkgmod, "MAX_ENTRY_BYTES", 100)
    with pytest.raises(DocxError, match="limit 100"):
        RedlineDocument.open(data)


def test_lying_declared_size_is_caught():
    data = bytearray(docx(BODY))
    # shrink the declared uncompressed size of document.xml in the central directory
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.getinfo("word/document.xml")
    name = b"word/document.xml"
    idx = data.find(b"PK\x01\x02")
    while idx != -1:
        nlen = int.from_bytes(data[idx + 28: idx + 30], "little")
        if data[idx + 46: idx + 46 + nlen] == name:
            data[idx + 24: idx + 28] = (info.file_size // 2).to_bytes(4, "little")
            break
        idx = data.find(b"PK\x01\x02", idx + 4)
    with pytest.raises(DocxError, match="word/document.xml"):
        RedlineDocument.open(bytes(data))


def test_output_is_deterministic_and_reopens(tmp_path):
    data = docx(BODY)
    edit = [{"op": "replace", "anchor": {"paragraph_id": "p-001", "text": "world"}, "new_text": "there",
             "comment": "Friendlier."}]
    from datetime import datetime, timezone

    when = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
    outs = []
    for _ in range(2):
        doc = RedlineDocument.open(data)
        doc.apply_edits(edit, author="Me", date=when)
        outs.append(doc.to_bytes())
    assert outs[0] == outs[1]
    with zipfile.ZipFile(io.BytesIO(outs[0])) as zf:
        infos = zf.infolist()
        assert infos[0].filename == "[Content_Types].xml"
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    again = RedlineDocument.open(outs[0])
    assert again.paragraphs[0].text == "Hello there."
    assert again.text("original") == "Hello world."


def test_save_is_atomic(tmp_path, monkeypatch):
    doc = RedlineDocument.open(docx(BODY))
    out = tmp_path / "out.docx"
    out.write_bytes(b"previous")

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)  # the rename inside redlinebench._atomic
    with pytest.raises(DocxError, match="No space left"):
        doc.save(out)
    assert out.read_bytes() == b"previous"
    assert [f.name for f in tmp_path.iterdir()] == ["out.docx"]
    monkeypatch.undo()
    doc.save(out)
    assert RedlineDocument.open(out).paragraphs[0].text == "Hello world."


def test_save_to_missing_folder_is_a_docx_error(tmp_path):
    doc = RedlineDocument.open(docx(BODY))
    with pytest.raises(DocxError, match="cannot write"):
        doc.save(tmp_path / "missing" / "x.docx")


@pytest.mark.parametrize("part", ["word/numbering.xml", "word/styles.xml", "word/comments.xml"])
def test_broken_secondary_part_fails_at_open_naming_it(part):
    data = docx(BODY, styles="", numbering="", comments="")
    data = _rezip(data, lambda es: [(n, b"<w:oops" if n == part else b) for n, b in es])
    with pytest.raises(DocxError, match=f"{part}: malformed XML"):
        RedlineDocument.open(data, name="x.docx")


def test_huge_text_node_is_refused():
    big = "a" * (11 * 1024 * 1024)
    data = docx(p(big))
    with pytest.raises(DocxError, match="word/document.xml"):
        RedlineDocument.open(data)


def test_save_with_validation_refuses_a_broken_document(tmp_path):
    broken = p("text", '<w:r><w:commentReference w:id="42"/></w:r>')   # a reference to no comment
    doc = RedlineDocument.open(docx(broken))
    assert any(f.severity == "error" for f in doc.validate())
    out = tmp_path / "out.docx"
    with pytest.raises(DocxError, match="refusing to save"):
        doc.save(out, validate=True)
    assert not out.exists()
    doc.save(out)   # without validation it is written as is
    assert out.exists()
    clean = RedlineDocument.open(docx(BODY))
    clean.save(tmp_path / "clean.docx", validate=True)
    assert [f for f in RedlineDocument.open(tmp_path / "clean.docx").validate() if f.severity == "error"] == []
