"""The AWS event-stream binary framing of a ``converse_stream`` HTTP body, both ways.

ConverseStream answers with ``application/vnd.amazon.eventstream``: a sequence of
binary messages, each (AWS "Event stream encoding", as botocore's ``eventstream``
module reads it):

- a prelude: the message's total length and its headers' length (uint32, big
  endian), then the CRC32 of those 8 bytes;
- the headers: name length (1 byte), name, value type (1 byte; 7 = string, with a
  uint16 length), value; Bedrock sends ``:event-type`` (the event's name),
  ``:content-type`` (``application/json``) and ``:message-type`` (``event``);
- the payload: the event's inner JSON object (``{"contentBlockIndex": 0, ...}``);
- the CRC32 of everything before it.

:func:`frame_event` writes one event dict (``{"contentBlockDelta": {...}}``) as one
message; :class:`EventStreamReader` reads a body cut into pieces anywhere back into
event dicts, checking both checksums. An exception message (``:message-type``
``exception``) becomes ``{"<exception type>": {...}}``, as botocore yields it, which
``decode_stream`` raises.
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any, NoReturn

from chatschema.errors import ConversionError
from chatschema.providers._common.respond import dumps
from chatschema.providers.bedrock_converse.wire import ERROR_EVENTS, NAME

__all__ = [
    "CONTENT_TYPE",
    "EventStreamReader",
    "frame_event",
    "frame_exception",
    "head_of",
    "heads",
]

CONTENT_TYPE = "application/vnd.amazon.eventstream"
"""The media type of a ``converse_stream`` response body."""

_PRELUDE = struct.Struct(">II")
_UINT32 = struct.Struct(">I")
_UINT16 = struct.Struct(">H")
_PRELUDE_LENGTH = 12  # total length, headers length, prelude CRC
_MAX_MESSAGE = 24 * 1024 * 1024  # botocore's _MAX_PAYLOAD_LENGTH (16 MiB) plus headers


def _header(name: str, value: str) -> bytes:
    """One string header (value type 7)."""
    raw_name, raw_value = name.encode(), value.encode()
    return bytes((len(raw_name),)) + raw_name + b"\x07" + _UINT16.pack(len(raw_value)) + raw_value


def _headers(event_type: str) -> bytes:
    """The headers Bedrock sends with an event of this name (in its order)."""
    return (
        _header(":event-type", event_type)
        + _header(":content-type", "application/json")
        + _header(":message-type", "event")
    )


_HEADS: dict[str, tuple[int, dict[int, tuple[bytes, int]]]] = {}
"""By event name: its headers' length, and by total length the prelude and headers
with their CRC32 (the message checksum's start). Text deltas repeat a few lengths:
most frames take two lookups, one CRC of the payload and one ``pack``."""
_HEADS_MAX = 4096
"""Lengths remembered per event name (longer events are framed in full)."""

_orjson: Any
try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - respond.dumps, the stdlib's encoder
    _orjson = None


def head_of(name: str, total: int) -> tuple[bytes, int]:
    """The prelude and headers of an event of this name and total length, and their CRC32.

    Remembered for the next event of that length.
    """
    headers = _headers(name)
    prelude = _PRELUDE.pack(total, len(headers))
    head = prelude + _UINT32.pack(zlib.crc32(prelude)) + headers
    found = (head, zlib.crc32(head))
    known = heads(name)[1]
    if len(known) < _HEADS_MAX:
        known[total] = found
    return found


def heads(name: str) -> tuple[int, dict[int, tuple[bytes, int]]]:
    """An event name's header length and its remembered heads by total length."""
    known = _HEADS.get(name)
    if known is None:
        known = _HEADS[name] = (len(_headers(name)), {})
    return known


def frame_event(event: dict[str, Any]) -> bytes:
    """One event (``{"<name>": {...}}``) as one event-stream message."""
    try:
        (name,) = event
    except ValueError:
        raise ConversionError(
            f"an event has exactly one member, not {sorted(map(str, event))}", provider=NAME
        ) from None
    body = event[name]
    try:
        payload: bytes = _orjson.dumps(body)
    except (TypeError, AttributeError):  # no orjson, or an int beyond 64 bits
        payload = dumps(body)
    known = _HEADS.get(name) or heads(name)
    total = known[0] + len(payload) + 16  # prelude (12) and message CRC (4)
    found = known[1].get(total)
    head, crc = found if found is not None else head_of(name, total)
    return head + payload + _UINT32.pack(zlib.crc32(payload, crc))


def frame_exception(name: str, body: dict[str, Any]) -> bytes:
    """An exception message (``internalServerException`` ...) that ends a stream.

    botocore raises it as ``EventStreamError`` with the name as its code.
    """
    headers = (
        _header(":exception-type", name)
        + _header(":content-type", "application/json")
        + _header(":message-type", "exception")
    )
    payload = dumps(body)
    prelude = _PRELUDE.pack(len(headers) + len(payload) + 16, len(headers))
    message = prelude + _UINT32.pack(zlib.crc32(prelude)) + headers + payload
    return message + _UINT32.pack(zlib.crc32(message))


class EventStreamReader:
    """Event-stream messages from body pieces cut anywhere: the events, in order."""

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, piece: bytes | bytearray | memoryview) -> list[dict[str, Any]]:
        """The events completed by this piece.

        Raises:
            ConversionError: for a message whose checksums or lengths are wrong, an
                ``error`` message, or an exception this codec does not know.
        """
        buffer = self._buffer
        buffer += piece
        events: list[dict[str, Any]] = []
        start = 0
        size = len(buffer)
        while size - start >= _PRELUDE_LENGTH:
            total, headers_length = _PRELUDE.unpack_from(buffer, start)
            (prelude_crc,) = _UINT32.unpack_from(buffer, start + 8)
            if zlib.crc32(buffer[start : start + 8]) != prelude_crc:
                _fail("an event-stream message's prelude checksum does not match")
            if total > _MAX_MESSAGE or total < _PRELUDE_LENGTH + headers_length + 4:
                _fail(f"an event-stream message of {total} bytes")
            if size - start < total:
                break
            end = start + total
            (message_crc,) = _UINT32.unpack_from(buffer, end - 4)
            if zlib.crc32(buffer[start : end - 4]) != message_crc:
                _fail("an event-stream message's checksum does not match")
            body = start + _PRELUDE_LENGTH + headers_length
            headers = _read_headers(bytes(buffer[start + _PRELUDE_LENGTH : body]))
            events.append(_event(headers, bytes(buffer[body : end - 4])))
            start = end
        if start:
            del buffer[:start]
        return events

    def end(self) -> None:
        """The body ended: nothing may be left over.

        Raises:
            ConversionError: when the body ends inside a message.
        """
        if self._buffer:
            _fail(f"the body ends inside an event-stream message ({len(self._buffer)} bytes)")


def _fail(message: str) -> NoReturn:
    raise ConversionError(message, provider=NAME)


_FIXED = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
"""Value sizes of the fixed-size header types (bool true/false, byte, short, integer,
long, timestamp, uuid); 6 (bytes) and 7 (string) carry a uint16 length."""


def _read_headers(data: bytes) -> dict[str, Any]:
    """The headers of one message: strings decoded, other values as raw bytes."""
    headers: dict[str, Any] = {}
    position = 0
    try:
        while position < len(data):
            length = data[position]
            name = data[position + 1 : position + 1 + length].decode()
            position += 1 + length
            kind = data[position]
            position += 1
            if kind in (6, 7):
                (size,) = _UINT16.unpack_from(data, position)
                position += 2
            elif kind in _FIXED:
                size = _FIXED[kind]
            else:
                _fail(f"an event-stream header of unknown type {kind}")
            if position + size > len(data):
                _fail("an event-stream header runs past the headers")
            value = data[position : position + size]
            headers[name] = value.decode() if kind == 7 else value
            position += size
    except (IndexError, struct.error, UnicodeDecodeError):
        _fail("malformed event-stream headers")
    return headers


def _event(headers: dict[str, Any], payload: bytes) -> dict[str, Any]:
    """A message as botocore yields it: ``{"<event or exception type>": {...}}``."""
    kind = headers.get(":message-type")
    if kind == "error":
        code, text = headers.get(":error-code"), headers.get(":error-message")
        _fail(f"the stream ended with an error: {code}: {text}")
    if kind == "event":
        name = headers.get(":event-type")
    elif kind == "exception":
        name = headers.get(":exception-type")
        if name not in ERROR_EVENTS:
            _fail(f"the stream ended with an exception {name!r}: {payload[:500]!r}")
    else:
        _fail(f"an event-stream message of type {kind!r}")
    if not isinstance(name, str) or not name:
        _fail("an event-stream message without its type")
    body: Any
    try:
        body = json.loads(payload) if payload else {}
    except ValueError:
        _fail(f"the payload of a {name} event is not JSON")
    return {name: body}
