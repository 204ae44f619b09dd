"""Anthropic ``decode_stream``: every stream assembles to exactly what ``decode_response`` gives.

The streams are in ``payloads/anthropic/stream_*.json``, each with the complete response
it is equivalent to. The official SDK's own accumulator (``accumulate_event``) is a
second oracle: the snapshot it builds from the same events decodes to the same message.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.streaming._messages import accumulate_event, build_events
from anthropic.types import (
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawContentBlockStopEvent,
    RawMessageDeltaEvent,
    RawMessageStartEvent,
    RawMessageStopEvent,
)
from conftest import assembled
from hypothesis import given, settings
from hypothesis import strategies as st

from chatschema import (
    AssistantMessageChunk,
    ChatSchemaError,
    ChunkAccumulator,
    ConversionError,
    StreamIncompleteError,
    ToolMessage,
    UserMessage,
    merge_chunks,
    to_dict,
)
from chatschema.providers import anthropic as codec

PAYLOADS = Path(__file__).parents[2] / "payloads" / "anthropic"
STREAMS: dict[str, dict[str, Any]] = {
    path.stem.removeprefix("stream_"): json.loads(path.read_text("utf-8"))
    for path in sorted(PAYLOADS.glob("stream_*.json"))
}
SDK_EVENTS: dict[str, Any] = {
    "message_start": RawMessageStartEvent,
    "content_block_start": RawContentBlockStartEvent,
    "content_block_delta": RawContentBlockDeltaEvent,
    "content_block_stop": RawContentBlockStopEvent,
    "message_delta": RawMessageDeltaEvent,
    "message_stop": RawMessageStopEvent,
}


# ------------------------------------------------------------------------ helpers


def events_of(name: str) -> list[dict[str, Any]]:
    return copy.deepcopy(STREAMS[name]["events"])


def expected(response: Any) -> dict[str, Any]:
    return to_dict(codec.decode_response(response))


def assert_assembles(stream: Any, response: Any) -> list[AssistantMessageChunk]:
    chunks = list(codec.decode_stream(stream))
    assert assembled(chunks) == expected(response)
    return chunks


def sdk_snapshot(events: list[dict[str, Any]]) -> Any:
    """The SDK's own assembly of the events (it knows neither ping nor new types)."""
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in events:
        if event["type"] in SDK_EVENTS:
            snapshot = accumulate_event(
                event=copy.deepcopy(event),  # type: ignore[arg-type]
                current_snapshot=snapshot,
                json_bufs=buffers,
            )
    return snapshot


def sse(events: list[dict[str, Any]]) -> bytes:
    """The raw SSE body the API sends for these events."""
    return "".join(
        f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"
        for event in events
    ).encode()


def dumped(chunks: Any) -> list[dict[str, Any]]:
    return [to_dict(chunk) for chunk in chunks]


# --------------------------------------------------------------- the equality


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_stream_assembles_to_decode_response(name: str) -> None:
    events, response = events_of(name), STREAMS[name]["response"]
    chunks = assert_assembles(events, response)
    # the SDK's accumulator agrees that this is the complete response
    assert to_dict(codec.decode_response(sdk_snapshot(events))) == expected(response)
    assert all(chunk.provider in (None, "anthropic") for chunk in chunks)
    assert [chunk.chunk_position for chunk in chunks].count("last") == 1
    assert chunks[-1].chunk_position == "last"
    assert chunks[0].response_id == response["id"] and chunks[0].model == response["model"]


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_raw_sse_and_sdk_objects_give_the_same_chunks(name: str) -> None:
    events = events_of(name)
    want = dumped(codec.decode_stream(events))
    body = sse(events)
    assert dumped(codec.decode_stream([body])) == want
    assert dumped(codec.decode_stream(iter(body.decode().splitlines(keepends=True)))) == want
    known = [event for event in events if event["type"] in SDK_EVENTS]
    chunks_of_known = dumped(codec.decode_stream(known))
    validated = [SDK_EVENTS[e["type"]].model_validate(e) for e in known]
    assert dumped(codec.decode_stream(validated)) == chunks_of_known
    constructed = [SDK_EVENTS[e["type"]].construct(**copy.deepcopy(e)) for e in known]
    assert dumped(codec.decode_stream(constructed)) == chunks_of_known
    assert assembled(list(codec.decode_stream(validated))) == expected(STREAMS[name]["response"])


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_the_events_of_client_messages_stream(name: str) -> None:
    """``client.messages.stream()`` adds ``text``, ``input_json`` ... events with snapshots."""
    known = [event for event in events_of(name) if event["type"] in SDK_EVENTS]
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    fired: list[Any] = []
    for data in known:
        event = SDK_EVENTS[data["type"]].model_validate(data)
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
        fired += build_events(event=event, message_snapshot=snapshot)
    assert {event.type for event in fired} > {"message_start", "content_block_stop"}
    assert len(fired) > len(known)
    assert dumped(codec.decode_stream(fired)) == dumped(codec.decode_stream(known))


def test_text_streams_as_it_arrives() -> None:
    consumed = 0

    def source() -> Iterator[dict[str, Any]]:
        nonlocal consumed
        for event in events_of("text"):
            consumed += 1
            yield event

    stream = codec.decode_stream(source())
    accumulator = ChunkAccumulator()
    texts = []
    for chunk in stream:
        accumulator.add(chunk)
        texts.append(accumulator.partial_message().text)
        if len(texts) == 3:
            assert consumed == 4  # message_start, block start, ping, first delta
    assert texts[2:6] == ["Bonjour", "Bonjour ! Un caf", "Bonjour ! Un café ☕ et ", texts[-1]]
    assert texts[-1] == "Bonjour ! Un café ☕ et un 😀."
    first = next(codec.decode_stream(events_of("text")))
    assert first.usage is not None and first.usage_mode == "cumulative"


def test_thinking_signature_and_tool_positions_replay() -> None:
    chunks = list(codec.decode_stream(events_of("thinking_tools")))
    message = assembled(chunks)
    reply = codec.decode_response(STREAMS["thinking_tools"]["response"])
    signature = STREAMS["thinking_tools"]["response"]["content"][0]["signature"]
    assert message["content"][0]["signature"] == signature  # byte for byte
    assert [(c["id"], c["index"]) for c in message["tool_calls"]] == [
        ("toolu_01A09q90qw90lq917835lq9", 2),
        ("toolu_01B", 3),
        ("toolu_01C", 4),
    ]
    assert message["tool_calls"][0]["arguments"]["note"] == 'café "quoted" 😀'
    assert message["tool_calls"][2]["arguments"] == {}  # empty concatenation
    assert message["tool_calls"][1]["extras"] == {"anthropic": {"caller": {"type": "direct"}}}
    # the assembled reply goes back as the turn the API expects: thinking first, unchanged
    history = [
        UserMessage(content="Weather and time in Paris?"),
        merge_chunks(chunks).to_message(),
        *(ToolMessage(tool_call_id=c["id"], content="ok") for c in message["tool_calls"]),
    ]
    turn = codec.encode(history)["messages"][1]
    wire = STREAMS["thinking_tools"]["response"]["content"]
    assert turn == {"role": "assistant", "content": wire}
    assert codec.encode([*history[:1], reply, *history[2:]])["messages"][1] == turn


def test_usage_is_cumulative_and_neutral() -> None:
    chunks = list(codec.decode_stream(events_of("server_tools")))
    usages = [(c.usage, c.usage_mode) for c in chunks if c.usage is not None]
    assert [mode for _, mode in usages] == ["cumulative"] * 3
    assert [u.output_tokens for u, _ in usages] == [3, 40, 510]  # replaced, never summed
    assert [u.input_tokens for u, _ in usages] == [2679, 2679, 10682]
    message = merge_chunks(chunks).to_message()
    assert message.usage is not None and message.usage.total_tokens == 10682 + 510
    metadata = (message.response_metadata or {})["anthropic"]
    assert metadata["server_tool_use"] == {"web_search_requests": 1, "web_fetch_requests": 0}
    thinking = merge_chunks(list(codec.decode_stream(events_of("thinking_tools")))).to_message()
    assert thinking.usage is not None
    assert thinking.usage.input_tokens == 12 + 2048  # cache reads counted, as decode_response
    assert thinking.usage.output_token_details is not None
    assert thinking.usage.output_token_details.reasoning == 41


@pytest.mark.parametrize("name", ["text", "thinking_tools", "server_tools"])
def test_a_stream_cut_before_the_usage_chunk(name: str) -> None:
    events = events_of(name)
    cut = events[: next(i for i, e in enumerate(events) if e["type"] == "message_delta")]
    chunks: list[AssistantMessageChunk] = []
    with pytest.raises(StreamIncompleteError, match="ended before message_stop"):
        chunks.extend(codec.decode_stream(cut))
    assert assembled(chunks) == expected(sdk_snapshot(cut))
    assert all(chunk.chunk_position is None for chunk in chunks)
    message = merge_chunks(chunks).to_message()
    assert message.finish_reason is None
    start_usage = events[0]["message"]["usage"]
    assert message.usage is not None
    assert message.usage.output_tokens == start_usage["output_tokens"]  # message_start's
    if name != "server_tools":  # written out: the response without the message_delta
        response = copy.deepcopy(STREAMS[name]["response"])
        response.update(stop_reason=None, usage=start_usage)
        assert assembled(chunks) == expected(response)


STOP_REASONS = [
    ("end_turn", "stop"),
    ("stop_sequence", "stop"),
    ("max_tokens", "length"),
    ("model_context_window_exceeded", "length"),
    ("tool_use", "tool_calls"),
    ("pause_turn", "paused"),
    ("refusal", "content_filter"),
    ("something_new", "other"),
]


@pytest.mark.parametrize(("raw", "finish"), STOP_REASONS)
def test_finish_reasons(raw: str, finish: str) -> None:
    sequence = "###" if raw == "stop_sequence" else None
    events = events_of("text")
    events[-2]["delta"] = {"stop_reason": raw, "stop_sequence": sequence}
    response = copy.deepcopy(STREAMS["text"]["response"])
    response.update(stop_reason=raw, stop_sequence=sequence)
    chunks = assert_assembles(events, response)
    message = merge_chunks(chunks).to_message()
    assert (message.finish_reason, message.raw_finish_reason) == (finish, raw)
    assert (message.response_metadata or {})["anthropic"]["stop_sequence"] == sequence


def test_refusal_keeps_stop_details() -> None:
    chunks = list(codec.decode_stream(events_of("refusal")))
    message = merge_chunks(chunks).to_message()
    assert message.finish_reason == "content_filter"
    metadata = (message.response_metadata or {})["anthropic"]
    assert metadata["stop_details"]["category"] == "cyber"


def _tool_stream(start_input: Any, fragments: list[str]) -> list[dict[str, Any]]:
    events = events_of("text")[:1]
    events.append(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_x",
                "name": "f",
                "input": start_input,
            },
        }
    )
    events += [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": f},
        }
        for f in fragments
    ]
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 4},
        },
        {"type": "message_stop"},
    ]
    return events


@pytest.mark.parametrize(
    ("start_input", "fragments", "arguments"),
    [
        ({}, [], {}),
        ({}, ["", ""], {}),
        ({"a": [1, "é"]}, [], {"a": [1, "é"]}),  # input that came whole
        ({"a": 1}, ['{"b"', ": 2}"], {"b": 2}),  # streamed input replaces it, as in the SDK
        ({"a": 1}, [""], {"a": 1}),
    ],
)
def test_tool_use_input_at_start_and_in_fragments(
    start_input: Any, fragments: list[str], arguments: Any
) -> None:
    events = _tool_stream(start_input, fragments)
    snapshot = sdk_snapshot(events)
    assert snapshot.content[0].input == arguments
    chunks = assert_assembles(events, snapshot)
    message = merge_chunks(chunks).to_message()
    assert message.tool_calls[0].arguments == arguments
    assert "content" not in to_dict(message)  # only tool calls, as decode_response


@pytest.mark.parametrize(
    ("start_input", "fragments", "raw"),
    [({}, ["[1,", " 2]"], "[1, 2]"), ("oops", [], '"oops"'), ({}, ["null"], "null")],
)
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # the SDK dumps a str input
def test_tool_input_that_is_not_an_object(start_input: Any, fragments: list[str], raw: str) -> None:
    events = _tool_stream(start_input, fragments)
    chunks = assert_assembles(events, sdk_snapshot(events))
    (invalid,) = merge_chunks(chunks).to_message().invalid_tool_calls
    assert (invalid.id, invalid.index, invalid.arguments) == ("toolu_x", 0, raw)
    assert invalid.error is not None and invalid.error.startswith("arguments must be a JSON object")


def test_message_start_with_content_and_an_empty_stream() -> None:
    events = [*events_of("text")[:1], {"type": "message_stop"}]
    snapshot = sdk_snapshot(events)
    assert assembled(list(codec.decode_stream(events))) == expected(snapshot)
    assert expected(snapshot)["content"] == []  # a reply without blocks has empty content
    whole = copy.deepcopy(events)
    whole[0]["message"]["content"] = STREAMS["server_tools"]["response"]["content"]
    response = {**whole[0]["message"]}
    assert_assembles(whole, response)


# ------------------------------------------------------------------- errors


def test_error_event_raises_after_the_chunks_before_it() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    events = [*events_of("text")[:4], error]
    stream = codec.decode_stream(events)
    got = [next(stream), next(stream), next(stream)]
    assert got[2].content[0].text == "Bonjour"  # type: ignore[union-attr]
    with pytest.raises(ConversionError) as caught:
        next(stream)
    assert caught.value.provider == "anthropic"
    assert "overloaded_error" in str(caught.value) and "Overloaded" in str(caught.value)


def test_error_event_in_the_raw_body() -> None:
    body = sse(events_of("text")[:2]) + (
        b'event: error\ndata: {"type": "error", "error": {"type": "api_error", '
        b'"message": "Internal server error"}}\n\n'
    )
    with pytest.raises(ConversionError, match="api_error: Internal server error"):
        list(codec.decode_stream([body[:7], body[7:]]))
    with pytest.raises(ConversionError, match="anthropic"):
        list(codec.decode_stream([{"type": "error", "error": "boom"}]))


def test_unknown_events_and_delta_types_are_ignored() -> None:
    events = events_of("thinking_tools")
    noisy = []
    for event in events:
        noisy.append(event)
        noisy.append({"type": "ping"})
        if event["type"] == "content_block_start":
            noisy.append(
                {
                    "type": "content_block_delta",
                    "index": event["index"],
                    "delta": {"type": "compaction_delta", "content": "?"},
                }
            )
        noisy.append({"type": "message_annotation", "data": [1, 2]})
    assert dumped(codec.decode_stream(noisy)) == dumped(codec.decode_stream(events))


START = events_of("text")[0]
TEXT_OPEN = [
    START,
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
]
TOOL_OPEN = [START, *_tool_stream({}, [])[1:2]]
SERVER_OPEN = [
    START,
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {},
        },
    },
]


def _delta(delta: Any, index: Any = 0) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


MALFORMED: list[tuple[str, list[Any]]] = [
    ("not an object", [42]),
    ("not json text", ['{"type": "message_start"']),
    ("no type", [{}]),
    ("type not a string", [{"type": 5}]),
    ("block before message_start", TEXT_OPEN[1:]),
    ("second message_start", [START, START]),
    ("message not an object", [{"type": "message_start", "message": []}]),
    ("user role", [{"type": "message_start", "message": {**START["message"], "role": "user"}}]),
    (
        "usage not an object",
        [{"type": "message_start", "message": {**START["message"], "usage": 1}}],
    ),
    (
        "negative usage",
        [{"type": "message_start", "message": {**START["message"], "usage": {"input_tokens": -1}}}],
    ),
    (
        "content not a list",
        [{"type": "message_start", "message": {**START["message"], "content": {}}}],
    ),
    (
        "index missing",
        [START, {"type": "content_block_start", "content_block": {"type": "text", "text": ""}}],
    ),
    ("index a string", [START, {"type": "content_block_stop", "index": "0"}]),
    ("index negative", [*TEXT_OPEN, _delta({"type": "text_delta", "text": "x"}, -1)]),
    ("block missing", [START, {"type": "content_block_start", "index": 0}]),
    (
        "block type missing",
        [START, {"type": "content_block_start", "index": 0, "content_block": {}}],
    ),
    (
        "text not a string",
        [START, {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}],
    ),
    ("index twice", [*TEXT_OPEN, TEXT_OPEN[1]]),
    ("delta for no block", [START, _delta({"type": "text_delta", "text": "x"})]),
    ("delta not an object", [*TEXT_OPEN, _delta("text")]),
    ("delta type missing", [*TEXT_OPEN, _delta({"text": "x"})]),
    ("text delta not a string", [*TEXT_OPEN, _delta({"type": "text_delta", "text": None})]),
    ("thinking delta on text", [*TEXT_OPEN, _delta({"type": "thinking_delta", "thinking": "x"})]),
    (
        "signature delta on text",
        [*TEXT_OPEN, _delta({"type": "signature_delta", "signature": "x"})],
    ),
    ("json delta on text", [*TEXT_OPEN, _delta({"type": "input_json_delta", "partial_json": "{"})]),
    ("text delta on a tool", [*TOOL_OPEN, _delta({"type": "text_delta", "text": "x"})]),
    (
        "json delta not a string",
        [*TOOL_OPEN, _delta({"type": "input_json_delta", "partial_json": 1})],
    ),
    ("citation not an object", [*TEXT_OPEN, _delta({"type": "citations_delta", "citation": "c"})]),
    ("citation without type", [*TEXT_OPEN, _delta({"type": "citations_delta", "citation": {}})]),
    (
        "delta after stop",
        [
            *TEXT_OPEN,
            {"type": "content_block_stop", "index": 0},
            _delta({"type": "text_delta", "text": "x"}),
        ],
    ),
    ("stop for no block", [START, {"type": "content_block_stop", "index": 3}]),
    (
        "stop twice",
        [
            *TEXT_OPEN,
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_stop", "index": 0},
        ],
    ),
    (
        "tool without id",
        [
            START,
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "name": "f", "input": {}},
            },
        ],
    ),
    (
        "tool with a bad id",
        [
            START,
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "", "name": "f", "input": {}},
            },
        ],
    ),
    (
        "tool input not JSON data",
        [
            START,
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {"a": {1}}},
            },
        ],
    ),
    (
        "thinking delta on redacted thinking",
        [
            START,
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "redacted_thinking", "data": "x"},
            },
            _delta({"type": "thinking_delta", "thinking": "x"}),
        ],
    ),
    (
        "server tool input not JSON",
        [
            *SERVER_OPEN,
            _delta({"type": "input_json_delta", "partial_json": '{"q": '}),
            {"type": "content_block_stop", "index": 0},
        ],
    ),
    (
        "message delta not an object",
        [START, {"type": "message_delta", "delta": [], "usage": {"output_tokens": 1}}],
    ),
    (
        "message delta usage not an object",
        [START, {"type": "message_delta", "delta": {}, "usage": "1"}],
    ),
    (
        "output tokens a string",
        [START, {"type": "message_delta", "delta": {}, "usage": {"output_tokens": "1"}}],
    ),
    (
        "thinking without signature",
        [
            START,
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": ""},
            },
        ],
    ),
]


@pytest.mark.parametrize("events", [m[1] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_events_raise_conversion_errors(events: list[Any]) -> None:
    with pytest.raises(ConversionError) as caught:
        list(codec.decode_stream(events))
    assert caught.value.provider == "anthropic"


def _mutations(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    odd: list[Any] = [None, -1, "", [], {"type": None}, True]
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, item in items:
        for replacement in odd:
            yield (*path, key), replacement
        yield from _mutations(item, (*path, key))


@pytest.mark.parametrize("name", ["thinking_tools", "server_tools"])
def test_mutated_events_never_escape_as_python_errors(name: str) -> None:
    events = events_of(name)
    outcomes = {"decoded": 0, "refused": 0}
    for path, replacement in _mutations(events):
        mutated = copy.deepcopy(events)
        target = mutated
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = replacement
        try:
            chunks = list(codec.decode_stream(mutated))
            if chunks:
                merge_chunks(chunks).to_message()
        except ChatSchemaError:
            outcomes["refused"] += 1
        else:
            outcomes["decoded"] += 1
    assert outcomes["decoded"] > 100 and outcomes["refused"] > 100, outcomes


# ---------------------------------------------------------------- hypothesis


def _cut(text: str, points: list[int]) -> list[str]:
    """``text`` cut at ``points`` (by character: any place, escapes and tokens too)."""
    bounds = [0, *sorted(p % (len(text) + 1) for p in points), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _refragment(events: list[dict[str, Any]], cuts: list[list[int]]) -> list[dict[str, Any]]:
    """The same stream with each run of text, thinking or JSON deltas joined, then cut anew.

    A run ends at the block's next other event (a signature or citation delta, its
    stop), so every event keeps its place.
    """
    out: list[dict[str, Any]] = []
    pending: dict[Any, tuple[str, list[str]]] = {}
    keys = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}
    order = 0
    for event in events:
        index: Any = event.get("index")
        delta: dict[str, Any] = event.get("delta", {}) if "index" in event else {}
        kind = str(delta.get("type"))
        if kind in keys and (pending[index][0] if index in pending else kind) == kind:
            pending.setdefault(index, (kind, []))[1].append(delta[keys[kind]])
            continue
        if index in pending:
            run, parts = pending.pop(index)
            pieces = _cut("".join(parts), cuts[order % len(cuts)])
            order += 1
            out += [_delta({"type": run, keys[run]: piece}, index) for piece in pieces]
        if kind in keys:
            pending[index] = (kind, [delta[keys[kind]]])
            continue
        out.append(event)
    return out


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["thinking_tools", "server_tools", "text"]),
    cuts=st.lists(st.lists(st.integers(0, 200), max_size=8), min_size=1, max_size=6),
)
def test_any_fragmentation_assembles_to_the_same_message(name: str, cuts: list[list[int]]) -> None:
    events = _refragment(events_of(name), cuts)
    assert_assembles(events, STREAMS[name]["response"])


BODIES = {name: sse(STREAMS[name]["events"]) for name in ("thinking_tools", "server_tools")}
BODY_CHUNKS = {name: dumped(codec.decode_stream(STREAMS[name]["events"])) for name in BODIES}


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(BODIES)),
    cuts=st.lists(st.integers(0, 10_000), max_size=40),
)
def test_any_cut_of_the_raw_body_gives_the_same_chunks(name: str, cuts: list[int]) -> None:
    body = BODIES[name]
    points = [0, *sorted(c % (len(body) + 1) for c in cuts), len(body)]
    pieces = [body[a:b] for a, b in itertools.pairwise(points)]  # mid-line, mid-UTF-8
    chunks = list(codec.decode_stream(pieces))
    assert dumped(chunks) == BODY_CHUNKS[name]
    assert assembled(chunks) == expected(STREAMS[name]["response"])


def test_the_raw_body_cut_inside_a_utf8_character() -> None:
    body = BODIES["thinking_tools"]
    emoji = body.index("😀".encode())
    pieces = [body[: emoji + 1], body[emoji + 1 : emoji + 3], body[emoji + 3 :]]
    assert dumped(codec.decode_stream(pieces)) == BODY_CHUNKS["thinking_tools"]
    escape = body.index(b"\\\\u00")  # the JSON of the SSE line escapes the fragment's backslash
    pieces = [body[: escape + 3], body[escape + 3 :]]
    assert dumped(codec.decode_stream(pieces)) == BODY_CHUNKS["thinking_tools"]


# ------------------------------------------- every delta type the SDK accumulates


def beta_snapshot(events: list[dict[str, Any]]) -> Any:
    """The SDK's beta accumulator (anthropic/lib/streaming/_beta_messages.py, 2.13): the
    one that knows ``compaction_delta`` and the beta block types (advisor, compaction)."""
    from anthropic.lib.streaming._beta_messages import accumulate_event as beta_accumulate

    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in events:
        snapshot = beta_accumulate(
            event=copy.deepcopy(event),  # type: ignore[arg-type]
            current_snapshot=snapshot,
            json_bufs=buffers,
            request_headers=None,  # type: ignore[arg-type]  # read only for a fallback
        )
    return snapshot


def _beta_events(start: dict[str, Any], delta: dict[str, Any]) -> list[dict[str, Any]]:
    """A compaction stream, each event built from the SDK's beta types (2.13):
    ``BetaRawMessageStartEvent``, ``BetaRawContentBlockStartEvent`` with a
    ``BetaCompactionBlock``, ``BetaRawContentBlockDeltaEvent`` with a
    ``BetaCompactionContentBlockDelta``, then an advisor ``server_tool_use``
    (``BetaServerToolUseBlock``, its input streamed as ``BetaInputJSONDelta``) and its
    ``BetaAdvisorToolResultBlock``, a ``text`` block, ``BetaRawMessageDeltaEvent`` and
    ``BetaRawMessageStopEvent``."""
    from anthropic.types.beta import (
        BetaRawContentBlockDeltaEvent,
        BetaRawContentBlockStartEvent,
        BetaRawContentBlockStopEvent,
        BetaRawMessageDeltaEvent,
        BetaRawMessageStartEvent,
        BetaRawMessageStopEvent,
    )

    raw: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_01Comp",
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-4-6",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 180000, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": start},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "server_tool_use",
                "id": "srvtoolu_01Adv",
                "name": "advisor",
                "input": {},
            },
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": ""},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {
                "type": "advisor_tool_result",
                "tool_use_id": "srvtoolu_01Adv",
                "content": {
                    "type": "advisor_result",
                    "text": "Test the empty input first.",
                    "stop_reason": "end_turn",
                },
            },
        },
        {"type": "content_block_stop", "index": 2},
        {"type": "content_block_start", "index": 3, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 3,
            "delta": {"type": "text_delta", "text": "Continuing."},
        },
        {"type": "content_block_stop", "index": 3},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 420},
        },
        {"type": "message_stop"},
    ]
    types: dict[str, Any] = {
        "message_start": BetaRawMessageStartEvent,
        "content_block_start": BetaRawContentBlockStartEvent,
        "content_block_delta": BetaRawContentBlockDeltaEvent,
        "content_block_stop": BetaRawContentBlockStopEvent,
        "message_delta": BetaRawMessageDeltaEvent,
        "message_stop": BetaRawMessageStopEvent,
    }
    # every event is one the SDK's beta types take, dumped back as the API sends it
    return [types[e["type"]].model_validate(e).to_dict(exclude_unset=True) for e in raw]


COMPACTION_CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "summary": (
        {"type": "compaction", "content": None},
        {"type": "compaction_delta", "content": "The user is fixing a parser bug."},
    ),
    "summary_and_metadata": (
        {"type": "compaction"},
        {
            "type": "compaction_delta",
            "content": "Summary so far.",
            "encrypted_content": "EoUCCkYICBgCKkB...",
        },
    ),
    "failed": ({"type": "compaction", "content": None}, {"type": "compaction_delta"}),
}


@pytest.mark.parametrize("variant", sorted(COMPACTION_CASES))
def test_compaction_delta_assembles_as_the_sdk_accumulator_does(variant: str) -> None:
    events = _beta_events(*COMPACTION_CASES[variant])
    # the SDK's assembly, as JSON: the complete response it stands for
    final = beta_snapshot(events).to_dict()
    chunks = assert_assembles(events, final)
    delta = COMPACTION_CASES[variant][1]
    compaction = assembled(chunks)["content"][0]
    assert compaction["type"] == "compaction"
    # the summary (and the metadata to round-trip) arrive with the block, as the SDK sets them
    assert compaction.get("text") == delta.get("content")
    assert compaction.get("encrypted_content") == delta.get("encrypted_content")
    # the same from the raw SSE body; from the SDK's beta event objects, what
    # decode_response gives for the SDK's own snapshot object
    assert assembled(list(codec.decode_stream([sse(events)]))) == expected(final)
    from anthropic.types.beta import BetaRawMessageStreamEvent
    from pydantic import TypeAdapter

    objects = [TypeAdapter(BetaRawMessageStreamEvent).validate_python(e) for e in events]
    assert assembled(list(codec.decode_stream(objects))) == expected(beta_snapshot(events))


def test_compaction_and_advisor_from_a_stream_go_back_to_anthropic() -> None:
    events = _beta_events(*COMPACTION_CASES["summary_and_metadata"])
    reply = merge_chunks(codec.decode_stream(events)).to_message()
    turn = codec.encode([UserMessage(content="Go on."), reply])["messages"][1]
    # the blocks the SDK's accumulator gives, as request params: None fields of the
    # response (caller, the compaction's null keys) are not request keys
    wire = [
        {key: value for key, value in block.items() if not (key == "caller" and value is None)}
        for block in beta_snapshot(events).to_dict()["content"]
    ]
    assert turn == {"role": "assistant", "content": wire}
    from anthropic.types.beta import BetaContentBlockParam
    from pydantic import ConfigDict, TypeAdapter

    strict = TypeAdapter(BetaContentBlockParam, config=ConfigDict(extra="forbid", strict=True))
    for block in wire:  # each a request block of the SDK's beta types
        strict.validate_python(block)
    assert wire[1] == {
        "type": "server_tool_use",
        "id": "srvtoolu_01Adv",
        "name": "advisor",
        "input": {},
    }


def test_every_delta_type_of_the_sdk_accumulators_is_read() -> None:
    """The delta types both SDK accumulators handle (2.13: ``accumulate_event`` in
    lib/streaming/_messages.py and _beta_messages.py) are all in the codec's tables."""
    import inspect
    import re

    from anthropic.lib.streaming import _beta_messages, _messages

    from chatschema.providers.anthropic.wire import DELTAS, FIELD_DELTAS

    handled = set()
    for module in (_messages, _beta_messages):
        source = inspect.getsource(module.accumulate_event)
        handled |= set(re.findall(r'event\.delta\.type == "(\w+)"', source))
    assert handled >= {"text_delta", "compaction_delta"}
    assert handled <= set(DELTAS) | set(FIELD_DELTAS)


def test_a_delta_type_nobody_knows_is_kept() -> None:
    events = events_of("text")
    future = {"type": "future_delta", "note": {"n": 1}}
    opened = next(i for i, e in enumerate(events) if e["type"] == "content_block_start")
    noisy = [
        *events[: opened + 1],
        {"type": "content_block_delta", "index": events[opened]["index"], "delta": future},
        {"type": "content_block_delta", "index": 7, "delta": {"type": "other_delta"}},
        *events[opened + 1 :],
    ]
    message = assembled(list(codec.decode_stream(noisy)))
    plain_message = assembled(list(codec.decode_stream(events)))
    kept = message["response_metadata"]["anthropic"].pop("unknown_deltas")
    assert kept == {  # by running number, in stream order
        "0": {"index": events[opened]["index"], "delta": future},
        "1": {"index": 7, "delta": {"type": "other_delta"}},
    }
    assert message == plain_message  # and nothing else changes
