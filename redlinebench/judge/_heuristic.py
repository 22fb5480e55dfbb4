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
#: Verb stems by kind; the longest stem that starts the criterion's verb wins ("replaces" is a
#: replacement even though it also starts with "repl", the stem of "replies").
VERBS: dict[str, tuple[str, ...]] = {
    "insert": ("insert", "add", "includ", "introduc", "propos", "restor", "reinstat", "requir", "provid", "specif",
               "defin", "creat", "establish", "expand", "broaden", "grant", "extend"),
    "delete": ("delet", "remov", "strik", "elimin", "drop", "omit", "cut", "withdraw", "excis"),
    "replace": ("replac", "substitut", "chang", "revis", "amend", "modif", "narrow", "limit", "reduc", "increas",
                "shorten", "lengthen", "cap", "qualif", "soften", "tighten", "convert", "make", "raise", "lower",
                "counter", "refin", "rewrit", "redraft", "adjust", "tie", "condition", "clarif", "mutualis",
                "mutualiz", "move", "split", "lift", "set", "restrict", "conform", "reopen", "place", "exclud",
                "ensur", "align", "subject", "bring", "cut back", "trim", "lengthen", "water"),
    "reject": ("reject", "refus", "declin", "revers", "undo", "undoe", "resist", "push", "oppos", "contest",
               "strikes out"),
    "accept": ("accept", "preserv", "retain", "keep", "leav", "maintain", "agree", "conced", "approv", "allow",
               "clos"),
    "comment": ("repl", "respond", "state", "comment", "explain", "confirm", "note", "flag", "ask", "request",
                "acknowledg", "answer", "thank", "invit"),
}
_NEGATION = re.compile(r"^(?:does not|doesn't|do not|did not|never|avoids|refrains from|fails to|is not|no longer)"
                       r"\s+", re.I)
#: "accepts X but shortens Y", "leaves X in place and adds Y": a second action after the first.
_SECOND_ACTION = re.compile(r"\s(?:but|and|while|then)\s+([a-z]+s)\b")
_KEEP_VERBS = ("keep", "retain", "preserv", "maintain", "leav")
_NO_CHANGE = re.compile(r"^(?:makes|proposes|introduces) no\b", re.I)
_CLAUSE_REF = re.compile(
    r"\b(?:sections?|clauses?|articles?|paragraphs?|schedule|annex|exhibit|§+)\s*"
    r"(\d+(?:\.\d+)*)(?:\s*\(([a-z0-9]{1,4})\))?", re.I)
_MORE_REFS = re.compile(r"^(?:\s*(?:,|and|or|&)\s*(\d+(?:\.\d+)*)(?:\s*\([a-z0-9]{1,4}\))?)+", re.I)
_BARE_NUMBER = re.compile(r"(?<![\w.])(\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)")
_LOCATION = re.compile(r"\b(?:in|of|to|under|within|at|from)\s+(?:the\s+)?(?:sections?|clauses?|articles?|§+)\s*"
                       r"\d+(?:\.\d+)*(?:\s*\([a-z0-9]{1,4}\))?(?:\s*(?:and|,|or)\s*\d+(?:\.\d+)*)*", re.I)
#: Qualifiers that describe what the author must NOT do; they are not part of the object.
_QUALIFIER = re.compile(r"\b(?:rather than|instead of|without|while|so that|leaving|other than)\b.*$", re.I)
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset("""
a an the and or of to in on for by with without from at as is are be been being that this these those which who
whom whose its it their there than then such any all each every other into onto upon per via so not no nor but if
shall will may must should would can could section sections clause clauses agreement party parties counterparty
counterparty's change changes edit edits text language provision provisions wording term terms proposed proposal
opposing other side's side customer's provider's own new existing current more less least most only also both
""".split())
NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "fifteen": "15",
                "twenty": "20", "twenty-five": "25", "thirty": "30", "forty": "40", "forty-five": "45",
                "fifty": "50", "sixty": "60", "seventy-five": "75", "ninety": "90", "hundred": "100"}


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text or "").lower()
    return (text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
            .replace("\u2013", "-").replace("\u2014", "-").replace("\xa0", " "))


def _stem(word: str) -> str:
    word = NUMBER_WORDS.get(word, word)
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            if suffix in ("ing", "ings", "ed") and len(word) > 2 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]   # capped -> cap, committed -> commit
            break
    return word[:7]


def words(text: str) -> list[str]:
    """Content words, stemmed: what fuzzy matching compares."""
    out = []
    for w in _WORD.findall(_normalize(text)):
        for part in ([w] if w in NUMBER_WORDS else w.split("-")):
            part = part.strip("'")
            if part.endswith("'s"):
                part = part[:-2]
            if part and part not in STOPWORDS and (len(part) > 2 or part.isdigit()):
                out.append(_stem(part))
    return out


def numbers_in(text: str) -> set[str]:
    """Figures in a text, spelled-out ones included ("sixty (60)" -> {"60"}; "2,000,000" -> {"2000000"})."""
    norm = _normalize(text)
    found = {m.replace(",", "") for m in re.findall(r"\d[\d,]*(?:\.\d+)?", norm)}
    found |= {NUMBER_WORDS[w] for w in _WORD.findall(norm) if w in NUMBER_WORDS}
    return {n for n in found if n}


def overlap(phrase_words: list[str], text: str) -> float:
    """Share of the phrase's content words found in ``text`` (1.0 for an empty phrase)."""
    if not phrase_words:
        return 1.0
    have = set(words(text))
    return sum(1 for w in set(phrase_words) if w in have) / len(set(phrase_words))


def _verb_of(token: str) -> str | None:
    best: tuple[int, str] | None = None
    for kind, stems in VERBS.items():
        for stem in stems:
            if token.startswith(stem) and (best is None or len(stem) > best[0]):
                best = (len(stem), kind)
    return best[1] if best else None


@dataclass
class ParsedRubric:
    verb: str | None             # insert | delete | replace | reject | accept | comment | None
    negated: bool
    clauses: list[str]           # "3.3.5", "9.1(b)" -> "9.1"
    obj: list[str]               # content words of what the rubric is about
    old: list[str] = field(default_factory=list)   # "replaces OLD with NEW"
    new: list[str] = field(default_factory=list)
    new_numbers: set[str] = field(default_factory=set)
    obj_numbers: set[str] = field(default_factory=set)
    then: ParsedRubric | None = None   # "accepts X but shortens Y": the part after "but"
    limit: Threshold | None = None     # "at least USD 2,000,000", "60 days or less": compare, not match
    unchanged: bool = False            # "leaves X unchanged / in place"
    no_change: bool = False            # "makes no new substantive change"
    keep_like: bool = False            # keeps / retains / preserves / maintains / leaves
    first_word: str = ""
    text: str = ""


def _clauses(text: str) -> list[str]:
    out: list[str] = []
    for ref in _CLAUSE_REF.finditer(text):
        out.append(ref.group(1))
        more = _MORE_REFS.match(text[ref.end():])
        if more:
            out.extend(re.findall(r"\d+(?:\.\d+)*", more.group(0)))
    if not out:
        out = list(_BARE_NUMBER.findall(text))
    return list(dict.fromkeys(out))


def parse_rubric(criteria: str, _inherit: list[str] | None = None) -> ParsedRubric:
    text = " ".join(_normalize(criteria).split())
    negated = False
    m = _NEGATION.match(text)
    if m:
        negated = True
        text = text[m.end():]
    no_change = bool(_NO_CHANGE.match(text))
    then = None
    split = _SECOND_ACTION.search(text)
    if split and _verb_of(split.group(1)) not in (None, "accept"):
        head, tail = text[: split.start()], text[split.start(1):]
        clauses_head = _clauses(head) or (_inherit or [])
        then = parse_rubric(tail, _inherit=clauses_head or _clauses(tail))
        text = head
    clauses = _clauses(text) or list(_inherit or [])
    tokens = text.split()
    verb = _verb_of(tokens[0]) if tokens else None
    if verb is None:  # "In 4.2, inserts ...", "Counsel rejects ..."
        for token in tokens[1:6]:
            verb = _verb_of(token) if len(token) > 3 else None
            if verb:
                break
    if no_change:
        verb = "replace"
    rest = text.split(" ", 1)[1] if " " in text else ""
    unchanged = bool(re.search(r"\b(unchanged|in place|intact|as drafted|untouched|as is)\b", rest))
    rest = _QUALIFIER.sub(" ", rest)
    rest = _LOCATION.sub(" ", rest)
    rest = _CLAUSE_REF.sub(" ", rest)
    old: list[str] = []
    new: list[str] = []
    new_text = ""
    if verb == "replace":
        parts = re.split(r"\s+(?:with|by|to|in place of)\s+", rest, maxsplit=1)
        if len(parts) == 2:
            old, new, new_text = words(parts[0]), words(parts[1]), parts[1]
        parts = re.split(r"\s+from\s+", rest, maxsplit=1)
        if len(parts) == 2 and " to " in parts[1]:
            a, b = parts[1].split(" to ", 1)
            old, new, new_text = words(a), words(b), b
    keep_like = bool(tokens) and tokens[0].startswith(_KEEP_VERBS)
    return ParsedRubric(verb, negated, clauses, words(rest), old, new, numbers_in(new_text), numbers_in(rest),
                        then, threshold(text), unchanged, no_change, keep_like, tokens[0] if tokens else "", text)


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


class _SeenParagraph:
    """A paragraph as a Word reader sees it (``docx.seen``): its segments and current text without
    hidden text, with its text boxes' text; everything else is the engine's paragraph."""

    __slots__ = ("_para", "segments", "text")

    def __init__(self, para: Any, segments: list[Any]) -> None:
        self._para, self.segments = para, segments
        self.text = "".join(s.text for s in segments if s.kind in ("text", "ins", "move_to"))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._para, name)


class SeenDocument:
    """The document the heuristic grades: hidden text earns nothing (a reader of the contract cannot
    see it), and text in text boxes counts like body text only where it is visible and tracked."""

    def __init__(self, doc: Any) -> None:
        from ..docx.hidden import Visibility
        from ..docx.seen import seen_segments

        self.doc = doc
        seen = Visibility(doc)
        self.paragraphs = []
        for para in doc.paragraphs:
            segments = seen_segments(para, seen, untracked_boxes=False)
            self.paragraphs.append(para if segments is None else _SeenParagraph(para, segments))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.doc, name)


def seen(doc: Any) -> Any:
    """``doc`` as a Word reader sees it (a :class:`SeenDocument`; one already made is kept)."""
    if doc is None or isinstance(doc, SeenDocument) or not hasattr(doc, "body"):
        return doc
    return SeenDocument(doc)


def find_region(doc: Any, clauses: list[str], author: str, numbers: list[str | None] | None = None) -> Region:
    """Paragraphs of the named clauses: the numbered paragraph, its sub-clauses, and unnumbered followers."""
    paragraphs = list(doc.paragraphs)
    if not clauses:
        return Region(False, paragraphs, author)
    if numbers is None:
        numbers = clause_numbers(doc, author)
    picked: set[int] = set()
    for clause in clauses:
        inside = False
        for i, n in enumerate(numbers):
            if n is not None:
                inside = n == clause or n.startswith(clause + ".")
            if inside:
                picked.add(i)
    if not picked:
        return Region(False, paragraphs, author)
    return Region(True, [paragraphs[i] for i in sorted(picked)], author)


# ---------------------------------------------------------------- quantities and thresholds
_UNITS_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS_WORDS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALE_WORDS = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORD = "|".join(sorted([*_UNITS_WORDS, *_TENS_WORDS, *_SCALE_WORDS], key=len, reverse=True))
_LEAD_WORD = "|".join(sorted([*_UNITS_WORDS, *_TENS_WORDS], key=len, reverse=True))
#: a spelled-out number starts with a unit or a ten ("2 million" keeps its figure; "sixty-five" is 65)
_SPELLED = re.compile(rf"\b(?:{_LEAD_WORD})(?:(?:\s+|-|(?<=hundred)\s+and\s+|(?<=thousand)\s+and\s+)"
                      rf"(?:{_NUMBER_WORD}))*\b", re.I)
#: "60 (60)" -> "60". Repetitions are bounded everywhere: a hostile paragraph of 100,000 digits
#: must cost linear time, not quadratic backtracking.
_REPEATED = re.compile(r"(\d[\d,]{0,24}(?:\.\d{1,6})?)\s{0,3}\(\s{0,3}(?:[a-z$€£]{0,3}\s?)?\1\s{0,3}\)")
_QUANTITY = re.compile(
    r"(?P<cur>usd|eur|gbp|chf|us\$|\$|€|£)?\s?(?P<num>\d{1,3}(?:,\d{3}){1,6}(?:\.\d{1,6})?|\d{1,15}(?:\.\d{1,6})?)"
    r"(?![\d.]{0,24}\.\d)"
    r"(?:\s?(?P<mult>million|mn|m|billion|bn|thousand|k)\b)?"
    r"(?:\s?(?P<unit>%|percent\b|per cent\b|(?:business |calendar |working )?(?:days?|months?|years?|hours?|weeks?)\b"
    r"|dollars\b|euros?\b|pounds\b|usd\b|eur\b|gbp\b))?", re.I)
_CURRENCY = {"usd": "usd", "us$": "usd", "$": "usd", "dollars": "usd", "eur": "eur", "€": "eur", "euro": "eur",
             "euros": "eur", "gbp": "gbp", "£": "gbp", "pounds": "gbp", "chf": "chf"}
_DAYS = {"hour": 1 / 24, "day": 1, "week": 7, "month": 30, "year": 365}
_MULT = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}


def _spelled_value(phrase: str) -> int | None:
    total = current = 0
    last = ""
    for token in re.split(r"[\s-]+", phrase.lower()):
        if token == "and" or not token:
            continue
        if (token in _UNITS_WORDS and last in ("unit", "teen")) or (token in _TENS_WORDS and last in ("unit", "teen", "ten")):
            return None   # "one two", "thirty forty": a list of numbers, not one number
        if token in _UNITS_WORDS:
            current += _UNITS_WORDS[token]
            last = "unit" if _UNITS_WORDS[token] < 10 else "teen"
            continue
        last = "ten" if token in _TENS_WORDS else "scale"
        if token in _TENS_WORDS:
            current += _TENS_WORDS[token]
        elif token == "hundred":
            current = max(current, 1) * 100
        elif token in _SCALE_WORDS:
            total += max(current, 1) * _SCALE_WORDS[token]
            current = 0
    value = total + current
    return value if value or phrase.strip().lower() == "zero" else None


def _figures(text: str) -> str:
    """Spelled-out numbers as figures, and "sixty (60)" said once: ``60``."""
    text = _SPELLED.sub(lambda m: str(_spelled_value(m.group(0)) or m.group(0)), _normalize(text))
    return _REPEATED.sub(lambda m: m.group(1), text)


@dataclass(frozen=True)
class Quantity:
    """An amount with what it measures: ("money", currency), ("percent", None), ("days", None), (None, None)."""

    value: float
    kind: str | None
    currency: str | None = None

    def comparable(self, other: Quantity) -> bool:
        if self.kind != other.kind:
            return False
        return self.currency is None or other.currency is None or self.currency == other.currency


def quantities(text: str) -> list[Quantity]:
    """Money, percentages and durations in a text, in words or figures ("USD 2,000,000", "$3M",
    "twelve months", "sixty (60) days", "25%"); durations in days."""
    out: list[Quantity] = []
    for m in _QUANTITY.finditer(_figures(text)):
        value = float(m.group("num").replace(",", ""))
        mult = (m.group("mult") or "").lower()
        unit = (m.group("unit") or "").lower()
        cur = (m.group("cur") or "").lower()
        if mult == "m" and not cur and unit not in _CURRENCY:
            mult = ""  # "5 m" is not five million without a currency
        value *= _MULT.get(mult, 1)
        if unit in ("%", "percent", "per cent"):
            out.append(Quantity(value, "percent"))
        elif unit and unit.split()[-1].rstrip("s") in _DAYS:
            out.append(Quantity(value * _DAYS[unit.split()[-1].rstrip("s")], "days"))
        elif cur or unit in _CURRENCY:
            out.append(Quantity(value, "money", _CURRENCY.get(cur or unit)))
        else:
            out.append(Quantity(value, None))
    return out


_BOUNDS: tuple[tuple[str, str], ...] = (
    (r"at least|not less than|no less than|a minimum of|minimum of|no fewer than|not fewer than|no shorter than", ">="),
    (r"no more than|not more than|at most|up to|not exceeding|not to exceed|no greater than|a maximum of|"
     r"maximum of|no longer than", "<="),
    (r"more than|greater than|above|exceeding|in excess of|longer than|higher than", ">"),
    (r"less than|fewer than|below|under|shorter than|lower than", "<"),
)
_BOUND = re.compile("|".join(rf"(?P<b{i}>\b(?:{p})\b)" for i, (p, _) in enumerate(_BOUNDS)), re.I)
_TRAILING = re.compile(r"^\W*or\s+(?:(?P<le>less|fewer|lower|shorter|earlier)|(?P<ge>more|greater|higher|longer))\b",
                       re.I)
_BETWEEN = re.compile(r"\bbetween\b(?P<a>.{1,40}?)\band\b(?P<b>.{1,40})", re.I)
_RELATIVE = re.compile(r"\b(?:a|an|any)\s+(?P<dir>higher|larger|greater|bigger|lower|smaller|shorter|longer)\s+"
                       r"(?:figure|amount|number|sum|cap|limit|percentage|period|term)\b", re.I)


@dataclass(frozen=True)
class Threshold:
    """What a new figure must satisfy: ``op`` one of >=, <=, >, <, or "between" (``low``..``high``)."""

    op: str
    bound: Quantity
    high: Quantity | None = None
    phrase: str = ""   # the comparison as the criterion words it ("at least", "or less")

    def holds(self, q: Quantity) -> bool:
        if not q.comparable(self.bound):
            return False
        v, b = q.value, self.bound.value
        if self.op == "between":
            return self.high is not None and min(b, self.high.value) <= v <= max(b, self.high.value)
        return {">=": v >= b, "<=": v <= b, ">": v > b, "<": v < b}[self.op]

    def describe(self) -> str:
        unit = {"percent": "%", "days": " days", "money": f" {self.bound.currency or ''}".rstrip()}.get(
            self.bound.kind or "", "")
        if self.op == "between" and self.high is not None:
            return f"between {self.bound.value:g} and {self.high.value:g}{unit}"
        return f"{self.op} {self.bound.value:g}{unit}"


def threshold(criteria: str) -> Threshold | None:
    """The numeric condition a criterion sets on the figure it asks for, if any: "at least USD
    2,000,000", "sixty (60) days or less", "between 30 and 45 days", "no more than 5%", "replacing
    USD 2,000,000 with a higher figure". Figures in a comparison only; a bare figure is not one."""
    text = _figures(criteria)
    m = _BETWEEN.search(text)
    if m:
        low, high = _QUANTITY.search(m.group("a")), _QUANTITY.search(m.group("b"))
        if low is not None and high is not None and low.group("num") and high.group("num"):
            # the unit, currency or scale is often said once: "between 48 and 72 hours", "USD 1 and 2 million"
            def part(name: str) -> str:
                return low.group(name) or high.group(name) or ""

            a = quantities(" ".join(f"{part('cur')} {low.group('num')} {part('mult')} {part('unit')}".split()))
            b = quantities(" ".join(f"{part('cur')} {high.group('num')} {part('mult')} {part('unit')}".split()))
            if a and b:
                return Threshold("between", a[0], b[0], "between")
    for m in _BOUND.finditer(text):
        figure = _QUANTITY.match(text, m.end() + len(text[m.end():]) - len(text[m.end():].lstrip()))
        after = quantities(figure.group(0)) if figure and figure.group("num") else []
        if after:   # the figure must follow the comparison word: "under Section 12" is not a bound
            op = next(op for i, (_p, op) in enumerate(_BOUNDS) if m.group(f"b{i}"))
            return Threshold(op, after[0], phrase=m.group(0).lower())
    for m in _QUANTITY.finditer(text):
        trail = _TRAILING.match(text[m.end():])
        if trail and m.group("num"):
            q = quantities(m.group(0))
            if q:
                return Threshold("<=" if trail.group("le") else ">=", q[0], phrase=trail.group(0).strip().lower())
    rel = _RELATIVE.search(text)
    if rel:
        before = quantities(text[:rel.start()])
        if before:
            up = rel.group("dir") in ("higher", "larger", "greater", "bigger", "longer")
            return Threshold(">" if up else "<", before[-1], phrase=rel.group(0).lower())
    return None


def _before_text(paragraph: Any, author: str) -> str:
    """The paragraph as it stood before ``author``'s changes (their insertions out, deletions back)."""
    return " ".join(s.text for s in paragraph.segments
                    if not (s.kind in ("ins", "move_to") and s.author == author)
                    and (s.kind not in ("del", "move_from") or s.author == author))


def new_quantities(region: Region) -> list[Quantity]:
    """Figures the author's changes brought into the region: those in the text of each paragraph
    the author inserted into that were not there before (a word diff may insert only the "3" of
    "3,000,000", so whole paragraphs are read, not the inserted pieces)."""
    out: list[Quantity] = []
    for p in region.paragraphs:
        if not any(s.kind in ("ins", "move_to") and s.author == region.author and s.text.strip()
                   for s in p.segments):
            continue
        before = quantities(_before_text(p, region.author))
        for q in quantities(p.text):
            if q in before:
                before.remove(q)
            else:
                out.append(q)
    return out


# ---------------------------------------------------------------- decisions
ALL_SHARE = 0.8   # "each comment", "no thread unanswered": nearly all (one may be answered in a new comment)
MATCH = 0.25   # share of the criterion's content words that must appear, when the clause was found


_REPLY_VERBS = ("repl", "respond", "answer")


def _threads(comments: list[Any]) -> dict[str, list[Any]]:
    """Comments grouped by the id of their thread's root, in document order."""
    by_id = {c.id: c for c in comments}
    out: dict[str, list[Any]] = {}
    for c in comments:
        root, seen = c, set()
        while root.parent and root.parent in by_id and root.id not in seen:
            seen.add(root.id)
            root = by_id[root.parent]
        out.setdefault(root.id, []).append(c)
    return out


def _thread_key(root: Any) -> tuple[str, str]:
    return (root.author or "", " ".join(_normalize(root.text).split())[:120])


def side_of(author: str | None) -> str:
    """The party an author string speaks for: "Jane Roe (LargeCo Legal)" -> "largeco legal"."""
    m = re.search(r"\(([^()]+)\)\s*$", author or "")
    return " ".join((m.group(1) if m else author or "").lower().split())


@dataclass(frozen=True)
class Pending:
    """A comment of the other side's latest turn that opened a thread: what a reply answers."""

    key: tuple[str, str]          # (author, text prefix): found again in the output, whatever its new id
    text: str
    paragraph_ids: tuple[str, ...]


def open_threads(input_doc: Any, author: str) -> list[Pending]:
    """The threads the other side opened in its latest turn, oldest first.

    A turn is the run of comments after the author's side last commented (comments are listed in
    the order they were written). Replies the other side made in that turn close earlier threads
    ("Agreed"), so the new root comments are what waits for an answer; when that turn has no root
    comment, its replies are. Threads already resolved are left out.
    """
    comments = list(input_doc.comments)
    mine = side_of(author)
    last_mine = max((i for i, c in enumerate(comments) if side_of(c.author) == mine), default=-1)
    latest = [c for c in comments[last_mine + 1:] if side_of(c.author) != mine and not c.resolved]
    by_id = {c.id: c for c in comments}
    roots = [c for c in latest if not (c.parent and c.parent in by_id)]
    out: list[Pending] = []
    for c in roots or latest:
        root = c
        seen: set[str] = set()
        while root.parent and root.parent in by_id and root.id not in seen:  # a reply: its thread's root
            seen.add(root.id)
            root = by_id[root.parent]
        out.append(Pending(_thread_key(root), c.text or "", tuple(root.paragraph_ids)))
    return list({p.key: p for p in out}.values())


#: "Replies to X's comments on A, B and C", "Replies accepting X's changes to A and B": the list of topics.
_TOPIC_LEAD = re.compile(
    r"^(?:to\s+|accepting\s+|on\s+)?(?:the\s+)?(?:[\w.-]+'s\s+)?(?:(?:open|closing|final|last|remaining|outstanding|"
    r"new|latest|each|every|all|the|\w+)\s+)?(?:comments?|threads?|changes?|edits?|points?|questions?)"
    r"(?:\s+(?:on|about|regarding|concerning|to|in|for))?\s+", re.I)
_TOPIC_END = re.compile(r"\s*(?:,\s*)?\b(?:confirming|accepting|agreeing|explaining|stating|saying|noting|leaving|"
                        r"and\s+(?:confirms?|states?|explains?|accepts?|agrees?)|that|so that|with)\b.*$", re.I)
_ONE_COMMENT = re.compile(r"\b(?:closing|final|last|latest|wrap-up|concluding)\s+(?:comment|note|message)\b", re.I)
_ALL_THREADS = re.compile(r"\b(?:each|every|all)\b[^,.]*\b(?:comments?|threads?)\b|\bno thread\b|\bunanswered\b", re.I)


def reply_topics(rubric_text: str) -> list[str]:
    """The subjects a reply rubric names, in order ("comments on the cap, fees and audit" ->
    ["the cap", "fees", "audit"]); [] when it names none."""
    rest = rubric_text.split(" ", 1)[1] if " " in rubric_text else ""
    m = _TOPIC_LEAD.match(rest)
    if not m:
        return []
    body = _TOPIC_END.sub("", rest[m.end():])
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|as well as)\s+", body)
    return [p.strip() for p in parts if words(p) or _clauses(p)]


def _answered(doc: Any, author: str) -> set[tuple[str, str]]:
    """Keys of the threads in ``doc`` the author replied in (a comment of theirs with a parent)."""
    return {_thread_key(items[0]) for items in _threads(list(doc.comments)).values()
            if any(c.author == author and c.parent for c in items[1:])}


def _reply_verdict(rubric: ParsedRubric, doc: Any, author: str, pending: list[Pending],
                   numbers: list[str | None] | None) -> tuple[bool, str]:
    """Each subject the rubric names needs a reply in a thread about it; no subject: the share of
    the other side's open threads (all of them for "each"/"every"/"no thread unanswered")."""
    answered = _answered(doc, author)
    done = [p for p in pending if p.key in answered]
    if not pending:
        n = sum(1 for c in doc.comments if c.author == author and c.parent)
        return n > 0, f"{n} repl(ies) by the author; no open thread of the other side"
    if _ONE_COMMENT.search(rubric.text):
        ok = pending[-1].key in answered
        return ok, f"the author {'answered' if ok else 'did not answer'} the other side's latest comment"
    misses: list[str] = []
    checked = 0
    for topic in reply_topics(rubric.text):
        clauses = _clauses(topic) if _CLAUSE_REF.search(topic) or _BARE_NUMBER.search(topic) else []
        if clauses:
            region = find_region(doc, clauses, author, numbers)
            ids = {q.id for q in region.paragraphs} if region.found else set()
            about = [p for p in pending if set(p.paragraph_ids) & ids]
        else:
            topic_words = words(topic)
            scores = [(overlap(topic_words, p.text), p) for p in pending] if topic_words else []
            best = max((sc for sc, _ in scores), default=0.0)
            about = [p for sc, p in scores if best > 0 and sc == best]
        if not about:
            continue
        checked += 1
        if not any(p.key in answered for p in about):
            misses.append(topic)
    if checked:
        n_ok = checked - len(misses)
        if _ALL_THREADS.search(rubric.text) and len(done) < ALL_SHARE * len(pending):
            misses.append(f"{len(pending) - len(done)} other open thread(s)")
        return not misses, (f"the author replied on {n_ok} of {checked} subject(s) named"
                            + (f"; unanswered: {', '.join(misses)}" if misses else ""))
    share = len(done) / len(pending)
    need = ALL_SHARE if _ALL_THREADS.search(rubric.text) else 0.5
    return share >= need, f"the author answered {len(done)} of {len(pending)} open thread(s)"


def _comment_verdict(rubric: ParsedRubric, doc: Any, region: Region, first_word: str,
                     pending: list[Pending] | None, numbers: list[str | None] | None = None) -> tuple[bool, str]:
    """Replies: see :func:`_reply_verdict`. Other comment rubrics ("states in a comment that ..."):
    an author comment about the criterion's subject."""
    comments = list(doc.comments) if doc is not None else []
    mine = [c for c in comments if c.author == region.author]
    ids = {p.id for p in region.paragraphs} if region.found else None
    if first_word.startswith(_REPLY_VERBS):
        if pending is None:  # the input is unknown: the other side's threads in the output
            pending = [Pending(_thread_key(items[0]), items[0].text or "", tuple(items[0].paragraph_ids))
                       for items in _threads(comments).values() if side_of(items[0].author) != side_of(region.author)]
        return _reply_verdict(rubric, doc, region.author, pending, numbers)
    pool = [c for c in mine if ids is None or set(c.paragraph_ids) & ids] or mine
    best = max((overlap(rubric.obj, c.text) for c in pool), default=0.0)
    return (bool(pool) and best >= 0.2,
            f"{len(pool)} comment(s) by the author; the closest matches {best:.0%} of the criterion's words")


def decide(rubric: ParsedRubric, region: Region, doc: Any = None,
           pending: list[Pending] | None = None, numbers: list[str | None] | None = None) -> tuple[bool, str]:
    """(PASS?, reason) for the un-negated verb; the caller inverts for "does not"."""
    where = "the named clause" if region.found else "the document (clause not found)"
    ins, dele = region.inserted, region.deleted
    changed = bool(ins.strip() or dele.strip())
    need = MATCH if region.found else 0.5
    verb = rubric.verb
    if rubric.no_change:
        return (not changed, f"the author made {'a' if changed else 'no'} tracked change in {where}")
    if verb == "comment":
        return _comment_verdict(rubric, doc, region, rubric.first_word, pending, numbers)
    if verb in ("insert", "replace") and rubric.limit is not None:
        if not changed:
            return False, f"no tracked change by the author in {where}"
        new = [q for q in new_quantities(region) if q.comparable(rubric.limit.bound)]
        good = [q for q in new if rubric.limit.holds(q)]
        # "Inserts a carve-out for claims above USD 1,000,000": the bound may be the text to insert
        if not good and rubric.limit.bound in new and rubric.limit.phrase and \
                f"{rubric.limit.phrase} " in _figures(ins) + " ":
            return True, f"the author inserted the criterion's own bound ({rubric.limit.describe()}) in {where}"
        if good:
            return True, f"the author's new figure {good[0].value:g} meets {rubric.limit.describe()} in {where}"
        return False, (f"no new figure of the author's in {where} meets {rubric.limit.describe()}"
                       + (f" (new: {', '.join(f'{q.value:g}' for q in new)})" if new else ""))
    if verb == "insert":
        if not ins.strip():
            return False, f"no insertion by the author in {where}"
        score = overlap(rubric.obj, ins)
        if rubric.obj_numbers and rubric.obj_numbers <= numbers_in(ins):
            return True, f"the author inserted the figures the criterion names in {where}"
        if score >= need:
            return True, f"insertions by the author in {where} match {score:.0%} of the criterion's words"
        context = overlap(rubric.obj, ins + " " + region.current)
        ok = region.found and context >= 0.5
        return ok, (f"the author inserted text in {where}; with its context it matches {context:.0%} "
                    "of the criterion's words")
    if verb == "delete":
        struck = dele + " " + region.struck_opposing()
        if not dele.strip():
            return False, f"no deletion by the author in {where}"
        score = overlap(rubric.obj, struck)
        return score >= need, f"deletions by the author in {where} match {score:.0%} of the criterion's words"
    if verb == "replace":
        if not changed:
            return False, f"no tracked change by the author in {where}"
        if rubric.new_numbers:
            have = numbers_in(ins) | numbers_in(region.current)  # a word diff may insert "2" of "2,000,000"
            ok = rubric.new_numbers <= have
            return ok, (f"the new figures {sorted(rubric.new_numbers)} are "
                        f"{'' if ok else 'not '}in the author's text in {where}")
        if rubric.new:
            score = max(overlap(rubric.new, ins), overlap(rubric.new, ins + " " + region.current) - 0.25)
            return score >= need, f"the author's new text in {where} matches {score:.0%} of the replacement's words"
        if region.found:
            return True, f"the author changed {where}"
        score = overlap(rubric.obj, ins + " " + dele)
        return score >= need, f"the author's changes match {score:.0%} of the criterion's words"
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
        if rubric.unchanged and region.found and rubric.then is None:
            return not changed, f"the author {'changed' if changed else 'left unchanged'} {where}"
        touched = dele + " " + region.struck_opposing()
        if rubric.obj_numbers and region.found:
            struck = rubric.obj_numbers & numbers_in(touched)
            if struck:
                return False, f"the author struck the figure(s) {sorted(struck)} the criterion accepts in {where}"
            if not rubric.obj_numbers <= numbers_in(region.current):
                return False, f"the figure(s) the criterion accepts are no longer in {where}"
            return True, f"the figures the criterion accepts stand in {where}"
        score = overlap(rubric.obj, touched) if touched.strip() else 0.0
        limit = 0.34 if region.found else 0.5
        if score >= limit and not (rubric.keep_like and overlap(rubric.obj, region.current) >= 0.6):
            return False, f"the author struck text the criterion says to keep in {where} ({score:.0%} match)"
        return True, f"the text the criterion names in {where} is left in place by the author"
    score = overlap(rubric.obj, " ".join((ins, dele)))
    return (changed and score >= need,
            f"unrecognised verb; the author's changes in {where} match {score:.0%} of the criterion's words")


class HeuristicJudge:
    """Rule-based judge over the engine's document model. Deterministic; needs no network."""

    method = "heuristic"

    def __init__(self, name: str = "heuristic") -> None:
        self.name = name

    def verdict(self, criteria: str, doc: Any, author: str, numbers: list[str | None] | None = None,
                pending: list[Pending] | None = None) -> tuple[str, str]:
        """One rubric: ``pending`` holds the input's open comment threads (None when unknown)."""
        parsed = parse_rubric(criteria)
        doc = seen(doc)
        region = find_region(doc, parsed.clauses, author, numbers)
        ok, reason = decide(parsed, region, doc, pending, numbers)
        if ok and parsed.then is not None:
            # "accepts X but shortens Y": both parts must hold; the second is usually the decisive one
            second = parsed.then
            region2 = find_region(doc, second.clauses, author, numbers) if second.clauses != parsed.clauses \
                else region
            ok, reason2 = decide(second, region2, doc, pending, numbers)
            reason = f"{reason}; then: {reason2}"
        if parsed.negated:
            ok = not ok
            reason = f"negated criterion; {reason}"
        return ("PASS" if ok else "FAIL"), reason

    async def grade(self, task: Any, view: str, doc: Any, **options: Any) -> JudgeResult:
        result = self._grade(task, doc)
        audit = options.get("audit")
        if audit is not None:
            audit.write({"judge": self.name, "model": "heuristic", "task_id": getattr(task, "task_id", None),
                         "trial": options.get("trial"), "model_under_test": options.get("model_under_test"),
                         "cached": False, "ok": result.ok, "n_attempts": 1, "latency_s": round(result.latency_s, 4),
                         "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "raw": None,
                         "error": result.error})
        return result

    def _grade(self, task: Any, doc: Any) -> JudgeResult:
        started = time.monotonic()
        if doc is None:
            return JudgeResult(judge=self.name, ok=False, method=self.method,
                               error="the heuristic judge needs the output document")
        verdicts: dict[str, str] = {}
        notes: dict[str, str] = {}
        numbers = clause_numbers(doc, task.author)
        doc = seen(doc)   # once per grade: every rubric reads the same visible text
        pending = None
        contract = getattr(task, "contract_path", None)
        if contract:
            from ._gate import open_output

            input_doc, _why = open_output(contract)
            if input_doc is not None:
                pending = open_threads(input_doc, task.author)
        for rubric in task.rubrics:
            v, why = self.verdict(str(rubric.criteria or ""), doc, task.author, numbers, pending)
            verdicts[str(rubric.id)] = v
            notes[str(rubric.id)] = why
        return JudgeResult(judge=self.name, ok=True, verdicts=verdicts, justifications=notes, attempts=1,
                           latency_s=time.monotonic() - started, cost_usd=0.0, method=self.method)


@judge("heuristic")
def heuristic_judge(name: str = "heuristic") -> HeuristicJudge:
    return HeuristicJudge(name)
