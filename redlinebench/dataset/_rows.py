"""Task -> dataset row. Pure functions of a :class:`Task` (the full row also reads its documents)."""

from __future__ import annotations

import json
from typing import Any

from .._text import json_safe
from ..tasks import Task
from ..tasks._model import CONTRACT, GOLDEN, RUBRICS

PREVIEW_CHARS = 500
PREVIEW_CRITERIA = 5


def category_counts_json(task: Task) -> str:
    """``{"Commercial Context": 7, ...}``: keys sorted, ``json.dumps`` default separators (SPEC §3)."""
    return json.dumps(task.rubric_category_counts(), sort_keys=True)


def index_row(task: Task) -> dict[str, Any]:
    """The 15 viewer columns of SPEC §3, in order."""
    base = task.source_task_path
    return {
        "task_id": task.task_id,
        "scenario_id": str(task.scenario_id),
        "scenario_label": task.scenario_label,
        "turn": task.turn,
        "represented_party": task.represented_party,
        "counterparty": task.counterparty,
        "rubric_variant": task.variant,
        "instruction_preview": task.instruction[:PREVIEW_CHARS],
        "rubric_count": len(task.rubrics),
        "rubric_category_counts": category_counts_json(task),
        "rubric_criteria_preview": [r.criteria for r in task.rubrics[:PREVIEW_CRITERIA]],
        "contract_path": f"{base}/{CONTRACT}",
        "rubrics_path": f"{base}/{RUBRICS}",
        "attorney_redline_doc_path": f"{base}/{GOLDEN}" if task.has_golden else None,
        "source_task_path": base,
    }


def _dumps(value: Any) -> str:
    return json.dumps(json_safe(value), sort_keys=True, ensure_ascii=False, allow_nan=False)


def full_row(task: Task) -> dict[str, Any]:
    """The index row plus the whole task (documents as bytes)."""
    return {
        **index_row(task),
        "side": task.side,
        "input_group": task.input_group,
        "author": task.author,
        "instruction": task.instruction,
        "grounding": [{"name": name, "text": text} for name, text in sorted(task.grounding.items())],
        "rubrics": [
            {
                "id": r.id,
                "criteria": r.criteria,
                "category": r.category,
                "weight": r.weight,
                "justification": r.justification,
                "extra": _dumps(r.extra),
            }
            for r in task.rubrics
        ],
        "contract_docx": task.contract_path.read_bytes(),
        "attorney_redline_docx": task.golden_path.read_bytes() if task.golden_path else None,
        "metadata": _dumps({**task.extra, **task.metadata()}),
        "task_config": _dumps(task.config),
    }


ROW_BUILDERS = {"tasks": index_row, "full": full_row}
