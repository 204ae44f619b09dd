"""The server side: ``encode_response`` and ``encode_stream``, a message as the API answers.

The mirror of :func:`~.decode.decode_response` and :func:`~.stream.decode_stream`:
what they read comes back out (``encode_response(decode_response(body))`` is the
body, ``null`` members aside). The items are written by :mod:`.output`, the
stream's events by :mod:`.events`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.message import AssistantMessage
from typing_extensions import Unpack

from chatschema.providers._common import arguments_text, content_blocks
from chatschema.providers._common.respond import (
    Reply,
    ReplyOptions,
    as_message,
    dumps,
    frame_named,
    write_stream,
)
from chatschema.providers.openai_responses.events import Writer
from chatschema.providers.openai_responses.items import merged
from chatschema.providers.openai_responses.output import (
    Items,
    head,
    new_item_id,
    status_of,
    usage_json,
)
from chatschema.providers.openai_responses.wire import NAME

__all__ = ["encode_response", "encode_stream", "message_chunk"]


def encode_response(message: Any, **options: Unpack[ReplyOptions]) -> dict[str, Any]:
    """An AssistantMessage as the complete ``Response`` body the API answers with.

    Output items in the message's order (tool calls at their ``index``): text and
    refusal blocks as the parts of ``message`` items (consecutive blocks of one
    item id in one item), reasoning with its summary, text and
    ``encrypted_content``, ``function_call`` items with the exact argument text,
    web search and code interpreter calls, and every item decoded whole
    (``non_standard``) as it came. ``status`` and ``incomplete_details`` come from
    the finish reason, ``usage`` from the usage; the response metadata and the
    request echoes ``decode_response`` kept come back. Ids the message lacks (the
    response's, items', calls') are made in the API's shape.

    Raises:
        ValidationError / ConversionError: for input that is not an AssistantMessage.
        OptionError: for unknown options or bad values.
        UnsupportedContentError: for content a Response cannot carry (images,
            audio, another provider's server tools, a signature ...) under
            ``unsupported="error"``.
    """
    msg = as_message(message, NAME)
    reply = Reply.resolve(NAME, dict(options))
    response_id = msg.response_id or new_item_id(reply, "resp_")  # (made first, as streamed)
    output = Items(reply).message(msg)
    status, _, _ = status_of(msg)
    return head(
        msg,
        reply,
        response_id=response_id,
        model=reply.model_of(msg.model),
        status=status,
        output=output,
        usage=usage_json(msg.usage),
    )


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
    """A message or chunks (sync or async) as the API's streaming events, in order.

    ``response.created`` and ``response.in_progress`` first; per output item
    ``response.output_item.added``, its content parts, text / refusal / reasoning /
    argument deltas as the chunks bring them, and ``response.output_item.done``
    when the next item begins (or the stream ends); then ``response.completed``
    (``response.incomplete`` / ``response.failed`` by the status) with the whole
    Response, which :func:`encode_response` would write of the assembled chunks.
    Every event has its ``sequence_number``. With ``sse=True`` the events are the
    bytes of the HTTP body (``event:`` and ``data:`` lines).

    A message is written as one chunk holding it (:func:`message_chunk`), chunks
    as they come (``decode_stream``'s, or any codec's).

    Raises:
        OptionError: for unknown options or bad values (at the call).
        ConversionError: for a stream item that is not a chunk (when iterated).
        UnsupportedContentError: for content the API cannot stream, under
            ``unsupported="error"`` (when iterated).
    """
    reply = Reply.resolve(NAME, dict(options))
    if isinstance(source, AssistantMessage):
        source = message_chunk(source)
    return write_stream(source, provider=NAME, writer=Writer(reply), sse=sse, frame=frame)


_PREFIXES: dict[str, bytes] = {}


def frame(event: dict[str, Any]) -> bytes:
    """An event as ``frame_named`` frames it, each type's ``event:`` line made once.

    (The hot path of a text stream; the bytes are ``frame_named``'s.)
    """
    name: str = event["type"]
    prefix = _PREFIXES.get(name)
    if prefix is None:
        if len(_PREFIXES) > 256:  # (event types are few; unknown names are not kept)
            return frame_named(event)
        prefix = _PREFIXES[name] = b"event: " + name.encode() + b"\ndata: "
    return prefix + dumps(event) + b"\n\n"


def message_chunk(message: AssistantMessage) -> AssistantMessageChunk:
    """A whole message as one last chunk, every block and call at its item position.

    Like :func:`~chatschema.providers._common.respond.as_chunk`, but blocks and calls
    share one index space, the order :func:`encode_response` writes them in (a call
    without ``index`` after the content), and invalid tool calls are fragments with
    their raw argument text (a chunk has no ``invalid_tool_calls``).
    """
    data = message.model_dump(mode="python", exclude_unset=True, by_alias=True)
    data.pop("tool_calls", None)
    data.pop("invalid_tool_calls", None)
    fragments: list[dict[str, Any]] = []
    block_index: dict[int, int] = {}
    order = merged(content_blocks(message.content), message.tool_calls, message.invalid_tool_calls)
    for index, (kind, position, entry) in enumerate(order):
        if kind == "block":
            block_index[position] = index
            continue
        fragment: dict[str, Any] = {"index": index}
        for key in ("id", "name", "extras"):
            value = getattr(entry, key)
            if value is not None:
                fragment[key] = value
        call = message.tool_calls[position] if kind == "tool_calls" else None
        if call is not None:
            fragment["arguments"] = arguments_text(call, NAME)
        else:
            fragment["arguments"] = message.invalid_tool_calls[position].arguments or ""
        fragments.append(fragment)
    content = data.get("content")
    if isinstance(content, list):
        data["content"] = [{**block, "index": block_index[i]} for i, block in enumerate(content)]
    if fragments:
        data["tool_call_chunks"] = fragments
    data["chunk_position"] = "last"
    return AssistantMessageChunk.model_validate(data)
