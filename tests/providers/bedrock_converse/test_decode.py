"""Bedrock Converse histories: recorded requests round-trip exactly, in both blob forms."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from oracle import validate_request

import chatschema
from chatschema import (
    AssistantMessage,
    ConversionError,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolMessage,
    UserMessage,
    VideoBlock,
)
from chatschema.providers import bedrock_converse as codec
from chatschema.providers import convert
from providers.bedrock_converse.helpers import load, names

REQUESTS = names("request")


@pytest.mark.parametrize("name", REQUESTS)
def test_recorded_requests_round_trip_exactly_in_the_json_form(name: str) -> None:
    request = load(name)["request"]
    conversation = codec.decode_conversation(copy.deepcopy(request))
    assert codec.encode(conversation, check=False) == request
    validate_request("bedrock_converse", codec.encode(conversation, check=False))


@pytest.mark.parametrize("name", REQUESTS)
def test_recorded_requests_round_trip_exactly_as_boto3_gives_them(name: str) -> None:
    """The same requests with blobs as ``bytes``: they go back as ``bytes``."""
    request = codec.boto3_form(load(name)["request"])
    conversation = codec.decode_conversation(request)
    encoded = codec.encode(conversation, check=False)
    assert encoded == request
    assert codec.json_form(encoded) == load(name)["request"]
    validate_request("bedrock_converse", encoded)


@pytest.mark.parametrize("name", REQUESTS)
def test_recorded_requests_pass_check(name: str) -> None:
    """Bedrock accepted every recorded request: check finds nothing in them."""
    conversation = codec.decode_conversation(load(name)["request"])
    assert codec.check(conversation) == []


@pytest.mark.parametrize("name", REQUESTS)
def test_recorded_requests_survive_the_neutral_json(name: str) -> None:
    """Decoded, dumped to neutral JSON and read back: the same request again."""
    request = load(name)["request"]
    conversation = codec.decode_conversation(request)
    again = convert(conversation, source="neutral", target="neutral")
    assert codec.encode(chatschema.Conversation.model_validate(again), check=False) == request


def test_redacted_reasoning_is_kept_byte_for_byte() -> None:
    request = codec.boto3_form(load("request_thinking_redacted")["request"])
    blob = request["messages"][1]["content"][0]["reasoningContent"]["redactedContent"]
    assert isinstance(blob, bytes) and blob.startswith(b"Eu8E")  # Anthropic's own base64
    [_, assistant, _] = codec.decode_messages(request)
    assert isinstance(assistant, AssistantMessage)
    block = assistant.content[0]
    assert isinstance(block, ReasoningBlock)
    assert block.provider == "bedrock_converse"
    assert base64.b64decode(block.encrypted_content or "") == blob
    out = codec.encode(codec.decode_conversation(request))
    assert out["messages"][1]["content"][0]["reasoningContent"]["redactedContent"] == blob


def test_settings_and_other_keys() -> None:
    conversation = codec.decode_conversation(load("request_thinking_adaptive_effort")["request"])
    assert conversation.settings is not None
    assert conversation.settings.model == "us.anthropic.claude-sonnet-4-6"
    extras = (conversation.extras or {})["bedrock_converse"]
    # adaptive thinking and Anthropic's own output_config have no neutral field: kept
    assert extras["additionalModelRequestFields"] == {
        "thinking": {"type": "adaptive"},
        "output_config": {"effort": "high"},
    }
    assert extras["system"] == [] and extras["inferenceConfig"] == {}
    top_k = codec.decode_conversation(load("request_top_k_anthropic")["request"])
    assert top_k.settings is not None and top_k.settings.top_k == 20
    nova = codec.decode_conversation(load("request_top_k_nova")["request"])
    assert nova.settings is not None and nova.settings.top_k is None
    assert (nova.extras or {})["bedrock_converse"]["additionalModelRequestFields"] == {
        "inferenceConfig": {"topK": 20}
    }
    guarded = codec.decode_conversation(load("request_guardrail")["request"])
    assert "guardrailConfig" in (guarded.extras or {})["bedrock_converse"]
    tier = codec.decode_conversation(load("request_service_tier")["request"])
    assert (tier.extras or {})["bedrock_converse"]["serviceTier"] == {"type": "default"}


def test_request_keys_without_a_neutral_field_are_kept() -> None:
    request = {
        "modelId": "us.amazon.nova-micro-v1:0",
        "messages": [{"role": "user", "content": [{"text": "Capital of France?"}]}],
        "system": [{"text": "Be brief."}],
        "inferenceConfig": {"maxTokens": 10, "temperature": 0.5, "topP": 0.9},
        "requestMetadata": {"test": "test"},
        "additionalModelResponseFieldPaths": ["/stop_sequence"],
        "additionalModelRequestFields": {"test": "test", "top_k": 5},
        "promptVariables": {"leo": {"text": "aaaa"}},
        "performanceConfig": {"latency": "optimized"},
        "outputConfig": {
            "textFormat": {
                "type": "json_schema",
                "structure": {"jsonSchema": {"schema": '{"type":"object"}', "name": "answer"}},
            },
            "effort": "low",
        },
    }
    conversation = codec.decode_conversation(request)
    settings = conversation.settings
    assert settings is not None
    assert (settings.max_output_tokens, settings.temperature, settings.top_p) == (10, 0.5, 0.9)
    assert settings.top_k == 5 and settings.reasoning_effort == "low"
    assert settings.response_format is not None
    assert settings.response_format.type == "json_schema"
    extras = (conversation.extras or {})["bedrock_converse"]
    for key in ("requestMetadata", "additionalModelResponseFieldPaths", "promptVariables"):
        assert extras[key] == request[key]
    assert codec.encode(conversation) == request


def test_content_blocks() -> None:
    request = codec.boto3_form(load("request_cache_write_read")["request"])
    [_system, user] = codec.decode_messages(request)
    assert isinstance(user, UserMessage) and isinstance(user.content, list)
    text, document, newline, question = user.content
    assert isinstance(document, FileBlock) and document.mime_type == "text/plain"
    assert document.filename == "Document 1"
    assert isinstance(newline, TextBlock) and newline.cache_control is not None
    assert isinstance(question, TextBlock) and question.cache_control is not None
    assert isinstance(text, TextBlock) and text.cache_control is None
    # recorded with a MIME type as its format, which Converse took: kept as it came
    recorded = codec.decode_messages(load("request_video")["request"])[-1]
    assert isinstance(recorded.content, list) and isinstance(recorded.content[1], NonStandardBlock)
    s3 = {"uri": "s3://bucket/clip.mp4", "bucketOwner": "123456789012"}
    video_request = {
        "messages": [
            {
                "role": "user",
                "content": [{"video": {"format": "mp4", "source": {"s3Location": s3}}}],
            }
        ]
    }
    [video] = codec.decode_messages(video_request)
    assert isinstance(video.content, list) and isinstance(video.content[0], VideoBlock)
    assert (video.content[0].url, video.content[0].mime_type) == (s3["uri"], "video/mp4")
    assert codec.encode(codec.decode_conversation(video_request)) == video_request
    image = codec.decode_messages(load("request_tool_result_image")["request"])
    results = [message for message in image if isinstance(message, ToolMessage)]
    assert isinstance(results[0].content, list)
    assert any(isinstance(block, ImageBlock) for block in results[0].content)


def test_server_tools_and_system_tools() -> None:
    conversation = codec.decode_conversation(load("request_code_execution")["request"])
    tools = conversation.tools or []
    assert [(tool.name, tool.provider) for tool in tools] == [
        ("final_result", None),
        ("nova_code_interpreter", "bedrock_converse"),
    ]
    assistant = conversation.messages[2]
    assert isinstance(assistant, AssistantMessage) and isinstance(assistant.content, list)
    call, result = assistant.content
    assert isinstance(call, ServerToolCallBlock) and call.name == "nova_code_interpreter"
    assert isinstance(result, ServerToolResultBlock) and result.status == "success"
    assert [tool_call.name for tool_call in assistant.tool_calls] == ["final_result"]
    assert assistant.tool_calls[0].index == 2  # after the server tool's blocks


def test_json_tool_results_go_back_as_json() -> None:
    request = {
        "messages": [
            {"role": "user", "content": [{"text": "Weather?"}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "t1", "name": "w", "input": {}}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "content": [{"json": {"temp": 3.5}}, {"text": "ok"}],
                            "status": "success",
                        }
                    }
                ],
            },
        ],
        "toolConfig": {"tools": [{"toolSpec": {"name": "w", "inputSchema": {"json": {}}}}]},
    }
    messages = codec.decode_messages(request)
    result = messages[2]
    assert isinstance(result, ToolMessage) and result.name == "w"
    assert isinstance(result.content, list) and result.content[0].type == "text"
    assert codec.encode(codec.decode_conversation(request)) == request
    # converted elsewhere, the json is its text
    chat = convert(request, source="bedrock_converse", target="openai_chat")
    assert chat["messages"][2]["content"][0]["text"] == '{"temp": 3.5}'


def test_unknown_blocks_stay_non_standard_and_go_back() -> None:
    request = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"guardContent": {"text": {"text": "check me", "qualifiers": ["query"]}}},
                    {"cachePoint": {"type": "default"}},
                    {"searchResult": {"source": "s", "title": "t", "content": [{"text": "x"}]}},
                    {"document": {"format": "txt", "name": "d", "source": {"text": "doc"}}},
                ],
            }
        ]
    }
    [user] = codec.decode_messages(request)
    assert isinstance(user.content, list)
    guard, search, document = user.content
    assert isinstance(guard, NonStandardBlock) and guard.cache_control is not None
    assert isinstance(search, NonStandardBlock)
    assert isinstance(document, PlainTextBlock) and document.title == "d"
    assert codec.encode(codec.decode_conversation(request), check=False) == request
    with pytest.raises(chatschema.UnsupportedContentError):
        convert(request, source="bedrock_converse", target="openai_chat")


def test_consecutive_turns_of_one_role_stay_apart() -> None:
    request = {
        "messages": [
            {"role": "user", "content": [{"text": "a"}]},
            {"role": "user", "content": [{"text": "b"}]},
            {"role": "system", "content": [{"text": "mid"}]},
            {"role": "assistant", "content": [{"text": "c"}]},
        ]
    }
    assert codec.encode(codec.decode_conversation(request)) == request


def test_malformed_requests_are_located_conversion_errors() -> None:
    with pytest.raises(ConversionError) as caught:
        codec.decode_conversation({"messages": [{"role": "user", "content": [{"text": 3}]}]})
    assert (caught.value.message_index, caught.value.block_index) == (0, 0)
    with pytest.raises(ConversionError) as caught:
        codec.decode_conversation(
            {"messages": [{"role": "user", "content": [{"text": "a", "image": {}}]}]}
        )
    assert caught.value.message_index == 0
    with pytest.raises(ConversionError):
        codec.decode_conversation({"messages": [{"role": "tool", "content": []}]})
    bad_blob: Any = {"messages": [{"role": "user", "content": [{"image": {"format": "png"}}]}]}
    bad_blob["messages"][0]["content"][0]["image"]["source"] = {"bytes": 12}
    with pytest.raises(ConversionError):
        codec.decode_conversation(bad_blob)


@pytest.mark.parametrize(
    "block",
    [
        {"citationsContent": {"content": [{"text": "Citation here"}]}},
        {"citationsContent": {"citations": [{"title": "t", "source": "s"}]}},
        {"citationsContent": {"content": [{"text": "a "}, {"text": "b"}], "citations": []}},
        {
            "citationsContent": {
                "content": [{"text": "Paris."}],
                "citations": [
                    {
                        "title": "Paris",
                        "source": "web",
                        "sourceContent": [{"text": "Paris is the capital."}],
                        "location": {"web": {"url": "https://example.com/paris", "domain": "x"}},
                    }
                ],
            }
        },
    ],
)
def test_citations_content_round_trips(block: dict[str, Any]) -> None:
    request = {
        "messages": [
            {"role": "user", "content": [{"text": "q"}]},
            {"role": "assistant", "content": [block]},
        ]
    }
    assistant = codec.decode_messages(request)[1]
    assert isinstance(assistant.content, list) and isinstance(assistant.content[0], TextBlock)
    assert codec.encode(codec.decode_conversation(request)) == request
