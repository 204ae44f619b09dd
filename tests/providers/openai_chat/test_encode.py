"""The OpenAI Chat Completions codec: encode (neutral round trips, options, exact
encodings) and check.

Every encoder output goes through the official SDK request types (``oracle``).
Where a payload carries keys those types do not have (``reasoning_content`` of
DeepSeek/vLLM, a tool message's ``name`` some clients send, unknown keys that must
survive a round trip, custom tools, which the oracle's function-only tool type
refuses), the oracle is run on the payload without those keys only, and the case
says which.
"""

from __future__ import annotations

from typing import Any

import pytest

import chatschema
from chatschema import (
    AssistantMessage,
    AudioBlock,
    AutoToolChoice,
    CacheControl,
    Conversation,
    ConversionError,
    FileBlock,
    ImageBlock,
    InvalidToolCall,
    NamedToolChoice,
    NoneToolChoice,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    RefusalBlock,
    RequiredToolChoice,
    ServerToolCallBlock,
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
from chatschema.providers import openai_chat as oc
from chatschema.providers._common import parse_arguments
from providers.openai_chat.helpers import PDF, PNG, WAV, oracle

# ============================================================ neutral conversations: round trip

NEUTRAL_CASES: list[tuple[str, Conversation, dict[str, Any]]] = [
    (
        "text-and-names",
        Conversation(
            messages=[
                SystemMessage(content="Be brief.", name="policy"),
                UserMessage(content="hi", name="bob"),
                AssistantMessage(content="hello"),
                AssistantMessage(content=""),
                AssistantMessage(),
            ]
        ),
        {},
    ),
    (
        "blocks",
        Conversation(
            messages=[
                SystemMessage(
                    content=[
                        TextBlock(
                            text="rules", cache_control=CacheControl(type="ephemeral", ttl="30m")
                        )
                    ]
                ),
                UserMessage(
                    content=[
                        TextBlock(text="see"),
                        ImageBlock(url="https://example.com/x.png", detail="low"),
                        ImageBlock(
                            base64=PNG,
                            mime_type="image/png",
                            cache_control=CacheControl(type="ephemeral"),
                        ),
                        AudioBlock(base64=WAV, mime_type="audio/wav"),
                        AudioBlock(base64=WAV, mime_type="audio/mpeg"),
                        FileBlock(base64=PDF, mime_type="application/pdf", filename="a.pdf"),
                        FileBlock(file_id="file-1"),
                    ]
                ),
                AssistantMessage(content=[TextBlock(text="a"), RefusalBlock(text="b")]),
                AssistantMessage(content=[RefusalBlock(text="no")]),
                AssistantMessage(content=[]),
            ]
        ),
        {},
    ),
    (
        "tools",
        Conversation(
            messages=[
                UserMessage(content="go"),
                AssistantMessage(
                    tool_calls=[
                        ToolCall(
                            id="c1", name="get_weather", arguments={"city": "Oslo", "n": [1, 2.5]}
                        ),
                        ToolCall(
                            id="c2",
                            name="run_sql",
                            arguments={"input": "SELECT 1"},
                            extras={"openai_chat": {"type": "custom"}},
                        ),
                    ]
                ),
                ToolMessage(tool_call_id="c1", content="cold"),
                ToolMessage(
                    tool_call_id="c2", content=[TextBlock(text="1"), TextBlock(text="row")]
                ),
                AssistantMessage(
                    content="retrying",
                    tool_calls=[ToolCall(id="c4", name="get_weather", arguments={}, index=1)],
                    invalid_tool_calls=[
                        # `error` is not sent: a decoder says why again, in the parser's words
                        InvalidToolCall(
                            id="c3",
                            name="get_weather",
                            arguments="{oops",
                            error=parse_arguments("{oops")[1],
                            index=0,
                        )
                    ],
                ),
                ToolMessage(tool_call_id="c3", content="error"),
                ToolMessage(tool_call_id="c4", content="ok"),
            ],
            tools=[
                ToolDefinition(
                    name="get_weather",
                    description="Weather.",
                    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
                    strict=True,
                ),
                ToolDefinition(
                    name="run_sql",
                    parameters=oc.CUSTOM_TOOL_PARAMETERS,
                    extras={"openai_chat": {"type": "custom"}},
                ),
            ],
            tool_choice=NamedToolChoice(name="run_sql"),
        ),
        {},
    ),
    *[
        (
            f"choice-{choice.type}-{getattr(choice, 'parallel', None)}",
            Conversation(
                messages=[UserMessage(content="x")],
                tools=[ToolDefinition(name="f", parameters={"type": "object"})],
                tool_choice=choice,
            ),
            {},
        )
        for choice in (
            AutoToolChoice(),
            AutoToolChoice(parallel=True),
            NoneToolChoice(),
            RequiredToolChoice(),
            RequiredToolChoice(parallel=False),
            NamedToolChoice(name="f"),
        )
    ],
]


@pytest.mark.parametrize(
    ("conversation", "options"),
    [case[1:] for case in NEUTRAL_CASES],
    ids=[case[0] for case in NEUTRAL_CASES],
)
def test_neutral_round_trip_is_exact(conversation: Conversation, options: dict[str, Any]) -> None:
    before = to_dict(conversation)
    encoded = oc.encode(conversation, **options)
    assert to_dict(conversation) == before  # encoding does not touch its input
    skip = [
        ("messages", index, "reasoning_content")
        for index, message in enumerate(encoded["messages"])
        if "reasoning_content" in message
    ]
    oracle(encoded, skip=skip)
    assert to_dict(oc.decode_conversation(encoded)) == before
    # dict input gives the same result as models
    assert oc.encode(before, **options) == encoded


OWN_REASONING = Conversation(
    messages=[
        UserMessage(content="q"),
        AssistantMessage(
            content=[ReasoningBlock(text="think", provider="openai_chat"), TextBlock(text="a")]
        ),
        AssistantMessage(
            content=[ReasoningBlock(text="only", provider="openai_chat")],
            tool_calls=[ToolCall(id="c", name="f", arguments={"x": 1})],
        ),
        ToolMessage(tool_call_id="c", content="r"),
    ]
)


def test_own_reasoning_round_trip_remembers_it_was_sent() -> None:
    """Reasoning sent with ``reasoning_content=True`` decodes with the ``sent`` mark,
    so the decoded request goes back the same way without the option."""
    encoded = oc.encode(OWN_REASONING, reasoning_content=True)
    oracle(
        encoded, skip=[("messages", 1, "reasoning_content"), ("messages", 2, "reasoning_content")]
    )
    decoded = to_dict(oc.decode_conversation(encoded))
    expected = to_dict(OWN_REASONING)
    for index in (1, 2):
        expected["messages"][index]["content"][0]["extras"] = {"openai_chat": {"sent": True}}
    assert decoded == expected
    assert oc.encode(decoded) == encoded
    assert "reasoning_content" not in oc.encode(OWN_REASONING)["messages"][1]


# ============================================================ exact encodings


def _messages(*messages: Any, **options: Any) -> list[dict[str, Any]]:
    encoded = oc.encode(list(messages), **options)
    oracle(encoded)
    return encoded["messages"]  # type: ignore[no-any-return]


def test_tool_result_images_move_to_a_user_message() -> None:
    messages = [
        UserMessage(content="screenshot both"),
        AssistantMessage(
            tool_calls=[
                ToolCall(id="s1", name="shot", arguments={}),
                ToolCall(id="s2", name="shot", arguments={}),
            ]
        ),
        ToolMessage(
            tool_call_id="s1",
            content=[
                TextBlock(text="page 1"),
                ImageBlock(
                    url="https://example.com/1.png", cache_control=CacheControl(type="ephemeral")
                ),
            ],
        ),
        ToolMessage(tool_call_id="s2", content=[ImageBlock(base64=PNG, mime_type="image/png")]),
        AssistantMessage(content="Both pages load."),
    ]
    assert oc.check(messages) == []
    assert _messages(*messages)[2:] == [
        {"role": "tool", "tool_call_id": "s1", "content": [{"type": "text", "text": "page 1"}]},
        {"role": "tool", "tool_call_id": "s2", "content": ""},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Images returned by tool call s1:"},
                {
                    "type": "image_url",
                    "image_url": {"url": "https://example.com/1.png"},
                    "prompt_cache_breakpoint": {"mode": "explicit"},
                },
                {"type": "text", "text": "Images returned by tool call s2:"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        },
        {"role": "assistant", "content": "Both pages load."},
    ]


def test_tool_result_images_at_the_end_are_flushed() -> None:
    messages = [
        AssistantMessage(tool_calls=[ToolCall(id="s1", name="shot", arguments={})]),
        ToolMessage(tool_call_id="s1", content=[ImageBlock(url="https://example.com/1.png")]),
    ]
    assert _messages(*messages)[-1]["role"] == "user"
    # other non-text tool content is unsupported content
    with pytest.raises(UnsupportedContentError) as error:
        oc.encode(
            [messages[0], ToolMessage(tool_call_id="s1", content=[FileBlock(file_id="file-1")])]
        )
    assert (error.value.message_index, error.value.block_index) == (1, 0)
    assert "tool result" in str(error.value)


@pytest.mark.parametrize(
    ("ttl", "expected"),
    [
        (None, {}),
        ("30m", {"ttl": "30m"}),
        ("12h", {"ttl": "12h"}),
        ("5m", {"ttl": "30m"}),
        ("1800s", {"ttl": "30m"}),
        ("1h", {"ttl": "12h"}),
        ("24h", {"ttl": "12h"}),
    ],
)
def test_cache_control_ttl_rounds_up(ttl: str | None, expected: dict[str, str]) -> None:
    cache = CacheControl(type="ephemeral", ttl=ttl) if ttl else CacheControl(type="ephemeral")
    message = UserMessage(content=[TextBlock(text="t", cache_control=cache)])
    assert _messages(message)[0]["content"][0]["prompt_cache_breakpoint"] == {
        "mode": "explicit",
        **expected,
    }
    assert _messages(message, prompt_cache=False)[0]["content"] == [{"type": "text", "text": "t"}]


def test_system_role_option_and_recorded_role() -> None:
    plain = SystemMessage(content="a")
    developer = SystemMessage(content="b", extras={"openai_chat": {"role": "developer"}})
    assert [m["role"] for m in _messages(plain, developer)] == ["system", "developer"]
    assert [m["role"] for m in _messages(plain, developer, system_role="developer")] == [
        "developer",
        "developer",
    ]
    assert [m["role"] for m in _messages(plain, developer, system_role="system")] == [
        "system",
        "system",
    ]


def test_content_format_string_and_parts() -> None:
    messages = [
        SystemMessage(
            content=[
                TextBlock(text="a"),
                TextBlock(text="b", cache_control=CacheControl(type="ephemeral")),
            ]
        ),
        UserMessage(content="plain"),
        AssistantMessage(content=[TextBlock(text="x"), RefusalBlock(text="no")]),
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content=[TextBlock(text="r1"), TextBlock(text="r2")]),
    ]
    assert _messages(*messages, content_format="string") == [
        {"role": "system", "content": "a\nb"},
        {"role": "user", "content": "plain"},
        {"role": "assistant", "content": "x", "refusal": "no"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c", "content": "r1\nr2"},
    ]
    parts = _messages(*messages, content_format="parts")
    assert parts[1] == {"role": "user", "content": [{"type": "text", "text": "plain"}]}
    assert parts[2]["content"] == [
        {"type": "text", "text": "x"},
        {"type": "refusal", "refusal": "no"},
    ]
    assert parts[3]["content"] is None


def test_string_form_refuses_images_by_policy() -> None:
    message = UserMessage(
        content=[TextBlock(text="look"), ImageBlock(url="https://example.com/a.png")]
    )
    with pytest.raises(UnsupportedContentError) as error:
        oc.encode([message], content_format="string")
    assert (error.value.provider, error.value.message_index, error.value.block_index) == (
        "openai_chat",
        0,
        1,
    )
    assert _messages(message, content_format="string", unsupported="drop") == [
        {"role": "user", "content": "look"}
    ]
    assert _messages(message, content_format="string", unsupported="placeholder") == [
        {
            "role": "user",
            "content": "look\n[an image in string content omitted: not supported by openai_chat]",
        }
    ]


def test_vision_off() -> None:
    message = UserMessage(
        content=[TextBlock(text="look"), ImageBlock(url="https://example.com/a.png")]
    )
    problems = oc.check([message], vision=False)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/0/content/1", "unsupported_content")
    ]
    with pytest.raises(ConversionError) as error:
        oc.encode([message], vision=False)
    assert error.value.problems == tuple(problems) and error.value.message_index == 0
    with pytest.raises(UnsupportedContentError):
        oc.encode([message], vision=False, check=False)
    assert oc.check([message], vision=False, unsupported="drop") == []
    assert _messages(message, vision=False, unsupported="drop") == [
        {"role": "user", "content": [{"type": "text", "text": "look"}]}
    ]
    assert _messages(message, vision=False, unsupported="placeholder")[0]["content"][1] == {
        "type": "text",
        "text": "[an image (vision is off) omitted: not supported by openai_chat]",
    }


UNSUPPORTED_CASES: list[tuple[str, Any, int]] = [
    (
        "video",
        UserMessage(content=[TextBlock(text="a"), VideoBlock(url="https://example.com/v.mp4")]),
        1,
    ),
    ("text-plain", UserMessage(content=[PlainTextBlock(text="doc", title="T")]), 0),
    ("image-in-system", SystemMessage(content=[ImageBlock(url="https://example.com/a.png")]), 0),
    ("image-by-file-id", UserMessage(content=[ImageBlock(file_id="file-9")]), 0),
    ("audio-url", UserMessage(content=[AudioBlock(url="https://example.com/a.wav")]), 0),
    ("audio-ogg", UserMessage(content=[AudioBlock(base64=WAV, mime_type="audio/ogg")]), 0),
    ("file-url", UserMessage(content=[FileBlock(url="https://example.com/a.pdf")]), 0),
    ("refusal-in-user", UserMessage(content=[RefusalBlock(text="no")]), 0),
    (
        "image-in-assistant",
        AssistantMessage(content=[TextBlock(text="x"), ImageBlock(url="https://e.com/a.png")]),
        1,
    ),
    (
        "server-tool-call",
        AssistantMessage(content=[ServerToolCallBlock(id="s", name="web_search")]),
        0,
    ),
    (
        "foreign-non-standard",
        UserMessage(content=[NonStandardBlock(value={"type": "document"})]),
        0,
    ),
]


@pytest.mark.parametrize(
    ("message", "block"),
    [case[1:] for case in UNSUPPORTED_CASES],
    ids=[case[0] for case in UNSUPPORTED_CASES],
)
def test_unsupported_content_follows_the_policy(message: Any, block: int) -> None:
    with pytest.raises(UnsupportedContentError) as error:
        oc.encode([UserMessage(content="first"), message])
    assert (error.value.provider, error.value.message_index, error.value.block_index) == (
        "openai_chat",
        1,
        block,
    )
    dropped = oc.encode([message], unsupported="drop")
    oracle(dropped)
    placeholder = oc.encode([message], unsupported="placeholder")
    oracle(placeholder)
    texts = [part.get("text", "") for part in placeholder["messages"][0]["content"]]
    assert any("omitted: not supported by openai_chat" in text for text in texts)


def test_reasoning_policies() -> None:
    foreign = AssistantMessage(
        content=[
            ReasoningBlock(text="Claude thought", signature="sig", provider="anthropic"),
            TextBlock(text="answer"),
        ]
    )
    own = AssistantMessage(
        content=[
            ReasoningBlock(text="R1 thought", provider="openai_chat"),
            TextBlock(text="answer"),
        ]
    )
    summary = AssistantMessage(
        content=[
            ReasoningBlock(summary=["s1", "s2"], provider="openai_responses"),
            TextBlock(text="a"),
        ]
    )
    assert _messages(foreign) == [{"role": "assistant", "content": "answer"}]
    assert _messages(foreign, reasoning="text") == [
        {"role": "assistant", "content": "Claude thought\nanswer"}
    ]
    assert _messages(summary, reasoning="text") == [{"role": "assistant", "content": "s1\ns2\na"}]
    assert _messages(foreign, reasoning="text", reasoning_content=True) == [
        {"role": "assistant", "content": "Claude thought\nanswer"}
    ]
    assert _messages(own) == [{"role": "assistant", "content": "answer"}]
    assert oc.encode([own], reasoning_content=True)["messages"] == [
        {"role": "assistant", "content": "answer", "reasoning_content": "R1 thought"}
    ]
    assert _messages(own, reasoning="drop", reasoning_content=True) == [
        {"role": "assistant", "content": "answer"}
    ]
    # reasoning in a user message is never replayed; "text" renders it
    user = UserMessage(content=[ReasoningBlock(text="pasted", provider="x"), TextBlock(text="q")])
    assert _messages(user) == [{"role": "user", "content": [{"type": "text", "text": "q"}]}]
    assert _messages(user, reasoning="text")[0]["content"][0] == {"type": "text", "text": "pasted"}


def test_native_tools_off_renders_tools_as_text() -> None:
    conversation = Conversation(
        messages=[
            SystemMessage(content="Be useful."),
            UserMessage(content="Weather in Oslo?"),
            AssistantMessage(
                content="Looking it up.",
                tool_calls=[ToolCall(id="c1", name="get_weather", arguments={"city": "Oslo"})],
                invalid_tool_calls=[InvalidToolCall(id="c2", name="get_weather", arguments="{x")],
            ),
            ToolMessage(tool_call_id="c1", content="cold", name="get_weather"),
            ToolMessage(
                tool_call_id="c2",
                content=[TextBlock(text="bad"), ImageBlock(url="https://example.com/e.png")],
                status="error",
            ),
        ],
        tools=[ToolDefinition(name="get_weather", parameters={"type": "object"})],
        tool_choice=RequiredToolChoice(),
    )
    encoded = oc.encode(conversation, native_tools=False)
    oracle(encoded)
    tools_text = (
        "You can call these tools. To call one, answer with "
        '<tool_call id="<unique id>" name="<tool name>"><JSON arguments></tool_call>.\n'
        '- get_weather\n  parameters: {"type": "object"}'
    )
    assert encoded == {
        "messages": [
            {"role": "system", "content": f"Be useful.\n\n{tools_text}"},
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": "Looking it up.\n"
                '<tool_call id="c1" name="get_weather">{"city": "Oslo"}</tool_call>\n'
                '<tool_call id="c2" name="get_weather">{x</tool_call>',
            },
            {
                "role": "user",
                "content": (
                    '<tool_result id="c1" name="get_weather" status="success">cold</tool_result>'
                ),
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": '<tool_result id="c2" status="error">bad</tool_result>',
                    },
                    {"type": "image_url", "image_url": {"url": "https://example.com/e.png"}},
                ],
            },
        ]
    }
    # a decoded turn without a `content` key: the calls' text is the content
    decoded = oc.decode_messages(
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "k", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ]
    )
    assert oc.encode(decoded, native_tools=False)["messages"] == [
        {"role": "assistant", "content": '<tool_call id="k" name="f">{}</tool_call>'}
    ]
    # no system message: one is added in front
    bare = oc.encode(
        Conversation(messages=[UserMessage(content="hi")], tools=conversation.tools),
        native_tools=False,
        system_role="developer",
    )
    assert bare["messages"][0] == {"role": "developer", "content": tools_text}


def test_invalid_tool_call_without_id() -> None:
    message = AssistantMessage(invalid_tool_calls=[InvalidToolCall(name="f", arguments="{")])
    with pytest.raises(UnsupportedContentError) as error:
        oc.encode([message])
    assert error.value.message_index == 0
    # the drop leaves the message empty: it is not sent (the API rejects an assistant
    # message with neither content nor tool calls)
    assert _messages(message, unsupported="drop") == []
    kept = AssistantMessage(
        content="Trying.", invalid_tool_calls=[InvalidToolCall(name="f", arguments="{")]
    )
    assert _messages(kept, unsupported="drop") == [{"role": "assistant", "content": "Trying."}]


def test_a_message_emptied_by_drops_is_not_sent() -> None:
    video = VideoBlock(url="https://example.com/v.mp4")
    history = [
        SystemMessage(content=[video]),
        UserMessage(content=[video]),
        AssistantMessage(content=[video]),
        UserMessage(content="x"),
        AssistantMessage(tool_calls=[ToolCall(id="c1", name="f", arguments={})]),
        ToolMessage(tool_call_id="c1", content=[video]),  # answers its call: it stays
    ]
    expected = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": ""},
    ]
    assert oc.check(history, unsupported="drop") == []
    for content_format in ("auto", "string", "parts"):
        assert (
            _messages(*history, unsupported="drop", content_format=content_format)[1:]
            == (expected[1:])
        )
    assert _messages(*history, unsupported="drop") == expected
    # placeholders keep every message
    assert len(_messages(*history, unsupported="placeholder")) == len(history)
    # an empty message that no drop made is sent as before
    assert _messages(UserMessage(content=[]), unsupported="drop") == [
        {"role": "user", "content": []}
    ]


def test_arguments_text_reuse() -> None:
    kept = ToolCall(
        id="a", name="f", arguments={"x": 1}, extras={"openai_chat": {"arguments": '{ "x" : 1 }'}}
    )
    stale = ToolCall(
        id="b", name="f", arguments={"x": 2}, extras={"openai_chat": {"arguments": '{"x":1}'}}
    )
    empty = ToolCall(id="c", name="f", arguments={}, extras={"openai_chat": {"arguments": ""}})
    fresh = ToolCall(id="d", name="f", arguments={"city": "Zürich"})
    calls = _messages(AssistantMessage(tool_calls=[kept, stale, empty, fresh]), check=False)[0][
        "tool_calls"
    ]
    assert [call["function"]["arguments"] for call in calls] == [
        '{ "x" : 1 }',
        '{"x": 2}',
        "",
        '{"city": "Zürich"}',
    ]


def test_custom_tool_call_needs_input_string() -> None:
    call = ToolCall(
        id="c", name="run", arguments={"sql": "x"}, extras={"openai_chat": {"type": "custom"}}
    )
    messages = [AssistantMessage(tool_calls=[call]), ToolMessage(tool_call_id="c", content="r")]
    assert [(p.pointer, p.keyword) for p in oc.check(messages)] == [
        ("/messages/0/tool_calls/0/arguments", "custom_tool_input")
    ]
    with pytest.raises(ConversionError) as error:
        oc.encode(messages, check=False)
    assert error.value.message_index == 0


# ============================================================ check

CHECK_CASES: list[tuple[str, list[Any], dict[str, Any], list[tuple[str, str]]]] = [
    (
        "unanswered",
        [
            UserMessage(content="x"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
        ],
        {},
        [("/messages/1/tool_calls/0/id", "unanswered_tool_call")],
    ),
    (
        "user-between-call-and-result",
        [
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            UserMessage(content="wait"),
            ToolMessage(tool_call_id="a", content="r"),
        ],
        {},
        [
            ("/messages/0/tool_calls/0/id", "unanswered_tool_call"),
            ("/messages/2/tool_call_id", "orphan_tool_result"),
        ],
    ),
    (
        "duplicate-and-twice-answered",
        [
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            ToolMessage(tool_call_id="a", content="r"),
            ToolMessage(tool_call_id="a", content="r"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            ToolMessage(tool_call_id="a", content="r"),
        ],
        {},
        [
            ("/messages/2/tool_call_id", "orphan_tool_result"),
            ("/messages/3/tool_calls/0/id", "duplicate_tool_call_id"),
        ],
    ),
    (
        "invalid-calls-need-answers",
        [AssistantMessage(invalid_tool_calls=[InvalidToolCall(id="b", name="f", arguments="{")])],
        {},
        [("/messages/0/invalid_tool_calls/0/id", "unanswered_tool_call")],
    ),
    (
        "names",
        [
            UserMessage(content="x", name="Alice Smith"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="my.tool", arguments={})]),
            ToolMessage(tool_call_id="a", content="r", name="any name is fine here"),
        ],
        {},
        [("/messages/0/name", "pattern"), ("/messages/1/tool_calls/0/name", "pattern")],
    ),
    (
        "native-tools-off-skips-tool-rules",
        [AssistantMessage(tool_calls=[ToolCall(id="a", name="my.tool", arguments={})])],
        {"native_tools": False},
        [],
    ),
]


@pytest.mark.parametrize(
    ("messages", "options", "expected"),
    [case[1:] for case in CHECK_CASES],
    ids=[case[0] for case in CHECK_CASES],
)
def test_check(
    messages: list[Any], options: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    problems = oc.check(messages, **options)
    assert [(p.pointer, p.keyword) for p in problems] == expected
    assert chatschema.check(messages, "openai_chat", **options) == problems
    if expected:
        with pytest.raises(ConversionError) as error:
            oc.encode(messages, **options)
        assert error.value.problems == tuple(problems)
        assert error.value.message_index == int(expected[0][0].split("/")[2])
        assert str(error.value).split(": ", 1)[1].startswith(f"{len(problems)} ")
    else:
        oracle(oc.encode(messages, **options))


def test_check_tool_choice_needs_tools() -> None:
    for choice in (AutoToolChoice(parallel=False), RequiredToolChoice(), NamedToolChoice(name="f")):
        conversation = Conversation(messages=[UserMessage(content="x")], tool_choice=choice)
        assert [(p.pointer, p.keyword) for p in oc.check(conversation)] == [
            ("/tool_choice", "tools_required")
        ]
        assert oc.check(conversation, native_tools=False) == []
    none = Conversation(messages=[UserMessage(content="x")], tool_choice=NoneToolChoice())
    assert oc.check(none) == []
    # a bare "auto" asks for nothing a request without tools lacks (Mistral takes it)
    auto = Conversation(messages=[UserMessage(content="x")], tool_choice=AutoToolChoice())
    assert oc.check(auto) == []
    assert oc.encode(auto)["tool_choice"] == "auto"


def test_check_tool_names() -> None:
    conversation = Conversation(
        messages=[UserMessage(content="x")],
        tools=[
            ToolDefinition(name="ok_name-1", parameters={}),
            ToolDefinition(name="bad name", parameters={}),
            ToolDefinition(name="x" * 65, parameters={}),
        ],
    )
    assert [(p.pointer, p.keyword) for p in oc.check(conversation)] == [
        ("/tools/1/name", "pattern"),
        ("/tools/2/name", "pattern"),
    ]
    with pytest.raises(ConversionError) as error:
        oc.encode(conversation)
    assert error.value.message_index is None and len(error.value.problems) == 2
    assert oc.check(conversation, native_tools=False) == []


def test_encode_input_and_option_errors() -> None:
    with pytest.raises(ValidationError):
        oc.encode([{"role": "user"}])
    with pytest.raises(OptionError):
        oc.encode([UserMessage(content="x")], content_format="xml")  # type: ignore[typeddict-item]
    with pytest.raises(OptionError):
        oc.encode([UserMessage(content="x")], temperature=1)  # type: ignore[call-arg]
    with pytest.raises(OptionError):
        oc.check([UserMessage(content="x")], vision="no")  # type: ignore[typeddict-item]
