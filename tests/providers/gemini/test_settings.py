"""Gemini request settings, limited tool choices, model contents in a row, streamed arguments.

Requests are built with google-genai's own types (``GenerationConfig``,
``GenerateContentConfig``, ``ThinkingConfig``, ``SafetySetting``), dumped as the SDK
sends them; every ``encode`` output goes through the request validator in
``tests/oracle.py``. Streams with ``partialArgs`` are recorded ones
(``tests/payloads/gemini/README.md``).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from google.genai import types
from oracle import validate_request

from chatschema import (
    AllowedToolsChoice,
    Conversation,
    GenerationSettings,
    JsonSchemaResponseFormat,
    UnsupportedContentError,
    merge_chunks,
    to_dict,
)
from chatschema.providers import gemini
from providers.gemini.helpers import PAYLOADS, camel, fc, fr, model, snake_case, user

HI = [user({"text": "hi"})]
TOOLS = [{"function_declarations": [{"name": "f"}, {"name": "g"}]}]
SCHEMA = {"type": "object", "properties": {"firstName": {"type": "string"}}}


def wire(value: Any) -> Any:
    """A google-genai object as the JSON the SDK sends (snake_case, no unset fields)."""
    return value.model_dump(mode="json", exclude_none=True)


def round_trip(payload: dict[str, Any]) -> Conversation:
    conversation = gemini.decode_conversation(copy.deepcopy(payload))
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    assert encoded == payload
    assert gemini.check(conversation) == []
    again = type(conversation).model_validate(to_dict(conversation))  # the neutral JSON
    assert gemini.encode(again) == payload
    return conversation


# ========================================================================= settings


def test_generation_config_maps_to_settings_and_the_rest_comes_back() -> None:
    config = types.GenerationConfig(
        max_output_tokens=256,
        temperature=0.2,
        top_p=0.9,
        top_k=40,
        stop_sequences=["END"],
        seed=7,
        presence_penalty=0.1,
        frequency_penalty=0.3,
        response_mime_type="application/json",
        response_json_schema=SCHEMA,
        thinking_config=types.ThinkingConfig(thinking_budget=1024, include_thoughts=True),
        candidate_count=1,
        response_modalities=["TEXT"],
    )
    payload = {
        "model": "gemini-2.5-flash",
        "contents": HI,
        "generation_config": wire(config),
        "safety_settings": [
            wire(
                types.SafetySetting(
                    category=types.HarmCategory.HARM_CATEGORY_HARASSMENT,
                    threshold=types.HarmBlockThreshold.BLOCK_ONLY_HIGH,
                )
            )
        ],
        "cached_content": "cachedContents/abc",
        "labels": {"team": "search"},
    }
    conversation = round_trip(payload)
    assert to_dict(conversation)["settings"] == {
        "model": "gemini-2.5-flash",
        "max_output_tokens": 256,
        "temperature": 0.2,
        "top_p": 0.9,
        "top_k": 40,
        "stop": ["END"],
        "seed": 7,
        "presence_penalty": 0.1,
        "frequency_penalty": 0.3,
        "response_format": {"type": "json_schema", "json_schema": SCHEMA},
        "thinking_budget": 1024,
    }
    assert to_dict(conversation)["extras"] == {
        "gemini": {
            "generation_config": {
                "candidate_count": 1,
                "response_modalities": ["TEXT"],
                "thinking_config": {"include_thoughts": True},
            },
            "safety_settings": payload["safety_settings"],
            "cached_content": "cachedContents/abc",
            "labels": {"team": "search"},
        }
    }


def test_rest_camel_case_comes_back_in_snake_case_as_every_key() -> None:
    payload = {
        "contents": camel(HI),
        "generationConfig": {
            "maxOutputTokens": 64,
            "responseMimeType": "application/json",
            "responseSchema": {"type": "OBJECT", "properties": {"firstName": {"type": "STRING"}}},
            "thinkingConfig": {"thinkingLevel": "low", "includeThoughts": False},
            "mediaResolution": "MEDIA_RESOLUTION_LOW",
        },
        "safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "OFF"}],
        "labels": {"runId": "r1"},
    }
    conversation = gemini.decode_conversation(payload)
    settings = to_dict(conversation)["settings"]
    assert settings["reasoning_effort"] == "low"
    # responseSchema (Gemini's OpenAPI subset) is the schema; property names stay as given
    assert settings["response_format"]["json_schema"]["properties"] == {
        "firstName": {"type": "STRING"}
    }
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    # the spelling encode writes for every key (the API takes both); user data as given
    assert encoded == {
        "contents": HI,
        "generation_config": {
            "max_output_tokens": 64,
            "response_mime_type": "application/json",
            "response_schema": {"type": "OBJECT", "properties": {"firstName": {"type": "STRING"}}},
            "thinking_config": {"thinking_level": "low", "include_thoughts": False},
            "media_resolution": "MEDIA_RESOLUTION_LOW",
        },
        "safety_settings": [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "OFF"}],
        "labels": {"runId": "r1"},
    }


def test_one_tool_object_instead_of_a_list_comes_back_as_one() -> None:
    payload = {"contents": HI, "tools": {"function_declarations": [{"name": "f"}]}}
    conversation = gemini.decode_conversation(payload)
    assert [tool.name for tool in conversation.tools or []] == ["f"]
    assert gemini.check(conversation) == []
    encoded = gemini.encode(conversation)
    assert encoded == payload
    validate_request("gemini", {**encoded, "tools": [encoded["tools"]]})
    # with more tools than one object holds, a list
    conversation.tools = [
        *(conversation.tools or []),
        conversation.tools[0].model_copy(update={"name": "g", "extras": {"gemini": {"tool": 1}}}),
    ]  # type: ignore[index]
    assert isinstance(gemini.encode(conversation)["tools"], list)


def test_the_google_genai_config_form_comes_back_as_the_config_form() -> None:
    config = types.GenerateContentConfig(
        system_instruction=types.Content(parts=[types.Part(text="Be brief.")]),
        temperature=0.5,
        max_output_tokens=100,
        response_mime_type="text/plain",
        thinking_config=types.ThinkingConfig(thinking_level=types.ThinkingLevel.HIGH),
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="f")])],
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode="ANY")
        ),
        labels={"a": "b"},
        candidate_count=2,
    )
    payload = {"model": "gemini-3-pro-preview", "contents": HI, "config": wire(config)}
    conversation = round_trip(payload)
    assert to_dict(conversation)["settings"] == {
        "model": "gemini-3-pro-preview",
        "temperature": 0.5,
        "max_output_tokens": 100,
        "response_format": {"type": "text"},
        "reasoning_effort": "HIGH",
    }
    # the SDK object itself decodes the same
    from_object = gemini.decode_conversation({**payload, "config": config})
    assert to_dict(from_object) == to_dict(conversation)
    # and the encoded call works as the SDK's keyword arguments
    types.GenerateContentConfig.model_validate(gemini.encode(conversation)["config"])


def test_settings_from_elsewhere_go_to_generation_config_in_snake_case() -> None:
    conversation = Conversation(
        messages=[{"role": "user", "content": "hi"}],
        settings=GenerationSettings(
            model="gemini-2.5-pro",
            max_output_tokens=10,
            stop=["a"],
            response_format={"type": "json_object"},
            thinking_budget=-1,
            reasoning_effort="medium",
        ),
    )
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    assert encoded == {
        "model": "gemini-2.5-pro",
        "contents": HI,
        "generation_config": {
            "max_output_tokens": 10,
            "stop_sequences": ["a"],
            "response_mime_type": "application/json",
            "thinking_config": {"thinking_budget": -1, "thinking_level": "medium"},
        },
    }
    # absent stays absent; other formats' extras are never sent (a problem by default)
    plain = Conversation(
        messages=[{"role": "user", "content": "hi"}], extras={"openai_chat": {"n": 2}}
    )
    assert [(p.pointer, p.keyword) for p in gemini.check(plain)] == [
        ("/extras/openai_chat/n", "foreign_extras")
    ]
    assert gemini.encode(plain, unsupported="drop") == {"contents": HI}


def test_a_response_format_that_says_more_than_json_stays_gemini_s() -> None:
    payload = {
        "contents": HI,
        "generation_config": {
            "response_mime_type": "text/x.enum",
            "response_schema": {"type": "STRING", "enum": ["a", "b"]},
            "temperature": None,
        },
    }
    conversation = gemini.decode_conversation(payload)
    assert conversation.settings is None
    assert to_dict(conversation)["extras"]["gemini"]["generation_config"] == {
        "response_mime_type": "text/x.enum",
        "response_schema": {"type": "STRING", "enum": ["a", "b"]},
        "temperature": None,
    }  # (a null is kept, and written back as it came)
    assert gemini.encode(conversation) == payload


@pytest.mark.parametrize(
    ("settings", "pointer"),
    [
        ({"reasoning_effort": "none"}, "/settings/reasoning_effort"),
        (
            {"response_format": {"type": "json_schema", "json_schema": SCHEMA, "name": "n"}},
            "/settings/response_format/name",
        ),
        (
            {"response_format": {"type": "json_schema", "json_schema": SCHEMA, "strict": False}},
            "/settings/response_format/strict",
        ),
    ],
)
def test_settings_gemini_cannot_say_follow_the_unsupported_policy(
    settings: dict[str, Any], pointer: str
) -> None:
    conversation = Conversation(
        messages=[{"role": "user", "content": "hi"}], settings=GenerationSettings(**settings)
    )
    problems = gemini.check(conversation)
    assert [(p.pointer, p.keyword) for p in problems] == [(pointer, "unsupported_content")]
    with pytest.raises(UnsupportedContentError, match=r"settings\."):
        gemini.encode(conversation)
    dropped = gemini.encode(conversation, unsupported="drop")
    validate_request("gemini", dropped)
    assert gemini.check(conversation, unsupported="drop") == []
    # strict and the schema name are left out; the rest of the setting is sent
    assert "thinking_config" not in dropped.get("generation_config", {})


def test_a_json_schema_response_format_encodes_with_response_json_schema() -> None:
    conversation = Conversation(
        messages=[{"role": "user", "content": "hi"}],
        settings=GenerationSettings(
            response_format=JsonSchemaResponseFormat(json_schema=SCHEMA, strict=True)
        ),
    )
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    assert encoded["generation_config"] == {
        "response_mime_type": "application/json",
        "response_json_schema": SCHEMA,
    }


# ================================================================ limited tool choice


def request(calling: types.FunctionCallingConfig) -> dict[str, Any]:
    config = wire(types.ToolConfig(function_calling_config=calling))
    return {"contents": HI, "tools": TOOLS, "tool_config": config}


def test_any_with_names_is_an_allowed_choice_that_requires_a_call() -> None:
    payload = request(types.FunctionCallingConfig(mode="ANY", allowed_function_names=["f", "g"]))
    conversation = round_trip(payload)
    assert to_dict(conversation)["tool_choice"] == {
        "type": "allowed",
        "names": ["f", "g"],
        "mode": "required",
    }
    assert "extras" not in to_dict(conversation)


def test_validated_with_names_is_an_allowed_choice_the_model_may_answer_without() -> None:
    payload = request(types.FunctionCallingConfig(mode="VALIDATED", allowed_function_names=["g"]))
    conversation = round_trip(payload)
    assert to_dict(conversation)["tool_choice"] == {
        "type": "allowed",
        "names": ["g"],
        "mode": "auto",
    }
    # AUTO takes no names: they stay Gemini's, beside the auto choice
    auto = request(types.FunctionCallingConfig(mode="AUTO", allowed_function_names=["g"]))
    decoded = round_trip(auto)
    assert to_dict(decoded)["tool_choice"] == {"type": "auto"}
    assert to_dict(decoded)["extras"] == {
        "gemini": {"tool_config": {"function_calling_config": {"allowed_function_names": ["g"]}}}
    }


@pytest.mark.parametrize(
    ("mode", "wire_mode"), [("required", "ANY"), ("auto", "VALIDATED")], ids=["required", "auto"]
)
def test_an_allowed_choice_from_elsewhere_limits_the_function_names(
    mode: str, wire_mode: str
) -> None:
    conversation = Conversation(
        messages=[{"role": "user", "content": "hi"}],
        tools=[{"name": "f", "parameters": {}}, {"name": "g", "parameters": {}}],
        tool_choice=AllowedToolsChoice(names=["f", "g"], mode=mode),
    )
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    assert encoded["tool_config"] == {
        "function_calling_config": {"mode": wire_mode, "allowed_function_names": ["f", "g"]}
    }
    assert (
        to_dict(gemini.decode_conversation(encoded))["tool_choice"]
        == to_dict(conversation)["tool_choice"]
    )
    # Gemini has no switch for parallel calls
    conversation.tool_choice = AllowedToolsChoice(names=["f"], mode=mode, parallel=False)
    assert [(p.pointer, p.keyword) for p in gemini.check(conversation)] == [
        ("/tool_choice/parallel", "unsupported_content")
    ]
    with pytest.raises(UnsupportedContentError, match="parallel"):
        gemini.encode(conversation)
    assert "tool_config" in gemini.encode(conversation, unsupported="drop")


# ======================================================= model contents in a row


def test_model_contents_in_a_row_answered_by_one_user_turn_are_accepted() -> None:
    payload = {
        "contents": [
            user({"text": "weather in Paris and Oslo?"}),
            model(fc("weather", {"city": "Paris"}, "a")),
            model(fc("weather", {"city": "Oslo"}, "b")),
            user(fr("weather", {"output": "sun"}, "a"), fr("weather", {"output": "snow"}, "b")),
            model({"text": "Sun and snow."}),
        ],
        "tools": [{"function_declarations": [{"name": "weather"}]}],
    }
    conversation = round_trip(payload)
    assert [m.role for m in conversation.messages] == [
        "user",
        "assistant",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    # without ids, by name and order, as for one model content
    for content in payload["contents"]:
        for part in content["parts"]:
            for key in ("function_call", "function_response"):
                part.get(key, {}).pop("id", None)
    decoded = round_trip(payload)
    calls = [m.tool_calls[0].id for m in decoded.messages[1:3]]  # type: ignore[union-attr]
    assert [m.tool_call_id for m in decoded.messages[3:5]] == calls  # type: ignore[union-attr]


def test_a_result_after_a_later_model_turn_is_still_not_adjacent() -> None:
    history = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]},
        {"role": "user", "content": "more"},
        {"role": "assistant", "content": "ok"},
        {"role": "tool", "tool_call_id": "c", "content": "x"},
    ]
    # a user turn between: the model content after it begins another turn
    assert [(p.pointer, p.keyword) for p in gemini.check(history)] == [
        ("/messages/1/tool_calls/0/id", "unanswered_tool_call"),
        ("/messages/4/tool_call_id", "orphan_tool_result"),
        ("/messages/4/tool_call_id", "not_adjacent"),
    ]
    # without it, the two model contents are one turn: the result is right after it
    assert gemini.check([*history[:2], *history[3:]]) == []


# ================================================================= streamed arguments


def events(name: str) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads((PAYLOADS / f"{name}.json").read_text("utf-8"))
    return loaded


def test_streamed_arguments_go_out_as_json_fragments_as_they_arrive() -> None:
    stream = events("stream_partial_args_two_calls")
    chunks = list(gemini.decode_stream(stream))
    fragments = [c for chunk in chunks for c in chunk.tool_call_chunks]
    first = [f for f in fragments if f.index == 0]
    assert first[0].name == "getWeather" and first[0].arguments == ""
    assert first[0].id == "gemini_call_dqHOab6xGLzWodAPkPuViA4_0"  # known from the start
    assert [f.arguments for f in first] == ["", '{"location":"Boston', '"', "}"]
    assert json.loads("".join(f.arguments or "" for f in first)) == {"location": "Boston"}
    message = merge_chunks(chunks).to_message()
    assert [(c.name, c.arguments, c.index) for c in message.tool_calls] == [
        ("getWeather", {"location": "Boston"}, 0),
        ("getWeather", {"location": "San Francisco"}, 1),
    ]
    assert message.finish_reason == "tool_calls"
    # the signature of the first piece stays on its call
    assert set((message.tool_calls[0].extras or {})["gemini"]) == {
        "thought_signature",
        "synthesized_id",
    }


@pytest.mark.parametrize(
    "name",
    [
        "stream_partial_args_two_calls",
        "stream_partial_args_nested",
        "stream_partial_args_no_terminal_part",
    ],
)
def test_streamed_arguments_without_a_response_id_get_decode_response_s_ids(name: str) -> None:
    from providers.gemini.test_stream import expected

    stream = [{k: v for k, v in e.items() if k != "responseId"} for e in events(name)]
    chunks = list(gemini.decode_stream(stream))
    assert to_dict(merge_chunks(chunks).to_message()) == expected(stream)
    first = next(c for chunk in chunks for c in chunk.tool_call_chunks)
    assert first.id is None  # the id depends on the whole part: it comes with the last piece


def test_a_partial_arg_that_goes_back_is_kept_as_it_came() -> None:
    # google-genai takes any partial arg: one with no place in the arguments (a path
    # already streamed, none, or no JSON path) is kept in the call's partial_args
    def event(call: dict[str, Any]) -> dict[str, Any]:
        return {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]}

    stream = [
        event({"name": "f", "willContinue": True}),
        event({"partialArgs": [{"jsonPath": "$.a", "numberValue": 1}], "willContinue": True}),
        event({"partialArgs": [{"jsonPath": "$.b", "boolValue": True}], "willContinue": True}),
        event({"partialArgs": [{"jsonPath": "$.a", "numberValue": 2}], "willContinue": True}),
        event({"partialArgs": [{"jsonPath": "a.b", "numberValue": 3}]}),
    ]
    # (no finishReason: a fragment of a stream)
    chunks = list(gemini.decode_stream(stream, incomplete="keep"))
    (call,) = merge_chunks(chunks).to_message().tool_calls
    assert call.arguments == {"a": 1, "b": True}
    assert call.extras["gemini"]["function_call"] == {
        "partial_args": [
            {"json_path": "$.a", "number_value": 2},
            {"json_path": "a.b", "number_value": 3},
        ]
    }


def test_a_recorded_request_with_call_turns_in_a_row_is_accepted_and_comes_back() -> None:
    # pydantic-ai cassette, answered with HTTP 200 (tests/payloads/gemini/README.md)
    payload = json.loads((PAYLOADS / "request_model_contents_in_a_row.json").read_text("utf-8"))
    conversation = gemini.decode_conversation(payload)
    assert gemini.check(conversation) == []
    tool_results = [m for m in conversation.messages if m.role == "tool"]
    calls = [c.id for m in conversation.messages if m.role == "assistant" for c in m.tool_calls]  # type: ignore[union-attr]
    assert (
        [m.tool_call_id for m in tool_results]
        == calls
        == ["hq1dul8c", "auto_load_97d4a2341e6817ea"]
    )  # type: ignore[union-attr]
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    assert encoded == snake_case(payload)


def test_a_field_given_in_both_spellings_is_a_conversion_error() -> None:
    from chatschema import ConversionError

    payload = {"contents": HI, "tool_config": {}, "toolConfig": {}}
    with pytest.raises(ConversionError, match="given twice"):
        gemini.decode_conversation(payload)
