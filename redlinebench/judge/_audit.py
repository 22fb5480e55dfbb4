"""Per-run judge audit log (JSONL): one line per judge call per grading attempt, never an API key.

Every grading of a trial is an *attempt* with its own id: each of its judge calls is written once,
tagged with that ``attempt_id``, and the trial's grade.json records the attempt that produced it.
A run that is killed and resumed grades some trials again, so the log then holds lines of
attempts whose grade was never written (or was replaced); :func:`audit_tally` tells them apart,
so a call is never counted twice.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._text import encodable

# Things that look like credentials: provider keys, bearer tokens, key=... pairs.
_SECRET_PATTERNS = [
    re.compile(r"\b(sk|pk|rk|hf|gsk|xai|AIza)[-_A-Za-z0-9]{8,}"),
    re.compile(r"(://)[^/\s:@]+:[^/\s@]+@"),                       # user:password@ in a URL
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|x-api-key|authorization|token)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{4,}"),
]
_KEY_ENV_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")


def _known_secrets() -> list[str]:
    return [v for k, v in os.environ.items() if k.endswith(_KEY_ENV_SUFFIXES) and len(v) >= 6]


def redact(text: str | None, extra_secrets: list[str] | None = None) -> str | None:
    """Remove anything that looks like a credential from free text (error messages, replies)."""
    if text is None:
        return None
    for secret in [*(extra_secrets or []), *_known_secrets()]:
        if secret:
            text = text.replace(secret, "[redacted]")
    text = _SECRET_PATTERNS[0].sub("[redacted]", text)
    text = _SECRET_PATTERNS[1].sub(lambda m: m.group(1) + "[redacted]@", text)
    for pattern in _SECRET_PATTERNS[2:]:
        text = pattern.sub(lambda m: m.group(1) + "[redacted]", text)
    return text


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {k: _scrub(v, secrets) for k, v in value.items()
                if str(k).lower() not in {"api_key", "authorization", "headers"}}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    return value


def new_attempt_id() -> str:
    """A fresh id for one grading attempt of one trial (unique across runs and resumes)."""
    return uuid.uuid4().hex


class AuditLog:
    """Appends JSON lines under a lock; every string passes through :func:`redact`.

    :meth:`bind` gives a view of the same log that adds fixed fields (the attempt id) to every
    line, so the judges write their lines as before and each line still names its attempt.
    """

    def __init__(self, path: str | Path, *, secrets: list[str] | None = None) -> None:
        self.path = Path(path)
        self._secrets = [s for s in (secrets or []) if s]
        self._lock = threading.Lock()
        self._fields: dict[str, Any] = {}

    def bind(self, **fields: Any) -> AuditLog:
        """The same file, lock and secrets; ``fields`` are written into every line (they win over
        a judge's own keys of the same name)."""
        child = AuditLog.__new__(AuditLog)
        child.path, child._secrets, child._lock = self.path, self._secrets, self._lock
        child._fields = {**self._fields, **fields}
        return child

    def add_secret(self, secret: str | None) -> None:
        if secret and secret not in self._secrets:
            self._secrets.append(secret)

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps({"ts": round(time.time(), 3), **_scrub({**record, **self._fields}, self._secrets)},
                          ensure_ascii=False, default=str)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(encodable(line) + "\n")


def read_audit(path: str | Path) -> tuple[list[dict[str, Any]], int]:
    """The log's records and the number of lines that are not a JSON object (a line cut short by a
    kill, a damaged file): those are skipped, never an error. A missing log is ``([], 0)``."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [], 0
    records: list[dict[str, Any]] = []
    bad = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(record, dict):
            records.append(record)
        else:
            bad += 1
    return records, bad


def _trial_key(record: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(record.get("model_under_test") if "model_under_test" in record else record.get("model")),
            str(record.get("task_id")), str(record.get("trial")))


def _cost(record: Mapping[str, Any]) -> float | None:
    value = record.get("cost_usd")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        return None
    return float(value)


def audit_tally(records: Iterable[Mapping[str, Any]], grades: Iterable[Any]) -> dict[str, Any]:
    """What the log says about judge calls, each counted once.

    ``grades`` are the trials' grade.json contents (``model``, ``task_id``, ``trial``,
    ``attempt_id``). A line belongs to the *final* attempt of its trial when its ``attempt_id`` is
    the one that trial's grade records; every other line (an attempt killed before its grade was
    written, judging that was incomplete and finished later, a re-judge) is *superseded*. The same
    (attempt, judge) written twice counts once. Lines older than attempt ids: the last one per
    (trial, judge) stands for the final attempt when the grade records no attempt id.

    ``n_calls``: final-attempt lines (one per judge per graded trial); ``n_superseded``: lines of
    other attempts; ``n_uncached_calls``/``cost_usd``: the calls not answered from the cache, over
    all attempts (spend is real even when its attempt was replaced), each once.
    """
    final: dict[tuple[str, str, str], str | None] = {}
    for g in grades:
        if not isinstance(g, Mapping):   # a TrialGrade
            g = {"model": getattr(g, "model", None), "task_id": getattr(g, "task_id", None),
                 "trial": getattr(g, "trial", None), "attempt_id": getattr(g, "attempt_id", None)}
        key = (str(g.get("model")), str(g.get("task_id")), str(g.get("trial")))
        attempt = g.get("attempt_id")
        final[key] = attempt if isinstance(attempt, str) and attempt else None
    seen: set[tuple[Any, ...]] = set()
    legacy_last: dict[tuple[Any, ...], int] = {}
    rows: list[tuple[Mapping[str, Any], bool]] = []   # (record, belongs to a final attempt)
    duplicates = 0
    for record in records:
        key = _trial_key(record)
        attempt = record.get("attempt_id")
        judge = str(record.get("judge"))
        if isinstance(attempt, str) and attempt:
            ident = (attempt, judge)
            if ident in seen:
                duplicates += 1
                continue
            seen.add(ident)
            rows.append((record, key in final and final[key] == attempt))
        else:
            legacy_last[(*key, judge)] = len(rows)
            rows.append((record, False))
    for (*key, _judge), index in legacy_last.items():
        if tuple(key) in final and final[tuple(key)] is None:
            rows[index] = (rows[index][0], True)
    spent = [r for r, _ in rows if not r.get("cached")]
    costs = [_cost(r) for r in spent]
    near, repaired = reply_slips(r for r, f in rows if f)
    return {
        "n_lines": len(rows) + duplicates,
        "n_calls": sum(1 for _, f in rows if f),
        "n_cached": sum(1 for r, f in rows if f and r.get("cached")),
        "n_failed": sum(1 for r, f in rows if f and r.get("ok") is False),
        "n_superseded": sum(1 for _, f in rows if not f),
        "n_duplicate_lines": duplicates,
        "n_uncached_calls": len(spent),
        "cost_usd": None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6),
        "near_misses": near,
        "json_repaired": repaired,
    }


def reply_slips(records: Iterable[Mapping[str, Any]]) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """Per judge: the verdicts that were not exactly PASS/FAIL (counted FAIL, SPEC §5.3) as
    ``{"n": count, "values": {verdict as written: count}}``, and how many replies needed a JSON
    repair to be read. Judges with neither are left out."""
    near: dict[str, dict[str, Any]] = {}
    repaired: dict[str, int] = {}
    for record in records:
        judge = str(record.get("judge"))
        misses = record.get("near_misses")
        if isinstance(misses, Mapping) and misses:
            row = near.setdefault(judge, {"n": 0, "values": {}})
            for value in misses.values():
                row["n"] += 1
                row["values"][str(value)] = row["values"].get(str(value), 0) + 1
        if record.get("json_repaired"):
            repaired[judge] = repaired.get(judge, 0) + 1
    for row in near.values():
        row["values"] = dict(sorted(row["values"].items(), key=lambda kv: (-kv[1], kv[0])))
    return dict(sorted(near.items())), dict(sorted(repaired.items()))


def near_miss_lines(judge_calls: Mapping[str, Any] | None) -> list[str]:
    """One line per judge whose verdicts were not exactly PASS/FAIL, and per judge whose replies
    were read after a JSON repair (the run's end, the report)."""
    calls = judge_calls or {}
    lines = []
    for judge, row in (calls.get("near_misses") or {}).items():
        shown = ", ".join(f"{value!r} x{n}" for value, n in list(row["values"].items())[:5])
        lines.append(f"judge {judge}: {row['n']} verdict(s) not exactly PASS or FAIL, counted FAIL (SPEC 5.3): "
                     f"{shown}")
    for judge, n in (calls.get("json_repaired") or {}).items():
        lines.append(f"judge {judge}: {n} repl(ies) read after repairing their JSON (comments, trailing commas or "
                     "single quotes)")
    return lines


AUDIT_NAME = "judge_audit.jsonl"


def audit_logs_for(grade_files: Iterable[str | Path]) -> list[Path]:
    """The run logs of these grade files (``runs/<id>/judge_audit.jsonl`` above
    ``trials/<model>/<task>/<k>/grade.json``), each once."""
    found: dict[Path, None] = {}
    for f in grade_files:
        for parent in list(Path(f).parents)[:6]:
            candidate = parent / AUDIT_NAME
            if candidate.is_file():
                found[candidate.resolve()] = None
                break
    return list(found)


def audit_section(audit_paths: Iterable[str | Path], grades: Iterable[Any]) -> dict[str, Any]:
    """:func:`audit_tally` over every log given (the ``judge_calls`` section of a summary)."""
    records: list[dict[str, Any]] = []
    unreadable = 0
    paths = [Path(p) for p in audit_paths]
    for path in paths:
        got, bad = read_audit(path)
        records += got
        unreadable += bad
    return {**audit_tally(records, grades), "n_unreadable_lines": unreadable, "n_logs": len(paths)}
