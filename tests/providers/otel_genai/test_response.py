"""Replies: ``gen_ai.output.messages`` read into an AssistantMessage (finish reasons
mapped, also the raw provider words instrumentations record), and written back with
``encode_output``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatschema
from chatschema import AssistantMessage, ConversionError, ReasoningBlock, TextBlock
from chatschema.providers import get_codec
from chatschema.providers import otel_genai as otel
from providers.otel_genai.oracle import validate_value

PAYLOADS = Path(__file__).resolve().parents[2] / "payloads" / "otel_genai"
SEMCONV = {
    r["name"]: r["attributes"] for r in json.loads((PAYLOADS / "semconv_examples.json").read_text())
}


def reply(parts: list[Any], reason: Any = "stop") -> list[dict[str, Any]]:
    message: dict[str, Any] = {"role": "assistant", "parts": parts}
    if reason is not None:
        message["finish_reason"] = reason
    return [message]


def problems(message: AssistantMessage) -> list[str]:
    metadata = (message.response_metadata or {}).get("otel_genai", {})
    return [p["message"] for p in metadata.get("chatschema.problems", [])]


@pytest.mark.parametrize(
    ("wire", "neutral", "reported"),
    [
        ("stop", "stop", False),
        ("length", "length", False),
        ("content_filter", "content_filter", False),
        ("tool_call", "tool_calls", False),
        ("error", "error", False),
        ("compaction", "other", False),
        ("tool_calls", "tool_calls", True),  # OpenAI's word, recorded raw
        ("tool_use", "tool_calls", True),  # Anthropic's
        ("end_turn", "stop", True),
        ("MAX_TOKENS", "length", True),  # Gemini's
        ("SAFETY", "content_filter", True),
        ("pause_turn", "paused", True),
        ("something_new", "other", True),
    ],
)
def test_finish_reasons(wire: str, neutral: str, reported: bool) -> None:
    message = otel.decode_response(reply([{"type": "text", "content": "Hi"}], wire))
    assert (message.finish_reason, message.raw_finish_reason) == (neutral, wire)
    assert bool(problems(message)) == reported
    assert message.provider == "otel_genai"


def test_the_examples_span() -> None:
    message = otel.decode_response(SEMCONV["simple chat completion, content on span attributes"])
    assert isinstance(message.content, str)
    assert message.content.startswith(" Why did the developer bring OpenTelemetry to the party?")
    assert (message.model, message.response_id) == (
        "gpt-4-0613",
        "chatcmpl-9J3uIL87gldCFtiIbyaOvTeYBRA3l",
    )
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens) == (52, 47)
    assert message.usage.input_token_details is not None
    assert message.usage.input_token_details.cache_read == 20
    # the message has no finish_reason (newer conventions): the span's list says it
    assert (message.finish_reason, message.raw_finish_reason) == ("stop", "stop")
    metadata = (message.response_metadata or {})["otel_genai"]
    assert metadata["gen_ai.request.model"] == "gpt-4"
    assert "gen_ai.input.messages" in metadata


def test_reasoning_and_choices() -> None:
    message = otel.decode_response(
        SEMCONV["chat completion with reasoning"]["gen_ai.output.messages"]
    )
    assert isinstance(message.content, list)
    assert isinstance(message.content[0], ReasoningBlock) and isinstance(
        message.content[1], TextBlock
    )
    assert problems(message) == ["no finish_reason"]
    choices = otel.decode_response(SEMCONV["multiple choices"])
    assert (choices.response_metadata or {})["otel_genai"]["choices"] == SEMCONV[
        "multiple choices"
    ]["gen_ai.output.messages"][1:]


def test_text_and_a_single_message() -> None:
    text = json.dumps(reply([{"type": "text", "content": "Hi"}]))
    assert otel.decode_response(text).content == "Hi"
    assert otel.decode_response({"gen_ai.output.messages": text}).content == "Hi"
    assert otel.decode_response(reply([{"type": "text", "content": "Hi"}])[0]).content == "Hi"


@pytest.mark.parametrize(
    "payload",
    [[], {"gen_ai.input.messages": []}, [3], {"gen_ai.output.messages": "[{"}],
)
def test_no_output_message_is_a_located_error(payload: Any) -> None:
    with pytest.raises(ConversionError) as raised:
        otel.decode_response(payload)
    assert raised.value.provider == "otel_genai"


def test_tool_results_have_no_place_in_a_reply() -> None:
    with pytest.raises(ConversionError, match="tool results"):
        otel.decode_response(
            [
                {
                    "role": "tool",
                    "parts": [{"type": "tool_call_response", "id": "c", "response": "r"}],
                    "finish_reason": "stop",
                }
            ]
        )


@pytest.mark.parametrize(
    "parts",
    [
        [{"type": "text", "content": "Hi"}],
        [
            {"type": "reasoning", "content": "Think."},
            {"type": "text", "content": "Calling."},
            {"type": "tool_call", "id": "c1", "name": "f", "arguments": {"x": 1}},
            {"type": "text", "content": "After."},
        ],
        [{"type": "blob", "modality": "image", "mime_type": "image/png", "content": "aGk="}],
    ],
)
@pytest.mark.parametrize("reason", ["stop", "tool_call", "tool_use", "unknown"])
def test_encode_output_writes_back_what_came(parts: list[Any], reason: str) -> None:
    wire = reply(parts, reason)
    validate_value("gen_ai.output.messages", wire)
    message = otel.decode_response(wire)
    assert otel.encode_output(message) == wire


def test_encode_output_from_another_format() -> None:
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [
            {"type": "thinking", "thinking": "Hmm.", "signature": "c2ln"},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"x": 1}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    message = get_codec("anthropic").decode_response(response)
    output = otel.encode_output(message)
    validate_value("gen_ai.output.messages", output)
    assert output == [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "reasoning",
                    "content": "Hmm.",
                    "provider": "anthropic",
                    "chatschema.omitted": {"signature": {"reason": "opaque"}},
                },
                {"type": "tool_call", "id": "toolu_1", "name": "f", "arguments": {"x": 1}},
            ],
            "finish_reason": "tool_call",
        }
    ]
    assert "c2ln" not in json.dumps(output)
    text = otel.encode_output(message, json_strings=True)
    assert isinstance(text, str) and json.loads(text) == output
    # no reason known: the schema requires one
    assert otel.encode_output(chatschema.assistant("Hi"))[0]["finish_reason"] == "unknown"  # type: ignore[index]
    with pytest.raises(chatschema.UnsupportedContentError):
        otel.encode_output(chatschema.user("Hi"))
