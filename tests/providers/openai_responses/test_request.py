"""The OpenAI Responses codec, the request's own fields: settings, kept keys, tools, choices.

Recorded requests (``tests/payloads/openai_responses/requests_pydantic_ai.json``, see
the README there) come back exactly; settings map to ``GenerationSettings`` and back;
what the neutral model has no field for stays in ``Conversation.extras`` verbatim;
a setting this API cannot take follows the unsupported policy; ``allowed_tools``
is an ``AllowedToolsChoice``; a function tool without ``strict`` stays without it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import recorded
from oracle import validate_request

import chatschema
from chatschema import (
    AllowedToolsChoice,
    AutoToolChoice,
    Conversation,
    GenerationSettings,
    JsonObjectResponseFormat,
    JsonSchemaResponseFormat,
    TextResponseFormat,
    ToolDefinition,
    UnsupportedContentError,
    UserMessage,
    to_dict,
)
from chatschema.providers import openai_responses as R
from providers.openai_responses.helpers import NAME, WEATHER_TOOL

PAYLOADS = Path(__file__).parents[2] / "payloads" / NAME
RECORDED = PAYLOADS / "requests_pydantic_ai.json"
"""Recorded requests, each ``{"source": ..., "request": ...}`` (read when a test runs)."""


def _valid(payload: dict[str, Any]) -> bool:
    """Whether the openai SDK's request types take ``payload``."""
    try:
        validate_request(NAME, payload)
    except AssertionError:
        return False
    return True


# ================================================================ recorded requests


@pytest.mark.parametrize("source", recorded.index(RECORDED))
def test_recorded_requests_come_back_exactly(source: str) -> None:
    entry = recorded.item(RECORDED, source, shared=True)
    request = entry["request"]
    original = copy.deepcopy(request)
    conversation = R.decode_conversation(request)
    assert request == original  # decoding does not mutate
    encoded = R.encode(conversation, check=False)
    assert encoded == request
    # every item but the YAML-sorted messages, byte for byte (their key order kept)
    for sent, original_item in zip(encoded["input"], request["input"], strict=True):
        if "role" not in original_item:
            assert json.dumps(sent) == json.dumps(original_item)
    if _valid(request):
        validate_request(NAME, encoded)
    # the neutral form survives its own JSON round trip
    again = chatschema.parse_conversation(json.dumps(to_dict(conversation)))
    assert R.encode(again, check=False) == request


def test_the_recorded_requests_cover_the_settings() -> None:
    """The corpus is not vacuous: it holds every kind of setting and kept key."""
    settings: set[str] = set()
    kept: set[str] = set()
    for entry in recorded.load(RECORDED, shared=True):
        conversation = R.decode_conversation(entry["request"])
        if conversation.settings is not None:
            settings |= conversation.settings.model_fields_set
        kept |= set((conversation.extras or {}).get(NAME, {}))
    assert settings >= {"model", "temperature", "response_format", "reasoning_effort"}
    assert kept >= {"stream", "include", "previous_response_id", "reasoning", "text", "store"}


def _recorded(source: str) -> dict[str, Any]:
    request = recorded.item(RECORDED, source, shared=True)["request"]
    return copy.deepcopy(request)


def test_structured_output_and_reasoning_settings() -> None:
    request = _recorded("test_openai_responses_image_generation_with_native_output.yaml#0")
    conversation = R.decode_conversation(request)
    assert conversation.settings is not None
    response_format = conversation.settings.response_format
    assert isinstance(response_format, JsonSchemaResponseFormat)
    assert (response_format.name, response_format.strict) == ("Animal", True)
    assert response_format.json_schema == request["text"]["format"]["schema"]
    extras = (conversation.extras or {})[NAME]
    assert "text" not in extras  # all of `text` mapped
    assert extras["include"] == ["reasoning.encrypted_content"]
    assert extras["previous_response_id"] is None  # a null is kept as it came

    thinking = R.decode_conversation(_recorded("test_reasoning_summary_auto.yaml#0"))
    assert thinking.settings is not None and thinking.settings.reasoning_effort == "high"
    assert (thinking.extras or {})[NAME]["reasoning"] == {"summary": "auto"}

    verbose = R.decode_conversation(_recorded("test_openai_responses_verbosity.yaml#0"))
    assert verbose.settings is not None
    assert isinstance(verbose.settings.response_format, TextResponseFormat)
    assert (verbose.extras or {})[NAME]["text"] == {"verbosity": "low"}

    unmapped = _recorded("test_openai_responses_reasoning_generate_summary.yaml#0")
    conversation = R.decode_conversation(unmapped)
    assert conversation.settings is not None
    assert "reasoning_effort" not in conversation.settings.model_fields_set  # effort: null
    assert (conversation.extras or {})[NAME]["reasoning"] == unmapped["reasoning"]
    assert (conversation.extras or {})[NAME]["truncation"] == "auto"


def test_settings_go_to_another_format_and_the_kept_keys_do_not() -> None:
    request = _recorded("test_openai_responses_streaming_usage.yaml#0")
    conversation = R.decode_conversation(request)
    assert conversation.settings is not None
    assert conversation.settings.reasoning_effort == "low"
    assert (conversation.extras or {})[NAME]["service_tier"] == "flex"
    codec = chatschema.providers.get_codec("openai_chat")
    assert [p.pointer for p in codec.check(conversation)] == [
        f"/extras/{NAME}/include",
        f"/extras/{NAME}/reasoning",
        f"/extras/{NAME}/service_tier",
    ]  # other formats' extras: a problem by default, left out with "drop"
    chat = codec.encode(conversation, unsupported="drop")
    assert "service_tier" not in chat and "include" not in chat


# ======================================================================= settings


def _conversation(**fields: Any) -> Conversation:
    return Conversation(messages=[UserMessage(content="Hi")], **fields)


def test_neutral_settings_are_written_in_responses_keys() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    conversation = _conversation(
        settings=GenerationSettings(
            model="gpt-5",
            max_output_tokens=512,
            temperature=0.2,
            top_p=0.9,
            reasoning_effort="minimal",
            response_format=JsonSchemaResponseFormat(
                json_schema=schema, name="answer", description="The answer.", strict=True
            ),
        )
    )
    encoded = R.encode(conversation)
    validate_request(NAME, encoded)
    assert encoded == {
        "model": "gpt-5",
        "input": [{"role": "user", "content": "Hi"}],
        "max_output_tokens": 512,
        "temperature": 0.2,
        "top_p": 0.9,
        "reasoning": {"effort": "minimal"},
        "text": {
            "format": {
                "type": "json_schema",
                "name": "answer",
                "description": "The answer.",
                "schema": schema,
                "strict": True,
            }
        },
    }
    assert R.decode_conversation(encoded).settings == conversation.settings


@pytest.mark.parametrize(
    ("response_format", "wire"),
    [
        (TextResponseFormat(), {"type": "text"}),
        (JsonObjectResponseFormat(), {"type": "json_object"}),
        # Structured outputs require a name: a schema from a format without one is
        # named by its title, else "response"
        (
            JsonSchemaResponseFormat(json_schema={"type": "object", "title": "Weather"}),
            {
                "type": "json_schema",
                "name": "Weather",
                "schema": {"type": "object", "title": "Weather"},
            },
        ),
        (
            JsonSchemaResponseFormat(json_schema={"type": "object", "title": "not a name!"}),
            {
                "type": "json_schema",
                "name": "response",
                "schema": {"type": "object", "title": "not a name!"},
            },
        ),
    ],
)
def test_response_formats(response_format: Any, wire: dict[str, Any]) -> None:
    encoded = R.encode(_conversation(settings=GenerationSettings(response_format=response_format)))
    validate_request(NAME, encoded)
    assert encoded["text"] == {"format": wire}


def test_absent_settings_stay_absent_and_model_only_when_set() -> None:
    """``client.responses.create(model=..., **encode(conversation))`` keeps working."""
    assert R.encode(_conversation()) == {"input": [{"role": "user", "content": "Hi"}]}
    assert R.encode(_conversation(settings=GenerationSettings())) == {
        "input": [{"role": "user", "content": "Hi"}]
    }
    encoded = R.encode(_conversation(settings=GenerationSettings(temperature=0.5)))
    assert "model" not in encoded and encoded["temperature"] == 0.5


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("stop", ["\n\n"]),
        ("seed", 7),
        ("top_k", 40),
        ("presence_penalty", 0.5),
        ("frequency_penalty", 0.5),
        ("thinking_budget", 1024),
    ],
)
def test_settings_this_api_cannot_take(field: str, value: Any) -> None:
    conversation = _conversation(settings=GenerationSettings(model="gpt-5", **{field: value}))
    with pytest.raises(UnsupportedContentError, match=f"settings.{field}"):
        R.encode(conversation)
    with pytest.raises(UnsupportedContentError, match=f"settings.{field}"):
        R.encode(conversation, check=False)
    problems = R.check(conversation)
    assert [(p.pointer, p.keyword) for p in problems] == [
        (f"/settings/{field}", "unsupported_content")
    ]
    assert R.check(conversation, unsupported="drop") == []
    for policy in ("drop", "placeholder"):
        encoded = R.encode(conversation, unsupported=policy)
        assert encoded == {"model": "gpt-5", "input": [{"role": "user", "content": "Hi"}]}


def test_integer_settings_come_back_as_the_same_json() -> None:
    request = {"model": "gpt-4.1", "input": "x", "temperature": 1, "top_p": 0.5}
    conversation = R.decode_conversation(request)
    assert conversation.settings is not None and conversation.settings.temperature == 1.0
    encoded = R.encode(conversation)
    assert encoded == request
    assert (json.dumps(encoded["temperature"]), json.dumps(encoded["top_p"])) == ("1", "0.5")


def test_a_setting_changed_after_decoding_wins_over_the_kept_rest() -> None:
    request = {
        "input": "x",
        "reasoning": {"effort": "low", "summary": "auto"},
        "text": {"format": {"type": "text"}, "verbosity": "low"},
        "temperature": None,
    }
    conversation = R.decode_conversation(request)
    assert conversation.settings is not None
    changed = conversation.model_copy(
        update={
            "settings": conversation.settings.model_copy(
                update={"reasoning_effort": "high", "temperature": 0.0}
            )
        }
    )
    encoded = R.encode(changed)
    assert encoded["reasoning"] == {"effort": "high", "summary": "auto"}
    assert encoded["text"] == {"format": {"type": "text"}, "verbosity": "low"}
    assert encoded["temperature"] == 0.0


@pytest.mark.parametrize(
    "request_",
    [
        {"input": "x", "model": ""},  # no neutral form: kept verbatim
        {"input": "x", "max_output_tokens": -1},
        {"input": "x", "temperature": "hot"},
        {"input": "x", "text": {"format": {"type": "json_schema", "schema": {}, "strict": None}}},
        {"input": "x", "text": {"format": {"type": "grammar", "syntax": "lark"}}},
        {"input": "x", "text": "plain"},
        {"input": "x", "reasoning": {}},
        {"input": "x", "prompt": {"id": "pmpt_1", "variables": {"a": "b"}}, "background": True},
    ],
)
def test_values_without_a_neutral_form_are_kept_verbatim(request_: dict[str, Any]) -> None:
    conversation = R.decode_conversation(request_)
    assert R.encode(conversation) == request_


# ==================================================================== tool choices


ALLOWED = {
    "type": "allowed_tools",
    "mode": "required",
    "tools": [
        {"type": "mcp", "server_label": "deepwiki"},
        {"type": "function", "name": "get_weather"},
        {"type": "image_generation"},
        {"type": "function", "name": "get_time"},
    ],
}


def test_allowed_tools_round_trip_exactly() -> None:
    request = {
        "input": "x",
        "tools": [WEATHER_TOOL, {**WEATHER_TOOL, "name": "get_time"}],
        "tool_choice": ALLOWED,
        "parallel_tool_calls": False,
    }
    validate_request(NAME, request)
    conversation = R.decode_conversation(request)
    choice = conversation.tool_choice
    assert isinstance(choice, AllowedToolsChoice)
    assert (choice.names, choice.mode, choice.parallel) == (
        ["get_weather", "get_time"],
        "required",
        False,
    )
    # the entries without a function name, in order, and where they stood
    assert choice.extras == {
        NAME: {"tools": [ALLOWED["tools"][0], ALLOWED["tools"][2]], "positions": [0, 2]}
    }
    encoded = R.encode(conversation)
    assert json.dumps(encoded) == json.dumps(request)


def test_allowed_tools_of_another_format_and_after_the_functions() -> None:
    neutral = _conversation(
        tools=[ToolDefinition(name="a", parameters={}), ToolDefinition(name="b", parameters={})],
        tool_choice=AllowedToolsChoice(names=["a", "b"], mode="auto"),
    )
    encoded = R.encode(neutral)
    validate_request(NAME, encoded)
    assert encoded["tool_choice"] == {
        "type": "allowed_tools",
        "mode": "auto",
        "tools": [{"type": "function", "name": "a"}, {"type": "function", "name": "b"}],
    }
    trailing = {**ALLOWED, "tools": [ALLOWED["tools"][1], ALLOWED["tools"][0]]}
    conversation = R.decode_conversation({"input": "x", "tool_choice": trailing})
    assert conversation.tool_choice is not None
    assert conversation.tool_choice.extras == {NAME: {"tools": [ALLOWED["tools"][0]]}}
    assert R.encode(conversation)["tool_choice"] == trailing


@pytest.mark.parametrize(
    "choice",
    [
        {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "mcp", "server_label": "x"}]},
        {"type": "allowed_tools", "mode": "auto", "tools": []},
        {"type": "mcp", "server_label": "deepwiki", "name": "ask_question"},
        {"type": "web_search_preview"},
        {"type": "custom", "name": "sql"},
    ],
)
def test_choices_without_a_neutral_form_are_kept_in_the_conversation(choice: Any) -> None:
    request = {"input": "x", "tool_choice": choice, "parallel_tool_calls": True}
    conversation = R.decode_conversation(request)
    assert conversation.tool_choice is None
    assert conversation.extras == {NAME: {"tool_choice": choice, "parallel_tool_calls": True}}
    assert R.encode(conversation) == request


def test_a_neutral_choice_wins_over_a_kept_one() -> None:
    conversation = R.decode_conversation({"input": "x", "tool_choice": {"type": "file_search"}})
    chosen = conversation.model_copy(update={"tool_choice": AutoToolChoice(parallel=False)})
    assert R.encode(chosen) == {"input": "x", "parallel_tool_calls": False}
    # a kept choice goes only with the tools it may name
    kept = R.decode_conversation(
        {"input": "x", "tools": [{"type": "file_search"}], "tool_choice": {"type": "file_search"}}
    )
    assert "tool_choice" not in R.encode(kept, native_tools=False)
    assert R.encode(kept)["tool_choice"] == {"type": "file_search"}


# ====================================================================== strict


def test_a_function_tool_without_strict_comes_back_without_it() -> None:
    tool = {"type": "function", "name": "f", "parameters": {"type": "object"}}
    request = {"input": "x", "tools": [tool, {**tool, "name": "g", "strict": False}]}
    conversation = R.decode_conversation(request)
    assert conversation.tools is not None
    assert [t.strict for t in conversation.tools] == [None, False]
    assert R.encode(conversation) == request
    # set after decoding, it is sent
    strict = conversation.tools[0].model_copy(update={"strict": True})
    encoded = R.encode(conversation.model_copy(update={"tools": [strict]}))
    assert encoded["tools"] == [{**tool, "strict": True}]
    # to another format, the tool is a plain function definition
    chat = chatschema.providers.get_codec("openai_chat").encode(conversation)
    assert "strict" not in chat["tools"][0]["function"]


def test_a_tool_of_unknown_strictness_is_sent_as_not_strict() -> None:
    """FunctionToolParam requires ``strict``; unset in the neutral model means not strict."""
    conversation = _conversation(tools=[ToolDefinition(name="f", parameters={})])
    encoded = R.encode(conversation)
    validate_request(NAME, encoded)
    assert encoded["tools"] == [
        {"type": "function", "name": "f", "parameters": {}, "strict": False}
    ]
