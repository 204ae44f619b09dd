"""Gemini: what google-genai's types accept is read, and a request comes back as it came.

Regressions found by ``tests/test_variations.py`` on recorded traffic
(docs/providers/gemini.md, *Read in more than one form*):

1. **Nulls in requests.** A ``null`` anywhere google-genai's request types take it
   (a part's ``text``, ``function_declarations``, a setting, the tool config's mode,
   a content's ``parts`` ...) was read as absent and written back so, or refused;
   clients send nulls (serialized pydantic objects: llm-gemini sends
   ``"description": null``). Each is kept and written back as ``null``.
2. **Empty lists in requests** (``tools: []``, a ``Tool`` declaring nothing,
   ``allowed_function_names: []`` or ``[""]``, no ``parts``) come back as they came.
3. **Calls without a name.** A response ``functionCall`` without a name, and a stream
   whose event naming a streamed call is missing (``candidates: null``), were refused
   ("function_call needs a name"). The call is an ``InvalidToolCall`` (what the
   chunk accumulator makes of a streamed call without a name), the same from
   ``decode_response`` and ``decode_stream``, and goes back to Gemini as it came.

The oracle is google-genai: every input is one its types accept.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from google.genai import types
from oracle import validate_request

from chatschema import merge_chunks, to_dict
from chatschema.providers import gemini
from providers.gemini.helpers import PAYLOADS, snake_case
from providers.gemini.test_stream import check_stream

TRAFFIC = PAYLOADS.parents[1] / "traffic" / "gemini"


def recorded_request(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((TRAFFIC / name).read_text("utf-8"))["request"]
    return loaded


# llm-gemini's recorded request: safety settings, a declaration with "description": null
LLM_GEMINI = "llm-gemini.test_gemini.test_tools.0.json"


def comes_back(request: dict[str, Any]) -> None:
    """google-genai takes ``request``; decoded and encoded, it comes back as it came.

    (``tests/oracle.py`` walks the parts of each content: for a content whose ``parts``
    is ``null`` or absent, google-genai's ``Content`` is asked directly.)
    """
    contents = request["contents"]
    if all(isinstance(content.get("parts"), list) for content in contents):
        validate_request("gemini", request)
    else:
        validate_request("gemini", {**request, "contents": []})
        for content in contents:
            types.Content.model_validate(content)
    conversation = gemini.decode_conversation(copy.deepcopy(request))
    assert gemini.encode(conversation, check=False) == snake_case(request)


# ============================================================== 1. nulls in requests


def _set(request: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(request)
    target: Any = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return out


NULLS = [
    ("contents", 0, "parts", 0, "text"),  # was read back as {"parts": [{}]}
    ("tools", 0, "functionDeclarations"),  # was refused
    ("tools", 0, "functionDeclarations", 0, "parameters"),
    ("generationConfig", "thinkingConfig"),
    ("generationConfig", "thinkingConfig", "includeThoughts"),
    ("safetySettings", 1, "threshold"),
    ("contents", 0, "parts"),
]


@pytest.mark.parametrize("path", NULLS, ids=lambda path: "/".join(map(str, path)))
def test_a_null_in_a_recorded_request_comes_back_as_null(path: tuple[Any, ...]) -> None:
    comes_back(_set(recorded_request(LLM_GEMINI), path, None))


def test_nulls_in_parts_settings_and_the_tool_config_come_back() -> None:
    request = {
        "system_instruction": {"parts": [{"text": "Be brief."}, {"text": None}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?", "thought_signature": None}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Checking.", "thought": None},
                    {"function_call": {"name": "weather", "args": None, "id": None}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"function_response": {"name": "weather", "response": None, "parts": None}},
                    {"file_data": {"file_uri": "https://example.com/a.pdf", "mime_type": None}},
                    {"inline_data": None},
                ],
            },
            {"role": "model", "parts": None},
            {"role": "user"},
        ],
        "tools": [{"function_declarations": [{"name": "weather", "description": None}]}],
        "tool_config": {"function_calling_config": {"mode": None}},
        "generation_config": {"temperature": None, "response_mime_type": None},
        "cached_content": None,
    }
    comes_back(request)
    tool_config = {"function_calling_config": {"mode": "ANY", "allowed_function_names": None}}
    comes_back({**request, "tool_config": tool_config, "model": None})
    # request keys sent as null (google-genai's config takes them so)
    nulls = {"tools": None, "tool_config": None, "system_instruction": None}
    types.GenerateContentConfig.model_validate(nulls)
    conversation = gemini.decode_conversation({**request, **nulls})
    assert gemini.encode(conversation, check=False) == {**request, **nulls}


# ====================================================== 2. empty lists in requests


@pytest.mark.parametrize(
    "tools",
    [[], [{}], [{"function_declarations": []}], {}, [{"google_search": {}}, {}]],
    ids=["none", "empty_tool", "no_declarations", "one_empty_object", "hosted_then_empty"],
)
def test_tools_that_declare_nothing_come_back(tools: Any) -> None:
    request = recorded_request(LLM_GEMINI)
    comes_back({**request, "tools": tools})


def test_a_tool_declaring_nothing_beside_one_that_does_comes_back() -> None:
    request = recorded_request(LLM_GEMINI)
    declared = request["tools"][0]
    comes_back({**request, "tools": [{"googleSearch": {}, "functionDeclarations": []}, declared]})


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"function_calling_config": {}},
        {"function_calling_config": {"mode": "ANY", "allowed_function_names": []}},
        {"function_calling_config": {"mode": "ANY", "allowed_function_names": [""]}},
    ],
)
def test_a_tool_config_that_says_nothing_more_comes_back(config: dict[str, Any]) -> None:
    comes_back({**recorded_request(LLM_GEMINI), "tool_config": config})


def test_a_content_and_an_instruction_without_parts_come_back() -> None:
    request = recorded_request(LLM_GEMINI)
    comes_back({**request, "contents": [{"role": "user", "parts": []}, {"role": "user"}]})
    comes_back({**request, "system_instruction": {}})
    comes_back({**request, "system_instruction": {"parts": None}})


# ============================================================ 3. calls without a name


def event(*parts: dict[str, Any], **candidate: Any) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": list(parts)}, **candidate}],
        "responseId": "r1",
    }


@pytest.mark.parametrize(
    "call", [{"args": {"city": "Paris"}}, {"name": None, "args": {"city": "Paris"}}, {}]
)
def test_a_response_call_without_a_name_is_an_invalid_call_kept_as_it_came(
    call: dict[str, Any],
) -> None:
    part = {"functionCall": call, "thoughtSignature": "CiQB0e2K"}
    response = event({"text": "Let me check."}, part, finishReason="STOP")
    types.GenerateContentResponse.model_validate(response)  # google-genai takes it
    reply = gemini.decode_response(response)  # (was refused: "function_call needs a name")
    assert reply.tool_calls == []
    (invalid,) = reply.invalid_tool_calls
    assert invalid.name is None and invalid.error == "the tool call has no name"
    assert json.loads(invalid.arguments or "") == call.get("args", {})
    assert invalid.index == 1
    assert reply.finish_reason == "stop"
    # streamed, the same message
    check_stream([event({"text": "Let me check."}), event(part, finishReason="STOP")])
    # and back in a history, the candidate's content as it came
    history = [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}]
    encoded = gemini.encode([*gemini.decode_messages(history), reply], check=False)
    sent = {**part, "functionCall": {k: v for k, v in call.items() if v is not None}}
    # (a response's null reads as absent: docs/providers/gemini.md)
    assert encoded["contents"][1] == snake_case(
        {"role": "model", "parts": [{"text": "Let me check."}, sent]}
    )


def _without_the_name_event(stream: list[dict[str, Any]], how: str) -> list[dict[str, Any]]:
    stream = copy.deepcopy(stream)
    named = next(
        number
        for number, e in enumerate(stream)
        if "name" in e["candidates"][0]["content"]["parts"][0].get("functionCall", {})
    )
    if how == "null":
        stream[named]["candidates"] = None
    else:
        del stream[named]["candidates"]
    return stream


@pytest.mark.parametrize("how", ["null", "dropped"])
@pytest.mark.parametrize("name", ["stream_partial_args_nested", "stream_partial_args_two_calls"])
def test_a_streamed_call_whose_name_did_not_come_is_an_invalid_call(name: str, how: str) -> None:
    recorded = json.loads((PAYLOADS / f"{name}.json").read_text("utf-8"))
    stream = _without_the_name_event(recorded, how)
    for item in stream:
        types.GenerateContentResponse.model_validate(item)  # google-genai takes each event
    chunks, want = check_stream(stream)  # (was refused: "function_call needs a name")
    message = merge_chunks(chunks).to_message()
    (invalid,) = message.invalid_tool_calls
    assert invalid.error == "the tool call has no name"
    assert json.loads(invalid.arguments or "")  # every streamed argument is there
    assert to_dict(message) == want


def test_a_partial_arg_without_a_json_path_is_kept() -> None:
    stream = [
        event({"functionCall": {"name": "f", "willContinue": True}}),
        event({"functionCall": {"partialArgs": [{"numberValue": 1}], "willContinue": True}}),
        event({"functionCall": {"partialArgs": [{"jsonPath": "", "stringValue": "x"}]}}),
    ]
    for item in stream:
        types.GenerateContentResponse.model_validate(item)
    # (no finishReason: a fragment of a stream)
    chunks = list(gemini.decode_stream(stream, incomplete="keep"))
    (call,) = merge_chunks(chunks).to_message().tool_calls
    assert call.arguments == {} and call.extras is not None
    assert call.extras["gemini"]["function_call"]["partial_args"] == [
        {"number_value": 1},
        {"json_path": "", "string_value": "x"},
    ]
