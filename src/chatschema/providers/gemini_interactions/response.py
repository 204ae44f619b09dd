"""The server side: messages as ``Interaction`` bodies and interactions streams.

:func:`encode_response` writes an assistant message as the ``Interaction`` the API
answers ``POST /v1beta/interactions`` with; :func:`encode_stream` a message or
chunks as its stream events (``events.py``), or the bytes of the SSE body.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.message import AssistantMessage
from typing_extensions import Unpack

from chatschema._json import copy_json
from chatschema.providers._common.respond import Reply, ReplyOptions, as_message, write_stream
from chatschema.providers.gemini_interactions.events import Writer, frame
from chatschema.providers.gemini_interactions.usage import write_usage
from chatschema.providers.gemini_interactions.wire import NAME
from chatschema.providers.gemini_interactions.write import (
    ID_ALPHABET,
    StepWriter,
    kept_of,
    shifted,
    status_of,
)


def encode_response(message: Any, **options: Unpack[ReplyOptions]) -> dict[str, Any]:
    """An assistant message as an ``Interaction`` body.

    Args:
        message: an ``AssistantMessage`` or its JSON data.
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    Returns:
        ``{"id", "status", "model", "steps", "usage"?, ...}``: the message's blocks
        and calls as steps in their order (as ``encode`` writes an assistant turn),
        after the input steps ``decode_response`` kept; the finish reason as a
        ``status``; what ``decode_response`` kept in
        ``response_metadata["gemini_interactions"]`` back in place. A message
        without ``response_id`` gets a made one (``v1_`` and 40 characters).

    Raises:
        ConversionError: for anything that is not an assistant message.
        UnsupportedContentError: for content a response cannot carry, under
            ``"error"``.
        OptionError: for unknown options or bad values.
    """
    msg = as_message(message, NAME)
    reply = Reply.resolve(NAME, dict(options))
    kept = dict(kept_of(msg))
    echo = kept.pop("input_steps", [])
    echo = copy_json(echo) if isinstance(echo, list) else []
    steps = StepWriter(reply).model_steps(shifted(msg, len(echo)), 0)
    body: dict[str, Any] = {
        "id": msg.response_id or reply.new_id("v1_", 40, ID_ALPHABET),
        "status": status_of(msg),
        "steps": echo + steps,
    }
    if msg.model is not None or reply.model is not None:  # (Interaction.model: optional)
        body["model"] = reply.model_of(msg.model)
    usage_kept = kept.pop("usage", None)
    if msg.usage is not None:
        body["usage"] = write_usage(msg.usage, usage_kept if isinstance(usage_kept, dict) else None)
    elif usage_kept is not None:
        body["usage"] = usage_kept
    for key, value in kept.items():
        body.setdefault(key, copy_json(value))
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
    r"""A message or chunks as interactions stream events, as they come.

    Args:
        source: an ``AssistantMessage``, one ``AssistantMessageChunk``, or a sync or
            async iterable of chunks (or their JSON data).
        sse: give the bytes of the SSE body (``event: <event_type>``,
            ``data: <json>`` and a blank line) instead of event dicts.
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    Returns:
        An iterator (an async generator for an async source) of events:
        ``interaction.created``, then per step ``step.start``, its ``step.delta``
        events and ``step.stop``, then ``interaction.completed`` with the status,
        usage and what ``decode_response`` kept. ``decode_stream`` reads them back to
        the same message.

    Raises:
        OptionError: for unknown options or bad values (at the call).
        ConversionError: (when iterated) for an item that is not a chunk.
        UnsupportedContentError: (when iterated) under the ``"error"`` policy.
    """
    reply = Reply.resolve(NAME, dict(options))
    return write_stream(source, provider=NAME, writer=Writer(reply), sse=sse, frame=frame)
