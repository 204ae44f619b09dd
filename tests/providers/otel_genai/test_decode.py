"""Decoding GenAI records: the conventions' examples and real instrumentations' output
(``tests/payloads/otel_genai``), read leniently, with every deviation reported and
nothing dropped."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import hostile as H
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import validate_request

import chatschema
from chatschema import (
    AssistantMessage,
    ConversionError,
    NonStandardBlock,
    ReasoningBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    SystemMessage,
    TextBlock,
    ToolMessage,
    UserMessage,
)
from chatschema.providers import otel_genai as otel

PAYLOADS = Path(__file__).resolve().parents[2] / "payloads" / "otel_genai"


def records(name: str) -> dict[str, dict[str, Any]]:
    return {
        record["name"]: record["attributes"] for record in json.loads((PAYLOADS / name).read_text())
    }


SEMCONV = records("semconv_examples.json")
REGISTRY = records("semconv_registry.json")


def pydantic_ai() -> dict[str, dict[str, Any]]:
    """The recorded records of pydantic-ai (read when a test runs: absent, it skips)."""
    return records("pydantic_ai.json")


def problems(conversation: chatschema.Conversation) -> list[str]:
    return [
        p["message"]
        for p in (conversation.extras or {}).get("otel_genai", {}).get("chatschema.problems", [])
    ]


def request_side(attributes: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in attributes.items() if "output" not in key}


VALID = [name for name in SEMCONV if name not in ("multimodal inputs", "multimodal output")]


@pytest.mark.parametrize("name", VALID)
def test_the_conventions_examples_round_trip_exactly(name: str) -> None:
    attributes = request_side(SEMCONV[name])
    validate_request("otel_genai", attributes)
    conversation = otel.decode_conversation(attributes)
    assert problems(conversation) == []
    assert otel.encode(conversation) == attributes
    # and the same through JSON text, as spans hold them
    text = {
        key: json.dumps(value)
        if isinstance(value, list) and key.startswith("gen_ai.input")
        else value
        for key, value in attributes.items()
    }
    assert otel.decode_conversation(text) == conversation


def test_what_the_examples_say() -> None:
    conversation = otel.decode_conversation(request_side(SEMCONV["tool calls, span 2"]))
    user, assistant, tool = conversation.messages
    assert user == UserMessage(content="Weather in Paris?")
    assert isinstance(assistant, AssistantMessage)
    assert [(c.id, c.name, c.arguments) for c in assistant.tool_calls] == [
        ("call_VSPygqKTWdrhaFErNvMV18Yl", "get_weather", {"location": "Paris"})
    ]
    assert tool == ToolMessage(tool_call_id="call_VSPygqKTWdrhaFErNvMV18Yl", content="rainy, 57°F")
    settings = conversation.settings
    assert settings is not None
    assert (settings.model, settings.max_output_tokens, settings.top_p) == ("gpt-4", 200, 1.0)
    assert conversation.extras == {
        "otel_genai": {
            "gen_ai.provider.name": "openai",
            "gen_ai.operation.name": "chat",
            "gen_ai.response.finish_reasons": ["stop"],
        }
    }
    system = otel.decode_conversation(SEMCONV["system instructions along with chat history"])
    assert system.messages[0] == SystemMessage(
        content=[TextBlock(text="You must never tell jokes")],
        extras={"otel_genai": {"in_instructions": True}},
    )
    assert system.messages[1] == SystemMessage(content="You are a helpful bot")


def test_multimodal_inputs_with_a_part_missing_its_modality() -> None:
    conversation = otel.decode_conversation(SEMCONV["multimodal inputs"])
    blocks = conversation.messages[0].content
    assert isinstance(blocks, list)
    assert [block.type for block in blocks] == [
        "text",
        "image",
        "video",
        "file",
        "image",
        "image",
        "audio",
        "file",
    ]
    assert blocks[3] == chatschema.FileBlock(file_id="provider_fileid_123")
    assert problems(conversation) == ["a file part without a modality"]


def test_the_registry_example_with_result_and_a_spaced_id() -> None:
    conversation = otel.decode_conversation(REGISTRY["registry example of gen_ai.input.messages"])
    tool = conversation.messages[2]
    assert tool == ToolMessage(tool_call_id=" call_VSPygqKTWdrhaFErNvMV18Yl", content="rainy, 57°F")
    assert problems(conversation) == ["a tool result under 'result', not `response`"]
    encoded = otel.encode(conversation)
    validate_request("otel_genai", encoded)  # written back strictly: `response`
    assert encoded["gen_ai.input.messages"][2]["parts"][0]["response"] == "rainy, 57°F"


def test_pydantic_ai_span() -> None:
    attributes = pydantic_ai()["test_instrumented_model (version 5 defaults): span attributes"]
    conversation = otel.decode_conversation(attributes)
    messages = conversation.messages
    assert [type(m).__name__ for m in messages] == [
        "SystemMessage",  # gen_ai.system_instructions (its key comes last on the span)
        "SystemMessage",
        "UserMessage",
        "ToolMessage",
        "ToolMessage",
        "UserMessage",
        "AssistantMessage",
    ]
    assert messages[0].content == [TextBlock(text="instructions")]
    assert messages[3] == ToolMessage(
        tool_call_id="tool_call_3",
        content="tool_return_content",
        name="tool3",
        extras={"otel_genai": {"name_in_part": True, "wire_role": "user", "joined": True}},
    )
    assert messages[5].extras == {"otel_genai": {"joined": True}}
    assert problems(conversation) == ["a tool result under 'result', not `response`"] * 2
    assert conversation.settings == chatschema.GenerationSettings(model="gpt-4o", temperature=1.0)
    kept = (conversation.extras or {})["otel_genai"]
    assert kept["gen_ai.system"] == "openai" and kept["gen_ai.usage.input_tokens"] == 100
    assert "gen_ai.output.messages" in kept  # never dropped: written back by encode
    # one wire message again: the user text, the two results and the text after them
    encoded = otel.encode(conversation)
    user = encoded["gen_ai.input.messages"][1]
    assert user["role"] == "user"
    assert [part["type"] for part in user["parts"]] == [
        "text",
        "tool_call_response",
        "tool_call_response",
        "text",
    ]
    assert user["parts"][1] == {
        "type": "tool_call_response",
        "id": "tool_call_3",
        "response": "tool_return_content",
        "name": "tool3",
    }


def test_pydantic_ai_thinking_parts_and_v6_roles() -> None:
    thinking = otel.decode_conversation(pydantic_ai()["thinking parts"])
    first = thinking.messages[0]
    assert isinstance(first, AssistantMessage)
    assert first.content == [
        TextBlock(text="text1"),
        ReasoningBlock(text="thinking1"),
        TextBlock(text="text2"),
    ]
    assert problems(thinking) == ["part type 'thinking' read as 'reasoning'"] * 3
    roles = otel.decode_conversation(pydantic_ai()["request roles (version 6)"])
    assert [m.role for m in roles.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
    ]
    assert roles.messages[4].extras == {"otel_genai": {"name_in_part": True, "joined": True}}


def test_pydantic_ai_builtin_tools() -> None:
    reply = otel.decode_response(pydantic_ai()["native (built-in) tool calls"])
    blocks = reply.content
    assert isinstance(blocks, list)
    assert blocks[1] == ServerToolCallBlock(
        id="tool_call_1", name="code_execution", arguments={"code": "2 * 2"}
    )
    assert isinstance(blocks[2], ServerToolResultBlock)
    assert (blocks[2].tool_call_id, blocks[2].output) == ("tool_call_1", {"output": "4"})
    assert blocks[4] == ServerToolCallBlock(
        id="tool_call_2",
        name="web_search",
        arguments={"arguments": '{"query": "weather: San Francisco, CA", "type": "search"}'},
    )


@pytest.mark.parametrize(
    ("attributes", "expected", "message"),
    [
        (
            {
                "gen_ai.input.messages": [
                    {"role": "ai", "parts": [{"type": "text", "content": "Hi"}]}
                ]
            },
            AssistantMessage(content="Hi", extras={"otel_genai": {"wire_role": "ai"}}),
            "role 'ai' read as 'assistant'",
        ),
        (
            {"gen_ai.input.messages": [{"role": "human", "content": "Hi"}]},
            UserMessage(content="Hi", extras={"otel_genai": {"wire_role": "human"}}),
            "role 'human' read as 'user'",
        ),
        (
            {"gen_ai.input.messages": [{"role": "user", "parts": ["Hi"]}]},
            UserMessage(content="Hi"),
            "a part is a plain string, not a text part",
        ),
        (
            {"gen_ai.input.messages": ["Hi"]},
            UserMessage(content="Hi"),
            "a message is a plain string: read as user text",
        ),
        (
            {"gen_ai.system_instructions": "Be brief.", "gen_ai.input.messages": []},
            SystemMessage(content="Be brief.", extras={"otel_genai": {"in_instructions": True}}),
            "system instructions as a plain string, not a list of parts",
        ),
        (
            {"gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text"}]}]},
            UserMessage(content=[NonStandardBlock(provider="otel_genai", value={"type": "text"})]),
            "a 'text' part that does not read as one is kept as it came",
        ),
    ],
)
def test_deviations_are_read_and_reported(
    attributes: dict[str, Any], expected: Any, message: str
) -> None:
    conversation = otel.decode_conversation(attributes)
    assert conversation.messages[0] == expected
    assert message in problems(conversation)


def test_raw_tool_calls_and_odd_arguments() -> None:
    attributes = {
        "gen_ai.input.messages": [
            {
                "role": "assistant",
                "parts": [
                    {"type": "tool_call", "id": "a", "name": "f", "arguments": '{"x": 1}'},
                    {"type": "tool_call", "id": "b", "name": "f", "arguments": "args1"},
                    {"type": "tool_call", "name": "f", "arguments": [1, 2]},
                    {"type": "tool_call", "id": None, "name": "g"},
                ],
            },
            {"role": "tool", "parts": [{"type": "tool_call_response", "response": {"temp": 3}}]},
        ]
    }
    validate_request("otel_genai", attributes)
    conversation = otel.decode_conversation(attributes)
    assistant, tool = conversation.messages
    assert isinstance(assistant, AssistantMessage)
    assert [(c.id, c.name, c.arguments) for c in assistant.tool_calls] == [
        ("a", "f", {"x": 1}),
        ("otel_call_0_3", "g", {}),
    ]
    assert [(c.id, c.arguments) for c in assistant.invalid_tool_calls] == [
        ("b", "args1"),
        (None, "[1, 2]"),
    ]
    # an answer without an id answers the first call waiting
    assert isinstance(tool, ToolMessage) and tool.tool_call_id == "a"
    assert tool.content == '{"temp": 3}'
    assert otel.encode(conversation) == attributes  # every odd shape written back as it came


def test_truncated_json_text_is_kept_not_dropped() -> None:
    text = json.dumps(request_side(SEMCONV["tool calls, span 2"])["gen_ai.input.messages"])[:-20]
    conversation = otel.decode_conversation({"gen_ai.input.messages": text})
    assert conversation.messages == []
    assert conversation.extras is not None
    assert conversation.extras["otel_genai"]["gen_ai.input.messages"] == text
    assert problems(conversation)[0].startswith("not valid JSON text")
    assert otel.encode(conversation) == {"gen_ai.input.messages": text}


def test_spans_and_exported_spans() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    attributes = otel.encode([chatschema.user("Hi")], json_strings=True)
    with provider.get_tracer("test").start_as_current_span("chat", attributes=attributes):
        pass
    (span,) = exporter.get_finished_spans()
    assert otel.decode_messages(span) == [UserMessage(content="Hi")]
    exported = json.loads(span.to_json())
    assert otel.decode_messages(exported) == [UserMessage(content="Hi")]


def test_what_is_not_a_record_is_a_located_error() -> None:
    with pytest.raises(ConversionError, match="otel_genai"):
        otel.decode_conversation(42)
    with pytest.raises(ConversionError) as raised:
        otel.decode_conversation({"gen_ai.input.messages": [{"role": "user", "parts": 3}]})
    assert raised.value.message_index == 0


@pytest.mark.parametrize("seed", range(len(H.request_seeds("otel_genai"))))
def test_request_seeds_round_trip(seed: int) -> None:
    payload = H.request_seeds("otel_genai")[seed]
    try:
        validate_request("otel_genai", payload)
    except AssertionError:
        pytest.skip("not a valid record (a deviation kept for the fuzz tests)")
    assert otel.encode(otel.decode_conversation(payload), check=False) == payload


# -------------------------------------------------- neutral -> otel -> neutral

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)


@st.composite
def conversations(draw: st.DrawFn) -> dict[str, Any]:
    messages: list[Any] = []
    for turn in range(draw(st.integers(1, 4))):
        messages.append({"role": "user", "content": draw(TEXT) or "q"})
        blocks: list[Any] = []
        if draw(st.booleans()):
            blocks.append({"type": "reasoning", "text": draw(TEXT)})
        blocks.append({"type": "text", "text": draw(TEXT) or "a"})
        content: Any = blocks[0]["text"] if len(blocks) == 1 else blocks  # canonical form
        calls = [
            {"id": f"call_{turn}_{n}", "name": "f", "arguments": {"n": draw(st.integers())}}
            for n in range(draw(st.integers(0, 2)))
        ]
        assistant: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            assistant["tool_calls"] = calls
        messages.append(assistant)
        messages += [
            {"role": "tool", "tool_call_id": c["id"], "content": draw(TEXT)} for c in calls
        ]
    return {"messages": messages}


@H.fuzz_settings(100)
@given(conversations())
def test_neutral_otel_neutral_is_the_identity(conversation: dict[str, Any]) -> None:
    encoded = otel.encode(conversation)
    validate_request("otel_genai", encoded)
    decoded = otel.decode_conversation(encoded)
    assert chatschema.to_dict(decoded) == conversation
    assert otel.encode(decoded) == encoded


def test_explicit_nulls_come_back() -> None:
    attributes = {
        "gen_ai.input.messages": [
            {
                "role": "user",
                "name": None,
                "parts": [
                    {
                        "type": "uri",
                        "modality": "image",
                        "mime_type": None,
                        "uri": "https://e.x/a.png",
                    }
                ],
            }
        ],
        "gen_ai.tool.definitions": [
            {"type": "function", "name": "f", "description": None, "parameters": None}
        ],
    }
    validate_request("otel_genai", attributes)
    assert otel.encode(otel.decode_conversation(attributes)) == attributes


def test_the_decoders_fast_path_gives_what_the_general_path_gives() -> None:
    """Plain text messages skip the general reader (``decode.FAST``): the same models,
    state for state, on every record and seed and on plain and near-plain messages."""
    decode = importlib.import_module("chatschema.providers.otel_genai.decode")
    near = [
        {"role": "user", "parts": []},
        {"role": "assistant", "parts": [{"type": "text", "content": ""}]},
        {"role": "system", "parts": [{"type": "text", "content": "x", "id": "t1"}]},
        {"role": "tool", "parts": [{"type": "text", "content": "x"}]},
        {"role": "user", "parts": [{"type": "text", "content": 3}]},
        {
            "role": "user",
            "parts": [{"type": "text", "content": "a"}, {"type": "text", "content": "b"}],
        },
        {"role": "user", "parts": [{"type": "text", "content": "x"}], "name": "bob"},
    ]
    payloads = [
        *(
            record
            for name in ("semconv_examples.json", "pydantic_ai.json")
            for record in records(name).values()
        ),
        *H.request_seeds("otel_genai"),
        {"gen_ai.input.messages": near},
    ]
    for payload in payloads:
        fast = otel.decode_conversation(payload)
        decode.FAST = False
        try:
            general = otel.decode_conversation(payload)
        finally:
            decode.FAST = True
        assert fast == general
        assert [m.model_fields_set for m in fast.messages] == [
            m.model_fields_set for m in general.messages
        ]
