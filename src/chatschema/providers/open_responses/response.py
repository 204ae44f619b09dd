"""The server side: ``encode_response`` and ``encode_stream``, a message as a server answers.

The ``ResponseResource`` body and the streaming events are the Responses API's; the
Responses codec's writers make them from the message named as that codec reads it
(:func:`~.mirror.inbound`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.message import AssistantMessage
from typing_extensions import Unpack

from chatschema.providers import openai_responses as responses
from chatschema.providers._common.respond import Reply, ReplyOptions, as_message, write_stream
from chatschema.providers.open_responses.mirror import inbound, outbound, renamed_errors
from chatschema.providers.open_responses.resource import whole_event, whole_response
from chatschema.providers.open_responses.wire import INNER, NAME
from chatschema.providers.openai_responses.events import Writer
from chatschema.providers.openai_responses.response import frame, message_chunk

__all__ = ["encode_response", "encode_stream"]


def encode_response(message: Any, **options: Unpack[ReplyOptions]) -> dict[str, Any]:
    """An AssistantMessage as the ``ResponseResource`` body an Open Responses server answers.

    What :func:`chatschema.providers.openai_responses.encode_response` writes (output
    items, ``status``, ``usage``; ids the message lacks made in the API's shape),
    with this format's compaction blocks as ``compaction`` items and every property
    the OpenAPI document's ``ResponseResource`` requires (null, or a request's
    default, where the message has no value);
    ``encode_response(decode_response(body))`` is the body, nulls aside.

    Raises:
        ValidationError / ConversionError: for input that is not an AssistantMessage.
        OptionError: for unknown options or bad values.
        UnsupportedContentError: for content a response cannot carry, under
            ``unsupported="error"``.
    """
    msg = as_message(message, NAME)
    with renamed_errors():
        return whole_response(responses.encode_response(inbound(msg), **options))


class _Writer:
    """The Responses event writer, fed chunks named as the Responses codec reads them."""

    __slots__ = ("inner",)

    def __init__(self, inner: Writer) -> None:
        self.inner = inner

    def feed(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """The events this chunk makes."""
        with renamed_errors():
            return [whole_event(event) for event in self.inner.feed(inbound(chunk))]

    def end(self) -> list[dict[str, Any]]:
        """The events that close the stream."""
        with renamed_errors():
            return [whole_event(event) for event in self.inner.end()]


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
    """A message or chunks (sync or async) as an Open Responses server's streaming events.

    The Responses API's events, in its order (``response.created``, the items'
    events, ``response.completed`` with the whole response), each with its
    ``sequence_number``, raw reasoning text as the document's
    ``response.reasoning.delta`` / ``.done``; with ``sse=True`` the bytes of the
    HTTP body.

    Raises:
        OptionError: for unknown options or bad values (at the call).
        ConversionError: for a stream item that is not a chunk (when iterated).
        UnsupportedContentError: for content the format cannot stream, under
            ``unsupported="error"`` (when iterated).
    """
    with renamed_errors():  # (ids made as encode_response makes them: the shared seeds)
        reply = Reply.resolve(INNER, dict(options))
    if isinstance(source, AssistantMessage):
        source = outbound(message_chunk(inbound(source)))
    writer = _Writer(Writer(reply))
    return write_stream(source, provider=NAME, writer=writer, sse=sse, frame=frame)
