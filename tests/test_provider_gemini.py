"""The Gemini generateContent codec, with google-genai as the oracle."""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from google.genai import types
from oracle import validate_request

import chatschema
from chatschema import (
    AssistantMessage,
    ConversionError,
    ImageBlock,
    ToolMessage,
    UnsupportedContentError,
    ValidationError,
    to_dict,
)
from chatschema.errors import OptionError
from chatschema.providers import gemini

PAYLOADS = Path(__file__).parent / "payloads" / "gemini"

SIG_A = "CiQB0e2Kb3Q4d1lVbzdxQmZ2c0ZpaW5YbnJxUVVkZ2xRPT0="
SIG_B = "EtYBCtMBAdHtim9yZWFsbHkgb3BhcXVlIHNpZ25hdHVyZSBieXRlcw=="
SIG_C = "CiIB0e2KbzM0NTY3ODkwYWJjZGVmZ2g="
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
    "rkJggg=="
)
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
PDF = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoK"
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
    "required": ["city"],
}


def load(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


_USER_DATA = {"args", "response", "part_metadata", "parameters", "parameters_json_schema"}


def camel(value: Any) -> Any:
    """A snake_case payload in REST camelCase (user data left alone)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            head, *rest = key.split("_")
            name = head + "".join(word.title() for word in rest)
            out[name] = item if key in _USER_DATA else camel(item)
        return out
    if isinstance(value, list):
        return [camel(item) for item in value]
    return value


def sdk(payload: dict[str, Any]) -> dict[str, Any]:
    """The same request with google-genai objects in place of dicts."""
    out: dict[str, Any] = {
        "contents": [types.Content.model_validate(c) for c in payload["contents"]]
    }
    if "system_instruction" in payload:
        out["system_instruction"] = types.Content.model_validate(payload["system_instruction"])
    if "tools" in payload:
        out["tools"] = [types.Tool.model_validate(t) for t in payload["tools"]]
    if "tool_config" in payload:
        out["tool_config"] = types.ToolConfig.model_validate(payload["tool_config"])
    return out


def blocks_of(message: Any) -> list[Any]:
    """A decoded message's content blocks (the content must be a list)."""
    assert isinstance(message.content, list), message.content
    return list(message.content)


def fc(name: str, args: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"name": name, "args": args}
    if id is not None:
        call["id"] = id
    return {"function_call": call}


def fr(name: str, response: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"name": name, "response": response}
    if id is not None:
        result["id"] = id
    return {"function_response": result}


def user(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


def model(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


# ============================================================ wire -> neutral -> wire

WIRE: dict[str, dict[str, Any]] = {
    "plain_chat": {
        "system_instruction": {"parts": [{"text": "You are terse."}]},
        "contents": [
            user({"text": "Hi"}),
            model({"text": "Hello."}),
            user({"text": "Two lines"}, {"text": "in two parts"}),
        ],
    },
    "gemini3_parallel_calls_without_ids": {
        "contents": [
            user({"text": "Weather in Paris and Rome?"}),
            model(
                {"text": "**Plan**\n\nCall the tool twice.", "thought": True},
                {**fc("get_weather", {"city": "Paris"}), "thought_signature": SIG_A},
                fc("get_weather", {"city": "Rome"}),
            ),
            user(
                fr("get_weather", {"output": "18C"}),
                fr("get_weather", {"output": {"temp": 21, "sky": "clear"}}),
            ),
            model({"text": "Paris 18C, Rome 21C.", "thought_signature": SIG_B}),
        ],
        "tools": [
            {
                "function_declarations": [
                    {
                        "name": "get_weather",
                        "description": "Weather of a city.",
                        "parameters_json_schema": WEATHER_SCHEMA,
                    }
                ]
            }
        ],
        "tool_config": {"function_calling_config": {"mode": "AUTO"}},
    },
    "sequential_calls_with_ids": {
        "contents": [
            user({"text": "Book a table"}),
            model({**fc("find", {"q": "sushi"}, id="c1"), "thought_signature": SIG_A}),
            user(fr("find", {"output": "Umi"}, id="c1")),
            model(
                {**fc("book", {"name": "Umi", "at": "20:00"}, id="c2"), "thought_signature": SIG_B}
            ),
            user(fr("book", {"error": "fully booked"}, id="c2")),
            model({"text": "Umi is fully booked."}, {"text": "", "thought_signature": SIG_C}),
        ]
    },
    "interleaved_text_and_calls": {
        "contents": [
            user({"text": "Go"}),
            model(
                {"text": "First I look."},
                fc("look", {}),
                {"text": "Then I act."},
                fc("act", {"how": "fast"}),
            ),
            user(fr("look", {"output": "ok"}), fr("act", {"output": "done"})),
        ]
    },
    "call_then_text": {
        "contents": [
            user({"text": "Go"}),
            model(fc("look", {}, id="x1"), {"text": "Looking now."}),
            user(fr("look", {"output": "ok"}, id="x1")),
        ]
    },
    "multimodal_user": {
        "contents": [
            user(
                {"text": "Compare these."},
                {"inline_data": {"mime_type": "image/png", "data": PNG}},
                {"inline_data": {"mime_type": "audio/wav", "data": WAV}},
                {"inline_data": {"mime_type": "application/pdf", "data": PDF}},
                {"inline_data": {"mime_type": "text/plain", "data": "aGVsbG8gd29ybGQ="}},
                {"inline_data": {"mime_type": "text/markdown", "data": "IyBUaXRsZQ=="}},
                {
                    "file_data": {
                        "mime_type": "application/pdf",
                        "file_uri": "https://generativelanguage.googleapis.com/v1beta/files/abc123",
                    }
                },
                {"file_data": {"mime_type": "video/mp4", "file_uri": "gs://bucket/clip.mp4"}},
                {
                    "file_data": {"file_uri": "https://www.youtube.com/watch?v=9hE5-98ZeCg"},
                    "video_metadata": {"start_offset": "40s", "end_offset": "80s", "fps": 0.5},
                },
                {"file_data": {"file_uri": "https://example.com/cat.jpeg"}},
                {"file_data": {"mime_type": "image/png", "file_uri": "files/bare-name"}},
                {
                    "inline_data": {
                        "mime_type": "image/jpeg",
                        "data": PNG,
                        "display_name": "a.jpg",
                    },
                    "media_resolution": {"level": "MEDIA_RESOLUTION_HIGH"},
                },
            ),
            model({"text": "They differ."}),
        ]
    },
    "code_execution_without_ids": {
        "contents": [
            user({"text": "Sum of the first 50 primes?"}),
            model(
                {"text": "Computing."},
                {"executable_code": {"language": "PYTHON", "code": "print(5117)"}},
                {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "5117\n"}},
                {"executable_code": {"language": "PYTHON", "code": "1/0"}},
                {"code_execution_result": {"outcome": "OUTCOME_FAILED", "output": "ZeroDivision"}},
                {"text": "5117."},
            ),
        ]
    },
    "code_execution_with_ids": {
        "contents": [
            user({"text": "Run it"}),
            model(
                {"executable_code": {"id": "e1", "language": "PYTHON", "code": "print(1)"}},
                {"code_execution_result": {"id": "e1", "outcome": "OUTCOME_OK", "output": "1\n"}},
            ),
        ]
    },
    "odd_function_responses": {
        "contents": [
            user({"text": "go"}),
            model(fc("a", {}), fc("b", {}), fc("c", {}), fc("d", {}), fc("e", {"n": 1})),
            user(
                fr("a", {"temperature": 3, "unit": "C"}),
                fr("b", {}),
                fr("c", {"error": {"code": 404}}),
                {"function_response": {"name": "d"}},
                fr("e", {"output": ""}),
            ),
        ]
    },
    "multimodal_function_response": {
        "contents": [
            user({"text": "Screenshot please"}),
            model(fc("screenshot", {}, id="s1")),
            user(
                {
                    "function_response": {
                        "id": "s1",
                        "name": "screenshot",
                        "response": {"output": "captured"},
                        "parts": [{"inline_data": {"mime_type": "image/png", "data": PNG}}],
                    }
                }
            ),
            model(fc("screenshot", {}, id="s2")),
            user(
                {
                    "function_response": {
                        "id": "s2",
                        "name": "screenshot",
                        "response": {"output": ""},
                        "parts": [
                            {"file_data": {"mime_type": "image/png", "file_uri": "gs://b/s.png"}}
                        ],
                    }
                }
            ),
        ]
    },
    # A MIME type the neutral model refuses: the part is kept as it came, and sent back.
    "function_response_part_kept_as_it_came": {
        "contents": [
            user({"text": "Screenshot please"}),
            model(fc("screenshot", {}, id="s1")),
            user(
                {
                    "function_response": {
                        "id": "s1",
                        "name": "screenshot",
                        "response": {"output": "captured"},
                        "parts": [{"inline_data": {"mime_type": "png", "data": PNG}}],
                    }
                }
            ),
        ]
    },
    "responses_mixed_with_user_text": {
        "contents": [
            user({"text": "go"}),
            model(fc("a", {}), fc("b", {})),
            user(fr("a", {"output": "1"}), {"text": "also, hurry"}, fr("b", {"output": "2"})),
            model(fc("c", {})),
            user(fr("c", {"output": "3"})),
            user({"text": "and?"}),
        ]
    },
    "server_side_tool_parts_and_metadata": {
        "contents": [
            user({"text": "Search", "part_metadata": {"source": "cli"}}),
            model(
                {
                    "tool_call": {
                        "id": "t1",
                        "tool_type": "GOOGLE_SEARCH_WEB",
                        "args": {"queries": ["a"]},
                    }
                },
                {
                    "tool_response": {
                        "id": "t1",
                        "tool_type": "GOOGLE_SEARCH_WEB",
                        "response": {"n": 3},
                    }
                },
                {"text": "Found 3.", "thought": False},
            ),
        ]
    },
    "tools_and_declarations": {
        "contents": [user({"text": "hi"})],
        "tools": [
            {
                "function_declarations": [
                    {"name": "ping"},
                    {
                        "name": "get_weather",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"city": {"type": "STRING"}},
                        },
                        "behavior": "NON_BLOCKING",
                    },
                ]
            },
            {"function_declarations": [{"name": "ns.tool:v1", "parameters_json_schema": {}}]},
        ],
        "tool_config": {
            "function_calling_config": {"mode": "ANY", "allowed_function_names": ["ping"]}
        },
    },
    "tool_config_none": {
        "contents": [user({"text": "hi"})],
        "tool_config": {"function_calling_config": {"mode": "NONE"}},
    },
    "tool_config_any": {
        "contents": [user({"text": "hi"})],
        "tool_config": {"function_calling_config": {"mode": "ANY"}},
    },
    "call_args_absent_and_empty_ids": {
        "contents": [
            user({"text": "go"}),
            model({"function_call": {"name": "now", "id": ""}}),
            user({"function_response": {"name": "now", "id": "", "response": {"output": "12:00"}}}),
        ]
    },
    "image_generation_with_thought_image": {
        "contents": [
            user({"text": "Draw a cat"}),
            model(
                {"inline_data": {"mime_type": "image/png", "data": PNG}, "thought": True},
                {"text": "Here it is.", "thought_signature": SIG_A},
                {
                    "inline_data": {"mime_type": "image/png", "data": PNG},
                    "thought_signature": SIG_B,
                },
            ),
        ]
    },
    "system_instruction_with_role": {
        "system_instruction": {"role": "user", "parts": [{"text": "Be brief."}]},
        "contents": [user({"text": "hi"})],
    },
    "response_id_answers_call_without_id": {
        "contents": [
            user({"text": "go"}),
            model(fc("a", {})),
            user(fr("a", {"output": "1"}, id="late-id")),
        ]
    },
    "response_without_id_for_call_with_id": {
        "contents": [
            user({"text": "go"}),
            model(fc("a", {}, id="a1")),
            user(fr("a", {"output": "1"})),
        ]
    },
    "hosted_tools": {
        "contents": [user({"text": "news?"})],
        "tools": [
            {"google_search": {}},
            {"function_declarations": [{"name": "f"}, {"name": "g"}]},
            {"code_execution": {}},
            {"google_search_retrieval": {"dynamic_retrieval_config": {"mode": "MODE_DYNAMIC"}}},
        ],
    },
    "hosted_tools_sharing_tool_objects": {
        "contents": [user({"text": "news?"})],
        "tools": [
            # (in the SDK's field order: SDK objects have no other)
            {"google_search": {}, "function_declarations": [{"name": "f"}], "url_context": {}},
            {"code_execution": {}, "function_declarations": [{"name": "g"}]},
        ],
    },
}


@pytest.mark.parametrize("name", list(WIRE))
def test_wire_payload_round_trips(name: str) -> None:
    payload = WIRE[name]
    validate_request("gemini", payload)  # the payload itself is a valid request
    before = copy.deepcopy(payload)
    conversation = gemini.decode_conversation(payload)
    assert payload == before  # decoding does not touch its input
    neutral = to_dict(conversation)
    frozen = copy.deepcopy(neutral)
    encoded = gemini.encode(conversation)
    assert to_dict(conversation) == frozen  # encoding does not touch its input
    validate_request("gemini", encoded)
    assert encoded == payload
    # stable both ways, and the same from REST camelCase and from SDK objects
    assert to_dict(gemini.decode_conversation(encoded)) == neutral
    assert to_dict(gemini.decode_conversation(camel(payload))) == neutral
    assert to_dict(gemini.decode_conversation(sdk(payload))) == neutral
    assert to_dict(gemini.decode_conversation(json.dumps(payload))) == neutral


def test_camel_history_file_decodes_and_encodes_to_snake_case() -> None:
    payload = load("history_agent_camel.json")
    conversation = gemini.decode_conversation(payload)
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    # the request carries the same data as the REST payload, in snake_case
    assert camel(encoded) == payload
    messages = conversation.messages
    assert [m.role for m in messages] == [
        "system", "user", "assistant", "tool", "assistant", "tool", "assistant",
    ]  # fmt: skip
    assert isinstance(messages[2], AssistantMessage)
    call = messages[2].tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("fc_01", "list_files", {"path": "."})
    assert call.extras == {"gemini": {"thought_signature": "CiIB0e2KbzEyMzQ1Njc4OTBhYmNkZWY="}}
    assert to_dict(messages[5]) == {
        "role": "tool",
        "tool_call_id": "fc_02",
        "content": "permission denied",
        "status": "error",
    }
    last = messages[6].content
    assert isinstance(last, list)
    assert to_dict(last[1]) == {
        "type": "text",
        "text": "",
        "extras": {"gemini": {"thought_signature": "CiIB0e2KbzM0NTY3ODkwYWJjZGVmZ2g="}},
    }


def test_parallel_calls_decode_with_synthesized_ids_and_signature_on_first() -> None:
    conversation = gemini.decode_conversation(WIRE["gemini3_parallel_calls_without_ids"])
    assistant, first, second = conversation.messages[1:4]
    assert to_dict(assistant) == {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "**Plan**\n\nCall the tool twice.",
                "provider": "gemini",
            }
        ],
        "tool_calls": [
            {
                "id": "gemini_call_1_1",
                "name": "get_weather",
                "arguments": {"city": "Paris"},
                "extras": {"gemini": {"thought_signature": SIG_A, "synthesized_id": True}},
            },
            {
                "id": "gemini_call_1_2",
                "name": "get_weather",
                "arguments": {"city": "Rome"},
                "extras": {"gemini": {"synthesized_id": True}},
            },
        ],
    }
    # responses without ids are matched by order and name; name equal to the call's
    assert to_dict(first) == {"role": "tool", "tool_call_id": "gemini_call_1_1", "content": "18C"}
    assert to_dict(second) == {
        "role": "tool",
        "tool_call_id": "gemini_call_1_2",
        "content": '{"temp": 21, "sky": "clear"}',
        "extras": {"gemini": {"response": {"output": {"temp": 21, "sky": "clear"}}}},
    }


def test_interleaved_calls_keep_their_positions() -> None:
    assistant = gemini.decode_messages(WIRE["interleaved_text_and_calls"])[1]
    assert isinstance(assistant, AssistantMessage)
    assert [call.index for call in assistant.tool_calls] == [1, 3]
    suffix = gemini.decode_messages(WIRE["gemini3_parallel_calls_without_ids"])[1]
    assert isinstance(suffix, AssistantMessage)
    assert [call.index for call in suffix.tool_calls] == [None, None]  # default order


def test_media_blocks_by_mime_type_and_source() -> None:
    user_message = gemini.decode_messages(WIRE["multimodal_user"])[0]
    blocks = [to_dict(block) for block in blocks_of(user_message)]
    assert blocks == [
        {"type": "text", "text": "Compare these."},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
        {"type": "file", "base64": PDF, "mime_type": "application/pdf"},
        {"type": "text-plain", "text": "hello world"},
        {"type": "text-plain", "text": "# Title", "mime_type": "text/markdown"},
        {"type": "file", "file_id": "files/abc123", "mime_type": "application/pdf"},
        {"type": "video", "url": "gs://bucket/clip.mp4", "mime_type": "video/mp4"},
        {
            "type": "video",
            "url": "https://www.youtube.com/watch?v=9hE5-98ZeCg",
            "extras": {
                "gemini": {
                    "video_metadata": {"start_offset": "40s", "end_offset": "80s", "fps": 0.5}
                }
            },
        },
        {"type": "image", "url": "https://example.com/cat.jpeg"},
        {
            "type": "image",
            "file_id": "files/bare-name",
            "mime_type": "image/png",
            "extras": {"gemini": {"file_uri": "files/bare-name"}},
        },
        {
            "type": "image",
            "base64": PNG,
            "mime_type": "image/jpeg",
            "extras": {
                "gemini": {
                    "media_resolution": {"level": "MEDIA_RESOLUTION_HIGH"},
                    "inline_data": {"display_name": "a.jpg"},
                }
            },
        },
    ]


def test_code_execution_becomes_server_tool_blocks() -> None:
    assistant = gemini.decode_messages(WIRE["code_execution_without_ids"])[1]
    blocks = [to_dict(block) for block in blocks_of(assistant)]
    synthesized = {"gemini": {"synthesized_id": True}}
    assert blocks[1:5] == [
        {
            "type": "server_tool_call",
            "id": "gemini_code_1_1",
            "name": "code_execution",
            "arguments": {"language": "PYTHON", "code": "print(5117)"},
            "extras": synthesized,
        },
        {
            "type": "server_tool_result",
            "tool_call_id": "gemini_code_1_1",
            "status": "success",
            "output": {"outcome": "OUTCOME_OK", "output": "5117\n"},
            "extras": synthesized,
        },
        {
            "type": "server_tool_call",
            "id": "gemini_code_1_3",
            "name": "code_execution",
            "arguments": {"language": "PYTHON", "code": "1/0"},
            "extras": synthesized,
        },
        {
            "type": "server_tool_result",
            "tool_call_id": "gemini_code_1_3",
            "status": "error",
            "output": {"outcome": "OUTCOME_FAILED", "output": "ZeroDivision"},
            "extras": synthesized,
        },
    ]


def test_user_content_with_responses_and_text_splits_and_rejoins() -> None:
    messages = gemini.decode_messages(WIRE["responses_mixed_with_user_text"])
    shapes = [(m.role, (m.extras or {}).get("gemini")) for m in messages]
    assert shapes == [
        ("user", None),
        ("assistant", None),
        ("tool", None),
        ("user", {"join": True}),
        ("tool", {"join": True}),
        ("assistant", None),
        ("tool", None),
        ("user", None),
    ]


def test_responses_in_separate_contents_round_trip_without_check() -> None:
    payload = {
        "contents": [
            user({"text": "go"}),
            model(fc("c", {}), fc("d", {})),
            user(fr("c", {"output": "3"})),
            user(fr("d", {"output": "4"})),
        ]
    }
    conversation = gemini.decode_conversation(payload)
    assert [(m.extras or {}).get("gemini") for m in conversation.messages[2:]] == [
        None,
        {"join": False},  # its own content on the wire
    ]
    # Gemini wants all responses of a turn in one content: the check says so ...
    assert [(p.pointer, p.keyword) for p in gemini.check(conversation)] == [
        ("/messages/3/tool_call_id", "not_adjacent")
    ]
    # ... and the payload still comes back as it was
    assert gemini.encode(conversation, check=False) == payload


def test_unknown_parts_are_non_standard_and_metadata_is_kept() -> None:
    messages = gemini.decode_messages(WIRE["server_side_tool_parts_and_metadata"])
    assert to_dict(messages[0])["content"] == [
        {
            "type": "text",
            "text": "Search",
            "extras": {"gemini": {"part_metadata": {"source": "cli"}}},
        }
    ]
    blocks = messages[1].content
    assert isinstance(blocks, list)
    assert [block.type for block in blocks] == ["non_standard", "non_standard", "text"]
    assert (
        to_dict(blocks[0])["value"]
        == WIRE["server_side_tool_parts_and_metadata"]["contents"][1]["parts"][0]
    )
    assert to_dict(blocks[2])["extras"] == {"gemini": {"thought": False}}


def test_tools_and_tool_choice_decode() -> None:
    conversation = gemini.decode_conversation(WIRE["tools_and_declarations"])
    assert to_dict(conversation)["tools"] == [
        {
            "name": "ping",
            "parameters": {},
            "extras": {"gemini": {"parameters_absent": True, "tool": 0}},
        },
        {
            "name": "get_weather",
            "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}},
            "extras": {
                "gemini": {"schema_key": "parameters", "behavior": "NON_BLOCKING", "tool": 0}
            },
        },
        {"name": "ns.tool:v1", "parameters": {}, "extras": {"gemini": {"tool": 1}}},
    ]
    assert to_dict(conversation)["tool_choice"] == {"type": "tool", "name": "ping"}
    none = gemini.decode_conversation(WIRE["tool_config_none"]).tool_choice
    required = gemini.decode_conversation(WIRE["tool_config_any"]).tool_choice
    assert (none and none.type, required and required.type) == ("none", "required")


def test_server_tools_are_hosted_tool_definitions_and_tool_config_goes_to_metadata() -> None:
    payload = {
        "model": "gemini-2.5-flash",
        "contents": [user({"text": "hi"})],
        "tools": [{"google_search": {}}, {"function_declarations": [{"name": "f"}]}],
        "tool_config": {
            "function_calling_config": {"mode": "ANY", "allowed_function_names": ["f", "g"]}
        },
    }
    conversation = gemini.decode_conversation(payload)
    assert to_dict(conversation)["tools"] == [
        {
            "name": "google_search",
            "parameters": {},
            "provider": "gemini",
            "extras": {"gemini": {"google_search": {}}},
        },
        {"name": "f", "parameters": {}, "extras": {"gemini": {"parameters_absent": True}}},
    ]
    assert to_dict(conversation)["metadata"] == {
        "gemini": {
            "request": {"model": "gemini-2.5-flash"},
            "tool_config": payload["tool_config"],
        }
    }
    assert to_dict(conversation)["tool_choice"] == {"type": "required"}
    # the hosted tool is sent back; the tool config the neutral choice cannot say is not
    encoded = gemini.encode(conversation)
    assert encoded["tools"] == payload["tools"]
    assert encoded["tool_config"] == {"function_calling_config": {"mode": "ANY"}}


def test_hosted_tools_are_tool_definitions_named_after_their_field() -> None:
    tools = gemini.decode_conversation(WIRE["hosted_tools"]).tools or []
    assert [(tool.name, tool.provider) for tool in tools] == [
        ("google_search", "gemini"),
        ("f", None),
        ("g", None),
        ("code_execution", "gemini"),
        ("google_search_retrieval", "gemini"),
    ]
    assert tools[4].extras == {"gemini": WIRE["hosted_tools"]["tools"][3]}
    shared = gemini.decode_conversation(WIRE["hosted_tools_sharing_tool_objects"]).tools or []
    assert [(tool.name, (tool.extras or {})["gemini"]["tool"]) for tool in shared] == [
        ("google_search", 0),
        ("f", 0),
        ("url_context", 0),
        ("code_execution", 1),
        ("g", 1),
    ]
    # built by hand: the name is the Tool field; no function declaration is made of it
    built = [
        chatschema.ToolDefinition(name="url_context", parameters={}, provider="gemini"),
        chatschema.ToolDefinition(name="f", parameters={"type": "object"}),
    ]
    encoded = gemini.encode(
        chatschema.Conversation(messages=[{"role": "user", "content": "hi"}], tools=built)
    )
    assert encoded["tools"] == [
        {"url_context": {}},
        {"function_declarations": [{"name": "f", "parameters_json_schema": {"type": "object"}}]},
    ]


def test_a_content_emptied_by_drops_is_not_sent() -> None:
    foreign = {"type": "non_standard", "value": {"type": "search_result"}}
    history = [
        {"role": "system", "content": [foreign]},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [foreign]},
        {"role": "user", "content": "x"},
    ]
    assert _problems(history) == [
        ("/messages/0/content/0", "unsupported_content"),
        ("/messages/2/content/0", "unsupported_content"),
    ]
    assert gemini.check(history, unsupported="drop") == []
    assert gemini.encode(history, unsupported="drop") == {
        "contents": [user({"text": "q"}), user({"text": "x"})]
    }
    placeheld = gemini.encode(history, unsupported="placeholder")
    assert len(placeheld["contents"]) == 3 and "system_instruction" in placeheld
    # nothing left at all: reported
    assert _problems([{"role": "user", "content": [foreign]}], unsupported="drop") == [
        ("/messages", "no_contents")
    ]
    # a content that is empty without any drop is still reported
    assert _problems([{"role": "user", "content": ""}], unsupported="drop") == [
        ("/messages/0/content", "empty_content")
    ]


def test_generate_content_config_shape_and_single_content() -> None:
    config = types.GenerateContentConfig(
        system_instruction="Be brief.",
        temperature=0.2,
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="f")])],
    )
    conversation = gemini.decode_conversation(
        {
            "contents": ["hello", types.Content(role="model", parts=[types.Part(text="hi")])],
            "config": config,
        }
    )
    assert to_dict(conversation) == {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "hi"},
        ],
        "tools": [
            {"name": "f", "parameters": {}, "extras": {"gemini": {"parameters_absent": True}}}
        ],
        "metadata": {"gemini": {"config": {"temperature": 0.2}}},
    }
    single = gemini.decode_messages({"role": "user", "parts": [{"text": "one"}]})
    assert [to_dict(m) for m in single] == [{"role": "user", "content": "one"}]
    union_shapes = gemini.decode_conversation(
        {
            "system_instruction": ["Be brief.", types.Part(text="Really.")],
            "contents": [types.Part(text="a part"), {"text": "another"}],
        }
    )
    assert to_dict(union_shapes) == {
        "messages": [
            {
                "role": "system",
                "content": [
                    {"type": "text", "text": "Be brief."},
                    {"type": "text", "text": "Really."},
                ],
            },
            {"role": "user", "content": "a part"},
            {"role": "user", "content": "another"},
        ]
    }


# ============================================================ neutral -> wire -> neutral

NEUTRAL: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "openai_style_tool_use": (
        {
            "messages": [
                {"role": "system", "content": "Be helpful."},
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": "Let me check.",
                    "tool_calls": [
                        {"id": "call_abc", "name": "get_weather", "arguments": {"city": "Paris"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "call_abc", "content": "18C"},
                {"role": "assistant", "content": "It is 18C."},
            ],
            "tools": [
                {"name": "get_weather", "description": "Weather.", "parameters": WEATHER_SCHEMA}
            ],
            "tool_choice": {"type": "auto"},
        },
        {
            "system_instruction": {"parts": [{"text": "Be helpful."}]},
            "contents": [
                user({"text": "Weather in Paris?"}),
                model(
                    {"text": "Let me check."}, fc("get_weather", {"city": "Paris"}, id="call_abc")
                ),
                user(fr("get_weather", {"output": "18C"}, id="call_abc")),
                model({"text": "It is 18C."}),
            ],
            "tools": [
                {
                    "function_declarations": [
                        {
                            "name": "get_weather",
                            "description": "Weather.",
                            "parameters_json_schema": WEATHER_SCHEMA,
                        }
                    ]
                }
            ],
            "tool_config": {"function_calling_config": {"mode": "AUTO"}},
        },
    ),
    "anthropic_style_interleaved_and_error_results": (
        {
            "messages": [
                {"role": "user", "content": "Do two things"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Running a."},
                        {"type": "text", "text": "Then b."},
                    ],
                    "tool_calls": [
                        {"id": "toolu_1", "name": "a", "arguments": {}, "index": 1},
                        {"id": "toolu_2", "name": "b", "arguments": {"x": [1, 2]}, "index": 3},
                    ],
                },
                {"role": "tool", "tool_call_id": "toolu_1", "content": "ok"},
                {"role": "tool", "tool_call_id": "toolu_2", "content": "boom", "status": "error"},
            ],
            "tool_choice": {"type": "tool", "name": "a"},
        },
        {
            "contents": [
                user({"text": "Do two things"}),
                model(
                    {"text": "Running a."},
                    fc("a", {}, id="toolu_1"),
                    {"text": "Then b."},
                    fc("b", {"x": [1, 2]}, id="toolu_2"),
                ),
                user(
                    fr("a", {"output": "ok"}, id="toolu_1"),
                    fr("b", {"error": "boom"}, id="toolu_2"),
                ),
            ],
            "tool_config": {
                "function_calling_config": {"mode": "ANY", "allowed_function_names": ["a"]}
            },
        },
    ),
    "media_sources": (
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image", "base64": PNG, "mime_type": "image/png"},
                        {"type": "image", "url": "https://example.com/a.png"},
                        {"type": "image", "url": "gs://bucket/b.webp", "mime_type": "image/webp"},
                        {"type": "file", "file_id": "files/doc-1", "mime_type": "application/pdf"},
                        {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
                        {"type": "video", "url": "https://youtu.be/abc"},
                        {"type": "text-plain", "text": "notes: é ✓"},
                        {"type": "text-plain", "url": "https://example.com/notes.txt"},
                        {
                            "type": "file",
                            "url": "https://example.com/report",
                            "mime_type": "text/csv",
                        },
                    ],
                }
            ]
        },
        {
            "contents": [
                user(
                    {"inline_data": {"mime_type": "image/png", "data": PNG}},
                    {"file_data": {"file_uri": "https://example.com/a.png"}},
                    {"file_data": {"file_uri": "gs://bucket/b.webp", "mime_type": "image/webp"}},
                    {
                        "file_data": {
                            "file_uri": "https://generativelanguage.googleapis.com/v1beta/files/doc-1",
                            "mime_type": "application/pdf",
                        }
                    },
                    {"inline_data": {"mime_type": "audio/wav", "data": WAV}},
                    {"file_data": {"file_uri": "https://youtu.be/abc"}},
                    {
                        "inline_data": {
                            "mime_type": "text/plain",
                            "data": base64.b64encode("notes: é ✓".encode()).decode(),
                        }
                    },
                    {"file_data": {"file_uri": "https://example.com/notes.txt"}},
                    {
                        "file_data": {
                            "file_uri": "https://example.com/report",
                            "mime_type": "text/csv",
                        }
                    },
                )
            ]
        },
    ),
    "gemini_reasoning_and_signatures": (
        {
            "messages": [
                {"role": "user", "content": "Think"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "reasoning", "text": "Hmm.", "provider": "gemini"},
                        {"type": "reasoning", "text": "", "signature": SIG_A, "provider": "gemini"},
                        {
                            "type": "text",
                            "text": "Done.",
                            "extras": {"gemini": {"thought_signature": SIG_B}},
                        },
                    ],
                },
            ]
        },
        {
            "contents": [
                user({"text": "Think"}),
                model(
                    {"text": "Hmm.", "thought": True},
                    {"text": "", "thought": True, "thought_signature": SIG_A},
                    {"text": "Done.", "thought_signature": SIG_B},
                ),
            ]
        },
    ),
    "code_execution_blocks": (
        {
            "messages": [
                {"role": "user", "content": "Run"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "server_tool_call",
                            "id": "exec_1",
                            "name": "code_execution",
                            "arguments": {"language": "PYTHON", "code": "print(2)"},
                        },
                        {
                            "type": "server_tool_result",
                            "tool_call_id": "exec_1",
                            "status": "success",
                            "output": {"outcome": "OUTCOME_OK", "output": "2\n"},
                        },
                    ],
                },
            ]
        },
        {
            "contents": [
                user({"text": "Run"}),
                model(
                    {"executable_code": {"language": "PYTHON", "code": "print(2)", "id": "exec_1"}},
                    {
                        "code_execution_result": {
                            "outcome": "OUTCOME_OK",
                            "output": "2\n",
                            "id": "exec_1",
                        }
                    },
                ),
            ]
        },
    ),
    "tool_result_with_image_and_json_output": (
        {
            "messages": [
                {"role": "user", "content": "Snap"},
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c1", "name": "snap", "arguments": {}}],
                },
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "content": [
                        {"type": "text", "text": '{"w": 1}'},
                        {"type": "image", "base64": PNG, "mime_type": "image/png"},
                    ],
                },
                {"role": "user", "content": "Thanks"},
            ]
        },
        {
            "contents": [
                user({"text": "Snap"}),
                model(fc("snap", {}, id="c1")),
                user(
                    {
                        "function_response": {
                            "name": "snap",
                            "id": "c1",
                            "response": {"output": '{"w": 1}'},
                            "parts": [{"inline_data": {"mime_type": "image/png", "data": PNG}}],
                        }
                    }
                ),
                user({"text": "Thanks"}),
            ]
        },
    ),
    "non_standard_gemini_part": (
        {
            "messages": [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "non_standard",
                            "value": {
                                "tool_call": {"id": "t", "tool_type": "URL_CONTEXT", "args": {}}
                            },
                        }
                    ],
                },
            ]
        },
        {
            "contents": [
                user({"text": "q"}),
                model({"tool_call": {"id": "t", "tool_type": "URL_CONTEXT", "args": {}}}),
            ]
        },
    ),
    "named_tool_result_and_empty_system": (
        {
            "messages": [
                {"role": "system", "content": ""},
                {"role": "user", "content": "go"},
                {"role": "assistant", "tool_calls": [{"id": "k", "name": "real", "arguments": {}}]},
                {"role": "tool", "tool_call_id": "k", "content": "x", "name": "alias"},
            ],
            "tool_choice": {"type": "none"},
        },
        {
            "system_instruction": {"parts": []},
            "contents": [
                user({"text": "go"}),
                model(fc("real", {}, id="k")),
                user(fr("alias", {"output": "x"}, id="k")),
            ],
            "tool_config": {"function_calling_config": {"mode": "NONE"}},
        },
    ),
}


@pytest.mark.parametrize("name", list(NEUTRAL))
def test_neutral_conversation_round_trips(name: str) -> None:
    neutral, wire = NEUTRAL[name]
    conversation = chatschema.parse_conversation(neutral)
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    assert encoded == wire
    assert gemini.check(conversation) == []
    assert to_dict(gemini.decode_conversation(encoded)) == neutral
    assert gemini.encode(gemini.decode_conversation(encoded)) == wire


def test_encode_accepts_message_lists_and_dicts() -> None:
    messages = [chatschema.user("hi"), {"role": "assistant", "content": "hello"}]
    assert gemini.encode(messages) == {"contents": [user({"text": "hi"}), model({"text": "hello"})]}
    assert gemini.encode({"messages": [{"role": "user", "content": "x"}]}) == {
        "contents": [user({"text": "x"})]
    }
    with pytest.raises(ValidationError):
        gemini.encode([{"role": "wizard", "content": "x"}])


# ================================================================ documented lossy spots

LOSSY: dict[str, tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]] = {
    # name: (messages, options, expected contents/system)
    "several_leading_system_messages_merge": (
        [
            {"role": "system", "content": "A"},
            {"role": "system", "content": [{"type": "text", "text": "B"}]},
            {"role": "user", "content": "q"},
        ],
        {},
        {
            "system_instruction": {"parts": [{"text": "A"}, {"text": "B"}]},
            "contents": [user({"text": "q"})],
        },
    ),
    "later_system_message_becomes_user_turn": (
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a"},
            {"role": "system", "content": "Now answer in French."},
            {"role": "user", "content": "q2"},
        ],
        {},
        {
            "contents": [
                user({"text": "q"}),
                model({"text": "a"}),
                user({"text": "Now answer in French."}),
                user({"text": "q2"}),
            ]
        },
    ),
    "foreign_reasoning_is_left_out_by_default": (
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "t", "signature": "s", "provider": "anthropic"},
                    {"type": "reasoning", "encrypted_content": "e", "provider": "openai_responses"},
                    {"type": "text", "text": "a"},
                ],
            },
        ],
        {},
        {"contents": [user({"text": "q"}), model({"text": "a"})]},
    ),
    "reasoning_text_renders_foreign_reasoning": (
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "t", "signature": "s", "provider": "anthropic"},
                    {"type": "reasoning", "summary": ["s1", "s2"], "provider": "openai_responses"},
                    {"type": "reasoning", "text": "mine", "signature": SIG_A, "provider": "gemini"},
                    {"type": "text", "text": "a"},
                ],
            },
        ],
        {"reasoning": "text"},
        {
            "contents": [
                user({"text": "q"}),
                model(
                    {"text": "t"},
                    {"text": "s1\ns2"},
                    {"text": "mine", "thought": True, "thought_signature": SIG_A},
                    {"text": "a"},
                ),
            ]
        },
    ),
    "reasoning_drop_strips_thoughts_and_signatures": (
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "mine", "signature": SIG_A, "provider": "gemini"},
                    {
                        "type": "image",
                        "base64": PNG,
                        "mime_type": "image/png",
                        "extras": {"gemini": {"thought": True}},
                    },
                    {
                        "type": "text",
                        "text": "a",
                        "extras": {"gemini": {"thought_signature": SIG_B}},
                    },
                    {
                        "type": "non_standard",
                        "value": {"tool_call": {"id": "t"}, "thought_signature": SIG_C},
                    },
                ],
                "tool_calls": [
                    {
                        "id": "c",
                        "name": "f",
                        "arguments": {},
                        "extras": {"gemini": {"thought_signature": SIG_C}},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c", "content": "r"},
        ],
        {"reasoning": "drop"},
        {
            "contents": [
                user({"text": "q"}),
                model({"text": "a"}, {"tool_call": {"id": "t"}}, fc("f", {}, id="c")),
                user(fr("f", {"output": "r"}, id="c")),
            ]
        },
    ),
    "refusal_data_url_cache_control_detail_filename_name_are_plain": (
        [
            {
                "role": "user",
                "name": "alice",
                "content": [
                    {"type": "text", "text": "look", "cache_control": {"type": "ephemeral"}},
                    {"type": "image", "url": f"data:image/png;base64,{PNG}", "detail": "high"},
                    {
                        "type": "file",
                        "base64": PDF,
                        "mime_type": "application/pdf",
                        "filename": "r.pdf",
                    },
                ],
            },
            {"role": "assistant", "content": [{"type": "refusal", "text": "I can't."}]},
        ],
        {},
        {
            "contents": [
                user(
                    {"text": "look"},
                    {"inline_data": {"mime_type": "image/png", "data": PNG}},
                    {"inline_data": {"mime_type": "application/pdf", "data": PDF}},
                ),
                model({"text": "I can't."}),
            ]
        },
    ),
    "options_without_meaning_for_gemini_change_nothing": (
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}],
            }
        ],
        {
            "prompt_cache": False,
            "system_role": "developer",
            "reasoning_content": True,
            "content_format": "parts",
        },
        {"contents": [user({"text": "x"})]},
    ),
}


@pytest.mark.parametrize("name", list(LOSSY))
def test_documented_conversions(name: str) -> None:
    messages, options, expected = LOSSY[name]
    before = copy.deepcopy(messages)
    encoded = gemini.encode(messages, **options)
    assert messages == before
    validate_request("gemini", encoded)
    assert encoded == expected


# ============================================================================= options


def test_content_format_string_joins_text_parts() -> None:
    messages = [
        {
            "role": "system",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "q1"}, {"type": "text", "text": "q2"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "t", "signature": SIG_A, "provider": "gemini"},
                {"type": "text", "text": "x", "extras": {"gemini": {"thought_signature": SIG_B}}},
                {"type": "refusal", "text": "y"},
            ],
            "tool_calls": [{"id": "c", "name": "f", "arguments": {}, "index": 0}],
        },
        {
            "role": "tool",
            "tool_call_id": "c",
            "content": [{"type": "text", "text": "r1"}, {"type": "text", "text": "r2"}],
        },
    ]
    encoded = gemini.encode(messages, content_format="string")
    validate_request("gemini", encoded)
    assert encoded == {
        "system_instruction": {"parts": [{"text": "a\nb"}]},
        "contents": [
            user({"text": "q1\nq2"}),
            model(
                {"text": "t", "thought": True, "thought_signature": SIG_A},
                {"text": "x\ny"},
                fc("f", {}, id="c"),
            ),
            user(fr("f", {"output": "r1\nr2"}, id="c")),
        ],
    }
    image = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "url": "https://x.io/a.png"},
            ],
        }
    ]
    with pytest.raises(UnsupportedContentError) as caught:
        gemini.encode(image, content_format="string", check=False)
    assert (caught.value.message_index, caught.value.block_index) == (0, 1)
    assert gemini.encode(image, content_format="string", unsupported="placeholder") == {
        "contents": [
            user(
                {
                    "text": "a\n[image content with content_format='string' omitted: "
                    "not supported by gemini]"
                }
            )
        ]
    }


VISION_OFF = [
    {"role": "user", "content": "first"},
    {"role": "assistant", "content": "ok"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "see"},
            {"type": "image", "base64": PNG, "mime_type": "image/png"},
        ],
    },
]


def test_vision_off_error_with_check_lists_the_problem() -> None:
    with pytest.raises(ConversionError) as caught:
        gemini.encode(VISION_OFF, vision=False)
    assert caught.value.message_index == 2
    assert [(p.pointer, p.keyword) for p in caught.value.problems] == [
        ("/messages/2/content/1", "unsupported_content")
    ]
    assert gemini.check(VISION_OFF, vision=False) == list(caught.value.problems)
    assert gemini.check(VISION_OFF) == []


def test_vision_off_error_without_check_names_message_and_block() -> None:
    with pytest.raises(UnsupportedContentError) as caught:
        gemini.encode(VISION_OFF, vision=False, check=False)
    assert (caught.value.provider, caught.value.message_index, caught.value.block_index) == (
        "gemini",
        2,
        1,
    )


def test_vision_off_drop_and_placeholder() -> None:
    dropped = gemini.encode(VISION_OFF, vision=False, unsupported="drop")
    assert dropped["contents"][2] == user({"text": "see"})
    placeholder = gemini.encode(VISION_OFF, vision=False, unsupported="placeholder")
    assert placeholder["contents"][2] == user(
        {"text": "see"}, {"text": "[image (vision is off) omitted: not supported by gemini]"}
    )
    assert gemini.check(VISION_OFF, vision=False, unsupported="drop") == []
    # images in tool results follow the same rule
    tool_image = [
        {"role": "user", "content": "snap"},
        {"role": "assistant", "tool_calls": [{"id": "c", "name": "snap", "arguments": {}}]},
        {
            "role": "tool",
            "tool_call_id": "c",
            "content": [{"type": "image", "base64": PNG, "mime_type": "image/png"}],
        },
    ]
    assert gemini.encode(tool_image, vision=False, unsupported="drop")["contents"][2] == user(
        fr("snap", {"output": ""}, id="c")
    )


def test_native_tools_off_renders_tools_as_text() -> None:
    neutral, _ = NEUTRAL["openai_style_tool_use"]
    encoded = gemini.encode(neutral, native_tools=False)
    validate_request("gemini", encoded)
    assert set(encoded) == {"system_instruction", "contents"}
    tools_text = encoded["system_instruction"]["parts"][1]["text"]
    assert tools_text.startswith("You can call these tools.")
    assert "- get_weather: Weather." in tools_text
    assert encoded["contents"][1] == model(
        {"text": "Let me check."},
        {"text": '<tool_call id="call_abc" name="get_weather">{"city": "Paris"}</tool_call>'},
    )
    assert encoded["contents"][2] == user(
        {"text": '<tool_result id="call_abc" status="success">18C</tool_result>'}
    )
    # no pairing rules apply to text
    orphan = [{"role": "tool", "tool_call_id": "nope", "content": "x"}]
    assert gemini.check(orphan, native_tools=False) == []


def test_unknown_and_bad_options() -> None:
    with pytest.raises(OptionError):
        gemini.encode([{"role": "user", "content": "x"}], colour="blue")  # type: ignore[call-arg]
    with pytest.raises(OptionError):
        gemini.encode([{"role": "user", "content": "x"}], unsupported="ignore")  # type: ignore[arg-type]


# ============================================================================== check


def _problems(messages: Any, **options: Any) -> list[tuple[str, str]]:
    return [(p.pointer, p.keyword) for p in gemini.check(messages, **options)]


CHECKS: dict[str, tuple[Any, list[tuple[str, str]]]] = {
    "unanswered_call": (
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]},
            {"role": "user", "content": "next"},
        ],
        [("/messages/1/tool_calls/0/id", "unanswered_tool_call")],
    ),
    "orphan_result": (
        [{"role": "user", "content": "q"}, {"role": "tool", "tool_call_id": "zz", "content": "x"}],
        [("/messages/1/tool_call_id", "orphan_tool_result")],
    ),
    "call_turn_first_and_after_model": (
        [
            {"role": "system", "content": "s"},
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "c", "content": "x"},
            {"role": "assistant", "content": "a"},
            {"role": "assistant", "tool_calls": [{"id": "d", "name": "f", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "d", "content": "x"},
        ],
        [("/messages/1/tool_calls/0", "turn_order"), ("/messages/4/tool_calls/0", "turn_order")],
    ),
    "empty_contents": (
        [{"role": "user", "content": ""}, {"role": "assistant"}],
        [("/messages/0/content", "empty_content"), ("/messages/1/content", "empty_content")],
    ),
    "no_contents": ([{"role": "system", "content": "only"}], [("/messages", "no_contents")]),
    "result_after_a_user_turn": (
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]},
            {"role": "user", "content": "wait"},
            {"role": "tool", "tool_call_id": "c", "content": "x"},
        ],
        [("/messages/3/tool_call_id", "not_adjacent")],
    ),
    "late_system_message_between_call_and_result": (
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]},
            {"role": "system", "content": "be quick"},
            {"role": "tool", "tool_call_id": "c", "content": "x"},
        ],
        [("/messages/3/tool_call_id", "not_adjacent")],
    ),
    "foreign_blocks": (
        [
            {
                "role": "user",
                "content": [
                    {"type": "file", "file_id": "file-abc123"},
                    {"type": "non_standard", "value": {"type": "document", "x": 1}},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "server_tool_call",
                        "id": "s",
                        "name": "web_search",
                        "arguments": {"q": "x"},
                    },
                    {"type": "server_tool_result", "tool_call_id": "s", "output": [{"url": "u"}]},
                    {"type": "text", "text": "done"},
                ],
                "invalid_tool_calls": [{"name": "f", "arguments": "{bad"}],
            },
        ],
        [
            ("/messages/0/content/0", "unsupported_content"),
            ("/messages/0/content/1", "unsupported_content"),
            ("/messages/1/content/0", "unsupported_content"),
            ("/messages/1/content/1", "unsupported_content"),
            ("/messages/1/invalid_tool_calls/0", "unsupported_content"),
        ],
    ),
    "system_image": (
        [
            {"role": "system", "content": [{"type": "image", "url": "https://x.io/a.png"}]},
            {"role": "user", "content": "q"},
        ],
        [("/messages/0/content/0", "unsupported_content")],
    ),
    "bad_tool_name": (
        {
            "messages": [{"role": "user", "content": "q"}],
            "tools": [{"name": "9lives", "parameters": {}}, {"name": "ok_name", "parameters": {}}],
        },
        [("/tools/0/name", "pattern")],
    ),
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_check_reports_structural_problems(name: str) -> None:
    messages, expected = CHECKS[name]
    assert _problems(messages) == expected
    with pytest.raises(ConversionError) as caught:
        gemini.encode(messages)
    assert caught.value.provider == "gemini"
    assert [(p.pointer, p.keyword) for p in caught.value.problems] == expected
    assert str(caught.value).startswith(
        f"gemini, message {caught.value.message_index}"
        if caught.value.message_index is not None
        else "gemini:"
    )


def test_inline_pdf_size_limit() -> None:
    big = chatschema.Conversation(
        messages=[
            chatschema.UserMessage(
                content=[
                    chatschema.FileBlock(
                        base64="A" * (68 * 1024 * 1024), mime_type="application/pdf"
                    )
                ]
            )
        ]
    )
    assert [(p.pointer, p.keyword) for p in gemini.check(big)] == [
        ("/messages/0/content/0", "size_limit")
    ]


def test_encode_without_check_raises_for_a_nameless_orphan_result() -> None:
    orphan = [
        {"role": "user", "content": "q"},
        {"role": "tool", "tool_call_id": "zz", "content": "x"},
    ]
    with pytest.raises(ConversionError) as caught:
        gemini.encode(orphan, check=False)
    assert caught.value.message_index == 1
    named = [
        {"role": "user", "content": "q"},
        {"role": "tool", "tool_call_id": "zz", "content": "x", "name": "f"},
    ]
    assert gemini.encode(named, check=False)["contents"][1] == user(
        fr("f", {"output": "x"}, id="zz")
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


# ============================================================================ errors

BAD_CONVERSATIONS: dict[str, tuple[Any, int | None, int | None]] = {
    "not_a_conversation": (42, None, None),
    "no_contents_key": ({"messages": []}, None, None),
    "contents_not_list": ({"contents": {"role": "user"}}, None, None),
    "content_not_object": ({"contents": [7]}, 0, None),
    "parts_not_list": ({"contents": [{"role": "user", "parts": "hi"}]}, 0, None),
    "part_not_object": ({"contents": [user({"text": "a"}), model("b")]}, 1, 0),  # type: ignore[arg-type]
    "two_data_fields": (
        {"contents": [user({"text": "a", "inline_data": {"mime_type": "image/png", "data": PNG}})]},
        0,
        0,
    ),
    "text_not_string": ({"contents": [user({"text": "a"}, {"text": 5})]}, 0, 1),
    "args_string": (
        {"contents": [user({"text": "a"}), model({"function_call": {"name": "f", "args": "{}"}})]},
        1,
        0,
    ),
    "call_without_name": (
        {"contents": [user({"text": "a"}), model({"function_call": {"args": {}}})]},
        1,
        0,
    ),
    "call_not_object": ({"contents": [user({"text": "a"}), model({"function_call": "f()"})]}, 1, 0),
    "response_not_object": (
        {"contents": [user({"function_response": {"name": "f", "response": "x"}})]},
        0,
        0,
    ),
    "unknown_role": ({"contents": [{"role": "assistant", "parts": [{"text": "a"}]}]}, 0, None),
    "signature_not_text": ({"contents": [user({"text": "a", "thought_signature": 12})]}, 0, 0),
    "bad_json_text": ("{not json", None, None),
    "non_string_key": ({"contents": [{1: "user"}]}, None, None),
    "declaration_without_name": (
        {"contents": [], "tools": [{"function_declarations": [{}]}]},
        None,
        None,
    ),
    "parameters_not_object": (
        {
            "contents": [],
            "tools": [{"function_declarations": [{"name": "f", "parameters_json_schema": []}]}],
        },
        None,
        None,
    ),
    "response_not_json": ({"contents": [user(fr("f", {"output": {1, 2}}))]}, None, None),
    "named_choice_not_string": (
        {
            "contents": [],
            "tool_config": {
                "function_calling_config": {"mode": "ANY", "allowed_function_names": [3]}
            },
        },
        None,
        None,
    ),
}


@pytest.mark.parametrize("name", list(BAD_CONVERSATIONS))
def test_bad_conversations_raise_conversion_errors(name: str) -> None:
    payload, content, part = BAD_CONVERSATIONS[name]
    with pytest.raises(ConversionError) as caught:
        gemini.decode_conversation(payload)
    assert caught.value.provider == "gemini"
    assert (caught.value.message_index, caught.value.block_index) == (content, part)


BAD_RESPONSES = {
    "not_object": [1, 2],
    "candidates_not_list": {"candidates": {"content": {}}},
    "candidate_not_object": {"candidates": ["x"]},
    "user_role": {"candidates": [{"content": {"role": "user", "parts": []}}]},
    "negative_count": {"usageMetadata": {"promptTokenCount": -1}},
    "string_count": {"usageMetadata": {"promptTokenCount": "12"}},
    "bool_count": {"usageMetadata": {"totalTokenCount": True}},
    "usage_not_object": {"usageMetadata": 5},
    "finish_reason_number": {"candidates": [{"content": {"role": "model"}, "finishReason": 1}]},
    "args_list": {"candidates": [{"content": model({"functionCall": {"name": "f", "args": [1]}})}]},
}


@pytest.mark.parametrize("name", list(BAD_RESPONSES))
def test_bad_responses_raise_conversion_errors(name: str) -> None:
    with pytest.raises(ConversionError) as caught:
        gemini.decode_response(BAD_RESPONSES[name])
    assert caught.value.provider == "gemini"


def test_deep_nesting_is_a_conversion_error() -> None:
    deep: Any = {"text": "x"}
    for _ in range(5000):
        deep = {"part_meta": deep}
    with pytest.raises(ConversionError):
        gemini.decode_conversation({"contents": [user(deep)]})


def test_unmappable_media_stays_non_standard() -> None:
    parts: list[dict[str, Any]] = [
        {"inline_data": {"data": PNG}},  # no MIME type
        {"inline_data": {"mime_type": "not a mime", "data": PNG}},
        {"file_data": {"mime_type": "image/png"}},  # no URI
        {"thought_signature": SIG_A},  # metadata without data
    ]
    payload = {"contents": [user(*parts)]}
    message = gemini.decode_messages(payload)[0]
    assert [to_dict(block) for block in blocks_of(message)] == [
        {"type": "non_standard", "value": part} for part in parts
    ]
    assert gemini.encode(gemini.decode_conversation(payload), check=False) == payload


def test_model_objects_decode_like_sdk_bytes() -> None:
    raw = bytes(range(256))
    part = types.Part(text="", thought_signature=raw)
    blob = types.Part(inline_data=types.Blob(mime_type="image/png", data=raw))
    messages = gemini.decode_messages([types.Content(role="model", parts=[part, blob])])
    assistant = messages[0]
    assert isinstance(assistant, AssistantMessage)
    blocks = assistant.content
    assert isinstance(blocks, list)
    standard = base64.b64encode(raw).decode()
    assert (blocks[0].extras or {})["gemini"]["thought_signature"] == standard  # not URL-safe
    assert isinstance(blocks[1], ImageBlock) and blocks[1].base64 == standard


def test_reasoning_reprs_never_show_signatures() -> None:
    payload = {"contents": [model({"text": "t", "thought": True, "thought_signature": SIG_A})]}
    reasoning = gemini.decode_messages(payload)[0]
    assert SIG_A not in repr(reasoning.content)


def test_tool_message_helpers_build_valid_requests() -> None:
    reply = gemini.decode_response(load("response_parallel_calls.json"))
    results = [ToolMessage(tool_call_id=call.id, content="ok") for call in reply.tool_calls]
    encoded = gemini.encode([chatschema.user("q"), reply, *results])
    assert [part["function_response"]["name"] for part in encoded["contents"][2]["parts"]] == [
        "get_weather",
        "get_weather",
    ]


def test_long_agent_history_round_trips_with_unique_ids() -> None:
    contents: list[dict[str, Any]] = [user({"text": "start"})]
    for turn in range(300):
        contents.append(
            model(
                {"text": f"step {turn}", "thought": True},
                {**fc("run", {"step": turn}), "thought_signature": SIG_A},
                fc("log", {"step": turn}),
            )
        )
        contents.append(user(fr("run", {"output": str(turn)}), fr("log", {"output": "ok"})))
    payload = {"contents": contents}
    conversation = gemini.decode_conversation(payload)
    ids = [
        call.id
        for message in conversation.messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    ]
    assert len(ids) == len(set(ids)) == 600
    answered = [m.tool_call_id for m in conversation.messages if isinstance(m, ToolMessage)]
    assert answered == ids
    assert gemini.check(conversation) == []
    assert gemini.encode(conversation) == payload


def test_function_role_contents_decode_as_user_turns() -> None:
    payload = {
        "contents": [
            user({"text": "go"}),
            model(fc("f", {})),
            {"role": "function", "parts": [fr("f", {"output": "x"})]},
        ]
    }
    messages = gemini.decode_messages(payload)
    assert to_dict(messages[2]) == {
        "role": "tool",
        "tool_call_id": "gemini_call_1_0",
        "content": "x",
        "extras": {"gemini": {"role": "function"}},
    }
    assert gemini.encode(messages, check=False) == payload


def test_an_empty_text_block_that_carries_nothing_is_left_out() -> None:
    # The API refuses empty text; content "" already sends no part, and a list holding
    # only an empty text block (another provider's reasoning left out) says the same.
    reply = {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "summary": ["Thinking."], "provider": "openai_responses"},
            {"type": "text", "text": ""},
        ],
    }
    history = [{"role": "user", "content": "hi"}, reply]
    problems = gemini.check(history)
    assert [(p.pointer, p.keyword) for p in problems] == [("/messages/1/content", "empty_content")]
    with pytest.raises(chatschema.ConversionError):
        gemini.encode(history)
    # An empty text part with a thought signature is kept, signature and all.
    payload = {"contents": [user({"text": "hi"}), model({"text": "", "thought_signature": SIG_C})]}
    assert gemini.encode(gemini.decode_conversation(payload)) == payload
