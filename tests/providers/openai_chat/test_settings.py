"""Request settings and the limited tool choice of Chat Completions.

``decode_conversation`` maps the request's setting keys to ``Conversation.settings``
and keeps every other key verbatim in ``extras["openai_chat"]``; ``encode`` writes
them back, so a whole request survives the round trip. Settings Chat has no key
for (``top_k``, ``thinking_budget``) go through the unsupported policy. Every
request ``encode`` writes is checked against the SDK's ``CompletionCreateParams``.
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import pytest

from chatschema import (
    AllowedToolsChoice,
    Conversation,
    ConversionError,
    GenerationSettings,
    JsonSchemaResponseFormat,
    NamedToolChoice,
    ToolDefinition,
    UnsupportedContentError,
    UserMessage,
    to_dict,
)
from chatschema.providers import openai_chat as oc
from providers.openai_chat.helpers import WEATHER_TOOL, request_oracle

ENCODE = importlib.import_module("chatschema.providers.openai_chat.encode")

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
    "additionalProperties": False,
}

# A request with every setting and many other keys (as the SDK types them).
FULL_REQUEST: dict[str, Any] = {
    "model": "gpt-4.1-2025-04-14",
    "messages": [
        {"role": "developer", "content": "Answer in JSON."},
        {"role": "user", "content": "Weather in Oslo?"},
    ],
    "max_completion_tokens": 512,
    "temperature": 0.2,
    "top_p": 0.9,
    "stop": ["\n\n", "END"],
    "seed": 42,
    "presence_penalty": 0.5,
    "frequency_penalty": -0.25,
    "response_format": {
        "type": "json_schema",
        "json_schema": {
            "name": "weather",
            "description": "The weather in a city.",
            "schema": SCHEMA,
            "strict": True,
        },
    },
    "reasoning_effort": "low",
    "tools": [WEATHER_TOOL],
    "tool_choice": "auto",
    "parallel_tool_calls": False,
    "n": 1,
    "logprobs": True,
    "top_logprobs": 2,
    "logit_bias": {"50256": -100},
    "user": "user-1234",
    "metadata": {"run": "nightly"},
    "store": True,
    "service_tier": "flex",
    "prompt_cache_key": "weather-v1",
    "safety_identifier": "hashed-user",
    "verbosity": "low",
    "prediction": {"type": "content", "content": '{"city": "Oslo"}'},
    "web_search_options": {"search_context_size": "low"},
}

SETTINGS = {
    "model": "gpt-4.1-2025-04-14",
    "max_output_tokens": 512,
    "temperature": 0.2,
    "top_p": 0.9,
    "stop": ["\n\n", "END"],
    "seed": 42,
    "presence_penalty": 0.5,
    "frequency_penalty": -0.25,
    "response_format": {
        "type": "json_schema",
        "json_schema": SCHEMA,
        "name": "weather",
        "description": "The weather in a city.",
        "strict": True,
    },
    "reasoning_effort": "low",
}

KEPT = {
    key: FULL_REQUEST[key]
    for key in (
        "n",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "user",
        "metadata",
        "store",
        "service_tier",
        "prompt_cache_key",
        "safety_identifier",
        "verbosity",
        "prediction",
        "web_search_options",
    )
}


def round_trip(request: dict[str, Any]) -> Conversation:
    """Decode, encode again, assert the same request (and the SDK's types)."""
    before = copy.deepcopy(request)
    conversation = oc.decode_conversation(request)
    assert request == before  # the input is not touched
    encoded = oc.encode(conversation)
    assert encoded == request
    assert encoded["messages"] == request["messages"]
    request_oracle(encoded)
    # and through the neutral JSON form
    assert oc.encode(Conversation.model_validate(to_dict(conversation))) == request
    return conversation


# ------------------------------------------------------------------ decode and round trip


def test_a_full_request_round_trips_with_its_settings_and_every_other_key() -> None:
    conversation = round_trip(FULL_REQUEST)
    assert to_dict(conversation.settings) == SETTINGS
    # explicit_auto: the request wrote "auto" beside parallel_tool_calls
    assert conversation.extras == {"openai_chat": {**KEPT, "explicit_auto": True}}
    assert conversation.tools is not None and conversation.tools[0].name == "get_weather"
    assert to_dict(conversation.tool_choice) == {"type": "auto", "parallel": False}


def test_the_stream_keys_and_deprecated_functions_are_kept_too() -> None:
    request = {
        "messages": [{"role": "user", "content": "Hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "modalities": ["text", "audio"],
        "audio": {"voice": "alloy", "format": "wav"},
        "functions": [{"name": "f", "parameters": {"type": "object"}}],
        "function_call": "auto",
    }
    conversation = round_trip(request)
    assert conversation.settings is None
    assert conversation.extras == {
        "openai_chat": {k: v for k, v in request.items() if k != "messages"}
    }


@pytest.mark.parametrize(
    ("wire", "settings", "markers"),
    [
        ({"max_completion_tokens": 0}, {"max_output_tokens": 0}, {}),
        ({"max_tokens": 100}, {"max_output_tokens": 100}, {"output_limit_key": "max_tokens"}),
        ({"stop": "END"}, {"stop": ["END"]}, {"stop_form": "string"}),
        ({"stop": ["END"]}, {"stop": ["END"]}, {}),
        ({"stop": []}, {"stop": []}, {}),
        ({"temperature": 1}, {"temperature": 1.0}, {}),
        ({"seed": -3}, {"seed": -3}, {}),
        ({"reasoning_effort": "minimal"}, {"reasoning_effort": "minimal"}, {}),
        ({"response_format": {"type": "text"}}, {"response_format": {"type": "text"}}, {}),
        (
            {"response_format": {"type": "json_object"}},
            {"response_format": {"type": "json_object"}},
            {},
        ),
        (
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "w", "schema": {}},
                }
            },
            {"response_format": {"type": "json_schema", "json_schema": {}, "name": "w"}},
            {},
        ),
    ],
)
def test_each_setting(
    wire: dict[str, Any], settings: dict[str, Any], markers: dict[str, Any]
) -> None:
    request = {"messages": [{"role": "user", "content": "Hi"}], **wire}
    conversation = round_trip(request)
    assert to_dict(conversation.settings) == settings
    assert (conversation.extras or {}).get("openai_chat", {}) == markers


@pytest.mark.parametrize(
    ("wire", "kept"),
    [
        # nulls (the SDK types take them): kept as they came
        ({"temperature": None, "stop": None}, {"temperature": None, "stop": None}),
        (
            {"max_tokens": None, "response_format": None},
            {"max_tokens": None, "response_format": None},
        ),
        ({"tools": None, "tool_choice": None}, {"tools": None, "tool_choice": None}),
        # both output limits: the current key is the setting, the legacy one kept
        ({"max_completion_tokens": 10, "max_tokens": 20}, {"max_tokens": 20}),
        # another server's response format (vLLM): kept whole
        (
            {"response_format": {"type": "structural_tag", "structures": [], "triggers": []}},
            {"response_format": {"type": "structural_tag", "structures": [], "triggers": []}},
        ),
        # a json_schema without a schema has no neutral form: kept whole
        (
            {"response_format": {"type": "json_schema", "json_schema": {"name": "w"}}},
            {"response_format": {"type": "json_schema", "json_schema": {"name": "w"}}},
        ),
    ],
)
def test_what_settings_cannot_hold_is_kept_verbatim(
    wire: dict[str, Any], kept: dict[str, Any]
) -> None:
    request = {"messages": [{"role": "user", "content": "Hi"}], **wire}
    conversation = oc.decode_conversation(request)
    assert conversation.extras == {"openai_chat": kept}
    assert oc.encode(conversation) == request


def test_unmapped_keys_inside_a_response_format_are_kept_under_its_key() -> None:
    request = {
        "messages": [{"role": "user", "content": "Hi"}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "w", "schema": SCHEMA, "x-cache": "on"},
            "x-vendor": 1,
        },
    }
    conversation = oc.decode_conversation(request)
    assert conversation.extras == {
        "openai_chat": {"response_format": {"x-vendor": 1, "json_schema": {"x-cache": "on"}}}
    }
    assert oc.encode(conversation) == request


@pytest.mark.parametrize(
    ("wire", "words"),
    [
        ({"temperature": "0.2"}, "temperature must be a number, not str"),
        ({"top_p": True}, "top_p must be a number, not bool"),
        ({"seed": 1.5}, "seed must be an integer, not float"),
        ({"max_completion_tokens": "10"}, "max_completion_tokens must be an integer"),
        ({"max_tokens": -1}, "max_output_tokens"),
        ({"stop": ["a", 1]}, "stop must be a string or a list of strings"),
        ({"model": 4}, "model must be a string"),
        ({"reasoning_effort": ["low"]}, "reasoning_effort must be a string"),
        ({"response_format": "json"}, "response_format must be an object"),
    ],
)
def test_a_setting_of_the_wrong_type_is_a_conversion_error(
    wire: dict[str, Any], words: str
) -> None:
    with pytest.raises(ConversionError) as caught:
        oc.decode_conversation({"messages": [], **wire})
    assert words in caught.value.reason
    assert caught.value.provider == "openai_chat"


# ------------------------------------------------------------------ encode


def test_only_the_settings_set_are_written_and_model_only_when_named() -> None:
    messages = [UserMessage(content="Hi")]
    assert oc.encode(Conversation(messages=messages, settings=GenerationSettings())) == {
        "messages": [{"role": "user", "content": "Hi"}]
    }
    request = oc.encode(
        Conversation(messages=messages, settings=GenerationSettings(temperature=0.0))
    )
    assert request == {"messages": [{"role": "user", "content": "Hi"}], "temperature": 0.0}
    request_oracle(request)
    # with a model in the settings, the caller's keyword wins this way
    named = oc.encode(Conversation(messages=messages, settings=GenerationSettings(model="a")))
    assert {**named, "model": "b"}["model"] == "b"


def test_settings_from_another_format_take_chat_keys() -> None:
    settings = GenerationSettings(
        max_output_tokens=1024,
        stop=["END"],
        response_format=JsonSchemaResponseFormat(json_schema={**SCHEMA, "title": "Weather"}),
    )
    kept_elsewhere = Conversation(
        messages=[UserMessage(content="Hi")],
        settings=settings,
        extras={"anthropic": {"metadata": {"user_id": "u"}}, "gemini": {"labels": {}}},
    )
    # another format's key is a problem (an empty one loses nothing); "drop" leaves it out
    assert [(p.pointer, p.keyword) for p in oc.check(kept_elsewhere)] == [
        ("/extras/anthropic/metadata", "foreign_extras")
    ]
    request = oc.encode(kept_elsewhere, unsupported="drop")
    assert request == {
        "messages": [{"role": "user", "content": "Hi"}],
        "max_completion_tokens": 1024,
        "stop": ["END"],  # a list: nothing says it was a string
        # Structured Outputs: a name is required; the schema's title when it fits
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "Weather", "schema": {**SCHEMA, "title": "Weather"}},
        },
    }
    request_oracle(request)
    untitled = settings.model_copy(
        update={"response_format": JsonSchemaResponseFormat(json_schema=SCHEMA)}
    )
    request = oc.encode(Conversation(messages=[UserMessage(content="Hi")], settings=untitled))
    assert request["response_format"]["json_schema"]["name"] == "response"


@pytest.mark.parametrize(("field", "value"), [("top_k", 40), ("thinking_budget", 1024)])
def test_settings_chat_has_no_key_for_follow_the_unsupported_policy(field: str, value: int) -> None:
    conversation = Conversation(
        messages=[UserMessage(content="Hi")],
        settings=GenerationSettings(temperature=0.5, **{field: value}),
    )
    problems = oc.check(conversation)
    assert [(p.pointer, p.keyword) for p in problems] == [
        (f"/settings/{field}", "unsupported_content")
    ]
    assert field in problems[0].message
    for options in ({}, {"check": False}):
        with pytest.raises(UnsupportedContentError) as caught:
            oc.encode(conversation, **options)  # type: ignore[arg-type]
        assert f"settings.{field}" in str(caught.value)
    expected = {"messages": [{"role": "user", "content": "Hi"}], "temperature": 0.5}
    for policy in ("drop", "placeholder"):
        assert oc.encode(conversation, unsupported=policy) == expected  # type: ignore[arg-type]
        assert oc.check(conversation, unsupported=policy) == []  # type: ignore[arg-type]


def test_settings_problems_come_after_the_tool_rules_and_before_the_messages() -> None:
    conversation = Conversation(
        messages=[UserMessage(content="Hi", name="bad name")],
        tool_choice=NamedToolChoice(name="f"),
        settings=GenerationSettings(top_k=3),
    )
    assert [p.pointer for p in oc.check(conversation)] == [
        "/tool_choice",
        "/settings/top_k",
        "/messages/0/name",
    ]


def test_settings_leave_the_messages_as_they_were() -> None:
    request = copy.deepcopy(FULL_REQUEST)
    conversation = oc.decode_conversation(request)
    bare = conversation.model_copy(update={"settings": None, "extras": None})
    assert oc.encode(bare)["messages"] == oc.encode(conversation)["messages"]
    with_general_path = ENCODE._FAST
    try:
        ENCODE._FAST = False
        assert oc.encode(conversation) == request
    finally:
        ENCODE._FAST = with_general_path


# ------------------------------------------------------------------ allowed tools

CUSTOM_TOOL = {"type": "custom", "custom": {"name": "run_sql", "description": "SQL."}}
TIME_TOOL = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}}


def allowed(mode: str, *tools: Any) -> dict[str, Any]:
    return {"type": "allowed_tools", "allowed_tools": {"mode": mode, "tools": list(tools)}}


def fn(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


def test_allowed_tools_decode_to_a_limited_choice_and_back() -> None:
    request = {
        "messages": [{"role": "user", "content": "Time in Oslo?"}],
        "tools": [WEATHER_TOOL, TIME_TOOL, CUSTOM_TOOL],
        "tool_choice": allowed(
            "required", fn("get_weather"), {"type": "custom", "custom": {"name": "run_sql"}}
        ),
        "parallel_tool_calls": True,
    }
    conversation = round_trip(request)
    assert conversation.tool_choice == AllowedToolsChoice(
        names=["get_weather", "run_sql"], mode="required", parallel=True
    )


def test_entries_without_a_neutral_name_stay_in_the_choice_and_in_place() -> None:
    mcp = {"type": "mcp", "server_label": "deepwiki"}
    odd = {"type": "function", "function": {"name": "get_time", "strict": True}}  # more than a name
    request = {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [WEATHER_TOOL, TIME_TOOL],
        "tool_choice": allowed("auto", mcp, fn("get_weather"), odd),
    }
    conversation = round_trip(request)
    choice = conversation.tool_choice
    assert isinstance(choice, AllowedToolsChoice)
    assert choice.names == ["get_weather"]
    assert choice.extras == {
        "openai_chat": {"allowed_tools": {"tools": [mcp, odd]}, "tool_positions": [0, 2]}
    }
    # a choice naming no tool at all has no neutral form: it stays in the request extras
    only = {**request, "tool_choice": allowed("auto", mcp), "parallel_tool_calls": False}
    conversation = oc.decode_conversation(only)
    assert conversation.tool_choice is None
    assert conversation.extras == {
        "openai_chat": {"tool_choice": only["tool_choice"], "parallel_tool_calls": False}
    }
    assert oc.encode(conversation) == only


def test_a_function_entry_naming_a_custom_tool_is_kept_as_it_came() -> None:
    request = {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [WEATHER_TOOL, CUSTOM_TOOL],
        "tool_choice": allowed("auto", fn("get_weather"), fn("run_sql")),
    }
    conversation = round_trip(request)
    assert conversation.tool_choice.names == ["get_weather"]  # type: ignore[union-attr]


def test_a_limited_choice_from_another_format_encodes_with_chat_entries() -> None:
    tools = [
        ToolDefinition(name="get_weather", parameters=SCHEMA),
        ToolDefinition(
            name="run_sql",
            parameters={"type": "object", "properties": {"input": {"type": "string"}}},
            extras={"openai_chat": {"type": "custom"}},
        ),
    ]
    choice = AllowedToolsChoice(
        names=["run_sql", "get_weather"],
        mode="auto",
        extras={"openai_responses": {"tools": [{"type": "mcp", "server_label": "x"}]}},
    )
    request = oc.encode(
        Conversation(messages=[UserMessage(content="Hi")], tools=tools, tool_choice=choice)
    )
    assert request["tool_choice"] == allowed(
        "auto", {"type": "custom", "custom": {"name": "run_sql"}}, fn("get_weather")
    )  # another format's entries are not sent
    assert "parallel_tool_calls" not in request
    request_oracle(request)
    # without tools, check says so (the API takes a tool choice only with tools)
    bare = Conversation(messages=[UserMessage(content="Hi")], tool_choice=choice)
    assert [p.keyword for p in oc.check(bare)] == ["tools_required"]


def test_the_rest_of_a_mapped_object_goes_only_where_it_is_written() -> None:
    request = {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [WEATHER_TOOL],
        "tool_choice": {"type": "function", "function": {"name": "get_weather", "x-v": 1}},
        "response_format": {"type": "json_object", "x-w": 2},
    }  # (keys the SDK types do not have: a compatible server's)
    conversation = oc.decode_conversation(request)
    assert oc.encode(conversation) == request
    assert conversation.extras == {
        "openai_chat": {"tool_choice": {"function": {"x-v": 1}}, "response_format": {"x-w": 2}}
    }
    # the choice and the format changed or gone: their rest is not sent on its own
    settings = GenerationSettings()
    changed = conversation.model_copy(update={"tool_choice": None, "settings": settings})
    assert oc.encode(changed) == {"messages": request["messages"], "tools": [WEATHER_TOOL]}
