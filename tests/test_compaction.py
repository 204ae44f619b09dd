"""Compaction blocks: Anthropic ``compaction`` blocks and OpenAI Responses ``compaction``
items, decoded as a neutral CompactionBlock and written back byte for byte.

Recorded traffic (pydantic-ai's cassettes, ``tests/recordings/manifest.yaml``): the
requests that replayed a compaction, the streams that produced one and the request that
followed such a stream. The official SDKs are the oracle for every output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import recorded
from conftest import assembled
from oracle import validate_request
from pydantic import TypeAdapter

from chatschema import (
    AssistantMessage,
    CompactionBlock,
    Conversation,
    TextBlock,
    UnsupportedContentError,
    UserMessage,
    merge_chunks,
)
from chatschema.errors import OptionError
from chatschema.providers import anthropic, openai_responses

ROOT = Path(__file__).resolve().parent
TRAFFIC = ROOT / "traffic"
PAYLOADS = ROOT / "payloads" / "compaction"
RESPONSES_STREAM = PAYLOADS / "openai_responses.compact_stateful_mode_stream.2.json"
RESPONSES_NEXT = (
    TRAFFIC
    / "openai_responses"
    / "test_openai_responses.test_openai_responses_compact_stateful_mode_stream.3.json"
)
RESPONSES_REQUESTS = [
    TRAFFIC / "openai_responses" / name
    for name in (
        "test_openai_responses.test_openai_responses_compact_stateful_mode.2.json",
        "test_openai_responses.test_openai_responses_compact_stateful_mode_stream.3.json",
        "test_openai_responses.test_openai_responses_compact_with_auto_previous_response_id_chain.3.json",
    )
]
ANTHROPIC_REQUEST = (
    TRAFFIC / "anthropic" / "test_anthropic.test_anthropic_compaction_round_trip.0.json"
)
ANTHROPIC_STREAM = PAYLOADS / "anthropic.compaction_usage_with_cache_streaming.0.json"
OTHERS = ("openai_chat", "gemini", "bedrock_converse", "otel_genai")


def _items(payload: dict[str, Any]) -> list[str]:
    """The compaction items of a Responses request, as exact JSON text (key order too)."""
    return [json.dumps(item) for item in payload["input"] if item.get("type") == "compaction"]


def _compactions(conversation: Conversation) -> list[CompactionBlock]:
    return [
        block
        for message in conversation.messages
        if isinstance(message.content, list)
        for block in message.content
        if isinstance(block, CompactionBlock)
    ]


# ------------------------------------------------------------ OpenAI Responses


@pytest.mark.parametrize("path", RESPONSES_REQUESTS, ids=lambda path: path.name[22:70])
def test_recorded_responses_requests_round_trip_their_compaction_items(path: Path) -> None:
    exchange = recorded.load(path)
    request = exchange["request"]
    conversation = openai_responses.decode_conversation(request)
    wanted = _items(request) or [
        json.dumps(item) for item in exchange["response"]["output"] if item["type"] == "compaction"
    ]
    if _items(request):
        blocks = _compactions(conversation)
        assert [block.provider for block in blocks] == ["openai_responses"] * len(blocks)
        assert all(block.encrypted_content and block.id for block in blocks)
        payload = openai_responses.encode(conversation)
        assert _items(payload) == wanted  # byte for byte, key order included
        validate_request("openai_responses", payload)
    else:  # the response made one: it decodes, and replays as the next request's item
        reply = openai_responses.decode_response(exchange["response"])
        block = next(b for b in reply.content if isinstance(b, CompactionBlock))
        assert block.model == exchange["response"]["model"]
        payload = openai_responses.encode(
            [*conversation.messages, reply, UserMessage(content="Go on.")]
        )
        assert [json.loads(item) for item in _items(payload)] == [json.loads(w) for w in wanted]
        validate_request("openai_responses", payload)
        from openai.types.responses import ResponseCompactionItem

        # (the whole body: the recorded usage lacks a count today's SDK requires)
        body = openai_responses.encode_response(reply)
        written = [i for i in body["output"] if i["type"] == "compaction"]
        assert written == [json.loads(w) for w in wanted]
        for item in written:
            ResponseCompactionItem.model_validate(item)


def test_a_streamed_compaction_item_keeps_its_encrypted_content_in_the_next_request() -> None:
    stream = recorded.load(RESPONSES_STREAM)
    following = recorded.load(RESPONSES_NEXT)["request"]
    chunks = list(openai_responses.decode_stream(stream["stream"]))
    reply = merge_chunks(chunks).to_message()
    block = next(b for b in reply.content if isinstance(b, CompactionBlock))
    assert block.model == "gpt-4.1-2025-04-14"  # the response's, as it named it
    # the request that followed (recorded, answered 200): the history, the reply, the
    # new user turn; re-encoded, its compaction item is the one the API took
    history = openai_responses.decode_conversation(stream["request"])
    last = openai_responses.decode_messages({"input": following["input"][-1:]})
    payload = openai_responses.encode(
        Conversation(messages=[*history.messages, reply, *last], settings=history.settings)
    )
    assert _items(payload) and [json.loads(i) for i in _items(payload)] == [
        json.loads(i) for i in _items(following)
    ]
    validate_request("openai_responses", payload)


def test_a_compaction_stream_writes_back_as_sdk_events_and_reads_the_same() -> None:
    from openai.types.responses import ResponseStreamEvent

    chunks = list(openai_responses.decode_stream(recorded.load(RESPONSES_STREAM)["stream"]))
    events = list(openai_responses.encode_stream(chunks))
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    for event in events:
        if "response" not in event:  # (those hold the recorded usage, short of a new count)
            adapter.validate_python(event)
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert [item["type"] for item in done] == ["message", "compaction"]
    again = assembled(list(openai_responses.decode_stream(events)))
    assert again["content"][-1] == assembled(chunks)["content"][-1]


# ------------------------------------------------------------------- Anthropic


def test_recorded_anthropic_request_with_a_compaction_block_round_trips() -> None:
    request = recorded.load(ANTHROPIC_REQUEST)["request"]
    conversation = anthropic.decode_conversation(request)
    (block,) = _compactions(conversation)
    assert (block.text, block.provider) == ("Summary: user said hello.", "anthropic")
    payload = anthropic.encode(conversation)
    assert payload["messages"] == request["messages"]
    validate_request("anthropic", payload)


def test_recorded_anthropic_compaction_stream_replays_and_writes_back() -> None:
    from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent

    exchange = recorded.load(ANTHROPIC_STREAM)
    chunks = list(anthropic.decode_stream(exchange["stream"]))
    reply = merge_chunks(chunks).to_message()
    block = reply.content[0]
    assert isinstance(block, CompactionBlock)
    assert block.text is not None and block.text.startswith("The user provided a very long context")
    assert block.model == "claude-sonnet-4-6"
    payload = anthropic.encode([UserMessage(content="Hi."), reply, UserMessage(content="Go on.")])
    assert payload["messages"][1]["content"][0] == {"type": "compaction", "content": block.text}
    validate_request("anthropic", payload)
    body = anthropic.encode_response(reply)
    BetaMessage.model_validate(body)
    assert body["content"][0] == {"type": "compaction", "content": block.text}
    events = list(anthropic.encode_stream(chunks))
    adapter: TypeAdapter[Any] = TypeAdapter(BetaRawMessageStreamEvent)
    for event in events:
        adapter.validate_python(event)
    assert (
        assembled(list(anthropic.decode_stream(events)))["content"][0]
        == assembled(chunks)["content"][0]
    )


def test_an_sdk_compaction_block_with_every_field_round_trips() -> None:
    from anthropic.types.beta import BetaCompactionBlock

    sdk = BetaCompactionBlock(
        type="compaction",
        content="Summary.",
        encrypted_content="ENC",
        signature="SIG",
        tool_changes=None,
    )
    wire = {**sdk.to_dict(exclude_none=True), "tool_changes": [{"type": "future", "name": "t"}]}
    request = {
        "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": [wire]}]
    }
    conversation = anthropic.decode_conversation(request)
    (block,) = _compactions(conversation)
    assert (block.text, block.encrypted_content, block.signature) == ("Summary.", "ENC", "SIG")
    assert block.extras == {"anthropic": {"tool_changes": [{"type": "future", "name": "t"}]}}
    assert anthropic.encode(conversation)["messages"] == request["messages"]


# ------------------------------------------------------------- other targets


def _history(block: CompactionBlock) -> list[Any]:
    return [
        UserMessage(content="Hello."),
        AssistantMessage(content=[block, TextBlock(text="Hi.")]),
        UserMessage(content="Go on."),
    ]


FOREIGN = CompactionBlock(text="Earlier: a greeting.", encrypted_content="X", provider="anthropic")


@pytest.mark.parametrize("target", [*OTHERS, "openai_responses", "gemini_interactions", "mistral"])
def test_another_provider_s_compaction_is_refused_dropped_or_sent_as_its_summary(
    target: str,
) -> None:
    import importlib

    codec = importlib.import_module(f"chatschema.providers.{target}")
    history = _history(FOREIGN)
    (problem,) = codec.check(history)
    assert (problem.pointer, problem.keyword) == ("/messages/1/content/0", "unsupported_content")
    assert "compaction" in problem.message and "compaction='summary'" in problem.message
    with pytest.raises(UnsupportedContentError):
        codec.encode(history)
    dropped = json.dumps(codec.encode(history, unsupported="drop"))
    summary = json.dumps(codec.encode(history, compaction="summary"))
    assert "Earlier: a greeting." not in dropped and '"X"' not in dropped
    assert "Earlier: a greeting." in summary and '"X"' not in summary
    assert codec.check(history, compaction="summary") == []
    if target != "otel_genai":
        validate_request(target, codec.encode(history, compaction="summary"))


def test_a_responses_compaction_goes_to_anthropic_as_its_policy_says() -> None:
    block = CompactionBlock(encrypted_content="gAAAA", id="cmp_1", provider="openai_responses")
    (problem,) = anthropic.check(_history(block))
    assert problem.keyword == "unsupported_content"
    # no readable text: "summary" has nothing to send, the policy applies
    with pytest.raises(UnsupportedContentError):
        anthropic.encode(_history(block), compaction="summary")
    placeholder = anthropic.encode(_history(block), unsupported="placeholder")
    assert placeholder["messages"][1]["content"][0]["type"] == "text"


def test_bad_compaction_option_values_are_refused() -> None:
    with pytest.raises(OptionError):
        anthropic.encode(_history(FOREIGN), compaction="text")  # type: ignore[typeddict-item]
