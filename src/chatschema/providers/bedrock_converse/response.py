"""The server side of Converse: a message as a ``converse`` / ``converse_stream`` response.

The mirror of :func:`~.decode.decode_response` and :func:`~.stream.decode_stream`:
what they read comes back out. A Converse response has no response id, no model and
no creation time (API reference, ConverseResponse): the ``model`` and ``created``
options are taken and have nothing to name here; ``id_seed`` makes the tool-use ids a
call lacks.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import TextBlock
from chatschema_models.message import AssistantMessage
from chatschema_models.tool import ToolCallChunk
from typing_extensions import Unpack

from chatschema._json import copy_json
from chatschema.providers._common import guarded
from chatschema.providers._common.respond import (
    Reply,
    ReplyOptions,
    as_chunk,
    as_message,
    write_stream,
)
from chatschema.providers.bedrock_converse.answer import (
    Answer,
    metadata_of,
    stop_reason,
    top_level,
    wire_usage,
)
from chatschema.providers.bedrock_converse.events import FramedWriter, StreamWriter
from chatschema.providers.bedrock_converse.eventstream import frame_event
from chatschema.providers.bedrock_converse.wire import ID, NAME

__all__ = ["encode_response", "encode_stream"]


def encode_response(message: Any, **options: Unpack[ReplyOptions]) -> dict[str, Any]:
    """A message as the body of a ``converse`` response (the REST API's JSON).

    Args:
        message: an :class:`AssistantMessage` (or its JSON data).
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    Returns:
        ``{"output": {"message": {"role": "assistant", "content": [...]}},
        "stopReason", "usage", "metrics", "additionalModelResponseFields"?, "trace"?,
        "performanceConfig"?, "serviceTier"?}``: blobs as base64 text; tool calls
        back at their ``index`` among the blocks; ``stopReason`` the message's own
        (``raw_finish_reason``) or its finish reason's; ``usage.inputTokens``
        without the cache reads and writes; ``metrics`` as kept, else
        ``{"latencyMs": 0}``. boto3's ``ResponseMetadata`` is the HTTP headers',
        not the body's: it is not written.

    Raises:
        UnsupportedContentError: for content a Converse response cannot carry,
            under ``unsupported="error"`` (naming the block).
        ConversionError: for a value that is not an assistant message.
        OptionError: for an unknown option or a bad value.
    """
    if type(message) is not AssistantMessage:  # its JSON data (parsed under the guard)
        return _parsed(message, dict(options))
    reply = Reply.resolve(NAME, dict(options))
    # the common reply outside the guard: nothing it writes is parsed or walked deeply
    plain = _plain_body(message)
    return plain if plain is not None else _answer(message, reply)


@guarded(NAME)
def _parsed(message: Any, options: dict[str, Any]) -> dict[str, Any]:
    """``encode_response`` of anything but an ``AssistantMessage``."""
    msg = as_message(message, NAME)
    reply = Reply.resolve(NAME, options)
    plain = _plain_body(msg)
    return plain if plain is not None else _answer(msg, reply)


@guarded(NAME)
def _answer(msg: AssistantMessage, reply: Reply) -> dict[str, Any]:
    """The general path of ``encode_response``: every shape, through ``Answer``."""
    answer = Answer(reply, msg)
    wire: dict[str, Any] = {"role": "assistant", "content": answer.content(msg)}
    kept = metadata_of(msg)
    others = kept.get("output")
    if isinstance(others, dict):  # output's and the message's other members, as they came
        for key, value in others.items():
            wire.setdefault(key, copy_json(value))
    has_calls = bool(msg.tool_calls or msg.invalid_tool_calls)
    reason = stop_reason(msg.raw_finish_reason, msg.finish_reason, msg.provider, has_calls)
    body: dict[str, Any] = {
        "output": {"message": wire},
        "stopReason": reason,
        "usage": wire_usage(msg.usage, kept),
    }
    rest = top_level(kept)
    body["metrics"] = rest.pop("metrics", None) or {"latencyMs": 0}
    body.update(rest)
    return body


def _plain_body(msg: AssistantMessage) -> dict[str, Any] | None:
    """The body of a common reply, written directly; None for every other message.

    The shapes it takes: content a string or plain text blocks (no extras,
    annotations or cache control), tool calls without extras or recorded ``index``
    whose ids Converse takes as they are (``wire.ID``), no invalid tool calls,
    nothing kept in ``response_metadata["bedrock_converse"]``. It writes what the
    general path (``Answer``) writes for them: the text blocks, then the
    ``toolUse`` blocks in order.
    """
    if msg.invalid_tool_calls or metadata_of(msg):
        return None
    content: list[dict[str, Any]] = []
    text = msg.content
    if type(text) is str:
        if text:
            content.append({"text": text})
    else:
        for block in text:
            if (
                type(block) is not TextBlock
                or block.extras
                or block.annotations
                or block.cache_control is not None
            ):
                return None
            content.append({"text": block.text})
    calls = msg.tool_calls
    for call in calls:
        if call.extras or call.index is not None or not ID.fullmatch(call.id):
            return None
        content.append(
            {"toolUse": {"toolUseId": call.id, "name": call.name, "input": call.arguments}}
        )
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason(
            msg.raw_finish_reason, msg.finish_reason, msg.provider, bool(calls)
        ),
        "usage": wire_usage(msg.usage, {}),
        "metrics": {"latencyMs": 0},
    }


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
    """A message or chunks as ``converse_stream`` events, each chunk's as it arrives.

    Args:
        source: an :class:`AssistantMessage`, one :class:`AssistantMessageChunk`, or
            a sync or async iterable of chunks (or of their JSON data); an async one
            gives an async generator.
        sse: give the bytes of the HTTP body instead: AWS event-stream binary
            messages (``application/vnd.amazon.eventstream``), one per event.
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    Yields:
        Events as botocore's ``EventStream`` yields them, in the REST API's JSON
        (blobs as base64 text): ``{"messageStart": ...}``, per block an optional
        ``{"contentBlockStart": ...}`` (tool calls, server tool results, images),
        its ``{"contentBlockDelta": ...}`` and ``{"contentBlockStop": ...}``, then
        ``{"messageStop": ...}`` and ``{"metadata": ...}`` (at the last chunk, or
        when the source ends). With ``sse=True``, each event's bytes.

    Raises:
        OptionError: for an unknown option or a bad value (at the call).
        ConversionError: when iterated, for an item that is not a chunk, or a tool
            call Converse cannot stream (no name; fragments after another block).
        UnsupportedContentError: when iterated, for content a Converse stream
            cannot carry, under ``unsupported="error"``.
    """
    reply = Reply.resolve(NAME, dict(options))
    if isinstance(source, AssistantMessage):
        source = _message_chunk(source)
    writer = StreamWriter(reply)
    if sse:  # each event framed by the writer, its text deltas straight from their text
        framed = FramedWriter(writer)
        return write_stream(source, provider=NAME, writer=framed, sse=False, frame=frame_event)
    return write_stream(source, provider=NAME, writer=writer, sse=False, frame=frame_event)


def _message_chunk(message: AssistantMessage) -> AssistantMessageChunk:
    """A message as one chunk, as ``encode_response`` orders it.

    ``respond.as_chunk``, with two differences: a call without a recorded ``index``
    is indexed after every block (``encode`` writes such calls last, not at their
    position among the calls), and invalid tool calls come too, as raw fragments
    (a chunk has no room for them): their arguments text goes out as the call's
    input, as the service streams it.
    """
    invalid = message.invalid_tool_calls
    if invalid:
        data = message.model_dump(mode="python", exclude_unset=True, by_alias=True)
        data.pop("invalid_tool_calls", None)
        chunk = as_chunk(AssistantMessage.model_validate(data))
    else:
        chunk = as_chunk(message)
    content = message.content
    after = (1 if content else 0) if isinstance(content, str) else len(content)
    fragments: list[ToolCallChunk] = []
    for position, (call, fragment) in enumerate(
        zip(message.tool_calls, chunk.tool_call_chunks, strict=True)
    ):
        if call.index is None:
            fragment = fragment.model_copy(update={"index": after + position})
        fragments.append(fragment)
    after += len(fragments)
    for position, wrong in enumerate(invalid):
        fields: dict[str, Any] = {
            "index": wrong.index if wrong.index is not None else after + position,
            "name": wrong.name,
            "arguments": wrong.arguments or "",
        }
        if wrong.id is not None:
            fields["id"] = wrong.id
        if wrong.extras:
            fields["extras"] = wrong.extras
        fragments.append(ToolCallChunk.model_validate(fields))
    if not fragments:
        return chunk
    return chunk.model_copy(update={"tool_call_chunks": fragments})
