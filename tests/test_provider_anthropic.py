"""The Anthropic Messages codec: exact round trips, the SDK as oracle, options, checks."""

from __future__ import annotations

import contextlib
import copy
import json
import re
from typing import Any

import pytest
from anthropic.types import Message as SDKMessage
from oracle import validate_request

from chatschema import (
    AssistantMessage,
    AudioBlock,
    CacheControl,
    ChatSchemaError,
    Citation,
    Conversation,
    ConversionError,
    FileBlock,
    ImageBlock,
    InvalidToolCall,
    NamedToolChoice,
    NonStandardAnnotation,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    RefusalBlock,
    RequiredToolChoice,
    ServerToolCallBlock,
    ServerToolResultBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolDefinition,
    ToolMessage,
    UnsupportedContentError,
    UserMessage,
    ValidationError,
    VideoBlock,
    to_dict,
)
from chatschema.errors import OptionError
from chatschema.providers import anthropic as codec
from chatschema.providers import convert, get_codec

SIG = "EqQBCkYIBxgCKkBq7fZ3kL0mQ2Yx9c8TtZ1pW4vN6sR3uJ5hG2dF8aK0bE7cX1yV9zM4nL6oP2qS5rT3uW8xY0zA"
REDACTED = (
    "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8U"
    "Rj2pLmN3kJ8="
)
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5E"
    "rkJggg=="
)
PDF = (
    "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSL0ZpbHRlci9GbGF0ZURlY29kZT4+CnN0"
    "cmVhbQ=="
)
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["C", "F"]}},
    "required": ["city"],
}
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather in a city.",
    "input_schema": WEATHER_SCHEMA,
}


def enc(conversation: Any, **options: Any) -> dict[str, Any]:
    """Encode and hold the output to the official SDK request types."""
    payload = codec.encode(conversation, **options)
    validate_request("anthropic", payload)
    return payload


def neutral(conversation: Any) -> dict[str, Any]:
    return to_dict(codec.decode_conversation(conversation))


def tool_use(call_id: str, name: str = "get_weather", **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def result(call_id: str, content: Any = None, **more: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    if content is not None:
        block["content"] = content
    block.update(more)
    return block


# ------------------------------------------------------------------ wire payloads
# Every payload is a valid request part (checked by the oracle) and must come back
# byte for byte from encode(decode_conversation(payload)).

WIRE: dict[str, dict[str, Any]] = {
    "string-chat": {
        "system": "You are a terse assistant.",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "What is 2+2?"},
        ],
    },
    "system-blocks-cached": {
        "system": [
            {"type": "text", "text": "You are a code reviewer."},
            {
                "type": "text",
                "text": "Style guide: PEP 8 ...",
                "cache_control": {"type": "ephemeral", "ttl": "1h"},
            },
        ],
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "Review this diff.",
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ],
    },
    "thinking-parallel-tools": {
        "system": "Use tools when useful.",
        "messages": [
            {"role": "user", "content": "Weather in Paris and Oslo?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Two cities, two calls.", "signature": SIG},
                    {"type": "text", "text": "Checking both."},
                    tool_use("toolu_01A", city="Paris"),
                    tool_use("toolu_01B", city="Oslo", unit="C"),
                ],
            },
            {
                "role": "user",
                "content": [
                    result("toolu_01A", "18°C, sunny"),
                    result("toolu_01B", [{"type": "text", "text": "4°C"}], is_error=False),
                    {"type": "text", "text": "Also, which is warmer?"},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Paris is warmer."}],
            },
        ],
        "tools": [WEATHER_TOOL],
        "tool_choice": {"type": "auto"},
    },
    "tool-result-forms": {
        "messages": [
            {"role": "user", "content": "Run the checks."},
            {
                "role": "assistant",
                "content": [
                    tool_use("toolu_1", "lint"),
                    tool_use("toolu_2", "test"),
                    tool_use("toolu_3", "build"),
                    tool_use("toolu_4", "screenshot"),
                ],
            },
            {
                "role": "user",
                "content": [
                    result("toolu_1"),
                    result("toolu_2", "", is_error=True),
                    result("toolu_3", "boom", is_error=True),
                    result(
                        "toolu_4",
                        [
                            {"type": "text", "text": "Screenshot:"},
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": PNG,
                                },
                            },
                        ],
                        cache_control={"type": "ephemeral"},
                    ),
                ],
            },
        ],
        "tools": [
            {"name": "lint", "input_schema": {"type": "object"}},
            {"name": "test", "input_schema": {"type": "object"}},
            {"name": "build", "input_schema": {"type": "object"}},
            {"name": "screenshot", "input_schema": {"type": "object"}, "strict": True},
        ],
    },
    "redacted-and-interleaved": {
        "messages": [
            {"role": "user", "content": "Plan, then act."},
            {
                "role": "assistant",
                "content": [
                    {"type": "redacted_thinking", "data": REDACTED},
                    {"type": "thinking", "thinking": "", "signature": SIG},
                    tool_use("toolu_x", "plan", steps=3),
                    {"type": "text", "text": "Plan made; now the weather."},
                    tool_use("toolu_y", city="Rome"),
                ],
            },
            {"role": "user", "content": [result("toolu_x", "ok"), result("toolu_y", "22C")]},
        ],
    },
    "server-tools-and-citations": {
        "messages": [
            {"role": "user", "content": "How much solar was installed in 2024?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_01WYG3",
                        "name": "web_search",
                        "input": {"query": "solar capacity 2024"},
                    },
                    {
                        "type": "web_search_tool_result",
                        "tool_use_id": "srvtoolu_01WYG3",
                        "content": [
                            {
                                "type": "web_search_result",
                                "url": "https://example.com/solar",
                                "title": "Solar passes 1.5 TW",
                                "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5",
                                "page_age": "April 30, 2025",
                            }
                        ],
                    },
                    {"type": "text", "text": "According to the report, "},
                    {
                        "type": "text",
                        "text": "capacity passed 1.5 TW.",
                        "citations": [
                            {
                                "type": "web_search_result_location",
                                "cited_text": "Installed capacity passed 1.5 TW in 2024.",
                                "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
                                "title": None,
                                "url": "https://example.com/solar",
                            }
                        ],
                    },
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_02",
                        "name": "code_execution",
                        "input": {"code": "print(1.5 * 2)"},
                    },
                    {
                        "type": "code_execution_tool_result",
                        "tool_use_id": "srvtoolu_02",
                        "content": {
                            "type": "code_execution_result",
                            "stdout": "3.0\n",
                            "stderr": "",
                            "return_code": 0,
                            "content": [],
                        },
                    },
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_03",
                        "name": "web_fetch",
                        "input": {"url": "https://example.com/x"},
                    },
                    {
                        "type": "web_fetch_tool_result",
                        "tool_use_id": "srvtoolu_03",
                        "content": {
                            "type": "web_fetch_tool_result_error",
                            "error_code": "url_not_allowed",
                        },
                    },
                ],
            },
            {"role": "user", "content": "Thanks!"},
        ],
        "tools": [
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
            {"type": "code_execution_20250825", "name": "code_execution"},
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": False},
    },
    "document-citations": {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
                        "title": "Q3 report",
                        "context": "Internal, confidential.",
                        "citations": {"enabled": True},
                        "cache_control": {"type": "ephemeral", "ttl": "5m"},
                    },
                    {
                        "type": "document",
                        "source": {
                            "type": "text",
                            "media_type": "text/plain",
                            "data": "Grass is green.",
                        },
                        "title": "Facts",
                        "context": "From the wiki.",
                        "citations": {"enabled": True},
                    },
                    {
                        "type": "document",
                        "source": {"type": "url", "url": "https://example.com/paper.pdf"},
                    },
                    {
                        "type": "document",
                        "source": {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
                    },
                    {
                        "type": "document",
                        "source": {
                            "type": "content",
                            "content": [
                                {"type": "text", "text": "Chunk A"},
                                {"type": "text", "text": "Chunk B"},
                            ],
                        },
                        "title": "Chunks",
                    },
                    {
                        "type": "search_result",
                        "source": "https://kb.example.com/a",
                        "title": "KB article",
                        "content": [{"type": "text", "text": "Refunds take 5 days."}],
                        "citations": {"enabled": True},
                    },
                    {"type": "text", "text": "Summarise with citations."},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "Revenue grew 14%.",
                        "citations": [
                            {
                                "type": "page_location",
                                "cited_text": "Revenue grew 14% year over year.",
                                "document_index": 0,
                                "document_title": "Q3 report",
                                "start_page_number": 3,
                                "end_page_number": 4,
                            },
                            {
                                "type": "char_location",
                                "cited_text": "Grass is green.",
                                "document_index": 1,
                                "document_title": None,
                                "start_char_index": 0,
                                "end_char_index": 15,
                            },
                            {
                                "type": "content_block_location",
                                "cited_text": "Chunk A",
                                "document_index": 4,
                                "document_title": "Chunks",
                                "start_block_index": 0,
                                "end_block_index": 1,
                            },
                            {
                                "type": "search_result_location",
                                "cited_text": "Refunds take 5 days.",
                                "search_result_index": 0,
                                "source": "https://kb.example.com/a",
                                "title": None,
                                "start_block_index": 0,
                                "end_block_index": 1,
                            },
                        ],
                    },
                    {"type": "text", "text": "No citations here.", "citations": []},
                ],
            },
            {"role": "user", "content": "Good."},
        ],
    },
    "images": {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                    },
                    {
                        "type": "image",
                        "source": {"type": "url", "url": "https://example.com/cat.jpg"},
                    },
                    {
                        "type": "image",
                        "source": {"type": "file", "file_id": "file_abc"},
                        "transformations": {"oversized_image": "error"},
                        "cache_control": {"type": "ephemeral"},
                    },
                    {"type": "text", "text": "Compare these."},
                    {"type": "container_upload", "file_id": "file_data_csv"},
                ],
            }
        ],
    },
    "same-role-runs": {
        "messages": [
            {"role": "user", "content": "First."},
            {"role": "user", "content": [{"type": "text", "text": "Second."}]},
            {"role": "assistant", "content": [tool_use("toolu_9", city="Lima")]},
            {"role": "user", "content": [result("toolu_9", "25C")]},
            {"role": "user", "content": "And tomorrow?"},
            {"role": "assistant", "content": "Let me see."},
            {"role": "assistant", "content": [{"type": "text", "text": "Sunny."}]},
        ],
    },
    "mid-conversation-system": {
        "system": "Top-level instructions.",
        "messages": [
            {"role": "system", "content": "Leading system message kept in messages."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"},
            {"role": "system", "content": [{"type": "text", "text": "Now answer in French."}]},
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "How are you?"},
        ],
    },
    "leading-system-role-only": {
        "messages": [
            {"role": "system", "content": "Only a system message, no top-level system."},
            {"role": "user", "content": "Hi"},
        ],
    },
    "tool-extras": {
        "messages": [
            {"role": "user", "content": "Edit the file."},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_e1",
                        "name": "edit",
                        "input": {"path": "a.py", "patch": "..."},
                        "caller": {"type": "direct"},
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            },
            {"role": "user", "content": [result("toolu_e1", "done")]},
        ],
        "tools": [
            {
                "name": "edit",
                "description": "Apply a patch.",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
                "cache_control": {"type": "ephemeral"},
                "input_examples": [{"path": "b.py"}],
                "defer_loading": False,
                "type": "custom",
            }
        ],
        "tool_choice": {"type": "tool", "name": "edit"},
    },
    "unknown-blocks": {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Continue."}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "bash_code_execution_tool_result",
                        "tool_use_id": "srvtoolu_b1",
                        "content": {
                            "type": "bash_code_execution_result",
                            "stdout": "ok",
                            "stderr": "",
                            "return_code": 0,
                            "content": [],
                        },
                    },
                    {"type": "text", "text": "Done."},
                ],
            },
        ],
        "tool_choice": {"type": "none"},
    },
    "prefill": {
        "messages": [
            {"role": "user", "content": "Greek name for the Sun? (A) Sol (B) Helios"},
            {"role": "assistant", "content": "The best answer is ("},
        ],
    },
}


@pytest.mark.parametrize("name", list(WIRE))
def test_wire_payloads_are_valid_requests(name: str) -> None:
    validate_request("anthropic", WIRE[name])


@pytest.mark.parametrize("name", list(WIRE))
def test_wire_round_trip_is_exact(name: str) -> None:
    payload = WIRE[name]
    before = copy.deepcopy(payload)
    conversation = codec.decode_conversation(payload)
    assert payload == before  # decoding does not touch its input
    assert enc(conversation) == payload
    # the neutral form is itself stable: parse(to_dict(x)) encodes the same
    assert enc(to_dict(conversation)) == payload
    assert codec.decode_conversation(json.dumps(payload)) == conversation


@pytest.mark.parametrize("name", list(WIRE))
def test_wire_decode_is_valid_neutral(name: str) -> None:
    from chatschema import validate

    validate(neutral(WIRE[name]), type="Conversation")


def test_decoded_tool_turn_splits_and_names_results() -> None:
    data = neutral(WIRE["thinking-parallel-tools"])
    roles = [m["role"] for m in data["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool", "user", "assistant"]
    assistant = data["messages"][2]
    assert assistant["content"] == [
        {
            "type": "reasoning",
            "text": "Two cities, two calls.",
            "signature": SIG,
            "provider": "anthropic",
        },
        {"type": "text", "text": "Checking both."},
    ]
    assert assistant["tool_calls"] == [
        {"id": "toolu_01A", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"id": "toolu_01B", "name": "get_weather", "arguments": {"city": "Oslo", "unit": "C"}},
    ]
    assert data["messages"][3] == {
        "role": "tool",
        "tool_call_id": "toolu_01A",
        "content": "18°C, sunny",
        "name": "get_weather",
    }
    assert data["messages"][4] == {
        "role": "tool",
        "tool_call_id": "toolu_01B",
        "content": [{"type": "text", "text": "4°C"}],
        "name": "get_weather",
        "extras": {"anthropic": {"is_error": False}},
    }
    assert data["messages"][5] == {
        "role": "user",
        "content": [{"type": "text", "text": "Also, which is warmer?"}],
    }
    assert data["tool_choice"] == {"type": "auto"}


def test_decoded_tool_result_forms() -> None:
    messages = neutral(WIRE["tool-result-forms"])["messages"]
    assert messages[2] == {"role": "tool", "tool_call_id": "toolu_1", "name": "lint"}
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": "toolu_2",
        "content": "",
        "status": "error",
        "name": "test",
        "extras": {"anthropic": {"content": ""}},
    }
    assert messages[4]["status"] == "error"
    assert messages[5]["extras"] == {"anthropic": {"cache_control": {"type": "ephemeral"}}}
    assert messages[5]["content"][1] == {"type": "image", "base64": PNG, "mime_type": "image/png"}


def test_interleaved_calls_keep_their_position() -> None:
    assistant = neutral(WIRE["redacted-and-interleaved"])["messages"][1]
    assert assistant["content"] == [
        {"type": "reasoning", "encrypted_content": REDACTED, "provider": "anthropic"},
        {"type": "reasoning", "text": "", "signature": SIG, "provider": "anthropic"},
        {"type": "text", "text": "Plan made; now the weather."},
    ]
    assert [(c["id"], c["index"]) for c in assistant["tool_calls"]] == [
        ("toolu_x", 2),
        ("toolu_y", 4),
    ]
    # trailing calls need no index: the encoder puts calls last by default
    plain = neutral(WIRE["thinking-parallel-tools"])["messages"][2]
    assert all("index" not in call for call in plain["tool_calls"])


def test_server_blocks_and_citations_decode() -> None:
    content = neutral(WIRE["server-tools-and-citations"])["messages"][1]["content"]
    assert content[0] == {
        "type": "server_tool_call",
        "id": "srvtoolu_01WYG3",
        "name": "web_search",
        "arguments": {"query": "solar capacity 2024"},
    }
    assert content[1]["type"] == "server_tool_result"
    assert content[1]["status"] == "success"
    assert content[1]["extras"] == {"anthropic": {"type": "web_search_tool_result"}}
    assert content[1]["output"][0]["url"] == "https://example.com/solar"
    assert content[3]["annotations"] == [
        {
            "type": "citation",
            "url": "https://example.com/solar",
            "cited_text": "Installed capacity passed 1.5 TW in 2024.",
            "extras": {
                "anthropic": {
                    "type": "web_search_result_location",
                    "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
                }
            },
        }
    ]
    assert content[7]["status"] == "error"
    tools = neutral(WIRE["server-tools-and-citations"])["tools"]
    assert tools[0] == {
        "name": "web_search",
        "parameters": {},
        "provider": "anthropic",  # hosted: only sent to Anthropic
        "extras": {"anthropic": {"type": "web_search_20250305", "max_uses": 3}},
    }


def test_documents_decode() -> None:
    content = neutral(WIRE["document-citations"])["messages"][0]["content"]
    assert content[0] == {
        "type": "file",
        "base64": PDF,
        "mime_type": "application/pdf",
        "filename": "Q3 report",
        "cache_control": {"type": "ephemeral", "ttl": "5m"},
        "extras": {
            "anthropic": {"context": "Internal, confidential.", "citations": {"enabled": True}}
        },
    }
    assert content[1] == {
        "type": "text-plain",
        "text": "Grass is green.",
        "title": "Facts",
        "context": "From the wiki.",
        "extras": {"anthropic": {"citations": {"enabled": True}}},
    }
    assert content[2] == {"type": "file", "url": "https://example.com/paper.pdf"}
    assert content[3] == {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}
    assert content[4]["type"] == "non_standard"  # custom-content document
    assert content[5]["type"] == "non_standard"  # search_result
    citation = neutral(WIRE["document-citations"])["messages"][1]["content"][0]["annotations"][1]
    assert citation == {
        "type": "citation",
        "cited_text": "Grass is green.",
        "extras": {
            "anthropic": {
                "type": "char_location",
                "document_index": 1,
                "start_char_index": 0,
                "end_char_index": 15,
            }
        },
    }


def test_same_role_runs_are_marked() -> None:
    messages = neutral(WIRE["same-role-runs"])["messages"]
    assert [m.get("extras") for m in messages] == [
        None,
        {"anthropic": {"new_message": True}},
        None,
        None,
        {"anthropic": {"new_message": True}},
        None,
        {"anthropic": {"new_message": True}},
    ]


def test_mid_conversation_system_messages() -> None:
    messages = neutral(WIRE["mid-conversation-system"])["messages"]
    assert messages[0] == {"role": "system", "content": "Top-level instructions."}
    assert messages[1]["extras"] == {"anthropic": {"in_messages": True}}
    assert "extras" not in messages[4]  # not leading: stays in place anyway
    assert [m["role"] for m in messages] == [
        "system",
        "system",
        "user",
        "assistant",
        "system",
        "system",
        "user",
    ]


# ----------------------------------------------------------- neutral round trips
# Conversations the format can represent come back equal from
# decode_conversation(encode(x)).

NEUTRAL: dict[str, dict[str, Any]] = {
    "chat": {
        "messages": [
            {"role": "system", "content": "Be kind."},
            {"role": "user", "content": "Hi", "metadata": {"never": "sent"}, "id": "m1"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Bye"},
        ]
    },
    "tool-cycle": {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "Need a call.",
                        "signature": SIG,
                        "provider": "anthropic",
                    },
                    {"type": "text", "text": "Let me check."},
                ],
                "tool_calls": [
                    {"id": "toolu_1", "name": "get_weather", "arguments": {"city": "Paris"}}
                ],
            },
            {"role": "tool", "tool_call_id": "toolu_1", "name": "get_weather", "content": "18C"},
            {"role": "assistant", "content": "18C and sunny."},
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather.",
                "parameters": WEATHER_SCHEMA,
                "strict": True,
            }
        ],
        "tool_choice": {"type": "required", "parallel": False},
    },
    "errors-and-blocks": {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look", "cache_control": {"type": "ephemeral"}}
                ],
            },
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "a", "name": "shot", "arguments": {}},
                    {"id": "b", "name": "fail", "arguments": {"x": [1, 2, {"y": None}]}},
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "a",
                "name": "shot",
                "content": [
                    {"type": "image", "url": "https://example.com/s.png"},
                    {"type": "image", "file_id": "file_9"},
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "b",
                "name": "fail",
                "content": "crashed",
                "status": "error",
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "file",
                        "base64": PDF,
                        "mime_type": "application/pdf",
                        "filename": "a.pdf",
                    },
                    {"type": "text-plain", "text": "notes", "title": "Notes", "context": "ctx"},
                    {
                        "type": "image",
                        "base64": PNG,
                        "mime_type": "image/png",
                        "cache_control": {"type": "ephemeral", "ttl": "1h"},
                    },
                    {
                        "type": "non_standard",
                        "value": {
                            "type": "search_result",
                            "source": "s",
                            "title": "t",
                            "content": [{"type": "text", "text": "x"}],
                        },
                    },
                ],
            },
        ],
        "tool_choice": {"type": "tool", "name": "shot"},
        "tools": [
            {"name": "shot", "parameters": {"type": "object"}},
            {
                "name": "fail",
                "parameters": {"type": "object"},
                "extras": {"anthropic": {"cache_control": {"type": "ephemeral"}}},
            },
        ],
    },
    "server-and-citations": {
        "messages": [
            {"role": "user", "content": "Search."},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "server_tool_call",
                        "id": "srvtoolu_1",
                        "name": "web_search",
                        "arguments": {"query": "q"},
                    },
                    {
                        "type": "server_tool_result",
                        "tool_call_id": "srvtoolu_1",
                        "status": "success",
                        "output": [
                            {
                                "type": "web_search_result",
                                "url": "https://e.com",
                                "title": "E",
                                "encrypted_content": "xyz",
                            }
                        ],
                        "extras": {"anthropic": {"type": "web_search_tool_result"}},
                    },
                    {
                        "type": "text",
                        "text": "Found it.",
                        "annotations": [
                            {
                                "type": "citation",
                                "url": "https://e.com",
                                "title": "E",
                                "cited_text": "it",
                                "extras": {
                                    "anthropic": {
                                        "type": "web_search_result_location",
                                        "encrypted_index": "ei",
                                    }
                                },
                            }
                        ],
                    },
                    {"type": "reasoning", "encrypted_content": REDACTED, "provider": "anthropic"},
                    {
                        "type": "non_standard",
                        "value": {"type": "container_upload", "file_id": "file_1"},
                    },
                ],
            },
            {"role": "system", "content": "Mid-conversation note."},
            {"role": "user", "content": "ok"},
        ],
        "tools": [
            {
                "name": "web_search",
                "parameters": {},
                "provider": "anthropic",
                "extras": {"anthropic": {"type": "web_search_20250305"}},
            }
        ],
        "tool_choice": {"type": "auto", "parallel": True},
    },
    "interleaved-and-runs": {
        "messages": [
            {"role": "user", "content": "a"},
            {"role": "user", "content": "b", "extras": {"anthropic": {"new_message": True}}},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "between"}],
                "tool_calls": [
                    {"id": "t1", "name": "f", "arguments": {}, "index": 0},
                    {"id": "t2", "name": "f", "arguments": {}, "index": 2},
                ],
            },
            {"role": "tool", "tool_call_id": "t1", "name": "f", "content": "1"},
            {
                "role": "tool",
                "tool_call_id": "t2",
                "name": "f",
                "content": "2",
                "extras": {"anthropic": {"toolset_name": "kit"}},
            },
            {"role": "system", "content": "note"},
        ],
        "tool_choice": {"type": "none"},
    },
}


@pytest.mark.parametrize("name", list(NEUTRAL))
def test_neutral_round_trip(name: str) -> None:
    original = Conversation.model_validate(NEUTRAL[name])
    before = to_dict(original)
    payload = enc(original)
    assert to_dict(original) == before  # encoding does not touch its input
    expected = copy.deepcopy(NEUTRAL[name])
    for message in expected["messages"]:  # never sent
        message.pop("metadata", None)
        message.pop("id", None)
    assert neutral(payload) == expected


def test_neutral_tool_cycle_wire_shape() -> None:
    payload = enc(NEUTRAL["tool-cycle"])
    assert payload == {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Need a call.", "signature": SIG},
                    {"type": "text", "text": "Let me check."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"}],
            },
            {"role": "assistant", "content": "18C and sunny."},
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather.",
                "input_schema": WEATHER_SCHEMA,
                "strict": True,
            }
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
    }


# ------------------------------------------------------------------- encode rules


def test_tool_results_go_first_and_turns_merge() -> None:
    """LangChain puts user text before the results; the API wants them first."""
    payload = enc(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "name": "f", "arguments": {}}]},
            {"role": "assistant", "tool_calls": [{"id": "c2", "name": "g", "arguments": {"a": 1}}]},
            {"role": "user", "content": "interrupting"},
            {"role": "tool", "tool_call_id": "c2", "content": "two"},
            {"role": "tool", "tool_call_id": "c1", "content": "one"},
            {"role": "user", "content": "more"},
        ]
    )
    assert payload["messages"] == [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
                {"type": "tool_use", "id": "c2", "name": "g", "input": {"a": 1}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c2", "content": "two"},
                {"type": "tool_result", "tool_use_id": "c1", "content": "one"},
                {"type": "text", "text": "interrupting"},
                {"type": "text", "text": "more"},
            ],
        },
    ]


def test_system_messages_placement() -> None:
    payload = enc(
        [
            {"role": "system", "content": "A"},
            {
                "role": "system",
                "content": [{"type": "text", "text": "B", "cache_control": {"type": "ephemeral"}}],
            },
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "C"},
            {"role": "user", "content": "again"},
        ]
    )
    assert payload == {
        "system": [
            {"type": "text", "text": "A"},
            {"type": "text", "text": "B", "cache_control": {"type": "ephemeral"}},
        ],
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "C"},
            {"role": "user", "content": "again"},
        ],
    }
    assert "system" not in enc(
        [{"role": "system", "content": " "}, {"role": "user", "content": "x"}]
    )


def test_blank_text_blocks_are_left_out() -> None:
    payload = enc(
        [
            {
                "role": "system",
                "content": [{"type": "text", "text": ""}, {"type": "text", "text": "S"}],
            },
            {
                "role": "user",
                "content": [{"type": "text", "text": "  \n"}, {"type": "text", "text": "q"}],
            },
            {
                "role": "assistant",
                "content": [{"type": "text", "text": ""}],
                "tool_calls": [{"id": "t", "name": "f", "arguments": {}}],
            },
            {"role": "tool", "tool_call_id": "t", "content": [{"type": "text", "text": ""}]},
        ]
    )
    assert payload["system"] == [{"type": "text", "text": "S"}]
    assert payload["messages"][0]["content"] == [{"type": "text", "text": "q"}]
    assert payload["messages"][1]["content"] == [
        {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    ]
    assert payload["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t", "content": []}
    ]


def test_interleave_positions_past_the_end_and_unindexed() -> None:
    payload = enc(
        [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                "tool_calls": [
                    {"id": "late", "name": "f", "arguments": {}, "index": 9},
                    {"id": "tail", "name": "f", "arguments": {}},
                    {"id": "first", "name": "f", "arguments": {}, "index": 0},
                ],
            },
            {"role": "tool", "tool_call_id": "late", "content": "1"},
            {"role": "tool", "tool_call_id": "tail", "content": "2"},
            {"role": "tool", "tool_call_id": "first", "content": "3"},
        ]
    )
    order = [b.get("id", b.get("text")) for b in payload["messages"][1]["content"]]
    assert order == ["first", "a", "b", "late", "tail"]


FOREIGN_IDS = ["functions.write_todos:0", "call 1/2", "functions.write_todos;0"]


def test_tool_ids_are_normalized_on_call_and_result() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    messages.append(
        {
            "role": "assistant",
            "tool_calls": [{"id": i, "name": "write_todos", "arguments": {}} for i in FOREIGN_IDS],
        }
    )
    messages += [
        {"role": "tool", "tool_call_id": i, "content": "ok"} for i in reversed(FOREIGN_IDS)
    ]
    payload = enc(messages)
    calls = [b["id"] for b in payload["messages"][1]["content"]]
    results = [b["tool_use_id"] for b in payload["messages"][2]["content"]]
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]+", i) for i in calls)
    assert len(set(calls)) == 3  # ':' and ';' both map to '_' but stay distinct
    assert results == list(reversed(calls))
    assert calls[0].startswith("functions_write_todos_0_")
    assert enc(messages) == payload  # deterministic
    # decoding gives back the wire ids
    assert [c.id for c in codec.decode_messages(payload)[1].tool_calls] == calls  # type: ignore[union-attr]


def test_tool_id_normalization_avoids_clashes() -> None:
    import hashlib

    bad = "a.b"
    clash = f"a_b_{hashlib.sha256(bad.encode()).hexdigest()[:8]}"  # what 'a.b' would become
    payload = enc(
        [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": clash, "name": "f", "arguments": {}},
                    {"id": bad, "name": "f", "arguments": {}},
                ],
            },
            {"role": "tool", "tool_call_id": bad, "content": "x"},
            {"role": "tool", "tool_call_id": clash, "content": "y"},
        ]
    )
    first, second = (b["id"] for b in payload["messages"][1]["content"])
    assert first == clash and second != clash and re.fullmatch(r"[a-zA-Z0-9_-]+", second)
    assert payload["messages"][2]["content"][0]["tool_use_id"] == second


def test_data_url_image_becomes_base64_source() -> None:
    payload = enc(
        [{"role": "user", "content": [{"type": "image", "url": f"data:image/png;base64,{PNG}"}]}]
    )
    assert payload["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    ]


def test_refusal_is_sent_as_text_and_foreign_citations_are_left_out() -> None:
    payload = enc(
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [
                    RefusalBlock(text="I can't help with that."),
                    TextBlock(
                        text="Cited",
                        annotations=[
                            Citation(url="https://openai.example/x", title="X"),
                            NonStandardAnnotation(value={"type": "file_path", "file_id": "f"}),
                            # Anthropic data, but no cited text: every kind needs it
                            Citation(
                                title="Q3",
                                extras={
                                    "anthropic": {
                                        "type": "page_location",
                                        "document_index": 0,
                                        "start_page_number": 3,
                                        "end_page_number": 4,
                                    }
                                },
                            ),
                        ],
                    ),
                ],
            },
            {"role": "user", "content": "ok"},
        ]
    )
    assert payload["messages"][1]["content"] == [
        {"type": "text", "text": "I can't help with that."},
        {"type": "text", "text": "Cited"},
    ]


REASONING_CASES = [
    (
        "replay",
        [
            {"type": "thinking", "thinking": "mine", "signature": SIG},
            {"type": "text", "text": "answer"},
        ],
    ),
    (
        "text",
        [
            {"type": "thinking", "thinking": "mine", "signature": SIG},
            {"type": "text", "text": "theirs"},
            {"type": "text", "text": "s1\ns2"},
            {"type": "text", "text": "answer"},
        ],
    ),
    ("drop", [{"type": "text", "text": "answer"}]),
]


@pytest.mark.parametrize(("policy", "expected"), REASONING_CASES)
def test_reasoning_policy(policy: str, expected: list[dict[str, Any]]) -> None:
    conversation = [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                ReasoningBlock(text="mine", signature=SIG, provider="anthropic"),
                ReasoningBlock(
                    text="theirs", encrypted_content="gAAAA", provider="openai_responses"
                ),
                ReasoningBlock(summary=["s1", "s2"], provider="openai_responses"),
                TextBlock(text="answer"),
            ]
        ),
        UserMessage(content="next"),
    ]
    assert enc(conversation, reasoning=policy)["messages"][1]["content"] == expected


def test_anthropic_reasoning_without_signature_is_unsupported() -> None:
    conversation = [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                ReasoningBlock(text="lost its signature", provider="anthropic"),
                TextBlock(text="a"),
            ]
        ),
    ]
    with pytest.raises(UnsupportedContentError) as caught:
        enc(conversation)
    assert (caught.value.message_index, caught.value.block_index) == (1, 0)
    assert enc(conversation, unsupported="drop")["messages"][1]["content"] == [
        {"type": "text", "text": "a"}
    ]


def test_anthropic_reasoning_without_signature_is_text_under_reasoning_text() -> None:
    conversation = [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                ReasoningBlock(text="signed", signature=SIG, provider="anthropic"),
                ReasoningBlock(text="lost its signature", provider="anthropic"),
                ReasoningBlock(summary=["no text"], provider="anthropic"),
                TextBlock(text="a"),
            ]
        ),
        UserMessage(content="next"),
    ]
    # like foreign reasoning: its text (or summary) as text; signed thinking is replayed
    assert enc(conversation, reasoning="text")["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "signed", "signature": SIG},
        {"type": "text", "text": "lost its signature"},
        {"type": "text", "text": "no text"},
        {"type": "text", "text": "a"},
    ]
    assert codec.check(conversation, reasoning="text") == []
    with pytest.raises(UnsupportedContentError) as caught:  # replay: the API rejects it
        enc(conversation)
    assert (caught.value.message_index, caught.value.block_index) == (1, 1)
    assert enc(conversation, reasoning="drop")["messages"][1]["content"] == [
        {"type": "text", "text": "a"}
    ]


AUDIO = AudioBlock(base64="UklGR", mime_type="audio/wav")
INVALID_ONLY = AssistantMessage(
    invalid_tool_calls=[InvalidToolCall(id="c", name="f", arguments="{", error="bad")]
)


@pytest.mark.parametrize(
    ("history", "dropped"),
    [
        (  # a first user turn of only audio: the request starts with the assistant
            [
                UserMessage(content=[AUDIO]),
                AssistantMessage(content="ok"),
                UserMessage(content="x"),
            ],
            [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "x"}],
        ),
        (  # an assistant turn of only an invalid call: the user turns around it merge
            [UserMessage(content="q"), INVALID_ONLY, UserMessage(content="x")],
            [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "q"}, {"type": "text", "text": "x"}],
                }
            ],
        ),
        (  # the tool results stay first in the merged turn
            [
                UserMessage(content="q"),
                AssistantMessage(tool_calls=[ToolCall(id="c1", name="f", arguments={})]),
                ToolMessage(tool_call_id="c1", content="r"),
                AssistantMessage(content=[AUDIO]),
                UserMessage(content="x", extras={"anthropic": {"new_message": True}}),
            ],
            [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "c1", "content": "r"},
                        {"type": "text", "text": "x"},
                    ],
                },
            ],
        ),
        (  # a mid-conversation system message of only audio; a final emptied turn
            [
                UserMessage(content="q"),
                SystemMessage(content=[AUDIO]),
                UserMessage(content="x"),
                AssistantMessage(content=[AUDIO]),
            ],
            [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "q"}, {"type": "text", "text": "x"}],
                }
            ],
        ),
    ],
    ids=["first-user", "assistant-invalid-call", "after-tool-results", "system-and-final"],
)
def test_a_turn_emptied_by_drops_is_not_sent(
    history: list[Any], dropped: list[dict[str, Any]]
) -> None:
    assert codec.check(history, unsupported="drop") == []
    assert enc(history, unsupported="drop")["messages"] == dropped
    for message in enc(history, unsupported="drop", content_format="string")["messages"]:
        assert message["content"]
    # with placeholders the placeholder text keeps every turn
    placeheld = enc(history, unsupported="placeholder")["messages"]
    assert all(message["content"] for message in placeheld)
    assert len(placeheld) > len(dropped)


def test_hosted_tools_of_other_formats_and_the_tool_choice() -> None:
    hosted = ToolDefinition(
        name="web_search",
        parameters={},
        provider="openai_responses",
        extras={"openai_responses": {"tool": {"type": "web_search"}}},
    )
    conversation = Conversation(
        messages=[UserMessage(content="news?")],
        tools=[hosted, ToolDefinition(name="get_weather", parameters=WEATHER_SCHEMA)],
        tool_choice=NamedToolChoice(name="web_search"),
    )
    assert [(p.pointer, p.keyword) for p in codec.check(conversation)] == [
        ("/tools/0", "unsupported_content"),
        ("/tool_choice/name", "unknown_tool"),  # the tool it names is not sent
    ]
    with pytest.raises(ConversionError):
        enc(conversation, unsupported="drop")
    choice = conversation.model_copy(update={"tool_choice": RequiredToolChoice()})
    assert enc(choice, unsupported="drop")["tools"] == [
        {"name": "get_weather", "input_schema": WEATHER_SCHEMA}
    ]


def test_a_tool_result_emptied_by_drops_has_no_content() -> None:
    history = [
        UserMessage(content="q"),
        AssistantMessage(tool_calls=[ToolCall(id="c1", name="f", arguments={})]),
        ToolMessage(tool_call_id="c1", content=[AUDIO]),
    ]
    assert enc(history, unsupported="drop")["messages"][2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "c1"}],
    }


UNSUPPORTED = [
    ("audio", UserMessage(content=[AudioBlock(base64="UklGR", mime_type="audio/wav")]), 0),
    ("video", UserMessage(content=[TextBlock(text="t"), VideoBlock(url="https://e.com/v.mp4")]), 1),
    ("csv", UserMessage(content=[FileBlock(base64="YSxi", mime_type="text/csv")]), 0),
    (
        "docx-url",
        UserMessage(
            content=[FileBlock(url="https://e.com/a.docx", mime_type="application/msword")]
        ),
        0,
    ),
    ("text-by-url", UserMessage(content=[PlainTextBlock(url="https://e.com/a.txt")]), 0),
    ("reasoning-in-user", UserMessage(content=[ReasoningBlock(text="x", provider="anthropic")]), 0),
    (
        "typeless-non-standard",
        UserMessage(content=[NonStandardBlock(value={"executableCode": {"code": "1"}})]),
        0,
    ),
    ("image-in-system", SystemMessage(content=[ImageBlock(url="https://e.com/a.png")]), 0),
]


@pytest.mark.parametrize(("what", "message", "block"), UNSUPPORTED, ids=[c[0] for c in UNSUPPORTED])
def test_unsupported_content_policies(what: str, message: Any, block: int) -> None:
    conversation = (
        [UserMessage(content="first"), message]
        if not isinstance(message, SystemMessage)
        else [
            UserMessage(content="first"),
            message,
            UserMessage(content="after"),
        ]
    )
    with pytest.raises(UnsupportedContentError) as caught:
        enc(conversation)
    assert caught.value.provider == "anthropic"
    assert (caught.value.message_index, caught.value.block_index) == (1, block)
    dropped = enc(conversation, unsupported="drop")
    placeholder = enc(conversation, unsupported="placeholder")
    assert json.dumps(dropped).count("omitted: not supported by anthropic") == 0
    assert json.dumps(placeholder).count("omitted: not supported by anthropic") == 1


def test_foreign_server_tool_blocks_are_unsupported() -> None:
    conversation = [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                ServerToolCallBlock(id="ws_1", name="web_search_preview", arguments={}),
                ServerToolResultBlock(tool_call_id="ws_1", output={"ok": True}),
                TextBlock(text="a"),
            ]
        ),
    ]
    with pytest.raises(UnsupportedContentError) as caught:
        enc(conversation)
    assert caught.value.block_index == 0
    assert enc(conversation, unsupported="drop")["messages"][1]["content"] == [
        {"type": "text", "text": "a"}
    ]


def test_invalid_tool_calls_are_unsupported() -> None:
    conversation = [
        UserMessage(content="q"),
        AssistantMessage(
            content="a", invalid_tool_calls=[{"id": "x", "name": "f", "arguments": "{bad"}]
        ),
    ]
    with pytest.raises(UnsupportedContentError) as caught:
        enc(conversation)
    assert (caught.value.message_index, caught.value.block_index) == (1, None)
    assert enc(conversation, unsupported="placeholder")["messages"][1]["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "[invalid tool call omitted: not supported by anthropic]"},
    ]


# ----------------------------------------------------------------------- options


CACHED = [
    SystemMessage(content=[TextBlock(text="sys", cache_control=CacheControl(type="ephemeral"))]),
    UserMessage(content="q"),
    AssistantMessage(
        tool_calls=[
            ToolCall(
                id="t",
                name="f",
                arguments={},
                extras={"anthropic": {"cache_control": {"type": "ephemeral"}}},
            )
        ]
    ),
    ToolMessage(
        tool_call_id="t",
        content="r",
        extras={"anthropic": {"cache_control": {"type": "ephemeral"}}},
    ),
    UserMessage(
        content=[
            NonStandardBlock(
                value={
                    "type": "search_result",
                    "source": "s",
                    "title": "t",
                    "content": [],
                    "cache_control": {"type": "ephemeral"},
                }
            )
        ]
    ),
]


def test_prompt_cache_off_sends_no_markers() -> None:
    conversation = Conversation(
        messages=CACHED,
        tools=[
            ToolDefinition(
                name="f",
                parameters={},
                extras={"anthropic": {"cache_control": {"type": "ephemeral"}}},
            )
        ],
    )
    on = enc(conversation, check=False)  # 5 breakpoints: one too many for the API
    off = enc(conversation, prompt_cache=False)
    assert json.dumps(on).count("cache_control") == 5
    assert "cache_control" not in json.dumps(off)
    assert off["tools"] == [{"name": "f", "input_schema": {}}]


def test_content_format_string() -> None:
    conversation = Conversation(
        messages=[
            SystemMessage(content=[TextBlock(text="a"), TextBlock(text="b")]),
            UserMessage(
                content=[
                    TextBlock(text="x"),
                    TextBlock(text="y", cache_control=CacheControl(type="ephemeral")),
                ]
            ),
            AssistantMessage(
                content=[TextBlock(text="calling")],
                tool_calls=[ToolCall(id="t", name="f", arguments={}, index=0)],
            ),
            ToolMessage(tool_call_id="t", content=[TextBlock(text="r1"), TextBlock(text="r2")]),
            UserMessage(content="then"),
            AssistantMessage(content=[TextBlock(text="p"), TextBlock(text="q")]),
        ]
    )
    assert enc(conversation, content_format="string") == {
        "system": "a\nb",
        "messages": [
            {"role": "user", "content": "x\ny"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "calling"},
                    {"type": "tool_use", "id": "t", "name": "f", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": "r1\nr2"},
                    {"type": "text", "text": "then"},
                ],
            },
            {"role": "assistant", "content": "p\nq"},
        ],
    }
    with pytest.raises(UnsupportedContentError) as caught:
        enc(
            [UserMessage(content=[TextBlock(text="a"), ImageBlock(url="https://e.com/i.png")])],
            content_format="string",
        )
    assert caught.value.block_index == 1


def test_content_format_parts() -> None:
    conversation = [
        SystemMessage(content="sys"),
        UserMessage(content="hi"),
        AssistantMessage(content="yo", tool_calls=[ToolCall(id="t", name="f", arguments={})]),
        ToolMessage(tool_call_id="t", content="r"),
    ]
    assert enc(conversation, content_format="parts") == {
        "system": [{"type": "text", "text": "sys"}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "yo"},
                    {"type": "tool_use", "id": "t", "name": "f", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t",
                        "content": [{"type": "text", "text": "r"}],
                    }
                ],
            },
        ],
    }


def test_native_tools_off_renders_text() -> None:
    conversation = Conversation(
        messages=[
            SystemMessage(content="sys"),
            UserMessage(content="weather?"),
            AssistantMessage(
                content="checking",
                tool_calls=[ToolCall(id="c1", name="get_weather", arguments={"city": "Oslo"})],
            ),
            ToolMessage(
                tool_call_id="c1",
                name="get_weather",
                content=[TextBlock(text="4C"), ImageBlock(url="https://e.com/map.png")],
            ),
        ],
        tools=[
            ToolDefinition(name="get_weather", description="Weather.", parameters=WEATHER_SCHEMA)
        ],
        tool_choice={"type": "required"},
    )
    payload = enc(conversation, native_tools=False)
    assert set(payload) == {"system", "messages"}
    assert payload["system"].startswith("sys\n\nYou can call these tools.")
    assert "- get_weather: Weather." in payload["system"]
    assert payload["messages"][1]["content"] == [
        {"type": "text", "text": "checking"},
        {
            "type": "text",
            "text": '<tool_call id="c1" name="get_weather">{"city": "Oslo"}</tool_call>',
        },
    ]
    assert payload["messages"][2]["content"] == [
        {
            "type": "text",
            "text": '<tool_result id="c1" name="get_weather" status="success">4C</tool_result>',
        },
        {"type": "image", "source": {"type": "url", "url": "https://e.com/map.png"}},
    ]
    # unpaired calls are no problem without native tools
    assert enc(
        [
            UserMessage(content="q"),
            AssistantMessage(tool_calls=[ToolCall(id="x", name="f", arguments={})]),
        ],
        native_tools=False,
    )


def test_vision_off() -> None:
    conversation = [
        UserMessage(content=[TextBlock(text="see"), ImageBlock(url="https://e.com/a.png")])
    ]
    with pytest.raises(ConversionError) as caught:
        enc(conversation, vision=False)
    assert [p.keyword for p in caught.value.problems] == ["unsupported_content"]
    assert caught.value.problems[0].pointer == "/messages/0/content/1"
    assert enc(conversation, vision=False, unsupported="drop")["messages"][0]["content"] == [
        {"type": "text", "text": "see"}
    ]
    with pytest.raises(UnsupportedContentError):
        enc(conversation, vision=False, check=False)


def test_options_are_validated_and_irrelevant_ones_ignored() -> None:
    with pytest.raises(OptionError):
        codec.encode([UserMessage(content="x")], colour="red")  # type: ignore[call-arg]
    with pytest.raises(OptionError):
        codec.encode([UserMessage(content="x")], content_format="xml")  # type: ignore[typeddict-item]
    base = enc([UserMessage(content="x")])
    assert enc([UserMessage(content="x")], system_role="developer", reasoning_content=True) == base


def test_named_codec_and_convert() -> None:
    assert get_codec("anthropic") is codec
    payload = WIRE["thinking-parallel-tools"]
    assert convert(payload, source="anthropic", target="anthropic") == payload
    assert convert(payload, source="anthropic", target="neutral") == neutral(payload)


# ------------------------------------------------------------------------- check


def problems_of(messages: Any, **options: Any) -> list[tuple[str, str]]:
    return [(p.pointer, p.keyword) for p in codec.check(messages, **options)]


CHECKS: list[tuple[str, Any, dict[str, Any], list[tuple[str, str]]]] = [
    (
        "unanswered-call",
        [
            UserMessage(content="q"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            UserMessage(content="?"),
        ],
        {},
        [("/messages/1/tool_calls/0/id", "unanswered_tool_call")],
    ),
    (
        "call-at-end",
        [
            UserMessage(content="q"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
        ],
        {},
        [("/messages/1/tool_calls/0/id", "unanswered_tool_call")],
    ),
    (
        "orphan-and-duplicate",
        [
            UserMessage(content="q"),
            AssistantMessage(
                tool_calls=[
                    ToolCall(id="a", name="f", arguments={}),
                    ToolCall(id="a", name="f", arguments={}),
                ]
            ),
            ToolMessage(tool_call_id="a", content="1"),
            ToolMessage(tool_call_id="zzz", content="2"),
        ],
        {},
        [
            ("/messages/1/tool_calls/1/id", "duplicate_tool_call_id"),
            ("/messages/3/tool_call_id", "orphan_tool_result"),
        ],
    ),
    (
        "result-after-system-message",
        [
            UserMessage(content="q"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            SystemMessage(content="note"),
            ToolMessage(tool_call_id="a", content="1"),
        ],
        {},
        [
            ("/messages/1/tool_calls/0/id", "unanswered_tool_call"),
            ("/messages/3/tool_call_id", "orphan_tool_result"),
        ],
    ),
    (
        "result-in-a-later-user-message",
        [
            UserMessage(content="q"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            UserMessage(content="wait"),
            ToolMessage(tool_call_id="a", content="1", extras={"anthropic": {"new_message": True}}),
        ],
        {},
        [
            ("/messages/1/tool_calls/0/id", "unanswered_tool_call"),
            ("/messages/3/tool_call_id", "orphan_tool_result"),
        ],
    ),
    (
        "split-assistant-turn-is-fine",
        [
            UserMessage(content="q"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            AssistantMessage(tool_calls=[ToolCall(id="b", name="f", arguments={})]),
            UserMessage(content="text first is fine"),
            ToolMessage(tool_call_id="b", content="1"),
            ToolMessage(tool_call_id="a", content="2"),
        ],
        {},
        [],
    ),
    (
        "empty-messages",
        [
            UserMessage(content=""),
            AssistantMessage(content=[TextBlock(text=" ")]),
            UserMessage(content="x"),
            AssistantMessage(),
        ],
        {},
        [("/messages/0/content", "empty_content"), ("/messages/1/content", "empty_content")],
    ),
    (
        "only-foreign-reasoning-is-empty",
        [
            UserMessage(content="q"),
            AssistantMessage(content=[ReasoningBlock(text="r", provider="gemini")]),
            UserMessage(content="x"),
        ],
        {},
        [("/messages/1/content", "empty_content")],
    ),
    (
        "image-limits",
        [
            UserMessage(
                content=[
                    ImageBlock(base64="A" * (5 * 1024 * 1024 + 4), mime_type="image/png"),
                    ImageBlock(base64=PNG, mime_type="image/bmp"),
                    ImageBlock(url="data:image/tiff;base64,AAAA"),
                ]
            )
        ],
        {},
        [
            ("/messages/0/content/0", "image_too_large"),
            ("/messages/0/content/1", "image_media_type"),
            ("/messages/0/content/2", "image_media_type"),
        ],
    ),
    (
        "too-many-images",
        [UserMessage(content=[ImageBlock(url=f"https://e.com/{i}.png") for i in range(101)])],
        {},
        [("/messages/0/content/100", "too_many_images")],
    ),
    (
        "too-many-images-vision-off-drop",
        [
            UserMessage(
                content=[
                    TextBlock(text="x"),
                    *(ImageBlock(url=f"https://e.com/{i}.png") for i in range(101)),
                ]
            )
        ],
        {"vision": False, "unsupported": "drop"},
        [],
    ),
    (
        "request-too-large",
        [
            UserMessage(
                content=[FileBlock(base64="A" * (33 * 1024 * 1024), mime_type="application/pdf")]
            )
        ],
        {},
        [("/messages", "request_too_large")],
    ),
    (
        "cache-breakpoints",
        [
            *CACHED,
            UserMessage(
                content=[
                    TextBlock(text="x", cache_control=CacheControl(type="ephemeral", ttl="10m"))
                ]
            ),
        ],
        {},
        [
            ("/messages/5/content/0/cache_control", "cache_ttl"),
            ("/messages/5/content/0/cache_control", "too_many_cache_breakpoints"),
        ],
    ),
    (
        "cache-off-counts-nothing",
        [
            *CACHED,
            UserMessage(
                content=[
                    TextBlock(text="x", cache_control=CacheControl(type="ephemeral", ttl="10m"))
                ]
            ),
        ],
        {"prompt_cache": False},
        [],
    ),
    (
        "named-choice-unknown",
        Conversation(
            messages=[UserMessage(content="q")],
            tools=[ToolDefinition(name="f", parameters={})],
            tool_choice={"type": "tool", "name": "g"},
        ),
        {},
        [("/tool_choice/name", "unknown_tool")],
    ),
]


@pytest.mark.parametrize(
    ("name", "messages", "options", "expected"), CHECKS, ids=[c[0] for c in CHECKS]
)
def test_check(
    name: str, messages: Any, options: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert problems_of(messages, **options) == expected
    if expected:
        with pytest.raises(ConversionError) as caught:
            codec.encode(messages, **options)
        assert [(p.pointer, p.keyword) for p in caught.value.problems] == expected
        assert caught.value.reason.startswith(f"{len(expected)} ")
        first = next(
            (int(p.split("/")[2]) for p, _ in expected if p.startswith("/messages/")), None
        )
        assert caught.value.message_index == first
        assert not isinstance(caught.value, UnsupportedContentError)
    else:
        enc(messages, **options)


def test_check_false_skips_check() -> None:
    payload = enc(
        [
            UserMessage(content="q"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
        ],
        check=False,
    )
    assert payload["messages"][1]["content"][0]["id"] == "a"


def test_check_tools_cache_pointer() -> None:
    conversation = Conversation(
        messages=[
            UserMessage(
                content=[
                    TextBlock(text=str(i), cache_control=CacheControl(type="ephemeral"))
                    for i in range(4)
                ]
            )
        ],
        tools=[
            ToolDefinition(
                name="f",
                parameters={},
                extras={"anthropic": {"cache_control": {"type": "ephemeral"}}},
            )
        ],
    )
    assert problems_of(conversation) == [
        ("/messages/0/content/3/cache_control", "too_many_cache_breakpoints")
    ]


# ------------------------------------------------------------------ decode_response

RESPONSE: dict[str, Any] = {
    "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [
        {"type": "thinking", "thinking": "Search first.", "signature": SIG},
        {"type": "redacted_thinking", "data": REDACTED},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "oslo weather"},
            "caller": {"type": "direct"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "caller": {"type": "direct"},
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://yr.no",
                    "title": "Yr",
                    "encrypted_content": "Eq==",
                    "page_age": None,
                }
            ],
        },
        {
            "type": "text",
            "text": "It is 4C.",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "cited_text": "4 degrees",
                    "encrypted_index": "Eo8=",
                    "title": None,
                    "url": "https://yr.no",
                }
            ],
        },
        {"type": "text", "text": "Checking the forecast too.", "citations": None},
        {
            "type": "tool_use",
            "id": "toolu_01",
            "name": "forecast",
            "input": {"city": "Oslo", "days": 3},
            "caller": None,
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "stop_details": None,
    "container": None,
    "usage": {
        "input_tokens": 100,
        "output_tokens": 50,
        "cache_creation_input_tokens": 2000,
        "cache_read_input_tokens": 300,
        "cache_creation": {"ephemeral_5m_input_tokens": 1500, "ephemeral_1h_input_tokens": 500},
        "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
        "output_tokens_details": {"thinking_tokens": 20},
        "service_tier": "standard",
        "inference_geo": None,
    },
}

EXPECTED_TURN = {
    "role": "assistant",
    "content": [
        {"type": "thinking", "thinking": "Search first.", "signature": SIG},
        {"type": "redacted_thinking", "data": REDACTED},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "oslo weather"},
            "caller": {"type": "direct"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "caller": {"type": "direct"},
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://yr.no",
                    "title": "Yr",
                    "encrypted_content": "Eq==",
                    "page_age": None,
                }
            ],
        },
        {
            "type": "text",
            "text": "It is 4C.",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "cited_text": "4 degrees",
                    "encrypted_index": "Eo8=",
                    "title": None,
                    "url": "https://yr.no",
                }
            ],
        },
        {"type": "text", "text": "Checking the forecast too."},
        {
            "type": "tool_use",
            "id": "toolu_01",
            "name": "forecast",
            "input": {"city": "Oslo", "days": 3},
        },
    ],
}


@pytest.mark.parametrize("form", ["dict", "sdk", "json", "sdk-constructed"])
def test_decode_response(form: str) -> None:
    payload: Any = {
        "dict": RESPONSE,
        "sdk": SDKMessage.model_validate(RESPONSE),
        "json": json.dumps(RESPONSE),
        "sdk-constructed": SDKMessage.construct(**RESPONSE),
    }[form]
    before = copy.deepcopy(RESPONSE)
    message = codec.decode_response(payload)
    assert before == RESPONSE
    data = to_dict(message)
    assert data["provider"] == "anthropic"
    assert data["model"] == "claude-sonnet-4-5-20250929"
    assert data["response_id"] == "msg_01XFDUDYJgAACzvnptvVoYEL"
    assert (data["finish_reason"], data["raw_finish_reason"]) == ("tool_calls", "tool_use")
    assert data["usage"] == {
        "input_tokens": 2400,
        "output_tokens": 50,
        "total_tokens": 2450,
        "input_token_details": {
            "cache_creation": 2000,
            "cache_read": 300,
            "ephemeral_5m_input_tokens": 1500,
            "ephemeral_1h_input_tokens": 500,
        },
        "output_token_details": {"reasoning": 20},
    }
    assert data["response_metadata"] == {
        "anthropic": {
            "stop_sequence": None,
            "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
            "service_tier": "standard",
        }
    }
    # blocks stay in order without an index (as a streamed reply assembles); calls keep theirs
    assert [b.get("index") for b in data["content"]] == [None] * 6
    assert data["tool_calls"] == [
        {"id": "toolu_01", "name": "forecast", "arguments": {"city": "Oslo", "days": 3}, "index": 6}
    ]
    assert data["content"][0] == {
        "type": "reasoning",
        "text": "Search first.",
        "signature": SIG,
        "provider": "anthropic",
    }
    # appended to the history, it re-encodes to exactly the turn the API expects
    history = [
        UserMessage(content="Weather in Oslo?"),
        message,
        ToolMessage(tool_call_id="toolu_01", content="sunny"),
    ]
    payload_out = enc(history)
    assert payload_out["messages"][1] == EXPECTED_TURN


STOP_REASONS = [
    ("end_turn", "stop"),
    ("stop_sequence", "stop"),
    ("max_tokens", "length"),
    ("model_context_window_exceeded", "length"),
    ("tool_use", "tool_calls"),
    ("pause_turn", "paused"),
    ("refusal", "content_filter"),
    ("something_new", "other"),
]


@pytest.mark.parametrize(("raw", "finish"), STOP_REASONS)
def test_stop_reasons(raw: str, finish: str) -> None:
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": raw,
        "stop_sequence": "###" if raw == "stop_sequence" else None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }
    if raw == "refusal":
        response["stop_details"] = {"type": "refusal", "category": "cyber", "explanation": "no"}
    message = codec.decode_response(response)
    assert (message.finish_reason, message.raw_finish_reason) == (finish, raw)
    metadata = (message.response_metadata or {})["anthropic"]
    assert metadata["stop_sequence"] == ("###" if raw == "stop_sequence" else None)
    if raw == "refusal":
        assert metadata["stop_details"] == {
            "type": "refusal",
            "category": "cyber",
            "explanation": "no",
        }
    assert message.usage is not None and message.usage.input_token_details is None
    if raw != "something_new":
        sdk = codec.decode_response(SDKMessage.model_validate(response))
        assert to_dict(sdk) == to_dict(message)


def test_decode_response_minimal_and_container() -> None:
    response = {
        "id": "msg_2",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "container": {"id": "container_1", "expires_at": "2026-01-01T00:00:00Z"},
        "usage": {"input_tokens": 3, "output_tokens": 0, "cache_read_input_tokens": 0},
    }
    message = codec.decode_response(response)
    assert to_dict(message) == {
        "role": "assistant",
        "content": [],
        "provider": "anthropic",
        "response_id": "msg_2",
        "model": "claude-x",
        "usage": {
            "input_tokens": 3,
            "output_tokens": 0,
            "total_tokens": 3,
            "input_token_details": {"cache_read": 0},
        },
        "response_metadata": {
            "anthropic": {
                "stop_sequence": None,
                "container": {"id": "container_1", "expires_at": "2026-01-01T00:00:00Z"},
            }
        },
    }
    sdk = codec.decode_response(SDKMessage.model_validate(response))
    assert sdk.response_metadata["anthropic"]["container"]["id"] == "container_1"  # type: ignore[index]


def test_sdk_objects_in_a_history() -> None:
    response = SDKMessage.model_validate(RESPONSE)
    history = [
        {"role": "user", "content": "Weather in Oslo?"},
        response.to_param(),  # the SDK's own replay form: response models inside
        {"role": "user", "content": [result("toolu_01", "sunny")]},
    ]
    payload = enc(codec.decode_conversation(history))
    assert payload["messages"][1] == EXPECTED_TURN
    # a whole Message object as a history item works too
    again = enc(codec.decode_conversation([history[0], response, history[2]]))
    assert again == payload


# ------------------------------------------------------------------- bad input

BAD: list[tuple[str, Any, int | None, int | None]] = [
    ("not-a-list", {"messages": "hi"}, None, None),
    ("message-not-object", {"messages": ["hi"]}, 0, None),
    ("unknown-role", {"messages": [{"role": "tool", "content": "x"}]}, 0, None),
    ("content-number", {"messages": [{"role": "user", "content": 3}]}, 0, None),
    ("content-missing", {"messages": [{"role": "user"}]}, 0, None),
    ("block-not-object", {"messages": [{"role": "user", "content": ["hi"]}]}, 0, 0),
    ("block-no-type", {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}, 0, 0),
    (
        "text-not-string",
        {"messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]},
        0,
        0,
    ),
    (
        "citations-not-list",
        {
            "messages": [
                {"role": "assistant", "content": [{"type": "text", "text": "a", "citations": {}}]}
            ]
        },
        0,
        0,
    ),
    (
        "citation-no-type",
        {
            "messages": [
                {"role": "assistant", "content": [{"type": "text", "text": "a", "citations": [{}]}]}
            ]
        },
        0,
        0,
    ),
    (
        "thinking-no-signature",
        {
            "messages": [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "a"},
                        {"type": "thinking", "thinking": "t"},
                    ],
                }
            ]
        },
        0,
        1,
    ),
    (
        "redacted-no-data",
        {"messages": [{"role": "assistant", "content": [{"type": "redacted_thinking"}]}]},
        0,
        0,
    ),
    (
        "tool-use-no-id",
        {
            "messages": [
                {"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}
            ]
        },
        0,
        0,
    ),
    (
        "tool-use-empty-id",
        {
            "messages": [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "", "name": "f", "input": {}}],
                }
            ]
        },
        0,
        0,
    ),
    ("result-no-id", {"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]}, 0, 0),
    (
        "result-bad-content",
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "a", "content": 5}],
                }
            ]
        },
        0,
        0,
    ),
    (
        "result-bad-is-error",
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "a", "is_error": "yes"}],
                }
            ]
        },
        0,
        0,
    ),
    (
        "image-bad-mime",
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "png", "data": "x"},
                        }
                    ],
                }
            ]
        },
        0,
        0,
    ),
    (
        "image-bad-url",
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "image", "source": {"type": "url", "url": "not a url"}}],
                }
            ]
        },
        0,
        0,
    ),
    ("system-number", {"system": 5, "messages": []}, None, None),
    ("tools-not-list", {"messages": [], "tools": {}}, None, None),
    ("tool-no-name", {"messages": [], "tools": [{"input_schema": {}}]}, None, None),
    (
        "tool-bad-schema",
        {"messages": [], "tools": [{"name": "f", "input_schema": "x"}]},
        None,
        None,
    ),
    ("tool-choice-unknown", {"messages": [], "tool_choice": {"type": "sometimes"}}, None, None),
    (
        "tool-choice-extra-key",
        {"messages": [], "tool_choice": {"type": "auto", "foo": 1}},
        None,
        None,
    ),
    ("invalid-json", "{not json", None, None),
    ("scalar", 42, None, None),
]


@pytest.mark.parametrize(("name", "payload", "message", "block"), BAD, ids=[b[0] for b in BAD])
def test_bad_payloads_raise_conversion_errors(
    name: str, payload: Any, message: int | None, block: int | None
) -> None:
    with pytest.raises(ConversionError) as caught:
        codec.decode_conversation(payload)
    assert caught.value.provider == "anthropic"
    assert (caught.value.message_index, caught.value.block_index) == (message, block)


BAD_RESPONSES: list[Any] = [
    None,
    [],
    {"content": "text"},
    {"role": "user", "content": []},
    {"content": [], "usage": {"input_tokens": -1, "output_tokens": 0}},
    {"content": [], "usage": {"input_tokens": "1", "output_tokens": 0}},
    {
        "content": [],
        "usage": {"input_tokens": 1, "output_tokens": 0, "cache_read_input_tokens": 1.5},
    },
    {"content": [], "usage": []},
    {"content": [{"type": "thinking"}]},
    SDKMessage.construct(id="m", content="oops"),
]


@pytest.mark.parametrize("payload", BAD_RESPONSES)
def test_bad_responses_raise_conversion_errors(payload: Any) -> None:
    with pytest.raises(ConversionError):
        codec.decode_response(payload)


def _mutations(value: Any, path: tuple[Any, ...] = ()) -> Any:
    """Every (path, replacement) that swaps one value for an odd one."""
    odd = [None, 0, -1, "", "x", [], {}, [None], {"type": None}, True]
    if isinstance(value, dict):
        for key, item in value.items():
            for replacement in odd:
                yield (*path, key), replacement
            yield from _mutations(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            for replacement in odd:
                yield (*path, index), replacement
            yield from _mutations(item, (*path, index))


def _replaced(document: Any, path: tuple[Any, ...], replacement: Any) -> Any:
    copied = copy.deepcopy(document)
    target = copied
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = replacement
    return copied


@pytest.mark.parametrize(
    "name", ["thinking-parallel-tools", "server-tools-and-citations", "document-citations"]
)
def test_odd_values_never_escape_as_python_errors(name: str) -> None:
    document = WIRE[name]
    outcomes = {"decoded": 0, "refused": 0}
    for path, replacement in _mutations(document):
        mutated = _replaced(document, path, replacement)
        try:
            conversation = codec.decode_conversation(mutated)
        except ChatSchemaError:
            outcomes["refused"] += 1
            continue
        outcomes["decoded"] += 1
        # what decodes re-encodes (possibly refusing content) without Python errors
        with contextlib.suppress(ChatSchemaError):
            codec.encode(conversation, check=False, unsupported="drop")
    assert outcomes["decoded"] > 100 and outcomes["refused"] > 100, outcomes


def test_odd_response_values_never_escape_as_python_errors() -> None:
    refused = 0
    for path, replacement in _mutations(RESPONSE):
        try:
            codec.decode_response(_replaced(RESPONSE, path, replacement))
        except ChatSchemaError:
            refused += 1
    assert refused > 20


def test_bad_neutral_input_is_a_validation_error() -> None:
    with pytest.raises(ValidationError):
        codec.encode([{"role": "user"}])
    with pytest.raises(ValidationError):
        codec.check(42)


def test_decode_single_message_and_bare_list() -> None:
    assert neutral({"role": "user", "content": "hi"}) == {
        "messages": [{"role": "user", "content": "hi"}]
    }
    assert codec.decode_messages([{"role": "user", "content": "hi"}]) == [UserMessage(content="hi")]


def test_request_nulls_are_normalized_away() -> None:
    """Optional keys sent as null decode like absent ones and are never sent back."""
    payload = {
        "system": None,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "hi", "cache_control": None, "citations": None}
                ],
            },
            {
                "role": "assistant",
                "content": [tool_use("t"), {"type": "text", "text": "x", "citations": None}],
            },
            {"role": "user", "content": [result("t", "r", is_error=None, cache_control=None)]},
        ],
        "tools": None,
        "tool_choice": None,
    }
    assert enc(codec.decode_conversation(payload)) == {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [tool_use("t"), {"type": "text", "text": "x"}]},
            {"role": "user", "content": [result("t", "r")]},
        ]
    }


def test_odd_cache_markers_are_kept_verbatim() -> None:
    payload = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "hi",
                        "cache_control": {"type": "ephemeral", "ttl": "2h"},
                    }
                ],
            }
        ]
    }
    block = neutral(payload)["messages"][0]["content"][0]
    assert block == {
        "type": "text",
        "text": "hi",
        "cache_control": {"type": "ephemeral", "ttl": "2h"},
    }
    weird = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "hi", "cache_control": {"type": "persistent"}}
                ],
            }
        ]
    }
    assert neutral(weird)["messages"][0]["content"][0]["extras"] == {
        "anthropic": {"cache_control": {"type": "persistent"}}
    }
    assert codec.encode(codec.decode_conversation(weird)) == weird


def test_foreign_and_future_non_standard_blocks() -> None:
    # a block type newer than the SDK comes back unchanged, marked as Anthropic's
    payload = {
        "messages": [
            {"role": "user", "content": "go on"},
            {"role": "assistant", "content": [{"type": "compaction", "content": "summary so far"}]},
        ]
    }
    block = neutral(payload)["messages"][1]["content"][0]
    assert block == {
        "type": "non_standard",
        "value": {"type": "compaction", "content": "summary so far"},
        "extras": {"anthropic": {}},
    }
    assert codec.encode(codec.decode_conversation(payload)) == payload
    # other formats' blocks are not sent: Responses items, Gemini parts, and a
    # server tool call from an OpenAI Responses turn even with a familiar name
    foreign = [
        UserMessage(content="q"),
        AssistantMessage(
            provider="openai_responses",
            content=[
                ServerToolCallBlock(id="ws_1", name="web_search", arguments={"query": "q"}),
                NonStandardBlock(value={"type": "web_search_call", "status": "completed"}),
                NonStandardBlock(value={"executableCode": {"code": "1+1"}}),
                TextBlock(text="answer"),
            ],
        ),
    ]
    with pytest.raises(UnsupportedContentError) as caught:
        enc(foreign)
    assert (caught.value.message_index, caught.value.block_index) == (1, 0)
    assert enc(foreign, unsupported="drop")["messages"][1]["content"] == [
        {"type": "text", "text": "answer"}
    ]


def _fixture_documents() -> list[tuple[str, Any]]:
    from conftest import CASES

    kinds = ("Conversation", "AssistantMessage", "UserMessage", "ToolMessage", "SystemMessage")
    return [
        (case.id, case.instance if case.type == "Conversation" else {"messages": [case.instance]})
        for case in CASES
        if case.valid and case.type in kinds
    ]


FIXTURES = _fixture_documents()


@pytest.mark.parametrize(("name", "document"), FIXTURES, ids=[name for name, _ in FIXTURES])
def test_every_neutral_fixture_encodes_to_a_valid_request(name: str, document: Any) -> None:
    """Whatever the schema allows becomes a request the SDK types accept."""
    payload = enc(document, check=False, unsupported="placeholder")
    # and reads back without error
    codec.decode_conversation(payload)


def test_other_request_parameters_are_ignored() -> None:
    request = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "temperature": 0.2,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "system": "sys",
        "messages": [{"role": "user", "content": "hi"}],
    }
    assert enc(codec.decode_conversation(request)) == {
        "system": "sys",
        "messages": [{"role": "user", "content": "hi"}],
    }


def test_tool_reference_in_results_and_text_plain_by_file_id() -> None:
    payload = {
        "messages": [
            {"role": "user", "content": "Find a tool."},
            {"role": "assistant", "content": [tool_use("toolu_s", "search_tools", q="weather")]},
            {
                "role": "user",
                "content": [
                    result("toolu_s", [{"type": "tool_reference", "tool_name": "get_weather"}]),
                    {"type": "document", "source": {"type": "file", "file_id": "file_txt"}},
                ],
            },
        ]
    }
    conversation = codec.decode_conversation(payload)
    assert to_dict(conversation.messages[2])["content"] == [
        {"type": "non_standard", "value": {"type": "tool_reference", "tool_name": "get_weather"}}
    ]
    assert enc(conversation) == payload
    # a text-plain block by file id is sent as a file document (and reads back as `file`)
    sent = enc([UserMessage(content=[PlainTextBlock(file_id="file_txt", title="Notes")])])
    assert sent["messages"][0]["content"] == [
        {"type": "document", "source": {"type": "file", "file_id": "file_txt"}, "title": "Notes"}
    ]
    assert to_dict(codec.decode_messages(sent)[0])["content"] == [
        {"type": "file", "file_id": "file_txt", "filename": "Notes"}
    ]


def test_thinking_takes_no_cache_marker() -> None:
    marker = CacheControl(type="ephemeral")
    conversation = [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                ReasoningBlock(text="t", signature=SIG, provider="anthropic", cache_control=marker),
                TextBlock(text="a", cache_control=marker),
            ]
        ),
    ]
    assert enc(conversation)["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "t", "signature": SIG},
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
    ]
    assert (
        codec.check(
            [
                *conversation,
                *([UserMessage(content=[TextBlock(text="x", cache_control=marker)])] * 3),
            ]
        )
        == []
    )


def test_named_tool_choice_carries_parallel() -> None:
    payload = {
        "messages": [{"role": "user", "content": "x"}],
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "tool", "name": "f", "disable_parallel_tool_use": True},
    }
    conversation = codec.decode_conversation(payload)
    assert to_dict(conversation)["tool_choice"] == {
        "type": "tool",
        "name": "f",
        "parallel": False,
    }
    assert codec.encode(conversation) == payload
