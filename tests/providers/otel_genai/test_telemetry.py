"""``chatschema.telemetry``: the GenAI attributes on real OpenTelemetry spans (the SDK's
in-memory exporter), and ``import chatschema`` without OpenTelemetry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from oracle import validate_request

import chatschema
from chatschema import telemetry
from chatschema.providers import get_codec
from chatschema.providers import otel_genai as otel

CONVERSATION: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Oslo?"},
    ],
    "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
    "settings": {"model": "claude-test", "max_output_tokens": 64},
}
RESPONSE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-test-1",
    "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 2},
}


@pytest.fixture
def tracer() -> tuple[Any, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter


def test_a_chat_span_with_request_and_reply(tracer: tuple[Any, InMemorySpanExporter]) -> None:
    tracer_, exporter = tracer
    reply = get_codec("anthropic").decode_response(RESPONSE)
    with telemetry.chat_span(
        CONVERSATION, tracer=tracer_, provider_name="anthropic", system_instructions=True
    ) as span:
        telemetry.record_response(span, reply)
    (finished,) = exporter.get_finished_spans()
    assert finished.name == "chat claude-test"
    attributes = dict(finished.attributes or {})
    assert attributes["gen_ai.operation.name"] == "chat"
    assert attributes["gen_ai.provider.name"] == "anthropic"
    assert attributes["gen_ai.request.max_tokens"] == 64
    assert json.loads(str(attributes["gen_ai.system_instructions"])) == [
        {"type": "text", "content": "Be brief."}
    ]
    assert attributes["gen_ai.response.finish_reasons"] == ("tool_call",)
    assert attributes["gen_ai.response.model"] == "claude-test-1"
    assert attributes["gen_ai.response.id"] == "msg_1"
    assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (
        12,
        5,
    )
    assert attributes["gen_ai.usage.cache_read.input_tokens"] == 2
    request = {
        k: v
        for k, v in attributes.items()
        if k.startswith("gen_ai.")
        and "response" not in k
        and "usage" not in k
        and "output" not in k
    }
    validate_request("otel_genai", request)
    # the span reads back: the conversation, and the reply
    assert otel.decode_messages(finished)[1] == chatschema.user("Weather in Oslo?")
    back = otel.decode_response(finished)
    assert back.tool_calls[0].arguments == {"city": "Oslo"}
    assert (back.finish_reason, back.model) == ("tool_calls", "claude-test-1")


def test_record_on_any_span(tracer: tuple[Any, InMemorySpanExporter]) -> None:
    tracer_, exporter = tracer
    with tracer_.start_as_current_span("mine") as span:
        telemetry.record(span, [chatschema.user("Hi")], inline_data="omit")
    (finished,) = exporter.get_finished_spans()
    assert json.loads(str((finished.attributes or {})["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": "Hi"}]}
    ]


def test_attributes_are_span_attribute_values() -> None:
    attributes = telemetry.span_attributes(CONVERSATION)
    for value in attributes.values():
        assert isinstance(value, (str, int, float, bool)) or (
            isinstance(value, list) and all(isinstance(item, str) for item in value)
        )


def test_import_chatschema_does_not_import_opentelemetry() -> None:
    code = (
        "import sys, chatschema, chatschema.telemetry\n"
        "loaded = [m for m in sys.modules if m.startswith('opentelemetry')]\n"
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_decoded_span_records_again_as_span_values() -> None:
    """A record read back (its other attributes kept, output messages among them) can be
    set on a span again: every value a span attribute value."""
    path = Path(__file__).resolve().parents[2] / "payloads" / "otel_genai" / "pydantic_ai.json"
    attributes = json.loads(path.read_text())[0]["attributes"]
    conversation = otel.decode_conversation(attributes)
    again = telemetry.span_attributes(conversation, unsupported="drop")
    for key, value in again.items():
        assert isinstance(value, (str, int, float, bool)) or (
            isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value)
        ), key
    assert json.loads(again["gen_ai.output.messages"]) == attributes["gen_ai.output.messages"]
