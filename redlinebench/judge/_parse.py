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
    """The reply holds no ``{"verdicts": [...]}`` object (retried by the caller)."""


@dataclass
class ParsedVerdicts:
    verdicts: dict[str, str]          # every requested rubric id -> "PASS" | "FAIL"
    justifications: dict[str, str]
    missing: list[str]                # requested ids the reply did not answer (counted FAIL)
    unknown: list[str]                # ids in the reply that were not asked for (ignored)
    invalid: list[str]                # ids whose verdict was not exactly PASS/FAIL (counted FAIL)


def _candidates(text: str) -> list[str]:
    out = [m.group(1) for m in _FENCE.finditer(text)]
    start = text.find("{")
    if start >= 0:
        out.append(text[start:])
    return out


def _load(text: str) -> dict:
    decoder = json.JSONDecoder()
    for candidate in _candidates(text):
        candidate = candidate.strip()
        start = candidate.find("{")
        if start < 0:
            continue
        try:
            obj, _end = decoder.raw_decode(candidate[start:])
        except (ValueError, RecursionError):
            # JSONDecodeError, an integer too long to convert (ValueError), nesting too deep for
            # the decoder (RecursionError): all just an unparseable candidate
            continue
        if isinstance(obj, dict) and isinstance(obj.get("verdicts"), list):
            return obj
    raise UnparseableReply("no JSON object with a 'verdicts' list in the reply")


def parse_verdicts(text: str | None, rubric_ids: Sequence[str]) -> ParsedVerdicts:
    """Parse fenced JSON or text from the first ``{``; missing or non-PASS/FAIL verdicts are FAIL.

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
    obj = _load(text)
    wanted = [str(r) for r in rubric_ids]
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
