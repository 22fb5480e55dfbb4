"""A small but realistic task tree, written by code: three tasks of one negotiation.

* ``redline-s1-t1-g01a``: turn 1, side A (AgentCo), a clean draft; the golden by an attorney
  whose author string is not the task's (so the golden baseline must re-attribute it).
* ``redline-s1-t2-g02a``: turn 2, side B (LargeCo); the draft carries AgentCo's tracked changes
  and a comment thread; the golden strikes AgentCo's insertion and replies on the thread.
* ``redline-s1-t4-g03a``: turn 4, side B, accept-only: no golden.
"""

from __future__ import annotations

import json
from pathlib import Path

from redlinebench.docx.build import Comment, Del, DocumentBuilder, Ins, Reply

AGENTCO = "Reviewing Counsel (AgentCo Legal)"
LARGECO = "Reviewing Counsel (LargeCo Legal)"
ATTORNEY_A = "Dana Whitfield (outside counsel)"
ATTORNEY_B = "R. Okafor, LargeCo GC"

CLAUSES = [
    ("Definitions", [
        "\"Agreement\" means this Master Services Agreement and its Order Forms.",
        "\"Customer Data\" means all data submitted to the Services by or for Customer.",
    ]),
    ("Fees and Payment", [
        "Customer shall pay all undisputed invoices within thirty (30) days of receipt.",
        "Late amounts bear interest at one percent (1%) per month.",
    ]),
    ("Limitation of Liability", [
        "Each party's aggregate liability shall not exceed the fees paid in the twelve (12) months "
        "before the claim.",
        "Neither party is liable for indirect or consequential damages.",
    ]),
]


def _contract(extra: dict[str, list] | None = None) -> bytes:
    """The template; ``extra`` replaces a clause's content (keyed "section.sub") with marked-up runs."""
    extra = extra or {}
    b = DocumentBuilder(title="Master Services Agreement")
    b.title("MASTER SERVICES AGREEMENT")
    for i, (heading, subs) in enumerate(CLAUSES, start=1):
        b.clause(heading, level=0)
        for j, text in enumerate(subs, start=1):
            b.clause(extra.get(f"{i}.{j}", text), level=1)
    return b.to_bytes()


def _turn2_markup() -> dict[str, list]:
    return {"2.1": ["Customer shall pay all undisputed invoices within ", Del("thirty (30)", AGENTCO),
                    Ins("fifteen (15)", AGENTCO), " days of receipt."],
            "3.1": [Comment("Each party's aggregate liability shall not exceed the fees paid in the twelve (12) "
                            "months before the claim.", "We need a higher cap for data breaches.", AGENTCO),
                    Ins(" except for data breaches, which are uncapped", AGENTCO)]}


def _write_task(root: Path, name: str, meta: dict, contract: bytes, golden: bytes | None, rubrics: list[dict]):
    d = root / "tasks" / name
    (d / "environment" / "app" / "grounding").mkdir(parents=True)
    (d / "tests").mkdir()
    toml = "[metadata]\n" + "".join(
        f"{k} = {json.dumps(v)}\n" for k, v in meta.items())
    (d / "task.toml").write_text(toml)
    party, other = meta["represented_party"], meta["counterparty"]
    (d / "instruction.md").write_text(
        f"# Representation — {party} Legal (Side {meta['side']})\n\nYou represent {party}; the counterparty is "
        f"{other}.\n\n## Mandate\nRedline the agreement in {party}'s best interests using the playbook and "
        f"the commercial context. Use the author string `{meta['author']}`.\n")
    (d / "environment" / "Dockerfile").write_text("FROM python:3.11-slim\n")
    (d / "environment" / "app" / "contract.docx").write_bytes(contract)
    (d / "environment" / "app" / "grounding" / "playbook.md").write_text(
        f"# {party} playbook\n\n- Liability cap: fees paid in 12 months; never uncapped.\n")
    (d / "environment" / "app" / "grounding" / "commercial_context.md").write_text(
        "# Commercial context\n\nDeal value USD 2,000,000 over three years.\n")
    (d / "tests" / "rubrics.json").write_text(json.dumps({**meta, "rubrics": rubrics}, indent=2))
    (d / "tests" / "test.sh").write_text("#!/bin/sh\nexit 0\n")
    if golden is not None:
        (d / "tests" / "attorney_redlines.docx").write_bytes(golden)


def build_tree(root: Path) -> Path:
    """Write the three tasks under ``root/tasks`` and return ``root``."""
    base = {"scenario_id": 1, "scenario_label": "Vendor-led SaaS MSA"}
    t1 = {**base, "task_id": "redline-s1-t1-g01a", "side": "A", "level": 1, "input_group": "s1-t1-g01",
          "variant": "a", "represented_party": "AgentCo", "counterparty": "LargeCo", "author": AGENTCO}
    golden1 = _contract({"2.1": ["Customer shall pay all undisputed invoices within ", Del("thirty (30)", ATTORNEY_A),
                                 Ins("fifteen (15)", ATTORNEY_A), " days of receipt."]})
    _write_task(root, t1["task_id"], t1, _contract(), golden1, [
        {"id": "r1", "criteria": "Replaces in Section 2.1 thirty (30) days with fifteen (15) days",
         "category": "Commercial Context", "weight": 5},
        {"id": "r2", "criteria": "Deletes in Section 3.2 the exclusion of consequential damages",
         "category": "Legal correctness", "weight": -3},
    ])
    t2 = {**base, "task_id": "redline-s1-t2-g02a", "side": "B", "level": 2, "input_group": "s1-t2-g02",
          "variant": "a", "represented_party": "LargeCo", "counterparty": "AgentCo", "author": LARGECO}
    markup = _turn2_markup()
    golden2 = _contract({**markup,
                         "3.1": [Comment("Each party's aggregate liability shall not exceed the fees paid in the "
                                         "twelve (12) months before the claim.",
                                         "We need a higher cap for data breaches.", AGENTCO,
                                         replies=[Reply("No: the cap stays as drafted.", ATTORNEY_B)]),
                                 Ins(" except for data breaches, which are uncapped", AGENTCO)],
                         "3.2": ["Neither party is liable for ", Del("indirect or ", ATTORNEY_B),
                                 "consequential damages."]})
    _write_task(root, t2["task_id"], t2, _contract(markup), golden2, [
        {"id": "r1", "criteria": "Rejects in Section 3.1 the uncapped liability for data breaches",
         "category": "Legal correctness", "weight": 8},
        {"id": "r2", "criteria": "Accepts the counterparty's change to Section 2.1 payment term",
         "category": "Deal-closing Orientation", "weight": 2},
    ])
    t4 = {**base, "task_id": "redline-s1-t4-g03a", "side": "B", "level": 4, "input_group": "s1-t4-g03",
          "variant": "a", "represented_party": "LargeCo", "counterparty": "AgentCo", "author": LARGECO}
    _write_task(root, t4["task_id"], t4, _contract(markup), None, [
        {"id": "r1", "criteria": "Accepts the counterparty's change to Section 2.1 payment term",
         "category": "Deal-closing Orientation", "weight": 4},
    ])
    return root
