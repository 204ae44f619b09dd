"""Bulk calls pause the cyclic garbage collector and give it back as they found it."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import chatschema
from chatschema.providers import anthropic, gemini, openai_chat, openai_responses

HISTORY = [
    message
    for turn in range(50)
    for message in (
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": f"c{turn}", "name": "f", "arguments": {"x": turn}}],
        },
        {"role": "tool", "tool_call_id": f"c{turn}", "content": "42"},
    )
]
TEXT = json.dumps(HISTORY)


@pytest.fixture
def passes() -> Iterator[list[str]]:
    """The collector's passes while the test runs, with a threshold it would reach."""
    seen: list[str] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(phase)

    thresholds = gc.get_threshold()
    enabled = gc.isenabled()
    gc.enable()
    gc.set_threshold(10)
    gc.callbacks.append(record)
    try:
        yield seen
    finally:
        gc.callbacks.remove(record)
        gc.set_threshold(*thresholds)
        (gc.enable if enabled else gc.disable)()


CALLS: dict[str, Callable[[], object]] = {
    "parse_messages": lambda: chatschema.parse_messages(TEXT),
    "parse_conversation": lambda: chatschema.parse_conversation({"messages": HISTORY}),
    "openai_chat.encode": lambda: openai_chat.encode(HISTORY),
    "openai_chat.decode": lambda: openai_chat.decode_messages(openai_chat.encode(HISTORY)),
    "openai_responses.encode": lambda: openai_responses.encode(HISTORY),
    "anthropic.check": lambda: anthropic.check(HISTORY),
    "gemini.encode": lambda: gemini.encode(HISTORY),
}


@pytest.mark.parametrize("name", CALLS)
def test_bulk_calls_run_without_collector_passes(passes: list[str], name: str) -> None:
    # At a threshold of 10 allocations, each call would start hundreds of passes
    # (1,300 for the parse); paused, the collector runs once the call is over, at
    # most once per 10 allocations of what is left of the test's statement.
    parsed = chatschema.parse_messages(TEXT)
    passes.clear()
    CALLS[name]()
    assert len(passes) <= 10
    assert gc.isenabled()
    assert len(parsed) == len(HISTORY)


def test_a_failing_call_gives_the_collector_back(passes: list[str]) -> None:
    with pytest.raises(chatschema.ValidationError):
        chatschema.parse_messages(b'[{"role": "robot"}]')
    with pytest.raises(chatschema.ConversionError):
        openai_chat.decode_messages({"messages": [{"role": "robot"}]})
    assert gc.isenabled()


def test_a_collector_switched_off_stays_off() -> None:
    enabled = gc.isenabled()
    gc.disable()
    try:
        chatschema.parse_messages(json.dumps(HISTORY))
        openai_chat.encode(HISTORY)
        assert not gc.isenabled()
    finally:
        if enabled:
            gc.enable()
