"""Recording conversations and replies on OpenTelemetry spans (GenAI conventions).

The attributes come from the ``otel_genai`` codec
(:mod:`chatschema.providers.otel_genai`); this module sets them on a span. Only
:func:`chat_span` needs the OpenTelemetry API (``pip install chatschema[otel]``),
imported when it is called: :func:`record` and :func:`record_response` take any
object with ``set_attributes`` (an OpenTelemetry span, or a test double), and
:func:`span_attributes` / :func:`response_attributes` are plain dicts.

Span attribute values are strings, numbers, booleans or lists of one of those, so
the structured attributes (``gen_ai.input.messages`` ...) are written as JSON text,
as the conventions allow on spans. Content is recorded as the codec writes it:
opaque provider data (signatures, encrypted reasoning) never, unless
``export_opaque=True``; inline data can be left out (``inline_data="omit"``) or cut
(``max_inline_chars=...``), since backends limit attribute sizes.

::

    with chat_span(conversation, provider_name="anthropic") as span:
        response = client.messages.create(**anthropic.encode(conversation), ...)
        record_response(span, anthropic.decode_response(response))
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from chatschema.errors import OptionError

__all__ = [
    "chat_span",
    "record",
    "record_response",
    "response_attributes",
    "span_attributes",
]


class AttributeSink(Protocol):
    """What :func:`record` writes to: an OpenTelemetry span's ``set_attributes``."""

    def set_attributes(self, attributes: dict[str, Any]) -> None:
        """Set several attributes at once."""


def span_attributes(
    conversation: Any,
    *,
    provider_name: str | None = None,
    operation: str = "chat",
    **options: Any,
) -> dict[str, Any]:
    """The GenAI attributes of a request, as span attribute values.

    Args:
        conversation: a Conversation, a list of messages, or their JSON-like dicts.
        provider_name: ``gen_ai.provider.name`` (``"openai"``, ``"anthropic"``,
            ``"gcp.gemini"`` ... as the conventions name them), when given.
        operation: ``gen_ai.operation.name`` (default ``"chat"``).
        **options: the codec's ``encode`` options (``unsupported``,
            ``export_opaque``, ``inline_data``, ``max_inline_chars``,
            ``system_instructions`` ...); ``json_strings`` is always on.

    Raises:
        UnsupportedContentError: what :func:`chatschema.providers.otel_genai.encode`
            raises (a tool choice, settings without an attribute) under
            ``unsupported="error"``; ``unsupported="drop"`` records the rest.
    """
    from chatschema.providers import otel_genai

    attributes: dict[str, Any] = {"gen_ai.operation.name": operation}
    if provider_name is not None:
        attributes["gen_ai.provider.name"] = provider_name
    attributes.update(otel_genai.encode(conversation, **{**options, "json_strings": True}))
    return attributes


def response_attributes(reply: Any, **options: Any) -> dict[str, Any]:
    """The GenAI attributes of a reply, as span attribute values.

    ``gen_ai.output.messages`` (JSON text), ``gen_ai.response.finish_reasons``,
    ``gen_ai.response.model``, ``gen_ai.response.id`` and the ``gen_ai.usage.*``
    token counts, each when the reply has it.

    Args:
        reply: an AssistantMessage (what a codec's ``decode_response`` gives) or its
            JSON-like dict.
        **options: the codec's ``encode`` options (``export_opaque``, ``inline_data``,
            ``max_inline_chars`` ...).
    """
    from chatschema._arguments import json_text
    from chatschema.providers import otel_genai
    from chatschema.providers._common import to_conversation

    message = to_conversation([reply]).messages[0]
    output = otel_genai.encode_output(message, **{**options, "json_strings": False})
    assert isinstance(output, list)
    attributes: dict[str, Any] = {
        otel_genai.OUTPUT_MESSAGES: json_text(output),
        "gen_ai.response.finish_reasons": [output[0]["finish_reason"]],
    }
    model = getattr(message, "model", None)
    if model is not None:
        attributes["gen_ai.response.model"] = model
    response_id = getattr(message, "response_id", None)
    if response_id is not None:
        attributes["gen_ai.response.id"] = response_id
    usage = getattr(message, "usage", None)
    if usage is not None:
        attributes["gen_ai.usage.input_tokens"] = usage.input_tokens
        attributes["gen_ai.usage.output_tokens"] = usage.output_tokens
        details = usage.input_token_details
        if details is not None and details.cache_read is not None:
            attributes["gen_ai.usage.cache_read.input_tokens"] = details.cache_read
        if details is not None and details.cache_creation is not None:
            attributes["gen_ai.usage.cache_creation.input_tokens"] = details.cache_creation
        out = usage.output_token_details
        if out is not None and out.reasoning is not None:
            attributes["gen_ai.usage.reasoning.output_tokens"] = out.reasoning
    return attributes


def record(span: AttributeSink, conversation: Any, **options: Any) -> None:
    """Set a request's GenAI attributes on a span (see :func:`span_attributes`)."""
    span.set_attributes(span_attributes(conversation, **options))


def record_response(span: AttributeSink, reply: Any, **options: Any) -> None:
    """Set a reply's GenAI attributes on a span (see :func:`response_attributes`)."""
    span.set_attributes(response_attributes(reply, **options))


@contextmanager
def chat_span(
    conversation: Any,
    *,
    tracer: Any = None,
    name: str | None = None,
    **options: Any,
) -> Iterator[Any]:
    """Start a GenAI client span with the request's attributes set on it.

    Args:
        conversation: the request's conversation.
        tracer: an OpenTelemetry tracer (default: the global tracer provider's
            ``chatschema`` tracer).
        name: the span name (default ``"chat <model>"``, or ``"chat"``).
        **options: as :func:`span_attributes` (``provider_name``, encode options).

    Yields:
        The span (kind ``CLIENT``); record the reply with :func:`record_response`.

    Raises:
        OptionError: when the OpenTelemetry API is not installed.
    """
    try:
        from opentelemetry import trace
    except ImportError:
        raise OptionError(
            "chat_span needs the OpenTelemetry API: pip install 'chatschema[otel]'"
        ) from None
    attributes = span_attributes(conversation, **options)
    if name is None:
        model = attributes.get("gen_ai.request.model")
        operation = attributes["gen_ai.operation.name"]
        name = f"{operation} {model}" if model else operation
    if tracer is None:
        tracer = trace.get_tracer("chatschema")
    with tracer.start_as_current_span(
        name, kind=trace.SpanKind.CLIENT, attributes=attributes
    ) as span:
        yield span
