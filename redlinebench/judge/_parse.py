"""Reading a judge's reply. Every reply is hostile until it parses."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

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


def _load_all(text: str) -> list[dict]:
    """Every ``{"verdicts": [...]}`` object the reply offers, in the order they appear."""
    decoder = json.JSONDecoder()
    found: dict[int, dict] = {}
    for where, candidate in _candidates(text):
        if where in found:
            continue
        try:
            obj, _end = decoder.raw_decode(candidate)
        except (ValueError, RecursionError):
            # JSONDecodeError, an integer too long to convert (ValueError), nesting too deep for
            # the decoder (RecursionError): all just an unparseable candidate
            continue
        if isinstance(obj, dict) and isinstance(obj.get("verdicts"), list):
            found[where] = obj
    if not found:
        raise UnparseableReply("no JSON object with a 'verdicts' list in the reply")
    return [found[where] for where in sorted(found)]


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
    for obj in _load_all(text):
        parsed = _read(obj, wanted)
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
        got[rid] = verdict
        note = item.get("justification")
        notes[rid] = (note if isinstance(note, str) else "")[:MAX_JUSTIFICATION]
    missing = [rid for rid in wanted if rid not in got]
    for rid in missing:
        got[rid] = FAIL
        notes[rid] = "no verdict returned (counted FAIL)"
    return ParsedVerdicts({rid: got[rid] for rid in wanted}, {rid: notes[rid] for rid in wanted},
                          missing, unknown, invalid)
