"""Reading the command's inputs: one JSON document, or JSON Lines, from a path or stdin.

Standard input and files are read alike, as bytes: a byte order mark is dropped, a
line that is not UTF-8 is that line's problem, and a line (or a whole document)
longer than ``chatschema.limits.MAX_LINE_BYTES`` is reported without being held.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, TypeVar

from chatschema._json import loads as strict_loads
from chatschema.cli._exit import UsageError

__all__ = ["Document", "read_documents"]


@dataclass
class Document:
    """One JSON document read from an input, with where it came from."""

    source: str
    line: int
    value: Any = None
    error: str | None = None  # the JSON could not be read
    keyword: str = "json"  # the problem's keyword when the document could not be read


def _open(path: str) -> IO[bytes]:
    """The input as bytes: standard input and files are decoded alike, line by line."""
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror or error}") from None


def read_documents(path: str, jsonl: bool | None) -> Iterator[Document]:
    """The documents of one input: a single JSON document, or JSON Lines.

    With ``jsonl=None`` the form is detected: ``.jsonl`` / ``.ndjson`` files are JSON
    Lines; otherwise, when the first line is a whole JSON value and more lines follow,
    it is JSON Lines; else the whole input is one document. JSON Lines are read one
    line at a time, in constant memory. Standard input and files are read alike: a
    byte order mark is dropped, a line that is not UTF-8 is reported (and the next
    read), a line or document longer than ``chatschema.limits.MAX_LINE_BYTES`` is
    reported without being held.
    """
    from chatschema import limits
    from chatschema.datasets._io import LongLine, bounded_lines

    name = "<stdin>" if path == "-" else path
    if jsonl is None and path.endswith((".jsonl", ".ndjson")):
        jsonl = True
    limit = limits.MAX_LINE_BYTES
    stream = _open(path)
    try:
        lines = bounded_lines(stream, limit)
        head = [next(lines, b"")]
        if jsonl is None:
            first, second = head[0], next(lines, b"")
            head.append(second)
            # invalid UTF-8 inside a line is that line's problem, not the form's
            jsonl = (isinstance(second, LongLine) or bool(second.strip())) and (
                isinstance(first, LongLine) or _is_json(_text(first, "replace"))
            )
        if jsonl:
            for number, raw in enumerate(_chain(head, lines), 1):
                if isinstance(raw, LongLine):
                    yield Document(name, number, error=raw.problem().message, keyword="maxLength")
                    continue
                if number == 1:
                    raw = raw.removeprefix(BOM)
                if raw.strip():
                    try:
                        text = raw.decode("utf-8")
                    except UnicodeDecodeError as error:
                        yield Document(name, number, error=f"not UTF-8 text: {error.reason}")
                        continue
                    yield _parse(name, number, text)
            return
        data = b"".join(raw for raw in head if not isinstance(raw, LongLine))
        long = len(data) > limit or any(isinstance(raw, LongLine) for raw in head)
        if not long:
            data += stream.read(limit + 1 - len(data))
        if long or len(data) > limit:
            too_long = f"a document longer than the limit of {limit:,} bytes"
            yield Document(
                name, 1, error=f"{too_long} (chatschema.limits.MAX_LINE_BYTES)", keyword="maxLength"
            )
            return
        try:
            text = _text(data)
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            yield Document(name, line, error=f"not UTF-8 text: {error.reason}")
            return
        yield _parse(name, 1, text)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


BOM = b"\xef\xbb\xbf"  # a byte order mark (as Windows tools write) is not part of the JSON


def _text(raw: bytes, errors: str = "strict") -> str:
    """The first line or whole input as text: UTF-8, a byte order mark dropped."""
    return raw.decode("utf-8-sig", errors)


T = TypeVar("T")


def _chain(first: Iterable[T], rest: Iterator[T]) -> Iterator[T]:
    yield from first
    yield from rest


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    except RecursionError:
        return True  # a value, too deep: reported when parsed
    return True


def _parse(source: str, line: int, text: str) -> Document:
    # strict: NaN and Infinity are not JSON, whatever Python's json accepts
    try:
        return Document(source, line, strict_loads(text))
    except ValueError as error:
        return Document(source, line, error=f"not valid JSON: {error}")
    except RecursionError:
        return Document(source, line, error="the JSON is nested too deeply")
