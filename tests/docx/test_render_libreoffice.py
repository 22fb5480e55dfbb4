"""The rendering model against a real renderer: LibreOffice draws generated documents to PDF and
``pdftotext`` reads the page; the model's visible text and clause labels must be what the page
shows, paragraph by paragraph.

Left out of the comparison, where LibreOffice or the PDF text layer differ from a Word reader:
- text hidden by colour, size, scale, spacing or position: the PDF's text layer keeps glyphs
  painted in the background colour or at 1 pt, so ``pdftotext`` reads what no eye does;
- theme colours: ECMA-376 Part 1 §17.3.2.6 (``w:color/@w:themeColor`` overrides ``w:val``, resolved
  through the theme and ``w:clrSchemeMapping`` §17.15.1.20); LibreOffice 7.4 reads ``w:val`` only;
- ``w:fitText`` (§17.3.2.14): LibreOffice does not squeeze the run to the given width;
- a frame placed off the page (``w:framePr/@w:x``, ``@w:y``: absolute positions from the anchor,
  §17.3.1.11): LibreOffice 7.4 pulls the frame back onto the page and draws its text, Word does not.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from redlinebench.docx.build import DocumentBuilder
from redlinebench.docx.render import rendering

from .integrity_util import fragment, open_doc, paragraph_with, rewrite, w


def _document() -> bytes:
    b = DocumentBuilder(title="Render check", creator="Tests")
    b.title("RENDER CHECK")
    b.clause("Definitions apply.")
    b.clause("Fees are payable monthly.", level=1)
    b.clause("Late fees accrue.", level=1)
    b.clause("Term and termination.")
    b.clause("Either party may terminate.", level=1)
    b.clause("Notices are written.", level=2)
    b.paragraph("Restarted list item.")
    b.paragraph("Shaded paragraph reads normally.")
    b.paragraph("Visible words and hidden words end.")
    b.paragraph("Controlled text here.")
    b.paragraph("See clause reference.")
    b.table([["Alpha", "Beta"], ["Gamma", "Delta"]], header=False)
    b.paragraph("After the table.")
    b.paragraph("Styled secret words.")
    data = b.to_bytes()

    def body(root):
        restarted = paragraph_with(root, "Restarted list")
        restarted.insert(0, fragment('<w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="2"/></w:numPr></w:pPr>'))
        shaded = paragraph_with(root, "Shaded paragraph")
        shaded.insert(0, fragment('<w:pPr><w:shd w:val="clear" w:color="auto" w:fill="D9D9D9"/></w:pPr>'))
        p = paragraph_with(root, "hidden words")
        p.find(w("r")).find(w("t")).text = "Visible words"
        p.append(fragment('<w:r><w:rPr><w:vanish/></w:rPr><w:t xml:space="preserve"> and hidden words</w:t></w:r>'))
        p.append(fragment('<w:r><w:t xml:space="preserve"> end.</w:t></w:r>'))
        p = paragraph_with(root, "Controlled text")
        p.remove(p.find(w("r")))
        p.append(fragment('<w:sdt><w:sdtPr><w:alias w:val="Name"/></w:sdtPr><w:sdtContent><w:r><w:t>Controlled '
                          'text here.</w:t></w:r></w:sdtContent></w:sdt>'))
        p = paragraph_with(root, "See clause")
        p.find(w("r")).find(w("t")).text = "See clause"
        p.append(fragment('<w:r><w:t xml:space="preserve"> </w:t></w:r>'))
        p.append(fragment('<w:fldSimple w:instr=" QUOTE &quot;7&quot; "><w:r><w:t>7</w:t></w:r></w:fldSimple>'))
        p.append(fragment('<w:r><w:t xml:space="preserve"> now.</w:t></w:r>'))
        top = paragraph_with(root, "Beta").getparent()
        top.find(w("tcPr")).append(fragment('<w:vMerge w:val="restart"/>'))
        below = paragraph_with(root, "Delta").getparent()
        below.find(w("tcPr")).append(fragment("<w:vMerge/>"))

    def styled(root):
        root.append(fragment('<w:style w:type="paragraph" w:styleId="Secret"><w:name w:val="Secret"/>'
                             '<w:basedOn w:val="Normal"/><w:rPr><w:vanish/></w:rPr></w:style>'))

    def secret(root):
        paragraph_with(root, "Styled secret").insert(0, fragment('<w:pPr><w:pStyle w:val="Secret"/></w:pPr>'))

    def numbering(root):
        root.append(fragment('<w:num w:numId="2"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0">'
                             '<w:startOverride w:val="5"/></w:lvlOverride></w:num>'))
    data = rewrite(rewrite(data, "word/document.xml", body), "word/numbering.xml", numbering)
    return rewrite(rewrite(data, "word/styles.xml", styled), "word/document.xml", secret)


def _pdf_text(soffice: str, data: bytes, work: Path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed")
    src = work / "render.docx"
    src.write_bytes(data)
    profile = Path(tempfile.mkdtemp(prefix="rb-lo-profile-"))
    try:
        subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
                        "--convert-to", "pdf", "--outdir", str(work), str(src)],
                       check=True, timeout=300, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return subprocess.run(["pdftotext", str(work / "render.pdf"), "-"], check=True, capture_output=True,
                          text=True).stdout


def _squash(text: str) -> str:
    """Whitespace and full stops out: the PDF breaks a label from its text with a tab and writes the
    level text's own full stop ("1."), which the label leaves out."""
    return re.sub(r"[\s.]", "", text)


@pytest.mark.libreoffice
def test_model_text_and_labels_are_what_libreoffice_draws(soffice, tmp_path):
    data = _document()
    doc = open_doc(data)
    model = rendering(doc)
    paragraphs = list(doc.body.iter(w("p")))
    labels = model.labels(paragraphs, current=True)
    expected = []
    for p in paragraphs:
        text = model.visible_text(p)
        label = labels.get(p)
        if text.strip() or label:
            expected.append(_squash((label or "") + text))
    page = _squash(_pdf_text(soffice, data, tmp_path))
    # the model's reading of the constructs under test
    assert "2.1.1" in {labels.get(p) for p in paragraphs} and "5" in {labels.get(p) for p in paragraphs}
    assert "Delta" not in "".join(expected) and "hiddenwords" not in "".join(expected)
    assert "Styledsecretwords" not in "".join(expected)
    # paragraph by paragraph: each is on the page, in order where the page keeps the order, and the
    # page holds nothing else (a table's merged cell may be drawn after the table's other text)
    rest = page
    for item in expected:
        assert item in page, (item, page)
        rest = rest.replace(item, "", 1)
    assert rest == "", (rest, expected)
