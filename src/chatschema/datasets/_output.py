"""Writing results: whole files or nothing, never over an input.

A regular file (or a name that does not exist yet) is written to a hidden temporary
file in the same directory (``.NAME.chatschema-XXXX.tmp``), synced to disk and renamed
over the target only when the run succeeded; on failure or interruption the
temporary file is removed and the previous file stays as it was. A run killed
outright (SIGKILL, power loss) leaves at most that hidden temporary file, never a
partial output under the real name. Standard output and other non-regular targets
(``/dev/null``, a pipe, a FIFO) are written directly.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Sequence
from typing import IO, Any

from chatschema.datasets._arrow import pyarrow
from chatschema.datasets._errors import DatasetError

__all__ = [
    "STDOUT",
    "JsonlWriter",
    "OutputFile",
    "ParquetWriter",
    "refuse_inputs",
]

STDOUT = "<stdout>"
METADATA_KEY = b"chatschema"


def _failed(path: str, error: OSError) -> DatasetError:
    """An I/O failure as a located error (the path and the system's reason)."""
    return DatasetError(f"{path}: {error.strerror or error}")


def _identity(path: str) -> tuple[int, int] | None:
    """The (device, inode) of a path or ``-`` (standard input), or None if there is none."""
    try:
        if path == "-":
            if sys.stdin is None:
                return None
            status = os.fstat(sys.stdin.fileno())
        else:
            status = os.stat(path)
    except (OSError, ValueError):  # no such file, or a stdin without a descriptor
        return None
    return status.st_dev, status.st_ino


def refuse_inputs(output: str | None, inputs: Sequence[str]) -> None:
    """Refuse an output that is one of the inputs, before anything is opened.

    Compared by device and inode, so hard links and other spellings of the same
    file are caught; a new output name or standard output is always fine.

    Raises:
        DatasetError: when the output is an input.
    """
    if output is None or output == "-":
        return
    target = _identity(output)
    if target is None:
        return
    for path in inputs:
        if _identity(path) == target:
            shown = "standard input" if path == "-" else path
            raise DatasetError(
                f"{output}: the output is also an input ({shown}); "
                "write to another file (nothing was written)"
            )


def _umask() -> int:
    """This process's umask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and put back (not thread-safe, but rare)
    os.umask(mask)
    return mask


class OutputFile:
    """One output file, replaced whole on :meth:`commit` or left alone on :meth:`discard`.

    ``temp`` is the temporary file written in the target's place (``None`` when the
    target is not a regular file and is written directly); ``stream`` is open on
    it, text or binary, unless ``opened=False`` (a writer that opens the file
    itself, as pyarrow does, by the name :attr:`writable`).
    """

    def __init__(self, path: str, *, binary: bool = False, opened: bool = True) -> None:
        self.path = path
        self.temp: str | None = None
        self.mode: int | None = None  # the previous file's permission bits
        self.stream: IO[Any] | None = None
        self.done = False
        target = os.path.realpath(path)  # a symbolic link: its target is replaced
        try:
            previous = os.stat(target)
        except FileNotFoundError:
            previous = None
        except OSError as error:
            raise _failed(path, error) from None
        self.target = target
        if previous is None or stat.S_ISREG(previous.st_mode):
            if previous is not None:
                self.mode = stat.S_IMODE(previous.st_mode)
            folder, name = os.path.split(target)
            try:
                descriptor, self.temp = tempfile.mkstemp(  # a long name: cut, to fit
                    prefix=f".{name[:200]}.chatschema-", suffix=".tmp", dir=folder
                )
            except OSError as error:
                raise DatasetError(
                    f"{path}: cannot create a temporary file beside it ({error.strerror or error})"
                ) from None
            if opened:
                self.stream = self._wrap(descriptor, binary)
            else:
                os.close(descriptor)
        elif opened:
            try:
                self.stream = self._wrap(os.open(path, os.O_WRONLY | os.O_TRUNC), binary)
            except OSError as error:
                raise _failed(path, error) from None

    @staticmethod
    def _wrap(descriptor: int, binary: bool) -> IO[Any]:
        if binary:
            return os.fdopen(descriptor, "wb")
        return os.fdopen(descriptor, "w", encoding="utf-8", errors="backslashreplace")

    @property
    def writable(self) -> str:
        """The name to write to: the temporary file, or the target itself."""
        return self.temp if self.temp is not None else self.path

    def commit(self) -> None:
        """Flush, sync and rename the temporary file over the target.

        Raises:
            DatasetError: when any of it fails (the temporary file is then removed).
        """
        if self.done:
            return
        try:
            if self.stream is not None:
                self.stream.flush()
                if self.temp is not None:
                    os.fsync(self.stream.fileno())
                self.stream.close()
            if self.temp is not None:
                if self.stream is None:  # written by another library: sync by name
                    _sync(self.temp, os.O_RDONLY)
                mode = self.mode if self.mode is not None else 0o666 & ~_umask()
                os.chmod(self.temp, mode)
                os.replace(self.temp, self.target)
                self.temp = None
        except OSError as error:
            self.discard()
            raise _failed(self.path, error) from None
        except BaseException:  # interrupted before the rename: nothing replaced
            self.discard()
            raise
        self.done = True
        with contextlib.suppress(OSError):  # best effort: not every system syncs a directory
            _sync(os.path.dirname(self.target) or ".", os.O_RDONLY)

    def discard(self) -> None:
        """Close and remove the temporary file: the target stays as it was."""
        if self.done:
            return
        self.done = True
        if self.stream is not None:
            with contextlib.suppress(OSError):  # the data is being thrown away
                self.stream.close()
        if self.temp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.temp)
            self.temp = None


def _sync(path: str, flags: int) -> None:
    """Sync a file (or a directory, which makes a rename in it durable) by name."""
    descriptor = os.open(path, flags)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class JsonlWriter:
    """Writes lines to a file (or standard output for ``None`` / ``"-"``).

    A file is replaced whole by :meth:`close`, or left as it was by :meth:`abort`.
    """

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.file: OutputFile | None = None
        if path is None or path == "-":
            self.name = STDOUT
            if sys.stdout is None:
                raise DatasetError(f"{STDOUT}: standard output is closed; give an output file")
            self.stream: IO[str] = sys.stdout
        else:
            self.name = path
            self.file = OutputFile(path)
            assert self.file.stream is not None
            self.stream = self.file.stream

    def write(self, lines: Sequence[str]) -> None:
        """Write lines (each without its newline).

        Raises:
            DatasetError: the output cannot be written (a full disk, a closed stream).
        """
        if not lines:
            return
        text = "\n".join(lines) + "\n"
        try:
            try:
                self.stream.write(text)
            except UnicodeEncodeError:
                encoding = getattr(self.stream, "encoding", None) or "utf-8"
                self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
        except BrokenPipeError:  # the reader went away: the caller stops quietly
            raise
        except OSError as error:
            raise _failed(self.name, error) from None

    def close(self) -> None:
        """Flush; a file is synced and renamed into place.

        Raises:
            DatasetError: the output cannot be written.
        """
        if self.file is not None:
            self.file.commit()
            return
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _failed(self.name, error) from None

    def abort(self) -> None:
        """Stop without finishing: a file's previous content stays as it was."""
        if self.file is not None:
            self.file.discard()


class ParquetWriter:
    """Writes record batches to one Parquet file, the schema fixed by the first batch.

    The file's schema metadata says which column holds the conversations and in
    which format (key ``chatschema``). The file is replaced whole by :meth:`close`,
    or left as it was by :meth:`abort`.
    """

    def __init__(self, path: str, *, column: str, format: str) -> None:
        self.path = path
        self.column = column
        self.format = format
        self.writer: Any = None
        self.schema: Any = None
        self.file = OutputFile(path, opened=False)

    def write(self, batch: Any) -> None:
        """Write one ``pyarrow.RecordBatch``.

        Raises:
            DatasetError: the output cannot be written.
        """
        pa = pyarrow()
        import pyarrow.parquet as pq

        try:
            if self.writer is None:
                metadata = dict(batch.schema.metadata or {})
                metadata[METADATA_KEY] = json.dumps(
                    {"version": 1, "column": self.column, "format": self.format}
                ).encode()
                self.schema = batch.schema.with_metadata(metadata)
                self.writer = pq.ParquetWriter(self.file.writable, self.schema, compression="zstd")
            table = pa.Table.from_batches([batch])
            if not table.schema.equals(self.schema, check_metadata=False):
                table = table.cast(self.schema)
            self.writer.write_table(table.replace_schema_metadata(self.schema.metadata))
        except OSError as error:  # pyarrow: an ArrowIOError, an OSError
            raise DatasetError(f"{self.path}: {_arrow_reason(error)}") from None

    def close(self) -> None:
        """Finish the file and rename it into place (nothing written: no file).

        Raises:
            DatasetError: the output cannot be written.
        """
        if self.writer is None:
            self.file.discard()
            return
        try:
            self.writer.close()
        except OSError as error:
            self.file.discard()
            raise DatasetError(f"{self.path}: {_arrow_reason(error)}") from None
        self.file.commit()

    def abort(self) -> None:
        """Stop without finishing: the previous file stays as it was."""
        if self.writer is not None:
            with contextlib.suppress(Exception):  # the data is being thrown away
                self.writer.close()
        self.file.discard()


def _arrow_reason(error: OSError) -> str:
    """The reason in a pyarrow I/O error: the system's words for its errno."""
    if error.errno:  # pyarrow puts its own long text in strerror
        return os.strerror(error.errno)
    return str(error)
