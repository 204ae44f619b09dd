"""Gemini, the server side's fast paths agree with the general ones, byte for byte.

``response._plain_body`` (common replies written directly) against
``response._general_body`` (``PartWriter`` and the kept metadata), and
``events.FramedWriter`` (plain text deltas framed straight from their text) against
``events.frame`` of every event the unframed writer makes.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import recorded

from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    InvalidToolCall,
    ReasoningBlock,
    TextBlock,
    ToolCall,
    ToolCallChunk,
    Usage,
)
from chatschema.providers import gemini
from chatschema.providers._common.respond import Reply
from chatschema.providers.gemini.events import frame
from chatschema.providers.gemini.response import _general_body, _plain_body
from chatschema.providers.gemini.wire import NAME

TRAFFIC = Path(__file__).resolve().parents[2] / "traffic" / "gemini"

USAGE = Usage(input_tokens=12, output_tokens=5, total_tokens=17)
CALL = ToolCall(id="call_1", name="read", arguments={"path": "a.py", "lines": [1, {"to": 2}]})
OTHER = ToolCall(id="call_2", name="list", arguments={})

PLAIN: dict[str, AssistantMessage] = {
    "text": AssistantMessage(content="Hello.", usage=USAGE, finish_reason="stop"),
    "empty": AssistantMessage(content="", finish_reason="stop"),
    "bare": AssistantMessage(content="Hi."),
    "call": AssistantMessage(
        content="Reading.",
        tool_calls=[CALL],
        usage=USAGE,
        model="gemini-2.5-flash",
        response_id="resp-1",
        finish_reason="tool_calls",
    ),
    "calls only": AssistantMessage(content="", tool_calls=[CALL, OTHER], finish_reason="stop"),
    "blocks": AssistantMessage(
        content=[TextBlock(text="One."), TextBlock(text=""), TextBlock(text="Two.")],
        finish_reason="length",
    ),
    "raw reason": AssistantMessage(
        content="Cut.", finish_reason="length", raw_finish_reason="MAX_TOKENS"
    ),
    "raw reason other": AssistantMessage(
        content="Odd.", finish_reason="stop", raw_finish_reason="RECITATION"
    ),
    "other provider's metadata": AssistantMessage(
        content="Hi.", response_metadata={"anthropic": {"id": "x"}}
    ),
    "details": AssistantMessage(
        content="Hi.",
        usage=Usage.model_validate(
            {
                "input_tokens": 10,
                "output_tokens": 8,
                "total_tokens": 18,
                "input_token_details": {"cache_read": 4},
                "output_token_details": {"reasoning": 3},
            }
        ),
    ),
}
PLAIN.update(
    {
        f"finish {reason}": AssistantMessage(content="x", finish_reason=reason)
        for reason in ("stop", "tool_calls", "length", "content_filter", "error", "other")
    }
)

OPTIONS: list[dict[str, Any]] = [  # (a seed each: made ids compare equal)
    {"id_seed": 7},
    {"id_seed": 8, "unsupported": "placeholder"},
    {"id_seed": "s", "created": 1_767_225_600, "model": "gemini-x"},
]


def _both(message: AssistantMessage, options: dict[str, Any]) -> tuple[Any, Any]:
    fast = _plain_body(message, Reply.resolve(NAME, dict(options)))
    general = _general_body(message, Reply.resolve(NAME, dict(options)))
    return fast, general


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
@pytest.mark.parametrize("name", list(PLAIN))
def test_plain_body_is_the_general_body(name: str, options: dict[str, Any]) -> None:
    fast, general = _both(PLAIN[name], options)
    assert fast is not None, "the common shape takes the fast path"
    assert fast == general
    assert list(fast) == list(general)  # key order too
    assert list(fast["candidates"][0]) == list(general["candidates"][0])


def test_encode_response_takes_the_fast_path_with_options() -> None:
    message = PLAIN["call"].model_copy(update={"response_id": None})
    options: dict[str, Any] = {"id_seed": 3, "created": 1_767_225_600}
    assert gemini.encode_response(message, **options) == _both(message, options)[1]


def test_args_are_fresh_copies() -> None:
    body = gemini.encode_response(PLAIN["call"])
    args = body["candidates"][0]["content"]["parts"][1]["functionCall"]["args"]
    assert args == CALL.arguments
    assert args is not CALL.arguments
    assert args["lines"] is not CALL.arguments["lines"]
    assert args["lines"][1] is not CALL.arguments["lines"][1]


OUTSIDE: dict[str, AssistantMessage] = {
    "call extras": AssistantMessage(
        tool_calls=[CALL.model_copy(update={"extras": {NAME: {"thought_signature": "c2ln"}}})]
    ),
    "call index": AssistantMessage(content="a", tool_calls=[CALL.model_copy(update={"index": 0})]),
    "invalid call": AssistantMessage(
        invalid_tool_calls=[InvalidToolCall(id="x", name="f", arguments="{", error="bad")]
    ),
    "kept metadata": AssistantMessage(
        content="a", response_metadata={NAME: {"usage_metadata": {"promptTokenCount": 1}}}
    ),
    "block extras": AssistantMessage(
        content=[TextBlock(text="a", extras={NAME: {"thought_signature": "c2ln"}})]
    ),
    "reasoning": AssistantMessage(content=[ReasoningBlock(text="hm"), TextBlock(text="a")]),
}


@pytest.mark.parametrize("name", list(OUTSIDE))
def test_other_shapes_take_the_general_path(name: str) -> None:
    assert _plain_body(OUTSIDE[name], Reply.resolve(NAME, {})) is None


def test_recorded_responses_agree() -> None:
    """Decoded recorded responses without their kept metadata: both paths agree.

    (With it, none takes the fast path: ``response_metadata["gemini"]`` is kept.)
    """
    for path in recorded.listing(TRAFFIC):
        if "response" not in recorded.index(path):
            continue
        message = gemini.decode_response(copy.deepcopy(recorded.load(path)["response"]))
        message = message.model_copy(update={"response_metadata": None})
        fast, general = _both(message, {"id_seed": 1})
        if fast is not None:
            assert fast == general, path.name


# ---------------------------------------------------------------------- streams


def _chunks(*, usage_first: bool = False) -> list[AssistantMessageChunk]:
    first = AssistantMessageChunk(model="gemini-2.5-flash", response_id="r1")
    if usage_first:
        first = first.model_copy(update={"usage": USAGE})
    return [
        first,
        AssistantMessageChunk(content="Hel"),
        AssistantMessageChunk(content=""),
        AssistantMessageChunk(content='lo, 日本 🍁 "quoted" \\ \n'),
        AssistantMessageChunk(content=[TextBlock(text=" block", index=0)]),
        AssistantMessageChunk(
            tool_call_chunks=[ToolCallChunk(index=1, id="c", name="f", arguments='{"a": 1}')]
        ),
        AssistantMessageChunk(content="after"),
        AssistantMessageChunk(usage=USAGE, usage_mode="cumulative"),
        AssistantMessageChunk(content="more"),
        AssistantMessageChunk(finish_reason="stop", chunk_position="last"),
    ]


@pytest.mark.parametrize("usage_first", [False, True])
@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_framed_writer_frames_every_event(options: dict[str, Any], usage_first: bool) -> None:
    chunks = _chunks(usage_first=usage_first)
    framed = list(gemini.encode_stream(chunks, sse=True, **options))
    events = list(gemini.encode_stream(chunks, **options))
    assert framed == [frame(event) for event in events]


def test_framed_writer_without_model_or_id() -> None:
    chunks = [AssistantMessageChunk(content=text) for text in ("a", "b", "c")]
    options: dict[str, Any] = {"id_seed": 5, "created": 1_767_225_600}
    framed = list(gemini.encode_stream(chunks, sse=True, **options))
    assert framed == [frame(event) for event in gemini.encode_stream(chunks, **options)]
