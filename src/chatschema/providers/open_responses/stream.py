"""``decode_stream``: Open Responses streaming events as chunks.

The events are the Responses API's (``response.output_text.delta``,
``response.reasoning_text.delta`` ...): the Responses codec's per-event state runs
them, and each chunk it makes is named as this format (:func:`~.mirror.outbound`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import TextBlock

from chatschema._wire import content_chunk, text_block
from chatschema.errors import ChatSchemaError
from chatschema.providers._common.drive import Incomplete, drive, incomplete_policy
from chatschema.providers.open_responses.mirror import outbound, rename_error
from chatschema.providers.open_responses.resource import shared_event
from chatschema.providers.open_responses.wire import NAME
from chatschema.providers.openai_responses.stream import _Stream

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
    """Decode an Open Responses stream into ``AssistantMessageChunk`` objects, lazily.

    ``events`` are the parsed events, the openai SDK's ``ResponseStreamEvent``
    objects, or the SSE body (``bytes`` / ``str`` pieces cut anywhere), sync or async
    (an async source gives an async generator). The chunks are those
    :func:`chatschema.providers.openai_responses.decode_stream` makes, named as this
    format; assembled, they are what :func:`~.decode.decode_response` makes of the
    final response. Reading stops at ``response.completed`` /
    ``response.incomplete``; a source left early is closed.

    Raises:
        ConversionError: for ``error`` and ``response.failed`` events and malformed
            events (unknown event types are skipped).
        StreamIncompleteError: for a stream that ended before its final event
            (under ``incomplete="error"``; ``"keep"`` marks the last chunk).
        OptionError: for an ``incomplete`` other than ``"error"`` or ``"keep"``.
    """
    policy = incomplete_policy(incomplete)
    stream = _Stream()

    def step(event: Any) -> list[AssistantMessageChunk]:
        return [outbound(chunk) for chunk in stream.event(shared_event(event))]

    def end() -> list[AssistantMessageChunk]:
        return [outbound(chunk) for chunk in stream.flush()]

    def text_chunk(
        cls: type[AssistantMessageChunk], delta: tuple[str, int]
    ) -> AssistantMessageChunk:
        return content_chunk(cls, [text_block(TextBlock, *delta)])

    return drive(
        events,
        provider=NAME,
        fast=stream.text_delta,
        build=text_chunk,
        step=step,
        end=end,
        done=lambda: stream.finished,
        errors=_renamed,
        missing=stream.missing,
        incomplete=policy,
    )


def _renamed(error: Exception) -> Exception | None:
    """The shared codec's errors named as this format's (others as they are)."""
    return rename_error(error) if isinstance(error, ChatSchemaError) else None  # type: ignore[return-value]
