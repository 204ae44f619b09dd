"""Writing Messages API responses and streams: the server side of the wire.

The mirror of :func:`.decode.decode_response` and :func:`.stream.decode_stream`:
:func:`encode_response` writes a message as the complete response body
(``anthropic.types.Message`` as JSON data), :func:`encode_stream` writes a message
or chunks as the stream's events (``RawMessageStreamEvent`` data, or the SSE bytes
of the HTTP body with ``sse=True``). The stream's writer is :mod:`.events`; the
pieces both share (blocks, usage, stop reason, made ids) are :mod:`.replies`. The
common reply (string content, plain tool calls, nothing kept of this format) is
written directly by :func:`common_body`; every other message by the general path,
which writes the same for the common one.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ServerToolCallBlock
from chatschema_models.message import AssistantMessage
from typing_extensions import Unpack

from chatschema.providers._common import guarded
from chatschema.providers._common.respond import (
    Reply,
    ReplyOptions,
    as_message,
    write_stream,
)
from chatschema.providers.anthropic.events import Writer
from chatschema.providers.anthropic.replies import (
    ID_LENGTH,
    MESSAGE_ID,
    SERVER_TOOL_USE_ID,
    block_wire,
    invalid_tool_use_wire,
    metadata_of,
    split_metadata,
    stop_reason,
    tool_use_wire,
    usage_wire,
)
from chatschema.providers.anthropic.request import interleave
from chatschema.providers.anthropic.wire import NAME

__all__ = ["encode_response", "encode_stream"]


def encode_response(message: Any, **options: Unpack[ReplyOptions]) -> dict[str, Any]:
    """A message as the Messages API's complete response body (JSON data).

    Args:
        message: an ``AssistantMessage`` or its JSON data.
        **options: :class:`~chatschema.providers._common.respond.ReplyOptions`
            (``created`` is accepted, but a Messages API response carries no time).

    Returns:
        ``{"id", "type": "message", "role", "model", "content", "stop_reason",
        "stop_sequence", ...,  "usage"}``: what :func:`decode_response` read comes
        back out; the tool calls go back at their ``index`` among the blocks; a
        missing response id is made (``msg_`` and 24 characters).

    Raises:
        ConversionError: for something that is not an assistant message.
        UnsupportedContentError: for content a response cannot carry (images,
            another provider's reasoning signature ...) under ``unsupported="error"``.
        OptionError: for an unknown option or a bad value.
    """
    if type(message) is AssistantMessage:
        body = common_body(message, Reply.resolve(NAME, options))  # type: ignore[arg-type]
        if body is not None:
            return body
    return _encode_response(message, options)


@guarded(NAME)
def _encode_response(message: Any, options: ReplyOptions) -> dict[str, Any]:
    """:func:`encode_response` of any message: the general path."""
    msg = as_message(message, NAME)
    reply = Reply.resolve(NAME, dict(options))
    top, extra = split_metadata(metadata_of(msg.response_metadata))
    # Messages API, "Create a Message": the keys in the API's order
    body: dict[str, Any] = {
        "id": msg.response_id or reply.new_id(MESSAGE_ID, ID_LENGTH),
        "type": "message",
        "role": "assistant",
        "model": reply.model_of(msg.model),
        "content": content_wire(msg, reply),
        "stop_reason": stop_reason(
            msg.raw_finish_reason, msg.finish_reason, msg.provider, top.get("stop_sequence")
        ),
        "stop_sequence": top.get("stop_sequence"),
    }
    for key, value in top.items():
        body.setdefault(key, value)
    body["usage"] = usage_wire(msg.usage, extra)
    return body


def common_body(msg: AssistantMessage, reply: Reply) -> dict[str, Any] | None:
    """The body of a common reply, written directly; None for any other message.

    The common reply: string content, tool calls without a recorded ``index`` or
    Anthropic extras, no invalid tool calls, no Anthropic response metadata. It
    makes no deep structure to walk (``input`` is the arguments dict, shared as the
    general path shares it), and :func:`_encode_response` writes the same for it
    (``tests/providers/anthropic/test_write_fast.py`` compares the two).
    """
    text = msg.content
    if (
        type(text) is not str
        or msg.invalid_tool_calls
        or (msg.response_metadata and NAME in msg.response_metadata)
    ):
        return None
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for call in msg.tool_calls:
        if call.index is not None or (call.extras and NAME in call.extras):
            return None
        content.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        )
    return {
        "id": msg.response_id or reply.new_id(MESSAGE_ID, ID_LENGTH),
        "type": "message",
        "role": "assistant",
        "model": reply.model_of(msg.model),
        "content": content,
        "stop_reason": stop_reason(msg.raw_finish_reason, msg.finish_reason, msg.provider, None),
        "stop_sequence": None,
        "usage": usage_wire(msg.usage, {}),
    }


def content_wire(message: AssistantMessage, reply: Reply) -> list[dict[str, Any]]:
    """The response's ``content``: the blocks, the tool calls back at their ``index``."""
    blocks: list[dict[str, Any]] = []
    content = message.content
    if isinstance(content, str):
        if content:
            blocks.append({"type": "text", "text": content})
    else:
        for position, block in enumerate(content):
            made = None
            if isinstance(block, ServerToolCallBlock) and block.id is None:
                made = reply.new_id(SERVER_TOOL_USE_ID, ID_LENGTH)
            blocks.extend(block_wire(block, reply, position, made))
    calls: list[tuple[int | None, dict[str, Any]]] = [
        (call.index, tool_use_wire(call)) for call in message.tool_calls
    ]
    for invalid in message.invalid_tool_calls:
        wire = invalid_tool_use_wire(invalid, reply)
        if wire is not None:
            calls.append((invalid.index, wire))
    return interleave(blocks, calls)


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
    """A message or chunks as the Messages API's stream events, as they come.

    Args:
        source: an ``AssistantMessage``, one ``AssistantMessageChunk``, or an
            iterable of chunks (or their JSON data), sync or async (an async source
            gives an async generator).
        sse: give the bytes of the HTTP body (``event: <type>`` / ``data: <json>``
            frames) instead of the event dicts.
        **options: :class:`~chatschema.providers._common.respond.ReplyOptions`,
            checked now, not at the first event.

    Yields:
        ``message_start`` (at the first chunk: id, model, usage so far), per block
        ``content_block_start``, its deltas (``text_delta``, ``citations_delta``,
        ``thinking_delta``, ``signature_delta``, ``input_json_delta``) and
        ``content_block_stop``, then ``message_delta`` (stop reason, cumulative
        usage) and ``message_stop`` at the chunk marked last (or the source's end).
        :func:`decode_stream` reads them back to the same chunks' message.

    Raises:
        ConversionError: for an item that is not a chunk (when iterated).
        UnsupportedContentError: under ``unsupported="error"``, for content the
            format cannot carry (when iterated).
        OptionError: for an unknown option or a bad value (at the call).
    """
    writer = Writer(Reply.resolve(NAME, dict(options)), sse=sse)
    return write_stream(source, provider=NAME, writer=writer, sse=sse, frame=writer.frame)
