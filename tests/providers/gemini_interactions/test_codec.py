"""The gemini_interactions codec: requests, responses, streams and the server side.

google-genai's interactions types are the oracle (``tests/oracle.py``); the payloads are
in ``tests/payloads/gemini_interactions`` (provenance in its README).
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import hostile as H
import pytest
from conftest import assembled
from oracle import validate_request, validate_response

from chatschema import ConversionError, StreamIncompleteError, to_dict
from chatschema.providers import PROVIDERS, convert, gemini_interactions
from chatschema.providers.gemini_interactions import (
    check,
    decode_conversation,
    decode_response,
    decode_stream,
    encode,
    encode_response,
    encode_stream,
)
from providers.gemini_interactions.seeds import (
    CALL_RESPONSE,
    SIGNATURE,
    interactions_requests,
    interactions_responses,
)

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
REQUESTS = interactions_requests(WEATHER)
PAYLOADS = H.PAYLOADS / "gemini_interactions"
STREAMS = sorted(PAYLOADS.glob("stream_*.json"))


@pytest.mark.parametrize("number", range(len(REQUESTS)))
def test_requests_round_trip_exactly_and_validate(number: int) -> None:
    request = REQUESTS[number]
    conversation = decode_conversation(copy.deepcopy(request))
    assert encode(conversation) == request
    validate_request("gemini_interactions", encode(conversation))


def test_input_steps_map_to_messages() -> None:
    conversation = decode_conversation(REQUESTS[0])
    roles = [message.role for message in conversation.messages]
    assert roles == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "tool",
    ]
    thought = conversation.messages[2].content[0]  # type: ignore[index]
    assert (thought.type, thought.signature, thought.text) == ("reasoning", SIGNATURE, "A tool.")
    assert conversation.settings is not None and conversation.settings.reasoning_effort == "low"
    assert conversation.tool_choice is not None and conversation.tool_choice.type == "auto"
    assert conversation.extras == {
        "gemini_interactions": {"generation_config": {"thinking_summaries": "auto"}, "store": True}
    }


def test_previous_interaction_id_lets_results_answer_stored_calls() -> None:
    conversation = decode_conversation(REQUESTS[1])
    assert conversation.extras["gemini_interactions"]["previous_interaction_id"] == "v1_previous"
    assert check(conversation) == []
    alone = conversation.model_copy(update={"extras": None})
    assert [p.keyword for p in check(alone)] == ["orphan_tool_result"]
    with pytest.raises(ConversionError, match="needs at least one input step"):
        encode({"messages": []})


def test_settings_the_api_has_no_key_for_are_located() -> None:
    problems = check({"messages": [{"role": "user", "content": "hi"}], "settings": {"top_k": 3}})
    assert [p.pointer for p in problems] == ["/settings/top_k"]


@pytest.mark.parametrize("number", range(4))
def test_responses_round_trip_exactly_and_validate(number: int) -> None:
    body = interactions_responses()[number]
    message = decode_response(copy.deepcopy(body))
    assert encode_response(message) == body
    validate_response("gemini_interactions", encode_response(message))


def test_a_response_reads_steps_after_the_echoed_input() -> None:
    message = decode_response(interactions_responses()[0])
    assert message.text == "Hi! How can I help?"
    assert message.finish_reason == "stop" and message.raw_finish_reason == "completed"
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens) == (3, 18)
    call = decode_response(CALL_RESPONSE)
    assert call.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments, c.index) for c in call.tool_calls] == [
        ("fc_1", "get_weather", {"city": "Oslo"}, 1)
    ]
    search = decode_response(interactions_responses()[3])
    assert [block.type for block in search.content] == ["non_standard", "non_standard", "text"]  # type: ignore[union-attr]


@pytest.mark.parametrize("path", STREAMS, ids=lambda path: path.stem)
def test_streams_assemble_to_the_response_sync_async_and_sse(path: Any) -> None:
    data = json.loads(path.read_text())
    want = to_dict(decode_response(data["response"]))
    assert assembled(list(decode_stream(data["events"]))) == want
    body = b"".join(
        b"event: " + e["event_type"].encode() + b"\ndata: " + json.dumps(e).encode() + b"\n\n"
        for e in data["events"]
    )
    pieces = [body[i : i + 7] for i in range(0, len(body), 7)]
    assert assembled(list(decode_stream(pieces))) == want

    async def run() -> list[Any]:
        async def source() -> Any:
            for event in data["events"]:
                yield event

        return [chunk async for chunk in decode_stream(source())]

    assert assembled(asyncio.run(run())) == want


def test_a_cut_stream_is_incomplete() -> None:
    events = json.loads(STREAMS[0].read_text())["events"][:-1]
    with pytest.raises(StreamIncompleteError):
        list(decode_stream(events))


def test_an_error_event_raises_with_its_message() -> None:
    events = [{"event_type": "error", "error": {"code": "429", "message": "slow down"}}]
    with pytest.raises(ConversionError, match="slow down"):
        list(decode_stream(events))


@pytest.mark.parametrize("number", range(4))
def test_encode_stream_reads_back_to_the_message(number: int) -> None:
    message = decode_response(interactions_responses()[number])
    events = list(encode_stream(message))
    for event in events:
        assert event["event_type"] in (
            "interaction.created",
            "step.start",
            "step.delta",
            "step.stop",
            "interaction.completed",
        )
    assert assembled(list(decode_stream(events))) == to_dict(message)
    sse = b"".join(encode_stream(message, sse=True))
    assert assembled(list(decode_stream([sse]))) == to_dict(message)


def test_thought_signatures_survive_convert_both_ways() -> None:
    history = {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "plan", "thought": True, "thought_signature": "U0lHMQ=="},
                    {
                        "function_call": {"id": "c1", "name": "w", "args": {"c": "O"}},
                        "thought_signature": "U0lHMg==",
                    },
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"function_response": {"id": "c1", "name": "w", "response": {"output": "-3"}}}
                ],
            },
            {"role": "model", "parts": [{"text": "Cold.", "thought_signature": "U0lHMw=="}]},
        ]
    }
    steps = convert(history, source="gemini", target="gemini_interactions")
    thoughts = [s for s in steps["input"] if s["type"] == "thought"]
    assert [t["signature"] for t in thoughts] == ["U0lHMQ==", "U0lHMg==", "U0lHMw=="]
    validate_request("gemini_interactions", steps)
    back = convert(steps, source="gemini_interactions", target="gemini")
    assert back["contents"] == history["contents"]
    assert convert(back, source="gemini", target="gemini_interactions") == steps


@pytest.mark.parametrize("target", [name for name in PROVIDERS if name != "gemini_interactions"])
def test_convert_to_every_format_succeeds_or_names_where(target: str) -> None:
    try:
        convert(REQUESTS[0], source="gemini_interactions", target=target)
    except ConversionError as error:
        assert error.problems and all(p.pointer.startswith("/") for p in error.problems)
    convert(REQUESTS[0], source="gemini_interactions", target=target, unsupported="drop")


def test_the_codec_is_registered() -> None:
    assert gemini_interactions.NAME == "gemini_interactions"


def test_string_content_chunks_stream_as_one_text_step() -> None:
    from chatschema import AssistantMessageChunk, merge_chunks

    chunks = [
        AssistantMessageChunk(model="gemini-3-pro", response_id="v1_abc"),
        AssistantMessageChunk(content="Hello "),
        AssistantMessageChunk(content="world"),
        AssistantMessageChunk(finish_reason="stop", chunk_position="last"),
    ]
    events = list(gemini_interactions.encode_stream(chunks))
    starts = [event for event in events if event["event_type"] == "step.start"]
    assert starts == [{"event_type": "step.start", "index": 0, "step": {"type": "model_output"}}]
    message = merge_chunks(list(gemini_interactions.decode_stream(events))).to_message()
    assert message.text == "Hello world"
