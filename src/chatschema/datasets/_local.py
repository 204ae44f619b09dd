"""The local engine: every core of one machine, results in input order.

The main process reads batches and writes results; ``jobs`` worker processes run
the batch functions. At most two batches per worker are in flight, so memory stays
bounded whatever the dataset's size, and results are taken back in input order, so
the output is the same whatever ``jobs`` is.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from chatschema.datasets._errors import DatasetError
from chatschema.datasets._io import Chunk
from chatschema.datasets._work import ChunkResult, Job, run_chunk, watch_main

__all__ = ["available_cores", "map_chunks"]

STOP_GRACE_SECONDS = 3.0
"""How long a failed or interrupted run waits for the batches being computed."""

_POLL_SECONDS = 0.5  # how often a wait for a result checks that the workers live
_UNBLOCK_SECONDS = 5.0


def available_cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# Imported once by the fork server, so that each worker starts warm; the first makes
# the server end with this process.
PRELOAD = [
    "chatschema.datasets._forkserver",
    "chatschema.datasets._work",
    "chatschema.validation",
    "chatschema.providers.openai_chat",
    "chatschema.providers.openai_responses",
    "chatschema.providers.anthropic",
    "chatschema.providers.gemini",
    "chatschema.history",
    "chatschema.tokens",
]


def _context() -> Any:
    if sys.platform != "win32" and "forkserver" in multiprocessing.get_all_start_methods():
        # Forked from a server that imported the work once: cheap workers, and no fork
        # of a process that runs other threads (pyarrow's, Ray's).
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def map_chunks(job: Job, chunks: Iterator[Chunk], jobs: int) -> Iterator[ChunkResult]:
    """Each batch's result, in input order, computed by ``jobs`` processes.

    With one job (or a single batch) the work runs in this process. Workers end with
    this process, however it ends; a run that fails stops them at once.

    Raises:
        DatasetError: when a worker dies (naming how) or a batch cannot be read.
    """
    first = next(chunks, None)
    if first is None:
        return
    second = next(chunks, None) if jobs > 1 else None
    if second is None:
        yield run_chunk(job, first)
        for chunk in chunks:
            yield run_chunk(job, chunk)
        return
    pool = ProcessPoolExecutor(
        jobs, mp_context=_context(), initializer=watch_main, initargs=(os.getpid(),)
    )
    workers = _Workers(pool)
    window: deque[Future[ChunkResult]] = deque()
    finished = False
    try:
        for chunk in _prepend(first, second, chunks):
            window.append(pool.submit(run_chunk, job, chunk))
            workers.note()
            while len(window) >= 2 * jobs:
                yield workers.result(window.popleft())
        while window:
            yield workers.result(window.popleft())
        finished = True
    finally:
        for future in window:
            future.cancel()
        if not finished:  # failed or interrupted: running batches get a moment to end
            running = [future for future in window if not future.cancelled()]
            if wait(running, timeout=STOP_GRACE_SECONDS).not_done:
                # A worker killed while it sends a result would leave half a message
                # that the pool's reader waits on forever; one still computing after
                # the grace period is not sending, so it is ended.
                workers.stop()
        if workers.stuck:
            workers.stop()
            workers.unblock()
        pool.shutdown(wait=not workers.stuck, cancel_futures=True)


class _Workers:
    """The pool's processes, remembered so that a death can be explained."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool
        self.processes: dict[int, Any] = {}
        self.results = 0
        self.stuck = False  # a worker died and the pool did not notice

    def note(self) -> None:
        """Remember the processes the pool has started."""
        self.processes.update(getattr(self.pool, "_processes", None) or {})

    def result(self, future: Future[ChunkResult]) -> ChunkResult:
        """The batch's result, or a DatasetError saying how a worker died."""
        deaths = 0
        while True:
            try:
                outcome = future.result(timeout=_POLL_SECONDS)
                break
            except FutureTimeout:
                # The pool notices a dead worker itself, unless the worker died while
                # sending a result: its reader then waits for the rest forever.
                deaths = deaths + 1 if self.dead() else 0
                if deaths >= 2:
                    self.stuck = True
                    raise DatasetError(self.death()) from None
            except BrokenProcessPool:
                self.note()
                raise DatasetError(self.death()) from None
        self.results += 1
        return outcome

    def dead(self) -> bool:
        """Whether a worker has ended (workers live as long as the pool)."""
        self.note()
        return any(process.exitcode is not None for process in self.processes.values())

    def unblock(self) -> None:
        """Let the pool's result reader finish a message a dead worker left half sent.

        Bytes that complete the message make it unreadable, so the pool's thread
        declares the pool broken and ends instead of waiting forever (and keeping
        the interpreter from exiting). Fed from a thread, for at most a few seconds.
        """
        thread = getattr(self.pool, "_executor_manager_thread", None)
        queue = getattr(self.pool, "_result_queue", None)
        writer = getattr(queue, "_writer", None)
        if thread is None or writer is None:
            return

        def feed() -> None:
            zeros = bytes(1 << 20)
            deadline = time.monotonic() + _UNBLOCK_SECONDS
            with contextlib.suppress(OSError, ValueError):
                while thread.is_alive() and time.monotonic() < deadline:
                    os.write(writer.fileno(), zeros)

        threading.Thread(target=feed, name="chatschema-unblock", daemon=True).start()
        thread.join(_UNBLOCK_SECONDS)

    def death(self) -> str:
        """Which worker ended, and how, in words."""
        for process in self.processes.values():
            process.join(timeout=1)
        codes = [p.exitcode for p in self.processes.values() if p.exitcode is not None]
        # The pool ends the other workers with SIGTERM once one has died.
        code = next((c for c in codes if c != -signal.SIGTERM), codes[0] if codes else None)
        if code is None:
            return "a worker process ended abruptly"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "unknown"
            cause = ", often the out-of-memory killer" if -code == signal.SIGKILL else ""
            return f"a worker process was killed by signal {-code} ({name}){cause}"
        message = f"a worker process exited with status {code}"
        if self.results == 0:
            message += (
                " before finishing any batch; a script that runs datasets with jobs > 1 "
                "must guard its entry point with `if __name__ == '__main__':` (workers "
                "import the main module)"
            )
        return message

    def stop(self) -> None:
        """End every worker now."""
        self.note()
        for process in self.processes.values():
            if process.exitcode is None:
                process.terminate()


def _prepend(first: Chunk, second: Chunk, rest: Iterator[Chunk]) -> Iterator[Chunk]:
    yield first
    yield second
    yield from rest
