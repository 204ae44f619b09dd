"""The OpenAI Responses codec, histories: exact round trips, inputs of every shape, errors."""

from __future__ import annotations

import contextlib
import copy
import json
import random
from typing import Any

import pytest
from openai.types.responses import Response
from oracle import validate_request

import chatschema
from chatschema import (
    AssistantMessage,
    ConversionError,
    ImageBlock,
    NonStandardBlock,
    ServerToolCallBlock,
    to_dict,
)
from chatschema.errors import ChatSchemaError
from chatschema.providers import openai_responses as R
from providers.openai_responses.helpers import (
    NAME,
    PAYLOADS,
    PDF,
    RESPONSE_TOOL_CALL,
    RESPONSES,
    WEATHER_TOOL,
    _fc,
    _msg,
    _out,
    _rs,
    _text,
)


@pytest.mark.parametrize("name", PAYLOADS)
def test_payload_round_trip_is_exact(name: str) -> None:
    payload = PAYLOADS[name]
    validate_request(NAME, payload)  # the test data itself is valid for the SDK
    original = copy.deepcopy(payload)
    conversation = R.decode_conversation(payload)
    assert payload == original  # decoding does not mutate
    encoded = R.encode(conversation)
    assert encoded == payload
    assert json.dumps(encoded) == json.dumps(payload)  # byte for byte, key order included
    validate_request(NAME, encoded)
    assert R.decode_messages(payload) == conversation.messages
    # The neutral form is itself valid and survives its own JSON round trip.
    again = chatschema.parse_conversation(json.dumps(to_dict(conversation)))
    assert R.encode(again) == payload


@pytest.mark.parametrize("name", PAYLOADS)
def test_decoded_conversation_does_not_alias_the_payload(name: str) -> None:
    payload = copy.deepcopy(PAYLOADS[name])
    conversation = R.decode_conversation(payload)
    encoded = R.encode(conversation)
    for item in payload["input"] if isinstance(payload["input"], list) else []:
        item["MUTATED"] = True
        for value in item.values():
            if isinstance(value, list):
                value.append("MUTATED")
    assert R.encode(conversation) == encoded


def test_decoded_shapes_of_a_tool_loop() -> None:
    conversation = R.decode_conversation(PAYLOADS["reasoning_tool_loop"])
    data = to_dict(conversation)
    assert data["messages"][0] == {
        "role": "system",
        "content": "You are a helpful assistant."[:0] + "Use tools when useful.",
    }
    assert data["messages"][2] == {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": ["The user wants the weather; call get_weather."],
                "encrypted_content": "gAAAAABo1opaque==",
                "provider": NAME,
            }
        ],
        "tool_calls": [
            {
                "id": "call_1",
                "name": "get_weather",
                "arguments": {"city": "Oslo"},
                "extras": {
                    NAME: {"arguments": '{"city":"Oslo"}', "id": "fc_1", "status": "completed"}
                },
            }
        ],
    }
    assert data["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "12°C, cloudy",
    }
    reply = data["messages"][4]
    assert [block["type"] for block in reply["content"]] == ["reasoning", "text"]
    assert reply["content"][1] == {
        "type": "text",
        "text": "It is 12°C and cloudy in Oslo.",
        "id": "msg_2",
    }
    assert data["tools"] == [
        {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": WEATHER_TOOL["parameters"],
            "strict": True,
        }
    ]
    assert data["tool_choice"] == {"type": "auto"}


def test_interleaved_calls_carry_their_position() -> None:
    (_, reply, *_) = R.decode_messages(PAYLOADS["interleaved_text_and_calls"])
    assert isinstance(reply, AssistantMessage)
    assert [type(block).__name__ for block in reply.content] == [
        "TextBlock",
        "ReasoningBlock",
        "TextBlock",
    ]
    assert [call.index for call in reply.tool_calls] == [1, 4]
    assert [call.id for call in reply.tool_calls] == ["call_1", "call_2"]


def test_calls_in_default_order_carry_no_index() -> None:
    (_, reply, *_) = R.decode_messages(PAYLOADS["parallel_calls"])
    assert isinstance(reply, AssistantMessage)
    assert [call.index for call in reply.tool_calls] == [None, None]


def test_invalid_arguments_become_invalid_tool_calls() -> None:
    (_, reply, *_) = R.decode_messages(PAYLOADS["invalid_and_empty_arguments"])
    assert isinstance(reply, AssistantMessage)
    assert [(call.id, call.arguments) for call in reply.tool_calls] == [
        ("call_2", {}),
        ("call_3", {"city": "Tromsø"}),
    ]
    assert [(c.id, c.arguments) for c in reply.invalid_tool_calls] == [
        ("call_1", '{"city": "Os'),
        ("call_4", "[1, 2]"),
    ]
    assert all(c.error for c in reply.invalid_tool_calls)
    # Interleaved valid/invalid order is kept by index.
    assert [c.index for c in reply.invalid_tool_calls] == [0, 3]
    assert [c.index for c in reply.tool_calls] == [1, 2]


def test_built_in_items_are_kept_unchanged() -> None:
    messages = R.decode_messages(PAYLOADS["built_in_items"])
    roles = [m.role for m in messages]
    # model-side items form assistant turns; client-side items are user messages.
    assert roles == [
        "user",
        "assistant",
        "user",  # mcp_approval_response
        "assistant",
        "user",  # custom_tool_call_output
        "assistant",
        "user",  # local_shell_call_output
        "user",  # item_reference
        "user",  # item reference without type
        "user",
    ]
    first = messages[1]
    assert isinstance(first, AssistantMessage) and isinstance(first.content, list)
    # a code_interpreter_call is a server tool call and its result; the others kept whole
    assert [b.type for b in first.content[:4]] == [
        "non_standard",
        "server_tool_call",
        "server_tool_result",
        "non_standard",
    ]
    assert all(isinstance(b, NonStandardBlock) for b in first.content[3:])
    assert [b.value["type"] for b in first.content if isinstance(b, NonStandardBlock)] == [
        "file_search_call",
        "image_generation_call",
        "mcp_list_tools",
        "mcp_call",
        "mcp_approval_request",
    ]


def test_web_search_call_is_a_server_tool_call() -> None:
    (_, reply) = R.decode_messages(PAYLOADS["web_search"])
    assert isinstance(reply, AssistantMessage) and isinstance(reply.content, list)
    search = reply.content[1]
    assert isinstance(search, ServerToolCallBlock)
    assert (search.id, search.name) == ("ws_1", "web_search")
    assert search.arguments == PAYLOADS["web_search"]["input"][2]["action"]


def test_hosted_tools_keep_their_definition() -> None:
    conversation = R.decode_conversation(PAYLOADS["tools_and_choices"])
    assert conversation.tools is not None
    names = [tool.name for tool in conversation.tools]
    assert names == ["get_weather", "no_schema", "loose", "file_search", "mcp"]
    assert conversation.tools[3].extras == {
        NAME: {"tool": PAYLOADS["tools_and_choices"]["tools"][3]}
    }
    # hosted: only sent to Responses
    assert [tool.provider for tool in conversation.tools] == [None, None, None, NAME, NAME]
    assert conversation.tools[1].parameters == {} and conversation.tools[1].strict is None


def test_file_data_that_is_not_a_data_url_stays_non_standard() -> None:
    payload = {
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_file", "file_data": PDF, "filename": "bare.pdf"},
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64,AAAA",
                        "detail": "auto",
                    },
                ],
            }
        ]
    }
    (message,) = R.decode_messages(payload)
    assert isinstance(message.content, list)
    assert isinstance(message.content[0], NonStandardBlock)
    assert isinstance(message.content[1], ImageBlock) and message.content[1].base64 == "AAAA"
    assert R.encode(R.decode_conversation(payload)) == payload


# ---------------------------------------------------------- decode inputs of all shapes


def test_decode_accepts_bare_lists_items_parts_and_sdk_objects() -> None:
    items = PAYLOADS["reasoning_tool_loop"]["input"]
    assert R.decode_messages(items) == R.decode_messages({"input": items})
    assert R.decode_messages(items[1]) == R.decode_messages([items[1]])
    parts = [
        {"type": "input_text", "text": "hi"},
        {"type": "input_image", "file_id": "f", "detail": "low"},
    ]
    (user,) = R.decode_messages(parts)
    assert to_dict(user) == {
        "role": "user",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "file_id": "f", "detail": "low"},
        ],
    }
    assert R.decode_messages(json.dumps({"input": items})) == R.decode_messages(items)
    response = Response.model_validate(RESPONSE_TOOL_CALL)
    from_object = R.decode_messages(response)
    from_items = R.decode_messages(list(response.output))
    assert from_object == from_items
    assert len(from_items) == 1 and from_items[0].role == "assistant"


# ----------------------------------------------------------------------------- errors


BAD_CONVERSATIONS: list[tuple[Any, int | None, int | None]] = [
    (42, None, None),
    ("not json", None, None),
    ({"input": 5}, None, None),
    ({"input": [], "instructions": ["x"]}, None, None),
    ({"input": ["text"]}, 0, None),
    ({"input": [{"role": "user", "content": "x"}, {"role": "robot", "content": "x"}]}, 1, None),
    ({"input": [{"role": "user"}]}, 0, None),
    ({"input": [{"role": "user", "content": [{"type": "input_text"}]}]}, 0, 0),
    ({"input": [{"role": "user", "content": ["x"]}]}, 0, 0),
    (
        {
            "input": [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "a"},
                        {"type": "input_text", "text": 5},
                    ],
                }
            ]
        },
        0,
        1,
    ),
    ({"input": [{"type": "function_call", "name": "f", "arguments": "{}"}]}, 0, None),
    ({"input": [{"type": "function_call", "call_id": "c", "arguments": "{}"}]}, 0, None),
    ({"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}]}, 0, None),
    ({"input": [{"type": "function_call_output", "call_id": "c", "output": 3}]}, 0, None),
    ({"input": [{"content": "x"}]}, 0, None),
    ({"input": [{"type": 7}]}, 0, None),
    ({"input": [_msg(1, _text("x", annotations=["bad"]))]}, 0, 0),
    ({"input": [_rs(1) | {"summary": [{"type": "summary_text"}]}]}, 0, None),
    ({"input": [], "tools": {"a": 1}}, None, None),
    ({"input": [], "tools": [{"type": "function"}]}, None, None),
    ({"input": [], "tools": ["x"]}, None, None),
    ({"input": [], "parallel_tool_calls": "yes"}, None, None),
    ({"input": [], "tool_choice": 3}, None, None),
    ({"input": [], "tool_choice": {"mode": "auto"}}, None, None),
]


@pytest.mark.parametrize(("payload", "message_index", "block_index"), BAD_CONVERSATIONS)
def test_bad_conversations_raise_conversion_errors(
    payload: Any, message_index: int | None, block_index: int | None
) -> None:
    with pytest.raises(ConversionError) as error:
        R.decode_conversation(payload)
    assert error.value.provider == NAME
    assert (error.value.message_index, error.value.block_index) == (message_index, block_index)


def _corruptions(value: Any, rng: random.Random) -> Any:
    """Replace one randomly chosen value somewhere inside ``value`` with junk."""
    junk = [None, 0, -1, True, "", "x", [], {}, [None], {"type": None}, 1.5]
    data = copy.deepcopy(value)
    path: list[Any] = []
    node = data
    while isinstance(node, (dict, list)) and node and rng.random() < 0.8:
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append((node, key))
        node = node[key]
    if path:
        parent, key = path[-1]
        parent[key] = rng.choice(junk)
    return data


def test_corrupted_payloads_only_raise_chatschema_errors() -> None:
    rng = random.Random(20240607)
    sources = [*PAYLOADS.values(), *(data for data, _, _ in RESPONSES.values())]
    for _ in range(3000):
        corrupted = _corruptions(rng.choice(sources), rng)
        if rng.random() < 0.5:
            corrupted = _corruptions(corrupted, rng)
        for decode in (R.decode_conversation, R.decode_response):
            try:
                decoded = decode(corrupted)
            except ChatSchemaError:
                continue
            # what decodes must also encode (or fail the structural check cleanly)
            history = [decoded] if isinstance(decoded, AssistantMessage) else decoded
            with contextlib.suppress(ChatSchemaError):
                R.encode(history, unsupported="drop")


# ------------------------------------------------------------------ more behaviour


def test_sdk_input_objects_decode_like_dicts() -> None:
    from openai.types.responses import ResponseFunctionToolCall, ResponseReasoningItem

    reasoning = ResponseReasoningItem.model_validate(_rs(1, ["s"]))
    call = ResponseFunctionToolCall.model_validate(_fc(1))
    items = [{"role": "user", "content": "x"}, reasoning, call, _out(1)]
    dicts = [{"role": "user", "content": "x"}, _rs(1, ["s"]), _fc(1), _out(1)]
    assert R.decode_messages(items) == R.decode_messages(dicts)
    assert R.encode(R.decode_conversation({"input": items}))["input"] == dicts


def test_parallel_next_to_none_is_kept_verbatim() -> None:
    """NoneToolChoice has no ``parallel``: both keys are kept as they came, never dropped."""
    payload = {"input": "x", "tool_choice": "none", "parallel_tool_calls": True}
    conversation = R.decode_conversation(payload)
    assert conversation.tool_choice is None
    assert conversation.extras == {NAME: {"tool_choice": "none", "parallel_tool_calls": True}}
    assert R.encode(conversation) == payload


@pytest.mark.parametrize(
    "item",
    [
        {"type": "reasoning", "id": "rs_x", "summary": [], "content": [None]},
        {"type": "reasoning", "id": "rs_x", "summary": "odd", "encrypted_content": 5},
        {
            "type": "message",
            "id": "msg_x",
            "role": "assistant",
            "status": "completed",
            "content": [],
        },
        {
            "type": "message",
            "id": "msg_x",
            "role": "assistant",
            "content": [{"type": "output_audio"}],
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "no id"}],
        },
        {"type": "reasoning", "summary": []},
        {"type": "web_search_call", "id": 5, "action": "search", "status": "completed"},
    ],
)
def test_odd_output_items_still_round_trip(item: dict[str, Any]) -> None:
    payload = {
        "input": [{"role": "user", "content": "x"}, item, {"role": "assistant", "content": "ok"}]
    }
    assert R.encode(R.decode_conversation(payload), check=False) == payload


@pytest.mark.parametrize(
    "part",
    [
        {"type": "input_image", "image_url": "not a url", "detail": "auto"},
        {"type": "input_image", "image_url": "", "file_id": "f", "detail": "auto"},
        {"type": "input_image", "image_url": "https://e.com/x.png", "detail": "ultra"},
        {"type": "input_file", "filename": "only-a-name.pdf"},
        {"type": "input_file", "file_id": "f", "filename": ""},
        {
            "type": "input_text",
            "text": "t",
            "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "5m"},
        },
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    ],
)
def test_odd_input_parts_still_round_trip(part: dict[str, Any]) -> None:
    payload = {"input": [{"role": "user", "content": [part]}]}
    assert R.encode(R.decode_conversation(payload)) == payload
