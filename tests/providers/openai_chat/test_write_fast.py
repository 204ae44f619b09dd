"""``encode_response``'s fast path for the common reply agrees with the general path.

``response.common_body`` writes the common reply (string content, function calls
without index or extras of this format, no invalid calls, no name, no extras or
response metadata of this format) and returns None for any other message, which
``response._encode_response`` (the general path) then writes. On every message here
the two must agree: the same body, key order and made ids included, or None from
the fast path (and then, when the general path refuses the message, that refusal).
Inputs: hand-made replies, generated ones, and every recorded response of every
HTTP format, decoded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import recorded
from hypothesis import given
from hypothesis import strategies as st

from chatschema import AssistantMessage, InputTokenDetails, ToolCall, Usage
from chatschema.providers import get_http_codec
from chatschema.providers._common.respond import Reply
from chatschema.providers.openai_chat import response
from providers import fast_writes
from providers.fast_writes import ordered, recorded_responses

NAME = "openai_chat"
OPTION_SETS: list[dict[str, Any]] = [  # (a seed and a time: both paths make the same)
    {"created": 1_767_225_600, "id_seed": 11},
    {"created": 0, "model": "m", "id_seed": "s", "unsupported": "drop"},
]
USAGE = Usage(input_tokens=12, output_tokens=5, total_tokens=17)
CALL = ToolCall(id="call_1", name="get_weather", arguments={"city": "Zürich", "days": [1, 2]})


def agree(message: AssistantMessage, **options: Any) -> bool:
    """Whether the fast path took ``message``; its body is the general path's if so."""
    return fast_writes.agree(response, NAME, message, **options)


PLAIN: dict[str, AssistantMessage] = {
    "text": AssistantMessage(content="Hello.", response_id="chatcmpl-1", model="m", usage=USAGE),
    "text and calls": AssistantMessage(
        content="Looking.",
        tool_calls=[CALL, ToolCall(id="call_2", name="now", arguments={})],
        finish_reason="tool_calls",
        usage=USAGE,
    ),
    "calls only": AssistantMessage(content="", tool_calls=[CALL], finish_reason="tool_calls"),
    "empty": AssistantMessage(content=""),
    "no content": AssistantMessage(tool_calls=[CALL]),
    "openai model": AssistantMessage(content="Hi", model="gpt-5.4", response_id="chatcmpl-x"),
    "openai model, no id": AssistantMessage(content="Hi", model="gpt-5.4"),
    "openai model, other id": AssistantMessage(content="Hi", model="o3", response_id="gen-1"),
    "length": AssistantMessage(content="Cut", finish_reason="length", usage=USAGE),
    "content_filter": AssistantMessage(content="No", finish_reason="content_filter"),
    "paused": AssistantMessage(content="x", finish_reason="paused"),
    "error": AssistantMessage(content="x", finish_reason="error"),
    "raw": AssistantMessage(content="x", raw_finish_reason="length", finish_reason="length"),
    "raw, other provider": AssistantMessage(
        content="x", raw_finish_reason="end_turn", finish_reason="stop", provider="anthropic"
    ),
    "own provider, no reason": AssistantMessage(content="x", provider=NAME),
    "no total": AssistantMessage(
        content="x", usage=Usage.model_construct(input_tokens=3, output_tokens=1, total_tokens=None)
    ),
    "usage details": AssistantMessage(
        content="x",
        usage=Usage(
            input_tokens=3,
            output_tokens=1,
            total_tokens=4,
            input_token_details=InputTokenDetails(cache_read=2),
        ),
    ),
    "foreign extras": AssistantMessage(
        content="x",
        tool_calls=[CALL.model_copy(update={"extras": {"anthropic": {"cache": 1}}})],
        extras={"gemini": {"a": 1}},
        response_metadata={"anthropic": {"stop_sequence": "END"}},
    ),
}

OTHER: dict[str, AssistantMessage] = {
    "blocks": AssistantMessage(content=[{"type": "text", "text": "x"}]),
    "call index": AssistantMessage(content="x", tool_calls=[CALL.model_copy(update={"index": 0})]),
    "call extras": AssistantMessage(
        content="x", tool_calls=[CALL.model_copy(update={"extras": {NAME: {"type": "custom"}}})]
    ),
    "extras": AssistantMessage(content="x", extras={NAME: {"content_shape": "list"}}),
    "metadata": AssistantMessage(content="x", response_metadata={NAME: {"created": 5}}),
    "name": AssistantMessage(content="x", name="bot"),
    "invalid call": AssistantMessage(
        content="x", invalid_tool_calls=[{"id": "c", "name": "f", "arguments": "{"}]
    ),
}


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("name", list(PLAIN))
def test_fast_path_writes_the_general_paths_body(name: str, options: dict[str, Any]) -> None:
    assert agree(PLAIN[name], **options)


@pytest.mark.parametrize("name", list(OTHER))
def test_other_shapes_take_the_general_path(name: str) -> None:
    assert response.common_body(OTHER[name], Reply(NAME)) is None


def test_arguments_too_deep_take_the_general_path() -> None:
    deep: Any = {}
    for _ in range(100_000):
        deep = {"a": deep}
    message = AssistantMessage.model_construct(
        content="x", tool_calls=[ToolCall.model_construct(id="c", name="f", arguments=deep)]
    )
    assert response.common_body(message, Reply(NAME)) is None


def test_encode_response_takes_it() -> None:
    """``encode_response`` answers the common reply with the fast path's body."""
    message = PLAIN["text and calls"]
    options = OPTION_SETS[0]
    assert ordered(response.encode_response(message, **options)) == ordered(
        response.common_body(message, Reply.resolve(NAME, options))
    )


TEXT = st.text(max_size=8)


@st.composite
def calls(draw: st.DrawFn) -> ToolCall:
    """A function call, now and then with an index or extras."""
    fields: dict[str, Any] = {
        "id": draw(st.text("abc_1", min_size=1, max_size=6)),
        "name": draw(st.sampled_from(["f", "get_weather"])),
        "arguments": draw(st.dictionaries(TEXT, st.integers() | TEXT | st.none(), max_size=3)),
    }
    if draw(st.integers(0, 3)) == 0:
        fields["index"] = draw(st.integers(0, 3))
    if draw(st.integers(0, 3)) == 0:
        fields["extras"] = draw(st.sampled_from([{NAME: {"no_type": True}}, {"gemini": {}}]))
    return ToolCall(**fields)


@st.composite
def replies(draw: st.DrawFn) -> AssistantMessage:
    """Replies near the common shape, each detail that leaves it drawn now and then."""
    fields: dict[str, Any] = {
        "content": draw(TEXT),
        "tool_calls": draw(st.lists(calls(), max_size=3)),
    }
    optional: dict[str, Any] = {
        "model": st.sampled_from(["gpt-5.4", "claude-sonnet-4-6", "o1-mini"]),
        "response_id": st.sampled_from(["chatcmpl-abc", "msg_1"]),
        "usage": st.just(USAGE),
        "finish_reason": st.sampled_from(["stop", "length", "tool_calls", "other"]),
        "raw_finish_reason": st.sampled_from(["stop", "tool_calls", "end_turn", "weird"]),
        "provider": st.sampled_from([NAME, "anthropic"]),
        "name": st.just("bot"),
        "extras": st.sampled_from([{NAME: {"content_shape": "null"}}, {"gemini": {}}]),
        "response_metadata": st.sampled_from([{NAME: {"service_tier": "default"}}, {"x": {}}]),
    }
    for key, strategy in optional.items():
        if draw(st.integers(0, 3)) == 0:
            fields[key] = draw(strategy)
    return AssistantMessage(**fields)


@given(replies(), st.sampled_from(OPTION_SETS))
def test_generated_replies_agree(message: AssistantMessage, options: dict[str, Any]) -> None:
    agree(message, **options)


@pytest.mark.parametrize(("fmt", "path"), recorded_responses())
def test_recorded_responses_agree(fmt: str, path: Path) -> None:
    """Every recorded response of every format, decoded, written by both paths."""
    message = get_http_codec(fmt).decode_response(recorded.load(path)["response"])
    agree(message, unsupported="drop", created=1, id_seed=3)
