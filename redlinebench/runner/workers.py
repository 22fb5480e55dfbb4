"""Worker processes: one run spread over several CPU cores.

Why: each model call costs a few milliseconds of CPU in litellm and each tool call some more in
the document engine. Against a fast local server (vLLM on the same machine, a fake in a
benchmark) at high concurrency, one Python process saturates one core and the model waits on us.
``--workers N`` forks N processes that share the run's list of trials; each runs the ordinary
in-process scheduler (:func:`scheduler.drive`) on its share of the concurrency.

How, and why it is safe:

- Workers are forked (Linux), after the plan is made and before the progress bar or any client
  thread exists, so they inherit the tasks, agents, judges and grader without pickling and
  without re-importing litellm (seconds per process).
- They take work from one shared counter, one trial at a time and only when they have a free
  slot, so a slow worker never holds a queue of trials the others could run.
- Everything a worker writes goes through the same atomic staging/publish steps as a one-process
  run, in trial directories no other worker touches. Killing any process at any instant leaves
  whole trials only, and ``--resume`` redoes the rest.
- Workers report events (:data:`scheduler.Event`) over a pipe; the parent applies them with the
  same :func:`scheduler.apply_event` a one-process run uses, so costs, failures and the
  consecutive-error stop mean the same thing.
- A worker exits when the parent dies (even by SIGKILL), ignores Ctrl-C (the parent terminates
  it), and a worker that dies is reported: its trials in flight count as failed, the rest go to
  the others.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from typing import Any, Callable

from .lock import release_inherited_locks
from .scheduler import Plan, Progress, TrialPipeline, apply_event, drive
from .spec import RunSpec

#: Exit code of a worker whose parent process disappeared and that did not stop in time.
ORPHANED = 70
#: Exit code of a worker stopped by SIGTERM (its parent shutting the run down).
STOPPED = 143
#: Seconds an orphaned worker gets to finish the file it is writing before it is ended.
ORPHAN_GRACE_S = 5.0


def fork_available() -> bool:
    """Workers need ``fork``: Linux only (macOS's fork is unsafe with its system libraries)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def shares(total: int, parts: int) -> list[int]:
    """Split ``total`` slots over ``parts`` workers as evenly as possible (each at least 1)."""
    parts = max(1, min(parts, total))
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def worker_count(requested: int, concurrency: int, todo: int) -> int:
    """How many processes are worth starting: never more than trials left or concurrent slots."""
    if requested <= 1 or todo <= 1:
        return 1
    return max(1, min(requested, concurrency, todo))


class WorkerPool:
    """Forked worker processes over one :class:`Plan`; the parent side of the protocol."""

    def __init__(self, plan: Plan, make_pipeline: Callable[..., TrialPipeline], concurrency: int,
                 workers: int) -> None:
        self.plan = plan
        ctx = multiprocessing.get_context("fork")
        self._next = ctx.Value("q", 0)          # next todo index to hand out (with its own lock)
        # one flag per entrant label, set when that entrant stops starting episodes
        self._labels = {label: i for i, label in enumerate(dict.fromkeys(k.label for k, _ in plan.todo))}
        self._stop = ctx.RawArray("b", max(1, len(self._labels)))
        self.procs: list[Any] = []
        self.conns: list[Any] = []
        slots = shares(concurrency, workers)
        for w, n in enumerate(slots):
            reader, writer = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=self._child, args=(w, n, writer, make_pipeline), daemon=True,
                               name=f"redlinebench-worker-{w}")
            proc.start()
            writer.close()  # the parent only reads; later workers must not hold this end open
            self.procs.append(proc)
            self.conns.append(reader)

    # ----------------------------------------------------------------- worker side

    def _claim(self) -> int | None:
        with self._next.get_lock():
            idx = self._next.value
            if idx >= len(self.plan.todo):
                return None
            self._next.value = idx + 1
            return idx

    def _child(self, w: int, slots: int, conn: Any, make_pipeline: Callable[..., TrialPipeline]) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C does
        release_inherited_locks()  # the run directory's lock belongs to the parent alone
        _exit_with_parent()
        _name_process(f"redlinebench-w{w}")

        def emit(event: Any) -> None:
            try:
                conn.send(event)
            except (BrokenPipeError, EOFError, OSError):
                os._exit(ORPHANED)  # nobody is listening any more

        def claim() -> int | None:
            idx = self._claim()
            if idx is not None:
                emit(("start", idx, None))
            return idx

        def may_start(label: str) -> bool:  # JUDGES (no entrant's label): stopped when every entrant is
            return not (self._stop[self._labels[label]] if label in self._labels else all(self._stop))

        pipeline = make_pipeline(emit=emit, may_start=may_start, grade_slots=slots)

        async def main() -> None:
            # SIGTERM (the parent stopping us, or our parent-watch) cancels like Ctrl-C does in a
            # one-process run: at an await, never in the middle of writing a file.
            me = asyncio.current_task()
            try:
                asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, me.cancel)  # type: ignore[union-attr]
            except (RuntimeError, ValueError, NotImplementedError):
                pass  # not the main thread: SIGTERM keeps its default (immediate) effect
            await drive(pipeline, claim, slots)

        try:
            asyncio.run(main())
        except (asyncio.CancelledError, KeyboardInterrupt):
            conn.close()
            os._exit(STOPPED)
        emit(("exit", -1, None))
        conn.close()

    # ----------------------------------------------------------------- parent side

    async def run(self, plan: Plan, on_update: Callable[[Progress], None] | None) -> None:
        """Apply every worker's events until all have exited; stop them if this is cancelled."""
        loop = asyncio.get_running_loop()
        state = plan.state
        in_flight: list[set[int]] = [set() for _ in self.procs]
        clean_exit = [False] * len(self.procs)
        finished: asyncio.Future[None] = loop.create_future()
        open_pipes = set(range(len(self.conns)))

        def closed(w: int) -> None:
            loop.remove_reader(self.conns[w].fileno())
            open_pipes.discard(w)
            if not clean_exit[w]:
                self.procs[w].join(timeout=5)
                code = self.procs[w].exitcode
                why = (f"worker process {w} died (exit code {code}) while running this trial; "
                       "`redlinebench run --resume` runs it again")
                for idx in sorted(in_flight[w]):
                    apply_event(plan, ("lost", idx, why), on_update)
                in_flight[w].clear()
            if not open_pipes and not finished.done():
                finished.set_result(None)

        def readable(w: int) -> None:
            conn = self.conns[w]
            try:
                while conn.poll():
                    kind, idx, payload = conn.recv()
                    if kind == "start":
                        in_flight[w].add(idx)
                    elif kind == "exit":
                        clean_exit[w] = True
                    else:
                        if kind == "done":
                            in_flight[w].discard(idx)
                        apply_event(plan, (kind, idx, payload), on_update)
                        for label in state.stopped_entrants:  # JUDGES stops every entrant
                            for i in ([self._labels[label]] if label in self._labels else self._labels.values()):
                                self._stop[i] = 1
            except (EOFError, OSError):
                closed(w)
            except Exception as exc:  # noqa: BLE001  a garbled message: treat the worker as lost
                if not finished.done():
                    finished.set_exception(exc)

        for w, conn in enumerate(self.conns):
            loop.add_reader(conn.fileno(), readable, w)
        try:
            await finished
        finally:
            for w in list(open_pipes):
                loop.remove_reader(self.conns[w].fileno())
            self.shutdown()
        started = self._next.value
        if started < len(plan.todo) and not state.stopped:
            state.stopped = (f"every worker process exited before the run was done "
                             f"({len(plan.todo) - started} trial(s) not started)")

    def shutdown(self) -> None:
        """Stop every worker still running (after Ctrl-C or an error) and reap them all."""
        for proc in self.procs:
            if proc.is_alive():
                proc.terminate()
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        for conn in self.conns:
            conn.close()


def _name_process(name: str) -> None:
    """Show workers as ``redlinebench-wN`` in ps/top (Linux ``comm``, 15 bytes); best effort."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.prctl(15, name.encode()[:15], 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def _exit_with_parent() -> None:
    """End this worker as soon as the parent process is gone, however it went."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os.kill(os.getpid(), signal.SIGTERM)   # stop at the next await (see WorkerPool._child)
        time.sleep(ORPHAN_GRACE_S)
        os._exit(ORPHANED)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def start_pool(spec: RunSpec, plan: Plan, make_pipeline: Callable[..., TrialPipeline]) -> WorkerPool | None:
    """Fork the workers for ``plan`` when more than one is worth it; None means run in-process.

    Where processes cannot be forked (not Linux, or no shared-memory semaphores, as in some
    sandboxes) the run says so and goes on in one process: slower, never wrong.
    """
    workers, concurrency = spec.workers, spec.concurrency
    if workers > 1 and not fork_available():
        _warn(f"--workers {workers} needs Linux (fork); running in one process")
        return None
    n = worker_count(workers, concurrency, len(plan.todo))
    if n <= 1:
        return None
    preload(uses_litellm=uses_litellm(spec))
    try:
        return WorkerPool(plan, make_pipeline, concurrency, n)
    except OSError as exc:
        _warn(f"could not start worker processes ({exc}); running in one process")
        return None


def uses_litellm(spec: RunSpec) -> bool:
    """Whether the run's agents or judges call models (everything but baselines graded offline)."""
    return any(e.agent == "llm" for e in spec.entrants) or spec.judges.strip().lower() not in ("heuristic", "none")


def preload(*, uses_litellm: bool) -> None:
    """Import what every worker will need once, in the parent, so the forks inherit it.

    Importing litellm takes seconds of CPU; done lazily it would be paid again in every worker.
    (Imports start no threads, so forking after them stays safe.)
    """
    import importlib

    for name in ("redlinebench.docx", "redlinebench.tools", "redlinebench.judge", "redlinebench.report",
                 "redlinebench.agent.llm"):
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    if uses_litellm:
        from .._litellm import get_litellm

        get_litellm()
        for name in _LITELLM_FIRST_CALL_IMPORTS:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001  only a speed-up; the names move between litellm versions
                continue


#: Modules litellm imports lazily on its first request: about 0.3 s of CPU (nearly all of it
#: ``litellm.proxy._types``) that every forked worker would otherwise pay before its first call.
_LITELLM_FIRST_CALL_IMPORTS = ("litellm.proxy._types", "litellm._service_logger",
                               "litellm.llms.github_copilot.per_user_auth",
                               "litellm.proxy.openai_files_endpoints.common_utils")


def default_workers(limit: int = 4) -> int:
    """One per core up to ``limit`` where workers are available (what ``demo`` uses), else 1."""
    return max(1, min(limit, os.cpu_count() or 1)) if fork_available() else 1


def _warn(message: str) -> None:
    from .._termtable import warn

    warn(message)
