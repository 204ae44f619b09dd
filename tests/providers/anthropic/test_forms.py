"""Values read in more than one form, written back in the form they came.

Regressions from real traffic the Messages API answered with HTTP 200 (the shapes of
requests recorded by chatlas, llama-index's instrumentation tests, Mirascope and
llm-anthropic; values shortened): empty lists and strings are values, ``null`` is
sent back as ``null``, a blank text block a request had goes back, and ``check``
refuses only what the API refuses.
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import pytest
from conftest import assembled

from chatschema import (
    AssistantMessage,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from chatschema.providers import anthropic as codec
from providers.anthropic.helpers import enc, result, tool_use

ENCODE: Any = importlib.import_module("chatschema.providers.anthropic.encode")


def round_trip(payload: dict[str, Any], *, oracle: bool = True) -> dict[str, Any]:
    """``encode(decode_conversation(payload))``; ``check`` finds nothing.

    ``oracle``: held to the SDK's request types too (a REST body with a top-level
    ``temperature`` is not one of SDK >= 1.0's keyword sets: see test_traffic.py).
    """
    before = copy.deepcopy(payload)
    conversation = codec.decode_conversation(payload)
    assert payload == before
    assert codec.check(conversation) == []
    return enc(conversation) if oracle else codec.encode(conversation)


# ------------------------------------------------- empty lists and strings are values


def test_an_empty_tools_list_goes_back() -> None:
    """chatlas sends ``tools: []`` (with cached system blocks and ``stream``)."""
    payload = {
        "max_tokens": 4096,
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "What is 2+2?",
                        "cache_control": {"type": "ephemeral", "ttl": "5m"},
                    }
                ],
            }
        ],
        "model": "claude-haiku-4-5-20251001",
        "stream": True,
        "system": [
            {
                "type": "text",
                "text": "You answer concisely.",
                "cache_control": {"type": "ephemeral", "ttl": "5m"},
            }
        ],
        "tools": [],
    }
    assert round_trip(payload) == payload
    # with a tool choice too: it goes where no tools were given, as before
    choice = {**payload, "tool_choice": {"type": "none"}}
    assert round_trip(choice) == choice


def test_an_empty_tools_list_of_another_format_is_sent_too() -> None:
    """The neutral ``tools=[]`` (OpenAI Chat's ``tools: []``) is a value: the API takes it."""
    sent = enc({"messages": [{"role": "user", "content": "hi"}], "tools": []})
    assert sent == {"messages": [{"role": "user", "content": "hi"}], "tools": []}


@pytest.mark.parametrize(
    "system",
    [
        "",  # llama-index's Anthropic client, recorded with "system": ""
        [],  # the same client with tools: "system": []
    ],
)
def test_an_empty_system_goes_back(system: Any) -> None:
    payload = {
        "max_tokens": 512,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello!"}]}],
        "model": "claude-3-5-haiku-20241022",
        "stream": False,
        "system": system,
        "temperature": 0.1,
        "tool_choice": {"disable_parallel_tool_use": True, "type": "auto"},
        "tools": [{"name": "get_weather", "description": "Weather.", "input_schema": {}}],
    }
    assert round_trip(payload, oracle=False) == payload
    assert enc([SystemMessage(content=system), UserMessage(content="x")])["system"] == system


def test_a_blank_system_made_elsewhere_is_still_left_out() -> None:
    """Whitespace or blank blocks the neutral model gives are not sent (the API refuses
    blank text blocks: "system: text content blocks must contain non-whitespace text")."""
    for content in (" ", [{"type": "text", "text": " "}]):
        sent = enc([{"role": "system", "content": content}, UserMessage(content="x")])
        assert "system" not in sent


# -------------------------------------------------------------- null goes back as null


def test_block_nulls_go_back() -> None:
    """Mirascope sends ``cache_control: null`` and replays ``citations: null``."""
    payload = {
        "max_tokens": 16000,
        "messages": [
            {"role": "user", "content": "Find out the secret."},
            {
                "role": "assistant",
                "content": [{"citations": None, "text": "Which secret?", "type": "text"}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "The passphrase.", "cache_control": None},
                    {
                        "type": "document",
                        "source": {"type": "text", "media_type": "text/plain", "data": "cake"},
                        "cache_control": None,
                        "title": None,
                    },
                ],
            },
        ],
        "model": "claude-sonnet-4-0",
    }
    assert round_trip(payload) == payload


def test_nulls_of_a_response_are_not_request_keys() -> None:
    """A response's null fields (``citations``, ``caller``) are the server's defaults:
    a replayed reply leaves them out, as before."""
    reply = codec.decode_response(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [
                {"type": "text", "text": "Checking.", "citations": None},
                {"type": "tool_use", "id": "t", "name": "f", "input": {}, "caller": None},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    turn = enc([UserMessage(content="q"), reply, ToolMessage(tool_call_id="t", content="r")])
    assert turn["messages"][1]["content"] == [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "t", "name": "f", "input": {}},
    ]


# --------------------------------------------------- a blank text block a request had


def test_a_blank_text_block_of_a_request_goes_back() -> None:
    """llm-anthropic replays a reply that began with a text block of one space before
    its tool calls; the API took it."""
    payload = {
        "max_tokens": 8192,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Two names for a pelican"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": " "},
                    tool_use("toolu_01A", "pelican_name_generator"),
                    tool_use("toolu_01B", "pelican_name_generator"),
                ],
            },
            {
                "role": "user",
                "content": [result("toolu_01A", "Percy"), result("toolu_01B", "Gulliver")],
            },
        ],
        "model": "claude-haiku-4-5-20251001",
        "temperature": 1.0,
        "tools": [
            {
                "name": "pelican_name_generator",
                "description": "",
                "input_schema": {"properties": {}, "type": "object"},
            }
        ],
        "stream": True,
    }
    assert round_trip(payload, oracle=False) == payload
    # the same text made by another format is left out, as before
    made = AssistantMessage(
        content=[TextBlock(text=" ")],
        tool_calls=[ToolCall(id="toolu_01A", name="pelican_name_generator", arguments={})],
    )
    sent = enc([UserMessage(content="q"), made, ToolMessage(tool_call_id="toolu_01A", content="P")])
    assert sent["messages"][1]["content"] == [tool_use("toolu_01A", "pelican_name_generator")]


# ------------------------------------------------------------ check: only API errors


def _pairs(*turns: list[dict[str, Any]]) -> dict[str, Any]:
    roles = ("user", "assistant")
    return {
        "messages": [
            {"role": roles[number % 2], "content": content} for number, content in enumerate(turns)
        ]
    }


ACCEPTED = {
    # a result for a call of an earlier turn, answered there already, beside the
    # results of the turn before it
    "result-for-an-earlier-turn": _pairs(
        [{"type": "text", "text": "Weather in Oslo?"}],
        [tool_use("toolu_a")],
        [result("toolu_a", "sunny")],
        [tool_use("toolu_b")],
        [result("toolu_b", "rain"), result("toolu_a", "sunny, still")],
    ),
    # results after a turn without calls, their call in an earlier message
    "results-after-a-turn-without-calls": _pairs(
        [{"type": "text", "text": "Weather in Oslo?"}],
        [tool_use("toolu_a")],
        [result("toolu_a", "sunny")],
        [{"type": "text", "text": "It is sunny."}],
        [result("toolu_a", "sunny, updated"), {"type": "text", "text": "And now?"}],
    ),
}


@pytest.mark.parametrize("name", list(ACCEPTED))
@pytest.mark.parametrize("fast", [True, False])
def test_results_the_api_takes_are_no_problem(name: str, fast: bool) -> None:
    payload = ACCEPTED[name]
    ENCODE.FAST = fast
    try:
        assert round_trip(payload) == payload
    finally:
        ENCODE.FAST = True


REFUSED: dict[str, tuple[dict[str, Any], list[tuple[str, str]]]] = {
    # "unexpected `tool_use_id` found in `tool_result` blocks": no call before it
    "result-without-a-call": (
        _pairs(
            [{"type": "text", "text": "q"}],
            [{"type": "text", "text": "a"}],
            [result("toolu_x", "r")],
        ),
        [("/messages/2/tool_call_id", "orphan_tool_result")],
    ),
    # "`tool_use` ids were found without `tool_result` blocks immediately after"
    "call-without-its-result-next": (
        _pairs(
            [{"type": "text", "text": "q"}],
            [tool_use("toolu_a"), tool_use("toolu_b")],
            [result("toolu_a", "1"), {"type": "text", "text": "and"}],
            [{"type": "text", "text": "ok"}],
            [result("toolu_b", "2")],
        ),
        [("/messages/1/tool_calls/1/id", "unanswered_tool_call")],
    ),
}


@pytest.mark.parametrize("name", list(REFUSED))
@pytest.mark.parametrize("fast", [True, False])
def test_what_the_api_refuses_is_still_reported(name: str, fast: bool) -> None:
    payload, expected = REFUSED[name]
    ENCODE.FAST = fast
    try:
        problems = codec.check(codec.decode_conversation(payload))
    finally:
        ENCODE.FAST = True
    assert [(p.pointer, p.keyword) for p in problems] == expected


# ----------------------------------------------------- responses through other hosts


def test_null_counts_in_usage_decode() -> None:
    """Counts sent as null are absent (``MessageDeltaUsage`` makes them optional)."""
    reply = codec.decode_response(
        {
            "id": "msg_bdrk_01",  # Bedrock invoke_model: Anthropic's body, its own ids
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": "Hi."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": None,
                "output_tokens": 3,
                "cache_creation_input_tokens": None,
                "cache_read_input_tokens": None,
                "cache_creation": None,
                "server_tool_use": None,
            },
        }
    )
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (0, 3)
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_vrtx_01",  # Vertex AI: the same events
                "role": "assistant",
                "model": "claude",
                "content": [],
                "usage": {"input_tokens": None, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 2, "input_tokens": None},
        },
        {"type": "message_stop"},
    ]
    message = assembled(list(codec.decode_stream(events)))
    assert message["content"] == [{"type": "text", "text": "Hi"}]
    assert (message["usage"]["input_tokens"], message["usage"]["output_tokens"]) == (0, 2)


def test_media_the_neutral_model_cannot_hold_goes_back_as_it_came() -> None:
    """The SDK's types take any string as a URL or a file id; a value the neutral
    blocks refuse keeps its block verbatim instead of failing the request (a base64
    ``media_type`` outside the SDK's literals is still refused)."""
    payload = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What's the title of this document?"},
                    {
                        "type": "document",
                        "source": {"type": "url", "url": ""},
                        "cache_control": {"type": "ephemeral", "ttl": "5m"},
                    },
                    {"type": "image", "source": {"type": "file", "file_id": ""}},
                    {"type": "image", "source": {"type": "url", "url": "not a url"}},
                ],
            }
        ],
    }
    assert codec.encode(codec.decode_conversation(payload)) == payload
