"""The official ``openai`` client reads what ``encode_response`` / ``encode_stream`` serve.

A mock transport (``httpx.MockTransport``: openai still takes an ``httpx`` client)
answers ``chat.completions.create`` with ``encode_response(message)`` as JSON, or
``encode_stream(message, sse=True)`` as an event stream served in small pieces; the
client's ``ChatCompletion``, its ``Stream`` / ``AsyncStream`` chunks and its own
accumulation (``chat.completions.stream(...).get_final_completion()``) all give the
message back.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from conftest import assembled
from openai import AsyncOpenAI, OpenAI
from openai.types.chat import ChatCompletion

from chatschema import AssistantMessage, AssistantMessageChunk, to_dict
from chatschema.providers import openai_chat

from .conftest import HOST, MODES, PIECE, exchange

KWARGS: dict[str, Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}
MESSAGES = {
    "text": "test_openai.test_user_id.0",
    "tool-calls": "test_dbos.test_dbos_agent_with_unserializable_deps_type.0",
    "reasoning": None,
}
REASONING: dict[str, Any] = {
    "role": "assistant",
    "content": [
        {"type": "reasoning", "text": "Roll a die.", "provider": "openai_chat"},
        {"type": "text", "text": "Rolling."},
    ],
    "tool_calls": [{"id": "call_1", "name": "roll", "arguments": {"sides": 6}, "index": 0}],
    "model": "deepseek-v4-flash",
    "provider": "openai_chat",
    "response_id": "chatcmpl-1",
    "finish_reason": "tool_calls",
    "raw_finish_reason": "tool_calls",
    "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    "response_metadata": {"openai_chat": {"created": 1700000000}},
}
"""A DeepSeek-style reply: reasoning_content, text and a tool call."""


def message_of(name: str) -> AssistantMessage:
    """A recorded reply, decoded (or the reasoning one)."""
    recorded = MESSAGES[name]
    if recorded is None:
        return AssistantMessage.model_validate(REASONING)
    return openai_chat.decode_response(exchange("openai_chat", recorded)["response"])


class Served:
    """A server answering every request with one body (JSON, or SSE in pieces)."""

    def __init__(self, body: bytes, streamed: bool) -> None:
        self.body = body
        self.streamed = streamed
        self.requests: list[Any] = []

    def _pieces(self) -> Iterator[bytes]:
        size = PIECE if self.streamed else len(self.body)
        for start in range(0, len(self.body), size):
            yield self.body[start : start + size]

    async def _apieces(self) -> AsyncIterator[bytes]:
        for piece in self._pieces():
            yield piece

    def _headers(self) -> dict[str, str]:
        kind = "text/event-stream" if self.streamed else "application/json"
        return {"content-type": kind}

    def client(self) -> OpenAI:
        """The sync client, served by this body."""

        def handle(request: httpx.Request) -> httpx.Response:
            assert request.url.host == HOST
            self.requests.append(json.loads(request.read()))
            return httpx.Response(200, headers=self._headers(), content=self._pieces())

        http = httpx.Client(transport=httpx.MockTransport(handle))
        return OpenAI(api_key="x", base_url=f"http://{HOST}/v1", http_client=http)  # type: ignore[arg-type]

    def async_client(self) -> AsyncOpenAI:
        """The async client, served by this body."""

        async def handle(request: httpx.Request) -> httpx.Response:
            assert request.url.host == HOST
            self.requests.append(json.loads(await request.aread()))
            return httpx.Response(200, headers=self._headers(), content=self._apieces())

        http = httpx.AsyncClient(transport=httpx.MockTransport(handle))
        return AsyncOpenAI(api_key="x", base_url=f"http://{HOST}/v1", http_client=http)  # type: ignore[arg-type]


def sse(message: AssistantMessage) -> Served:
    """The message served as its event stream."""
    return Served(b"".join(openai_chat.encode_stream(message, sse=True)), True)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MESSAGES))
def test_create_reads_the_response(name: str, mode: str) -> None:
    message = message_of(name)
    served = Served(json.dumps(openai_chat.encode_response(message)).encode(), False)
    if mode == "sync":
        completion = served.client().chat.completions.create(**KWARGS)
    else:

        async def main() -> ChatCompletion:
            async with served.async_client() as client:
                reply: ChatCompletion = await client.chat.completions.create(**KWARGS)
                return reply

        completion = asyncio.run(main())
    assert isinstance(completion, ChatCompletion)
    assert to_dict(openai_chat.decode_response(completion)) == to_dict(message)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MESSAGES))
def test_create_stream_reads_the_events(name: str, mode: str) -> None:
    message = message_of(name)
    served = sse(message)
    if mode == "sync":
        stream = served.client().chat.completions.create(**KWARGS, stream=True)
        chunks = list(openai_chat.decode_stream(stream))
    else:

        async def main() -> list[AssistantMessageChunk]:
            async with served.async_client() as client:
                stream = await client.chat.completions.create(**KWARGS, stream=True)
                return [chunk async for chunk in openai_chat.decode_stream(stream)]

        chunks = asyncio.run(main())
    assert served.requests[0]["stream"] is True
    assert assembled(chunks) == to_dict(message)


def _final(completion: Any) -> ChatCompletion:
    """The helper's ``ParsedChatCompletion`` as a ``ChatCompletion`` (its parsed output,
    and each tool call's stream ``index``, left out: no response carries them)."""
    final = completion.model_dump(exclude_unset=True)
    for choice in final["choices"]:
        choice["message"].pop("parsed", None)
        for call in choice["message"].get("tool_calls") or []:
            call.pop("index", None)
            call["function"].pop("parsed_arguments", None)
    return ChatCompletion.model_validate(final)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MESSAGES))
def test_the_sdks_accumulation_gives_the_message(name: str, mode: str) -> None:
    """``chat.completions.stream(...).get_final_completion()`` of the served events is
    the message ``encode_response`` writes whole (the SDK keeps what it types)."""
    message = message_of(name)
    served = sse(message)
    if mode == "sync":
        with served.client().chat.completions.stream(**KWARGS) as stream:
            final = _final(stream.get_final_completion())
    else:

        async def main() -> ChatCompletion:
            async with (
                served.async_client() as client,
                client.chat.completions.stream(**KWARGS) as stream,
            ):
                return _final(await stream.get_final_completion())

        final = asyncio.run(main())
    got = openai_chat.decode_response(final)
    want = openai_chat.decode_response(
        ChatCompletion.model_validate(openai_chat.encode_response(message))
    )
    # The SDK's accumulation types what it knows: DeepSeek's reasoning_content and
    # the usage it does not declare come through as they came, nothing else differs.
    assert to_dict(got).get("content") == to_dict(want).get("content")
    assert got.tool_calls == want.tool_calls
    assert (got.finish_reason, got.response_id, got.model) == (
        want.finish_reason,
        want.response_id,
        want.model,
    )
    assert got.usage == want.usage
