"""``encode_response``'s fast path for the common reply agrees with the general path.

``response.common_body`` writes the common reply (string content, tool calls
without index or extras of this format, no invalid calls, no response metadata of
this format) and returns None for any other message, which
``response._encode_response`` (the general path) then writes. On every message here
the two must agree: the same body, key order and made ids included, or None from
the fast path (and then, when the general path refuses the message, that refusal).
Inputs: hand-made replies, generated ones, and every recorded response of every
HTTP format, decoded.

The stream's text deltas, framed with ``sse=True`` from bytes the writer keeps, are
the bytes ``frame_named`` writes of the same events.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import recorded
from hypothesis import given
from hypothesis import strategies as st

from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    InputTokenDetails,
    OutputTokenDetails,
    ToolCall,
    Usage,
)
from chatschema.providers import HTTP_PROVIDERS, get_http_codec
from chatschema.providers._common.respond import Reply, frame_named
from chatschema.providers.anthropic import response
from providers import fast_writes
from providers.fast_writes import TRAFFIC, ordered, recorded_responses

NAME = "anthropic"
OPTION_SETS: list[dict[str, Any]] = [  # (a seed and a time: both paths make the same)
    {"created": 1_767_225_600, "id_seed": 11},
    {"created": 0, "model": "m", "id_seed": "s", "unsupported": "drop"},
]
USAGE = Usage(input_tokens=12, output_tokens=5, total_tokens=17)
CALL = ToolCall(id="toolu_1", name="get_weather", arguments={"city": "Zürich", "days": [1, 2]})


def agree(message: AssistantMessage, **options: Any) -> bool:
    """Whether the fast path took ``message``; its body is the general path's if so."""
    return fast_writes.agree(response, NAME, message, **options)


PLAIN: dict[str, AssistantMessage] = {
    "text": AssistantMessage(content="Hello.", response_id="msg_1", model="m", usage=USAGE),
    "text and calls": AssistantMessage(
        content="Looking.",
        tool_calls=[CALL, ToolCall(id="toolu_2", name="now", arguments={})],
        finish_reason="tool_calls",
        usage=USAGE,
    ),
    "calls only": AssistantMessage(content="", tool_calls=[CALL], finish_reason="tool_calls"),
    "empty": AssistantMessage(content=""),
    "no content": AssistantMessage(tool_calls=[CALL]),
    "length": AssistantMessage(content="Cut", finish_reason="length", usage=USAGE),
    "content_filter": AssistantMessage(content="No", finish_reason="content_filter"),
    "paused": AssistantMessage(content="x", finish_reason="paused"),
    "error": AssistantMessage(content="x", finish_reason="error"),
    "raw": AssistantMessage(content="x", raw_finish_reason="max_tokens", finish_reason="length"),
    "raw, other provider": AssistantMessage(
        content="x", raw_finish_reason="STOP", finish_reason="stop", provider="gemini"
    ),
    "raw, own provider": AssistantMessage(content="x", raw_finish_reason="new", provider=NAME),
    "negative count": AssistantMessage(
        content="x", usage=Usage.model_construct(input_tokens=-3, output_tokens=1, total_tokens=0)
    ),
    "usage details": AssistantMessage(
        content="x",
        usage=Usage(
            input_tokens=3,
            output_tokens=1,
            total_tokens=4,
            input_token_details=InputTokenDetails(cache_read=2),
            output_token_details=OutputTokenDetails(reasoning=1),
        ),
    ),
    "foreign extras": AssistantMessage(
        content="x",
        tool_calls=[CALL.model_copy(update={"extras": {"gemini": {"cache": 1}}})],
        extras={NAME: {"a": 1}},
        response_metadata={"openai_chat": {"system_fingerprint": "fp"}},
    ),
}

OTHER: dict[str, AssistantMessage] = {
    "blocks": AssistantMessage(content=[{"type": "text", "text": "x"}]),
    "call index": AssistantMessage(content="x", tool_calls=[CALL.model_copy(update={"index": 0})]),
    "call extras": AssistantMessage(
        content="x", tool_calls=[CALL.model_copy(update={"extras": {NAME: {"caller": {}}}})]
    ),
    "metadata": AssistantMessage(content="x", response_metadata={NAME: {"stop_sequence": "X"}}),
    "invalid call": AssistantMessage(
        content="x", invalid_tool_calls=[{"id": "c", "name": "f", "arguments": "[1]"}]
    ),
}


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("name", list(PLAIN))
def test_fast_path_writes_the_general_paths_body(name: str, options: dict[str, Any]) -> None:
    assert agree(PLAIN[name], **options)


@pytest.mark.parametrize("name", list(OTHER))
def test_other_shapes_take_the_general_path(name: str) -> None:
    assert response.common_body(OTHER[name], Reply(NAME)) is None


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
        fields["extras"] = draw(
            st.sampled_from([{NAME: {"caller": {"type": "direct"}}}, {"gemini": {}}])
        )
    return ToolCall(**fields)


@st.composite
def replies(draw: st.DrawFn) -> AssistantMessage:
    """Replies near the common shape, each detail that leaves it drawn now and then."""
    fields: dict[str, Any] = {
        "content": draw(TEXT),
        "tool_calls": draw(st.lists(calls(), max_size=3)),
    }
    optional: dict[str, Any] = {
        "model": st.sampled_from(["claude-sonnet-4-6", "gpt-5.4"]),
        "response_id": st.sampled_from(["msg_01abc", "chatcmpl-1"]),
        "usage": st.just(USAGE),
        "finish_reason": st.sampled_from(["stop", "length", "tool_calls", "other", "paused"]),
        "raw_finish_reason": st.sampled_from(["stop", "tool_use", "end_turn", "weird"]),
        "provider": st.sampled_from([NAME, "anthropic"]),
        "extras": st.sampled_from([{NAME: {"new_message": True}}, {"gemini": {}}]),
        "response_metadata": st.sampled_from([{NAME: {"service_tier": "standard"}}, {"x": {}}]),
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


# ------------------------------------------------------------------ the stream's text deltas


def _framed(chunks: Any) -> bytes:
    """The stream's events, each framed by ``frame_named``: what ``sse=True`` must give."""
    return b"".join(
        frame_named(event)
        for event in response.encode_stream(chunks, id_seed=5, unsupported="drop")
    )


def _streams() -> list[Any]:
    return [
        pytest.param(fmt, path, id=f"{fmt}/{path.name[:-5]}")
        for fmt in HTTP_PROVIDERS
        for path in recorded.listing(TRAFFIC / fmt)
        if "stream" in recorded.index(path)
    ]


@pytest.mark.parametrize(("fmt", "path"), _streams())
def test_sse_text_deltas_are_the_framed_events(fmt: str, path: Path) -> None:
    """With ``sse=True`` text deltas are framed from kept bytes: the same bytes as
    ``frame_named`` of the event dicts, for every recorded stream of every format."""
    chunks = list(get_http_codec(fmt).decode_stream(recorded.load(path)["stream"]))
    assert b"".join(
        response.encode_stream(chunks, sse=True, id_seed=5, unsupported="drop")
    ) == _framed(chunks)


def test_sse_text_deltas_follow_the_open_block() -> None:
    """Text blocks reopened after a tool call: each delta names its own wire block."""
    chunks = [
        AssistantMessageChunk(response_id="msg_1", model="m"),
        AssistantMessageChunk(content=[{"type": "text", "text": "a", "index": 0}]),
        AssistantMessageChunk(content=[{"type": "text", "text": 'é\n"', "index": 0}]),
        AssistantMessageChunk(tool_call_chunks=[{"index": 1, "id": "t", "name": "f"}]),
        AssistantMessageChunk(content=[{"type": "text", "text": "b", "index": 2}]),
        AssistantMessageChunk(content=[{"type": "text", "text": "c", "index": 2}]),
        AssistantMessageChunk(content="d"),
        AssistantMessageChunk(content="e"),
    ]
    assert b"".join(
        response.encode_stream(chunks, sse=True, id_seed=5, unsupported="drop")
    ) == _framed(chunks)
