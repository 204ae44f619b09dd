"""Gemini: what the API sends or takes in more than one form is read in every form.

Regressions from real traffic (docs/providers/gemini.md, *Read in more than one form*):

1. **Integer enums.** The REST API writes enums as their numbers when asked to
   (``$alt=json;enum-encoding=int``, what the ``vertexai`` SDK asks for): Vertex AI
   responses with ``"finishReason": 1`` were refused. Every enum of a response is
   read as a name or as its number (the numbers of the API's protos), the neutral
   values are those of the name, and the number is kept as it came. Requests take
   numbers too (protobuf's JSON mapping: parsers accept enum names and numbers):
   they are read and written back as they came.
2. **Parallel function responses over several user contents.** A model turn with
   several calls answered by function responses spread over the user contents right
   after it (alone or with user text) was refused by ``check``; the API took such a
   request. Contents of one role in a row are one turn, on both sides.
3. **Optional values of responses**: ``null`` counts, a candidate without content,
   ``content: {}``, ``parts: []``, no ``role``, no ``responseId`` / ``modelVersion`` /
   ``createTime``, and fields newer than the codec at every level (kept).
4. **Requests the API took in a second form** (recorded traffic of ellmer and
   llm-gemini): a content's or the system instruction's one part as an object rather
   than a list, and a function declaration's ``"description": null``; read, and
   written back as they came.

The oracle is google-genai: each input (in its named form where google-genai's string
enums cannot hold a number) is one its types accept.
"""

from __future__ import annotations

import copy
import enum
import json
from typing import Any

import pytest
from chatschema_models.tool import (
    AllowedToolsChoice,
    AutoToolChoice,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolChoice,
)
from conftest import assembled
from google.genai import types
from oracle import validate_request

from chatschema import Conversation, StreamIncompleteError, to_dict
from chatschema.providers import gemini
from chatschema.providers.gemini import wire
from providers.gemini.helpers import camel, fc, fr, model, snake_case, user
from providers.gemini.test_encode_fast import OPTIONS, both_walks
from providers.gemini.test_stream import check_stream, sse

# ============================================================== 1. integer enums

# Vertex AI's numbers (google/cloud/aiplatform/v1 content.proto, prediction_service.proto),
# written out here independently of the codec's tables
FINISH = {
    0: ("FINISH_REASON_UNSPECIFIED", "other"),
    1: ("STOP", "stop"),
    2: ("MAX_TOKENS", "length"),
    3: ("SAFETY", "content_filter"),
    4: ("RECITATION", "content_filter"),
    5: ("OTHER", "other"),
    6: ("BLOCKLIST", "content_filter"),
    7: ("PROHIBITED_CONTENT", "content_filter"),
    8: ("SPII", "content_filter"),
    9: ("MALFORMED_FUNCTION_CALL", "error"),
    10: ("MODEL_ARMOR", "content_filter"),
}
HARM_CATEGORY = {1: "HARM_CATEGORY_HATE_SPEECH", 2: "HARM_CATEGORY_DANGEROUS_CONTENT"}
PROBABILITY = {1: "NEGLIGIBLE", 2: "LOW"}
SEVERITY = {1: "HARM_SEVERITY_NEGLIGIBLE", 2: "HARM_SEVERITY_LOW"}
TRAFFIC = {1: "ON_DEMAND"}
MODALITY = {1: "TEXT", 2: "IMAGE", 3: "VIDEO", 4: "AUDIO", 5: "DOCUMENT"}
OUTCOME = {1: "OUTCOME_OK", 2: "OUTCOME_FAILED"}
BLOCK = {1: "SAFETY", 2: "OTHER", 4: "PROHIBITED_CONTENT"}
MODES = {0: "MODE_UNSPECIFIED", 1: "AUTO", 2: "ANY", 3: "NONE", 4: "VALIDATED", 5: "VALIDATED"}
NUMBERED = {
    "finishReason": {n: name for n, (name, _) in FINISH.items()},
    "category": HARM_CATEGORY,
    "probability": PROBABILITY,
    "severity": SEVERITY,
    "trafficType": TRAFFIC,
    "modality": MODALITY,
    "outcome": OUTCOME,
    "language": {1: "PYTHON"},
    "blockReason": BLOCK,
    "mode": MODES,
}


def named(value: Any) -> Any:
    """A REST payload with its enum numbers as names (the form google-genai reads)."""
    if isinstance(value, dict):
        return {
            key: NUMBERED[key][item] if key in NUMBERED and type(item) is int else named(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [named(item) for item in value]
    return value


def vertex_response(finish: int = 1) -> dict[str, Any]:
    """A Vertex AI ``generateContent`` response as the ``vertexai`` SDK receives it."""
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "Paris."}]},
                "finishReason": finish,
                "avgLogprobs": -0.0123,
                "safetyRatings": [
                    {
                        "category": 1,
                        "probability": 1,
                        "probabilityScore": 0.05,
                        "severity": 1,
                        "severityScore": 0.02,
                    },
                    {"category": 2, "probability": 2, "severity": 2},
                ],
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 9,
            "candidatesTokenCount": 2,
            "totalTokenCount": 11,
            "trafficType": 1,
            "promptTokensDetails": [
                {"modality": 1, "tokenCount": 7},
                {"modality": 2, "tokenCount": 2},
            ],
            "candidatesTokensDetails": [{"modality": 1, "tokenCount": 2}],
        },
        "modelVersion": "gemini-2.0-flash-001",
        "createTime": "2025-06-03T09:12:44.123456Z",
        "responseId": "vtAbc123",
    }


def test_a_vertex_response_with_integer_enums_decodes_as_its_named_form() -> None:
    numbers = vertex_response()
    names = named(numbers)
    types.GenerateContentResponse.model_validate(names)  # the oracle takes the named form
    decoded = to_dict(gemini.decode_response(numbers))
    want = to_dict(gemini.decode_response(names))
    # every neutral value is the named form's ...
    assert {k: v for k, v in decoded.items() if k != "response_metadata"} == {
        k: v for k, v in want.items() if k != "response_metadata"
    }
    assert (decoded["finish_reason"], decoded["raw_finish_reason"]) == ("stop", "STOP")
    assert decoded["usage"] == {
        "input_tokens": 9,
        "output_tokens": 2,
        "total_tokens": 11,
        "input_token_details": {"image": 2},
    }
    # ... and the response's own values are kept as they came: the numbers
    metadata = decoded["response_metadata"]["gemini"]
    assert metadata["finish_reason"] == 1
    assert metadata["safety_ratings"][0] == {
        "category": 1,
        "probability": 1,
        "probability_score": 0.05,
        "severity": 1,
        "severity_score": 0.02,
    }
    assert metadata["usage_metadata"]["traffic_type"] == 1
    assert metadata["usage_metadata"]["prompt_tokens_details"][1] == {
        "modality": 2,
        "token_count": 2,
    }
    assert metadata["create_time"] == numbers["createTime"]
    assert "finish_reason" not in want["response_metadata"]["gemini"]  # a name: raw says it


@pytest.mark.parametrize("number", sorted(FINISH))
def test_every_finish_reason_number_reads_as_its_name(number: int) -> None:
    name, normalized = FINISH[number]
    for response in (vertex_response(number), named(vertex_response(number))):
        message = gemini.decode_response(response)
        assert (message.finish_reason, message.raw_finish_reason) == (normalized, name)
    # the codec's table is the proto's
    assert wire.FINISH_REASON_NUMBERS[number] == name


def test_a_number_newer_than_the_table_is_kept_and_reads_as_other() -> None:
    message = gemini.decode_response(vertex_response(42))
    assert (message.finish_reason, message.raw_finish_reason) == ("other", "42")
    assert (message.response_metadata or {})["gemini"]["finish_reason"] == 42


def test_the_number_tables_name_google_genai_enum_members() -> None:
    tables: list[tuple[dict[int, str], type[enum.Enum]]] = [
        (wire.FINISH_REASON_NUMBERS, types.FinishReason),
        (wire.BLOCK_REASON_NUMBERS, types.BlockedReason),
        (wire.MODALITY_NUMBERS, types.MediaModality),
        (wire.OUTCOME_NUMBERS, types.Outcome),
        (wire.MODE_NUMBERS, types.FunctionCallingConfigMode),
    ]
    for table, members in tables:
        assert set(table.values()) <= {member.value for member in members}, members
    assert wire.MODE_NUMBERS == MODES
    assert {n: wire.MODALITY_NUMBERS[n] for n in MODALITY} == MODALITY


def vertex_stream(finish: int = 1) -> list[dict[str, Any]]:
    """A Vertex AI ``streamGenerateContent`` with integer enums, event by event."""
    head = {"modelVersion": "gemini-2.0-flash-001", "createTime": "2025-06-03T09:12:44Z"}
    last = vertex_response(finish)
    last["candidates"][0]["content"]["parts"] = [{"text": "is."}]
    return [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Paris "}]}}], **head},
        {**last, **head},
    ]


@pytest.mark.parametrize("finish", [1, 2, 3, 9])
def test_a_vertex_stream_with_integer_enums_assembles_to_decode_response(finish: int) -> None:
    events = vertex_stream(finish)
    chunks, want = check_stream(events)
    assert (want["finish_reason"], want["raw_finish_reason"]) == FINISH[finish][::-1]
    assert want["response_metadata"]["gemini"]["finish_reason"] == finish
    assert chunks[-1].chunk_position == "last"
    check_stream(events, [sse(events)])
    # the named stream gives the same neutral message
    named_want = assembled(list(gemini.decode_stream(named(events))))
    assert {k: v for k, v in want.items() if k != "response_metadata"} == {
        k: v for k, v in named_want.items() if k != "response_metadata"
    }


def test_a_prompt_blocked_with_an_integer_reason() -> None:
    response = {
        "promptFeedback": {"blockReason": 4, "blockReasonMessage": "Prohibited content"},
        "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 5, "trafficType": 1},
        "modelVersion": "gemini-2.0-flash-001",
        "createTime": "2025-06-03T09:12:44Z",
        "responseId": "blk1",
    }
    types.GenerateContentResponse.model_validate(named(response))
    for source in (response, named(response)):
        message = gemini.decode_response(source)
        assert (message.finish_reason, message.raw_finish_reason) == (
            "content_filter",
            "PROHIBITED_CONTENT",
        )
        streamed = assembled(list(gemini.decode_stream([source])))
        assert streamed == to_dict(message)
    metadata = (gemini.decode_response(response).response_metadata or {})["gemini"]
    assert metadata["prompt_feedback"]["block_reason"] == 4  # as it came


def test_integer_modalities_are_token_details() -> None:
    details = [{"modality": n, "tokenCount": 10 * n} for n in (1, 2, 3, 4, 5)]
    response: dict[str, Any] = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}}],
        "usageMetadata": {
            "promptTokenCount": 150,
            "candidatesTokenCount": 40,
            "promptTokensDetails": [*details, {"modality": 77, "tokenCount": 1}],
            "candidatesTokensDetails": [{"modality": 4, "tokenCount": 40}],
        },
    }
    usage = to_dict(gemini.decode_response(response))["usage"]
    assert usage["input_token_details"] == {"image": 20, "video": 30, "audio": 40, "document": 50}
    assert usage["output_token_details"] == {"audio": 40}
    known = copy.deepcopy(response)
    del known["usageMetadata"]["promptTokensDetails"][-1]  # a number google-genai cannot name
    types.GenerateContentResponse.model_validate(named(known))
    assert to_dict(gemini.decode_response(named(known)))["usage"] == usage


def test_code_execution_with_integer_enums_and_back_as_it_came() -> None:
    parts = [
        {"executableCode": {"language": 1, "code": "print(6 * 7)"}},
        {"codeExecutionResult": {"outcome": 1, "output": "42\n"}},
        {"executableCode": {"language": 1, "code": "1/0"}},
        {"codeExecutionResult": {"outcome": 2, "output": "ZeroDivisionError"}},
        {"text": "6 * 7 is 42."},
    ]
    response = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": 1}]}
    types.GenerateContentResponse.model_validate(named(response))
    message = gemini.decode_response(response)
    assert isinstance(message.content, list)
    assert [getattr(block, "status", None) for block in message.content] == [
        None,
        "success",
        None,
        "error",
        None,
    ]
    by_name = gemini.decode_response(named(response)).content
    assert isinstance(by_name, list)
    assert [getattr(block, "status", None) for block in by_name] == [
        getattr(block, "status", None) for block in message.content
    ]
    # appended to a history, the model turn goes back exactly as it came (numbers)
    history = Conversation(messages=[*gemini.decode_messages([user({"text": "42?"})]), message])
    assert gemini.encode(history)["contents"][1] == snake_case({"role": "model", "parts": parts})


def tool_request(mode: Any, names: list[str] | None = None) -> dict[str, Any]:
    calling: dict[str, Any] = {"mode": mode}
    if names is not None:
        calling["allowed_function_names"] = names
    return {
        "contents": [user({"text": "weather?"})],
        "tools": [{"function_declarations": [{"name": "f"}, {"name": "g"}]}],
        "tool_config": {"function_calling_config": calling},
    }


MODE_CASES: list[tuple[int, list[str] | None, ToolChoice | None]] = [
    (1, None, AutoToolChoice()),
    (2, None, RequiredToolChoice()),
    (2, ["f"], NamedToolChoice(name="f")),
    (2, ["f", "g"], AllowedToolsChoice(names=["f", "g"], mode="required")),
    (3, None, NoneToolChoice()),
    (4, None, AutoToolChoice()),  # VALIDATED (Gemini Developer API number)
    (5, None, AutoToolChoice()),  # VALIDATED (Vertex AI number)
    (4, ["f", "g"], AllowedToolsChoice(names=["f", "g"], mode="auto")),
    (5, ["g"], AllowedToolsChoice(names=["g"], mode="auto")),
    (0, None, None),  # MODE_UNSPECIFIED: no tool choice
    (9, None, None),  # a mode newer than the table: no tool choice
]


@pytest.mark.parametrize(("number", "names", "choice"), MODE_CASES)
def test_a_tool_config_mode_sent_as_a_number_is_read_and_written_back(
    number: int, names: list[str] | None, choice: ToolChoice | None
) -> None:
    payload = tool_request(number, names)
    conversation = gemini.decode_conversation(copy.deepcopy(payload))
    assert conversation.tool_choice == choice
    assert gemini.check(conversation) == []
    assert gemini.encode(conversation) == payload  # the number, as it came
    again = Conversation.model_validate(to_dict(conversation))  # through the neutral JSON
    assert gemini.encode(again) == payload
    for options in OPTIONS:
        both_walks(conversation, options)
    if number in MODES and MODES[number] != "MODE_UNSPECIFIED":
        # the named form: what google-genai takes, decoded to the same tool choice
        named_payload = tool_request(MODES[number], names)
        validate_request("gemini", named_payload)
        assert gemini.decode_conversation(named_payload).tool_choice == choice


@pytest.mark.parametrize("number", [1, 2, 4])
def test_a_changed_tool_choice_is_sent_as_it_now_says(number: int) -> None:
    conversation = gemini.decode_conversation(tool_request(number))
    conversation.tool_choice = NoneToolChoice()
    assert gemini.encode(conversation)["tool_config"] == {
        "function_calling_config": {"mode": "NONE"}
    }
    conversation.tool_choice = None
    assert "tool_config" not in gemini.encode(conversation)


def test_other_integer_enums_of_a_request_come_back_as_they_came() -> None:
    payload = {
        "contents": [
            user({"text": "compute"}),
            model(
                {"executable_code": {"language": 1, "code": "print(1)"}},
                {"code_execution_result": {"outcome": 1, "output": "1\n"}},
                fc("lookup", {"q": "x"}, "c1"),
            ),
            {
                "role": "user",
                "parts": [
                    {
                        "function_response": {
                            "name": "lookup",
                            "id": "c1",
                            "response": {"output": "y"},
                            "scheduling": 2,
                        }
                    }
                ],
            },
        ],
        "tools": [
            {"function_declarations": [{"name": "lookup", "behavior": 1}]},
            {"code_execution": {}},
        ],
        "safety_settings": [{"category": 1, "threshold": 4, "method": 2}],
        "generation_config": {
            "temperature": 0.2,
            "response_modalities": [1],
            "media_resolution": 1,
            "thinking_config": {"thinking_level": 1},
        },
    }
    conversation = gemini.decode_conversation(copy.deepcopy(payload))
    assert gemini.check(conversation) == []
    assert gemini.encode(conversation) == payload
    assert gemini.encode(gemini.decode_conversation(camel(payload))) == payload


# ======================================== 2. parallel responses over user contents

SPLIT: dict[str, list[dict[str, Any]]] = {
    "one_content_per_response": [
        user({"text": "weather in Paris and Oslo?"}),
        model(fc("weather", {"city": "Paris"}), fc("weather", {"city": "Oslo"})),
        user(fr("weather", {"output": "sun"})),
        user(fr("weather", {"output": "snow"})),
        model({"text": "Sun and snow."}),
    ],
    "one_content_per_response_with_ids": [
        user({"text": "weather in Paris and Oslo?"}),
        model(fc("weather", {"city": "Paris"}, "a"), fc("weather", {"city": "Oslo"}, "b")),
        user(fr("weather", {"output": "sun"}, "a")),
        user(fr("weather", {"output": "snow"}, "b")),
    ],
    "one_then_two": [
        user({"text": "go"}),
        model(fc("a", {}), fc("b", {}), fc("c", {})),
        user(fr("a", {"output": "1"})),
        user(fr("b", {"output": "2"}), fr("c", {"output": "3"})),
    ],
    "out_of_order_with_ids": [
        user({"text": "go"}),
        model(fc("a", {}, "x1"), fc("b", {}, "x2")),
        user(fr("b", {"output": "2"}, "x2")),
        user(fr("a", {"output": "1"}, "x1")),
    ],
    "a_response_beside_user_text": [
        user({"text": "go"}),
        model(fc("a", {}), fc("b", {})),
        user(fr("a", {"output": "1"})),
        user({"text": "and the other one:"}, fr("b", {"output": "2"})),
    ],
    "user_text_between": [
        user({"text": "go"}),
        model(fc("a", {}), fc("b", {})),
        user(fr("a", {"output": "1"})),
        user({"text": "still waiting for b"}),
        user(fr("b", {"output": "2"})),
    ],
    "model_contents_in_a_row_and_user_contents_in_a_row": [
        user({"text": "go"}),
        model(fc("a", {})),
        model(fc("b", {})),
        user(fr("a", {"output": "1"})),
        user(fr("b", {"output": "2"})),
        model({"text": "done"}),
        user({"text": "again"}),
        model(fc("a", {})),
        user(fr("a", {"output": "3"})),
    ],
}


@pytest.mark.parametrize("name", list(SPLIT))
def test_responses_spread_over_the_user_contents_after_the_calls(name: str) -> None:
    payload = {"contents": SPLIT[name]}
    validate_request("gemini", payload)
    for content in payload["contents"]:
        types.Content.model_validate(content)
    conversation = gemini.decode_conversation(copy.deepcopy(payload))
    # every response answers its call ...
    calls = {
        call.id: call.name
        for message in conversation.messages
        if message.role == "assistant"
        for call in message.tool_calls
    }
    results = [m for m in conversation.messages if m.role == "tool"]
    assert len(results) == len(calls)
    assert all(calls[result.tool_call_id] for result in results)
    # ... check finds nothing, and the request comes back as it came
    assert gemini.check(conversation) == []
    assert gemini.encode(conversation) == payload
    assert gemini.encode(gemini.decode_conversation(camel(payload))) == payload
    again = Conversation.model_validate(to_dict(conversation))
    assert gemini.encode(again) == payload
    for options in OPTIONS:
        both_walks(conversation, options)


def test_a_response_after_a_later_model_turn_is_still_refused() -> None:
    payload = {
        "contents": [
            user({"text": "go"}),
            model(fc("a", {}, "x1"), fc("b", {}, "x2")),
            user(fr("a", {"output": "1"}, "x1")),
            model({"text": "one done"}),
            user(fr("b", {"output": "2"}, "x2")),
        ]
    }
    conversation = gemini.decode_conversation(payload)
    assert [(p.pointer, p.keyword) for p in gemini.check(conversation)] == [
        ("/messages/1/tool_calls/1/id", "unanswered_tool_call"),
        ("/messages/4/tool_call_id", "orphan_tool_result"),
        ("/messages/4/tool_call_id", "not_adjacent"),
    ]
    for options in OPTIONS:
        both_walks(conversation, options)


def test_neutral_results_in_a_row_still_share_one_content() -> None:
    history = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "x1", "name": "a", "arguments": {}},
                {"id": "x2", "name": "b", "arguments": {}},
            ],
        },
        {"role": "tool", "tool_call_id": "x1", "content": "1"},
        {"role": "tool", "tool_call_id": "x2", "content": "2"},
    ]
    contents = gemini.encode(history)["contents"]
    assert contents[2] == user(fr("a", {"output": "1"}, "x1"), fr("b", {"output": "2"}, "x2"))
    assert len(contents) == 3


# ============================================== 3. optional values of a response

TEXT = {"role": "model", "parts": [{"text": "hi"}]}
OPTIONAL: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "null_counts": (
        {
            "candidates": [{"content": TEXT, "finishReason": "STOP"}],
            "usageMetadata": {
                "promptTokenCount": 4,
                "candidatesTokenCount": None,
                "thoughtsTokenCount": None,
                "cachedContentTokenCount": None,
                "totalTokenCount": 4,
            },
        },
        {
            "content": "hi",
            "usage": {"input_tokens": 4, "output_tokens": 0, "total_tokens": 4},
            "finish_reason": "stop",
        },
    ),
    "absent_counts": (
        {"candidates": [{"content": TEXT, "finishReason": "STOP"}], "usageMetadata": {}},
        {
            "content": "hi",
            "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
            "finish_reason": "stop",
        },
    ),
    "a_finish_without_content": (
        {"candidates": [{"finishReason": "SAFETY", "index": 0}]},
        {"finish_reason": "content_filter"},
    ),
    "null_content": (
        {"candidates": [{"content": None, "finishReason": "MAX_TOKENS"}]},
        {"finish_reason": "length"},
    ),
    "empty_content": (
        {"candidates": [{"content": {}, "finishReason": "STOP"}]},
        {"finish_reason": "stop"},
    ),
    "empty_parts": (
        {"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}]},
        {"finish_reason": "stop"},
    ),
    "no_role": (
        {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]},
        {"content": "hi", "finish_reason": "stop"},
    ),
    "no_ids_nor_times": (
        {"candidates": [{"content": TEXT}]},
        {"content": "hi"},
    ),
}


@pytest.mark.parametrize("name", list(OPTIONAL))
def test_optional_values_of_a_response(name: str) -> None:
    response, want = OPTIONAL[name]
    sdk = types.GenerateContentResponse.model_validate(response)  # the oracle takes it
    decoded = to_dict(gemini.decode_response(response))
    assert {k: v for k, v in decoded.items() if k in want} == want
    assert "model" not in decoded and "response_id" not in decoded
    assert to_dict(gemini.decode_response(sdk)) == decoded
    chunks: list[Any] = []
    if "finish_reason" in want:
        chunks.extend(gemini.decode_stream([response]))
    else:  # as a stream, a response without a finish reason is cut short
        with pytest.raises(StreamIncompleteError, match="ended before finishReason"):
            chunks.extend(gemini.decode_stream([response]))
    assert assembled(chunks) == decoded


def test_fields_newer_than_the_codec_are_kept_at_every_level() -> None:
    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "hi", "partNews": "p"},
                        {"functionCall": {"name": "f", "args": {}, "callNews": "c"}},
                    ],
                    "contentNews": {"level": "content"},
                },
                "finishReason": "STOP",
                "candidateNews": 1,
                "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "ratingNews": 2}],
            }
        ],
        "usageMetadata": {"promptTokenCount": 3, "usageNews": 3},
        "promptFeedback": {"feedbackNews": "f"},
        "responseNews": True,
        "responseId": "r1",
    }
    message = gemini.decode_response(response)
    metadata = (message.response_metadata or {})["gemini"]
    assert metadata["content"] == {"content_news": {"level": "content"}}
    assert metadata["candidate_news"] == 1
    assert metadata["safety_ratings"][0]["rating_news"] == 2
    assert metadata["usage_metadata"]["usage_news"] == 3
    assert metadata["prompt_feedback"] == {"feedback_news": "f"}
    assert metadata["response_news"] is True
    assert isinstance(message.content, list)
    assert (message.content[0].extras or {})["gemini"] == {"part_news": "p"}
    assert (message.tool_calls[0].extras or {})["gemini"]["function_call"] == {"call_news": "c"}
    # a stream keeps them the same way
    events = [copy.deepcopy(response)]
    assert assembled(list(gemini.decode_stream(events))) == to_dict(message)
    text = json.dumps(to_dict(message))
    for value in ("content_news", "candidate_news", "rating_news", "usage_news", "feedback_news"):
        assert value in text


# ================================== requests the API took in a second form (traffic)


@pytest.mark.parametrize("text", ["Answer succinctly", ""])
def test_a_system_instruction_with_its_one_part_as_an_object(text: str) -> None:
    # ellmer sends "systemInstruction": {"parts": {"text": ...}} (recorded, HTTP 200)
    payload = {
        "contents": [user({"text": "What's the current date?"})],
        "system_instruction": {"parts": {"text": text}},
        "generation_config": {"temperature": 0, "seed": 1014},
    }
    conversation = gemini.decode_conversation(camel(payload))
    assert conversation.messages[0].role == "system"
    assert gemini.check(conversation) == []
    assert gemini.encode(conversation) == payload
    # more than one part cannot be an object: a list again
    conversation.messages.insert(1, conversation.messages[0].model_copy())
    assert gemini.encode(conversation)["system_instruction"] == {
        "parts": [{"text": text}, {"text": text}]
    }


def test_contents_with_their_one_part_as_an_object() -> None:
    payload = {
        "contents": [
            {"role": "user", "parts": {"text": "date?"}},
            {"role": "model", "parts": {"function_call": {"name": "today", "args": {}}}},
            {"role": "user", "parts": {"function_response": {"name": "today", "response": {}}}},
            {"role": "model", "parts": [{"text": "It is Monday."}]},
        ]
    }
    conversation = gemini.decode_conversation(camel(payload))
    assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "assistant"]
    assert gemini.check(conversation) == []
    assert gemini.encode(conversation) == payload
    for options in OPTIONS:
        both_walks(conversation, options)


def test_a_declaration_field_sent_as_null_comes_back_as_null() -> None:
    # llm-gemini sends "description": null (recorded, HTTP 200)
    payload = {
        "contents": [user({"text": "Two names for a pet pelican"})],
        "tools": [
            {
                "function_declarations": [
                    {
                        "name": "pelican_name_generator",
                        "description": None,
                        "parameters": {"properties": {}, "type": "object"},
                    },
                    {"name": "no_parameters", "parameters_json_schema": None},
                ]
            }
        ],
    }
    types.Tool.model_validate(payload["tools"][0])
    conversation = gemini.decode_conversation(camel(payload))
    tools = conversation.tools or []
    assert [(tool.name, tool.description, tool.parameters) for tool in tools] == [
        ("pelican_name_generator", None, {"properties": {}, "type": "object"}),
        ("no_parameters", None, {}),
    ]
    assert gemini.check(conversation) == []
    assert gemini.encode(conversation) == payload
    # a description set after decoding is sent
    tools[0].description = "Names a pelican"
    encoded = gemini.encode(conversation)["tools"][0]["function_declarations"][0]
    assert encoded["description"] == "Names a pelican"
