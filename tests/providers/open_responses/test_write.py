"""The server side of Open Responses: ``encode_response`` and ``encode_stream``.

Oracles: the recorded answers of Open Responses servers (exact round trips, nulls
aside), the openai SDK's ``Response`` and ``ResponseStreamEvent`` types for the shared
wire object (``tests/oracle.py``), the OpenAPI document's ``ResponseResource`` and
streaming event schemas when its recording is present, and ``decode_stream``.
"""

from __future__ import annotations

import copy
from typing import Any

import hostile as H
import pytest
import recorded
from conftest import assembled
from openai.types.responses import ResponseStreamEvent
from oracle import validate_response
from pydantic import TypeAdapter

from chatschema import (
    AssistantMessage,
    CompactionBlock,
    ReasoningBlock,
    TextBlock,
    to_dict,
)
from chatschema.providers import open_responses as O

from .spec import shared_event, validate_component

RESPONSES = recorded.listing(H.PAYLOADS / "open_responses", "response_*.json")
EVENT = TypeAdapter(ResponseStreamEvent)
# The OpenAPI document's name of each streaming event's schema, by event type.
EVENT_SCHEMAS = {
    "response.created": "ResponseCreatedStreamingEvent",
    "response.in_progress": "ResponseInProgressStreamingEvent",
    "response.completed": "ResponseCompletedStreamingEvent",
    "response.output_item.added": "ResponseOutputItemAddedStreamingEvent",
    "response.output_item.done": "ResponseOutputItemDoneStreamingEvent",
    "response.content_part.added": "ResponseContentPartAddedStreamingEvent",
    "response.content_part.done": "ResponseContentPartDoneStreamingEvent",
    "response.output_text.delta": "ResponseOutputTextDeltaStreamingEvent",
    "response.output_text.done": "ResponseOutputTextDoneStreamingEvent",
    "response.reasoning.delta": "ResponseReasoningDeltaStreamingEvent",
    "response.reasoning.done": "ResponseReasoningDoneStreamingEvent",
    "response.reasoning_summary_part.added": "ResponseReasoningSummaryPartAddedStreamingEvent",
    "response.reasoning_summary_part.done": "ResponseReasoningSummaryPartDoneStreamingEvent",
    "response.reasoning_summary_text.delta": "ResponseReasoningSummaryDeltaStreamingEvent",
    "response.reasoning_summary_text.done": "ResponseReasoningSummaryDoneStreamingEvent",
    "response.refusal.delta": "ResponseRefusalDeltaStreamingEvent",
    "response.refusal.done": "ResponseRefusalDoneStreamingEvent",
    "response.incomplete": "ResponseIncompleteStreamingEvent",
    "response.failed": "ResponseFailedStreamingEvent",
    "response.function_call_arguments.delta": "ResponseFunctionCallArgumentsDeltaStreamingEvent",
    "response.function_call_arguments.done": "ResponseFunctionCallArgumentsDoneStreamingEvent",
}


def _no_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _no_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_no_nulls(item) for item in value]
    return value


@pytest.mark.parametrize("path", RESPONSES, ids=[p.name for p in RESPONSES])
def test_a_recorded_response_round_trips_exactly(path: Any) -> None:
    body = recorded.load(path)
    written = O.encode_response(O.decode_response(copy.deepcopy(body)))
    assert _no_nulls(written) == _no_nulls(body)  # (nulls and the body's key order aside)
    validate_response("open_responses", written)


@pytest.mark.parametrize("number", range(H.stream_seed_count("open_responses")))
def test_a_recorded_stream_is_written_again_as_the_same_message(number: int) -> None:
    events, _ = H.stream_seed_at("open_responses", number)
    [final] = [e["response"] for e in events if e["type"] == "response.completed"]
    message = O.decode_response(final)
    written = list(O.encode_stream(message, id_seed="s"))
    for event in written:
        EVENT.validate_python(shared_event(event))
    assert [e["sequence_number"] for e in written] == list(range(len(written)))
    assert assembled(list(O.decode_stream(written))) == to_dict(message)
    sse = b"".join(O.encode_stream(message, sse=True, id_seed="s"))
    assert assembled(list(O.decode_stream([sse]))) == to_dict(message)


HEADER = {"type": "message", "status": "completed"}


def _built() -> AssistantMessage:
    return AssistantMessage(
        content=[
            ReasoningBlock(text="Think.", summary=["S."], id="rs_1", provider="open_responses"),
            CompactionBlock(id="cmp_1", encrypted_content="sealed", provider="open_responses"),
            TextBlock(
                text="Done.",
                id="msg_1",
                extras={"open_responses": {"item": {**HEADER, "phase": "final_answer"}}},
            ),
        ],
        model="openai/gpt-oss-120b",
    )


def test_the_additions_are_written_in_the_specification_shapes() -> None:
    body = O.encode_response(_built(), id_seed="b", created=1)
    validate_response("open_responses", body)
    reasoning, compaction, message = body["output"]
    assert reasoning["content"] == [{"type": "reasoning_text", "text": "Think."}]
    assert reasoning["summary"] == [{"type": "summary_text", "text": "S."}]
    assert compaction == {"type": "compaction", "id": "cmp_1", "encrypted_content": "sealed"}
    assert message["phase"] == "final_answer"
    decoded = [
        {k: v for k, v in b.items() if k != "model"}
        for b in to_dict(O.decode_response(body))["content"]
    ]
    assert decoded == to_dict(_built())["content"]  # (decoding names the model on opaque blocks)
    events = list(O.encode_stream(_built(), id_seed="b", created=1))
    assert assembled(list(O.decode_stream(events))) == to_dict(O.decode_response(body))


def test_responses_and_events_are_of_the_openapi_document() -> None:
    validate_component("ResponseResource", O.encode_response(_built(), id_seed="b", created=1))
    for number in range(H.stream_seed_count("open_responses")):
        events, _ = H.stream_seed_at("open_responses", number)
        [final] = [e["response"] for e in events if e["type"] == "response.completed"]
        for event in O.encode_stream(O.decode_response(final), id_seed="s"):
            validate_component(EVENT_SCHEMAS[event["type"]], event)


def test_the_raw_reasoning_events_have_the_document_names() -> None:
    """``response.reasoning.delta`` / ``.done`` (the Responses API's ``reasoning_text``
    names are read too: LM Studio sends those)."""
    message = AssistantMessage(
        content=[ReasoningBlock(text="Think.", id="rs_1"), TextBlock(text="Done.", id="msg_1")],
        model="m",
    )
    events = list(O.encode_stream(message, id_seed="r", created=1))
    kinds = [e["type"] for e in events]
    assert "response.reasoning.delta" in kinds and "response.reasoning.done" in kinds
    assert not any(kind.startswith("response.reasoning_text.") for kind in kinds)
    for event in events:
        validate_component(EVENT_SCHEMAS[event["type"]], event)
    want = assembled(list(O.decode_stream(events)))
    assert "Think." in str(want["content"][0])
    renamed = [
        {**e, "type": e["type"].replace("response.reasoning.", "response.reasoning_text.")}
        for e in events
    ]
    assert assembled(list(O.decode_stream(renamed))) == want


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({"finish_reason": "stop"}, "completed"),
        ({"finish_reason": "length"}, "incomplete"),
        ({"finish_reason": "content_filter"}, "incomplete"),
        ({"finish_reason": "error"}, "failed"),
        ({"usage": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}}, "completed"),
        (
            {"tool_calls": [{"id": "call_1", "name": "f", "arguments": {"a": 1}}]},
            "completed",
        ),
    ],
)
def test_every_ending_is_a_document_response_and_stream(
    fields: dict[str, Any], status: str
) -> None:
    """Status, ``incomplete_details``, ``error`` (code and message), usage details and
    tool calls: the body and each event are of the document (null where unknown)."""
    message = AssistantMessage(content=[TextBlock(text="Hi.")], model="m", **fields)
    body = O.encode_response(message, id_seed="e", created=1)
    validate_component("ResponseResource", body)
    assert body["status"] == status
    assert body["background"] is False and body["instructions"] is None
    if status == "failed":
        assert set(body["error"]) >= {"code", "message"}
    events = list(O.encode_stream(message, id_seed="e", created=1))
    for event in events:
        validate_component(EVENT_SCHEMAS[event["type"]], event)
    assert events[-1]["type"] == f"response.{status}"
