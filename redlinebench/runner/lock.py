"""The run directory's lock: one process (tree) per run directory at a time."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from ..errors import ConfigError

_held: list[IO[Any]] = []


def hold(run_dir: Path) -> IO[Any]:
    """Hold an exclusive lock on ``run_dir/.lock`` for the life of the run.

    Two processes on one run directory would delete each other's staging trials; the lock is
    released by the OS when the holder exits, even on SIGKILL, so it never goes stale.
    """
    fh = open(run_dir / ".lock", "a+")
    try:
        import fcntl
    except ImportError:  # not POSIX: no cross-process guard, the run still works
        return fh
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        raise ConfigError("another redlinebench process is running in this run directory; wait for it "
                          "or stop it before resuming", path=run_dir) from None
    _held.append(fh)
    return fh


def held_elsewhere(run_dir: Path) -> bool:
    """Whether a process (another, or another open file of this one) holds ``run_dir``'s lock: the
    run is running. Asks with a shared lock taken and dropped at once, and creates nothing; a run
    starting in that instant is refused as if two processes had met, which ``run`` says in words."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock to ask
        return False
    try:
        fh = open(Path(run_dir) / ".lock", "rb")
    except OSError:  # no lock file: never run, or not a run
        return False
    with fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    return False


def release(fh: IO[Any]) -> None:
    if fh in _held:
        _held.remove(fh)
    fh.close()


def release_inherited_locks() -> None:
    """In a forked worker: close our copies of the parent's lock files.

    A flock belongs to the open file, shared by every process holding a descriptor of it; if a
    worker kept one, a SIGKILLed parent's lock would outlive it until the worker noticed and
    exited, and an immediate ``--resume`` would be refused.
    """
    while _held:
        _held.pop().close()
