"""The stream writer: neutral chunks as ``streamGenerateContent`` events.

Each event is a complete ``GenerateContentResponse`` holding the parts the chunk
adds, as Gemini streams (``docs/providers/gemini.md``, *Streaming*, read backwards):

- a text delta is a text part with its part's fields (``thought``, other metadata)
  on every delta, so that the deltas join to one part, and the signature on the
  delta that brought it (which ends the part);
- every other part goes out whole: a function call once its arguments are whole
  (the fragments of one call are held until then);
- ``modelVersion`` and ``responseId`` go on every event, the running
  ``usageMetadata`` on every event once usage is known (usage is cumulative), the
  finish reason on the event of the chunk that brings it;
- what a chunk keeps in ``response_metadata["gemini"]`` goes back on its event.

A plain text delta (string content and nothing else, the hot path) is written
without any model dump.
"""

from __future__ import annotations

from typing import Any, Final

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ReasoningBlock, TextBlock
from chatschema_models.message import AssistantMessage
from chatschema_models.tool import InvalidToolCall, ToolCall, ToolCallChunk
from chatschema_models.usage import Usage

from chatschema._arguments import parse_arguments
from chatschema._usage import add_usage
from chatschema.providers._common import content_blocks, extras_of
from chatschema.providers._common.respond import Reply, _arguments_text, dumps
from chatschema.providers.gemini.encode import _merged
from chatschema.providers.gemini.wire import CONTROL_KEYS, DATA_FIELDS, NAME
from chatschema.providers.gemini.write import (
    RESPONSE_ID_ALPHABET,
    Kept,
    PartWriter,
    block_reason,
    camel,
    camel_key,
    create_time,
    finish_reason,
    kept_of,
    usage_metadata,
)

_PLAIN: Final = frozenset({"content", "role", "provider", "model", "response_id"})
"""The fields of a chunk the fast path writes (a text delta, its message fields)."""

_TEXT_TYPES: Final = frozenset({"text", "reasoning"})
_TEXT_DELTA: Final = frozenset({"type", "text", "index"})
"""The fields of a text block that only adds text."""


class _Text:
    """A text part being streamed: the fields every one of its deltas carries."""

    __slots__ = ("extras", "fields", "last", "provider", "signature", "thought")

    def __init__(self, block: TextBlock | ReasoningBlock) -> None:
        self.signature: str | None = None  # held until the part ends
        self.last: dict[str, Any] | None = None  # the last delta written
        self.thought = isinstance(block, ReasoningBlock)
        self.provider = block.provider if isinstance(block, ReasoningBlock) else None
        self.extras: dict[str, Any] = {}
        self.fields: dict[str, Any] = {}
        self.add(block)

    def add(self, block: TextBlock | ReasoningBlock) -> None:
        """Take the part fields a delta brings (extras, a provider)."""
        if self.provider is None and isinstance(block, ReasoningBlock):
            self.provider = block.provider
        kept = extras_of(block, NAME)
        if kept:
            self.extras.update(kept)
            own = self.provider in (None, NAME) or not self.thought
            fields: dict[str, Any] = {"thought": True} if self.thought else {}
            for key, value in self.extras.items():
                # Part metadata, as encode.meta writes it (the signature: per delta)
                if key in CONTROL_KEYS or key in DATA_FIELDS or key == "thought_signature":
                    continue
                if own:
                    fields[camel_key(key)] = camel(value)
            self.fields = fields
        elif not self.fields and self.thought:
            self.fields = {"thought": True}


class _Call:
    """A function call's fragments, until its arguments are whole."""

    __slots__ = ("extras", "id", "index", "name", "parts")

    def __init__(self, index: int | None) -> None:
        self.index = index
        self.id: str | None = None
        self.name: str | None = None
        self.parts: list[str] = []
        self.extras: dict[str, Any] = {}

    def add(self, fragment: ToolCallChunk) -> None:
        """One fragment: the first id and name win, arguments join, extras merge."""
        if self.id is None and fragment.id:
            self.id = fragment.id
        if self.name is None and fragment.name:
            self.name = fragment.name
        if fragment.arguments:
            self.parts.append(fragment.arguments)
        if fragment.extras:
            self.extras.update(fragment.extras)

    def whole(self) -> bool:
        """Whether the arguments so far are a whole JSON object (nothing more to come)."""
        raw = "".join(self.parts)
        if not raw.strip():
            return False  # (the name of a call whose arguments stream)
        _, error = parse_arguments(raw)
        return error is None and self.name is not None

    def finished(self) -> ToolCall | InvalidToolCall:
        """The call, as the chunk accumulator finishes it."""
        raw = "".join(self.parts)
        arguments, error = parse_arguments(raw)
        common: dict[str, Any] = {}
        if self.index is not None:
            common["index"] = self.index
        if self.extras:
            common["extras"] = self.extras
        if error is None and self.name and arguments is not None:
            extras = dict(self.extras)
            if not self.id:  # no id to send: the call is written without one
                gemini = dict(extras.get(NAME) or {})
                gemini["synthesized_id"] = True
                extras[NAME] = gemini
            common["extras"] = extras
            return ToolCall(id=self.id or "call", name=self.name, arguments=arguments, **common)
        fields: dict[str, Any] = {"arguments": raw, "error": error or "the tool call has no name"}
        if self.id:
            fields["id"] = self.id
        if self.name:
            fields["name"] = self.name
        return InvalidToolCall(**fields, **common)


class Writer:
    """The per-chunk event writer of one stream (``respond.EventWriter``)."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.parts = PartWriter(reply)
        self.tail: dict[str, Any] | None = None  # modelVersion, createTime?, responseId
        self.plain = False  # whether a text delta's event is the candidate and the tail
        self.usage: Usage | None = None  # the running total
        self.usage_json: dict[str, Any] | None = None  # its usageMetadata
        self.texts: dict[tuple[int, str], _Text] = {}
        self.calls: dict[int | None, _Call] = {}  # fragments held until whole
        self.written: set[int] = set()  # the indexes of the calls written
        self.held: _Text | None = None  # the open part whose signature is held
        self.called = False  # function calls written (STOP then means tool_calls)
        self.candidates = False  # a candidate was written

    # ------------------------------------------------------------------ events

    def feed(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """The event this chunk makes (none when it says nothing)."""
        tail = self.tail
        if tail is None:
            tail = self.start(chunk)
        text = self.plain_text(chunk)
        if text is None:
            return self.general(chunk)
        if not text:
            return []
        self.candidates = True
        if not self.plain:
            return [self.event([{"text": text}], {}, _NOTHING)]
        # what event() writes without usage or kept fields: the candidate, the tail
        content = {"parts": [{"text": text}], "role": "model"}
        return [{"candidates": [{"content": content}], **tail}]

    def plain_text(self, chunk: AssistantMessageChunk) -> str | None:
        """The text of a plain text delta (the hot path), else None.

        A plain text delta has string content and no field but the message's own
        (model, response id ...), and comes while no call and no signature is held:
        its event is one text part.
        """
        text = chunk.__dict__["content"]
        if not chunk.__pydantic_fields_set__ <= _PLAIN or self.calls or self.held is not None:
            return None
        if type(text) is str:
            return text
        if type(text) is list and len(text) == 1:
            # one text block continuing an open text part (other formats' decoders)
            block = text[0]
            if type(block) is TextBlock and block.__pydantic_fields_set__ <= _TEXT_DELTA:
                state = self.texts.get((block.__dict__["index"], "text"))
                if state is not None and not state.fields:
                    text = block.__dict__["text"]
                    return text if type(text) is str else None
        return None

    def end(self) -> list[dict[str, Any]]:
        """What is still held: a signature, calls without their last fragment."""
        parts: list[dict[str, Any]] = []
        self.release(parts)
        parts += self.flush()
        return [self.event(parts, {}, _NOTHING)] if parts else []

    def start(self, chunk: AssistantMessageChunk) -> dict[str, Any]:
        """The fields every event carries, from the first chunk (else made)."""
        reply = self.reply
        kept = kept_of(chunk.response_metadata) or {}
        tail: dict[str, Any] = {"modelVersion": reply.model_of(chunk.model)}
        created = None if "create_time" in kept else create_time(reply)
        if created is not None:
            tail["createTime"] = created
        # GenerateContentResponse.responseId: always sent, 23 URL-safe base64 characters
        tail["responseId"] = chunk.response_id or reply.new_id("", 23, RESPONSE_ID_ALPHABET)
        self.tail = tail
        self.plain = True  # (until usage is known)
        return tail

    def general(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """The event of any chunk: its parts in part order, then its fields."""
        kept = Kept(kept_of(chunk.response_metadata))
        parts: list[dict[str, Any]] = []
        content = chunk.content
        items: list[tuple[int, int, Any]] = []
        if isinstance(content, str):
            if content:
                items.append((-1, 0, content))
        elif content:
            for position, block in enumerate(content):
                items.append((-1 if block.index is None else block.index, position, block))
        for position, fragment in enumerate(chunk.tool_call_chunks or ()):
            index = fragment.index
            items.append((_LAST if index is None else index, len(items) + position, fragment))
        items.sort(key=_order)
        for _, position, item in items:
            if self.held is not None and not self.continues(item):
                self.release(parts)
            if isinstance(item, ToolCallChunk):
                self.fragment(item, parts)
                continue
            parts.extend(self.flush())
            if isinstance(item, str):
                parts.append({"text": item})
            else:
                self.block(item, position, parts)
        if chunk.chunk_position == "last":
            self.release(parts)
            parts.extend(self.flush())
        if chunk.usage is not None:
            if kept.usage is None:
                if chunk.usage_mode == "cumulative" or self.usage is None:
                    self.usage = chunk.usage
                else:
                    self.usage = add_usage(self.usage, chunk.usage)
                self.usage_json = usage_metadata(self.usage, None)
            else:
                self.usage = chunk.usage
        if kept.usage is not None:
            self.usage_json = kept.usage
        if self.usage_json is not None:
            self.plain = False  # (every event carries the running usage from now on)
        raw = chunk.raw_finish_reason
        if chunk.finish_reason is None and chunk.provider not in (None, NAME):
            raw = None  # another format's status of an unfinished answer ("in_progress")
        reason = finish_reason(chunk.finish_reason, raw, kept.reason_number, calls=self.called)
        if (
            reason is not None
            and not parts
            and not self.candidates
            and not kept.candidate
            and chunk.finish_reason == "content_filter"
            and chunk.raw_finish_reason is not None
            and block_reason(kept.top) == chunk.raw_finish_reason
        ):
            reason = None  # a blocked prompt: no candidate, promptFeedback says it
        if not (parts or reason is not None or kept.candidate or kept.content):
            if kept.top or chunk.usage is not None or kept.usage is not None:
                return [self.event(None, {}, kept)]
            return []
        candidate: dict[str, Any] = {}
        if reason is not None:
            candidate["finishReason"] = reason
        candidate.update(kept.candidate)
        return [self.event(parts, candidate, kept)]

    def event(
        self, parts: list[dict[str, Any]] | None, candidate: dict[str, Any], kept: Kept
    ) -> dict[str, Any]:
        """A GenerateContentResponse: the candidate (None: none), usage, fields."""
        event: dict[str, Any] = {}
        if parts is not None:
            content: dict[str, Any] = {"parts": parts} if parts else {}
            content["role"] = "model"
            content.update(kept.content)
            event["candidates"] = [{"content": content, **candidate}, *kept.others]
            self.candidates = True
        top = kept.top
        if "promptFeedback" in top:
            event["promptFeedback"] = top["promptFeedback"]
        if self.usage_json is not None:
            event["usageMetadata"] = _usage_copy(self.usage_json)
        assert self.tail is not None
        event.update(self.tail)
        for key, value in top.items():
            if key != "promptFeedback":
                event[key] = value
        return event

    # ------------------------------------------------------------------- parts

    def continues(self, item: Any) -> bool:
        """Whether ``item`` is a delta of the part whose signature is held."""
        return (
            isinstance(item, TextBlock | ReasoningBlock)
            and item.index is not None
            and self.texts.get((item.index, item.type)) is self.held
        )

    def release(self, parts: list[dict[str, Any]]) -> None:
        """End the part whose signature is held: the signature on its last delta.

        Thought signatures, streaming: the signature comes on the last delta of its
        part (an empty one when the text is out already), and ends the part.
        """
        state = self.held
        if state is None:
            return
        self.held = None
        signature, state.signature = state.signature, None
        if parts and parts[-1] is state.last:
            parts[-1]["thoughtSignature"] = signature
        else:
            parts.append({"text": "", **state.fields, "thoughtSignature": signature})

    def block(self, block: Any, position: int, parts: list[dict[str, Any]]) -> None:
        """The parts of one content block: a text delta, or a whole part."""
        where = block.index if block.index is not None else position
        if block.type not in _TEXT_TYPES:
            parts.extend(camel(part) for part in self.parts.block_parts(block, where))
            return
        state: _Text | None
        if block.index is None:  # (after string deltas: it continues them, as it is)
            state = _Text(block)
        else:
            key = (block.index, block.type)
            state = self.texts.get(key)
            if state is None:
                state = self.texts[key] = _Text(block)
            else:
                state.add(block)
        out: list[dict[str, Any]] = []
        if isinstance(block, ReasoningBlock):
            text = block.text if block.text is not None else "\n".join(block.summary or [])
            signature = block.signature
            own = state.provider in (None, NAME)
            if signature is not None and not own:
                out += self.opaque(f"{state.provider} reasoning signature", where)
                signature = None
            if block.encrypted_content is not None:
                out += self.opaque("encrypted reasoning content", where)
        else:
            text = block.text
            signature = extras_of(block, NAME).get("thought_signature")
            if block.annotations:
                out += self.opaque("text annotations", where)
        if text:
            part: dict[str, Any] = {"text": text, **state.fields}
            parts.append(part)
            state.last = part
        if signature is not None:  # held until the part ends (a reasoning's: appended)
            held = state.signature if isinstance(block, ReasoningBlock) else None
            state.signature = signature if held is None else held + signature
            self.held = state
        if out:
            self.release(parts)  # (a placeholder after it ends the part)
            parts.extend(out)

    def opaque(self, what: str, where: int) -> list[dict[str, Any]]:
        """What Gemini cannot carry, through the policy (a placeholder: a text part)."""
        text = self.parts.unsupported(what, 0, where)
        return [] if text is None else [{"text": text}]

    def fragment(self, fragment: ToolCallChunk, parts: list[dict[str, Any]]) -> None:
        """One fragment of a call: the call goes out once its arguments are whole."""
        index = fragment.index
        if index in self.written and not fragment.arguments:
            return  # a call's id and name again, after it is out (Responses' item done)
        held = [other for other in self.calls if other != index]
        for other in held:  # a fragment of another call: the held ones are done
            parts.extend(self.write_call(self.calls.pop(other)))
        call = self.calls.get(index)
        if call is None:
            call = self.calls[index] = _Call(index)
        call.add(fragment)
        if call.whole():
            del self.calls[index]
            parts.extend(self.write_call(call))

    def flush(self) -> list[dict[str, Any]]:
        """Every call held, written as it is."""
        parts: list[dict[str, Any]] = []
        for index in list(self.calls):
            parts.extend(self.write_call(self.calls.pop(index)))
        return parts

    def write_call(self, call: _Call) -> list[dict[str, Any]]:
        """The ``functionCall`` part of a call (an invalid one: the policy)."""
        if call.index is not None:
            self.written.add(call.index)
        finished = call.finished()
        if isinstance(finished, ToolCall):
            self.called = True
            return [camel(self.parts.call(finished, 0))]
        parts = self.parts.invalid_call(finished, 0)
        if parts and "function_call" in parts[0]:
            self.called = True
        return [camel(part) for part in parts]


class FramedWriter:
    """The writer of ``sse=True``: each event as its ``data:`` frame (bytes).

    :class:`Writer`'s events framed by :func:`frame`; a plain text delta while no
    usage is known (the hot path: most events of a stream) is framed straight from
    its text, byte for byte what ``frame`` writes of its event (orjson's compact
    JSON, keys in order), without building the event.
    """

    __slots__ = ("end_bytes", "writer")

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self.end_bytes: bytes | None = None  # the frame after the text (the tail's JSON)

    def feed(self, chunk: AssistantMessageChunk) -> list[Any]:
        """The frames of one chunk's events, in order."""
        writer = self.writer
        if writer.plain:  # (started, and no usage yet)
            text = writer.plain_text(chunk)
            if text is not None:
                if not text:
                    return []
                try:
                    data: bytes = _dumps_text(text)
                    end = self.end_bytes
                    if end is None:
                        end = self.end_bytes = _AFTER_TEXT + _dumps_text(writer.tail)[1:] + _CRLF2
                except TypeError:  # what orjson refuses (a lone surrogate): framed in full
                    pass
                else:
                    writer.candidates = True
                    return [_BEFORE_TEXT + data + end]
        return [frame(event) for event in writer.feed(chunk)]

    def end(self) -> list[Any]:
        """The frames that close the stream."""
        return [frame(event) for event in self.writer.end()]


def frame(event: dict[str, Any]) -> bytes:
    r"""One event of the ``?alt=sse`` body: ``data: <json>`` and ``\r\n\r\n``.

    Gemini ends each event with CRLF line ends (the recorded ``alt=sse`` bodies).
    """
    if _orjson is not None:
        try:
            data: bytes = _orjson.dumps(event)
            return b"data: " + data + _CRLF2
        except TypeError:  # an int beyond 64 bits: the stdlib's encoder (dumps)
            pass
    return b"data: " + dumps(event) + _CRLF2


def _no_orjson(value: Any) -> bytes:
    raise TypeError("no orjson")  # pragma: no cover - every event through frame


_orjson: Any
try:  # orjson when installed (the ``fast`` extra), as ``respond.dumps`` uses it
    import orjson as _orjson
except ImportError:  # pragma: no cover - dumps' stdlib encoder
    _orjson = None
_dumps_text: Any = _orjson.dumps if _orjson is not None else _no_orjson
_CRLF2: Final = b"\r\n\r\n"
_BEFORE_TEXT: Final = b'data: {"candidates":[{"content":{"parts":[{"text":'
"""A plain text delta's frame up to its text (orjson's compact form of the event)."""
_AFTER_TEXT: Final = b'}],"role":"model"}}],'
"""The frame after the text, up to the tail's fields."""

_NOTHING: Final = Kept(None)
"""No kept metadata (read only)."""

_LAST: Final = 1 << 62
"""The order of a call fragment without index: after the indexed parts."""


def _order(item: tuple[int, int, Any]) -> tuple[int, int]:
    return item[0], item[1]


def _usage_copy(usage: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``usageMetadata`` (counts, and lists of flat objects)."""
    return {
        key: [dict(item) if type(item) is dict else item for item in value]
        if type(value) is list
        else value
        for key, value in usage.items()
    }


# ------------------------------------------------------------------ a whole message


def message_chunk(message: AssistantMessage) -> AssistantMessageChunk:
    """A whole message as one chunk whose indexes are part positions.

    Blocks and calls are numbered in wire order (calls at their ``index``, as
    ``encode`` places them), the numbering ``decode_stream`` gives its chunks;
    calls are complete fragments, invalid ones included (their arguments as text).
    """
    blocks = content_blocks(message.content)
    calls: list[ToolCall | InvalidToolCall] = [*message.tool_calls, *message.invalid_tool_calls]
    content: list[Any] = []
    fragments: list[ToolCallChunk] = []
    for position, (_, item) in enumerate(_merged(blocks, calls)):
        if isinstance(item, ToolCall | InvalidToolCall):
            fragment: dict[str, Any] = {"index": position, "arguments": ""}
            if item.id:
                fragment["id"] = item.id
            if item.name:
                fragment["name"] = item.name
            arguments = item.arguments
            fragment["arguments"] = _arguments_text(arguments) if arguments is not None else ""
            if item.extras:
                fragment["extras"] = item.extras
            fragments.append(ToolCallChunk(**fragment))
        else:
            content.append(item.model_copy(update={"index": position}))
    fields: dict[str, Any] = {
        key: getattr(message, key)
        for key in (
            "usage",
            "model",
            "provider",
            "response_id",
            "finish_reason",
            "raw_finish_reason",
            "response_metadata",
        )
        if getattr(message, key) is not None
    }
    if "usage" in fields:
        fields["usage_mode"] = "cumulative"
    return AssistantMessageChunk(
        content=content, tool_call_chunks=fragments, chunk_position="last", **fields
    )
