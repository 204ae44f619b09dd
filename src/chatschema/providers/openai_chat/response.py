"""The server side: an AssistantMessage as a ``ChatCompletion``, or as its chunk stream.

The mirror of :func:`~.decode.decode_response` and :func:`~.stream.decode_stream`:
what they read comes back out (``encode_response(decode_response(body))`` is the
body, nulls aside; see ``docs/providers/openai_chat.md`` for what cannot).
The common reply (string content, plain function calls, nothing kept of this
format) is written directly by :func:`common_body`; every other message by the
general path (:func:`response_body`), which writes the same for the common one.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator, Mapping
from typing import Any, Final, cast, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    AudioBlock,
    ContentBlock,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    TextBlock,
)
from chatschema_models.message import AssistantMessage
from typing_extensions import Unpack

from chatschema._arguments import json_text
from chatschema.providers._common import Options, extras_of, guarded
from chatschema.providers._common.respond import (
    Reply,
    ReplyOptions,
    as_message,
    write_stream,
)
from chatschema.providers._openai import cache_breakpoint
from chatschema.providers.openai_chat.blocks import as_field, default_shape, is_audio_field
from chatschema.providers.openai_chat.details import DETAILS_TEXT, details_text, wire_detail
from chatschema.providers.openai_chat.encode import _Encoder
from chatschema.providers.openai_chat.events import EventWriter, message_chunk
from chatschema.providers.openai_chat.replies import (
    CHOICE_FIELDS,
    HEAD_FIELDS,
    PLACED,
    annotations_of,
    audio_object,
    block_what,
    finish_reason,
    metadata_of,
    opaque_values,
    openai_made,
    ordered_calls,
    reasoning_field,
    reasoning_text,
    response_id,
    wire_usage,
)
from chatschema.providers.openai_chat.request import checked, merge_kept
from chatschema.providers.openai_chat.wire import (
    BLOCK_MARKERS,
    MESSAGE_MARKERS,
    NAME,
    SHAPES,
    Shape,
)

__all__ = ["encode_response", "encode_stream"]

DONE: Final = b"data: [DONE]\n\n"
"""The end of a streamed Chat Completion (API reference: "data: [DONE]")."""


def encode_response(message: Any, **options: Unpack[ReplyOptions]) -> dict[str, Any]:
    """An AssistantMessage as a complete ``ChatCompletion`` body (JSON data).

    Args:
        message: an AssistantMessage or its JSON data.
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    The response metadata :func:`decode_response` kept (``created``,
    ``system_fingerprint``, ``service_tier``, ``logprobs``, other choices, a
    server's own keys) goes back where it came from; the ids the message lacks are
    made in OpenAI's shape (``chatcmpl-...``, ``call_...``).

    Raises:
        ConversionError: for input that is not an assistant message.
        UnsupportedContentError: for content a response cannot carry (an image, a
            reasoning signature ...), under ``unsupported="error"``, naming the block.
        OptionError: for unknown options and bad values.
    """
    if type(message) is AssistantMessage:
        body = common_body(message, Reply.resolve(NAME, options))  # type: ignore[arg-type]
        if body is not None:
            return body
    return _encode_response(message, options)


@guarded(NAME)
def _encode_response(message: Any, options: ReplyOptions) -> dict[str, Any]:
    """:func:`encode_response` of any message: the general path."""
    reply = Reply.resolve(NAME, dict(options))
    msg = as_message(message, NAME)
    return response_body(msg, reply)


@overload
def encode_stream(
    source: AsyncIterable[Any], *, sse: bool = False, **options: Unpack[ReplyOptions]
) -> AsyncGenerator[Any, None]: ...


@overload
def encode_stream(
    source: AssistantMessage | AssistantMessageChunk | Iterable[Any],
    *,
    sse: bool = False,
    **options: Unpack[ReplyOptions],
) -> Iterator[Any]: ...


def encode_stream(
    source: Any, *, sse: bool = False, **options: Unpack[ReplyOptions]
) -> Iterator[Any] | AsyncGenerator[Any, None]:
    """A message or chunks as ``chat.completion.chunk`` events, as they come.

    Args:
        source: an AssistantMessage, one AssistantMessageChunk, or an iterable of
            chunks (or their JSON data), sync or async (an async one gives an async
            generator).
        sse: give the bytes of the HTTP body (``data: <json>`` frames, then
            ``data: [DONE]``) instead of the event dicts.
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    The first event's delta carries ``role``; text, reasoning, refusal and tool-call
    fragments follow as they arrive (a tool call's first fragment has its id, type
    and name); the ``finish_reason`` chunk and, when the source has usage, a last
    chunk with ``choices: []`` and ``usage`` close the stream, as OpenAI sends them
    with ``stream_options.include_usage``.

    Raises:
        OptionError: for unknown options and bad values (at call time).
        ConversionError: (when iterated) for an item that is not a chunk.
        UnsupportedContentError: (when iterated) for content a stream cannot carry,
            under ``unsupported="error"``.
    """
    reply = Reply.resolve(NAME, dict(options))
    if isinstance(source, AssistantMessage):
        source = message_chunk(source)  # (tool calls with their exact argument text)
    writer = EventWriter(reply, sse=sse)
    return write_stream(
        source, provider=NAME, writer=writer, sse=sse, frame=writer.frame, closing=DONE
    )


# ------------------------------------------------------------------ the body


def common_body(msg: AssistantMessage, reply: Reply) -> dict[str, Any] | None:
    """The body of a common reply, written directly; None for any other message.

    The common reply: string content, no ``name``, tool calls (function calls)
    without a recorded ``index`` or extras of this format, no invalid tool calls,
    no extras or response metadata of this format. :func:`response_body` writes
    the same for it (``tests/providers/openai_chat/test_write_fast.py`` compares
    the two). Arguments too deep to write leave it to the general path, which says so.
    """
    text = msg.content
    if (
        type(text) is not str
        or msg.name is not None
        or msg.invalid_tool_calls
        or (msg.extras and NAME in msg.extras)
        or (msg.response_metadata and NAME in msg.response_metadata)
    ):
        return None
    wire: dict[str, Any] = {
        "role": "assistant",
        "content": text if text or "content" in msg.model_fields_set else None,
        "refusal": None,
    }
    calls = msg.tool_calls
    if calls:
        wired = []
        for call in calls:
            if call.index is not None or (call.extras and NAME in call.extras):
                return None
            try:
                arguments = json_text(call.arguments)
            except RecursionError:
                return None
            function = {"name": call.name, "arguments": arguments}
            wired.append({"id": call.id, "type": "function", "function": function})
        wire["tool_calls"] = wired
    if openai_made(msg.model, msg.response_id, None):
        wire["annotations"] = []
    reason = finish_reason(msg.finish_reason, msg.raw_finish_reason, msg.provider, bool(calls))
    body: dict[str, Any] = {
        "id": msg.response_id or response_id(reply),
        "object": "chat.completion",
        "created": reply.now(),
        "model": reply.model_of(msg.model),
        "choices": [{"index": 0, "message": wire, "logprobs": None, "finish_reason": reason}],
    }
    if msg.usage is not None:
        body["usage"] = wire_usage(msg.usage, None)
    return body


def response_body(msg: AssistantMessage, reply: Reply) -> dict[str, Any]:
    """:func:`encode_response` of a checked message and resolved options."""
    meta = metadata_of(msg)
    body: dict[str, Any] = {
        "id": msg.response_id if msg.response_id else _kept(meta, "id", response_id, reply),
        "object": "chat.completion",
        "created": meta["created"] if "created" in meta else reply.now(),
        "model": msg.model if msg.model or "model" not in meta else meta["model"],
    }
    if not msg.model and "model" not in meta:
        body["model"] = reply.model_of(None)
    others = meta.get("choices")
    choice = _choice(msg, reply, meta)
    if others == [] and _empty(msg):
        body["choices"] = []  # the response had no choice (decode_response's empty message)
    else:
        extra = checked(others, "response_metadata choices") if isinstance(others, list) else []
        body["choices"] = [choice, *extra]
    usage = wire_usage(msg.usage, meta.get("usage"))
    if usage is not None:
        body["usage"] = usage
    for key in HEAD_FIELDS:
        if key in meta:
            body[key] = meta[key]
    rest = {
        key: value
        for key, value in meta.items()
        if key not in PLACED and key not in CHOICE_FIELDS and key not in HEAD_FIELDS
    }
    merge_kept(body, rest, (), "response_metadata")
    return body


def _kept(meta: Mapping[str, Any], key: str, made: Any, reply: Reply) -> Any:
    """A value decode_response kept as it came (an id that was no string), else made."""
    return checked(meta[key], key) if key in meta else made(reply)


def _empty(msg: AssistantMessage) -> bool:
    """Whether a message says nothing (no content, no tool call)."""
    return not msg.content and not msg.tool_calls and not msg.invalid_tool_calls


def _choice(msg: AssistantMessage, reply: Reply, meta: Mapping[str, Any]) -> dict[str, Any]:
    """Choice 0: the message, its finish reason, and the choice's own metadata."""
    reason = finish_reason(
        msg.finish_reason,
        msg.raw_finish_reason,
        msg.provider,
        bool(msg.tool_calls or msg.invalid_tool_calls),
    )
    choice: dict[str, Any] = {"index": meta.get("index", 0)}
    filtered = (
        "content_filter_results" in meta
        and msg.raw_finish_reason == "content_filter"
        and "content" not in msg.model_fields_set
        and _empty(msg)
    )
    if not filtered:  # Azure OpenAI: a choice its content filter stopped has no message
        choice["message"] = response_message(msg, reply, meta)
    choice["logprobs"] = checked(meta.get("logprobs"), "logprobs")
    choice["finish_reason"] = reason
    for key in CHOICE_FIELDS:
        if key in meta and key != "logprobs":
            choice[key] = checked(meta[key], key)
    return choice


# ------------------------------------------------------------------ the message


class _Parts:
    """The pieces of a response message gathered from its content blocks."""

    __slots__ = (
        "annotations",
        "audio",
        "detail_blocks",
        "details",
        "encoder",
        "field_refusal",
        "list_form",
        "parts",
        "reasoning",
        "reasoning_field",
        "refusal",
        "reply",
    )

    def __init__(self, reply: Reply, list_form: bool) -> None:
        self.reply = reply
        self.list_form = list_form  # content goes as parts (this format's list form)
        self.parts: list[dict[str, Any]] = []
        self.reasoning: list[str] = []
        self.reasoning_field = "reasoning_content"
        self.details: list[dict[str, Any]] = []  # OpenRouter's reasoning_details
        self.detail_blocks: list[ReasoningBlock] = []
        self.refusal: list[str] = []
        self.field_refusal = False
        self.annotations: list[Any] = []
        self.audio: dict[str, Any] | None = None
        self.encoder: _Encoder | None = None

    def add(self, block: ContentBlock, index: int) -> None:
        """One content block."""
        if isinstance(block, TextBlock):
            self.text(block, index)
        elif isinstance(block, ReasoningBlock):
            detail = wire_detail(block, 0, index)
            if detail is not None:
                self.details.append(detail)
                self.detail_blocks.append(block)
                return
            opaque_values(block, self.reply, index)
            text = reasoning_text(block)
            if text is not None:
                if not self.reasoning:
                    self.reasoning_field = reasoning_field(block)
                self.reasoning.append(text)
        elif isinstance(block, RefusalBlock):
            if (as_field(block) and not self.field_refusal) or not self.list_form:
                self.field_refusal = True
                self.refusal.append(block.text)
            else:
                part: dict[str, Any] = {"type": "refusal", "refusal": block.text}
                merge_kept(part, extras_of(block, NAME), BLOCK_MARKERS, "extras", 0, index)
                self.parts.append(part)
        elif (
            isinstance(block, AudioBlock)
            and self.audio is None
            and (is_audio_field(block) or (not self.list_form and block.base64 is not None))
        ):
            self.audio = audio_object(block, self.reply, index)
        elif isinstance(block, NonStandardBlock) and extras_of(block, NAME).get("part") is True:
            self.parts.append(checked(block.value, "non_standard value", 0, index))
        elif self.list_form and not isinstance(block, NonStandardBlock):
            if self.encoder is None:
                options = Options.resolve(NAME, {"unsupported": self.reply.unsupported})
                self.encoder = _Encoder(options, collect=False, explicit_system_role=False)
            found = self.encoder.part(block, 0, index, "user")
            if found is not None:
                self.parts.append(found)
        else:
            # API reference: a response message carries text, a refusal and audio only
            text = self.reply.unsupported_content(block_what(block), block_index=index)
            if text is not None:
                self.parts.append({"type": "text", "text": text})

    def text(self, block: TextBlock, index: int) -> None:
        """A text block (its citations to the message's ``annotations``)."""
        part: dict[str, Any] = {"type": "text", "text": block.text}
        if self.list_form:
            if block.cache_control is not None:
                part["prompt_cache_breakpoint"] = cache_breakpoint(block.cache_control)
            merge_kept(part, extras_of(block, NAME), BLOCK_MARKERS, "extras", 0, index)
        self.parts.append(part)
        if block.annotations:
            self.annotations.extend(annotations_of(block.annotations, self.reply, index))


def response_message(
    msg: AssistantMessage, reply: Reply, meta: Mapping[str, Any]
) -> dict[str, Any]:
    """The ``ChatCompletionMessage``: content in the form it came in, side fields, calls."""
    extras = extras_of(msg, NAME)
    wire: dict[str, Any] = {"role": "assistant"}
    if msg.name is not None:
        wire["name"] = msg.name
    content = msg.content
    recorded = extras.get("content_shape")
    own = msg.provider == NAME or recorded is not None
    default: Shape
    if isinstance(content, str):
        pieces = _Parts(reply, False)
        if content:
            pieces.parts.append({"type": "text", "text": content})
        default = "string" if "content" in msg.model_fields_set else "null"
    else:
        default = default_shape(content) if own else "string"
        list_form = own and (
            recorded in ("list", "object") or (recorded is None and default == "list")
        )
        pieces = _Parts(reply, list_form)
        for index, block in enumerate(content):
            pieces.add(block, index)
        if not own and not pieces.parts:
            default = "null"
    parts = pieces.parts
    shape: Shape = cast(Shape, recorded) if recorded in SHAPES else default
    if shape in ("null", "absent") and parts:
        shape = "string"
    if shape == "string" and any(len(part) != 2 or part["type"] != "text" for part in parts):
        shape = "list"
    if shape == "object" and len(parts) != 1:
        shape = "list"
    if shape == "null":
        wire["content"] = None
    elif shape == "string":
        wire["content"] = "\n".join(part["text"] for part in parts)
    elif shape == "list":
        wire["content"] = parts
    elif shape == "object":
        wire["content"] = parts[0]  # one part, as it came (not in a list)
    wire["refusal"] = "\n".join(pieces.refusal) if pieces.refusal else None
    if pieces.reasoning:
        wire[pieces.reasoning_field] = "\n".join(pieces.reasoning)
    if pieces.details:
        wire["reasoning_details"] = pieces.details
        derived = extras.get(DETAILS_TEXT)
        field = derived.get("field") if isinstance(derived, dict) else None
        if not pieces.reasoning and field in ("reasoning", "reasoning_content"):
            wire[field] = details_text(pieces.detail_blocks)
    calls = ordered_calls(msg, reply)
    if calls:
        wire["tool_calls"] = calls
    if pieces.annotations or openai_made(msg.model, msg.response_id, meta.get("created")):
        wire["annotations"] = pieces.annotations
    audio = meta.get("audio")
    if isinstance(audio, Mapping):  # an audio output without data: kept whole
        wire["audio"] = checked(dict(audio), "audio")
    elif pieces.audio is not None:
        wire["audio"] = pieces.audio
    merge_kept(wire, extras, MESSAGE_MARKERS, "extras", 0)
    return wire
