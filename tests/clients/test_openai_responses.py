"""``openai.OpenAI`` / ``AsyncOpenAI`` ``responses.create`` with chatschema.

The official client makes real calls over a mock transport serving recorded
exchanges (``tests/traffic/openai_responses``): what it sends is what ``encode`` gave
(the ``input`` as the identical JSON text), and what it returns (``Response``,
``Stream`` / ``AsyncStream`` of events) decodes to what the recorded bodies decode to;
a stream assembles to what ``decode_response`` makes of the complete response its
``response.completed`` event carries.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from conftest import assembled
from openai import AsyncOpenAI, AsyncStream, OpenAI, Stream
from openai.types.responses import Response, ResponseCompletedEvent

from chatschema import AssistantMessageChunk, Conversation, GenerationSettings, to_dict, user
from chatschema.providers import openai_responses

from .conftest import (
    HOST,
    MODES,
    Reply,
    Wire,
    as_sent,
    assert_body,
    exchange,
    names,
    sse_events,
    without_nulls,
)

FORMAT = "openai_responses"
PATH = "/v1/responses"
RESPONSES = [
    "test_openai_responses.test_openai_responses_reasoning_generate_summary.0",  # reasoning
    "test_tool_choice_matrix.test_tool_choice_matrix_list_single-openai_responses.0",  # tools
    "test_openai.test_openai_instructions_with_responses_logprobs.0",  # instructions, include
]
STREAMS = [
    "test_deepseek_responses.test_deepseek_responses_function_tool_stream.1",  # tool loop
    "test_openai.test_openai_instructions_with_responses_logprobs_streaming.0",  # text
    "test_openai_responses.test_openai_responses_model_file_search_tool_stream.3",  # hosted tool
]


def sync_client(wire: Wire) -> OpenAI:
    """The official sync client, pointed at the wire (openai builds on ``httpx2``)."""
    return OpenAI(
        api_key="test",
        base_url=f"http://{HOST}/v1",
        max_retries=0,
        http_client=wire.httpx2_client(),
    )


def async_client(wire: Wire) -> AsyncOpenAI:
    """The official async client, pointed at the wire."""
    return AsyncOpenAI(
        api_key="test",
        base_url=f"http://{HOST}/v1",
        max_retries=0,
        http_client=wire.httpx2_async_client(),
    )


def create(wire: Wire, mode: str, kwargs: dict[str, Any]) -> Any:
    """``responses.create(**kwargs)`` with the sync or the async client."""
    if mode == "sync":
        return sync_client(wire).responses.create(**kwargs)

    async def main() -> Any:
        async with async_client(wire) as client:
            return await client.responses.create(**kwargs)

    return asyncio.run(main())


def completed(wire: Wire, kwargs: dict[str, Any]) -> Response:
    """The complete response the stream's ``response.completed`` event carries, as
    the official client reads it (its ``Response``)."""
    for event in sync_client(wire).responses.create(**kwargs):
        if isinstance(event, ResponseCompletedEvent):
            return event.response
    raise AssertionError("the recorded stream has no response.completed event")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(RESPONSES))
def test_create_sends_encode_and_its_reply_decodes(name: str, mode: str) -> None:
    recorded = exchange(FORMAT, name)
    kwargs = openai_responses.encode(openai_responses.decode_conversation(recorded["request"]))
    wire = Wire(Reply.of(recorded))

    response = create(wire, mode, kwargs)

    sent = wire.only()
    assert (sent.method, sent.path) == ("POST", PATH)
    assert_body(sent, kwargs, "input")
    assert isinstance(response, Response)
    got = openai_responses.decode_response(response)
    assert to_dict(got) == to_dict(openai_responses.decode_response(recorded["response"]))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(STREAMS))
def test_stream_decodes_as_the_recorded_body(name: str, mode: str) -> None:
    recorded = exchange(FORMAT, name)
    request = openai_responses.decode_conversation(recorded["request"])
    kwargs = {**openai_responses.encode(request), "stream": True}
    wire = Wire(Reply.of(recorded))

    if mode == "sync":
        stream = sync_client(wire).responses.create(**kwargs)
        assert isinstance(stream, Stream)
        chunks = list(openai_responses.decode_stream(stream))
    else:

        async def main() -> list[AssistantMessageChunk]:
            async with async_client(wire) as client:
                stream = await client.responses.create(**kwargs)
                assert isinstance(stream, AsyncStream)
                decoded = openai_responses.decode_stream(stream)
                assert isinstance(decoded, AsyncGenerator)
                return [chunk async for chunk in decoded]

        chunks = asyncio.run(main())

    sent = wire.only()
    assert (sent.method, sent.path) == ("POST", PATH)
    assert_body(sent, kwargs, "input")
    # SDK objects are read without their null members (a hosted tool's `"results": null`)
    raw = list(openai_responses.decode_stream(without_nulls(sse_events(recorded["stream"]))))
    assert [to_dict(chunk) for chunk in chunks] == [to_dict(chunk) for chunk in raw]
    final = completed(wire, kwargs)
    assert assembled(chunks) == to_dict(openai_responses.decode_response(final))


# ------------------------------------------------------------ keyword arguments

REPLY = "test_openai.test_openai_instructions_with_responses_logprobs.0"
"""A plain recorded answer for the calls below."""


def _settings_conversation() -> Conversation:
    return Conversation(
        messages=[user("What is the capital of France?")],
        settings=GenerationSettings(
            model="gpt-5-mini", max_output_tokens=256, reasoning_effort="low"
        ),
    )


@pytest.mark.parametrize("mode", MODES)
def test_settings_model_is_enough(mode: str) -> None:
    """With ``settings.model``: ``create(**encode(conversation))``."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    create(wire, mode, openai_responses.encode(_settings_conversation()))
    body = wire.only().json
    assert (body["model"], body["max_output_tokens"]) == ("gpt-5-mini", 256)
    assert body["reasoning"] == {"effort": "low"}


@pytest.mark.parametrize("mode", MODES)
def test_without_settings_the_caller_names_the_model(mode: str) -> None:
    """Without settings ``encode`` sends no ``model``: ``create(model=..., **encode(...))``."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    kwargs = openai_responses.encode([user("What is the capital of France?")])
    assert "model" not in kwargs
    create(wire, mode, {"model": "gpt-5-mini", **kwargs})
    assert wire.only().json == {"model": "gpt-5-mini", **as_sent(kwargs)}


@pytest.mark.parametrize("mode", MODES)
def test_caller_keywords_win(mode: str) -> None:
    """With settings, ``{**encode(conversation), "model": ...}``: the caller's value is sent."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    kwargs = {**openai_responses.encode(_settings_conversation()), "model": "gpt-5", "store": False}
    create(wire, mode, kwargs)
    body = wire.only().json
    assert (body["model"], body["store"], body["max_output_tokens"]) == ("gpt-5", False, 256)


def test_a_keyword_given_twice_is_refused_before_sending() -> None:
    """``create(model=..., **encode(conversation))`` with ``settings.model`` set is
    Python's TypeError, raised before any request: use the merge above."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    kwargs = openai_responses.encode(_settings_conversation())
    with pytest.raises(TypeError, match="multiple values for keyword argument 'model'"):
        sync_client(wire).responses.create(model="gpt-5", **kwargs)
    assert wire.sent == []


# ------------------------------------------------- the SDK's `stream` helper


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(STREAMS))
def test_the_stream_helper_decodes_like_create(name: str, mode: str) -> None:
    """``with client.responses.stream(...) as stream`` (``ResponseStream`` /
    ``AsyncResponseStream``): the same chunks as ``create(stream=True)``'s ``Stream``."""
    recorded = exchange(FORMAT, name)
    kwargs = openai_responses.encode(openai_responses.decode_conversation(recorded["request"]))
    kwargs.pop("stream", None)  # the helper says it itself
    wire = Wire(Reply.of(recorded))
    if mode == "sync":
        with sync_client(wire).responses.stream(**kwargs) as stream:
            chunks = list(openai_responses.decode_stream(stream))
    else:

        async def main() -> list[AssistantMessageChunk]:
            async with async_client(wire) as client, client.responses.stream(**kwargs) as stream:
                return [chunk async for chunk in openai_responses.decode_stream(stream)]

        chunks = asyncio.run(main())
    assert_body(wire.only(), {**kwargs, "stream": True}, "input")
    raw = list(openai_responses.decode_stream(without_nulls(sse_events(recorded["stream"]))))
    assert [to_dict(chunk) for chunk in chunks] == [to_dict(chunk) for chunk in raw]


def test_the_stream_helper_decodes_without_warnings() -> None:
    recorded = exchange(FORMAT, STREAMS[1])
    kwargs = openai_responses.encode(openai_responses.decode_conversation(recorded["request"]))
    kwargs.pop("stream", None)
    client = sync_client(Wire(Reply.of(recorded)))
    with client.responses.stream(**kwargs) as stream, warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        chunks = list(openai_responses.decode_stream(stream))
    assert chunks
    assert [str(warning.message) for warning in seen] == []
