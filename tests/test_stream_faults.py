"""Streams under faults: a cut stream says so, strings stay bounded, bad input is ours.

- **Cut streams**: every recorded stream (``tests/traffic``, ``tests/payloads``) is cut
  cleanly between two events at every cut point. Each cut before the format's
  terminal event (found here from the raw events, not by the decoder) ends, after
  its chunks, with ``StreamIncompleteError``, sync and async; each cut after it
  decodes as the whole stream does; ``incomplete="keep"`` marks the reply instead.
- **Bounded memory**: ``ChunkAccumulator`` and ``openai_chat.decode_stream`` refuse
  tool arguments (and text) past ``chatschema.limits.MAX_STRING_CHARS``, and the
  decoder holds nothing of the arguments a caller discards beyond that limit.
- **Foreign exceptions**: ``None`` for a stream or chunks, a lone surrogate in a
  streamed ``call_id``: chatschema errors, with a pointer.
"""

from __future__ import annotations

import asyncio
import json
import re
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import recorded
from hostile import FUZZ_EXAMPLES

from chatschema import (
    AssistantMessageChunk,
    ChunkAccumulator,
    ConversionError,
    StreamIncompleteError,
    ValidationError,
    amerge_chunks,
    limits,
    merge_chunks,
)
from chatschema.errors import OptionError
from chatschema.providers import get_codec

TESTS = Path(__file__).resolve().parent
FORMATS = ("openai_chat", "openai_responses", "anthropic", "gemini", "bedrock_converse")


def _streams() -> list[Any]:
    """Every recorded stream: (format, path), listed without opening a file."""
    found = []
    for fmt in FORMATS:
        for path in recorded.listing(TESTS / "traffic" / fmt):
            if "stream" in recorded.index(path):
                found.append(pytest.param(fmt, path, id=f"{fmt}/{path.name}"))
        for path in recorded.listing(TESTS / "payloads" / fmt, "stream_*.json"):
            found.append(pytest.param(fmt, path, id=f"{fmt}/{path.name}"))
    return found


STREAMS = _streams()

_BLANK = re.compile(r"\r?\n\r?\n")


def pieces_of(path: Path) -> list[Any]:
    """The stream of a recorded file, as its events: SSE text cut after each blank line."""
    data = recorded.load(path, shared=True)
    stream = data.get("stream", data.get("events")) if isinstance(data, dict) else data
    if not isinstance(stream, str):
        return list(stream)
    ends = [match.end() for match in _BLANK.finditer(stream)]
    if not ends or ends[-1] != len(stream):
        ends.append(len(stream))
    return [stream[start:end] for start, end in zip([0, *ends], ends, strict=False)]


def source_of(pieces: list[Any]) -> list[Any]:
    """What ``decode_stream`` reads for these pieces: the SSE body whole, or the events."""
    if pieces and isinstance(pieces[0], str):
        return ["".join(pieces)] if pieces else []
    return pieces


def _payloads(piece: Any) -> list[Any]:
    """The event objects of a piece (SSE text: its ``data:`` payloads)."""
    if not isinstance(piece, str):
        return [piece]
    data = [line[5:].strip() for line in piece.splitlines() if line.startswith("data:")]
    if not data:
        return []
    text = "\n".join(data)
    return ["[DONE]"] if text == "[DONE]" else [json.loads(text)]


def _terminal(fmt: str, event: Any, state: dict[str, Any]) -> bool:
    """Whether ``event`` is its format's terminal event (or an error that ends it)."""
    if fmt == "openai_chat":
        if event == "[DONE]":
            return True
        if event.get("error") or event.get("object") == "error":
            return True
        choices = event.get("choices")
        if choices == [] and event.get("usage") is not None:
            return True  # stream_options.include_usage: the last chunk
        for choice in choices or []:
            index = choice.get("index") or 0
            state.setdefault("primary", index)
            if index == state["primary"] and choice.get("finish_reason") is not None:
                return True
        return False
    if fmt == "openai_responses":
        return event.get("type") in (
            "response.completed",
            "response.incomplete",
            "response.failed",
            "error",
        )
    if fmt == "anthropic":
        return event.get("type") in ("message_stop", "error")
    if fmt == "bedrock_converse":
        return "messageStop" in event or any(key.endswith("Exception") for key in event)
    candidates = [c for c in event.get("candidates") or [] if c.get("index", 0) == 0]
    if candidates:
        state["candidates"] = True
    if any(c.get("finishReason", c.get("finish_reason")) is not None for c in candidates):
        return True
    feedback = event.get("promptFeedback", event.get("prompt_feedback"))
    blocked = isinstance(feedback, dict) and feedback.get("blockReason")
    return bool(blocked and not state.get("candidates")) or "error" in event


def terminal_index(fmt: str, pieces: list[Any]) -> int:
    """The position of the first piece holding the terminal event."""
    state: dict[str, Any] = {}
    for position, piece in enumerate(pieces):
        if any(_terminal(fmt, event, state) for event in _payloads(piece)):
            return position
    raise AssertionError("the recorded stream has no terminal event")


def cut_points(count: int, last: int) -> list[int]:
    """The cuts of a stream of ``count`` pieces to try: all of them for a short stream
    (or under ``make fuzz``), else the first 30, the 30 up to just past the terminal
    event at ``last``, and every seventh between."""
    if count <= 80 or FUZZ_EXAMPLES:
        return list(range(count + 1))
    near = range(max(0, last - 29), min(count, last + 2) + 1)
    return sorted({*range(30), *range(30, count + 1, 7), *near, count})


def outcome(chunks: Iterator[AssistantMessageChunk]) -> tuple[int, type[Exception] | None]:
    """How many chunks a decoding gave, and the exception that ended it."""
    count = 0
    try:
        for _ in chunks:
            count += 1
    except ConversionError as error:
        return count, type(error)
    return count, None


async def _aoutcome(fmt: str, source: list[Any]) -> tuple[int, type[Exception] | None]:
    async def events() -> AsyncIterator[Any]:
        for event in source:
            yield event

    count = 0
    try:
        async for _ in get_codec(fmt).decode_stream(events()):
            count += 1
    except ConversionError as error:
        return count, type(error)
    return count, None


@pytest.mark.parametrize(("fmt", "path"), STREAMS)
def test_every_cut_before_the_terminal_event_is_reported(fmt: str, path: Path) -> None:
    codec = get_codec(fmt)
    pieces = pieces_of(path)
    last = terminal_index(fmt, pieces)
    whole = outcome(codec.decode_stream(source_of(pieces)))
    assert whole[1] is not StreamIncompleteError  # a complete recording is complete
    for cut in cut_points(len(pieces), last):
        source = source_of(pieces[:cut])
        count, error = outcome(codec.decode_stream(source))
        if cut <= last:
            assert error is StreamIncompleteError, f"cut at {cut} of {len(pieces)}: {error}"
            # the same chunks, then the marker: nothing raised
            kept = list(codec.decode_stream(source, incomplete="keep"))
            assert len(kept) == count + 1
            marker = kept[-1].response_metadata
            assert marker is not None and marker["chatschema"]["incomplete"]["missing"]
            assert all(chunk.chunk_position is None for chunk in kept)
        else:
            assert error is not StreamIncompleteError, f"cut at {cut} of {len(pieces)}"
        if cut in (0, last, last + 1):  # async sources give the same (each event awaited)
            assert asyncio.run(_aoutcome(fmt, source)) == (count, error)


def test_the_error_names_the_provider_and_what_is_missing() -> None:
    events = recorded.load(TESTS / "payloads" / "anthropic" / "stream_thinking_tools.json")
    events = events["events"]
    stop = [n for n, e in enumerate(events) if e["type"] == "content_block_stop"]
    chunks: list[AssistantMessageChunk] = []
    with pytest.raises(StreamIncompleteError) as cut:
        chunks.extend(get_codec("anthropic").decode_stream(events[: stop[1]]))
    assert isinstance(cut.value, ConversionError) and cut.value.missing == "message_stop"
    assert str(cut.value).startswith(
        "anthropic: the stream ended before message_stop: the reply may be incomplete ("
    )
    assert "1 not stopped" in str(cut.value)
    assert chunks and merge_chunks(chunks).to_message().finish_reason is None


def test_a_chat_stream_without_a_finish_reason_is_complete_at_its_end_markers() -> None:
    # Snowflake Cortex sends no finish_reason; its usage chunk and [DONE] end the stream
    text = {"choices": [{"index": 0, "delta": {"content": "4"}}], "object": "x"}
    usage = {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}
    codec = get_codec("openai_chat")
    assert len(list(codec.decode_stream([text, usage]))) == 2
    body = f"data: {json.dumps(text)}\n\ndata: [DONE]\n\n"
    assert len(list(codec.decode_stream([body]))) == 1
    with pytest.raises(StreamIncompleteError, match="ended before finish_reason"):
        list(codec.decode_stream([text]))


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_incomplete_option_is_checked(fmt: str) -> None:
    with pytest.raises(OptionError, match="incomplete must be 'error' or 'keep'"):
        get_codec(fmt).decode_stream([], incomplete="ignore")  # type: ignore[call-overload]


# ------------------------------------------------------------------ bounded memory


def _argument_events(total: int, piece: int) -> Iterator[dict[str, Any]]:
    """A Chat stream of one tool call whose arguments are ``total`` characters."""
    head = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}
    yield {"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]}
    for _ in range(total // piece):
        fragment = {"index": 0, "function": {"arguments": "x" * piece}}  # (a new string each)
        yield {"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]}
    yield {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def test_the_chat_decoder_holds_arguments_only_up_to_the_string_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "MAX_STRING_CHARS", 1 << 20)  # 1 Mi characters
    tracemalloc.start()
    try:
        with pytest.raises(ConversionError) as refused:
            for _ in get_codec("openai_chat").decode_stream(_argument_events(64 << 20, 1 << 16)):
                pass  # the caller discards every chunk
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    (problem,) = refused.value.problems
    assert (problem.pointer, problem.keyword) == ("/tool_call_chunks/0/arguments", "maxLength")
    assert peak < 8 << 20, f"{peak:,} bytes for 64 MB of arguments"  # was the whole stream


def test_the_accumulator_refuses_arguments_and_text_past_the_string_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "MAX_STRING_CHARS", 1000)
    accumulator = ChunkAccumulator()
    accumulator.add(AssistantMessageChunk(tool_call_chunks=[{"index": 0, "id": "c", "name": "f"}]))
    piece = AssistantMessageChunk(tool_call_chunks=[{"index": 0, "arguments": "x" * 400}])
    accumulator.add(piece)
    accumulator.add(piece)
    with pytest.raises(ValidationError) as refused:
        accumulator.add(piece)
    (problem,) = refused.value.problems
    assert (problem.pointer, problem.keyword) == ("/tool_call_chunks/0/arguments", "maxLength")
    text = ChunkAccumulator()
    text.add(AssistantMessageChunk(content="y" * 600))
    with pytest.raises(ValidationError) as long_text:
        text.add(AssistantMessageChunk(content="y" * 600))
    assert long_text.value.problems[0].keyword == "maxLength"
    block = ChunkAccumulator()
    block.add(AssistantMessageChunk(content=[{"type": "text", "text": "z" * 600, "index": 0}]))
    with pytest.raises(ValidationError, match="maxLength"):
        block.add(AssistantMessageChunk(content=[{"type": "text", "text": "z" * 600, "index": 0}]))


# -------------------------------------------------------------- foreign exceptions


@pytest.mark.parametrize("fmt", FORMATS)
def test_none_for_a_stream_is_a_conversion_error(fmt: str) -> None:
    with pytest.raises(ConversionError, match="expected an iterable of stream events"):
        list(get_codec(fmt).decode_stream(None))  # type: ignore[call-overload]


def test_none_for_chunks_is_a_validation_error() -> None:
    with pytest.raises(ValidationError, match="expected an iterable of AssistantMessageChunk"):
        merge_chunks(None)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="not an AssistantMessageChunk: NoneType"):
        ChunkAccumulator().add(None)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="expected an async iterable"):
        asyncio.run(amerge_chunks(None))  # type: ignore[arg-type]


def test_a_lone_surrogate_in_a_streamed_call_id_is_a_conversion_error() -> None:
    created = {"id": "resp_1", "model": "m", "status": "in_progress", "output": []}
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_\ud800", "name": "f"}
    events = [
        {"type": "response.created", "response": created},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    with pytest.raises(ConversionError) as refused:
        list(get_codec("openai_responses").decode_stream(events))
    (problem,) = refused.value.problems
    assert (problem.pointer, problem.keyword) == ("/id", "string_unicode")
    assert "ToolCallChunk" in str(refused.value)
