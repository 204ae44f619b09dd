"""The Anthropic Messages codec, histories: exact wire round trips, decoding, bad input."""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import pytest
from oracle import validate_request

from chatschema import (
    AssistantMessage,
    ChatSchemaError,
    ConversionError,
    NonStandardBlock,
    PlainTextBlock,
    ServerToolCallBlock,
    TextBlock,
    UnsupportedContentError,
    UserMessage,
    to_dict,
)
from chatschema.providers import anthropic as codec
from providers.anthropic.helpers import (
    PDF,
    PNG,
    REDACTED,
    SIG,
    WIRE,
    _mutations,
    _replaced,
    enc,
    neutral,
    result,
    tool_use,
)


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


def test_decode_single_message_and_bare_list() -> None:
    assert neutral({"role": "user", "content": "hi"}) == {
        "messages": [{"role": "user", "content": "hi"}]
    }
    assert codec.decode_messages([{"role": "user", "content": "hi"}]) == [UserMessage(content="hi")]


def test_request_nulls_come_back_as_they_came() -> None:
    """Keys a request sent as null go back as null: never dropped, never filled in.

    ``cache_control`` and ``citations`` are nullable in the SDK types and sent as
    null by clients the API answered (Mirascope's recorded requests); the others
    (``system``, ``tools``, ``tool_choice``, ``is_error``, a tool result's ``content``)
    are not nullable in the SDK types, but a request that had them gets them back
    unchanged too.
    """
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
            {"role": "assistant", "content": [tool_use("u")]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "u", "content": None}],
            },
        ],
        "tools": None,
        "tool_choice": None,
    }
    assert codec.encode(codec.decode_conversation(payload)) == payload
    nullable = {"messages": payload["messages"][:3]}  # the SDK's nullable keys: the oracle
    nullable["messages"][2] = {"role": "user", "content": [result("t", "r", cache_control=None)]}
    assert enc(codec.decode_conversation(nullable)) == nullable


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
    # a compaction block is a neutral CompactionBlock, sent back as it came
    block = neutral(payload)["messages"][1]["content"][0]
    assert block == {"type": "compaction", "text": "summary so far", "provider": "anthropic"}
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


def test_request_parameters_are_settings_and_come_back() -> None:
    """Generation keys become settings (they were ignored before), and go back."""
    request = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "temperature": 0.2,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "system": "sys",
        "messages": [{"role": "user", "content": "hi"}],
    }
    conversation = codec.decode_conversation(request)
    assert to_dict(conversation)["settings"] == {
        "model": "claude-sonnet-4-5",
        "max_output_tokens": 1024,
        "temperature": 0.2,
        "thinking_budget": 2048,
    }
    assert codec.encode(conversation) == request  # temperature where it was: the top level


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


def test_built_in_tool_options_keep_their_nulls() -> None:
    """A built-in tool's options are nullable in the SDK types and sent as null by
    clients (pydantic-ai's recorded web_search requests): they go back as they came."""
    payload = {
        "messages": [{"role": "user", "content": "Weather in Oslo today?"}],
        "tools": [
            {
                "name": "web_search",
                "type": "web_search_20250305",
                "allowed_domains": None,
                "blocked_domains": None,
                "max_uses": None,
                "user_location": None,
            }
        ],
        "tool_choice": {"type": "auto"},
    }
    assert enc(codec.decode_conversation(payload)) == payload
