"""The Gemini codec: histories (wire -> neutral -> wire), with google-genai as the oracle."""

from __future__ import annotations

import base64
import copy
import json
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
    to_dict,
)
from chatschema.providers import gemini
from providers.gemini.helpers import (
    PDF,
    PNG,
    SIG_A,
    SIG_B,
    SIG_C,
    WAV,
    WEATHER_SCHEMA,
    blocks_of,
    camel,
    fc,
    fr,
    load,
    model,
    user,
)


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


def test_responses_in_separate_contents_round_trip() -> None:
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
    # user contents in a row are the turn after the calls (the API took such a request;
    # test_read_forms.py has the shapes): no problem, and the payload comes back as it was
    assert gemini.check(conversation) == []
    assert gemini.encode(conversation) == payload


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


def test_server_tools_are_hosted_tool_definitions_and_allowed_names_are_the_choice() -> None:
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
    # the model is a setting; nothing of the request is left in metadata
    assert to_dict(conversation)["settings"] == {"model": "gemini-2.5-flash"}
    assert "metadata" not in to_dict(conversation)
    # ANY with several allowed names: a call is required, among those names only
    assert to_dict(conversation)["tool_choice"] == {
        "type": "allowed",
        "names": ["f", "g"],
        "mode": "required",
    }
    # the hosted tool and the whole tool config are sent back
    encoded = gemini.encode(conversation)
    assert encoded["tools"] == payload["tools"]
    assert encoded["tool_config"] == payload["tool_config"]
    assert encoded == payload


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
        # the temperature is a setting; the config form is remembered (by what of it
        # no setting says: nothing), so that encode gives the config form back
        "settings": {"temperature": 0.2},
        "extras": {"gemini": {"config": {}}},
    }
    assert gemini.encode(conversation) == {
        "contents": [
            {"role": "user", "parts": [{"text": "hello"}]},
            {"role": "model", "parts": [{"text": "hi"}]},
        ],
        "config": {
            "system_instruction": {"parts": [{"text": "Be brief."}]},
            "tools": [{"function_declarations": [{"name": "f"}]}],
            "temperature": 0.2,
        },
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
    "call_name_not_text": (
        {"contents": [user({"text": "a"}), model({"function_call": {"name": 3, "args": {}}})]},
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
    "response_not_json": ({"contents": [user(fr("f", {"output": {1, 2}}))]}, 0, None),
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


@pytest.mark.parametrize("form", ["urlsafe", "urlsafe_unpadded", "unpadded"])
def test_url_safe_or_unpadded_inline_data_is_standard_base64_and_goes_back_as_it_came(
    form: str,
) -> None:
    raw = bytes(range(250, 256)) * 3 + b"%PDF"  # bytes that need '+' and '/' in base64
    standard = base64.b64encode(raw).decode("ascii")
    data = base64.urlsafe_b64encode(raw).decode("ascii") if "urlsafe" in form else standard
    if form.endswith("unpadded"):
        data = data.rstrip("=")
    assert data != standard
    inline = {"inline_data": {"mime_type": "application/pdf", "data": data}}
    payload = {
        "contents": [
            user({"text": "read"}, copy.deepcopy(inline)),
            model(fc("get", {}, "c")),
            user(
                {"function_response": {"name": "get", "id": "c", "response": {}, "parts": [inline]}}
            ),
        ],
    }
    conversation = gemini.decode_conversation(payload)
    blocks = [
        block
        for message in conversation.messages
        if isinstance(message.content, list)
        for block in message.content
        if block.type == "file"
    ]
    # the neutral block holds standard base64 (schemas: Base64Data), which every format
    # takes; the way it came is kept for Gemini
    assert [(b.base64, (b.extras or {})["gemini"]) for b in blocks] == [
        (standard, {"base64url": form})
    ] * 2
    assert base64.b64decode(blocks[0].base64, validate=True) == raw
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    assert encoded == payload
    # the API reads both alphabets into the same bytes (google-genai reads JSON so too)
    part = types.Part.model_validate_json(json.dumps(inline))
    assert part.inline_data is not None and part.inline_data.data == raw
