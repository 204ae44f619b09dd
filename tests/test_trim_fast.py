"""The fast paths of ``trim_messages``, held to the straightforward code they replace.

``coerce_messages`` hands a list of message models back without a Python call per
message, and ``trim_messages(token_counter="approximate")`` counts each message with
a direct function instead of ``count_tokens_approximately([message])``. Each is
compared here with the general path on many generated histories: the same messages
(the same objects), the same counts, the same kept messages, the same errors.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

import chatschema
from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
    count_tokens_approximately,
    trim_messages,
)
from chatschema import _coerce as coerce_module
from chatschema.errors import ValidationError
from chatschema.tokens import _approximate_message_tokens

# ------------------------------------------------------------------ strategies

TEXT = st.text(
    st.sampled_from(list('ab \n.é日😀"\\{}')), min_size=0, max_size=40
)  # code points of every width
IDS = st.sampled_from(["c1", "c2", "c3", "c4"])  # few ids: results and calls collide
ARGUMENTS = st.dictionaries(
    st.sampled_from(["path", "n", "q"]),
    st.recursive(
        st.none() | st.booleans() | st.integers(-5, 5) | TEXT,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=2),
        max_leaves=5,
    ),
    max_size=3,
)
BLOCKS = st.one_of(
    TEXT.map(lambda text: {"type": "text", "text": text}),
    TEXT.map(lambda text: {"type": "refusal", "text": text}),
    st.builds(
        lambda text, summary: {"type": "reasoning", "text": text, "summary": summary},
        TEXT,
        st.lists(TEXT, max_size=2),
    ),
    st.just({"type": "reasoning", "signature": "c2lnbmF0dXJl"}),
    st.just({"type": "image", "url": "https://example.com/a.png"}),
    st.just({"type": "audio", "url": "https://example.com/a.wav"}),
    st.just({"type": "video", "url": "https://example.com/a.mp4"}),
    st.just({"type": "file", "url": "https://example.com/a.pdf"}),
    st.builds(lambda text, title: {"type": "text-plain", "text": text, "title": title}, TEXT, TEXT),
    st.just({"type": "text-plain", "url": "https://example.com/a.txt"}),
    st.builds(
        lambda name, arguments: {
            "type": "server_tool_call",
            "id": "s1",
            "name": name or "web",
            "arguments": arguments,
        },
        TEXT,
        ARGUMENTS,
    ),
    st.builds(
        lambda output: {"type": "server_tool_result", "tool_call_id": "s1", "output": output},
        ARGUMENTS,
    ),
    ARGUMENTS.map(lambda value: {"type": "non_standard", "value": value}),
)
CONTENT = TEXT | st.lists(BLOCKS, max_size=4)
NAMES = st.none() | st.sampled_from(["alice", "search_bot"])


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """One message of any role, with every kind of content the counter looks at."""
    role = draw(st.sampled_from(["system", "user", "assistant", "assistant", "tool", "tool"]))
    data: dict[str, Any] = {"role": role}
    if role == "tool":
        data["tool_call_id"] = draw(IDS)
        data["content"] = draw(TEXT | st.lists(BLOCKS, max_size=2))
    elif role == "assistant":
        data["content"] = draw(CONTENT)
        calls = draw(st.lists(st.tuples(IDS, TEXT, ARGUMENTS), max_size=2))
        if calls:
            data["tool_calls"] = [
                {"id": call_id, "name": name or "run", "arguments": arguments}
                for call_id, name, arguments in calls
            ]
        if draw(st.booleans()):
            data["invalid_tool_calls"] = [{"id": "bad", "name": draw(TEXT), "arguments": "{"}]
    else:
        data["content"] = draw(CONTENT)
    name = draw(NAMES)
    if name is not None:
        data["name"] = name
    return data


def _parsed(documents: list[dict[str, Any]]) -> list[Message]:
    return [chatschema.parse(document, "Message") for document in documents]


@st.composite
def tool_turns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An assistant message with calls, then results: some, all, out of order, extra."""
    count = draw(st.integers(1, 3))
    ids = draw(st.lists(IDS, min_size=count, max_size=count))
    call = {
        "role": "assistant",
        "content": draw(TEXT),
        "tool_calls": [{"id": call_id, "name": "run", "arguments": {}} for call_id in ids],
    }
    answered = draw(st.permutations(ids))[: draw(st.integers(0, count))]
    extra = draw(st.lists(IDS, max_size=1))
    results = [
        {"role": "tool", "tool_call_id": call_id, "content": draw(TEXT)}
        for call_id in [*answered, *extra]
    ]
    return [call, *results]


HISTORIES = (
    st.lists(messages().map(lambda message: [message]) | tool_turns(), max_size=15)
    .map(lambda parts: [message for part in parts for message in part])
    .map(_parsed)
)

# ------------------------------------------------------------------ the counter

BUNDLE = json.loads((ROOT / "generated" / "chatschema.schema.json").read_text(encoding="utf-8"))


def _schema_messages() -> st.SearchStrategy[Any]:
    """Messages generated from the JSON Schema itself (every field the schema allows)."""
    schema: dict[str, Any] = {key: value for key, value in BUNDLE.items() if key != "$ref"}
    schema["$ref"] = "#/$defs/Message"
    return from_schema(schema)


@settings(max_examples=300, deadline=None)
@given(messages())
def test_the_approximate_counter_counts_as_count_tokens_approximately(document: Any) -> None:
    message = chatschema.parse(document, "Message")
    assert _approximate_message_tokens(message) == count_tokens_approximately([message])
    assert _approximate_message_tokens(message) == count_tokens_approximately(message)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(_schema_messages())
def test_the_approximate_counter_on_schema_generated_messages(document: Any) -> None:
    assume(chatschema.is_valid(document, "Message"))
    message = chatschema.parse(document, "Message")
    assert _approximate_message_tokens(message) == count_tokens_approximately([message])


def test_the_approximate_counter_on_data_json_cannot_hold() -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    circular: dict[str, Any] = {}
    circular["self"] = circular
    for value in (deep, circular, {"when": object()}):
        message = AssistantMessage.model_construct(
            content="",
            tool_calls=[chatschema.ToolCall.model_construct(id="c", name="f", arguments=value)],
        )
        assert _approximate_message_tokens(message) == count_tokens_approximately([message])


# ------------------------------------------------------------------ coerce


@settings(max_examples=200, deadline=None)
@given(HISTORIES)
def test_coerce_returns_the_models_as_the_general_path_does(history: list[Message]) -> None:
    coerced = chatschema.coerce_messages(history)
    general = [coerce_module._coerce_one(item) for item in history]
    assert len(coerced) == len(general)
    assert all(a is b for a, b in zip(coerced, general, strict=True))
    assert coerced is not history  # a new list, as before


def test_coerce_falls_back_for_anything_but_the_message_classes() -> None:
    class Mine(UserMessage):
        pass

    chunk = AssistantMessageChunk(content="hi")
    user = UserMessage(content="hi")
    cases: list[list[Any]] = [
        [user, Mine(content="x")],
        [user, chunk],
        [user, {"role": "user", "content": "x"}],
        [user, "plain text", ("ai", "yes")],
    ]
    for items in cases:
        coerced = chatschema.coerce_messages(items)
        expected = [coerce_module._coerce_one(item) for item in items]
        assert [to_dict(m) for m in coerced] == [to_dict(m) for m in expected]
        assert coerced[0] is user


def to_dict(message: Any) -> Any:
    return chatschema.to_dict(message)


def test_coerce_a_message_without_its_role_fails_as_before() -> None:
    broken = UserMessage(content="x")
    del broken.__dict__["role"]  # a broken object: hasattr(item, "role") is False
    for items in ([broken], [UserMessage(content="ok"), broken]):
        with pytest.raises(ValidationError) as raised:
            chatschema.coerce_messages(items)
        assert [p.pointer for p in raised.value.problems] == [f"/{len(items) - 1}"]
        assert "cannot read a message from UserMessage" in str(raised.value)
        with pytest.raises(ValidationError):
            trim_messages(items, max_tokens=100)


# ------------------------------------------------------------------ trim


def _units(history: list[Message]) -> list[list[Message]]:
    """Tool turns whole (the call and the results right after it that answer it)."""
    units: list[list[Message]] = []
    index = 0
    while index < len(history):
        message, end = history[index], index + 1
        if isinstance(message, AssistantMessage) and message.tool_calls:
            ids = {call.id for call in message.tool_calls}
            while (
                end < len(history)
                and isinstance(history[end], ToolMessage)
                and history[end].tool_call_id in ids  # type: ignore[union-attr]
            ):
                end += 1
        units.append(history[index:end])
        index = end
    return units


def reference_trim(history: list[Message], max_tokens: int, strategy: str) -> list[Message]:
    """trim_messages written plainly: every unit counted with the list counter."""
    units = _units(history)
    if strategy == "last":
        units.reverse()
    kept: list[list[Message]] = []
    used = 0
    for unit in units:
        cost = count_tokens_approximately(unit)
        if used + cost > max_tokens:
            break
        kept.append(unit)
        used += cost
    if strategy == "last":
        kept.reverse()
        while kept and isinstance(kept[0][0], ToolMessage):  # no orphan result first
            kept.pop(0)
    return [message for unit in kept for message in unit]


@settings(max_examples=300, deadline=None)
@given(HISTORIES, st.integers(-5, 400), st.sampled_from(["first", "last"]))
def test_trim_keeps_what_the_reference_keeps(
    history: list[Message], budget: int, strategy: Any
) -> None:
    kept = trim_messages(history, max_tokens=budget, strategy=strategy)
    expected = reference_trim(history, budget, strategy)
    assert len(kept) == len(expected)
    assert all(a is b for a, b in zip(kept, expected, strict=True))


@settings(max_examples=100, deadline=None)
@given(HISTORIES, st.integers(0, 400))
def test_trim_with_the_approximate_counter_is_trim_with_the_list_counter(
    history: list[Message], budget: int
) -> None:
    """The shortcut and the public counter passed as a callable keep the same messages,
    with every option that counts (system message, start, end, partial messages)."""
    for options in (
        {},
        {"include_system": True},
        {"start_on": "user"},
        {"end_on": ("assistant", "tool")},
        {"allow_partial": True},
        {"allow_partial": True, "strategy": "first"},
    ):
        fast = trim_messages(history, max_tokens=budget, token_counter="approximate", **options)
        general = trim_messages(
            history, max_tokens=budget, token_counter=count_tokens_approximately, **options
        )
        assert [to_dict(m) for m in fast] == [to_dict(m) for m in general]


def test_trim_reads_dicts_and_models_alike() -> None:
    documents: list[dict[str, Any]] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi " * 50},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "f", "arguments": {}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
        {"role": "assistant", "content": "ok"},
    ]
    models = _parsed(documents)
    for budget in range(0, 60, 3):
        from_dicts = trim_messages(documents, max_tokens=budget)
        from_models = trim_messages(models, max_tokens=budget)
        assert [to_dict(m) for m in from_dicts] == [to_dict(m) for m in from_models]
    assert isinstance(models[0], SystemMessage)
