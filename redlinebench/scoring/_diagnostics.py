"""Document diagnostics of SPEC §6 and golden agreement.

Computed from the output document's model (``RedlineDocument``: paragraphs, segments,
revisions, comments), counting only the given author's changes. Reported, never ranked.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any

#: An operation is "inline" when max(deleted, inserted chars) / unchanged chars < this.
INLINE_RATIO = 0.30
_CHANGE_KINDS = {"ins": "ins", "del": "del", "move_to": "ins", "move_from": "del"}
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class _Op:
    paragraph_index: int
    deleted: str
    inserted: str
    unchanged_chars: int

    @property
    def inline(self) -> bool:
        changed = max(len(self.deleted), len(self.inserted))
        if self.unchanged_chars <= 0:
            return False
        return changed / self.unchanged_chars < INLINE_RATIO


def _mine(author: str | None, target: str) -> bool:
    return author is not None and author == target


def _runs(paragraph: Any, author: str) -> list[tuple[str, str]]:
    """The paragraph as (kind, text) runs: "ins"/"del" for the author's changes, "keep" otherwise.

    Consecutive pieces of one kind merge, so a change split across Word runs counts once.
    Other authors' changes are context the author left in place ("keep"), except text another
    author inserted and this author struck, which is this author's deletion.
    """
    out: list[tuple[str, str]] = []
    for seg in paragraph.segments:
        kind = _CHANGE_KINDS.get(seg.kind)
        if kind is not None and _mine(seg.author, author):
            mine = kind
        elif seg.kind in ("del", "move_from"):
            continue  # another author's deletion: not part of the text this author saw as live
        else:
            mine = "keep"
        if out and out[-1][0] == mine:
            out[-1] = (mine, out[-1][1] + seg.text)
        else:
            out.append((mine, seg.text))
    return out


def _operations(doc: Any, author: str) -> list[_Op]:
    ops: list[_Op] = []
    for index, para in enumerate(doc.paragraphs):
        runs = _runs(para, author)
        unchanged = sum(len(text) for kind, text in runs if kind == "keep")
        i = 0
        while i < len(runs):
            kind, text = runs[i]
            if kind == "del":
                nxt = runs[i + 1] if i + 1 < len(runs) else None
                if nxt is not None and nxt[0] == "ins":
                    ops.append(_Op(index, text, nxt[1], unchanged))
                    i += 2
                    continue
                ops.append(_Op(index, text, "", unchanged))
            elif kind == "ins":
                ops.append(_Op(index, "", text, unchanged))
            i += 1
    return ops


def _touched_indices(doc: Any, author: str) -> list[int]:
    """Paragraphs whose text the author changed, or whose paragraph mark / formatting they changed.

    An inserted paragraph mark (``para_ins``) is left out: Word records a new paragraph as an
    inserted mark on the paragraph before it, and the new paragraph itself is already counted.
    """
    touched: set[int] = set()
    by_id = {p.id: i for i, p in enumerate(doc.paragraphs)}
    for rev in doc.revisions:
        if _mine(rev.author, author) and rev.paragraph_id in by_id and rev.type not in ("para_ins", "ins", "del",
                                                                                        "move_from", "move_to"):
            touched.add(by_id[rev.paragraph_id])
    for i, para in enumerate(doc.paragraphs):
        if any(_mine(s.author, author) and s.kind != "text" for s in para.segments):
            touched.add(i)
    return sorted(touched)


def _clusters(indices: list[int]) -> int:
    count, prev = 0, None
    for i in indices:
        if prev is None or i != prev + 1:
            count += 1
        prev = i
    return count


def no_document_diagnostics() -> dict[str, Any]:
    """The diagnostics of an output that does not exist or does not open: no work at all (SPEC §6
    puts these fields in every grade's ``score``)."""
    return {"redlines": 0, "edit_operations": 0, "total_revisions": 0, "touched_paragraphs": 0,
            "comments_added": 0, "median_insertion_chars": 0.0, "inline_operations": 0, "block_operations": 0,
            "surgicalness_score": None}


def document_diagnostics(doc: Any, author: str) -> dict[str, Any]:
    """SPEC §6 diagnostics of one output document, for the task author's changes only."""
    ops = _operations(doc, author)
    touched = _touched_indices(doc, author)
    insert_lengths = [len(op.inserted) for op in ops if op.inserted]
    inline = sum(1 for op in ops if op.inline)
    return {
        "redlines": _clusters(touched),
        "edit_operations": len(ops),
        "total_revisions": sum(1 for r in doc.revisions if _mine(r.author, author)),
        "touched_paragraphs": len(touched),
        "comments_added": sum(1 for c in doc.comments if _mine(c.author, author)),
        "median_insertion_chars": float(statistics.median(insert_lengths)) if insert_lengths else 0.0,
        "inline_operations": inline,
        "block_operations": len(ops) - inline,
        "surgicalness_score": round(inline / len(ops), 4) if ops else None,
    }


# ----------------------------------------------------------------- golden agreement
def _norm(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    return " ".join(text.lower().split())


def _paragraph_keys(doc: Any, author: str) -> list[str]:
    """A key per paragraph that survives paragraph insertions: the text the author started from.

    Paragraphs the author inserted wholesale (no text of their own before the change) are keyed
    by the nearest preceding kept paragraph plus a counter.
    """
    keys: list[str] = []
    last = "<start>"
    seen: Counter[str] = Counter()
    inserted_after: Counter[str] = Counter()
    for para in doc.paragraphs:
        base = "".join(text for kind, text in _runs(para, author) if kind in ("keep", "del"))
        norm = _norm(base)
        if norm:
            seen[norm] += 1
            key = f"{norm}#{seen[norm]}"
            last = key
        else:
            inserted_after[last] += 1
            key = f"{last}+ins{inserted_after[last]}"
        keys.append(key)
    return keys


def _span_units(doc: Any, author: str) -> tuple[set[str], Counter[str]]:
    """Edited spans as comparable units: deleted word positions and inserted words, per paragraph."""
    keys = _paragraph_keys(doc, author)
    touched = set(_touched_indices(doc, author))
    units: Counter[str] = Counter()
    for index, para in enumerate(doc.paragraphs):
        if index not in touched:
            continue
        key = keys[index]
        offset = 0
        base: list[str] = []
        deleted_spans: list[tuple[int, int]] = []
        for kind, text in _runs(para, author):
            if kind == "ins":
                for word in _WORD.findall(text.lower()):
                    units[f"{key}|ins|{word}"] += 1
                continue
            if kind == "del":
                deleted_spans.append((offset, offset + len(text)))
            base.append(text)
            offset += len(text)
        for n, match in enumerate(_WORD.finditer("".join(base))):
            if any(start < match.end() and match.start() < end for start, end in deleted_spans):
                units[f"{key}|del|{n}"] += 1
    return {keys[i] for i in touched}, units


def _prf(model: int, golden: int, both: int) -> tuple[float | None, float | None, float | None]:
    precision = both / model if model else None
    recall = both / golden if golden else None
    if precision is None or recall is None or precision + recall == 0:
        f1 = 0.0 if precision is not None and recall is not None else None
    else:
        f1 = 2 * precision * recall / (precision + recall)
    rnd = lambda x: None if x is None else round(x, 4)  # noqa: E731
    return rnd(precision), rnd(recall), rnd(f1)


#: The keys of :func:`golden_agreement`, in order: a summary reports each of them for every model.
GOLDEN_AGREEMENT_FIELDS = (
    "paragraph_precision",
    "paragraph_recall",
    "paragraph_f1",
    "span_precision",
    "span_recall",
    "span_f1",
    "model_touched_paragraphs",
    "golden_touched_paragraphs",
)


def golden_agreement(doc: Any, golden: Any, author: str, golden_author: str) -> dict[str, Any]:
    """Overlap of the model's edits with the attorney's: touched paragraphs and edited spans.

    Precision is the share of the model's units the attorney also has; recall the share of the
    attorney's units the model also has. ``None`` where a side has nothing to compare.
    """
    m_paras, m_units = _span_units(doc, author)
    g_paras, g_units = _span_units(golden, golden_author)
    pp, pr, pf = _prf(len(m_paras), len(g_paras), len(m_paras & g_paras))
    both = sum((m_units & g_units).values())
    sp, sr, sf = _prf(sum(m_units.values()), sum(g_units.values()), both)
    return {
        "paragraph_precision": pp,
        "paragraph_recall": pr,
        "paragraph_f1": pf,
        "span_precision": sp,
        "span_recall": sr,
        "span_f1": sf,
        "model_touched_paragraphs": len(m_paras),
        "golden_touched_paragraphs": len(g_paras),
    }
