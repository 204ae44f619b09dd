"""How the command ends: exit statuses, interruptions, and standard output's faults.

SIGTERM is turned into :class:`Terminated` (a ``KeyboardInterrupt``) while a command
runs, so that Ctrl-C's cleanup runs for both; an interrupted or failed run says what
became of its output (:func:`fate`). Writes to a closed or full standard output are
usage errors (exit 2), never a traceback.
"""

from __future__ import annotations

import errno
import io
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import IO, NoReturn

__all__ = [
    "STDOUT",
    "ClosedOutput",
    "Interrupted",
    "State",
    "Terminated",
    "UsageError",
    "fate",
    "flush_stdout",
    "interruption",
    "on_sigterm",
    "rows_text",
    "settle_stdout",
    "state_of",
    "write_line",
]


class UsageError(Exception):
    """Bad arguments, unreadable input or unwritable output: exit status 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is so that the cleanup of Ctrl-C runs."""


class Interrupted(Exception):
    """A run stopped by Ctrl-C or SIGTERM; ``message`` says what was done."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def interruption(error: KeyboardInterrupt) -> tuple[str, int]:
    """How to name an interruption, and its exit status (128 + the signal's number)."""
    if isinstance(error, Terminated):
        return "interrupted (SIGTERM)", 128 + signal.SIGTERM
    return "interrupted (SIGINT)", 128 + signal.SIGINT


STDOUT = "<stdout>"


def write_line(text: str, *, file: IO[str] | None = None) -> None:
    """Print a line of output.

    Text the stream cannot encode (lone surrogates in the input's strings, a narrow
    console encoding) is written with backslash escapes instead of failing.
    """
    stream = sys.stdout if file is None else file
    try:
        try:
            print(text, file=stream)
        except UnicodeEncodeError:
            encoding = getattr(stream, "encoding", None) or "utf-8"
            print(text.encode(encoding, "backslashreplace").decode(encoding), file=stream)
    except BrokenPipeError:  # the reader went away: main stops quietly
        raise
    except OSError as error:
        if stream is not sys.stdout:
            raise
        raise UsageError(f"{STDOUT}: {error.strerror or error}") from None


State = tuple[int, int, int, int, int] | None


def state_of(path: str | None) -> State:
    """What a file output is before a run (mode, device, inode, size, time), or None."""
    if path is None or path == "-":
        return None
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_mode, found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns


def fate(output: str | None, before: State) -> str | None:
    """What became of the output of a run that stopped, as the rest of a message."""
    if output is None:
        return None
    if output == "-":
        return f"the rows done went to {STDOUT}"
    if before is not None and not stat.S_ISREG(before[0]) and not stat.S_ISDIR(before[0]):
        return f"the rows done went to {output}"
    after = state_of(output)
    if after != before:  # renamed into place just before the stop: complete
        return f"{output} was written in full"
    return f"{output} left as it was" if before is not None else f"{output} not written"


def rows_text(count: int) -> str:
    return f"{count:,} row{'s' * (count != 1)}"


class ClosedOutput(io.TextIOBase):
    """Standard output when the process was started without one (``>&-``)."""

    def write(self, text: str) -> int:
        """Refuse: what would be written has nowhere to go."""
        raise OSError(errno.EBADF, "standard output is closed")


def _raise_terminated(number: int, frame: FrameType | None) -> NoReturn:
    raise Terminated


def on_sigterm() -> Callable[[], None]:
    """Turn SIGTERM into :class:`Terminated` until the returned function is called."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None  # only the main thread may set handlers
    previous = signal.signal(signal.SIGTERM, _raise_terminated)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous or signal.SIG_DFL)

    return restore


def flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise UsageError(f"{STDOUT}: {error.strerror or error}") from None


def settle_stdout() -> None:
    """After a failed write to standard output, send the rest nowhere.

    Else the interpreter's last flush fails again at exit (a second message, and
    exit status 120).
    """
    stream = sys.__stdout__
    if stream is None or sys.stdout is not stream:  # not the process's own (a test's capture)
        return
    try:
        stream.flush()
        return
    except OSError:
        pass
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
