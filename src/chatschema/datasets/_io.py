"""Reading datasets in batches: JSON Lines and Parquet (writing: ``_output``).

JSON Lines are read as raw lines (the workers decode them), in batches bounded by a
row count and a byte size, so memory stays bounded whatever the file's size.
Parquet is read with pyarrow, a row group slice at a time.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from chatschema.datasets._arrow import pyarrow
from chatschema.datasets._errors import DatasetError
from chatschema.errors import Problem

__all__ = [
    "Chunk",
    "LongLine",
    "count_rows",
    "default_column",
    "file_format",
    "bounded_lines",
    "read_chunks",
    "read_jsonl_chunks",
]

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.txt")
PARQUET_SUFFIXES = (".parquet", ".pq")


def file_format(path: str, explicit: str | None = None) -> str:
    """``"jsonl"`` or ``"parquet"``: ``explicit`` if given, else from the extension.

    Raises:
        DatasetError: when neither says (a directory, as Ray writes, is read as the
            format of the files in it).
    """
    if explicit is not None:
        if explicit not in ("jsonl", "parquet"):
            raise DatasetError(f"unknown dataset format {explicit!r}; expected jsonl or parquet")
        return explicit
    if path == "-":
        return "jsonl"
    lowered = path.lower().rstrip("/")
    if lowered.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if lowered.endswith(JSONL_SUFFIXES):
        return "jsonl"
    raise DatasetError(
        f"{path}: cannot tell the dataset format from the name; "
        "use a .jsonl or .parquet name or say it (--input-format / --output-format)"
    )


@dataclass(frozen=True)
class LongLine:
    """A row longer than :data:`chatschema.limits.MAX_LINE_BYTES`, skipped unread.

    It stands in for the row's text: the batch functions report it as the row's
    problem (keyword ``maxLength``) and the bytes are never held in memory.

    Attributes:
        size: the line's length in bytes, without its newline.
        limit: the limit it crossed.
    """

    size: int
    limit: int

    def problem(self) -> Problem:
        """The problem reported for this row."""
        return Problem(
            "",
            "maxLength",
            f"a line of {self.size:,} bytes, more than the limit of {self.limit:,} "
            "(chatschema.limits.MAX_LINE_BYTES); skipped",
        )


Identity = tuple[int, int, int, int]


def _identity(stream: IO[bytes] | int) -> Identity:
    """What tells one state of a file from another: device, inode, size, mtime."""
    info = os.fstat(stream if isinstance(stream, int) else stream.fileno())
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


class _Held:
    """An input the main process opened, kept open while a batch of it is in flight.

    Workers read the batch through ``/proc/<pid>/fd/<fd>`` of this very handle, so
    they read the file the main process read even when the path has been replaced.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    def __del__(self) -> None:
        self.stream.close()


@dataclass
class Chunk:
    """A batch of input rows, numbered so that results come back in order.

    Attributes:
        index: the batch's number in the input, from 0.
        source: the input's name, for reports.
        positions: where each row is: its line number (JSON Lines) or its row
            number from 1 (Parquet).
        lines: JSON Lines input: each row's text (``bytes`` when not UTF-8, a
            :class:`LongLine` when too long).
        table: Parquet input: the rows as a ``pyarrow.RecordBatch``.
        progress: the fraction of the input read once this batch was read.
        line_based: positions are line numbers.
        span: JSON Lines file input: ``(start, end, first line number)``, the bytes
            the worker reads itself (``lines`` and ``positions`` are filled then), so
            the main process only finds line ends and never ships the rows.
        identity: the file's ``(st_dev, st_ino, st_size, st_mtime_ns)`` when the main
            process opened it: a worker that finds another file fails the run.
        opened: ``(pid, fd)`` of the main process's open handle on the file.
        held: that handle (in the main process only; not sent to workers).
    """

    index: int
    source: str
    positions: list[int]
    lines: list[str | bytes | LongLine] | None = None
    table: Any = None
    progress: float = 0.0
    line_based: bool = field(default=True)
    span: tuple[int, int, int] | None = None
    identity: Identity | None = None
    opened: tuple[int, int] | None = None
    held: Any = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.positions)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["held"] = None  # an open file does not travel; workers use ``opened``
        return state

    def load(self) -> None:
        """Read a file span into ``lines`` and ``positions`` (in the worker).

        Raises:
            DatasetError: when the file is no longer the one the main process read.
        """
        if self.span is None:
            return
        start, end, first = self.span
        if self.held is not None:  # this process found the span: read its own handle
            data = self._read(self.held.stream, start, end, first)
        else:
            with self._reopen(first) as stream:
                data = self._read(stream, start, end, first)
        self.lines, self.positions = [], []
        for number, raw in enumerate(data.split(b"\n"), first):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]  # a byte order mark is not part of the JSON
            _add_line(self.lines, self.positions, number, raw)
        self.span = None

    def _read(self, stream: IO[bytes], start: int, end: int, first: int) -> bytes:
        """The span's bytes, checked to come from the file as the main process found it."""
        if hasattr(os, "pread"):
            data = os.pread(stream.fileno(), end - start, start)
        else:  # Windows
            stream.seek(start)
            data = stream.read(end - start)
        # checked after the read too: a file rewritten meanwhile is not mixed in
        if len(data) != end - start or (self.identity and _identity(stream) != self.identity):
            raise self._changed(first)
        return data

    def _reopen(self, first: int) -> IO[bytes]:
        """The input file as the main process opened it, or a clear failure."""
        candidates = []
        if self.opened is not None and sys.platform.startswith("linux"):
            pid, fd = self.opened
            candidates.append(f"/proc/{pid}/fd/{fd}")
        candidates.append(self.source)
        for name in candidates:
            try:
                stream = open(name, "rb")  # noqa: SIM115
            except OSError:
                continue
            if self.identity is None or _identity(stream) == self.identity:
                return stream
            stream.close()
        raise self._changed(first)

    def _changed(self, first: int) -> DatasetError:
        return DatasetError(
            f"{self.source} changed during the run (replaced, rewritten or removed); "
            f"nothing after line {first - 1} is trustworthy"
        )


def _add_line(
    lines: list[str | bytes | LongLine], positions: list[int], number: int, raw: bytes
) -> int:
    """Keep one raw line (unless blank); returns its size."""
    if not raw.strip():
        return 0
    raw = raw.rstrip(b"\r\n")
    try:
        lines.append(raw.decode("utf-8"))
    except UnicodeDecodeError:
        lines.append(raw)
    positions.append(number)
    return len(raw)


READ_SIZE = 8 << 20


def _line_ends(stream: IO[bytes], limit: int) -> Iterator[tuple[int, int, int]]:
    """Each line of a file as ``(start, end, size)`` offsets; ``size < 0``: too long.

    ``end`` is past the newline. A line longer than ``limit`` bytes is skipped to its
    newline without being held (``size`` is then minus its length).
    """
    buffer, base = b"", 0  # base: the file offset of buffer[0]
    pos = scan = 0  # the current line's start in buffer; how far newlines were sought
    while True:
        newline = buffer.find(b"\n", scan)
        if newline >= 0:
            size = newline - pos
            yield base + pos, base + newline + 1, size if size <= limit else -size
            pos = scan = newline + 1
            continue
        if len(buffer) - pos > limit:
            start, skipped = base + pos, len(buffer) - pos
            buffer = b""
            while True:
                data = stream.read(READ_SIZE)
                newline = data.find(b"\n")
                if not data or newline >= 0:
                    break
                skipped += len(data)
            if not data:
                yield start, start + skipped, -skipped
                return
            skipped += newline
            yield start, start + skipped + 1, -skipped
            buffer, base, pos, scan = data[newline + 1 :], start + skipped + 1, 0, 0
            continue
        data = stream.read(READ_SIZE)
        if not data:
            if pos < len(buffer):
                size = len(buffer) - pos
                yield base + pos, base + len(buffer), size if size <= limit else -size
            return
        buffer, base, scan = buffer[pos:] + data, base + pos, len(buffer) - pos
        pos = 0


def _jsonl_spans(
    path: str, batch_rows: int, batch_bytes: int, start: int, limit: int | None = None
) -> Iterator[Chunk]:
    """Batches of a JSON Lines file as byte spans.

    Each cut after ``batch_rows`` lines or ``batch_bytes`` bytes, at a line end; a
    line longer than ``limit`` is a batch of its own, a :class:`LongLine`.
    """
    limit = _line_limit() if limit is None else limit
    try:
        stream = open(path, "rb")  # noqa: SIM115
    except OSError as error:
        raise DatasetError(f"{path}: {error.strerror or error}") from None
    held = _Held(stream)
    identity = _identity(stream)
    opened = (os.getpid(), stream.fileno())
    total = max(identity[2], 1)
    index = start
    begin, lines, first = 0, 0, 1  # the batch's first byte, its lines, its first line

    def chunk(end: int, count: int) -> Chunk:
        return Chunk(
            index,
            path,
            [],
            progress=min(end / total, 1.0),
            span=(begin, end, first),
            identity=identity,
            opened=opened,
            held=held,
        )

    try:
        number = last = 0
        for line_start, end, size in _line_ends(stream, limit):
            number, last = number + 1, end
            if size < 0:
                if lines:
                    yield chunk(line_start, lines)
                    index += 1
                long = LongLine(-size, limit)
                yield Chunk(index, path, [number], [long], progress=min(end / total, 1.0))
                index, begin, lines, first = index + 1, end, 0, number + 1
                continue
            lines += 1
            if lines >= batch_rows or end - begin >= batch_bytes:
                yield chunk(end, lines)
                index, begin, lines, first = index + 1, end, 0, number + 1
        if _identity(stream) != identity:
            raise DatasetError(
                f"{path} changed during the run (replaced or rewritten); "
                f"nothing after line {first - 1} is trustworthy"
            )
        if lines:
            yield chunk(last, lines)
    except GeneratorExit:
        stream.close()
        raise
    # Otherwise the handle stays open until the last batch holding it is done.


def _jsonl_chunks(
    path: str, batch_rows: int, batch_bytes: int, start: int, limit: int | None = None
) -> Iterator[Chunk]:
    """Batches of a JSON Lines stream (standard input, a FIFO), read here line by line."""
    limit = _line_limit() if limit is None else limit
    try:
        stream: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as error:
        raise DatasetError(f"{path}: {error.strerror or error}") from None
    name = "<stdin>" if path == "-" else path
    try:
        index = start
        lines: list[str | bytes | LongLine] = []
        positions: list[int] = []
        size = 0
        for number, raw in enumerate(bounded_lines(stream, limit), 1):
            if isinstance(raw, LongLine):
                lines.append(raw)
                positions.append(number)
            else:
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]  # a byte order mark is not part of the JSON
                size += _add_line(lines, positions, number, raw)
            if len(lines) >= batch_rows or size >= batch_bytes:
                yield Chunk(index, name, positions, lines)
                index += 1
                lines, positions, size = [], [], 0
        if lines:
            yield Chunk(index, name, positions, lines, progress=1.0)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def bounded_lines(stream: IO[bytes], limit: int) -> Iterator[bytes | LongLine]:
    """The lines of a binary stream (with their newline), each at most ``limit`` bytes.

    A longer line is read to its newline and discarded: it comes as a
    :class:`LongLine` (its size without the newline).
    """
    while True:
        raw = stream.readline(limit + 2)
        if not raw:
            return
        size = len(raw) - raw.endswith(b"\n")
        if size <= limit:
            yield raw
            continue
        while not raw.endswith(b"\n"):
            raw = stream.readline(READ_SIZE)
            size += len(raw) - raw.endswith(b"\n")
            if not raw:
                break
        yield LongLine(size, limit)


def default_column(names: Sequence[str], path: str) -> str:
    """The conversation column of a Parquet file: ``conversation``, else ``messages``.

    Raises:
        DatasetError: when there is neither.
    """
    for name in ("conversation", "messages"):
        if name in names:
            return name
    raise DatasetError(
        f"{path}: no 'conversation' or 'messages' column (columns: {list(names)}); "
        "say which holds the conversations (--column)"
    )


def _parquet_file(path: str) -> Any:
    pyarrow()
    import pyarrow.parquet as pq

    if not _regular(path):
        raise DatasetError(
            f"{path}: Parquet is read from a file (in pieces, by its footer), not a stream"
        )
    try:
        return pq.ParquetFile(path)
    except OSError as error:
        raise DatasetError(f"{path}: {error.strerror or error}") from None
    except Exception as error:  # ArrowInvalid: not a Parquet file
        raise DatasetError(f"{path}: not a readable Parquet file ({error})") from None


def count_rows(path: str) -> int:
    """The number of rows of a Parquet file, from its metadata."""
    rows: int = _parquet_file(path).metadata.num_rows
    return rows


def _parquet_chunks(path: str, batch_rows: int, column: str | None, start: int) -> Iterator[Chunk]:
    parquet = _parquet_file(path)
    names = parquet.schema_arrow.names
    if column is not None and column not in names:
        raise DatasetError(f"{path}: no column {column!r} (columns: {list(names)})")
    total = max(parquet.metadata.num_rows, 1)
    row, index = 0, start
    for group in range(parquet.num_row_groups):
        batches = parquet.iter_batches(batch_size=batch_rows, row_groups=[group])
        first = row + 1
        while True:
            try:
                batch = next(batches, None)
            except Exception as error:  # a corrupt page: ArrowInvalid, OSError...
                last = first - 1 + parquet.metadata.row_group(group).num_rows
                raise DatasetError(
                    f"{path}: row group {group} (rows {first:,} to {last:,}) cannot be read: "
                    f"{error}"
                ) from None
            if batch is None:
                break
            positions = list(range(row + 1, row + batch.num_rows + 1))
            row += batch.num_rows
            yield Chunk(index, path, positions, table=batch, progress=row / total, line_based=False)
            index += 1


def _regular(path: str) -> bool:
    """Whether ``path`` is a regular file (else a stream: a FIFO, a device, a socket)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # opening it says what is wrong


def read_chunks(
    path: str,
    form: str,
    *,
    batch_rows: int = 1000,
    batch_bytes: int = 16 << 20,
    column: str | None = None,
    start: int = 0,
) -> Iterator[Chunk]:
    """The rows of one input in batches, numbered from ``start``.

    At most ``batch_rows`` rows (JSON Lines: and about ``batch_bytes`` bytes) each.

    Raises:
        DatasetError: when the input cannot be opened or is not the format said.
    """
    if form == "jsonl":
        return read_jsonl_chunks(path, batch_rows=batch_rows, batch_bytes=batch_bytes, start=start)
    return _parquet_chunks(path, batch_rows, column, start)


def read_jsonl_chunks(
    path: str, *, batch_rows: int = 1000, batch_bytes: int = 16 << 20, start: int = 0
) -> Iterator[Chunk]:
    """JSON Lines input in batches, without pyarrow.

    A file is cut into byte spans that the workers read; standard input (``-``) and
    other streams (a FIFO, a device) are read here, line by line. A line longer than
    :data:`chatschema.limits.MAX_LINE_BYTES` (read when the run starts) comes as a
    :class:`LongLine`, never held.
    """
    limit = _line_limit()
    if path == "-" or not _regular(path):
        return _jsonl_chunks(path, batch_rows, batch_bytes, start, limit)
    return _jsonl_spans(path, batch_rows, batch_bytes, start, limit)


def _line_limit() -> int:
    from chatschema import limits

    return limits.MAX_LINE_BYTES
