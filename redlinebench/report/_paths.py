"""Paths as a shared page may show them: never this machine's absolute paths.

A report is sent to colleagues and attached to issues, so the folders it names are given
relative to the run directory, as ``embedded`` for the shipped synthetic set and ``~`` for the
home folder; any other absolute path keeps only its last two parts (``…/bench/tasks``).
Used on everything from files or messages (config values, problems, error texts), never on
document text.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

# an absolute POSIX path (not the path part of a URL: no letter, digit, ':' or '/' just before it)
_POSIX = re.compile(r"(?<![\w.:/~-])/(?:[^\s/\"'<>|:;,()\[\]{}]+/)+[^\s/\"'<>|:;,()\[\]{}]*")
_WINDOWS = re.compile(r"(?<![\w])[A-Za-z]:[\\/](?:[^\s\\/\"'<>|:;,()\[\]{}]+[\\/])*[^\s\\/\"'<>|:;,()\[\]{}]*")


def _tail(match: re.Match[str]) -> str:
    parts = [p for p in re.split(r"[\\/]", match.group(0)) if p]
    return "…/" + "/".join(parts[-2:]) if len(parts) > 2 else match.group(0)


class Shareable:
    """Rewrite absolute paths in text for a page about the run in *run_dir*."""

    def __init__(self, run_dir: Path) -> None:
        prefixes: dict[str, str] = {}
        try:
            from ..config import embedded_benchmark_dir
            embedded = embedded_benchmark_dir()
            for p in (embedded, embedded.resolve()):
                prefixes[str(p)] = "embedded"
        except Exception:  # noqa: BLE001 - a page without the package data still renders
            pass
        run = Path(run_dir)
        for p in {run.absolute(), run.resolve()}:
            prefixes[str(p)] = "."
        if not run.is_absolute() and str(run) not in (".", ""):
            prefixes[str(run)] = "."   # `report runs/x`: its files are named runs/x/trials/...
        home = os.path.expanduser("~")
        if home not in ("~", "/"):
            prefixes[home] = "~"
        # longest first: the run directory may live under the home folder
        self._prefixes = sorted(((k, v) for k, v in prefixes.items() if len(k) > 1), key=lambda kv: -len(kv[0]))

    def text(self, value: str) -> str:
        value = self.known(value)
        value = _POSIX.sub(_tail, value)
        return _WINDOWS.sub(_tail, value)

    def known(self, value: str) -> str:
        """Only the run directory, the shipped set and the home folder: for text that may quote a
        document (a transcript), where a path-like phrase is the contract's, not this machine's."""
        for prefix, name in self._prefixes:
            if prefix in value:
                value = re.sub(r"(?<![\w.~/-])" + re.escape(prefix) + r"(?=$|[\\/\s\"'<>:;,()\]])([\\/])?",
                               lambda m, n=name: "" if n == "." and m.group(1) else (n + (m.group(1) or "")), value)
        return value

    def __call__(self, value: Any, *, known_only: bool = False) -> Any:
        """*value* with every string in it rewritten (dicts and lists walked)."""
        if isinstance(value, str):
            return self.known(value) if known_only else self.text(value)
        if isinstance(value, dict):
            return {k: self(v, known_only=known_only) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self(v, known_only=known_only) for v in value]
        return value
