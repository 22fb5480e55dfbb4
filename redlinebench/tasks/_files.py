"""What may be read or copied from a task folder: nothing that lives outside it.

A task tree is untrusted input. A symlink such as ``grounding/secrets.md -> /etc/passwd`` would
otherwise put a file from the user's machine into the agent's prompt, a dataset export or a
Harbor task. :func:`escaping_links` finds every symlink (to a file or a folder) whose target
resolves outside the task folder, or that cannot be resolved at all; the task reader refuses
such a task before reading any of its files. :func:`copy_task_tree` copies a task folder with the
same rule enforced at copy time, so a link added after loading is not copied either.
A symlink that stays inside the task folder is allowed (its target's bytes are read or copied),
and so is one into the ``blobs/`` of a Hugging Face cache snapshot the task lives in (that is how
the cache stores every file of the dataset).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..errors import TaskError

OUTSIDE = "symlink pointing outside the task folder"


def _inside(path: str | Path, root: str) -> bool:
    return os.path.commonpath([root, str(path)]) == root


def _roots(task_dir: Path) -> list[str]:
    """Where the task's files may live: the task folder, plus the ``blobs/`` folder of the Hugging
    Face cache repository when the task sits in one of its ``snapshots/<revision>/``."""
    roots = [os.path.realpath(task_dir)]
    for parent in Path(os.path.abspath(task_dir)).parents:
        if parent.name == "snapshots" and (parent.parent / "blobs").is_dir():
            roots.append(os.path.realpath(parent.parent / "blobs"))
            break
    return roots


def _inside_any(path: str | Path, roots: list[str]) -> bool:
    return any(_inside(path, root) for root in roots)


def escaping_links(task_dir: Path) -> list[tuple[Path, str]]:
    """``(link, problem)`` for each symlink below ``task_dir`` that must not be followed.

    Refused: a link whose target is outside the task folder, a link that cannot be resolved
    (a loop), a broken link, and a link to a folder that contains the link (copying it never ends).
    Links to folders are reported but not descended into.
    """
    roots = _roots(task_dir)
    found: list[tuple[Path, str]] = []
    for current, subdirs, names in os.walk(task_dir, followlinks=False):
        for name in sorted(subdirs + names):
            path = Path(current, name)
            if not path.is_symlink():
                continue
            try:
                target = path.resolve(strict=False)
            except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
                found.append((path, "symlink that cannot be resolved (a loop of links?)"))
                continue
            if not _inside_any(target, roots):
                found.append((path, f"{OUTSIDE} (to {target})"))
            elif not target.exists():
                found.append((path, f"broken symlink (its target {target} does not exist)"))
            elif target.is_dir() and _inside(os.path.realpath(current), str(target)):
                found.append((path, f"symlink to a folder that contains it ({target}): a loop"))
    return found


def folder_link_escapes(task_dir: Path) -> str | None:
    """The problem when the task folder itself is a symlink out of the folder that lists it (a
    ``tasks/redline-...`` link to ``/etc`` would make every file there part of the task)."""
    if not task_dir.is_symlink():
        return None
    target = os.path.realpath(task_dir)
    if _inside(target, os.path.realpath(task_dir.parent)):
        return None
    return f"the task folder is a symlink pointing outside the task tree (to {target})"


def link_stays_inside(link: Path, task_dir: Path) -> bool:
    """Whether the symlink ``link`` (somewhere below ``task_dir``) may be followed: the one rule,
    for every copier of a task folder."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return _inside_any(target, _roots(task_dir))


def copy_task_tree(src: Path, dst: Path) -> None:
    """Copy a task folder (symlinks inside it are copied as the files they point to).

    Raises :class:`TaskError` naming the file when anything to be copied resolves outside ``src``.
    """
    roots = _roots(src)

    def refuse_outside(directory: str, names: list[str]) -> list[str]:
        if not _inside_any(os.path.realpath(directory), roots):
            raise TaskError(OUTSIDE, path=directory)
        return []

    def copy(source: str, target: str) -> str:
        if not _inside_any(os.path.realpath(source), roots):
            raise TaskError(OUTSIDE, path=source)
        return shutil.copy2(source, target)

    shutil.copytree(src, dst, symlinks=False, ignore=refuse_outside, copy_function=copy)
