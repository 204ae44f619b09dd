"""A small load test: concurrent streams through one gateway, none lost or crossed.

:data:`STREAMS` requests stream at once through one gateway (official async clients
of four formats, in turn) to a fake Anthropic upstream that spaces its frames, so
that the streams interleave. Each request's user text names it, and the upstream
answers each with its own words (``r7w0 r7w1 ...``) and its own usage: every caller
must get exactly its words, in order, one delta per word, and its usage. Bounded in
count and time (``asyncio.wait_for``); the full 200-stream run is in ``make bench``.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator

import pytest

from chatschema import Conversation, Usage, assistant
from chatschema.testing import FakeRequest, ScriptReply
from gateway.conftest import ASYNC_FORMATS, Answer, Upstream, acall, conversation, token_of

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

STREAMS = 40
"""Concurrent streamed requests."""
WORDS = 12
"""Words per answer (each its own stream event upstream)."""
BOUND = 60
"""Seconds the whole load may take."""

_NUMBER = re.compile(r"-r(\d+)$")


def words(number: int) -> list[str]:
    """The answer of request ``number``, word by word as it streams."""
    return [("" if k == 0 else " ") + f"r{number}w{k}" for k in range(WORDS)]


def reply(history: Conversation, request: FakeRequest) -> ScriptReply:
    """Each request's own answer and usage, from the number in its token."""
    token = token_of(history) or ""
    found = _NUMBER.search(token)
    assert found, f"a request without a number: {token!r}"
    number = int(found.group(1))
    return assistant(
        "".join(words(number)),
        finish_reason="stop",
        usage=Usage(
            input_tokens=1000 + number, output_tokens=WORDS, total_tokens=1000 + number + WORDS
        ),
    )


@pytest.fixture(scope="module")
def loaded() -> Iterator[Upstream]:
    with Upstream("anthropic", latency=0.002) as up:
        up.default = reply
        yield up


def test_concurrent_streams_are_neither_lost_nor_reordered_nor_crossed(
    loaded: Upstream, token: str
) -> None:
    tokens = [f"{token}-r{number}" for number in range(STREAMS)]
    callers = [ASYNC_FORMATS[number % len(ASYNC_FORMATS)] for number in range(STREAMS)]

    async def one(number: int) -> Answer:
        caller = callers[number]
        sent = conversation(caller, tokens[number], tools=False)
        return await acall(caller, loaded.url, sent, stream=True)

    async def load() -> list[Answer]:
        return await asyncio.gather(*(one(number) for number in range(STREAMS)))

    started = time.monotonic()
    answers = asyncio.run(asyncio.wait_for(load(), BOUND))
    took = time.monotonic() - started
    wrong = []
    for number, answer in enumerate(answers):
        want = words(number)
        got = answer.message
        if answer.pieces != want:
            wrong.append((number, callers[number], "pieces", answer.pieces))
        elif got.text != "".join(want):
            wrong.append((number, callers[number], "text", got.text))
        elif got.usage is None or (got.usage.input_tokens, got.usage.output_tokens) != (
            1000 + number,
            WORDS,
        ):
            wrong.append((number, callers[number], "usage", got.usage))
        elif got.finish_reason != "stop":
            wrong.append((number, callers[number], "finish", got.finish_reason))
    assert not wrong, f"{len(wrong)} of {STREAMS} streams came wrong; first: {wrong[:3]}"
    requests = [loaded.requests(each) for each in tokens]
    assert all(len(found) == 1 for found in requests), "a request reached the upstream twice"
    assert all(found[0].finished and found[0].stream for found in requests)
    assert took < BOUND
