"""Text files of one task directory (Harbor layout, SPEC §2): task.toml, instruction.md, the
Dockerfile, test.sh and rubrics.json. Pure string builders; the orchestrator writes them.
"""

from __future__ import annotations

import json
from typing import Any

from .sources import GroupSpec, ScenarioSpec, VariantSpec

_ROLE_NOUN = {"vendor": "the vendor", "supplier": "the supplier", "customer": "the customer"}


def task_name(scenario: int, turn: int, group: int, variant: str) -> str:
    return f"redline-s{scenario}-t{turn}-g{group:02d}{variant}"


def input_group(scenario: int, turn: int, group: int) -> str:
    return f"s{scenario}-t{turn}-g{group:02d}"


def metadata(spec: ScenarioSpec, group: GroupSpec, variant: VariantSpec, author: str) -> dict[str, Any]:
    """The SPEC §2 metadata, identical in task.toml and rubrics.json."""
    side = spec.side_of(group.turn)
    return {
        "task_id": task_name(spec.id, group.turn, group.group, variant.letter),
        "scenario_id": spec.id,
        "scenario_label": spec.label,
        "side": side,
        "level": group.turn,
        "input_group": input_group(spec.id, group.turn, group.group),
        "variant": variant.letter,
        "represented_party": spec.party(side).name,
        "counterparty": spec.party(spec.other(side)).name,
        "author": author,
    }


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def task_toml(meta: dict[str, Any], *, has_golden: bool, accept_only: bool) -> str:
    lines = ['version = "1.0"', "", "[metadata]"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in meta.items()]
    lines += [
        f"has_golden = {_toml_value(has_golden)}",
        f"accept_only = {_toml_value(accept_only)}",
        'source = "redlinebench-synthetic"',
        'category = "legal"',
        'tags = ["contract-negotiation", "redline", "docx", "synthetic"]',
        "",
        "[verifier]",
        "timeout_sec = 1800.0",
        "",
        "[agent]",
        "timeout_sec = 3600.0",
        "",
        "[environment]",
        "build_timeout_sec = 600.0",
        "cpus = 1",
        "memory_mb = 2048",
        "",
    ]
    return "\n".join(lines)


def instruction(spec: ScenarioSpec, group: GroupSpec, author: str, grounding: list[str]) -> str:
    """The attorney brief. Depends on the input group only (variants share it byte for byte)."""
    side = spec.side_of(group.turn)
    me, other = spec.party(side), spec.party(spec.other(side))
    contract = spec.contract
    owner = spec.party(spec.other(spec.side_of(1))).name
    paper = "your own side's" if owner == me.name else f"{owner}'s"
    files = "\n".join(f"- `/app/grounding/{name}`" for name in grounding)
    if group.turn == 1:
        turn = (
            f"This is turn 1 of 4: the first markup. The document is {paper} clean template "
            f"({contract.subtitle}). {other.name} has not yet seen any change. Mark up only what {me.name} needs; "
            "every change you make will have to be defended in later turns."
        )
    else:
        turn = (
            f"This is turn {group.turn} of 4. {other.name}'s counsel has returned the draft: it carries the tracked "
            "changes and comment threads of the earlier turns, including "
            f"{other.name}'s latest changes and replies. Respond to every outstanding edit and comment of "
            f"{other.name}: accept it (leave it intact and reply), reject it (strike their insertion or restore "
            "their deleted text with a tracked change, and say why), refine it, or reply. "
            "Where the remaining changes are acceptable, accept them and say so; you do not have to make "
            "further changes to close."
        )
    return f"""# Representation — {me.name} Legal (Side {side})

You are in-house counsel for **{me.name}**, {_ROLE_NOUN.get(me.role, me.role)}, in the negotiation of the
**{contract.name}** ({spec.label}) with **{other.name}**, {_ROLE_NOUN.get(other.role, other.role)}.
{spec.summary}

## Mandate

Redline the contract in {me.name}'s best interests, using {me.name}'s playbook and the shared commercial context.
Protect {me.name}'s walk-away positions, use the fallbacks where they close the gap, and do not spend goodwill on
points that do not matter to {me.name}. The goal is a signed agreement on terms {me.name} can live with: an
experienced counterparty will read every change you make.

Your materials:
- `/app/contract.docx` — the agreement as it stands
{files}

## Mechanics

Work only through the document tools: `read_document` (the text with paragraph ids `[p-NNN]`, clause numbers
and existing tracked changes and comments), `propose_edits` (a batch of `replace`, `delete` and `insert_after`
edits, each with a `comment` explaining it), `add_comment` (a new comment, or a reply to an existing `cmt-N`
thread), `mark_reserved` and `end_session`.

Every edit is recorded as a native Word tracked change (`w:ins`/`w:del`) with a margin comment, under the author
name **`{author}`**. Do not accept or delete the other side's revisions silently: respond to them with tracked
changes and replies. Call `end_session` when the redline is ready to send.

## This turn

{turn}
"""


DOCKERFILE = """FROM python:3.11-slim
# The document tools and the verifier both come from the redlinebench package.
RUN pip install --no-cache-dir redlinebench
WORKDIR /app
COPY app/ /app/
"""

TEST_SH = """#!/usr/bin/env bash
# Verifier entry point of a RedlineBench task: grades the agent's redline against tests/rubrics.json
# (validity gate, judge panel, reward) and writes reward.txt and grade.json to the log directory.
# Runs in place from the task tree; `redlinebench export harbor` writes the container variant.
set -euo pipefail
TASK_DIR="${REDLINEBENCH_TASK_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
OUTPUT="${REDLINEBENCH_OUTPUT:-/app/contract.docx}"
LOGS="${REDLINEBENCH_LOGS_DIR:-/logs/verifier}"
mkdir -p "$LOGS"
exec redlinebench verify --task-dir "$TASK_DIR" --output "$OUTPUT" --logs "$LOGS" \\
  --judges "${REDLINEBENCH_JUDGES:-panel}"
"""


def rubrics_json(meta: dict[str, Any], variant: VariantSpec) -> str:
    rubrics = []
    for rubric, weight in variant.rubrics:
        item: dict[str, Any] = {
            "id": rubric.id,
            "criteria": rubric.criteria,
            "category": rubric.category,
            "weight": weight,
        }
        if rubric.justification:
            item["justification"] = rubric.justification
        rubrics.append(item)
    return json.dumps({**meta, "rubrics": rubrics}, indent=2, ensure_ascii=False) + "\n"


__all__ = ["DOCKERFILE", "TEST_SH", "input_group", "instruction", "metadata", "rubrics_json", "task_name", "task_toml"]
