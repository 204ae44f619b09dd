"""Bedrock Converse, the server side's fast paths agree with the general ones.

``response._plain_body`` (common replies written directly) against
``response._answer`` (the request encoder's block writer), and the stream's text
deltas of string content framed straight from their text against
``eventstream.frame_event`` of every event the unframed writer makes.
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
    CacheControl,
    ConversionError,
    InvalidToolCall,
    ReasoningBlock,
    TextBlock,
    ToolCall,
    ToolCallChunk,
    Usage,
)
from chatschema.providers import bedrock_converse as codec
from chatschema.providers._common.respond import Reply
from chatschema.providers.bedrock_converse.eventstream import frame_event
from chatschema.providers.bedrock_converse.response import _answer, _plain_body
from chatschema.providers.bedrock_converse.wire import NAME

TRAFFIC = Path(__file__).resolve().parents[2] / "traffic" / "bedrock_converse"

USAGE = Usage(input_tokens=12, output_tokens=5, total_tokens=17)
CALL = ToolCall(id="tooluse_1", name="read", arguments={"path": "a.py", "n": [1, {"b": 2}]})
OTHER = ToolCall(id="call:2.x-y", name="list", arguments={})

PLAIN: dict[str, AssistantMessage] = {
    "text": AssistantMessage(content="Hello.", usage=USAGE, finish_reason="stop"),
    "empty": AssistantMessage(content=""),
    "call": AssistantMessage(
        content="Reading.", tool_calls=[CALL], usage=USAGE, finish_reason="tool_calls"
    ),
    "calls only": AssistantMessage(tool_calls=[CALL, OTHER]),
    "blocks": AssistantMessage(
        content=[TextBlock(text="One."), TextBlock(text=""), TextBlock(text="Two.")]
    ),
    "raw reason": AssistantMessage(
        content="x", finish_reason="content_filter", raw_finish_reason="guardrail_intervened"
    ),
    "foreign raw reason": AssistantMessage(
        content="x", finish_reason="stop", raw_finish_reason="STOP", provider="gemini"
    ),
    "other provider's metadata": AssistantMessage(
        content="Hi.", response_metadata={"gemini": {"create_time": "x"}}
    ),
    "cache details": AssistantMessage(
        content="Hi.",
        usage=Usage.model_validate(
            {
                "input_tokens": 10,
                "output_tokens": 8,
                "total_tokens": 18,
                "input_token_details": {"cache_read": 4},
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


def _both(message: AssistantMessage, options: dict[str, Any]) -> tuple[Any, Any]:
    return _plain_body(message), _answer(message, Reply.resolve(NAME, dict(options)))


@pytest.mark.parametrize("name", list(PLAIN))
def test_plain_body_is_the_general_body(name: str) -> None:
    fast, general = _both(PLAIN[name], {"id_seed": 7})
    assert fast is not None, "the common shape takes the fast path"
    assert fast == general
    assert list(fast) == list(general)  # key order too


def test_encode_response_takes_either_path() -> None:
    options: dict[str, Any] = {"id_seed": 3, "created": 1_767_225_600}
    for message in [*PLAIN.values(), *OUTSIDE.values()]:
        data = message.model_dump(mode="json", exclude_unset=True)
        assert codec.encode_response(data, **options) == codec.encode_response(message, **options)


OUTSIDE: dict[str, AssistantMessage] = {
    "call extras": AssistantMessage(
        tool_calls=[CALL.model_copy(update={"extras": {NAME: {"type": "tool_use"}}})]
    ),
    "call index": AssistantMessage(content="a", tool_calls=[CALL.model_copy(update={"index": 0})]),
    "id Converse refuses": AssistantMessage(
        tool_calls=[CALL.model_copy(update={"id": "call 1/é"})]
    ),
    "invalid call": AssistantMessage(
        invalid_tool_calls=[InvalidToolCall(id="x", name="f", arguments="[1]", error="bad")]
    ),
    "kept metadata": AssistantMessage(
        content="a", response_metadata={NAME: {"metrics": {"latencyMs": 5}}}
    ),
    "block cache control": AssistantMessage(
        content=[TextBlock(text="a", cache_control=CacheControl(type="ephemeral"))]
    ),
    "reasoning": AssistantMessage(
        content=[ReasoningBlock(text="hm", signature="sig"), TextBlock(text="a")]
    ),
}


@pytest.mark.parametrize("name", list(OUTSIDE))
def test_other_shapes_take_the_general_path(name: str) -> None:
    assert _plain_body(OUTSIDE[name]) is None


def test_recorded_responses_agree() -> None:
    """Decoded recorded responses without their kept metadata: both paths agree.

    (With it, none takes the fast path: ``metrics`` at least is kept.)
    """
    for path in recorded.listing(TRAFFIC):
        if "response" not in recorded.index(path):
            continue
        message = codec.decode_response(copy.deepcopy(recorded.load(path)["response"]))
        message = message.model_copy(update={"response_metadata": None})
        fast, general = _both(message, {"id_seed": 1})
        if fast is not None:
            assert fast == general, path.name


# ---------------------------------------------------------------------- streams


def _chunks() -> list[AssistantMessageChunk]:
    return [
        AssistantMessageChunk(model="m"),
        AssistantMessageChunk(content="Hel"),
        AssistantMessageChunk(content=""),
        AssistantMessageChunk(content='lo, 日本 🍁 "quoted" \\ \n'),
        AssistantMessageChunk(content=[TextBlock(text=" continued")]),
        AssistantMessageChunk(content="again"),
        AssistantMessageChunk(
            tool_call_chunks=[ToolCallChunk(index=1, id="t1", name="f", arguments='{"a": 1}')]
        ),
        AssistantMessageChunk(content="after the call"),
        AssistantMessageChunk(content=" and more"),
        AssistantMessageChunk(content=[TextBlock(text="block", index=5)]),
        AssistantMessageChunk(content=[TextBlock(text=" delta", index=5)]),
        AssistantMessageChunk(content="string again"),
        AssistantMessageChunk(usage=USAGE, finish_reason="stop", chunk_position="last"),
    ]


@pytest.mark.parametrize("options", [{}, {"id_seed": 2, "created": 1_767_225_600}], ids=repr)
def test_framed_text_deltas_are_frame_event(options: dict[str, Any]) -> None:
    chunks = _chunks()
    framed = list(codec.encode_stream(chunks, sse=True, **options))
    events = list(codec.encode_stream(chunks, **options))
    assert framed == [frame_event(event) for event in events]
    deltas = [e for e in events if "contentBlockDelta" in e]
    texts = [e["contentBlockDelta"]["delta"].get("text") for e in deltas]
    assert texts[:4] == ["Hel", 'lo, 日本 🍁 "quoted" \\ \n', " continued", "again"]
    assert len({e["contentBlockDelta"]["contentBlockIndex"] for e in deltas}) == 5


def test_string_deltas_after_the_last_chunk_are_refused() -> None:
    chunks = [
        AssistantMessageChunk(content="a"),
        AssistantMessageChunk(content="b", chunk_position="last"),
        AssistantMessageChunk(content="c"),
    ]
    with pytest.raises(ConversionError, match="after the last one"):
        list(codec.encode_stream(chunks, sse=True))
