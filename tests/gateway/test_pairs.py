"""Every ordered pair of the HTTP formats through the gateway, streamed and not.

A caller of format A (its official client) runs a tool loop through the gateway in
front of a fake provider of format B: the question with a system prompt and a tool,
a tool call back, the tool result sent with the history, the final answer. Each
reply must reach the caller as the upstream scripted it (text, tool call and its id,
finish reason, usage), and each upstream request must say what the caller sent
(system, user text, tools, the assistant's turn, the tool result), in B's format,
with B's model and the gateway's key.
"""

from __future__ import annotations

import asyncio
import base64

import pytest

from chatschema import AssistantMessage, image, tool_result
from chatschema.testing import FakeRequest
from gateway.conftest import (
    ASYNC_FORMATS,
    CALL_IDS,
    FORMATS,
    MODELS,
    PAIRS,
    QUESTION,
    SYSTEM,
    TOOL,
    TOOL_OUTPUT,
    Answer,
    Upstream,
    acall,
    answering,
    assert_upstream_key,
    call,
    calling,
    conversation,
    follow_up,
    question,
    said,
    tools_said,
)

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

STREAMS = [pytest.param(False, id="whole"), pytest.param(True, id="streamed")]
PAIR_IDS = [f"{caller}-to-{upstream}" for caller, upstream in PAIRS]

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
    "AAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
"""A 1x1 PNG."""


def assert_reply(answer: Answer, scripted: AssistantMessage, *, stream: bool) -> None:
    """The caller got what the upstream scripted."""
    got = answer.message
    assert got.text == scripted.text
    assert [(c.id, c.name, c.arguments) for c in got.tool_calls or []] == [
        (c.id, c.name, c.arguments) for c in scripted.tool_calls or []
    ]
    assert got.finish_reason == scripted.finish_reason
    assert got.usage is not None, "the reply lost its usage"
    assert scripted.usage is not None
    assert (got.usage.input_tokens, got.usage.output_tokens) == (
        scripted.usage.input_tokens,
        scripted.usage.output_tokens,
    )
    if stream:
        # translated event by event: the words the fake streams one by one stay apart
        assert answer.deltas >= 3, f"the stream came in {answer.deltas} delta(s)"


def assert_sent(request: FakeRequest, upstream: str, *, stream: bool) -> None:
    """An upstream request as the gateway should send it: B's format, model, key."""
    assert request.format == upstream
    assert request.error is None, request.error
    assert request.status == 200
    assert request.stream is stream
    assert request.model == MODELS[upstream]
    assert request.conversation is not None
    settings = request.conversation.settings
    assert settings is not None and settings.max_output_tokens == 256
    assert tools_said(request.conversation) == [(TOOL.name, TOOL.description, TOOL.parameters)]
    assert_upstream_key(request, upstream)


def assert_loop(up: Upstream, token: str, *, stream: bool) -> None:
    """The two upstream requests of a tool loop say what the caller sent."""
    requests = up.requests(token)
    assert len(requests) == 2, f"{len(requests)} upstream requests"
    first, second = requests
    for request in requests:
        assert_sent(request, up.fmt, stream=stream)
    asked = [("system", SYSTEM), ("user", question(token, QUESTION))]
    assert first.conversation is not None and second.conversation is not None
    assert said(first.conversation) == asked
    call_id = CALL_IDS[up.fmt]
    assert said(second.conversation) == [
        *asked,
        ("assistant", calling(up.fmt, token).text, [(call_id, "get_capital", {"country": "UK"})]),
        ("tool", call_id, TOOL_OUTPUT, "success"),
    ]


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("caller", "upstream"), PAIRS, ids=PAIR_IDS)
def test_a_tool_loop_crosses_the_gateway(
    caller: str, upstream: str, stream: bool, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    sent = conversation(caller, token)
    first = call(caller, up.url, sent, stream=stream)
    assert_reply(first, calling(upstream, token), stream=stream)
    follow_up(sent, first.message)
    second = call(caller, up.url, sent, stream=stream)
    assert_reply(second, answering(token), stream=stream)
    assert_loop(up, token, stream=stream)


ASYNC_CASES = [
    pytest.param(caller, FORMATS[(FORMATS.index(caller) + shift) % len(FORMATS)], stream)
    for caller in ASYNC_FORMATS
    for shift, stream in ((1, True), (2, True), (3, False), (0, True))
]
"""Each async caller streamed against two other formats and its own, and once whole."""


@pytest.mark.parametrize(
    ("caller", "upstream", "stream"),
    ASYNC_CASES,
    ids=[
        f"{p.values[0]}-to-{p.values[1]}-{'streamed' if p.values[2] else 'whole'}"
        for p in ASYNC_CASES
    ],
)
def test_a_tool_loop_crosses_the_gateway_async(
    caller: str, upstream: str, stream: bool, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    sent = conversation(caller, token)

    async def loop() -> tuple[Answer, Answer]:
        first = await acall(caller, up.url, sent, stream=stream)
        follow_up(sent, first.message)
        return first, await acall(caller, up.url, sent, stream=stream)

    first, second = asyncio.run(asyncio.wait_for(loop(), 30))
    assert_reply(first, calling(upstream, token), stream=stream)
    assert_reply(second, answering(token), stream=stream)
    assert_loop(up, token, stream=stream)


@pytest.mark.parametrize(("caller", "upstream"), PAIRS, ids=PAIR_IDS)
def test_an_image_in_the_question_crosses(
    caller: str, upstream: str, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    content = [
        question(token, "What is in this picture?"),
        image(base64=PNG, mime_type="image/png"),
    ]
    sent = conversation(caller, token, content=content)
    answer = call(caller, up.url, sent, stream=False)
    assert_reply(answer, calling(upstream, token), stream=False)
    [request] = up.requests(token)
    assert request.conversation is not None
    asked = request.conversation.messages[1]
    assert asked.role == "user"
    images = [block for block in asked.content if block.type == "image"]  # type: ignore[union-attr]
    assert [(block.base64, block.mime_type) for block in images] == [(PNG, "image/png")]
    assert base64.b64decode(images[0].base64 or "") == base64.b64decode(PNG)


ERROR_CARRIERS = ("anthropic", "gemini", "gemini_interactions", "bedrock_converse")
"""Formats whose tool results say that the tool failed (``is_error``, ``status``)."""


@pytest.mark.parametrize(
    ("caller", "upstream"),
    [(a, b) for a in ERROR_CARRIERS for b in ERROR_CARRIERS],
    ids=[f"{a}-to-{b}" for a in ERROR_CARRIERS for b in ERROR_CARRIERS],
)
def test_a_failed_tool_result_stays_failed(
    caller: str, upstream: str, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    sent = conversation(caller, token)
    first = call(caller, up.url, sent, stream=False)
    sent.messages.append(first.message)
    sent.messages.append(
        tool_result("no such country", tool_call_id=first.message.tool_calls[0].id, status="error")
    )
    call(caller, up.url, sent, stream=False)
    second = up.requests(token)[1]
    assert second.conversation is not None
    assert said(second.conversation)[-1] == ("tool", CALL_IDS[upstream], "no such country", "error")
