"""Run our CLI in a real pseudo-terminal of a given size, as a user's terminal would show it.

rich reads the size from the terminal (ioctl), not only from ``COLUMNS``, so both are set; the
output is returned with escape sequences removed and split into the lines and redrawn frames
(``\\r``) a screen would have shown.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_CSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x1b\][^\x07]*\x07")


def run_in_terminal(args: list[str], *, columns: int = 80, rows: int = 24, cwd: Path | None = None,
                    env: dict[str, str] | None = None, timeout: float = 240.0) -> tuple[int, list[str]]:
    """``(exit code, screen lines)`` of ``python -m redlinebench ARGS`` in a ``columns`` x ``rows`` pty."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    full_env = {**os.environ, "COLUMNS": str(columns), "LINES": str(rows), "TERM": "xterm-256color",
                "PYTHONPATH": str(ROOT), **(env or {})}
    for name in ("NO_COLOR", "FORCE_COLOR", "CI", "GITHUB_ACTIONS", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        full_env.pop(name, None)
    proc = subprocess.Popen([sys.executable, "-m", "redlinebench", *args], stdin=slave, stdout=slave,
                            stderr=slave, cwd=cwd, env=full_env, close_fds=True)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        else:
            proc.kill()
            raise AssertionError(f"redlinebench {' '.join(args)} did not finish in {timeout} s")
    finally:
        os.close(master)
    code = proc.wait(timeout=30)
    text = _CSI.sub("", b"".join(chunks).decode("utf-8", "replace"))
    lines = [frame for line in text.replace("\r\n", "\n").split("\n") for frame in line.split("\r")]
    return code, lines
