"""The official ``openai`` client reads what ``encode_response`` / ``encode_stream`` serve.

A mock transport (``Wire``, no network) serves the bytes chatschema writes: the
client's ``responses.create`` (streamed and not) and ``responses.stream`` with its
own accumulation (``get_final_response``) end with the message that was served.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from conftest import assembled
from openai import AsyncOpenAI, OpenAI

from chatschema import AssistantMessage, ReasoningBlock, TextBlock, ToolCall, Usage, to_dict
from chatschema.providers import openai_responses as R

from .conftest import HOST, MODES, Reply, Wire, exchange

RECORDED = "test_openai_responses.test_openai_responses_reasoning_generate_summary.0"
"""A recorded response (read when a test runs: absent, the test is skipped)."""
BUILT = AssistantMessage(
    content=[
        ReasoningBlock(id="rs_1", summary=["Plan."], encrypted_content="gAAAA-x"),
        TextBlock(text="Calling the tool."),
    ],
    tool_calls=[ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})],
    usage=Usage(input_tokens=10, output_tokens=5, total_tokens=15),
    model="gpt-5",
)
MESSAGES = ("recorded_reasoning", "built")


def message_of(name: str) -> AssistantMessage:
    """The message written by the tests named ``name``."""
    if name == "built":
        return BUILT
    return R.decode_response(exchange("openai_responses", RECORDED)["response"])


KWARGS: dict[str, Any] = {"model": "gpt-5", "input": "hi"}


def streamed(message: AssistantMessage) -> Wire:
    body = b"".join(R.encode_stream(message, sse=True, id_seed=1, created=1_700_000_000))
    return Wire(Reply(body, "text/event-stream"))


def whole(message: AssistantMessage) -> Wire:
    body = R.encode_response(message, id_seed=1, created=1_700_000_000)
    return Wire(Reply(json.dumps(body).encode(), "application/json"))


def served(message: AssistantMessage) -> dict[str, Any]:
    """What decode_response makes of the body served (the ids made in it)."""
    return to_dict(R.decode_response(R.encode_response(message, id_seed=1, created=1_700_000_000)))


def client(wire: Wire) -> OpenAI:
    return OpenAI(api_key="x", base_url=f"http://{HOST}/v1", http_client=wire.httpx2_client())


def aclient(wire: Wire) -> AsyncOpenAI:
    return AsyncOpenAI(
        api_key="x", base_url=f"http://{HOST}/v1", http_client=wire.httpx2_async_client()
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MESSAGES))
def test_client_reads_a_served_response(name: str, mode: str) -> None:
    message = message_of(name)
    wire = whole(message)
    if mode == "sync":
        response = client(wire).responses.create(**KWARGS)
    else:

        async def main() -> Any:
            async with aclient(wire) as c:
                return await c.responses.create(**KWARGS)

        response = asyncio.run(main())
    assert _plain(to_dict(R.decode_response(response))) == _plain(served(message))
    assert wire.only().path == "/v1/responses"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MESSAGES))
def test_client_reads_a_served_stream(name: str, mode: str) -> None:
    message = message_of(name)
    wire = streamed(message)
    if mode == "sync":
        events = list(client(wire).responses.create(**KWARGS, stream=True))
    else:

        async def main() -> list[Any]:
            async with aclient(wire) as c:
                return [event async for event in await c.responses.create(**KWARGS, stream=True)]

        events = asyncio.run(main())
    assert events[-1].type == "response.completed"
    assert _plain(assembled(list(R.decode_stream(events)))) == _plain(served(message))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MESSAGES))
def test_client_stream_helper_accumulates_the_message(name: str, mode: str) -> None:
    message = message_of(name)
    wire = streamed(message)
    if mode == "sync":
        with client(wire).responses.stream(**KWARGS) as stream:
            texts = [e.delta for e in stream if e.type == "response.output_text.delta"]
            final = stream.get_final_response()
    else:

        async def main() -> tuple[list[str], Any]:
            async with aclient(wire) as c, c.responses.stream(**KWARGS) as stream:
                texts = [e.delta async for e in stream if e.type == "response.output_text.delta"]
                return texts, await stream.get_final_response()

        texts, final = asyncio.run(main())
    assert "".join(texts) == final.output_text
    decoded = to_dict(R.decode_response(final))
    assert _plain(decoded) == _plain(served(message))


def _plain(message: dict[str, Any]) -> dict[str, Any]:
    """A message without ``created_at`` (the SDK makes it a float)."""
    metadata = message.get("response_metadata", {}).get("openai_responses", {})
    metadata.pop("created_at", None)
    return message
