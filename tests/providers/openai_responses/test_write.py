"""The OpenAI Responses codec's server side: ``encode_response`` and ``encode_stream``.

Oracles: the official SDK's ``Response`` and ``ResponseStreamEvent`` types, and the
codec's own readers (``decode_response`` / ``decode_stream``), over the recorded
traffic (``tests/traffic/openai_responses``) and built messages.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
import recorded
from conftest import assembled
from openai.types.responses import Response, ResponseStreamEvent

from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    Citation,
    ConversionError,
    ImageBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    TextBlock,
    ToolCall,
    UnsupportedContentError,
    Usage,
    to_dict,
)
from chatschema.errors import OptionError
from chatschema.providers import openai_responses as R
from chatschema.providers.openai_responses.response import message_chunk

NAME = "openai_responses"
TRAFFIC = Path(__file__).resolve().parents[2] / "traffic" / NAME
FILES = recorded.listing(TRAFFIC)
EVENT: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseStreamEvent)
HEX_ID = re.compile(r"(resp|msg|rs|fc|ws)_[0-9a-f]{50}")
CALL_ID = re.compile(r"call_[A-Za-z0-9]{24}")


def _params(kind: str) -> list[Any]:
    return [pytest.param(path, id=path.name) for path in FILES if kind in recorded.index(path)]


def without_nulls(value: Any) -> Any:
    """JSON without its ``null`` members, at every depth."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def sdk_errors(validate: Any, data: Any) -> set[str]:
    """Where the SDK type refuses ``data`` (empty: it validates)."""
    try:
        validate(data)
    except pydantic.ValidationError as error:
        return {".".join(str(part) for part in problem["loc"]) for problem in error.errors()}
    return set()


def response_errors(body: dict[str, Any]) -> set[str]:
    return sdk_errors(Response.model_validate, body)


def event_errors(event: dict[str, Any]) -> set[str]:
    errors = sdk_errors(EVENT.validate_python, event)
    if not errors:
        return errors
    # the union's errors name every member: keep those of the event's own type
    return {loc for loc in errors if ".response." in loc or ".item." in loc} or errors


def valid_events(events: list[dict[str, Any]]) -> None:
    """Every event validates with the SDK's event type; sequence numbers count up."""
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    for event in events:
        assert not sdk_errors(EVENT.validate_python, event), event["type"]


def restream(message_or_chunks: Any, **options: Any) -> dict[str, Any]:
    """What decode_stream assembles of encode_stream's events."""
    events = list(R.encode_stream(message_or_chunks, **options))
    return assembled(list(R.decode_stream(events)))


# ====================================================================== recorded traffic


@pytest.mark.parametrize("path", _params("response"))
def test_recorded_response_round_trips(path: Path) -> None:
    body = recorded.load(path)["response"]
    message = R.decode_response(body)
    written = R.encode_response(message)
    assert without_nulls(written) == without_nulls(body)
    # The SDK refuses what it refuses of the recorded body itself (this SDK requires
    # `cache_write_tokens`, which older responses lack), nothing more.
    assert response_errors(written) <= response_errors(body)
    # The message streams: decode_stream of the events assembles to it.
    events = list(R.encode_stream(message))
    assert assembled(list(R.decode_stream(events))) == to_dict(message)
    final = events[-1]["response"]
    assert without_nulls(final) == without_nulls(written)


@pytest.mark.parametrize("path", _params("stream"))
def test_recorded_stream_reencodes(path: Path) -> None:
    stream = recorded.load(path)["stream"]
    chunks = list(R.decode_stream(stream))
    events = list(R.encode_stream(chunks))
    assert assembled(list(R.decode_stream(events))) == assembled(chunks)
    recorded_final = [
        event["response"]
        for event in R_events(stream)
        if event.get("type") in ("response.completed", "response.incomplete")
    ]
    allowed = response_errors(recorded_final[-1]) if recorded_final else set()
    for event in events[:-1]:
        assert not event_errors(event), event["type"]
    assert response_errors(events[-1]["response"]) <= allowed
    # the final Response is what encode_response writes of the assembled message
    message = AssistantMessage.model_validate(assembled(chunks))
    written = R.encode_response(message, created=events[0]["response"]["created_at"])
    final = events[-1]["response"]
    assert without_nulls(final)["output"] == without_nulls(written)["output"]


def R_events(stream: str) -> list[dict[str, Any]]:
    """The JSON events of a recorded SSE body."""
    import json

    return [
        json.loads(line[5:])
        for line in stream.splitlines()
        if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]")
    ]


# ====================================================================== built messages

USAGE = Usage(
    input_tokens=120,
    output_tokens=40,
    total_tokens=160,
    input_token_details={"cache_read": 100, "cache_creation": 0},
    output_token_details={"reasoning": 12},
)
REASONING = ReasoningBlock(
    id="rs_1", provider=NAME, summary=["Thinking about Oslo."], encrypted_content="gAAAA-opaque"
)
CALL = ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})
BUILT = {
    "text": AssistantMessage(content="Hello!", finish_reason="stop"),
    "blocks": AssistantMessage(
        content=[
            TextBlock(
                text="See the source.",
                annotations=[Citation(url="https://x.test", title="X", start_index=0, end_index=3)],
            ),
            TextBlock(text="Second part."),
        ],
        usage=USAGE,
    ),
    "reasoning_and_call": AssistantMessage(
        content=[REASONING], tool_calls=[CALL], finish_reason="tool_calls", usage=USAGE
    ),
    "call_only": AssistantMessage(tool_calls=[CALL]),
    "length": AssistantMessage(content="Cut", finish_reason="length"),
    "content_filter": AssistantMessage(content="", finish_reason="content_filter"),
    "refusal": AssistantMessage(
        content=[RefusalBlock(text="I can't help with that.")], finish_reason="content_filter"
    ),
    "error": AssistantMessage(content="", finish_reason="error"),
    "other": AssistantMessage(content="x", finish_reason="other"),
    "web_search": AssistantMessage(
        content=[
            ServerToolCallBlock(
                id="ws_1", name="web_search", arguments={"type": "search", "query": "oslo"}
            ),
            TextBlock(text="Sunny."),
        ]
    ),
    "reasoning_text": AssistantMessage(
        content=[
            ReasoningBlock(text="Step one.\nStep two.", summary=["Steps."]),
            TextBlock(text="Done."),
        ]
    ),
    "empty": AssistantMessage(),
}
STATUS = {
    "text": ("completed", None),
    "length": ("incomplete", {"reason": "max_output_tokens"}),
    "content_filter": ("incomplete", {"reason": "content_filter"}),
    "refusal": ("incomplete", {"reason": "content_filter"}),
    "error": ("failed", None),
    "other": ("incomplete", None),
    "empty": ("completed", None),
}


@pytest.mark.parametrize("name", list(BUILT))
def test_built_message_is_a_valid_response(name: str) -> None:
    message = BUILT[name]
    body = R.encode_response(message, id_seed=1, created=1_700_000_000, model="gpt-test")
    assert response_errors(body) == set()
    assert HEX_ID.fullmatch(body["id"])
    assert body["created_at"] == 1_700_000_000
    assert body["model"] == "gpt-test"
    for item in body["output"]:
        if item["type"] in ("message", "reasoning", "function_call", "web_search_call"):
            assert HEX_ID.fullmatch(item["id"]) or item["id"] in ("rs_1", "ws_1")
    if name in STATUS:
        status, details = STATUS[name]
        assert body["status"] == status
        assert body["incomplete_details"] == details
    back = R.decode_response(body)
    # a completed response's finish reason: its calls, else its refusal, else stop
    assert back.finish_reason == (
        message.finish_reason or ("tool_calls" if message.tool_calls else "stop")
    )
    assert back.usage == message.usage
    if name == "error":
        assert body["error"]["code"] == "server_error"


@pytest.mark.parametrize("name", list(BUILT))
def test_built_message_streams_valid_events(name: str) -> None:
    message = BUILT[name]
    events = list(R.encode_stream(message, id_seed=1, created=1_700_000_000))
    valid_events(events)
    assert events[0]["type"] == "response.created"
    assert events[1]["type"] == "response.in_progress"
    status = events[-1]["response"]["status"]
    want = {"incomplete": "response.incomplete", "failed": "response.failed"}
    assert events[-1]["type"] == want.get(status, "response.completed")
    body = R.encode_response(message, id_seed=1, created=1_700_000_000)
    final = events[-1]["response"]
    assert without_nulls(final) == without_nulls(body)  # the stream's Response is the body
    if status != "failed":  # (decode_stream raises for a failed response, as it should)
        assert restream(message, id_seed=1, created=1_700_000_000) == to_dict(
            R.decode_response(body)
        )


def test_reasoning_keeps_its_opaque_value() -> None:
    body = R.encode_response(BUILT["reasoning_and_call"], id_seed=3)
    reasoning, call = body["output"]
    assert reasoning == {
        "id": "rs_1",
        "type": "reasoning",
        "encrypted_content": "gAAAA-opaque",
        "summary": [{"type": "summary_text", "text": "Thinking about Oslo."}],
    }
    assert call["type"] == "function_call" and call["call_id"] == "call_1"
    assert call["arguments"] == '{"city": "Oslo"}'
    assert body["usage"] == {
        "input_tokens": 120,
        "input_tokens_details": {"cached_tokens": 100, "cache_write_tokens": 0},
        "output_tokens": 40,
        "output_tokens_details": {"reasoning_tokens": 12},
        "total_tokens": 160,
    }
    events = list(R.encode_stream(BUILT["reasoning_and_call"], id_seed=3))
    kinds = [event["type"] for event in events]
    assert "response.reasoning_summary_part.added" in kinds
    assert "response.function_call_arguments.delta" in kinds


def test_foreign_reasoning_opaque_values_follow_the_policy() -> None:
    block = ReasoningBlock(text="hmm", signature="sig", provider="anthropic")
    message = AssistantMessage(content=[TextBlock(text="a"), block])
    with pytest.raises(UnsupportedContentError) as caught:
        R.encode_response(message)
    assert caught.value.block_index == 1
    assert "signature" in str(caught.value)
    with pytest.raises(UnsupportedContentError):
        list(R.encode_stream(message))
    dropped = R.encode_response(message, unsupported="drop", id_seed=1)["output"][1]
    assert dropped["content"] == [{"type": "reasoning_text", "text": "hmm"}]
    assert dropped["summary"] == [] and "encrypted_content" not in dropped
    noted = R.encode_response(message, unsupported="placeholder", id_seed=1)["output"][1]
    assert "omitted" in noted["summary"][0]["text"]
    events = list(R.encode_stream(message, unsupported="placeholder", id_seed=1))
    valid_events(events)
    assert events[-1]["response"]["output"][1]["summary"] == noted["summary"]


# ====================================================================== options


def test_id_seed_makes_the_same_ids_in_the_api_shape() -> None:
    message = AssistantMessage(content="Hi", tool_calls=[CALL.model_copy(update={"index": None})])
    one = R.encode_response(message, id_seed="s")
    assert one == R.encode_response(message, id_seed="s")
    assert one["id"] != R.encode_response(message, id_seed="t")["id"]
    assert HEX_ID.fullmatch(one["id"]) and one["id"].startswith("resp_")
    text, call = one["output"]
    assert HEX_ID.fullmatch(text["id"]) and text["id"].startswith("msg_")
    assert HEX_ID.fullmatch(call["id"]) and call["id"].startswith("fc_")
    events = list(R.encode_stream(message, id_seed=7, created=5))
    assert events == list(R.encode_stream(message, id_seed=7, created=5))
    chunk = AssistantMessageChunk(tool_call_chunks=[{"index": 0, "name": "f", "arguments": "{}"}])
    fc = list(R.encode_stream(chunk, id_seed=1))[-1]["response"]["output"][0]
    assert CALL_ID.fullmatch(fc["call_id"])


def test_created_and_model_options() -> None:
    body = R.encode_response(AssistantMessage(content="x"), created=1234, model="m-1")
    assert (body["created_at"], body["model"]) == (1234, "m-1")
    named = R.encode_response(AssistantMessage(content="x", model="own"), model="m-1")
    assert named["model"] == "own"
    assert R.encode_response(AssistantMessage(content="x"))["model"] == "unknown"
    events = list(R.encode_stream(AssistantMessage(content="x"), created=99, model="m-2"))
    assert events[0]["response"]["created_at"] == events[-1]["response"]["created_at"] == 99
    assert events[-1]["response"]["model"] == "m-2"


@pytest.mark.parametrize(
    "options", [{"colour": "red"}, {"unsupported": "maybe"}, {"created": "now"}, {"id_seed": 1.5}]
)
def test_bad_options_raise_at_call_time(options: dict[str, Any]) -> None:
    with pytest.raises(OptionError):
        R.encode_response(AssistantMessage(content="x"), **options)
    with pytest.raises(OptionError):
        R.encode_stream(iter([]), **options)  # not iterated


def test_unsupported_policy_locates_the_block() -> None:
    image = ImageBlock(url="https://x.test/a.png")
    message = AssistantMessage(content=[TextBlock(text="a"), image, TextBlock(text="b")])
    with pytest.raises(UnsupportedContentError) as caught:
        R.encode_response(message)
    assert caught.value.block_index == 1 and "image" in str(caught.value)
    with pytest.raises(UnsupportedContentError) as streamed:
        list(R.encode_stream(message))
    assert streamed.value.block_index == 1
    dropped = R.encode_response(message, unsupported="drop", id_seed=1)
    assert [part["text"] for part in dropped["output"][0]["content"]] == ["a", "b"]
    placed = R.encode_response(message, unsupported="placeholder", id_seed=1)
    texts = [part["text"] for part in placed["output"][0]["content"]]
    assert texts[0] == "a" and "omitted" in texts[1] and texts[2] == "b"
    events = list(R.encode_stream(message, unsupported="placeholder", id_seed=1))
    valid_events(events)
    final_texts = [p["text"] for p in events[-1]["response"]["output"][0]["content"]]
    assert final_texts == texts


# ====================================================================== bad input and sources


def test_bad_input_raises_chatschema_errors() -> None:
    with pytest.raises(ConversionError):
        R.encode_response(42)
    with pytest.raises(ConversionError):
        list(R.encode_stream([AssistantMessageChunk(content="a"), 42]))
    with pytest.raises(ConversionError):
        R.encode_stream(42)


def chunks_of(text: str) -> list[AssistantMessageChunk]:
    pieces = [AssistantMessageChunk(content=[TextBlock(index=0, text="", id="msg_1")])]
    pieces += [AssistantMessageChunk(content=[TextBlock(index=0, text=c)]) for c in text]
    pieces.append(AssistantMessageChunk(chunk_position="last", finish_reason="stop"))
    return pieces


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")


def test_sources_sync_async_message_and_chunk() -> None:
    chunks = chunks_of("hey")
    want = list(R.encode_stream(chunks, id_seed=1, created=1))
    assert text_of(want) == "hey"
    assert list(R.encode_stream(iter(chunks), id_seed=1, created=1)) == want
    assert list(R.encode_stream((c for c in chunks), id_seed=1, created=1)) == want
    dumped = [c.model_dump(mode="json", exclude_unset=True) for c in chunks]
    assert list(R.encode_stream(dumped, id_seed=1, created=1)) == want

    async def source() -> AsyncIterator[AssistantMessageChunk]:
        for chunk in chunks:
            yield chunk

    async def collect() -> list[Any]:
        return [event async for event in R.encode_stream(source(), id_seed=1, created=1)]

    assert asyncio.run(collect()) == want
    one = AssistantMessageChunk(content="solo")
    events = list(R.encode_stream(one, id_seed=1))
    valid_events(events)
    assert text_of(events) == "solo" and events[-1]["type"] == "response.completed"
    message = AssistantMessage(content="whole")
    assert text_of(list(R.encode_stream(message))) == "whole"
    assert to_dict(message_chunk(message).to_message())["content"] == "whole"


def test_a_stream_without_last_chunk_is_closed() -> None:
    events = list(R.encode_stream([AssistantMessageChunk(content="a")], id_seed=1))
    assert events[-1]["type"] == "response.completed"
    assert list(R.encode_stream([], id_seed=1))[-1]["response"]["output"] == []


def test_early_stop_closes_the_source() -> None:
    closed = []

    def source() -> Iterator[AssistantMessageChunk]:
        try:
            yield from chunks_of("abcdef")
        finally:
            closed.append("sync")

    stream = R.encode_stream(source())
    next(stream)
    stream.close()  # type: ignore[attr-defined]
    assert closed == ["sync"]

    async def asource() -> AsyncIterator[AssistantMessageChunk]:
        try:
            for chunk in chunks_of("abcdef"):
                yield chunk
        finally:
            closed.append("async")

    async def main() -> None:
        stream = R.encode_stream(asource())
        await stream.__anext__()
        await stream.aclose()

    asyncio.run(main())
    assert closed == ["sync", "async"]


def test_sse_framing_decodes() -> None:
    message = BUILT["reasoning_and_call"]
    body = b"".join(R.encode_stream(message, sse=True, id_seed=2))
    assert body.startswith(b"event: response.created\ndata: {")
    pieces = [body[i : i + 5] for i in range(0, len(body), 5)]
    assert assembled(list(R.decode_stream(pieces))) == restream(message, id_seed=2)


def test_text_deltas_are_cheap() -> None:
    chunks = chunks_of("x" * 2000)
    best = float("inf")
    count = 0
    for _ in range(5):
        start = time.perf_counter()
        count = sum(1 for _ in R.encode_stream(chunks, sse=True))
        best = min(best, time.perf_counter() - start)
    per_event = best / count * 1e6
    print(f"\nencode_stream sse: {per_event:.2f} µs per event ({count} events)")
    assert per_event < 15  # the target is 3 µs; a loaded shared machine gets slack
