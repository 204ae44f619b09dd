"""The gateway end to end: official clients -> gateway -> ``FakeProvider``, over real HTTP.

Every test here runs the official client of a caller format A (``openai`` Chat
Completions and Responses, ``anthropic``, ``google-genai`` (``generateContent`` and
the Interactions API), botocore's ``bedrock-runtime``, ``mistralai``) against
:func:`chatschema.gateway.create_app` served on 127.0.0.1
(:class:`chatschema.testing.LocalServer`), in front of a
:class:`chatschema.testing.FakeProvider` that speaks an upstream format B. Nothing
inside the gateway is replaced; the ``no_network`` guard of
``tests/clients/conftest.py`` makes any connection to a host other than the loopback
address fail the test.

To stay fast, the servers are shared: :func:`upstreams` starts, once for the
package, one fake provider per upstream format and one gateway in front of each
(every gateway serves every caller format's endpoints). A test tells its requests
apart from the others' by a token in the user's text (``[t-...]``, see
:func:`token`): the fake's script finds the token in the request it decodes and
answers by the rule the test registered for it (:meth:`Upstream.rule`), by default
a tool call, then, once the tool result comes back, a final answer.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import logging
import re
import ssl
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

import anthropic as anthropic_sdk
import botocore.session

# google-genai loads its Interactions client on first use (about a second): loaded
# here, with the other clients, so that no test's time bound counts it
import google.genai._gaos.google_genai  # noqa: F401
import openai
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError as BotoClientError
from clients.conftest import no_network
from google import genai
from google.genai import _interactions_errors as interactions_errors
from google.genai import errors as genai_errors
from mistralai.client.errors import MistralError, ResponseValidationError

from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    Conversation,
    GenerationSettings,
    ToolDefinition,
    Usage,
    assistant,
    merge_chunks,
    system,
    tool_call,
    tool_result,
    user,
)
from chatschema.gateway import create_app
from chatschema.providers import (
    HTTP_PROVIDERS,
    anthropic,
    bedrock_converse,
    gemini,
    gemini_interactions,
    get_http_codec,
    mistral,
    openai_chat,
)
from chatschema.providers.gemini import genai_kwargs
from chatschema.testing import FakeProvider, FakeRequest, LocalServer, ScriptReply

__all__ = ["no_network"]  # the autouse guard, imported to apply to this package

FORMATS: tuple[str, ...] = tuple(HTTP_PROVIDERS)
"""The HTTP formats, each a caller format and an upstream format (Gemini's
``generateContent`` and its Interactions API each on their own)."""
ASYNC_FORMATS: tuple[str, ...] = tuple(fmt for fmt in FORMATS if fmt != "bedrock_converse")
"""Formats with an official async client (botocore has none)."""
PAIRS = [(caller, upstream) for caller in FORMATS for upstream in FORMATS]
"""Every ordered pair (caller format A, upstream format B), the same-format ones too."""

TIMEOUT = 10
"""Seconds any client waits for an answer: every test is bounded in time."""
SECRET = "sk-secret-XYZ"
"""The upstream key every shared gateway is configured with."""
CALLER_KEY = "sk-caller-ABC"
"""The key every caller sends (never to reach an upstream of another provider)."""
CALLER_AWS = ("AKIDCALLERABC", "caller-aws-secret-key")
"""The AWS credentials a Bedrock caller signs with."""

MODELS = {
    "openai_chat": "gpt-4o-mini",
    "openai_responses": "gpt-4.1-mini",
    "open_responses": "openai/gpt-oss-120b",
    "anthropic": "claude-sonnet-4-6",
    "gemini": "gemini-2.5-flash",
    "gemini_interactions": "gemini-3-flash-preview",
    "bedrock_converse": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "mistral": "mistral-small-latest",
}
"""Each format's model name: the caller asks for A's, the gateway is set to send B's."""
CALL_IDS = {
    "openai_chat": "call_abc123",
    "openai_responses": "call_def456",
    "open_responses": "call_opn321",
    "anthropic": "toolu_01abc",
    "gemini": "call_gem789",
    "gemini_interactions": "call_gmi246",
    "bedrock_converse": "tooluse_abc",
    "mistral": "abcDEF789",
}
"""The id of the tool call each upstream format's scripted reply makes."""
TOOL = ToolDefinition(
    name="get_capital",
    description="The capital of a country.",
    parameters={
        "type": "object",
        "properties": {"country": {"type": "string"}},
        "required": ["country"],
    },
)
SYSTEM = "Answer in one short sentence."
QUESTION = "What is the capital of the UK?"
TOOL_OUTPUT = "London"

_TOKEN = re.compile(r"\[(t-[0-9a-f]{10}(?:-[0-9a-z]+)?)\]")


# ----------------------------------------------------------------- tokens, scripts


def make_token(seed: str) -> str:
    """A token for the user's text, from a test's node id (stable across runs)."""
    return "t-" + hashlib.sha1(seed.encode()).hexdigest()[:10]


@pytest.fixture(autouse=True)
def no_key_in_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Every test: no log record (INFO and up, any logger) shows the upstream key."""
    caplog.set_level(logging.INFO)
    yield
    texts = [(record.name, logging.Formatter().format(record)) for record in caplog.records]
    leaked = [f"{name}: {text}" for name, text in texts if SECRET in text]
    assert not leaked, f"the upstream key is in the log: {leaked}"


@pytest.fixture
def token(request: pytest.FixtureRequest) -> str:
    """This test's token: put in the user's text, it routes the upstream's script."""
    return make_token(request.node.nodeid)


def token_of(conversation: Conversation | None) -> str | None:
    """The token in a conversation's first user message that carries one."""
    for message in conversation.messages if conversation is not None else []:
        if message.role == "user":
            found = _TOKEN.search(message.text)
            if found:
                return found.group(1)
    return None


def question(token: str, text: str = QUESTION) -> str:
    """The user's text: the token, then the question."""
    return f"[{token}] {text}"


def conversation(fmt: str, token: str, *, content: Any = None, tools: bool = True) -> Conversation:
    """What a caller of format ``fmt`` sends first: a system prompt, the question, a tool."""
    fields: dict[str, Any] = {"tools": [TOOL]} if tools else {}
    return Conversation(
        messages=[system(SYSTEM), user(content if content is not None else question(token))],
        settings=GenerationSettings(model=MODELS[fmt], max_output_tokens=256),
        **fields,
    )


def calling(fmt: str, token: str) -> AssistantMessage:
    """The upstream's first reply: text and a tool call, with usage."""
    return assistant(
        f"Let me look that up ({token}).",
        tool_calls=[tool_call("get_capital", {"country": "UK"}, id=CALL_IDS[fmt])],
        finish_reason="tool_calls",
        usage=Usage(input_tokens=21, output_tokens=13, total_tokens=34),
    )


def answering(token: str) -> AssistantMessage:
    """The upstream's reply once the tool result is in: text only."""
    return assistant(
        f"The capital of the UK is London ({token}).",
        finish_reason="stop",
        usage=Usage(input_tokens=40, output_tokens=9, total_tokens=49),
    )


Rule = Callable[[Conversation, FakeRequest], ScriptReply]
"""How an upstream answers one test's requests."""


def loop_rule(fmt: str) -> Rule:
    """The default rule: a tool call, then, after a tool result, the answer."""

    def rule(history: Conversation, request: FakeRequest) -> ScriptReply:
        token = token_of(history) or "?"
        if history.messages and history.messages[-1].role == "tool":
            return answering(token)
        return calling(fmt, token)

    return rule


def upstream_base(fmt: str, url: str) -> str:
    """The base URL B's official client takes: OpenAI's with ``/v1``, the others' the root."""
    if fmt == "mistral":  # the fake's Mistral route (its client's server_url)
        return url + "/mistral"
    return url + openai_root(fmt) if openai_family(fmt) else url


def openai_family(fmt: str) -> bool:
    """Whether the official openai client speaks ``fmt`` (Open Responses included)."""
    return fmt.startswith("openai") or fmt == "open_responses"


def openai_root(fmt: str) -> str:
    """Where the openai client's base URL ends: ``/v1``; Open Responses has its own route."""
    return "/openresponses/v1" if fmt == "open_responses" else "/v1"


class Upstream:
    """A fake provider of format ``fmt`` and a gateway in front of it.

    Args:
        fmt: the upstream format B.
        latency: the fake provider's latency (seconds before each answer and frame).
        **options: more ``create_app`` options (``api_key`` is :data:`SECRET` and
            ``model`` is B's model unless given).
    """

    def __init__(self, fmt: str, *, latency: float = 0.0, **options: Any) -> None:
        self.fmt = fmt
        self.rules: dict[str, Rule] = {}
        self.default: Rule = loop_rule(fmt)
        self.fake = FakeProvider(self.script, latency=latency)
        self.options: dict[str, Any] = {"api_key": SECRET, "model": MODELS[fmt], **options}
        if fmt == "bedrock_converse":
            self.options.setdefault("region", "us-east-1")
        self.server: LocalServer | None = None
        self._stack = ExitStack()

    def __enter__(self) -> Upstream:
        fake = self._stack.enter_context(self.fake)
        app = create_app(self.fmt, upstream_base(self.fmt, fake.url), **self.options)  # type: ignore[arg-type]
        self.server = self._stack.enter_context(LocalServer(app, name="gateway"))
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    @property
    def url(self) -> str:
        """The gateway's base URL (``http://127.0.0.1:PORT``)."""
        assert self.server is not None
        return self.server.url

    def script(self, history: Conversation, request: FakeRequest) -> ScriptReply:
        """The fake provider's script: the rule of the request's token."""
        rule = self.rules.get(token_of(history) or "", self.default)
        return rule(history, request)

    def rule(self, token: str, rule: Rule | list[ScriptReply]) -> None:
        """Answer the requests carrying ``token`` by ``rule`` (or these replies in order)."""
        if isinstance(rule, list):
            replies = list(rule)

            def scripted(history: Conversation, request: FakeRequest) -> ScriptReply:
                return replies.pop(0)

            self.rules[token] = scripted
        else:
            self.rules[token] = rule

    def requests(self, token: str) -> list[FakeRequest]:
        """The requests the fake provider decoded that carry ``token``, in order."""
        return [r for r in list(self.fake.requests) if token_of(r.conversation) == token]


@pytest.fixture(scope="package")
def upstreams() -> Iterator[dict[str, Upstream]]:
    """One fake provider per upstream format, each behind its own gateway (shared)."""
    with serving(*(Upstream(fmt) for fmt in FORMATS)) as started:
        yield {up.fmt: up for up in started}


@contextmanager
def serving(*ups: Upstream) -> Iterator[list[Upstream]]:
    """Serve several upstreams; stop them all at once (each stop waits 0.2 s or more)."""
    started: list[Upstream] = []
    try:
        for up in ups:
            started.append(up.__enter__())
        yield started
    finally:
        threads = [threading.Thread(target=up.__exit__) for up in started]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)


# ----------------------------------------------------------------- the clients


_TLS = ssl.create_default_context()
"""One TLS context for every client: the connections are plain HTTP to 127.0.0.1, and
loading the CA bundle for each new client would take most of a test's time."""


def openai_client(url: str, key: str = CALLER_KEY, root: str = "/v1") -> openai.OpenAI:
    return openai.OpenAI(
        api_key=key,
        base_url=url + root,
        max_retries=0,
        timeout=TIMEOUT,
        http_client=openai.DefaultHttpxClient(verify=_TLS),
    )


def async_openai_client(url: str, key: str = CALLER_KEY, root: str = "/v1") -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key=key,
        base_url=url + root,
        max_retries=0,
        timeout=TIMEOUT,
        http_client=openai.DefaultAsyncHttpxClient(verify=_TLS),
    )


def anthropic_client(url: str, key: str = CALLER_KEY) -> anthropic_sdk.Anthropic:
    return anthropic_sdk.Anthropic(
        api_key=key,
        base_url=url,
        max_retries=0,
        timeout=TIMEOUT,
        http_client=anthropic_sdk.DefaultHttpxClient(verify=_TLS),
    )


def async_anthropic_client(url: str, key: str = CALLER_KEY) -> anthropic_sdk.AsyncAnthropic:
    return anthropic_sdk.AsyncAnthropic(
        api_key=key,
        base_url=url,
        max_retries=0,
        timeout=TIMEOUT,
        http_client=anthropic_sdk.DefaultAsyncHttpxClient(verify=_TLS),
    )


def new_genai_client(url: str, key: str = CALLER_KEY) -> genai.Client:
    options = {
        "base_url": url,
        "timeout": TIMEOUT * 1000,
        "client_args": {"verify": _TLS},
        "async_client_args": {"verify": _TLS},
        # one attempt: its Interactions client retries 429s and 5xx four times by default
        "retry_options": {"attempts": 1},
    }
    return genai.Client(api_key=key, http_options=options)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=64)
def genai_client(url: str, key: str = CALLER_KEY) -> genai.Client:
    """A google-genai client for ``url`` (kept: making one takes 0.08 s)."""
    return new_genai_client(url, key)


@functools.lru_cache(maxsize=64)
def bedrock_client(url: str, credentials: tuple[str, str] = CALLER_AWS) -> Any:
    """A botocore ``bedrock-runtime`` client for ``url`` (kept: making one takes 0.1 s)."""
    return botocore.session.get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id=credentials[0],
        aws_secret_access_key=credentials[1],
        config=Config(
            retries={"total_max_attempts": 1}, connect_timeout=TIMEOUT, read_timeout=TIMEOUT
        ),
    )


@dataclass
class Answer:
    """What a caller got: the reply decoded from its client's result, and more."""

    message: AssistantMessage
    headers: dict[str, str]
    """The HTTP response headers (lower-case names)."""
    deltas: int = 0
    """How many streamed events carried text, reasoning or argument deltas (0: not streamed)."""
    pieces: list[str] = field(default_factory=list)
    """The text deltas of a stream, in the order they came."""
    events: list[Any] = field(default_factory=list)
    """The client's stream events, as it gave them."""


def _headers(headers: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in dict(headers or {}).items()}


def _streamed(
    message: AssistantMessage, headers: dict[str, str], chunks: list[Any], events: list[Any]
) -> Answer:
    """The answer of a stream: its chunks merged, its deltas counted, its text pieces."""
    assert chunks, "the stream gave no chunks"
    deltas = 0
    pieces: list[str] = []
    for chunk in chunks:
        content = chunk.content if isinstance(chunk.content, list) else []
        texts = [b.text for b in content if b.type == "text" and b.text]
        if isinstance(chunk.content, str) and chunk.content:
            texts = [chunk.content]
        pieces.extend(texts)
        if (
            texts
            or any(getattr(b, "text", None) for b in content if b.type == "reasoning")
            or any(c.arguments for c in chunk.tool_call_chunks or [])
        ):
            deltas += 1
    return Answer(message, headers, deltas, pieces, events)


def _from_chunks(
    headers: dict[str, str], chunks: list[AssistantMessageChunk], events: list[Any]
) -> Answer:
    assert chunks, "the stream gave no chunks"
    return _streamed(merge_chunks(chunks).to_message(), headers, chunks, events)


def _anthropic_streamed(final: Any, headers: dict[str, str], events: list[Any]) -> Answer:
    """The answer of an Anthropic stream: the SDK's final message, the raw deltas."""
    deltas = [e for e in events if e.type == "content_block_delta"]
    pieces = [e.delta.text for e in deltas if e.delta.type == "text_delta" and e.delta.text]
    return Answer(anthropic.decode_response(final), headers, len(deltas), pieces, events)


def mistral_client(url: str, key: str, seen: dict[str, Any], *, sync: bool = True) -> Any:
    """The official ``mistralai`` client on the gateway's Mistral route.

    ``seen`` gets the answer's headers (the SDK returns parsed models only).
    """
    import httpx
    from mistralai.client import Mistral

    def keep(response: httpx.Response) -> None:
        seen["headers"] = response.headers

    async def akeep(response: httpx.Response) -> None:
        seen["headers"] = response.headers

    root = url + "/mistral"
    if sync:
        http = httpx.Client(event_hooks={"response": [keep]}, timeout=TIMEOUT)
        return Mistral(api_key=key, server_url=root, client=http)
    ahttp = httpx.AsyncClient(event_hooks={"response": [akeep]}, timeout=TIMEOUT)
    return Mistral(api_key=key, server_url=root, async_client=ahttp)


def mistral_kwargs(sent: Conversation) -> dict[str, Any]:
    """What a Mistral caller sends: the tool-call ids as the gateway gave them.

    (A ``mistralai`` client sends back the ids of the replies it got; ``mistral_ids``
    rewrites ids for api.mistral.ai itself, which the gateway is not.)
    """
    return mistral.encode(sent, mistral_ids=False)


def call(fmt: str, url: str, sent: Conversation, *, stream: bool, key: str = CALLER_KEY) -> Answer:
    """One request by the sync official client of ``fmt`` to the gateway at ``url``."""
    if fmt == "mistral":
        seen: dict[str, Any] = {}
        mclient = mistral_client(url, key, seen)
        kwargs = mistral_kwargs(sent)
        if not stream:
            reply = mistral.decode_response(mclient.chat.complete(**kwargs))
            return Answer(reply, _headers(seen.get("headers")))
        events = list(mclient.chat.stream(**kwargs))
        chunks = list(mistral.decode_stream(events))
        return _from_chunks(_headers(seen.get("headers")), chunks, events)
    if openai_family(fmt):
        with openai_client(url, key, openai_root(fmt)) as client:
            if fmt == "openai_chat":
                kwargs = openai_chat.encode(sent)
                create = client.chat.completions.with_raw_response.create
                extra = {"stream_options": {"include_usage": True}} if stream else {}
                raw = create(**kwargs, stream=stream, **extra)
                codec: Any = openai_chat
            else:
                codec = get_http_codec(fmt)  # either Responses format
                kwargs = codec.encode(sent)
                raw = client.responses.with_raw_response.create(**kwargs, stream=stream)
            headers = _headers(raw.headers)
            if not stream:
                return Answer(codec.decode_response(raw.parse()), headers)
            events = list(raw.parse())
            return _from_chunks(headers, list(codec.decode_stream(events)), events)
    if fmt == "anthropic":
        with anthropic_client(url, key) as aclient:
            kwargs = anthropic.encode(sent)
            if not stream:
                raw = aclient.messages.with_raw_response.create(**kwargs)
                return Answer(anthropic.decode_response(raw.parse()), _headers(raw.headers))
            with aclient.messages.stream(**kwargs) as events_stream:
                events = list(events_stream)
                final = events_stream.get_final_message()
                headers = _headers(events_stream.response.headers)
            return _anthropic_streamed(final, headers, events)
    if fmt == "gemini_interactions":
        iclient = genai_client(url, key)  # held: a google-genai client closes when collected
        create = iclient.interactions.with_raw_response.create
        raw = create(**gemini_interactions.encode(sent), stream=stream)
        headers = _headers(raw.headers)
        if not stream:
            return Answer(gemini_interactions.decode_response(raw.parse()), headers)
        events = list(raw.parse())
        chunks = list(gemini_interactions.decode_stream(events))
        return _from_chunks(headers, chunks, events)
    if fmt == "gemini":
        gclient = genai_client(url, key)
        kwargs = genai_kwargs(gemini.encode(sent))
        if not stream:
            response = gclient.models.generate_content(**kwargs)
            headers = _headers(response.sdk_http_response and response.sdk_http_response.headers)
            return Answer(gemini.decode_response(response), headers)
        events = list(gclient.models.generate_content_stream(**kwargs))
        assert events, "the gemini stream gave no response"
        first = events[0].sdk_http_response
        chunks = list(gemini.decode_stream(events))
        return _from_chunks(_headers(first and first.headers), chunks, events)
    assert fmt == "bedrock_converse"
    bclient = bedrock_client(url)
    kwargs = bedrock_converse.encode(sent)
    if not stream:
        response = bclient.converse(**kwargs)
        headers = _headers(response["ResponseMetadata"]["HTTPHeaders"])
        return Answer(bedrock_converse.decode_response(response), headers)
    response = bclient.converse_stream(**kwargs)
    events = list(response["stream"])
    headers = _headers(response["ResponseMetadata"]["HTTPHeaders"])
    return _from_chunks(headers, list(bedrock_converse.decode_stream(events)), events)


async def _alist(items: AsyncIterator[Any]) -> list[Any]:
    return [item async for item in items]


async def acall(
    fmt: str, url: str, sent: Conversation, *, stream: bool, key: str = CALLER_KEY
) -> Answer:
    """One request by the async official client of ``fmt`` to the gateway at ``url``."""
    if fmt == "mistral":
        seen: dict[str, Any] = {}
        mclient = mistral_client(url, key, seen, sync=False)
        kwargs = mistral_kwargs(sent)
        if not stream:
            parsed = await mclient.chat.complete_async(**kwargs)
            return Answer(mistral.decode_response(parsed), _headers(seen.get("headers")))
        events = await _alist(await mclient.chat.stream_async(**kwargs))
        chunks = list(mistral.decode_stream(events))
        return _from_chunks(_headers(seen.get("headers")), chunks, events)
    if openai_family(fmt):
        async with async_openai_client(url, key, openai_root(fmt)) as client:
            if fmt == "openai_chat":
                kwargs = openai_chat.encode(sent)
                create = client.chat.completions.with_raw_response.create
                extra = {"stream_options": {"include_usage": True}} if stream else {}
                raw = await create(**kwargs, stream=stream, **extra)
                codec: Any = openai_chat
            else:
                codec = get_http_codec(fmt)  # either Responses format
                kwargs = codec.encode(sent)
                raw = await client.responses.with_raw_response.create(**kwargs, stream=stream)
            headers = _headers(raw.headers)
            parsed = raw.parse()
            if inspect.isawaitable(parsed):
                parsed = await parsed
            if not stream:
                return Answer(codec.decode_response(parsed), headers)
            events = await _alist(parsed)
            return _from_chunks(headers, list(codec.decode_stream(events)), events)
    if fmt == "anthropic":
        async with async_anthropic_client(url, key) as aclient:
            kwargs = anthropic.encode(sent)
            if not stream:
                raw = await aclient.messages.with_raw_response.create(**kwargs)
                return Answer(anthropic.decode_response(await raw.parse()), _headers(raw.headers))
            async with aclient.messages.stream(**kwargs) as events_stream:
                events = await _alist(events_stream.__aiter__())
                final = await events_stream.get_final_message()
                headers = _headers(events_stream.response.headers)
            return _anthropic_streamed(final, headers, events)
    gclient = new_genai_client(url, key)  # its async client belongs to this event loop
    if fmt == "gemini_interactions":
        create = gclient.aio.interactions.with_raw_response.create
        raw = await create(**gemini_interactions.encode(sent), stream=stream)
        headers = _headers(raw.headers)
        parsed = await raw.parse()
        if not stream:
            return Answer(gemini_interactions.decode_response(parsed), headers)
        events = await _alist(parsed)
        return _from_chunks(headers, list(gemini_interactions.decode_stream(events)), events)
    assert fmt == "gemini", f"{fmt} has no official async client"
    kwargs = genai_kwargs(gemini.encode(sent))
    if not stream:
        response = await gclient.aio.models.generate_content(**kwargs)
        headers = _headers(response.sdk_http_response and response.sdk_http_response.headers)
        return Answer(gemini.decode_response(response), headers)
    events = await _alist(await gclient.aio.models.generate_content_stream(**kwargs))
    assert events, "the gemini stream gave no response"
    first = events[0].sdk_http_response
    return _from_chunks(
        _headers(first and first.headers), list(gemini.decode_stream(events)), events
    )


def follow_up(sent: Conversation, reply: AssistantMessage, output: str = TOOL_OUTPUT) -> None:
    """Append the reply and the result of its (first) tool call to the history."""
    assert reply.tool_calls, f"the reply made no tool call: {reply!r}"
    sent.messages.append(reply)
    sent.messages.append(tool_result(output, tool_call_id=reply.tool_calls[0].id))


# ----------------------------------------------------------------- errors


@dataclass
class Failure:
    """An error a caller's official client raised, read in its format's terms."""

    status: int | None
    """The HTTP status (None: an error event inside a 200 stream)."""
    kind: str | None
    """The error's type as the format names it (OpenAI ``type``, Anthropic
    ``error.type``, Gemini's and its Interactions API's ``status``, Bedrock's error
    code)."""
    message: str
    headers: dict[str, str]
    body: Any
    error: BaseException


def failure(fmt: str, error: BaseException) -> Failure:
    """``error`` as the caller's format says it; fails unless it has the format's shape."""
    if openai_family(fmt):
        assert isinstance(error, openai.APIError), repr(error)
        body = error.body
        assert isinstance(body, dict), f"the OpenAI error body is not an object: {body!r}"
        assert isinstance(body.get("message"), str), body
        status = error.status_code if isinstance(error, openai.APIStatusError) else None
        headers = _headers(error.response.headers) if status is not None else {}
        return Failure(status, body.get("type"), body["message"], headers, body, error)
    if fmt == "anthropic":
        assert isinstance(error, anthropic_sdk.APIStatusError), repr(error)
        body = error.body
        assert isinstance(body, dict) and body.get("type") == "error", body
        inner = body["error"]
        assert isinstance(inner, dict) and isinstance(inner.get("message"), str), body
        headers = _headers(error.response.headers)
        return Failure(error.status_code, inner.get("type"), inner["message"], headers, body, error)
    if fmt == "gemini":
        assert isinstance(error, genai_errors.APIError), repr(error)
        body = error.details
        assert isinstance(body, dict) and isinstance(body.get("error"), dict), body
        inner = body["error"]
        assert {"code", "message", "status"} <= set(inner), body
        assert inner["code"] == error.code
        response = getattr(error, "response", None)
        headers = _headers(getattr(response, "headers", None))
        return Failure(error.code, error.status, error.message or "", headers, body, error)
    if fmt == "gemini_interactions":
        return _interactions_failure(error)
    if fmt == "mistral":
        return _mistral_failure(error)
    assert fmt == "bedrock_converse"
    assert isinstance(error, BotoClientError), repr(error)
    data = error.response
    code = data["Error"]["Code"]
    assert code, data
    meta = data.get("ResponseMetadata", {})
    status = meta.get("HTTPStatusCode")
    headers = _headers(meta.get("HTTPHeaders"))
    return Failure(status, code, data["Error"].get("Message", ""), headers, data, error)


def _interactions_failure(error: BaseException) -> Failure:
    """A google-genai Interactions error: an HTTP status error whose body is Gemini's
    ``{"error": {"code", "message", "status"}}`` (an error inside a stream is an
    ``error`` event the client hands over, not an exception: see ``broken``)."""
    assert isinstance(error, interactions_errors.APIStatusError), repr(error)
    body = error.body
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), body
    inner = body["error"]
    assert {"code", "message", "status"} <= set(inner), body
    assert inner["code"] == error.status_code, body
    assert isinstance(inner["message"], str), body
    headers = _headers(error.response.headers)
    return Failure(error.status_code, inner["status"], inner["message"], headers, body, error)


def _mistral_failure(error: BaseException) -> Failure:
    """A ``mistralai`` error: its body is Mistral's flat error object (a stream's error
    event fails the SDK's reading of the chunk: a ``ResponseValidationError``)."""
    assert isinstance(error, MistralError), repr(error)
    body = json.loads(error.body)
    in_stream = isinstance(error, ResponseValidationError) and error.status_code == 200
    if in_stream:  # the SDK reads each event's data as {"data": event}
        body = body["data"]
    assert isinstance(body, dict) and body.get("object") == "error", body
    assert isinstance(body.get("message"), str), body
    status = None if in_stream else error.status_code
    headers = {} if in_stream else _headers(error.headers)
    return Failure(status, body.get("type"), body["message"], headers, body, error)


CLIENT_ERRORS: tuple[type[BaseException], ...] = (
    MistralError,
    openai.APIError,
    anthropic_sdk.APIError,
    genai_errors.APIError,
    interactions_errors.APIError,
    BotoClientError,
)
"""The official clients' own error classes (botocore's ``EventStreamError`` is a
``ClientError``)."""


def raised(fmt: str, action: Callable[[], Any]) -> Failure:
    """The error ``action`` (a client call) raises, as :func:`failure` reads it."""
    try:
        result = action()
    except CLIENT_ERRORS as error:
        return failure(fmt, error)
    raise AssertionError(f"the {fmt} client raised nothing: it returned {result!r}")


def wait_until(predicate: Callable[[], bool], timeout: float, step: float = 0.01) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` seconds pass; its last value."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(step)


def said(history: Conversation) -> list[tuple[Any, ...]]:
    """A conversation as what each message says, for comparison across formats.

    System and user: (role, text); assistant: (role, text, [(call id, name,
    arguments)]); tool: (role, tool_call_id, text, status).
    """
    out: list[tuple[Any, ...]] = []
    for message in history.messages:
        if message.role == "assistant":
            calls = [(c.id, c.name, c.arguments) for c in message.tool_calls or []]
            out.append(("assistant", message.text, calls))
        elif message.role == "tool":
            status = getattr(message, "status", None) or "success"
            out.append(("tool", message.tool_call_id, message.text, status))
        else:
            out.append((message.role, message.text))
    return out


def tools_said(history: Conversation) -> list[tuple[str, str | None, Mapping[str, Any] | None]]:
    """The tools of a conversation as (name, description, parameters)."""
    return [(t.name, t.description, t.parameters) for t in history.tools or []]


# ----------------------------------------------------------------- credentials


def assert_upstream_key(request: FakeRequest, fmt: str, key: str = SECRET) -> None:
    """The upstream request carries ``key`` where format ``fmt`` takes it, and no
    caller credential (unless ``key`` is the caller's) in any header."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    if openai_family(fmt):
        assert headers.get("authorization") == f"Bearer {key}", headers.get("authorization")
    elif fmt == "anthropic":
        assert headers.get("x-api-key") == key, headers.get("x-api-key")
        assert headers.get("anthropic-version"), "no anthropic-version header"
    elif fmt in ("gemini", "gemini_interactions"):
        assert headers.get("x-goog-api-key") == key, headers.get("x-goog-api-key")
        assert "key=" not in request.path
    else:
        authorization = headers.get("authorization", "")
        assert authorization == f"Bearer {key}" or authorization.startswith("AWS4-HMAC-SHA256 "), (
            authorization
        )
    for secret in (CALLER_KEY, *CALLER_AWS):
        if secret != key:
            leaked = [name for name, value in headers.items() if secret in value]
            assert not leaked, f"the caller's credential reached the upstream in {leaked}"
