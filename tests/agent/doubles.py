"""Small doubles for agent tests: a task and a tool backend that records what the model did."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

SCHEMAS = [
    {"type": "function", "function": {"name": n, "description": n, "parameters": {"type": "object", "properties": {}}}}
    for n in ("read_document", "propose_edits", "add_comment", "mark_reserved", "end_session")
]


def make_task(tmp: Path, **over: Any) -> SimpleNamespace:
    contract = tmp / "contract.docx"
    contract.write_bytes(b"PK-not-really")
    data = dict(
        task_id="redline-s1-t2-g01a", scenario_id=1, scenario_label="Vendor-led SaaS MSA", side="B", turn=2,
        input_group="s1-t2-g01", variant="a", represented_party="LargeCo", counterparty="AgentCo",
        author="Reviewing Counsel (LargeCo Legal)",
        instruction="# Representation — LargeCo Legal (Side B)\n\n## Mandate\nProtect LargeCo.",
        grounding={"playbook.md": "Never accept uncapped liability.", "commercial_context.md": "Deal value $2M."},
        rubrics=(), contract_path=contract, golden_path=None,
    )
    data.update(over)
    return SimpleNamespace(**data)


class FakeTools:
    """Behaves like the tool session: bad JSON and unknown tools come back as error dicts."""

    schemas = SCHEMAS

    def __init__(self, task: Any = None, out_path: Path | None = None, *, view: str = "[p-001] 1. Term.") -> None:
        self.calls: list[tuple[str, Any]] = []
        self.finished = False
        self.view = view
        self.saved: list[Path] = []

    @property
    def stats(self) -> dict:
        return {}

    def dispatch(self, name: str, arguments: Any) -> dict:
        self.calls.append((name, arguments))
        try:
            args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
        except json.JSONDecodeError as exc:
            return {"error": "invalid_arguments", "message": f"arguments are not JSON: {exc.msg}"}
        if name == "read_document":
            return {"text": self.view}
        if name == "propose_edits":
            results = []
            for e in args.get("edits", []):
                ok = e.get("anchor", {}).get("text") != "no such text"
                results.append({"op": e.get("op"), "status": "ok" if ok else "anchor_failed",
                                "paragraph_id": e.get("anchor", {}).get("paragraph_id"),
                                **({} if ok else {"error": "text_not_found: no such text"})})
            return {"results": results}
        if name == "add_comment":
            return {"comment_id": "cmt-9"}
        if name == "end_session":
            self.finished = True
            return {"saved": True}
        return {"error": "unknown_tool", "message": f"no tool named {name!r}"}

    def save(self, path: Path) -> None:
        Path(path).write_bytes(b"saved-docx")
        self.saved.append(Path(path))
