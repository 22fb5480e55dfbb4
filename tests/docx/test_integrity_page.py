"""Integrity v3 (issue 29): the audit compares what a reader of the page sees. Each family below
leaves the XML's text as it was (or hides where the text walk did not look) and passed the v2
audit: clause numbers changed without tracking, text made unreadable by means outside the run's
own properties, and content the reader sees differently from the XML's text. Legitimate forms
(the author's tracked numbering work, re-saves) stay clean."""

from __future__ import annotations

import io
import zipfile

from lxml import etree

from redlinebench.docx.render import rendering

from .integrity_util import (
    AUTHOR,
    OTHER,
    W,
    base_contract,
    engine,
    fragment,
    kinds,
    open_doc,
    paragraph_with,
    python_docx_roundtrip,
    rewrite,
    run_audit,
    w,
)

SRC = base_contract()
DOC = "word/document.xml"
NUM = "word/numbering.xml"


def _fatal(report, kind: str) -> None:
    assert kind in kinds(report) and not report.passed, report.findings


def _labels(data: bytes) -> list:
    doc = open_doc(data)
    model = rendering(doc)
    ps = list(doc.body.iter(w("p")))
    labels = model.labels(ps)
    return [labels[p] for p in ps]


def _parts(data: bytes, parts: dict[str, bytes]) -> bytes:
    """``data`` with parts replaced or added."""
    names = dict(parts)
    src = zipfile.ZipFile(io.BytesIO(data))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, names.pop(info.filename, None) or src.read(info))
        for name, blob in names.items():
            dst.writestr(name, blob)
    return buf.getvalue()


# ------------------------------------------------------------------ the model's labels
def test_labels_are_computed_as_word_draws_them():
    assert _labels(SRC)[:7] == [None, "1", "1.1", "1.2", "2", "2.1", None]


# ------------------------------------------------------------------ clause numbering changed without tracking
def test_paragraph_rewritten_without_its_numpr_is_untracked():
    def fn(root):
        ppr = paragraph_with(root, "Insurance cover").find(w("pPr"))
        ppr.remove(ppr.find(w("numPr")))
    _fatal(run_audit(SRC, rewrite(SRC, DOC, fn)), "untracked_change")


def test_level_demoted_is_untracked():
    def fn(root):
        paragraph_with(root, "Insurance cover").find(f"{w('pPr')}/{w('numPr')}/{w('ilvl')}").set(w("val"), "2")
    report = run_audit(SRC, rewrite(SRC, DOC, fn))
    _fatal(report, "untracked_change")
    assert any("1.2" in f.detail and "1.1.1" in f.detail for f in report.findings), report.findings


def test_list_start_value_changed_is_untracked():
    def fn(root):
        next(root.iter(w("start"))).set(w("val"), "4")
    _fatal(run_audit(SRC, rewrite(SRC, NUM, fn)), "untracked_change")


def test_start_override_added_is_untracked():
    def fn(root):
        num = next(root.iter(w("num")))
        num.append(fragment('<w:lvlOverride w:ilvl="0"><w:startOverride w:val="3"/></w:lvlOverride>'))
    _fatal(run_audit(SRC, rewrite(SRC, NUM, fn)), "untracked_change")


def test_level_text_changed_is_untracked():
    def fn(root):
        lvl = next(el for el in root.iter(w("lvl")) if el.get(w("ilvl")) == "1")
        lvl.find(w("lvlText")).set(w("val"), "%1.%2.1")
    _fatal(run_audit(SRC, rewrite(SRC, NUM, fn)), "untracked_change")


def test_authors_tracked_numbering_work_is_clean():
    """A tracked inserted clause renumbers the ones after it; a tracked deletion too; neither is
    an untracked change (the rejected view restores the input's numbers)."""
    edits = [{"op": "insert_after", "anchor": {"paragraph_id": "p-002"}, "new_text": "A new numbered clause."},
             {"op": "delete", "anchor": {"paragraph_id": "p-006", "text": "Any dispute"}}]
    out = engine(SRC, lambda d: d.apply_edits(edits, author=AUTHOR))
    assert not [f for f in run_audit(SRC, out).findings if "clause number" in f.detail]


def test_their_inserted_clause_rejected_renumbers_cleanly():
    """Rejecting another author's tracked paragraph insertion is untracked by nature: the clauses
    after it renumber, which is no finding."""
    src = engine(SRC, lambda d: d.apply_edits(
        [{"op": "insert_after", "anchor": {"paragraph_id": "p-002"}, "new_text": "Their new clause."}],
        author=OTHER))
    out = engine(src, lambda d: d.reject(author=OTHER))
    assert not [f for f in run_audit(src, out).findings if "clause number" in f.detail]


def test_python_docx_round_trip_keeps_labels():
    assert not run_audit(SRC, python_docx_roundtrip(SRC)).findings


# ------------------------------------------------------------------ text a reader cannot read
def _coloured(theme: str) -> bytes:
    def fn(root):
        run = paragraph_with(root, "third-party claims").find(w("r"))
        run.insert(0, fragment(f'<w:rPr><w:color w:val="4472C4" w:themeColor="{theme}"/></w:rPr>'))
    return rewrite(SRC, DOC, fn)


def test_theme_colour_remapped_in_the_theme_is_hidden_text():
    src = _coloured("accent1")
    a = "http://schemas.openxmlformats.org/drawingml/2006/main"

    def fn(root):
        next(root.iter(f"{{{a}}}accent1"))[0].set("val", "FFFFFF")
    _fatal(run_audit(src, rewrite(src, "word/theme/theme1.xml", fn)), "hidden_text")


def test_colour_scheme_mapping_remapped_is_hidden_text():
    src = _coloured("text1")

    def fn(root):
        root.append(fragment('<w:clrSchemeMapping w:bg1="light1" w:t1="light1" w:bg2="light2" w:t2="dark2"/>'))
    _fatal(run_audit(src, rewrite(src, "word/settings.xml", fn)), "hidden_text")


def _black(text: str) -> bytes:
    def fn(root):
        for run in paragraph_with(root, text).iter(w("r")):
            run.insert(0, fragment('<w:rPr><w:color w:val="000000"/></w:rPr>'))
    return rewrite(SRC, DOC, fn)


def test_black_text_on_black_paragraph_shading_is_hidden_text():
    src = _black("third-party claims")

    def fn(root):
        p = paragraph_with(root, "third-party claims")
        p.insert(0, fragment('<w:pPr><w:shd w:val="clear" w:color="auto" w:fill="000000"/></w:pPr>'))
    _fatal(run_audit(src, rewrite(src, DOC, fn)), "hidden_text")


def test_black_text_on_black_cell_shading_is_hidden_text():
    src = _black("USD 100")

    def fn(root):
        tc = paragraph_with(root, "USD 100").getparent()
        tc.find(w("tcPr")).append(fragment('<w:shd w:val="clear" w:color="auto" w:fill="000000"/>'))
    _fatal(run_audit(src, rewrite(src, DOC, fn)), "hidden_text")


def test_frame_off_the_page_is_hidden_text():
    def fn(root):
        p = paragraph_with(root, "third-party claims")
        p.insert(0, fragment('<w:pPr><w:framePr w:w="2000" w:h="200" w:hAnchor="page" w:vAnchor="page" '
                             'w:x="30000" w:y="200"/></w:pPr>'))
    _fatal(run_audit(SRC, rewrite(SRC, DOC, fn)), "hidden_text")


def test_fit_text_squeeze_is_hidden_text():
    def fn(root):
        run = paragraph_with(root, "third-party claims").find(w("r"))
        run.insert(0, fragment('<w:rPr><w:fitText w:val="200" w:id="7"/></w:rPr>'))
    _fatal(run_audit(SRC, rewrite(SRC, DOC, fn)), "hidden_text")


def test_cell_text_under_a_vertical_merge_is_hidden_text():
    def fn(root):
        fee = paragraph_with(root, "Fee").getparent()
        fee.find(w("tcPr")).append(fragment('<w:vMerge w:val="restart"/>'))
        cell = paragraph_with(root, "USD 100").getparent()
        cell.find(w("tcPr")).append(fragment("<w:vMerge/>"))
    _fatal(run_audit(SRC, rewrite(SRC, DOC, fn)), "hidden_text")


def test_header_style_made_one_point_is_hidden_text():
    def fn(root):
        style = next(el for el in root.iter(w("style")) if el.get(w("styleId")) == "Header")
        style.append(fragment('<w:rPr><w:sz w:val="2"/></w:rPr>'))
    report = run_audit(SRC, rewrite(SRC, "word/styles.xml", fn))
    _fatal(report, "hidden_text")
    assert any(f.paragraph_id and "header" in f.paragraph_id for f in report.findings), report.findings


def test_a_run_switched_to_a_symbol_font_is_hidden_text_and_untracked_formatting():
    def fn(root):
        run = paragraph_with(root, "third-party claims").find(w("r"))
        run.insert(0, fragment('<w:rPr><w:rFonts w:ascii="Wingdings" w:hAnsi="Wingdings"/></w:rPr>'))
    report = run_audit(SRC, rewrite(SRC, DOC, fn))
    _fatal(report, "hidden_text")
    assert "untracked_formatting" in kinds(report), report.findings


def test_authors_new_paragraph_in_a_frame_off_the_page_is_hidden_text():
    out = engine(SRC, lambda d: d.apply_edits(
        [{"op": "insert_after", "anchor": {"paragraph_id": "p-007"}, "new_text": "The Customer waives all claims."}],
        author=AUTHOR))

    def fn(root):
        p = paragraph_with(root, "waives all claims")
        if p.find(w("pPr")) is None:
            p.insert(0, fragment("<w:pPr/>"))
        p.find(w("pPr")).insert(0, fragment('<w:framePr w:w="2000" w:h="200" w:hAnchor="page" w:vAnchor="page" '
                                             'w:x="30000" w:y="200"/>'))
    report = run_audit(SRC, rewrite(out, DOC, fn))
    _fatal(report, "hidden_text")
    assert any("inserted text hidden" in f.detail for f in report.findings), report.findings


def test_shading_that_leaves_text_readable_is_clean():
    def fn(root):
        p = paragraph_with(root, "third-party claims")
        p.insert(0, fragment('<w:pPr><w:shd w:val="clear" w:color="auto" w:fill="D9D9D9"/></w:pPr>'))
    assert "hidden_text" not in kinds(run_audit(SRC, rewrite(SRC, DOC, fn)))


# ------------------------------------------------------------------ content shown differently from the XML's text
_STORE = "{6C1F7A3E-0000-4000-8000-000000000001}"


def _bound(value: str) -> bytes:
    item = f'<?xml version="1.0" encoding="UTF-8"?><deal xmlns="urn:deal"><cap>{value}</cap></deal>'.encode()
    props = (f'<?xml version="1.0" encoding="UTF-8"?><ds:datastoreItem ds:itemID="{_STORE}" '
             'xmlns:ds="http://schemas.openxmlformats.org/officeDocument/2006/customXml"/>').encode()
    return item, props


def _bound_contract() -> bytes:
    def fn(root):
        p = paragraph_with(root, "third-party claims")
        p.append(fragment(
            '<w:sdt><w:sdtPr><w:dataBinding w:prefixMappings="xmlns:d=\'urn:deal\'" w:xpath="/d:deal[1]/d:cap[1]" '
            f'w:storeItemID="{_STORE}"/></w:sdtPr><w:sdtContent><w:r><w:t xml:space="preserve"> Cap: USD 1,000,000'
            '</w:t></w:r></w:sdtContent></w:sdt>'))
    item, props = _bound(" Cap: USD 1,000,000")
    return _parts(rewrite(SRC, DOC, fn), {"customXml/item1.xml": item, "customXml/itemProps1.xml": props})


def test_bound_content_control_value_changed_in_custom_xml_is_untracked():
    src = _bound_contract()
    doc = open_doc(src)
    assert rendering(doc).visible_text(paragraph_with(doc.body, "third-party claims")).endswith(
        "costs. Cap: USD 1,000,000")
    item, _props = _bound(" Cap: USD 1")
    out = _parts(src, {"customXml/item1.xml": item})
    _fatal(run_audit(src, out), "untracked_change")
    assert not run_audit(src, src).findings


def test_paragraph_level_alternate_content_adding_a_clause_is_untracked():
    def fn(root):
        p = paragraph_with(root, "third-party claims")
        p.append(etree.fromstring(
            f'<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
            f'xmlns:w="{W}" xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml">'
            '<mc:Choice Requires="w14"><w:r><w:t xml:space="preserve"> The Customer waives all claims.</w:t></w:r>'
            '</mc:Choice><mc:Fallback/></mc:AlternateContent>'))
    _fatal(run_audit(SRC, rewrite(SRC, DOC, fn)), "untracked_change")


def test_body_level_fallback_shown_for_an_unknown_choice_is_untracked():
    """Word renders the fallback when it does not understand a choice's namespace."""
    def fn(root):
        body = root.find(w("body"))
        body.insert(len(body) - 1, etree.fromstring(
            f'<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
            f'xmlns:w="{W}" xmlns:x9="urn:example:unknown">'
            '<mc:Choice Requires="x9"><w:p/></mc:Choice>'
            '<mc:Fallback><w:p><w:r><w:t>The Customer waives all claims.</w:t></w:r></w:p></mc:Fallback>'
            '</mc:AlternateContent>'))
    _fatal(run_audit(SRC, rewrite(SRC, DOC, fn)), "untracked_change")


# ------------------------------------------------------------------ comments read in their paragraph
def test_their_comment_made_hidden_is_hidden_text():
    def fn(root):
        comment = next(c for c in root.iter(w("comment")) if "Delaware" in "".join(c.itertext()))
        for run in comment.iter(w("r")):
            if run.find(w("t")) is not None:
                run.insert(0, fragment("<w:rPr><w:vanish/></w:rPr>"))
    _fatal(run_audit(SRC, rewrite(SRC, "word/comments.xml", fn)), "hidden_text")


def test_authors_comment_in_a_one_point_comment_style_is_hidden_text():
    out = engine(SRC, lambda d: d.add_comment(paragraph_id="p-007", text="Please confirm the indemnity scope.", author=AUTHOR))

    def fn(root):
        style = next(el for el in root.iter(w("style")) if el.get(w("styleId")) == "CommentText")
        if style.find(w("rPr")) is None:
            style.append(fragment("<w:rPr/>"))
        for old in style.find(w("rPr")).findall(w("sz")):
            style.find(w("rPr")).remove(old)
        style.find(w("rPr")).append(fragment('<w:sz w:val="2"/>'))
    _fatal(run_audit(SRC, rewrite(out, "word/styles.xml", fn)), "hidden_text")


# ------------------------------------------------------------------ the views show what the audit checked
def test_views_show_the_models_labels_and_hidden_marks():
    def fn(root):
        cell = paragraph_with(root, "USD 100").getparent()
        cell.find(w("tcPr")).append(fragment("<w:vMerge/>"))
        paragraph_with(root, "Fee").getparent().find(w("tcPr")).append(fragment('<w:vMerge w:val="restart"/>'))
    doc = open_doc(rewrite(SRC, DOC, fn))
    view = doc.annotated_view()
    line = next(x for x in view.splitlines() if "USD 100" in x)
    assert "{hidden>" in line and "w:vMerge" in line, line
    read = next(x for x in doc.read_view().splitlines() if "USD 100" in x)
    assert read.endswith("hidden from a Word reader: in a cell merged into the one above (w:vMerge)]"), read
    numbers = [p.number for p in doc.paragraphs]
    model = rendering(doc).labels([p.element for p in doc.paragraphs], current=True)
    assert numbers == [model.get(p.element) for p in doc.paragraphs] and "1.2" in numbers


_ANCHORED = ('<w:r><w:drawing><wp:anchor xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/'
             'wordprocessingDrawing" behindDoc="0"><wp:positionH relativeFrom="page"><wp:posOffset>{x}</wp:posOffset>'
             '</wp:positionH><wp:positionV relativeFrom="page"><wp:posOffset>914400</wp:posOffset></wp:positionV>'
             '<wps:wsp xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:txbx>'
             '<w:txbxContent><w:p><w:r><w:t>Cap: USD 1,000,000.</w:t></w:r></w:p></w:txbxContent></wps:txbx>'
             '</wps:wsp></wp:anchor></w:drawing></w:r>')


def test_shape_moved_off_the_page_is_hidden_text():
    def place(x: int):
        def fn(root):
            paragraph_with(root, "third-party claims").append(fragment(_ANCHORED.format(x=x)))
        return fn
    src = rewrite(SRC, DOC, place(914400))
    assert not run_audit(src, src).findings
    _fatal(run_audit(src, rewrite(SRC, DOC, place(91440000))), "hidden_text")
