"""google-genai reads what ``gemini.encode_response`` and ``gemini.encode_stream`` write.

The official client (``google.genai.Client``) calls ``models.generate_content`` and
``models.generate_content_stream`` (and their ``client.aio`` twins) over an httpx
mock transport (:class:`~.conftest.Wire`) serving the body chatschema wrote: the
response JSON, or the ``?alt=sse`` bytes of ``encode_stream(..., sse=True)`` cut into
small pieces. What the client returns decodes to the message that was written.
google-genai has no accumulation of its own for ``generate_content_stream`` (each
item is one event's ``GenerateContentResponse``): the events are assembled with
``decode_stream`` and the chunk accumulator.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from conftest import assembled
from google import genai
from google.genai import types

from chatschema import AssistantMessage, AssistantMessageChunk, to_dict
from chatschema.providers import gemini

from .conftest import HOST, MODES, Reply, Wire, exchange, names

FORMAT = "gemini"
MODEL = "gemini-2.5-flash"
RECORDED = [
    "test_google.test_google_model_thinking_part_from_other_model.1",  # thoughts
    "test_tool_availability_portability.test_tool_availability_portability_matrix_R2-_12477688.0",
    "test_output.test_google_default_tools_use_validated_mode.0",
]
STREAMED = [
    "test_google.test_google_model_iter_stream.1",
    "test_google.test_google_streaming_tool_call_thought_signature.0",  # a signed call
    "test_structured_output.test_native_output_with_function_tools_stream.1",
]
BUILT = AssistantMessage.model_validate(
    {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "text": "Two cities.", "signature": "c2ln", "provider": "gemini"},
            {"type": "text", "text": "Checking both."},
        ],
        "tool_calls": [
            {"id": "call_1", "name": "get_weather", "arguments": {"city": "Zürich"}, "index": 2},
            {"id": "call_2", "name": "get_weather", "arguments": {"city": "Rome"}, "index": 3},
        ],
        "finish_reason": "tool_calls",
        "usage": {
            "input_tokens": 50,
            "output_tokens": 40,
            "total_tokens": 90,
            "output_token_details": {"reasoning": 10},
        },
        "model": MODEL,
        "response_id": "resp-1",
    }
)


def client(wire: Wire, mode: str) -> genai.Client:
    """The official client, pointed at the wire."""
    if mode == "sync":
        options = types.HttpOptions(base_url=f"http://{HOST}", httpx_client=wire.httpx_client())
    else:
        options = types.HttpOptions(
            base_url=f"http://{HOST}", httpx_async_client=wire.httpx_async_client()
        )
    return genai.Client(api_key="test", http_options=options)


def messages() -> list[Any]:
    """The messages written, by name: recorded responses (decoded when a test runs, so
    that an absent recording is a skipped test) and one built."""
    return [*(pytest.param(name, id=name[:50]) for name in RECORDED), "built"]


def message_of(name: str) -> AssistantMessage:
    """The message named by a :func:`messages` parameter."""
    if name == "built":
        return BUILT
    return gemini.decode_response(exchange(FORMAT, name)["response"])


def sdk_view(message: AssistantMessage) -> dict[str, Any]:
    """What the body written for ``message`` decodes to (the message itself, for a
    decoded one; with provider and raw finish reason, for one built) as google-genai's
    object of it decodes: the SDK keeps only the fields it models (3.6 drops
    ``createTime``, ``finishMessage`` and ``usageMetadata.serviceTier``)."""
    data = to_dict(gemini.decode_response(gemini.encode_response(message)))
    kept = data.get("response_metadata", {}).get("gemini", {})
    for key in ("create_time", "finish_message"):
        kept.pop(key, None)
    kept.get("usage_metadata", {}).pop("service_tier", None)
    return data


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", messages())
def test_generate_content_reads_encode_response(name: str, mode: str) -> None:
    message = message_of(name)
    body = gemini.encode_response(message)
    wire = Wire(Reply(json.dumps(body).encode(), "application/json"))
    if mode == "sync":
        response = client(wire, mode).models.generate_content(model=MODEL, contents="Hi")
    else:

        async def main() -> types.GenerateContentResponse:
            aio = client(wire, mode).aio
            return await aio.models.generate_content(model=MODEL, contents="Hi")

        response = asyncio.run(main())
    assert isinstance(response, types.GenerateContentResponse)
    assert wire.only().path.endswith(f"/models/{MODEL}:generateContent")
    assert to_dict(gemini.decode_response(response)) == sdk_view(message)


def _stream(wire: Wire, mode: str) -> list[types.GenerateContentResponse]:
    if mode == "sync":
        return list(client(wire, mode).models.generate_content_stream(model=MODEL, contents="Hi"))

    async def main() -> list[types.GenerateContentResponse]:
        stream = await client(wire, mode).aio.models.generate_content_stream(
            model=MODEL, contents="Hi"
        )
        return [event async for event in stream]

    return asyncio.run(main())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", messages())
def test_generate_content_stream_reads_encode_stream(name: str, mode: str) -> None:
    message = message_of(name)
    body = b"".join(gemini.encode_stream(message, sse=True))
    wire = Wire(Reply(body, "text/event-stream"))
    events = _stream(wire, mode)
    assert events and all(isinstance(e, types.GenerateContentResponse) for e in events)
    assert wire.only().query == "alt=sse"
    assert assembled(list(gemini.decode_stream(events))) == sdk_view(message)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(STREAMED))
def test_recorded_stream_rewritten_reads_the_same(name: str, mode: str) -> None:
    """A recorded stream's chunks, written again, as google-genai reads them."""
    recorded = exchange(FORMAT, name)["stream"]
    chunks = list(gemini.decode_stream([recorded]))
    written = b"".join(gemini.encode_stream(chunks, sse=True))
    events = _stream(Wire(Reply(written, "text/event-stream")), mode)
    original = _stream(Wire(Reply(recorded.encode(), "text/event-stream")), mode)
    got = assembled(list(gemini.decode_stream(events)))
    assert got == assembled(list(gemini.decode_stream(original)))
    assert events[-1].candidates is not None
    assert events[-1].candidates[0].finish_reason == original[-1].candidates[0].finish_reason


@pytest.mark.parametrize("mode", MODES)
def test_text_deltas_read_as_text(mode: str) -> None:
    chunks = [AssistantMessageChunk(content=piece) for piece in ("Hel", "lo ", "wörld")]
    chunks.append(AssistantMessageChunk(finish_reason="stop", chunk_position="last"))
    body = b"".join(gemini.encode_stream(chunks, sse=True))
    events = _stream(Wire(Reply(body, "text/event-stream")), mode)
    assert "".join(event.text or "" for event in events) == "Hello wörld"
    assert events[-1].candidates is not None
    assert events[-1].candidates[0].finish_reason == types.FinishReason.STOP
