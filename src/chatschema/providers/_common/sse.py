"""Server-sent events: the byte stream every provider's streaming API answers with.

:func:`iter_sse` turns the body of a streaming response, in whatever pieces the
network delivered it (cut mid-line, mid-UTF-8 character), into the JSON payloads of
its events. Each codec's ``decode_stream`` accepts either those payloads (or the
official SDK's event objects) or the raw body, which it hands to this parser.
"""

from __future__ import annotations

import codecs
import itertools
import json
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from chatschema import limits
from chatschema.errors import ConversionError

__all__ = ["check_depth", "events", "iter_sse", "stream_events"]


def iter_sse(body: Iterable[bytes | str], *, provider: str) -> Iterator[Any]:
    """The parsed ``data:`` payloads of a server-sent-event stream.

    Lines may be cut anywhere between pieces, UTF-8 characters too. Comments
    (``:ping``) and events without data are skipped; ``data: [DONE]`` ends the stream.
    An ``event:`` name is added to the payload as ``"type"`` when it has none, the
    way Anthropic names its ``ping`` and ``error`` events.

    Raises:
        ConversionError: for a payload that is not JSON.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    buffer = ""
    event_name: str | None = None
    data: list[str] = []

    def dispatch() -> Iterator[Any]:
        nonlocal event_name
        if data:
            text = "\n".join(data)
            data.clear()
            if text.strip() == "[DONE]":
                raise _Done
            try:
                payload = json.loads(text)
            except ValueError as error:
                raise ConversionError(
                    f"stream event is not JSON: {error}: {text[:80]!r}", provider=provider
                ) from None
            except RecursionError:
                raise ConversionError(
                    f"stream event nested too deeply to read: {text[:80]!r}", provider=provider
                ) from None
            if event_name and isinstance(payload, dict) and "type" not in payload:
                payload["type"] = event_name
            yield payload
        event_name = None

    def decode(piece: bytes | str, final: bool = False) -> str:
        try:
            return piece if isinstance(piece, str) else decoder.decode(piece, final)
        except UnicodeDecodeError as error:
            raise ConversionError(f"stream is not UTF-8: {error}", provider=provider) from None

    try:
        for piece in body:
            buffer += decode(piece)
            *lines, buffer = buffer.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for line in lines:
                if line == "":
                    yield from dispatch()
                elif line.startswith(":"):
                    continue
                else:
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "data":
                        data.append(value)
                    elif name == "event":
                        event_name = value
        buffer += decode(b"", final=True)
        if buffer.startswith("data:"):
            data.append(buffer[5:].lstrip(" "))
        yield from dispatch()
    except _Done:
        return


class _Done(Exception):
    """``data: [DONE]``."""


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
        if isinstance(first, (bytes, bytearray)) or (
            isinstance(first, str) and first.lstrip().startswith(("data:", "event:", ":"))
        ):
            parsed = iter_sse(_prepend(first, iterator), provider=provider)
        else:
            parsed = _prepend(first, iterator)
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
    """
    iterator = iter(stream)
    for first in iterator:
        rest = itertools.chain((first,), iterator)  # chain: no Python frame per event
        if isinstance(first, (bytes, bytearray)) or (
            isinstance(first, str) and first.lstrip().startswith(("data:", "event:", ":"))
        ):
            return events(rest, provider=provider), True
        return rest, False
    return iter(()), True


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


def _prepend(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest
