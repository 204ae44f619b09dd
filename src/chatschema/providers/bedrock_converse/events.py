"""The ConverseStream event writer: neutral chunks in, ``converse_stream`` events out.

The order Bedrock sends (API reference, ConverseStream; recorded traffic):
``messageStart``, then each content block in turn (a ``contentBlockStart`` for tool
calls, server tool results and images only: text and reasoning start with their
first delta), its ``contentBlockDelta`` events and ``contentBlockStop``, then
``messageStop`` (the stop reason) and ``metadata`` (usage, metrics, trace). Blocks
are numbered by ``contentBlockIndex`` in the order they open; a block stops when the
next one opens (the service never goes back to a stopped block).

Events are the REST API's JSON (blobs as base64 text), without the padding member
``p`` the service adds to hide lengths (botocore leaves it out).
"""

from __future__ import annotations

import struct
import zlib
from typing import Any, Final

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    ImageBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
)
from chatschema_models.message import AssistantMessage
from chatschema_models.tool import ToolCall, ToolCallChunk
from chatschema_models.usage import Usage

from chatschema._json import copy_json
from chatschema._usage import add_usage
from chatschema.errors import ConversionError
from chatschema.providers._common import extras_of
from chatschema.providers._common.respond import Reply, dumps
from chatschema.providers.bedrock_converse.answer import (
    STOP_EVENT_KEYS,
    TOOL_USE_ID,
    Answer,
    metadata_of,
    stop_reason,
    top_level,
    wire_usage,
)
from chatschema.providers.bedrock_converse.eventstream import frame_event, head_of, heads
from chatschema.providers.bedrock_converse.rules import tool_ids
from chatschema.providers.bedrock_converse.wire import CACHE_POINT, ID, NAME

__all__ = ["FramedWriter", "StreamWriter"]

_orjson: Any
try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - every event through frame_event
    _orjson = None

_DELTA_FIELDS = (frozenset({"role", "content"}), frozenset({"content"}))
_STRING_KEY = ("string",)
"""The merge key of string content (text deltas as strings)."""
_STRING: Final = object()
"""``StreamWriter._fast`` when the open text block is string content's."""
_TEXT_FIELDS = frozenset({"type", "text", "index"})
_START_KEYS = ("toolUseId", "name", "type")
"""ToolUseBlockStart members (botocore): what a tool call's start can carry."""


class _Wire:
    """A content block of the written stream: its ``contentBlockIndex`` and kind."""

    __slots__ = ("index", "kind", "stopped")

    def __init__(self, index: int, kind: str) -> None:
        self.index = index
        self.kind = kind  # text, reasoning, redacted, tool, held
        self.stopped = False


class StreamWriter:
    """One ``converse_stream`` response being written (the ``EventWriter`` protocol)."""

    __slots__ = (
        "_answer",
        "_blocks",
        "_calls",
        "_closed",
        "_count",
        "_current",
        "_fast",
        "_fast_index",
        "_fast_tail",
        "_finish",
        "_metadata",
        "_provider",
        "_raw",
        "_refused",
        "_reply",
        "_started",
        "_unique",
        "_usage",
    )

    def __init__(self, reply: Reply) -> None:
        self._reply = reply
        self._answer: Answer | None = None
        self._started = False
        self._closed = False
        self._blocks: dict[Any, _Wire] = {}  # chunk key -> its wire block
        self._current: _Wire | None = None  # the open block
        # the open block when a text one: its chunk index, or _STRING (string content)
        self._fast: object = None
        self._fast_index = 0  # and its contentBlockIndex
        self._fast_tail = b""  # and the end of its text deltas' payload
        self._count = 0  # blocks opened
        self._calls = 0  # tool calls written
        self._unique = 0  # keys of blocks without index
        self._refused: set[Any] = set()  # keys the unsupported policy handled
        self._usage: Usage | None = None
        self._metadata: dict[str, Any] = {}  # response_metadata["bedrock_converse"], merged
        self._finish: str | None = None
        self._raw: str | None = None
        self._provider: str | None = None

    # ----------------------------------------------------------------- protocol

    def feed(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """The events of one chunk, in order."""
        if self._fast is not None:  # a text delta of the open text block: the fast path
            text = self.fast_text(chunk)
            if text is not None:
                if not text:
                    return []
                delta = {"delta": {"text": text}, "contentBlockIndex": self._fast_index}
                return [{"contentBlockDelta": delta}]
        return self._general(chunk)

    def fast_text(self, chunk: AssistantMessageChunk) -> str | None:
        """The text of a chunk that only adds text to the open text block, else None.

        Such a chunk sets ``content`` (and ``role``) only, and its content is a string
        continuing string content, or one text block (``type``, ``text``, ``index``
        only) of the open block's index: its one event is a text delta.
        """
        if chunk.__pydantic_fields_set__ not in _DELTA_FIELDS:
            return None
        content = chunk.__dict__["content"]
        if type(content) is str:
            return content if self._fast is _STRING else None
        if type(content) is list and len(content) == 1:
            block = content[0]
            values = block.__dict__
            if (
                values.get("index") == self._fast
                and type(block) is TextBlock
                and block.__pydantic_fields_set__ == _TEXT_FIELDS
            ):
                text: str = values["text"]
                return text
        return None

    def end(self) -> list[dict[str, Any]]:
        """``messageStop`` and ``metadata``, unless the last chunk sent them."""
        out: list[dict[str, Any]] = []
        if not self._started:
            self._started = True
            out.append({"messageStart": {"role": "assistant"}})
        if not self._closed:
            self._close(out)
        return out

    # ------------------------------------------------------------ general path

    def _general(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        if self._closed:
            raise ConversionError(
                "a chunk after the last one (chunk_position='last')", provider=NAME
            )
        out: list[dict[str, Any]] = []
        fields = chunk.__pydantic_fields_set__
        if not self._started:
            self._started = True
            start: dict[str, Any] = {"role": "assistant"}
            kept = metadata_of(chunk).get("output")
            if isinstance(kept, dict):  # messageStart's other members, as they came
                for key, value in kept.items():
                    start.setdefault(key, copy_json(value))
            out.append({"messageStart": start})
        if "provider" in fields and self._provider is None:
            self._provider = chunk.provider
        if chunk.finish_reason is not None:
            self._finish = chunk.finish_reason
        if chunk.raw_finish_reason is not None:
            self._raw = chunk.raw_finish_reason
        if chunk.usage is not None:
            if chunk.usage_mode == "cumulative" or self._usage is None:
                self._usage = chunk.usage
            else:
                self._usage = add_usage(self._usage, chunk.usage)
        ours = metadata_of(chunk)
        if ours:
            _merge(self._metadata, ours)
        content = chunk.content
        calls = chunk.tool_call_chunks
        if isinstance(content, str):
            if content:
                self._text(("string",), content, None, out)
            for call in calls:
                self._call(call, out)
        elif calls and content:
            for item in _ordered(content, calls):
                if isinstance(item, ToolCallChunk):
                    self._call(item, out)
                else:
                    self._block(item, out)
        else:
            for block in content:
                self._block(block, out)
            for call in calls:
                self._call(call, out)
        if chunk.chunk_position == "last":
            self._close(out)
        return out

    def _close(self, out: list[dict[str, Any]]) -> None:
        """Stop the open block; ``messageStop`` and ``metadata``."""
        self._stop(out)
        self._closed = True
        kept = self._metadata
        stop: dict[str, Any] = {
            "stopReason": stop_reason(self._raw, self._finish, self._provider, self._calls > 0)
        }
        metadata: dict[str, Any] = {"usage": wire_usage(self._usage, kept)}
        others = top_level(kept)
        metadata["metrics"] = others.pop("metrics", None) or {"latencyMs": 0}
        for key, value in others.items():
            (stop if key in STOP_EVENT_KEYS else metadata)[key] = value
        out.append({"messageStop": stop})
        out.append({"metadata": metadata})

    # ---------------------------------------------------------------- blocks

    def _stop(self, out: list[dict[str, Any]]) -> None:
        current = self._current
        if current is not None:
            current.stopped = True
            self._current = None
            self._fast = None
            out.append({"contentBlockStop": {"contentBlockIndex": current.index}})

    def _open(self, key: Any, kind: str, out: list[dict[str, Any]]) -> tuple[_Wire, bool]:
        """The wire block of ``key`` (the open one, or a new one); whether it is new."""
        block = self._blocks.get(key)
        if block is not None and block is self._current:
            return block, False
        self._stop(out)
        block = self._blocks[key] = _Wire(self._count, kind)
        self._count += 1
        self._current = block
        return block, True

    def _key(self, block: Any) -> Any:
        """A block's merge key: ``(index, type)``.

        A text block without index after string content continues it (as
        ``ChunkAccumulator`` merges them); other blocks without index are their own.
        """
        if block.index is not None:
            return (block.index, block.type)
        string = self._blocks.get(("string",))
        if block.type == "text" and string is not None and string is self._current:
            return ("string",)
        self._unique += 1
        return ("unique", self._unique)

    def _block(self, block: Any, out: list[dict[str, Any]]) -> None:
        key = self._key(block)
        if isinstance(block, (TextBlock, RefusalBlock)):
            annotations = block.annotations if isinstance(block, TextBlock) else None
            self._text(key, block.text, annotations, out)
        elif isinstance(block, ReasoningBlock):
            self._reasoning(key, block, out)
        elif key in self._refused:
            return
        elif isinstance(block, ServerToolCallBlock):
            self._server_call(key, block, out)
        elif isinstance(block, ServerToolResultBlock):
            self._server_result(key, block, out)
        elif isinstance(block, ImageBlock):
            self._image(key, block, out)
        else:
            # ContentBlockDelta (botocore): text, toolUse, toolResult, reasoningContent,
            # citation and image only
            self._refuse(key, f"{block.type} block in a stream", block.index, out)

    def _text(self, key: Any, text: str, annotations: Any, out: list[dict[str, Any]]) -> None:
        wire, new = self._open(key, "text", out)
        if new and (
            key == _STRING_KEY or (len(key) == 2 and key[1] == "text" and type(key[0]) is int)
        ):
            # the block later text deltas continue (fast_text): string content, or
            # an indexed text block
            self._fast = _STRING if key == _STRING_KEY else key[0]
            self._fast_index = wire.index
            self._fast_tail = b'},"contentBlockIndex":%d}' % wire.index
        if text or (new and not annotations):
            # a block that opens empty still opens (Bedrock's own `{"text": ""}` delta)
            out.append(_delta(wire.index, {"text": text}))
        if annotations:
            carrier = TextBlock(text="", annotations=annotations)
            for citation in self._writer().citations(carrier, {})["citations"]:
                out.append(_delta(wire.index, {"citation": citation}))

    def _reasoning(self, key: Any, block: ReasoningBlock, out: list[dict[str, Any]]) -> None:
        """Reasoning text and signature deltas, or redacted content.

        Never both in one block (API reference, ReasoningContentBlockDelta); another
        provider's opaque values go through the unsupported policy.
        """
        ours = block.provider is None or block.provider == NAME
        text = block.text
        if text is None and block.summary:
            text = "\n".join(block.summary)
        signature = block.signature if ours else None
        encrypted = block.encrypted_content if ours else None
        opened = self._blocks.get(key)
        kind = opened.kind if opened is not None and opened is self._current else None
        if encrypted is not None and text is None and signature is None and kind != "reasoning":
            wire, _ = self._open(key, "redacted", out)
            out.append(_delta(wire.index, {"reasoningContent": {"redactedContent": encrypted}}))
            encrypted = None
        elif (text is not None or signature is not None) and kind != "redacted":
            wire, new = self._open(key, "reasoning", out)
            if text or (new and signature is None):
                out.append(_delta(wire.index, {"reasoningContent": {"text": text or ""}}))
            if signature is not None:
                out.append(_delta(wire.index, {"reasoningContent": {"signature": signature}}))
            text = signature = None
        if text is not None or signature is not None or encrypted is not None:
            self._refuse(None, "redacted reasoning beside reasoning text", block.index, out)
        if not ours and (block.signature is not None or block.encrypted_content is not None):
            self._refuse(None, f"{block.provider} reasoning's opaque value", block.index, out)

    def _server_call(self, key: Any, block: ServerToolCallBlock, out: list[dict[str, Any]]) -> None:
        extras = extras_of(block, NAME) if block.extras else {}
        if key in self._blocks:
            return  # a server tool call comes whole (its later fragments say nothing new)
        if block.provider not in (None, NAME) or block.id is None:
            self._refuse(key, f"server tool call {block.name!r}", block.index, out)
            return
        start: dict[str, Any] = {"toolUseId": block.id, "name": block.name}
        for name in _START_KEYS[2:]:
            if name in extras:
                start[name] = extras[name]
        start.setdefault("type", "server_tool_use")
        wire = self._start(key, "held", {"toolUse": start}, out)
        arguments = block.arguments if block.arguments is not None else {}
        out.append(_delta(wire, {"toolUse": {"input": dumps(arguments).decode()}}))

    def _server_result(
        self, key: Any, block: ServerToolResultBlock, out: list[dict[str, Any]]
    ) -> None:
        extras = extras_of(block, NAME) if block.extras else {}
        if key in self._blocks:
            return
        output = block.output
        if block.provider not in (None, NAME) or not isinstance(output, list | None):
            self._refuse(key, "server tool result", block.index, out)
            return
        start: dict[str, Any] = {"toolUseId": block.tool_call_id}
        if "type" in extras:
            start["type"] = extras["type"]
        status = block.status if block.status is not None else extras.get("status")
        if status is not None:
            start["status"] = status
        wire = self._start(key, "held", {"toolResult": start}, out)
        if output:
            out.append(_delta(wire, {"toolResult": copy_json(output)}))

    def _image(self, key: Any, block: ImageBlock, out: list[dict[str, Any]]) -> None:
        if key in self._blocks:
            return
        written = self._writer().media("image", block, 0, block.index or 0)
        if not written or "image" not in written[0]:
            self._placeholder(written, out)
            self._refused.add(key)
            return
        image = dict(written[0]["image"])
        wire = self._start(key, "held", {"image": {"format": image.pop("format")}}, out)
        out.append(_delta(wire, {"image": image}))

    def _call(self, call: ToolCallChunk, out: list[dict[str, Any]]) -> None:
        key = ("call", call.index) if call.index is not None else None
        block = self._blocks.get(key) if key is not None else None
        if block is None or (block is not self._current and call.id is not None):
            if key is None:
                self._unique += 1
                key = ("unique", self._unique)
            if not call.name:
                raise ConversionError(
                    f"tool call {call.index} starts without a name: Converse's "
                    "contentBlockStart needs it",
                    provider=NAME,
                )
            call_id = call.id if call.id is not None else self._reply.new_id(*TOOL_USE_ID)
            if not ID.fullmatch(call_id):
                # botocore ToolUseId: rewritten as encode rewrites it (rules.tool_ids)
                probe = ToolCall(id=call_id, name=call.name, arguments={})
                call_id = tool_ids([AssistantMessage(tool_calls=[probe])]).get(call_id, call_id)
            start: dict[str, Any] = {"toolUseId": call_id, "name": call.name}
            extras = extras_of(call, NAME) if call.extras else {}
            for name, value in extras.items():
                if name not in (CACHE_POINT, "input_json"):
                    start.setdefault(name, value)
            index = self._start(key, "tool", {"toolUse": start}, out)
            self._calls += 1
        elif block.stopped:
            raise ConversionError(
                f"tool call {call.index} continues after another block started: a "
                "Converse stream never goes back to a stopped block",
                provider=NAME,
            )
        else:
            index = block.index
        if call.arguments:
            out.append(_delta(index, {"toolUse": {"input": call.arguments}}))

    # --------------------------------------------------------------- helpers

    def _start(self, key: Any, kind: str, start: dict[str, Any], out: list[dict[str, Any]]) -> int:
        """Open a block that has a ``contentBlockStart``; its index."""
        self._stop(out)
        wire = self._blocks[key] = _Wire(self._count, kind)
        self._count += 1
        self._current = wire
        out.append({"contentBlockStart": {"contentBlockIndex": wire.index, "start": start}})
        return wire.index

    def _refuse(self, key: Any, what: str, index: int | None, out: list[dict[str, Any]]) -> None:
        """The unsupported policy for a block: a text block in its place, or nothing."""
        if key is not None:
            self._refused.add(key)
        text = self._reply.unsupported_content(what, block_index=index)
        self._placeholder([] if text is None else [{"text": text}], out)

    def _placeholder(self, written: list[dict[str, Any]], out: list[dict[str, Any]]) -> None:
        for wire in written:
            if "text" in wire:
                self._unique += 1
                block, _ = self._open(("unique", self._unique), "text", out)
                out.append(_delta(block.index, {"text": wire["text"]}))

    def _writer(self) -> Answer:
        answer = self._answer
        if answer is None:
            answer = self._answer = Answer(self._reply)
        return answer


class FramedWriter:
    """The writer of ``sse=True``: each event as its event-stream message (bytes).

    :class:`StreamWriter`'s events framed by :func:`~.eventstream.frame_event`; a text
    delta of the open text block (the hot path: most events of a stream) is framed
    straight from its text, byte for byte what ``frame_event`` writes of its event,
    without building the event first.
    """

    __slots__ = ("_heads", "_writer")

    def __init__(self, writer: StreamWriter) -> None:
        self._writer = writer
        self._heads = heads("contentBlockDelta")

    def feed(self, chunk: AssistantMessageChunk) -> list[Any]:
        """The messages of one chunk's events, in order."""
        writer = self._writer
        if writer._fast is not None:
            text = writer.fast_text(chunk)
            if text is not None:
                if not text:
                    return []
                try:
                    payload = _TEXT_DELTA + _dumps_text(text) + writer._fast_tail
                except TypeError:  # text orjson refuses (a lone surrogate)
                    return [frame_event(event) for event in writer.feed(chunk)]
                size, known = self._heads
                total = size + len(payload) + 16
                found = known.get(total)
                head, crc = found if found is not None else head_of("contentBlockDelta", total)
                return [head + payload + _UINT32(zlib.crc32(payload, crc))]
        return [frame_event(event) for event in writer._general(chunk)]

    def end(self) -> list[Any]:
        """The messages that close the stream."""
        return [frame_event(event) for event in self._writer.end()]


_TEXT_DELTA = b'{"delta":{"text":'
"""The start of a text delta's payload (orjson's compact form of the event dict)."""
_UINT32 = struct.Struct(">I").pack


def _no_orjson(text: str) -> bytes:
    raise TypeError("no orjson")  # pragma: no cover - without orjson: frame_event


_dumps_text: Any = _orjson.dumps if _orjson is not None else _no_orjson
"""A text as JSON (orjson's, called directly: the hot path); TypeError without orjson."""


def _call_index(call: ToolCallChunk) -> int:
    return call.index or 0


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"contentBlockDelta": {"delta": delta, "contentBlockIndex": index}}


def _merge(into: dict[str, Any], update: dict[str, Any]) -> None:
    """Merge kept response metadata as ``ChunkAccumulator`` does (nested dicts merge)."""
    for key, value in update.items():
        current = into.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            _merge(current, value)
        else:
            into[key] = copy_json(value)


def _ordered(content: list[Any], calls: list[ToolCallChunk]) -> list[Any]:
    """Blocks and tool calls of one chunk in wire order.

    A call goes at its ``index`` among the blocks, as ``encode`` puts a message's
    calls back in place; calls without an index go last.
    """
    placed = sorted((call for call in calls if call.index is not None), key=_call_index)
    out: list[Any] = []
    block = call = 0
    while block < len(content) or call < len(placed):
        position = placed[call].index if call < len(placed) else None
        if position is not None and (position <= len(out) or block == len(content)):
            out.append(placed[call])
            call += 1
        else:
            out.append(content[block])
            block += 1
    out.extend(call for call in calls if call.index is None)
    return out
