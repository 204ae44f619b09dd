"""``anthropic.Anthropic`` / ``AsyncAnthropic`` ``messages.create`` and
``messages.stream`` with chatschema.

The official client (built on ``httpx2``: its ``http_client`` is an ``httpx2`` client)
makes real calls over a mock transport serving recorded exchanges
(``tests/traffic/anthropic``): what it sends is what ``encode`` gave (the ``messages``
as the identical JSON text), and what it returns (``Message``, ``Stream`` /
``AsyncStream``, ``MessageStream`` / ``AsyncMessageStream``) decodes to what the
recorded bodies decode to; a stream assembles to what ``decode_response`` makes of the
SDK's own accumulation of it (``get_final_message()``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from anthropic import Anthropic, AsyncAnthropic, AsyncStream, Stream
from anthropic.lib.streaming import AsyncMessageStream, MessageStream
from anthropic.types import Message
from conftest import assembled

from chatschema import AssistantMessageChunk, Conversation, GenerationSettings, to_dict, user
from chatschema.providers import anthropic

from .conftest import HOST, MODES, Reply, Wire, as_sent, assert_body, exchange, names

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

FORMAT = "anthropic"
PATH = "/v1/messages"
RESPONSES = [
    "test_anthropic.test_anthropic_memory_tool.0",  # a client tool of Anthropic's, a call back
    "test_anthropic.test_anthropic_model_thinking_part_redacted.1",  # signed, redacted thinking
    "test_anthropic_mid_conversation_system.test_leading_cache_point_survives_the_ins_becb362d.0",
]
STREAMS = [
    "test_anthropic.test_anthropic_model_thinking_part_redacted_stream.0",  # thinking
    "test_tool_search.test_anthropic_native_tool_search_streaming.0",  # server and client tools
    "test_anthropic.test_request_stream_fallback_for_high_max_tokens.0",  # text
]


def sync_client(wire: Wire) -> Anthropic:
    """The official sync client, pointed at the wire."""
    return Anthropic(
        api_key="test", base_url=f"http://{HOST}", max_retries=0, http_client=wire.httpx2_client()
    )


def async_client(wire: Wire) -> AsyncAnthropic:
    """The official async client, pointed at the wire."""
    return AsyncAnthropic(
        api_key="test",
        base_url=f"http://{HOST}",
        max_retries=0,
        http_client=wire.httpx2_async_client(),
    )


def create(wire: Wire, mode: str, kwargs: dict[str, Any]) -> Any:
    """``messages.create(**kwargs)`` with the sync or the async client."""
    if mode == "sync":
        return sync_client(wire).messages.create(**kwargs)

    async def main() -> Any:
        async with async_client(wire) as client:
            return await client.messages.create(**kwargs)

    return asyncio.run(main())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(RESPONSES))
def test_create_sends_encode_and_its_reply_decodes(name: str, mode: str) -> None:
    recorded = exchange(FORMAT, name)
    kwargs = anthropic.encode(anthropic.decode_conversation(recorded["request"]))
    wire = Wire(Reply.of(recorded))

    message = create(wire, mode, kwargs)

    sent = wire.only()
    assert (sent.method, sent.path) == ("POST", PATH)
    assert_body(sent, kwargs, "messages")
    assert isinstance(message, Message)
    got = anthropic.decode_response(message)
    assert to_dict(got) == to_dict(anthropic.decode_response(recorded["response"]))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(STREAMS))
def test_create_stream_decodes_as_the_recorded_body(name: str, mode: str) -> None:
    """``messages.create(stream=True)``: the SDK's ``Stream`` / ``AsyncStream``."""
    recorded = exchange(FORMAT, name)
    kwargs = {
        **anthropic.encode(anthropic.decode_conversation(recorded["request"])),
        "stream": True,
    }
    wire = Wire(Reply.of(recorded))

    if mode == "sync":
        stream = sync_client(wire).messages.create(**kwargs)
        assert isinstance(stream, Stream)
        chunks = list(anthropic.decode_stream(stream))
    else:

        async def main() -> list[AssistantMessageChunk]:
            async with async_client(wire) as client:
                stream = await client.messages.create(**kwargs)
                assert isinstance(stream, AsyncStream)
                decoded = anthropic.decode_stream(stream)
                assert isinstance(decoded, AsyncGenerator)
                return [chunk async for chunk in decoded]

        chunks = asyncio.run(main())

    sent = wire.only()
    assert (sent.method, sent.path) == ("POST", PATH)
    assert_body(sent, kwargs, "messages")
    raw = list(anthropic.decode_stream([recorded["stream"]]))
    assert [to_dict(chunk) for chunk in chunks] == [to_dict(chunk) for chunk in raw]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(STREAMS))
def test_message_stream_decodes_to_its_final_message(name: str, mode: str) -> None:
    """``messages.stream(...)``: ``MessageStream`` / ``AsyncMessageStream`` give the same
    chunks (their extra ``text`` / ``input_json`` events add nothing), which assemble
    to the SDK's ``get_final_message()``."""
    recorded = exchange(FORMAT, name)
    kwargs = anthropic.encode(anthropic.decode_conversation(recorded["request"]))
    kwargs.pop("stream", None)  # `messages.stream` says it itself
    wire = Wire(Reply.of(recorded))

    if mode == "sync":
        with sync_client(wire).messages.stream(**kwargs) as stream:
            assert isinstance(stream, MessageStream)
            chunks = list(anthropic.decode_stream(stream))
            final: Message = stream.get_final_message()
    else:

        async def main() -> tuple[list[AssistantMessageChunk], Message]:
            async with async_client(wire) as client, client.messages.stream(**kwargs) as stream:
                assert isinstance(stream, AsyncMessageStream)
                chunks = [chunk async for chunk in anthropic.decode_stream(stream)]
                return chunks, await stream.get_final_message()

        chunks, final = asyncio.run(main())

    sent = wire.only()
    assert (sent.method, sent.path) == ("POST", PATH)
    assert_body(sent, {**kwargs, "stream": True}, "messages")
    raw = list(anthropic.decode_stream([recorded["stream"]]))
    assert [to_dict(chunk) for chunk in chunks] == [to_dict(chunk) for chunk in raw]
    assert assembled(chunks) == to_dict(anthropic.decode_response(final))


# ------------------------------------------------------------ keyword arguments

REPLY = "test_anthropic.test_extra_headers.0"
"""A plain recorded answer for the calls below."""


def _settings_conversation() -> Conversation:
    return Conversation(
        messages=[user("What is the capital of France?")],
        settings=GenerationSettings(model="claude-sonnet-4-5", max_output_tokens=1024, top_k=5),
    )


@pytest.mark.parametrize("mode", MODES)
def test_settings_model_and_limit_are_enough(mode: str) -> None:
    """With ``settings.model`` and ``settings.max_output_tokens``:
    ``messages.create(**encode(conversation))``."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    create(wire, mode, anthropic.encode(_settings_conversation()))
    body = wire.only().json
    assert (body["model"], body["max_tokens"], body["top_k"]) == ("claude-sonnet-4-5", 1024, 5)


@pytest.mark.parametrize("mode", MODES)
def test_without_settings_the_caller_names_model_and_limit(mode: str) -> None:
    """Without settings: ``create(model=..., max_tokens=..., **encode(...))``."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    kwargs = anthropic.encode([user("What is the capital of France?")])
    assert "model" not in kwargs and "max_tokens" not in kwargs
    create(wire, mode, {"model": "claude-sonnet-4-5", "max_tokens": 1024, **kwargs})
    want = {"model": "claude-sonnet-4-5", "max_tokens": 1024, **as_sent(kwargs)}
    assert wire.only().json == want


@pytest.mark.parametrize("mode", MODES)
def test_caller_keywords_win(mode: str) -> None:
    """With settings, ``{**encode(conversation), "model": ...}``: the caller's value is sent."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    kwargs = {
        **anthropic.encode(_settings_conversation()),
        "model": "claude-opus-4-1",
        "max_tokens": 64,
    }
    create(wire, mode, kwargs)
    body = wire.only().json
    assert (body["model"], body["max_tokens"], body["top_k"]) == ("claude-opus-4-1", 64, 5)


def test_a_keyword_given_twice_is_refused_before_sending() -> None:
    """``create(max_tokens=..., **encode(conversation))`` with the setting set is
    Python's TypeError, raised before any request: use the merge above."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    kwargs = anthropic.encode(_settings_conversation())
    with pytest.raises(TypeError, match="multiple values for keyword argument 'max_tokens'"):
        sync_client(wire).messages.create(max_tokens=64, **kwargs)
    assert wire.sent == []


# ------------------------------------------------------------ beta request keys

BETA = [
    "test_anthropic.test_anthropic_compaction_round_trip.0",  # `context_management`
    "test_anthropic.test_anthropic_mcp_servers.1",  # `mcp_servers`
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(BETA))
def test_beta_keys_go_through_the_beta_client(name: str, mode: str) -> None:
    """A conversation decoded from a request with beta keys keeps them (``extras``);
    ``messages.create`` has no keyword for them (``TypeError``, nothing sent), and
    ``client.beta.messages.create(**encode(conversation))`` sends exactly the body."""
    recorded = exchange(FORMAT, name)
    kwargs = anthropic.encode(anthropic.decode_conversation(recorded["request"]))
    wire = Wire(Reply.of(recorded))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        sync_client(wire).messages.create(**kwargs)
    assert wire.sent == []

    if mode == "sync":
        sync_client(wire).beta.messages.create(**kwargs)
    else:

        async def main() -> None:
            async with async_client(wire) as client:
                await client.beta.messages.create(**kwargs)

        asyncio.run(main())

    sent = wire.only()
    assert (sent.method, sent.path) == ("POST", PATH)
    assert_body(sent, kwargs, "messages")


@pytest.mark.parametrize("name", names(BETA))
def test_beta_message_decodes_as_the_recorded_body(name: str) -> None:
    recorded = exchange(FORMAT, name)
    kwargs = anthropic.encode(anthropic.decode_conversation(recorded["request"]))
    message = sync_client(Wire(Reply.of(recorded))).beta.messages.create(**kwargs)
    got = to_dict(anthropic.decode_response(message))
    assert got == to_dict(anthropic.decode_response(recorded["response"]))
