"""Bedrock Converse, the server side: ``encode_response`` and ``encode_stream``.

The oracle is botocore's own service model of ``bedrock-runtime``: every written
response validates against the ``Converse`` output shape and every event against the
``ConverseStream`` event-stream shape (``ParamValidator``, which also reports keys
outside the shape); the binary body ``sse=True`` writes is read back by botocore's
``EventStreamBuffer`` and by its ``rest-json`` response parser.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import re
import struct
from collections.abc import AsyncIterator, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import recorded
from chatschema_models.usage import InputTokenDetails
from conftest import assembled

from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    Citation,
    ConversionError,
    FileBlock,
    ImageBlock,
    InvalidToolCall,
    ReasoningBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCall,
    ToolCallChunk,
    UnsupportedContentError,
    Usage,
    to_dict,
)
from chatschema.errors import OptionError
from chatschema.providers import bedrock_converse as codec
from chatschema.providers.bedrock_converse.eventstream import EventStreamReader, frame_event
from providers.bedrock_converse.helpers import PNG, SIG, load, names

TRAFFIC = Path(__file__).resolve().parents[2] / "traffic" / "bedrock_converse"
TOOL_USE_ID = re.compile(r"tooluse_[A-Za-z0-9_-]{22}")


def _files(kind: str) -> list[Any]:
    return [
        pytest.param(path, id=path.name)
        for path in recorded.listing(TRAFFIC)
        if kind in recorded.index(path)
    ]


RESPONSES = _files("response")
STREAMS = _files("stream")
PAYLOAD_RESPONSES = names("response") + names("stream")
PAYLOAD_STREAMS = names("stream")


# ======================================================================= oracle


@cache
def _shapes() -> tuple[Any, Any, Any]:
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    converse = model.operation_model("Converse").output_shape
    stream = model.operation_model("ConverseStream").output_shape
    return converse, stream, stream.members["stream"]


def _report(value: dict[str, Any], shape: Any) -> list[str]:
    from botocore.validate import ParamValidator

    report = ParamValidator().validate(value, shape)
    return report.generate_report().splitlines() if report.has_errors() else []


def valid_response(body: dict[str, Any], recorded_body: dict[str, Any] | None = None) -> None:
    """The body validates against botocore's Converse output shape (no unknown key).

    A recorded body may carry what this botocore does not model (``serverToolUsage``,
    ``cacheReadInputTokenCount``, a guardrail trace without ``regexes``: the service
    sends them): the written body has no problem the recorded one does not have.
    """
    json.dumps(body)  # JSON data: blobs as base64 text
    allowed = _report(recorded_body, _shapes()[0]) if recorded_body is not None else []
    problems = [line for line in _report(body, _shapes()[0]) if line not in allowed]
    assert not problems, "\n".join(problems)


def valid_events(events: list[dict[str, Any]], recorded_events: Any = None) -> None:
    """Every event validates against the ConverseStream event shape (as ``valid_response``)."""
    shape = _shapes()[2]
    allowed: set[str] = set()
    for event in recorded_events or []:
        stripped = {key: _without_padding(value) for key, value in event.items()}
        allowed.update(_report(stripped, shape))
    for event in events:
        json.dumps(event)
        assert len(event) == 1
        problems = [line for line in _report(event, shape) if line not in allowed]
        assert not problems, "\n".join(problems)


def _as_events(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A recorded response's usage and trace as the stream's metadata event carries
    them (for what the service sends and this botocore does not model)."""
    metadata = {"usage": body["usage"], "metrics": body["metrics"]}
    if "trace" in body:
        metadata["trace"] = body["trace"]
    return [{"metadata": metadata}]


def _without_padding(value: Any) -> Any:
    return {k: v for k, v in value.items() if k != "p"} if isinstance(value, dict) else value


def without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def botocore_events(body: bytes) -> list[dict[str, Any]]:
    """The events botocore's rest-json parser reads from a ConverseStream body."""
    from botocore.parsers import create_parser

    class Raw:
        def stream(self) -> Iterator[bytes]:
            for start in range(0, len(body), 7):
                yield body[start : start + 7]

        def close(self) -> None:
            pass

    response = {
        "status_code": 200,
        "headers": {"content-type": "application/vnd.amazon.eventstream"},
        "body": Raw(),
        "context": {"operation_name": "ConverseStream"},
    }
    parsed = create_parser("rest-json").parse(response, _shapes()[1])
    return list(parsed["stream"])


def _modeled(value: Any, shape: Any) -> Any:
    """``value`` with only the keys ``shape`` models (what botocore's parser keeps)."""
    kind = shape.type_name
    if shape.metadata.get("document"):
        return value
    if kind == "structure" and isinstance(value, dict):
        return {
            key: _modeled(item, shape.members[key])
            for key, item in value.items()
            if key in shape.members
        }
    if kind == "list" and isinstance(value, list):
        return [_modeled(item, shape.member) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {key: _modeled(item, shape.value) for key, item in value.items()}
    return value


def streamed(source: Any, recorded_events: Any = None, **options: Any) -> dict[str, Any]:
    """``encode_stream`` events, validated, decoded and assembled."""
    events = list(codec.encode_stream(source, **options))
    valid_events(events, recorded_events)
    return assembled(list(codec.decode_stream(events)))


# ============================================================ recorded traffic


@pytest.mark.parametrize("path", RESPONSES)
def test_recorded_responses_come_back(path: Path) -> None:
    body = recorded.load(path, shared=True)["response"]
    message = codec.decode_response(copy.deepcopy(body))
    written = codec.encode_response(message)
    assert without_nulls(written) == without_nulls(body)
    valid_response(written, body)


@pytest.mark.parametrize("path", RESPONSES)
def test_recorded_responses_stream_to_the_same_message(path: Path) -> None:
    body = recorded.load(path, shared=True)["response"]
    message = codec.decode_response(copy.deepcopy(body))
    events = list(codec.encode_stream(message))
    valid_events(events, _as_events(body))
    assert assembled(list(codec.decode_stream(events))) == to_dict(message)
    raw = b"".join(codec.encode_stream(message, sse=True))
    assert assembled(list(codec.decode_stream(_pieces(raw)))) == to_dict(message)


@pytest.mark.parametrize("path", STREAMS)
def test_recorded_streams_write_back_the_same_message(path: Path) -> None:
    recorded_events = recorded.load(path, shared=True)["stream"]
    chunks = list(codec.decode_stream(copy.deepcopy(recorded_events)))
    events = list(codec.encode_stream(chunks))
    valid_events(events, recorded_events)
    assert assembled(list(codec.decode_stream(events))) == assembled(chunks)
    raw = b"".join(codec.encode_stream(chunks, sse=True))
    assert assembled(list(codec.decode_stream(raw))) == assembled(chunks)
    shape = _shapes()[2]
    assert botocore_events(raw) == [_modeled(codec.boto3_form(e), shape) for e in events]


@pytest.mark.parametrize("path", STREAMS)
def test_recorded_streams_write_the_recorded_events(path: Path) -> None:
    """Event for event what the service sent, but the padding and the empty deltas
    (a tool call's first input, text inside a block) some models send."""
    recorded_events = recorded.load(path, shared=True)["stream"]
    chunks = list(codec.decode_stream(copy.deepcopy(recorded_events)))
    expected = []
    seen = set()
    for event in recorded_events:
        ((name, body),) = event.items()
        body = _without_padding(body)
        delta = body.get("delta")
        if delta == {"toolUse": {"input": ""}}:
            continue
        if delta == {"text": ""} and body["contentBlockIndex"] in seen:
            continue  # an empty delta inside a block says nothing (Nova sends some)
        seen.add(body.get("contentBlockIndex"))
        expected.append({name: body})
    written = list(codec.encode_stream(chunks))
    if any("image" in json.dumps(event) for event in expected):  # pragma: no cover
        pytest.skip("images are sent whole")
    assert [json.loads(json.dumps(event)) for event in written] == expected


@pytest.mark.parametrize("name", PAYLOAD_RESPONSES)
def test_recorded_payload_responses_come_back(name: str) -> None:
    body = load(name)["response"]
    message = codec.decode_response(copy.deepcopy(body))
    written = codec.encode_response(message)
    assert without_nulls(written) == without_nulls(body)
    valid_response(written, body)
    assert streamed(message, _as_events(body)) == to_dict(message)


@pytest.mark.parametrize("name", PAYLOAD_STREAMS)
def test_recorded_payload_streams_write_back(name: str) -> None:
    chunks = list(codec.decode_stream(copy.deepcopy(load(name)["events"])))
    assert streamed(chunks) == assembled(chunks)


# ============================================================== built messages

CALL = ToolCall(id="tooluse_abc", name="get_weather", arguments={"city": "Oslo"})


def _messages() -> list[tuple[str, AssistantMessage]]:
    usage = Usage(
        input_tokens=130,
        output_tokens=20,
        total_tokens=150,
        input_token_details=InputTokenDetails(cache_read=100, cache_creation=10),
    )
    return [
        ("text", AssistantMessage(content="Hello!")),
        ("empty", AssistantMessage(content=[])),
        ("tool_calls", AssistantMessage(content="Checking.", tool_calls=[CALL])),
        (
            "reasoning",
            AssistantMessage(
                content=[
                    ReasoningBlock(text="Think.", signature=SIG, provider="bedrock_converse"),
                    TextBlock(text="Done."),
                ]
            ),
        ),
        (
            "redacted",
            AssistantMessage(
                content=[
                    ReasoningBlock(encrypted_content=PNG, provider="bedrock_converse"),
                    TextBlock(text="Done."),
                ]
            ),
        ),
        ("usage", AssistantMessage(content="Hi.", usage=usage)),
        ("image", AssistantMessage(content=[ImageBlock(base64=PNG, mime_type="image/png")])),
        (
            "citations",
            AssistantMessage(
                content=[
                    TextBlock(
                        text="Paris.",
                        annotations=[
                            Citation(title="Atlas", url="https://example.com", cited_text="x")
                        ],
                    )
                ]
            ),
        ),
        (
            "server_tools",
            AssistantMessage(
                content=[
                    ServerToolCallBlock(
                        id="tooluse_srv",
                        name="nova_code_interpreter",
                        arguments={"snippet": "1+1"},
                        provider="bedrock_converse",
                    ),
                    ServerToolResultBlock(
                        tool_call_id="tooluse_srv",
                        status="success",
                        output=[{"json": {"stdOut": "2"}}],
                        provider="bedrock_converse",
                    ),
                ]
            ),
        ),
        (
            "invalid_call",
            AssistantMessage(
                invalid_tool_calls=[
                    InvalidToolCall(id="tooluse_x", name="f", arguments="[1, 2]", error="list")
                ]
            ),
        ),
    ] + [
        (f"finish_{reason}", AssistantMessage(content="x", finish_reason=reason))
        for reason in ("stop", "length", "tool_calls", "content_filter", "error", "other")
    ]


MESSAGES = _messages()


@pytest.mark.parametrize(("name", "message"), MESSAGES, ids=[name for name, _ in MESSAGES])
def test_built_messages_validate(name: str, message: AssistantMessage) -> None:
    body = codec.encode_response(message)
    valid_response(body)
    again = codec.decode_response(body)
    events = list(codec.encode_stream(message))
    valid_events(events)
    from_stream = assembled(list(codec.decode_stream(events)))
    assert from_stream == to_dict(again)
    assert codec.encode_response(again) == body


def test_stop_reasons_and_usage() -> None:
    by_finish = {
        reason: codec.encode_response(AssistantMessage(content="x", finish_reason=reason))
        for reason in ("stop", "length", "tool_calls", "content_filter", "error", "other")
    }
    assert {reason: body["stopReason"] for reason, body in by_finish.items()} == {
        "stop": "end_turn",
        "length": "max_tokens",
        "tool_calls": "tool_use",
        "content_filter": "content_filtered",
        "error": "malformed_model_output",
        "other": "end_turn",
    }
    assert codec.encode_response(AssistantMessage(tool_calls=[CALL]))["stopReason"] == "tool_use"
    kept = AssistantMessage(content="x", raw_finish_reason="guardrail_intervened")
    assert codec.encode_response(kept)["stopReason"] == "guardrail_intervened"
    body = codec.encode_response(dict(MESSAGES)["usage"])
    assert body["usage"] == {
        "inputTokens": 20,
        "outputTokens": 20,
        "totalTokens": 150,
        "cacheReadInputTokens": 100,
        "cacheWriteInputTokens": 10,
    }
    assert body["metrics"] == {"latencyMs": 0}
    assert "ResponseMetadata" not in body and "model" not in body


def test_tool_calls_go_back_in_place() -> None:
    message = AssistantMessage(
        content=[TextBlock(text="a"), TextBlock(text="b")],
        tool_calls=[CALL.model_copy(update={"index": 1})],
    )
    content = codec.encode_response(message)["output"]["message"]["content"]
    assert [next(iter(block)) for block in content] == ["text", "toolUse", "text"]
    events = list(codec.encode_stream(message))
    starts = [event for event in events if "contentBlockStart" in event]
    assert starts[0]["contentBlockStart"]["contentBlockIndex"] == 1


def test_the_stream_events_in_order() -> None:
    message = AssistantMessage(
        content="Hi",
        tool_calls=[CALL],
        usage=Usage(input_tokens=3, output_tokens=4, total_tokens=7),
    )
    events = list(codec.encode_stream(message))
    arguments = events[4]["contentBlockDelta"]["delta"]["toolUse"]["input"]
    assert json.loads(arguments) == {"city": "Oslo"}  # the JSON text as_chunk writes
    assert events == [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "Hi"}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 1,
                "start": {"toolUse": {"toolUseId": "tooluse_abc", "name": "get_weather"}},
            }
        },
        {
            "contentBlockDelta": {
                "delta": {"toolUse": {"input": arguments}},
                "contentBlockIndex": 1,
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"messageStop": {"stopReason": "tool_use"}},
        {
            "metadata": {
                "usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7},
                "metrics": {"latencyMs": 0},
            }
        },
    ]


def test_chunks_from_another_format_stream() -> None:
    """Chunks as an OpenAI Chat stream gives them: string text, call fragments without
    ids after the first, usage at the end, no last marker."""
    chunks = [
        AssistantMessageChunk(content="Hel"),
        AssistantMessageChunk(content="lo"),
        AssistantMessageChunk(
            tool_call_chunks=[ToolCallChunk(index=0, id="call_1", name="f", arguments='{"a"')]
        ),
        AssistantMessageChunk(tool_call_chunks=[ToolCallChunk(index=0, arguments=": 1}")]),
        AssistantMessageChunk(tool_call_chunks=[ToolCallChunk(index=1, name="g", arguments="{}")]),
        AssistantMessageChunk(finish_reason="tool_calls"),
        AssistantMessageChunk(usage=Usage(input_tokens=5, output_tokens=6, total_tokens=11)),
    ]
    message = streamed(chunks, id_seed=1)
    assert message["content"] == [{"type": "text", "text": "Hello"}]
    calls = message["tool_calls"]
    first = calls[0]
    assert (first["id"], first["name"], first["arguments"]) == (
        "call_1",
        "f",
        {"a": 1},
    )
    assert TOOL_USE_ID.fullmatch(calls[1]["id"])
    assert message["finish_reason"] == "tool_calls"
    assert message["usage"]["total_tokens"] == 11


def test_cumulative_usage_is_the_last_one() -> None:
    chunks = [
        AssistantMessageChunk(content="a"),
        AssistantMessageChunk(
            usage=Usage(input_tokens=5, output_tokens=1, total_tokens=6), usage_mode="cumulative"
        ),
        AssistantMessageChunk(
            usage=Usage(input_tokens=5, output_tokens=2, total_tokens=7), usage_mode="cumulative"
        ),
    ]
    events = list(codec.encode_stream(chunks))
    assert events[-1]["metadata"]["usage"] == {
        "inputTokens": 5,
        "outputTokens": 2,
        "totalTokens": 7,
    }


# ===================================================================== options


def _idless() -> list[AssistantMessageChunk]:
    return [
        AssistantMessageChunk(tool_call_chunks=[ToolCallChunk(index=0, name="f", arguments="{}")]),
        AssistantMessageChunk(tool_call_chunks=[ToolCallChunk(index=1, name="g", arguments="{}")]),
    ]


def test_id_seed_makes_the_same_ids() -> None:
    first = list(codec.encode_stream(_idless(), id_seed=7))
    again = list(codec.encode_stream(_idless(), id_seed=7))
    other = list(codec.encode_stream(_idless(), id_seed="other"))
    assert first == again != other
    ids = [
        event["contentBlockStart"]["start"]["toolUse"]["toolUseId"]
        for event in first
        if "contentBlockStart" in event
    ]
    assert len(set(ids)) == 2 and all(TOOL_USE_ID.fullmatch(item) for item in ids)
    invalid = AssistantMessage(
        invalid_tool_calls=[InvalidToolCall(name="f", arguments="[1]", error="list")]
    )
    body = codec.encode_response(invalid, id_seed=3)
    assert body == codec.encode_response(invalid, id_seed=3)
    (block,) = body["output"]["message"]["content"]
    assert TOOL_USE_ID.fullmatch(block["toolUse"]["toolUseId"])
    assert block["toolUse"]["input"] == [1]


def test_created_and_model_name_nothing_in_a_converse_response() -> None:
    message = AssistantMessage(content="x", model="anthropic.claude")
    plain = codec.encode_response(message)
    assert codec.encode_response(message, created=1700000000, model="m") == plain
    assert "anthropic.claude" not in json.dumps(plain)
    assert list(codec.encode_stream(message, model="m", created=1)) == list(
        codec.encode_stream(message)
    )


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},
        {"unsupported": "ignore"},
        {"id_seed": 1.5},
        {"created": "now"},
        {"model": ""},
    ],
)
def test_bad_options_raise_at_the_call(options: dict[str, Any]) -> None:
    message = AssistantMessage(content="x")
    with pytest.raises(OptionError):
        codec.encode_response(message, **options)
    with pytest.raises(OptionError):
        codec.encode_stream(message, **options)  # not iterated


DOCUMENT = FileBlock(base64="JVBERi0=", mime_type="application/pdf", filename="a")


def test_unsupported_content_policy_in_a_response() -> None:
    message = AssistantMessage(content=[TextBlock(text="see"), DOCUMENT])
    with pytest.raises(UnsupportedContentError) as caught:
        codec.encode_response(
            AssistantMessage(content=[TextBlock(text="see"), ImageBlock(url="https://x/a.png")])
        )
    assert caught.value.block_index == 1
    # a document in assistant content: Converse's ContentBlock has it
    assert "document" in codec.encode_response(message)["output"]["message"]["content"][1]
    image = AssistantMessage(content=[TextBlock(text="see"), ImageBlock(url="https://x/a.png")])
    dropped = codec.encode_response(image, unsupported="drop")["output"]["message"]["content"]
    assert dropped == [{"text": "see"}]
    placed = codec.encode_response(image, unsupported="placeholder")["output"]["message"]
    assert placed["content"][1]["text"].startswith("[image by URL omitted")


def test_unsupported_content_policy_in_a_stream() -> None:
    message = AssistantMessage(content=[TextBlock(text="see"), DOCUMENT])
    with pytest.raises(UnsupportedContentError) as caught:
        list(codec.encode_stream(message))
    assert caught.value.block_index == 1
    assert streamed(message, unsupported="drop")["content"] == [{"type": "text", "text": "see"}]
    placed = streamed(message, unsupported="placeholder")["content"]
    assert placed[1]["text"].startswith("[file block in a stream omitted")


def test_other_providers_reasoning_keeps_its_text_only() -> None:
    message = AssistantMessage(
        content=[ReasoningBlock(text="hmm", signature="sig", provider="anthropic")]
    )
    with pytest.raises(UnsupportedContentError):
        codec.encode_response(message)
    with pytest.raises(UnsupportedContentError):
        list(codec.encode_stream(message))
    body = codec.encode_response(message, unsupported="drop")
    assert body["output"]["message"]["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "hmm"}}}
    ]
    assert streamed(message, unsupported="drop")["content"] == [
        {"type": "reasoning", "text": "hmm", "provider": "bedrock_converse"}
    ]
    encrypted = AssistantMessage(
        content=[ReasoningBlock(encrypted_content="b3BhcXVl", provider="openai_responses")]
    )
    assert (
        codec.encode_response(encrypted, unsupported="drop")["output"]["message"]["content"] == []
    )


# ================================================================= bad input


def test_bad_input_raises_chatschema_errors() -> None:
    with pytest.raises(ConversionError):
        codec.encode_response(42)
    with pytest.raises(ConversionError):
        list(codec.encode_stream([AssistantMessageChunk(content="a"), 42]))
    with pytest.raises(ConversionError):
        codec.encode_stream(42)  # type: ignore[call-overload]
    with pytest.raises(ConversionError):  # Converse's contentBlockStart needs the name
        list(
            codec.encode_stream([AssistantMessageChunk(tool_call_chunks=[ToolCallChunk(index=0)])])
        )
    with pytest.raises(ConversionError):
        list(
            codec.encode_stream(
                [
                    AssistantMessageChunk(content="a", chunk_position="last"),
                    AssistantMessageChunk(content="b"),
                ]
            )
        )


# =================================================================== sources


def _chunks() -> list[AssistantMessageChunk]:
    return [AssistantMessageChunk(content=[TextBlock(text=t, index=0)]) for t in ("a", "b", "c")]


def test_every_kind_of_source() -> None:
    expected = assembled(list(codec.decode_stream(codec.encode_stream(_chunks()))))
    assert expected["content"] == [{"type": "text", "text": "abc"}]
    assert streamed(iter(_chunks())) == expected
    assert streamed(chunk for chunk in _chunks()) == expected
    assert streamed([to_dict(chunk) for chunk in _chunks()]) == expected
    assert streamed(AssistantMessage(content=[TextBlock(text="abc")])) == expected
    assert streamed(AssistantMessageChunk(content=[TextBlock(text="abc", index=0)])) == expected

    async def source() -> AsyncIterator[AssistantMessageChunk]:
        for chunk in _chunks():
            yield chunk

    async def collect(sse: bool) -> list[Any]:
        return [event async for event in codec.encode_stream(source(), sse=sse)]

    events = asyncio.run(collect(False))
    assert events == list(codec.encode_stream(_chunks()))
    body = asyncio.run(collect(True))
    assert body == list(codec.encode_stream(_chunks(), sse=True))


def test_a_consumer_that_stops_early_closes_the_source() -> None:
    closed = []

    def source() -> Iterator[AssistantMessageChunk]:
        try:
            yield from _chunks()
        finally:
            closed.append(True)

    events = codec.encode_stream(source())
    next(events)
    next(events)
    events.close()  # type: ignore[attr-defined]
    assert closed == [True]

    async def asource() -> AsyncIterator[AssistantMessageChunk]:
        try:
            for chunk in _chunks():
                yield chunk
        finally:
            closed.append(False)

    async def stop_early() -> None:
        stream = codec.encode_stream(asource())
        await anext(stream)
        await stream.aclose()

    asyncio.run(stop_early())
    assert closed == [True, False]


# ============================================================ the binary body


def _pieces(body: bytes, size: int = 7) -> list[bytes]:
    return [body[start : start + size] for start in range(0, len(body), size)]


def test_frames_read_by_botocore() -> None:
    from botocore.eventstream import EventStreamBuffer

    event = {"contentBlockDelta": {"delta": {"text": "héllo \n"}, "contentBlockIndex": 0}}
    buffer = EventStreamBuffer()
    buffer.add_data(frame_event(event) * 2)
    messages = list(buffer)
    assert len(messages) == 2
    assert messages[0].headers == {
        ":event-type": "contentBlockDelta",
        ":content-type": "application/json",
        ":message-type": "event",
    }
    assert json.loads(messages[0].payload) == event["contentBlockDelta"]


def test_async_bytes_decode_to_the_same_message() -> None:
    message = AssistantMessage(
        content=[ReasoningBlock(text="t", signature=SIG), TextBlock(text="Hi")]
    )
    body = b"".join(codec.encode_stream(message, sse=True))

    async def pieces() -> AsyncIterator[bytes]:
        for piece in _pieces(body, 5):
            yield piece

    async def collect() -> list[Any]:
        return [chunk async for chunk in codec.decode_stream(pieces())]

    assert assembled(asyncio.run(collect())) == assembled(list(codec.decode_stream(body)))
    assert assembled(list(codec.decode_stream(iter(_pieces(body, 3))))) == streamed(message)


def test_a_broken_body_raises() -> None:
    frame = frame_event({"messageStart": {"role": "assistant"}})
    corrupt = frame[:-1] + bytes([frame[-1] ^ 1])
    with pytest.raises(ConversionError, match="checksum"):
        list(EventStreamReader().feed(corrupt))
    reader = EventStreamReader()
    reader.feed(frame[:-3])
    with pytest.raises(ConversionError, match="ends inside"):
        reader.end()
    with pytest.raises(ConversionError):
        list(codec.decode_stream([frame[:20]]))


def test_an_exception_message_raises_its_message() -> None:
    def header(name: str, value: str) -> bytes:
        raw = value.encode()
        return bytes((len(name),)) + name.encode() + b"\x07" + struct.pack(">H", len(raw)) + raw

    import zlib

    headers = header(":exception-type", "throttlingException") + header(
        ":message-type", "exception"
    )
    payload = b'{"message":"slow down"}'
    prelude = struct.pack(">II", 16 + len(headers) + len(payload), len(headers))
    head = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + payload
    frame = head + struct.pack(">I", zlib.crc32(head))
    start = frame_event({"messageStart": {"role": "assistant"}})
    with pytest.raises(ConversionError, match="slow down"):
        list(codec.decode_stream([start + frame]))


def test_blobs_are_base64_text() -> None:
    message = dict(MESSAGES)["image"]
    body = codec.encode_response(message)
    source = body["output"]["message"]["content"][0]["image"]["source"]
    assert base64.b64decode(source["bytes"]) == base64.b64decode(PNG)


def test_the_body_is_the_events_framed() -> None:
    """``sse=True`` frames text deltas straight from their text: the same bytes."""
    chunks = [
        AssistantMessageChunk(content=[ReasoningBlock(text="pensée", index=0)]),
        AssistantMessageChunk(content=[TextBlock(text=t, index=1) for t in ["é"]]),
        *[AssistantMessageChunk(content=[TextBlock(text=t, index=1)]) for t in ("\n", '"q"', "")],
        AssistantMessageChunk(content=[TextBlock(text="x" * 70_000, index=1)]),
        AssistantMessageChunk(content=[TextBlock(text="b", index=2)]),
        AssistantMessageChunk(content=[TextBlock(text="c", index=2)], finish_reason="length"),
    ]
    events = list(codec.encode_stream(chunks))
    assert list(codec.encode_stream(chunks, sse=True)) == [frame_event(e) for e in events]
    assert botocore_events(b"".join(codec.encode_stream(chunks, sse=True))) == events
