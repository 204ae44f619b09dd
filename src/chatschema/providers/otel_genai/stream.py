"""``decode_stream``: OpenTelemetry records complete messages, not stream events.

The GenAI conventions have no event for a streamed piece of a reply: an
instrumentation records ``gen_ai.output.messages`` once the stream has ended
(``gen_ai.response.time_to_first_chunk`` is the only trace of the stream). There is
nothing to read chunk by chunk, so this verb refuses, naming the one to use.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk

from chatschema.errors import ConversionError
from chatschema.providers._common.drive import Incomplete
from chatschema.providers.otel_genai.wire import NAME


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
    """Refuse: the GenAI conventions record complete messages, never stream events.

    The same for a sync and an async source (``docs/async.md``), whatever
    ``incomplete`` says: nothing is read.

    Raises:
        ConversionError: always, at the call (not on the first ``next``); read the
            recorded reply with :func:`chatschema.providers.otel_genai.decode_response`.
    """
    raise ConversionError(
        "OpenTelemetry GenAI records complete messages and defines no stream events: "
        "read gen_ai.output.messages with decode_response",
        provider=NAME,
    )
