"""The stream writer: neutral chunks in, Messages API stream events out, as they come.

Messages API, "Streaming Messages": ``message_start`` (the message with empty
content), per content block ``content_block_start``, its ``content_block_delta``
events and ``content_block_stop``, then ``message_delta`` (stop reason, cumulative
usage) and ``message_stop``. Blocks are numbered 0, 1, 2 ... in the order they
open, tool calls included (one index space).

A neutral block (or tool call) is known by its ``index`` (and kind): its first
chunk opens a wire block, later ones extend it. Opening a block closes the blocks
open before it, as the API streams them one after another; tool-use blocks stay
open while other tool calls open, so that fragments of parallel calls that come
interleaved (OpenAI Chat) still reach their call. Text or thinking for a block
already closed opens a new block. Only what the API itself sends at the end is held:
a thinking block's signature (one ``signature_delta`` before its stop), the stop
reason and the final usage.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    ContentBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    TextBlock,
)
from chatschema_models.tool import ToolCallChunk
from chatschema_models.usage import Usage

from chatschema._usage import add_usage
from chatschema.errors import ConversionError
from chatschema.providers._common.respond import Reply, dumps, frame_named
from chatschema.providers.anthropic.replies import (
    ID_LENGTH,
    MESSAGE_ID,
    SERVER_TOOL_USE_ID,
    TOOL_USE_ID,
    UNKNOWN_DELTAS,
    block_wire,
    citations,
    dumps_text,
    foreign,
    metadata_of,
    reasoning_text,
    split_metadata,
    stop_reason,
    usage_wire,
    with_extras,
)
from chatschema.providers.anthropic.wire import NAME

__all__ = ["Writer"]

_TEXT_DELTA: Final = frozenset({"type", "text", "index"})
_DELTA_CHUNKS: Final = (frozenset({"role", "content"}), frozenset({"content"}))
_STOP: Final = "content_block_stop"
_DELTA: Final = "content_block_delta"
_TEXT_HEAD: Final = (
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":%d,'
    b'"delta":{"type":"text_delta","text":'
)
_TEXT_END: Final = b"}}\n\n"


class _Text(dict[str, Any]):
    """A text delta in SSE mode, framed by :meth:`Writer.frame` (no dict built).

    ``head``: the frame's bytes up to the text (``frame_named`` of the delta event
    would write the same).
    """

    __slots__ = ("head", "text")
    head: bytes
    text: str


class _Block:
    """A wire block of the stream: its index and what its deltas need."""

    __slots__ = ("foreign", "index", "kind", "open", "placeholder", "refused", "signature")

    def __init__(self, index: int, kind: str) -> None:
        self.index = index
        self.kind = kind  # "text", "thinking", "tool_use" or "whole" (no deltas)
        self.open = True
        self.foreign = False  # another provider's reasoning: its opaque values refused
        self.refused = False  # the policy applied already
        self.placeholder: str | None = None  # written after the block closes
        self.signature: list[str] = []  # held until the block closes


class Writer:
    """The per-chunk event writer of :func:`.response.encode_stream` (``EventWriter``)."""

    def __init__(self, reply: Reply, *, sse: bool = False) -> None:
        self.reply = reply
        self.sse = sse  # text deltas as _Text events, which only frame() writes
        self.started = False
        self.done = False
        self.blocks: dict[tuple[Any, ...], _Block] = {}  # by neutral (index, kind)
        self.open: list[_Block] = []
        self.count = 0  # wire blocks opened
        self.usage: Usage | None = None
        self.raw_finish: str | None = None
        self.finish: str | None = None
        self.provider: str | None = None
        self.metadata: dict[str, Any] = {}
        self.out: list[dict[str, Any]] = []
        self.text_key: int | None = None  # the neutral index of the open text block
        self.text_at = -1  # its wire index (-1: no text block is open)
        self.text_head = b""  # its text deltas' SSE frame up to the text

    # ------------------------------------------------------------------ protocol

    def feed(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """The events of one chunk, in order."""
        if chunk.__pydantic_fields_set__ in _DELTA_CHUNKS:
            # the fast path: a text delta of the open text block (what the codecs'
            # decode_stream make per text event), its event dict built directly
            content = chunk.__dict__["content"]
            if type(content) is str and self.text_at >= 0 and self.text_key is None:
                return self.text_delta(content) if content else []
            if type(content) is list and len(content) == 1:
                block = content[0]
                if type(block) is TextBlock and self.text_at >= 0:
                    values = block.__dict__
                    if (
                        values["index"] == self.text_key
                        and block.__pydantic_fields_set__ <= _TEXT_DELTA
                    ):
                        text = values["text"]
                        return self.text_delta(text) if text else []
        if self.done:
            raise ConversionError("a chunk after the one marked last", provider=NAME)
        out = self.out = []
        if not self.started:
            self.started = True
            usage = chunk.usage
            metadata = metadata_of(chunk.response_metadata)
            out.append(self.message_start(chunk.response_id, chunk.model, usage, metadata))
        self.take(chunk)
        content = chunk.content
        calls = chunk.tool_call_chunks or []
        if isinstance(content, str):
            if content:
                self.text(TextBlock(text=content), 0)
            content = []
        for position, item in self.ordered(content, calls):
            if isinstance(item, ToolCallChunk):
                self.call(item)
            else:
                self.block(item, position)
        if chunk.chunk_position == "last":
            self.close_message()
        return out

    def text_delta(self, text: str) -> list[dict[str, Any]]:
        """The event of a text delta of the open text block, built directly."""
        if self.sse:
            event = _Text()
            event.head, event.text = self.text_head, text
            return [event]
        delta = {"type": "text_delta", "text": text}
        return [{"type": _DELTA, "index": self.text_at, "delta": delta}]

    def frame(self, event: dict[str, Any]) -> bytes:
        """An event's SSE frame (``frame_named``); a text delta's from its head, kept."""
        if type(event) is _Text:
            return event.head + dumps(event.text) + _TEXT_END
        return frame_named(event)

    def end(self) -> list[dict[str, Any]]:
        """The closing events, when no chunk was marked last (none if one was)."""
        out = self.out = []
        if not self.started:
            self.started = True
            out.append(self.message_start(None, None, None, {}))
        if not self.done:
            self.close_message()
        return out

    # ------------------------------------------------------------- message level

    def message_start(
        self,
        response_id: str | None,
        model: str | None,
        usage: Usage | None,
        metadata: Mapping[str, Any],
    ) -> dict[str, Any]:
        """``message_start``: the message without content, with the usage so far."""
        top, extra = split_metadata(metadata)
        message: dict[str, Any] = {
            "id": response_id or self.reply.new_id(MESSAGE_ID, ID_LENGTH),
            "type": "message",
            "role": "assistant",
            "model": self.reply.model_of(model),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,  # Messages API: both come in message_delta
        }
        for key, value in top.items():
            message.setdefault(key, value)
        message["usage"] = usage_wire(usage, extra)
        return {"type": "message_start", "message": message}

    def take(self, chunk: AssistantMessageChunk) -> None:
        """Keep what the stream's end says: usage, finish reason, metadata."""
        usage = chunk.usage
        if usage is not None:
            if self.usage is None or chunk.usage_mode == "cumulative":
                self.usage = usage
            else:
                self.usage = add_usage(self.usage, usage)
        if chunk.raw_finish_reason is not None:
            self.raw_finish = chunk.raw_finish_reason
        if chunk.finish_reason is not None:
            self.finish = chunk.finish_reason
        if self.provider is None:
            self.provider = chunk.provider
        metadata = metadata_of(chunk.response_metadata)
        for key, value in metadata.items():
            if key == UNKNOWN_DELTAS and isinstance(value, dict):
                # deltas decode_stream did not know, written back as they came
                for kept in value.values():
                    if isinstance(kept, dict) and "delta" in kept:
                        event = {"type": _DELTA, "index": kept.get("index"), "delta": kept["delta"]}
                        self.out.append(event)
            else:
                _merge(self.metadata, key, value)

    def close_message(self) -> None:
        """Close the open blocks; ``message_delta`` and ``message_stop``."""
        self.close(self.open)
        top, extra = split_metadata(self.metadata)
        sequence = top.get("stop_sequence")
        delta: dict[str, Any] = {
            "stop_reason": stop_reason(self.raw_finish, self.finish, self.provider, sequence),
            "stop_sequence": sequence,
        }
        for key, value in top.items():
            delta.setdefault(key, value)
        usage = usage_wire(self.usage, extra)
        self.out.append({"type": "message_delta", "delta": delta, "usage": usage})
        self.out.append({"type": "message_stop"})
        self.done = True

    # ------------------------------------------------------------------- blocks

    def ordered(
        self, blocks: list[ContentBlock], calls: list[ToolCallChunk]
    ) -> list[tuple[int, ContentBlock | ToolCallChunk]]:
        """A chunk's blocks and tool-call fragments in wire order (with positions).

        Blocks keep their order; a new call goes at its ``index`` (a position in
        the wire content, as :func:`.decode.decode_response` records it), counted
        from the blocks written before this chunk.
        """
        items: list[tuple[int, ContentBlock | ToolCallChunk]] = list(enumerate(blocks))
        if not calls:
            return items
        if not items:
            return list(enumerate(calls))
        out: list[tuple[int, ContentBlock | ToolCallChunk]] = []
        placed = sorted(
            enumerate(calls),
            key=lambda item: item[1].index if item[1].index is not None else 1 << 62,
        )
        base = self.count
        block = 0
        for position, call in placed:
            at = call.index - base if call.index is not None else len(items) + len(calls)
            while block < len(items) and len(out) < at:
                out.append(items[block])
                block += 1
            out.append((position, call))
        out.extend(items[block:])
        return out

    def opened(self, key: tuple[Any, ...] | None, kind: str, start: dict[str, Any]) -> _Block:
        """Open a wire block (closing those open before it): ``content_block_start``."""
        if kind == "tool_use":
            self.close([state for state in self.open if state.kind != "tool_use"])
        else:
            self.close(self.open)
        state = _Block(self.count, kind)
        self.count += 1
        if key is not None:
            self.blocks[key] = state
        self.open.append(state)
        self.out.append(
            {"type": "content_block_start", "index": state.index, "content_block": start}
        )
        return state

    def close(self, states: list[_Block]) -> None:
        """``content_block_stop`` for ``states`` (a held signature first)."""
        if not states:
            return
        closed = {id(state) for state in states}
        self.open = [state for state in self.open if id(state) not in closed]
        out = self.out
        for state in sorted(states, key=lambda state: state.index):
            if state.signature:
                delta = {"type": "signature_delta", "signature": "".join(state.signature)}
                out.append({"type": _DELTA, "index": state.index, "delta": delta})
                state.signature = []
            out.append({"type": _STOP, "index": state.index})
            state.open = False
            if state.index == self.text_at:
                self.text_at = -1
            if state.placeholder is not None:
                text, state.placeholder = state.placeholder, None
                self.whole({"type": "text", "text": text})

    def whole(self, wire: dict[str, Any]) -> None:
        """A block that comes complete: opened and closed at once.

        A ``server_tool_use`` streams its input as JSON (``input_json_delta``), as
        the API does; a text block its text (``text_delta``).
        """
        kind = wire.get("type")
        if kind == "server_tool_use" or (kind == "text" and "citations" not in wire):
            field = "input" if kind == "server_tool_use" else "text"
            value = wire[field]
            start = {**wire, field: {} if field == "input" else ""}
            state = self.opened(None, "whole", start)
            if value:
                delta = (
                    {"type": "input_json_delta", "partial_json": dumps_text(value)}
                    if field == "input"
                    else {"type": "text_delta", "text": value}
                )
                self.out.append({"type": _DELTA, "index": state.index, "delta": delta})
        elif kind == "compaction":  # as the API streams it: its fields in one delta
            fields = {key: wire.get(key) for key in ("content", "encrypted_content")}
            start = {key: value for key, value in wire.items() if key not in fields}
            state = self.opened(None, "whole", {**start, "content": None})
            delta = {"type": "compaction_delta", **fields}
            self.out.append({"type": _DELTA, "index": state.index, "delta": delta})
        else:
            state = self.opened(None, "whole", wire)
        self.close([state])

    def block(self, block: ContentBlock, position: int) -> None:
        """One content block of a chunk: opens a wire block, or extends its own."""
        where = block.index if block.index is not None else position
        if isinstance(block, (TextBlock, RefusalBlock)):
            self.text(block, where)
        elif isinstance(block, ReasoningBlock):
            self.reasoning(block, where)
        else:
            made = None
            if isinstance(block, ServerToolCallBlock) and block.id is None:
                made = self.reply.new_id(SERVER_TOOL_USE_ID, ID_LENGTH)
            for wire in block_wire(block, self.reply, where, made):
                self.whole(wire)

    def text(self, block: TextBlock | RefusalBlock, where: int) -> None:
        """Text: citations (``citations_delta``), then the text (``text_delta``)."""
        key = (block.index, block.type)
        state = self.blocks.get(key)
        annotated = isinstance(block, TextBlock) and block.annotations is not None
        if state is None or not state.open:
            start: dict[str, Any] = {"type": "text", "text": ""}
            if annotated:
                start = {"citations": [], **start}  # as the API starts a cited block
            state = self.opened(key, "text", with_extras(start, block))
            if block.type == "text":
                self.text_key, self.text_at = block.index, state.index
                self.text_head = _TEXT_HEAD % state.index
        index = state.index
        if annotated:
            assert isinstance(block, TextBlock)
            for citation in citations(block, self.reply, where):
                delta = {"type": "citations_delta", "citation": citation}
                self.out.append({"type": _DELTA, "index": index, "delta": delta})
        if block.text:
            delta = {"type": "text_delta", "text": block.text}
            self.out.append({"type": _DELTA, "index": index, "delta": delta})

    def reasoning(self, block: ReasoningBlock, where: int) -> None:
        """Thinking: ``thinking_delta``, the signature held to the block's end.

        Redacted thinking (Anthropic's encrypted content alone) comes whole.
        """
        key = (block.index, "reasoning")
        state = self.blocks.get(key)
        if state is None or not state.open:
            if (
                not foreign(block)
                and block.encrypted_content is not None
                and block.signature is None
                and not block.text
            ):
                wire = {"type": "redacted_thinking", "data": block.encrypted_content}
                self.whole(with_extras(wire, block))
                return
            start = {"type": "thinking", "thinking": "", "signature": ""}
            state = self.opened(key, "thinking", with_extras(start, block))
            state.foreign = foreign(block)
        text = reasoning_text(block)
        if text:
            delta = {"type": "thinking_delta", "thinking": text}
            self.out.append({"type": _DELTA, "index": state.index, "delta": delta})
        opaque = block.signature is not None or block.encrypted_content is not None
        if opaque and (state.foreign or block.encrypted_content is not None):
            if not state.refused:
                state.refused = True
                what = (
                    f"{block.provider} reasoning signature or encrypted content"
                    if state.foreign
                    else "redacted thinking data inside a thinking block"
                )
                state.placeholder = self.reply.unsupported_content(what, block_index=where)
        elif block.signature:
            state.signature.append(block.signature)

    def call(self, fragment: ToolCallChunk) -> None:
        """A tool-call fragment: opens its ``tool_use``, or extends its input JSON."""
        key = ("call", fragment.index) if fragment.index is not None else None
        state = self.blocks.get(key) if key is not None else None
        if state is None:
            start = {
                "type": "tool_use",
                "id": fragment.id or self.reply.new_id(TOOL_USE_ID, ID_LENGTH),
                "name": fragment.name or "",
                "input": {},
            }
            state = self.opened(key, "tool_use", with_extras(start, fragment))
        elif not state.open:
            raise ConversionError(
                f"a fragment of tool call {fragment.index} after its tool_use block "
                "closed (another block came between)",
                provider=NAME,
            )
        if fragment.arguments:
            delta = {"type": "input_json_delta", "partial_json": fragment.arguments}
            self.out.append({"type": _DELTA, "index": state.index, "delta": delta})


def _merge(into: dict[str, Any], key: str, value: Any) -> None:
    """Deep-merge one metadata entry, as the chunk accumulator merges metadata."""
    current = into.get(key)
    if isinstance(current, dict) and isinstance(value, Mapping):
        merged = dict(current)
        for name, item in value.items():
            _merge(merged, name, item)
        into[key] = merged
    else:
        into[key] = value
