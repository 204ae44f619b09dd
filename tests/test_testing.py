"""``chatschema.testing.FakeProvider``: every official client against it, over real HTTP.

The server runs on 127.0.0.1 (uvicorn, a thread for ``with``, the running loop for
``async with``); the ``no_network`` guard of ``tests/clients/conftest.py`` makes any
connection elsewhere fail the test. Each client call is checked both ways: what the
client returned decodes to the scripted message, and what the server received
(``fake.requests``) decodes to the conversation sent.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from typing import Any

import anthropic as anthropic_sdk
import botocore.session
import httpx
import openai
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError as BotoClientError
from clients.conftest import no_network
from google import genai
from google.genai import errors as genai_errors

from chatschema import (
    AssistantMessage,
    Conversation,
    GenerationSettings,
    ToolDefinition,
    Usage,
    assistant,
    merge_chunks,
    to_dict,
    tool_call,
    tool_result,
    user,
)
from chatschema.providers import (
    HTTP_PROVIDERS,
    anthropic,
    bedrock_converse,
    gemini,
    gemini_interactions,
    get_http_codec,
    mistral,
    openai_chat,
    openai_responses,
)
from chatschema.providers.gemini import genai_kwargs
from chatschema.testing import FakeError, FakeProvider, FakeRequest, split_message

__all__ = ["no_network"]  # the autouse guard, imported to apply here

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
TIMEOUT = 10
"""Seconds any client waits for an answer: every test is bounded in time."""

MODELS = {
    "openai_chat": "gpt-4o-mini",
    "openai_responses": "gpt-4o-mini",
    "open_responses": "openai/gpt-oss-120b",
    "anthropic": "claude-sonnet-4-6",
    "gemini": "gemini-2.5-flash",
    "gemini_interactions": "gemini-3-flash-preview",
    "bedrock_converse": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "mistral": "mistral-small-latest",
}
CALL_IDS = {
    "openai_chat": "call_abc123",
    "openai_responses": "call_abc123",
    "open_responses": "call_abc123",
    "anthropic": "toolu_01abc",
    "gemini": "call_abc123",
    "gemini_interactions": "call_abc123",
    "bedrock_converse": "tooluse_abc",
    "mistral": "abcDEF123",
}
TOOL = ToolDefinition(
    name="get_capital",
    description="The capital of a country.",
    parameters={
        "type": "object",
        "properties": {"country": {"type": "string"}},
        "required": ["country"],
    },
)
ANSWER = "The capital of the UK is London."


def conversation(fmt: str, question: str = "What is the capital of the UK?") -> Conversation:
    """The conversation each client sends."""
    return Conversation(
        messages=[user(question)],
        tools=[TOOL],
        settings=GenerationSettings(model=MODELS[fmt], max_output_tokens=256),
    )


def calling(fmt: str) -> AssistantMessage:
    """A scripted reply with text and a tool call (no model named: the request's is)."""
    return assistant(
        "Let me look that up.",
        tool_calls=[tool_call("get_capital", {"country": "UK"}, id=CALL_IDS[fmt])],
        finish_reason="tool_calls",
        usage=Usage(input_tokens=20, output_tokens=12, total_tokens=32),
    )


def answering() -> AssistantMessage:
    """A scripted reply with text only."""
    return assistant(
        ANSWER,
        finish_reason="stop",
        usage=Usage(input_tokens=30, output_tokens=8, total_tokens=38),
    )


def needs(fmt: str) -> None:
    """Skip while the format's codec has no server side yet (written alongside)."""
    codec = get_http_codec(fmt)
    if not hasattr(codec, "encode_response") or not hasattr(codec, "encode_stream"):
        pytest.skip(f"{fmt}.encode_response / encode_stream are not written yet")


def same_reply(got: AssistantMessage, scripted: AssistantMessage, fmt: str) -> None:
    """``got`` (what the client's result decoded to) says what ``scripted`` said."""
    assert got.text == scripted.text
    assert [(c.name, c.arguments) for c in got.tool_calls] == [
        (c.name, c.arguments) for c in scripted.tool_calls
    ]
    if fmt != "gemini":  # Gemini's function calls carry an id only when one was given
        assert [c.id for c in got.tool_calls] == [c.id for c in scripted.tool_calls]
    assert got.finish_reason == scripted.finish_reason
    if fmt != "bedrock_converse":  # a Converse response names no model
        assert got.model == MODELS[fmt]  # the scripted message named none: the request's
    assert got.usage is not None and scripted.usage is not None
    assert (got.usage.input_tokens, got.usage.output_tokens) == (
        scripted.usage.input_tokens,
        scripted.usage.output_tokens,
    )


def received(fake: FakeProvider, fmt: str, sent: Conversation, *, stream: bool) -> FakeRequest:
    """The one request the fake received: its format, stream flag, decoded history."""
    [request] = fake.requests
    assert (request.format, request.stream, request.status) == (fmt, stream, 200)
    assert request.error is None
    assert request.conversation is not None
    assert request.conversation.messages == sent.messages
    assert [tool.name for tool in request.conversation.tools or []] == ["get_capital"]
    assert request.model == MODELS[fmt]
    assert isinstance(request.body, dict)
    return request


def merged(chunks: Any) -> AssistantMessage:
    return merge_chunks(list(chunks)).to_message()


async def amerged(chunks: Any) -> AssistantMessage:
    return merge_chunks([chunk async for chunk in chunks]).to_message()


# ----------------------------------------------------------------- the clients


def openai_client(fake: FakeProvider, root: str = "/v1") -> openai.OpenAI:
    return openai.OpenAI(api_key="test", base_url=fake.url + root, max_retries=0, timeout=TIMEOUT)


def async_openai_client(fake: FakeProvider, root: str = "/v1") -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key="test", base_url=fake.url + root, max_retries=0, timeout=TIMEOUT
    )


# The openai client speaks both Responses formats; Open Responses has its own route here.
RESPONSES_ROOTS = {"openai_responses": "/v1", "open_responses": "/openresponses/v1"}


def anthropic_client(fake: FakeProvider) -> anthropic_sdk.Anthropic:
    return anthropic_sdk.Anthropic(
        api_key="test", base_url=fake.url, max_retries=0, timeout=TIMEOUT
    )


def async_anthropic_client(fake: FakeProvider) -> anthropic_sdk.AsyncAnthropic:
    return anthropic_sdk.AsyncAnthropic(
        api_key="test", base_url=fake.url, max_retries=0, timeout=TIMEOUT
    )


def genai_client(fake: FakeProvider) -> genai.Client:
    return genai.Client(
        api_key="test", http_options={"base_url": fake.url, "timeout": TIMEOUT * 1000}
    )


def bedrock_client(fake: FakeProvider) -> Any:
    return botocore.session.get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=fake.url,
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(
            retries={"total_max_attempts": 1}, connect_timeout=TIMEOUT, read_timeout=TIMEOUT
        ),
    )


def mistral_client(fake: FakeProvider) -> Any:
    """The official ``mistralai`` client, on the fake's Mistral route."""
    from mistralai.client import Mistral

    return Mistral(api_key="test", server_url=fake.url + "/mistral", timeout_ms=TIMEOUT * 1000)


def call_sync(fmt: str, fake: FakeProvider, sent: Conversation, stream: bool) -> AssistantMessage:
    """One call with the format's sync client; its result decoded."""
    if fmt == "mistral":
        mclient = mistral_client(fake)
        if stream:
            return merged(mistral.decode_stream(mclient.chat.stream(**mistral.encode(sent))))
        return mistral.decode_response(mclient.chat.complete(**mistral.encode(sent)))
    if fmt == "openai_chat":
        client = openai_client(fake)
        if stream:
            return merged(
                openai_chat.decode_stream(
                    client.chat.completions.create(
                        **openai_chat.encode(sent),
                        stream=True,
                        stream_options={"include_usage": True},
                    )
                )
            )
        return openai_chat.decode_response(
            client.chat.completions.create(**openai_chat.encode(sent))
        )
    if fmt in RESPONSES_ROOTS:
        client = openai_client(fake, RESPONSES_ROOTS[fmt])
        codec = get_http_codec(fmt)
        kwargs = codec.encode(sent)
        if stream:
            events = client.responses.create(**kwargs, stream=True)
            return merged(codec.decode_stream(events))
        return codec.decode_response(client.responses.create(**kwargs))
    if fmt == "anthropic":
        aclient = anthropic_client(fake)
        if stream:
            with aclient.messages.stream(**anthropic.encode(sent)) as events:
                final = events.get_final_message()
            return anthropic.decode_response(final)
        return anthropic.decode_response(aclient.messages.create(**anthropic.encode(sent)))
    if fmt == "gemini_interactions":
        body = gemini_interactions.encode(sent)
        client = genai_client(fake)  # kept: a google-genai client closes when collected
        if stream:
            events = client.interactions.create(**body, stream=True)
            return merged(gemini_interactions.decode_stream(events))
        return gemini_interactions.decode_response(client.interactions.create(**body))
    if fmt == "gemini":
        gclient = genai_client(fake)
        kwargs = genai_kwargs(gemini.encode(sent))
        if stream:
            return merged(gemini.decode_stream(gclient.models.generate_content_stream(**kwargs)))
        return gemini.decode_response(gclient.models.generate_content(**kwargs))
    assert fmt == "bedrock_converse"
    bclient = bedrock_client(fake)
    kwargs = bedrock_converse.encode(sent)
    if stream:
        return merged(bedrock_converse.decode_stream(bclient.converse_stream(**kwargs)["stream"]))
    return bedrock_converse.decode_response(bclient.converse(**kwargs))


async def call_async(
    fmt: str, fake: FakeProvider, sent: Conversation, stream: bool
) -> AssistantMessage:
    """One call with the format's async client; its result decoded."""
    if fmt == "mistral":
        mclient = mistral_client(fake)
        if stream:
            events = await mclient.chat.stream_async(**mistral.encode(sent))
            return await amerged(mistral.decode_stream(events))
        return mistral.decode_response(await mclient.chat.complete_async(**mistral.encode(sent)))
    if fmt == "openai_chat":
        async with async_openai_client(fake) as client:
            if stream:
                events = await client.chat.completions.create(
                    **openai_chat.encode(sent), stream=True, stream_options={"include_usage": True}
                )
                return await amerged(openai_chat.decode_stream(events))
            return openai_chat.decode_response(
                await client.chat.completions.create(**openai_chat.encode(sent))
            )
    if fmt in RESPONSES_ROOTS:
        async with async_openai_client(fake, RESPONSES_ROOTS[fmt]) as client:
            codec = get_http_codec(fmt)
            kwargs = codec.encode(sent)
            if stream:
                events = await client.responses.create(**kwargs, stream=True)
                return await amerged(codec.decode_stream(events))
            return codec.decode_response(await client.responses.create(**kwargs))
    if fmt == "anthropic":
        async with async_anthropic_client(fake) as aclient:
            if stream:
                async with aclient.messages.stream(**anthropic.encode(sent)) as events:
                    final = await events.get_final_message()
                return anthropic.decode_response(final)
            return anthropic.decode_response(
                await aclient.messages.create(**anthropic.encode(sent))
            )
    if fmt == "gemini_interactions":
        body = gemini_interactions.encode(sent)
        client = genai_client(fake)  # kept: a google-genai client closes when collected
        if stream:
            events = await client.aio.interactions.create(**body, stream=True)
            return await amerged(gemini_interactions.decode_stream(events))
        return gemini_interactions.decode_response(await client.aio.interactions.create(**body))
    assert fmt == "gemini"
    gclient = genai_client(fake)  # kept: a google-genai client closes when collected
    kwargs = genai_kwargs(gemini.encode(sent))
    if stream:
        return await amerged(
            gemini.decode_stream(await gclient.aio.models.generate_content_stream(**kwargs))
        )
    return gemini.decode_response(await gclient.aio.models.generate_content(**kwargs))


# ----------------------------------------------------------------- each client


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("fmt", HTTP_PROVIDERS)
def test_the_sync_client_gets_the_scripted_reply(fmt: str, stream: bool) -> None:
    needs(fmt)
    sent = conversation(fmt)
    scripted = calling(fmt)
    with FakeProvider([scripted]) as fake:
        got = call_sync(fmt, fake, sent, stream)
    same_reply(got, scripted, fmt)
    request = received(fake, fmt, sent, stream=stream)
    assert request.reply is scripted


ASYNC_FORMATS = [fmt for fmt in HTTP_PROVIDERS if fmt != "bedrock_converse"]
"""botocore has no async client."""


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("fmt", ASYNC_FORMATS)
def test_the_async_client_gets_the_scripted_reply(fmt: str, stream: bool) -> None:
    needs(fmt)
    sent = conversation(fmt)
    scripted = calling(fmt)

    async def main() -> tuple[FakeProvider, AssistantMessage]:
        async with FakeProvider([scripted]) as fake:
            return fake, await call_async(fmt, fake, sent, stream)

    fake, got = asyncio.run(main())
    same_reply(got, scripted, fmt)
    received(fake, fmt, sent, stream=stream)


def test_streams_come_in_several_deltas() -> None:
    needs("openai_chat")
    with FakeProvider([answering()]) as fake:
        client = openai_client(fake)
        events = list(
            client.chat.completions.create(
                **openai_chat.encode(conversation("openai_chat")),
                stream=True,
                stream_options={"include_usage": True},
            )
        )
    texts = [e.choices[0].delta.content for e in events if e.choices and e.choices[0].delta.content]
    assert texts == ["The", " capital", " of", " the", " UK", " is", " London."]
    assert events[-1].choices == [] and events[-1].usage is not None  # include_usage asked
    [request] = fake.requests
    assert request.response.endswith(b"data: [DONE]\n\n")


def test_the_anthropic_stream_events_and_the_final_message_agree() -> None:
    needs("anthropic")
    sent = conversation("anthropic")
    scripted = calling("anthropic")
    with FakeProvider([scripted, scripted]) as fake:
        client = anthropic_client(fake)
        events = client.messages.create(**anthropic.encode(sent), stream=True)
        from_events = merged(anthropic.decode_stream(events))
        with client.messages.stream(**anthropic.encode(sent)) as stream:
            text = "".join(stream.text_stream)
            final = stream.get_final_message()
    same_reply(from_events, scripted, "anthropic")
    same_reply(anthropic.decode_response(final), scripted, "anthropic")
    assert text == scripted.text
    assert [r.stream for r in fake.requests] == [True, True]


@pytest.mark.parametrize("fmt", HTTP_PROVIDERS)
def test_the_stream_body_has_the_format_media_type(fmt: str) -> None:
    needs(fmt)
    with FakeProvider([answering()]) as fake:
        call_sync(fmt, fake, conversation(fmt), True)
        [request] = fake.requests
    with FakeProvider([answering()]) as fake, httpx.Client(base_url=fake.url) as http:
        path, body = request.path, request.body
        response = http.post(path, params={"alt": "sse"} if fmt == "gemini" else None, json=body)
    expected = (
        "application/vnd.amazon.eventstream" if fmt == "bedrock_converse" else "text/event-stream"
    )
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == expected
    assert response.content == fake.requests[0].response


def test_gemini_without_alt_sse_streams_one_json_array() -> None:
    body = gemini.encode(conversation("gemini"))
    with FakeProvider([answering()]) as fake, httpx.Client(base_url=fake.url) as http:
        response = http.post("/v1beta/models/gemini-2.5-flash:streamGenerateContent", json=body)
    assert response.headers["content-type"] == "application/json"
    events = response.json()
    assert isinstance(events, list) and len(events) > 1
    assert merged(gemini.decode_stream(events)).text == ANSWER


# ----------------------------------------------------------------- script forms


def test_a_list_answers_in_order_and_requests_hold_each_turn() -> None:
    needs("anthropic")
    sent = conversation("anthropic")
    first, second = calling("anthropic"), answering()
    with FakeProvider([first, to_dict(second)], id_seed=7) as fake:
        client = anthropic_client(fake)
        reply = anthropic.decode_response(client.messages.create(**anthropic.encode(sent)))
        sent.messages.append(reply)
        sent.messages.append(tool_result("London", tool_call_id=reply.tool_calls[0].id))
        final = anthropic.decode_response(client.messages.create(**anthropic.encode(sent)))
        assert fake.remaining == 0
    assert final.text == ANSWER
    assert [len(r.conversation.messages) for r in fake.requests if r.conversation] == [1, 3]
    assert fake.requests[1].body == json.loads(json.dumps(anthropic.encode(sent)))
    assert fake.requests[1].conversation is not None
    assert [m.role for m in fake.requests[1].conversation.messages] == [
        "user",
        "assistant",
        "tool",
    ]


def test_a_callable_gets_the_conversation() -> None:
    needs("openai_chat")
    seen: list[Conversation] = []

    def model(history: Conversation) -> AssistantMessage:
        seen.append(history)
        return assistant(f"You said: {history.messages[-1].text}", finish_reason="stop")

    with FakeProvider(model) as fake:
        client = openai_client(fake)
        for question in ("one", "two"):
            completion = client.chat.completions.create(
                **openai_chat.encode(conversation("openai_chat", question))
            )
            assert completion.choices[0].message.content == f"You said: {question}"
    assert [h.messages[-1].text for h in seen] == ["one", "two"]
    assert fake.remaining is None
    assert fake.requests[0].headers["authorization"] == "Bearer test"
    assert fake.requests[0].headers["content-type"] == "application/json"


def test_a_callable_may_take_the_request_and_be_async() -> None:
    needs("gemini")
    seen: list[tuple[str, str]] = []

    async def model(history: Conversation, request: FakeRequest) -> AssistantMessage:
        await asyncio.sleep(0)
        seen.append((request.format, request.path))
        return assistant(
            f"{request.format} heard {history.messages[-1].text}", finish_reason="stop"
        )

    with FakeProvider(model) as fake:
        client = genai_client(fake)  # kept: a google-genai client closes when collected
        response = client.models.generate_content(
            **genai_kwargs(gemini.encode(conversation("gemini", "hi")))
        )
    assert response.text == "gemini heard hi"
    [(fmt, path)] = seen
    assert fmt == "gemini"
    assert path.endswith("/models/gemini-2.5-flash:generateContent")  # /v1beta or /v1


def test_a_callable_may_raise_a_fake_error() -> None:
    needs("openai_responses")

    def model(history: Conversation) -> AssistantMessage:
        raise FakeError(401, "bad key", code="invalid_api_key")

    with FakeProvider(model) as fake, pytest.raises(openai.AuthenticationError) as raised:
        openai_client(fake).responses.create(
            **openai_responses.encode(conversation("openai_responses"))
        )
    assert raised.value.status_code == 401
    assert raised.value.body == {
        "message": "bad key",
        "type": "authentication_error",
        "param": None,
        "code": "invalid_api_key",
    }
    assert isinstance(fake.requests[0].reply, FakeError)


def test_a_callable_that_fails_is_a_500_naming_it(caplog: pytest.LogCaptureFixture) -> None:
    def model(history: Conversation) -> AssistantMessage:
        raise KeyError("no such rule")

    with FakeProvider(model) as fake, pytest.raises(anthropic_sdk.InternalServerError) as raised:
        anthropic_client(fake).messages.create(**anthropic.encode(conversation("anthropic")))
    assert "the script raised for request 1: KeyError: 'no such rule'" in str(raised.value)
    assert "Traceback" not in str(raised.value)
    assert "the script raised" in caplog.text
    assert fake.requests[0].error is not None


def test_a_script_of_the_wrong_kind_is_refused() -> None:
    with pytest.raises(TypeError, match="script item 1 is str"):
        FakeProvider([answering(), "hello"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="a list of replies"):
        FakeProvider("hello")  # type: ignore[arg-type]


# ----------------------------------------------------------------- errors


RATE_LIMITED = FakeError(429, "Rate limit reached, slow down", retry_after=2)


def test_openai_raises_its_rate_limit_error() -> None:
    with FakeProvider([RATE_LIMITED, RATE_LIMITED]) as fake:
        client = openai_client(fake)
        with pytest.raises(openai.RateLimitError) as chat:
            client.chat.completions.create(**openai_chat.encode(conversation("openai_chat")))
        with pytest.raises(openai.RateLimitError) as responses:
            client.responses.create(**openai_responses.encode(conversation("openai_responses")))
    for raised in (chat.value, responses.value):
        assert raised.status_code == 429
        assert raised.response.headers["retry-after"] == "2"
        assert raised.body == {
            "message": "Rate limit reached, slow down",
            "type": "rate_limit_error",
            "param": None,
            "code": None,
        }
    assert [r.status for r in fake.requests] == [429, 429]
    assert [r.reply for r in fake.requests] == [RATE_LIMITED, RATE_LIMITED]


def test_anthropic_raises_its_rate_limit_and_overloaded_errors() -> None:
    overloaded = FakeError(529, "Overloaded")
    with FakeProvider([RATE_LIMITED, overloaded]) as fake:
        client = anthropic_client(fake)
        with pytest.raises(anthropic_sdk.RateLimitError) as limited:
            client.messages.create(**anthropic.encode(conversation("anthropic")))
        with pytest.raises(anthropic_sdk.APIStatusError) as busy:
            client.messages.create(**anthropic.encode(conversation("anthropic")))
    assert limited.value.body == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "Rate limit reached, slow down"},
    }
    assert limited.value.response.headers["retry-after"] == "2"
    assert busy.value.status_code == 529
    assert busy.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]


def test_google_genai_raises_its_client_error() -> None:
    with FakeProvider([RATE_LIMITED, FakeError(503, "try later")]) as fake:
        client = genai_client(fake)
        kwargs = genai_kwargs(gemini.encode(conversation("gemini")))
        with pytest.raises(genai_errors.ClientError) as limited:
            client.models.generate_content(**kwargs)
        with pytest.raises(genai_errors.ServerError) as unavailable:
            list(client.models.generate_content_stream(**kwargs))
    assert (limited.value.code, limited.value.status) == (429, "RESOURCE_EXHAUSTED")
    assert limited.value.message == "Rate limit reached, slow down"
    assert (unavailable.value.code, unavailable.value.status) == (503, "UNAVAILABLE")


def test_botocore_raises_its_throttling_exception() -> None:
    with FakeProvider([RATE_LIMITED, FakeError(400, "bad", type="ValidationException")]) as fake:
        client = bedrock_client(fake)
        kwargs = bedrock_converse.encode(conversation("bedrock_converse"))
        with pytest.raises(client.exceptions.ThrottlingException) as throttled:
            client.converse(**kwargs)
        with pytest.raises(client.exceptions.ValidationException) as invalid:
            client.converse_stream(**kwargs)
    error = throttled.value.response["Error"]
    assert (error["Code"], error["Message"]) == ("ThrottlingException", RATE_LIMITED.message)
    assert throttled.value.response["ResponseMetadata"]["HTTPStatusCode"] == 429
    assert isinstance(invalid.value, BotoClientError)
    assert invalid.value.response["Error"]["Message"] == "bad"


def test_running_out_of_script_is_a_clear_error(caplog: pytest.LogCaptureFixture) -> None:
    needs("openai_chat")
    with FakeProvider([answering()]) as fake:
        client = openai_client(fake)
        client.chat.completions.create(**openai_chat.encode(conversation("openai_chat")))
        with pytest.raises(openai.InternalServerError) as raised:
            client.chat.completions.create(**openai_chat.encode(conversation("openai_chat")))
    message = (
        "chatschema FakeProvider: the script is exhausted: request 2 "
        "(POST /v1/chat/completions) came after the 1 scripted reply"
    )
    assert raised.value.body == {
        "message": message,
        "type": "server_error",
        "param": None,
        "code": None,
    }
    assert fake.requests[1].error == message
    assert message in caplog.text
    assert fake.remaining == 0


BAD_REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "openai_chat": (
        "/v1/chat/completions",
        {"model": "m", "messages": [{"role": "narrator", "content": "hi"}]},
    ),
    "openai_responses": ("/v1/responses", {"model": "m", "input": 42}),
    "open_responses": ("/openresponses/v1/responses", {"model": "m", "input": 42}),
    "anthropic": ("/v1/messages", {"model": "m", "max_tokens": 5, "messages": "hi"}),
    "gemini": ("/v1beta/models/m:generateContent", {"contents": 42}),
    "gemini_interactions": ("/v1beta/interactions", {"model": "m", "input": 42}),
    "bedrock_converse": (
        "/model/m/converse",
        {"messages": [{"role": "user", "content": [{"text": 1}]}]},
    ),
    "mistral": (
        "/mistral/v1/chat/completions",
        {"model": "m", "messages": [{"role": "narrator", "content": "hi"}]},
    ),
}


@pytest.mark.parametrize("fmt", HTTP_PROVIDERS)
def test_an_undecodable_request_is_a_400_in_the_format_shape(fmt: str) -> None:
    path, body = BAD_REQUESTS[fmt]
    with FakeProvider([answering()]) as fake, httpx.Client(base_url=fake.url) as http:
        response = http.post(path, json=body)
        not_json = http.post(path, content=b"{not json")
    assert response.status_code == 400
    data = response.json()
    message = f"chatschema FakeProvider could not decode the {fmt} request to POST {path}: "
    if fmt.startswith("openai") or fmt == "open_responses":
        assert data["error"]["type"] == "invalid_request_error"
        assert data["error"]["message"].startswith(message)
    elif fmt == "mistral":  # flat, as api.mistral.ai answers
        assert (data["object"], data["type"], data["raw_status_code"]) == (
            "error",
            "invalid_request_error",
            400,
        )
        assert data["message"].startswith(message)
    elif fmt == "anthropic":
        assert data["type"] == "error"
        assert data["error"]["type"] == "invalid_request_error"
        assert data["error"]["message"].startswith(message)
    elif fmt in ("gemini", "gemini_interactions"):
        assert (data["error"]["code"], data["error"]["status"]) == (400, "INVALID_ARGUMENT")
        assert data["error"]["message"].startswith(message)
    else:
        assert response.headers["x-amzn-errortype"].startswith("ValidationException:")
        assert data["message"].startswith(message)
    assert "Traceback" not in response.text
    assert not_json.status_code == 400
    assert "the request body is not JSON" in not_json.text
    assert [r.status for r in fake.requests] == [400, 400]
    assert fake.requests[0].conversation is None and fake.requests[0].error
    assert fake.remaining == 1  # a refused request takes no reply


def test_the_where_of_a_decoding_error_is_named() -> None:
    messages: Any = [{"role": "user", "content": "hi"}, {"role": "narrator", "content": "x"}]
    with FakeProvider([answering()]) as fake, pytest.raises(openai.BadRequestError) as raised:
        openai_client(fake).chat.completions.create(model="gpt-4o-mini", messages=messages)
    assert "openai_chat, message 1: unknown role 'narrator'" in raised.value.message


def test_an_unknown_endpoint_is_a_json_404() -> None:
    with FakeProvider([]) as fake, httpx.Client(base_url=fake.url) as http:
        response = http.post("/v2/chat", json={})
    assert response.status_code == 404
    assert "POST /v1/chat/completions" in response.json()["error"]["message"]
    assert fake.requests == []


def test_a_reply_the_format_cannot_write_is_a_500_naming_it() -> None:
    needs("openai_chat")
    reasoning = AssistantMessage.model_validate(
        {"role": "assistant", "content": [{"type": "audio", "url": "https://example.test/a.wav"}]}
    )
    with FakeProvider([reasoning]) as fake, pytest.raises(openai.InternalServerError) as raised:
        openai_client(fake).chat.completions.create(
            **openai_chat.encode(conversation("openai_chat"))
        )
    assert "the scripted reply cannot be written as openai_chat" in raised.value.message
    assert fake.requests[0].status == 500
    with FakeProvider([reasoning], unsupported="placeholder") as fake:
        completion = openai_client(fake).chat.completions.create(
            **openai_chat.encode(conversation("openai_chat"))
        )
    assert "omitted" in (completion.choices[0].message.content or "")


# ----------------------------------------------------------------- options


def test_id_seed_makes_the_ids_deterministic_and_distinct() -> None:
    needs("anthropic")

    def ids() -> list[str]:
        with FakeProvider([answering(), answering()], id_seed=1) as fake:
            client = anthropic_client(fake)
            return [
                client.messages.create(**anthropic.encode(conversation("anthropic"))).id
                for _ in range(2)
            ]

    first, again = ids(), ids()
    assert first == again
    assert first[0] != first[1]


def test_a_message_naming_a_model_keeps_it_and_created_is_written() -> None:
    needs("openai_chat")
    named = answering().model_copy(update={"model": "gpt-4o-2024-08-06"})
    with FakeProvider([named], created=1_700_000_000) as fake:
        completion = openai_client(fake).chat.completions.create(
            **openai_chat.encode(conversation("openai_chat"))
        )
    assert (completion.model, completion.created) == ("gpt-4o-2024-08-06", 1_700_000_000)


def test_latency_spaces_the_stream_events() -> None:
    needs("openai_chat")
    with FakeProvider([answering()], latency=0.02) as fake:
        started = time.perf_counter()
        events = list(
            openai_client(fake).chat.completions.create(
                **openai_chat.encode(conversation("openai_chat")), stream=True
            )
        )
        took = time.perf_counter() - started
    assert took >= 0.02 * len(events)
    # not asked for (stream_options.include_usage), Chat streams send no usage chunk
    assert all(event.choices and event.usage is None for event in events)


def test_split_message_assembles_back() -> None:
    message = calling("openai_chat")
    chunks = split_message(message)
    assert len(chunks) > 4
    back = merge_chunks(chunks).to_message()
    assert back.text == message.text
    assert [(c.id, c.name, c.arguments) for c in back.tool_calls] == [
        (c.id, c.name, c.arguments) for c in message.tool_calls
    ]
    assert (back.finish_reason, back.usage) == (message.finish_reason, message.usage)
    assert split_message(message, pieces=False)[0].chunk_position == "last"
    assert len(split_message(message, pieces=False)) == 1


# ----------------------------------------------------------------- the app, the server


def test_the_asgi_app_serves_without_a_server() -> None:
    needs("openai_chat")
    fake = FakeProvider([answering(), answering()])

    async def main() -> tuple[Any, Any]:
        transport = httpx.ASGITransport(app=fake.app)
        http = httpx.AsyncClient(transport=transport, base_url="http://fake.test/v1")
        async with openai.AsyncOpenAI(
            api_key="test", base_url="http://fake.test/v1", http_client=http, max_retries=0
        ) as client:
            whole = await client.chat.completions.create(
                **openai_chat.encode(conversation("openai_chat"))
            )
            stream = await client.chat.completions.create(
                **openai_chat.encode(conversation("openai_chat")), stream=True
            )
            return whole, await amerged(openai_chat.decode_stream(stream))

    whole, streamed = asyncio.run(main())
    assert whole.choices[0].message.content == ANSWER
    assert streamed.text == ANSWER
    assert [r.stream for r in fake.requests] == [False, True]
    assert not fake.running
    with pytest.raises(RuntimeError, match="not serving"):
        fake.url  # noqa: B018


def _threads() -> set[threading.Thread]:
    return set(threading.enumerate())


def test_the_server_starts_and_stops_fast_and_leaves_no_thread() -> None:
    before = _threads()
    fake = FakeProvider([])
    started = time.perf_counter()
    with fake:
        up = time.perf_counter() - started
        assert fake.running and fake.url.startswith("http://127.0.0.1:")
        with httpx.Client() as http:  # it accepts connections as soon as it is entered
            assert http.post(fake.url + "/nowhere").status_code == 404
        stopping = time.perf_counter()
    down = time.perf_counter() - stopping
    assert not fake.running
    assert _threads() == before
    assert up < 2 and down < 2, (up, down)
    with fake:  # the same provider serves again
        assert fake.running
    assert _threads() == before


def test_the_async_server_stops_with_the_block() -> None:
    async def main() -> tuple[str, set[asyncio.Task[Any]]]:
        async with FakeProvider([]) as fake:
            url = fake.url
            async with httpx.AsyncClient() as http:
                assert (await http.post(url + "/nowhere")).status_code == 404
        return url, asyncio.all_tasks() - {asyncio.current_task()}  # type: ignore[operator]

    before = _threads()
    url, tasks = asyncio.run(main())
    assert tasks == set()
    assert _threads() == before
    with pytest.raises(httpx.ConnectError), httpx.Client() as http:
        http.post(url + "/nowhere")


def test_a_provider_serves_once_at_a_time() -> None:
    with FakeProvider([]) as fake:
        with pytest.raises(RuntimeError, match="already serving"), fake:
            pass  # pragma: no cover
        assert fake.running


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="expected an HTTP error status"):
        FakeError(200, "fine")
    with pytest.raises(ValueError, match="unsupported='ignore'"):
        FakeProvider([], unsupported="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="latency"):
        FakeProvider([], latency=-1)


# ----------------------------------------------------------------- the extra


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_import_chatschema_does_not_import_testing() -> None:
    done = _python(
        "import sys, chatschema; chatschema.user('hi'); "
        "assert 'chatschema.testing' not in sys.modules; "
        "assert 'starlette' not in sys.modules and 'uvicorn' not in sys.modules"
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("missing", ["starlette", "uvicorn"])
def test_without_the_extra_the_import_error_names_it(missing: str) -> None:
    done = _python(f"import sys; sys.modules[{missing!r}] = None; import chatschema.testing")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: chatschema.testing needs starlette and uvicorn")
    assert f"({missing} is not installed)" in last
    assert "pip install 'chatschema[testing]'" in last
