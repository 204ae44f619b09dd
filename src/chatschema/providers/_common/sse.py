"""Server-sent events: the byte stream every provider's streaming API answers with.

:class:`SSEParser` is a push parser: fed the body of a streaming response in
whatever pieces the network delivered it (cut mid-line, mid-UTF-8 character), it
returns the JSON payloads of the events each piece completes. Being fed rather than
pulling, it serves sync and async sources alike: :func:`iter_sse` and
:func:`aiter_sse` are its two loops, and the stream driver
(:mod:`chatschema.providers._common.drive`) runs it inline. Each codec's
``decode_stream`` accepts either the payloads (or the official SDK's event objects)
or the raw body, which it hands to this parser.
"""

from __future__ import annotations

import codecs
import itertools
import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import replace
from typing import Any

from chatschema import limits
from chatschema.errors import ConversionError

_orjson: Any
try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - the stdlib's parser
    _orjson = None


def _loads(text: str) -> Any:
    """JSON text parsed: orjson when installed (a third of the time), else the stdlib.

    What orjson refuses and the stdlib takes (``NaN``, integers beyond 64 bits) is
    read by the stdlib.
    """
    if _orjson is not None:
        try:
            return _orjson.loads(text)
        except _orjson.JSONDecodeError:
            pass
    return json.loads(text)


__all__ = [
    "SSEParser",
    "aiter_sse",
    "astream_events",
    "check_depth",
    "events",
    "is_body",
    "iter_sse",
    "stream_events",
]


class SSEParser:
    """An incremental server-sent-event parser: pieces of the body in, payloads out.

    :meth:`feed` takes the next piece (``bytes`` or ``str``; a line, or a UTF-8
    character, may be cut anywhere between pieces) and returns the parsed ``data:``
    payloads of the events it completes; :meth:`end` the last event's, when the body
    ends without a blank line. Comments (``:ping``) and events without data are
    skipped; ``data: [DONE]`` ends the stream (:attr:`done` turns true and every
    later piece is ignored). An ``event:`` name is added to the payload as ``"type"``
    when it has none, the way Anthropic names its ``ping`` and ``error`` events.
    A CR LF pair cut between two pieces is one line break.

    Raises (from :meth:`feed` and :meth:`end`):
        ConversionError: for a payload that is not JSON, a body that is not UTF-8,
            or a piece that is neither bytes nor text.
    """

    __slots__ = ("_data", "_decoder", "_held", "_name", "_pending", "done", "provider")

    def __init__(self, *, provider: str) -> None:
        self.provider = provider
        self.done = False  # ``data: [DONE]`` came
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._pending: list[str] = []  # the event being read: its text so far, in pieces
        self._held = ""  # a "\r" that ended the last piece (maybe half of "\r\n")
        self._name: str | None = None  # the ``event:`` name of the event being read
        self._data: list[str] = []  # its ``data:`` lines

    def feed(self, piece: bytes | bytearray | memoryview | str) -> list[Any]:
        """The payloads of the events ``piece`` completes (often none, or one)."""
        if self.done:
            return []
        if isinstance(piece, str):
            text = piece
        elif isinstance(piece, (bytes, bytearray, memoryview)):
            text = self._decode(piece, final=False)
        else:
            raise ConversionError(
                "a server-sent-event body is read as bytes or text pieces, "
                f"not {type(piece).__name__}",
                provider=self.provider,
            )
        if self._held:
            text = self._held + text
        # A "\r" at the end may be the first half of a "\r\n" cut between pieces.
        self._held = "\r" if text.endswith("\r") else ""
        if self._held:
            text = text[:-1]
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        pending = self._pending
        # No blank line can end in this piece: keep it (a long event in small pieces
        # is joined once, when it ends, not once per piece).
        if "\n\n" not in text and not (
            text.startswith("\n") and pending and pending[-1].endswith("\n")
        ):
            if text:
                pending.append(text)
            return []
        if pending:
            pending.append(text)
            text = "".join(pending)
            pending.clear()
        *blocks, rest = text.split("\n\n")
        if rest:
            pending.append(rest)
        payloads: list[Any] = []
        for block in blocks:
            if self._block(block, payloads):
                pending.clear()
                break
        return payloads

    def _block(self, block: str, payloads: list[Any]) -> bool:
        """Read one event (its lines, without the blank line); True after ``[DONE]``."""
        if block.startswith("data:"):
            if "\n" not in block:  # one data line: most events
                self._data.append(block[6:] if block.startswith("data: ") else block[5:])
                return self._dispatch(payloads)
        elif block.startswith("event:"):
            head, _, data = block.partition("\n")
            if data.startswith("data:") and "\n" not in data:  # a name, one data line
                self._name = head[7:] if head.startswith("event: ") else head[6:]
                self._data.append(data[6:] if data.startswith("data: ") else data[5:])
                return self._dispatch(payloads)
        for line in block.split("\n"):
            if self._line(line, payloads):
                return True
        return self._line("", payloads)

    def end(self) -> list[Any]:
        """The payload of the last event when the body ends without a blank line."""
        if self.done:
            return []
        text = "".join(self._pending) + self._held + self._decode(b"", final=True)
        self._pending.clear()
        self._held = ""
        payloads: list[Any] = []
        for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            if self._line(line, payloads):
                return payloads
        self._dispatch(payloads)
        return payloads

    def _line(self, line: str, payloads: list[Any]) -> bool:
        """Read one line; True once ``[DONE]`` ends the stream."""
        if line == "":
            return self._dispatch(payloads)
        if line.startswith(":"):
            return False
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._name = value
        return False

    def _dispatch(self, payloads: list[Any]) -> bool:
        """The event read so far, if it has data; True for ``[DONE]``."""
        data = self._data
        name, self._name = self._name, None
        if not data:
            return False
        text = "\n".join(data)
        data.clear()
        if text.strip() == "[DONE]":
            self.done = True
            return True
        try:
            payload = _loads(text)
        except ValueError as error:
            raise ConversionError(
                f"stream event is not JSON: {error}: {text[:80]!r}", provider=self.provider
            ) from None
        except RecursionError:
            raise ConversionError(
                f"stream event nested too deeply to read: {text[:80]!r}", provider=self.provider
            ) from None
        if name and isinstance(payload, dict) and "type" not in payload:
            payload["type"] = name
        payloads.append(payload)
        return False

    def _decode(self, piece: bytes | bytearray | memoryview, *, final: bool) -> str:
        try:
            return self._decoder.decode(piece, final)
        except UnicodeDecodeError as error:
            raise ConversionError(f"stream is not UTF-8: {error}", provider=self.provider) from None


def iter_sse(body: Iterable[bytes | str], *, provider: str) -> Iterator[Any]:
    """The parsed ``data:`` payloads of a server-sent-event stream (see :class:`SSEParser`).

    Raises:
        ConversionError: for a payload that is not JSON, or a body that is not UTF-8.
    """
    parser = SSEParser(provider=provider)
    for piece in body:
        yield from parser.feed(piece)
        if parser.done:
            return
    yield from parser.end()


async def aiter_sse(body: AsyncIterable[bytes | str], *, provider: str) -> AsyncIterator[Any]:
    """:func:`iter_sse` of an async body, such as httpx's ``aiter_bytes()``.

    Raises:
        ConversionError: for a payload that is not JSON, or a body that is not UTF-8.
    """
    parser = SSEParser(provider=provider)
    async for piece in body:
        for payload in parser.feed(piece):
            yield payload
        if parser.done:
            return
    for payload in parser.end():
        yield payload


def is_body(first: Any) -> bool:
    """Whether a stream whose first item is ``first`` is a raw SSE body.

    It is when that item is ``bytes``, or text holding ``data:`` / ``event:`` lines
    or a comment, or the start of one cut short (``"da"``, whitespace: what
    ``aiter_text()`` may give first; no JSON text looks like that); anything else
    (dicts, SDK objects, JSON text) is taken as events.
    """
    if isinstance(first, (bytes, bytearray)):
        return True
    if not isinstance(first, str):
        return False
    text = first.lstrip()
    return text.startswith(_FIELDS) or any(field.startswith(text) for field in _FIELDS)


_FIELDS = ("data:", "event:", ":")  # how the lines of an SSE body start


def events(stream: Iterable[Any], *, provider: str) -> Iterator[Any]:
    """A stream's events, whether given as events or as the raw SSE body.

    A stream of ``bytes`` (or of strings holding ``data:`` lines) is parsed with
    :func:`iter_sse`; anything else (dicts, SDK objects) passes through.

    Raises:
        ConversionError: for an event nested deeper than
            :data:`chatschema.limits.MAX_DEPTH` (its pointer starts with the
            event's position), or a body that is not UTF-8 / JSON.
    """
    iterator = iter(stream)
    for first in iterator:
        rest = itertools.chain((first,), iterator)
        parsed = iter_sse(rest, provider=provider) if is_body(first) else rest
        for position, event in enumerate(parsed):
            check_depth(event, position, provider)
            yield event
        return


def stream_events(stream: Iterable[Any], *, provider: str) -> tuple[Iterator[Any], bool]:
    """The events of ``stream``, and whether their depth is checked already.

    For ``decode_stream`` loops that read text deltas on a fast path: checking the
    nesting depth of an event costs more than decoding a text delta, and an event of
    one exact shape whose every value the codec checks is shallow by that shape. A
    raw SSE body (``bytes``, or text holding ``data:`` lines) is parsed, and its
    events checked, by :func:`events`. Events given as objects (dicts, SDK objects)
    come unchecked: the caller passes each one it does not read on its fast path to
    :func:`check_depth` before reading it, at the same position, with the same error.
    The stream driver (:func:`~chatschema.providers._common.drive.drive`) does all
    of this for a codec, over sync and async sources.
    """
    iterator = iter(stream)
    for first in iterator:
        rest = itertools.chain((first,), iterator)  # chain: no Python frame per event
        if is_body(first):
            return events(rest, provider=provider), True
        return rest, False
    return iter(()), True


async def astream_events(
    stream: AsyncIterable[Any], *, provider: str
) -> tuple[AsyncIterator[Any], bool]:
    """:func:`stream_events` of an async stream: its events and whether they are checked.

    The first item is awaited to tell a raw SSE body (parsed, every event checked)
    from events (passed through unchecked, as :func:`stream_events` passes them).
    """
    iterator = aiter(stream)
    first = await anext(iterator, _END)
    if first is _END:
        return _none(), True
    if is_body(first):
        return _checked(aiter_sse(_prepend(first, iterator), provider=provider), provider), True
    return _prepend(first, iterator), False


_END: Any = object()  # anext's default: the stream had no item


async def _none() -> AsyncIterator[Any]:
    """No events."""
    return
    yield  # an async generator that ends at once


async def _prepend(first: Any, rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """``first``, then the items of ``rest``."""
    yield first
    async for item in rest:
        yield item


async def _checked(parsed: AsyncIterator[Any], provider: str) -> AsyncIterator[Any]:
    """The events of ``parsed``, each checked by :func:`check_depth`."""
    position = 0
    async for event in parsed:
        check_depth(event, position, provider)
        position += 1
        yield event


def check_depth(event: Any, position: int, provider: str) -> None:
    """Refuse an event nested deeper than :data:`chatschema.limits.MAX_DEPTH`.

    Raises:
        ConversionError: naming the event's position; the problem's pointer starts
            with it.
    """
    problem = limits.depth_problem(event)
    if problem is not None:
        where = f"/{position}{problem.pointer}"
        raise ConversionError(
            f"stream event {position} {problem.message}",
            provider=provider,
            problems=[replace(problem, pointer=where)],
        )
