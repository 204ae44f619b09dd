"""Reading a ``converse_stream`` response as chunks, as the events arrive.

ConverseStream: ``messageStart``, then per content block an optional
``contentBlockStart`` (tool calls, server tool results, images), its
``contentBlockDelta`` events and ``contentBlockStop``, then ``messageStop`` (the
stop reason) and ``metadata`` (usage, metrics, trace). Each event is an object with
one member, as boto3's ``EventStream`` yields them; an exception member
(``throttlingException`` ...) ends the stream with an error.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator, Mapping
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ReasoningBlock, TextBlock
from chatschema_models.tool import ToolCallChunk

from chatschema._wire import content_chunk, text_block
from chatschema.providers._common.drive import (
    Incomplete,
    aclose_source,
    close_source,
    counted,
    drive,
    incomplete_policy,
)
from chatschema.providers.bedrock_converse.blocks import (
    blob_bytes,
    blob_text,
    citation,
    media_block,
    reader,
    server_result_block,
    tool_use,
)
from chatschema.providers.bedrock_converse.eventstream import EventStreamReader
from chatschema.providers.bedrock_converse.usage import response_fields
from chatschema.providers.bedrock_converse.wire import (
    BLOB_TEXT,
    ERROR_EVENTS,
    EVENTS,
    NAME,
    PADDING,
)

__all__ = ["decode_stream"]


@overload
def decode_stream(
    events: AsyncIterable[Any], *, incomplete: Incomplete = "error"
) -> AsyncGenerator[AssistantMessageChunk, None]: ...


@overload
def decode_stream(
    events: Iterable[Any], *, incomplete: Incomplete = "error"
) -> Iterator[AssistantMessageChunk]: ...


def decode_stream(
    events: Iterable[Any] | AsyncIterable[Any], *, incomplete: Incomplete = "error"
) -> Iterator[AssistantMessageChunk] | AsyncGenerator[AssistantMessageChunk, None]:
    """Read a ``converse_stream`` response as chunks, lazily, as events arrive.

    Args:
        events: the events as boto3's ``EventStream`` yields them (``{"messageStart":
            ...}``, ``{"contentBlockDelta": ...}`` ...; blobs as ``bytes`` or base64
            text), the whole dict ``converse_stream`` returns (its ``stream`` is read,
            its ``ResponseMetadata`` kept), the raw HTTP body (AWS event-stream
            binary messages: ``bytes``, or an iterable of ``bytes`` pieces cut
            anywhere, as ``encode_stream(..., sse=True)`` writes it), or an async
            iterable of these (aiobotocore, httpx's ``aiter_bytes()``):
            an async iterable gives an async generator of the same chunks. When decoding
            stops before the source's end (the caller breaks off, an error), the source
            is closed.
        incomplete: a stream that ends before ``messageStop`` (the reply's end;
            the ``metadata`` event after it brings usage): ``"error"`` (default)
            raises ``StreamIncompleteError`` once its chunks are out; ``"keep"``
            ends with a chunk whose ``response_metadata["chatschema"]["incomplete"]``
            says so.

    Yields:
        ``AssistantMessageChunk``s; assembled (``ChunkAccumulator``, ``merge_chunks``
        or ``+``), they give what :func:`decode_response` gives for the complete
        response. Blocks carry ``index`` = their ``contentBlockIndex``; tool input
        arrives as raw ``tool_call_chunks`` fragments with the same ``index``; a
        reasoning signature is its own delta at the end of its block; redacted
        reasoning, server tool calls and results and images come whole at
        ``contentBlockStop``; a delta member this codec does not know is kept in
        ``response_metadata["bedrock_converse"]["unknown_deltas"]``; ``metadata``
        gives the usage and the chunk with ``chunk_position="last"``.

    Raises:
        ConversionError: for an exception event (``throttlingException`` ...), with
            its message, and for malformed events.
        StreamIncompleteError: for a stream that ended before ``messageStop``
            (under ``incomplete="error"``).
        OptionError: for an ``incomplete`` other than ``"error"`` or ``"keep"``.
    """
    policy = incomplete_policy(incomplete)
    state = _Stream()
    source: Any = events
    if isinstance(events, Mapping) and "stream" in events:
        source = events["stream"]
        state.outer = {key: value for key, value in events.items() if key != "stream"}
    source = raw_body(source)
    chunks: Iterator[AssistantMessageChunk] | AsyncGenerator[AssistantMessageChunk, None]
    chunks = drive(
        source,
        provider=NAME,
        fast=state.text_delta,
        build=content_chunk,
        step=state.event,
        missing=state.missing,
        incomplete=policy,
    )
    return chunks


# ================================================================ raw bodies

_BLOBS = (bytes, bytearray, memoryview)


def raw_body(source: Any) -> Any:
    """``source``, with a raw event-stream body (``bytes`` pieces) read into events.

    A body is known by its first item (``bytes`` beginning with a zero byte: an
    SSE body, text, goes on to ``drive``'s SSE reader); any other source passes as
    it is: a list
    or tuple of events unwrapped, an iterator through a thin generator that looks
    at its first item only when the first chunk is asked for.
    """
    if isinstance(source, _BLOBS):
        return _sync_body((source,))
    if type(source) is list or type(source) is tuple:
        return _sync_body(source) if source and isinstance(source[0], _BLOBS) else source
    if isinstance(source, AsyncIterable):
        return _async_body(source)
    if isinstance(source, Iterable) and not isinstance(source, (str, Mapping)):
        return _sync_body(source)
    return source


def _sync_body(source: Iterable[Any]) -> Iterator[Any]:
    """The events of a sync source: parsed from its pieces when it is a raw body."""
    iterator = iter(source)
    finished = False
    try:
        first = next(iterator, _NOTHING)
        if first is _NOTHING:
            finished = True
            return
        if not isinstance(first, _BLOBS) or not _is_event_stream(first):
            yield first
            yield from iterator
            finished = True
            return
        reader = EventStreamReader()
        yield from reader.feed(first)
        for piece in iterator:
            yield from reader.feed(piece)
        finished = True
        reader.end()
    finally:
        if not finished:
            close_source(source, iterator)


async def _async_body(source: AsyncIterable[Any]) -> AsyncGenerator[Any, None]:
    """The events of an async source: parsed from its pieces when it is a raw body."""
    iterator = aiter(source)
    finished = False
    try:
        first = await anext(iterator, _NOTHING)
        if first is _NOTHING:
            finished = True
            return
        if not isinstance(first, _BLOBS) or not _is_event_stream(first):
            yield first
            async for event in iterator:
                yield event
            finished = True
            return
        reader = EventStreamReader()
        for event in reader.feed(first):
            yield event
        async for piece in iterator:
            for event in reader.feed(piece):
                yield event
        finished = True
        reader.end()
    finally:
        if not finished:
            await aclose_source(source, iterator)


_NOTHING: Any = object()


def _is_event_stream(piece: bytes | bytearray | memoryview) -> bool:
    """Whether a body's first piece is AWS event-stream binary, not SSE text.

    A message begins with its total length as a big-endian uint32, so its first byte
    is 0 for any message under 16 MiB (the event limits are far below); an SSE body
    begins with text (``data:``, ``event:``, a comment), read by the SSE parser.
    """
    return not piece or piece[0] == 0


# ================================================================ state machine


class _Open:
    """A content block of the stream: its position and what its deltas need.

    ``kind``: ``text``, ``reasoning``, ``tool_use`` (a client tool call: fragments go
    out as they come), or ``held`` (a server tool call or result, an image, redacted
    reasoning: kept until ``contentBlockStop``, then decoded whole).
    """

    __slots__ = ("kind", "parts", "position", "raw", "stopped")

    def __init__(self, position: int, kind: str) -> None:
        self.position = position
        self.kind = kind
        self.raw: dict[str, Any] = {}  # a held block's start and what its deltas set
        self.parts: list[Any] = []  # a held block's pieces (input text, result items, blobs)
        self.stopped = False


class _Stream:
    """The state of one stream: the blocks by ``contentBlockIndex``."""

    def __init__(self) -> None:
        self.started = False
        self.blocks: dict[int, _Open] = {}
        self.outer: dict[str, Any] = {}  # the converse_stream response's other keys
        self.emptied = False
        self.unknown = 0  # deltas of members this codec does not know, so far
        self.stopped = False  # messageStop came

    def missing(self, done_line: bool) -> tuple[str, str] | None:
        """What the stream ended without (``messageStop``), if anything: drive's check."""
        if self.stopped:
            return None
        if not self.started:
            return "messageStop", "no messageStart either"
        calls = sum(1 for block in self.blocks.values() if block.kind == "tool_use")
        unfinished = sum(1 for block in self.blocks.values() if not block.stopped)
        detail = f"{counted(len(self.blocks), 'content block')}, {unfinished} not stopped"
        if calls:
            detail += f", {counted(calls, 'tool call')} among them"
        return "messageStop", detail

    def text_delta(self, event: Any) -> list[TextBlock] | None:
        """The text of a text delta of an open text block (the fast path), else None."""
        if type(event) is not dict or len(event) != 1:
            return None
        body = event.get("contentBlockDelta")
        if type(body) is not dict or len(body) != 2:
            return None
        delta = body.get("delta")
        index = body.get("contentBlockIndex")
        if type(delta) is not dict or len(delta) != 1 or type(index) is not int:
            return None
        text = delta.get("text")
        block = self.blocks.get(index)
        if type(text) is not str or block is None or block.kind != "text" or block.stopped:
            return None
        return [text_block(TextBlock, text, block.position)]

    def event(self, event: Any) -> Iterator[AssistantMessageChunk]:
        """The chunks of one event."""
        if not isinstance(event, dict):
            reader.fail(f"an event must be an object, not {type(event).__name__}")
        members = [key for key in event if key != PADDING]
        if len(members) != 1:
            reader.fail(f"an event must have exactly one member, not {sorted(map(str, event))}")
        kind = members[0]
        body = event[kind]
        if kind in ERROR_EVENTS:
            error = {"type": kind, **body} if isinstance(body, dict) else {"type": kind}
            raise reader.stream_error(error, "type")
        if kind not in EVENTS:
            return  # event members newer than this codec
        if not isinstance(body, dict):
            reader.fail(f"a {kind} event must be an object")
        if kind == "messageStart":
            if self.started:
                reader.fail("a second messageStart")
            self.started = True
            yield from self.message_start(body)
            return
        if not self.started:
            reader.fail(f"{kind} before messageStart")
        if kind == "contentBlockStart":
            yield from self.start(body)
        elif kind == "contentBlockDelta":
            yield from self.delta(body)
        elif kind == "contentBlockStop":
            yield from self.stop(self.index(body, kind))
        elif kind == "messageStop":
            yield from self.message_stop(body)
        else:
            yield from self.metadata(body)

    # --------------------------------------------------------------- events

    def message_start(self, body: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        """The first chunk: the provider, and the response's other keys."""
        role = body.get("role", "assistant")
        if role != "assistant":
            reader.fail(f"a response has role 'assistant', not {role!r}")
        fields: dict[str, Any] = {"provider": NAME}
        metadata: dict[str, Any] = {}
        response_fields(self.outer, fields, metadata)
        rest = {key: value for key, value in body.items() if key not in ("role", PADDING)}
        if rest:
            metadata["output"] = rest
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        yield _chunk(fields)

    def index(self, body: dict[str, Any], kind: str) -> int:
        """The event's ``contentBlockIndex``."""
        return reader.count(body.get("contentBlockIndex"), f"{kind} `contentBlockIndex`")

    def open(self, index: int, kind: str) -> _Open:
        """The block at ``index``, opened as ``kind`` if it is new."""
        block = self.blocks.get(index)
        if block is None:
            block = self.blocks[index] = _Open(len(self.blocks), kind)
        elif block.stopped:
            reader.fail(f"block {index} got an event after contentBlockStop", None, block.position)
        return block

    def start(self, body: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        """``contentBlockStart``: a tool call opens (others are held)."""
        index = self.index(body, "contentBlockStart")
        if index in self.blocks:
            reader.fail(f"contentBlockStart for block index {index} twice", None, index)
        start = body.get("start")
        if not isinstance(start, dict) or len(start) != 1:
            reader.fail("contentBlockStart needs a `start` object with one member")
        ((key, value),) = start.items()
        if key == "toolUse" and isinstance(value, dict) and value.get("type") != "server_tool_use":
            block = self.open(index, "tool_use")
            call = tool_use({**value, "input": {}}, 0, block.position, with_index=True)
            fragment: dict[str, Any] = {"index": block.position, "id": call.id, "name": call.name}
            if call.extras:
                fragment["extras"] = call.extras
            yield _chunk(
                {"tool_call_chunks": [reader.build(ToolCallChunk, fragment, 0, block.position)]}
            )
            return
        block = self.open(index, "held")
        block.raw = {key: dict(value) if isinstance(value, dict) else value}

    def delta(self, body: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        """``contentBlockDelta``: text, reasoning, tool input, citation, result, image."""
        index = self.index(body, "contentBlockDelta")
        delta = body.get("delta")
        if not isinstance(delta, dict) or len(delta) != 1:
            reader.fail("contentBlockDelta needs a `delta` object with one member")
        ((key, value),) = delta.items()
        if key == "text":
            block = self.open(index, "text")
            if block.kind != "text" or not isinstance(value, str):
                reader.fail(f"a text delta for a {block.kind} block", None, block.position)
            yield content_chunk(
                AssistantMessageChunk, [TextBlock(text=value, index=block.position)]
            )
        elif key == "reasoningContent":
            yield from self.reasoning(index, value)
        elif key == "toolUse":
            block = self.open(index, "tool_use")
            fragment = value.get("input") if isinstance(value, dict) else None
            if not isinstance(fragment, str):
                reader.fail("a toolUse delta needs a string `input`", None, block.position)
            if block.kind == "held":
                block.parts.append(fragment)
            elif block.kind != "tool_use":
                reader.fail(f"a toolUse delta for a {block.kind} block", None, block.position)
            elif fragment:
                chunk = ToolCallChunk(index=block.position, arguments=fragment)
                yield AssistantMessageChunk(tool_call_chunks=[chunk])
        elif key == "citation":
            block = self.open(index, "text")
            if block.kind != "text":
                reader.fail(f"a citation delta for a {block.kind} block", None, block.position)
            annotation = citation(value, 0, block.position)
            text = TextBlock(
                text="",
                annotations=[annotation],
                index=block.position,
                extras={NAME: {"citationsContent": True}},
            )
            yield AssistantMessageChunk(content=[text])
        elif key in ("toolResult", "image"):
            block = self.open(index, "held")
            if block.kind != "held":
                reader.fail(f"a {key} delta for a {block.kind} block", None, block.position)
            if key == "toolResult" and isinstance(value, list):
                block.parts.extend(value)
            elif key == "image" and isinstance(value, dict):
                inner = block.raw.setdefault("image", {})
                if isinstance(inner, dict):
                    inner.update(value)
            else:
                reader.fail(f"a malformed {key} delta", None, block.position)
        else:
            # a delta member newer than this codec: kept as it came, never ignored
            kept = {"index": index, "delta": delta}
            metadata = {NAME: {"unknown_deltas": {str(self.unknown): kept}}}
            self.unknown += 1
            yield _chunk({"response_metadata": metadata})

    def reasoning(self, index: int, value: Any) -> Iterator[AssistantMessageChunk]:
        """A reasoning delta: text and signature go out; redacted content is held."""
        if not isinstance(value, dict) or len(value) != 1:
            reader.fail("a reasoningContent delta needs one member")
        ((key, item),) = value.items()
        if key == "redactedContent":
            block = self.open(index, "held")
            if block.kind != "held" or (block.raw and "redactedContent" not in block.raw):
                reader.fail("redacted reasoning in another block", None, block.position)
            block.raw = {"redactedContent": True}
            block.parts.append(item)
            return
        block = self.open(index, "reasoning")
        if block.kind != "reasoning" or not isinstance(item, str):
            reader.fail(f"a reasoning {key} delta for a {block.kind} block", None, block.position)
        if key == "text":
            chunk = ReasoningBlock(text=item, provider=NAME, index=block.position)
        elif key == "signature":
            chunk = ReasoningBlock(signature=item, provider=NAME, index=block.position)
        else:
            reader.fail(f"unknown reasoningContent delta {key!r}", None, block.position)
        yield AssistantMessageChunk(content=[chunk])

    def stop(self, index: int) -> Iterator[AssistantMessageChunk]:
        """``contentBlockStop``: a held block decoded whole."""
        block = self.blocks.get(index)
        if block is None or block.stopped:
            reader.fail(f"contentBlockStop for block index {index}, which is not open")
        block.stopped = True
        if block.kind != "held":
            return
        position = block.position
        raw, parts = block.raw, block.parts
        block.raw, block.parts = {}, []
        if "redactedContent" in raw:
            yield AssistantMessageChunk(content=[_redacted(parts, position)])
            return
        if "toolUse" in raw and isinstance(raw["toolUse"], dict):
            start = raw["toolUse"]
            text = "".join(parts)
            arguments: Any = start.get("input", {})
            if text:
                arguments = reader.json(text)
            decoded: Any = tool_use({**start, "input": arguments}, 0, position, with_index=True)
        elif "toolResult" in raw and isinstance(raw["toolResult"], dict):
            decoded = server_result_block({**raw["toolResult"], "content": parts}, 0, position)
        elif "image" in raw and isinstance(raw["image"], dict):
            decoded = media_block("image", raw["image"], 0, position)
        else:
            reader.fail(f"a block this codec cannot assemble: {sorted(raw)}", None, position)
        yield _chunk({"content": [decoded.model_copy(update={"index": position})]})

    def message_stop(self, body: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        """``messageStop``: the stop reason (and additional response fields)."""
        self.stopped = True
        fields: dict[str, Any] = {}
        metadata: dict[str, Any] = {}
        response_fields({k: v for k, v in body.items() if k != PADDING}, fields, metadata)
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        if not self.blocks and not self.emptied:
            self.emptied = True
            fields["content"] = []  # a reply without any block has empty content
        yield _chunk(fields)

    def metadata(self, body: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        """``metadata``: usage, metrics, trace; the last chunk."""
        fields: dict[str, Any] = {"chunk_position": "last"}
        metadata: dict[str, Any] = {}
        response_fields({k: v for k, v in body.items() if k != PADDING}, fields, metadata)
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        yield _chunk(fields)


# ================================================================ event helpers


def _chunk(fields: dict[str, Any]) -> AssistantMessageChunk:
    """A chunk from keyword fields (a value the model refuses is a ConversionError)."""
    return reader.build(AssistantMessageChunk, fields)


def _redacted(parts: list[Any], position: int) -> ReasoningBlock:
    """Redacted reasoning from its pieces: the base64 of all their bytes, in order."""
    texts = [blob_text(part, "redactedContent", None, position) for part in parts]
    as_text = any(is_text for _, is_text in texts)
    if len(texts) == 1:
        data = texts[0][0]
    else:
        joined = b"".join(blob_bytes(text) or b"" for text, _ in texts)
        data = base64.b64encode(joined).decode("ascii")
    fields: dict[str, Any] = {"provider": NAME, "encrypted_content": data, "index": position}
    if as_text:
        fields["extras"] = {NAME: {BLOB_TEXT: True}}
    return reader.build(ReasoningBlock, fields, None, position)
