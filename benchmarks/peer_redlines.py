"""Redlines written by the peer engines on PyPI, for the integrity audit's false-positive check (issue 29).

The audit must find nothing in an honest redline, whoever wrote it. This script makes honest redlines of the
embedded contracts with three peer engines (docx-redline, jubarte-redlines, adeu: installed in a separate
Python 3.12+ venv, never a dependency of ours), one input per scenario x turn, each with a tracked replacement,
a deletion, an insertion and a comment by the task's author, in paragraphs the other side has not touched.
``tests/docx/test_integrity_peers.py`` audits what it wrote (the outputs are kept under
``tests/fixtures/peers/``, so CI needs no peer engine).

    /tmp/peers/bin/python benchmarks/peer_redlines.py --out tests/fixtures/peers

Run with the peers' interpreter (``python -m venv /tmp/peers && /tmp/peers/bin/pip install docx-redline
jubarte-redlines adeu``); it reads the embedded task tree from this checkout without importing the package.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import sys
import tomllib
from pathlib import Path

from lxml import etree

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "redlinebench" / "_data" / "benchmark" / "tasks"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_WORD = re.compile(r"[A-Za-z]{5,}")


def one_task_per_cell() -> list[tuple[str, Path, str]]:
    """(task id, input contract, author) for the first task of each scenario x turn."""
    seen, out = set(), []
    for folder in sorted(TASKS.iterdir()):
        m = re.match(r"redline-s(\d+)-t(\d+)-g\d+a$", folder.name)
        if not m or (m.group(1), m.group(2)) in seen:
            continue
        seen.add((m.group(1), m.group(2)))
        meta = json.loads((folder / "tests" / "rubrics.json").read_text()) if (folder / "tests" / "rubrics.json").is_file() \
            else tomllib.loads((folder / "task.toml").read_text()).get("metadata", {})
        out.append((folder.name, folder / "environment" / "app" / "contract.docx", meta["author"]))
    return out


def paragraph_texts(docx: Path) -> tuple[list[str], list[str]]:
    """(texts of every paragraph of the body, tables included; texts of the body paragraphs that carry no
    revision, comment or field: the peers' edits land only there)."""
    import zipfile

    with zipfile.ZipFile(docx) as z:
        root = etree.fromstring(z.read("word/document.xml"))
    every, out = [], []
    for p in root.iter(W + "p"):
        every.append("".join(t.text or "" for t in p.iter(W + "t", W + "delText")))
        if p.xpath(".//*[local-name()='ins' or local-name()='del' or local-name()='commentRangeStart' "
                   "or local-name()='fldChar' or local-name()='fldSimple' or local-name()='hyperlink' "
                   "or local-name()='sdt' or local-name()='moveFrom' or local-name()='moveTo']"):
            continue
        if p.getparent() is not None and p.getparent().tag != W + "body":
            continue
        text = "".join(t.text or "" for t in p.iter(W + "t"))
        if len(_WORD.findall(text)) >= 6 and "\t" not in text:
            out.append(text)
    return every, out


def _unique_word(text: str, every: list[str], skip: int = 0) -> str | None:
    """A word that occurs once in the whole document (so any engine's search finds exactly it)."""
    words = [w for w in _WORD.findall(text) if sum(p.count(w) for p in every) == 1]
    return words[skip] if len(words) > skip else None


def plan(docx: Path) -> dict | None:
    every, paras = paragraph_texts(docx)
    # spread over the contract: the first usable paragraph after the top, one near the middle, one near the end
    usable = [t for t in paras if _unique_word(t, every, 2)]
    if len(usable) < 3:
        return None
    a, b, c = usable[min(1, len(usable) - 3)], usable[len(usable) // 2], usable[-1]
    rw, dw, iw = _unique_word(a, every, 1), _unique_word(b, every, 2), _unique_word(c, every, 0)
    return {"replace": (a, rw, "materially revised"), "delete": (b, dw), "insert": (c, iw, " (as amended)"),
            "comment": (a, "We propose this change to align with the agreed commercial terms.")}


def with_docx_redline(src: Path, dst: Path, author: str, p: dict) -> None:
    from docx_redline import Redliner

    rl = Redliner(src, author=author)
    assert rl.replace_text(p["replace"][1], p["replace"][2]) == 1
    assert rl.delete_matching(p["delete"][1]) == 1
    assert rl.insert_text_after(p["insert"][1], p["insert"][2]) == 1
    para = rl.find_paragraph(contains=p["replace"][2])
    rl.add_comment(para, p["comment"][1])
    rl.save(dst)


def with_jubarte(src: Path, dst: Path, author: str, p: dict) -> None:
    from jubarte_redlines import Document
    from jubarte_redlines.models import EditPlan

    doc = Document.read(src)
    ed = (EditPlan(author=author, existing_revisions="keep")
          .replace({"contains": p["replace"][1]}, find=p["replace"][1], replacement=p["replace"][2],
                   comment=p["comment"][1])
          .delete({"contains": p["delete"][1]}, find=p["delete"][1])
          .insert({"contains": p["insert"][1]}, text=p["insert"][2], after=p["insert"][1]))
    dst.write_bytes(doc.edit(ed).redline.to_bytes())


def with_adeu(src: Path, dst: Path, author: str, p: dict) -> None:
    from adeu.models import ModifyText
    from adeu.redline.engine import RedlineEngine

    eng = RedlineEngine(io.BytesIO(src.read_bytes()), author=author)
    r, d, i = p["replace"], p["delete"], p["insert"]
    eng.process_batch([ModifyText(target_text=r[1], new_text=r[2], comment=p["comment"][1]),
                       ModifyText(target_text=d[1], new_text=""),
                       ModifyText(target_text=i[1], new_text=i[1] + i[2])])
    dst.write_bytes(eng.save_to_stream().getvalue())


ENGINES = {"docx-redline": with_docx_redline, "jubarte": with_jubarte, "adeu": with_adeu}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    manifest, failures = [], []
    for task_id, contract, author in one_task_per_cell():
        p = plan(contract)
        if p is None:
            failures.append(f"{task_id}: no three plain paragraphs to edit")
            continue
        for engine, write in ENGINES.items():
            dst = args.out / f"{engine}--{task_id}.docx"
            try:
                write(contract, dst, author, p)
            except Exception as exc:   # a peer's refusal is reported, not fatal: the others still count
                failures.append(f"{engine} {task_id}: {type(exc).__name__}: {str(exc)[:160]}")
                dst.unlink(missing_ok=True)
                continue
            manifest.append({"engine": engine, "task_id": task_id, "author": author, "file": dst.name})
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest)} redlines by {len(ENGINES)} engines in {args.out}")
    for f in failures:
        print("  not written:", f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
