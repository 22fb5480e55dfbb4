"""A side's positions table (SPEC §8.4) and the machine-checkable tests that place an agreed text on it.

Every playbook of the arena carries a Markdown table ``Issue | Preferred | Fallback | Walk-away``
(extra columns allowed, e.g. ``Clause``). :func:`positions` reads it from the task's grounding
text, so any task tree with such a table can be played. The embedded set also ships, per task,
``tests/positions.json`` (verifier side, never shown to agents): per issue the clauses it lives
in and a test per level, which :func:`place` applies to an agreed document exactly. The same
functions serve the synthetic build (goldens must land where the sources say), the offline
arena judge and the ``playbook`` baseline, so the three can never disagree on a level.

A test is a mapping with any of: ``all`` (regexes that must all match), ``any`` (at least one
must match), ``none`` (none may match), ``number`` (``{find, min?, max?, above?, below?}`` or a
list of them: the first match of ``find``'s group, digits with separators, must lie in the
bounds), ``equals`` (the whole scope text, whitespace folded). Regexes are case-insensitive and
run on the scope text with typographic quotes made straight. A level holds a list of tests,
any one of which places the issue there; levels are tried preferred, fallback, walk_away, and an
issue that passes none is ``inside`` (worse than Fallback, short of Walk-away).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import TaskError

#: Worst to best; SPEC §8.4.
LEVELS = ("walk_away", "inside", "fallback", "preferred")
#: The order in which tests are tried; no match is ``inside``.
TESTED_LEVELS = ("preferred", "fallback", "walk_away")
POSITIONS_FILE = "tests/positions.json"
POSITIONS_VERSION = 1

_HEADER_KEYS = {"issue": "issue", "preferred": "preferred", "fallback": "fallback", "walk-away": "walk_away",
                "walk away": "walk_away", "walkaway": "walk_away", "clause": "clause", "section": "clause"}
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})
_NUMBER = re.compile(r"^\d[\d,]*(\.\d+)?$")
_TEST_KEYS = {"all", "any", "none", "number", "equals"}
_BOUNDS = {"min", "max", "above", "below"}


@dataclass(frozen=True)
class Position:
    """One row of a side's positions table, as the agent reads it."""

    issue: str
    preferred: str
    fallback: str
    walk_away: str
    clause: str | None = None


# ----------------------------------------------------------------------------- the table


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") else body
    return [c.strip() for c in body.split("|")]


def parse_positions_table(markdown: str) -> list[Position] | None:
    """The first Markdown table whose header names Issue, Preferred, Fallback and Walk-away; None without one."""
    lines = markdown.splitlines()
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("|"):
            continue
        header = [_HEADER_KEYS.get(c.lower()) for c in _cells(line)]
        if not {"issue", "preferred", "fallback", "walk_away"} <= set(header):
            continue
        if i + 1 >= len(lines) or not re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", lines[i + 1]):
            continue
        rows: list[Position] = []
        for row in lines[i + 2:]:
            if not row.lstrip().startswith("|"):
                break
            cells = _cells(row)
            if len(cells) != len(header):
                raise ValueError(f"table row has {len(cells)} cells, the header has {len(header)}: {row.strip()[:80]}")
            values = {key: cell for key, cell in zip(header, cells) if key}
            if not values["issue"]:
                raise ValueError(f"table row without an issue: {row.strip()[:80]}")
            rows.append(Position(values["issue"], values["preferred"], values["fallback"], values["walk_away"],
                                 values.get("clause") or None))
        if not rows:
            raise ValueError("positions table has no rows")
        return rows
    return None


def positions(task: Any) -> list[Position]:
    """The positions table of ``task``'s side, read from its grounding text (TaskError naming the file)."""
    for name in sorted(task.grounding):
        path = Path(task.root) / "environment" / "app" / "grounding" / name
        try:
            table = parse_positions_table(task.grounding[name])
        except ValueError as exc:
            raise TaskError(f"malformed positions table: {exc}", path=path) from None
        if table is not None:
            return table
    raise TaskError("no positions table (a Markdown table with columns Issue | Preferred | Fallback | Walk-away) "
                    "in any grounding text of this task", path=Path(task.root) / "environment" / "app" / "grounding")


# ----------------------------------------------------------------------------- tests


def normalise(text: str) -> str:
    """NFC, typographic quotes straight, whitespace runs as one space: what tests match against."""
    return " ".join(unicodedata.normalize("NFC", text).translate(_QUOTES).split())


def check_test(test: Any) -> list[str]:
    """Problems with one test (empty when it is well formed)."""
    if not isinstance(test, dict) or not test:
        return ["a test must be a non-empty mapping"]
    problems = [f"unknown key {k!r}" for k in test if k not in _TEST_KEYS]
    for key in ("all", "any", "none"):
        patterns = test.get(key, [])
        if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns):
            problems.append(f"{key} must be a list of regexes")
            continue
        for p in patterns:
            try:
                re.compile(p)
            except re.error as exc:
                problems.append(f"bad regex {p!r}: {exc}")
    numbers = test.get("number", [])
    for n in numbers if isinstance(numbers, list) else [numbers]:
        if not isinstance(n, dict) or not isinstance(n.get("find"), str) or not (_BOUNDS & set(n)):
            problems.append("number needs find (a regex with one group) and a bound (min, max, above, below)")
            continue
        try:
            if re.compile(n["find"]).groups != 1:
                problems.append(f"number.find {n['find']!r} must have exactly one group")
        except re.error as exc:
            problems.append(f"bad regex {n['find']!r}: {exc}")
        problems += [f"number.{k} must be a number" for k in _BOUNDS & set(n)
                     if not isinstance(n[k], (int, float)) or isinstance(n[k], bool)]
    if "equals" in test and not isinstance(test["equals"], str):
        problems.append("equals must be a string")
    return problems


def _number_ok(cond: dict, text: str) -> bool:
    m = re.search(cond["find"], text, re.IGNORECASE)
    if m is None or not _NUMBER.match(m.group(1) or ""):
        return False
    value = float(m.group(1).replace(",", ""))
    return (value >= cond.get("min", value) and value <= cond.get("max", value)
            and ("above" not in cond or value > cond["above"]) and ("below" not in cond or value < cond["below"]))


def passes(test: dict, text: str) -> bool:
    """Whether the (normalised) scope ``text`` passes one test."""
    flags = re.IGNORECASE
    if not all(re.search(p, text, flags) for p in test.get("all", [])):
        return False
    if test.get("any") and not any(re.search(p, text, flags) for p in test["any"]):
        return False
    if any(re.search(p, text, flags) for p in test.get("none", [])):
        return False
    numbers = test.get("number", [])
    if not all(_number_ok(n, text) for n in (numbers if isinstance(numbers, list) else [numbers])):
        return False
    return "equals" not in test or normalise(test["equals"]) == text


def level_of(tests: dict[str, list[dict]], text: str) -> str:
    """The level an issue's scope ``text`` is at: the first of preferred, fallback, walk_away whose tests it passes."""
    for level in TESTED_LEVELS:
        if any(passes(t, text) for t in tests.get(level, [])):
            return level
    return "inside"


# ----------------------------------------------------------------------------- scope in a document


def _is_clause(text: str, number: str, heading: str) -> bool:
    """A sub-clause starts with its heading ("Cap. Each party's ..."); a section heading is the whole line."""
    text, heading = normalise(text).casefold(), normalise(heading).casefold()
    return text.startswith(heading) if "." in number else text == heading


def template_numbers(paragraphs: list, headings: dict[str, str | None] | None = None) -> list[str]:
    """The template clause number each paragraph belongs to ("" before the first clause).

    Without ``headings`` that is the displayed number. With the template's clause headings
    (``{"12.2": "Cap.", "1.1": None, ...}``) a numbered paragraph is recognised by its heading,
    so a clause an agent inserted or deleted earlier does not shift the clauses after it: a
    paragraph that starts with a template heading is that clause; one without a match keeps its
    number if that clause is not found elsewhere; any other (a new clause) belongs, like a table
    or an unnumbered paragraph, to the clause before it.
    """
    own = [i for i, p in enumerate(paragraphs) if p.number and not p.in_table]
    matched: dict[int, str] = {}
    if headings:
        ordered = sorted(((n, h) for n, h in headings.items() if h), key=lambda nh: -len(nh[1]))
        for i in own:
            hit = next((n for n, h in ordered if _is_clause(paragraphs[i].text, n, h)), None)
            if hit is not None:
                matched[i] = hit
    claimed = set(matched.values())
    out: list[str] = []
    current = ""
    for i, p in enumerate(paragraphs):
        if p.number and not p.in_table:
            number = p.number.rstrip(".")
            if i in matched:
                current = matched[i]
            elif not headings or (number in headings and number not in claimed):
                current = number
        out.append(current)
    return out


def clause_paragraphs(paragraphs: list, headings: dict[str, str | None] | None = None) -> list[tuple[str, str]]:
    """``(clause number, text)`` per paragraph (numbers as :func:`template_numbers` gives them); a
    clause's own paragraph comes first, then its tables and the paragraphs that belong to it."""
    return list(zip(template_numbers(paragraphs, headings), (p.text for p in paragraphs)))


def scope_text(numbered: list[tuple[str, str]], clauses: list[str]) -> str:
    """The normalised text of the named clauses (each with its sub-clauses and tables), in document order."""
    wanted = [c.rstrip(".") for c in clauses]
    parts = [text for number, text in numbered
             if number and any(number == c or number.startswith(c + ".") for c in wanted)]
    return normalise(" | ".join(t for t in parts if t.strip()))


def agreed_paragraphs(docx: bytes | str | Path,
                      headings: dict[str, str | None] | None = None) -> list[tuple[str, str]]:
    """The agreed text (every revision accepted) of a document as ``(clause number, text)`` pairs."""
    from ..docx import RedlineDocument

    doc = RedlineDocument.open(docx)
    doc.accept()
    return clause_paragraphs(doc.paragraphs, headings)


# ----------------------------------------------------------------------------- per-task tests


def apply_move(numbered: list[tuple[str, str]], move: dict[str, str]) -> list[tuple[str, str]]:
    """``numbered`` with each named clause's own paragraph (the first entry of its number) set to the move's text."""
    out, done = [], set()
    for number, text in numbered:
        if number in move and number not in done:
            out.append((number, move[number]))
            done.add(number)
        else:
            out.append((number, text))
    return out


@dataclass(frozen=True)
class IssueTests:
    """One issue's clauses and tests, from ``tests/positions.json``; ``moves`` are clause texts that put the
    issue at preferred or fallback (from the sources: the template, the goldens, or written for it)."""

    issue: str
    clauses: tuple[str, ...]
    tests: dict[str, list[dict]]
    moves: dict[str, dict[str, str]] = field(default_factory=dict)

    def place(self, numbered: list[tuple[str, str]]) -> tuple[str, str]:
        """``(level, quote)``: the level the agreed clauses are at and their text."""
        text = scope_text(numbered, list(self.clauses))
        return level_of(self.tests, text), text


def _positions_data(task: Any) -> tuple[Path, Any]:
    path = Path(task.root) / POSITIONS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskError("no positions tests for the heuristic arena judge (only the embedded set ships them; "
                        "use an LLM arena judge for other trees)", path=path) from None
    except (OSError, ValueError) as exc:
        raise TaskError(f"not readable JSON ({exc})", path=path) from None
    return path, data


def load_headings(task: Any) -> dict[str, str | None]:
    """The template's clause headings from ``tests/positions.json`` (empty when it has none)."""
    path, data = _positions_data(task)
    headings = data.get("headings") if isinstance(data, dict) else None
    if headings is None:
        return {}
    if not isinstance(headings, dict) or not all(isinstance(k, str) and (v is None or isinstance(v, str))
                                                 for k, v in headings.items()):
        raise TaskError("headings must map clause numbers to a heading or null", path=path)
    return dict(headings)


def load_issue_tests(task: Any) -> list[IssueTests]:
    """The task's ``tests/positions.json`` (TaskError naming the file when absent or malformed)."""
    path, data = _positions_data(task)
    out: list[IssueTests] = []
    issues = data.get("issues") if isinstance(data, dict) else None
    if not isinstance(issues, list) or not issues:
        raise TaskError("needs issues: a non-empty list", path=path)
    for i, raw in enumerate(issues):
        ok = (isinstance(raw, dict) and isinstance(raw.get("issue"), str) and isinstance(raw.get("clauses"), list)
              and raw["clauses"] and isinstance(raw.get("levels"), dict))
        if not ok:
            raise TaskError("each issue needs issue, clauses (a list) and levels", path=path, field=f"issues[{i}]")
        levels = {k: v for k, v in raw["levels"].items() if k in TESTED_LEVELS}
        problems = [p for tests in levels.values() for t in tests for p in check_test(t)]
        if not levels.get("preferred") or problems:
            raise TaskError("; ".join(problems) or "needs a preferred test", path=path, field=f"issues[{i}]")
        moves = raw.get("moves") or {}
        if not isinstance(moves, dict) or not all(isinstance(m, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in m.items()) for m in moves.values()):
            raise TaskError("moves must map a level to {clause: text}", path=path, field=f"issues[{i}]")
        out.append(IssueTests(raw["issue"], tuple(str(c) for c in raw["clauses"]), levels,
                              {k: dict(v) for k, v in moves.items() if k in ("preferred", "fallback")}))
    return out


__all__ = [
    "LEVELS",
    "POSITIONS_FILE",
    "POSITIONS_VERSION",
    "TESTED_LEVELS",
    "IssueTests",
    "Position",
    "agreed_paragraphs",
    "apply_move",
    "check_test",
    "clause_paragraphs",
    "level_of",
    "load_headings",
    "load_issue_tests",
    "template_numbers",
    "normalise",
    "parse_positions_table",
    "passes",
    "positions",
    "scope_text",
]
