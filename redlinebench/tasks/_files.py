"""What may be read or copied from a task folder: nothing that lives outside it.

A task tree is untrusted input. A symlink such as ``grounding/secrets.md -> /etc/passwd`` would
otherwise put a file from the user's machine into the agent's prompt, a dataset export or a
Harbor task. :func:`escaping_links` finds every symlink (to a file or a folder) whose target
resolves outside the task folder, or that cannot be resolved at all; the task reader refuses
such a task before reading any of its files. :func:`copy_task_tree` copies a task folder with the
same rule enforced at copy time, so a link added after loading is not copied either.
A symlink that stays inside the task folder is allowed (its target's bytes are read or copied).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..errors import TaskError

OUTSIDE = "symlink pointing outside the task folder"


def _inside(path: str | Path, root: str) -> bool:
    return os.path.commonpath([root, str(path)]) == root


def escaping_links(task_dir: Path) -> list[tuple[Path, str]]:
    """``(link, problem)`` for each symlink below ``task_dir`` that must not be followed.

    Refused: a link whose target is outside the task folder, a link that cannot be resolved
    (a loop), a broken link, and a link to a folder that contains the link (copying it never ends).
    Links to folders are reported but not descended into.
    """
    root = os.path.realpath(task_dir)
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
            if not _inside(target, root):
                found.append((path, f"{OUTSIDE} (to {target})"))
            elif not target.exists():
                found.append((path, f"broken symlink (its target {target} does not exist)"))
            elif target.is_dir() and _inside(os.path.realpath(current), str(target)):
                found.append((path, f"symlink to a folder that contains it ({target}): a loop"))
    return found


def copy_task_tree(src: Path, dst: Path) -> None:
    """Copy a task folder (symlinks inside it are copied as the files they point to).

    Raises :class:`TaskError` naming the file when anything to be copied resolves outside ``src``.
    """
    root = os.path.realpath(src)

    def refuse_outside(directory: str, names: list[str]) -> list[str]:
        if not _inside(os.path.realpath(directory), root):
            raise TaskError(OUTSIDE, path=directory)
        return []

    def copy(source: str, target: str) -> str:
        if not _inside(os.path.realpath(source), root):
            raise TaskError(OUTSIDE, path=source)
        return shutil.copy2(source, target)

    shutil.copytree(src, dst, symlinks=False, ignore=refuse_outside, copy_function=copy)
