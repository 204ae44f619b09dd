"""The stream writer: neutral chunks in, ``chat.completion.chunk`` events out.

The mirror of :mod:`.stream` (``decode_stream``): every event says in this
format's terms what one chunk added, in the form ``decode_stream`` reads back
(text in ``content``, reasoning in ``reasoning_content`` or ``reasoning``, the
refusal field, tool-call fragments keyed by their position in ``tool_calls``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    AudioBlock,
    ContentBlock,
    ReasoningBlock,
    RefusalBlock,
    TextBlock,
)
from chatschema_models.message import AssistantMessage
from chatschema_models.tool import ToolCallChunk
from chatschema_models.usage import Usage

from chatschema._usage import add_usage
from chatschema.providers._common import arguments_text, extras_of
from chatschema.providers._common.respond import Reply, dumps, frame_data
from chatschema.providers.openai_chat.details import DETAILS_TEXT, DetailWriter
from chatschema.providers.openai_chat.replies import (
    CHOICE_FIELDS,
    HEAD_FIELDS,
    annotations_of,
    audio_object,
    block_what,
    finish_reason,
    metadata_of,
    opaque_values,
    reasoning_field,
    reasoning_text,
    response_id,
    wire_usage,
)
from chatschema.providers.openai_chat.request import checked, merge_kept, null_arguments
from chatschema.providers.openai_chat.wire import CALL_MARKERS, MESSAGE_MARKERS, NAME

__all__ = ["EventWriter", "message_chunk"]

_DELTAS: Final = (frozenset({"role", "content"}), frozenset({"content"}))
"""The fields a plain text delta sets (``decode_stream``'s fast path makes the first)."""
_TEXT_DELTA: Final = frozenset({"type", "text", "index"})
"""The fields of a text block that only adds text."""
_BARE: Final = frozenset({"role", "provider", "response_metadata", "usage_mode"})
"""The fields of a chunk that says nothing of the message (metadata only)."""
_STRING: Final = object()
"""The key of string content (a run with no block index)."""
_OBJECT: Final = "chat.completion.chunk"


def message_chunk(message: AssistantMessage) -> AssistantMessageChunk:
    """A whole message as one chunk, as ``respond.as_chunk`` makes it, but for tool calls.

    Each call (invalid ones too) is one complete fragment whose arguments are the
    exact text the API sent when the message keeps it (``arguments_text``), indexed
    by its recorded ``index`` (else its position, invalid calls after valid ones).
    """
    data = message.model_dump(mode="python", exclude_unset=True, by_alias=True)
    content = data.get("content")
    if isinstance(content, list):
        data["content"] = [{**block, "index": i} for i, block in enumerate(content)]
    data.pop("tool_calls", None)
    data.pop("invalid_tool_calls", None)
    fragments: list[dict[str, Any]] = []
    for position, call in enumerate(message.tool_calls):
        fragment: dict[str, Any] = {
            "index": position if call.index is None else call.index,
            "id": call.id,
            "name": call.name,
            "arguments": arguments_text(call, NAME),
        }
        if call.extras:
            fragment["extras"] = call.extras
        fragments.append(fragment)
    offset = len(message.tool_calls)
    for position, bad in enumerate(message.invalid_tool_calls):
        fragment = {"index": offset + position if bad.index is None else bad.index}
        for key in ("id", "name", "arguments", "extras"):
            value = getattr(bad, key)
            if value is not None:
                fragment[key] = value
        fragments.append(fragment)
    if fragments:
        data["tool_call_chunks"] = fragments
    data["chunk_position"] = "last"
    return AssistantMessageChunk.model_validate(data)


class _Call:
    """One tool call being written: its wire position and what was sent of it."""

    __slots__ = ("custom", "position", "started", "text")

    def __init__(self, position: int) -> None:
        self.position = position
        self.started = False
        self.custom = False
        self.text: list[str] | None = None  # a custom call's input text, held until whole


class _Text(dict[str, Any]):
    """A text delta in SSE mode, framed by :meth:`EventWriter.frame`.

    The frame is written from bytes the writer keeps (the head's JSON): no dict is
    built nor serialized per delta.
    """

    __slots__ = ("text",)
    text: str


_TEXT_END: Final = b'},"logprobs":null,"finish_reason":null}]}\n\n'


_FIELDS: Final = ("reasoning", "reasoning_content")
"""The fields OpenRouter's reasoning text can go to next to its details."""


class EventWriter:
    """One ``encode_stream``: the events each chunk makes, then the closing ones.

    With ``sse``, text deltas are :class:`_Text` events, which only :meth:`frame`
    (the framing ``encode_stream`` gives ``write_stream``) turns into bytes.
    """

    def __init__(self, reply: Reply, *, sse: bool = False) -> None:
        self.reply = reply
        self.sse = sse
        self.prefix: bytes | None = None  # the bytes of a text event up to its text
        self.head: dict[str, Any] | None = None  # id, object, created, model (and more)
        self.index = 0  # the choice's index
        self.role = True  # the role is still to send
        self.provider: str | None = None
        self.finish: str | None = None
        self.raw_finish: str | None = None
        self.usage: Usage | None = None
        self.kept_usage: Any = None
        self.calls: dict[int, _Call] = {}
        self.call_count = 0
        self.text_key: Any = None  # the block the last text went to
        self.reasoning_key: Any = None
        self.refusal_key: Any = None
        self.reasoning_as: str | None = None  # the reasoning field, once chosen
        self.details: DetailWriter | None = None  # OpenRouter's reasoning_details
        self.derived: str | None = None  # the field the details' text also goes to

    # -------------------------------------------------------------- events

    def feed(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """The events one chunk makes (a text delta: one event, built at once)."""
        text = chunk.__dict__["content"]
        key = self.text_key
        if key is not None and chunk.__pydantic_fields_set__ in _DELTAS:
            if type(text) is list and len(text) == 1:
                # one text block continuing the open one (other formats' decoders)
                block = text[0]
                values = block.__dict__
                text = None
                if (
                    type(block) is TextBlock
                    and values["index"] == key
                    and block.__pydantic_fields_set__ <= _TEXT_DELTA
                ):
                    text = values["text"]
            elif key is not _STRING:
                text = None
        else:
            text = None
        if type(text) is str and text:
            if self.sse:
                fast = _Text()
                fast.text = text
                return [fast]
            event = self.head.copy()  # type: ignore[union-attr]  # (set with text_key)
            event["choices"] = [
                {
                    "index": self.index,
                    "delta": {"content": text},
                    "logprobs": None,
                    "finish_reason": None,
                }
            ]
            return [event]
        return self.general(chunk)

    def general(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """:meth:`feed` of any chunk."""
        fields = chunk.__pydantic_fields_set__
        if self.provider is None and chunk.provider:
            self.provider = chunk.provider
        meta = metadata_of(chunk)
        events: list[dict[str, Any]] = []
        if self.head is None and fields <= _BARE:
            # metadata before the message (Azure's prompt_filter_results event)
            if meta:
                event = {"id": "", "object": _OBJECT, "created": 0, "model": "", "choices": []}
                self.place_metadata(meta, event, {}, {}, events)
                events.insert(0, event)
            return events
        head = self.ensure_head(chunk, meta)
        delta: dict[str, Any] = {}
        choice: dict[str, Any] = {}
        top: dict[str, Any] = {}
        sides: list[dict[str, Any]] = []
        if meta:
            self.place_metadata(meta, top, choice, delta, sides)
            head = self.head or head
        if chunk.name is not None and "name" in fields:
            delta["name"] = chunk.name
        extras = extras_of(chunk, NAME)
        if extras:
            derived = extras.get(DETAILS_TEXT)
            if isinstance(derived, dict) and derived.get("field") in _FIELDS:
                self.derived = derived["field"]  # for the details that follow
        if "content" in fields:
            content = chunk.content
            if isinstance(content, str):
                if content or self.text_key is None:
                    delta["content"] = content
                    self.text_key = _STRING
            else:
                for position, block in enumerate(content):
                    self.block(block, position, delta)
        if extras:
            merge_kept(delta, extras, MESSAGE_MARKERS, "extras", 0)
        if delta or choice or top:
            events.append(self.event(head, delta, choice, top))
        for fragment in chunk.tool_call_chunks:
            self.tool_call(head, fragment, events)
        events.extend(sides)
        if chunk.finish_reason is not None:
            self.finish = chunk.finish_reason
        if chunk.raw_finish_reason is not None:
            self.raw_finish = chunk.raw_finish_reason
        if chunk.usage is not None:
            if chunk.usage_mode == "cumulative" or self.usage is None:
                self.usage = chunk.usage
            else:
                self.usage = add_usage(self.usage, chunk.usage)
        return events

    def end(self) -> list[dict[str, Any]]:
        """The finish chunk, and a usage chunk with no choice when there is usage."""
        head = self.head or self.ensure_head(None, {})
        events: list[dict[str, Any]] = []
        for call in self.calls.values():
            if call.text is not None:
                self.custom_input(head, call, events)
        reason = finish_reason(self.finish, self.raw_finish, self.provider, self.call_count > 0)
        if reason is not None:
            events.append(self.event(head, {}, {"finish_reason": reason}, {}))
        usage = wire_usage(self.usage, self.kept_usage)
        if usage is not None:
            # API reference, stream_options.include_usage: a last chunk, choices empty
            event = head.copy()
            event["choices"] = []
            event["usage"] = usage
            events.append(event)
        return events

    def event(
        self,
        head: dict[str, Any],
        delta: dict[str, Any],
        choice: Mapping[str, Any],
        top: Mapping[str, Any],
    ) -> dict[str, Any]:
        """A chunk event of the message's choice (the first one carries the role)."""
        if self.role:
            self.role = False
            delta = {"role": "assistant", **delta}
        wire: dict[str, Any] = {
            "index": self.index,
            "delta": delta,
            "logprobs": None,
            "finish_reason": None,
        }
        wire.update(choice)
        event = head.copy()
        event["choices"] = [wire]
        if top:
            event.update(top)
        return event

    def frame(self, event: dict[str, Any]) -> bytes:
        """An event's SSE frame; a text delta's from the bytes of the head, kept."""
        if type(event) is _Text:
            prefix = self.prefix
            if prefix is None:
                head = dumps(self.head)
                prefix = self.prefix = (
                    b"data: "
                    + head[:-1]
                    + b',"choices":[{"index":'
                    + str(self.index).encode()
                    + b',"delta":{"content":'
                )
            return prefix + dumps(event.text) + _TEXT_END
        return frame_data(event)

    # -------------------------------------------------------------- head and metadata

    def ensure_head(
        self, chunk: AssistantMessageChunk | None, meta: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The fields every event repeats, made from the first chunk that has a message."""
        if self.head is not None:
            return self.head
        reply = self.reply
        given = chunk.response_id if chunk is not None else None
        model = chunk.model if chunk is not None else None
        head: dict[str, Any] = {
            "id": given or (checked(meta["id"], "id") if "id" in meta else response_id(reply)),
            "object": _OBJECT,
            "created": meta["created"] if "created" in meta else reply.now(),
            "model": model or (checked(meta["model"], "model") if "model" in meta else None),
        }
        if head["model"] is None:
            head["model"] = reply.model_of(None)
        for key in HEAD_FIELDS:
            if key in meta:
                head[key] = meta[key]
        self.head = head
        return head

    def place_metadata(
        self,
        meta: Mapping[str, Any],
        top: dict[str, Any],
        choice: dict[str, Any],
        delta: dict[str, Any],
        sides: list[dict[str, Any]],
    ) -> None:
        """Metadata where the API sends it: the head, the choice, the delta, or the event."""
        head = self.head
        for key, value in meta.items():
            if key == "created" or key in HEAD_FIELDS:
                if head is None:
                    top[key] = checked(value, key)
                elif head.get(key) != value:
                    head = self.head = {**head, key: checked(value, key)}
                    self.prefix = None
            elif key in ("id", "model"):
                continue  # read by ensure_head (a value decode_response kept as it came)
            elif key == "index":
                if isinstance(value, int) and not isinstance(value, bool):
                    self.index = value
                    self.prefix = None
            elif key == "usage":
                self.kept_usage = checked(value, "usage metadata")
            elif key == "audio":
                delta["audio"] = checked(value, "audio")
            elif key == "choices":
                if isinstance(value, list) and head is not None:
                    sides.extend(self.side_choice(head, other) for other in value)
            elif key in CHOICE_FIELDS:
                choice[key] = checked(value, key)
            else:
                top[key] = checked(value, key)

    def side_choice(self, head: dict[str, Any], other: Any) -> dict[str, Any]:
        """Another choice (``n > 1``, kept whole in the metadata) as one delta event."""
        choice = checked(other, "response_metadata choices")
        if isinstance(choice, dict):
            message = choice.pop("message", None)
            delta = dict(message) if isinstance(message, dict) else {}
            delta["role"] = "assistant"
            calls = delta.get("tool_calls")
            if isinstance(calls, list):
                delta["tool_calls"] = [
                    {**call, "index": position} if isinstance(call, dict) else call
                    for position, call in enumerate(calls)
                ]
            choice["delta"] = delta
        event = head.copy()
        event["choices"] = [choice]
        return event

    # -------------------------------------------------------------- content

    def block(self, block: ContentBlock, position: int, delta: dict[str, Any]) -> None:
        """One content block of a chunk, into the delta."""
        key = block.index if block.index is not None else object()
        if isinstance(block, TextBlock):
            if block.text or self.text_key is None:
                text = block.text
                if text and self.text_key not in (None, key, _STRING):
                    text = "\n" + text  # another text block: as encode_response joins them
                delta["content"] = delta.get("content", "") + text
                self.text_key = key if text or self.text_key is None else self.text_key
            if block.annotations:
                found = annotations_of(block.annotations, self.reply, position)
                delta["annotations"] = [*delta.get("annotations", ()), *found]
        elif isinstance(block, ReasoningBlock):
            if self.details is None:
                self.details = DetailWriter()
            detail = self.details.piece(block, position)
            if detail is not None:
                delta.setdefault("reasoning_details", []).append(detail)
                if self.derived is not None:
                    said = detail.get("text", detail.get("summary"))
                    if isinstance(said, str):
                        delta[self.derived] = delta.get(self.derived, "") + said
                return
            opaque_values(block, self.reply, position)
            thought = reasoning_text(block)
            if thought is not None and (thought or self.reasoning_key is None):
                if self.reasoning_as is None:
                    self.reasoning_as = reasoning_field(block)
                if thought and self.reasoning_key not in (None, key):
                    thought = "\n" + thought
                self.reasoning_key = key
                field = self.reasoning_as
                delta[field] = delta.get(field, "") + thought
        elif isinstance(block, RefusalBlock):
            if block.text or self.refusal_key is None:
                text = block.text
                if text and self.refusal_key not in (None, key):
                    text = "\n" + text
                self.refusal_key = key
                delta["refusal"] = delta.get("refusal", "") + text
        elif isinstance(block, AudioBlock) and block.base64 is not None:
            audio = audio_object(block, self.reply, position)
            if audio is not None:
                delta["audio"] = audio
        else:
            # API reference: a chunk's delta carries text, a refusal and audio only
            placeholder = self.reply.unsupported_content(block_what(block), block_index=position)
            if placeholder is not None:
                separator = "\n" if self.text_key is not None else ""
                delta["content"] = delta.get("content", "") + separator + placeholder
                self.text_key = key

    # -------------------------------------------------------------- tool calls

    def tool_call(
        self, head: dict[str, Any], fragment: ToolCallChunk, events: list[dict[str, Any]]
    ) -> None:
        """A tool-call fragment as events: the call's header first (id, type, name).

        The first fragment of a call has its id, type and name and ``arguments: ""``;
        argument text follows in fragments of its own, as OpenAI streams them. A
        custom tool's input is sent once whole (the chunks carry it as JSON text).
        """
        key = fragment.index
        call = self.calls.get(key) if key is not None else None
        if call is None:
            call = _Call(self.call_count)
            self.call_count += 1
            if key is not None:
                self.calls[key] = call
        extras = extras_of(fragment, NAME)
        wire: dict[str, Any] = {"index": call.position}
        if fragment.id is not None:
            wire["id"] = fragment.id
        elif extras.get("id") == "":
            wire["id"] = ""  # (Gemini's compatibility layer answers so)
        inner: dict[str, Any] = {}
        if not call.started:
            call.started = True
            call.custom = extras.get("type") == "custom"
            if call.custom:
                wire["type"] = "custom"
                call.text = []
            elif extras.get("no_type") is not True:
                wire["type"] = "function"
            if fragment.name is not None:
                inner["name"] = fragment.name
            if not call.custom:
                inner["arguments"] = ""
        elif fragment.name is not None:
            inner["name"] = fragment.name
        text = fragment.arguments or ""
        if not call.custom and text in ("", "{}") and null_arguments(extras):
            text = ""
            inner["arguments"] = None  # as it came (OpenRouter: a call without arguments)
        if call.custom and call.text is not None:
            call.text.append(text)
            text = ""
        elif text and "arguments" not in inner and not inner.get("name"):
            inner["arguments"] = text
            text = ""
        if inner:
            wire["custom" if call.custom else "function"] = inner
        if extras:
            merge_kept(wire, extras, CALL_MARKERS, "tool call extras")
        if len(wire) > 1:
            events.append(self.event(head, {"tool_calls": [wire]}, {}, {}))
        if text:
            piece = {"index": call.position, "function": {"arguments": text}}
            events.append(self.event(head, {"tool_calls": [piece]}, {}, {}))
        if call.custom and call.text and call.text[-1].endswith("}"):
            self.custom_input(head, call, events, whole=True)

    def custom_input(
        self,
        head: dict[str, Any],
        call: _Call,
        events: list[dict[str, Any]],
        *,
        whole: bool = False,
    ) -> None:
        """A custom call's input, once its JSON text (``{"input": ...}``) is whole."""
        text = "".join(call.text or ())
        try:
            value = json.loads(text) if text else {"input": ""}
        except ValueError:
            if whole:
                return  # not yet whole
            value = None
        if isinstance(value, dict) and isinstance(value.get("input"), str):
            given: str = value["input"]
        else:
            given = text  # not the JSON the chunks carry: the text as it came
        call.text = None
        piece = {"index": call.position, "custom": {"input": given}}
        events.append(self.event(head, {"tool_calls": [piece]}, {}, {}))
