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

Telemetry never breaks the application:

- what the conventions cannot say (a tool choice, a reasoning effort ...) is left
  out and its pointer listed in ``chatschema.omitted`` (a reply's in
  ``chatschema.output.omitted``), never raised;
- :func:`chat_span`, :func:`record` and :func:`record_response` raise nothing
  while recording: a failure (bad input, a bad option, a bug) is set on the span
  as ``chatschema.telemetry.error`` (``"<stage>: <exception type>: <message>"``)
  with an event of that name, and logged on the ``chatschema.telemetry`` logger
  (WARNING the first time each kind of failure happens, DEBUG after); the body
  of :func:`chat_span` runs all the same;
- an exception of the body sets ``error.type`` (its fully qualified class name)
  and the span status ERROR, and propagates unchanged.

::

    with chat_span(conversation, provider_name="anthropic") as span:
        response = client.messages.create(**anthropic.encode(conversation), ...)
        record_response(span, anthropic.decode_response(response))
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
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

OMITTED = "chatschema.omitted"
"""Span attribute: the pointers (in the conversation) of what the conventions cannot say."""
OUTPUT_OMITTED = "chatschema.output.omitted"
"""Span attribute: the pointers (in the reply) of what the conventions cannot say."""
TELEMETRY_ERROR = "chatschema.telemetry.error"
"""Span attribute and event name: recording failed (the span lacks some attributes)."""
STAGE = "chatschema.telemetry.stage"
"""Event attribute: what was being recorded (``conversation``, ``response``,
``usage``, ``span``)."""
ERROR_TYPE = "error.type"
"""The general conventions' attribute for the class of error an operation ended with."""

logger = logging.getLogger("chatschema.telemetry")
_LOGGED: set[tuple[str, str]] = set()  # (stage, exception type) already logged at WARNING
_MAX_LOGGED = 1024
_MAX_MESSAGE = 1000


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

    What the conventions have no attribute for (a tool choice, a reasoning effort
    or budget, a JSON schema for the answer) and what the options refuse (images
    under ``vision=False``) is left out, and its pointer listed in
    ``chatschema.omitted`` (``["/tool_choice", ...]``); ``unsupported="drop"``
    leaves it out without the list.

    Args:
        conversation: a Conversation, a list of messages, or their JSON-like dicts.
        provider_name: ``gen_ai.provider.name`` (``"openai"``, ``"anthropic"``,
            ``"gcp.gemini"`` ... as the conventions name them), when given.
        operation: ``gen_ai.operation.name`` (default ``"chat"``).
        **options: the codec's ``encode`` options (``export_opaque``,
            ``inline_data``, ``max_inline_chars``, ``system_instructions`` ...);
            ``json_strings`` is always on.

    Raises:
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    from chatschema.providers.otel_genai.encode import encode_lenient

    attributes: dict[str, Any] = {"gen_ai.operation.name": operation}
    if provider_name is not None:
        attributes["gen_ai.provider.name"] = provider_name
    encoded, problems = encode_lenient(conversation, **{**options, "json_strings": True})
    attributes.update(encoded)
    if problems:
        attributes[OMITTED] = [problem.pointer for problem in problems]
    return attributes


def response_attributes(reply: Any, **options: Any) -> dict[str, Any]:
    """The GenAI attributes of a reply, as span attribute values.

    ``gen_ai.output.messages`` (JSON text), ``gen_ai.response.finish_reasons``,
    ``gen_ai.response.model``, ``gen_ai.response.id`` and the ``gen_ai.usage.*``
    token counts, each when the reply has it. What the options refuse (images
    under ``vision=False``) is left out and listed in ``chatschema.output.omitted``.

    Args:
        reply: an AssistantMessage (what a codec's ``decode_response`` gives) or its
            JSON-like dict.
        **options: the codec's ``encode`` options (``export_opaque``, ``inline_data``,
            ``max_inline_chars`` ...).

    Raises:
        UnsupportedContentError: for a message that is not an assistant message.
        ValidationError: for input that is not a message.
        OptionError: for unknown options or bad values.
    """
    message = _reply(reply)
    attributes = _output_attributes(message, options)
    attributes.update(_reply_fields(message))
    return attributes


def record(span: AttributeSink, conversation: Any, **options: Any) -> None:
    """Set a request's GenAI attributes on a span (see :func:`span_attributes`).

    Never raises: a failure is set on the span (``chatschema.telemetry.error``)
    and logged.
    """
    _record(span, "conversation", lambda: span_attributes(conversation, **options))


def record_response(span: AttributeSink, reply: Any, **options: Any) -> None:
    """Set a reply's GenAI attributes on a span (see :func:`response_attributes`).

    Never raises: a failure is set on the span (``chatschema.telemetry.error``)
    and logged; the output messages and the usage are recorded apart, so one
    failing leaves the other.
    """
    try:
        message = _reply(reply)
    except Exception as error:
        _failed(span, "response", error)
        return
    _record(span, "response", lambda: _output_attributes(message, options))
    _record(span, "usage", lambda: _reply_fields(message))


@contextmanager
def chat_span(
    conversation: Any,
    *,
    tracer: Any = None,
    name: str | None = None,
    **options: Any,
) -> Iterator[Any]:
    """Start a GenAI client span with the request's attributes set on it.

    The body always runs: a conversation that cannot be recorded gives a span
    with ``chatschema.telemetry.error`` (and the operation and provider names),
    and a tracer that fails gives a non-recording span, both logged. An exception
    of the body sets ``error.type`` (its fully qualified class name, builtins
    without ``builtins.``) and the status ERROR, and propagates unchanged.

    Args:
        conversation: the request's conversation.
        tracer: an OpenTelemetry tracer (default: the global tracer provider's
            ``chatschema`` tracer).
        name: the span name (default ``"chat <model>"``, or ``"chat"``).
        **options: as :func:`span_attributes` (``provider_name``, encode options).

    Yields:
        The span (kind ``CLIENT``); record the reply with :func:`record_response`.

    Raises:
        OptionError: when the OpenTelemetry API is not installed (before the body).
    """
    try:
        from opentelemetry import trace
    except ImportError:
        raise OptionError(
            "chat_span needs the OpenTelemetry API: pip install 'chatschema[otel]'"
        ) from None
    failure: Exception | None = None
    try:
        attributes = span_attributes(conversation, **options)
    except Exception as error:
        failure = error
        attributes = _fallback_attributes(options)
    if name is None:
        name = _span_name(attributes)
    entered = False
    body_error: Exception | None = None
    try:
        if tracer is None:
            tracer = trace.get_tracer("chatschema")
        with tracer.start_as_current_span(
            name, kind=trace.SpanKind.CLIENT, attributes=attributes
        ) as span:
            entered = True
            if failure is not None:
                _failed(span, "conversation", failure)
            try:
                yield span
            except Exception as error:
                body_error = error
                _set_error(span, error)
                raise
    except Exception as error:
        if error is body_error:
            raise
        if body_error is not None:  # the tracer failed on the way out too: the body's wins
            _failed(None, "span", error)
            raise body_error  # noqa: B904 - the body's exception, as it was raised
        if entered:  # ending the span failed; the body is done
            _failed(None, "span", error)
            return
        if failure is not None:
            _failed(None, "conversation", failure)
        _failed(None, "span", error)
    else:
        return
    yield trace.INVALID_SPAN  # the tracer failed: the body runs without a span


# ====================================================================== helpers


def _reply(reply: Any) -> Any:
    """The reply as a neutral message."""
    from chatschema.providers._common import to_conversation

    return to_conversation([reply]).messages[0]


def _output_attributes(message: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """``gen_ai.output.messages`` and the finish reasons of a reply."""
    from chatschema._arguments import json_text
    from chatschema.providers.otel_genai import OUTPUT_MESSAGES
    from chatschema.providers.otel_genai.encode import encode_output_lenient

    output, problems = encode_output_lenient(message, **{**options, "json_strings": False})
    if not isinstance(output, list):
        raise TypeError(f"expected the output messages as a list, not {type(output).__name__}")
    attributes: dict[str, Any] = {
        OUTPUT_MESSAGES: json_text(output),
        "gen_ai.response.finish_reasons": [output[0]["finish_reason"]],
    }
    if problems:
        attributes[OUTPUT_OMITTED] = [problem.pointer for problem in problems]
    return attributes


def _reply_fields(message: Any) -> dict[str, Any]:
    """The model, response id and token counts a reply has."""
    attributes: dict[str, Any] = {}
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


def _record(span: Any, stage: str, build: Callable[[], dict[str, Any]]) -> None:
    """Set the attributes ``build`` makes; a failure is recorded and logged, not raised."""
    try:
        span.set_attributes(build())
    except Exception as error:
        _failed(span, stage, error)


def _fallback_attributes(options: Mapping[str, Any]) -> dict[str, Any]:
    """What a span says when the conversation could not be recorded."""
    operation = options.get("operation", "chat")
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": operation if isinstance(operation, str) else "chat"
    }
    provider = options.get("provider_name")
    if isinstance(provider, str):
        attributes["gen_ai.provider.name"] = provider
    return attributes


def _span_name(attributes: Mapping[str, Any]) -> str:
    """``"<operation> <model>"``, or the operation (the GenAI conventions' span name)."""
    operation = attributes.get("gen_ai.operation.name")
    if not isinstance(operation, str):
        operation = "chat"
    model = attributes.get("gen_ai.request.model")
    return f"{operation} {model}" if isinstance(model, str) and model else operation


def _error_type(error: BaseException) -> str:
    """An exception's fully qualified class name, as ``error.type`` takes it.

    Builtins go without the ``builtins.`` module (``ValueError``), as the
    conventions' examples write them.
    """
    kind = type(error)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


def _set_error(span: Any, error: Exception) -> None:
    """``error.type`` and the status ERROR, for an exception of the body."""
    try:
        from opentelemetry.trace import Status, StatusCode

        span.set_attribute(ERROR_TYPE, _error_type(error))
        span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))
    except Exception as failure:
        _failed(span, "span", failure)


def _failed(span: Any, stage: str, error: Exception) -> None:
    """Record a recording failure on the span (when there is one) and log it; never raises."""
    kind = _error_type(error)
    message = str(error)
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE] + "..."
    text = f"{stage}: {kind}: {message}"
    if span is not None:
        try:
            span.set_attributes({TELEMETRY_ERROR: text})
            add_event = getattr(span, "add_event", None)
            if callable(add_event):
                add_event(
                    TELEMETRY_ERROR,
                    {STAGE: stage, "exception.type": kind, "exception.message": message},
                )
        except Exception:  # a span that takes nothing: the log below says it
            pass
    key = (stage, kind)
    if key in _LOGGED:
        logger.debug("could not record the %s on the span: %s", stage, text)
        return
    if len(_LOGGED) < _MAX_LOGGED:
        _LOGGED.add(key)
    logger.warning(
        "could not record the %s on the span (the application goes on; later failures "
        "of this kind are logged at DEBUG): %s",
        stage,
        text,
        exc_info=error,
    )
