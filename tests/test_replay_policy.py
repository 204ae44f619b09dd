"""Where opaque values may be replayed: provenance on decoded blocks and the ``replay``
encode option, on recorded traffic, with the official SDKs as the oracle."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import recorded
from oracle import validate_request

from chatschema import (
    AssistantMessage,
    CompactionBlock,
    Conversation,
    GenerationSettings,
    ReasoningBlock,
    TextBlock,
    UnsupportedContentError,
    UserMessage,
    merge_chunks,
)
from chatschema.errors import OptionError, ReplaySkippedWarning
from chatschema.providers import (
    anthropic,
    bedrock_converse,
    gemini,
    gemini_interactions,
    openai_responses,
)
from chatschema.providers._common.options import dropped_settings_collected
from chatschema.providers._common.replay import DEFAULT_REPLAY, same_model

TRAFFIC = Path(__file__).resolve().parent / "traffic"
RESPONSES = TRAFFIC / "openai_responses"
# a response with encrypted reasoning (gpt-5-mini, answered as gpt-5-mini-2025-08-07)
REASONING = (
    RESPONSES / "openinference.test_responses.test_responses_input_typed_reasoning_item.0.json"
)
# an Anthropic response with a signed thinking block (claude-sonnet-4-5, dated in the reply)
THINKING = (
    TRAFFIC / "anthropic" / "crewai.test_anthropic_thinking_blocks_preserved_across_turns.1.json"
)


def _with(messages: list[Any], model: str | None) -> Conversation:
    settings = GenerationSettings(model=model) if model is not None else None
    return Conversation(messages=messages, settings=settings)


def _responses_turns() -> tuple[dict[str, Any], AssistantMessage]:
    exchange = recorded.load(REASONING)
    return exchange, openai_responses.decode_response(exchange["response"])


def test_decoded_opaque_reasoning_records_the_response_model() -> None:
    exchange, reply = _responses_turns()
    block = next(b for b in reply.content if isinstance(b, ReasoningBlock))
    assert block.encrypted_content and block.model == exchange["response"]["model"]
    thinking = anthropic.decode_response(recorded.load(THINKING)["response"])
    first = thinking.content[0]
    assert isinstance(first, ReasoningBlock) and first.model == "claude-sonnet-4-5-20250929"
    # a request's blocks say nothing of their model
    request = anthropic.decode_conversation(recorded.load(THINKING)["request"])
    assert all(
        getattr(block, "model", None) is None
        for message in request.messages
        if isinstance(message.content, list)
        for block in message.content
    )


def test_same_model_knows_a_dated_snapshot_of_its_alias() -> None:
    assert same_model("gpt-5-mini-2025-08-07", "gpt-5-mini")
    assert same_model("claude-sonnet-4-5-20250929", "claude-sonnet-4-5")
    assert same_model("models/gemini-2.5-flash", "gemini-2.5-flash")
    assert not same_model("gpt-5-mini-2025-08-07", "gpt-5")
    assert not same_model("gemini-2.5-flash", "gemini-2.5-flash-lite")


def test_responses_reasoning_goes_back_to_its_model_only_by_default() -> None:
    exchange, reply = _responses_turns()
    history = [UserMessage(content="What is 2 + 2?"), reply, UserMessage(content="And 3 + 3?")]
    item = next(i for i in exchange["response"]["output"] if i["type"] == "reasoning")
    # the model the request named: the alias of the reply's snapshot, replayed
    same = openai_responses.encode(_with(history, exchange["request"]["model"]))
    assert item in same["input"]
    validate_request("openai_responses", same)
    # another model: not replayed (OpenAI: invalid_encrypted_content), and said so
    other = _with(history, "gpt-5")
    problems = openai_responses.check(other)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/1/content/0", "replay_skipped")
    ]
    assert "gpt-5-mini-2025-08-07" in problems[0].message
    with pytest.warns(ReplaySkippedWarning) as caught:
        payload = openai_responses.encode(other)
    assert caught[0].message.problems == tuple(problems)  # type: ignore[union-attr]
    assert all(i.get("type") != "reasoning" for i in payload["input"])
    validate_request("openai_responses", payload)
    # asked for: replayed to any model of the format
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        anyway = openai_responses.encode(other, replay="same_provider")
    assert item in anyway["input"]
    assert openai_responses.check(other, replay="all") == []


def test_anthropic_thinking_goes_to_any_claude_model_by_default() -> None:
    exchange = recorded.load(THINKING)
    reply = anthropic.decode_response(exchange["response"])
    history = [UserMessage(content="What is 2+2?"), reply, UserMessage(content="And 3+3?")]
    other = _with(history, "claude-opus-4-1")
    assert DEFAULT_REPLAY["anthropic"] == "same_provider"
    assert anthropic.check(other) == []
    payload = anthropic.encode(other)
    assert payload["messages"][1]["content"][0] == exchange["response"]["content"][0]
    validate_request("anthropic", payload)
    # replay="same_model": kept back, reported, never a provider 400
    (problem,) = anthropic.check(other, replay="same_model")
    assert (problem.pointer, problem.keyword) == ("/messages/1/content/0", "replay_skipped")
    with pytest.warns(ReplaySkippedWarning):
        strict = anthropic.encode(other, replay="same_model")
    assert [b["type"] for b in strict["messages"][1]["content"]] == ["text"]
    validate_request("anthropic", strict)
    # the same model (the request's alias of the reply's snapshot) gets it back
    assert anthropic.check(_with(history, "claude-sonnet-4-5"), replay="same_model") == []


def test_a_compaction_kept_back_by_the_policy_follows_the_unsupported_policy() -> None:
    block = CompactionBlock(
        text="Summary.", encrypted_content="E", provider="anthropic", model="claude-sonnet-4-6"
    )
    history = _with(
        [UserMessage(content="a"), AssistantMessage(content=[block]), UserMessage(content="b")],
        "claude-opus-4-1",
    )
    assert anthropic.encode(history)["messages"][1]["content"][0]["type"] == "compaction"
    problems = anthropic.check(history, replay="same_model")
    assert {p.keyword for p in problems} == {"replay_skipped", "unsupported_content"}
    with pytest.raises(UnsupportedContentError), warnings.catch_warnings():
        warnings.simplefilter("ignore", ReplaySkippedWarning)
        anthropic.encode(history, replay="same_model")
    with pytest.warns(ReplaySkippedWarning):
        summary = anthropic.encode(history, replay="same_model", compaction="summary")
    assert summary["messages"][1]["content"] == [{"type": "text", "text": "Summary."}]
    validate_request("anthropic", summary)


@pytest.mark.parametrize(
    "codec", [gemini, gemini_interactions, bedrock_converse], ids=lambda c: c.NAME
)
def test_signed_reasoning_of_another_model(codec: Any) -> None:
    block = ReasoningBlock(text="t", signature="U0lH", provider=codec.NAME, model="model-a")
    history = [
        UserMessage(content="q"),
        AssistantMessage(content=[block, TextBlock(text="a")]),
        UserMessage(content="q2"),
    ]
    default = DEFAULT_REPLAY[codec.NAME]
    for policy in ("same_model", "same_provider", "all"):
        problems = codec.check(_with(history, "model-b"), replay=policy)
        expected = ["replay_skipped"] if policy == "same_model" else []
        assert [p.keyword for p in problems] == expected, policy
    sent = json.dumps(codec.encode(_with(history, "model-b"), replay="all"), default=str)
    assert "U0lH" in sent
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        left = json.dumps(codec.encode(_with(history, "model-b")), default=str)
    assert ("U0lH" in left) is (default != "same_model")
    assert any(isinstance(w.message, ReplaySkippedWarning) for w in caught) is (
        default == "same_model"
    )
    # no model named on either side: nothing says it is another model's
    assert codec.check(history, replay="same_model") == []


def test_what_is_left_out_goes_to_the_collector_instead_of_a_warning() -> None:
    _, reply = _responses_turns()
    history = _with([UserMessage(content="q"), reply, UserMessage(content="q2")], "gpt-5")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with dropped_settings_collected() as found:
            openai_responses.encode(history)
    assert [p.keyword for p in found] == ["replay_skipped"]


STREAMS = [
    (
        "openai_responses",
        RESPONSES / "test_openai_responses.test_openai_responses_streaming_usage.0.json",
    ),
    (
        "anthropic",
        TRAFFIC / "anthropic" / "llm-anthropic.test_anthropic.test_stream_events_thinking.0.json",
    ),
]


@pytest.mark.parametrize(("name", "path"), STREAMS, ids=[name for name, _ in STREAMS])
def test_a_streamed_reply_records_its_model_on_opaque_blocks(name: str, path: Path) -> None:
    import importlib

    codec = importlib.import_module(f"chatschema.providers.{name}")
    stream = recorded.load(path)["stream"]
    reply = merge_chunks(list(codec.decode_stream(stream))).to_message()
    opaque = [
        block
        for block in reply.content
        if isinstance(block, ReasoningBlock)
        and (block.signature is not None or block.encrypted_content is not None)
    ]
    assert opaque and reply.model is not None
    assert {block.model for block in opaque} == {reply.model}


def test_bad_replay_values_are_refused() -> None:
    with pytest.raises(OptionError):
        anthropic.check([UserMessage(content="q")], replay="never")  # type: ignore[typeddict-item]
