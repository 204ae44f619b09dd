"""Gemini requests that come back unchanged: every tool_config, empty text parts.

The shapes are built with google-genai's own types (``types.ToolConfig``,
``types.FunctionCallingConfig`` with every ``types.FunctionCallingConfigMode``,
``types.RetrievalConfig``, ``types.Part``), dumped as the JSON the SDK sends; every
``encode`` output goes through the request validator in ``tests/oracle.py``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from google.genai import types
from oracle import validate_request

from chatschema import NamedToolChoice, RequiredToolChoice, TextBlock, to_dict
from chatschema.providers import gemini
from providers.gemini.helpers import SIG_C, camel, model, user

TOOLS = [{"function_declarations": [{"name": "f"}, {"name": "g"}]}]


def wire(value: Any) -> Any:
    """A google-genai object as the JSON the SDK sends (snake_case, no unset fields)."""
    return value.model_dump(mode="json", exclude_none=True)


def request(tool_config: types.ToolConfig) -> dict[str, Any]:
    return {"contents": [user({"text": "hi"})], "tools": TOOLS, "tool_config": wire(tool_config)}


def assert_round_trip(payload: dict[str, Any]) -> None:
    """Exact round trips from the dicts, the REST camelCase and the SDK objects."""
    forms = [
        copy.deepcopy(payload),
        camel(payload),
        {
            "contents": [types.Content.model_validate(c) for c in payload["contents"]],
            **{k: v for k, v in payload.items() if k != "contents"},
        },
    ]
    if "tool_config" in payload:
        forms[2]["tool_config"] = types.ToolConfig.model_validate(payload["tool_config"])
    for form in forms:
        conversation = gemini.decode_conversation(form)
        encoded = gemini.encode(conversation)
        validate_request("gemini", encoded)
        assert encoded == payload
        assert gemini.check(conversation) == []
        # and through the neutral JSON
        again = gemini.decode_conversation(payload)
        assert gemini.encode(type(again).model_validate(to_dict(again))) == payload


# ===================================================================== tool_config

NAMES: list[list[str] | None] = [None, ["f"], ["f", "g"]]


def _cases() -> list[Any]:
    cases = []
    for mode in types.FunctionCallingConfigMode:
        for names in NAMES:
            for stream in (None, True):
                cases.append(pytest.param(mode, names, stream, id=f"{mode.value}-{names}-{stream}"))
    return cases


@pytest.mark.parametrize(("mode", "names", "stream"), _cases())
def test_every_function_calling_mode_comes_back_as_it_came(
    mode: types.FunctionCallingConfigMode, names: list[str] | None, stream: bool | None
) -> None:
    config = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode=mode, allowed_function_names=names, stream_function_call_arguments=stream
        )
    )
    assert_round_trip(request(config))


@pytest.mark.parametrize("mode", list(types.FunctionCallingConfigMode))
def test_unmapped_tool_config_keys_come_back(mode: types.FunctionCallingConfigMode) -> None:
    config = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(mode=mode),
        include_server_side_tool_invocations=True,
        retrieval_config=types.RetrievalConfig(
            lat_lng=types.LatLng(latitude=59.91, longitude=10.75), language_code="nb"
        ),
    )
    assert_round_trip(request(config))


def test_tool_config_without_a_function_calling_config_comes_back() -> None:
    for config in (
        types.ToolConfig(include_server_side_tool_invocations=False),
        types.ToolConfig(retrieval_config=types.RetrievalConfig(language_code="en")),
        types.ToolConfig(function_calling_config=types.FunctionCallingConfig()),
    ):
        assert_round_trip(request(config))


def test_validated_is_kept_in_extras_beside_the_closest_tool_choice() -> None:
    config = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode=types.FunctionCallingConfigMode.VALIDATED
        ),
        include_server_side_tool_invocations=True,
    )
    conversation = gemini.decode_conversation(request(config))
    assert to_dict(conversation)["tool_choice"] == {"type": "auto"}
    assert to_dict(conversation)["extras"] == {
        "gemini": {
            "tool_config": {
                "include_server_side_tool_invocations": True,
                "function_calling_config": {"mode": "VALIDATED"},
            }
        }
    }
    # A tool choice changed after decoding is sent as it now says; the kept mode only
    # stood for "auto", the other kept keys still go.
    conversation.tool_choice = RequiredToolChoice()
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    assert encoded["tool_config"] == {
        "function_calling_config": {"mode": "ANY"},
        "include_server_side_tool_invocations": True,
    }
    conversation.tool_choice = NamedToolChoice(name="g")
    assert gemini.encode(conversation)["tool_config"]["function_calling_config"] == {
        "mode": "ANY",
        "allowed_function_names": ["g"],
    }
    conversation.tool_choice = None
    assert gemini.encode(conversation)["tool_config"] == {
        "include_server_side_tool_invocations": True
    }


def test_mode_unspecified_has_no_tool_choice_and_goes_back_while_there_is_none() -> None:
    config = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode=types.FunctionCallingConfigMode.MODE_UNSPECIFIED
        )
    )
    conversation = gemini.decode_conversation(request(config))
    assert conversation.tool_choice is None
    assert gemini.encode(conversation)["tool_config"] == wire(config)
    conversation.tool_choice = RequiredToolChoice()
    assert gemini.encode(conversation)["tool_config"] == {
        "function_calling_config": {"mode": "ANY"}
    }


# ================================================================= empty text parts


def _empty() -> dict[str, Any]:
    part: dict[str, Any] = wire(types.Part(text=""))
    assert part == {"text": ""}
    return part


def test_a_content_of_one_empty_text_part_comes_back_and_is_not_refused() -> None:
    payload = {
        "system_instruction": {"parts": [_empty()]},
        "contents": [user(_empty()), model(_empty()), user({"text": "hi"})],
    }
    conversation = gemini.decode_conversation(payload)
    assert gemini.check(conversation) == []
    marked = {"type": "text", "text": "", "extras": {"gemini": {"empty_text": True}}}
    assert [to_dict(m)["content"] for m in conversation.messages] == [[marked]] * 3 + ["hi"]
    assert_round_trip(payload)


def test_empty_text_parts_beside_other_parts_come_back_in_place() -> None:
    payload = {
        "contents": [
            user({"text": "a"}, _empty(), {"text": "b"}),
            model(_empty(), {"function_call": {"name": "f", "args": {}}}, _empty()),
            user({"function_response": {"name": "f", "response": {"output": "1"}}}, _empty()),
            model({"text": "", "thought_signature": SIG_C}),
        ],
        "tools": TOOLS,
    }
    assert_round_trip(payload)
    # content_format="string" keeps the part too
    conversation = gemini.decode_conversation({"contents": [user(_empty())]})
    assert gemini.encode(conversation, content_format="string") == {"contents": [user(_empty())]}


def test_an_empty_text_block_built_by_hand_is_still_left_out() -> None:
    # Only an empty part read from a request is marked; a neutral TextBlock("") from
    # elsewhere says nothing and is left out as before.
    history = [{"role": "user", "content": [TextBlock(text=""), TextBlock(text="x")]}]
    assert gemini.encode(history) == {"contents": [user({"text": "x"})]}
    response = gemini.decode_response(
        {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}}]}
    )
    assert "empty_text" not in str(to_dict(response))
