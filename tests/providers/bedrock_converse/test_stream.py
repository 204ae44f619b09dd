"""Bedrock Converse streams: recorded ``converse_stream`` events assemble to the response."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from typing import Any

import pytest
from conftest import assembled

from chatschema import ConversionError, to_dict
from chatschema.providers import bedrock_converse as codec
from providers.bedrock_converse.helpers import SIG, load, names

STREAMS = names("stream")


def _same_blobs(message: dict[str, Any]) -> dict[str, Any]:
    """A message without the marks of blobs that came as text (the one difference)."""
    for block in message.get("content") or []:
        if isinstance(block, dict) and block.get("extras") == {
            "bedrock_converse": {"blob_text": True}
        }:
            del block["extras"]
    return message


@pytest.mark.parametrize("name", STREAMS)
def test_recorded_streams_assemble_to_the_response(name: str) -> None:
    data = load(name)
    chunks = list(codec.decode_stream(copy.deepcopy(data["events"])))
    assert chunks[-1].chunk_position == "last"
    assert assembled(chunks) == to_dict(codec.decode_response(data["response"]))


@pytest.mark.parametrize("name", STREAMS)
def test_recorded_streams_as_boto3_yields_them(name: str) -> None:
    """Blobs as ``bytes``, as boto3's EventStream gives them; the same message."""
    data = load(name)
    events = [codec.boto3_form(event) for event in data["events"]]
    from_bytes = assembled(list(codec.decode_stream(events)))
    from_text = assembled(list(codec.decode_stream(data["events"])))
    assert from_bytes == _same_blobs(from_text)
    assert from_bytes == _same_blobs(
        to_dict(codec.decode_response(codec.boto3_form(data["response"])))
    )


@pytest.mark.parametrize("name", STREAMS)
def test_an_async_source_gives_the_same_chunks(name: str) -> None:
    events = load(name)["events"]

    async def source() -> AsyncIterator[Any]:
        for event in copy.deepcopy(events):
            yield event

    async def collect() -> list[Any]:
        return [chunk async for chunk in codec.decode_stream(source())]

    assert asyncio.run(collect()) == list(codec.decode_stream(copy.deepcopy(events)))


def test_the_converse_stream_result_dict_is_read_whole() -> None:
    events = load("stream_text")["events"]
    result = {"ResponseMetadata": {"RequestId": "req-9"}, "stream": iter(copy.deepcopy(events))}
    message = assembled(list(codec.decode_stream(result)))
    assert message["response_id"] == "req-9"
    assert message["response_metadata"]["bedrock_converse"]["ResponseMetadata"] == {
        "RequestId": "req-9"
    }


def _start() -> list[dict[str, Any]]:
    return [{"messageStart": {"role": "assistant"}}]


def _end(reason: str = "end_turn") -> list[dict[str, Any]]:
    return [
        {"messageStop": {"stopReason": reason}},
        {
            "metadata": {
                "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
                "metrics": {"latencyMs": 100},
            }
        },
    ]


def test_reasoning_signature_and_tool_input_fragments() -> None:
    events = [
        *_start(),
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"text": "Let me "}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"text": "think."}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"signature": SIG}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 1,
                "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 1,
                "delta": {"toolUse": {"input": '{"city": '}},
            }
        },
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '"Oslo"}'}}}},
        {"contentBlockStop": {"contentBlockIndex": 1}},
        *_end("tool_use"),
    ]
    chunks = list(codec.decode_stream(events))
    message = assembled(chunks)
    response = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "reasoningContent": {
                            "reasoningText": {"text": "Let me think.", "signature": SIG}
                        }
                    },
                    {
                        "toolUse": {
                            "toolUseId": "tooluse_1",
                            "name": "get_weather",
                            "input": {"city": "Oslo"},
                        }
                    },
                ],
            }
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        "metrics": {"latencyMs": 100},
    }
    assert message == to_dict(codec.decode_response(response))
    assert [call.arguments for chunk in chunks for call in chunk.tool_call_chunks] == [
        None,
        '{"city": ',
        '"Oslo"}',
    ]


def test_citations_stream_as_annotations() -> None:
    citation: dict[str, Any] = {
        "title": "Doc",
        "sourceContent": [{"text": "The grass is green."}],
        "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 20}},
    }
    events = [
        *_start(),
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Green."}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"citation": citation}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        *_end(),
    ]
    response: dict[str, Any] = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"citationsContent": {"content": [{"text": "Green."}], "citations": [citation]}}
                ],
            }
        },
        "stopReason": "end_turn",
        "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        "metrics": {"latencyMs": 100},
    }
    message = assembled(list(codec.decode_stream(events)))
    assert message == to_dict(codec.decode_response(response))
    assert message["content"][0]["annotations"][0]["cited_text"] == "The grass is green."
    # and the citation goes back to Converse as it came
    history = codec.encode([{"role": "user", "content": "q"}, codec.decode_response(response)])
    assert history["messages"][1]["content"] == response["output"]["message"]["content"]


def test_redacted_reasoning_in_pieces_is_one_blob() -> None:
    blob = b"EmwKAhgBEgy3va3pzix/LafPsn4a"
    events = [
        *_start(),
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"redactedContent": blob[:10]}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"redactedContent": blob[10:]}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 0}},
        *_end(),
    ]
    message = assembled(list(codec.decode_stream(events)))
    response = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [{"reasoningContent": {"redactedContent": blob}}],
            }
        },
        "stopReason": "end_turn",
        "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        "metrics": {"latencyMs": 100},
    }
    assert message == to_dict(codec.decode_response(response))


def test_unknown_deltas_are_kept_and_exceptions_raise() -> None:
    events = [
        *_start(),
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"newThing": {"x": 1}}}},
        *_end(),
    ]
    message = assembled(list(codec.decode_stream(events)))
    kept = message["response_metadata"]["bedrock_converse"]["unknown_deltas"]
    assert kept == {"0": {"index": 0, "delta": {"newThing": {"x": 1}}}}
    failing = [*_start(), {"throttlingException": {"message": "Too many requests"}}]
    with pytest.raises(ConversionError, match=r"throttlingException.*Too many requests"):
        list(codec.decode_stream(failing))


@pytest.mark.parametrize(
    "events",
    [
        [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}}}],
        [*_start(), *_start()],
        [*_start(), {"contentBlockStop": {"contentBlockIndex": 3}}],
        [*_start(), {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": 1}}}],
        [*_start(), {"contentBlockDelta": {"contentBlockIndex": -1, "delta": {"text": "x"}}}],
        [*_start(), {"messageStart": {"role": "assistant"}, "metadata": {}}],
        ["not an event"],
    ],
)
def test_malformed_streams_are_conversion_errors(events: list[Any]) -> None:
    with pytest.raises(ConversionError):
        list(codec.decode_stream(events))
