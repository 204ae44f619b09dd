"""The Gemini codec: decode_response of GenerateContentResponse payloads."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from google.genai import types
from oracle import validate_request

import chatschema
from chatschema import (
    ConversionError,
    ToolMessage,
    to_dict,
)
from chatschema.providers import gemini
from providers.gemini.helpers import (
    blocks_of,
    camel,
    fc,
    fr,
    load,
    model,
    user,
)

# ========================================================================= responses


def test_decode_response_parallel_calls() -> None:
    payload = load("response_parallel_calls.json")
    message = gemini.decode_response(payload)
    assert to_dict(message) == {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": payload["candidates"][0]["content"]["parts"][0]["text"],
                "provider": "gemini",
            }
        ],
        "tool_calls": [
            {
                "id": "gemini_call_m8Q5aPzXKcWxz7IP7rmU8Ac_1",
                "name": "get_weather",
                "arguments": {"city": "Paris", "unit": "celsius"},
                "index": 1,  # a response's calls keep their part positions (as streamed)
                "extras": {
                    "gemini": {
                        "thought_signature": payload["candidates"][0]["content"]["parts"][1][
                            "thoughtSignature"
                        ],
                        "synthesized_id": True,
                    }
                },
            },
            {
                "id": "gemini_call_m8Q5aPzXKcWxz7IP7rmU8Ac_2",
                "name": "get_weather",
                "arguments": {"city": "Rome", "unit": "celsius"},
                "index": 2,
                "extras": {"gemini": {"synthesized_id": True}},
            },
        ],
        "usage": {
            "input_tokens": 112,
            "output_tokens": 235,
            "total_tokens": 347,
            "input_token_details": {"cache_read": 64},
            "output_token_details": {"reasoning": 197},
        },
        "model": "gemini-3-pro-preview",
        "provider": "gemini",
        "response_id": "m8Q5aPzXKcWxz7IP7rmU8Ac",
        "finish_reason": "tool_calls",
        "raw_finish_reason": "STOP",
        "response_metadata": {
            "gemini": {
                "usage_metadata": {
                    "prompt_token_count": 112,
                    "candidates_token_count": 38,
                    "total_token_count": 347,
                    "cached_content_token_count": 64,
                    "thoughts_token_count": 197,
                    "prompt_tokens_details": [{"modality": "TEXT", "token_count": 112}],
                    "cache_tokens_details": [{"modality": "TEXT", "token_count": 64}],
                },
                "index": 0,
                "safety_ratings": [
                    {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "NEGLIGIBLE"}
                ],
            }
        },
    }


RESPONSES = [
    "response_parallel_calls.json",
    "response_grounded.json",
    "response_code_execution.json",
]


@pytest.mark.parametrize("name", RESPONSES)
def test_response_from_sdk_object_equals_response_from_json(name: str) -> None:
    payload = load(name)
    from_json = to_dict(gemini.decode_response(payload))
    response = types.GenerateContentResponse.model_validate(payload)
    assert to_dict(gemini.decode_response(response)) == from_json
    assert to_dict(gemini.decode_response(json.dumps(payload))) == from_json
    assert to_dict(gemini.decode_response(response.model_dump(exclude_none=True))) == from_json


@pytest.mark.parametrize("name", RESPONSES)
def test_response_appended_to_history_encodes_to_the_candidate(name: str) -> None:
    payload = load(name)
    candidate = payload["candidates"][0]["content"]
    for source in (payload, types.GenerateContentResponse.model_validate(payload)):
        reply = gemini.decode_response(source)
        history = [chatschema.user("question"), reply]
        encoded = gemini.encode(history, check=False)
        validate_request("gemini", encoded)
        assert camel(encoded["contents"][1]) == candidate  # all parts, signatures byte-identical


def test_response_then_tool_results_then_next_turn() -> None:
    reply = gemini.decode_response(load("response_parallel_calls.json"))
    history = [
        chatschema.user("Weather in Paris and Rome?"),
        reply,
        *(
            chatschema.tool_result(f"{n}C", tool_call_id=call.id)
            for n, call in zip((18, 21), reply.tool_calls, strict=True)
        ),
    ]
    encoded = gemini.encode(history)
    validate_request("gemini", encoded)
    assert encoded["contents"][2] == user(
        fr("get_weather", {"output": "18C"}), fr("get_weather", {"output": "21C"})
    )  # synthesized ids are not sent
    assert (
        encoded["contents"][1]["parts"][1]["thought_signature"]
        == (
            load("response_parallel_calls.json")["candidates"][0]["content"]["parts"][1][
                "thoughtSignature"
            ]
        )
    )


def test_decode_response_grounding_and_tool_use_usage() -> None:
    message = gemini.decode_response(load("response_grounded.json"))
    assert to_dict(message)["usage"] == {
        "input_tokens": 229,
        "output_tokens": 72,
        "total_tokens": 301,
        "input_token_details": {"tool_use_prompt": 220},
        "output_token_details": {"reasoning": 56},
    }
    metadata = message.response_metadata["gemini"]  # type: ignore[index]
    assert metadata["grounding_metadata"]["web_search_queries"] == ["who won euro 2024"]
    assert metadata["citation_metadata"]["citations"][0]["uri"] == "https://www.uefa.com/euro2024/"
    assert message.finish_reason == "stop"


def test_decode_response_code_execution_content() -> None:
    message = gemini.decode_response(load("response_code_execution.json"))
    assert [block.type for block in blocks_of(message)] == [
        "text", "server_tool_call", "server_tool_result", "text",
    ]  # fmt: skip
    assert message.tool_calls == []
    assert to_dict(message)["usage"] == {
        "input_tokens": 21,
        "output_tokens": 97,
        "total_tokens": 118,
    }


def test_decode_response_modalities_and_snake_case() -> None:
    payload = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "hi"}]}, "finish_reason": "STOP"}
        ],
        "usage_metadata": {
            "prompt_token_count": 300,
            "candidates_token_count": 40,
            "total_token_count": 340,
            "prompt_tokens_details": [
                {"modality": "TEXT", "token_count": 10},
                {"modality": "AUDIO", "token_count": 200},
                {"modality": "IMAGE", "token_count": 90},
            ],
            "candidates_tokens_details": [{"modality": "AUDIO", "token_count": 40}],
        },
    }
    assert to_dict(gemini.decode_response(payload)) == {
        "role": "assistant",
        "content": "hi",
        "provider": "gemini",
        "finish_reason": "stop",
        "raw_finish_reason": "STOP",
        "usage": {
            "input_tokens": 300,
            "output_tokens": 40,
            "total_tokens": 340,
            "input_token_details": {"audio": 200, "image": 90},
            "output_token_details": {"audio": 40},
        },
        "response_metadata": {"gemini": {"usage_metadata": payload["usage_metadata"]}},
    }


def test_prompt_blocked_response() -> None:
    payload = {
        "promptFeedback": {
            "blockReason": "PROHIBITED_CONTENT",
            "safetyRatings": [
                {"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": True}
            ],
        },
        "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7},
        "modelVersion": "gemini-2.5-pro",
        "responseId": "blocked1",
    }
    for source in (payload, types.GenerateContentResponse.model_validate(payload)):
        message = gemini.decode_response(source)
        assert to_dict(message) == {
            "role": "assistant",
            "provider": "gemini",
            "model": "gemini-2.5-pro",
            "response_id": "blocked1",
            "finish_reason": "content_filter",
            "raw_finish_reason": "PROHIBITED_CONTENT",
            "usage": {"input_tokens": 7, "output_tokens": 0, "total_tokens": 7},
            "response_metadata": {
                "gemini": {
                    "prompt_feedback": {
                        "block_reason": "PROHIBITED_CONTENT",
                        "safety_ratings": [
                            {
                                "category": "HARM_CATEGORY_HARASSMENT",
                                "probability": "HIGH",
                                "blocked": True,
                            }
                        ],
                    },
                    "usage_metadata": {"prompt_token_count": 7, "total_token_count": 7},
                }
            },
        }


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("IMAGE_PROHIBITED_CONTENT", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("MISSING_THOUGHT_SIGNATURE", "error"),
        ("UNEXPECTED_TOOL_CALL", "error"),
        ("TOO_MANY_TOOL_CALLS", "error"),
        ("LANGUAGE", "other"),
        ("OTHER", "other"),
        ("NO_IMAGE", "other"),
        ("FINISH_REASON_UNSPECIFIED", "other"),
        ("SOMETHING_NEW", "other"),
    ],
)
def test_finish_reasons(raw: str, normalized: str) -> None:
    payload = {"candidates": [{"content": {"role": "model"}, "finishReason": raw}]}
    message = gemini.decode_response(payload)
    assert (message.finish_reason, message.raw_finish_reason, message.content) == (
        normalized,
        raw,
        "",
    )


def test_other_candidates_are_kept_in_metadata() -> None:
    second = {
        "content": {"role": "model", "parts": [{"text": "B"}]},
        "finishReason": "STOP",
        "index": 1,
    }
    payload = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "A"}]},
                "finishReason": "MAX_TOKENS",
                "index": 0,
            },
            second,
        ]
    }
    message = gemini.decode_response(payload)
    assert message.content == "A"
    assert message.finish_reason == "length"
    assert message.response_metadata == {
        "gemini": {
            "index": 0,
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": "B"}]},
                    "finish_reason": "STOP",
                    "index": 1,
                }
            ],
        }
    }


def test_synthesized_response_ids_are_deterministic_and_distinct() -> None:
    def response(response_id: str | None, city: str) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "candidates": [
                {"content": model(fc("get_weather", {"city": city})), "finishReason": "STOP"}
            ]
        }
        if response_id is not None:
            payload["responseId"] = response_id
        return payload

    first = gemini.decode_response(response(None, "Paris")).tool_calls[0].id
    assert first == gemini.decode_response(response(None, "Paris")).tool_calls[0].id
    assert re.fullmatch(r"gemini_call_[0-9a-f]{16}_0", first)
    assert first != gemini.decode_response(response(None, "Rome")).tool_calls[0].id
    assert gemini.decode_response(response("r/1 ?", "Paris")).tool_calls[0].id != first
    assert re.fullmatch(
        r"[A-Za-z0-9_-]+", gemini.decode_response(response("r/1 ?", "Paris")).tool_calls[0].id
    )
    ids = {gemini.decode_response(response(rid, "Paris")).tool_calls[0].id for rid in ("a", "b")}
    assert ids == {"gemini_call_a_0", "gemini_call_b_0"}


BAD_RESPONSES = {
    "not_object": [1, 2],
    "candidates_not_list": {"candidates": {"content": {}}},
    "candidate_not_object": {"candidates": ["x"]},
    "user_role": {"candidates": [{"content": {"role": "user", "parts": []}}]},
    "negative_count": {"usageMetadata": {"promptTokenCount": -1}},
    "string_count": {"usageMetadata": {"promptTokenCount": "12"}},
    "bool_count": {"usageMetadata": {"totalTokenCount": True}},
    "usage_not_object": {"usageMetadata": 5},
    # a name or its number (test_read_forms.py); nothing else
    "finish_reason_object": {
        "candidates": [{"content": {"role": "model"}, "finishReason": {"name": "STOP"}}]
    },
    "args_list": {"candidates": [{"content": model({"functionCall": {"name": "f", "args": [1]}})}]},
}


@pytest.mark.parametrize("name", list(BAD_RESPONSES))
def test_bad_responses_raise_conversion_errors(name: str) -> None:
    with pytest.raises(ConversionError) as caught:
        gemini.decode_response(BAD_RESPONSES[name])
    assert caught.value.provider == "gemini"


def test_tool_message_helpers_build_valid_requests() -> None:
    reply = gemini.decode_response(load("response_parallel_calls.json"))
    results = [ToolMessage(tool_call_id=call.id, content="ok") for call in reply.tool_calls]
    encoded = gemini.encode([chatschema.user("q"), reply, *results])
    assert [part["function_response"]["name"] for part in encoded["contents"][2]["parts"]] == [
        "get_weather",
        "get_weather",
    ]
