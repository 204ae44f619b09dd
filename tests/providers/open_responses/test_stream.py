"""``decode_stream`` of Open Responses: recorded streams (LM Studio, OpenAI) and built ones.

Oracle: the chunks assemble (``conftest.assembled``) to what ``decode_response`` makes
of the stream's final response, from a sync, an async or an SSE-bytes source alike.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import hostile as H
import pytest
from conftest import assembled

from chatschema import CompactionBlock, StreamIncompleteError, to_dict
from chatschema.errors import ConversionError
from chatschema.providers import open_responses as O

COUNT = H.stream_seed_count("open_responses")


def _final(events: list[dict[str, Any]]) -> dict[str, Any]:
    [done] = [e for e in events if e.get("type") == "response.completed"]
    return done["response"]  # type: ignore[no-any-return]


def _sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


@pytest.mark.parametrize("number", range(COUNT))
def test_a_recorded_stream_assembles_to_its_final_response(number: int) -> None:
    events, _ = H.stream_seed_at("open_responses", number)
    chunks = list(O.decode_stream(copy.deepcopy(events)))
    message = assembled(chunks)
    assert message == to_dict(O.decode_response(_final(events)))
    assert message.get("provider") == "open_responses"

    body = _sse(events)
    pieces = [body[i : i + 61] for i in range(0, len(body), 61)]
    assert [to_dict(c) for c in O.decode_stream(pieces)] == [to_dict(c) for c in chunks]

    async def read() -> list[Any]:
        async def source() -> Any:
            for piece in pieces:
                yield piece

        return [chunk async for chunk in O.decode_stream(source())]

    assert [to_dict(c) for c in asyncio.run(read())] == [to_dict(c) for c in chunks]


def _response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "openai/gpt-oss-120b",
        "output": output,
    }


def test_reasoning_text_and_a_compaction_item_stream_as_their_blocks() -> None:
    reasoning = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "Think."}],
    }
    compaction = {"type": "compaction", "id": "cmp_1", "encrypted_content": "sealed"}
    final = _response([reasoning, compaction])
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**final, "status": "in_progress", "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**reasoning, "content": []},
        },
        {
            "type": "response.reasoning_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "Think.",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
        {"type": "response.output_item.added", "output_index": 1, "item": compaction},
        {"type": "response.output_item.done", "output_index": 1, "item": compaction},
        {"type": "response.completed", "response": final},
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    message = assembled(list(O.decode_stream(events)))
    assert message == to_dict(O.decode_response(final))
    thought, sealed = message["content"]
    assert (thought["text"], thought["provider"]) == ("Think.", "open_responses")
    block = CompactionBlock.model_validate(sealed)
    assert (block.encrypted_content, block.provider) == ("sealed", "open_responses")


def test_stream_errors_name_this_format() -> None:
    events, _ = H.stream_seed_at("open_responses", 0)
    with pytest.raises(StreamIncompleteError) as cut:
        list(O.decode_stream(copy.deepcopy(events[:3])))
    assert cut.value.provider == "open_responses"
    failing = [
        events[0],
        {"type": "error", "code": "server_error", "message": "boom", "sequence_number": 1},
    ]
    with pytest.raises(ConversionError) as raised:
        list(O.decode_stream(copy.deepcopy(failing)))
    assert raised.value.provider == "open_responses" and "boom" in str(raised.value)
    assert "openai_responses" not in str(raised.value)
