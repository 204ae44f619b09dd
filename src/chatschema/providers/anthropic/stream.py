"""Reading a streamed Messages API response as chunks, as the events arrive.

Messages API, "Streaming Messages": ``message_start``, then per content block
``content_block_start``, its ``content_block_delta`` events, ``content_block_stop``, then
``message_delta`` (stop reason, cumulative usage) and ``message_stop``; ``ping``
and ``error`` events may come at any time.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, NoReturn, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ContentBlock, ReasoningBlock, TextBlock
from chatschema_models.tool import InvalidToolCall, ToolCall, ToolCallChunk
from pydantic import BaseModel

from chatschema._wire import content_chunk, text_block
from chatschema.providers._common.drive import Incomplete, counted, drive, incomplete_policy
from chatschema.providers._common.replay import provenance
from chatschema.providers.anthropic.blocks import (
    assistant_block,
    citation,
    load,
    plain,
    plain_deep,
    reader,
    tool_use,
)
from chatschema.providers.anthropic.decode import response_fields, usage
from chatschema.providers.anthropic.wire import (
    ALL_EVENTS,
    DELTA_KINDS,
    DELTAS,
    EVENTS,
    FIELD_DELTAS,
    HELD,
    NAME,
)


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
    """Read a streamed Messages API response as chunks, lazily, as events arrive.

    Args:
        events: the stream's events as parsed JSON, as the official SDK's
            ``RawMessageStreamEvent`` objects (or what iterating its
            ``MessageStream`` gives), or the raw SSE body as bytes or str pieces
            cut anywhere; sync or async. An async iterable (the SDK's
            ``AsyncStream`` / ``AsyncMessageStream``, httpx's ``aiter_bytes()``, an
            async generator) gives an async generator of the same chunks
            (``async for``; see ``docs/async.md``). When decoding stops before the
            source's end (the caller breaks off, an error), the source is closed.
        incomplete: a stream that ends before ``message_stop``: ``"error"``
            (default) raises ``StreamIncompleteError`` once its chunks are out;
            ``"keep"`` ends with a chunk whose
            ``response_metadata["chatschema"]["incomplete"]`` says so.

    Yields:
        ``AssistantMessageChunk``s; assembled (``ChunkAccumulator``,
        ``merge_chunks`` or ``+``), they give what :func:`decode_response` gives
        for the complete response. Blocks carry ``index`` = their position in
        ``content``; ``tool_use`` input arrives as raw ``tool_call_chunks``
        fragments with the same ``index``; ``server_tool_use`` (and other blocks
        with a streamed ``input``) and ``compaction`` (whose ``compaction_delta``
        sets its fields) come whole at ``content_block_stop``; a delta of a type
        this codec does not know is kept, as it came, in
        ``response_metadata["anthropic"]["unknown_deltas"]``; usage is
        cumulative (``usage_mode="cumulative"``); ``message_stop`` gives the
        chunk with ``chunk_position="last"``.

    Raises:
        ConversionError: for an ``error`` event (``overloaded_error`` ...), with
            its type and message, and for malformed events. ``ping`` and event
            types newer than this codec are ignored.
        StreamIncompleteError: for a stream that ended before ``message_stop``
            (under ``incomplete="error"``).
        OptionError: for an ``incomplete`` other than ``"error"`` or ``"keep"``.
    """
    policy = incomplete_policy(incomplete)
    state = _Stream()
    # the fast path (tests/test_streaming_fast.py): text_delta returns the chunk
    return drive(
        events,
        provider=NAME,
        fast=state.text_delta,
        step=state.event,
        missing=state.missing,
        incomplete=policy,
    )


# The deltas of decode_stream's fast path: delta type -> (its text field, which is
# also the kind of block it extends; the block class it makes), as DELTAS reads them.
_FAST_DELTAS: dict[str, tuple[str, type[TextBlock | ReasoningBlock]]] = {
    "text_delta": ("text", TextBlock),
    "thinking_delta": ("thinking", ReasoningBlock),
}
assert all(DELTAS[name] == (kind, kind) for name, (kind, _) in _FAST_DELTAS.items())


# ================================================================ state machine


class _Open:
    """A content block of the stream: its position and what its deltas need.

    ``kind`` is ``text``, ``thinking``, ``tool_use``, ``input`` (a block whose
    ``input`` streams as JSON but that is not a client tool call, such as
    ``server_tool_use``: kept until ``content_block_stop``, then decoded whole),
    ``held`` (a block whose deltas set its fields, such as ``compaction``: kept
    until ``content_block_stop`` too) or ``whole`` (a block that came complete).
    """

    __slots__ = ("kind", "parts", "position", "raw", "start_input", "stopped", "streamed", "type")

    def __init__(self, position: int, kind: str, type_: str) -> None:
        self.position = position
        self.kind = kind
        self.type = type_  # the wire block type, for error messages
        self.raw: dict[str, Any] | None = None  # an ``input`` block's start
        self.parts: list[str] = []  # an ``input`` block's JSON fragments
        self.start_input: str | None = None  # a tool_use's non-empty start input, as JSON
        self.streamed = False  # a tool_use got a non-empty input_json_delta
        self.stopped = False


class _Stream:
    """The state of one stream: the blocks by wire index and the usage so far."""

    def __init__(self) -> None:
        self.started = False
        self.blocks: dict[int, _Open] = {}
        self.usage: dict[str, Any] = {}  # the running raw usage (counts replace)
        self.emptied = False  # content=[] sent for a reply without any block
        self.unknown = 0  # deltas of types this codec does not know, so far
        self.stopped = False  # message_stop came
        self.model: str | None = None  # the response's, for its opaque blocks' provenance

    def missing(self, done_line: bool) -> tuple[str, str] | None:
        """What the stream ended without (``message_stop``), if anything: drive's check."""
        if self.stopped:
            return None
        if not self.started:
            return "message_stop", "no message_start either"
        calls = sum(1 for block in self.blocks.values() if block.kind == "tool_use")
        unfinished = sum(1 for block in self.blocks.values() if not block.stopped)
        detail = f"{counted(len(self.blocks), 'content block')}, {unfinished} not stopped"
        if calls:
            detail += f", {counted(calls, 'tool call')} among them"
        return "message_stop", detail

    def empty(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Mark a reply without any block as having empty content, as decode_response does.

        Done at its end (message_delta, message_stop): until then a tool_use may
        still come, and a reply of only tool calls has no content at all.
        """
        if not self.blocks and not self.emptied:
            self.emptied = True
            fields["content"] = []
        return fields

    def text_delta(self, event: Any) -> AssistantMessageChunk | None:
        """The chunk of a text or thinking delta of an open block, else None.

        The fast path of :func:`decode_stream`: an event of the exact shape the API
        sends (which bounds its depth), read as :meth:`delta` reads it; anything
        else is left to :meth:`event`.
        """
        if type(event) is not dict or len(event) != 3 or event.get("type") != "content_block_delta":
            return None
        delta = event.get("delta")
        if type(delta) is not dict or len(delta) != 2:
            return None
        name = delta.get("type")
        spec = _FAST_DELTAS.get(name) if type(name) is str else None
        index = event.get("index")
        block = self.blocks.get(index) if type(index) is int else None
        if spec is None or block is None:
            return None
        kind, cls = spec
        text = delta.get(kind)
        if type(text) is not str or block.kind != kind or block.stopped:
            return None
        return content_chunk(AssistantMessageChunk, [text_block(cls, text, block.position)])

    def event(self, event: Any) -> Iterator[AssistantMessageChunk]:
        """The chunks of one event."""
        if isinstance(event, BaseModel) and getattr(event, "type", None) not in ALL_EVENTS:
            # e.g. the ``text`` / ``input_json`` events of ``client.messages.stream()``,
            # whose snapshots are not dumped: that would be quadratic
            return
        data = load(event)
        if not isinstance(data, dict):
            reader.fail(f"an event must be an object, not {type(data).__name__}")
        kind = data.get("type")
        if not isinstance(kind, str):
            reader.fail("an event needs a string `type`")
        if kind == "error":
            _error(data)
        if kind == "message_start":
            if self.started:
                reader.fail("a second message_start")
            self.started = True
            yield from self.message_start(data)
            return
        if kind not in EVENTS:
            return  # ping, and event types newer than this codec
        if not self.started:
            reader.fail(f"{kind} before message_start")
        if kind == "content_block_start":
            index = _event_index(data)
            block = plain(data.get("content_block"))
            if not isinstance(block, dict):
                reader.fail("content_block_start needs a `content_block` object")
            yield from self.start(index, block)
        elif kind == "content_block_delta":
            yield from self.delta(data)
        elif kind == "content_block_stop":
            yield from self.stop(_event_index(data))
        elif kind == "message_delta":
            yield from self.message_delta(data)
        else:  # message_stop
            self.stopped = True
            yield _chunk(self.empty({"chunk_position": "last"}))

    def message_start(self, data: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        """The first chunk: response id, model, usage so far (and any content, rarely)."""
        message = plain(data.get("message"))
        if not isinstance(message, dict):
            reader.fail("message_start needs a `message` object")
        if message.get("role", "assistant") != "assistant":
            reader.fail(f"a response has role 'assistant', not {message.get('role')!r}")
        fields: dict[str, Any] = {"provider": NAME}
        metadata: dict[str, Any] = {}
        response_fields(message, fields, metadata)
        self.model = fields.get("model")
        counts = plain(message.get("usage"))
        if counts is not None:
            self.usage = dict(reader.object(counts, "message_start usage"))
            fields["usage"] = usage(self.usage, metadata)
            fields["usage_mode"] = "cumulative"
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        yield _chunk(fields)
        content = reader.list(plain(message.get("content", [])), "message_start content")
        for index, block in enumerate(content):  # normally none: blocks come as events
            yield from self.start(index, plain(block))
            yield from self.stop(index)

    def start(self, index: int, raw: Any) -> Iterator[AssistantMessageChunk]:
        """``content_block_start``: a block opens at wire ``index``."""
        if index in self.blocks:
            reader.fail(f"content_block_start for block index {index} twice", None, index)
        position = len(self.blocks)
        if not isinstance(raw, dict):
            reader.fail("a content block must be an object", None, position)
        kind = raw.get("type")
        if kind == "tool_use":
            state = self.blocks[index] = _Open(position, "tool_use", kind)
            arguments = raw.get("input")
            start = {key: value for key, value in raw.items() if key != "input"}
            call = tool_use({**start, "input": {}}, 0, position, True)
            assert isinstance(call, ToolCall)
            if arguments is not None and arguments != {}:  # input that came whole
                try:
                    state.start_input = json.dumps(plain_deep(arguments), ensure_ascii=False)
                except (TypeError, ValueError) as error:
                    reader.fail(f"tool_use input is not JSON data: {error}", None, position)
            fragment: dict[str, Any] = {"index": position, "id": call.id, "name": call.name}
            if call.extras:
                fragment["extras"] = call.extras
            yield _chunk({"tool_call_chunks": [reader.build(ToolCallChunk, fragment, 0, position)]})
            return
        if isinstance(kind, str) and ("input" in raw or kind in HELD):
            state = self.blocks[index] = _Open(position, "held" if kind in HELD else "input", kind)
            state.raw = dict(raw)
            return  # decoded whole at content_block_stop
        block = assistant_block(raw, 0, position, index_call=True)
        assert not isinstance(block, (ToolCall, InvalidToolCall))
        kind = str(kind)
        self.blocks[index] = _Open(position, kind if kind in DELTA_KINDS else "whole", kind)
        update = {"index": position, **provenance(block, self.model)}
        yield _chunk({"content": [block.model_copy(update=update)]})

    def delta(self, data: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        """``content_block_delta``: text, citation, thinking, signature or input JSON."""
        index = _event_index(data)
        delta = plain(data.get("delta"))
        if not isinstance(delta, dict) or not isinstance(delta.get("type"), str):
            reader.fail("content_block_delta needs a `delta` object with a string `type`")
        spec = DELTAS.get(delta["type"])
        fields = FIELD_DELTAS.get(delta["type"])
        if spec is None and fields is None:
            # a delta type newer than this codec: kept as it came, never ignored, under
            # its running number (response_metadata deep-merges by key: linear)
            kept = {"index": index, "delta": plain_deep(delta)}
            metadata = {NAME: {"unknown_deltas": {str(self.unknown): kept}}}
            self.unknown += 1
            yield _chunk({"response_metadata": metadata})
            return
        state = self.blocks.get(index)
        if state is None or state.stopped:
            reader.fail(f"{delta['type']} for block index {index}, which is not open")
        position = state.position
        if fields is not None:
            wanted_type, keys = fields
            if state.kind != "held" or state.type != wanted_type or state.raw is None:
                return  # as accumulate_event: only a block of its type takes it
            for key in keys:  # as the SDK's accumulate_event: each field replaced
                state.raw[key] = plain_deep(delta.get(key))
            return
        assert spec is not None
        wanted, key = spec
        value: Any = delta.get(key)
        if key != "citation" and not isinstance(value, str):
            reader.fail(f"{delta['type']} needs a string `{key}`", None, position)
        if wanted == "input":
            if state.kind == "tool_use":
                if value:
                    state.streamed = True
                    fragment = ToolCallChunk(index=position, arguments=value)
                    yield AssistantMessageChunk(tool_call_chunks=[fragment])
                return
            if state.kind == "input":
                state.parts.append(value)
                return
        elif state.kind == wanted:
            block: ContentBlock
            if key == "text":
                block = TextBlock(text=value, index=position)
            elif key == "citation":
                annotation = citation(value, 0, position)
                block = TextBlock(text="", annotations=[annotation], index=position)
            elif key == "thinking":
                block = ReasoningBlock(text=value, index=position)
            else:
                block = ReasoningBlock(signature=value, index=position)
            yield AssistantMessageChunk(content=[block])
            return
        reader.fail(
            f"{delta['type']} for block index {index}, a {state.type} block", None, position
        )

    def stop(self, index: int) -> Iterator[AssistantMessageChunk]:
        """``content_block_stop``: a tool call's whole start input, or an input block decoded."""
        state = self.blocks.get(index)
        if state is None or state.stopped:
            reader.fail(f"content_block_stop for block index {index}, which is not open")
        state.stopped = True
        position = state.position
        if state.kind == "tool_use" and state.start_input is not None and not state.streamed:
            fragment = ToolCallChunk(index=position, arguments=state.start_input)
            yield AssistantMessageChunk(tool_call_chunks=[fragment])
        elif state.kind in ("input", "held"):
            raw, text = state.raw, "".join(state.parts)
            assert raw is not None
            state.raw, state.parts = None, []
            if text:  # no fragments, or only empty ones: the start's input stands
                try:
                    raw = {**raw, "input": json.loads(text)}
                except ValueError as error:
                    reader.fail(f"{raw['type']} input is not valid JSON: {error}", None, position)
                except RecursionError:
                    reader.fail(f"{raw['type']} input is nested too deeply to read", None, position)
            block = assistant_block(raw, 0, position, index_call=True)
            assert not isinstance(block, (ToolCall, InvalidToolCall))
            update = {"index": position, **provenance(block, self.model)}
            yield _chunk({"content": [block.model_copy(update=update)]})

    def message_delta(self, data: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        """``message_delta``: the stop reason and the running usage."""
        delta = plain(data.get("delta", {}))
        reader.object(delta, "message_delta `delta`")
        fields: dict[str, Any] = {}
        metadata: dict[str, Any] = {}
        response_fields(delta, fields, metadata)
        counts = plain(data.get("usage"))
        if counts is not None:
            reader.object(counts, "message_delta usage")
            # running totals: each count replaces the one before; absent ones stay
            self.usage.update((key, value) for key, value in counts.items() if value is not None)
            fields["usage"] = usage(self.usage, metadata)
            fields["usage_mode"] = "cumulative"
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        if self.empty(fields):
            yield _chunk(fields)


# ================================================================ event helpers


def _chunk(fields: dict[str, Any]) -> AssistantMessageChunk:
    """A chunk from keyword fields (a value the model refuses is a ConversionError)."""
    return reader.build(AssistantMessageChunk, fields)


def _event_index(data: dict[str, Any]) -> int:
    """The event's ``index``: the block's wire index."""
    return reader.count(data.get("index"), f"{data['type']} `index`")


def _error(data: dict[str, Any]) -> NoReturn:
    """Raise for an ``error`` event, naming the error's type and message.

    Worded ``stream error event: <type>: <message>`` (not as
    ``Reader.stream_error`` words it): callers match on ``<type>: <message>``.
    """
    error = plain(data.get("error"))
    kind = error.get("type") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    detail = message if isinstance(message, str) else json.dumps(error, default=repr)
    prefix = f"{kind}: " if isinstance(kind, str) else ""
    reader.fail(f"stream error event: {prefix}{detail}")
