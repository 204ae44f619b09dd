"""``openai.OpenAI`` / ``AsyncOpenAI`` ``chat.completions.create`` with chatschema.

The official client makes real calls over a mock transport serving recorded
exchanges (``tests/traffic/openai_chat``): what it sends is what ``encode`` gave (the
``messages`` as the identical JSON text), and what it returns (``ChatCompletion``,
``Stream`` / ``AsyncStream``) decodes to what the recorded bodies decode to; a stream
assembles to what ``decode_response`` makes of the SDK's own accumulation of it
(``chat.completions.stream(...).get_final_completion()``).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from conftest import assembled
from openai import AsyncOpenAI, AsyncStream, OpenAI, Stream
from openai.types.chat import ChatCompletion

from chatschema import AssistantMessageChunk, Conversation, GenerationSettings, to_dict, user
from chatschema.providers import openai_chat

from .conftest import HOST, MODES, Reply, Wire, as_sent, assert_body, exchange, names

FORMAT = "openai_chat"
PATH = "/v1/chat/completions"
RESPONSES = [
    "test_prefect.test_prefect_agent_with_model_retry.1",  # a tool loop: call, result, answer
    "test_dbos.test_dbos_agent_with_unserializable_deps_type.0",  # tools, a tool call back
    "test_openai.test_user_id.0",  # `n`, `user`: request keys kept in extras
]
STREAMS = [
    "test_openai.test_run_stream_sync_streams_real_model.0",  # a streamed tool call
    "test_crusoe.test_crusoe_model_streaming.0",  # streamed text
    "test_temporal.test_complex_agent_run.1",  # text after a tool result
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
    """``chat.completions.create(**kwargs)`` with the sync or the async client."""
    if mode == "sync":
        return sync_client(wire).chat.completions.create(**kwargs)

    async def main() -> Any:
        async with async_client(wire) as client:
            return await client.chat.completions.create(**kwargs)

    return asyncio.run(main())


def final_completion(wire: Wire, kwargs: dict[str, Any]) -> ChatCompletion:
    """The SDK's own accumulation of the streamed reply (its ``stream`` helper), as the
    ``ChatCompletion`` the same call without streaming would have returned.

    The helper's ``ParsedChatCompletion`` adds what no response carries: the parsed
    tool arguments (``function.parsed_arguments``), each tool call's stream ``index``
    and the message's ``parsed`` output; they are left out.
    """
    rest = {key: value for key, value in kwargs.items() if key != "stream"}
    with sync_client(wire).chat.completions.stream(**rest) as stream:
        final = stream.get_final_completion().model_dump()
    for choice in final["choices"]:
        choice["message"].pop("parsed", None)
        for call in choice["message"].get("tool_calls") or []:
            call.pop("index", None)
            call["function"].pop("parsed_arguments", None)
    return ChatCompletion.model_validate(final)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(RESPONSES))
def test_create_sends_encode_and_its_reply_decodes(name: str, mode: str) -> None:
    recorded = exchange(FORMAT, name)
    kwargs = openai_chat.encode(openai_chat.decode_conversation(recorded["request"]))
    wire = Wire(Reply.of(recorded))

    completion = create(wire, mode, kwargs)

    sent = wire.only()
    assert (sent.method, sent.path) == ("POST", PATH)
    assert_body(sent, kwargs, "messages")
    assert isinstance(completion, ChatCompletion)
    got = openai_chat.decode_response(completion)
    assert to_dict(got) == to_dict(openai_chat.decode_response(recorded["response"]))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(STREAMS))
def test_stream_decodes_as_the_recorded_body(name: str, mode: str) -> None:
    recorded = exchange(FORMAT, name)
    # a request decoded from a recording keeps its `stream` key: the caller's wins
    kwargs = {
        **openai_chat.encode(openai_chat.decode_conversation(recorded["request"])),
        "stream": True,
    }
    wire = Wire(Reply.of(recorded))

    if mode == "sync":
        stream = sync_client(wire).chat.completions.create(**kwargs)
        assert isinstance(stream, Stream)
        chunks = list(openai_chat.decode_stream(stream))
    else:

        async def main() -> list[AssistantMessageChunk]:
            async with async_client(wire) as client:
                stream = await client.chat.completions.create(**kwargs)
                assert isinstance(stream, AsyncStream)
                decoded = openai_chat.decode_stream(stream)
                assert isinstance(decoded, AsyncGenerator)
                return [chunk async for chunk in decoded]

        chunks = asyncio.run(main())

    sent = wire.only()
    assert (sent.method, sent.path) == ("POST", PATH)
    assert_body(sent, kwargs, "messages")
    raw = list(openai_chat.decode_stream([recorded["stream"]]))
    assert [to_dict(chunk) for chunk in chunks] == [to_dict(chunk) for chunk in raw]
    final = final_completion(wire, kwargs)
    assert assembled(chunks) == to_dict(openai_chat.decode_response(final))


# ------------------------------------------------------------ keyword arguments

REPLY = "test_openai.test_user_id.0"
"""A plain recorded answer for the calls below."""


def _settings_conversation() -> Conversation:
    return Conversation(
        messages=[user("What is the capital of France?")],
        settings=GenerationSettings(model="gpt-4.1-mini", temperature=0.2, seed=7),
    )


@pytest.mark.parametrize("mode", MODES)
def test_settings_model_is_enough(mode: str) -> None:
    """With ``settings.model``: ``create(**encode(conversation))``."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    kwargs = openai_chat.encode(_settings_conversation())
    create(wire, mode, kwargs)
    body = wire.only().json
    assert (body["model"], body["temperature"], body["seed"]) == ("gpt-4.1-mini", 0.2, 7)


@pytest.mark.parametrize("mode", MODES)
def test_without_settings_the_caller_names_the_model(mode: str) -> None:
    """Without settings ``encode`` sends no ``model``: ``create(model=..., **encode(...))``."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    kwargs = openai_chat.encode([user("What is the capital of France?")])
    assert "model" not in kwargs
    create(wire, mode, {"model": "gpt-4.1-mini", **kwargs})
    assert wire.only().json == {"model": "gpt-4.1-mini", **as_sent(kwargs)}


@pytest.mark.parametrize("mode", MODES)
def test_caller_keywords_win(mode: str) -> None:
    """With settings, ``{**encode(conversation), "model": ...}``: the caller's value is sent."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    create(
        wire, mode, {**openai_chat.encode(_settings_conversation()), "model": "gpt-5", "seed": 1}
    )
    body = wire.only().json
    assert (body["model"], body["seed"], body["temperature"]) == ("gpt-5", 1, 0.2)


def test_a_keyword_given_twice_is_refused_before_sending() -> None:
    """``create(model=..., **encode(conversation))`` with ``settings.model`` set is
    Python's TypeError, raised before any request: use the merge above."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    client = sync_client(wire)
    kwargs = openai_chat.encode(_settings_conversation())
    with pytest.raises(TypeError, match="multiple values for keyword argument 'model'"):
        client.chat.completions.create(model="gpt-5", **kwargs)
    assert wire.sent == []


# ---------------------------------------------- keys the SDK has no keyword for

COMPATIBLE = [
    "test_snowflake.test_snowflake_thinking_streaming.0",  # Snowflake Cortex: `reasoning`
    "test_zai.test_zai_thinking_stream.0",  # Z.ai: `thinking`
]


def sdk_kwargs(create: Any, request: dict[str, Any]) -> dict[str, Any]:
    """The adapter of docs/clients.md: the request keys ``create`` takes as keywords,
    and every other one (an OpenAI-compatible server's own) in ``extra_body``."""
    known = inspect.signature(create).parameters
    extra = {key: value for key, value in request.items() if key not in known}
    return {key: value for key, value in request.items() if key in known} | {"extra_body": extra}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(COMPATIBLE))
def test_server_specific_keys_go_in_extra_body(name: str, mode: str) -> None:
    """A conversation decoded from another server's request keeps that server's keys
    (``extras["openai_chat"]``); the SDK refuses them as keywords, ``extra_body``
    sends them, and the body on the wire is still exactly what ``encode`` gave."""
    recorded = exchange(FORMAT, name)
    request = {
        **openai_chat.encode(openai_chat.decode_conversation(recorded["request"])),
        "stream": True,
    }
    wire = Wire(Reply.of(recorded))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        sync_client(wire).chat.completions.create(**request)

    if mode == "sync":
        client = sync_client(wire)
        chunks = list(
            openai_chat.decode_stream(
                client.chat.completions.create(
                    **sdk_kwargs(client.chat.completions.create, request)
                )
            )
        )
    else:

        async def main() -> list[AssistantMessageChunk]:
            async with async_client(wire) as client:
                kwargs = sdk_kwargs(client.chat.completions.create, request)
                stream = await client.chat.completions.create(**kwargs)
                return [chunk async for chunk in openai_chat.decode_stream(stream)]

        chunks = asyncio.run(main())

    sent = wire.only()
    assert_body(sent, request, "messages")
    raw = list(openai_chat.decode_stream([recorded["stream"]]))
    assert [to_dict(chunk) for chunk in chunks] == [to_dict(chunk) for chunk in raw]


@pytest.mark.parametrize("mode", MODES)
def test_an_httpx_client_is_taken_too(mode: str) -> None:
    """openai builds on ``httpx2`` and still takes a legacy ``httpx`` client (its type
    hints say ``httpx2``): the same body goes out, the same reply comes back."""
    recorded = exchange(FORMAT, REPLY)
    kwargs = openai_chat.encode(openai_chat.decode_conversation(recorded["request"]))
    wire = Wire(Reply.of(recorded))
    url = f"http://{HOST}/v1"
    if mode == "sync":
        client = OpenAI(api_key="test", base_url=url, http_client=wire.httpx_client())  # type: ignore[arg-type]
        completion = client.chat.completions.create(**kwargs)
    else:

        async def main() -> ChatCompletion:
            http = wire.httpx_async_client()
            async with AsyncOpenAI(api_key="test", base_url=url, http_client=http) as client:  # type: ignore[arg-type]
                reply: ChatCompletion = await client.chat.completions.create(**kwargs)
                return reply

        completion = asyncio.run(main())
    assert_body(wire.only(), kwargs, "messages")
    got = openai_chat.decode_response(completion)
    assert to_dict(got) == to_dict(openai_chat.decode_response(recorded["response"]))


# ------------------------------------------------- the SDK's `stream` helper


@pytest.mark.parametrize("name", names(STREAMS[:1]))
def test_the_stream_helper_decodes_like_create(name: str) -> None:
    """``with client.chat.completions.stream(...) as stream``: the same chunks as the
    ``Stream`` of ``create(stream=True)``."""
    recorded = exchange(FORMAT, name)
    kwargs = openai_chat.encode(openai_chat.decode_conversation(recorded["request"]))
    kwargs.pop("stream", None)  # the helper says it itself
    with sync_client(Wire(Reply.of(recorded))).chat.completions.stream(**kwargs) as stream:
        chunks = list(openai_chat.decode_stream(stream))
    raw = list(openai_chat.decode_stream([recorded["stream"]]))
    assert [to_dict(chunk) for chunk in chunks] == [to_dict(chunk) for chunk in raw]
