"""Bedrock Converse responses: recorded ``converse`` results read into one message."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest

from chatschema import (
    ConversionError,
    ReasoningBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    to_dict,
)
from chatschema.providers import bedrock_converse as codec
from chatschema.providers import convert
from providers.bedrock_converse.helpers import load, names

RESPONSES = names("response")


@pytest.mark.parametrize("name", RESPONSES)
def test_recorded_responses_read_the_same_in_both_blob_forms(name: str) -> None:
    response = load(name)["response"]
    message = codec.decode_response(copy.deepcopy(response))
    assert message.provider == "bedrock_converse"
    assert message.raw_finish_reason == response["stopReason"]
    boto3 = codec.decode_response(codec.boto3_form(response))
    as_json = to_dict(message)
    for block in as_json.get("content") or []:  # the one difference: where a blob came as text
        if block.get("extras") == {"bedrock_converse": {"blob_text": True}}:
            del block["extras"]
    assert to_dict(boto3) == as_json


def test_usage_counts_cache_reads_and_writes_as_input() -> None:
    message = codec.decode_response(load("response_cache_read")["response"])
    usage = message.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (1324, 5, 1329)
    assert usage.input_token_details is not None
    assert usage.input_token_details.cache_read == 1322
    kept = (message.response_metadata or {})["bedrock_converse"]
    # counts botocore's model does not know yet are kept, never dropped
    assert kept["usage"] == {
        "cacheReadInputTokenCount": 1322,
        "cacheWriteInputTokenCount": 0,
        "serverToolUsage": {},
    }
    assert kept["metrics"] == {"latencyMs": 1990}


def test_redacted_reasoning_keeps_the_bytes() -> None:
    response = codec.boto3_form(load("response_thinking_redacted")["response"])
    blob = response["output"]["message"]["content"][0]["reasoningContent"]["redactedContent"]
    message = codec.decode_response(response)
    assert isinstance(message.content, list)
    block = message.content[0]
    assert isinstance(block, ReasoningBlock) and block.text is None
    assert base64.b64decode(block.encrypted_content or "") == blob
    # replayed in the next request exactly
    history = codec.encode(
        [{"role": "user", "content": "q"}, message, {"role": "user", "content": "?"}]
    )
    assert history["messages"][1]["content"][0] == {"reasoningContent": {"redactedContent": blob}}


def test_signed_reasoning_and_text() -> None:
    response = load("response_thinking_signed")["response"]
    message = codec.decode_response(response)
    assert isinstance(message.content, list)
    thinking, text = message.content
    wire = response["output"]["message"]["content"][0]["reasoningContent"]["reasoningText"]
    assert isinstance(thinking, ReasoningBlock)
    assert (thinking.text, thinking.signature) == (wire["text"], wire["signature"])
    assert isinstance(text, TextBlock)


def test_server_tools_and_tool_calls_keep_their_places() -> None:
    message = codec.decode_response(load("response_code_execution")["response"])
    assert message.finish_reason == "tool_calls"
    assert isinstance(message.content, list)
    call, result = message.content
    assert isinstance(call, ServerToolCallBlock) and isinstance(result, ServerToolResultBlock)
    [tool_call] = message.tool_calls
    assert (tool_call.name, tool_call.index) == ("final_result", 2)
    assert tool_call.extras == {"bedrock_converse": {"type": "tool_use"}}  # kept, never dropped


def test_guardrail_trace_and_other_keys_go_to_metadata() -> None:
    response = load("response_guardrail_trace")["response"]
    message = codec.decode_response(response)
    assert (message.response_metadata or {})["bedrock_converse"]["trace"] == response["trace"]
    boto3 = {
        **response,
        "ResponseMetadata": {"RequestId": "req-1", "HTTPStatusCode": 200},
        "additionalModelResponseFields": {"stop_sequence": None},
    }
    message = codec.decode_response(boto3)
    assert message.response_id == "req-1"
    kept = (message.response_metadata or {})["bedrock_converse"]
    assert kept["additionalModelResponseFields"] == {"stop_sequence": None}


def test_stop_reasons() -> None:
    response = load("response_tool_use")["response"]
    for raw, normal in [
        ("end_turn", "stop"),
        ("max_tokens", "length"),
        ("guardrail_intervened", "content_filter"),
        ("malformed_tool_use", "error"),
        ("something_new", "other"),
    ]:
        message = codec.decode_response({**response, "stopReason": raw})
        assert (message.finish_reason, message.raw_finish_reason) == (normal, raw)


def test_a_response_converts_to_other_formats_history() -> None:
    message = codec.decode_response(load("response_tool_use")["response"])
    call = message.tool_calls[0]
    history = [
        {"role": "user", "content": "q"},
        message,
        {"role": "tool", "tool_call_id": call.id, "content": "30C"},
    ]
    chat = convert(history, source="neutral", target="openai_chat")
    assert chat["messages"][1]["tool_calls"][0]["function"]["name"] == "temperature"


def test_malformed_responses() -> None:
    bad: Any
    for bad in ({}, {"output": {}}, {"output": {"message": {"role": "user", "content": []}}}, []):
        with pytest.raises(ConversionError):
            codec.decode_response(bad)
    with pytest.raises(ConversionError):
        codec.decode_response(
            {
                "output": {"message": {"role": "assistant", "content": []}},
                "usage": {"inputTokens": -1},
            }
        )
