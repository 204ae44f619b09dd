"""The server side's shared part: reply options, made ids, and the stream writer.

The mirror of :mod:`~chatschema.providers._common.drive`. Where ``drive`` runs a
codec's per-event state machine over a source of provider events and yields
neutral chunks, :func:`write_stream` runs a codec's per-chunk *event writer* over a
source of neutral chunks and yields the provider's events, as they come:

- the source is an :class:`AssistantMessage` (written as one chunk holding the
  whole message, :func:`as_chunk`), one :class:`AssistantMessageChunk`, or an
  iterable of chunks (or of their JSON data), sync or async like ``decode_stream``'s;
- each chunk goes to the writer's ``feed`` as it arrives and its events go out at
  once (nothing is held back to the end), then the writer's ``end`` closes the
  stream with the provider's bookkeeping events;
- with ``sse=True`` every event is framed into the bytes of the HTTP body by the
  codec's ``frame`` (:func:`frame_data` and :func:`frame_named` are the two SSE
  framings the providers use), and ``closing`` (Chat's ``data: [DONE]``) ends it.

Every codec's ``encode_response`` and ``encode_stream`` take the same keyword
options (:class:`ReplyOptions`), resolved once into a :class:`Reply`, which also
makes the ids a provider always sends and a message may lack, in the provider's
shape (random, or derived from ``id_seed`` for tests).

SSE framing is written here rather than with a server library: an event's data
is one line of compact JSON (JSON text never holds a raw line break), so a frame
is a single concatenation, and the core stays free of web-server dependencies.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import string
import time
from collections.abc import AsyncGenerator, AsyncIterable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, cast, get_args

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.message import AssistantMessage

from chatschema._arguments import json_text
from chatschema.errors import ConversionError, OptionError, UnsupportedContentError
from chatschema.providers._common.drive import aclose_source, close_source, is_async
from chatschema.providers._common.options import UnsupportedPolicy
from chatschema.validation import parse

__all__ = [
    "ALPHANUMERIC",
    "EventWriter",
    "Frame",
    "Reply",
    "PushedWriter",
    "ReplyOptions",
    "as_chunk",
    "as_message",
    "dumps",
    "frame_data",
    "frame_named",
    "pushed_writer",
    "write_stream",
]

ALPHANUMERIC = string.ascii_letters + string.digits
"""The characters of most providers' made ids."""


class ReplyOptions(TypedDict, total=False):
    """Keyword options of every codec's ``encode_response`` and ``encode_stream``."""

    unsupported: UnsupportedPolicy
    """Content the format cannot carry in a response: ``"error"`` (default) raises
    :class:`~chatschema.UnsupportedContentError` naming the block; ``"drop"`` leaves
    it out; ``"placeholder"`` writes a short text in its place."""
    id_seed: int | str
    """Make the ids the message lacks (response id, item ids, tool-call ids) from
    this seed: the same seed gives the same ids, for tests and recorded fixtures.
    Without it they are random."""
    created: int
    """The Unix time written where the provider sends one (``created``,
    ``created_at``) and the message has none kept; default: now."""
    model: str
    """The model named when the message names none (default ``"unknown"``)."""


_POLICIES: tuple[str, ...] = get_args(UnsupportedPolicy)


@dataclass(slots=True)
class Reply:
    """The resolved options of one ``encode_response`` / ``encode_stream`` call."""

    provider: str
    unsupported: UnsupportedPolicy = "error"
    id_seed: int | str | None = None
    created: int | None = None
    model: str | None = None
    _made: int = field(default=0, init=False, repr=False, compare=False)

    @classmethod
    def resolve(cls, provider: str, options: dict[str, Any]) -> Reply:
        """Validate keyword options; unknown names and bad values raise OptionError."""
        if not options:
            return cls(provider)
        _check(provider, options)
        return cls(provider, **options)

    def new_id(self, prefix: str = "", length: int = 24, alphabet: str = ALPHANUMERIC) -> str:
        """A made id: ``prefix`` then ``length`` characters of ``alphabet``.

        Random; with ``id_seed``, the n-th id of the call is derived from the seed
        (a hash of seed, format and n), so that a call repeated gives the same ids.
        """
        if self.id_seed is None:
            return prefix + "".join(_RANDOM.choices(alphabet, k=length))
        self._made += 1
        table, text, block = _table(alphabet), "", 0
        while len(text) < length:
            key = f"{self.provider}:{self.id_seed}:{self._made}:{block}".encode()
            text += hashlib.blake2b(key).digest().translate(table).decode()
            block += 1
        return prefix + text[:length]

    def now(self) -> int:
        """The Unix time to write: the ``created`` option, else the clock."""
        return self.created if self.created is not None else int(time.time())

    def model_of(self, model: str | None) -> str:
        """The model to name: the message's, else the ``model`` option, else "unknown"."""
        return model or self.model or "unknown"

    def unsupported_content(self, what: str, *, block_index: int | None = None) -> str | None:
        """Apply the unsupported-content policy to a block of the response.

        Returns:
            The placeholder text under ``"placeholder"``, None under ``"drop"``.

        Raises:
            UnsupportedContentError: under ``"error"``.
        """
        if self.unsupported == "error":
            raise UnsupportedContentError(
                f"{what} cannot be written in a {self.provider} response "
                "(options: unsupported='drop' or 'placeholder')",
                provider=self.provider,
                message_index=0,
                block_index=block_index,
            )
        if self.unsupported == "placeholder":
            return f"[{what} omitted: not supported by {self.provider}]"
        return None


_REPLY_OPTIONS: tuple[str, ...] = tuple(ReplyOptions.__annotations__)


def _check(provider: str, options: dict[str, Any]) -> None:
    """Check reply options; unknown names and bad values raise OptionError."""
    for name, value in options.items():
        if name == "created":
            good = type(value) is int or (isinstance(value, int) and type(value) is not bool)
            expected = "a Unix time (int)"
        elif name == "id_seed":
            good = type(value) in (int, str) or (
                isinstance(value, int | str) and type(value) is not bool
            )
            expected = "an int or a str"
        elif name == "unsupported":
            good, expected = value in _POLICIES, f"one of {_POLICIES}"
        elif name == "model":
            good, expected = isinstance(value, str) and bool(value), "a non-empty str"
        else:
            raise OptionError(
                f"unknown option {name!r} for {provider} responses; "
                f"options: {', '.join(_REPLY_OPTIONS)}"
            )
        if not good:
            raise OptionError(f"option {name}={value!r}: expected {expected}")


_RANDOM = random.Random()


@functools.cache
def _table(alphabet: str) -> bytes:
    """A ``bytes.translate`` table: each byte value to a character of ``alphabet``."""
    return bytes(ord(alphabet[value % len(alphabet)]) for value in range(256))


# ------------------------------------------------------------------- JSON and SSE

_orjson: Any
try:  # orjson when installed (the ``fast`` extra): ten times the stdlib's speed
    import orjson as _orjson
except ImportError:  # pragma: no cover - the stdlib encoder below
    _orjson = None

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def dumps(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON (non-ASCII kept, key order kept)."""
    if _orjson is not None:
        try:
            return cast(bytes, _orjson.dumps(value))
        except TypeError:  # an int beyond 64 bits, a subclass orjson refuses
            pass
    return _encode(value).encode()


Frame = Callable[[dict[str, Any]], bytes]
"""An event's bytes in the body of a streamed HTTP response."""


def frame_data(event: dict[str, Any]) -> bytes:
    """``data: <json>`` and a blank line: OpenAI Chat Completions' and Gemini's SSE."""
    return b"data: " + dumps(event) + b"\n\n"


def frame_named(event: dict[str, Any]) -> bytes:
    """``event: <type>``, ``data: <json>`` and a blank line (named by its ``type``).

    Anthropic's and OpenAI Responses' SSE.
    """
    name: str = event["type"]
    return b"event: " + name.encode() + b"\ndata: " + dumps(event) + b"\n\n"


# ---------------------------------------------------------------- stream writing


class EventWriter(Protocol):
    """A codec's per-chunk writer: neutral chunks in, the provider's events out."""

    def feed(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """The events this chunk makes, in order (possibly none)."""

    def end(self) -> list[dict[str, Any]]:
        """The events that close the stream (the provider's final bookkeeping)."""


def as_chunk(message: AssistantMessage) -> AssistantMessageChunk:
    """A whole message as one chunk: blocks and tool calls with their index, last.

    Content blocks carry their position as ``index``; each tool call becomes one
    complete tool-call fragment (arguments as JSON text) indexed by its own ``index``
    when the message recorded one (the position the provider gave it), else after
    the content blocks, in order. Invalid tool calls follow as fragments of their
    raw arguments (they assemble back to invalid calls; the ``error`` text is the
    assembler's own).
    """
    data = message.model_dump(mode="python", exclude_unset=True, by_alias=True)
    data["role"] = "assistant"
    content = data.get("content")
    if isinstance(content, list):
        data["content"] = [{**block, "index": i} for i, block in enumerate(content)]
    calls = data.pop("tool_calls", None) or []
    invalid = data.pop("invalid_tool_calls", None) or []
    fragments = []
    blocks = content if isinstance(content, list) else [content] if content else []
    # a call without its recorded position comes after the content, as encoders write it
    numbered = [{"index": len(blocks) + at, **call} for at, call in enumerate(calls)]
    spare = max((call["index"] for call in numbered), default=-1) + 1
    spare = max([spare, *(call["index"] + 1 for call in invalid if "index" in call)])
    for call in [*numbered, *invalid]:
        if "index" not in call:  # an invalid call without one: after every other
            call = {**call, "index": spare}
            spare += 1
        part: dict[str, Any] = {
            "index": call["index"],
            "arguments": _arguments_text(call.get("arguments")),
        }
        for key in ("id", "name", "extras"):
            if key in call:
                part[key] = call[key]
        fragments.append(part)
    if fragments:
        data["tool_call_chunks"] = fragments
    data["chunk_position"] = "last"
    return AssistantMessageChunk.model_validate(data)


def _arguments_text(arguments: Any) -> str:
    """Arguments as the codecs write them in requests (``_arguments.json_text``)."""
    if isinstance(arguments, str):
        return arguments
    return json_text({} if arguments is None else arguments)


def _validated_chunk(value: Any, position: int, provider: str) -> AssistantMessageChunk:
    if isinstance(value, AssistantMessageChunk):
        return value
    if isinstance(value, AssistantMessage):
        return as_chunk(value)
    if not isinstance(value, dict):
        raise ConversionError(
            f"item {position} of the stream is {type(value).__name__}, "
            "expected an AssistantMessageChunk (or its JSON data)",
            provider=provider,
        )
    return parse(value, AssistantMessageChunk)


def as_message(value: Any, provider: str) -> AssistantMessage:
    """The message ``encode_response`` writes: an AssistantMessage, or its JSON data.

    Raises:
        ValidationError: for data that is not a valid assistant message.
        ConversionError: for anything else.
    """
    if isinstance(value, AssistantMessage):
        return value
    if isinstance(value, dict | str | bytes):
        return parse(value, AssistantMessage)
    raise ConversionError(
        f"encode_response takes an AssistantMessage (or its JSON data), not {type(value).__name__}",
        provider=provider,
    )


def write_stream(
    source: Any,
    *,
    provider: str,
    writer: EventWriter,
    sse: bool,
    frame: Frame,
    closing: bytes = b"",
) -> Iterator[Any] | AsyncGenerator[Any, None]:
    """Run ``writer`` over ``source``: the provider's events (or body bytes) in order.

    ``source`` is a message, one chunk, or a sync or async iterable of chunks (an
    async one gives an async generator). Events are dicts; with ``sse`` each is
    ``frame(event)`` and ``closing`` follows the last. A source not read to its end
    (the consumer stopped, or a chunk was refused) is closed, as ``drive`` does.

    Raises (when iterated):
        ConversionError: for an item that is not a chunk.
        UnsupportedContentError: for content the format cannot say, under the
            ``"error"`` policy.
    """
    if isinstance(source, PushedWriter):
        return source.bind(provider, writer, frame if sse else None, closing)  # type: ignore[return-value]
    if isinstance(source, AssistantMessage | AssistantMessageChunk | dict):
        source = (source,)
    if is_async(source):
        return _awrite(source, provider, writer, frame if sse else None, closing)
    if not isinstance(source, Iterable) or isinstance(source, str | bytes):
        raise ConversionError(
            f"encode_stream takes an AssistantMessage or chunks, not {type(source).__name__}",
            provider=provider,
        )
    return _write(source, provider, writer, frame if sse else None, closing)


class PushedWriter:
    """A codec's stream writer driven by pushes: chunks in, events (or frames) out.

    The mirror of :class:`~chatschema.providers._common.drive.Pushed`, for a relay:
    :func:`pushed_writer` gives one bound to a codec's ``encode_stream`` and its
    options; :meth:`feed` returns what some chunks make, :meth:`end` what closes the
    stream, exactly as ``encode_stream`` yields them.
    """

    __slots__ = ("_closing", "_frame", "_position", "_writer", "provider")

    def __init__(self) -> None:
        self.provider = ""
        self._writer: EventWriter | None = None
        self._frame: Frame | None = None
        self._closing = b""
        self._position = 0

    def bind(
        self, provider: str, writer: EventWriter, frame: Frame | None, closing: bytes
    ) -> PushedWriter:
        """Take a codec's writer and framing (``write_stream``'s); returns itself."""
        self.provider, self._writer, self._frame, self._closing = provider, writer, frame, closing
        return self

    def feed(self, chunks: Iterable[AssistantMessageChunk]) -> list[Any]:
        """The events (frames, with ``sse``) of these chunks, in order."""
        writer, frame = self._writer, self._frame
        if writer is None:
            raise RuntimeError("a PushedWriter is bound by a codec's encode_stream")
        out: list[Any] = []
        for chunk in chunks:
            if type(chunk) is not AssistantMessageChunk:
                chunk = _validated_chunk(chunk, self._position, self.provider)
            self._position += 1
            events = writer.feed(chunk)
            out.extend(events if frame is None else map(frame, events))
        return out

    def end(self) -> list[Any]:
        """What closes the stream: the last events (and frames), the closing bytes."""
        writer, frame = self._writer, self._frame
        if writer is None:
            raise RuntimeError("a PushedWriter is bound by a codec's encode_stream")
        events = writer.end()
        if frame is None:
            return list(events)
        out: list[Any] = [frame(event) for event in events]
        if self._closing:
            out.append(self._closing)
        return out


def pushed_writer(encode_stream: Callable[..., Any], **options: Any) -> PushedWriter:
    """A codec's ``encode_stream(..., **options)`` as a :class:`PushedWriter`.

    Raises:
        TypeError: for an ``encode_stream`` that does not run on ``write_stream``.
    """
    sink = PushedWriter()
    made: object = encode_stream(sink, **options)
    if made is not sink:
        raise TypeError(f"{encode_stream!r} does not run on write_stream: it cannot be pushed")
    return sink


def _write(
    source: Iterable[Any], provider: str, writer: EventWriter, frame: Frame | None, closing: bytes
) -> Iterator[Any]:
    iterator = iter(source)
    finished = False
    feed, chunk_class, position = writer.feed, AssistantMessageChunk, 0
    try:
        if frame is None:
            for item in iterator:
                if type(item) is not chunk_class:
                    item = _validated_chunk(item, position, provider)
                position += 1
                yield from feed(item)
        else:
            for item in iterator:
                if type(item) is not chunk_class:
                    item = _validated_chunk(item, position, provider)
                position += 1
                for event in feed(item):
                    yield frame(event)
        finished = True
    finally:
        if not finished:
            close_source(source, iterator)
    if frame is None:
        yield from writer.end()
    else:
        for event in writer.end():
            yield frame(event)
        if closing:
            yield closing


async def _awrite(
    source: AsyncIterable[Any],
    provider: str,
    writer: EventWriter,
    frame: Frame | None,
    closing: bytes,
) -> AsyncGenerator[Any, None]:
    iterator = source.__aiter__()
    finished = False
    position = 0
    try:
        async for item in iterator:
            events = writer.feed(_validated_chunk(item, position, provider))
            position += 1
            if frame is None:
                for event in events:
                    yield event
            else:
                for event in events:
                    yield frame(event)
        finished = True
    finally:
        if not finished:
            await aclose_source(source, iterator)
    for event in writer.end():
        yield event if frame is None else frame(event)
    if frame is not None and closing:
        yield closing
