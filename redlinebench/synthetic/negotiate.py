"""Play scripted redlines onto documents with the real engine, turn by turn.

A script op names its place the way an attorney does ("Section 12.3", "the last row of the
table after Section 3.3", "the title") and its reply target by the op that opened the thread.
This module resolves those to paragraph ids and ``cmt-N`` ids of the document at hand and calls
``RedlineDocument.apply_edits`` / ``add_comment`` exactly as an agent's tool calls would, so the
synthetic goldens exercise the same code paths as model output. Any op that does not apply
cleanly is a source error: the build stops and names the script, the op and the engine's reason.
"""

from __future__ import annotations

import unicodedata

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..docx import RedlineDocument
from ..errors import ToolFailure
from .sources import Op, ScenarioSpec, Script, SourceError


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})


def normalize(text: str) -> str:
    """Comparison form of a comment body: NFC, straight quotes, single spaces."""
    return " ".join(unicodedata.normalize("NFC", text).translate(_QUOTES).split())


def reviewing_author(party: str) -> str:
    """The task author string of SPEC §2 (what the agent, and the golden, must use)."""
    return f"Reviewing Counsel ({party} Legal)"


def turn_date(spec: ScenarioSpec, turn: int) -> datetime:
    """Fixed revision date of a turn: one negotiating round per week from the scenario start."""
    return spec.start + timedelta(days=7 * (turn - 1))


@dataclass(frozen=True)
class Applied:
    """A script played onto an input: the document bytes, which ops landed, and the same redline as
    the tool calls an agent would make (consecutive edits batched into one ``propose_edits``)."""

    data: bytes
    applied: tuple[str, ...]
    calls: tuple[dict, ...] = ()


def _call(calls: list[dict], name: str, arguments: dict) -> None:
    if name == "propose_edits" and calls and calls[-1]["name"] == "propose_edits":
        calls[-1]["arguments"]["edits"].extend(arguments["edits"])
    else:
        calls.append({"name": name, "arguments": arguments})


class _Locator:
    def __init__(self, spec: ScenarioSpec, doc: RedlineDocument) -> None:
        self.spec = spec
        self.doc = doc

    def paragraph_id(self, op: Op, where: str) -> str:
        paras = self.doc.paragraphs
        if op.where == "title":
            for p in paras:
                if p.style == "Title":
                    return p.id
            raise SourceError([f"{where}: the document has no Title paragraph"])
        number = op.clause if op.clause is not None else op.cell[0]  # type: ignore[index]
        index = next((i for i, p in enumerate(paras) if (p.number or "").rstrip(".") == number and not p.in_table),
                     None)
        if index is None:
            raise SourceError([f"{where}: no paragraph numbered {number}"])
        if op.cell is None:
            return paras[index].id
        clause = self.spec.contract.clause(number)
        if clause is None or clause.table is None:
            raise SourceError([f"{where}: clause {number} has no table"])
        _, row, col = op.cell
        ncols = len(clause.table.header)
        cells = []
        for p in paras[index + 1:]:
            if not p.in_table:
                break
            cells.append(p)
        pos = row * ncols + (col - 1)
        if not (0 <= row <= len(clause.table.rows) and 1 <= col <= ncols) or pos >= len(cells):
            raise SourceError([f"{where}: cell {op.cell} is outside the table after clause {number}"])
        return cells[pos].id

    def comment_id(self, target_script: Script, target: Op, author: str, where: str) -> str:
        wanted = normalize(target.comment or "")
        found = [c for c in self.doc.comments if c.author == author and normalize(c.text) == wanted]
        if len(found) != 1:
            raise SourceError([
                f"{where}: reply target {target_script.key}:{target.id} by {author!r} found {len(found)} times "
                "in the input (expected exactly once)"
            ])
        return found[0].id


def _target(spec: ScenarioSpec, script: Script, ref: str) -> tuple[Script, Op]:
    """``e3`` is an op of the parent script; ``t2-g01:e3`` names the script explicitly."""
    group = spec.group_of(script.key)
    key, _, op_id = ref.rpartition(":")
    key = key or group.parent or ""
    try:
        target_script = spec.script(key)
    except KeyError:
        raise SourceError([f"{group.path}: {script.key}: reply target {ref!r} names no script"]) from None
    op = target_script.op(op_id)
    if op is None or op.id not in {o.id for o in target_script.ops} or not op.comment:
        raise SourceError([f"{group.path}: {script.key}: reply target {ref!r} is not a commented op of {key}"])
    return target_script, op


def tool_edit(op: Op, pid: str) -> dict:
    """The SPEC §4 ``propose_edits`` item for a markup op."""
    if op.op == "replace":
        return {"op": "replace", "anchor": {"paragraph_id": pid, "text": op.text}, "new_text": op.new_text,
                "comment": op.comment}
    if op.op == "delete":
        return {"op": "delete", "anchor": {"paragraph_id": pid, "text": op.text}, "comment": op.comment}
    if op.op == "insert":
        return {"op": "insert_after", "anchor": {"paragraph_id": pid, "text": op.after}, "new_text": op.new_text,
                "comment": op.comment}
    if op.op == "add_clause":
        return {"op": "insert_after", "anchor": {"paragraph_id": pid, "text": ""}, "new_text": "\n" + (op.new_text or ""),
                "comment": op.comment}
    raise ValueError(op.op)


def play(spec: ScenarioSpec, script: Script, ops: Sequence[Op], source: bytes, *, author: str,
         label: str, author_of_side: dict[str, str]) -> Applied:
    """Apply ``ops`` (a script, or a perturbation of it) to ``source`` as ``author``.

    ``author_of_side`` maps "A"/"B" to the author string the earlier turns were written under, so
    replies find the thread they answer.
    """
    group = spec.group_of(script.key)
    date = turn_date(spec, group.turn)
    doc = RedlineDocument.open(source, name=label)
    loc = _Locator(spec, doc)
    applied: list[str] = []
    calls: list[dict] = []
    for op in ops:
        where = f"{group.path}: {script.key}:{op.id}"
        if op.op == "reply":
            target_script, target = _target(spec, script, op.to or "")
            target_turn = spec.group_of(target_script.key).turn
            target_author = author_of_side[spec.side_of(target_turn)]
            cid = loc.comment_id(target_script, target, target_author, where)
            try:
                doc.add_comment(author=author, text=op.comment or "", reply_to=cid, date=date)
            except ToolFailure as exc:
                raise SourceError([f"{where}: reply failed: {exc.message}"]) from None
            _call(calls, "add_comment", {"text": op.comment or "", "reply_to": cid})
        elif op.op == "comment":
            pid = loc.paragraph_id(op, where)
            try:
                doc.add_comment(author=author, text=op.comment or "", paragraph_id=pid, date=date)
            except ToolFailure as exc:
                raise SourceError([f"{where}: comment failed: {exc.message}"]) from None
            _call(calls, "add_comment", {"text": op.comment or "", "paragraph_id": pid})
        else:
            pid = loc.paragraph_id(op, where)
            edit = tool_edit(op, pid)
            result = doc.apply_edits([edit], author=author, date=date)[0]
            if result.get("status") != "ok":
                detail = result.get("error", "unknown error")
                raise SourceError([f"{where}: {op.op} did not apply ({result.get('status')}: {detail})"])
            _call(calls, "propose_edits", {"edits": [edit]})
        applied.append(op.id)
    calls.append({"name": "end_session", "arguments": {}})
    return Applied(doc.to_bytes(), tuple(applied), tuple(calls))


def ops_ids(ops: Iterable[Op]) -> tuple[str, ...]:
    return tuple(o.id for o in ops)


__all__ = ["Applied", "play", "reviewing_author", "tool_edit", "turn_date", "ops_ids"]
