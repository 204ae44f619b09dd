"""OpenAI Responses ``decode_stream``: streamed events assemble to ``decode_response``.

Every stream here is checked the same way: its chunks, assembled with
``ChunkAccumulator``, with ``merge_chunks`` and with ``+``, give exactly (``to_dict``)
the message ``decode_response`` makes of the stream's final ``Response``.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import assembled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.responses import Response, ResponseStreamEvent, ResponseTextDeltaEvent
from pydantic import TypeAdapter

from chatschema import (
    AssistantMessageChunk,
    ChunkAccumulator,
    ConversionError,
    ReasoningBlock,
    StreamIncompleteError,
    TextBlock,
    to_dict,
)
from chatschema.providers import openai_responses as R

NAME = "openai_responses"
PAYLOADS = Path(__file__).parents[2] / "payloads" / NAME
EVENT: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)

# ------------------------------------------------------------------ final responses


def _response(output: list[dict[str, Any]], **changes: Any) -> dict[str, Any]:
    """A complete Response as the API returns it (request echoes included)."""
    response: dict[str, Any] = {
        "id": "resp_68c9a1f0b5e48190a2c7",
        "object": "response",
        "created_at": 1757995120,
        "status": "completed",
        "background": False,
        "completed_at": 1757995124,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "model": "gpt-5-2025-08-07",
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "safety_identifier": None,
        "service_tier": "default",
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": 84,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 1536,
            "output_tokens_details": {"reasoning_tokens": 1024},
            "total_tokens": 1620,
        },
        "user": None,
        "metadata": {},
    }
    response.update(changes)
    return response


def _message(item_id: str, *parts: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "message",
        "status": "completed",
        "content": list(parts),
        "role": "assistant",
        **more,
    }


def _text(text: str, *annotations: dict[str, Any]) -> dict[str, Any]:
    return {"type": "output_text", "annotations": list(annotations), "logprobs": [], "text": text}


def _call(item_id: str, call_id: str, arguments: str, name: str = "get_weather") -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "function_call",
        "status": "completed",
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
    }


def _reasoning(item_id: str, *summary: str, **more: Any) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": text} for text in summary],
        **more,
    }


ENCRYPTED = "gAAAAABoyaH0" + "q7Xz-Lm2Pw9_Rt4Ks8Vb1Nc3" * 12 + "=="
# Arguments with an escape (\u00e9), raw UTF-8 (ø, 🌧), nesting and numbers.
ARGS_MONTREAL = '{"city": "Montr\\u00e9al", "units": "celsius", "days": [1, 2, 3]}'
ARGS_TROMSO = '{"city":"Tromsø","note":"🌧 \\"wet\\"","limit":10.5}'

RESPONSES: dict[str, dict[str, Any]] = {
    "text": _response(
        [_message("msg_68c9a1f2", _text("Hello! How can I help you today? 😊"))],
        reasoning={"effort": None, "summary": None},
        usage={
            "input_tokens": 9,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 11,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 20,
        },
    ),
    "reasoning_parallel_calls": _response(
        [
            _reasoning(
                "rs_68c9a1f1",
                "**Checking the weather**\n\nThe user asks about two cities: Montréal, Tromsø…",
                "**Calling the tool twice**\n\nI'll call get_weather in parallel.",
                encrypted_content=ENCRYPTED,
            ),
            _call("fc_68c9a1f3", "call_Qx1", ARGS_MONTREAL),
            _call("fc_68c9a1f4", "call_Qx2", ARGS_TROMSO),
        ],
        tools=[
            {
                "type": "function",
                "name": "get_weather",
                "description": "Current weather.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                "strict": False,
            }
        ],
    ),
    "refusal": _response(
        [_message("msg_r1", {"type": "refusal", "refusal": "I'm sorry, I can't help with that."})]
    ),
    "web_search_citations": _response(
        [
            _reasoning("rs_w1", encrypted_content=ENCRYPTED[:40]),
            {
                "id": "ws_w2",
                "type": "web_search_call",
                "status": "completed",
                "action": {
                    "type": "search",
                    "query": "weather Oslo today",
                    "sources": [{"type": "url", "url": "https://www.yr.no/"}],
                },
            },
            _message(
                "msg_w3",
                _text(
                    "Oslo: 12°C and rain [yr.no] ([met.no]).",
                    {
                        "type": "url_citation",
                        "start_index": 21,
                        "end_index": 28,
                        "title": "Yr",
                        "url": "https://www.yr.no/",
                    },
                    {
                        "type": "url_citation",
                        "start_index": 30,
                        "end_index": 38,
                        "title": "MET Norway",
                        "url": "https://www.met.no/",
                    },
                    {
                        "type": "file_citation",
                        "file_id": "file-9x",
                        "filename": "a.pdf",
                        "index": 3,
                    },
                ),
                phase="final_answer",
            ),
        ],
        tools=[{"type": "web_search", "search_context_size": "medium"}],
    ),
    "reasoning_text_two_parts": _response(
        [
            _reasoning(
                "rs_t1",
                content=[
                    {"type": "reasoning_text", "text": "The user greets me."},
                    {"type": "reasoning_text", "text": "Answer in French, «poliment»."},
                ],
            ),
            _message("msg_t2", _text("Bonjour ! "), _text("Ça va ?")),
        ],
        model="gpt-oss-120b",
    ),
    "interleaved_incomplete": _response(
        [
            _message("msg_i1", _text("Let me look that up.")),
            _call("fc_i2", "call_i2", "", name="get_time"),
            _reasoning("rs_i3", "Need the forecast too.", encrypted_content=ENCRYPTED),
            _message("msg_i4", _text("One more thing:"), phase="commentary"),
            _call("fc_i5", "call_i5", '{"city": "Os', name="get_weather"),
        ],
        status="incomplete",
        incomplete_details={"reason": "max_output_tokens"},
        max_output_tokens=64,
    ),
    "built_in_items": _response(
        [
            {
                "id": "fs_b1",
                "type": "file_search_call",
                "status": "completed",
                "queries": ["refund policy"],
                "results": None,
            },
            {
                "id": "ci_b2",
                "type": "code_interpreter_call",
                "status": "completed",
                "code": "print(6 * 7)",
                "container_id": "cntr_1",
                "outputs": [{"type": "logs", "logs": "42\n"}],
            },
            {
                "id": "ctc_b3",
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "call_b3",
                "input": "SELECT 1;",
                "name": "sql",
            },
            _message("msg_b4", _text("Refunds take 42 days.")),
        ],
        usage={
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 64, "cache_write_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 120,
            "cost": 0.00042,
        },
    ),
    "calls_only": _response(
        [_call("fc_c1", "call_c1", '{"city":"Bergen"}')],
        service_tier="priority",
    ),
}

# ------------------------------------------------------------------ event streams

Split = Callable[[str], list[str]]


def every(size: int) -> Split:
    """Deltas of ``size`` characters."""
    return lambda text: [text[at : at + size] for at in range(0, len(text), size)]


class _Events:
    """Events as the API sends them, numbered."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, kind: str, **fields: Any) -> None:
        event = {"type": kind, "sequence_number": len(self.events), **fields}
        if kind.endswith(".delta") and "delta" in fields:
            event["obfuscation"] = "x9Qe"[: len(self.events) % 4 + 1]  # random padding
        self.events.append(copy.deepcopy(event))


def snapshot_of(final: dict[str, Any]) -> dict[str, Any]:
    """The response as ``response.created`` / ``in_progress`` carry it."""
    return {
        **copy.deepcopy(final),
        "status": "in_progress",
        "output": [],
        "usage": None,
        "completed_at": None,
        "incomplete_details": None,
        "service_tier": "auto",
    }


def stream_of(final: dict[str, Any], split: Split | None = None) -> list[dict[str, Any]]:
    """The events that stream ``final``, with text and arguments cut by ``split``."""
    split = split or every(5)
    emit = _Events()
    emit("response.created", response=snapshot_of(final))
    emit("response.in_progress", response=snapshot_of(final))
    for index, item in enumerate(final["output"]):
        _stream_item(emit, index, item, split)
    terminal = {"completed": "response.completed", "incomplete": "response.incomplete"}
    emit(terminal[final["status"]], response=final)
    return emit.events


def _stream_item(emit: _Events, index: int, item: dict[str, Any], split: Split) -> None:
    kind = item.get("type", "message")
    where = (
        {"item_id": item["id"], "output_index": index} if "id" in item else {"output_index": index}
    )
    if kind == "message" and isinstance(item["content"], str):  # the easy form
        emit("response.output_item.added", output_index=index, item=item)
    elif kind == "message":
        emit(
            "response.output_item.added",
            output_index=index,
            item={**item, "status": "in_progress", "content": []},
        )
        for position, part in enumerate(item["content"]):
            at = {**where, "content_index": position}
            if part["type"] == "output_text":
                empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
                emit("response.content_part.added", **at, part=empty)
                for piece in split(part["text"]):
                    emit("response.output_text.delta", **at, delta=piece, logprobs=[])
                for number, annotation in enumerate(part["annotations"]):
                    emit(
                        "response.output_text.annotation.added",
                        **at,
                        annotation_index=number,
                        annotation=annotation,
                    )
                emit("response.output_text.done", **at, text=part["text"], logprobs=[])
            elif part["type"] == "refusal":
                emit("response.content_part.added", **at, part={"type": "refusal", "refusal": ""})
                for piece in split(part["refusal"]):
                    emit("response.refusal.delta", **at, delta=piece)
                emit("response.refusal.done", **at, refusal=part["refusal"])
            else:
                emit("response.content_part.added", **at, part=part)
            emit("response.content_part.done", **at, part=part)
    elif kind == "function_call":
        emit(
            "response.output_item.added",
            output_index=index,
            item={**item, "status": "in_progress", "arguments": ""},
        )
        for piece in split(item["arguments"]):
            emit("response.function_call_arguments.delta", **where, delta=piece)
        emit("response.function_call_arguments.done", **where, arguments=item["arguments"])
    elif kind == "reasoning":
        added = {**item, "summary": []}
        if item.get("encrypted_content"):  # "may be incomplete" in output_item.added
            added["encrypted_content"] = item["encrypted_content"][:12]
        if "content" in item:
            added["content"] = []
        emit("response.output_item.added", output_index=index, item=added)
        for number, part in enumerate(item["summary"]):
            at = {**where, "summary_index": number}
            emit(
                "response.reasoning_summary_part.added",
                **at,
                part={"type": "summary_text", "text": ""},
            )
            for piece in split(part["text"]):
                emit("response.reasoning_summary_text.delta", **at, delta=piece)
            emit("response.reasoning_summary_text.done", **at, text=part["text"])
            emit("response.reasoning_summary_part.done", **at, part=part)
        for position, part in enumerate(item.get("content") or []):
            at = {**where, "content_index": position}
            emit("response.content_part.added", **at, part={"type": "reasoning_text", "text": ""})
            for piece in split(part["text"]):
                emit("response.reasoning_text.delta", **at, delta=piece)
            emit("response.reasoning_text.done", **at, text=part["text"])
            emit("response.content_part.done", **at, part=part)
    elif kind == "web_search_call":
        emit(
            "response.output_item.added",
            output_index=index,
            item={**item, "status": "in_progress", "action": {"type": "search"}},
        )
        for phase in ("in_progress", "searching", "completed"):
            emit(f"response.web_search_call.{phase}", **where)
    elif kind == "custom_tool_call":
        emit("response.output_item.added", output_index=index, item={**item, "input": ""})
        for piece in split(item["input"]):
            emit("response.custom_tool_call_input.delta", **where, delta=piece)
        emit("response.custom_tool_call_input.done", **where, input=item["input"])
    else:
        partial = {**item, "status": "in_progress"}
        if kind == "code_interpreter_call":
            partial.update(code="", outputs=None)
            emit("response.output_item.added", output_index=index, item=partial)
            emit("response.code_interpreter_call.in_progress", **where)
            for piece in split(item["code"]):
                emit("response.code_interpreter_call_code.delta", **where, delta=piece)
            emit("response.code_interpreter_call_code.done", **where, code=item["code"])
            emit("response.code_interpreter_call.completed", **where)
        else:
            emit("response.output_item.added", output_index=index, item=partial)
            emit("response.file_search_call.in_progress", **where)
            emit("response.file_search_call.completed", **where)
    emit("response.output_item.done", output_index=index, item=item)


def sse(events: Iterable[dict[str, Any]]) -> bytes:
    """The raw body of the stream, as the API sends it (UTF-8, not ASCII-escaped)."""
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n".encode()
        for event in events
    )


def cut(body: bytes, points: Iterable[int]) -> list[bytes]:
    """``body`` cut at ``points`` (byte offsets)."""
    edges = sorted({0, len(body), *(p for p in points if 0 < p < len(body))})
    return [body[start:end] for start, end in itertools.pairwise(edges)]


# ------------------------------------------------------------------ assembling


def decoded(stream: Iterable[Any]) -> dict[str, Any]:
    chunks = list(R.decode_stream(stream))
    assert chunks[0].provider == NAME
    return assembled(chunks)


def cut_off(stream: Iterable[Any]) -> list[AssistantMessageChunk]:
    """The chunks of a stream cut before its final event, which ends in StreamIncompleteError."""
    chunks: list[AssistantMessageChunk] = []
    with pytest.raises(StreamIncompleteError, match=r"ended before response\.completed"):
        chunks.extend(R.decode_stream(stream))
    assert chunks[0].provider == NAME
    return chunks


def expected(final: Any) -> dict[str, Any]:
    return to_dict(R.decode_response(final))


def final_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The oracle: the ``response`` of the terminal event."""
    last = events[-1]
    assert last["type"] in ("response.completed", "response.incomplete")
    response: dict[str, Any] = last["response"]
    return response


# ================================================================== the streams


@pytest.mark.parametrize("name", list(RESPONSES))
def test_stream_assembles_to_decode_response(name: str) -> None:
    events = stream_of(RESPONSES[name])
    chunks = list(R.decode_stream(events))
    assert chunks[-1].chunk_position == "last"
    assert all(chunk.chunk_position is None for chunk in chunks[:-1])
    assert assembled(chunks) == expected(final_of(events))


@pytest.mark.parametrize("name", list(RESPONSES))
def test_events_are_valid_sdk_events_and_sdk_objects_decode_alike(name: str) -> None:
    events = stream_of(RESPONSES[name])
    objects = [EVENT.validate_python(event) for event in events]  # the simulator is realistic
    from_sdk = decoded(objects)
    assert from_sdk == expected(Response.model_validate(final_of(events)))
    if name != "built_in_items":  # the SDK drops its `"results": null`
        assert from_sdk == decoded(events)


@pytest.mark.parametrize("name", list(RESPONSES))
def test_raw_sse_bytes_cut_into_small_pieces(name: str) -> None:
    events = stream_of(RESPONSES[name], every(3))
    body = sse(events) + b"data: [DONE]\n\n"
    assert decoded(cut(body, range(0, len(body), 7))) == expected(final_of(events))
    assert decoded([body.decode()]) == expected(final_of(events))


@pytest.mark.parametrize(
    "payload", sorted(PAYLOADS.glob("stream_*.json")), ids=lambda path: path.stem
)
def test_recorded_streams(payload: Path) -> None:
    events = json.loads(payload.read_text("utf-8"))
    for event in events:
        EVENT.validate_python(event)
    assert decoded(events) == expected(final_of(events))
    assert decoded([sse(events)]) == expected(final_of(events))


def test_text_streams_as_it_arrives() -> None:
    events = stream_of(RESPONSES["text"], every(1))
    seen: list[str] = []
    for chunk in R.decode_stream(events):
        for block in chunk.content:
            if isinstance(block, TextBlock) and block.text:
                seen.append(block.text)
                assert block.index == 0
    assert seen == list("Hello! How can I help you today? 😊")
    message = R.decode_response(final_of(events))
    assert message.finish_reason == "stop" and message.raw_finish_reason == "completed"
    assert message.usage is not None and message.usage.total_tokens == 20


def test_decoding_is_lazy() -> None:
    events = stream_of(RESPONSES["text"])

    def source() -> Iterator[dict[str, Any]]:
        yield from events[:4]  # created, in_progress, item added, part added
        yield events[4]  # the first text delta
        raise AssertionError("read past the first delta")

    stream = R.decode_stream(source())
    first = next(stream)
    assert first.response_id == "resp_68c9a1f0b5e48190a2c7" and first.provider == NAME
    texts = []
    for chunk in stream:
        texts += [block.text for block in chunk.content if isinstance(block, TextBlock)]
        if "Hello" in "".join(texts):
            break
    assert "".join(texts) == "Hello"


def test_reasoning_and_parallel_calls() -> None:
    events = stream_of(RESPONSES["reasoning_parallel_calls"])
    chunks = list(R.decode_stream(events))
    message = ChunkAccumulator()
    for chunk in chunks:
        message.add(chunk)
    reply = message.to_message()
    assert [(call.id, call.index) for call in reply.tool_calls] == [
        ("call_Qx1", 1),
        ("call_Qx2", 2),
    ]
    assert reply.tool_calls[0].arguments["city"] == "Montréal"
    assert reply.tool_calls[1].arguments["note"] == '🌧 "wet"'
    # The exact argument text and the fc_ item id, for replay.
    assert reply.tool_calls[0].extras == {
        NAME: {"arguments": ARGS_MONTREAL, "id": "fc_68c9a1f3", "status": "completed"}
    }
    assert isinstance(reply.content, list)
    (reasoning,) = reply.content
    assert isinstance(reasoning, ReasoningBlock)
    assert reasoning.encrypted_content == ENCRYPTED  # from output_item.done, not .added
    assert reasoning.summary is not None and len(reasoning.summary) == 2
    assert reply.finish_reason == "tool_calls"
    # Argument fragments are keyed by the fc_ item, never by call_id.
    fragments = [c for chunk in chunks for c in chunk.tool_call_chunks if c.arguments]
    assert {fragment.index for fragment in fragments} == {1, 2}
    assert all(fragment.id is None for fragment in fragments[1:-1])
    assert to_dict(reply) == expected(final_of(events))


def test_arguments_cut_at_awkward_places() -> None:
    # mid-token, mid-string, inside the \u00e9 escape, and one character at a time.
    first = [
        '{"ci',
        'ty": "Mon',
        "tr\\u00",
        'e9al", "un',
        'its": "cel',
        'sius", "days": [1',
        ", 2, 3]}",
    ]
    assert "".join(first) == ARGS_MONTREAL
    second = ['{"city":"Trom', 'sø","note":"🌧 \\', '"wet\\"","limit":1', "0.5}"]
    assert "".join(second) == ARGS_TROMSO
    pieces = {ARGS_MONTREAL: first, ARGS_TROMSO: second}
    events = stream_of(RESPONSES["reasoning_parallel_calls"], lambda text: pieces.get(text, [text]))
    assert decoded(events) == expected(final_of(events))
    one_by_one = stream_of(RESPONSES["reasoning_parallel_calls"], every(1))
    assert decoded(one_by_one) == expected(final_of(events))


def test_sse_body_cut_inside_utf8_characters() -> None:
    events = stream_of(RESPONSES["reasoning_parallel_calls"])
    body = sse(events)
    points = []
    for character in ("…", "ø", "🌧"):
        encoded = character.encode()
        at = body.index(encoded)
        points += [at + 1, at + len(encoded) - 1]
    assert decoded(cut(body, points)) == expected(final_of(events))
    assert decoded(cut(body, range(len(body)))) == expected(final_of(events))  # byte by byte


def test_refusal() -> None:
    events = stream_of(RESPONSES["refusal"])
    reply = decoded(events)
    assert reply == expected(final_of(events))
    assert reply["content"] == [
        {"type": "refusal", "text": "I'm sorry, I can't help with that.", "id": "msg_r1"}
    ]
    assert reply["finish_reason"] == "content_filter"


def test_web_search_and_citations() -> None:
    events = stream_of(RESPONSES["web_search_citations"])
    chunks = list(R.decode_stream(events))
    reply = assembled(chunks)
    assert reply == expected(final_of(events))
    (search,) = (b for b in reply["content"] if b["type"] == "server_tool_call")
    assert search["arguments"]["query"] == "weather Oslo today"  # not the partial action
    text = reply["content"][-1]
    kinds = ["citation", "citation", "non_standard_annotation"]
    assert [annotation["type"] for annotation in text["annotations"]] == kinds
    assert text["extras"] == {
        NAME: {
            "item": {"type": "message", "status": "completed", "phase": "final_answer"},
            "part": {"logprobs": []},
        }
    }
    # Annotations stream as they are added, before the item is done.
    done_at = next(
        n
        for n, chunk in enumerate(chunks)
        if any(isinstance(b, TextBlock) and b.extras for b in chunk.content)
    )
    assert any(
        isinstance(block, TextBlock) and block.annotations
        for chunk in chunks[:done_at]
        for block in chunk.content
    )


def test_reasoning_text_parts_are_joined_as_decode_response_joins_them() -> None:
    events = stream_of(RESPONSES["reasoning_text_two_parts"], every(4))
    reply = decoded(events)
    assert reply == expected(final_of(events))
    assert reply["content"][0]["text"] == "The user greets me.\nAnswer in French, «poliment»."
    assert [block["text"] for block in reply["content"][1:]] == ["Bonjour ! ", "Ça va ?"]


def test_interleaved_items_and_an_incomplete_response() -> None:
    events = stream_of(RESPONSES["interleaved_incomplete"])
    reply = decoded(events)
    assert reply == expected(final_of(events))
    assert [(c["id"], c["index"]) for c in reply["tool_calls"]] == [("call_i2", 1)]
    assert [(c["id"], c["index"]) for c in reply["invalid_tool_calls"]] == [("call_i5", 4)]
    assert reply["tool_calls"][0]["extras"][NAME]["arguments"] == ""
    assert (reply["finish_reason"], reply["raw_finish_reason"]) == ("length", "incomplete")
    # And the history it makes re-encodes to the output items.
    request = R.encode([R.decode_response(final_of(events))], check=False)
    assert request["input"] == RESPONSES["interleaved_incomplete"]["output"]


def test_built_in_items_come_whole_and_usage_extras_are_kept() -> None:
    events = stream_of(RESPONSES["built_in_items"])
    reply = decoded(events)
    assert reply == expected(final_of(events))
    # a code_interpreter_call is a server tool call and its result; the others whole
    assert [block["type"] for block in reply["content"]] == [
        "non_standard",
        "server_tool_call",
        "server_tool_result",
        "non_standard",
        "text",
    ]
    assert reply["response_metadata"][NAME]["usage"]["cost"] == 0.00042
    assert reply["usage"]["input_token_details"] == {"cache_read": 64, "cache_creation": 0}


def test_calls_only_reply_has_no_content() -> None:
    events = stream_of(RESPONSES["calls_only"])
    reply = decoded(events)
    assert reply == expected(final_of(events))
    assert "content" not in reply
    assert reply["tool_calls"][0]["index"] == 0


ODD_ITEMS: dict[str, list[dict[str, Any]]] = {
    "kept whole": [
        {"type": "message", "role": "assistant", "status": "completed", "content": [_text("a")]},
        _message("msg_o2", {"type": "output_audio", "data": "UklGR", "transcript": "hi"}),
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "no id"}]},
        _message("msg_o4"),
        _call("fc_o5", "call_o5", "{}"),
    ],
    "string item": [{"role": "assistant", "content": "Just text."}],
    "string item and a call": [
        {"role": "assistant", "content": "Just text."},
        _call("fc_s2", "call_s2", "{}"),
    ],
    "two string items": [
        {"role": "assistant", "content": "One."},
        {"role": "assistant", "content": "Two."},
    ],
    "a call, then a string item": [
        _call("fc_s1", "call_s1", "{}"),
        {"role": "assistant", "content": "After."},
    ],
}


@pytest.mark.parametrize("output", list(ODD_ITEMS.values()), ids=list(ODD_ITEMS))
def test_items_decode_response_reads_differently(output: list[dict[str, Any]]) -> None:
    # Items without id, unknown parts, no parts, the id-less easy form: not what the
    # API streams, but decode_response has a reading of each, and so has the stream.
    events = stream_of(_response(output))
    assert decoded(events) == expected(final_of(events))


# ================================================================== hypothesis


def _splitter(data: st.DataObject) -> Split:
    def split(text: str) -> list[str]:
        if not text:
            return []
        points = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=6))
        edges = sorted({0, len(text), *points})
        return [text[start:end] for start, end in itertools.pairwise(edges)]

    return split


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(list(RESPONSES)))
def test_any_fragmentation_assembles_the_same(data: st.DataObject, name: str) -> None:
    events = stream_of(RESPONSES[name], _splitter(data))
    want = expected(final_of(events))
    assert decoded(events) == want
    body = sse(events)
    points = data.draw(st.lists(st.integers(1, len(body) - 1), max_size=30))
    assert decoded(cut(body, points)) == want


# ================================================================== partial streams


def test_stream_cut_off_before_the_usage() -> None:
    events = stream_of(RESPONSES["text"])
    chunks = cut_off(events[:-1])  # no response.completed
    assert all(chunk.chunk_position is None for chunk in chunks)
    reply = assembled(chunks)
    snapshot = {**events[1]["response"], "output": final_of(events)["output"]}
    assert reply == expected(snapshot)
    assert "usage" not in reply and "finish_reason" not in reply
    assert reply["raw_finish_reason"] == "in_progress"


def test_stream_cut_off_between_items() -> None:
    events = stream_of(RESPONSES["interleaved_incomplete"])
    done = [n for n, e in enumerate(events) if e["type"] == "response.output_item.done"]
    reply = assembled(cut_off(events[: done[2] + 1]))
    output = final_of(events)["output"][:3]
    assert reply == expected({**events[1]["response"], "output": output})


def test_stream_cut_off_mid_text() -> None:
    events = stream_of(RESPONSES["text"], every(2))
    deltas = [n for n, e in enumerate(events) if e["type"] == "response.output_text.delta"]
    reply = assembled(cut_off(events[: deltas[3] + 1]))
    assert reply["content"][0]["text"] == "Hello! H"
    assert reply["content"][0]["id"] == "msg_68c9a1f2"


def test_missing_item_events_are_made_up_from_the_final_response() -> None:
    # A server that sends no per-item events, or drops some: the final response fills in.
    events = stream_of(RESPONSES["web_search_citations"])
    only_ends = [events[0], events[-1]]
    assert decoded(only_ends) == expected(final_of(events))
    no_item_done = [e for e in events if e["type"] != "response.output_item.done"]
    assert decoded(no_item_done) == expected(final_of(events))
    no_added = [e for e in events if e["type"] != "response.output_item.added"]
    assert decoded(no_added) == expected(final_of(events))


def test_missing_deltas_are_made_up_from_the_done_item() -> None:
    # A server that sends only the first delta of each part: the done item has the rest.
    for name in ("reasoning_parallel_calls", "web_search_citations", "interleaved_incomplete"):
        events = stream_of(RESPONSES[name], every(3))
        seen: set[tuple[Any, ...]] = set()
        lossy = []
        for event in events:
            if event["type"].endswith(".delta"):
                key = (event["output_index"], event.get("content_index"))
                if key in seen:
                    continue
                seen.add(key)
            lossy.append(event)
        assert decoded(lossy) == expected(final_of(events))


# ================================================================== errors and noise


def test_unknown_events_and_pings_are_ignored() -> None:
    events = stream_of(RESPONSES["web_search_citations"])
    noisy: list[Any] = []
    for event in events:
        noisy.append(event)
        noisy.append({"type": "response.something_new.delta", "output_index": 0, "delta": 5})
    noisy.insert(3, {"type": "keepalive", "sequence_number": 99})
    assert decoded(noisy) == expected(final_of(events))
    body = b": ping\n\n" + sse(noisy).replace(b"\n\n", b"\n\n: keep-alive\n\n", 3)
    assert decoded([body]) == expected(final_of(events))


def test_events_after_the_end_are_not_read() -> None:
    events = stream_of(RESPONSES["text"])
    trailing = [*events, {"type": "error", "message": "late"}, "not even an event"]
    assert decoded(trailing) == expected(final_of(events))


def test_error_event_raises_after_what_came_before() -> None:
    events = stream_of(RESPONSES["text"])[:5]
    error = {
        "type": "error",
        "code": "rate_limit_exceeded",
        "message": "Rate limit reached for gpt-5.",
        "param": None,
        "sequence_number": 5,
    }
    seen: list[AssistantMessageChunk] = []
    with pytest.raises(ConversionError) as raised:
        for chunk in R.decode_stream([*events, error]):
            seen.append(chunk)
    assert raised.value.provider == NAME
    assert "Rate limit reached for gpt-5." in str(raised.value)
    assert "rate_limit_exceeded" in str(raised.value)
    assert assembled(seen)["content"][0]["text"] == "Hello"
    # The older nested shape, and the raw SSE form with an `event:` line.
    nested = {"type": "error", "error": {"message": "overloaded", "type": "server_error"}}
    with pytest.raises(ConversionError, match="overloaded"):
        list(R.decode_stream([nested]))
    raw = b'event: error\ndata: {"code":null,"message":"boom","param":null}\n\n'
    with pytest.raises(ConversionError, match="boom"):
        list(R.decode_stream([raw]))


def test_failed_response_raises() -> None:
    events = stream_of(RESPONSES["text"])[:2]
    failed = {
        "type": "response.failed",
        "sequence_number": 2,
        "response": {
            **events[0]["response"],
            "status": "failed",
            "error": {"code": "server_error", "message": "The server had an error."},
        },
    }
    with pytest.raises(ConversionError, match="The server had an error") as raised:
        list(R.decode_stream([*events, failed]))
    assert raised.value.provider == NAME
    with pytest.raises(ConversionError, match="failed"):
        list(R.decode_stream([{"type": "response.failed", "response": {"error": None}}]))


ADDED = {"type": "response.output_item.added", "output_index": 0}
MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress"}
DELTA = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0}
MALFORMED: dict[str, list[Any]] = {
    "not an object": [42],
    "a list": [[{"type": "response.created"}]],
    "no type": [{"sequence_number": 1}],
    "type not a string": [{"type": 5}],
    "not JSON text": ["{oops"],
    "response not an object": [{"type": "response.created", "response": "resp_1"}],
    "output_index a string": [{**ADDED, "output_index": "0", "item": MESSAGE}],
    "output_index negative": [{**ADDED, "output_index": -1, "item": MESSAGE}],
    "output_index a bool": [{**ADDED, "output_index": True, "item": MESSAGE}],
    "item not an object": [{**ADDED, "item": "msg_1"}],
    "delta not a string": [{**DELTA, "content_index": 0, "delta": 5}],
    "no content_index": [{**ADDED, "item": MESSAGE}, {**DELTA, "delta": "hi"}],
    "empty item_id": [{**DELTA, "item_id": "", "content_index": 0, "delta": "x"}],
    "unknown item_id": [
        {"type": "response.function_call_arguments.delta", "item_id": "fc_9", "delta": "{"}
    ],
    "part not an object": [
        {"type": "response.content_part.added", "output_index": 0, "content_index": 0}
    ],
    "text part becomes refusal": [
        {**ADDED, "item": MESSAGE},
        {**DELTA, "content_index": 0, "delta": "hi"},
        {**DELTA, "type": "response.refusal.delta", "content_index": 0, "delta": "no"},
    ],
    "annotation not an object": [
        {**ADDED, "item": MESSAGE},
        {
            **DELTA,
            "type": "response.output_text.annotation.added",
            "content_index": 0,
            "annotation_index": 0,
            "annotation": "yr.no",
        },
    ],
    "summary text not a string": [
        {
            "type": "response.reasoning_summary_text.done",
            "output_index": 0,
            "summary_index": 0,
            "text": None,
        }
    ],
    "function_call without call_id": [
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {"type": "function_call", "name": "f", "arguments": "{}"},
        }
    ],
    "item changes type": [
        {**ADDED, "item": MESSAGE},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        },
    ],
    "usage not an object": [
        {
            "type": "response.completed",
            "response": {"id": "resp_1", "status": "completed", "output": [], "usage": [1]},
        }
    ],
    "output not a list": [
        {"type": "response.completed", "response": {"status": "completed", "output": "x"}}
    ],
    "output item not an object": [
        {"type": "response.completed", "response": {"status": "completed", "output": [7]}}
    ],
    "bad id": [
        {**ADDED, "item": {"type": "web_search_call", "id": 7, "status": "completed"}},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {"type": "web_search_call", "id": "", "status": "completed", "action": 3},
        },
        {"type": "response.completed", "response": {"model": 5, "id": 6, "output": []}},
        {"type": "response.created", "response": {"model": ""}},
    ],
}


@pytest.mark.parametrize("events", list(MALFORMED.values()), ids=list(MALFORMED))
def test_malformed_events_raise_conversion_error(events: list[Any]) -> None:
    if events is MALFORMED["bad id"]:
        # Odd values the neutral model has no place for are left out, not fatal.
        assert decoded(events)["content"][0]["name"] == "web_search"
        return
    with pytest.raises(ConversionError) as raised:
        list(R.decode_stream(events))
    assert raised.value.provider == NAME


@settings(max_examples=150, deadline=None)
@given(
    position=st.integers(0, 40),
    key=st.sampled_from(
        [
            "output_index",
            "content_index",
            "item",
            "delta",
            "response",
            "part",
            "item_id",
            "summary_index",
            "annotation",
            "annotation_index",
            "text",
            "type",
            "arguments",
        ]
    ),
    value=st.one_of(
        st.none(),
        st.integers(-2, 3),
        st.text(max_size=3),
        st.lists(st.integers(), max_size=2),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
        st.booleans(),
    ),
)
def test_wrong_shapes_never_escape_as_other_errors(position: int, key: str, value: Any) -> None:
    events = stream_of(RESPONSES["web_search_citations"], every(9))
    event = events[position % len(events)]
    target: dict[str, Any] = event
    if key in ("arguments", "text") and isinstance(event.get("item"), dict):
        target = event["item"]
    target[key] = value
    try:
        list(R.decode_stream(events))
    except ConversionError as error:
        assert error.provider == NAME


def test_sdk_objects_built_with_construct() -> None:
    events = stream_of(RESPONSES["text"], every(50))
    objects: list[Any] = [EVENT.validate_python(event) for event in events]
    delta = next(n for n, e in enumerate(events) if e["type"] == "response.output_text.delta")
    objects[delta] = ResponseTextDeltaEvent.construct(**events[delta])  # unvalidated
    assert decoded(objects) == expected(Response.model_validate(final_of(events)))
