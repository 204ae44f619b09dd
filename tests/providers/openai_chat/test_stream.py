"""openai_chat.decode_stream: streamed chunks assemble to exactly what decode_response gives.

Every stream here is checked the same way: its chunks, assembled with
``ChunkAccumulator``, ``merge_chunks`` and ``+``, give ``to_dict`` equal to
``decode_response`` of the equivalent complete response. That response is built by
``complete()`` below with the official SDK's own delta accumulation
(``openai.lib._deltas.accumulate_delta``); for the OpenAI-shaped streams it is also
checked against the SDK's ``ChatCompletionStreamState``, and two payload files write
it out by hand.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.message import AssistantMessage
from conftest import assembled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.lib.streaming._deltas import accumulate_delta
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk
from oracle import validate_request

from chatschema import AudioBlock, UserMessage, parse, to_dict
from chatschema.errors import ChatSchemaError, ConversionError, StreamIncompleteError
from chatschema.providers import openai_chat as oc

PAYLOADS = Path(__file__).parents[2] / "payloads" / "openai_chat"
FILES = {path.stem.removeprefix("stream_"): path for path in sorted(PAYLOADS.glob("stream_*.json"))}
# The one stream whose assembled message differs (see test_text_then_citations_*).
STRING_THEN_CITATIONS = "search_citations"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FILES[name].read_text(encoding="utf-8"))
    return data


# ----------------------------------------------------------------- helpers


def complete(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The complete ChatCompletion a stream stands for, as the SDK accumulates deltas.

    Top-level fields: the first non-empty ``id`` and ``model``, the last value of the
    others (``usage`` included; objects merged, as Azure's per-chunk filter results
    are); the same for a choice's own fields; each choice's message accumulated with the SDK's
    ``accumulate_delta`` (strings appended, tool calls merged by ``index``; OpenRouter's
    ``reasoning_details`` merged by type and index, as its provider does), logprob
    lists extended. Stream-only keys (``obfuscation``, tool calls' ``index``) are left
    out; a message without ``content`` has ``content: null`` as complete ones do.
    """
    response: dict[str, Any] = {"object": "chat.completion"}
    choices: dict[int, dict[str, Any]] = {}
    for event in events:
        if "choices" not in event and "usage" not in event:
            continue
        for key in ("id", "model"):
            if event.get(key) and key not in response:
                response[key] = event[key]
        for key, value in event.items():
            if key not in ("id", "model", "object", "choices", "obfuscation") and value is not None:
                _set(response, key, value)
        for raw in event.get("choices") or []:
            index = raw.get("index", 0)
            state = choices.setdefault(
                index, {"index": index, "message": {}, "logprobs": None, "finish_reason": None}
            )
            delta = copy.deepcopy(raw.get("delta") or {})
            details = delta.pop("reasoning_details", None)
            accumulate_delta(state["message"], delta)
            if isinstance(details, list):
                _merge_details(state["message"], details)
            if raw.get("finish_reason"):
                state["finish_reason"] = raw["finish_reason"]
            logprobs = raw.get("logprobs")
            if logprobs is not None:
                if state["logprobs"] is None:
                    state["logprobs"] = copy.deepcopy(logprobs)
                else:
                    for key, value in logprobs.items():
                        if isinstance(value, list):
                            state["logprobs"][key] = (state["logprobs"].get(key) or []) + value
            for key, value in raw.items():
                if key not in ("index", "delta", "finish_reason", "logprobs") and value is not None:
                    _set(state, key, value)
    for state in choices.values():
        message = state["message"]
        message["role"] = "assistant"
        message.setdefault("content", None)
        for call in message.get("tool_calls") or []:
            call.pop("index", None)
    response["choices"] = list(choices.values())
    return response


def _merge_details(message: dict[str, Any], pieces: list[dict[str, Any]]) -> None:
    """OpenRouter's ``reasoning_details`` pieces, merged by type and index as its AI SDK
    provider does (text, summary, data and signature appended; other values replaced)."""
    merged = message.setdefault("reasoning_details", [])
    for piece in pieces:
        key = (piece["type"], piece.get("index"))
        into = next((d for d in merged if (d["type"], d.get("index")) == key), None)
        if into is None:
            merged.append(dict(piece))
            continue
        for name, value in piece.items():
            if name in ("text", "summary", "data", "signature") and isinstance(value, str):
                into[name] = into.get(name, "") + value
            elif value is not None:
                into[name] = value


def _set(target: dict[str, Any], key: str, value: Any) -> None:
    """The last value wins; objects are merged."""
    current = target.get(key)
    if isinstance(current, dict) and isinstance(value, dict):
        for inner, item in value.items():
            _set(current, inner, item)
    else:
        target[key] = copy.deepcopy(value)


def sdk_complete(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The same through the SDK's ChatCompletionStreamState, less its stream-only helpers."""
    state = ChatCompletionStreamState()
    for event in events:
        state.handle_chunk(ChatCompletionChunk.model_validate(event))
    final = state.get_final_completion().model_dump(mode="json", exclude_unset=True)
    final = {key: value for key, value in final.items() if value is not None}
    final.pop("obfuscation", None)
    for choice in final["choices"]:
        # the snapshot's explicit nulls (annotations, audio ...) mean "absent"
        message = choice["message"]
        choice["message"] = {
            key: value for key, value in message.items() if value is not None or key == "content"
        }
        choice["message"].pop("parsed", None)
        for call in choice["message"].get("tool_calls") or []:
            call.pop("index", None)
            call["function"].pop("parsed_arguments", None)
    return final


def _without_nulls(response: dict[str, Any]) -> dict[str, Any]:
    """A response without the nulls that mean "absent" (top level and messages)."""
    out = {key: value for key, value in response.items() if value is not None}
    out["choices"] = [
        {
            **{
                key: value
                for key, value in choice.items()
                if value is not None or key in ("logprobs", "finish_reason")
            },
            "message": {
                key: value
                for key, value in choice["message"].items()
                if value is not None or key == "content"
            },
        }
        for choice in response["choices"]
    ]
    return out


def sse(events: Iterable[dict[str, Any]], *, done: bool = True) -> bytes:
    """The raw SSE body of a stream."""
    body = b"".join(
        b"data: " + json.dumps(event, ensure_ascii=False).encode() + b"\n\n" for event in events
    )
    return body + (b"data: [DONE]\n\n" if done else b"")


def decode(stream: Iterable[Any]) -> list[AssistantMessageChunk]:
    return list(oc.decode_stream(stream))


def message_of(chunks: list[AssistantMessageChunk]) -> AssistantMessage:
    """The message, assembled the three ways (which must agree), as a model."""
    return parse(assembled(chunks), AssistantMessage)


def assert_assembles_to(chunks: list[AssistantMessageChunk], response: dict[str, Any]) -> None:
    assert assembled(chunks) == to_dict(oc.decode_response(response))


def dumps(chunks: list[AssistantMessageChunk]) -> list[dict[str, Any]]:
    return [to_dict(chunk) for chunk in chunks]


# ----------------------------------------------------------------- the payload streams

EQUAL = FILES


@pytest.mark.parametrize("name", EQUAL)
def test_stream_assembles_to_decode_response(name: str) -> None:
    data = load(name)
    events = data["events"]
    before = copy.deepcopy(events)
    response = complete(events)
    if "response" in data:  # written out by hand: pins complete() down
        assert response == data["response"]
    if data["sdk_oracle"]:
        assert _without_nulls(sdk_complete(events)) == _without_nulls(response)
    chunks = decode(events)
    assert events == before  # the input is not touched
    assert_assembles_to(chunks, response)
    # the same chunks from SDK objects and from the raw SSE body
    assert dumps(decode(ChatCompletionChunk.construct(**event) for event in events)) == dumps(
        chunks
    )
    assert dumps(decode([sse(events)])) == dumps(chunks)
    assert dumps(decode([sse(events).decode()])) == dumps(chunks)
    if data["sdk_oracle"]:
        sdk = [ChatCompletionChunk.model_validate(event) for event in events]
        assert dumps(decode(sdk)) == dumps(chunks)
    # provider on the first chunk, the end marker on the last one only
    assert chunks[0].provider == "openai_chat"
    positions = [chunk.chunk_position for chunk in chunks]
    assert positions[:-1] == [None] * (len(chunks) - 1)
    assert positions[-1] == "last"


def test_plain_text_streams_as_string_content() -> None:
    chunks = decode(load("text_usage")["events"])
    texts = [chunk.content for chunk in chunks if chunk.content]
    assert texts == ["Hello", "! How", " can I help", " you today?"]
    message = message_of(chunks)
    assert message.content == "Hello! How can I help you today?"
    assert message.usage is not None and message.usage.total_tokens == 28
    assert [chunk.usage_mode for chunk in chunks if chunk.usage] == ["cumulative"]
    assert message.response_metadata == {
        "openai_chat": {
            "created": 1757992811,
            "service_tier": "default",
            "system_fingerprint": "fp_560af6e559",
        }
    }


def test_stream_cut_before_the_usage_chunk() -> None:
    events = load("text_usage")["events"][:-1]
    chunks = decode([sse(events, done=False)])
    response = complete(events)
    assert "usage" not in response
    assert_assembles_to(chunks, response)
    assert message_of(chunks).usage is None
    assert chunks[-1].chunk_position == "last"  # the choice finished


def test_stream_cut_mid_arguments() -> None:
    events = load("parallel_tools")["events"][:6]
    chunks: list[AssistantMessageChunk] = []
    with pytest.raises(StreamIncompleteError, match="ended before finish_reason") as cut:
        chunks.extend(oc.decode_stream(events))
    assert cut.value.missing == "finish_reason" and "(1 tool call, text absent)" in str(cut.value)
    assert all(chunk.chunk_position is None for chunk in chunks)  # no proper end
    assert_assembles_to(chunks, complete(events))
    message = message_of(chunks)
    assert message.finish_reason is None
    assert [call.arguments for call in message.invalid_tool_calls] == ['{"city":"Montr\\u00']


def test_parallel_tool_calls_keep_their_exact_text_and_position() -> None:
    data = load("parallel_tools")
    message = message_of(decode(data["events"]))
    first, second = message.tool_calls
    assert (first.index, second.index) == (0, 1)
    assert first.arguments == {
        "city": "Montréal",
        "unit": "celsius",
        "note": 'say "hi" ☃',
    }
    raw = data["response"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert first.extras == {"openai_chat": {"arguments": raw}}
    assert second.arguments == {"city": "Zürich 🌧", "days": 3}
    assert second.extras is None  # json.dumps gives the same text back
    # appended to a history, the calls go back byte for byte
    wire = oc.encode([message], check=False)["messages"][0]["tool_calls"]
    assert [call["function"]["arguments"] for call in wire] == [
        call["function"]["arguments"]
        for call in data["response"]["choices"][0]["message"]["tool_calls"]
    ]


def test_reasoning_then_text_are_blocks() -> None:
    message = message_of(decode(load("reasoning_deepseek")["events"]))
    assert to_dict(message)["content"] == [
        {
            "type": "reasoning",
            "text": "The user asks 6 x 7. That is 42.",
            "provider": "openai_chat",
        },
        {"type": "text", "text": "6 x 7 = **42**."},
    ]
    vllm = message_of(decode(load("reasoning_vllm")["events"]))
    assert to_dict(vllm)["content"][0]["extras"] == {"openai_chat": {"field": "reasoning"}}
    assert vllm.usage is not None and vllm.usage.output_tokens == 9  # running totals, not summed


def test_refusal() -> None:
    message = message_of(decode(load("refusal")["events"]))
    assert to_dict(message)["content"] == [
        {
            "type": "refusal",
            "text": "I'm sorry, I can't help with that.",
            "extras": {"openai_chat": {"as_field": True}},
        }
    ]
    wire = oc.encode([message], check=False)["messages"][0]
    assert wire == {"role": "assistant", "content": None, "refusal": message.content[0].text}  # type: ignore[union-attr]


def test_reasoning_with_citations_and_signature() -> None:
    message = message_of(decode(load("reasoning_citations")["events"]))
    reasoning, text = to_dict(message)["content"]
    assert reasoning["text"] == "Search results say sunny."
    assert text["text"] == "Paris is sunny today [1]."
    assert text["annotations"] == [
        {
            "type": "citation",
            "url": "https://weather.example.com/paris",
            "title": "Weather in Paris",
            "start_index": 22,
            "end_index": 25,
            "extras": {"openai_chat": {"content": "Sunny, 24°C"}},
        }
    ]
    # OpenRouter's reasoning_details: the detail's pieces merged into the reasoning block
    assert reasoning["signature"] == "EqQBCkYIBxgCKkCz0sig"
    assert reasoning["extras"] == {
        "openai_chat": {
            "detail": {"type": "reasoning.text", "format": "anthropic-claude-v1", "index": 0}
        }
    }
    assert message.extras == {"openai_chat": {"details_text": {"field": "reasoning"}}}
    assert message.response_metadata["openai_chat"]["native_finish_reason"] == "end_turn"  # type: ignore[index]


def test_text_then_citations_attach_to_the_streamed_text() -> None:
    # The annotations come after text that streamed as a string, in an unindexed
    # text block: it continues the string run, so they land on the text, as in
    # decode_response.
    events = load(STRING_THEN_CITATIONS)["events"]
    content = assembled(decode(events))["content"]
    assert [block["text"] for block in content] == [
        "Paris is sunny today ([weather.example.com](https://weather.example.com/paris)).",
    ]
    assert content[0]["annotations"][0]["url"] == "https://weather.example.com/paris"
    assert_assembles_to(decode(events), complete(events))


def test_audio_assembles_to_one_block_with_its_id_and_transcript() -> None:
    chunks = decode(load("audio")["events"])
    message = message_of(chunks)
    assert message.content == [
        AudioBlock(
            id="audio_68c8e0f1a2b48191",
            base64="UklGRiQAAABXQVZFZm10IBAAAAABAAEA",  # the data pieces joined
            mime_type="audio/wav",  # RIFF....WAVE
            extras={
                "openai_chat": {
                    "as_field": True,
                    "transcript": "Hello there!",  # the transcript pieces joined
                    "expires_at": 1757999999,
                }
            },
        )
    ]
    assert message.extras is None
    assert "audio" not in message.response_metadata["openai_chat"]  # type: ignore[index]
    # the block comes whole in the last chunk (the accumulator does not join audio data)
    assert [chunk.chunk_position for chunk in chunks if chunk.content] == ["last"]
    # sent back in a history: the id only (Audio guide, multi-turn)
    history = oc.encode([UserMessage(content="Say hello"), message])
    assert history["messages"][1] == {
        "role": "assistant",
        "content": None,
        "audio": {"id": "audio_68c8e0f1a2b48191"},
    }
    validate_request("openai_chat", history)


def test_extra_choices_are_kept_like_decode_response_keeps_them() -> None:
    chunks = decode(load("n2_logprobs")["events"])
    message = message_of(chunks)
    assert message.content == "No."
    metadata = message.response_metadata["openai_chat"]  # type: ignore[index]
    assert [token["token"] for token in metadata["logprobs"]["content"]] == ["No", "."]
    (other,) = metadata["choices"]
    assert other["index"] == 1 and other["message"]["content"] == "Yes!"
    assert [token["token"] for token in other["logprobs"]["content"]] == ["Yes", "!"]
    # the other choice's deltas do not show in the chunks as they stream
    assert [chunk.content for chunk in chunks if chunk.content] == ["No", "."]


# ----------------------------------------------------------------- inline streams


def _event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-inline",
        "object": "chat.completion.chunk",
        "created": 1757990000,
        "model": "some-server-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, **extra}],
    }


def test_calls_without_index_or_reusing_one_get_the_next_position() -> None:
    events = [
        _event({"role": "assistant", "content": None}),
        # no index at all: a new id starts a call, fragments without id continue it
        _event({"tool_calls": [{"id": "a", "type": "function", "function": {"name": "f"}}]}),
        _event({"tool_calls": [{"function": {"arguments": '{"x": '}}]}),
        _event({"tool_calls": [{"function": {"arguments": "1}"}}]}),
        # index 0 again with another id: another call
        _event(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "b",
                        "type": "function",
                        "function": {"name": "g", "arguments": "{}"},
                    }
                ]
            }
        ),
        # the same id repeated on every fragment: the same call
        _event(
            {
                "tool_calls": [
                    {"index": 5, "id": "c", "function": {"name": "h", "arguments": '{"y"'}}
                ]
            }
        ),
        _event({"tool_calls": [{"index": 5, "id": "c", "function": {"arguments": ": 2}"}}]}),
        _event({}, "tool_calls"),
    ]
    response = {
        "id": "chatcmpl-inline",
        "object": "chat.completion",
        "created": 1757990000,
        "model": "some-server-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "a",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"x": 1}'},
                        },
                        {
                            "id": "b",
                            "type": "function",
                            "function": {"name": "g", "arguments": "{}"},
                        },
                        {"id": "c", "function": {"name": "h", "arguments": '{"y": 2}'}},
                    ],
                },
            }
        ],
    }
    chunks = decode(events)
    assert_assembles_to(chunks, response)
    calls = message_of(chunks).tool_calls
    assert [(call.index, call.id) for call in calls] == [(0, "a"), (1, "b"), (2, "c")]
    assert calls[2].extras == {"openai_chat": {"no_type": True}}


def test_custom_tool_call_input_streams_as_json_text() -> None:
    text = 'SELECT "name"\nFROM t -- é'
    events = [
        _event(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_c",
                        "type": "custom",
                        "custom": {"name": "run_sql", "input": ""},
                    }
                ],
            }
        ),
        *(
            _event({"tool_calls": [{"index": 0, "custom": {"input": piece}}]})
            for piece in (text[:9], text[9:16], text[16:])
        ),
        _event({}, "tool_calls"),
    ]
    message = complete(events)
    assert message["choices"][0]["message"]["tool_calls"][0]["custom"]["input"] == text
    chunks = decode(events)
    assert_assembles_to(chunks, message)
    call = message_of(chunks).tool_calls[0]
    assert call.arguments == {"input": text}
    assert oc.encode([message_of(chunks)], check=False)["messages"][0]["tool_calls"] == [
        {"id": "call_c", "type": "custom", "custom": {"name": "run_sql", "input": text}}
    ]


def test_empty_text_and_invalid_arguments() -> None:
    events = [
        _event({"role": "assistant", "content": ""}),
        _event(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "a",
                        "type": "function",
                        "function": {"name": "f", "arguments": "[1, 2]"},
                    }
                ]
            }
        ),
        _event(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "b",
                        "type": "function",
                        "function": {"name": "g", "arguments": '{"oops'},
                    }
                ]
            }
        ),
        _event({}, "tool_calls"),
    ]
    chunks = decode(events)
    assert_assembles_to(chunks, complete(events))
    message = message_of(chunks)
    assert [call.index for call in message.invalid_tool_calls] == [0, 1]
    assert message.content == ""


def test_fields_that_only_come_as_null_are_no_fields() -> None:
    events = [
        _event({"role": "assistant", "content": "", "reasoning": None, "function_call": None}),
        _event({"content": "Hi", "reasoning": None, "reasoning_details": None}),
        _event({"content": "!", "reasoning": None, "tool_calls": []}, "stop"),
    ]
    chunks = decode(events)
    assert_assembles_to(chunks, complete(events))
    message = message_of(chunks)
    assert (message.content, message.extras) == ("Hi!", None)


def test_chunks_come_as_events_arrive() -> None:
    events = load("text_usage")["events"]

    def network() -> Iterator[dict[str, Any]]:
        yield from events[:3]
        raise OSError("connection reset")

    seen: list[AssistantMessageChunk] = []
    with pytest.raises(OSError, match="connection reset"):
        for chunk in oc.decode_stream(network()):
            seen.append(chunk)
    assert (
        "".join(chunk.content for chunk in seen if isinstance(chunk.content, str)) == "Hello! How"
    )


# ----------------------------------------------------------------- hypothesis


def _cut(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    return [text[start:end] for start, end in itertools.pairwise(points)]


TOOLS = load("parallel_tools")
TOOLS_EXPECTED = TOOLS["response"]


def _tool_events(pieces0: list[str], pieces1: list[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = TOOLS["events"]
    head, usage = events[0], events[-1]
    finish = events[-2]
    second = next(
        event
        for event in events
        if event["choices"]
        and event["choices"][0]["delta"].get("tool_calls", [{}])[0].get("id") == "call_X2mKp4Lr8s"
    )

    def piece(index: int, text: str) -> dict[str, Any]:
        event = copy.deepcopy(finish)
        event["choices"][0] = {
            "index": 0,
            "delta": {"tool_calls": [{"index": index, "function": {"arguments": text}}]},
            "logprobs": None,
            "finish_reason": None,
        }
        return event

    return [
        head,
        *(piece(0, text) for text in pieces0),
        second,
        *(piece(1, text) for text in pieces1),
        finish,
        usage,
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(min_value=0, max_value=400), max_size=12),
    st.lists(st.integers(min_value=0, max_value=400), max_size=12),
    st.lists(st.integers(min_value=0, max_value=20000), max_size=30),
)
def test_any_fragmentation_and_any_byte_cuts_assemble_the_same(
    cuts0: list[int], cuts1: list[int], byte_cuts: list[int]
) -> None:
    calls = TOOLS_EXPECTED["choices"][0]["message"]["tool_calls"]
    events = _tool_events(
        _cut(calls[0]["function"]["arguments"], cuts0),
        _cut(calls[1]["function"]["arguments"], cuts1),
    )
    body = sse(events)
    points = sorted({0, len(body), *(cut % (len(body) + 1) for cut in byte_cuts)})
    pieces = [body[start:end] for start, end in itertools.pairwise(points)]
    assert_assembles_to(decode(pieces), TOOLS_EXPECTED)


def test_sse_body_cut_inside_every_utf8_character() -> None:
    body = sse(TOOLS["events"])
    start = body.index("🌧".encode())
    for cut in range(start, start + 5):  # before, inside (3 places) and after the 4 bytes
        pieces = [body[:cut], body[cut : cut + 1], body[cut + 1 :]]
        assert_assembles_to(decode(pieces), TOOLS_EXPECTED)
    snowman = body.index("☃".encode())
    halves = [body[: snowman + 1], body[snowman + 1 : snowman + 2], body[snowman + 2 :]]
    assert_assembles_to(decode(halves), TOOLS_EXPECTED)


def test_events_as_json_text() -> None:
    events = TOOLS["events"]
    texts = [json.dumps(event) for event in events]
    assert dumps(decode(texts)) == dumps(decode(events))


TEXT = load("text_usage")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=200), max_size=15))
def test_any_text_fragmentation_assembles_the_same(cuts: list[int]) -> None:
    events: list[dict[str, Any]] = TEXT["events"]
    text = TEXT["response"]["choices"][0]["message"]["content"]
    middle = []
    for piece in _cut(text, cuts):
        event = copy.deepcopy(events[1])
        event["choices"][0]["delta"]["content"] = piece
        middle.append(event)
    chunks = decode([events[0], *middle, *events[-2:]])
    assert_assembles_to(chunks, TEXT["response"])


# ----------------------------------------------------------------- errors


def test_error_events_raise_naming_the_message() -> None:
    events = load("text_usage")["events"][:2]
    openai_error = {
        "error": {
            "message": "The server had an error while processing your request.",
            "type": "server_error",
            "param": None,
            "code": None,
        }
    }
    vllm_error = {
        "object": "error",
        "message": "This model's maximum context length is 4096 tokens.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
    for error, text in (
        (openai_error, "The server had an error while processing your request."),
        (vllm_error, "maximum context length is 4096 tokens"),
    ):
        seen: list[AssistantMessageChunk] = []
        with pytest.raises(ConversionError, match=text) as info:
            for chunk in oc.decode_stream([*events, error]):
                seen.append(chunk)
        assert info.value.provider == "openai_chat"
        assert "openai_chat" in str(info.value)
        assert seen  # what came before was yielded
        with pytest.raises(ConversionError, match=text):
            decode([sse([*events, error])])


def test_unknown_events_and_comments_are_skipped() -> None:
    events = load("text_usage")["events"]
    noisy = [{"type": "ping"}, events[0], {"object": "keepalive"}, *events[1:]]
    body = b": OPENROUTER PROCESSING\n\n" + sse(noisy)
    chunks = decode([body])
    assert dumps(chunks) == dumps(decode(events))
    assert dumps(decode(noisy)) == dumps(chunks)


def _choice(delta: Any, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, **extra}]}


MALFORMED: list[Any] = [
    [1],
    ["not json"],
    [{"choices": "all of them"}],
    [{"choices": [1]}],
    [{"choices": [{"index": "0", "delta": {}}]}],
    [{"choices": [{"index": -1, "delta": {}}]}],
    [_choice("hello")],
    [_choice({"content": 5})],
    [_choice({"content": ["part"]})],
    [_choice({"role": "user", "content": "x"})],
    [_choice({"tool_calls": {"index": 0}})],
    [_choice({"tool_calls": [5]})],
    [_choice({"tool_calls": [{"index": True, "id": "a"}]})],
    [_choice({"tool_calls": [{"index": 0, "id": 7}]})],
    [_choice({"tool_calls": [{"index": 0, "id": "a", "type": "magic"}]})],
    [_choice({"tool_calls": [{"index": 0, "id": "a", "function": "f()"}]})],
    [_choice({"tool_calls": [{"index": 0, "id": "a", "function": {"name": 3}}]})],
    [
        _choice(
            {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": {}}}]}
        )
    ],
    [_choice({"audio": "bytes"})],
    [_choice({}, finish_reason=5)],
    [{"choices": [], "usage": "lots"}],
    [b"data: {not json}\n\n"],
    [b"data: \xff\xfe\n\n"],
]


@pytest.mark.parametrize("events", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_events_raise_conversion_errors(events: list[Any]) -> None:
    with pytest.raises(ConversionError):
        decode(events)


ODD_VALUES: list[Any] = [None, 0, -1, True, "x", "", [], {}, [None], {"index": "a"}]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def test_odd_values_anywhere_raise_only_chatschema_errors() -> None:
    base = [
        _event(
            {"role": "assistant", "content": "", "reasoning_content": "r"}, logprobs={"content": []}
        ),
        _event(
            {
                "content": "t",
                "refusal": "no",
                "annotations": [{"type": "url_citation", "url_citation": {"url": "u"}}],
            }
        ),
        _event(
            {
                "audio": {"id": "a", "data": "AA"},
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                    }
                ],
            }
        ),
        {
            **_event({}, "stop"),
            "usage": {
                "prompt_tokens": 1,
                "completion_tokens": 1,
                "prompt_tokens_details": {"cached_tokens": 0},
            },
        },
    ]
    runs = 0
    for position, event in enumerate(base):
        for path in _paths(event):
            if not path:
                continue
            for odd in ODD_VALUES:
                events = copy.deepcopy(base)
                target = events[position]
                for key in path[:-1]:
                    target = target[key]
                target[path[-1]] = odd
                runs += 1
                try:
                    chunks = decode(events)
                    if chunks:
                        assembled(chunks)
                except ChatSchemaError:
                    pass
    assert runs > 300
