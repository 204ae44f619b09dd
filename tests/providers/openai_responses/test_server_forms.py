"""Forms the Responses API (and compatible servers) took or sent, each a regression from
real traffic.

Each test names its class. Requests are checked against the SDK's request types
(``ResponseCreateParams``, strict, unknown keys refused) where those accept them;
the SDK types ``input_image.detail`` as required, while the API reference says it
defaults to ``auto`` and the API took the recorded requests without it. Responses
and stream events are read as the official client reads them (``construct_type``,
its default without strict response validation).
"""

from __future__ import annotations

import copy
import importlib
import json
from typing import Any, Final

import openai
import pytest
from conftest import assembled
from openai._models import construct_type
from openai.types.responses import Response, ResponseStreamEvent
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
from oracle import validate_request
from pydantic import ConfigDict, TypeAdapter

from chatschema import AssistantMessage, ImageBlock, ToolCall, ToolMessage, UserMessage, to_dict
from chatschema.providers import openai_responses as R
from providers.openai_chat.test_encode_fast import assert_same_paths
from providers.openai_responses.helpers import PNG, RESPONSE_TEXT

NAME: Final = "openai_responses"
ENCODE = importlib.import_module("chatschema.providers.openai_responses.encode")
REQUEST = TypeAdapter(
    list[ResponseCreateParamsNonStreaming], config=ConfigDict(extra="forbid", strict=True)
)


def request_oracle(payload: dict[str, Any]) -> None:
    """The SDK's request type takes the whole request (``input`` is optional there)."""
    validated: list[Any] = REQUEST.validate_python([copy.deepcopy(payload)])
    for item in validated:
        for value in item.values():
            if type(value).__name__ == "ValidatorIterator":
                list(value)  # (lazily validated lists: checked when drained)


def round_trip(payload: dict[str, Any]) -> None:
    """The request decodes, checks clean and encodes to itself."""
    conversation = R.decode_conversation(copy.deepcopy(payload))
    assert R.check(conversation) == []
    assert R.encode(conversation) == payload
    # the history byte for byte (a request's own keys may come in another order)
    assert json.dumps(R.encode(conversation).get("input")) == json.dumps(payload.get("input"))


# ============================================ class 4: input_image without `detail`

IMAGES: list[dict[str, Any]] = [
    {"type": "input_image", "image_url": "https://example.com/cat.png"},
    {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
    {"type": "input_image", "file_id": "file-img123"},
]


@pytest.mark.parametrize("image", IMAGES, ids=["url", "data-url", "file-id"])
def test_input_image_without_detail_goes_back_without_it(image: dict[str, Any]) -> None:
    """Class 4 (11 requests): an image that left ``detail`` out gains no ``"auto"``."""
    payload: dict[str, Any] = {
        "model": "gpt-4.1",
        "input": [
            {
                "role": "user",
                "content": [{"type": "input_text", "text": "What is this?"}, image],
            },
            {"type": "message", "role": "user", "content": [image]},
        ],
    }
    round_trip(payload)
    # the one place the SDK type differs: it marks the API's default as required
    typed = copy.deepcopy(payload)
    for item in typed["input"]:
        item["content"][-1]["detail"] = "auto"
    validate_request(NAME, typed)


def test_explicit_detail_and_neutral_images_keep_their_forms() -> None:
    """Class 4: an explicit ``"auto"`` stays; a neutral image that says nothing gets the
    ``detail`` the SDK type requires; a tool output's image none (optional there)."""
    payload = {
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_image", "image_url": "https://e.com/a.png", "detail": "auto"}
                ],
            }
        ]
    }
    round_trip(payload)
    validate_request(NAME, payload)
    neutral = R.encode([UserMessage(content=[ImageBlock(url="https://e.com/a.png")])])
    assert neutral == payload
    history = [
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content=[ImageBlock(url="https://e.com/b.png")]),
    ]
    assert R.encode(history)["input"][1]["output"] == [
        {"type": "input_image", "image_url": "https://e.com/b.png"}
    ]


def test_decoded_image_without_detail_gets_one_when_it_is_set() -> None:
    """Class 4: the marker only says what came; a detail set later is written."""
    payload = {"input": [{"role": "user", "content": [IMAGES[0]]}]}
    conversation = R.decode_conversation(payload)
    message = conversation.messages[0]
    assert isinstance(message.content, list)
    block = message.content[0]
    assert isinstance(block, ImageBlock) and block.detail is None
    changed = block.model_copy(update={"detail": "high"})
    part = R.encode([UserMessage(content=[changed])])["input"][0]["content"][0]
    assert part == {**IMAGES[0], "detail": "high"}


# ============================================ class 5: a stored prompt, few or no items

PROMPT: dict[str, Any] = {
    "id": "pmpt_68b0c29740048196bd3a6e6ac3c4d0e20ed9a13f0d15bf5e",
    "version": "3",
    "variables": {
        "customer_name": "Jane Doe",
        "product": {"type": "input_text", "text": "40oz juice box"},
        "photo": {
            "type": "input_image",
            "image_url": "https://example.com/box.png",
            "detail": "low",
        },
        "contract": {"type": "input_file", "file_id": "file-abc123"},
    },
}


@pytest.mark.parametrize(
    "payload",
    [
        {"model": "gpt-5", "prompt": PROMPT},
        {"prompt": {"id": PROMPT["id"]}},
        {"prompt": PROMPT, "input": []},
        {"prompt": PROMPT, "input": "And the delivery date?"},
        {"prompt": PROMPT, "input": [{"role": "user", "content": "And the delivery date?"}]},
        {"model": "gpt-5", "instructions": "Be brief.", "prompt": PROMPT, "store": False},
    ],
    ids=["no-input", "id-only", "empty-input", "string-input", "one-item", "instructions"],
)
def test_stored_prompt_requests_round_trip(payload: dict[str, Any]) -> None:
    """Class 5 (4 requests): ``prompt: {id, version, variables}`` with no or few items;
    variables (strings, input_text / input_image / input_file parts) kept exactly."""
    request_oracle(payload)
    round_trip(payload)
    conversation = R.decode_conversation(payload)
    assert conversation.extras is not None
    assert conversation.extras[NAME]["prompt"] == payload["prompt"]


def test_stored_prompt_variables_without_image_detail_are_kept_as_they_came() -> None:
    """Class 5 with class 4: a variable's image without ``detail`` is written back so."""
    prompt = copy.deepcopy(PROMPT)
    del prompt["variables"]["photo"]["detail"]
    round_trip({"prompt": prompt})


def test_a_request_without_input_gains_input_once_messages_are_added() -> None:
    """Class 5: ``input`` is left out only while there is nothing to send in it."""
    conversation = R.decode_conversation({"prompt": PROMPT})
    longer = conversation.model_copy(
        update={"messages": [*conversation.messages, UserMessage(content="Hi")]}
    )
    assert R.encode(longer) == {"prompt": PROMPT, "input": [{"role": "user", "content": "Hi"}]}


# =============================== class 6: outputs answering calls the API holds


@pytest.mark.parametrize(
    "stored", [{"previous_response_id": "resp_68c9f0a1"}, {"conversation": "conv_689667905b"}]
)
def test_tool_outputs_for_a_stored_response_are_no_orphans(stored: dict[str, Any]) -> None:
    """The usual turn after a function call: ``previous_response_id`` (or a
    ``conversation``) and the ``function_call_output`` items only; the calls are the
    stored response's. ``check`` and ``encode`` must take it (the API does)."""
    payload = {
        "model": "gpt-5",
        **stored,
        "input": [
            {"type": "function_call_output", "call_id": "call_1", "output": '{"temp": 12}'},
            {"type": "function_call_output", "call_id": "call_2", "output": '{"temp": 9}'},
        ],
    }
    request_oracle(payload)
    round_trip(payload)
    # without a stored response, an output answering no call is still reported
    alone = {key: value for key, value in payload.items() if key not in stored}
    problems = R.check(R.decode_conversation(alone))
    assert [problem.keyword for problem in problems] == ["orphan_tool_result"] * 2


# =============================== class 1 (Responses): usage with null counts


def sdk_response(body: dict[str, Any]) -> Response:
    """The official client's reading of a Response body (its default path)."""
    client = openai.OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9")
    assert client._strict_response_validation is False
    value = construct_type(type_=Response, value=copy.deepcopy(body))
    assert isinstance(value, Response)
    return value


@pytest.mark.parametrize(
    "usage",
    [
        {"input_tokens": 84, "output_tokens": None, "total_tokens": None},
        {
            "input_tokens": 84,
            "input_tokens_details": None,
            "output_tokens": 12,
            "output_tokens_details": None,
            "total_tokens": None,
        },
        {"output_tokens": 12},
        {"input_tokens": -1, "output_tokens": 12, "total_tokens": 11},
    ],
    ids=["null-output", "null-total", "missing-input", "negative"],
)
def test_usage_the_neutral_usage_cannot_hold_is_kept_not_invented(usage: dict[str, Any]) -> None:
    """Compatible servers' usage with null counts: no neutral usage, the usage kept."""
    body = {**copy.deepcopy(RESPONSE_TEXT), "usage": usage}
    sdk_response(body)
    message = to_dict(R.decode_response(body))
    assert "usage" not in message
    assert message["response_metadata"][NAME]["usage"] == usage
    assert message["content"][-1]["text"] == "Oslo."


def test_null_usage_detail_counts_are_kept_beside_the_neutral_usage() -> None:
    """A null detail count: the neutral usage without it, the raw usage kept."""
    usage = {
        "input_tokens": 84,
        "input_tokens_details": {"cached_tokens": None},
        "output_tokens": 12,
        "output_tokens_details": {"reasoning_tokens": None},
        "total_tokens": 96,
    }
    body = {**copy.deepcopy(RESPONSE_TEXT), "usage": usage}
    sdk_response(body)
    message = to_dict(R.decode_response(body))
    assert message["usage"]["total_tokens"] == 96
    assert message["response_metadata"][NAME]["usage"] == usage


def test_streamed_usage_with_null_counts_assembles_like_the_response() -> None:
    """The same usage at the end of a stream (``response.completed``)."""
    usage = {"input_tokens": 84, "output_tokens": None, "total_tokens": None}
    final = {**copy.deepcopy(RESPONSE_TEXT), "usage": usage}
    item = final["output"][1]
    events: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": {**final, "output": []}},
        {
            "type": "response.output_item.done",
            "sequence_number": 1,
            "output_index": 0,
            "item": final["output"][0],
        },
        {
            "type": "response.output_item.done",
            "sequence_number": 2,
            "output_index": 1,
            "item": item,
        },
        {"type": "response.completed", "sequence_number": 3, "response": final},
    ]
    for event in events:
        construct_type(type_=ResponseStreamEvent, value=copy.deepcopy(event))  # the client's
    message = assembled(list(R.decode_stream(events)))
    assert message == to_dict(R.decode_response(final))
    assert "usage" not in message and message["response_metadata"][NAME]["usage"] == usage


# =============================== class 6: forms of tool_choice and parallel_tool_calls

FUNCTION_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": False,
}


@pytest.mark.parametrize(
    "keys",
    [
        {"tool_choice": "auto", "parallel_tool_calls": True},
        {"parallel_tool_calls": True},
        {"tool_choice": "auto"},
        {"tool_choice": None, "parallel_tool_calls": None},
        {"tool_choice": "required", "parallel_tool_calls": None},
        {"tool_choice": None, "parallel_tool_calls": False},
    ],
    ids=["explicit-auto", "flag-only", "auto-only", "nulls", "null-flag", "null-choice"],
)
def test_tool_choice_forms_go_back_as_they_came(keys: dict[str, Any]) -> None:
    """``"auto"`` next to the flag (which alone says the same) and explicit nulls are
    written back in the form they came in, not in another that means the same."""
    payload = {"model": "gpt-5", "input": "Weather in Oslo?", "tools": [FUNCTION_TOOL], **keys}
    round_trip(payload)
    if all(value is not None for value in keys.values()):
        request_oracle(payload)


FAST_PATH_REQUESTS: list[dict[str, Any]] = [
    {"input": [{"role": "user", "content": [IMAGES[0], IMAGES[2]]}]},
    {"prompt": PROMPT},
    {"instructions": "Be brief.", "prompt": PROMPT},
    {
        "previous_response_id": "resp_1",
        "input": [{"type": "function_call_output", "call_id": "call_1", "output": "12"}],
    },
    {"input": "x", "tools": [FUNCTION_TOOL], "tool_choice": "auto", "parallel_tool_calls": True},
    {"input": "x", "tools": [FUNCTION_TOOL], "tool_choice": None, "parallel_tool_calls": None},
]


@pytest.mark.parametrize("payload", FAST_PATH_REQUESTS, ids=range(len(FAST_PATH_REQUESTS)))
def test_the_fast_path_agrees_on_these_forms(payload: dict[str, Any]) -> None:
    """The encoder's fast path and its general path give the same for them."""
    conversation = R.decode_conversation(copy.deepcopy(payload))
    assert_same_paths(ENCODE, NAME, conversation)
    assert R.encode(conversation) == payload
