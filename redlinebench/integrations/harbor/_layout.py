"""Where things live in a Harbor container, and the error every Harbor step raises."""

from __future__ import annotations

import re
from pathlib import Path

from ..._atomic import atomic_write_bytes
from ...errors import RedlineBenchError


APP_DIR = "/app"
OUTPUT_PATH = "/app/output/redline.docx"
VERIFIER_LOGS = "/logs/verifier"
TESTS_DIR = "/tests"
SOLUTION_DIR = "/solution"
DEFAULT_BASE_IMAGE = "python:3.11-slim"
#: The venv the Dockerfile installs redlinebench into (first on PATH), and the wheelhouse folder in environment/.
VENV_DIR = "/opt/redlinebench"
WHEELHOUSE = "wheels"
#: The export's own folder next to the tasks (Harbor skips it: no task.toml): the one copy of the wheel
#: every environment hard-links, and the manifest ``reproduce`` reuses an export by.
SHARED_DIR = ".redlinebench"
_SKIP_COPY = {"tests/test.sh", "environment/Dockerfile", "solution/solve.sh", "solution/redline.docx"}
#: What a judge spec may contain once it is written into a shell script.
_SAFE_SPEC = re.compile(r"[\w.,:/@+=-]+")


class HarborError(RedlineBenchError):
    """A Harbor export / import / verify problem (names the file)."""


def _atomic_write(path: Path, data: bytes | str) -> None:
    """Temp file + rename: a reader never sees half a file."""
    atomic_write_bytes(path, data.encode("utf-8") if isinstance(data, str) else data)
