"""The local engine: every core of one machine, results in input order.

The main process reads batches and writes results; ``jobs`` worker processes run
the batch functions. At most two batches per worker are in flight, so memory stays
bounded whatever the dataset's size, and results are taken back in input order, so
the output is the same whatever ``jobs`` is.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from chatschema.datasets._errors import DatasetError
from chatschema.datasets._io import Chunk
from chatschema.datasets._work import ChunkResult, Job, run_chunk

__all__ = ["available_cores", "map_chunks"]


def available_cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# Imported once by the fork server, so that each worker starts warm.
PRELOAD = [
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

    With one job (or a single batch) the work runs in this process.
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
    pool = ProcessPoolExecutor(jobs, mp_context=_context())
    window: deque[Future[ChunkResult]] = deque()
    try:
        for chunk in _prepend(first, second, chunks):
            window.append(pool.submit(run_chunk, job, chunk))
            while len(window) >= 2 * jobs:
                yield _result(window.popleft())
        while window:
            yield _result(window.popleft())
    finally:
        for future in window:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _result(future: Future[ChunkResult]) -> ChunkResult:
    try:
        return future.result()
    except BrokenProcessPool as error:
        raise DatasetError(
            f"a worker process died ({error}); a script that runs datasets with jobs > 1 "
            "must guard its entry point with `if __name__ == '__main__':` (workers import "
            "the main module), and a worker can be killed when memory runs out"
        ) from None


def _prepend(first: Chunk, second: Chunk, rest: Iterator[Chunk]) -> Iterator[Chunk]:
    yield first
    yield second
    yield from rest
