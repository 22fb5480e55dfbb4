"""validate_package: each rule fires on the defect it names and stays quiet on clean files."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import pytest

from redlinebench.docx.build import (
    Bookmark,
    Comment,
    CrossRef,
    Del,
    DocumentBuilder,
    Footnote,
    Hyperlink,
    Ins,
    Reply,
    Run,
)
from redlinebench.docx.validate import Finding, errors_only, validate_package


def _base() -> bytes:
    b = DocumentBuilder(para_ids=True)
    b.paragraph(["Alpha ", Run("bold", bold=True, italic=True), " ", Hyperlink("link", "https://x.test")])
    b.paragraph(["See ", Bookmark("_Ref9", "Target"), " and ", CrossRef("_Ref9", "Target"), Footnote("n")])
    b.paragraph(["Keep ", Del("old", "Other"), Ins("new", "Other")])
    b.paragraph([Comment("anchor", "Root", "Other", replies=[Reply("Reply", "Me")])])
    return b.to_bytes()


def _mutate(data: bytes, part: str, edit: Callable[[str], str]) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            blob = src.read(info)
            if info.filename == part:
                new = edit(blob.decode())
                assert new != blob.decode(), "mutation did not apply"
                blob = new.encode()
            dst.writestr(info, blob)
    return out.getvalue()


def _drop(data: bytes, part: str) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if info.filename != part:
                dst.writestr(info, src.read(info))
    return out.getvalue()


def _codes(findings: list[Finding]) -> set[str]:
    return {f.code for f in findings}


def test_clean_document_has_no_findings():
    assert validate_package(_base()) == []


def test_accepts_path_mapping_and_package_like(tmp_path):
    data = _base()
    path = tmp_path / "x.docx"
    path.write_bytes(data)
    parts = {i.filename: zipfile.ZipFile(io.BytesIO(data)).read(i) for i in zipfile.ZipFile(io.BytesIO(data)).infolist()}

    class PackageLike:
        part_names = list(parts)

        def blob(self, name: str) -> bytes:
            return parts[name]

    assert validate_package(path) == validate_package(parts) == validate_package(PackageLike()) == []


DOC = "word/document.xml"
CASES: list[tuple[str, str, Callable[[str], str], str]] = [
    ("t in del", DOC, lambda s: s.replace("<w:delText>old</w:delText>", "<w:t>old</w:t>"), "text-inside-del"),
    ("delText outside del", DOC, lambda s: s.replace("<w:t xml:space=\"preserve\">Keep </w:t>",
                                                     "<w:delText xml:space=\"preserve\">Keep </w:delText>"),
     "deltext-outside-del"),
    ("revision inside run", DOC, lambda s: s.replace("<w:t xml:space=\"preserve\">Keep </w:t>",
                                                     "<w:ins w:id=\"900\" w:author=\"X\" w:date=\"2026-01-01T00:00:00Z\"/>"
                                                     "<w:t xml:space=\"preserve\">Keep </w:t>"), "revision-misplaced"),
    ("duplicate revision id", DOC, lambda s: s.replace('<w:ins w:id="3"', '<w:ins w:id="2"'),
     "revision-id-duplicate"),
    ("ins without author", DOC, lambda s: s.replace('w:author="Other" w:date', 'w:date', 1)
     if '<w:del w:id="' in s else s, "revision-attr-missing"),
    ("nested ins", DOC, lambda s: s.replace("<w:t>new</w:t></w:r></w:ins>",
                                            "<w:t>new</w:t></w:r><w:ins w:id=\"901\" w:author=\"Y\" "
                                            "w:date=\"2026-01-01T00:00:00Z\"><w:r><w:t>x</w:t></w:r></w:ins></w:ins>"),
     "revision-nested"),
    ("bad date", DOC, lambda s: s.replace('w:date="2026-01-01T09:00:00Z"', 'w:date="01/01/2026"', 1), "date-format"),
    ("unclosed comment range", DOC, lambda s: s.replace('<w:commentRangeEnd w:id="', '<w:bookmarkEnd w:id="9', 1),
     "comment-range-unclosed"),
    ("reference without comment", DOC, lambda s: s.replace("</w:body>", "").replace(
        "<w:sectPr>", '<w:p><w:r><w:commentReference w:id="777"/></w:r></w:p><w:sectPr>', 1)
     .replace("</w:document>", "</w:body></w:document>"), "comment-reference-missing"),
    ("duplicate bookmark id", DOC, lambda s: s.replace("<w:sectPr>", '<w:p><w:bookmarkStart w:id="1" w:name="x"/>'
                                                      '<w:bookmarkEnd w:id="1"/></w:p><w:sectPr>', 1),
     "bookmark-id-duplicate"),
    ("field without result", DOC, lambda s: s.replace('<w:r><w:fldChar w:fldCharType="separate"/></w:r>', ""),
     "field-no-result"),
    ("field never ended", DOC, lambda s: s.replace('<w:r><w:fldChar w:fldCharType="end"/></w:r>', ""),
     "field-unbalanced"),
    ("rPr out of order", DOC, lambda s: s.replace("<w:b/><w:i/>", "<w:i/><w:b/>"), "rpr-order"),
    ("rPr repeated", DOC, lambda s: s.replace("<w:b/><w:i/>", "<w:b/><w:i/><w:i/>"), "rpr-order"),
    ("pPr out of order", "word/comments.xml", lambda s: s.replace('<w:pPr><w:pStyle w:val="CommentText"/></w:pPr>',
                                                               '<w:pPr><w:jc w:val="left"/><w:pStyle w:val="CommentText"/>'
                                                               '</w:pPr>', 1), "ppr-order"),
    ("paraId zero", "word/comments.xml", lambda s: s.replace('w14:paraId="10000001"', 'w14:paraId="00000000"'),
     "paraid-range"),
    ("paraId too large", DOC, lambda s: s.replace('w14:paraId="00100001"', 'w14:paraId="80000000"'), "paraid-range"),
    ("paraId duplicate", DOC, lambda s: s.replace('w14:paraId="00100002"', 'w14:paraId="00100001"'),
     "paraid-duplicate"),
    ("durableId too large", "word/commentsIds.xml", lambda s: s.replace('w16cid:durableId="20000001"',
                                                                         'w16cid:durableId="7FFFFFFF"'),
     "durableid-range"),
    ("reply parent missing", "word/commentsExtended.xml", lambda s: s.replace('w15:paraIdParent="10000001"',
                                                                             'w15:paraIdParent="0ABCDEF0"'),
     "comment-thread-broken"),
    ("empty comments part", "word/comments.xml", lambda s: s[: s.index("<w:comment ")] + "</w:comments>",
     "comments-part-empty"),
    ("malformed xml", DOC, lambda s: s.replace("</w:body>", "</w:bod>"), "xml-malformed"),
    ("DTD", "word/styles.xml", lambda s: s.replace("<w:styles", '<!DOCTYPE x [<!ENTITY a "b">]><w:styles', 1),
     "xml-malformed"),
    ("dangling relationship", "word/_rels/document.xml.rels", lambda s: s.replace('Target="styles.xml"',
                                                                                 'Target="nostyles.xml"'),
     "rel-dangling"),
    ("r:id without relationship", DOC, lambda s: s.replace('r:id="rId', 'r:id="rIdX', 1), "rel-id-missing"),
    ("missing content type", "[Content_Types].xml",
     lambda s: s.replace('<Override PartName="/word/numbering.xml"', '<Override PartName="/word/other.xml"')
     .replace('<Default Extension="xml" ContentType="application/xml"/>', ""), "content-type-missing"),
    ("footnote reference dangling", "word/footnotes.xml", lambda s: s.replace('<w:footnote w:id="1">',
                                                                             '<w:footnote w:id="5">'),
     "footnote-missing"),
]


@pytest.mark.parametrize("label,part,edit,code", CASES, ids=[c[0] for c in CASES])
def test_rule_fires(label, part, edit, code):
    findings = validate_package(_mutate(_base(), part, edit))
    assert code in _codes(findings), findings
    assert all(isinstance(f, Finding) and f.part for f in findings)


def test_unanchored_comment_and_orphan_reply():
    # remove every body marker of the reply (comment id 5): it becomes an orphan Word drops
    data = _base()
    mutated = _mutate(data, DOC, lambda s: s.replace('<w:commentRangeStart w:id="5"/>', "")
                      .replace('<w:commentRangeEnd w:id="5"/>', "")
                      .replace('<w:r><w:rPr><w:rStyle w:val="CommentReference"/></w:rPr><w:commentReference w:id="5"/>'
                               '</w:r>', ""))
    findings = validate_package(mutated)
    assert [f.code for f in errors_only(findings)] == ["comment-unanchored"]


def test_missing_part_is_reported_not_raised():
    findings = validate_package(_drop(_base(), "word/styles.xml"))
    assert "rel-dangling" in _codes(findings)


@pytest.mark.parametrize("data", [b"", b"PK\x03\x04broken", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600,
                                  b"just text\n"])
def test_non_zip_inputs(data):
    assert _codes(validate_package(data)) == {"zip-unreadable"}


def test_too_many_entries():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for n in range(2001):
            zf.writestr(f"x/{n}.xml", "<a/>")
    findings = validate_package(out.getvalue())
    assert _codes(findings) == {"zip-unreadable"} and "2001 entries" in findings[0].message


def test_warnings_are_not_errors():
    mutated = _mutate(_base(), "[Content_Types].xml",
                      lambda s: s.replace("</Types>", '<Override PartName="/word/ghost.xml" '
                                                      'ContentType="application/xml"/></Types>'))
    findings = validate_package(mutated)
    assert [f.code for f in findings] == ["content-type-dangling"] and errors_only(findings) == []
    assert str(findings[0]).startswith("warning: [Content_Types].xml: [content-type-dangling]")


def test_paraid_shared_across_parts_is_a_warning():
    data = _base()
    clash = _mutate(data, "word/comments.xml", lambda s: s.replace('w14:paraId="10000001"', 'w14:paraId="00100001"')
                    .replace('w14:textId="10000001"', 'w14:textId="00100001"'))
    clash = _mutate(clash, "word/commentsExtended.xml", lambda s: s.replace('"10000001"', '"00100001"'))
    clash = _mutate(clash, "word/commentsIds.xml", lambda s: s.replace('"10000001"', '"00100001"'))
    findings = validate_package(clash)
    assert [(f.code, f.severity) for f in findings] == [("paraid-duplicate", "warning")], findings


def test_two_strikes_in_one_insertion_are_flagged():
    # Word's schema allows one w:del per w:ins; openxml-audit rejects two, so must we.
    two = ('<w:ins w:id="901" w:author="B" w:date="2026-01-01T00:00:00Z">'
           '<w:del w:id="902" w:author="A" w:date="2026-01-01T00:00:00Z"><w:r><w:delText>a</w:delText></w:r></w:del>'
           '<w:del w:id="903" w:author="C" w:date="2026-01-01T00:00:00Z"><w:r><w:delText>b</w:delText></w:r></w:del>'
           '</w:ins>')
    bad = _mutate(_base(), "word/document.xml", lambda x: x.replace("</w:p>", two + "</w:p>", 1))
    assert "ins-multiple-del" in _codes(errors_only(validate_package(bad)))


@pytest.mark.parametrize("label,part,edit,code", CASES + [
    ("entity text in a comment", DOC, lambda s: s.replace("<w:body>", "<w:body><!-- <!ENTITY x> -->"), "xml-malformed"),
], ids=[c[0] for c in CASES] + ["entity text in a comment"])
def test_edited_parts_validate_as_their_saved_bytes(label, part, edit, code):
    """A dirty part is checked on its live tree, not re-parsed: the findings are the saved file's."""
    from redlinebench.docx import RedlineDocument
    from redlinebench.errors import DocxError

    data = _mutate(_base(), part, edit)
    try:
        doc = RedlineDocument.open(data)
    except DocxError:
        # Refused at open, so there is no live tree to compare; the validator must still see it.
        assert code in _codes(validate_package(data))
        return
    doc.apply_edits([{"op": "insert_after", "anchor": {"paragraph_id": "p-001", "text": "Alpha"},
                      "new_text": "beta", "comment": "Why."}], author="Me")
    for name in doc.package.part_names:
        if name.endswith((".xml", ".rels")):
            doc.package.xml(name)
            doc.package.mark_dirty(name)
    assert doc.validate() == validate_package(doc.to_bytes())


def test_attribute_carriers_are_every_element_with_the_attribute_in_document_order():
    """The XPath shortcuts the rel-id and date checks use find exactly what a full walk finds."""
    from lxml import etree

    from redlinebench.docx.validate import _DATE_ATTRS, _REL_ATTRS, _WITH_DATE, _WITH_REL_ATTR

    ns = ('xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
          'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
          'xmlns:cex="http://schemas.microsoft.com/office/word/2018/wordml/cex"')
    bodies = ['<w:p/>', '<w:p r:id="a"><w:r r:id="b"/></w:p>',
              '<w:p r:embed="x"><w:r r:id="b" r:link="c"/><w:r r:link=""/></w:p>',
              '<w:ins w:date="d1"><w:del cex:dateUtc="u"/><w:del w:date="d2" cex:dateUtc="u2"/></w:ins>',
              '<w:ins w:date="d1"/><!-- c --><w:ins w:date="d2"/>']
    for body in bodies:
        root = etree.fromstring(f'<w:document {ns} w:date="top">{body}</w:document>')
        for carriers, names in ((_WITH_REL_ATTR, _REL_ATTRS), (_WITH_DATE, _DATE_ATTRS)):
            walked = [el for el in root.iter() if isinstance(el.tag, str) and any(el.get(n) is not None for n in names)]
            assert carriers(root) == walked, body
