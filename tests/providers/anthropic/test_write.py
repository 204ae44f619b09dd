"""Anthropic ``encode_response`` / ``encode_stream``: the server side of the wire.

What ``decode_response`` and ``decode_stream`` read comes back out: every recorded
response body (``tests/traffic/anthropic``) is written back as it came, nulls aside;
every recorded response streams back to its message; every recorded stream's chunks
re-encode to events that decode to the same message. The official SDK's types
(``anthropic.types.Message``, ``RawMessageStreamEvent``) validate what is written.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
import recorded
from anthropic.types import Message, RawMessageStreamEvent
from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent
from conftest import assembled

from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    ConversionError,
    ReasoningBlock,
    UnsupportedContentError,
    to_dict,
)
from chatschema.errors import OptionError
from chatschema.providers import anthropic as codec

TRAFFIC = Path(__file__).resolve().parents[2] / "traffic" / "anthropic"
FILES = recorded.listing(TRAFFIC)
EVENT = pydantic.TypeAdapter(RawMessageStreamEvent)
BETA_EVENT = pydantic.TypeAdapter(BetaRawMessageStreamEvent)
SIG = "EqQBCkYIBxgCKkBq7fZ3kL0mQ2Yx9c8TtZ1pW4vN6sR3uJ5hG2dF8aK0bE7cX1yV9zM4nL6oP2qS5rT3uW8x"
MSG_ID = re.compile(r"msg_[A-Za-z0-9]{24}")
TOOL_ID = re.compile(r"toolu_[A-Za-z0-9]{24}")


def _params(kind: str) -> list[Any]:
    return [pytest.param(path, id=path.name) for path in FILES if kind in recorded.index(path)]


def without_nulls(value: Any) -> Any:
    """JSON with every ``null`` member left out (what the round trip compares)."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def _valid(validate: Any, value: Any) -> bool:
    try:
        validate(value)
    except pydantic.ValidationError:
        return False
    return True


def sdk_valid_response(body: dict[str, Any]) -> bool:
    """``Message`` validates it, or the beta ``BetaMessage`` (beta blocks: MCP, advisor)."""
    return _valid(Message.model_validate, body) or _valid(BetaMessage.model_validate, body)


def sdk_valid_event(event: dict[str, Any]) -> bool:
    """``RawMessageStreamEvent`` validates it, or its beta twin."""
    return _valid(EVENT.validate_python, event) or _valid(BETA_EVENT.validate_python, event)


def recorded_events(stream: Any) -> list[Any]:
    """The events of a recorded stream (SSE text, or a list of events)."""
    if not isinstance(stream, str):
        return list(stream)
    return [json.loads(line[5:]) for line in stream.splitlines() if line.startswith("data:")]


def chunks_of(stream: Any) -> list[AssistantMessageChunk]:
    return list(codec.decode_stream([stream] if isinstance(stream, str) else stream))


def message(**fields: Any) -> AssistantMessage:
    return AssistantMessage.model_validate(fields)


# ------------------------------------------------------------- recorded traffic


@pytest.mark.parametrize("path", _params("response"))
def test_recorded_response_is_written_back_as_it_came(path: Path) -> None:
    body = recorded.load(path, shared=True)["response"]
    written = codec.encode_response(codec.decode_response(body))
    assert without_nulls(written) == without_nulls(body)
    # the SDK's types validate it, unless they refuse the recorded body itself (SDK
    # 2.14's beta usage requires web_fetch_requests, which some responses leave out)
    assert sdk_valid_response(written) or not sdk_valid_response(body)


@pytest.mark.parametrize("path", _params("response"))
def test_recorded_response_streams_back_to_its_message(path: Path) -> None:
    body = recorded.load(path, shared=True)["response"]
    decoded = codec.decode_response(body)
    events = list(codec.encode_stream(decoded))
    assert assembled(list(codec.decode_stream(events))) == to_dict(decoded)
    sse = b"".join(codec.encode_stream(decoded, sse=True))
    assert assembled(list(codec.decode_stream([sse]))) == to_dict(decoded)
    body_valid = sdk_valid_response(body)
    for event in events:
        assert sdk_valid_event(event) or not body_valid, event["type"]


@pytest.mark.parametrize("path", _params("stream"))
def test_recorded_stream_reencodes_to_the_same_message(path: Path) -> None:
    stream = recorded.load(path, shared=True)["stream"]
    chunks = chunks_of(stream)
    events = list(codec.encode_stream(chunks))
    assert assembled(list(codec.decode_stream(events))) == assembled(chunks)
    recorded_valid = all(
        sdk_valid_event(event) for event in recorded_events(stream) if event["type"] != "ping"
    )
    for event in events:
        assert sdk_valid_event(event) or not recorded_valid, event["type"]
    types = [event["type"] for event in events]
    assert (types[0], types[-2:]) == ("message_start", ["message_delta", "message_stop"])


# ------------------------------------------------------------- built messages

USAGE = {
    "input_tokens": 2400,
    "output_tokens": 50,
    "total_tokens": 2450,
    "input_token_details": {
        "cache_creation": 2000,
        "cache_read": 300,
        "ephemeral_5m_input_tokens": 1500,
        "ephemeral_1h_input_tokens": 500,
    },
    "output_token_details": {"reasoning": 20},
}
BUILT: dict[str, dict[str, Any]] = {
    "text": {"content": "Hello!", "finish_reason": "stop"},
    "blocks": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
    "empty": {"content": []},
    "tool_calls": {
        "content": [{"type": "text", "text": "Let me check."}],
        "tool_calls": [
            {"id": "toolu_01", "name": "weather", "arguments": {"city": "Paris"}, "index": 1},
            {"id": "toolu_02", "name": "time", "arguments": {}, "index": 2},
        ],
        "finish_reason": "tool_calls",
    },
    "reasoning": {
        "content": [
            {"type": "reasoning", "text": "Think.", "signature": SIG, "provider": "anthropic"},
            {"type": "reasoning", "encrypted_content": "ZGF0YQ==", "provider": "anthropic"},
            {"type": "text", "text": "Done."},
        ],
        "finish_reason": "stop",
    },
    "usage": {"content": "x", "usage": USAGE, "finish_reason": "length"},
    "citations": {
        "content": [
            {
                "type": "text",
                "text": "Paris is big.",
                "annotations": [
                    {
                        "type": "citation",
                        "cited_text": "Paris",
                        "title": "Doc",
                        "extras": {
                            "anthropic": {
                                "type": "char_location",
                                "document_index": 0,
                                "start_char_index": 0,
                                "end_char_index": 5,
                            }
                        },
                    }
                ],
            }
        ]
    },
    "server_tools": {
        "content": [
            {
                "type": "server_tool_call",
                "id": "srvtoolu_01",
                "name": "web_search",
                "arguments": {"query": "q"},
            },
            {
                "type": "server_tool_result",
                "tool_call_id": "srvtoolu_01",
                "output": [],
                "status": "success",
                "extras": {"anthropic": {"type": "web_search_tool_result"}},
            },
        ],
        "finish_reason": "stop",
    },
    "paused": {"content": "…", "finish_reason": "paused"},
    "refusal": {"content": "No.", "finish_reason": "content_filter"},
    "stop_sequence": {
        "content": "x",
        "raw_finish_reason": "stop_sequence",
        "finish_reason": "stop",
        "response_metadata": {"anthropic": {"stop_sequence": "END", "service_tier": "standard"}},
    },
}


def _stamped(block: Any, model: str) -> Any:
    """A block as decoding gives it back: reasoning records the response's model."""
    if isinstance(block, ReasoningBlock) and block.model is None:
        return block.model_copy(update={"model": model})
    return block


@pytest.mark.parametrize("name", list(BUILT))
def test_built_message_is_a_valid_response_and_stream(name: str) -> None:
    built = message(**BUILT[name])
    body = codec.encode_response(built, id_seed=1, model="claude-test")
    Message.model_validate(body)
    assert MSG_ID.fullmatch(body["id"])
    decoded = codec.decode_response(body)
    # decoded reasoning records the response's model (its provenance)
    assert decoded.content == (
        [_stamped(block, "claude-test") for block in built.content]
        if isinstance(built.content, list)
        else decoded.content
    )
    assert [call.arguments for call in decoded.tool_calls] == [
        call.arguments for call in built.tool_calls
    ]
    events = list(codec.encode_stream(built, id_seed=1, model="claude-test"))
    for event in events:
        EVENT.validate_python(event)
    assert assembled(list(codec.decode_stream(events))) == to_dict(decoded)


@pytest.mark.parametrize(
    ("finish", "stop"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("tool_calls", "tool_use"),
        ("paused", "pause_turn"),
        ("content_filter", "refusal"),
        ("error", None),
        ("other", None),
    ],
)
def test_each_finish_reason(finish: str, stop: str | None) -> None:
    body = codec.encode_response(message(content="x", finish_reason=finish))
    assert body["stop_reason"] == stop
    Message.model_validate(body)
    events = list(codec.encode_stream(message(content="x", finish_reason=finish)))
    assert events[-2]["delta"]["stop_reason"] == stop


def test_another_providers_raw_finish_reason_is_mapped() -> None:
    built = message(
        content="x", provider="openai_chat", raw_finish_reason="stop", finish_reason="stop"
    )
    assert codec.encode_response(built)["stop_reason"] == "end_turn"


def test_usage_undoes_the_cache_sum() -> None:
    usage = codec.encode_response(message(content="x", usage=USAGE))["usage"]
    assert usage == {
        "input_tokens": 100,
        "cache_creation_input_tokens": 2000,
        "cache_read_input_tokens": 300,
        "cache_creation": {"ephemeral_5m_input_tokens": 1500, "ephemeral_1h_input_tokens": 500},
        "output_tokens": 50,
        "output_tokens_details": {"thinking_tokens": 20},
    }


def test_tool_calls_go_back_in_place() -> None:
    built = message(
        content=[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        tool_calls=[{"id": "toolu_1", "name": "f", "arguments": {}, "index": 1}],
    )
    body = codec.encode_response(built)
    assert [block["type"] for block in body["content"]] == ["text", "tool_use", "text"]
    events = list(codec.encode_stream(built))
    starts = [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"]
    assert starts == ["text", "tool_use", "text"]


def test_invalid_tool_call_goes_back_as_its_tool_use() -> None:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": [1, 2]}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    decoded = codec.decode_response(body)
    assert decoded.invalid_tool_calls
    assert codec.encode_response(decoded) == body
    events = list(codec.encode_stream(decoded))
    assert assembled(list(codec.decode_stream(events))) == to_dict(decoded)


# ------------------------------------------------------------------ options


def test_id_seed_makes_the_same_ids_in_the_providers_shape() -> None:
    built = message(content="x")
    first = codec.encode_response(built, id_seed=7)
    assert first == codec.encode_response(built, id_seed=7)
    assert first["id"] != codec.encode_response(built, id_seed=8)["id"]
    assert MSG_ID.fullmatch(first["id"])
    chunk = AssistantMessageChunk.model_validate(
        {"role": "assistant", "tool_call_chunks": [{"index": 0, "name": "f", "arguments": "{}"}]}
    )
    events = list(codec.encode_stream([chunk], id_seed="s"))
    assert events == list(codec.encode_stream([chunk], id_seed="s"))
    assert MSG_ID.fullmatch(events[0]["message"]["id"])
    assert TOOL_ID.fullmatch(events[1]["content_block"]["id"])


def test_created_is_taken_but_a_message_has_no_time() -> None:
    built = message(content="x", response_id="msg_1")
    assert codec.encode_response(built, created=1) == codec.encode_response(built)


def test_model_option_names_a_model_only_when_the_message_has_none() -> None:
    assert codec.encode_response(message(content="x"))["model"] == "unknown"
    assert codec.encode_response(message(content="x"), model="m1")["model"] == "m1"
    assert codec.encode_response(message(content="x", model="m0"), model="m1")["model"] == "m0"
    start = next(iter(codec.encode_stream(message(content="x"), model="m1")))
    assert start["message"]["model"] == "m1"


@pytest.mark.parametrize(
    "options", [{"colour": "red"}, {"unsupported": "ignore"}, {"id_seed": 1.5}, {"model": ""}]
)
def test_bad_options_raise_at_the_call(options: dict[str, Any]) -> None:
    with pytest.raises(OptionError):
        codec.encode_response(message(content="x"), **options)
    with pytest.raises(OptionError):
        codec.encode_stream(message(content="x"), **options)  # not iterated


IMAGE = {"type": "image", "url": "https://example.com/a.png"}


def test_unsupported_content_error_names_the_block() -> None:
    built = message(content=[{"type": "text", "text": "a"}, IMAGE])
    with pytest.raises(UnsupportedContentError) as raised:
        codec.encode_response(built)
    assert raised.value.block_index == 1
    with pytest.raises(UnsupportedContentError) as raised:
        list(codec.encode_stream(built))
    assert raised.value.block_index == 1


def test_unsupported_content_drop_and_placeholder() -> None:
    built = message(content=[{"type": "text", "text": "a"}, IMAGE])
    dropped = codec.encode_response(built, unsupported="drop")
    assert dropped["content"] == [{"type": "text", "text": "a"}]
    placed = codec.encode_response(built, unsupported="placeholder")
    assert placed["content"][1]["type"] == "text"
    assert "image" in placed["content"][1]["text"]
    events = list(codec.encode_stream(built, unsupported="placeholder"))
    text = assembled(list(codec.decode_stream(events)))["content"]
    assert [block["type"] for block in text] == ["text", "text"]


def test_another_providers_signature_goes_to_the_policy() -> None:
    block = {"type": "reasoning", "text": "hm", "signature": "sig", "provider": "gemini"}
    built = message(content=[block])
    with pytest.raises(UnsupportedContentError):
        codec.encode_response(built)
    dropped = codec.encode_response(built, unsupported="drop")
    assert dropped["content"] == [{"type": "thinking", "thinking": "hm", "signature": ""}]
    events = list(codec.encode_stream(built, unsupported="placeholder"))
    types = [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"]
    assert types == ["thinking", "text"]


# ---------------------------------------------------------------- bad input


def test_not_a_message_is_refused() -> None:
    with pytest.raises(ConversionError):
        codec.encode_response(42)
    with pytest.raises(ConversionError):
        codec.encode_stream(42)  # type: ignore[call-overload]
    with pytest.raises(ConversionError):
        list(codec.encode_stream([AssistantMessageChunk(content="a"), 42]))


def test_a_chunk_after_the_last_is_refused() -> None:
    last = AssistantMessageChunk(content="a", chunk_position="last")
    with pytest.raises(ConversionError):
        list(codec.encode_stream([last, AssistantMessageChunk(content="b")]))


# ------------------------------------------------------------------ sources


def text_chunks(n: int) -> list[AssistantMessageChunk]:
    return [
        AssistantMessageChunk.model_validate(
            {"role": "assistant", "content": [{"type": "text", "text": f"{i} ", "index": 0}]}
        )
        for i in range(n)
    ]


def _text_of(events: list[dict[str, Any]]) -> str:
    message = assembled(list(codec.decode_stream(events)))
    return str(message["content"][0]["text"])


def test_sources_sync_async_message_and_chunk() -> None:
    chunks = text_chunks(3)
    expected = "0 1 2 "
    assert _text_of(list(codec.encode_stream(chunks))) == expected
    assert _text_of(list(codec.encode_stream(iter(chunks)))) == expected

    async def agen() -> AsyncIterator[AssistantMessageChunk]:
        for chunk in chunks:
            yield chunk

    async def collect() -> list[dict[str, Any]]:
        return [event async for event in codec.encode_stream(agen())]

    assert _text_of(asyncio.run(collect())) == expected
    assert _text_of(list(codec.encode_stream(message(content=expected)))) == expected
    assert _text_of(list(codec.encode_stream(chunks[0]))) == "0 "
    empty = list(codec.encode_stream([]))
    assert [event["type"] for event in empty] == ["message_start", "message_delta", "message_stop"]


def test_a_consumer_that_stops_early_closes_the_source() -> None:
    closed = []

    def source() -> Iterator[AssistantMessageChunk]:
        try:
            yield from text_chunks(10)
        finally:
            closed.append(True)

    stream = codec.encode_stream(source())
    assert next(stream)["type"] == "message_start"
    stream.close()  # type: ignore[attr-defined]
    assert closed == [True]

    async def asource() -> AsyncIterator[AssistantMessageChunk]:
        try:
            for chunk in text_chunks(10):
                yield chunk
        finally:
            closed.append(False)

    async def main() -> None:
        stream = codec.encode_stream(asource())
        await stream.__anext__()
        await stream.aclose()

    asyncio.run(main())
    assert closed == [True, False]


def test_text_deltas_go_out_as_the_chunks_come() -> None:
    events = list(codec.encode_stream(text_chunks(3)))
    types = [event["type"] for event in events]
    assert types == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_sse_frames_are_named_by_the_event_type() -> None:
    frames = list(codec.encode_stream(message(content="hi"), sse=True))
    assert frames[0].startswith(b"event: message_start\ndata: {")
    assert all(frame.endswith(b"\n\n") for frame in frames)
