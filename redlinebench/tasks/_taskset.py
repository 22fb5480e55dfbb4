"""A loaded task tree: filters, input groups, scenario x turn cells, a content fingerprint."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import TaskError
from ._checks import check_documents, check_input_groups
from ._fingerprint import fingerprint_dirs
from ._model import Problem, Task, clip, parse_task_name, printable
from ._parse import read_task
from ._source import Source, resolve_source, task_dirs


def _as_set(value: Any, cast) -> set | None:
    if value is None:
        return None
    if isinstance(value, (str, int)):
        value = [value]
    return {cast(v) for v in value}


class TaskSet:
    """An ordered collection of tasks from one source. Filtering returns a new ``TaskSet``."""

    def __init__(self, tasks: Sequence[Task], source: Source, left_out: Sequence[str] = ()) -> None:
        self.tasks: list[Task] = list(tasks)
        self.source = source
        #: broken task directories the loader was told the caller will not use (see ``load_tasks``)
        self.left_out: tuple[str, ...] = tuple(left_out)
        self._by_id = {t.task_id: t for t in self.tasks}
        self._fingerprint: str | None = None

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks)

    def __getitem__(self, key: int | str) -> Task:
        """``tasks[0]`` by position, ``tasks["redline-s1-t2-g01a"]`` by id (a ``KeyError`` naming close
        matches when no task has it)."""
        if isinstance(key, str):
            try:
                return self.get(key)
            except TaskError as exc:
                raise KeyError(str(exc)) from None
        return self.tasks[key]

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._by_id

    def __repr__(self) -> str:
        groups, cells = len(self.input_groups()), len(self.cells())
        return f"TaskSet({len(self.tasks)} tasks, {groups} input groups, {cells} cells, from {self.source.kind})"

    @property
    def ids(self) -> list[str]:
        return [t.task_id for t in self.tasks]

    def get(self, task_id: str) -> Task:
        """The task with this id; a ``TaskError`` naming close matches when there is none."""
        try:
            return self._by_id[task_id]
        except KeyError:
            import difflib

            close = difflib.get_close_matches(task_id, self._by_id, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise TaskError(f"no task {task_id!r} in {self.source.label}{hint}") from None

    def filter(
        self,
        ids: str | Iterable[str] | None = None,
        *,
        scenario: int | str | Iterable[int | str] | None = None,
        turn: int | str | Iterable[int | str] | None = None,
        side: str | Iterable[str] | None = None,
        input_group: str | Iterable[str] | None = None,
        variant: str | Iterable[str] | None = None,
    ) -> TaskSet:
        """Tasks matching every given criterion (each may be one value or several).

        A value that no task of this set has (``scenario=9`` on a set of scenarios 1-3, a typo in a
        side or group) raises a ``TaskError`` naming the values there are: an empty selection is
        almost always a mistake, and silence would make it look like a finished, empty run.
        """
        wanted_ids = _as_set(ids, str)
        if wanted_ids:
            unknown = sorted(wanted_ids - self._by_id.keys())
            if unknown:
                self.get(unknown[0])  # raises with a hint
        scenarios = _as_set(scenario, int)
        turns = _as_set(turn, int)
        sides = _as_set(side, lambda s: str(s).upper())
        groups = _as_set(input_group, str)
        variants = _as_set(variant, str)
        for name, asked, have in (("scenario", scenarios, lambda t: t.scenario_id), ("turn", turns, lambda t: t.turn),
                                  ("side", sides, lambda t: t.side), ("input group", groups, lambda t: t.input_group),
                                  ("variant", variants, lambda t: t.variant)):
            self._check_values(name, asked, have)
        kept = [
            t
            for t in self.tasks
            if (wanted_ids is None or t.task_id in wanted_ids)
            and (scenarios is None or t.scenario_id in scenarios)
            and (turns is None or t.turn in turns)
            and (sides is None or t.side in sides)
            and (groups is None or t.input_group in groups)
            and (variants is None or t.variant in variants)
        ]
        return TaskSet(kept, self.source)

    def _check_values(self, name: str, asked: set | None, have: Callable[[Task], Any]) -> None:
        """Raise when a filter value matches no task of this set, naming the values it has."""
        if not asked or not self.tasks:
            return
        present = {have(t) for t in self.tasks}
        unknown = sorted(asked - present, key=str)
        if unknown:
            values = ", ".join(str(v) for v in sorted(present, key=str))
            raise TaskError(f"no task has {name} {', '.join(str(v) for v in unknown)} in {self.source.label} "
                            f"({len(self.tasks)} tasks; {name}s there: {values})")

    def input_groups(self) -> dict[str, list[Task]]:
        """Input group id -> its variants, in task order."""
        groups: dict[str, list[Task]] = {}
        for task in self.tasks:
            groups.setdefault(task.input_group, []).append(task)
        return groups

    def cells(self) -> dict[tuple[int, int], list[Task]]:
        """(scenario, turn) -> tasks, keys ascending: the cells the headline score averages."""
        cells: dict[tuple[int, int], list[Task]] = {}
        for task in sorted(self.tasks, key=lambda t: t.cell):
            cells.setdefault(task.cell, []).append(task)
        return dict(sorted(cells.items()))

    def fingerprint(self) -> str:
        """Content hash of the tasks' files: equal fingerprints mean identical benchmark data."""
        if self._fingerprint is None:
            self._fingerprint = fingerprint_dirs(t.root for t in self.tasks)
        return self._fingerprint


@dataclass
class ValidationReport:
    """Everything ``tasks validate`` found, in one pass."""

    source: Source
    tasks: TaskSet
    problems: list[Problem]
    checked: int

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source.to_dict(),
            "checked": self.checked,
            "valid": len(self.tasks),
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "problems": [p.to_dict() for p in self.problems],
        }


def _read_all(source: Source) -> tuple[list[Task], list[Problem], int]:
    problems: list[Problem] = []
    dirs = task_dirs(source.tasks_dir)
    if not dirs:
        raise TaskError("no task directories found", path=source.tasks_dir)
    tasks = [t for t in (read_task(d, problems) for d in dirs) if t is not None]
    return _refuse_respelled(tasks, problems), problems, len(dirs)


def _refuse_respelled(tasks: list[Task], problems: list[Problem]) -> list[Task]:
    """Numbers in a task name may be zero-padded or not (g1 = g01), but only one way per tree:
    ``redline-s1-t1-g1a`` beside ``redline-s1-t1-g01a`` is one task twice (counted twice in its
    cell), and ``g1b`` beside ``g01a`` splits one input group in two (its variants never compared)."""
    first_task: dict[tuple, Task] = {}
    first_group: dict[tuple, Task] = {}
    kept: list[Task] = []
    for task in tasks:
        scenario, turn, group, variant = parse_task_name(task.task_id) or (None, None, None, None)
        if scenario is None:
            kept.append(task)
            continue
        twin = first_task.setdefault((scenario, turn, group, variant), task)
        other = first_group.setdefault((scenario, turn, group), task)
        if twin is not task:
            message = f"the same task as {twin.task_id} (scenario {scenario}, turn {turn}, group {group}, " \
                      f"variant {variant}) under another spelling"
        elif other.input_group != task.input_group:
            message = f"input group spelled {task.input_group} here but {other.input_group} by {other.task_id}: " \
                      "name both the same way"
        else:
            kept.append(task)
            continue
        problems.append(Problem(str(task.root), message, "name", "error", task.task_id))
    return kept


def load_tasks(source: str | Path | Source | None = None, *,
               unused: Callable[[str], bool] | None = None) -> TaskSet:
    """Load every task of a tree (see ``resolve_source``); a ``TaskError`` on the first bad file.

    The error names the file and field and counts the rest; ``validate_tasks`` lists them all.
    ``unused(task_dir_name)`` says which tasks the caller will surely not use (a run of a subset):
    their problems do not stop the load, they are left out and named in ``TaskSet.left_out``, so
    one broken task in a 140-task tree does not block running the others.
    """
    resolved = resolve_source(source)
    tasks, problems, _ = _read_all(resolved)
    errors = [p for p in problems if p.severity == "error"]
    left_out: list[str] = []
    if unused is not None:
        left_out = sorted({p.task_id for p in errors if p.task_id is not None and unused(p.task_id)})
        errors = [p for p in errors if p.task_id not in left_out]
        tasks = [t for t in tasks if t.task_id not in left_out]
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''}; run `redlinebench tasks validate`)" if len(errors) > 1 else ""
        # one line, whatever the tree holds (a newline in a folder name, a 100 kB value)
        raise TaskError(printable(clip(first.message)) + more, path=printable(first.path),
                        field=printable(first.field) if first.field else None)
    return TaskSet(tasks, resolved, left_out)


def validate_tasks(source: str | Path | Source | None = None) -> ValidationReport:
    """Check every task and the relations between tasks; never stops at the first problem."""
    resolved = resolve_source(source)
    tasks, problems, checked = _read_all(resolved)
    memo: dict = {}  # documents shared by variants are opened once
    for task in tasks:
        check_documents(task, problems, memo)
    check_input_groups(tasks, problems)
    bad = {p.task_id for p in problems if p.severity == "error"}
    return ValidationReport(resolved, TaskSet([t for t in tasks if t.task_id not in bad], resolved), problems, checked)
