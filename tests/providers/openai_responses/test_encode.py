"""The OpenAI Responses codec, ``encode`` and ``check``: round trips, options, structural check."""

from __future__ import annotations

import json
from typing import Any

import pytest
from oracle import validate_request

import chatschema
from chatschema import (
    AssistantMessage,
    AudioBlock,
    ConversionError,
    FileBlock,
    ImageBlock,
    InvalidToolCall,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolDefinition,
    ToolMessage,
    UnsupportedContentError,
    UserMessage,
    to_dict,
)
from chatschema.errors import OptionError
from chatschema.providers import openai_responses as R
from providers.openai_responses.helpers import NAME, PAYLOADS, PDF, PNG, _fc, _msg, _out, _rs, _text

# ---------------------------------------------------------- neutral -> wire -> neutral

TOOL = ToolDefinition(
    name="get_weather",
    description="Current weather",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
    strict=False,
)

NEUTRAL: dict[str, dict[str, Any]] = {
    "basic": {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": "Let me check.",
                "tool_calls": [
                    {"id": "call_1", "name": "get_weather", "arguments": {"city": "Oslo"}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "12C", "name": "get_weather"},
            {"role": "assistant", "content": "12C in Oslo."},
        ],
        "tools": [to_dict(TOOL)],
        "tool_choice": {"type": "auto", "parallel": False},
    },
    "own_reasoning_and_items": {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "q"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "id": "rs_1",
                        "summary": ["a", "b"],
                        "encrypted_content": "opaque",
                        "text": "thinking",
                        "provider": NAME,
                    },
                    {"type": "text", "text": "answer", "id": "msg_1"},
                    {"type": "refusal", "text": "no", "id": "msg_1"},
                ],
            },
        ]
    },
    "later_system_and_images": {
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "system", "content": "Now be formal."},
            {
                "role": "user",
                "content": [
                    {"type": "image", "url": "https://example.com/cat.png", "detail": "low"},
                    {"type": "image", "base64": PNG, "mime_type": "image/png", "detail": "high"},
                    {"type": "file", "file_id": "file-1", "filename": "a.pdf"},
                    {"type": "file", "base64": PDF, "mime_type": "application/pdf"},
                    {"type": "file", "url": "https://example.com/b.pdf"},
                    {
                        "type": "text",
                        "text": "cached",
                        "cache_control": {"type": "ephemeral", "ttl": "30m"},
                    },
                ],
            },
        ]
    },
    "tool_result_blocks": {
        "messages": [
            {"role": "user", "content": "shot"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "name": "screenshot", "arguments": {}}],
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [
                    {"type": "text", "text": "ok"},
                    {"type": "image", "url": "https://example.com/s.png"},
                ],
            },
        ],
        "tool_choice": {"type": "required", "parallel": True},
    },
    "interleaved_index": {
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "one", "id": "msg_1"},
                    {"type": "text", "text": "two", "id": "msg_2"},
                ],
                "tool_calls": [
                    {"id": "c1", "name": "f", "arguments": {}, "index": 1},
                    {"id": "c2", "name": "f", "arguments": {"x": 1}, "index": 3},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "r1"},
            {"role": "tool", "tool_call_id": "c2", "content": "r2"},
        ],
        "tool_choice": {"type": "tool", "name": "f"},
    },
    "empty_assistant": {"messages": [{"role": "user", "content": "x"}, {"role": "assistant"}]},
}


@pytest.mark.parametrize("name", NEUTRAL)
def test_neutral_round_trip_is_identity(name: str) -> None:
    conversation = chatschema.parse_conversation(NEUTRAL[name])
    before = to_dict(conversation)
    encoded = R.encode(conversation)
    validate_request(NAME, encoded)
    assert to_dict(conversation) == before  # encoding does not mutate
    assert to_dict(R.decode_conversation(encoded)) == NEUTRAL[name]


def test_basic_encoding_is_exactly_this() -> None:
    assert R.encode(chatschema.parse_conversation(NEUTRAL["basic"])) == {
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": "Let me check."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city": "Oslo"}',
            },
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": "12C",
                "name": "get_weather",
            },
            {"role": "assistant", "content": "12C in Oslo."},
        ],
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Current weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                "strict": False,
            }
        ],
        "parallel_tool_calls": False,  # "auto" with the flag: the flag alone says it
    }


def test_own_reasoning_is_replayed_unchanged_before_its_item() -> None:
    encoded = R.encode(chatschema.parse_conversation(NEUTRAL["own_reasoning_and_items"]))
    assert encoded["input"][1:] == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [
                {"type": "summary_text", "text": "a"},
                {"type": "summary_text", "text": "b"},
            ],
            "encrypted_content": "opaque",
            "content": [{"type": "reasoning_text", "text": "thinking"}],
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "answer", "annotations": []},
                {"type": "refusal", "refusal": "no"},
            ],
        },
    ]


# ------------------------------------------------------------- documented non-identities


def test_image_detail_defaults_to_auto_in_message_content_only() -> None:
    conversation = [
        UserMessage(content=[ImageBlock(url="https://e.com/a.png")]),
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content=[ImageBlock(url="https://e.com/b.png")]),
    ]
    encoded = R.encode(conversation)
    validate_request(NAME, encoded)
    assert encoded["input"][0]["content"] == [
        {"type": "input_image", "image_url": "https://e.com/a.png", "detail": "auto"}
    ]
    assert encoded["input"][2]["output"] == [
        {"type": "input_image", "image_url": "https://e.com/b.png"}
    ]
    back = R.decode_messages(encoded)
    assert to_dict(back[0])["content"][0]["detail"] == "auto"  # the one non-identity
    assert "detail" not in to_dict(back[2])["content"][0]


def test_strict_absent_is_sent_as_false() -> None:
    conversation = chatschema.Conversation(
        messages=[UserMessage(content="x")], tools=[ToolDefinition(name="f", parameters={})]
    )
    encoded = R.encode(conversation)
    validate_request(NAME, encoded)
    assert encoded["tools"] == [
        {"type": "function", "name": "f", "parameters": {}, "strict": False}
    ]


def test_several_leading_system_messages_join_into_instructions() -> None:
    encoded = R.encode(
        [
            SystemMessage(content="A"),
            SystemMessage(content=[TextBlock(text="B"), TextBlock(text="C")]),
            UserMessage(content="hi"),
            SystemMessage(content="later"),
        ],
        system_role="developer",
    )
    assert encoded == {
        "instructions": "A\nB\nC",
        "input": [{"role": "user", "content": "hi"}, {"role": "developer", "content": "later"}],
    }
    validate_request(NAME, encoded)


def test_parallel_tool_calls_without_tool_choice_decodes_to_auto() -> None:
    conversation = R.decode_conversation({"input": "x", "parallel_tool_calls": False})
    assert to_dict(conversation)["tool_choice"] == {"type": "auto", "parallel": False}
    assert R.encode(conversation) == {"input": "x", "parallel_tool_calls": False}


def test_named_tool_choice_carries_parallel() -> None:
    payload = {
        "input": "x",
        "tools": [{"type": "function", "name": "f", "parameters": {}, "strict": False}],
        "tool_choice": {"type": "function", "name": "f"},
        "parallel_tool_calls": False,
    }
    conversation = R.decode_conversation(payload)
    assert to_dict(conversation)["tool_choice"] == {"type": "tool", "name": "f", "parallel": False}
    assert R.encode(conversation) == payload


def test_id_less_assistant_text_uses_the_easy_form() -> None:
    reply = AssistantMessage(
        content=[
            TextBlock(text="one"),
            RefusalBlock(text="no"),
            TextBlock(text="two", id="msg_9"),
            TextBlock(text="three", id="msg_9"),
        ]
    )
    encoded = R.encode([UserMessage(content="x"), reply])
    validate_request(NAME, encoded)
    assert encoded["input"][1:] == [
        {"role": "assistant", "content": "one"},
        {"role": "assistant", "content": "no"},
        {
            "type": "message",
            "id": "msg_9",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "two", "annotations": []},
                {"type": "output_text", "text": "three", "annotations": []},
            ],
        },
    ]


# ------------------------------------------------------------------------- options


def _reasoning_history(provider: str, **more: Any) -> list[Any]:
    return [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                ReasoningBlock(
                    id="rs_1", summary=["s"], encrypted_content="enc", provider=provider, **more
                ),
                TextBlock(text="answer", id="msg_1"),
            ]
        ),
    ]


@pytest.mark.parametrize(
    ("provider", "policy", "expected_types"),
    [
        (NAME, "replay", ["reasoning", "message"]),
        (NAME, "text", ["reasoning", "message"]),
        (NAME, "drop", ["message"]),
        ("anthropic", "replay", ["message"]),
        ("anthropic", "drop", ["message"]),
        ("anthropic", "text", ["easy", "message"]),
    ],
)
def test_reasoning_policy(provider: str, policy: str, expected_types: list[str]) -> None:
    encoded = R.encode(_reasoning_history(provider, text="thought"), reasoning=policy)  # type: ignore[arg-type]
    validate_request(NAME, encoded)
    types = [item.get("type", "easy") for item in encoded["input"][1:]]
    assert types == expected_types
    if policy == "text" and provider != NAME:
        assert encoded["input"][1] == {"role": "assistant", "content": "thought"}


def test_reasoning_without_id_is_not_replayed() -> None:
    history = [
        UserMessage(content="q"),
        AssistantMessage(
            content=[ReasoningBlock(summary=["s"], provider=NAME), TextBlock(text="a")]
        ),
    ]
    assert R.encode(history)["input"][1:] == [{"role": "assistant", "content": "a"}]
    assert R.encode(history, reasoning="text")["input"][1:] == [
        {"role": "assistant", "content": "s"},
        {"role": "assistant", "content": "a"},
    ]


@pytest.mark.parametrize(
    ("content_format", "user", "tool"),
    [
        (
            "auto",
            [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}],
            "plain",
        ),
        ("string", "a\nb", "plain"),
        (
            "parts",
            [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}],
            [{"type": "input_text", "text": "plain"}],
        ),
    ],
)
def test_content_format(content_format: str, user: Any, tool: Any) -> None:
    history = [
        UserMessage(content=[TextBlock(text="a"), TextBlock(text="b")]),
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content="plain"),
    ]
    encoded = R.encode(history, content_format=content_format)  # type: ignore[arg-type]
    validate_request(NAME, encoded)
    assert encoded["input"][0]["content"] == user
    assert encoded["input"][2]["output"] == tool


def test_string_format_makes_images_unsupported() -> None:
    history = [UserMessage(content=[TextBlock(text="a"), ImageBlock(url="https://e.com/x.png")])]
    with pytest.raises(UnsupportedContentError) as error:
        R.encode(history, content_format="string")
    assert (error.value.message_index, error.value.block_index) == (0, 1)
    encoded = R.encode(history, content_format="string", unsupported="placeholder")
    assert encoded["input"][0]["content"].startswith("a\n[image block as a string omitted")


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("drop", [{"type": "input_text", "text": "look"}]),
        (
            "placeholder",
            [
                {"type": "input_text", "text": "look"},
                {
                    "type": "input_text",
                    "text": "[image (vision is off) omitted: not supported by openai_responses]",
                },
            ],
        ),
    ],
)
def test_vision_off(policy: str, expected: list[Any]) -> None:
    history = [UserMessage(content=[TextBlock(text="look"), ImageBlock(url="https://e.com/x.png")])]
    encoded = R.encode(history, vision=False, unsupported=policy)  # type: ignore[arg-type]
    assert encoded["input"][0]["content"] == expected
    validate_request(NAME, encoded)


def test_vision_off_raises_by_default_and_check_reports_it() -> None:
    history = [
        UserMessage(content="hi"),
        UserMessage(content=[TextBlock(text="look"), ImageBlock(url="https://e.com/x.png")]),
    ]
    with pytest.raises(UnsupportedContentError) as error:
        R.encode(history, vision=False)
    assert (error.value.provider, error.value.message_index, error.value.block_index) == (
        NAME,
        1,
        1,
    )
    problems = R.check(history, vision=False)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/1/content/1", "unsupported_content")
    ]
    assert R.check(history, vision=False, unsupported="drop") == []


@pytest.mark.parametrize(
    ("block", "where"),
    [
        (AudioBlock(base64="UklGRg==", mime_type="audio/wav"), "user"),
        (chatschema.VideoBlock(url="https://e.com/v.mp4"), "user"),
        (chatschema.PlainTextBlock(text="doc"), "user"),
        (NonStandardBlock(value={"type": "document"}), "user"),
        (ImageBlock(url="https://e.com/x.png"), "assistant"),
        (ServerToolCallBlock(id="srvtoolu_1", name="web_search", arguments={}), "assistant"),
        (chatschema.ServerToolResultBlock(tool_call_id="srvtoolu_1"), "assistant"),
        (NonStandardBlock(value={"type": "container_upload"}), "assistant"),
        (ImageBlock(url="https://e.com/x.png"), "instructions"),
        (RefusalBlock(text="no"), "tool"),
    ],
)
def test_unsupported_content_names_message_and_block(block: Any, where: str) -> None:
    history: list[Any] = [UserMessage(content="hi")]
    if where == "instructions":
        history.insert(0, SystemMessage(content=[TextBlock(text="rules"), block]))
        index = 0
    elif where == "tool":
        history += [
            AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
            ToolMessage(tool_call_id="c", content=[TextBlock(text="r"), block]),
        ]
        index = 2
    else:
        cls = UserMessage if where == "user" else AssistantMessage
        history.append(cls(content=[TextBlock(text="x", id="msg_1"), block]))
        index = 1
    with pytest.raises(UnsupportedContentError) as error:
        R.encode(history)
    assert (error.value.message_index, error.value.block_index) == (index, 1)
    dropped = R.encode(history, unsupported="drop")
    validate_request(NAME, dropped)
    placeholder = R.encode(history, unsupported="placeholder")
    validate_request(NAME, placeholder)
    assert "omitted: not supported by openai_responses" in json.dumps(placeholder)
    assert "omitted" not in json.dumps(dropped)


def test_prompt_cache_option_and_ttls() -> None:
    history = [
        UserMessage(
            content=[
                TextBlock(text="a", cache_control={"type": "ephemeral"}),  # type: ignore[arg-type]
                TextBlock(text="b", cache_control={"type": "ephemeral", "ttl": "12h"}),  # type: ignore[arg-type]
                TextBlock(text="c", cache_control={"type": "ephemeral", "ttl": "5m"}),  # type: ignore[arg-type]
            ]
        )
    ]
    on = R.encode(history)
    validate_request(NAME, on)
    assert [part.get("prompt_cache_breakpoint") for part in on["input"][0]["content"]] == [
        {"mode": "explicit"},
        {"mode": "explicit", "ttl": "12h"},
        {"mode": "explicit", "ttl": "30m"},  # a minimum lifetime: 5m is rounded up, as in Chat
    ]
    off = R.encode(history, prompt_cache=False)
    assert all("prompt_cache_breakpoint" not in part for part in off["input"][0]["content"])


def test_native_tools_off_renders_text() -> None:
    conversation = chatschema.parse_conversation(NEUTRAL["basic"])
    encoded = R.encode(conversation, native_tools=False)
    validate_request(NAME, encoded)
    assert set(encoded) == {"instructions", "input"}
    assert encoded["instructions"].startswith("Be brief.\nYou can call these tools.")
    assert encoded["input"][2] == {
        "role": "assistant",
        "content": '<tool_call id="call_1" name="get_weather">{"city": "Oslo"}</tool_call>',
    }
    assert encoded["input"][3] == {
        "role": "user",
        "content": '<tool_result id="call_1" name="get_weather" status="success">12C</tool_result>',
    }
    assert (
        R.check(
            [AssistantMessage(tool_calls=[ToolCall(id="x", name="f", arguments={})])],
            native_tools=False,
        )
        == []
    )


def test_metadata_artifact_and_user_names_are_not_sent() -> None:
    history = [
        UserMessage(content="hi", name="alice", id="u1", metadata={"secret": 1}),
        AssistantMessage(
            tool_calls=[ToolCall(id="c", name="f", arguments={})], metadata={"m": 1}, name="bot"
        ),
        ToolMessage(
            tool_call_id="c", content="r", artifact={"big": "data"}, status="error", id="t1"
        ),
    ]
    encoded = R.encode(history)
    assert encoded["input"] == [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "r"},
    ]


def test_edited_arguments_are_reserialized() -> None:
    reply = R.decode_messages(PAYLOADS["reasoning_tool_loop"])[2]
    assert isinstance(reply, AssistantMessage)
    edited = reply.model_copy(
        update={
            "tool_calls": [reply.tool_calls[0].model_copy(update={"arguments": {"city": "Rome"}})]
        }
    )
    encoded = R.encode(
        [UserMessage(content="x"), edited, ToolMessage(tool_call_id="call_1", content="r")]
    )
    assert encoded["input"][2]["arguments"] == '{"city": "Rome"}'
    assert encoded["input"][2]["id"] == "fc_1"


def test_invalid_tool_calls_go_back_verbatim() -> None:
    reply = AssistantMessage(
        invalid_tool_calls=[InvalidToolCall(id="c1", name="f", arguments='{"a":', error="bad")]
    )
    encoded = R.encode(
        [UserMessage(content="x"), reply, ToolMessage(tool_call_id="c1", content="bad args")]
    )
    validate_request(NAME, encoded)
    assert encoded["input"][1] == {
        "type": "function_call",
        "call_id": "c1",
        "name": "f",
        "arguments": '{"a":',
    }


def test_unknown_and_bad_options() -> None:
    with pytest.raises(OptionError):
        R.encode([UserMessage(content="x")], colour="blue")  # type: ignore[call-arg]
    with pytest.raises(OptionError):
        R.encode([UserMessage(content="x")], system_role="boss")  # type: ignore[arg-type]
    with pytest.raises(OptionError):
        R.check([UserMessage(content="x")], vision="yes")  # type: ignore[arg-type]


# -------------------------------------------------------------------- structural check


def _problems(history: list[Any], **options: Any) -> list[tuple[str, str]]:
    return [(p.pointer, p.keyword) for p in R.check(history, **options)]


def test_check_pairing_problems() -> None:
    call = ToolCall(id="c1", name="f", arguments={})
    history = [
        UserMessage(content="x"),
        AssistantMessage(tool_calls=[call, ToolCall(id="c1", name="g", arguments={})]),
        ToolMessage(tool_call_id="c1", content="r"),
        ToolMessage(tool_call_id="zz", content="r"),
        AssistantMessage(invalid_tool_calls=[InvalidToolCall(id="c9", name="f", arguments="{")]),
    ]
    assert _problems(history) == [
        ("/messages/1/tool_calls/1/id", "duplicate_tool_call_id"),
        ("/messages/3/tool_call_id", "orphan_tool_result"),
        ("/messages/4/invalid_tool_calls/0/id", "unanswered_tool_call"),
    ]
    with pytest.raises(ConversionError) as error:
        R.encode(history)
    assert error.value.message_index == 1
    assert len(error.value.problems) == 3
    assert R.encode(history, check=False)["input"][1]["call_id"] == "c1"


def test_check_results_may_come_later_but_before_the_next_turn() -> None:
    history = [
        UserMessage(content="x"),
        AssistantMessage(tool_calls=[ToolCall(id="c1", name="f", arguments={})]),
        UserMessage(content="meanwhile"),
        ToolMessage(tool_call_id="c1", content="r"),
    ]
    assert _problems(history) == []
    history.insert(3, AssistantMessage(content="too early"))
    assert _problems(history) == [
        ("/messages/1/tool_calls/0/id", "unanswered_tool_call"),
        ("/messages/4/tool_call_id", "orphan_tool_result"),
    ]


def test_check_invalid_call_answered_is_fine() -> None:
    history = [
        UserMessage(content="x"),
        AssistantMessage(invalid_tool_calls=[InvalidToolCall(id="c9", name="f", arguments="{")]),
        ToolMessage(tool_call_id="c9", content="bad"),
    ]
    assert _problems(history) == []


def test_check_duplicate_item_ids() -> None:
    history = [
        UserMessage(content="x"),
        AssistantMessage(
            content=[
                ReasoningBlock(id="rs_1", summary=[], encrypted_content="e", provider=NAME),
                TextBlock(text="a", id="msg_1"),
            ]
        ),
        UserMessage(content="y"),
        AssistantMessage(content=[TextBlock(text="b", id="msg_1")]),
        UserMessage(content="z"),
        AssistantMessage(
            content=[
                ReasoningBlock(id="rs_1", summary=[], provider=NAME),
                TextBlock(text="c", id="msg_3"),
            ]
        ),
    ]
    assert _problems(history) == [
        ("/messages/3/content/0", "duplicate_item_id"),
        ("/messages/5/content/0", "duplicate_item_id"),
    ]
    # dropping the reasoning removes that duplicate
    assert _problems(history, reasoning="drop") == [("/messages/3/content/0", "duplicate_item_id")]


def test_check_duplicate_function_call_item_ids() -> None:
    payload = {
        "input": [
            {"role": "user", "content": "x"},
            _fc(1),
            _fc(2) | {"id": "fc_1"},
            _out(1),
            _out(2),
        ]
    }
    conversation = R.decode_conversation(payload)
    assert [(p.pointer, p.keyword) for p in R.check(conversation)] == [
        ("/messages/1/tool_calls/1", "duplicate_item_id")
    ]


def test_check_reasoning_needs_its_following_item() -> None:
    lonely = AssistantMessage(
        content=[ReasoningBlock(id="rs_1", summary=[], encrypted_content="e", provider=NAME)]
    )
    assert _problems([UserMessage(content="x"), lonely]) == [
        ("/messages/1/content/0", "reasoning_without_following_item")
    ]
    assert _problems([UserMessage(content="x"), lonely, UserMessage(content="y")]) == [
        ("/messages/1/content/0", "reasoning_without_following_item")
    ]
    # followed by the next assistant turn's item: fine
    assert _problems([UserMessage(content="x"), lonely, AssistantMessage(content="ok")]) == []
    # reasoning whose message was dropped as unsupported is caught too
    broken = AssistantMessage(
        content=[
            ReasoningBlock(id="rs_1", summary=[], provider=NAME),
            ImageBlock(url="https://e.com/x.png"),
        ]
    )
    assert _problems([UserMessage(content="x"), broken], unsupported="drop") == [
        ("/messages/1/content/0", "reasoning_without_following_item")
    ]


def test_an_input_message_emptied_by_drops_is_not_sent() -> None:
    audio = AudioBlock(base64="UklGRg==", mime_type="audio/wav")
    history = [
        SystemMessage(content=[audio]),
        UserMessage(content="q"),
        AssistantMessage(tool_calls=[ToolCall(id="c1", name="f", arguments={})]),
        ToolMessage(tool_call_id="c1", content=[audio]),  # answers its call: it stays
        UserMessage(content=[audio]),
        SystemMessage(content=[audio]),
        UserMessage(content="x"),
    ]
    expected = {
        "input": [
            {"role": "user", "content": "q"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": ""},
            {"role": "user", "content": "x"},
        ]
    }
    assert R.check(history, unsupported="drop") == []
    for content_format in ("auto", "string", "parts"):
        encoded = R.encode(history, unsupported="drop", content_format=content_format)
        assert encoded["input"][1:3] == expected["input"][1:3]
        assert "instructions" not in encoded and len(encoded["input"]) == 4
    assert R.encode(history, unsupported="drop") == expected
    placeheld = R.encode(history, unsupported="placeholder")
    assert "instructions" in placeheld and len(placeheld["input"]) == 6


def test_check_image_limits() -> None:
    many = UserMessage(
        content=[ImageBlock(url=f"https://e.com/{i}.png") for i in range(R.MAX_IMAGES + 1)]
    )
    assert _problems([many]) == [(f"/messages/0/content/{R.MAX_IMAGES}", "too_many_images")]
    big = "A" * (R.MAX_INLINE_IMAGE_BYTES // 3 * 4 // 2 + 8)
    two = UserMessage(
        content=[
            ImageBlock(base64=big, mime_type="image/png"),
            ImageBlock(base64=big, mime_type="image/png"),
        ]
    )
    assert _problems([two]) == [("/messages/0/content/1", "payload_too_large")]


def test_check_of_a_valid_history_is_empty() -> None:
    for payload in PAYLOADS.values():
        assert R.check(R.decode_conversation(payload)) == []


def test_encode_rejects_bad_neutral_input() -> None:
    with pytest.raises(chatschema.ValidationError):
        R.encode([{"role": "user"}])
    with pytest.raises(chatschema.ValidationError):
        R.check(3)


def test_file_blocks_encode() -> None:
    encoded = R.encode(
        [
            UserMessage(
                content=[FileBlock(base64=PDF, mime_type="application/pdf", filename="a.pdf")]
            )
        ]
    )
    validate_request(NAME, encoded)
    assert encoded["input"][0]["content"] == [
        {
            "type": "input_file",
            "file_data": f"data:application/pdf;base64,{PDF}",
            "filename": "a.pdf",
        }
    ]


def test_consecutive_assistant_messages_become_one_turn() -> None:
    history = [
        UserMessage(content="x"),
        AssistantMessage(content=[TextBlock(text="a", id="msg_1")]),
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content="r"),
    ]
    encoded = R.encode(history)
    decoded = R.decode_messages(encoded)
    assert [m.role for m in decoded] == ["user", "assistant", "tool"]
    assert R.encode(decoded) == encoded


def test_hand_built_non_standard_items_need_the_marker() -> None:
    reference = {"type": "item_reference", "id": "msg_stored"}
    marked = NonStandardBlock(value=reference, extras={NAME: {"kind": "item"}})
    encoded = R.encode([UserMessage(content=[TextBlock(text="see"), marked, TextBlock(text="ok")])])
    validate_request(NAME, encoded)
    assert encoded["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "see"}]},
        reference,
        {"role": "user", "content": [{"type": "input_text", "text": "ok"}]},
    ]
    with pytest.raises(UnsupportedContentError) as error:
        R.encode([UserMessage(content=[NonStandardBlock(value=reference)])])
    assert error.value.block_index == 0
    # the encoded value is a copy: editing it leaves the block alone
    encoded["input"][1]["id"] = "changed"
    assert marked.value == reference


def test_tool_choice_round_trips() -> None:
    for choice, wire in [
        ({"type": "auto"}, {"tool_choice": "auto"}),
        ({"type": "none"}, {"tool_choice": "none"}),
        ({"type": "required"}, {"tool_choice": "required"}),
        (
            {"type": "required", "parallel": False},
            {"tool_choice": "required", "parallel_tool_calls": False},
        ),
        ({"type": "tool", "name": "f"}, {"tool_choice": {"type": "function", "name": "f"}}),
    ]:
        conversation = chatschema.parse_conversation(
            {"messages": [{"role": "user", "content": "x"}], "tool_choice": choice}
        )
        encoded = R.encode(conversation)
        validate_request(NAME, encoded)
        assert {k: v for k, v in encoded.items() if k != "input"} == wire
        assert to_dict(R.decode_conversation(encoded))["tool_choice"] == choice


def test_encode_is_linear_in_history_length() -> None:
    import gc
    import time

    def history(turns: int) -> list[Any]:
        out: list[Any] = [{"role": "user", "content": "start"}]
        for n in range(turns):
            out += [_rs(n, ["s"]), _msg(n, _text("t")), _fc(n), _out(n)]
        return out

    def best(payload: dict[str, Any]) -> float:
        times = []
        for _ in range(5):
            gc.collect()
            start = time.perf_counter()
            R.encode(R.decode_conversation(payload))
            times.append(time.perf_counter() - start)
        return min(times)

    small, large = {"input": history(60)}, {"input": history(480)}
    assert R.encode(R.decode_conversation(large)) == large
    ratio = best(large) / best(small)
    # linear: about 8; quadratic: about 64
    assert ratio < 24, f"8x the history took {ratio:.1f}x the time"
