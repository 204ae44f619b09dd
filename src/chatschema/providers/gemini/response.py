"""The server side: messages as ``generateContent`` responses and streams.

:func:`encode_response` writes an assistant message as the
``GenerateContentResponse`` body the REST API sends (camelCase); what
:func:`~chatschema.providers.gemini.decode_response` read comes back out.
:func:`encode_stream` writes a message or chunks as ``streamGenerateContent``
events (``events.py``), or the bytes of its ``?alt=sse`` body.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import TextBlock
from chatschema_models.message import AssistantMessage
from typing_extensions import Unpack

from chatschema._json import copy_json
from chatschema.providers._common.respond import (
    Reply,
    ReplyOptions,
    as_message,
    write_stream,
)
from chatschema.providers.gemini.events import FramedWriter, Writer, frame, message_chunk
from chatschema.providers.gemini.wire import NAME
from chatschema.providers.gemini.write import (
    NEUTRAL_REASONS,
    RESPONSE_ID_ALPHABET,
    Kept,
    PartWriter,
    block_reason,
    camel,
    create_time,
    finish_reason,
    has_calls,
    kept_of,
    usage_metadata,
)


def encode_response(message: Any, **options: Unpack[ReplyOptions]) -> dict[str, Any]:
    """An assistant message as a ``GenerateContentResponse`` body (REST JSON, camelCase).

    Args:
        message: an ``AssistantMessage`` or its JSON data.
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    Returns:
        ``{"candidates": [{"content": {"parts", "role": "model"}, "finishReason",
        ...}], "usageMetadata", "modelVersion", "responseId"}``: the message's blocks
        and calls as parts in their order (as ``encode`` writes a model turn), the
        finish reason as Gemini names it (the raw one when it stands for the neutral
        one), usage as ``usageMetadata`` and what ``decode_response`` kept in
        ``response_metadata["gemini"]`` back in its place, in camelCase. A prompt
        blocked (``promptFeedback.blockReason``, nothing else) has no candidates. A
        message without ``response_id`` gets a made one (23 URL-safe characters, as
        Gemini's); ``createTime`` (Vertex AI) is written when kept or asked for
        (``created``).

    Raises:
        ConversionError: for anything that is not an assistant message.
        UnsupportedContentError: for content Gemini cannot carry in a response
            (another provider's reasoning signature, other server tools, text
            annotations ...), under the ``"error"`` policy.
        OptionError: for unknown options or bad values.
    """
    msg = as_message(message, NAME)
    reply = Reply.resolve(NAME, dict(options))
    plain = _plain_body(msg, reply)
    return plain if plain is not None else _general_body(msg, reply)


def _general_body(msg: AssistantMessage, reply: Reply) -> dict[str, Any]:
    """The body of any message: parts by ``PartWriter``, kept metadata back in place."""
    kept = Kept(kept_of(msg.response_metadata))
    parts = [camel(part) for part in PartWriter(reply).message_parts(msg)]
    reason = finish_reason(
        msg.finish_reason, msg.raw_finish_reason, kept.reason_number, calls=has_calls(msg)
    )
    body: dict[str, Any] = {}
    prompt_blocked = (
        not parts
        and not kept.candidate
        and not kept.content
        and msg.finish_reason == "content_filter"
        and block_reason(kept.top) == msg.raw_finish_reason
        and msg.raw_finish_reason is not None
    )
    if not prompt_blocked:  # (a blocked prompt has no candidates: promptFeedback says it)
        content: dict[str, Any] = {"parts": parts} if parts else {}
        content["role"] = "model"
        content.update(kept.content)
        candidate: dict[str, Any] = {"content": content}
        if reason is not None:
            candidate["finishReason"] = reason
        candidate.update(kept.candidate)
        body["candidates"] = [candidate, *kept.others]
    top = dict(kept.top)
    if "promptFeedback" in top:
        body["promptFeedback"] = top.pop("promptFeedback")
    if msg.usage is not None:
        body["usageMetadata"] = usage_metadata(msg.usage, kept.usage)
    elif kept.usage is not None:
        body["usageMetadata"] = kept.usage
    body["modelVersion"] = reply.model_of(msg.model)
    created = top.pop("createTime", None) or create_time(reply)
    if created is not None:
        body["createTime"] = created
    # GenerateContentResponse.responseId: always sent, 23 URL-safe base64 characters
    body["responseId"] = msg.response_id or reply.new_id("", 23, RESPONSE_ID_ALPHABET)
    body.update(top)
    return body


def _plain_body(msg: AssistantMessage, reply: Reply) -> dict[str, Any] | None:
    """The body of a common reply, written directly; None for every other message.

    The shapes it takes: content a string or plain text blocks (no extras, no
    annotations), tool calls without extras or recorded ``index``, no invalid tool
    calls, nothing kept in ``response_metadata["gemini"]``. It writes what the
    general path writes for them (the text parts, then one ``functionCall`` per call
    with copied ``args``; no promptFeedback, nothing kept to put back).
    """
    metadata = msg.response_metadata
    if msg.invalid_tool_calls or (metadata and NAME in metadata):
        return None
    parts: list[dict[str, Any]] = []
    content = msg.content
    if type(content) is str:
        if content:
            parts.append({"text": content})
    else:
        for block in content:
            if type(block) is not TextBlock or block.extras or block.annotations:
                return None
            if block.text:  # (an empty text says nothing: no part)
                parts.append({"text": block.text})
    for call in msg.tool_calls:
        if call.extras or call.index is not None:
            return None
        function = {"name": call.name, "args": copy_json(call.arguments), "id": call.id}
        parts.append({"functionCall": function})
    content_json: dict[str, Any] = {"parts": parts, "role": "model"} if parts else {"role": "model"}
    candidate: dict[str, Any] = {"content": content_json}
    neutral, raw = msg.finish_reason, msg.raw_finish_reason
    if raw is not None:
        candidate["finishReason"] = finish_reason(neutral, raw, None, calls=bool(msg.tool_calls))
    elif neutral is not None:  # (no raw reason to keep: the neutral one's name)
        candidate["finishReason"] = NEUTRAL_REASONS.get(neutral, "OTHER")
    body: dict[str, Any] = {"candidates": [candidate]}
    usage = msg.usage
    if usage is not None:
        if usage.input_token_details is None and usage.output_token_details is None:
            body["usageMetadata"] = {  # (no details: no tool-use or thought tokens to take out)
                "promptTokenCount": max(0, usage.input_tokens),
                "candidatesTokenCount": max(0, usage.output_tokens),
                "totalTokenCount": usage.total_tokens,
            }
        else:
            body["usageMetadata"] = usage_metadata(usage, None)
    body["modelVersion"] = reply.model_of(msg.model)
    if reply.created is not None:
        body["createTime"] = create_time(reply)
    # GenerateContentResponse.responseId: always sent, 23 URL-safe base64 characters
    body["responseId"] = msg.response_id or reply.new_id("", 23, RESPONSE_ID_ALPHABET)
    return body


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
    r"""A message or chunks as ``streamGenerateContent`` events, as they come.

    Args:
        source: an ``AssistantMessage`` (written as one chunk), one
            ``AssistantMessageChunk``, or a sync or async iterable of chunks (or
            their JSON data).
        sse: give the bytes of the ``?alt=sse`` body (``data: <json>`` and a
            ``\r\n\r\n``, as Gemini frames it) instead of event dicts.
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    Returns:
        An iterator (an async generator for an async source) of events: each a
        complete ``GenerateContentResponse`` with the parts the chunk adds (text
        deltas as text parts; function calls whole, once their arguments are), the
        running ``usageMetadata`` once usage is known, ``modelVersion`` and
        ``responseId`` on every event, and the finish reason on the event of the
        chunk that brings it. ``decode_stream`` reads them back to the same chunks'
        message.

    Raises:
        OptionError: for unknown options or bad values (at the call).
        ConversionError: (when iterated) for an item that is not a chunk.
        UnsupportedContentError: (when iterated) under the ``"error"`` policy.
    """
    reply = Reply.resolve(NAME, dict(options))
    if isinstance(source, AssistantMessage):
        source = message_chunk(source)
    writer = Writer(reply)
    if sse:  # each event framed by the writer, plain text deltas straight from their text
        return write_stream(
            source, provider=NAME, writer=FramedWriter(writer), sse=False, frame=frame
        )
    return write_stream(source, provider=NAME, writer=writer, sse=False, frame=frame)
