"""The ``outputs`` agent: redlines made elsewhere, taken from a folder, one per task and trial.

``import outputs DIR`` (``runner.imports``) runs this agent so an outside tool's redlines go
through the very path a run's do (staging, publish, gate, integrity audit, judges, summary,
report, ``--resume``). Layout of ``DIR``::

    DIR/<task_id>.docx              trial 1
    DIR/<task_id>/<trial>.docx      trial 1, 2, ... (several trials of one task)

A task with no file leaves no redline and ends with ``NO_OUTPUT``: a gate failure (reward 0).
Every file is hostile: only regular files are read (a symbolic link is not followed: an outside
folder must not copy other files of this machine into a shareable run folder), at most
``MAX_OUTPUT_BYTES``; what they hold is the gate's business.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .base import NO_OUTPUT, REDLINE, TRANSCRIPT, Episode, agent
from .transcript import Transcript

#: A larger file cannot be a document the engine opens (docx.package.MAX_TOTAL_BYTES unpacked).
MAX_OUTPUT_BYTES = 100 * 1024 * 1024
SUFFIX = ".docx"


@dataclass
class OutputsScan:
    """What a folder of outputs holds: ``found[task_id] = {trial: path}``, and what was ignored."""

    folder: Path
    found: dict[str, dict[int, Path]] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)     # "name: why", relative to the folder
    unusable: list[str] = field(default_factory=list)    # matched, but fails the gate: "name: why"

    def max_trial(self, task_ids: list[str] | None = None) -> int:
        ids = self.found if task_ids is None else [t for t in task_ids if t in self.found]
        return max((max(self.found[t]) for t in ids), default=1)


def _trial_number(stem: str) -> int | None:
    return int(stem) if stem.isdigit() and stem == str(int(stem)) and int(stem) >= 1 else None


def scan_outputs(folder: str | Path, task_ids: set[str]) -> OutputsScan:
    """Match the files of ``folder`` to ``task_ids``; anything else is listed as ignored (never
    followed when a link). A matched file that cannot be a Word document is listed as unusable
    (it is still imported: the gate fails it, reward 0, as it would a run's)."""
    root = Path(folder)
    if not root.is_dir():
        raise ConfigError("the folder of outputs does not exist or is not a folder", path=root)
    scan = OutputsScan(root)
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        name = entry.name
        if entry.is_symlink():
            scan.ignored.append(f"{name}: a symbolic link, not followed (copy the file itself)")
        elif entry.is_dir():
            if name.endswith(SUFFIX) and name[:-len(SUFFIX)] in task_ids:
                scan.ignored.append(f"{name}/: a folder, not a file (a task's trials go in "
                                    f"{name[:-len(SUFFIX)]}/<trial>.docx)")
                continue
            if name not in task_ids:
                scan.ignored.append(f"{name}/: no task of this id is selected")
                continue
            for inner in sorted(entry.iterdir(), key=lambda p: p.name):
                number = _trial_number(inner.name[:-len(SUFFIX)]) if inner.name.endswith(SUFFIX) else None
                if inner.is_symlink():
                    scan.ignored.append(f"{name}/{inner.name}: a symbolic link, not followed (copy the file itself)")
                elif number is None or inner.is_dir():
                    scan.ignored.append(f"{name}/{inner.name}: not <trial>.docx (trial 1, 2, ...)")
                else:
                    _add(scan, name, number, inner)
        elif name.endswith(SUFFIX) and name[:-len(SUFFIX)] in task_ids:
            _add(scan, name[:-len(SUFFIX)], 1, entry)
        else:
            why = "not <task_id>.docx" if not name.endswith(SUFFIX) else "no task of this id is selected"
            scan.ignored.append(f"{name}: {why}")
    return scan


def docx_problem(path: Path) -> str | None:
    """Why ``path`` cannot be graded as a Word document (empty, too large, not a zip, an unsafe
    member such as ``..``, broken parts), by the engine's own open: the gate would refuse it alike."""
    from ..docx.package import Package
    from ..errors import DocxError

    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if size == 0:
        return "an empty file"
    if size > MAX_OUTPUT_BYTES:
        return f"larger than {MAX_OUTPUT_BYTES // (1024 * 1024)} MB"
    try:
        Package.open(path, name=path.name)
    except DocxError as exc:
        return exc.problem
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return None


def _add(scan: OutputsScan, task_id: str, trial: int, path: Path) -> None:
    trials = scan.found.setdefault(task_id, {})
    if trial in trials:
        raise ConfigError(f"two outputs for trial {trial} of {task_id}: {trials[trial].relative_to(scan.folder)} "
                          f"and {path.relative_to(scan.folder)}; keep one", path=scan.folder)
    trials[trial] = path
    why = docx_problem(path)
    if why:
        scan.unusable.append(f"{path.relative_to(scan.folder).as_posix()}: {why} (imported; the gate fails it: "
                             "reward 0)")


def output_path(folder: Path, task_id: str, trial: int) -> Path | None:
    """Where the output of ``task_id`` / ``trial`` is in ``folder`` (None when there is none)."""
    nested = folder / task_id / f"{trial}{SUFFIX}"
    if os.path.lexists(nested) and not (folder / task_id).is_symlink():  # a linked folder is not followed either
        return nested
    flat = folder / f"{task_id}{SUFFIX}"
    return flat if trial == 1 and os.path.lexists(flat) else None


def copy_output(src: Path, dest: Path) -> dict[str, Any]:
    """Copy a regular file (not a link, at most MAX_OUTPUT_BYTES + 1 bytes: a larger one fails the
    gate as it would unimported); returns what metrics.json records, with ``refused`` when not copied."""
    record: dict[str, Any] = {"file": src.name}
    try:
        st = os.lstat(src)
    except OSError as exc:
        return {**record, "refused": f"cannot be read ({exc.strerror or exc})"}
    if stat.S_ISLNK(st.st_mode):
        return {**record, "refused": "a symbolic link (not followed)"}
    if not stat.S_ISREG(st.st_mode):
        return {**record, "refused": "not a regular file"}
    digest = hashlib.sha256()
    size = 0
    try:
        with open(src, "rb") as fin, open(dest, "wb") as fout:
            while size <= MAX_OUTPUT_BYTES:
                chunk = fin.read(min(1 << 20, MAX_OUTPUT_BYTES + 1 - size))
                if not chunk:
                    break
                size += len(chunk)
                digest.update(chunk)
                fout.write(chunk)
    except OSError as exc:
        dest.unlink(missing_ok=True)
        return {**record, "refused": f"cannot be read ({exc.strerror or exc})"}
    return {**record, "bytes": size, "sha256": digest.hexdigest(), "truncated": size > MAX_OUTPUT_BYTES}


@agent("outputs")
class OutputsAgent:
    """Copies ``DIR``'s file for the task and trial to ``workdir/redline.docx``; no model, no cost."""

    name = "outputs"

    def __init__(self, *, model: str | None = None, outputs: str | Path | None = None, **_: Any) -> None:
        if not outputs:
            raise ConfigError("the outputs agent needs the folder of outputs (redlinebench import outputs DIR)")
        self.folder = Path(outputs)
        if not self.folder.is_dir():  # e.g. a run resumed after its outputs folder moved: never "no output" for all
            raise ConfigError("the folder of outputs this import reads is not there (a run moved without it?); "
                              "put it back where config.json's `imported` says, relative to the run folder",
                              path=self.folder)
        self.label = model or "outputs"

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        src = output_path(self.folder, task.task_id, trial)
        metrics: dict[str, Any] = {"steps": 0, "tokens_in": None, "tokens_out": None, "cost_usd": None,
                                   "cost_known": None, "tool_calls": {}, "source": "outputs",  # no cost: not "unknown"
                                   "wall_s": None}  # the copy's time is not the agent's: latency unknown
        with Transcript(workdir / TRANSCRIPT) as log:
            log.write({"type": "start", "task_id": task.task_id, "agent": self.name, "trial": trial})
            if src is None:
                record: dict[str, Any] = {"file": None, "refused": "no file for this task and trial"}
            else:
                record = copy_output(src, workdir / REDLINE)
                record["file"] = src.relative_to(self.folder).as_posix()
            metrics["output"] = record
            reason = NO_OUTPUT if "refused" in record else "imported"
            log.write({"type": "end", "status": "completed", "end_reason": reason, "output": record})
        return Episode("completed", reason, metrics)
