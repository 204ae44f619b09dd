"""The work on one batch of input rows, as a worker process does it."""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from chatschema.datasets._batch import BATCH_FUNCTIONS, result_columns, to_arrow
from chatschema.datasets._io import Chunk, LongLine
from chatschema.datasets._rows import STATS
from chatschema.errors import Problem

__all__ = ["DOCUMENT_COMMANDS", "ChunkResult", "Job", "run_chunk", "watch_main"]

# The commands whose output is a dataset of documents (the others annotate rows).
DOCUMENT_COMMANDS = ("convert", "trim", "redact")


@dataclass(frozen=True)
class Job:
    """What to do to every batch (picklable: it travels to the worker processes).

    Attributes:
        command: ``validate``, ``convert``, ``stats``, ``trim`` or ``redact``.
        options: keyword arguments of the batch function (``column`` aside).
        column: the column holding the conversations.
        output: ``"jsonl"``, ``"parquet"`` or ``None`` (results reported only).
    """

    command: str
    options: dict[str, Any]
    column: str = "conversation"
    output: str | None = None

    def function(self) -> Any:
        """The batch function with its options bound."""
        return partial(BATCH_FUNCTIONS[self.command], column=self.column, **self.options)

    @property
    def problems_column(self) -> str:
        """Where the batch function writes each row's problems."""
        return str(self.options.get("problems_column") or "problems")

    @property
    def output_column(self) -> str:
        """Where a document command writes each row's document."""
        return str(self.options.get("output_column") or self.column)

    @property
    def document_format(self) -> str:
        """The format of the documents in the output."""
        if self.command == "convert":
            return str(self.options["target"])
        return str(self.options.get("format", "neutral"))


@dataclass
class ChunkResult:
    """What one batch gave.

    Attributes:
        index: the batch's number (results are put back in this order).
        source: the input's name.
        rows: rows in the batch.
        failed: rows with problems (invalid, or not converted).
        problems: ``(position, problems)`` of every failed row.
        output: lines (JSON Lines output), a ``pyarrow.RecordBatch`` (Parquet) or None.
        sums: stats only: the sum of each statistic over the rows read.
        tokens: stats only: each readable row's token count.
        seconds: the worker's time on the batch.
        line_based: positions are line numbers (JSON Lines input), else row numbers.
        progress: the fraction of the input read once this batch was read.
        peak_rss_kb: the peak resident memory of the process that ran the batch.
        cpu_seconds: the CPU time the batch took.
    """

    index: int
    source: str
    rows: int
    failed: int
    problems: list[tuple[int, list[Problem]]]
    output: Any = None
    sums: dict[str, int] = field(default_factory=dict)
    tokens: list[int] = field(default_factory=list)
    seconds: float = 0.0
    line_based: bool = True
    progress: float = 0.0
    peak_rss_kb: int = 0
    cpu_seconds: float = 0.0


def _column(batch: Any, name: str) -> list[Any]:
    if isinstance(batch, dict):
        return list(batch[name])
    values: list[Any] = batch.column(name).to_pylist()
    return values


def _text(value: str | bytes | LongLine) -> str:
    """A row's input text for a Parquet output (a line too long is left out)."""
    if isinstance(value, LongLine):
        return ""
    return value if isinstance(value, str) else value.decode("utf-8", "replace")


def watch_main(pid: int) -> None:
    """Worker initializer: end this worker as soon as the main process ``pid`` ends.

    The main process may die without a word (SIGKILL, the out-of-memory killer); its
    workers then exit within about half a second, and with them the fork server and
    the resource tracker (which end when the last process holding their pipes does).
    """
    # Ctrl-C reaches the terminal's whole process group: the main process decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch, args=(pid,), name="chatschema-watch", daemon=True).start()


def _watch(pid: int) -> None:
    try:
        handle = os.pidfd_open(pid)  # Linux: readable once the process has ended
    except (AttributeError, OSError):
        while _alive(pid):
            time.sleep(0.5)
    else:
        select.select([handle], [], [])
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def to_record_batch(job: Job, result: dict[str, list[Any]]) -> Any:
    """A dict batch of results as a ``pyarrow.RecordBatch``, each column typed by kind."""
    from chatschema.datasets._arrow import pyarrow

    pa = pyarrow()
    kinds = dict(result_columns(job.command, job.column, job.options))
    names, arrays = [], []
    for name, values in result.items():
        if name == job.column and name not in kinds:  # the input text, as read
            values = [_text(value) for value in values]
        names.append(name)
        arrays.append(to_arrow(values, kinds.get(name, "text")))
    return pa.RecordBatch.from_arrays(arrays, names=names)


def run_chunk(job: Job, chunk: Chunk) -> ChunkResult:
    """Run the job's batch function on one batch and shape its results."""
    started = time.perf_counter()
    cpu = time.process_time()
    chunk.load()
    function = job.function()
    if chunk.table is not None:
        result: Any = function(chunk.table)
    else:
        result = function({job.column: chunk.lines or []})
    found = _column(result, job.problems_column)
    problems = [
        (position, [Problem(p["pointer"], p["keyword"], p["message"]) for p in row])
        for position, row in zip(chunk.positions, found, strict=True)
        if row
    ]
    outcome = ChunkResult(
        chunk.index,
        chunk.source,
        len(chunk),
        len(problems),
        problems,
        line_based=chunk.line_based,
        progress=chunk.progress,
    )
    if job.command == "stats":
        columns = {name: _column(result, name) for name in STATS}
        outcome.sums = {
            name: sum(v for v in values if v is not None) for name, values in columns.items()
        }
        outcome.tokens = [v for v in columns["tokens"] if v is not None]
    if job.output == "parquet":
        outcome.output = result if chunk.table is not None else to_record_batch(job, result)
    elif job.output == "jsonl":
        outcome.output = _lines(job, chunk, result)
    outcome.seconds = time.perf_counter() - started
    outcome.cpu_seconds = time.process_time() - cpu
    outcome.peak_rss_kb = _peak_rss_kb()
    return outcome


def _peak_rss_kb() -> int:
    try:
        import resource
    except ImportError:  # not POSIX
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak // 1024 if sys.platform == "darwin" else peak)


def _lines(job: Job, chunk: Chunk, result: Any) -> list[str]:
    """JSON Lines output: the documents, or one report object per row.

    Convert, trim, redact: the documents (failed rows are left out, their problems
    reported). Validate, stats: one report object per row.
    """
    if job.command in DOCUMENT_COMMANDS:
        return [text for text in _column(result, job.output_column) if text is not None]
    names = [name for name, _ in result_columns(job.command, job.column, job.options)]
    columns = [_column(result, name) for name in names]
    key = "line" if chunk.line_based else "row"
    return [
        json.dumps({key: position, **dict(zip(names, values, strict=True))}, ensure_ascii=False)
        for position, *values in zip(chunk.positions, *columns, strict=True)
    ]
