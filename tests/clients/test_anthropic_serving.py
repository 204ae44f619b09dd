"""The official ``anthropic`` client reads what ``encode_response`` / ``encode_stream`` write.

A :class:`Wire` (``httpx2`` mock transport: the SDK builds on ``httpx2``) serves the
bytes chatschema writes, in small pieces; the client, sync and async, reads them as
it reads the API: ``messages.create`` (whole, and with ``stream=True``) and
``messages.stream`` (the SDK's own accumulation, ``get_final_message()``), which ends
with the message written.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from anthropic import Anthropic, AsyncAnthropic
from anthropic.types import Message
from conftest import assembled

from chatschema import AssistantMessage, to_dict
from chatschema.providers import anthropic

from .conftest import HOST, MODES, Reply, Wire, exchange, names

MESSAGES = [
    "test_anthropic.test_anthropic_model_thinking_part_redacted.1",  # signed, redacted thinking
    "test_anthropic.test_anthropic_memory_tool.0",  # a client tool call
    "ellmer.anthropic-web-search.0",  # server tools, citations
]
KWARGS: dict[str, Any] = {
    "model": "claude-test",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hi"}],
}


def recorded_message(name: str) -> AssistantMessage:
    return anthropic.decode_response(exchange("anthropic", name)["response"])


def wire_of(message: AssistantMessage, *, stream: bool) -> Wire:
    if stream:
        body = b"".join(anthropic.encode_stream(message, sse=True))
        return Wire(Reply(body, "text/event-stream"))
    return Wire(Reply(json.dumps(anthropic.encode_response(message)).encode(), "application/json"))


def sync_client(wire: Wire) -> Anthropic:
    return Anthropic(
        api_key="x", base_url=f"http://{HOST}", max_retries=0, http_client=wire.httpx2_client()
    )


def async_client(wire: Wire) -> AsyncAnthropic:
    return AsyncAnthropic(
        api_key="x",
        base_url=f"http://{HOST}",
        max_retries=0,
        http_client=wire.httpx2_async_client(),
    )


def dumped(message: Any) -> Any:
    """An SDK message as JSON data without nulls (a ParsedMessage and a Message compare)."""
    return message.model_dump(mode="json", exclude_none=True)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(MESSAGES))
def test_create_reads_encode_response(name: str, mode: str) -> None:
    message = recorded_message(name)
    wire = wire_of(message, stream=False)
    if mode == "sync":
        got = sync_client(wire).messages.create(**KWARGS)
    else:

        async def main() -> Any:
            async with async_client(wire) as client:
                return await client.messages.create(**KWARGS)

        got = asyncio.run(main())
    assert isinstance(got, Message)
    assert to_dict(anthropic.decode_response(got)) == to_dict(message)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(MESSAGES))
def test_create_stream_reads_encode_stream(name: str, mode: str) -> None:
    message = recorded_message(name)
    wire = wire_of(message, stream=True)
    if mode == "sync":
        events = list(sync_client(wire).messages.create(**KWARGS, stream=True))
    else:

        async def main() -> list[Any]:
            async with async_client(wire) as client:
                stream = await client.messages.create(**KWARGS, stream=True)
                return [event async for event in stream]

        events = asyncio.run(main())
    assert assembled(list(anthropic.decode_stream(events))) == to_dict(message)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(MESSAGES))
def test_message_stream_accumulates_to_the_response(name: str, mode: str) -> None:
    message = recorded_message(name)
    wire = wire_of(message, stream=True)
    if mode == "sync":
        with sync_client(wire).messages.stream(**KWARGS) as stream:
            final = stream.get_final_message()
    else:

        async def main() -> Any:
            client = async_client(wire)
            async with client, client.messages.stream(**KWARGS) as stream:
                return await stream.get_final_message()

        final = asyncio.run(main())
    body = Message.model_validate(anthropic.encode_response(message))
    assert dumped(final) == dumped(body)
    assert to_dict(anthropic.decode_response(final)) == to_dict(message)
