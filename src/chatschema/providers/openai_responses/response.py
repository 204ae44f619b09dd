"""The server side: ``encode_response`` and ``encode_stream``, a message as the API answers.

The mirror of :func:`~.decode.decode_response` and :func:`~.stream.decode_stream`:
what they read comes back out (``encode_response(decode_response(body))`` is the
body, ``null`` members aside). The items are written by :mod:`.output`, the
stream's events by :mod:`.events`; the common reply (string content, tool calls
without extras of this format) by :func:`_plain_response`, directly.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Callable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.message import AssistantMessage
from typing_extensions import Unpack

from chatschema.providers._common import arguments_text, content_blocks, json_text
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
    if _is_plain(msg):
        return _plain_response(msg, reply)
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


def _is_plain(message: AssistantMessage) -> bool:
    """Whether ``message`` takes :func:`_plain_response`, the common reply's fast path.

    The shapes: string content; tool calls without ``index`` or extras of this
    format; no invalid tool calls; no extras or response metadata of this format.
    """
    if message.content.__class__ is not str or message.invalid_tool_calls:
        return False
    extras, metadata = message.extras, message.response_metadata
    if (extras and extras.get(NAME) is not None) or (metadata and metadata.get(NAME) is not None):
        return False
    for call in message.tool_calls:
        extras = call.extras
        if call.index is not None or (extras and extras.get(NAME) is not None):
            return False
    return True


def _plain_response(message: AssistantMessage, reply: Reply) -> dict[str, Any]:
    """The body of a message of :func:`_is_plain`'s shapes, written directly.

    The same body as the general path (``Items`` and ``head``) writes, its ids made
    in the same order: the response's, the message item's, each call's ``fc_``.
    """
    response_id = message.response_id or new_item_id(reply, "resp_")
    output: list[dict[str, Any]] = []
    text = message.content
    if text:
        part = {"type": "output_text", "annotations": [], "text": text}
        output.append(
            {
                "id": new_item_id(reply, "msg_"),
                "type": "message",
                "status": "completed",
                "content": [part],
                "role": "assistant",
            }
        )
    for call in message.tool_calls:
        # API reference, "function_call" output item: id, type, status, arguments ...
        output.append(
            {
                "id": new_item_id(reply, "fc_"),
                "type": "function_call",
                "status": "completed",
                "arguments": json_text(call.arguments),
                "call_id": call.id,
                "name": call.name,
            }
        )
    status, details, error = status_of(message)
    # the keys in BODY_ORDER's order, the request echoes at their defaults (ECHO_DEFAULTS)
    return {
        "id": response_id,
        "object": "response",
        "created_at": reply.now(),
        "status": status,
        "error": error,
        "incomplete_details": details,
        "model": reply.model_of(message.model),
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage_json(message.usage),
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

_orjson_dumps: Callable[[Any], bytes] | None
try:  # orjson when installed (the ``fast`` extra), as ``respond.dumps`` uses it
    from orjson import dumps as _orjson_dumps
except ImportError:  # pragma: no cover - dumps' stdlib encoder
    _orjson_dumps = None


def frame(event: dict[str, Any]) -> bytes:
    """An event as ``frame_named`` frames it, each type's ``event:`` line made once.

    (The hot path of a text stream: orjson called directly, ``dumps`` where it
    refuses a value; the bytes are ``frame_named``'s.)
    """
    name: str = event["type"]
    prefix = _PREFIXES.get(name)
    if prefix is None:
        if len(_PREFIXES) > 256:  # (event types are few; unknown names are not kept)
            return frame_named(event)
        prefix = _PREFIXES[name] = b"event: " + name.encode() + b"\ndata: "
    if _orjson_dumps is not None:
        try:
            return prefix + _orjson_dumps(event) + b"\n\n"
        except TypeError:  # an int beyond 64 bits ...: the stdlib's encoder (dumps)
            pass
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
