"""Recorded Responses streams: items in ``output_index`` order, the code interpreter, replay.

The streams are real (``tests/payloads/openai_responses/README.md``): one where
three ``mcp_list_tools`` items are announced at once and finished in another
order (two only in ``response.completed``), and two running the code interpreter.
Assembled, each gives what ``decode_response`` makes of its final response; the
final response's items, sent back as history, come back byte for byte.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import recorded
from conftest import assembled

import chatschema
from chatschema import ServerToolCallBlock, ServerToolResultBlock, to_dict
from chatschema.providers import openai_responses as R
from providers.openai_responses.test_stream import RESPONSES as SIMULATED
from providers.openai_responses.test_stream import every, sse, stream_of

NAME = "openai_responses"
PAYLOADS = Path(__file__).parents[2] / "payloads" / NAME


def _load(source: Path | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events of a recorded stream file (read when a test runs: absent, the test
    skips), or ``source`` itself when it is events already."""
    if isinstance(source, list):
        return source
    events: list[dict[str, Any]] = recorded.load(source, shared=True)
    return events


# recorded from the API (tests/payloads/openai_responses/README.md)
MCP = PAYLOADS / "mcp_list_tools_stream.json"
CODE = PAYLOADS / "code_interpreter_stream.json"
CODE_IMAGE = PAYLOADS / "code_interpreter_image_stream.json"


def _final(events: list[dict[str, Any]]) -> dict[str, Any]:
    response: dict[str, Any] = events[-1]["response"]
    return response


def _decoded(events: Any) -> dict[str, Any]:
    return assembled(list(R.decode_stream(events)))


def _ids(message: dict[str, Any]) -> list[str]:
    """The item id of each block, in order."""
    ids = []
    for block in message["content"]:
        value = block.get("value") or {}
        ids.append(value.get("id") or block.get("id") or block.get("tool_call_id"))
    return ids


# ============================================================== output_index order


def test_items_finished_out_of_order_assemble_in_output_order() -> None:
    mcp = _load(MCP)
    final = _final(mcp)
    reply = _decoded(mcp)
    assert reply == to_dict(R.decode_response(final))
    assert _ids(reply) == [item["id"] for item in final["output"]]
    assert _decoded([sse(mcp)]) == reply  # the raw body, as the API sent it


def test_the_message_waits_only_for_the_items_before_it() -> None:
    """The items the stream finishes late hold back what follows them, nothing else."""
    mcp = _load(MCP)
    chunks = list(R.decode_stream(mcp))
    assert chunks[0].provider == NAME
    first_text = next(
        position
        for position, chunk in enumerate(chunks)
        if isinstance(chunk.content, list) and any(b.type == "text" for b in chunk.content)
    )
    before = [
        block.index
        for chunk in chunks[:first_text]
        if isinstance(chunk.content, list)
        for block in chunk.content
    ]
    assert sorted(set(before)) == [0, 1, 2]  # every mcp_list_tools item came first
    # without the late items, the message streams as its events come
    done = [
        {"type": "response.output_item.done", "output_index": i, "item": item, "sequence_number": 0}
        for i, item in enumerate(_final(mcp)["output"][:3])
    ]
    prompt = [event for event in mcp if event["type"] != "response.output_item.done"]
    events = prompt[:2] + done + prompt[2:]
    texts = [
        chunk
        for chunk in R.decode_stream(events)
        if isinstance(chunk.content, list) and any(b.type == "text" for b in chunk.content)
    ]
    deltas = [event for event in mcp if event["type"] == "response.output_text.delta"]
    # the part's start, one chunk per delta (none merged, none held), the item's end
    assert len(texts) == len(deltas) + 2


def test_items_that_are_never_done_come_from_the_final_response() -> None:
    mcp = _load(MCP)
    events = [event for event in mcp if event["type"] != "response.output_item.done"]
    assert _decoded(events) == to_dict(R.decode_response(_final(mcp)))


def _renumbered(events: list[dict[str, Any]], start: int, shift: int) -> list[dict[str, Any]]:
    """The events with every ``output_index`` from ``start`` on moved by ``shift``."""
    out = copy.deepcopy(events)
    for event in out:
        index = event.get("output_index")
        if isinstance(index, int) and index >= start:
            event["output_index"] = index + shift
    return out


@pytest.mark.parametrize("events", [MCP, stream_of(SIMULATED["interleaved_incomplete"])])
def test_a_skipped_output_index_does_not_make_an_item_twice(events: Any) -> None:
    """Stream indexes 0, 1, 3, 4 ... for the response's 0, 1, 2, 3: items match by id."""
    events = _load(events)
    final = _final(events)
    reply = _decoded(_renumbered(events, 2, 1))
    assert reply == to_dict(R.decode_response(final))


# ============================================================== code interpreter


def _reissued(events: list[dict[str, Any]]) -> bool:
    """Whether ``response.completed`` re-issues reasoning items' ``encrypted_content``.

    The API gives another value there than the one ``response.output_item.done``
    carried (both recordings show it); the stream sends the final one.
    """
    streamed = {
        event["item"]["id"]: event["item"]["encrypted_content"]
        for event in events
        if event["type"] == "response.output_item.done" and event["item"]["type"] == "reasoning"
    }
    finals = [item for item in _final(events)["output"] if item["type"] == "reasoning"]
    return bool(finals) and all(
        item["encrypted_content"] != streamed[item["id"]] for item in finals
    )


@pytest.mark.parametrize("events", [CODE, CODE_IMAGE], ids=["logs_off", "image_output"])
def test_code_interpreter_streams_assemble_to_decode_response(events: Any) -> None:
    events = _load(events)
    assert _reissued(events)  # (what the recordings show)
    reply = _decoded(events)
    assert reply == to_dict(R.decode_response(_final(events)))
    assert _decoded([sse(events)]) == reply
    calls = [item for item in _final(events)["output"] if item["type"] == "code_interpreter_call"]
    blocks = [b for b in reply["content"] if b["type"].startswith("server_tool")]
    assert len(blocks) == 2 * len(calls)
    for item, call, result in zip(calls, blocks[::2], blocks[1::2], strict=True):
        assert call == {
            "type": "server_tool_call",
            "provider": NAME,
            "id": item["id"],
            "name": "code_interpreter",
            "arguments": {"code": item["code"]},
            "extras": {
                NAME: {"item": {"status": "completed", "container_id": item["container_id"]}}
            },
        }
        expected = {"type": "server_tool_result", "provider": NAME, "tool_call_id": item["id"]}
        expected["status"] = "success"
        if item["outputs"] is not None:
            expected["output"] = item["outputs"]
        assert result == expected


def test_code_interpreter_blocks_are_this_formats_own() -> None:
    message = R.decode_response(_final(_load(CODE_IMAGE)))
    assert isinstance(message.content, list)
    call, result = (b for b in message.content if b.type.startswith("server_tool"))
    assert isinstance(call, ServerToolCallBlock) and isinstance(result, ServerToolResultBlock)
    assert [output["type"] for output in result.output] == ["image", "logs"]
    history = [chatschema.user("Plot y = x^2"), message]
    for codec in ("anthropic", "gemini", "openai_chat"):
        problems = chatschema.providers.get_codec(codec).check(history)
        assert problems and all(p.keyword == "unsupported_content" for p in problems), codec


# ============================================================== replay, byte for byte


def _history(final: dict[str, Any]) -> list[dict[str, Any]]:
    """A request's input: a question, the response's items as the API wrote them, outputs."""
    items: list[dict[str, Any]] = [{"role": "user", "content": "Go on."}]
    for item in final["output"]:
        items.append(item)
        if item["type"] == "function_call":
            items.append(
                {"type": "function_call_output", "call_id": item["call_id"], "output": "ok"}
            )
    items.append({"role": "user", "content": "Thanks."})
    return items


REPLAYED = {
    "mcp_list_tools": MCP,
    "code_interpreter": CODE,
    "code_interpreter_image": CODE_IMAGE,
    **{path.stem: path for path in recorded.listing(PAYLOADS, "stream_*.json")},
}
"""The stream files whose final response is replayed (read when the test runs)."""

# the responses recorded from the API itself (the README of the payloads)
RECORDED_BY_API = (MCP, CODE, CODE_IMAGE)


@pytest.mark.parametrize("path", list(REPLAYED.values()), ids=list(REPLAYED))
def test_recorded_output_items_replay_byte_for_byte(path: Path) -> None:
    final = _final(_load(path))
    request = {"input": _history(final)}
    encoded = R.encode(R.decode_conversation(json.dumps(request)))
    assert json.dumps(encoded) == json.dumps(request)
    # a reply appended to the history goes back as the response's items; byte for
    # byte for the recordings of the API (encode writes its key order)
    reply = R.decode_response(final)
    again = R.encode([chatschema.user("Go on."), reply], check=False)
    assert again["input"][1:] == final["output"]
    if final["id"] in {_final(_load(source))["id"] for source in RECORDED_BY_API}:
        assert json.dumps(again["input"][1:]) == json.dumps(final["output"])


def test_a_function_call_keeps_the_place_of_its_id() -> None:
    item = {
        "id": "fc_1",
        "type": "function_call",
        "status": "completed",
        "arguments": '{"city":"Oslo"}',
        "call_id": "call_1",
        "name": "get_weather",
    }
    sdk_order = {key: item[key] for key in ("arguments", "call_id", "name", "type", "id", "status")}
    for call in (item, sdk_order):
        request = {
            "input": [
                {"role": "user", "content": "x"},
                call,
                {"type": "function_call_output", "call_id": "call_1", "output": "12°C"},
            ]
        }
        text = json.dumps(request, ensure_ascii=False)
        assert json.dumps(R.encode(R.decode_conversation(text)), ensure_ascii=False) == text


def test_streams_of_the_simulator_still_cut_anywhere() -> None:
    events = stream_of(SIMULATED["built_in_items"], every(2))
    assert _decoded(events) == to_dict(R.decode_response(_final(events)))
