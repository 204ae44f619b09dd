"""History utilities: trim, filter, merge runs, coerce, usage, truncation, text views."""

from __future__ import annotations

from typing import Any

import pytest

import chatschema
from chatschema import (
    AssistantMessage,
    ImageBlock,
    Message,
    ReasoningBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolMessage,
    Usage,
    UserMessage,
    trim_messages,
)

JOKES: list[Message] = [
    SystemMessage(content="you're a good assistant, you always respond with a joke."),
    UserMessage(content="i wonder why it's called langchain"),
    AssistantMessage(
        content='Well, I guess they thought "WordRope" and "SentenceString" just '
        "didn't have the same ring to it!"
    ),
    UserMessage(content="and who is harrison chasing anyways"),
    AssistantMessage(
        content="Hmmm let me think.\n\nWhy, he's probably chasing after the last "
        "cup of coffee in the office!"
    ),
    UserMessage(content="what do you call a speechless parrot"),
]


def test_langchain_reference_example_message_count() -> None:
    kept = trim_messages(
        JOKES,
        max_tokens=4,
        strategy="last",
        token_counter=len,
        start_on="human",
        include_system=True,
        allow_partial=False,
    )
    assert kept == [JOKES[0], JOKES[3], JOKES[4], JOKES[5]]


FOUR: list[Message] = [
    SystemMessage(content="This is a 4 token text. The full message is 10 tokens."),
    UserMessage(content="This is a 4 token text. The full message is 10 tokens.", id="first"),
    AssistantMessage(
        content=[
            TextBlock(text="This is the FIRST 4 token block."),
            TextBlock(text="This is the SECOND 4 token block."),
        ],
        id="second",
    ),
    UserMessage(content="This is a 4 token text. The full message is 10 tokens.", id="third"),
    AssistantMessage(content="This is a 4 token text. The full message is 10 tokens.", id="fourth"),
]


def dummy_token_counter(messages: list[Message]) -> int:
    count = 0
    for message in messages:
        if isinstance(message.content, str):
            count += 3 + 4 + 3
        else:
            count += 3 + len(message.content) * 4 + 3
    return count


def test_langchain_reference_example_first_with_partial() -> None:
    kept = trim_messages(
        FOUR,
        max_tokens=30,
        token_counter=dummy_token_counter,
        strategy="first",
        allow_partial=True,
    )
    assert kept[:2] == FOUR[:2]
    assert chatschema.to_dict(kept[2]) == {
        "role": "assistant",
        "id": "second",
        "content": [{"type": "text", "text": "This is the FIRST 4 token block."}],
    }
    assert len(kept) == 3


def _tool_history() -> list[Message]:
    return [
        SystemMessage(content="sys"),
        UserMessage(content="weather in Oslo and Bergen?"),
        AssistantMessage(
            tool_calls=[
                ToolCall(id="a", name="weather", arguments={"city": "Oslo"}),
                ToolCall(id="b", name="weather", arguments={"city": "Bergen"}),
            ]
        ),
        ToolMessage(tool_call_id="a", content="rain"),
        ToolMessage(tool_call_id="b", content="sun"),
        AssistantMessage(content="Oslo: rain. Bergen: sun."),
        UserMessage(content="thanks"),
    ]


@pytest.mark.parametrize("budget", range(0, 9))
def test_trim_last_never_separates_tool_results_from_their_call(budget: int) -> None:
    history = _tool_history()
    kept = trim_messages(history, max_tokens=budget, token_counter=len)
    assert len(kept) <= budget
    assert not kept or not isinstance(kept[0], ToolMessage)
    ids = {c.id for m in kept if isinstance(m, AssistantMessage) for c in m.tool_calls}
    results = {m.tool_call_id for m in kept if isinstance(m, ToolMessage)}
    assert ids == results  # every call answered, every result has its call
    # With budget 3 the tool turn (3 messages) does not fit behind the last two.
    if budget == 3:
        assert kept == history[-2:]


@pytest.mark.parametrize("budget", range(0, 9))
def test_trim_first_never_ends_with_an_unanswered_call(budget: int) -> None:
    kept = trim_messages(_tool_history(), max_tokens=budget, token_counter=len, strategy="first")
    ids = {c.id for m in kept if isinstance(m, AssistantMessage) for c in m.tool_calls}
    assert ids == {m.tool_call_id for m in kept if isinstance(m, ToolMessage)}


def test_trim_drops_orphan_results_at_the_start_and_keeps_the_system_message() -> None:
    history = [
        SystemMessage(content="sys"),
        ToolMessage(tool_call_id="lost", content="orphan"),
        UserMessage(content="hi"),
    ]
    assert trim_messages(history, max_tokens=10, token_counter=len, include_system=True) == [
        history[0],
        history[2],
    ]


def test_trim_last_partial_keeps_trailing_lines_and_end_on() -> None:
    history = [
        UserMessage(content="line 1\nline 2\nline 3\n"),
        AssistantMessage(content="ok"),
        UserMessage(content="tail"),
    ]

    def words(message: Message) -> int:
        return len(message.text.split())

    kept = trim_messages(
        history, max_tokens=5, token_counter=words, allow_partial=True, end_on="ai"
    )
    assert [m.text for m in kept] == ["line 2\nline 3\n", "ok"]


def test_trim_argument_errors() -> None:
    with pytest.raises(chatschema.errors.OptionError):
        trim_messages(JOKES, max_tokens=5, strategy="middle")  # type: ignore[arg-type]
    with pytest.raises(chatschema.errors.OptionError):
        trim_messages(JOKES, max_tokens=5, strategy="first", include_system=True)
    with pytest.raises(chatschema.errors.OptionError):
        trim_messages(JOKES, max_tokens=5, token_counter="exact")  # type: ignore[arg-type]


def test_trim_counts_each_message_once() -> None:
    calls = 0

    def counting(message: Message) -> int:
        nonlocal calls
        calls += 1
        return 1

    history = [UserMessage(content=str(i)) for i in range(1000)]
    trim_messages(history, max_tokens=500, token_counter=counting)
    assert calls <= 502


def test_count_tokens_approximately_follows_the_documented_formula() -> None:
    assert chatschema.count_tokens_approximately([]) == 0
    assert chatschema.count_tokens_approximately([UserMessage(content="")]) == 4
    pair = [
        UserMessage(content="Hello", name="Alice"),
        AssistantMessage(content="Hi there", name="Bob"),
    ]
    # user: ceil((4 + 5 + 5) / 4) + 3 = 7; assistant: ceil((9 + 8 + 3) / 4) + 3 = 8
    assert chatschema.count_tokens_approximately(pair) == 15
    assert chatschema.count_tokens_approximately(pair, count_name=False) == 14
    image = UserMessage(content=[ImageBlock(base64="A" * 1_000_000, mime_type="image/png")])
    assert chatschema.count_tokens_approximately(image) == 1 + 3 + 85  # never the base64
    signed = AssistantMessage(content=[ReasoningBlock(text="abcd", signature="S" * 400)])
    assert chatschema.count_tokens_approximately(signed) == 4 + 3  # ceil((9 + 4) / 4) + 3


def test_tiktoken_counter_never_downloads(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(chatschema.tokens.TokenizerUnavailableError, match="not available offline"):
        chatschema.tiktoken_counter("o200k_base")
    import tiktoken

    ranks = {bytes([value]): value for value in range(256)}
    encoding = tiktoken.Encoding(
        "bytes", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={}
    )
    counter = chatschema.tiktoken_counter(encoding)
    # role "user" + "\n" + "" (no name) + "\n" + "hi" = 8 bytes, plus 3 per message
    assert counter(UserMessage(content="hi")) == 8 + 3


def test_filter_messages() -> None:
    history = _tool_history()
    assert [
        m.role for m in chatschema.filter_messages(history, include_types=["human", "system"])
    ] == [
        "system",
        "user",
        "user",
    ]
    without_tools = chatschema.filter_messages(history, exclude_tool_calls=True)
    assert not any(isinstance(m, ToolMessage) for m in without_tools)
    assert all(not getattr(m, "tool_calls", None) for m in without_tools)
    only_b = chatschema.filter_messages(history, exclude_tool_calls=["a"])
    assert [c.id for c in only_b[2].tool_calls] == ["b"]  # type: ignore[union-attr]
    assert [m.tool_call_id for m in only_b if isinstance(m, ToolMessage)] == ["b"]


def test_merge_message_runs_keeps_data_and_participants() -> None:
    history = [
        UserMessage(content="a", name="ann"),
        UserMessage(content="b", name="ann"),
        UserMessage(content="c", name="bob"),
        AssistantMessage(content="x", usage=Usage(input_tokens=1, output_tokens=1, total_tokens=2)),
        AssistantMessage(
            content=[TextBlock(text="y")],
            tool_calls=[ToolCall(id="t", name="f", arguments={})],
            usage=Usage(input_tokens=2, output_tokens=3, total_tokens=5),
            response_metadata={"k": 1},
        ),
        ToolMessage(tool_call_id="t", content="r1"),
    ]
    merged = chatschema.merge_message_runs(history)
    assert [chatschema.to_dict(m) for m in merged] == [
        {"role": "user", "content": "a\nb", "name": "ann"},
        {"role": "user", "content": "c", "name": "bob"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}],
            "usage": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
            "tool_calls": [{"id": "t", "name": "f", "arguments": {}}],
            "response_metadata": {"k": 1},
        },
        {"role": "tool", "tool_call_id": "t", "content": "r1"},
    ]


def test_coerce_messages() -> None:
    messages = chatschema.coerce_messages(
        [
            "hello",
            ("human", "hi"),
            ("ai", "yo"),
            ("developer", "be nice"),
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"x": 1}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
            {
                "type": "human",
                "data": {"content": "from langchain", "id": "m1", "additional_kwargs": {}},
            },
            {
                "type": "ai",
                "content": "lc ai",
                "tool_calls": [{"name": "g", "args": {"y": 2}, "id": "c2", "type": "tool_call"}],
            },
            UserMessage(content="model"),
        ]
    )
    assert [m.role for m in messages] == [
        "user",
        "user",
        "assistant",
        "system",
        "assistant",
        "tool",
        "user",
        "assistant",
        "user",
    ]
    assert messages[4].tool_calls[0].arguments == {"x": 1}  # type: ignore[union-attr]
    assert messages[6].id == "m1"
    assert messages[6].extras == {"coerced": {"additional_kwargs": {}}}
    assert messages[7].tool_calls[0].name == "g"  # type: ignore[union-attr]
    with pytest.raises(chatschema.ValidationError, match="/1"):
        chatschema.coerce_messages(["ok", ("wizard", "?")])
    with pytest.raises(chatschema.ValidationError):
        chatschema.coerce_messages([42])  # type: ignore[list-item]


def test_usage_adds_up() -> None:
    a = Usage(
        input_tokens=10, output_tokens=5, total_tokens=15, input_token_details={"cache_read": 4}
    )
    b = Usage(
        input_tokens=1,
        output_tokens=2,
        total_tokens=3,
        input_token_details={"cache_read": 1, "audio": 2},
        output_token_details={"reasoning": 1},
    )
    assert chatschema.to_dict(a + b) == {
        "input_tokens": 11,
        "output_tokens": 7,
        "total_tokens": 18,
        "input_token_details": {"cache_read": 5, "audio": 2},
        "output_token_details": {"reasoning": 1},
    }


def test_truncate_tool_output_keeps_the_full_output_in_the_artifact() -> None:
    text = "".join(f"line {i}\n" for i in range(5000))
    message = ToolMessage(tool_call_id="c", content=text)
    short = chatschema.truncate_tool_output(message, max_chars=200)
    assert len(short.text) <= 200
    assert short.text.startswith("line 0\n") and short.text.endswith("line 4999\n")
    assert "characters truncated" in short.text
    assert short.artifact == {"content": text}
    assert chatschema.truncate_tool_output(short, max_chars=10_000) is short
    assert chatschema.truncate_text("abc", 10) == "abc"


def test_text_views_hide_data_and_opaque_reasoning() -> None:
    message = AssistantMessage(
        content=[
            ReasoningBlock(text="hmm", signature="SECRET"),
            TextBlock(text="Look: "),
            ImageBlock(base64="QUFB" * 1000, mime_type="image/png"),
            TextBlock(text="done"),
        ],
        tool_calls=[ToolCall(id="c", name="zoom", arguments={"x": 1})],
    )
    assert message.text == "Look: done"
    assert message.content_to_str() == [
        "[reasoning (with opaque data): hmm]",
        "Look: ",
        "[image: image/png, 3000 bytes inline]",
        "done",
    ]
    rendered = message.pretty_repr()
    assert rendered.splitlines()[0] == "=" * 34 + " Ai Message " + "=" * 34
    assert "SECRET" not in rendered and "QUFB" not in rendered
    assert "zoom (c)" in rendered
    transcript = chatschema.get_buffer_string([UserMessage(content="hi"), message])
    assert transcript.startswith("Human: hi\nAI: [reasoning")
    assert transcript.endswith('zoom({"x": 1})')


def test_coerce_reads_langchain_dicts_with_nulls_and_keeps_bad_arguments() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, messages_to_dict

    dicts = messages_to_dict([HumanMessage("hi"), AIMessage("yo")])
    assert [m.text for m in chatschema.coerce_messages(dicts)] == ["hi", "yo"]
    (message,) = chatschema.coerce_messages(
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{bad"},
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "g", "arguments": '{"a": 1}'},
                    },
                ],
            }
        ]
    )
    assert isinstance(message, AssistantMessage)
    assert [c.id for c in message.tool_calls] == ["c2"]
    (invalid,) = message.invalid_tool_calls
    assert (invalid.id, invalid.name, invalid.arguments) == ("c1", "f", "{bad")


def test_a_list_counter_annotated_as_a_list_is_called_with_lists() -> None:
    seen: list[object] = []

    def counter(messages: list) -> int:  # type: ignore[type-arg]
        seen.append(messages)
        return len(messages)

    history = [UserMessage(content="a"), UserMessage(content="b"), UserMessage(content="c")]
    assert trim_messages(history, max_tokens=2, token_counter=counter) == history[1:]
    assert all(isinstance(item, list) for item in seen)


@pytest.mark.parametrize(
    "item",
    [
        {"role": "assistant", "content": "x", "tool_calls": 5},
        {"role": "assistant", "content": "x", "tool_calls": [5, "y"]},
        {"role": "assistant", "content": "x", "tool_calls": [], "invalid_tool_calls": 3},
    ],
)
def test_coerce_reports_wrong_tool_call_shapes(item: dict[str, Any]) -> None:
    with pytest.raises(chatschema.ValidationError) as raised:
        chatschema.coerce_messages([item])
    assert all(p.pointer.startswith("/0/") for p in raised.value.problems)


def test_coerce_reads_langchain_message_objects() -> None:
    from langchain_core.messages import (
        AIMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
        messages_to_dict,
    )

    objects = [
        SystemMessage("Be brief."),
        HumanMessage("Weather in Paris?", id="m1"),
        AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "c1"}]),
        ToolMessage("18C", tool_call_id="c1"),
        AIMessage("18C and sunny.", response_metadata={"model_name": "gpt-4.1"}),
    ]
    messages = chatschema.coerce_messages(objects)
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert messages[1].id == "m1"
    call = messages[2].tool_calls[0]  # type: ignore[union-attr]
    assert (call.id, call.name, call.arguments) == ("c1", "weather", {"city": "Paris"})
    assert messages[4].response_metadata == {"model_name": "gpt-4.1"}  # type: ignore[union-attr]
    # The objects read as their dicts do; unset fields leave no trace.
    assert [m.text for m in messages] == [
        m.text for m in chatschema.coerce_messages(messages_to_dict(objects))
    ]
    assert messages[0].extras is None and messages[3].extras is None
    assert chatschema.coerce_messages(HumanMessage("one"))[0].text == "one"


def test_coerce_keeps_the_developer_role_for_openai() -> None:
    from langchain_core.messages import SystemMessage

    from chatschema.providers import openai_chat, openai_responses

    given = [
        ("developer", "Answer in French."),
        {"role": "developer", "content": "Be brief."},
        SystemMessage("Cite sources.", additional_kwargs={"__openai_role__": "developer"}),
        ("system", "Plain system."),
        ("user", "hi"),
    ]
    messages = chatschema.coerce_messages(given)
    assert [m.role for m in messages[:4]] == ["system"] * 4
    roles = [m["role"] for m in openai_chat.encode(messages)["messages"]]
    assert roles == ["developer", "developer", "developer", "system", "user"]
    # Responses sends leading instructions as `instructions`; a later one as an item.
    later = chatschema.coerce_messages([("user", "hi"), ("developer", "Now in German.")])
    assert openai_responses.encode(later)["input"][1]["role"] == "developer"


def test_filter_messages_takes_langchain_classes() -> None:
    from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage

    history = [
        UserMessage(content="hi"),
        AssistantMessage(content="", tool_calls=[{"id": "c1", "name": "f", "arguments": {}}]),
        chatschema.ToolMessage(tool_call_id="c1", content="done"),
        AssistantMessage(content="ok"),
    ]
    kept = chatschema.filter_messages(history, include_types=[HumanMessage, ToolMessage])
    assert [m.role for m in kept] == ["user", "tool"]
    kept = chatschema.filter_messages(history, exclude_types=AIMessageChunk)
    assert [m.role for m in kept] == ["user", "tool"]
    assert chatschema.filter_messages(history, include_types=AIMessage) == [history[1], history[3]]


@pytest.mark.parametrize("spec", [dict, [UserMessage, 3]])
def test_filter_messages_refuses_types_that_match_nothing(spec: Any) -> None:
    with pytest.raises(chatschema.errors.OptionError, match="roles or message classes"):
        chatschema.filter_messages([UserMessage(content="hi")], include_types=spec)
