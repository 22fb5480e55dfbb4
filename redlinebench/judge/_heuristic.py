"""The offline heuristic judge: deterministic, no network, an approximation.

It reads a rubric's verb (inserts, deletes, replaces, rejects, accepts/preserves, "does not
..."), finds the clause the rubric names by its number, and checks the task author's tracked
changes there with fuzzy word matching. Grades it produces carry ``judge_method: heuristic``
and must never be published as benchmark results; they exist for demos, CI and smoke tests.
"""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from ._base import JudgeResult, judge

# ---------------------------------------------------------------- rubric reading
VERBS: dict[str, tuple[str, ...]] = {
    "insert": ("insert", "add", "include", "introduce", "propose", "restore", "reinstate", "require", "provide",
               "specify", "define", "create", "establish", "expand", "broaden"),
    "delete": ("delete", "remove", "strike", "eliminate", "drop", "omit", "cut", "withdraw"),
    "replace": ("replace", "substitute", "change", "revise", "amend", "modify", "narrow", "limit", "reduce",
                "increase", "extend", "shorten", "lengthen", "cap", "qualify", "soften", "tighten", "convert",
                "make", "raise", "lower", "counter", "refine", "rewrite", "redraft", "adjust", "tie", "condition",
                "clarify", "mutualise", "mutualize", "move", "split", "lift", "set"),
    "reject": ("reject", "refuse", "decline", "reverse", "undo", "resist", "push", "strikes out", "oppose",
               "contest"),
    "accept": ("accept", "preserve", "retain", "keep", "leave", "maintain", "agree", "concede", "approve",
               "allow", "close", "preserving"),
}
_NEGATION = re.compile(r"^(does not|doesn't|do not|did not|never|avoids|refrains from|fails to|is not|no longer)\s+",
                       re.I)
_CLAUSE_REF = re.compile(
    r"\b(?:sections?|clauses?|articles?|paragraphs?|schedule|annex|exhibit|§+)\s*"
    r"(\d+(?:\.\d+)*)(?:\s*\(([a-z0-9]{1,4})\))?", re.I)
_BARE_NUMBER = re.compile(r"(?<![\w.])(\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)")
_LOCATION = re.compile(r"\b(?:in|of|to|under|within|at|from)\s+(?:the\s+)?(?:sections?|clauses?|articles?|§+)\s*"
                       r"\d+(?:\.\d+)*(?:\s*\([a-z0-9]{1,4}\))?(?:\s*(?:and|,|or)\s*\d+(?:\.\d+)*)*", re.I)
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset("""
a an the and or of to in on for by with without from at as is are be been being that this these those which who
whom whose its it their there than then such any all each every other into onto upon per via so not no nor but if
shall will may must should would can could section sections clause clauses agreement party parties counterparty
counterparty's change changes edit edits text language provision provisions wording term terms proposed proposal
opposing other side's side customer's provider's own new existing current
""".split())
NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                "eight": "8", "nine": "9", "ten": "10", "twelve": "12", "fifteen": "15", "twenty": "20",
                "thirty": "30", "forty": "40", "forty-five": "45", "sixty": "60", "ninety": "90"}


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text or "").lower()
    return (text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
            .replace("\u2013", "-").replace("\u2014", "-").replace("\xa0", " "))


def _stem(word: str) -> str:
    word = NUMBER_WORDS.get(word, word)
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    return word[:7]


def words(text: str) -> list[str]:
    """Content words, stemmed: what fuzzy matching compares."""
    out = []
    for w in _WORD.findall(_normalize(text)):
        for part in (w.split("-") if "-" in w and w not in NUMBER_WORDS else [w]):
            if part and part not in STOPWORDS and (len(part) > 2 or part.isdigit()):
                out.append(_stem(part))
    return out


def overlap(phrase_words: list[str], text: str) -> float:
    """Share of the phrase's content words found in ``text`` (1.0 for an empty phrase)."""
    if not phrase_words:
        return 1.0
    have = set(words(text))
    return sum(1 for w in set(phrase_words) if w in have) / len(set(phrase_words))


@dataclass
class ParsedRubric:
    verb: str | None             # insert | delete | replace | reject | accept | None
    negated: bool
    clauses: list[str]           # "3.3.5", "9.1(b)" -> "9.1"
    obj: list[str]               # content words of what the rubric is about
    old: list[str] = field(default_factory=list)   # "replaces OLD with NEW"
    new: list[str] = field(default_factory=list)


def parse_rubric(criteria: str) -> ParsedRubric:
    text = " ".join(_normalize(criteria).split())
    negated = False
    m = _NEGATION.match(text)
    if m:
        negated = True
        text = text[m.end():]
    clauses = []
    for ref in _CLAUSE_REF.finditer(text):
        if ref.group(1) not in clauses:
            clauses.append(ref.group(1))
    if not clauses:
        clauses = [n for n in dict.fromkeys(_BARE_NUMBER.findall(text))]
    first = text.split(" ", 1)[0] if text else ""
    verb = None
    for kind, stems in VERBS.items():
        if any(first.startswith(s) for s in stems):
            verb = kind
            break
    if verb is None:  # verb later in the sentence ("Counsel rejects ...", "In 4.2, inserts ...")
        for token in text.split()[:6]:
            for kind, stems in VERBS.items():
                if any(token.startswith(s) for s in stems if len(s) > 3):
                    verb = kind
                    break
            if verb:
                break
    rest = _LOCATION.sub(" ", text.split(" ", 1)[1] if " " in text else "")
    rest = _CLAUSE_REF.sub(" ", rest)
    old: list[str] = []
    new: list[str] = []
    if verb == "replace":
        parts = re.split(r"\s+(?:with|by|to)\s+", rest, maxsplit=1)
        if len(parts) == 2:
            old, new = words(parts[0]), words(parts[1])
        parts = re.split(r"\s+from\s+", rest, maxsplit=1)
        if not new and len(parts) == 2 and " to " in parts[1]:
            a, b = parts[1].split(" to ", 1)
            old, new = words(a), words(b)
    return ParsedRubric(verb, negated, clauses, words(rest), old, new)


# ---------------------------------------------------------------- document reading
@dataclass
class Region:
    found: bool
    paragraphs: list[Any]
    author: str

    def _texts(self, pred) -> str:
        return " ".join(s.text for p in self.paragraphs for s in p.segments if pred(s))

    @property
    def inserted(self) -> str:
        return self._texts(lambda s: s.kind in ("ins", "move_to") and s.author == self.author)

    @property
    def deleted(self) -> str:
        return self._texts(lambda s: s.kind in ("del", "move_from") and s.author == self.author)

    @property
    def current(self) -> str:
        return " ".join(p.text for p in self.paragraphs)

    @property
    def opposing(self) -> list[Any]:
        """Other authors' changes here (earlier turns)."""
        return [s for p in self.paragraphs for s in p.segments
                if s.kind != "text" and s.author != self.author and s.author is not None]

    def struck_opposing(self) -> str:
        """Text another author inserted that this author struck (``w:del`` inside their ``w:ins``)."""
        return self._texts(lambda s: s.kind == "del" and s.author == self.author
                           and s.inserted_by not in (None, self.author))

    def touched_opposing_paragraphs(self) -> int:
        n = 0
        for p in self.paragraphs:
            kinds = {(s.author == self.author, s.kind != "text") for s in p.segments}
            if (True, True) in kinds and any(s.kind != "text" and s.author != self.author for s in p.segments):
                n += 1
        return n


def _clean_number(number: str | None) -> str | None:
    if not number:
        return None
    n = number.strip().strip("().").rstrip(".")
    return n or None


_LEADING_NUMBER = re.compile(r"^\s*(?:section\s+|clause\s+|article\s+)?(\d+(?:\.\d+)*)\.?(?:\s|$)", re.I)


def _number_of(paragraph: Any) -> str | None:
    n = _clean_number(getattr(paragraph, "number", None))
    if n and re.fullmatch(r"\d+(?:\.\d+)*", n):
        return n
    m = _LEADING_NUMBER.match(getattr(paragraph, "accepted_text", None) or paragraph.text or "")
    return m.group(1) if m else None


def _wholly_inserted(paragraph: Any, author: str) -> bool:
    pieces = [s for s in paragraph.segments if s.text]
    return bool(pieces) and all(s.kind in ("ins", "move_to") and s.author == author for s in pieces)


def clause_numbers(doc: Any, author: str) -> list[str | None]:
    """Each paragraph's clause number as the document stood before ``author``'s changes.

    Rubrics cite the numbering the author saw; a paragraph the author inserted renumbers
    everything after it. So the author's changes are rejected on a copy, the surviving
    paragraphs are matched up in order, and paragraphs the author inserted get no number
    (they belong to the clause before them). Falls back to the current numbers.
    """
    current = [_number_of(p) for p in doc.paragraphs]
    try:
        from ..docx import RedlineDocument

        copy = RedlineDocument.open(doc.to_bytes())
        if not copy.reject(author=author):
            return current
    except Exception:  # noqa: BLE001  numbering is a best effort; current numbers still work
        return current
    survivors = [i for i, p in enumerate(doc.paragraphs) if not _wholly_inserted(p, author)]
    if len(survivors) != len(copy.paragraphs):
        return current
    out: list[str | None] = [None] * len(current)
    for i, original in zip(survivors, copy.paragraphs):
        out[i] = _number_of(original)
    return out


def find_region(doc: Any, clauses: list[str], author: str, numbers: list[str | None] | None = None) -> Region:
    """Paragraphs of the named clauses: the numbered paragraph, its sub-clauses, and unnumbered followers."""
    paragraphs = list(doc.paragraphs)
    if not clauses:
        return Region(False, paragraphs, author)
    if numbers is None:
        numbers = clause_numbers(doc, author)
    picked: list[int] = []
    for clause in clauses:
        inside = False
        for i, n in enumerate(numbers):
            if n is not None:
                inside = n == clause or n.startswith(clause + ".")
            if inside and i not in picked:
                picked.append(i)
    if not picked:
        return Region(False, paragraphs, author)
    return Region(True, [paragraphs[i] for i in sorted(picked)], author)


# ---------------------------------------------------------------- decisions
MATCH = 0.25   # share of the criterion's content words that must appear, when the clause was found


def decide(rubric: ParsedRubric, region: Region) -> tuple[bool, str]:
    """(PASS?, reason) for the un-negated verb; the caller inverts for "does not"."""
    where = "the named clause" if region.found else "the document (clause not found)"
    ins, dele = region.inserted, region.deleted
    need = MATCH if region.found else 0.5
    verb = rubric.verb
    if verb == "insert":
        score = overlap(rubric.obj, ins)
        return (bool(ins.strip()) and score >= need,
                f"insertions by the author in {where} match {score:.0%} of the criterion's words")
    if verb == "delete":
        score = max(overlap(rubric.obj, dele), overlap(rubric.obj, region.struck_opposing()))
        return (bool(dele.strip()) and score >= need,
                f"deletions by the author in {where} match {score:.0%} of the criterion's words")
    if verb == "replace":
        if not (ins.strip() and dele.strip()):
            if rubric.new or not ins.strip():
                return False, f"no replacement (deletion plus insertion) by the author in {where}"
        if rubric.new:
            score = overlap(rubric.new, ins)
            return score >= need, f"the author's new text in {where} matches {score:.0%} of the replacement's words"
        score = overlap(rubric.obj, " ".join((ins, dele, region.current)))
        return score >= need, f"the author changed {where}; the change matches {score:.0%} of the criterion's words"
    if verb == "reject":
        struck = region.struck_opposing()
        if struck.strip():
            return True, f"the author struck the other side's insertion in {where}"
        if region.opposing and region.touched_opposing_paragraphs():
            return True, f"the author modified paragraphs carrying the other side's changes in {where}"
        score = overlap(rubric.obj, dele)
        return (bool(dele.strip()) and score >= need,
                f"no opposing change struck in {where}; the author's deletions match {score:.0%}")
    if verb == "accept":
        if region.struck_opposing().strip():
            return False, f"the author struck the other side's insertion in {where}"
        if region.opposing and region.touched_opposing_paragraphs():
            return False, f"the author changed paragraphs carrying the other side's changes in {where}"
        if rubric.obj and dele.strip() and overlap(rubric.obj, dele) >= 0.5:
            return False, f"the author deleted the text the criterion says to keep in {where}"
        return True, f"the text in {where} is left intact by the author"
    changed = bool(ins.strip() or dele.strip())
    score = overlap(rubric.obj, " ".join((ins, dele)))
    return (changed and score >= need,
            f"unrecognised verb; the author's changes in {where} match {score:.0%} of the criterion's words")


class HeuristicJudge:
    """Rule-based judge over the engine's document model. Deterministic; needs no network."""

    method = "heuristic"

    def __init__(self, name: str = "heuristic") -> None:
        self.name = name

    def verdict(self, criteria: str, doc: Any, author: str,
                numbers: list[str | None] | None = None) -> tuple[str, str]:
        parsed = parse_rubric(criteria)
        region = find_region(doc, parsed.clauses, author, numbers)
        ok, reason = decide(parsed, region)
        if parsed.negated:
            ok = not ok
            reason = f"negated criterion; {reason}"
        return ("PASS" if ok else "FAIL"), reason

    async def grade(self, task: Any, view: str, doc: Any, **_options: Any) -> JudgeResult:
        started = time.monotonic()
        if doc is None:
            return JudgeResult(judge=self.name, ok=False, method=self.method,
                               error="the heuristic judge needs the output document")
        verdicts: dict[str, str] = {}
        notes: dict[str, str] = {}
        numbers = clause_numbers(doc, task.author)
        for rubric in task.rubrics:
            v, why = self.verdict(str(rubric.criteria or ""), doc, task.author, numbers)
            verdicts[str(rubric.id)] = v
            notes[str(rubric.id)] = why
        return JudgeResult(judge=self.name, ok=True, verdicts=verdicts, justifications=notes, attempts=1,
                           latency_s=time.monotonic() - started, cost_usd=0.0, method=self.method)


@judge("heuristic")
def heuristic_judge(name: str = "heuristic") -> HeuristicJudge:
    return HeuristicJudge(name)
