"""The Anthropic Messages codec, encode and check: round trips, rules, options, checks."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from chatschema import (
    AssistantMessage,
    AudioBlock,
    CacheControl,
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
from providers.anthropic.helpers import PDF, PNG, REDACTED, SIG, WEATHER_SCHEMA, WIRE, enc, neutral

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
    assert [p.pointer for p in caught.value.problems] == ["/messages/1/invalid_tool_calls/0"]
    said = "invalid tool call 'f' (id 'x'; its arguments are not a JSON object)"
    assert enc(conversation, unsupported="placeholder")["messages"][1]["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": f"[{said} omitted: not supported by anthropic]"},
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
    (  # Messages API, "Tool use": no message between the calls and their results; the
        # error names the call ("tool_use ids were found without tool_result blocks
        # immediately after"), the result has a call before it and is no orphan
        "result-after-system-message",
        [
            UserMessage(content="q"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            SystemMessage(content="note"),
            ToolMessage(tool_call_id="a", content="1"),
        ],
        {},
        [("/messages/1/tool_calls/0/id", "unanswered_tool_call")],
    ),
    (  # tool results first in the user turn: text before them leaves the call unanswered
        "result-in-a-later-user-message",
        [
            UserMessage(content="q"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            UserMessage(content="wait"),
            ToolMessage(tool_call_id="a", content="1", extras={"anthropic": {"new_message": True}}),
        ],
        {},
        [("/messages/1/tool_calls/0/id", "unanswered_tool_call")],
    ),
    (  # a result before any call of its id: "unexpected `tool_use_id`"
        "result-before-its-call",
        [
            UserMessage(content="q"),
            ToolMessage(tool_call_id="a", content="1"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            ToolMessage(tool_call_id="a", content="2"),
        ],
        {},
        [("/messages/1/tool_call_id", "orphan_tool_result")],
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


def test_bad_neutral_input_is_a_validation_error() -> None:
    with pytest.raises(ValidationError):
        codec.encode([{"role": "user"}])
    with pytest.raises(ValidationError):
        codec.check(42)


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
