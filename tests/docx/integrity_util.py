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


def w(tag: str) -> str:
    """A WordprocessingML tag in Clark notation (``w("p")``), for lxml finds in the tests."""
    return f"{{{W}}}{tag}"
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
    from xml.sax.saxutils import escape, quoteattr

    text = escape(text)
    return (f'<w:ins w:id="{rid}" w:author={quoteattr(author)} w:date="{date}"><w:r>{("<w:rPr>" + rpr + "</w:rPr>") if rpr else ""}'
            f'<w:t xml:space="preserve">{text}</w:t></w:r></w:ins>')


# ------------------------------------------------------------------ corpora (tests and benchmarks/integrity.py)
def scripted_session(data: bytes, author: str) -> bytes:
    """The engine's five tools driven as an agent would: an edit on the first clause with two
    words, a reply to the first comment, a comment, a reserved paragraph, end_session."""
    import tempfile
    from datetime import datetime, timezone
    from pathlib import Path

    from redlinebench.tools import ToolSession

    doc = open_doc(data)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "redline.docx"
        session = ToolSession(doc, author, output_path=out, date=datetime(2026, 3, 1, tzinfo=timezone.utc))
        session.dispatch("read_document", {})
        texts = [(pid, text) for pid, text in doc.paragraph_texts() if len(text.split()) >= 4]
        pid, text = texts[len(texts) // 2]
        session.dispatch("propose_edits", {"edits": [
            {"op": "replace", "anchor": {"paragraph_id": pid, "text": text.split()[1]}, "new_text": "amended",
             "comment": "Aligned with our position."},
            {"op": "insert_after", "anchor": {"paragraph_id": pid}, "new_text": "The parties shall cooperate.",
             "comment": "Added."}]})
        if doc.comments:
            session.dispatch("add_comment", {"reply_to": doc.comments[0].id, "text": "Accepted."})
        session.dispatch("add_comment", {"paragraph_id": texts[0][0], "text": "Please confirm."})
        session.dispatch("mark_reserved", {"start_id": texts[-1][0], "end_id": texts[-1][0], "comment": "Removed."})
        session.dispatch("end_session", {"summary": "done"})
        return out.read_bytes()


def legitimate_corpus(tasks=None, *, per_task: int = 99):
    """(name, input bytes, legitimate output bytes, author) over the shipped tasks: the golden
    (as the golden baseline submits it), every judge-check document, the accept-all baseline's
    output, the unchanged input (noop) and a scripted session of the engine's tools; plus engine
    outputs on the small test contract."""
    import asyncio
    import tempfile
    from pathlib import Path

    from redlinebench.agent.baselines import AcceptAllAgent, golden_output
    from redlinebench.tasks import load_tasks

    out = []
    for task in tasks if tasks is not None else load_tasks("embedded"):
        src = Path(task.contract_path).read_bytes()
        items = [("noop", src), ("scripted", scripted_session(src, task.author))]
        if task.golden_path is not None:
            items.append(("golden", golden_output(task)[0]))
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(AcceptAllAgent().run(task, Path(tmp), trial=1))
            items.append(("accept-all", (Path(tmp) / "redline.docx").read_bytes()))
        check = Path(task.contract_path).parents[2] / "tests" / "judge_check"
        for path in sorted(check.glob("*.docx")) if check.is_dir() else []:
            items.append((f"judge-check {path.stem}", path.read_bytes()))
        out.extend((f"{task.task_id} {name}", src, data, task.author) for name, data in items[:per_task])
    base = base_contract()
    out.append(("small contract scripted", base, scripted_session(base, AUTHOR), AUTHOR))
    return out
