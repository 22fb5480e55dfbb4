"""``transcript.jsonl``: one JSON object per event, appended and flushed as the episode runs.

The file lives in the trial's staging directory; the runner publishes it with the rest of the
trial only when the episode is over, so a reader never sees a transcript of a trial that is
still running. Every line passes through :func:`redact`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from .._text import encodable
from .redact import Redactor


class Transcript:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh = open(path, "a", encoding="utf-8")
        self._redact = Redactor()
        self._t0 = time.monotonic()

    def write(self, event: dict[str, Any]) -> None:
        record = {"t": round(time.monotonic() - self._t0, 4), **event}
        line = json.dumps(record, ensure_ascii=False, default=str)
        self._fh.write(self._redact(encodable(line)) + "\n")
        self._fh.flush()

    def write_line(self, line: str) -> None:
        """One line already written by a transcript (a continued episode's earlier events), as it was."""
        self._fh.write(line.rstrip("\n") + "\n")
        self._fh.flush()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> "Transcript":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
