"""Telemetry never breaks the application: ``chatschema.telemetry`` on real
OpenTelemetry spans (the SDK's in-memory exporter).

What the GenAI conventions cannot say is left out and listed on the span, a failure
while recording is recorded and logged but never raised, and an exception of the
body sets ``error.type`` and propagates unchanged.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import chatschema
from chatschema import UnsupportedContentError, telemetry
from chatschema.errors import ConversionError
from chatschema.providers import otel_genai

# The conversation of the report: a tool choice and a reasoning effort, which the
# GenAI conventions have no attribute for.
CONVERSATION: dict[str, Any] = {
    "messages": [{"role": "user", "content": "Weather in Oslo?"}],
    "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
    "tool_choice": {"type": "required"},
    "settings": {"model": "gpt-test", "reasoning_effort": "high", "max_output_tokens": 64},
}
REPLY: dict[str, Any] = {
    "role": "assistant",
    "content": "Sunny.",
    "finish_reason": "stop",
    "model": "gpt-test-1",
    "usage": {"input_tokens": 10, "output_tokens": 3, "total_tokens": 13},
}
NO_ATTRIBUTE = "the GenAI conventions have no attribute for it"
# the encoder module (the package exports its `encode` function under that name)
otel_encode = importlib.import_module("chatschema.providers.otel_genai.encode")


class AppError(Exception):
    """The application's own exception, raised in the body."""


@pytest.fixture
def spans() -> Iterator[tuple[trace.Tracer, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider.get_tracer("test"), exporter
    provider.shutdown()


@pytest.fixture(autouse=True)
def fresh_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no failure logged yet (the WARNING is once per kind)."""
    monkeypatch.setattr(telemetry, "_LOGGED", set(), raising=False)


def only(exporter: InMemorySpanExporter) -> ReadableSpan:
    (span,) = exporter.get_finished_spans()
    return span


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        record
        for record in caplog.records
        if record.name == "chatschema.telemetry" and record.levelno >= logging.WARNING
    ]


# ------------------------------------------------- what the conventions cannot say


@pytest.mark.parametrize(
    ("extra", "pointer"),
    [
        ({"tool_choice": {"type": "auto"}}, "/tool_choice"),
        ({"settings": {"reasoning_effort": "low"}}, "/settings/reasoning_effort"),
    ],
)
def test_the_call_happens_with_a_tool_choice_or_a_reasoning_effort(
    spans: tuple[trace.Tracer, InMemorySpanExporter],
    caplog: pytest.LogCaptureFixture,
    extra: dict[str, Any],
    pointer: str,
) -> None:
    """The report: ``chat_span`` raised UnsupportedContentError before the body."""
    tracer, exporter = spans
    conversation = {"messages": [{"role": "user", "content": "Hi"}], **extra}
    with pytest.raises(UnsupportedContentError):  # the codec itself still refuses
        otel_genai.encode(conversation)
    ran = False
    with telemetry.chat_span(conversation, tracer=tracer, provider_name="openai"):
        ran = True
    assert ran
    attributes = dict(only(exporter).attributes or {})
    assert attributes["chatschema.omitted"] == (pointer,)
    assert json.loads(str(attributes["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": "Hi"}]}
    ]
    assert "chatschema.telemetry.error" not in attributes
    assert "error.type" not in attributes
    assert only(exporter).status.status_code is StatusCode.UNSET
    assert warnings_of(caplog) == []


def test_a_span_with_both_records_everything_else(
    spans: tuple[trace.Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = spans
    with telemetry.chat_span(CONVERSATION, tracer=tracer, provider_name="openai") as span:
        telemetry.record_response(span, REPLY)
    finished = only(exporter)
    assert finished.name == "chat gpt-test"
    attributes = dict(finished.attributes or {})
    assert attributes["chatschema.omitted"] == ("/tool_choice", "/settings/reasoning_effort")
    assert attributes["gen_ai.request.model"] == "gpt-test"
    assert attributes["gen_ai.request.max_tokens"] == 64
    assert json.loads(str(attributes["gen_ai.tool.definitions"]))[0]["name"] == "get_weather"
    assert attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert attributes["gen_ai.usage.output_tokens"] == 3
    # the span reads back as the conversation without what could not be said
    back = otel_genai.decode_conversation(finished)
    assert back.tool_choice is None
    assert back.messages == [chatschema.user("Weather in Oslo?")]


def test_every_unsayable_value_is_listed_whatever_the_policy() -> None:
    conversation = {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [{"name": "f", "parameters": {"type": ["object", "object"]}}],  # not draft-07
        "tool_choice": {"type": "auto"},
        "settings": {
            "reasoning_effort": "high",
            "thinking_budget": 512,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": {"type": "object"}},
            },
        },
    }
    expected = [
        "/tools/0/parameters",
        "/tool_choice",
        "/settings/reasoning_effort",
        "/settings/thinking_budget",
        "/settings/response_format",
    ]
    for options in ({}, {"unsupported": "drop"}, {"unsupported_settings": "drop"}):
        attributes = telemetry.span_attributes(conversation, **options)
        assert attributes["chatschema.omitted"] == expected, options
        assert "gen_ai.output.type" not in attributes
        assert json.loads(attributes["gen_ai.tool.definitions"]) == [
            {"type": "function", "name": "f"}
        ]


def test_an_image_the_options_refuse_is_listed_in_the_reply(
    spans: tuple[trace.Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = spans
    reply = {
        **REPLY,
        "content": [
            {"type": "text", "text": "Here:"},
            {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
        ],
    }
    with pytest.raises(UnsupportedContentError):
        otel_genai.encode_output(reply, vision=False)
    with tracer.start_as_current_span("call") as span:
        telemetry.record_response(span, reply, vision=False)
    attributes = dict(only(exporter).attributes or {})
    assert attributes["chatschema.output.omitted"] == ("/content/1",)
    assert json.loads(str(attributes["gen_ai.output.messages"]))[0]["parts"] == [
        {"type": "text", "content": "Here:"}
    ]


def test_the_refusals_read_as_sentences() -> None:
    """Each says what otel_genai cannot carry, then why: never "<why> cannot be sent to"."""
    conversation = {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [{"name": "f", "parameters": {"type": ["object", "object"]}}],
        "tool_choice": {"type": "auto"},
        "settings": {
            "reasoning_effort": "high",
            "thinking_budget": 512,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": {"type": "object"}},
            },
        },
    }
    messages = {problem.pointer: problem.message for problem in otel_genai.check(conversation)}
    assert messages["/tool_choice"] == f"otel_genai cannot carry a tool choice ({NO_ATTRIBUTE})"
    assert messages["/settings/reasoning_effort"].startswith(
        f"otel_genai cannot carry a reasoning effort ({NO_ATTRIBUTE})"
    )
    assert messages["/settings/thinking_budget"].startswith(
        f"otel_genai cannot carry a thinking budget ({NO_ATTRIBUTE})"
    )
    assert messages["/settings/response_format"].startswith(
        "otel_genai cannot carry a JSON schema for the answer "
        "(gen_ai.output.type says json, not which schema)"
    )
    assert messages["/tools/0/parameters"] == (
        "otel_genai cannot carry the parameters of tool 'f' "
        "(the GenAI conventions require a draft-07 JSON Schema)"
    )
    for message in messages.values():
        assert "cannot be sent to" not in message
    for check in (True, False):
        with pytest.raises(UnsupportedContentError) as raised:
            otel_genai.encode(
                {"messages": conversation["messages"], "tool_choice": {"type": "auto"}}, check=check
            )
        assert f"/tool_choice: otel_genai cannot carry a tool choice ({NO_ATTRIBUTE})" in str(
            raised.value
        )


# ------------------------------------------------ failures while recording


def test_a_failing_encoder_never_stops_the_body(
    spans: tuple[trace.Tracer, InMemorySpanExporter],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tracer, exporter = spans

    def broken(self: Any, conversation: Any) -> dict[str, Any]:
        raise RuntimeError("encoder bug")

    monkeypatch.setattr(otel_encode._Encoder, "run", broken)
    caplog.set_level(logging.DEBUG, logger="chatschema.telemetry")
    ran = 0
    for _ in range(2):
        with telemetry.chat_span(CONVERSATION, tracer=tracer, provider_name="openai") as span:
            ran += 1
            telemetry.record_response(span, REPLY)
    assert ran == 2
    first, second = exporter.get_finished_spans()
    for finished in (first, second):
        attributes = dict(finished.attributes or {})
        assert finished.name == "chat"
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.provider.name"] == "openai"
        assert attributes["chatschema.telemetry.error"] == "conversation: RuntimeError: encoder bug"
        assert "gen_ai.input.messages" not in attributes
        assert attributes["gen_ai.usage.input_tokens"] == 10  # the reply is recorded all the same
        (event,) = [e for e in finished.events if e.name == "chatschema.telemetry.error"]
        assert dict(event.attributes or {}) == {
            "chatschema.telemetry.stage": "conversation",
            "exception.type": "RuntimeError",
            "exception.message": "encoder bug",
        }
        assert finished.status.status_code is StatusCode.UNSET  # the call itself went well
    # logged once: a WARNING with the traceback, the same failure again at DEBUG
    (warning,) = warnings_of(caplog)
    assert "encoder bug" in warning.getMessage()
    assert warning.exc_info is not None
    debug = [
        r for r in caplog.records if r.levelno == logging.DEBUG and "encoder bug" in r.msg % r.args
    ]
    assert len(debug) == 1


@pytest.mark.parametrize(
    ("conversation", "options", "kind"),
    [
        ("not a conversation", {}, "chatschema.errors.ValidationError"),
        ({"messages": [{"role": "user", "content": 5}]}, {}, "chatschema.errors.ValidationError"),
        (CONVERSATION, {"unsuported": "drop"}, "chatschema.errors.OptionError"),
        (CONVERSATION, {"inline_data": "never"}, "chatschema.errors.OptionError"),
    ],
)
def test_input_that_cannot_be_recorded_never_stops_the_body(
    spans: tuple[trace.Tracer, InMemorySpanExporter],
    caplog: pytest.LogCaptureFixture,
    conversation: Any,
    options: dict[str, Any],
    kind: str,
) -> None:
    tracer, exporter = spans
    ran = False
    with telemetry.chat_span(conversation, tracer=tracer, **options):
        ran = True
    assert ran
    error = str((only(exporter).attributes or {})["chatschema.telemetry.error"])
    assert error.startswith(f"conversation: {kind}: ")
    assert len(warnings_of(caplog)) == 1


def test_record_and_record_response_never_raise(
    spans: tuple[trace.Tracer, InMemorySpanExporter],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tracer, exporter = spans
    with tracer.start_as_current_span("call") as span:
        telemetry.record(span, 42)
        telemetry.record_response(span, {"role": "user", "content": "not a reply"})
    events = [dict(e.attributes or {}) for e in only(exporter).events]
    assert [(e["chatschema.telemetry.stage"], e["exception.type"]) for e in events] == [
        ("conversation", "chatschema.errors.ValidationError"),
        ("response", "chatschema.errors.UnsupportedContentError"),
    ]
    assert len(warnings_of(caplog)) == 2

    # the output messages failing leaves the usage, and the other way round
    exporter.clear()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("finish_reason")

    monkeypatch.setattr(otel_encode, "encode_output_lenient", broken)
    with tracer.start_as_current_span("call") as span:
        telemetry.record_response(span, REPLY)
    attributes = dict(only(exporter).attributes or {})
    assert attributes["chatschema.telemetry.error"] == "response: KeyError: 'finish_reason'"
    assert attributes["gen_ai.response.model"] == "gpt-test-1"
    assert "gen_ai.output.messages" not in attributes


class BrokenSpan:
    """A span (or test double) that refuses every attribute."""

    def set_attributes(self, attributes: dict[str, Any]) -> None:
        raise TypeError("no attributes here")


def test_a_span_that_refuses_attributes_is_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    telemetry.record(BrokenSpan(), CONVERSATION)
    telemetry.record_response(BrokenSpan(), REPLY)
    assert [r.getMessage().split(" on the span")[0] for r in warnings_of(caplog)] == [
        "could not record the conversation",
        "could not record the response",
        "could not record the usage",
    ]
    assert all("TypeError: no attributes here" in r.getMessage() for r in warnings_of(caplog))


class FailingTracer:
    """A tracer that fails on the way in, or on the way out."""

    def __init__(self, tracer: trace.Tracer, *, on: str) -> None:
        self.tracer = tracer
        self.on = on

    @contextmanager
    def start_as_current_span(self, name: str, **kwargs: Any) -> Iterator[Any]:
        if self.on == "start":
            raise RuntimeError("tracer down")
        with self.tracer.start_as_current_span(name, **kwargs) as span:
            yield span
        raise RuntimeError("exporter down")


def test_a_failing_tracer_never_stops_the_body(
    spans: tuple[trace.Tracer, InMemorySpanExporter], caplog: pytest.LogCaptureFixture
) -> None:
    tracer, exporter = spans
    with telemetry.chat_span(CONVERSATION, tracer=FailingTracer(tracer, on="start")) as span:
        assert not span.is_recording()
        telemetry.record_response(span, REPLY)  # a non-recording span takes it silently
    with telemetry.chat_span(CONVERSATION, tracer=FailingTracer(tracer, on="end")) as span:
        assert span.is_recording()
    assert [span.name for span in exporter.get_finished_spans()] == ["chat gpt-test"]
    messages = [record.getMessage() for record in warnings_of(caplog)]
    assert len(messages) == 1  # the second failure of the kind is at DEBUG
    assert "span: RuntimeError: tracer down" in messages[0]
    # the body's own exception wins over the tracer's on the way out
    error = AppError("model call failed")
    failing = FailingTracer(tracer, on="end")
    with pytest.raises(AppError) as raised, telemetry.chat_span(CONVERSATION, tracer=failing):
        raise error
    assert raised.value is error


# ---------------------------------------------------- the body's own exception


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (AppError("model call failed"), f"{AppError.__module__}.AppError"),
        (TimeoutError("read timed out"), "TimeoutError"),
        (ConversionError("bad reply", provider="openai_chat"), "chatschema.errors.ConversionError"),
    ],
)
def test_an_exception_of_the_body_sets_error_type_and_propagates(
    spans: tuple[trace.Tracer, InMemorySpanExporter], error: Exception, kind: str
) -> None:
    tracer, exporter = spans
    with pytest.raises(type(error)) as raised, telemetry.chat_span(CONVERSATION, tracer=tracer):
        raise error
    assert raised.value is error
    assert raised.value.__context__ is None and raised.value.__cause__ is None
    finished = only(exporter)
    attributes = dict(finished.attributes or {})
    assert attributes["error.type"] == kind
    assert finished.status.status_code is StatusCode.ERROR
    assert finished.status.description == f"{type(error).__name__}: {error}"
    assert [e.name for e in finished.events] == ["exception"]
    assert "chatschema.telemetry.error" not in attributes
    assert attributes["chatschema.omitted"] == ("/tool_choice", "/settings/reasoning_effort")


def test_an_exception_of_the_body_propagates_when_recording_failed_too(
    spans: tuple[trace.Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = spans
    error = AppError("model call failed")
    with pytest.raises(AppError) as raised, telemetry.chat_span("not a conver", tracer=tracer):
        raise error
    assert raised.value is error
    attributes = dict(only(exporter).attributes or {})
    assert attributes["error.type"] == f"{AppError.__module__}.AppError"
    assert str(attributes["chatschema.telemetry.error"]).startswith("conversation: ")


# ------------------------------------------------------------------ async code


def test_in_async_code(spans: tuple[trace.Tracer, InMemorySpanExporter]) -> None:
    """``chat_span`` is a plain context manager: around an ``await`` it is the same."""
    tracer, exporter = spans
    error = AppError("stream broke")

    async def call(fail: bool) -> str:
        with telemetry.chat_span(CONVERSATION, tracer=tracer) as span:
            await asyncio.sleep(0)
            if fail:
                raise error
            telemetry.record_response(span, REPLY)
            return "done"

    assert asyncio.run(call(fail=False)) == "done"
    with pytest.raises(AppError) as raised:
        asyncio.run(call(fail=True))
    assert raised.value is error
    ok, failed = exporter.get_finished_spans()
    assert "error.type" not in (ok.attributes or {})
    assert (ok.attributes or {})["chatschema.omitted"] == (
        "/tool_choice",
        "/settings/reasoning_effort",
    )
    assert (failed.attributes or {})["error.type"] == f"{AppError.__module__}.AppError"

    async def cancelled() -> None:
        task = asyncio.create_task(slow())
        await asyncio.sleep(0)
        task.cancel()
        await task

    async def slow() -> None:
        with telemetry.chat_span(CONVERSATION, tracer=tracer):
            await asyncio.sleep(10)

    exporter.clear()
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(cancelled())
    # a cancellation is not an error of the call (as OpenTelemetry records only Exception)
    assert "error.type" not in (only(exporter).attributes or {})
