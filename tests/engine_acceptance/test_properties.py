"""Invariants over generated contracts and random edit batches (hypothesis).

For every batch of valid edits: every edit succeeds; reject-all of the output gives the input's
original text exactly; accept-all gives the intended text (the edits applied to the plain
current text, by a model written here independently of the engine); paragraphs no edit touched
keep their XML (text and formatting) byte for byte; the output validates.

The model encodes the engine's documented spacing rules: a delete also takes one adjacent space
so no double space (or space before punctuation) is left, a delete of a whole paragraph removes
its paragraph mark (it disappears on accept) unless it is the last one, and ``insert_after``
with a leading newline at the end of a paragraph adds a new paragraph right after it (before
paragraphs an earlier edit inserted there).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

# The engine's spacing rule for inline insertions is part of the intended text, not under test here.
from redlinebench.docx.edits import _smart_space
from redlinebench.docx import RedlineDocument
from redlinebench.docx.build import Comment, Del, DocumentBuilder, Hyperlink, Ins, Run
from redlinebench.docx.validate import errors_only, validate_package
from tests.engine_acceptance.cases import DATE
from tests.fixtures.corpus import THEM, US

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# No word is a substring of another, so a phrase of whole words matches only at word boundaries.
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo",
         "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango")

chunk = st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
                  st.sampled_from(["plain", "bold", "italic", "under", "ins", "del", "link", "comment", "tab"]))
paragraph = st.tuples(st.lists(chunk, min_size=1, max_size=5), st.sampled_from([None, 0, 1, 2, 3]))
contract = st.lists(paragraph, min_size=1, max_size=8)


@dataclass
class ParaModel:
    current: str
    original: str
    removed: bool = False
    touched: bool = False
    after: list[str] = field(default_factory=list)


def build(spec) -> tuple[bytes, list[ParaModel]]:
    b = DocumentBuilder(title="Generated")
    models = []
    for chunks, level in spec:
        content = []
        current, original = [], []
        for n, (words, style) in enumerate(chunks):
            last = n == len(chunks) - 1
            text = " ".join(words) + ("." if last else "\t" if style == "tab" else " ")
            if style == "link":
                content.append(Hyperlink(Run(text), "https://example.com/" + words[0]))
                current.append(text)
                original.append(text)
            elif style == "comment":
                content.append(Comment(Run(text, bold=True), f"Note on {words[0]}", THEM))
                current.append(text)
                original.append(text)
            elif style == "ins":
                content.append(Ins(text, THEM))
                current.append(text)
            elif style == "del":
                content.append(Del(text, THEM))
                original.append(text)
            else:
                content.append(Run(text, bold=style == "bold", italic=style == "italic", underline=style == "under"))
                current.append(text)
                original.append(text)
        if level is None:
            b.paragraph(content)
        else:
            b.clause(content, level)
        models.append(ParaModel("".join(current), "".join(original)))
    return b.to_bytes(), models




def _spans(text: str, anchor: str) -> list[tuple[int, int]]:
    """Where ``anchor`` (words joined by single spaces) occurs in raw ``text``, any whitespace between words."""
    pattern = r"\s+".join(re.escape(w) for w in anchor.split(" "))
    return [(m.start(1), m.end(1)) for m in re.finditer(f"(?=({pattern}))", text)]  # overlapping matches too


def draw_edits(data, models: list[ParaModel]) -> list[tuple[int, dict]]:
    """Edits anchored on a unique phrase of a live paragraph, applied to the model as drawn."""
    edits = []
    for _ in range(data.draw(st.integers(1, 6), label="n_edits")):
        live = [i for i, m in enumerate(models) if not m.removed and m.current.rstrip(".").split()]
        if not live:
            break
        i = data.draw(st.sampled_from(live), label="paragraph")
        m = models[i]
        words = m.current.rstrip(".").split()
        a = data.draw(st.integers(0, len(words) - 1), label="start")
        z = data.draw(st.integers(a + 1, min(len(words), a + 3)), label="end")
        anchor = " ".join(words[a:z])
        spans = _spans(m.current, anchor)
        if len(spans) != 1:
            continue
        s, e = spans[0]
        op = data.draw(st.sampled_from(["replace", "delete", "insert_after", "new_paragraph"]), label="op")
        new_words = " ".join(data.draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), label="new"))
        t = m.current
        if op == "replace":
            if new_words == anchor:
                new_words += " zulu"
            edit = {"op": "replace", "new_text": new_words}
            m.current = t[:s] + new_words + t[e:]
        elif op == "delete":
            edit = {"op": "delete"}
            if e < len(t) and t[e] == " " and (s == 0 or t[s - 1] == " "):
                e += 1
            elif s > 0 and t[s - 1] == " " and (e == len(t) or t[e] in ".,;:)]"):
                s -= 1
            whole = not t[:s].strip() and not t[e:].strip()
            m.current = t[:s] + t[e:]
            if whole and i != len(models) - 1:
                m.removed = True
        elif op == "insert_after":
            edit = {"op": "insert_after", "new_text": " " + new_words}
            at_end = not t[e:].strip()
            if at_end and not t[:s].strip():
                m.after.insert(0, new_words)  # the anchor is the whole paragraph: a new paragraph right after it
            else:
                m.current = t[:e] + _smart_space(t, e, " " + new_words) + t[e:]
        else:
            edit = {"op": "insert_after", "new_text": "\n" + new_words}
            if not t[e:].strip():
                m.after.insert(0, new_words)
            else:
                m.current = t[:e] + _smart_space(t, e, new_words) + t[e:]
        m.touched = True
        edit["anchor"] = {"text": anchor}
        edit["comment"] = f"edit {len(edits) + 1}"
        edits.append((i, edit))
    return edits


def _paragraph_xml(data: bytes) -> list[bytes]:
    root = etree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml"))
    return [etree.tostring(p, method="c14n") for p in root.iter(f"{W}p")]


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(spec=contract, data=st.data())
def test_random_batches_keep_the_invariants(spec, data):
    source, models = build(spec)
    doc = RedlineDocument.open(source)
    ids = [p.id for p in doc.paragraphs]
    assert len(ids) == len(models)
    original_before = doc.text("original")
    current_before = doc.text("current")
    accepted_before = doc.text("accepted")
    edits = draw_edits(data, models)
    batch = []
    for index, edit in edits:
        edit["anchor"]["paragraph_id"] = ids[index]
        batch.append(edit)
    results = doc.apply_edits(batch, author=US, date=DATE)
    assert [r["status"] for r in results] == ["ok"] * len(batch), (batch, results)

    out = doc.to_bytes()
    assert errors_only(validate_package(out)) == []
    after = RedlineDocument.open(out)
    assert after.text("original") == original_before

    intended: list[str] = []
    for m in models:
        if not m.removed:
            intended.append(m.current)
        intended.extend(m.after)
    # A replace keeps the document's own whitespace between unchanged words (a tab stays a tab
    # where the model, writing the new text, has a space): compare with tabs read as spaces.
    intended = [line.replace("\t", " ") for line in intended]
    assert after.text("accepted").replace("\t", " ").split("\n") == intended

    accepted = RedlineDocument.open(out)
    accepted.accept()
    assert RedlineDocument.open(accepted.to_bytes()).text("current").replace("\t", " ").split("\n") == intended
    rejected = RedlineDocument.open(out)
    rejected.reject()
    assert RedlineDocument.open(rejected.to_bytes()).text("current") == original_before
    # rejecting only our changes gives back the input exactly, the other side's still pending
    ours_rejected = RedlineDocument.open(out)
    ours_rejected.reject(author=US)
    back = RedlineDocument.open(ours_rejected.to_bytes())
    assert (back.text("current"), back.text("accepted"), back.text("original")) == \
        (current_before, accepted_before, original_before)
    assert not [r for r in back.revisions if r.author == US]

    # untouched paragraphs: same XML, in the same order
    before_xml = _paragraph_xml(source)
    after_xml = _paragraph_xml(out)
    untouched = [x for m, x in zip(models, before_xml) if not m.touched]
    remaining = iter(after_xml)
    assert all(any(x == y for y in remaining) for x in untouched), "an untouched paragraph changed or moved"


@settings(max_examples=25, deadline=None, derandomize=True)
@given(spec=contract)
def test_reading_generated_contracts(spec):
    source, models = build(spec)
    doc = RedlineDocument.open(source)
    assert [p.text for p in doc.paragraphs] == [m.current for m in models]
    assert doc.text("original").split("\n") == [m.original for m in models]
    authors = {r.author for r in doc.revisions}
    assert authors <= {THEM}
    view = doc.read_view()
    assert all(f"[{p.id}]" in view for p in doc.paragraphs)
