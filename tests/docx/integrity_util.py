"""Shared helpers for the integrity audit's tests: a small contract with another author's pending
work, and the ways an agent writing the .docx itself would change it."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

from lxml import etree

from redlinebench.docx import RedlineDocument
from redlinebench.docx.build import Comment, Del, DocumentBuilder, Ins, Reply, Run
from redlinebench.docx.integrity import audit

AUTHOR = "Reviewing Counsel (AgentCo Legal)"
OTHER = "Opposing Counsel (LargeCo Legal)"
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NSW = {"w": W}


def base_contract() -> bytes:
    b = DocumentBuilder(title="Master Services Agreement", creator="LargeCo Legal")
    b.title("MASTER SERVICES AGREEMENT")
    b.clause("The Supplier's aggregate liability is capped at the fees paid in the twelve (12) months "
             "before the claim.")
    b.clause(["The Customer shall pay ", Del("thirty (30)", OTHER), Ins("sixty (60)", OTHER),
              " days after receipt of a valid invoice."], level=1)
    b.clause(["Insurance cover of ", Ins("USD 3,000,000", OTHER), " shall be maintained."], level=1)
    b.clause(["This Agreement is governed by the laws of ",
              Comment("New York", "We need Delaware law here.", OTHER,
                      replies=[Reply("Open to discuss.", OTHER)]), "."])
    b.clause(["Any dispute shall be finally resolved by arbitration, and the Arbitrator's judgment ",
              Run("may be entered", bold=True), " in any court."], level=1)
    b.paragraph("The Supplier indemnifies the Customer against third-party claims arising from its breach of "
                "this Agreement, including reasonable legal fees and costs.")
    b.table([["Service", "Fee"], ["Hosting", "USD 100"]], header=True)
    b.header("Confidential - Draft")
    return b.to_bytes()


def open_doc(data: bytes) -> RedlineDocument:
    return RedlineDocument.open(data)


def run_audit(original: bytes, output: bytes, author: str = AUTHOR):
    return audit(open_doc(original), open_doc(output), author)


def kinds(report) -> set[str]:
    return {f.kind for f in report.findings}


def engine(data: bytes, fn: Callable[[RedlineDocument], object]) -> bytes:
    doc = open_doc(data)
    fn(doc)
    return doc.to_bytes()


def rewrite(data: bytes, part: str, fn: Callable[[etree._Element], object]) -> bytes:
    """Apply ``fn`` to one XML part of the package (what python-docx or a script does)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            blob = src.read(info)
            if info.filename == part:
                root = etree.fromstring(blob)
                fn(root)
                blob = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
            dst.writestr(info.filename, blob)
    return buf.getvalue()


def replace_text(old: str, new: str, part: str = "word/document.xml"):
    """Replace text inside one w:t (or w:delText) without tracking, in ``part``."""
    def fn(root):
        for t in root.iter(f"{{{W}}}t", f"{{{W}}}delText"):
            if t.text and old in t.text:
                t.text = t.text.replace(old, new)
                return
        raise AssertionError(f"{old!r} not found")
    return fn


def set_attr(tag: str, attr: str, value: str, part_filter: Callable[[etree._Element], bool] = lambda e: True):
    def fn(root):
        for el in root.iter(f"{{{W}}}{tag}"):
            if part_filter(el):
                el.set(f"{{{W}}}{attr}", value)
                return
        raise AssertionError(f"no {tag}")
    return fn


def python_docx_roundtrip(data: bytes) -> bytes:
    import docx

    buf = io.BytesIO()
    docx.Document(io.BytesIO(data)).save(buf)
    return buf.getvalue()


def fragment(xml: str) -> etree._Element:
    return etree.fromstring(f'<w:root xmlns:w="{W}">{xml}</w:root>')[0]


def paragraph_with(root, text: str):
    for p in root.iter(f"{{{W}}}p"):
        if text in "".join(p.itertext()):
            return p
    raise AssertionError(f"no paragraph with {text!r}")


def append_xml(text: str, xml: str):
    """Append raw XML (a run, an ins...) at the end of the paragraph holding ``text``."""
    def fn(root):
        paragraph_with(root, text).append(fragment(xml))
    return fn


def ins_xml(text: str, author: str = AUTHOR, rpr: str = "", date: str = "2026-03-01T10:00:00Z", rid: int = 9001) -> str:
    return (f'<w:ins w:id="{rid}" w:author="{author}" w:date="{date}"><w:r>{("<w:rPr>" + rpr + "</w:rPr>") if rpr else ""}'
            f'<w:t xml:space="preserve">{text}</w:t></w:r></w:ins>')
