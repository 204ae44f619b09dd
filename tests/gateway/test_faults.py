"""Every fault of the gateway, as the caller's official client sees it.

Each fault must reach the caller in its own format's error shape and HTTP status,
raised by its official client as that client's error:

- an upstream 4xx/5xx keeps its status (a rate limit its ``retry-after``);
- a request the upstream format cannot say (audio to Anthropic, another provider's
  hosted tool) is a 400 naming where, and nothing is sent upstream;
- a stream that breaks midway (an error event, or a connection cut) ends with the
  caller's error event: the client raises, never a silent truncated success;
- a caller that goes away mid-stream ends the upstream request;
- an upstream that hangs: ``read_timeout``, then a 504 (an error event once a stream
  has begun); an upstream that cannot be reached: a 502;
- the upstream key never shows in an error body or a log record; the upstream gets
  the configured key, never a caller's of another provider (``pass_key`` passes a
  caller's own key to its own provider only).
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import anthropic as anthropic_sdk
import openai
import pytest
from google.genai import _interactions_errors as interactions_errors
from google.genai import errors as genai_errors
from mistralai.client.errors import SDKError

from chatschema import AudioBlock, Conversation, assistant
from chatschema.gateway import create_app
from chatschema.providers import (
    anthropic,
    bedrock_converse,
    gemini,
    gemini_interactions,
    get_http_codec,
    openai_chat,
    openai_responses,
)
from chatschema.providers.gemini import genai_kwargs
from chatschema.testing import FakeError, FakeRequest, LocalServer, ScriptReply
from gateway.conftest import (
    CALLER_KEY,
    FORMATS,
    PAIRS,
    SECRET,
    Failure,
    Upstream,
    anthropic_client,
    assert_upstream_key,
    bedrock_client,
    call,
    conversation,
    failure,
    new_genai_client,
    openai_client,
    openai_family,
    openai_root,
    question,
    raised,
    serving,
    token_of,
    wait_until,
)

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

STREAMS = [pytest.param(False, id="whole"), pytest.param(True, id="streamed")]
RING = [(caller, FORMATS[(n + 1) % len(FORMATS)]) for n, caller in enumerate(FORMATS)]
"""Each caller format once, each upstream format once, never the same."""
BACK = [(caller, FORMATS[(n - 2) % len(FORMATS)]) for n, caller in enumerate(FORMATS)]
"""Another ring the other way round."""


def ids(pairs: list[tuple[str, str]]) -> list[str]:
    return [f"{caller}-to-{upstream}" for caller, upstream in pairs]


RATE_LIMITED = {
    "openai_chat": "rate_limit_error",
    "openai_responses": "rate_limit_error",
    "open_responses": "rate_limit_error",
    "anthropic": "rate_limit_error",
    "gemini": "RESOURCE_EXHAUSTED",
    "gemini_interactions": "RESOURCE_EXHAUSTED",
    "bedrock_converse": "ThrottlingException",
    "mistral": "rate_limited",
}
SERVER_ERROR = {
    "openai_chat": "server_error",
    "openai_responses": "server_error",
    "open_responses": "server_error",
    "anthropic": "api_error",
    "gemini": "INTERNAL",
    "gemini_interactions": "INTERNAL",
    "bedrock_converse": "InternalServerException",
    "mistral": "internal_error",
}
BAD_REQUEST = {
    "openai_chat": "invalid_request_error",
    "openai_responses": "invalid_request_error",
    "open_responses": "invalid_request_error",
    "anthropic": "invalid_request_error",
    "gemini": "INVALID_ARGUMENT",
    "gemini_interactions": "INVALID_ARGUMENT",
    "bedrock_converse": "ValidationException",
    "mistral": "invalid_request_error",
}


def assert_clean(found: Failure) -> None:
    """No key in the error the caller got."""
    shown = found.message + json.dumps(found.body, default=str)
    assert SECRET not in shown, f"the upstream key is in the error: {shown}"


# ----------------------------------------------------------------- upstream errors


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("caller", "upstream"), PAIRS, ids=ids(PAIRS))
def test_an_upstream_rate_limit_keeps_status_and_retry_after(
    caller: str, upstream: str, stream: bool, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    up.rule(token, [FakeError(429, "Rate limit reached for requests", retry_after=7)])
    found = raised(caller, lambda: call(caller, up.url, conversation(caller, token), stream=stream))
    assert found.status == 429
    assert found.kind == RATE_LIMITED[caller]
    assert "Rate limit reached for requests" in found.message
    assert found.headers.get("retry-after") == "7"
    if openai_family(caller):
        assert isinstance(found.error, openai.RateLimitError)
    elif caller == "anthropic":
        assert isinstance(found.error, anthropic_sdk.RateLimitError)
    elif caller == "gemini":
        assert isinstance(found.error, genai_errors.ClientError)
    elif caller == "gemini_interactions":
        assert isinstance(found.error, interactions_errors.RateLimitError)
    elif caller == "mistral":
        assert isinstance(found.error, SDKError)
    assert_clean(found)
    [request] = up.requests(token)
    assert (request.status, request.stream) == (429, stream)


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("caller", "upstream"), RING + BACK, ids=ids(RING + BACK))
def test_an_upstream_server_error_keeps_its_status(
    caller: str, upstream: str, stream: bool, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    up.rule(token, [FakeError(500, "The server had an error processing your request")])
    found = raised(caller, lambda: call(caller, up.url, conversation(caller, token), stream=stream))
    assert found.status == 500
    assert found.kind == SERVER_ERROR[caller]
    assert "The server had an error processing your request" in found.message
    if openai_family(caller):
        assert isinstance(found.error, openai.InternalServerError)
    elif caller == "anthropic":
        assert isinstance(found.error, anthropic_sdk.InternalServerError)
    elif caller == "gemini":
        assert isinstance(found.error, genai_errors.ServerError)
    elif caller == "gemini_interactions":
        assert isinstance(found.error, interactions_errors.InternalServerError)
    elif caller == "mistral":
        assert isinstance(found.error, SDKError)
    assert_clean(found)


@pytest.mark.parametrize(("caller", "upstream"), RING, ids=ids(RING))
def test_an_upstream_client_error_keeps_its_status(
    caller: str, upstream: str, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    up.rule(token, [FakeError(404, "The model does not exist")])
    found = raised(caller, lambda: call(caller, up.url, conversation(caller, token), stream=False))
    assert found.status == 404
    assert "The model does not exist" in found.message


# ----------------------------------------------------------------- requests B cannot say

WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
"""An empty WAV file."""
AUDIO_CALLERS = ("openai_chat", "gemini", "gemini_interactions", "bedrock_converse")
"""Caller formats that can send audio input."""
AUDIO_CASES = [(caller, upstream) for caller in AUDIO_CALLERS for upstream in ("anthropic",)]


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("caller", "upstream"), AUDIO_CASES, ids=ids(AUDIO_CASES))
def test_audio_for_an_upstream_without_audio_is_a_400_naming_the_block(
    caller: str, upstream: str, stream: bool, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    content = [question(token, "Transcribe this."), AudioBlock(base64=WAV, mime_type="audio/wav")]
    sent = conversation(caller, token, content=content)
    before = len(up.fake.requests)
    found = raised(caller, lambda: call(caller, up.url, sent, stream=stream))
    assert found.status == 400
    assert found.kind == BAD_REQUEST[caller]
    assert "audio" in found.message
    assert "/messages/1/content/1" in found.message, found.message
    assert upstream in found.message
    assert len(up.fake.requests) == before, "the request was sent upstream"
    assert_clean(found)


def _responses_with(url: str, sent: Conversation, tools: list[Any], stream: bool) -> Any:
    with openai_client(url) as client:
        kwargs = {**openai_responses.encode(sent), "tools": tools}
        result = client.responses.create(**kwargs, stream=stream)
        return list(result) if stream else result


def _anthropic_with(url: str, sent: Conversation, tools: list[Any], stream: bool) -> Any:
    with anthropic_client(url) as client:
        kwargs = {**anthropic.encode(sent), "tools": tools}
        if stream:
            with client.messages.stream(**kwargs) as events:
                return events.get_final_message()
        return client.messages.create(**kwargs)


HOSTED = [
    ("openai_responses", "openai_chat"),
    ("openai_responses", "anthropic"),
    ("openai_responses", "gemini"),
    ("openai_responses", "bedrock_converse"),
    ("openai_responses", "gemini_interactions"),
    ("anthropic", "openai_chat"),
    ("anthropic", "gemini"),
    ("anthropic", "gemini_interactions"),
]


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("caller", "upstream"), HOSTED, ids=ids(HOSTED))
def test_a_hosted_tool_of_another_provider_is_a_400_naming_it(
    caller: str, upstream: str, stream: bool, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    sent = conversation(caller, token, tools=False)
    before = len(up.fake.requests)
    if caller == "openai_responses":
        tools: list[Any] = [{"type": "web_search"}]
        found = raised(caller, lambda: _responses_with(up.url, sent, tools, stream))
    else:
        tools = [{"type": "web_search_20250305", "name": "web_search", "max_uses": 2}]
        found = raised(caller, lambda: _anthropic_with(up.url, sent, tools, stream))
    assert found.status == 400
    assert found.kind == BAD_REQUEST[caller]
    assert "web_search" in found.message
    assert upstream in found.message
    assert len(up.fake.requests) == before, "the request was sent upstream"


# ----------------------------------------------------------------- broken streams


def _broken_interaction(url: str, sent: Conversation) -> tuple[str, Any]:
    """An Interactions stream that fails: google-genai raises an HTTP error before the
    stream, and hands over the ``error`` event that ends a stream (never raises it)."""
    gclient = new_genai_client(url)  # kept: a google-genai client closes when collected
    try:
        events = list(gclient.interactions.create(**gemini_interactions.encode(sent), stream=True))
    except interactions_errors.APIError as error:
        found = failure("gemini_interactions", error)
        return found.message, found
    kinds = [event.event_type for event in events]
    assert "interaction.completed" not in kinds, "the stream ended as a success"
    assert kinds and kinds[-1] == "error", f"the stream ended without an error event: {kinds[-3:]}"
    assert kinds.count("error") == 1, kinds
    last = events[-1]
    assert last.error is not None and last.error.code, last
    return last.error.message or "", last


def broken(caller: str, url: str, sent: Conversation) -> tuple[str, Any]:
    """Stream through the gateway and expect the stream to fail: (message, detail).

    The client raises its error (OpenAI Chat ``APIError``, Anthropic
    ``APIStatusError``, google-genai ``APIError``, botocore ``EventStreamError``,
    ``mistralai``'s ``MistralError``); a Responses stream (OpenAI's or Open
    Responses'), which the SDK hands over as events, ends with an ``error`` (or
    ``response.failed``) event and no ``response.completed``; so does an Interactions
    stream (an ``error`` event, no ``interaction.completed``).
    """
    if caller == "gemini_interactions":
        return _broken_interaction(url, sent)
    if caller not in ("openai_responses", "open_responses"):
        found = raised(caller, lambda: call(caller, url, sent, stream=True))
        return found.message, found
    with openai_client(url, root=openai_root(caller)) as client:
        try:
            kwargs = get_http_codec(caller).encode(sent)
            events = list(client.responses.create(**kwargs, stream=True))
        except openai.APIError as error:
            found = failure(caller, error)
            return found.message, found
    kinds = [event.type for event in events]
    assert "response.completed" not in kinds, "the stream ended as a success"
    failed = [event for event in events if event.type in ("error", "response.failed")]
    assert failed, f"the stream ended without an error event: {kinds[-3:]}"
    last = failed[-1]
    assert last is events[-1], "events came after the error"
    if last.type == "error":
        return last.message, last
    return (last.response.error.message if last.response.error else ""), last


@pytest.mark.parametrize(
    "abort", [pytest.param(False, id="error-event"), pytest.param(True, id="cut")]
)
@pytest.mark.parametrize(("caller", "upstream"), RING + BACK, ids=ids(RING + BACK))
def test_a_stream_that_breaks_midway_fails_for_the_caller(
    caller: str, upstream: str, abort: bool, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    up.rule(token, [FakeError(500, "boom in the middle", after=3, abort=abort)])
    message, _ = broken(caller, up.url, conversation(caller, token))
    if abort:
        assert message, "the error says nothing"
    else:
        assert "boom in the middle" in message
    assert SECRET not in message
    [request] = up.requests(token)
    assert (request.status, request.stream) == (200, True)


# ----------------------------------------------------------------- a caller that goes away

LONG = " ".join(f"word{n}" for n in range(40))


def long_rule(history: Conversation, request: FakeRequest) -> ScriptReply:
    return assistant(f"{LONG} ({token_of(history)})", finish_reason="stop")


@pytest.fixture(scope="module")
def slow() -> Iterator[Upstream]:
    """An Anthropic upstream that sends a frame every 20 ms."""
    with Upstream("anthropic", latency=0.02) as up:
        up.default = long_rule
        yield up


def abandon(
    caller: str, url: str, sent: Conversation, on_first: Callable[[], None] = lambda: None
) -> None:
    """Open a stream with the caller's client, read its first event, and go away.

    ``on_first`` runs once the first event is in, before the stream is closed.
    """
    if caller == "openai_chat":
        with openai_client(url) as client:
            stream: Any = client.chat.completions.create(**openai_chat.encode(sent), stream=True)
            next(iter(stream))
            on_first()
            stream.close()
    elif caller in ("openai_responses", "open_responses"):
        with openai_client(url, root=openai_root(caller)) as client:
            kwargs = get_http_codec(caller).encode(sent)
            stream = client.responses.create(**kwargs, stream=True)
            next(iter(stream))
            on_first()
            stream.close()
    elif caller == "anthropic":
        with anthropic_client(url) as aclient:
            stream = aclient.messages.create(**anthropic.encode(sent), stream=True)
            next(iter(stream))
            on_first()
            stream.close()
    elif caller == "gemini":
        gclient = new_genai_client(url)
        chunks = gclient.models.generate_content_stream(**genai_kwargs(gemini.encode(sent)))
        next(chunks)
        on_first()
        chunks.close()
        gclient.close()
    elif caller == "gemini_interactions":
        gclient = new_genai_client(url)
        stream = gclient.interactions.create(**gemini_interactions.encode(sent), stream=True)
        next(iter(stream))
        on_first()
        stream.close()
        gclient.close()
    else:
        response = bedrock_client(url).converse_stream(**bedrock_converse.encode(sent))
        events = response["stream"]
        next(iter(events))
        on_first()
        events.close()


@pytest.mark.parametrize("caller", FORMATS)
def test_the_first_event_leaves_before_the_upstream_stream_ends(
    caller: str, slow: Upstream, token: str
) -> None:
    """Streams are translated live: the caller's first event comes while the upstream
    is still sending (its answer takes about a second)."""
    seen: list[bool] = []

    def first() -> None:
        [request] = slow.requests(token)
        seen.append(request.finished)

    abandon(caller, slow.url, conversation(caller, token), first)
    assert seen == [False], "the caller's first event came after the upstream stream ended"


def test_a_caller_that_goes_away_ends_the_upstream_request(slow: Upstream, token: str) -> None:
    tokens = {caller: f"{token}-{n}" for n, caller in enumerate(FORMATS)}
    control = f"{token}-whole"
    done: list[Any] = []
    reader = threading.Thread(
        target=lambda: done.append(
            call("openai_chat", slow.url, conversation("openai_chat", control), stream=True)
        )
    )
    reader.start()  # a caller that stays: its upstream stream runs to the end
    started = time.monotonic()
    for caller, each in tokens.items():
        abandon(caller, slow.url, conversation(caller, each))
    abandoned = time.monotonic() - started
    reader.join(15)
    assert done and LONG in done[0].message.text, "the caller that stayed got no whole answer"
    [kept] = slow.requests(control)
    assert kept.finished, "the upstream stream of the caller that stayed did not finish"
    # the streams left would have finished by now (they began at most `abandoned` later)
    gone = {caller: slow.requests(each) for caller, each in tokens.items()}
    assert all(len(requests) == 1 for requests in gone.values()), gone
    wait_until(lambda: any(r[0].finished for r in gone.values()), abandoned + 1.0)
    still = [caller for caller, requests in gone.items() if requests[0].finished]
    assert not still, f"the upstream stream ran to its end after these callers went away: {still}"


# ----------------------------------------------------------------- hangs, unreachable


@pytest.fixture(scope="module")
def hanging() -> Iterator[Upstream]:
    """An upstream that waits 5 s before each answer and frame; the gateway waits 0.5 s."""
    with Upstream("anthropic", latency=5, read_timeout=0.5) as up:
        yield up


def _hang(caller: str, stream: bool, url: str, token: str) -> str | None:
    """One request to the hanging upstream: what went wrong (None: all as it should)."""
    sent = conversation(caller, token)
    started = time.monotonic()
    try:
        if stream:
            message, detail = broken(caller, url, sent)
            status = detail.status if isinstance(detail, Failure) else None
            # before the stream began: a 504; after it: an error event saying the timeout
            if not (status == 504 or (status in (200, None) and "did not answer" in message)):
                return f"status {status}: {message}"
        else:
            found = raised(caller, lambda: call(caller, url, sent, stream=False))
            if found.status != 504:
                return f"status {found.status}: {found.message}"
            assert_clean(found)
    except AssertionError as error:
        return f"{type(error).__name__}: {error}"
    took = time.monotonic() - started
    return f"took {took:.1f} s: the gateway did not time out" if took > 3 else None


def test_an_upstream_that_hangs_is_a_504_or_a_timeout_event(hanging: Upstream, token: str) -> None:
    """Every caller, streamed and not, at once: each waits ``read_timeout`` (0.5 s)."""
    cases = [(caller, stream) for caller in FORMATS for stream in (False, True)]
    tokens = {case: f"{token}-{n}" for n, case in enumerate(cases)}
    with ThreadPoolExecutor(len(cases)) as pool:
        futures = {
            case: pool.submit(_hang, case[0], case[1], hanging.url, tokens[case]) for case in cases
        }
        outcomes = {case: future.result(timeout=30) for case, future in futures.items()}
    wrong = {
        f"{caller}-{'streamed' if stream else 'whole'}": outcome
        for (caller, stream), outcome in outcomes.items()
        if outcome is not None
    }
    assert not wrong, wrong
    assert all(len(hanging.requests(each)) == 1 for each in tokens.values())


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def unreachable() -> Iterator[str]:
    """A gateway whose upstream's port has nobody listening."""
    app = create_app("anthropic", f"http://127.0.0.1:{_closed_port()}", api_key=SECRET)
    with LocalServer(app, name="gateway") as server:
        yield server.url


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("caller", FORMATS)
def test_an_upstream_that_cannot_be_reached_is_a_502(
    caller: str, stream: bool, unreachable: str, token: str
) -> None:
    found = raised(
        caller, lambda: call(caller, unreachable, conversation(caller, token), stream=stream)
    )
    assert found.status == 502
    assert found.kind == SERVER_ERROR[caller] or caller == "bedrock_converse"
    assert_clean(found)


# ----------------------------------------------------------------- secrets


def test_the_key_stays_out_of_error_bodies_and_logs(
    upstreams: dict[str, Upstream], token: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    failures: list[Failure] = []
    faults = [
        FakeError(429, "Rate limit reached", retry_after=7),
        FakeError(500, "Internal error"),
        FakeError(401, f"Incorrect API key provided: {SECRET}"),
        FakeError(400, f"Bad request for key {SECRET}"),
    ]
    for n, (caller, upstream) in enumerate(RING):
        up = upstreams[upstream]
        for m, fault in enumerate(faults):
            each = f"{token}-{n}{m}"
            up.rule(each, [fault])
            sent = conversation(caller, each)
            failures.append(raised(caller, partial(call, caller, up.url, sent, stream=m % 2 == 1)))
        each = f"{token}-{n}b"
        up.rule(each, [FakeError(500, f"stream broke, key {SECRET}", after=2)])
        message, _ = broken(caller, up.url, conversation(caller, each))
        assert SECRET not in message
    for found in failures:
        assert_clean(found)
    for record in caplog.records:
        text = logging.Formatter().format(record)
        assert SECRET not in text, f"the upstream key is logged by {record.name}: {text}"
        if record.name.startswith(("chatschema", "uvicorn")):
            assert CALLER_KEY not in text, f"a caller's key is logged by {record.name}: {text}"


@pytest.fixture(scope="module")
def passing() -> Iterator[dict[str, Upstream]]:
    """Gateways that pass a caller's own key to its own provider (``pass_key``)."""
    passed = ("anthropic", "openai_responses", "gemini", "gemini_interactions")
    ups = (Upstream(fmt, pass_key=True) for fmt in passed)
    with serving(*ups) as started:
        yield {up.fmt: up for up in started}


OWN_KEY = "sk-callers-own-key-123"
PASSING = [
    ("anthropic", "anthropic", True),
    ("openai_chat", "anthropic", False),
    ("gemini", "anthropic", False),
    ("openai_chat", "openai_responses", True),
    ("openai_responses", "openai_responses", True),
    ("anthropic", "openai_responses", False),
    ("bedrock_converse", "openai_responses", False),
    ("mistral", "openai_responses", False),
    ("gemini", "gemini", True),
    ("openai_chat", "gemini", False),
    # Gemini's two APIs take the same Google API key
    ("gemini_interactions", "gemini_interactions", True),
    ("gemini_interactions", "gemini", True),
    ("gemini", "gemini_interactions", True),
    ("gemini_interactions", "anthropic", False),
    ("anthropic", "gemini_interactions", False),
]
"""(caller, upstream, whether the caller's key goes through)."""


@pytest.mark.parametrize(
    ("caller", "upstream", "passed"),
    PASSING,
    ids=[f"{caller}-to-{upstream}" for caller, upstream, _ in PASSING],
)
def test_pass_key_passes_a_callers_key_to_its_own_provider_only(
    caller: str, upstream: str, passed: bool, passing: dict[str, Upstream], token: str
) -> None:
    up = passing[upstream]
    call(caller, up.url, conversation(caller, token), stream=False, key=OWN_KEY)
    [request] = up.requests(token)
    assert_upstream_key(request, upstream, OWN_KEY if passed else SECRET)
    if not passed:
        assert not [name for name, value in request.headers.items() if OWN_KEY in value]
