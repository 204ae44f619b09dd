"""The OpenAI Responses codec: ``decode_response``."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from openai.types.responses import Response
from oracle import validate_request

from chatschema import (
    Citation,
    ConversionError,
    ServerToolCallBlock,
    TextBlock,
    ToolMessage,
    UserMessage,
    to_dict,
)
from chatschema.providers import openai_responses as R
from providers.openai_responses.helpers import (
    NAME,
    RESPONSE_TEXT,
    RESPONSE_TOOL_CALL,
    RESPONSE_WEB,
    RESPONSES,
    _variant,
)


@pytest.mark.parametrize("name", RESPONSES)
@pytest.mark.parametrize("form", ["dict", "sdk"])
def test_decode_response(name: str, form: str) -> None:
    data, finish, raw = RESPONSES[name]
    original = copy.deepcopy(data)
    payload: Any = data if form == "dict" else Response.model_validate(data)
    reply = R.decode_response(payload)
    assert data == original
    assert reply.provider == NAME
    assert reply.model == "gpt-5-2025-08-07"
    assert reply.response_id == data["id"]
    assert reply.finish_reason == finish
    assert reply.raw_finish_reason == raw
    # Appended to the history, the reply re-encodes to exactly the output items.
    history = [UserMessage(content="q"), reply]
    history += [ToolMessage(tool_call_id=call.id, content="r") for call in reply.tool_calls]
    encoded = R.encode(history)
    validate_request(NAME, encoded)
    expected = Response.model_validate(data).model_dump(mode="json", exclude_none=True)["output"]
    if form == "dict":
        expected = data["output"]
    assert encoded["input"][1 : 1 + len(expected)] == expected


def test_decode_response_usage_and_metadata() -> None:
    reply = R.decode_response(RESPONSE_TOOL_CALL)
    assert reply.usage is not None
    assert to_dict(reply.usage) == {
        "input_tokens": 300,
        "output_tokens": 80,
        "total_tokens": 380,
        "input_token_details": {
            "cache_read": 0,
            "cache_creation": 256,
            "cache_creation_30m": 256,
            "cache_creation_12h": 0,
        },
        "output_token_details": {"reasoning": 40},
    }
    assert reply.response_metadata == {NAME: {"created_at": 1757995120, "service_tier": "default"}}
    failed = R.decode_response(RESPONSES["failed"][0])
    assert failed.response_metadata == {
        NAME: {
            "created_at": 1757995120,
            "service_tier": "default",
            "error": {"code": "server_error", "message": "The server had an error."},
        }
    }
    assert failed.content == ""
    # An empty reply is an empty assistant turn (do not append failed responses).
    assert R.encode([UserMessage(content="q"), failed])["input"][1:] == [
        {"role": "assistant", "content": ""}
    ]
    incomplete = R.decode_response(RESPONSES["max_tokens"][0])
    assert incomplete.response_metadata is not None
    assert incomplete.response_metadata[NAME]["incomplete_details"] == {
        "reason": "max_output_tokens"
    }


def test_decode_response_lenient_usage() -> None:
    # Live payloads have lacked cache_write_tokens; unknown detail keys are kept.
    data = _variant(
        RESPONSE_TEXT,
        usage={
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0, "audio_tokens": 3},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0, "new_thing": {"a": 1}},
            "total_tokens": 15,
        },
    )
    reply = R.decode_response(data)
    assert reply.usage is not None
    assert to_dict(reply.usage)["input_token_details"] == {"cache_read": 0, "audio": 3}
    assert reply.response_metadata is not None
    assert reply.response_metadata[NAME]["usage"] == data["usage"]
    no_usage = R.decode_response(_variant(RESPONSE_TEXT, usage=None))
    assert no_usage.usage is None


def test_decode_response_sdk_and_dict_agree() -> None:
    for data, _, _ in RESPONSES.values():
        from_dict = to_dict(R.decode_response(data))
        from_sdk = to_dict(R.decode_response(Response.model_validate(data)))
        # the SDK types created_at as float
        for side in (from_dict, from_sdk):
            side.get("response_metadata", {}).get(NAME, {}).pop("created_at", None)
        assert from_dict == from_sdk


def test_decode_response_content_and_calls() -> None:
    reply = R.decode_response(RESPONSE_WEB)
    assert isinstance(reply.content, list)
    search, text = reply.content
    assert isinstance(search, ServerToolCallBlock) and search.arguments == {
        "type": "search",
        "query": "oslo weather",
    }
    assert isinstance(text, TextBlock) and text.id == "msg_1"
    assert text.annotations == [
        Citation(url="https://www.yr.no/", title="Yr", start_index=11, end_index=18)
    ]
    calls = R.decode_response(RESPONSE_TOOL_CALL).tool_calls
    assert [(c.id, c.arguments, c.extras) for c in calls] == [
        (
            "call_1",
            {"city": "Oslo"},
            {NAME: {"arguments": '{"city":"Oslo"}', "id": "fc_1", "status": "completed"}},
        ),
        (
            "call_2",
            {"city": "Bergen"},
            {NAME: {"arguments": '{"city":"Bergen"}', "id": "fc_2", "status": "completed"}},
        ),
    ]


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        {"output": "x"},
        _variant(RESPONSE_TEXT, usage=[1]),
        _variant(
            RESPONSE_TEXT,
            output=[{"type": "function_call", "call_id": "c", "name": "", "arguments": "{}"}],
        ),
        _variant(RESPONSE_TEXT, output=["x"]),
    ],
)
def test_bad_responses_raise_conversion_errors(payload: Any) -> None:
    with pytest.raises(ConversionError) as error:
        R.decode_response(payload)
    assert error.value.provider == NAME
