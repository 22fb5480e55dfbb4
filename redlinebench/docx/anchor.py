"""Anchoring: find the model's quoted text in a paragraph and map it back to raw offsets.

Both sides are normalised the same way (NFC; curly quotes -> straight; dashes and minus ->
``-``; NBSP and other spaces -> space; runs of whitespace -> one space; zero-width characters
dropped). The normalised paragraph keeps, for every character, the raw span it came from,
so a match maps back to the raw current text exactly, whatever tabs, hyperlinks, repeated or
leading spaces the runs hold.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

_CHAR_MAP = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u00b4": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"',
    "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\ufe63": "-", "\uff0d": "-", "\u2043": "-",
    "\u2026": "...",
}
_ZERO_WIDTH = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}


_ZW_CLASS = "".join(sorted(_ZERO_WIDTH))
_SCAN = re.compile(rf"(?P<plain>[!-~]+)|(?P<ws>(?:\s|[{_ZW_CLASS}])+)|(?P<other>.)", re.S)


@dataclass(slots=True)
class Normalized:
    text: str
    starts: list[int]   # raw start of each normalised char
    ends: list[int]     # raw end (exclusive) of each normalised char
    raw_len: int

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """Raw [start, end) for the normalised [start, end)."""
        if start >= end:
            pos = self.starts[start] if start < len(self.starts) else self.raw_len
            return pos, pos
        return self.starts[start], self.ends[end - 1]


def normalize_map(raw: str) -> Normalized:
    """Normalise ``raw`` keeping a map from each output character to its raw span.

    Plain ASCII stretches are copied in bulk (a 1 MB paragraph takes milliseconds); whitespace
    runs collapse to one space covering the whole run; other characters are mapped one by one
    (combining marks compose with the character before them).
    """
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    last_space = False
    for m in _SCAN.finditer(raw):
        i, j = m.span()
        kind = m.lastgroup
        if kind == "plain":
            out.append(m.group())
            starts.extend(range(i, j))
            ends.extend(range(i + 1, j + 1))
            last_space = False
        elif kind == "ws":
            if not any(c.isspace() for c in m.group()):
                continue   # zero-width characters only: dropped
            if last_space:
                ends[-1] = j
            else:
                out.append(" ")
                starts.append(i)
                ends.append(j)
                last_space = True
        else:
            ch = m.group()
            if unicodedata.combining(ch) and out:
                composed = unicodedata.normalize("NFC", out[-1][-1] + ch)
                if len(composed) == 1:
                    out[-1] = out[-1][:-1] + _CHAR_MAP.get(composed, composed)
                    ends[-1] = j
                    continue
            mapped = _CHAR_MAP.get(ch)
            if mapped is None:
                mapped = unicodedata.normalize("NFC", ch)
            for c in mapped:
                out.append(c)
                starts.append(i)
                ends.append(j)
            last_space = False
    return Normalized("".join(out), starts, ends, len(raw))


_ASCII_WS = re.compile(r"\s+")


def normalize(text: str) -> str:
    if text.isascii():
        return _ASCII_WS.sub(" ", text)
    return normalize_map(text).text


def find_all(haystack: str, needle: str) -> list[int]:
    if not needle:
        return []
    hits = []
    start = haystack.find(needle)
    while start != -1:
        hits.append(start)
        start = haystack.find(needle, start + 1)
    return hits


_TAG = r"(?:A\d+|\?)"
_VIEW_MARKUP = [
    (re.compile(r"^\s*\[p-\d+\]\s*"), ""),                       # a copied paragraph id
    (re.compile(r"\s*\[flags: [^\]]*\]\s*$"), ""),                  # a copied flags suffix (agent-2 view)
    (re.compile(r"\s*\[(?:table cell|table row |paragraph |formatting |in a field )[^\]]*\]\s*$"), ""),  # notes
    (re.compile(r"\{--.*?--\}(\[[^\]]*\])?", re.S), ""),
    (re.compile(r"\{\+\+(.*?)\+\+\}(\[[^\]]*\])?", re.S), r"\1"),
    (re.compile(r"\{cmt-\d+\}"), ""),
    # the agent-3 read view: comment markers, struck parts of insertions, then the changes
    (re.compile(r"</>|</?cmt-\d+/?>"), ""),
    (re.compile(r"\{[-<][^{}+]*\}" + _TAG + r"(?=[^{]*\}" + _TAG + ")"), ""),
    (re.compile(r"\{-[^{}+]*\+([^{}]*)\}" + _TAG), r"\1"),
    (re.compile(r"\{[-<][^{}]*\}" + _TAG), ""),
    (re.compile(r"\{[+>]([^{}]*)\}" + _TAG), r"\1"),
    (re.compile("\u21b5"), " "),                                      # the view's line-break sign
]


def strip_view_markup(text: str) -> str:
    """Remove read-view markup a model may have copied into an anchor."""
    for pattern, repl in _VIEW_MARKUP:
        text = pattern.sub(repl, text)
    return text


@dataclass
class Match:
    start: int   # raw current-text offsets
    end: int
    # The quoted anchor began / ended with whitespace. The span never includes it (it is the word
    # separator, not part of the quoted words), so callers can trim the same edge of new_text.
    lead_ws: bool = False
    trail_ws: bool = False
    label: str | None = None   # the clause number dropped from the front of the anchor, if any


class AnchorError(Exception):
    def __init__(self, code: str, message: str, candidates: list | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.candidates = candidates or []


def _excerpt(norm: str, start: int, end: int, width: int = 30) -> str:
    a = max(0, start - width)
    b = min(len(norm), end + width)
    return ("..." if a else "") + norm[a:b] + ("..." if b < len(norm) else "")


def locate(raw: str, text: str, *, context_before: str | None = None, context_after: str | None = None,
           occurrence: int | None = None, label: str | Callable[[], str | None] | None = None) -> Match:
    """Find ``text`` in the paragraph's raw current text; raises :class:`AnchorError`.

    Whitespace at the edges of ``text`` may select where it matches (" and" is not "band"), but
    it is never part of the returned span: it is the separator between words, and replacing or
    deleting it would glue the neighbouring words together.

    Fallbacks, tried only when the exact (normalised) text is absent: surrounding whitespace
    trimmed; read-view markup a model copied along (ids, notes, {+ }A1/{- }A1, <cmt-N>, agent-2 forms)
    removed; the paragraph's clause number (``label``, or a callable returning it, called only
    when needed) dropped from the front when the rest matches at the start of the paragraph.
    """
    norm = normalize_map(raw)
    quoted = normalize(text)
    needle = quoted
    dropped = None
    hits = find_all(norm.text, needle)
    if not hits and needle.strip() != needle:
        needle = needle.strip()
        hits = find_all(norm.text, needle)
    if not hits:
        cleaned = normalize(strip_view_markup(text)).strip()
        if cleaned and cleaned != needle:
            needle = cleaned
            hits = find_all(norm.text, needle)
    if not hits and label:
        if callable(label):
            label = label()
        head = normalize(label).strip() if label else ""
        # the view prints the label right before the paragraph's text: the rest of the anchor must
        # therefore match at the very start of the paragraph
        first = len(norm.text) - len(norm.text.lstrip(" "))
        for candidate in (needle.strip(), normalize(strip_view_markup(text)).strip()) if head else ():
            if candidate.startswith(head + " "):
                trimmed = candidate[len(head) + 1:].strip()
                if trimmed and norm.text.startswith(trimmed, first):
                    needle, hits, dropped = trimmed, [first], label
                    break
    if not hits:
        raise AnchorError("text_not_found", "the anchor text does not occur in the paragraph's current text")
    if context_before:
        before = normalize(strip_view_markup(context_before)).strip()
        if before:
            kept = [h for h in hits if norm.text[:h].rstrip().endswith(before)]
            if not kept:
                raise AnchorError("text_not_found", "the anchor text occurs, but not right after context_before",
                                  [{"occurrence": i + 1, "context": _excerpt(norm.text, h, h + len(needle))}
                                   for i, h in enumerate(hits)])
            hits = kept
    if context_after:
        after = normalize(strip_view_markup(context_after)).strip()
        if after:
            kept = [h for h in hits if norm.text[h + len(needle):].lstrip().startswith(after)]
            if not kept:
                raise AnchorError("text_not_found", "the anchor text occurs, but not right before context_after",
                                  [{"occurrence": i + 1, "context": _excerpt(norm.text, h, h + len(needle))}
                                   for i, h in enumerate(hits)])
            hits = kept
    if occurrence is not None:
        if not 1 <= occurrence <= len(hits):
            raise AnchorError("text_not_found", f"occurrence {occurrence} requested but the text occurs "
                              f"{len(hits)} time(s)",
                              [{"occurrence": i + 1, "context": _excerpt(norm.text, h, h + len(needle))}
                               for i, h in enumerate(hits)])
        hit = hits[occurrence - 1]
    elif len(hits) > 1:
        raise AnchorError("ambiguous", f"the anchor text occurs {len(hits)} times; add context_before, "
                          "context_after or occurrence (1-based)",
                          [{"occurrence": i + 1, "context": _excerpt(norm.text, h, h + len(needle))}
                           for i, h in enumerate(hits)])
    else:
        hit = hits[0]
    lead = len(needle) - len(needle.lstrip(" "))
    trail = len(needle) - len(needle.rstrip(" ")) if lead < len(needle) else 0
    if lead == len(needle):
        lead = 0   # a whitespace-only anchor keeps its span
    start, end = norm.raw_span(hit + lead, hit + len(needle) - trail)
    return Match(start, end, lead_ws=quoted.startswith(" "), trail_ws=quoted.endswith(" "), label=dropped)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def sanitize(text: str) -> str:
    """Model text made XML-safe: CRLF/CR -> LF, other control characters and surrogates dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


_WORDS = re.compile(r"\s+|\S+")
_TRAILING = re.compile(r"^(.+?)([.,;:!?]+)$", re.S)


def tokenize(text: str) -> list[str]:
    """Words as a reader sees them: whitespace-delimited, trailing punctuation split off.

    "thirty (30) days." -> ["thirty", " ", "(30)", " ", "days", "."]
    """
    out: list[str] = []
    for tok in _WORDS.findall(text):
        m = _TRAILING.match(tok) if not tok[0].isspace() else None
        if m:
            out.extend(m.groups())
        else:
            out.append(tok)
    return out
