"""Reading datasets in batches and writing results: JSON Lines and Parquet.

JSON Lines are read as raw lines (the workers decode them), in batches bounded by a
row count and a byte size, so memory stays bounded whatever the file's size.
Parquet is read and written with pyarrow, a row group slice at a time.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from chatschema.datasets._arrow import pyarrow
from chatschema.datasets._errors import DatasetError

__all__ = [
    "Chunk",
    "JsonlWriter",
    "ParquetWriter",
    "count_rows",
    "default_column",
    "file_format",
    "read_chunks",
]

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.txt")
PARQUET_SUFFIXES = (".parquet", ".pq")
METADATA_KEY = b"chatschema"


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


@dataclass
class Chunk:
    """A batch of input rows, numbered so that results come back in order.

    Attributes:
        index: the batch's number in the input, from 0.
        source: the input's name, for reports.
        positions: where each row is: its line number (JSON Lines) or its row
            number from 1 (Parquet).
        lines: JSON Lines input: each row's text (``bytes`` when not UTF-8).
        table: Parquet input: the rows as a ``pyarrow.RecordBatch``.
        progress: the fraction of the input read once this batch was read.
        line_based: positions are line numbers.
        span: JSON Lines file input: ``(start, end, first line number)``, the bytes
            the worker reads itself (``lines`` and ``positions`` are filled then), so
            the main process only finds line ends and never ships the rows.
    """

    index: int
    source: str
    positions: list[int]
    lines: list[str | bytes] | None = None
    table: Any = None
    progress: float = 0.0
    line_based: bool = field(default=True)
    span: tuple[int, int, int] | None = None

    def __len__(self) -> int:
        return len(self.positions)

    def load(self) -> None:
        """Read a file span into ``lines`` and ``positions`` (in the worker)."""
        if self.span is None:
            return
        start, end, first = self.span
        with open(self.source, "rb") as stream:
            stream.seek(start)
            data = stream.read(end - start)
        self.lines, self.positions = [], []
        for number, raw in enumerate(data.split(b"\n"), first):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]  # a byte order mark is not part of the JSON
            _add_line(self.lines, self.positions, number, raw)
        self.span = None


def _add_line(lines: list[str | bytes], positions: list[int], number: int, raw: bytes) -> int:
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


def _jsonl_spans(path: str, batch_rows: int, batch_bytes: int, start: int) -> Iterator[Chunk]:
    """Batches of a JSON Lines file as byte spans.

    Each cut after ``batch_rows`` lines or ``batch_bytes`` bytes, at a line end.
    """
    try:
        stream = open(path, "rb")  # noqa: SIM115
    except OSError as error:
        raise DatasetError(f"{path}: {error.strerror or error}") from None
    with stream:
        total = max(os.fstat(stream.fileno()).st_size, 1)
        buffer, base = b"", 0  # base: the file offset of buffer[0]
        begin = scan = 0  # the batch's first byte, and how far line ends were found
        lines, first, index = 0, 1, start
        while True:
            newline = buffer.find(b"\n", scan)
            if newline < 0:
                data = stream.read(8 << 20)
                if not data:
                    break
                buffer, base, scan = buffer[begin:] + data, base + begin, scan - begin
                begin = 0
                continue
            scan = newline + 1
            lines += 1
            if lines >= batch_rows or scan - begin >= batch_bytes:
                span = (base + begin, base + scan, first)
                yield Chunk(index, path, [], progress=(base + scan) / total, span=span)
                index, first, lines, begin = index + 1, first + lines, 0, scan
        if len(buffer) > begin:
            span = (base + begin, base + len(buffer), first)
            yield Chunk(index, path, [], progress=1.0, span=span)


def _jsonl_chunks(path: str, batch_rows: int, batch_bytes: int, start: int) -> Iterator[Chunk]:
    try:
        stream: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as error:
        raise DatasetError(f"{path}: {error.strerror or error}") from None
    name = "<stdin>" if path == "-" else path
    try:
        total = 0 if path == "-" else max(os.fstat(stream.fileno()).st_size, 1)
        read = 0
        index = start
        lines: list[str | bytes] = []
        positions: list[int] = []
        size = 0
        for number, raw in enumerate(stream, 1):
            read += len(raw)
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]  # a byte order mark is not part of the JSON
            size += _add_line(lines, positions, number, raw)
            if len(lines) >= batch_rows or size >= batch_bytes:
                yield Chunk(index, name, positions, lines, progress=read / total if total else 0)
                index += 1
                lines, positions, size = [], [], 0
        if lines:
            yield Chunk(index, name, positions, lines, progress=1.0)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


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
    row = 0
    for index, batch in enumerate(parquet.iter_batches(batch_size=batch_rows), start):
        positions = list(range(row + 1, row + batch.num_rows + 1))
        row += batch.num_rows
        yield Chunk(index, path, positions, table=batch, progress=row / total, line_based=False)


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

    A file is cut into byte spans that the workers read; standard input (``-``) is
    read here, line by line.
    """
    if path == "-":
        return _jsonl_chunks(path, batch_rows, batch_bytes, start)
    return _jsonl_spans(path, batch_rows, batch_bytes, start)


class JsonlWriter:
    """Writes lines to a file (or standard output for ``None`` / ``"-"``)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        if path is None or path == "-":
            self.stream: IO[str] = sys.stdout
        else:
            try:
                self.stream = open(path, "w", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
            except OSError as error:
                raise DatasetError(f"{path}: {error.strerror or error}") from None

    def write(self, lines: Sequence[str]) -> None:
        """Write lines (each without its newline)."""
        if not lines:
            return
        text = "\n".join(lines) + "\n"
        try:
            self.stream.write(text)
        except UnicodeEncodeError:
            encoding = getattr(self.stream, "encoding", None) or "utf-8"
            self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))

    def close(self) -> None:
        """Flush, and close a file."""
        self.stream.flush()
        if self.stream is not sys.stdout:
            self.stream.close()


class ParquetWriter:
    """Writes record batches to one Parquet file, the schema fixed by the first batch.

    The file's schema metadata says which column holds the conversations and in
    which format (key ``chatschema``).
    """

    def __init__(self, path: str, *, column: str, format: str) -> None:
        self.path = path
        self.column = column
        self.format = format
        self.writer: Any = None
        self.schema: Any = None

    def write(self, batch: Any) -> None:
        """Write one ``pyarrow.RecordBatch``."""
        pa = pyarrow()
        import pyarrow.parquet as pq

        if self.writer is None:
            metadata = dict(batch.schema.metadata or {})
            metadata[METADATA_KEY] = json.dumps(
                {"version": 1, "column": self.column, "format": self.format}
            ).encode()
            self.schema = batch.schema.with_metadata(metadata)
            try:
                self.writer = pq.ParquetWriter(self.path, self.schema, compression="zstd")
            except OSError as error:
                raise DatasetError(f"{self.path}: {error.strerror or error}") from None
        table = pa.Table.from_batches([batch])
        if not table.schema.equals(self.schema, check_metadata=False):
            table = table.cast(self.schema)
        self.writer.write_table(table.replace_schema_metadata(self.schema.metadata))

    def close(self) -> None:
        """Finish the file (an empty input still gives a file with no rows)."""
        if self.writer is not None:
            self.writer.close()
