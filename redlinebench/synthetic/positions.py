"""Positions tables of the synthetic sources: the playbook's Clause column, ``tests/positions.json``,
and the check that every golden's agreed text lands where ``positions.yaml`` says.

The tests themselves never reach an agent: the playbook shows each issue's clause, and the
tests ship under the task's ``tests/`` (verifier side) for the offline arena judge.
"""

from __future__ import annotations

from pathlib import Path

from ..tasks._positions import POSITIONS_VERSION, IssueTests, agreed_paragraphs, apply_move, scope_text
from .render import _INLINE_HEADING
from .sources import PositionSpec, ScenarioSpec


def template_headings(spec: ScenarioSpec) -> dict[str, str | None]:
    """Each clause's heading in the template ("Cap.", "Limitation of Liability"), None where it has none
    or shares it with another clause: how the offline tests find a clause an insertion renumbered."""
    heads: dict[str, str | None] = {}
    for clause in spec.contract.clauses:
        if clause.level == 0:
            heads[clause.number] = clause.heading
        else:
            m = _INLINE_HEADING.match(clause.text or "")
            heads[clause.number] = m.group(1) if m else None
    seen = [h for h in heads.values() if h]
    return {n: (h if h and seen.count(h) == 1 else None) for n, h in heads.items()}


def clause_cell(pos: PositionSpec) -> str:
    return ", ".join(pos.clauses)


def render_playbook(markdown: str, positions: tuple[PositionSpec, ...]) -> str:
    """The playbook with a ``Clause`` column after ``Issue`` in its positions table (the agent's copy)."""
    clauses = {p.issue: clause_cell(p) for p in positions}
    lines = markdown.split("\n")
    out: list[str] = []
    in_table = False
    for line in lines:
        stripped = line.strip()
        if not in_table and stripped.startswith("| Issue |") and "| Preferred |" in stripped:
            in_table = True
            out.append(line.replace("| Issue |", "| Issue | Clause |", 1))
            continue
        if in_table and stripped.startswith("|"):
            cells = stripped.strip("|").split("|")
            first = cells[0].strip()
            if set(first) <= set("-: "):
                out.append(line.replace("|---|", "|---|---|", 1))
            else:
                out.append(f"| {first} | {clauses.get(first, '')} |" + "|".join(cells[1:]) + "|")
            continue
        in_table = False
        out.append(line)
    return "\n".join(out)


def resolved_tests(pos: PositionSpec, template: list[tuple[str, str]]) -> dict[str, list[dict]]:
    """The issue's tests with ``unchanged`` turned into ``equals`` the template's text of its clauses."""
    out: dict[str, list[dict]] = {}
    for level, alternatives in pos.tests.items():
        tests = []
        for t in alternatives:
            t = dict(t)
            if t.pop("unchanged", False):
                t["equals"] = scope_text(template, list(pos.clauses))
            tests.append(t)
        out[level] = tests
    return out


def _clause_texts(numbered: list[tuple[str, str]], clauses: tuple[str, ...]) -> dict[str, str]:
    """The own paragraph text of every numbered clause in the scope of ``clauses`` (tables left out)."""
    out: dict[str, str] = {}
    for number, text in numbered:
        if number and number not in out and any(number == c or number.startswith(c + ".") for c in clauses):
            out[number] = text
    return out


def derived_moves(tests: IssueTests, states: list[tuple[str, list[tuple[str, str]]]],
                  written: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """Per level (preferred, fallback): the issue's clause texts in the first state (template, then goldens in
    turn order) that puts it there, unless the sources write the move themselves."""
    moves: dict[str, dict[str, str]] = {}
    for level in ("preferred", "fallback"):
        if level in written:
            moves[level] = dict(written[level])
            continue
        for _, numbered in states:
            if tests.place(numbered)[0] == level:
                moves[level] = _clause_texts(numbered, tests.clauses)
                break
    return moves


def issue_tests(spec: ScenarioSpec, side: str, template: list[tuple[str, str]],
                states: list[tuple[str, list[tuple[str, str]]]] | None = None) -> list[IssueTests]:
    """The side's issues with resolved tests (and, given the states of the negotiation, their moves)."""
    out = []
    for p in spec.positions.get(side, ()):
        t = IssueTests(p.issue, p.clauses, resolved_tests(p, template))
        if states is not None:
            t = IssueTests(t.issue, t.clauses, t.tests, derived_moves(t, states, p.moves))
        out.append(t)
    return out


def move_problems(spec: ScenarioSpec, template: list[tuple[str, str]],
                  states: list[tuple[str, list[tuple[str, str]]]]) -> list[str]:
    """A move must put its issue at its level when applied to the template, and every issue needs a move to
    fallback or better (the playbook baseline plays them)."""
    problems = []
    for side in ("A", "B"):
        for t in issue_tests(spec, side, template, states):
            if not t.moves:
                problems.append(f"{spec.root / 'positions.yaml'}: {side} ({t.issue}): no state of the negotiation "
                                "puts it at fallback or better; write moves for it")
            for level, move in t.moves.items():
                got = t.place(apply_move(template, move))[0]
                if got != level:
                    problems.append(f"{spec.root / 'positions.yaml'}: {side} ({t.issue}): the {level} move lands at "
                                    f"{got} on the template")
    return problems


def positions_json(spec: ScenarioSpec, side: str, template: list[tuple[str, str]],
                   states: list[tuple[str, list[tuple[str, str]]]]) -> dict:
    """``tests/positions.json`` of a task of ``side``."""
    return {
        "version": POSITIONS_VERSION,
        "side": side,
        "party": spec.party(side).name,
        "headings": template_headings(spec),
        "rule": "Each issue's clauses (with sub-clauses and the table after them) are read from the agreed text "
                "(every revision accepted), typographic quotes straight, whitespace folded; a clause is found by "
                "its template heading (headings), a new clause belongs to the one before it. Levels are tried "
                "preferred, fallback, walk_away; the first with a passing test is the level, none is inside.",
        "issues": [
            {"issue": t.issue, "clauses": list(t.clauses), "levels": t.tests, "moves": t.moves}
            for t in issue_tests(spec, side, template, states)
        ],
    }


def golden_problems(spec: ScenarioSpec, key: str, golden: bytes, template: list[tuple[str, str]]) -> list[str]:
    """Where the agreed text of golden ``key`` does not put an issue at the level ``positions.yaml`` expects."""
    numbered = agreed_paragraphs(golden, template_headings(spec))
    problems = []
    for side in ("A", "B"):
        for pos, tests in zip(spec.positions.get(side, ()), issue_tests(spec, side, template)):
            want = pos.expect.get(key)
            got, text = tests.place(numbered)
            if want is not None and got != want:
                problems.append(f"{spec.root / 'positions.yaml'}: {side} ({pos.issue}): golden {key} lands at "
                                f"{got}, expected {want} (agreed text: {text[:160]!r})")
    return problems




def validate_tree(tree: Path, sources: Path) -> tuple[int, list[str]]:
    """Check a built tree against the sources: every task's positions table and tests agree and every issue
    is testable; every golden's agreed text puts each issue at the level ``positions.yaml`` expects.

    Returns ``(issues checked, problems)``.
    """
    from ..errors import RedlineBenchError
    from ..tasks import load_tasks, positions
    from ..tasks._positions import load_issue_tests
    from .sources import load_sources

    problems: list[str] = []
    tasks = load_tasks(tree)
    checked = 0
    for task in tasks:
        try:
            table = positions(task)
            tests = load_issue_tests(task)
        except RedlineBenchError as exc:
            problems.append(str(exc))
            continue
        if [p.issue for p in table] != [t.issue for t in tests]:
            problems.append(f"{task.root}: the playbook's positions table and tests/positions.json name different "
                            "issues")
        for row, t in zip(table, tests):
            checked += 1
            for level, cell in (("fallback", row.fallback), ("walk_away", row.walk_away)):
                if not cell.strip().startswith(("—", "-")) and cell.strip() and not t.tests.get(level):
                    problems.append(f"{task.root}: {t.issue}: {level} is stated but has no test")
    by_id = {t.task_id: t for t in tasks}
    for spec in load_sources(sources):
        template: list[tuple[str, str]] | None = None
        for group in spec.groups:
            for key, script in group.scripts.items():
                if not script.is_golden:
                    continue
                letter = next(v.letter for v in group.variants if v.script_key == key)
                task = by_id.get(f"redline-s{spec.id}-{group.name}{letter}")
                if task is None or task.golden_path is None:
                    problems.append(f"{tree}: no task carries golden {key} of scenario {spec.id}")
                    continue
                if template is None:
                    template = agreed_paragraphs(task.contract_path, template_headings(spec)) \
                        if group.turn == 1 else None
                if template is None:
                    problems.append(f"{tree}: scenario {spec.id}: no turn-1 task to read the template from")
                    break
                problems += golden_problems(spec, key, task.golden_path.read_bytes(), template)
    return checked, problems


__all__ = ["golden_problems", "issue_tests", "positions_json", "render_playbook", "resolved_tests",
           "template_headings", "validate_tree"]
