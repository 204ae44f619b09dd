"""Round-trip properties of the server side: ``encode_response`` and ``encode_stream``.

For every HTTP format, on assistant messages the format can say (the assistant turns
of ``canonical_conversations``, with a model, a usage and a finish reason drawn):

1. ``encode_response`` writes a body the official SDK's response type reads
   (``oracle.validate_response``); ``decode_response`` gives back the message's
   content and tool calls; and what was read is written again: the body is a fixed
   point (``encode_response(decode_response(body)) == body``, same seed, same time).
2. ``encode_stream`` of that message, and of the same message cut into random chunks
   (text, reasoning and tool-call arguments split anywhere, metadata first, usage and
   finish reason last), decodes (``decode_stream``) and assembles to the same message,
   from the events and from the HTTP body (``sse=True``) alike.

The recorded traffic's round trips are in each format's ``test_write.py``.
"""

from __future__ import annotations

import json
from typing import Any

import hostile as H
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import validate_response
from test_roundtrip_properties import _split, canonical_conversations

import chatschema
from chatschema import AssistantMessage, AssistantMessageChunk, StreamIncompleteError, merge_chunks
from chatschema.providers import HTTP_PROVIDERS, get_http_codec

CREATED = 1_767_225_600
MODELS = st.sampled_from(["gpt-5.4", "claude-sonnet-4-6", "gemini-3-pro", "m"])
FINISH = ("stop", "length", "tool_calls")


@st.composite
def replies(draw: st.DrawFn, provider: str) -> dict[str, Any]:
    """An assistant message ``provider`` can say, with response fields."""
    conversation = draw(canonical_conversations(provider))
    turns = [m for m in conversation["messages"] if m["role"] == "assistant"]
    message = dict(draw(st.sampled_from(turns)))
    message["model"] = draw(MODELS)
    if draw(st.booleans()):
        given_tokens = draw(st.integers(0, 100_000))
        output = draw(st.integers(0, 10_000))
        message["usage"] = {
            "input_tokens": given_tokens,
            "output_tokens": output,
            "total_tokens": given_tokens + output,
        }
    if draw(st.booleans()):
        message["finish_reason"] = "tool_calls" if message.get("tool_calls") else "stop"
    return message


def rechunk(message: AssistantMessage, cuts: list[int]) -> list[AssistantMessageChunk]:
    """``message`` as chunks: metadata first, every text (block text, reasoning text,
    tool-call arguments) cut at ``cuts``, usage and finish reason last."""
    data = chatschema.to_dict(message)
    content = data.pop("content", "")
    calls = data.pop("tool_calls", [])
    last = {
        key: data.pop(key) for key in ("usage", "finish_reason", "raw_finish_reason") if key in data
    }
    chunks: list[dict[str, Any]] = [data]
    if isinstance(content, str):
        chunks += [{"role": "assistant", "content": piece} for piece in _split(content, cuts)]
    else:
        for index, block in enumerate(content):
            text = block.get("text")
            if not isinstance(text, str) or not text:
                chunks.append({"role": "assistant", "content": [{**block, "index": index}]})
                continue
            for number, piece in enumerate(_split(text, cuts)):
                part = (
                    {**block, "text": piece}
                    if number == 0
                    else {"type": block["type"], "text": piece}
                )
                chunks.append({"role": "assistant", "content": [{**part, "index": index}]})
    for position, call in enumerate(calls):
        arguments = call.get("arguments")
        text = arguments if isinstance(arguments, str) else _json(arguments)
        index = call.get("index", position)
        for number, piece in enumerate(_split(text, cuts)):
            fragment: dict[str, Any] = {"index": index, "arguments": piece}
            if number == 0:
                fragment |= {key: call[key] for key in ("id", "name", "extras") if key in call}
            chunks.append({"role": "assistant", "tool_call_chunks": [fragment]})
    chunks.append({"role": "assistant", **last, "chunk_position": "last"})
    return [AssistantMessageChunk.model_validate(chunk) for chunk in chunks]


def _json(value: Any) -> str:
    return json.dumps({} if value is None else value, ensure_ascii=False)  # as the codecs


def assembled(chunks: list[AssistantMessageChunk]) -> dict[str, Any]:
    return chatschema.to_dict(merge_chunks(chunks).to_message())


def _blocks(content: Any) -> Any:
    """Content as blocks: a string is one text block (Converse answers in blocks)."""
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _stamped(blocks: Any, model: str | None) -> Any:
    """Blocks as a decoder gives them back: a reasoning block with opaque values, and a
    compaction block, record the model the response names (provenance)."""
    if model is None or not isinstance(blocks, list):
        return blocks
    stamped = []
    for block in blocks:
        opaque = block.get("type") == "compaction" or (
            block.get("type") == "reasoning"
            and ("signature" in block or "encrypted_content" in block)
        )
        stamped.append({"model": model, **block} if opaque and "model" not in block else block)
    return stamped


def _calls(message: dict[str, Any], made: dict[str, Any]) -> list[dict[str, Any]]:
    """Tool calls without what the format adds to a call that had none: its position
    (``index``) and the made ids it keeps (Responses' item id, in ``extras``)."""
    calls = []
    pairs = zip(message.get("tool_calls", []), made.get("tool_calls", []), strict=True)
    for call, original in pairs:
        drop = {"index"} | ({"extras"} if "extras" not in original else set())
        calls.append({k: v for k, v in call.items() if k not in drop})
    return calls


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_a_reply_round_trips_through_body_and_stream(provider: str) -> None:
    codec = get_http_codec(provider)

    @H.fuzz_settings(40)
    @given(replies(provider), st.integers(0, 2**32), st.lists(st.integers(0, 10_000), max_size=5))
    def run(message: dict[str, Any], seed: int, cuts: list[int]) -> None:
        options: dict[str, Any] = {"id_seed": seed, "created": CREATED}
        model = chatschema.parse(message, AssistantMessage)
        body = codec.encode_response(model, **options)
        validate_response(provider, body)
        decoded = codec.decode_response(body)
        got = chatschema.to_dict(decoded)
        named = message.get("model") if provider != "bedrock_converse" else None
        want_blocks = _stamped(_blocks(message.get("content", "")), named)
        assert _blocks(got.get("content", "")) == want_blocks
        assert len(got.get("tool_calls", [])) == len(message.get("tool_calls", []))
        assert _calls(got, message) == _calls(message, message)
        if provider != "bedrock_converse":  # a Converse response names no model
            assert got["model"] == message["model"]
        if "usage" in message:
            for key in ("input_tokens", "output_tokens", "total_tokens"):
                assert got["usage"][key] == message["usage"][key]
        assert codec.encode_response(decoded, **options) == body

        want = chatschema.to_dict(decoded)
        # Gemini writes no finishReason for a reply without one: its stream has no end
        complete = provider != "gemini" or "finish_reason" in want

        def chunks_of(stream: list[Any]) -> list[AssistantMessageChunk]:
            if complete:
                return list(codec.decode_stream(stream))
            chunks: list[AssistantMessageChunk] = []
            with pytest.raises(StreamIncompleteError):
                chunks.extend(codec.decode_stream(stream))
            return chunks

        for source in (decoded, rechunk(decoded, cuts)):
            events = list(codec.encode_stream(source, **options))
            assert assembled(chunks_of(events)) == want
            raw = b"".join(codec.encode_stream(source, sse=True, **options))
            assert assembled(chunks_of([raw])) == want

    run()
