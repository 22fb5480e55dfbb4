"""Build small but real RedlineBench task trees for tests (real .docx files via python-docx).

The default layout fills all 12 scenario x turn cells with the real side pattern, has two input
groups with two variants, and one accept-only turn-4 task without a golden, so every code path
of the loader sees realistic shapes.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import docx
from docx.oxml.ns import qn
from docx.oxml import OxmlElement

PARTIES = {1: ("AgentCo", "LargeCo"), 2: ("AgentCo", "LargeCo"), 3: ("AgentCo", "GiantCo")}
SIDES = {1: "ABAB", 2: "BABA", 3: "ABAB"}
LABELS = {1: "Vendor-led SaaS MSA", 2: "Customer-led SaaS MSA", 3: "Professional-services MSA"}
CATS = [
    "Commercial Context",
    "Legal correctness",
    "Negotiation Quality",
    "Deal-closing Orientation",
    "Counterparty Acceptance Prediction",
]

#: (scenario, turn, group, variants, has_golden)
DEFAULT_LAYOUT: list[tuple[int, int, int, str, bool]] = [
    (1, 1, 1, "ab", True),
    (1, 2, 1, "a", True),
    (1, 3, 1, "a", True),
    (1, 4, 1, "a", True),
    (2, 1, 1, "a", True),
    (2, 2, 1, "a", True),
    (2, 3, 2, "ab", True),
    (2, 4, 1, "a", False),
    (3, 1, 1, "a", True),
    (3, 2, 1, "a", True),
    (3, 3, 1, "a", True),
    (3, 4, 1, "a", True),
]

_DOCX_CACHE: dict[tuple, bytes] = {}


def append_tracked_insertion(paragraph, author: str, text: str, *, date: str = "2026-01-01T00:00:00Z",
                             rev_id: str = "901") -> None:
    """Append ``text`` to a python-docx paragraph as a tracked insertion by ``author`` (python-docx's XML layer)."""
    ins = OxmlElement("w:ins")
    ins.set(qn("w:id"), rev_id)
    ins.set(qn("w:author"), author)
    ins.set(qn("w:date"), date)
    run = OxmlElement("w:r")
    t = OxmlElement("w:t")
    if text != text.strip():
        t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    t.text = text
    run.append(t)
    ins.append(run)
    paragraph._p.append(ins)


def make_docx(paragraphs: list[str], *, insert: tuple[str, str] | None = None, comment: tuple[str, str] | None = None,
              inserts: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A real Word document; ``insert=(author, text)`` (and each of ``inserts``) adds a tracked insertion paragraph."""
    key = (tuple(paragraphs), insert, comment, inserts)
    if key in _DOCX_CACHE:
        return _DOCX_CACHE[key]
    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    for number, (author, text) in enumerate(((insert,) if insert is not None else ()) + tuple(inserts)):
        append_tracked_insertion(document.add_paragraph(), author, text, rev_id=str(901 + number))
    if comment is not None:
        author, text = comment
        document.add_comment(document.paragraphs[0].runs, text=text, author=author)
    buffer = io.BytesIO()
    document.save(buffer)
    _DOCX_CACHE[key] = buffer.getvalue()
    return _DOCX_CACHE[key]


def contract_for(scenario: int, turn: int, group: int) -> bytes:
    paragraphs = [
        f"MASTER SERVICES AGREEMENT (scenario {scenario})",
        "1. Definitions",
        "1.1 Applicable Law means all laws that apply to a party.",
        "2. Fees",
        "2.1 Customer shall pay all invoices within 30 days.",
        f"Negotiation turn {turn}, input group {group}.",
    ]
    prior = ("Reviewing Counsel (LargeCo Legal)", f"prior turn edit {turn}") if turn > 1 else None
    return make_docx(paragraphs, insert=prior)


def golden_for(scenario: int, turn: int, group: int, author: str) -> bytes:
    """The task's contract with the prior turn's insertion still pending (a golden that silently dropped
    it would be an integrity flag) and the attorney's own tracked insertion after it."""
    base = [
        f"MASTER SERVICES AGREEMENT (scenario {scenario})",
        "1. Definitions",
        "1.1 Applicable Law means all laws that apply to a party.",
        "2. Fees",
        "2.1 Customer shall pay all invoices within 30 days.",
        f"Negotiation turn {turn}, input group {group}.",
    ]
    prior = (("Reviewing Counsel (LargeCo Legal)", f"prior turn edit {turn}"),) if turn > 1 else ()
    return make_docx(base, inserts=prior + ((author, "Customer shall pay within 45 days."),))


def rubrics_for(name: str, count: int = 6) -> list[dict[str, Any]]:
    seed = sum(name.encode())
    rubrics = []
    for i in range(count):
        rubric: dict[str, Any] = {
            "id": f"{name}-r{i + 1:02d}",
            "criteria": f"Replaces in Section 2.1 the {30 + i}-day payment term with {45 + i} days",
            "category": CATS[(seed + i) % len(CATS)],
            "weight": ((seed + i) % 9) + 1,
            "justification": f"Attorney note {i + 1}.",
        }
        rubrics.append(rubric)
    rubrics[-1]["weight"] = -3  # one penalty rubric
    rubrics[-1]["criteria"] = "Deletes the limitation of liability in its entirety"
    return rubrics


def metadata_for(scenario: int, turn: int, group: int, variant: str) -> dict[str, Any]:
    side = SIDES[scenario][turn - 1]
    vendor, customer = PARTIES[scenario]
    party, other = (vendor, customer) if side == "A" else (customer, vendor)
    return {
        "task_id": f"redline-s{scenario}-t{turn}-g{group:02d}{variant}",
        "scenario_id": scenario,
        "scenario_label": LABELS[scenario],
        "side": side,
        "level": turn,
        "input_group": f"s{scenario}-t{turn}-g{group:02d}",
        "variant": variant,
        "represented_party": party,
        "counterparty": other,
        "author": f"Reviewing Counsel ({party} Legal)",
    }


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)


def write_task(
    tasks_dir: Path,
    scenario: int,
    turn: int,
    group: int,
    variant: str,
    *,
    golden: bool = True,
    toml_meta: dict[str, Any] | None = None,
    json_meta: dict[str, Any] | None = None,
    rubrics: list[dict[str, Any]] | None = None,
    extra_toml: str = "",
) -> Path:
    """Write one complete task directory; metadata in both files unless overridden."""
    meta = metadata_for(scenario, turn, group, variant)
    name = meta["task_id"]
    root = tasks_dir / name
    (root / "environment" / "app" / "grounding").mkdir(parents=True, exist_ok=True)
    (root / "tests").mkdir(parents=True, exist_ok=True)
    tmeta = copy.deepcopy(meta) if toml_meta is None else toml_meta
    lines = ['version = "1.0"', "", "[metadata]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in tmeta.items()]
    lines += ["", "[verifier]", "timeout_sec = 1800.0", "", "[agent]", "timeout_sec = 3600.0", ""]
    (root / "task.toml").write_text("\n".join(lines) + extra_toml, encoding="utf-8")
    party = meta["represented_party"]
    instruction = (
        f"# Representation — {party} Legal (Side {meta['side']})\n\n"
        f"You represent {party}. The counterparty is {meta['counterparty']}.\n\n"
        "## Mandate\n\nRedline the contract in your client's best interests, using the playbook and the "
        "commercial context.\n\n" + ("Mark up the template. " * 40) + f"\n\nTurn {turn}.\n"
    )
    (root / "instruction.md").write_text(instruction, encoding="utf-8")
    (root / "environment" / "Dockerfile").write_text("FROM python:3.11-slim\nCOPY app /app\n", encoding="utf-8")
    (root / "environment" / "app" / "contract.docx").write_bytes(contract_for(scenario, turn, group))
    grounding = root / "environment" / "app" / "grounding"
    (grounding / "playbook.md").write_text(f"# {party} playbook\n\nPayment within 45 days.\n", encoding="utf-8")
    (grounding / "commercial_context.md").write_text("# Commercial context\n\nDeal value 1.2M.\n", encoding="utf-8")
    body = copy.deepcopy(meta) if json_meta is None else json_meta
    body = {**body, "rubrics": rubrics if rubrics is not None else rubrics_for(name)}
    (root / "tests" / "rubrics.json").write_text(json.dumps(body, indent=2), encoding="utf-8")
    (root / "tests" / "test.sh").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    if golden:
        (root / "tests" / "attorney_redlines.docx").write_bytes(golden_for(scenario, turn, group, meta["author"]))
    return root


def build_tree(root: Path, layout: list[tuple[int, int, int, str, bool]] | None = None) -> Path:
    """A dataset root with ``tasks/`` holding the layout's tasks; returns ``root``."""
    tasks_dir = root / "tasks"
    tasks_dir.mkdir(parents=True, exist_ok=True)
    for scenario, turn, group, variants, golden in layout or DEFAULT_LAYOUT:
        for variant in variants:
            write_task(tasks_dir, scenario, turn, group, variant, golden=golden)
    return root


def edit_json(path: Path, change) -> None:
    """Load a JSON file, let ``change(data)`` mutate it, write it back."""
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


if __name__ == "__main__":  # python -m tests.tasks.treefactory OUT  (the fixture tree, e.g. for the card)
    import sys

    print(build_tree(Path(sys.argv[1])))
