"""Read and check the reviewable sources of the synthetic benchmark (``data/synthetic/``).

Pure parsing: YAML and Markdown in, frozen dataclasses out. Every problem names the file and
the field, and all problems of one load are reported together so an author fixes them in one
pass. Nothing here touches a ``.docx``; the builder turns these records into documents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from ..errors import RedlineBenchError
from ..tasks._positions import TESTED_LEVELS, check_test, parse_positions_table

CATEGORIES = (
    "Commercial Context",
    "Legal correctness",
    "Negotiation Quality",
    "Deal-closing Orientation",
    "Counterparty Acceptance Prediction",
)
OPS = ("replace", "delete", "insert", "add_clause", "comment", "reply")
ROLES = ("vendor", "supplier", "customer")
_GROUP_RE = re.compile(r"^t([1-4])-g(\d{2})$")
_PARENT_RE = re.compile(r"^t([1-4])-g(\d{2})([a-z])?$")
_CLAUSE_RE = re.compile(r"^\d+(\.\d+)*$")


class SourceError(RedlineBenchError):
    """The synthetic sources are inconsistent (one line per problem, file and field named)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the synthetic sources:\n  " + "\n  ".join(problems))


# ----------------------------------------------------------------------------- records


@dataclass(frozen=True)
class TableSpec:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class ClauseSpec:
    number: str          # what Word will compute, e.g. "3.3"
    level: int           # 0 for "3", 1 for "3.3", ...
    heading: str | None  # level-0 headings
    text: str | None     # body text of sub-clauses
    table: TableSpec | None = None


@dataclass(frozen=True)
class ContractSpec:
    path: Path
    title: str
    name: str            # the agreement's name in running text, e.g. "Master Software-as-a-Service Agreement"
    subtitle: str
    preamble: tuple[str, ...]
    clauses: tuple[ClauseSpec, ...]

    def clause(self, number: str) -> ClauseSpec | None:
        for c in self.clauses:
            if c.number == number:
                return c
        return None


@dataclass(frozen=True)
class Op:
    """One action of a scripted redline, in our tool vocabulary (SPEC §4 plus comments/replies)."""

    id: str
    op: str
    clause: str | None = None
    cell: tuple[str, int, int] | None = None
    where: str | None = None          # "title"
    text: str | None = None           # anchor text (replace/delete)
    after: str | None = None          # anchor text (insert)
    new_text: str | None = None
    comment: str | None = None        # rationale comment, or the body of a comment/reply
    to: str | None = None             # reply target: "e3" (parent script) or "t2-g01:e3" / "t3-g01c:e1"
    replaces: tuple[str, ...] = ()    # violations only: golden ops this one stands in for

    @property
    def is_markup(self) -> bool:
        """A tracked change (as opposed to a comment or reply)."""
        return self.op in ("replace", "delete", "insert", "add_clause")


@dataclass(frozen=True)
class RubricSpec:
    id: str
    category: str
    weight: int
    criteria: str
    justification: str | None
    requires: tuple[str, ...]
    unless: tuple[str, ...]


@dataclass(frozen=True)
class Script:
    """The scripted redline of one attorney: a golden, or the reference answer of an accept-only task."""

    key: str                 # "t1-g01" or "t3-g01c" (an alternate golden of variant c)
    ops: tuple[Op, ...]
    violations: tuple[Op, ...]
    is_golden: bool          # False for the accept-only reference (never shipped as a golden)

    def op(self, op_id: str) -> Op | None:
        for o in self.ops + self.violations:
            if o.id == op_id:
                return o
        return None


@dataclass(frozen=True)
class VariantSpec:
    letter: str
    script_key: str
    rubrics: tuple[tuple[RubricSpec, int], ...]   # (rubric, weight used by this attorney)


@dataclass(frozen=True)
class GroupSpec:
    path: Path
    name: str                      # "t2-g01"
    turn: int
    group: int
    parent: str | None             # script key of the parent, e.g. "t1-g01" or "t3-g01c"
    accept_only: bool
    scripts: dict[str, Script]     # key -> script (main + alternates)
    variants: tuple[VariantSpec, ...]


@dataclass(frozen=True)
class PositionSpec:
    """One issue of a side's positions table: where it lives and how to place an agreed text on it.

    ``tests`` maps preferred / fallback / walk_away to alternative tests (``tasks._positions``);
    a test ``{"unchanged": True}`` means "the template's text of the clauses" and is resolved by
    the build. ``expect`` is the level each golden's agreed text must be at.
    """

    issue: str
    clauses: tuple[str, ...]
    tests: dict[str, tuple[dict, ...]]
    expect: dict[str, str]
    moves: dict[str, dict[str, str]] = field(default_factory=dict)  # level -> clause -> its text at that level


@dataclass(frozen=True)
class PartySpec:
    name: str
    negotiator: str
    role: str


@dataclass(frozen=True)
class ScenarioSpec:
    root: Path
    id: int
    label: str
    summary: str
    parties: dict[str, PartySpec]  # "A" / "B"
    sides: tuple[str, ...]         # side per turn
    start: datetime
    contract: ContractSpec
    context: str
    playbooks: dict[str, str]      # side -> markdown
    playbook_files: dict[str, str]
    groups: tuple[GroupSpec, ...]
    positions: dict[str, tuple[PositionSpec, ...]] = field(default_factory=dict)  # side -> rows in table order

    def side_of(self, turn: int) -> str:
        return self.sides[turn - 1]

    def party(self, side: str) -> PartySpec:
        return self.parties[side]

    def other(self, side: str) -> str:
        return "B" if side == "A" else "A"

    def script(self, key: str) -> Script:
        for g in self.groups:
            if key in g.scripts:
                return g.scripts[key]
        raise KeyError(key)

    def group_of(self, key: str) -> GroupSpec:
        for g in self.groups:
            if key in g.scripts:
                return g
        raise KeyError(key)


# ----------------------------------------------------------------------------- parsing


class _Collector:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, path: Path, where: str, message: str) -> None:
        self.problems.append(f"{path}: {where}: {message}")


def _yaml(path: Path, c: _Collector) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        c.add(path, "file", "missing")
    except yaml.YAMLError as exc:
        c.add(path, "file", f"not valid YAML ({str(exc).splitlines()[0]})")
    return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return " ".join(str(value).split())


def _body_text(value: Any) -> str | None:
    """Clause and edit text: whitespace runs folded; ``{sp}`` is an explicit leading space."""
    if value is None:
        return None
    raw = str(value)
    text = (" " if raw[:1].isspace() else "") + " ".join(raw.split())
    return text.replace("{sp}", " ").replace("  ", " ") if "{sp}" in text else text


def _contract(path: Path, c: _Collector) -> ContractSpec | None:
    data = _yaml(path, c)
    if not isinstance(data, dict):
        if data is not None:
            c.add(path, "file", "must be a mapping")
        return None
    clauses: list[ClauseSpec] = []
    seen: set[str] = set()
    for i, raw in enumerate(data.get("clauses") or []):
        where = f"clauses[{i}]"
        if not isinstance(raw, dict) or not isinstance(raw.get("n"), str) or not _CLAUSE_RE.match(raw["n"]):
            c.add(path, where, "needs n: a clause number such as \"3.3\" (quoted)")
            continue
        number = raw["n"]
        if number in seen:
            c.add(path, where, f"clause {number} appears twice")
        seen.add(number)
        level = number.count(".")
        heading, text = _text(raw.get("h")), _text(raw.get("t"))
        if level == 0 and not heading:
            c.add(path, where, f"top-level clause {number} needs a heading (h)")
        if level > 0 and not text:
            c.add(path, where, f"clause {number} needs text (t)")
        table = None
        if raw.get("table") is not None:
            t = raw["table"]
            if not isinstance(t, dict) or not isinstance(t.get("header"), list) or not isinstance(t.get("rows"), list):
                c.add(path, where + ".table", "needs header (list) and rows (list of lists)")
            else:
                header = tuple(str(x) for x in t["header"])
                rows = tuple(tuple(str(x) for x in row) for row in t["rows"])
                if any(len(r) != len(header) for r in rows):
                    c.add(path, where + ".table", "every row must have as many cells as the header")
                table = TableSpec(header, rows)
        clauses.append(ClauseSpec(number, level, heading, text, table))
    _check_numbering(path, clauses, c)
    title = _text(data.get("title"))
    if not title:
        c.add(path, "title", "missing")
    return ContractSpec(
        path=path,
        title=title or "",
        name=_text(data.get("name")) or (title or "").title(),
        subtitle=_text(data.get("subtitle")) or "",
        preamble=tuple(_text(p) or "" for p in data.get("preamble") or ()),
        clauses=tuple(clauses),
    )


def _check_numbering(path: Path, clauses: list[ClauseSpec], c: _Collector) -> None:
    """Stated numbers must be what a multi-level list computes (1, 1.1, 1.2, 2, 2.1 ...)."""
    counters: list[int] = []
    for clause in clauses:
        level = clause.level
        if level > len(counters):
            c.add(path, f"clause {clause.number}", "skips a level")
            return
        counters = counters[: level + 1]
        if len(counters) == level:
            counters.append(1)
        else:
            counters[level] += 1
        expected = ".".join(str(n) for n in counters)
        if expected != clause.number:
            c.add(path, f"clause {clause.number}", f"numbering runs out of order: Word would number it {expected}")
            return


def _op(path: Path, where: str, raw: Any, c: _Collector, *, violation: bool) -> Op | None:
    if not isinstance(raw, dict):
        c.add(path, where, "must be a mapping")
        return None
    oid, kind = raw.get("id"), raw.get("op")
    if not isinstance(oid, str) or not oid:
        c.add(path, where, "needs an id")
        return None
    where = f"{where} ({oid})"
    if kind not in OPS:
        c.add(path, where, f"op must be one of {', '.join(OPS)}")
        return None
    cell = raw.get("cell")
    if cell is not None:
        if not (isinstance(cell, list) and len(cell) == 3 and isinstance(cell[0], str)
                and isinstance(cell[1], int) and isinstance(cell[2], int)):
            c.add(path, where, "cell must be [clause, row, column]")
            cell = None
        else:
            cell = (cell[0], cell[1], cell[2])
    replaces = raw.get("replaces") or ()
    if isinstance(replaces, str):
        replaces = (replaces,)
    op = Op(
        id=oid,
        op=kind,
        clause=str(raw["clause"]) if raw.get("clause") is not None else None,
        cell=cell,
        where=raw.get("where"),
        text=_body_text(raw.get("text")),
        after=_body_text(raw.get("after")),
        new_text=_body_text(raw.get("new_text")),
        comment=_text(raw.get("comment")),
        to=raw.get("to"),
        replaces=tuple(replaces),
    )
    located = sum(x is not None for x in (op.clause, op.cell, op.where))
    if kind == "reply":
        if not op.to or not op.comment:
            c.add(path, where, "a reply needs to (the op id of the comment answered) and comment")
    else:
        if located != 1:
            c.add(path, where, "needs exactly one of clause, cell or where")
        if op.where not in (None, "title"):
            c.add(path, where, "where may only be title")
    if kind in ("replace", "delete") and not op.text:
        c.add(path, where, f"{kind} needs text (the anchor)")
    if kind == "replace" and not op.new_text:
        c.add(path, where, "replace needs new_text")
    if kind == "insert" and (not op.after or not op.new_text):
        c.add(path, where, "insert needs after (the anchor) and new_text")
    if kind == "add_clause" and not op.new_text:
        c.add(path, where, "add_clause needs new_text")
    if kind in ("comment", "reply") and not op.comment:
        c.add(path, where, f"{kind} needs comment (its text)")
    if op.is_markup and not op.comment:
        c.add(path, where, "every tracked change must carry a rationale comment")
    if replaces and not violation:
        c.add(path, where, "replaces is only meaningful on a violation")
    return op


def _rubric(path: Path, where: str, raw: Any, c: _Collector) -> RubricSpec | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        c.add(path, where, "a rubric needs an id")
        return None
    where = f"{where} ({raw['id']})"
    category, weight, criteria = raw.get("category"), raw.get("weight"), _text(raw.get("criteria"))
    if category not in CATEGORIES:
        c.add(path, where, f"category {category!r} is not one of {', '.join(CATEGORIES)}")
    if not isinstance(weight, int) or isinstance(weight, bool) or weight == 0 or not -10 <= weight <= 10:
        c.add(path, where, "weight must be a non-zero integer in [-10, 10]")
        weight = 1
    if not criteria:
        c.add(path, where, "criteria missing")
    requires = tuple(raw.get("requires") or ())
    unless = tuple(raw.get("unless") or ())
    if weight < 0 and not requires:
        c.add(path, where, "a penalty rubric needs requires: the violation that makes it PASS")
    return RubricSpec(raw["id"], category, weight, criteria or "", _text(raw.get("justification")),
                      requires, unless)


def _script(path: Path, where: str, key: str, raw_ops: Any, raw_viol: Any, c: _Collector,
            *, is_golden: bool) -> Script:
    ops = [o for i, r in enumerate(raw_ops or []) if (o := _op(path, f"{where}[{i}]", r, c, violation=False))]
    viol = [o for i, r in enumerate(raw_viol or [])
            if (o := _op(path, f"violations[{i}]", r, c, violation=True))]
    ids = [o.id for o in ops + viol]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        c.add(path, where, f"op id {dup} is used twice")
    golden_ids = {o.id for o in ops}
    for v in viol:
        for r in v.replaces:
            if r not in golden_ids:
                c.add(path, f"violations ({v.id})", f"replaces unknown op {r}")
    if is_golden and not any(o.is_markup for o in ops):
        c.add(path, where, "a golden needs at least one tracked change")
    return Script(key, tuple(ops), tuple(viol), is_golden)


def _variant(path: Path, letter: str, entries: Any, pool: dict[str, RubricSpec], script: Script,
             c: _Collector) -> VariantSpec:
    chosen: list[tuple[RubricSpec, int]] = []
    if not isinstance(entries, list):
        c.add(path, f"variants.{letter}", "must be a list of rubric ids (optionally id=weight)")
        entries = []
    for entry in entries:
        rid, _, w = str(entry).partition("=")
        rubric = pool.get(rid)
        if rubric is None:
            c.add(path, f"variants.{letter}", f"unknown rubric {rid}")
            continue
        weight = rubric.weight
        if w:
            try:
                weight = int(w)
            except ValueError:
                c.add(path, f"variants.{letter}", f"bad weight in {entry!r}")
            if weight == 0 or not -10 <= weight <= 10 or (weight < 0) != (rubric.weight < 0):
                c.add(path, f"variants.{letter}", f"{entry!r}: weight must keep its sign and stay in [-10, 10]")
        chosen.append((rubric, weight))
    if not 5 <= len(chosen) <= 20:
        c.add(path, f"variants.{letter}", f"has {len(chosen)} rubrics; each task needs 5-20")
    known = {o.id for o in script.ops + script.violations}
    for rubric, _ in chosen:
        for ref in rubric.requires + rubric.unless:
            if ref not in known:
                c.add(path, f"rubrics ({rubric.id})", f"ground truth names unknown op {ref}")
    return VariantSpec(letter, script.key, tuple(chosen))


def _pool(path: Path, where: str, raw: Any, c: _Collector) -> dict[str, RubricSpec]:
    pool: dict[str, RubricSpec] = {}
    for i, r in enumerate(raw or []):
        rubric = _rubric(path, f"{where}[{i}]", r, c)
        if rubric is None:
            continue
        if rubric.id in pool:
            c.add(path, f"{where}[{i}]", f"rubric id {rubric.id} used twice")
        pool[rubric.id] = rubric
    return pool


def _group(path: Path, c: _Collector) -> GroupSpec | None:
    m = _GROUP_RE.match(path.stem)
    if not m:
        c.add(path, "file name", "group files are named t<turn>-g<NN>.yaml")
        return None
    data = _yaml(path, c)
    if not isinstance(data, dict):
        if data is not None:
            c.add(path, "file", "must be a mapping")
        return None
    turn, group = int(m.group(1)), int(m.group(2))
    if data.get("turn") != turn:
        c.add(path, "turn", f"must be {turn} (from the file name)")
    parent = data.get("parent")
    if turn == 1 and parent is not None:
        c.add(path, "parent", "turn 1 starts from the clean template and has no parent")
    if turn > 1:
        pm = _PARENT_RE.match(str(parent or ""))
        if not pm or int(pm.group(1)) != turn - 1:
            c.add(path, "parent", f"must name a turn-{turn - 1} group (t{turn - 1}-gNN, optionally a variant letter)")
    accept_only = bool(data.get("accept_only"))
    name = path.stem
    scripts: dict[str, Script] = {}
    variants: list[VariantSpec] = []
    if accept_only:
        if data.get("golden"):
            c.add(path, "golden", "an accept-only task has no golden; put the minimal answer under reference")
        main = _script(path, "reference", name, data.get("reference"), data.get("violations"), c, is_golden=False)
    else:
        if not data.get("golden"):
            c.add(path, "golden", "missing")
        main = _script(path, "golden", name, data.get("golden"), data.get("violations"), c, is_golden=True)
    scripts[name] = main
    pool = _pool(path, "rubrics", data.get("rubrics"), c)
    raw_variants = data.get("variants") or {}
    if not isinstance(raw_variants, dict) or not raw_variants:
        c.add(path, "variants", "needs at least one variant (a: [rubric ids])")
        raw_variants = {}
    for letter, entries in sorted(raw_variants.items()):
        variants.append(_variant(path, str(letter), entries, pool, main, c))
    for letter, alt in sorted((data.get("alternates") or {}).items()):
        where = f"alternates.{letter}"
        if letter in raw_variants:
            c.add(path, where, "a variant with its own golden must not also be listed under variants")
        if not isinstance(alt, dict):
            c.add(path, where, "must be a mapping with golden, violations, rubrics and variant")
            continue
        key = f"{name}{letter}"
        script = _script(path, f"{where}.golden", key, alt.get("golden"), alt.get("violations"), c, is_golden=True)
        scripts[key] = script
        alt_pool = _pool(path, f"{where}.rubrics", alt.get("rubrics"), c)
        variants.append(_variant(path, str(letter), alt.get("variant"), alt_pool, script, c))
    variants.sort(key=lambda v: v.letter)
    letters = [v.letter for v in variants]
    if letters != [chr(ord("a") + i) for i in range(len(letters))]:
        c.add(path, "variants", f"variant letters must run a, b, c ... without gaps (got {letters})")
    return GroupSpec(path, name, turn, group, parent, accept_only, scripts, tuple(variants))


def _party(path: Path, side: str, raw: Any, c: _Collector) -> PartySpec:
    if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) for k in ("name", "negotiator", "role")):
        c.add(path, f"parties.{side}", "needs name, negotiator and role")
        return PartySpec("?", "?", "?")
    if raw["role"] not in ROLES:
        c.add(path, f"parties.{side}.role", f"must be one of {', '.join(ROLES)}")
    if "Reviewing Counsel" in raw["negotiator"]:
        c.add(path, f"parties.{side}.negotiator", "prior-turn authors must not contain 'Reviewing Counsel'")
    return PartySpec(raw["name"], raw["negotiator"], raw["role"])


_EXPECT_LEVELS = ("preferred", "fallback", "inside", "walk_away")


def _positions(path: Path, playbooks: dict[str, str], contract: ContractSpec | None, goldens: set[str],
               c: _Collector) -> dict[str, tuple[PositionSpec, ...]]:
    """``positions.yaml``: per side, one entry per row of its playbook table, each issue testable."""
    data = _yaml(path, c)
    if not isinstance(data, dict):
        if data is not None:
            c.add(path, "file", "must be a mapping with A and B")
        return {}
    numbers = {cl.number for cl in contract.clauses} if contract else set()
    out: dict[str, tuple[PositionSpec, ...]] = {}
    for side in ("A", "B"):
        try:
            table = parse_positions_table(playbooks.get(side, "")) or []
        except ValueError as exc:
            c.add(path, side, f"the side's playbook table is malformed: {exc}")
            table = []
        if not table:
            c.add(path, side, "the side's playbook has no positions table (Issue | Preferred | Fallback | Walk-away)")
        rows: list[PositionSpec] = []
        for i, raw in enumerate(data.get(side) or []):
            where = f"{side}[{i}]"
            if not isinstance(raw, dict) or not isinstance(raw.get("issue"), str):
                c.add(path, where, "needs issue (the playbook row's Issue cell)")
                continue
            where = f"{where} ({raw['issue']})"
            clauses = raw.get("clause")
            if not isinstance(clauses, list) or not clauses or any(str(x) not in numbers for x in clauses):
                c.add(path, where, "clause must list clause numbers of the contract (quoted)")
                clauses = []
            tests: dict[str, tuple[dict, ...]] = {}
            for level in TESTED_LEVELS:
                value = raw.get(level)
                if value is None:
                    continue
                alternatives = value if isinstance(value, list) else [value]
                for t in alternatives:
                    plain = {k: v for k, v in t.items() if k != "unchanged"} if isinstance(t, dict) else t
                    if isinstance(t, dict) and t.get("unchanged") is True and not plain:
                        continue
                    for problem in check_test(plain):
                        c.add(path, f"{where}.{level}", problem)
                tests[level] = tuple(alternatives)
            row = next((r for r in table if r.issue == raw["issue"]), None)
            if row is None:
                c.add(path, where, "no row of the side's playbook table has this issue")
            else:
                for level, cell in (("preferred", row.preferred), ("fallback", row.fallback),
                                    ("walk_away", row.walk_away)):
                    stated = cell.strip() not in ("", "—", "-") and not cell.strip().startswith("—")
                    if stated and level not in tests:
                        c.add(path, where, f"the playbook states a {level} position but it has no test")
            expect = raw.get("expect") or {}
            if not isinstance(expect, dict):
                c.add(path, where, "expect must map golden keys to levels")
                expect = {}
            for key, level in expect.items():
                if key not in goldens:
                    c.add(path, f"{where}.expect", f"{key} is not a golden of this scenario")
                if level not in _EXPECT_LEVELS:
                    c.add(path, f"{where}.expect", f"{key}: level must be one of {', '.join(_EXPECT_LEVELS)}")
            for key in sorted(goldens - set(expect)):
                c.add(path, f"{where}.expect", f"no expected level for golden {key}")
            moves: dict[str, dict[str, str]] = {}
            for level, texts in (raw.get("moves") or {}).items():
                if level not in ("preferred", "fallback") or not isinstance(texts, dict) or not all(
                        str(k) in numbers and isinstance(v, str) and v.strip() for k, v in texts.items()):
                    c.add(path, f"{where}.moves", "moves maps preferred/fallback to {clause number: clause text}")
                    continue
                moves[level] = {str(k): _text(v) or "" for k, v in texts.items()}
            rows.append(PositionSpec(raw["issue"], tuple(str(x) for x in clauses), tests,
                                     {str(k): str(v) for k, v in expect.items()}, moves))
        if [r.issue for r in rows] != [r.issue for r in table]:
            c.add(path, side, "issues must be the rows of the side's playbook table, in its order "
                              f"(table: {[r.issue for r in table]})")
        out[side] = tuple(rows)
    return out


def load_scenario(root: Path, c: _Collector | None = None) -> ScenarioSpec:
    """One scenario directory (``scenario.yaml`` and the files it names)."""
    own = c is None
    c = c or _Collector()
    path = root / "scenario.yaml"
    data = _yaml(path, c)
    if not isinstance(data, dict):
        raise SourceError(c.problems or [f"{path}: file: must be a mapping"])
    sides = tuple(data.get("sides") or ())
    if len(sides) != 4 or any(s not in ("A", "B") for s in sides):
        c.add(path, "sides", "must list the side (A or B) of each of the four turns")
    parties = {s: _party(path, s, (data.get("parties") or {}).get(s), c) for s in ("A", "B")}
    try:
        start = datetime.fromisoformat(str(data.get("start")).replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        c.add(path, "start", "must be an ISO date-time such as 2027-01-11T09:00:00Z")
        start = datetime(2027, 1, 1, tzinfo=timezone.utc)
    contract = _contract(root / str(data.get("contract", "contract.yaml")), c)
    texts: dict[str, str] = {}
    files: dict[str, str] = {}
    for key, name in [("context", data.get("context"))] + [
        (f"playbook_{s}", (data.get("playbooks") or {}).get(s)) for s in ("A", "B")
    ]:
        if not name:
            c.add(path, key, "missing")
            continue
        try:
            texts[key] = (root / name).read_text(encoding="utf-8")
            files[key] = name
        except FileNotFoundError:
            c.add(root / name, "file", "missing")
    groups = [g for name in data.get("groups") or [] if (g := _group(root / f"{name}.yaml", c))]
    known_scripts = {k for g in groups for k in g.scripts}
    for g in groups:
        if g.parent and g.parent not in known_scripts:
            c.add(g.path, "parent", f"{g.parent} is not a golden of this scenario")
        elif g.parent:
            parent_group = next(p for p in groups if g.parent in p.scripts)
            if parent_group.accept_only:
                c.add(g.path, "parent", "an accept-only task has no golden to continue from")
    for turn in range(1, 5):
        if not any(g.turn == turn for g in groups):
            c.add(path, "groups", f"turn {turn} has no input group")
    goldens = {k for g in groups for k, script in g.scripts.items() if script.is_golden}
    playbooks = {s: texts.get(f"playbook_{s}", "") for s in ("A", "B")}
    positions = _positions(root / "positions.yaml", playbooks, contract, goldens, c)
    if own and c.problems:
        raise SourceError(c.problems)
    return ScenarioSpec(
        root=root,
        id=int(data.get("id", 0)),
        label=str(data.get("label", "")),
        summary=_text(data.get("summary")) or "",
        parties=parties,
        sides=sides,
        start=start,
        contract=contract,  # type: ignore[arg-type]
        context=texts.get("context", ""),
        playbooks=playbooks,
        playbook_files={s: files.get(f"playbook_{s}", "") for s in ("A", "B")},
        groups=tuple(sorted(groups, key=lambda g: (g.turn, g.group))),
        positions=positions,
    )


def load_sources(root: Path) -> list[ScenarioSpec]:
    """Every scenario under ``root`` (``s1/``, ``s2/`` ...), all problems reported at once."""
    root = Path(root)
    if not root.is_dir():
        raise SourceError([f"{root}: not a directory of synthetic sources"])
    c = _Collector()
    scenarios = [load_scenario(d, c) for d in sorted(root.iterdir()) if d.is_dir() and re.match(r"^s\d+$", d.name)]
    if not scenarios:
        c.add(root, "scenarios", "no s<N>/ directories found")
    if c.problems:
        raise SourceError(c.problems)
    return scenarios


__all__ = [
    "CATEGORIES",
    "ClauseSpec",
    "ContractSpec",
    "GroupSpec",
    "Op",
    "PartySpec",
    "PositionSpec",
    "RubricSpec",
    "ScenarioSpec",
    "Script",
    "SourceError",
    "TableSpec",
    "VariantSpec",
    "load_scenario",
    "load_sources",
]
