"""Checks that need more than one file or more than one task (run by ``tasks validate``).

Per-task parsing (``_parse``) already checked every field; here we open the documents and
compare tasks with each other: variants of one input group must give the agent byte-identical
input, and a golden redline must contain at least one change of its own.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from ._docx_scan import NotADocx, change_census
from ._model import Problem, Task

#: Metadata every variant of an input group must share.
_GROUP_SHARED = ("scenario_label", "side", "represented_party", "counterparty", "author")


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _file_digest(path: Path) -> str:
    return _digest(path.read_bytes())


def check_documents(task: Task, problems: list[Problem], memo: dict | None = None) -> None:
    """The contract (and golden) must open in the redline engine; a golden must add a change to it.

    ``memo`` is shared across the tasks of one validation so a document shared by the variants of
    an input group is opened once.
    """
    try:
        before = change_census(task.contract_path, memo)
    except NotADocx as exc:
        problems.append(Problem(str(task.contract_path), str(exc), None, "error", task.task_id))
        return
    if task.golden_path is None:
        return
    try:
        after = change_census(task.golden_path, memo)
    except NotADocx as exc:
        problems.append(Problem(str(task.golden_path), str(exc), None, "error", task.task_id))
        return
    added = after - before
    if not added:
        problems.append(
            Problem(
                str(task.golden_path),
                "golden redline has no change by an expert: no tracked change or comment beyond those already in "
                "contract.docx",
                None,
                "error",
                task.task_id,
            )
        )
        return
    authors = {author for (_, author, _) in added}
    if task.author not in authors:
        problems.append(
            Problem(
                str(task.golden_path),
                f"the golden's own changes are by {', '.join(sorted(map(repr, authors)))}, not the task author "
                f"{task.author!r}",
                "author",
                "warning",
                task.task_id,
            )
        )


def check_input_groups(tasks: Iterable[Task], problems: list[Problem]) -> None:
    """Variants a, b, c ... of one input group must show the agent the same thing."""
    groups: dict[tuple[int, str], list[Task]] = defaultdict(list)
    for task in tasks:
        groups[(task.scenario_id, task.input_group)].append(task)
    for (_, group), members in sorted(groups.items()):
        if len(members) < 2:
            continue
        first = members[0]
        reference = {
            "contract": _safe_digest(first.contract_path),
            "grounding": _grounding_digest(first),
            "instruction": _digest(first.instruction.encode("utf-8")),
        }
        for other in members[1:]:
            if _safe_digest(other.contract_path) != reference["contract"]:
                problems.append(
                    Problem(
                        str(other.contract_path),
                        f"differs from {first.task_id}'s contract.docx, but variants of input group {group} must "
                        "have byte-identical input",
                        None,
                        "error",
                        other.task_id,
                    )
                )
            if _grounding_digest(other) != reference["grounding"]:
                problems.append(
                    Problem(
                        str(other.root / "environment/app/grounding"),
                        f"grounding texts differ from {first.task_id}'s (same input group {group})",
                        None,
                        "error",
                        other.task_id,
                    )
                )
            if _digest(other.instruction.encode("utf-8")) != reference["instruction"]:
                problems.append(
                    Problem(
                        str(other.instruction_path),
                        f"differs from {first.task_id}'s instruction.md (same input group {group})",
                        None,
                        "warning",
                        other.task_id,
                    )
                )
            for key in _GROUP_SHARED:
                mine, theirs = getattr(other, key), getattr(first, key)
                if mine != theirs:
                    problems.append(
                        Problem(
                            str(other.rubrics_path),
                            f"{mine!r} but {first.task_id} in the same input group {group} says {theirs!r}",
                            key,
                            "error",
                            other.task_id,
                        )
                    )


def _safe_digest(path: Path) -> str | None:
    try:
        return _file_digest(path)
    except OSError:
        return None


def _grounding_digest(task: Task) -> str:
    h = hashlib.blake2b(digest_size=16)
    for name in sorted(task.grounding):
        h.update(name.encode("utf-8") + b"\0" + task.grounding[name].encode("utf-8") + b"\0")
    return h.hexdigest()
