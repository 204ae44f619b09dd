"""The OpenAI Chat Completions codec: decode_response (REST JSON and SDK objects) and its errors."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from openai.types.chat import ChatCompletion
from oracle import validate_request

from chatschema import (
    ConversionError,
    UserMessage,
    to_dict,
)
from chatschema.providers import openai_chat as oc
from providers.openai_chat.helpers import WAV

# ============================================================ decode_response


def _completion(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    response: dict[str, Any] = {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion",
        "created": 1741570283,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": 1117,
            "completion_tokens": 46,
            "total_tokens": 1163,
            "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_fc9f1d7035",
    }
    response.update(extra)
    return response


RESPONSE_CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    (
        "text",
        _completion(
            {"role": "assistant", "content": "Hello there.", "refusal": None, "annotations": []}
        ),
        {"role": "assistant", "content": "Hello there."},
        {
            "role": "assistant",
            "content": "Hello there.",
            "provider": "openai_chat",
            "model": "gpt-4o-2024-08-06",
            "response_id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
            "finish_reason": "stop",
            "raw_finish_reason": "stop",
            "usage": {
                "input_tokens": 1117,
                "output_tokens": 46,
                "total_tokens": 1163,
                "input_token_details": {"cache_read": 1024, "audio": 0},
                "output_token_details": {
                    "reasoning": 0,
                    "audio": 0,
                    "accepted_prediction": 0,
                    "rejected_prediction": 0,
                },
            },
            "response_metadata": {
                "openai_chat": {
                    "created": 1741570283,
                    "service_tier": "default",
                    "system_fingerprint": "fp_fc9f1d7035",
                }
            },
        },
    ),
    (
        "tool-calls",
        _completion(
            {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [
                    {
                        "id": "call_Dn2RJJSxzDm49vlVTehseJ0k",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    }
                ],
            },
            choices=[
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_Dn2RJJSxzDm49vlVTehseJ0k",
                                "type": "function",
                                "function": {
                                    "name": "get_weather",
                                    "arguments": '{"city":"Paris"}',
                                },
                            }
                        ],
                    },
                    "logprobs": None,
                    "finish_reason": "tool_calls",
                }
            ],
        ),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_Dn2RJJSxzDm49vlVTehseJ0k",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"finish_reason": "tool_calls", "raw_finish_reason": "tool_calls"},
    ),
    (
        "refusal",
        _completion(
            {"role": "assistant", "content": None, "refusal": "I'm sorry, I can't help with that."}
        ),
        {"role": "assistant", "content": None, "refusal": "I'm sorry, I can't help with that."},
        {
            "content": [
                {
                    "type": "refusal",
                    "text": "I'm sorry, I can't help with that.",
                    "extras": {"openai_chat": {"as_field": True}},
                }
            ]
        },
    ),
    (
        "web-search-citations",
        _completion(
            {
                "role": "assistant",
                "content": "Paris is sunny today [1].",
                "annotations": [
                    {
                        "type": "url_citation",
                        "url_citation": {
                            "start_index": 20,
                            "end_index": 23,
                            "title": "Weather in Paris",
                            "url": "https://weather.example.com/paris",
                        },
                    }
                ],
            }
        ),
        {"role": "assistant", "content": "Paris is sunny today [1]."},
        {
            "content": [
                {
                    "type": "text",
                    "text": "Paris is sunny today [1].",
                    "annotations": [
                        {
                            "type": "citation",
                            "url": "https://weather.example.com/paris",
                            "title": "Weather in Paris",
                            "start_index": 20,
                            "end_index": 23,
                        }
                    ],
                }
            ],
            "extras": {"openai_chat": {"content_shape": "string"}},
        },
    ),
    (
        "audio-and-logprobs",
        _completion(
            {
                "role": "assistant",
                "content": None,
                "audio": {
                    "id": "audio_6767",
                    "data": WAV,
                    "expires_at": 1741573883,
                    "transcript": "Hello!",
                },
            },
            choices=[
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "audio": {
                            "id": "audio_6767",
                            "data": WAV,
                            "expires_at": 1741573883,
                            "transcript": "Hello!",
                        },
                    },
                    "logprobs": {
                        "content": [
                            {
                                "token": "Hello",
                                "logprob": -0.31,
                                "bytes": [72, 101, 108, 108, 111],
                                "top_logprobs": [],
                            }
                        ],
                        "refusal": None,
                    },
                    "finish_reason": "stop",
                }
            ],
        ),
        {"role": "assistant", "content": None, "audio": {"id": "audio_6767"}},
        {
            # the audio output: a block with the data (a wav by its bytes) and the reply's id
            "content": [
                {
                    "type": "audio",
                    "id": "audio_6767",
                    "base64": WAV,
                    "mime_type": "audio/wav",
                    "extras": {
                        "openai_chat": {
                            "as_field": True,
                            "expires_at": 1741573883,
                            "transcript": "Hello!",
                        }
                    },
                }
            ],
        },
    ),
    (
        "vllm-reasoning",
        {
            "id": "chatcmpl-vllm-1",
            "object": "chat.completion",
            "created": 1741570000,
            "model": "deepseek-ai/DeepSeek-R1",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "42",
                        "reasoning_content": "6 times 7.",
                        "tool_calls": [],
                    },
                    "logprobs": None,
                    "finish_reason": "length",
                    "stop_reason": None,
                }
            ],
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 20,
                "total_tokens": 30,
                "prompt_tokens_details": None,
                "prompt_cache_hit_tokens": 8,
                "prompt_cache_miss_tokens": 2,
            },
        },
        {"role": "assistant", "content": "42"},
        {
            "content": [
                {"type": "reasoning", "text": "6 times 7.", "provider": "openai_chat"},
                {"type": "text", "text": "42"},
            ],
            "finish_reason": "length",
            "usage": {
                "input_tokens": 10,
                "output_tokens": 20,
                "total_tokens": 30,
                "input_token_details": {"cache_read": 8},
            },
            "response_metadata": {
                "openai_chat": {
                    "created": 1741570000,
                    "usage": {"prompt_cache_hit_tokens": 8, "prompt_cache_miss_tokens": 2},
                }
            },
        },
    ),
]


@pytest.mark.parametrize(
    ("response", "history", "expected"),
    [case[1:] for case in RESPONSE_CASES],
    ids=[case[0] for case in RESPONSE_CASES],
)
def test_decode_response(
    response: dict[str, Any], history: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = copy.deepcopy(response)
    message = oc.decode_response(response)
    assert response == before
    result = to_dict(message)
    for key, value in expected.items():
        assert result[key] == value, key
    assert message.provider == "openai_chat"
    # the official SDK object decodes the same
    sdk = ChatCompletion.model_validate(response)
    assert to_dict(oc.decode_response(sdk)) == result
    # appended to a history, it encodes to the assistant message the API wants back
    encoded = oc.encode([UserMessage(content="q"), message], check=False)
    assert encoded["messages"][1] == history
    validate_request("openai_chat", encoded)


def test_decode_response_metadata_and_choices() -> None:
    response = _completion({"role": "assistant", "content": "A"})
    response["choices"].append(
        {
            "index": 1,
            "message": {"role": "assistant", "content": "B"},
            "logprobs": None,
            "finish_reason": "stop",
        }
    )
    response["choices"][0]["logprobs"] = {"content": [], "refusal": None}
    message = oc.decode_response(response)
    metadata = message.response_metadata["openai_chat"]  # type: ignore[index]
    assert metadata["choices"] == [response["choices"][1]]
    assert metadata["logprobs"] == {"content": [], "refusal": None}
    audio = oc.decode_response(RESPONSE_CASES[4][1])
    assert "audio" not in audio.response_metadata["openai_chat"]  # type: ignore[index]  # a block
    assert audio.extras is None  # the block carries the id
    assert audio.response_metadata["openai_chat"]["logprobs"]["content"][0]["token"] == "Hello"  # type: ignore[index]


@pytest.mark.parametrize(
    ("raw", "neutral"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("tool_calls", "tool_calls"),
        ("function_call", "tool_calls"),
        ("content_filter", "content_filter"),
        ("eos", "other"),
    ],
)
def test_finish_reasons(raw: str, neutral: str) -> None:
    response = _completion({"role": "assistant", "content": "x"})
    response["choices"][0]["finish_reason"] = raw
    message = oc.decode_response(response)
    assert (message.finish_reason, message.raw_finish_reason) == (neutral, raw)


def test_decode_response_usage_variants() -> None:
    response = _completion({"role": "assistant", "content": "x"})
    response["usage"] = {
        "prompt_tokens": 100,
        "completion_tokens": 5,
        "prompt_tokens_details": {
            "cached_tokens": 40,
            "cache_write_tokens": 60,
            "image_tokens": 10,
        },
    }
    usage = to_dict(oc.decode_response(response).usage)  # type: ignore[arg-type]
    assert usage == {
        "input_tokens": 100,
        "output_tokens": 5,
        "total_tokens": 105,
        "input_token_details": {"cache_read": 40, "cache_creation": 60, "image": 10},
    }
    del response["usage"]
    assert oc.decode_response(response).usage is None


# ============================================================ errors

BAD_RESPONSES: list[tuple[str, Any]] = [
    ("list", []),
    ("choices-not-list", {"id": "x", "choices": {"index": 0}}),
    ("choice-not-object", {"choices": [None]}),
    ("user-message", {"choices": [{"message": {"role": "user", "content": "x"}}]}),
    (
        "finish-number",
        {"choices": [{"message": {"role": "assistant", "content": "x"}, "finish_reason": 1}]},
    ),
    ("usage-string", {"choices": [{"message": {"role": "assistant"}}], "usage": "lots"}),
    (
        "bad-tool-call",
        {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "tool_calls": [{"id": "a", "type": "function", "function": None}],
                    }
                }
            ]
        },
    ),
]


@pytest.mark.parametrize(
    "response", [case[1] for case in BAD_RESPONSES], ids=[case[0] for case in BAD_RESPONSES]
)
def test_bad_responses_raise_conversion_errors(response: Any) -> None:
    with pytest.raises(ConversionError) as error:
        oc.decode_response(response)
    assert error.value.provider == "openai_chat"
