"""Read one task directory into a :class:`Task`, collecting every problem instead of stopping.

Parsing never raises for bad data: each defect becomes a :class:`Problem` naming the file and
the field, and the caller decides whether to raise (``load_tasks``) or list them all
(``tasks validate``). A task with errors yields ``None``.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ._files import escaping_links, folder_link_escapes
from ._model import (
    CATEGORIES,
    CONTRACT,
    DOCKERFILE,
    GOLDEN,
    GROUNDING_DIR,
    GROUNDING_SUFFIXES,
    INSTRUCTION,
    RUBRICS,
    SCENARIO_LABELS,
    SIDE_PATTERN,
    TASK_TOML,
    TEST_SH,
    UNCATEGORIZED,
    WEIGHT_MAX,
    WEIGHT_MIN,
    Problem,
    Rubric,
    Task,
    clip,
    default_author,
    input_group_of,
    parse_task_name,
)

_GROUP_RE = re.compile(r"^s(\d+)-t(\d+)-g(\d+)\Z", re.ASCII)
_DIGITS_RE = re.compile(r"[0-9]{1,9}")
_SIDE_RE = re.compile(r"^(?:side\s*)?([AB])$", re.I)  # "A", "b", "Side A"

#: Metadata keys this package understands; ``turn`` is accepted as an alias of ``level``.
KNOWN_KEYS = (
    "task_id",
    "scenario_id",
    "scenario_label",
    "side",
    "level",
    "input_group",
    "variant",
    "represented_party",
    "counterparty",
    "author",
)
_RUBRIC_KEYS = {"id", "criteria", "category", "weight", "justification"}


@dataclass
class _Report:
    """Problem sink bound to one task, so call sites stay short."""

    problems: list[Problem]
    task_id: str
    errors: int = 0

    def error(self, path: Path, message: str, field: str | None = None) -> None:
        self.errors += 1
        self.problems.append(Problem(str(path), clip(message), field, "error", self.task_id))

    def warn(self, path: Path, message: str, field: str | None = None) -> None:
        self.problems.append(Problem(str(path), clip(message), field, "warning", self.task_id))


def read_text(path: Path) -> str:
    """UTF-8 text with universal newlines and no byte-order mark."""
    text = path.read_text(encoding="utf-8")
    return text[1:] if text.startswith("\ufeff") else text


def _text(path: Path, report: _Report, *, required: bool = True) -> str | None:
    """The file's text, or ``None`` with the reason reported (missing, unreadable, not UTF-8)."""
    if not path.is_file():
        if path.exists():
            report.error(path, "is a directory, not a file" if path.is_dir() else "is not a regular file")
        elif required:
            report.error(path, "file is missing")
        return None
    try:
        return read_text(path)
    except UnicodeDecodeError as exc:
        report.error(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        report.error(path, f"cannot read ({exc.strerror or exc})")
    return None


def _load_toml(path: Path, report: _Report) -> dict[str, Any] | None:
    text = _text(path, report)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        report.error(path, f"malformed TOML: {exc}")
    except ValueError as exc:  # an integer beyond Python's int-string digit limit
        report.error(path, f"malformed TOML: {_first_line(exc)}")
    return None


def _load_json(path: Path, report: _Report) -> Any:
    text = _text(path, report)
    if text is None:
        return None
    try:
        duplicates: dict[int, tuple[dict, tuple[str, ...]]] = {}
        data = json.loads(text, object_pairs_hook=_pairs_hook(duplicates))
    except json.JSONDecodeError as exc:
        report.error(path, f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    except RecursionError:
        report.error(path, "malformed JSON: nested too deeply")
    except ValueError as exc:  # an integer beyond Python's int-string digit limit
        report.error(path, f"malformed JSON: {_first_line(exc)}")
    else:
        # JSON may spell a lone UTF-16 surrogate ("\\ud83d"); such a string is not Unicode text and
        # breaks every later writer (terminal, parquet), so it is refused here, field by field; so is
        # a key stated twice in one object, which json.loads would resolve silently (last one wins).
        try:
            for field, message in _json_problems(data, "", duplicates):
                report.error(path, message, field)
        except RecursionError:
            report.error(path, "malformed JSON: nested too deeply")
        return data
    return None


def _pairs_hook(duplicates: dict[int, tuple[dict, tuple[str, ...]]]):
    """A json ``object_pairs_hook`` that builds plain dicts and notes, by ``id``, the keys an object
    stated more than once (json.loads would keep the last one silently). The object is kept in the
    note so its ``id`` cannot be reused by another object while the notes are read."""

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) < len(pairs):
            seen: set[str] = set()
            duplicates[id(obj)] = (obj, tuple(dict.fromkeys(k for k, _ in pairs if k in seen or seen.add(k))))
        return obj

    return hook


def _json_problems(value: Any, where: str, duplicates: dict[int, tuple[dict, tuple[str, ...]]]
                   ) -> Iterator[tuple[str, str]]:
    """(field, message) for each key stated twice in one object and each string (key or value)
    holding a lone surrogate."""
    if isinstance(value, str):
        bad = next((c for c in value if "\ud800" <= c <= "\udfff"), None)
        if bad is not None:
            yield where or "(top level)", f"contains an unpaired surrogate \\u{ord(bad):04x} (not valid Unicode text)"
    elif isinstance(value, dict):
        for key in duplicates.get(id(value), (None, ()))[1]:
            yield _field(where, key), "stated more than once in one object (only the last would count)"
        for key, item in value.items():
            inner = _field(where, key)
            yield from _json_problems(key, inner, duplicates)
            yield from _json_problems(item, inner, duplicates)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _json_problems(item, f"{where}[{index}]", duplicates)


def _field(where: str, key: str) -> str:
    name = key.encode("utf-8", "backslashreplace").decode("utf-8")
    return f"{where}.{name}" if where else name


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0].split(";")[0] if text else type(exc).__name__


# -- metadata ------------------------------------------------------------------------------
def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _DIGITS_RE.fullmatch(value.strip()):
        # ASCII digits only: str.isdigit() also passes "¹" (which int() rejects) and "١".
        return int(value.strip())
    return None


def _normalise(key: str, value: Any) -> tuple[Any, str | None]:
    """Bring one metadata value to its canonical type; the second item is an error message."""
    if key in ("scenario_id", "level"):
        number = _as_int(value)
        if number is None or number < 1:
            return None, f"must be a positive integer, got {value!r}"
        return number, None
    if key == "side":
        match = _SIDE_RE.match(value.strip()) if isinstance(value, str) else None
        if match:
            return match.group(1).upper(), None
        return None, f'must be "A" or "B", got {value!r}'
    if key == "task_id":
        if isinstance(value, str) and value.strip():
            return value.strip(), None
        return None, f"must be the task name string, got {value!r}"
    if not isinstance(value, str) or not value.strip():
        return None, f"must be a non-empty string, got {value!r}"
    return value.strip(), None


def _read_metadata(
    source: dict[str, Any], path: Path, report: _Report
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split one file's metadata into (known keys normalised, unknown keys as-is)."""
    known: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in source.items():
        canonical = "level" if key == "turn" else key
        if canonical == "task_id" and _as_int(value) is not None and not isinstance(value, str):
            # The published JSON schema allows a numeric id; keep it, the name stays the id.
            extra["task_number"] = value
            continue
        if canonical not in KNOWN_KEYS:
            extra[key] = value
            continue
        if key == "turn" and "level" in source:
            continue  # both spellings present: ``level`` rules, ``turn`` is compared with it below
        normalised, error = _normalise(canonical, value)
        if error:
            report.error(path, error, key)
        else:
            known[canonical] = normalised
    if "turn" in source and "level" in source:
        turn, _ = _normalise("level", source["turn"])
        if turn is not None and known.get("level") not in (None, turn):
            report.error(path, f"turn = {source['turn']!r} disagrees with level = {source['level']!r}", "turn")
    return known, extra


def _merge_metadata(
    name: str,
    toml_path: Path,
    toml_meta: dict[str, Any],
    json_path: Path,
    json_meta: dict[str, Any],
    report: _Report,
) -> dict[str, Any]:
    """rubrics.json wins (SPEC §2); a value that contradicts the directory name is an error.

    A value that contradicts the name is reported against the file that states it (and not
    again as a disagreement between the two files). The two files disagreeing on another key is
    a warning: SPEC has rubrics.json's value used, and a tree in the wild that words a label
    differently in each file must still load (``tasks validate --strict`` refuses it).
    """
    merged = {**toml_meta, **json_meta}
    parsed = parse_task_name(name)
    from_name: dict[str, Any] = {}
    if parsed is not None:
        scenario, turn, _, variant = parsed
        from_name = {
            "task_id": name,
            "scenario_id": scenario,
            "level": turn,
            "input_group": input_group_of(name),
            "variant": variant,
        }
    flagged: set[str] = set()
    for key, expected in from_name.items():
        for path, meta in ((json_path, json_meta), (toml_path, toml_meta)):
            if key in meta and not _same(key, meta[key], expected):
                flagged.add(key)
                report.error(
                    path,
                    f"{meta[key]!r} disagrees with the directory name {name!r} (which says {expected!r})",
                    key,
                )
        merged.setdefault(key, expected)
    for key in KNOWN_KEYS:
        if key in flagged or key not in toml_meta or key not in json_meta:
            continue
        if not _same(key, json_meta[key], toml_meta[key]):
            report.warn(json_path, f"{json_meta[key]!r} disagrees with {toml_meta[key]!r} in {toml_path.name}; "
                        "this value (rubrics.json) is used", key)
    if from_name:
        # The name's spelling of the group is canonical (s1-t1-g1 and s1-t1-g01 are one group).
        merged["input_group"] = from_name["input_group"]
    return merged


def _group_key(value: Any) -> tuple[int, int, int] | None:
    match = _GROUP_RE.match(value) if isinstance(value, str) else None
    return tuple(int(x) for x in match.groups()) if match else None  # type: ignore[return-value]


def _same(key: str, stated: Any, expected: Any) -> bool:
    if key == "input_group":
        return _group_key(stated) is not None and _group_key(stated) == _group_key(expected)
    return stated == expected


# -- rubrics ------------------------------------------------------------------------------
def _read_rubrics(items: Any, path: Path, report: _Report) -> list[Rubric]:
    if items is None:
        report.error(path, "missing (a list of rubric objects is required)", "rubrics")
        return []
    if not isinstance(items, list):
        report.error(path, f"must be a list, got {type(items).__name__}", "rubrics")
        return []
    if not items:
        report.error(path, "is empty: a task needs at least one rubric", "rubrics")
        return []
    rubrics: list[Rubric] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        where = f"rubrics[{index}]"
        if not isinstance(item, dict):
            report.error(path, f"must be an object, got {type(item).__name__}", where)
            continue
        before = report.errors
        rid = item.get("id")
        if not isinstance(rid, str) or not rid.strip():
            report.error(path, f"must be a non-empty string, got {rid!r}", f"{where}.id")
        elif rid in seen:
            report.error(path, f"duplicate rubric id {rid!r}", f"{where}.id")
        else:
            seen.add(rid)
        criteria = item.get("criteria")
        if "criteria" not in item:
            report.error(path, "missing", f"{where}.criteria")
        elif not isinstance(criteria, str) or not criteria.strip():
            report.error(path, f"must be a non-empty string, got {criteria!r}", f"{where}.criteria")
        category = item.get("category")
        if category is None or (isinstance(category, str) and not category.strip()):
            category = UNCATEGORIZED
        elif not isinstance(category, str) or category not in CATEGORIES:
            hint = next((c for c in CATEGORIES if isinstance(category, str) and c.lower() == category.lower()), None)
            message = f"unknown category {category!r}" + (
                f" (spelled {hint!r} in the real set)" if hint else f"; expected one of {', '.join(CATEGORIES)}"
            )
            report.error(path, message, f"{where}.category")
        weight = item.get("weight")
        number = _as_int(weight) if not isinstance(weight, str) else None
        if "weight" not in item:
            report.error(path, "missing", f"{where}.weight")
        elif number is None:
            report.error(path, f"must be an integer, got {weight!r}", f"{where}.weight")
        elif not WEIGHT_MIN <= number <= WEIGHT_MAX:
            report.error(path, f"{number} is outside [{WEIGHT_MIN}, {WEIGHT_MAX}]", f"{where}.weight")
        elif number == 0:
            report.warn(path, "weight 0 never changes the reward", f"{where}.weight")
        justification = item.get("justification")
        if justification is not None and not isinstance(justification, str):
            report.error(path, f"must be a string, got {type(justification).__name__}", f"{where}.justification")
        if report.errors == before:
            rubrics.append(
                Rubric(
                    id=rid,
                    criteria=criteria,
                    category=category,
                    weight=number,
                    justification=justification,
                    extra={k: v for k, v in item.items() if k not in _RUBRIC_KEYS},
                )
            )
    if rubrics and not any(r.weight > 0 for r in rubrics) and report.errors == 0:
        report.warn(path, "no rubric has a positive weight, so every reward is 0", "rubrics")
    return rubrics


# -- the task ------------------------------------------------------------------------------
def _read_grounding(task_dir: Path, report: _Report) -> dict[str, str]:
    folder = task_dir / GROUNDING_DIR
    if not folder.is_dir():
        report.warn(folder, "no grounding directory (playbook and commercial context)")
        return {}
    texts: dict[str, str] = {}
    found: list[Path] = []

    def unreadable(exc: OSError) -> None:  # rglob would skip such a folder without a word
        report.error(Path(exc.filename or folder), f"cannot read ({exc.strerror or exc})")

    before = report.errors
    for current, _, names in os.walk(folder, onerror=unreadable):
        found += [Path(current, name) for name in names]
    for file in sorted(found):
        hidden = any(part.startswith(".") for part in file.relative_to(folder).parts)
        # Hidden files are not task content (macOS ._x.md, .ipynb_checkpoints/) and the fingerprint
        # skips them too, so reading them would also let a cached dataset go stale.
        if not hidden and file.is_file() and file.suffix.lower() in GROUNDING_SUFFIXES:
            text = _text(file, report)
            if text is not None:
                texts[file.relative_to(folder).as_posix()] = text
    if not texts and report.errors == before:
        report.warn(folder, "no .md or .txt grounding text")
    return texts


_HEADER_RE = re.compile(r"^#\s*Representation\s*[—–-]+\s*(?P<party>.+?)\s+Legal\s*\(Side\s+(?P<side>[AB])\)", re.I)


def _check_header(instruction: str, path: Path, meta: dict[str, Any], report: _Report) -> None:
    """The brief's first line names the party and side (SPEC §2); it must not contradict the metadata."""
    first = next((line for line in instruction.splitlines() if line.strip()), "")
    match = _HEADER_RE.match(first.strip())
    if match is None:
        return
    side, party = match.group("side").upper(), match.group("party").strip()
    if meta.get("side") and side != meta["side"]:
        report.warn(path, f"the brief says Side {side} but the metadata says {meta['side']!r}", "side")
    if meta.get("represented_party") and party != meta["represented_party"]:
        report.warn(path, f"the brief represents {party!r} but the metadata says {meta['represented_party']!r}",
                    "represented_party")


def read_task(task_dir: Path, problems: list[Problem], *, tasks_prefix: str = "tasks") -> Task | None:
    """Parse and check one task directory; append every problem found; ``None`` on any error."""
    try:
        return _read_task(task_dir, problems, tasks_prefix)
    except OSError as exc:
        # e.g. a folder without read/search permission: Path.is_file() raises on EACCES, and one such
        # folder must neither stop the other tasks' checks nor escape load_tasks as a raw OSError.
        problems.append(Problem(str(exc.filename or task_dir), f"cannot read ({exc.strerror or exc})", None,
                                "error", task_dir.name))
        return None


def _read_task(task_dir: Path, problems: list[Problem], tasks_prefix: str) -> Task | None:
    name = task_dir.name
    report = _Report(problems, name)
    if parse_task_name(name) is None:
        report.error(task_dir, "directory name does not match redline-s<S>-t<T>-g<GG><v>", "name")
    outside = folder_link_escapes(task_dir)
    if outside:
        report.error(task_dir, outside)
        return None
    links = escaping_links(task_dir)
    if links:
        # Refused before any file is read: a followed link would put a file from outside the task
        # (a secret, /dev/zero) into the agent's prompt, an export or a Harbor task.
        for path, problem in links:
            report.error(path, problem)
        return None

    toml_path = task_dir / TASK_TOML
    json_path = task_dir / RUBRICS
    config = _load_toml(toml_path, report)
    toml_meta: dict[str, Any] = {}
    toml_extra: dict[str, Any] = {}
    if config is not None:
        section = config.get("metadata", {})
        if not isinstance(section, dict):
            report.error(toml_path, f"must be a table, got {type(section).__name__}", "metadata")
        else:
            toml_meta, toml_extra = _read_metadata(section, toml_path, report)

    data = _load_json(json_path, report)
    json_meta: dict[str, Any] = {}
    json_extra: dict[str, Any] = {}
    rubrics: list[Rubric] = []
    if data is not None:
        if not isinstance(data, dict):
            report.error(json_path, f"must be a JSON object with a 'rubrics' list, got {type(data).__name__}")
        else:
            json_meta, json_extra = _read_metadata(
                {k: v for k, v in data.items() if k != "rubrics"}, json_path, report
            )
            rubrics = _read_rubrics(data.get("rubrics"), json_path, report)

    meta = _merge_metadata(name, toml_path, toml_meta, json_path, json_meta, report)
    scenario = meta.get("scenario_id")
    turn = meta.get("level")
    if "scenario_label" not in meta and isinstance(scenario, int):
        if scenario in SCENARIO_LABELS:
            meta["scenario_label"] = SCENARIO_LABELS[scenario]
        else:
            report.error(json_path, "missing (no default for this scenario)", "scenario_label")
    if "side" not in meta:
        pattern = SIDE_PATTERN.get(scenario) if isinstance(scenario, int) else None
        if pattern and isinstance(turn, int) and turn <= len(pattern):
            meta["side"] = pattern[turn - 1]
            report.warn(json_path, f"missing; taken as {meta['side']!r} from the scenario's turn pattern", "side")
        else:
            report.error(json_path, "missing", "side")
    else:
        pattern = SIDE_PATTERN.get(scenario) if isinstance(scenario, int) else None
        if pattern and isinstance(turn, int) and turn <= len(pattern) and meta["side"] != pattern[turn - 1]:
            report.warn(
                json_path,
                f"{meta['side']!r} but scenario {scenario} turn {turn} belongs to side {pattern[turn - 1]!r}",
                "side",
            )
    for key in ("represented_party", "counterparty"):
        if key not in meta:
            report.error(json_path, "missing", key)
    if "author" not in meta and "represented_party" in meta:
        meta["author"] = default_author(meta["represented_party"])
        report.warn(json_path, f"missing; using the convention {meta['author']!r}", "author")

    instruction_path = task_dir / INSTRUCTION
    instruction = _text(instruction_path, report)
    if instruction is not None and not instruction.strip():
        report.error(instruction_path, "is empty")
    elif instruction is not None:
        _check_header(instruction, instruction_path, meta, report)
    instruction = instruction or ""

    contract = task_dir / CONTRACT
    if contract.is_dir():
        report.error(contract, "is a directory, not a file (the document the agent redlines)")
    elif not contract.is_file():
        report.error(contract, "file is missing (the document the agent redlines)")
    elif contract.stat().st_size == 0:
        report.error(contract, "file is empty")
    golden = task_dir / GOLDEN
    golden_path = golden if golden.is_file() else None
    if golden_path is None and golden.exists():  # absent is an accept-only task; a folder is a broken one
        report.error(golden, "is a directory, not a file" if golden.is_dir() else "is not a regular file")
    for optional in (DOCKERFILE, TEST_SH):
        if not (task_dir / optional).is_file():
            report.warn(task_dir / optional, "file is missing (Harbor needs it to run the task)")
    grounding = _read_grounding(task_dir, report)

    if report.errors:
        return None
    return Task(
        task_id=name,
        scenario_id=meta["scenario_id"],
        scenario_label=meta["scenario_label"],
        side=meta["side"],
        turn=meta["level"],
        input_group=meta["input_group"],
        variant=meta["variant"],
        represented_party=meta["represented_party"],
        counterparty=meta["counterparty"],
        author=meta["author"],
        instruction=instruction,
        grounding=grounding,
        rubrics=tuple(rubrics),
        root=task_dir,
        contract_path=contract,
        golden_path=golden_path,
        source_task_path=f"{tasks_prefix}/{name}",
        extra={**toml_extra, **json_extra},
        config=config or {},
    )
