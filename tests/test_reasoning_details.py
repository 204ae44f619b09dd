"""OpenRouter's ``reasoning_details`` through the ``openai_chat`` codec, on recorded traffic.

Every exchange below was recorded from OpenRouter (and Snowflake Cortex, which answers
in the same shape) by a public project (provenance in ``tests/recordings/manifest.yaml``).
Per exchange:

- a request's history goes back exactly, each detail a ``ReasoningBlock``;
- a response's details are blocks that keep type, format, id, index and data, and
  ``encode_response`` and the next request write the same array back (and the
  ``reasoning`` string next to it);
- a stream's pieces merge by type and index to the details a reference merge (as
  OpenRouter's AI SDK provider accumulates them) gives, and ``encode_stream``
  re-streams them.

Oracles: the official ``openrouter`` SDK's detail and message types (a known detail
type must validate as its own class, not the SDK's catch-all), and the ``openai``
SDK for the rest of each request (:mod:`oracle`).

Also here, the two leftovers: tool calls with ``"arguments": null`` (OpenRouter's
form of a call without arguments) and the recorded Anthropic turn with a blank text
block before its tool calls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import oracle
import pytest
import recorded
from conftest import assembled

from chatschema import (
    AssistantMessage,
    Conversation,
    ReasoningBlock,
    TextBlock,
    ToolMessage,
    UserMessage,
    to_dict,
)
from chatschema.providers import get_codec, openai_chat

openrouter = pytest.importorskip("openrouter.components")

TESTS = Path(__file__).resolve().parent
OPENROUTER = TESTS / "payloads" / "openai_chat" / "openrouter"
TRAFFIC = TESTS / "traffic" / "openai_chat"
WITH_DETAILS = (
    "test_openrouter.test_openrouter_file_annotation.0.json",
    "test_openrouter.test_openrouter_thinking_true_emits_effort_medium.0.json",
    "test_openrouter.test_openrouter_usage.1.json",
    "test_snowflake.test_snowflake_thinking.0.json",
    "test_snowflake.test_snowflake_thinking.1.json",
    "test_snowflake.test_snowflake_thinking_streaming.0.json",
)
"""The exchanges of the traffic corpus that carry ``reasoning_details``."""
FILES = [*recorded.listing(OPENROUTER), *(TRAFFIC / name for name in WITH_DETAILS)]
BLANK_TEXT = TESTS / "payloads" / "anthropic" / "recorded"
CODEC = openai_chat
DETAIL_CLASSES = {
    "reasoning.text": openrouter.ReasoningDetailText,
    "reasoning.summary": openrouter.ReasoningDetailSummary,
    "reasoning.encrypted": openrouter.ReasoningDetailEncrypted,
}
FIELDS = {
    "text": "text",
    "signature": "signature",
    "summary": "summary",
    "data": "encrypted_content",
}


REQUEST_ONLY = {"test_snowflake.test_snowflake_thinking.1.json"}
"""Exchanges whose details are in the request (the response has none)."""


def _params(kind: str) -> list[Any]:
    return [
        pytest.param(path, id=path.name)
        for path in FILES
        if kind in recorded.index(path) and not (kind == "response" and path.name in REQUEST_ONLY)
    ]


def _sdk_details(details: list[Any]) -> None:
    """Each detail validates as OpenRouter's class for its type (strict: no coercion)."""
    for detail in details:
        cls = DETAIL_CLASSES.get(detail["type"])
        if cls is not None:
            cls.model_validate(detail, strict=True)


def _sdk_message(wire: dict[str, Any]) -> None:
    """An assistant message: OpenRouter's type, its details as their own classes."""
    message = openrouter.ChatAssistantMessage.model_validate(wire)
    for detail in message.reasoning_details or ():
        assert not isinstance(detail, openrouter.UnknownReasoningDetail), detail
    _sdk_details(wire.get("reasoning_details") or [])


def _details_of(blocks: list[Any]) -> list[ReasoningBlock]:
    return [
        block
        for block in blocks
        if isinstance(block, ReasoningBlock)
        and "detail" in (block.extras or {}).get("openai_chat", {})
    ]


def _assert_blocks_say(blocks: list[ReasoningBlock], details: list[dict[str, Any]]) -> None:
    """Each detail is one block, in order, with its values in the block's fields."""
    assert len(blocks) == len(details)
    for block, detail in zip(blocks, details, strict=True):
        assert block.provider == "openai_chat"
        kept = (block.extras or {})["openai_chat"]["detail"]
        assert kept["type"] == detail["type"]
        for key in ("format", "index"):
            if key in detail:
                assert kept[key] == detail[key]
        if detail.get("id"):
            assert block.id == detail["id"]
        for key, field in FIELDS.items():
            if isinstance(detail.get(key), str):
                value = getattr(block, field)
                assert (value == [detail[key]]) if field == "summary" else value == detail[key]


# ------------------------------------------------------------------ requests


@pytest.mark.parametrize("path", _params("request"))
def test_request_history_round_trips(path: Path) -> None:
    """A request goes back exactly; a history's details are blocks; the SDKs take it."""
    request = recorded.load(path)["request"]
    conversation = CODEC.decode_conversation(request)
    assert CODEC.encode(conversation) == request
    assert not CODEC.check(conversation)
    for wire, message in zip(request["messages"], conversation.messages, strict=True):
        if "reasoning_details" in wire:
            assert isinstance(message, AssistantMessage)
            assert "reasoning_details" not in (message.extras or {}).get("openai_chat", {})
            _assert_blocks_say(_details_of(list(message.content)), wire["reasoning_details"])
            _sdk_message(wire)
    # the rest of each message is what the OpenAI SDK types say
    bare = [
        {k: v for k, v in wire.items() if k not in ("reasoning_details", "reasoning")}
        for wire in request["messages"]
    ]
    oracle.validate_request("openai_chat", {"messages": bare})


# ------------------------------------------------------------------ responses


@pytest.mark.parametrize("path", _params("response"))
def test_response_details_are_blocks_written_back(path: Path) -> None:
    """Blocks keep every detail; encode_response and the next request write them back."""
    response = recorded.load(path)["response"]
    wire = response["choices"][0]["message"]
    details = wire.get("reasoning_details")
    assert details, "the response carries reasoning_details"
    message = CODEC.decode_response(response)
    blocks = _details_of(list(message.content))
    _assert_blocks_say(blocks, details)
    if isinstance(wire.get("reasoning"), str):
        # OpenRouter's `reasoning` is the details' text: no block of its own
        assert all(
            block in blocks for block in message.content if isinstance(block, ReasoningBlock)
        )
    # the readable text is there for the history utilities; opaque data is not shown
    shown = " ".join(message.content_to_str())
    for detail in details:
        if detail.get("text") or detail.get("summary"):
            assert (detail.get("text") or detail["summary"])[:40] in shown
        if detail.get("data"):
            assert detail["data"][:20] not in shown
    back = CODEC.encode_response(message)["choices"][0]["message"]
    assert back["reasoning_details"] == details
    for key in ("reasoning", "reasoning_content"):
        assert back.get(key) == wire.get(key)
    _sdk_message({k: v for k, v in back.items() if k != "annotations"})
    # the next request: the details go back as they came (OpenRouter's "Preserving
    # reasoning blocks"); the `reasoning` text only on request, as reasoning_content
    turn = Conversation(messages=[UserMessage(content="q"), message, UserMessage(content="more")])
    if message.tool_calls:
        results = [ToolMessage(tool_call_id=call.id, content="ok") for call in message.tool_calls]
        turn = Conversation(messages=[UserMessage(content="q"), message, *results])
    sent = CODEC.encode(turn)["messages"][1]
    assert sent["reasoning_details"] == details
    assert "reasoning" not in sent
    if isinstance(wire.get("reasoning"), str):
        asked = CODEC.encode(turn, reasoning_content=True)["messages"][1]
        assert asked["reasoning"] == wire["reasoning"]


# ------------------------------------------------------------------ streams


def reference_merge(stream: str) -> tuple[list[dict[str, Any]], str]:
    """The details a stream says, merged by type and index as OpenRouter's AI SDK
    provider accumulates them (strings appended, other values replaced), and its
    ``reasoning`` text."""
    merged: dict[tuple[Any, Any], dict[str, Any]] = {}
    reasoning: list[str] = []
    for line in stream.splitlines():
        if not line.startswith("data: {"):
            continue
        for choice in json.loads(line[6:]).get("choices") or ():
            delta = choice.get("delta") or {}
            if isinstance(delta.get("reasoning"), str):
                reasoning.append(delta["reasoning"])
            for piece in delta.get("reasoning_details") or ():
                into = merged.setdefault((piece["type"], piece.get("index")), {})
                for key, value in piece.items():
                    if key in FIELDS and isinstance(value, str):
                        into[key] = into.get(key, "") + value
                    elif value is not None or key not in into:
                        into[key] = value
    return list(merged.values()), "".join(reasoning)


@pytest.mark.parametrize("path", _params("stream"))
def test_stream_pieces_merge_by_index(path: Path) -> None:
    """The assembled blocks are the merged details; encode_stream streams them again."""
    stream = recorded.load(path)["stream"]
    want, reasoning = reference_merge(stream)
    assert want, "the stream carries reasoning_details"
    message = AssistantMessage.model_validate(assembled(list(CODEC.decode_stream([stream]))))
    blocks = _details_of(list(message.content))
    _assert_blocks_say(blocks, want)
    assert isinstance(message.content[0], ReasoningBlock)  # before the text, as it came
    back = CODEC.encode_response(message)["choices"][0]["message"]
    assert back["reasoning_details"] == want
    if reasoning:
        assert back["reasoning"] == reasoning
    _sdk_message(back)
    # re-streamed: every event is an OpenRouter chunk, and it says the same message
    events = list(CODEC.encode_stream(message))
    for event in events:
        openrouter.ChatStreamChunk.model_validate(event)
        for choice in event["choices"]:
            _sdk_details(choice["delta"].get("reasoning_details") or [])
    again = assembled(list(CODEC.decode_stream(events)))
    assert again["content"] == to_dict(message)["content"]


def test_summary_pieces_stream_as_one_summary() -> None:
    """Streamed summary pieces make one summary, as the whole response has it."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "gen-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "openai/o3",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    summary = {"type": "reasoning.summary", "format": "openai-responses-v1", "index": 0}
    events = [
        chunk(
            {
                "role": "assistant",
                "content": "",
                "reasoning": "**Plan**",
                "reasoning_details": [{**summary, "summary": "**Plan**"}],
            }
        ),
        chunk(
            {
                "content": "",
                "reasoning": " go",
                "reasoning_details": [{**summary, "summary": " go"}],
            }
        ),
        chunk(
            {
                "content": "",
                "reasoning_details": [
                    {
                        "type": "reasoning.encrypted",
                        "data": "gAAA",
                        "id": "rs_1",
                        "format": "openai-responses-v1",
                        "index": 0,
                    }
                ],
            }
        ),
        chunk({"content": "Done."}),
        chunk({}, "stop"),
    ]
    message = AssistantMessage.model_validate(assembled(list(CODEC.decode_stream(events))))
    first, second, text = list(message.content)
    assert isinstance(first, ReasoningBlock) and first.summary == ["**Plan** go"]
    assert isinstance(second, ReasoningBlock) and second.encrypted_content == "gAAA"
    assert second.id == "rs_1"
    assert isinstance(text, TextBlock) and text.text == "Done."
    back = CODEC.encode_response(message)["choices"][0]["message"]
    assert back["reasoning"] == "**Plan** go"
    assert back["reasoning_details"] == [
        {**summary, "summary": "**Plan** go"},
        {
            "type": "reasoning.encrypted",
            "data": "gAAA",
            "id": "rs_1",
            "format": "openai-responses-v1",
            "index": 0,
        },
    ]


def test_reasoning_that_is_not_the_details_text_is_a_block_of_its_own() -> None:
    """A ``reasoning`` string other than the details' text stays, both exactly back."""
    wire = {
        "role": "assistant",
        "content": "ok",
        "reasoning": "something else",
        "reasoning_details": [
            {
                "type": "reasoning.text",
                "text": "thought",
                "signature": "sig",
                "format": "anthropic-claude-v1",
                "index": 0,
            },
            {"type": "reasoning.server_tool_call", "format": "unknown", "index": 1, "x": [1]},
        ],
    }
    request = {"model": "m", "messages": [{"role": "user", "content": "q"}, wire]}
    conversation = CODEC.decode_conversation(request)
    plain, text_detail, unknown, _text = list(conversation.messages[1].content)
    assert isinstance(plain, ReasoningBlock) and plain.text == "something else"
    assert isinstance(text_detail, ReasoningBlock) and text_detail.signature == "sig"
    assert isinstance(unknown, ReasoningBlock) and unknown.text is None
    assert CODEC.encode(conversation) == request
    # the same text as the details': no block of its own, back exactly from the history
    wire["reasoning"] = "thought"
    conversation = CODEC.decode_conversation(request)
    assert len(_details_of(list(conversation.messages[1].content))) == 2
    assert sum(isinstance(b, ReasoningBlock) for b in conversation.messages[1].content) == 2
    assert CODEC.encode(conversation) == request
    # DeepSeek's reasoning_content alone: one block, as before
    deepseek = {"role": "assistant", "content": "4", "reasoning_content": "2+2"}
    message = CODEC.decode_conversation({"messages": [deepseek]}).messages[0]
    assert [type(block) for block in message.content] == [ReasoningBlock, TextBlock]
    assert message.content[0].extras == {"openai_chat": {"sent": True}}  # type: ignore[union-attr]


# ------------------------------------------------------------------ "arguments": null


def _null_call_response() -> dict[str, Any]:
    call = {"id": "call_1", "type": "function", "function": {"name": "now", "arguments": None}}
    message = {"role": "assistant", "content": "", "tool_calls": [call]}
    return {
        "id": "gen-1",
        "object": "chat.completion",
        "created": 1,
        "model": "x-ai/grok-4",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
    }


def test_null_arguments_are_an_empty_object_written_back_as_null() -> None:
    """A call without arguments OpenRouter answers with ``null``: ``{}``, and null back."""
    response = _null_call_response()
    message = CODEC.decode_response(response)
    assert message.tool_calls[0].arguments == {}
    assert (
        CODEC.encode_response(message)["choices"][0]["message"]["tool_calls"]
        == (response["choices"][0]["message"]["tool_calls"])
    )
    request = {
        "model": "x-ai/grok-4",
        "messages": [
            {"role": "user", "content": "time?"},
            response["choices"][0]["message"],
            {"role": "tool", "tool_call_id": "call_1", "content": "12:00"},
        ],
    }
    conversation = CODEC.decode_conversation(request)
    assert conversation.messages[1].tool_calls[0].arguments == {}  # type: ignore[union-attr]
    assert CODEC.encode(conversation) == request
    # arguments set since: they are written, not the null
    edited = message.tool_calls[0].model_copy(update={"arguments": {"tz": "UTC"}})
    changed = message.model_copy(update={"tool_calls": [edited]})
    sent = CODEC.encode_response(changed)["choices"][0]["message"]["tool_calls"][0]
    assert sent["function"]["arguments"] == '{"tz": "UTC"}'


def test_null_arguments_in_a_stream() -> None:
    """Streamed, the same call; re-streamed, the null again."""
    response = _null_call_response()
    call = dict(response["choices"][0]["message"]["tool_calls"][0], index=0)
    head = {k: response[k] for k in ("id", "created", "model")}
    events = [
        {
            **head,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}],
        },
        {
            **head,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        },
    ]
    message = assembled(list(CODEC.decode_stream(events)))
    assert message["tool_calls"] == to_dict(CODEC.decode_response(response))["tool_calls"]
    again = list(CODEC.encode_stream(AssistantMessage.model_validate(message)))
    sent = [c for e in again for ch in e["choices"] for c in ch["delta"].get("tool_calls", ())]
    assert sent[0]["function"] == {"name": "now", "arguments": None}
    assert assembled(list(CODEC.decode_stream(again)))["tool_calls"] == message["tool_calls"]


# ------------------------------------------------------------------ Anthropic blank text


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in recorded.listing(BLANK_TEXT)])
def test_a_recorded_blank_text_block_round_trips(path: Path) -> None:
    """llm-anthropic sent a reply's ``{"type": "text", "text": " "}`` back before its
    tool calls and the API took it: it goes back exactly."""
    request = recorded.load(path)["request"]
    blank = [
        block
        for message in request["messages"]
        if message["role"] == "assistant" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "text" and not block["text"].strip()
    ]
    assert blank, "the recorded request has a blank text block"
    codec = get_codec("anthropic")
    conversation = codec.decode_conversation(request)
    assert codec.encode(conversation) == request
    assert not codec.check(conversation)
    # (the SDK takes `temperature` through extra_body only)
    oracle.validate_request("anthropic", {k: v for k, v in request.items() if k != "temperature"})
