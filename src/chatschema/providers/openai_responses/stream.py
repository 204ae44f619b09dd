"""``decode_stream``: a streamed ``Response`` as chunks, event by event."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Callable, Iterable, Iterator
from typing import Any, Final, NoReturn, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    ContentBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    TextBlock,
)
from chatschema_models.tool import ToolCallChunk

from chatschema._json import copy_json
from chatschema._wire import content_chunk, text_block
from chatschema.providers._common.drive import Incomplete, counted, drive, incomplete_policy
from chatschema.providers._common.replay import provenance
from chatschema.providers.openai_responses.blocks import (
    decode_annotation,
    decode_code_interpreter,
    decode_compaction,
    decode_function_call,
    decode_output_message,
    decode_reasoning,
    decode_web_search,
    non_standard_item,
    plain,
    plain_output_part,
)
from chatschema.providers.openai_responses.decode import response_fields, sdk
from chatschema.providers.openai_responses.ordering import Gate
from chatschema.providers.openai_responses.wire import (
    CODE_INTERPRETER,
    NAME,
    READ,
    STREAM_APPENDED,
    STREAM_EXTENDED,
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
    """Decode a streamed ``Response`` into ``AssistantMessageChunk`` objects, lazily.

    ``events`` are the stream's events as parsed JSON, the SDK's
    ``ResponseStreamEvent`` objects, or the raw SSE body (``bytes`` or ``str`` pieces
    cut anywhere), sync or async: an async iterable (the SDK's ``AsyncStream``,
    httpx's ``aiter_bytes()``, an async generator) gives an async generator of the
    same chunks (``async for``; see ``docs/async.md``). Reading stops at
    ``response.completed`` / ``response.incomplete``; whenever decoding stops before
    the source's end (that, the caller breaking off, an error), the source is
    closed. Chunks are yielded as events arrive; assembled
    (``ChunkAccumulator``, ``merge_chunks`` or ``+``) they make exactly the message
    :func:`decode_response` makes of the final ``Response``:

    - output items are keyed by ``output_index`` (or ``item_id``); each content
      block gets ``index`` = its position among the reply's blocks and calls, in the
      order the items come, and each ``function_call`` a ``ToolCallChunk`` with that
      position as ``index`` (``call_id`` and ``name`` from the item, the argument
      deltas as they come, keyed by the ``fc_`` item id, never by ``call_id``);
    - ``output_text`` / ``refusal`` deltas and ``reasoning_text`` deltas stream as
      text; annotations as they are added; reasoning summary parts when each is
      done; the item's other fields (status, ``phase``, logprobs ...) and built-in
      tool items (``web_search_call`` and every other item, as ``decode_response``
      has them) come once, with ``output_item.done``; a reasoning item's
      ``encrypted_content`` comes with ``response.completed``, as the final
      ``Response`` has it (the API issues it again there, re-encrypted), or at the
      end of a stream that stops before;
    - ``response.created`` / ``in_progress`` / ``queued`` give model, response id,
      status and metadata; ``response.completed`` / ``response.incomplete`` the
      finish reason and ``usage`` (``usage_mode="cumulative"``) on the last chunk
      (``chunk_position="last"``), after any output item the stream did not finish.

    A stream that ends before ``response.completed`` / ``response.incomplete``
    raises ``StreamIncompleteError`` once its chunks are out; with
    ``incomplete="keep"`` it ends instead with a chunk whose
    ``response_metadata["chatschema"]["incomplete"]`` says so.

    Raises:
        ConversionError: for ``error`` and ``response.failed`` events (naming the
            error's message) and for malformed events; unknown event types are
            skipped.
        StreamIncompleteError: for a stream that ended before its final event
            (under ``incomplete="error"``).
        OptionError: for an ``incomplete`` other than ``"error"`` or ``"keep"``.
    """
    policy = incomplete_policy(incomplete)
    stream = _Stream()

    def text_chunk(
        cls: type[AssistantMessageChunk], delta: tuple[str, int]
    ) -> AssistantMessageChunk:
        """The chunk of a text delta the fast path read."""
        return content_chunk(cls, [text_block(TextBlock, *delta)])

    return drive(
        events,
        provider=NAME,
        fast=stream.text_delta,  # the fast path (tests/test_streaming_fast.py)
        build=text_chunk,
        step=stream.event,
        end=stream.flush,
        done=lambda: stream.finished,
        missing=stream.missing,
        incomplete=policy,
    )


# ========================================================================= the state


class _StreamBlock:
    """A content block of the stream: its position and how much of it was sent."""

    __slots__ = ("counts", "first", "position", "sent", "started", "type")

    def __init__(self, position: int, kind: str) -> None:
        self.position = position
        self.first = False  # the reply's first content block
        self.type = kind  # "" for a place kept for a block decoded at the item's end
        self.sent: dict[str, int] = {}  # appended field: characters sent
        self.counts: dict[str, int] = {}  # extended field: entries sent
        self.started = False

    def rest(self, final: ContentBlock) -> ContentBlock | None:
        """What ``final`` adds to what was sent: all of it if nothing was."""
        if final.type != self.type:
            if self.started:
                return None  # the item changed its mind: what was sent stays
            self.type = final.type
        self.started = True
        appended = STREAM_APPENDED.get(self.type, ())
        values = final.__dict__
        fields: dict[str, Any] = {"index": self.position}
        for name in final.model_fields_set:
            value = values[name]
            if value is None or name in ("type", "index"):
                continue
            if name in appended:
                sent = self.sent.get(name)
                if sent is None or len(value) > sent:
                    fields[name] = value[sent or 0 :]
                    self.sent[name] = len(value)
            elif name in STREAM_EXTENDED:
                count = self.counts.get(name)
                if count is None or len(value) > count:
                    fields[name] = list(value[count or 0 :])
                    self.counts[name] = len(value)
            else:
                fields[name] = value  # the first value wins: sent again, harmlessly
        if self.type in ("text", "refusal"):
            fields.setdefault("text", "")  # required: an empty delta
        block: ContentBlock = READ.build(type(final), fields)
        return block


class _StreamItem:
    """One output item of the stream."""

    __slots__ = (
        "arguments",
        "block",
        "call",
        "done",
        "id",
        "index",
        "kind",
        "parts",
        "result",
        "texts",
        "whole",
    )

    def __init__(self, index: int, kind: str, item_id: str | None) -> None:
        self.index = index  # output_index
        self.kind = kind  # "message" (assistant), "function_call", "reasoning", or the type
        self.id = item_id
        self.parts: dict[int, _StreamBlock] = {}  # message: blocks by content index
        self.block: _StreamBlock | None = None  # any other item's one block
        self.result: _StreamBlock | None = None  # code_interpreter_call: its result block
        self.whole = False  # message: decoded whole at its end, nothing streamed
        self.call: int | None = None  # function_call: its position
        self.arguments = 0  # function_call: argument characters sent
        self.texts = 0  # reasoning: content parts begun
        self.done = False


class _Stream:
    """The state of one decode_stream: O(1) per event besides the streamed data."""

    def __init__(self) -> None:
        self.items: dict[int, _StreamItem] = {}
        self.by_id: dict[str, _StreamItem] = {}
        self.positions = 0  # blocks and calls placed so far
        self.placed_block = False  # a content block was placed
        self.calls = False  # a function_call came (finish reason "tool_calls")
        self.refusal = False  # a refusal part came (finish reason "content_filter")
        self.started = False  # a chunk was yielded (it carried `provider`)
        self.finished = False
        self.gate = Gate()  # chunks go out in the order of their positions
        # reasoning items' encrypted_content, held until response.completed: the API
        # re-encrypts it there, and the final Response is what decode_response reads
        self.sealed: dict[int, tuple[_StreamBlock, str]] = {}
        self.model: str | None = None  # the response's, for its opaque blocks' provenance

    def missing(self, done_line: bool) -> tuple[str, str] | None:
        """What the stream ended without (its final event), if anything: drive's check."""
        if self.finished:
            return None
        items = self.items.values()
        calls = sum(1 for item in items if item.kind == "function_call")
        unfinished = sum(1 for item in items if not item.done)
        detail = f"{counted(len(self.items), 'output item')}, {unfinished} not done"
        if calls:
            detail += f", {counted(calls, 'function call')} among them"
        return "response.completed", detail

    # ----------------------------------------------------------------- plumbing

    def take(self) -> int:
        """The next position among the reply's blocks and calls."""
        position = self.positions
        self.positions += 1
        self.gate.place(position)
        return position

    def new_block(self, kind: str) -> _StreamBlock:
        """Place a new content block."""
        block = _StreamBlock(self.take(), kind)
        block.first = not self.placed_block
        self.placed_block = True
        return block

    def chunk(self, **fields: Any) -> AssistantMessageChunk:
        """A chunk; the first one names the provider."""
        if not self.started:
            self.started = True
            fields.setdefault("provider", NAME)
        return READ.build(AssistantMessageChunk, fields)

    def blocks(self, blocks: list[ContentBlock]) -> list[AssistantMessageChunk]:
        """One chunk of content blocks, or none; opaque blocks record the model."""
        if self.model is not None:
            blocks = [
                block.model_copy(update=extra)
                if (extra := provenance(block, self.model))
                else block
                for block in blocks
            ]
        return [self.chunk(content=blocks)] if blocks else []

    def text_delta(self, data: Any) -> tuple[str, int] | None:
        """The text and block position of an event that only adds text to a block.

        The fast path of :func:`decode_stream`: a ``response.output_text.delta`` of the
        exact shape the API sends (scalars, and an empty ``logprobs``: its depth is
        bounded) for a text part already started, read as :meth:`output_text` reads
        it. Anything else is None, for :meth:`event`.
        """
        if type(data) is not dict or data.get("type") != "response.output_text.delta":
            return None
        text = data.get("delta")
        index = data.get("output_index")
        part = data.get("content_index")
        item_id = data.get("item_id")
        if (
            type(text) is not str
            or not text
            or type(index) is not int
            or type(part) is not int
            or not (item_id is None or (type(item_id) is str and item_id))
            or not self.started
            or self.gate.held  # (chunks wait for an earlier item: this one waits too)
        ):
            return None
        state = self.items.get(index)
        if state is None or state.kind != "message" or state.done or state.whole:
            return None
        block = state.parts.get(part)
        if block is None or block.type != "text":
            return None
        for value in data.values():
            if type(value) not in _SCALARS and (type(value) is not list or value):
                return None  # (logprobs: [] unless asked for)
        block.sent["text"] += len(text)
        return text, block.position

    def event(self, raw: Any) -> list[AssistantMessageChunk]:
        """The chunks of one event (none for event types this codec does not need)."""
        data = READ.json(raw)
        if not isinstance(data, dict):
            READ.fail(f"a stream event must be an object, not {type(data).__name__}")
        kind = data.get("type")
        if not isinstance(kind, str):
            READ.fail("a stream event needs a string `type`")
        handler = _STREAM_HANDLERS.get(kind)
        if handler is None:
            return []  # a type this codec does not know (or need): skipped
        return self.gate.release(handler(self, data))

    # -------------------------------------------------------- response events

    def response_fields(self, data: dict[str, Any]) -> dict[str, Any]:
        """The message fields of the event's response (all but its output)."""
        response = _event_object(data, "response")
        head = {key: copy_json(value) for key, value in response.items() if key != "output"}
        fields = response_fields(head, calls=self.calls, refusal=self.refusal)
        if "usage" in fields:
            fields["usage_mode"] = "cumulative"  # the response's totals
        return fields

    def snapshot(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.created`` / ``in_progress`` / ``queued``: model, id, status."""
        fields = self.response_fields(data)
        self.model = fields.get("model", self.model)
        return [self.chunk(**fields)]

    def final(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.completed`` / ``incomplete``: unfinished items, then the last chunk."""
        output = _event_object(data, "response").get("output")
        chunks: list[AssistantMessageChunk] = []
        if output is not None:
            if not isinstance(output, list):
                READ.fail("the final response's `output` must be a list")
            for index, item in enumerate(output):
                key = self.final_key(index, sdk(item))
                state = self.items.get(key)
                if state is None or not state.done:  # items the stream did not finish
                    chunks += self.item_done(index, item, key)
                sealed = self.sealed.pop(key, None)
                final = sdk(item).get("encrypted_content") if isinstance(item, dict) else None
                if sealed is not None:
                    chunks += self.unseal(sealed[0], final if isinstance(final, str) else sealed[1])
                elif isinstance(final, str) and state is not None and state.done:
                    # an item done without the encrypted_content the Response has
                    block = state.block
                    if (
                        state.kind == "reasoning"
                        and block is not None
                        and block.type == "reasoning"
                        and "encrypted_content" not in block.sent
                    ):
                        chunks += self.unseal(block, final)
        chunks += self.flush()
        chunks.append(self.chunk(chunk_position="last", **self.response_fields(data)))
        self.finished = True
        return chunks

    def flush(self) -> list[AssistantMessageChunk]:
        """The encrypted_content still held (a stream that ended before its Response)."""
        chunks: list[AssistantMessageChunk] = []
        for block, value in self.sealed.values():
            chunks += self.unseal(block, value)
        self.sealed.clear()
        return chunks

    def unseal(self, block: _StreamBlock, value: str) -> list[AssistantMessageChunk]:
        """A reasoning block's encrypted_content, sent once."""
        block.sent["encrypted_content"] = len(value)
        reasoning = ReasoningBlock(index=block.position, encrypted_content=value)
        return self.blocks([reasoning])

    def final_key(self, index: int, item: Any) -> int:
        """The stream's key of the final response's item at ``index``.

        By id first: a stream whose ``output_index`` skipped a number (or counted an
        item the response leaves out) has the item under another index, which must
        not make it twice. A new item whose index the stream gave to another one
        gets a key of its own.
        """
        item_id = item.get("id") if isinstance(item, dict) else None
        if isinstance(item_id, str) and item_id:
            state = self.by_id.get(item_id)
            if state is not None:
                return state.index
        state = self.items.get(index)
        if state is None or state.id is None or state.id == item_id:
            return index
        return -1 - index  # (event indexes are never negative)

    def failed(self, data: dict[str, Any]) -> NoReturn:
        """``response.failed``: raise with the response's error."""
        response = data.get("response")
        error = response.get("error") if isinstance(response, dict) else None
        _stream_error(error if error else {"message": "the response failed"})

    def error(self, data: dict[str, Any]) -> NoReturn:
        """``error``: raise with it."""
        inner = data.get("error")
        _stream_error(inner if isinstance(inner, dict) else data)

    # ------------------------------------------------------------ item events

    def added(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.output_item.added``."""
        index = _event_index(data, "output_index")
        item = _event_object(data, "item")
        if index in self.items:
            return []  # announced twice: the first one counts
        return self.start(index, item)

    def start(self, index: int, item: dict[str, Any]) -> list[AssistantMessageChunk]:
        """A new output item: its place, and what can be sent before it is done."""
        kind = _item_kind(item)
        item_id = item.get("id")
        if not isinstance(item_id, str) or not item_id:
            item_id = None
        state = self.items[index] = _StreamItem(index, kind, item_id)
        if item_id is not None:
            self.by_id.setdefault(item_id, state)
        if kind == "message":
            if item_id is None:  # no id: decoded whole, as one block, at the end
                state.whole = True
                state.block = self.new_block("")
            return []
        if kind == "function_call":
            self.calls = True
            state.call = self.take()
            fragment: dict[str, Any] = {"index": state.call}
            for key, name in (("call_id", "id"), ("name", "name")):
                value = item.get(key)
                if isinstance(value, str) and value:
                    fragment[name] = value
            arguments = item.get("arguments")
            if isinstance(arguments, str) and arguments:
                fragment["arguments"] = arguments
                state.arguments = len(arguments)
            if item_id is not None:  # the fc_ item id now (a writer of events needs it)
                fragment["extras"] = {NAME: {"id": item_id}}
            return [self.chunk(tool_call_chunks=[ToolCallChunk(**fragment)])]
        state.block = self.new_block("")
        if kind == "reasoning" and item_id is not None:
            state.block.type = "reasoning"
            state.block.started = True
            block = READ.build(
                ReasoningBlock, {"index": state.block.position, "id": item_id, "provider": NAME}
            )
            return self.blocks([block])
        if kind == "web_search_call":
            state.block.type = "server_tool_call"
            state.block.started = True
            fields: dict[str, Any] = {"index": state.block.position, "name": "web_search"}
            if item_id is not None:
                fields["id"] = item_id
            return self.blocks([READ.build(ServerToolCallBlock, fields)])
        if kind == "code_interpreter_call" and item_id is not None:
            # the call now (its code, which streams as deltas, comes whole when it is
            # done), its result block placed after it, sent when it is done
            state.block.type = "server_tool_call"
            state.block.started = True
            state.result = self.new_block("")
            fields = {"index": state.block.position, "id": item_id}
            fields.update(name=CODE_INTERPRETER, provider=NAME)
            return self.blocks([READ.build(ServerToolCallBlock, fields)])
        return []  # any other item: one block, whole, when it is done

    def located(
        self, data: dict[str, Any], hint: str
    ) -> tuple[_StreamItem | None, list[AssistantMessageChunk]]:
        """The item an event is about (by ``output_index``, else ``item_id``).

        An item the stream did not announce is started as a ``hint`` item. Returns
        ``None`` for an item of another kind or one already done (late deltas).
        """
        item_id = data.get("item_id")
        if item_id is not None and (not isinstance(item_id, str) or not item_id):
            READ.fail(f"{data['type']}: `item_id` must be a non-empty string")
        chunks: list[AssistantMessageChunk] = []
        if data.get("output_index") is None and item_id is not None:
            state = self.by_id.get(item_id)
            if state is None:
                READ.fail(f"{data['type']} names an unknown output item {item_id!r}")
        else:
            index = _event_index(data, "output_index")
            state = self.items.get(index)
            if state is None:
                stub: dict[str, Any] = {"type": hint}
                if item_id is not None:
                    stub["id"] = item_id
                if hint == "message":
                    stub["role"] = "assistant"
                chunks = self.start(index, stub)
                state = self.items[index]
        if state.kind != hint or state.done:
            return None, chunks
        return state, chunks

    def part(
        self, state: _StreamItem, data: dict[str, Any], kind: str, *, plain: bool = True
    ) -> tuple[_StreamBlock | None, list[ContentBlock]]:
        """The block of a message's content part, started if new."""
        position = _event_index(data, "content_index")
        if state.whole:
            return None, []
        block = state.parts.get(position)
        if block is not None:
            if block.type != kind:
                READ.fail(f"{data['type']}: content part {position} is a {block.type} part")
            return block, []
        if not plain:
            if not state.parts:  # decode_response keeps such an item whole
                state.whole = True
                state.block = self.new_block("")
            return None, []
        block = state.parts[position] = self.new_block(kind)
        block.sent["text"] = 0
        block.started = True
        fields: dict[str, Any] = {"index": block.position, "text": ""}
        if state.id is not None:
            fields["id"] = state.id
        if kind == "refusal":
            self.refusal = True
        cls: type[TextBlock | RefusalBlock] = RefusalBlock if kind == "refusal" else TextBlock
        return block, [READ.build(cls, fields)]

    def part_added(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.content_part.added``: a message part, or a reasoning text part."""
        part = _event_object(data, "part")
        if part.get("type") == "reasoning_text":
            state, chunks = self.located(data, "reasoning")
            if state is not None:
                chunks += self.blocks(
                    self.reasoning(state, _event_index(data, "content_index"), "")
                )
            return chunks
        state, chunks = self.located(data, "message")
        if state is not None:
            kind = "refusal" if part.get("type") == "refusal" else "text"
            _, blocks = self.part(state, data, kind, plain=plain_output_part(part))
            chunks += self.blocks(blocks)
        return chunks

    def text(self, data: dict[str, Any], kind: str) -> list[AssistantMessageChunk]:
        """A text or refusal delta of a message part."""
        delta = _event_str(data, "delta")
        state, chunks = self.located(data, "message")
        if state is None:
            return chunks
        block, blocks = self.part(state, data, kind)
        if block is not None and delta:
            block.sent["text"] += len(delta)
            cls: type[TextBlock | RefusalBlock] = RefusalBlock if kind == "refusal" else TextBlock
            blocks.append(READ.build(cls, {"index": block.position, "text": delta}))
        return chunks + self.blocks(blocks)

    def output_text(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.output_text.delta``."""
        return self.text(data, "text")

    def refusal_text(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.refusal.delta``."""
        return self.text(data, "refusal")

    def annotation(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.output_text.annotation.added``: the next annotation, once."""
        state, chunks = self.located(data, "message")
        if state is None:
            return chunks
        block, blocks = self.part(state, data, "text")
        if block is not None:
            count = block.counts.get("annotations", 0)
            number = data.get("annotation_index")
            if number is None or _event_index(data, "annotation_index") == count:
                annotation = decode_annotation(
                    copy_json(data.get("annotation")), state.index, data["content_index"]
                )
                block.counts["annotations"] = count + 1
                fields = {"index": block.position, "text": "", "annotations": [annotation]}
                blocks.append(READ.build(TextBlock, fields))
        return chunks + self.blocks(blocks)

    def arguments(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.function_call_arguments.delta``."""
        delta = _event_str(data, "delta")
        state, chunks = self.located(data, "function_call")
        if state is not None and delta:
            state.arguments += len(delta)
            fragment = ToolCallChunk(index=state.call, arguments=delta)
            chunks.append(self.chunk(tool_call_chunks=[fragment]))
        return chunks

    def summary(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """A reasoning summary part, whole (``summary`` entries cannot grow)."""
        number = _event_index(data, "summary_index")
        if "text" in data:
            text = _event_str(data, "text")
        else:
            text = _event_str(_event_object(data, "part"), "text")
        state, chunks = self.located(data, "reasoning")
        block = state.block if state is not None else None
        if block is not None and block.type == "reasoning":
            count = block.counts.get("summary", 0)
            if number == count:
                block.counts["summary"] = count + 1
                fields = {"index": block.position, "summary": [text]}
                chunks += self.blocks([READ.build(ReasoningBlock, fields)])
        return chunks

    def reasoning(self, state: _StreamItem, content_index: int, delta: str) -> list[ContentBlock]:
        """Reasoning text; content parts are joined with newlines, as decode_response does."""
        block = state.block
        if block is None or block.type != "reasoning":
            return []
        text = delta
        if content_index >= state.texts:
            text = "\n" * (content_index - max(state.texts - 1, 0)) + delta
            state.texts = content_index + 1
        if not text:
            return []
        block.sent["text"] = block.sent.get("text", 0) + len(text)
        return [READ.build(ReasoningBlock, {"index": block.position, "text": text})]

    def reasoning_text(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.reasoning_text.delta``."""
        delta = _event_str(data, "delta")
        state, chunks = self.located(data, "reasoning")
        if state is not None:
            chunks += self.blocks(self.reasoning(state, _event_index(data, "content_index"), delta))
        return chunks

    def done(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``response.output_item.done``."""
        return self.item_done(_event_index(data, "output_index"), _event_object(data, "item"))

    def item_done(
        self, index: int, item: Any, key: int | None = None
    ) -> list[AssistantMessageChunk]:
        """A finished item: what it adds to what was streamed of it.

        ``index`` is where the item is (errors name it), ``key`` the stream's key of
        it when that differs (:meth:`final_key`).
        """
        item = sdk(item)
        if not isinstance(item, dict):
            READ.fail(f"output item {index} must be an object, not {type(item).__name__}")
        item = copy_json(item)
        key = index if key is None else key
        state = self.items.get(key)
        chunks: list[AssistantMessageChunk] = []
        if state is None:
            chunks = self.start(key, item)
            state = self.items[key]
        elif state.kind != _item_kind(item):
            READ.fail(f"output item {index} began as {state.kind!r}, ended as {item.get('type')!r}")
        if state.done:
            return chunks
        state.done = True
        if state.kind == "function_call":
            _, fields = decode_function_call(item, index)
            raw: str = item["arguments"]
            fragment: dict[str, Any] = {
                "index": state.call,
                "id": fields["id"],
                "name": fields["name"],
            }
            if len(raw) > state.arguments:
                fragment["arguments"] = raw[state.arguments :]
                state.arguments = len(raw)
            if "extras" in fields:
                fragment["extras"] = fields["extras"]
            call_chunk = READ.build(ToolCallChunk, fragment, index)
            chunks.append(self.chunk(tool_call_chunks=[call_chunk]))
            return chunks
        if state.kind == "message":
            return chunks + self.message_done(state, item, index)
        finals: list[ContentBlock]
        if state.kind == "reasoning" and isinstance(item.get("id"), str) and item["id"]:
            reasoning = decode_reasoning(item, index)
            sealed = reasoning.encrypted_content
            if sealed is not None:  # sent from the final Response (see `sealed`)
                self.sealed[key] = (state.block or self.place(state), sealed)
                reasoning = reasoning.model_copy(update={"encrypted_content": None})
            finals = [reasoning]
        elif state.kind == "compaction" and isinstance(item.get("encrypted_content"), str):
            finals = [decode_compaction(item, index)]  # (the done item's value: the final one)
        elif state.kind == "web_search_call":
            finals = [decode_web_search(item, index)]
        elif state.kind == "code_interpreter_call":
            finals = decode_code_interpreter(item, index)
        else:
            finals = [non_standard_item(item, index)]
        self.place(state)
        if len(finals) == 2 and state.result is None:
            state.result = self.new_block("")
        out: list[ContentBlock] = []
        for block, final in zip((state.block, state.result), finals, strict=False):
            assert block is not None
            rest = block.rest(final)
            if rest is not None:
                out.append(rest)
        if len(finals) == 1 and state.result is not None:
            self.gate.unopened.discard(state.result.position)  # kept for a result not sent
        return chunks + self.blocks(out)

    def place(self, state: _StreamItem) -> _StreamBlock:
        """The item's content block, placed now if it has none yet."""
        if state.block is None:
            state.block = self.new_block("")
        return state.block

    def message_done(
        self, state: _StreamItem, item: dict[str, Any], index: int
    ) -> list[AssistantMessageChunk]:
        """A finished message item: the rest of each part, or the whole item."""
        finals = decode_output_message(item, index)
        as_parts = all(
            isinstance(b, (TextBlock, RefusalBlock)) and b.id is not None for b in finals
        )
        if state.parts and not as_parts:
            return []  # parts were streamed as blocks before the item turned out whole
        out: list[ContentBlock] = []
        for position, final in enumerate(finals):
            block = state.parts.get(position)
            if block is None:
                if position == 0 and state.block is not None:
                    block = state.block  # the place kept for it
                else:
                    block = self.new_block("")
                if as_parts:
                    state.parts[position] = block
            if isinstance(final, RefusalBlock):
                self.refusal = True
            if block.first and isinstance(final, TextBlock) and final.text and plain(final):
                # An id-less text item (``{"role": "assistant", "content": "…"}``) as the
                # reply's first block: string content, which decode_response makes of
                # it when it is the only block, and a text block when more follow.
                block.started = True
                self.gate.string_position = block.position
                return [self.chunk(content=final.text)]
            rest = block.rest(final)
            if rest is not None:
                out.append(rest)
        return self.blocks(out)


_StreamHandler = Callable[[_Stream, dict[str, Any]], list[AssistantMessageChunk]]
# Streaming events reference: the events this codec reads; every other is skipped.
_STREAM_HANDLERS: Final[dict[str, _StreamHandler]] = {
    "response.created": _Stream.snapshot,
    "response.in_progress": _Stream.snapshot,
    "response.queued": _Stream.snapshot,
    "response.completed": _Stream.final,
    "response.incomplete": _Stream.final,
    "response.failed": _Stream.failed,
    "error": _Stream.error,
    "response.output_item.added": _Stream.added,
    "response.output_item.done": _Stream.done,
    "response.content_part.added": _Stream.part_added,
    "response.output_text.delta": _Stream.output_text,
    "response.refusal.delta": _Stream.refusal_text,
    "response.output_text.annotation.added": _Stream.annotation,
    "response.function_call_arguments.delta": _Stream.arguments,
    "response.reasoning_summary_part.done": _Stream.summary,
    "response.reasoning_summary_text.done": _Stream.summary,
    "response.reasoning_text.delta": _Stream.reasoning_text,
}


# ========================================================================= event helpers

_SCALARS = frozenset({str, int, float, bool, type(None)})


def _item_kind(item: dict[str, Any]) -> str:
    """How decode_response reads an output item: assistant message, or its type."""
    kind = item.get("type")
    if kind in (None, "message"):
        return "message" if item.get("role") == "assistant" else "other"
    return kind if isinstance(kind, str) else "other"


def _event_index(data: dict[str, Any], key: str) -> int:
    """An index field of an event (``output_index``, ``content_index`` ...)."""
    return READ.count(data.get(key), f"{data.get('type')}: `{key}`")


def _event_str(data: dict[str, Any], key: str) -> str:
    """A string field of an event."""
    return READ.string(data.get(key), f"{data.get('type')}: `{key}`")


def _event_object(data: dict[str, Any], key: str) -> dict[str, Any]:
    """An object field of an event."""
    return READ.object(data.get(key), f"{data.get('type')}: `{key}`")


def _stream_error(error: Any) -> NoReturn:
    """Raise for an error the stream reported, naming its message and code."""
    raise READ.stream_error(error, "code")
