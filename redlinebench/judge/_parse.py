"""Reading a judge's reply. Every reply is hostile until it parses."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..scoring import FAIL, normalize_verdict

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
MAX_JUSTIFICATION = 1000


class UnparseableReply(ValueError):
    """The reply holds no ``{"verdicts": [...]}`` object answering at least one requested rubric
    id (retried by the caller)."""


@dataclass
class ParsedVerdicts:
    verdicts: dict[str, str]          # every requested rubric id -> "PASS" | "FAIL"
    justifications: dict[str, str]
    missing: list[str]                # requested ids the reply did not answer (counted FAIL)
    unknown: list[str]                # ids in the reply that were not asked for (ignored)
    invalid: list[str]                # ids whose verdict was not exactly PASS/FAIL (counted FAIL)
    near_misses: dict[str, str] = field(default_factory=dict)  # those ids -> the verdict as written
    repaired: list[str] = field(default_factory=list)  # JSON repairs made to read the reply (REPAIRS)


#: Where a later object may start outside a fence (an unfenced example, then the real answer).
_VERDICTS_OBJECT = re.compile(r'\{\s*"verdicts"\s*:')
#: How many candidate objects one reply may offer; a hostile reply cannot make reading it quadratic.
MAX_CANDIDATES = 64


def _candidates(text: str) -> list[tuple[int, str]]:
    """``(where the object starts in the reply, text to decode from)``, one per possible object:
    each fenced block, the text from the first ``{``, and each unfenced ``{"verdicts":``."""
    out: list[tuple[int, str]] = []
    for m in _FENCE.finditer(text):
        body = m.group(1)
        start = body.find("{")
        if start >= 0:
            out.append((m.start(1) + start, body[start:]))
        if len(out) >= MAX_CANDIDATES:
            return out
    start = text.find("{")
    if start >= 0:
        out.append((start, text[start:]))
    for m in _VERDICTS_OBJECT.finditer(text):
        if len(out) >= MAX_CANDIDATES:
            break
        out.append((m.start(), text[m.start():]))
    return out


#: The repairs made to a reply that is JSON but for these slips, each with one reading only.
REPAIRS = ("comments", "trailing_commas", "single_quotes")


def _repair(candidate: str) -> tuple[str, list[str]] | None:
    """The object at the start of ``candidate`` with ``//`` and ``/* */`` comments removed, commas
    before ``}`` / ``]`` dropped and single-quoted strings double-quoted, and what was repaired;
    ``None`` when there is no object to close. Strings are read as strings throughout, so a comma,
    slash or quote inside one is left alone: nothing is guessed."""
    out: list[str] = []
    done: set[str] = set()
    depth, i, n = 0, 0, len(candidate)
    while i < n:
        c = candidate[i]
        if c in "\"'":
            j, chars = i + 1, []
            while j < n and candidate[j] != c:
                if candidate[j] == "\\" and j + 1 < n:
                    nxt = candidate[j + 1]
                    chars.append(nxt if (c == "'" and nxt == "'") else candidate[j:j + 2])
                    j += 2
                    continue
                chars.append(candidate[j])
                j += 1
            if j >= n:
                return None
            body = "".join(chars)
            if c == "'":
                done.add("single_quotes")
                try:
                    body = json.dumps(json.loads(f'"{body.replace(chr(34), chr(92) + chr(34))}"'))[1:-1]
                except ValueError:
                    return None
            out.append(f'"{body}"')
            i = j + 1
            continue
        if candidate.startswith("//", i):
            done.add("comments")
            i = candidate.find("\n", i)
            i = n if i < 0 else i
            continue
        if candidate.startswith("/*", i):
            done.add("comments")
            end = candidate.find("*/", i + 2)
            if end < 0:
                return None
            i = end + 2
            continue
        if c == ",":
            rest = candidate[i + 1:].lstrip()
            while rest.startswith(("//", "/*")):  # a comment between the comma and the bracket
                cut = rest.find("\n") if rest.startswith("//") else rest.find("*/") + 1
                rest = rest[cut + 1:].lstrip() if cut > 0 else ""
            if rest[:1] in ("}", "]"):
                done.add("trailing_commas")
                i += 1
                continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        out.append(c)
        i += 1
        if depth == 0:
            break
    if depth != 0 or not done:
        return None
    return "".join(out), [r for r in REPAIRS if r in done]


def _load_all(text: str) -> list[tuple[dict, list[str]]]:
    """Every ``{"verdicts": [...]}`` object the reply offers, in the order they appear, each with
    the repairs it needed (none for valid JSON; see :func:`_repair`)."""
    decoder = json.JSONDecoder()
    found: dict[int, tuple[dict, list[str]]] = {}
    for where, candidate in _candidates(text):
        if where in found:
            continue
        repairs: list[str] = []
        try:
            obj, _end = decoder.raw_decode(candidate)
        except (ValueError, RecursionError):
            # JSONDecodeError, an integer too long to convert (ValueError), nesting too deep for
            # the decoder (RecursionError): unparseable as it stands; one unambiguous repair is tried
            fixed = _repair(candidate) if len(candidate) <= _MAX_REPAIR_CHARS else None
            if fixed is None:
                continue
            try:
                obj, repairs = json.loads(fixed[0]), fixed[1]
            except (ValueError, RecursionError):
                continue
        if isinstance(obj, dict) and isinstance(obj.get("verdicts"), list):
            found[where] = (obj, repairs)
    if not found:
        raise UnparseableReply("no JSON object with a 'verdicts' list in the reply")
    return [found[where] for where in sorted(found)]


#: Longer candidates are not repaired (a hostile reply cannot make reading it slow).
_MAX_REPAIR_CHARS = 200_000


def parse_verdicts(text: str | None, rubric_ids: Sequence[str]) -> ParsedVerdicts:
    """Parse fenced JSON or text from the first ``{``; missing or non-PASS/FAIL verdicts are FAIL.

    Of several objects in one reply, the one answering the most requested ids is read (ties: the
    later one). A reply answering none of them (``{"verdicts": []}``, only unknown ids) is
    unparseable, not a FAIL on every rubric.

    Raises only :class:`UnparseableReply` (retried by the caller), whatever the reply holds.
    """
    if not isinstance(text, str) or not text.strip():
        raise UnparseableReply("empty reply")
    try:
        return _parse(text, rubric_ids)
    except UnparseableReply:
        raise
    except Exception as exc:  # noqa: BLE001  a hostile reply must not crash judging
        raise UnparseableReply(f"the reply could not be read ({type(exc).__name__})") from None


def _parse(text: str, rubric_ids: Sequence[str]) -> ParsedVerdicts:
    """The answer is the object covering the most requested ids (ties: the later one, so a reply
    that first quotes the format and then answers is read by its answer). An answer covering none
    of them is no answer: every rubric would silently become a FAIL vote."""
    wanted = [str(r) for r in rubric_ids]
    best: ParsedVerdicts | None = None
    for obj, repairs in _load_all(text):
        parsed = _read(obj, wanted)
        parsed.repaired = repairs
        if best is None or len(parsed.missing) <= len(best.missing):
            best = parsed
    assert best is not None
    if wanted and len(best.missing) == len(wanted):
        raise UnparseableReply("the reply answers none of the requested rubric ids "
                               f"(it names {len(best.unknown)} other id(s))")
    return best


def _read(obj: dict, wanted: list[str]) -> ParsedVerdicts:
    wanted_set = set(wanted)
    got: dict[str, str] = {}
    notes: dict[str, str] = {}
    unknown: list[str] = []
    invalid: list[str] = []
    near: dict[str, str] = {}
    for item in obj["verdicts"]:
        if not isinstance(item, dict):
            continue
        rid = item.get("rubric_id", item.get("id"))
        if rid is None:
            continue
        rid = str(rid).strip()
        if rid not in wanted_set:
            unknown.append(rid)
            continue
        if rid in got:  # a repeated id: the first answer stands
            continue
        raw_verdict = item.get("verdict")
        verdict = normalize_verdict(raw_verdict)
        if raw_verdict not in ("PASS", "FAIL"):
            invalid.append(rid)
            near[rid] = (raw_verdict if isinstance(raw_verdict, str) else json.dumps(raw_verdict))[:40]
        got[rid] = verdict
        note = item.get("justification")
        notes[rid] = (note if isinstance(note, str) else "")[:MAX_JUSTIFICATION]
    missing = [rid for rid in wanted if rid not in got]
    for rid in missing:
        got[rid] = FAIL
        notes[rid] = "no verdict returned (counted FAIL)"
    return ParsedVerdicts({rid: got[rid] for rid in wanted}, {rid: notes[rid] for rid in wanted},
                          missing, unknown, invalid, near)
