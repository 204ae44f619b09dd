"""Encoding for OpenTelemetry GenAI: every value validates against the conventions'
JSON Schemas (``oracle.py`` here, strict on typed parts)."""

from __future__ import annotations

import json
from typing import Any, cast

import hostile as H
import pytest
from oracle import validate_request

import chatschema
from chatschema import UnsupportedContentError
from chatschema.errors import OptionError
from chatschema.providers import PROVIDERS, convert, get_codec
from chatschema.providers import otel_genai as otel

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}}

RICH: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "name": "alice",
            "content": [
                {"type": "text", "text": "Look"},
                {"type": "image", "base64": H.PNG, "mime_type": "image/png"},
                {"type": "image", "url": "https://example.com/a.png", "detail": "low"},
                {"type": "audio", "file_id": "file_a", "mime_type": "audio/wav"},
                {"type": "video", "url": "gs://bucket/v.mp4"},
                {"type": "file", "file_id": "file_1", "filename": "a.pdf"},
                {"type": "text-plain", "text": "notes", "title": "T"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "text": "hmm",
                    "signature": H.SIGNATURE,
                    "provider": "anthropic",
                },
                {
                    "type": "server_tool_call",
                    "id": "srv_1",
                    "name": "web_search",
                    "arguments": {"query": "q"},
                },
                {
                    "type": "server_tool_result",
                    "tool_call_id": "srv_1",
                    "output": [{"url": "https://example.com"}],
                    "status": "success",
                },
                {"type": "text", "text": "ok"},
                {"type": "refusal", "text": "no"},
            ],
            "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Oslo"}}],
            "invalid_tool_calls": [{"id": "call_2", "name": "get_weather", "arguments": "{oops"}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "-3C", "name": "get_weather"},
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "content": [
                {"type": "text", "text": "bad"},
                {"type": "image", "url": "https://e.x/i.png"},
            ],
            "status": "error",
        },
    ],
    "tools": [{"name": "get_weather", "description": "Weather.", "parameters": WEATHER}],
    "settings": {
        "model": "gpt-test",
        "max_output_tokens": 100,
        "temperature": 0.5,
        "top_p": 0.9,
        "top_k": 40,
        "stop": ["END"],
        "seed": 7,
        "presence_penalty": 0.1,
        "frequency_penalty": 0.2,
        "response_format": {"type": "json_object"},
    },
    "id": "conv_1",
}


def encoded(conversation: Any, **options: Any) -> dict[str, Any]:
    payload = otel.encode(conversation, **options)
    validate_request("otel_genai", payload)
    return payload


def test_the_whole_mapping() -> None:
    payload = encoded(RICH)
    messages = payload["gen_ai.input.messages"]
    assert messages[0] == {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]}
    assert messages[1]["name"] == "alice"
    assert messages[1]["parts"] == [
        {"type": "text", "content": "Look"},
        {"type": "blob", "modality": "image", "mime_type": "image/png", "content": H.PNG},
        {"type": "uri", "modality": "image", "uri": "https://example.com/a.png", "detail": "low"},
        {"type": "file", "modality": "audio", "mime_type": "audio/wav", "file_id": "file_a"},
        {"type": "uri", "modality": "video", "uri": "gs://bucket/v.mp4"},
        {"type": "file", "modality": "document", "file_id": "file_1", "filename": "a.pdf"},
        {"type": "text-plain", "text": "notes", "title": "T"},
    ]
    assert messages[2]["parts"] == [
        {
            "type": "reasoning",
            "content": "hmm",
            "provider": "anthropic",
            "chatschema.omitted": {"signature": {"reason": "opaque"}},
        },
        {
            "type": "server_tool_call",
            "id": "srv_1",
            "name": "web_search",
            "server_tool_call": {"type": "web_search", "query": "q"},
        },
        {
            "type": "server_tool_call_response",
            "id": "srv_1",
            "server_tool_call_response": {
                "type": "web_search",
                "output": [{"url": "https://example.com"}],
                "status": "success",
            },
        },
        {"type": "text", "content": "ok"},
        {"type": "refusal", "content": "no"},
        {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Oslo"}},
        {"type": "tool_call", "id": "call_2", "name": "get_weather", "arguments": "{oops"},
    ]
    assert messages[3] == {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": "call_1", "response": "-3C"}],
        "name": "get_weather",
    }
    assert messages[4]["parts"] == [
        {
            "type": "tool_call_response",
            "id": "call_2",
            "response": [
                {"type": "text", "content": "bad"},
                {"type": "uri", "modality": "image", "uri": "https://e.x/i.png"},
            ],
            "status": "error",
        }
    ]
    assert payload["gen_ai.tool.definitions"] == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Weather.",
            "parameters": WEATHER,
        }
    ]
    settings = {key: value for key, value in payload.items() if key.startswith("gen_ai.request.")}
    assert settings == {
        "gen_ai.request.model": "gpt-test",
        "gen_ai.request.max_tokens": 100,
        "gen_ai.request.temperature": 0.5,
        "gen_ai.request.top_p": 0.9,
        "gen_ai.request.top_k": 40.0,
        "gen_ai.request.stop_sequences": ["END"],
        "gen_ai.request.seed": 7,
        "gen_ai.request.presence_penalty": 0.1,
        "gen_ai.request.frequency_penalty": 0.2,
    }
    assert type(payload["gen_ai.request.top_k"]) is float  # the registry's type: double
    assert payload["gen_ai.output.type"] == "json"
    assert payload["gen_ai.conversation.id"] == "conv_1"
    assert "gen_ai.system_instructions" not in payload


def test_a_plain_history_has_only_input_messages() -> None:
    payload = encoded([chatschema.user("Hi"), chatschema.assistant("Hello")])
    assert payload == {
        "gen_ai.input.messages": [
            {"role": "user", "parts": [{"type": "text", "content": "Hi"}]},
            {"role": "assistant", "parts": [{"type": "text", "content": "Hello"}]},
        ]
    }


def test_json_strings_are_what_spans_record() -> None:
    structured = encoded(RICH)
    text = encoded(RICH, json_strings=True)
    for key in ("gen_ai.input.messages", "gen_ai.tool.definitions"):
        assert isinstance(text[key], str)
        assert json.loads(text[key]) == structured[key]
    assert text["gen_ai.request.model"] == "gpt-test"  # scalars stay scalars
    assert otel.decode_conversation(text) == otel.decode_conversation(structured)


def test_opaque_values_are_never_exported_by_default() -> None:
    signed = {"type": "reasoning", "text": "hmm", "signature": H.SIGNATURE, "provider": "anthropic"}
    redacted = {"type": "reasoning", "encrypted_content": H.ENCRYPTED, "provider": "anthropic"}
    history = {
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": [signed, redacted, {"type": "text", "text": "Hello"}]},
        ]
    }
    payload = encoded(history)
    text = json.dumps(payload)
    assert H.SIGNATURE not in text and H.ENCRYPTED not in text
    assert payload["gen_ai.input.messages"][1]["parts"][1] == {
        "type": "reasoning",
        "content": "",
        "provider": "anthropic",
        "chatschema.omitted": {"encrypted_content": {"reason": "opaque"}},
    }
    exported = encoded(history, export_opaque=True)
    parts = exported["gen_ai.input.messages"][1]["parts"]
    assert parts[0]["signature"] == H.SIGNATURE and parts[1]["encrypted_content"] == H.ENCRYPTED
    assert "chatschema.omitted" not in parts[0]
    # an exported record reads back as the reasoning it was
    back = otel.decode_conversation(exported)
    assert chatschema.to_dict(back)["messages"] == history["messages"]


def test_other_formats_opaque_blocks_are_left_out_too() -> None:
    redacted = {"type": "redacted_thinking", "data": H.ENCRYPTED}
    compaction = {"type": "compaction", "content": "Summary.", "encrypted_content": H.ENCRYPTED}
    history = [
        chatschema.user("Hi"),
        chatschema.AssistantMessage(
            content=[
                chatschema.NonStandardBlock(provider="anthropic", value=redacted),
                chatschema.NonStandardBlock(provider="openai_responses", value=compaction),
            ]
        ),
    ]
    parts = encoded(history)["gen_ai.input.messages"][1]["parts"]
    assert H.ENCRYPTED not in json.dumps(parts)
    assert parts == [
        {
            "type": "non_standard",
            "value": {"type": "redacted_thinking"},
            "provider": "anthropic",
            "chatschema.omitted": {"data": {"reason": "opaque"}},
        },
        {
            "type": "compaction",
            "content": "Summary.",
            "provider": "openai_responses",
            "chatschema.omitted": {"encrypted_content": {"reason": "opaque"}},
        },
    ]


def test_inline_data_left_out_or_cut_says_so() -> None:
    image = [chatschema.user([chatschema.ImageBlock(base64=H.PNG, mime_type="image/png")])]
    omitted = encoded(image, inline_data="omit")["gen_ai.input.messages"][0]["parts"][0]
    assert omitted["content"] == ""
    assert omitted["chatschema.omitted"] == {
        "content": {"reason": "inline_data", "length": len(H.PNG)}
    }
    cut = encoded(image, max_inline_chars=10)["gen_ai.input.messages"][0]["parts"][0]
    assert cut["content"] == H.PNG[:8]  # whole base64 quanta
    assert cut["chatschema.omitted"] == {"content": {"reason": "truncated", "length": len(H.PNG)}}
    whole = encoded(image, max_inline_chars=len(H.PNG))["gen_ai.input.messages"][0]["parts"][0]
    assert whole["content"] == H.PNG and "chatschema.omitted" not in whole
    # the decoder knows the data is not there: the part comes back as it was, not an image
    back = otel.decode_conversation(encoded(image, inline_data="omit")).messages[0]
    assert back.content == [chatschema.NonStandardBlock(provider="otel_genai", value=omitted)]


def test_system_instructions_option() -> None:
    history = [chatschema.system("Be brief."), chatschema.system("Be kind."), chatschema.user("Hi")]
    payload = encoded(history, system_instructions=True)
    assert payload["gen_ai.system_instructions"] == [
        {"type": "text", "content": "Be brief."},
        {"type": "text", "content": "Be kind."},
    ]
    assert payload["gen_ai.input.messages"] == [
        {"role": "user", "parts": [{"type": "text", "content": "Hi"}]}
    ]
    # later system messages stay where they are
    late = [chatschema.user("Hi"), chatschema.system("Now be formal.")]
    assert "gen_ai.system_instructions" not in encoded(late, system_instructions=True)


def test_what_the_conventions_cannot_say_is_unsupported() -> None:
    conversation = {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [{"name": "get_weather", "parameters": WEATHER}],
        "tool_choice": {"type": "required"},
        "settings": {
            "reasoning_effort": "high",
            "thinking_budget": 1024,
            "response_format": {"type": "json_schema", "json_schema": {"type": "object"}},
            "temperature": 0.0,
        },
    }
    problems = otel.check(conversation)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/tool_choice", "unsupported_content"),
        ("/settings/reasoning_effort", "unsupported_content"),
        ("/settings/thinking_budget", "unsupported_content"),
        ("/settings/response_format", "unsupported_content"),
    ]
    with pytest.raises(UnsupportedContentError) as raised:
        otel.encode(conversation)
    assert raised.value.provider == "otel_genai" and len(raised.value.problems) == 4
    with pytest.raises(UnsupportedContentError, match="tool_choice"):
        otel.encode(conversation, check=False)
    dropped = encoded(conversation, unsupported="drop")
    assert dropped["gen_ai.request.temperature"] == 0.0
    assert "gen_ai.output.type" not in dropped
    assert otel.check(conversation, unsupported="drop") == []


def test_images_without_vision() -> None:
    history = [chatschema.user(["Look", chatschema.ImageBlock(url="https://e.x/a.png")])]
    assert [p.pointer for p in otel.check(history, vision=False)] == ["/messages/0/content/1"]
    assert encoded(history, vision=False, unsupported="placeholder")["gen_ai.input.messages"][0][
        "parts"
    ][1] == {
        "type": "text",
        "content": "[image (vision is off) omitted: not supported by otel_genai]",
    }


def test_reasoning_drop_leaves_all_reasoning_out() -> None:
    content: list[chatschema.ContentBlock] = [
        chatschema.ReasoningBlock(text="t"),
        chatschema.TextBlock(text="a"),
    ]
    history = [chatschema.user("Hi"), chatschema.AssistantMessage(content=content)]
    assert encoded(history, reasoning="drop")["gen_ai.input.messages"][1]["parts"] == [
        {"type": "text", "content": "a"}
    ]


def test_every_providers_reasoning_text_is_recorded() -> None:
    """Telemetry records what was said: reasoning text of any provider, never its
    opaque data (other codecs leave foreign reasoning out: it cannot be replayed)."""
    for provider in ("anthropic", "openai_responses", "gemini", None):
        fields = {"type": "reasoning", "text": "Thought.", "signature": H.SIGNATURE}
        block = chatschema.ReasoningBlock.model_validate(
            {**fields, "provider": provider} if provider else fields
        )
        history = [chatschema.user("Hi"), chatschema.AssistantMessage(content=[block])]
        text = json.dumps(encoded(history))
        assert "Thought." in text and H.SIGNATURE not in text


def test_hosted_tools_of_any_format_are_recorded() -> None:
    conversation = get_codec("anthropic").decode_conversation(
        {
            "messages": [{"role": "user", "content": "news?"}],
            "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
        }
    )
    assert encoded(conversation)["gen_ai.tool.definitions"] == [
        {"type": "web_search_20250305", "name": "web_search", "provider": "anthropic"}
    ]


def test_options() -> None:
    with pytest.raises(OptionError, match=r"unknown option 'visoin'.*json_strings"):
        otel.encode([chatschema.user("x")], visoin=False)  # type: ignore[call-arg]
    for name, value in (
        ("json_strings", 1),
        ("inline_data", "cut"),
        ("max_inline_chars", -1),
        ("max_inline_chars", True),
        ("unsupported", "ignore"),
    ):
        with pytest.raises(OptionError):
            otel.encode([chatschema.user("x")], **cast(Any, {name: value}))


@pytest.mark.parametrize("source", [p for p in PROVIDERS if p != "otel_genai"])
def test_every_formats_requests_convert_to_valid_attributes(source: str) -> None:
    """Recorded and hand-written requests of the other formats: the attributes validate,
    no opaque value is written, and what was refused is named."""
    try:
        seeds = H.request_seeds(source)
    except KeyError:
        pytest.skip(f"no seeds for {source} yet")
    converted = 0
    for seed in seeds:
        try:
            payload = convert(seed, source=source, target="otel_genai", unsupported="drop")
        except chatschema.ConversionError:
            continue
        validate_request("otel_genai", payload)
        text = json.dumps(payload)
        assert H.SIGNATURE not in text and H.ENCRYPTED not in text
        converted += 1
    assert converted >= 1


def test_tool_parameters_must_be_a_draft_07_schema() -> None:
    """The conventions: parameters "MUST conform to JSON Schema draft-07"."""
    bad = {"type": ["object", "object"]}  # draft-07: type arrays are unique
    conversation = {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [{"name": "f", "parameters": bad}, {"name": "g", "parameters": WEATHER}],
    }
    assert [(p.pointer, p.keyword) for p in otel.check(conversation)] == [
        ("/tools/0/parameters", "unsupported_content")
    ]
    with pytest.raises(UnsupportedContentError, match="draft-07"):
        otel.encode(conversation, check=False)
    assert encoded(conversation, unsupported="drop")["gen_ai.tool.definitions"] == [
        {"type": "function", "name": "f"},
        {"type": "function", "name": "g", "parameters": WEATHER},
    ]
