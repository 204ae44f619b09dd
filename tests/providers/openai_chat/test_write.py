"""The server side of the Chat Completions codec: ``encode_response`` and ``encode_stream``.

What ``decode_response`` and ``decode_stream`` read comes back out (recorded traffic,
``tests/traffic/openai_chat``), every body and event validates with the official SDK's
types (``ChatCompletion``, ``ChatCompletionChunk``), the options and the
unsupported-content policy, bad input, and every kind of source.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
import recorded
from conftest import assembled
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    ConversionError,
    UnsupportedContentError,
    to_dict,
)
from chatschema.errors import OptionError
from chatschema.providers import openai_chat as oc
from providers.openai_chat.helpers import PNG, WAV

TRAFFIC = Path(__file__).resolve().parents[2] / "traffic" / "openai_chat"
NAME = "openai_chat"


def _params(kind: str) -> list[Any]:
    """The recorded exchanges that hold ``kind`` (absent files: skipped tests)."""
    return [
        pytest.param(path, id=path.name[:-5])
        for path in recorded.listing(TRAFFIC)
        if kind in recorded.index(path)
    ]


def without_nulls(value: Any) -> Any:
    """JSON with every ``null`` member left out (the round trip sets nulls aside)."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


COMPATIBLE: frozenset[str] = frozenset({"reasoning_content", "annotations", "audio"})
"""Keys the SDK types do not declare where this codec writes them: DeepSeek's (and
vLLM's) ``reasoning_content``, and a chunk delta's ``annotations`` and ``audio``
(the SDK's ``ChoiceDelta`` has neither; the complete message has both)."""


def unknown_keys(model: pydantic.BaseModel, path: str = "") -> list[str]:
    """The keys an SDK object took that its type does not declare (``model_extra``),
    but for the :data:`COMPATIBLE` ones."""
    found = [f"{path}/{key}" for key in model.model_extra or {} if key not in COMPATIBLE]
    for name in type(model).model_fields:
        value = getattr(model, name)
        items = value if isinstance(value, list) else [value]
        for position, item in enumerate(items):
            if isinstance(item, pydantic.BaseModel):
                where = f"{path}/{name}" + (f"/{position}" if isinstance(value, list) else "")
                found.extend(unknown_keys(item, where))
    return found


def sdk_response(body: dict[str, Any], *, strict: bool = True) -> ChatCompletion:
    """The body as the SDK's ``ChatCompletion``; ``strict``: no key unknown to it."""
    completion = ChatCompletion.model_validate(body)
    assert completion.model_dump(mode="json", exclude_unset=True) == json.loads(json.dumps(body))
    if strict:
        assert unknown_keys(completion) == []
    return completion


def _takes(cls: type[pydantic.BaseModel], data: Any) -> bool:
    """Whether the SDK type takes recorded data (servers send values it refuses)."""
    try:
        cls.model_validate(data)
    except pydantic.ValidationError:
        return False
    return True


def sse_events(body: str) -> list[Any]:
    """The JSON events of a recorded SSE body (``[DONE]`` left out)."""
    return [
        json.loads(line[5:])
        for line in body.splitlines()
        if line.startswith("data:") and line[5:].strip() != "[DONE]"
    ]


def sdk_chunks(events: list[dict[str, Any]], *, strict: bool = True) -> None:
    """Every event validates as a ``ChatCompletionChunk`` (``strict``: no unknown key)."""
    for event in events:
        chunk = ChatCompletionChunk.model_validate(event)
        if strict:
            assert unknown_keys(chunk) == [], event


def streamed(source: Any, **options: Any) -> dict[str, Any]:
    """What ``decode_stream`` assembles of ``encode_stream(source)``."""
    return assembled(list(oc.decode_stream(oc.encode_stream(source, **options))))


# ============================================================ recorded traffic

EMPTY_LISTS = {
    # vLLM, Together and Hugging Face's routers send `tool_calls: []`, which means no
    # call (decode_response drops it: test_server_forms.py, "null and empty")
    "mirascope.input.test_together_provider.meta_llama_Llama_3_3_70B_Instruct_Turbo.0",
    "openinference.test_instrumentor.test_trace_config_hide_inputs.0",
    "openllmetry.test_chat.test_chat_async_context_propagation.0",
    "openllmetry.test_llms.test_trace_propagation_async_ChatOpenAI.0",
    "test_huggingface.test_hf_model_instructions.0",
    "test_huggingface.test_hf_model_thinking_part.1",
    "test_huggingface.test_image_url_input.0",
    "test_huggingface.test_max_completion_tokens.0",
    # `annotations: []` other than OpenAI's own since 2025-03-11 (replies.openai_made):
    # Azure two days after OpenAI had it, and OpenRouter relaying Gemini
    "test_azure.test_azure_provider_call.0",
    "test_openrouter.test_openrouter_video_url_public_api.0",
}
"""Responses whose empty ``tool_calls`` / ``annotations`` lists do not come back
(docs/providers/openai_chat.md, "Writing responses and streams")."""


def lenient(body: Any) -> Any:
    """A body without empty ``tool_calls`` and ``annotations`` lists in its messages."""
    body = without_nulls(body)
    for choice in body.get("choices", []):
        message = choice.get("message", {})
        for key in ("tool_calls", "annotations"):
            if message.get(key) == []:
                del message[key]
    return body


@pytest.mark.parametrize("path", _params("response"))
def test_recorded_response_round_trips(path: Path) -> None:
    """``encode_response(decode_response(body))`` is the body, nulls aside."""
    body = recorded.load(path)["response"]
    got = oc.encode_response(oc.decode_response(body))
    if path.name[:-5] in EMPTY_LISTS:
        assert lenient(got) == lenient(body)
        assert without_nulls(got) != without_nulls(body)  # (still an exception?)
    else:
        assert without_nulls(got) == without_nulls(body)


@pytest.mark.parametrize("path", _params("response"))
def test_recorded_response_validates_as_the_sdk_reads_it(path: Path) -> None:
    """Written again, a body the SDK's ``ChatCompletion`` takes is taken again."""
    body = recorded.load(path)["response"]
    if not _takes(ChatCompletion, body):
        pytest.skip("the recorded body itself is not what the SDK type takes")
    sdk_response(oc.encode_response(oc.decode_response(body)), strict=False)


STREAM_EXCEPTIONS = {
    # a JSON object as content (Cloudflare): no stream delta carries it
    "chatlas.test_provider_cloudflare.test_cloudflare_data_extraction.0": "object content",
    "chatlas.test_provider_cloudflare.test_cloudflare_data_extraction.2": "object content",
    # a server's `index` key on a response's tool call: a stream's fragment key
    "openinference.test_instrumentor.test_chat_with_tool_call.0": "call index",
    "test_deepseek.test_deepseek_deferred_capability_with_thinking.0": "call index",
    # Snowflake's function call with a `custom` key: decode_stream knows `custom`
    "test_snowflake.test_snowflake_thinking.0": "custom beside function",
}
"""Recorded responses whose message a stream cannot carry whole (see the docs)."""


@pytest.mark.parametrize("path", _params("response"))
def test_recorded_response_streams_to_the_same_message(path: Path) -> None:
    """``decode_stream(encode_stream(m))`` assembles to ``m = decode_response(body)``."""
    body = recorded.load(path)["response"]
    message = oc.decode_response(body)
    reason = STREAM_EXCEPTIONS.get(path.name[:-5])
    if reason == "object content":
        with pytest.raises(UnsupportedContentError, match="block 0"):
            list(oc.encode_stream(message))
        return
    events = list(oc.encode_stream(message))
    if _takes(ChatCompletion, body):  # (else what the SDK refuses is the server's)
        sdk_chunks(events, strict=False)
    got = assembled(list(oc.decode_stream(events)))
    if reason is None:
        assert got == to_dict(message)
    else:
        assert got != to_dict(message)


RECORDED_STREAM_EXCEPTIONS = {
    # `"id": ""` throughout: decode_stream learns at the end that no id came; the
    # writer made one at the start
    "test_snowflake.test_snowflake_model_streaming.0",
    "test_snowflake.test_snowflake_thinking_streaming.0",
    # a tool call without `type`: decode_stream says so (no_type) at the end only
    "openinference.test_instrumentor.test_synchronous_streaming_chat_completions_with_too_e36fc1c8.0",
}


@pytest.mark.parametrize("path", _params("stream"))
def test_recorded_stream_re_encodes_to_the_same_message(path: Path) -> None:
    """``c = decode_stream(recorded)``; ``decode_stream(encode_stream(c))`` assembles alike."""
    body = recorded.load(path)["stream"]
    chunks = list(oc.decode_stream([body]))
    events = list(oc.encode_stream(chunks))
    if all(_takes(ChatCompletionChunk, event) for event in sse_events(body)):
        sdk_chunks(events, strict=False)
    got = assembled(list(oc.decode_stream(events)))
    if path.name[:-5] in RECORDED_STREAM_EXCEPTIONS:
        assert got != assembled(chunks)
    else:
        assert got == assembled(chunks)


# ============================================================ built messages

CALL = {"id": "call_A1", "name": "get_weather", "arguments": {"city": "Paris"}}
USAGE = {
    "input_tokens": 120,
    "output_tokens": 40,
    "total_tokens": 160,
    "input_token_details": {"cache_read": 100, "audio": 0},
    "output_token_details": {"reasoning": 12, "audio": 0},
}
BUILT: dict[str, dict[str, Any]] = {
    "text": {"role": "assistant", "content": "Hello.", "model": "gpt-4o"},
    "blocks": {
        "role": "assistant",
        "content": [{"type": "text", "text": "One."}, {"type": "text", "text": "Two."}],
    },
    "tool-calls": {
        "role": "assistant",
        "content": "",
        "tool_calls": [CALL, {**CALL, "id": "call_B2", "arguments": {"city": "Oslo"}}],
        "finish_reason": "tool_calls",
    },
    "reasoning": {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "text": "Think.", "provider": NAME},
            {"type": "text", "text": "Done."},
        ],
    },
    "usage": {"role": "assistant", "content": "Hi.", "usage": USAGE, "finish_reason": "stop"},
    "refusal": {
        "role": "assistant",
        "content": [{"type": "refusal", "text": "I can't help with that."}],
        "finish_reason": "content_filter",
    },
    "length": {"role": "assistant", "content": "Cut", "finish_reason": "length"},
    "other": {"role": "assistant", "content": "?", "finish_reason": "other"},
    "citations": {
        "role": "assistant",
        "content": [
            {
                "type": "text",
                "text": "See example.",
                "annotations": [
                    {
                        "type": "citation",
                        "url": "https://example.com/",
                        "title": "Example",
                        "start_index": 4,
                        "end_index": 11,
                    }
                ],
            }
        ],
    },
    "audio": {
        "role": "assistant",
        "content": [{"type": "audio", "base64": WAV, "mime_type": "audio/wav"}],
    },
}


@pytest.mark.parametrize("name", list(BUILT))
def test_built_messages_are_sdk_responses(name: str) -> None:
    """Every built message is a ``ChatCompletion`` with no key unknown to the SDK."""
    message = AssistantMessage.model_validate(BUILT[name])
    body = oc.encode_response(message, id_seed=1, created=1700000000)
    completion = sdk_response(body)
    assert completion.choices[0].finish_reason in ("stop", "length", "tool_calls", "content_filter")
    again = oc.decode_response(body)
    assert again.tool_calls == [
        call.model_copy(update={"index": position})
        for position, call in enumerate(message.tool_calls)
    ]


@pytest.mark.parametrize("name", list(BUILT))
def test_built_messages_stream_as_sdk_chunks(name: str) -> None:
    """Every event validates as a ``ChatCompletionChunk``; the stream says the message."""
    message = AssistantMessage.model_validate(BUILT[name])
    events = list(oc.encode_stream(message, id_seed=1, created=1700000000))
    sdk_chunks(events)
    assert events[0]["choices"][0]["delta"]["role"] == "assistant"
    body = oc.encode_response(message, id_seed=1, created=1700000000)
    # streamed or whole, the same reply
    assert assembled(list(oc.decode_stream(events))) == to_dict(oc.decode_response(body))


def test_the_text_and_its_side_fields() -> None:
    reasoning = oc.encode_response(AssistantMessage.model_validate(BUILT["reasoning"]))
    message = reasoning["choices"][0]["message"]
    assert (message["content"], message["reasoning_content"]) == ("Done.", "Think.")
    cited = oc.encode_response(AssistantMessage.model_validate(BUILT["citations"]))
    assert cited["choices"][0]["message"]["annotations"] == [
        {
            "type": "url_citation",
            "url_citation": {
                "end_index": 11,
                "start_index": 4,
                "title": "Example",
                "url": "https://example.com/",
            },
        }
    ]
    usage = oc.encode_response(AssistantMessage.model_validate(BUILT["usage"]))["usage"]
    assert usage == {
        "prompt_tokens": 120,
        "completion_tokens": 40,
        "total_tokens": 160,
        "prompt_tokens_details": {"cached_tokens": 100, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 12, "audio_tokens": 0},
    }
    audio = oc.encode_response(AssistantMessage.model_validate(BUILT["audio"]), id_seed=3)
    output = audio["choices"][0]["message"]["audio"]
    assert output["data"] == WAV and re.fullmatch(r"audio_[0-9a-f]{32}", output["id"])


def test_finish_reasons() -> None:
    """Each neutral reason as the SDK's word; none: what the content implies."""
    for neutral, wire in [
        ("stop", "stop"),
        ("length", "length"),
        ("tool_calls", "tool_calls"),
        ("content_filter", "content_filter"),
        ("paused", "stop"),
        ("error", "stop"),
        ("other", "stop"),
    ]:
        message = AssistantMessage(content="x", finish_reason=neutral)
        assert oc.encode_response(message)["choices"][0]["finish_reason"] == wire
    calls = AssistantMessage.model_validate({"role": "assistant", "tool_calls": [CALL]})
    assert oc.encode_response(calls)["choices"][0]["finish_reason"] == "tool_calls"
    other = AssistantMessage(
        content="x", provider="anthropic", finish_reason="stop", raw_finish_reason="end_turn"
    )
    assert oc.encode_response(other)["choices"][0]["finish_reason"] == "stop"


# ============================================================ the stream's shape


def test_the_stream_is_the_apis() -> None:
    """Role first, a tool call's header then its arguments, finish, usage, [DONE]."""
    message = AssistantMessage.model_validate(
        {**BUILT["tool-calls"], "usage": USAGE, "model": "gpt-4o"}
    )
    events = list(oc.encode_stream(message, id_seed=7, created=5))
    assert {event["id"] for event in events} == {events[0]["id"]}
    assert all(event["object"] == "chat.completion.chunk" for event in events)
    assert all((event["created"], event["model"]) == (5, "gpt-4o") for event in events)
    assert events[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    deltas = [event["choices"][0]["delta"] for event in events[1:-2]]
    assert deltas[:2] == [
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_A1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Paris"}'}}]},
    ]
    assert events[-2]["choices"][0] == {
        "index": 0,
        "delta": {},
        "logprobs": None,
        "finish_reason": "tool_calls",
    }
    assert events[-1]["choices"] == [] and events[-1]["usage"]["prompt_tokens"] == 120
    body = list(oc.encode_stream(message, sse=True, id_seed=7, created=5))
    assert body[-1] == b"data: [DONE]\n\n"
    assert [json.loads(frame[6:]) for frame in body[:-1]] == events
    assert all(frame.startswith(b"data: ") and frame.endswith(b"\n\n") for frame in body)


def test_text_deltas_go_out_as_they_come() -> None:
    """A chunk stream: one event per text delta, the same in dicts and in SSE bytes."""
    chunks = [AssistantMessageChunk(content="Hel", model="m"), AssistantMessageChunk(content="lo")]
    chunks.append(AssistantMessageChunk(finish_reason="stop", chunk_position="last"))
    events = list(oc.encode_stream(chunks, id_seed=1, created=2))
    assert [event["choices"][0]["delta"] for event in events[:3]] == [
        {"role": "assistant", "content": "Hel"},
        {"content": "lo"},
        {},
    ]
    frames = list(oc.encode_stream(chunks, sse=True, id_seed=1, created=2))
    assert [json.loads(frame[6:]) for frame in frames[:-1]] == events
    assert streamed(chunks)["content"] == "Hello"


# ============================================================ options


def test_id_seed_gives_the_same_ids_in_openais_shape() -> None:
    message = AssistantMessage.model_validate({"role": "assistant", "content": "Hi."})
    first = oc.encode_response(message, id_seed="t")
    assert first == oc.encode_response(message, id_seed="t")
    assert first["id"] != oc.encode_response(message, id_seed="u")["id"]
    assert re.fullmatch(r"chatcmpl-[A-Za-z0-9]{29}", first["id"])
    events = list(oc.encode_stream(message, id_seed="t"))
    assert events[0]["id"] == next(iter(oc.encode_stream(message, id_seed="t")))["id"]
    invalid = AssistantMessage.model_validate(
        {"role": "assistant", "invalid_tool_calls": [{"name": "f", "arguments": "{", "error": "x"}]}
    )
    call = oc.encode_response(invalid, id_seed=1)["choices"][0]["message"]["tool_calls"][0]
    assert re.fullmatch(r"call_[A-Za-z0-9]{24}", call["id"])


def test_created_and_model_options() -> None:
    message = AssistantMessage(content="Hi.")
    body = oc.encode_response(message, created=1234, model="gpt-4.1")
    assert (body["created"], body["model"]) == (1234, "gpt-4.1")
    assert oc.encode_response(message)["model"] == "unknown"
    named = AssistantMessage(content="Hi.", model="gpt-4o")
    assert oc.encode_response(named, model="gpt-4.1")["model"] == "gpt-4o"
    event = next(iter(oc.encode_stream(message, created=1234, model="gpt-4.1")))
    assert (event["created"], event["model"]) == (1234, "gpt-4.1")


@pytest.mark.parametrize(
    "options", [{"colour": "red"}, {"unsupported": "maybe"}, {"created": "now"}, {"model": ""}]
)
def test_bad_options_raise_at_call_time(options: dict[str, Any]) -> None:
    message = AssistantMessage(content="Hi.")
    with pytest.raises(OptionError):
        oc.encode_response(message, **options)
    with pytest.raises(OptionError):
        oc.encode_stream(message, **options)  # (not iterated)


IMAGE = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "Look:"},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
    ],
}


def test_the_unsupported_policy() -> None:
    """An image in a reply: error naming block 1, dropped, or a placeholder text."""
    message = AssistantMessage.model_validate(IMAGE)
    with pytest.raises(UnsupportedContentError) as error:
        oc.encode_response(message)
    assert error.value.block_index == 1
    with pytest.raises(UnsupportedContentError):
        list(oc.encode_stream(message))
    dropped = oc.encode_response(message, unsupported="drop")
    assert dropped["choices"][0]["message"]["content"] == "Look:"
    placeholder = oc.encode_response(message, unsupported="placeholder")
    text = placeholder["choices"][0]["message"]["content"]
    assert text.startswith("Look:\n[an image block omitted")
    assert streamed(message, unsupported="placeholder")["content"] == text


def test_another_providers_reasoning_signature_goes_through_the_policy() -> None:
    message = AssistantMessage.model_validate(
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "Hm.", "signature": "sig", "provider": "anthropic"},
                {"type": "text", "text": "Yes."},
            ],
        }
    )
    with pytest.raises(UnsupportedContentError, match="anthropic reasoning signature"):
        oc.encode_response(message)
    body = oc.encode_response(message, unsupported="drop")
    assert body["choices"][0]["message"]["reasoning_content"] == "Hm."
    sdk_response(body, strict=False)


# ============================================================ bad input and sources


def test_bad_input_raises_chatschema_errors() -> None:
    with pytest.raises(ConversionError):
        oc.encode_response(42)
    with pytest.raises(ConversionError):
        oc.encode_stream(42)
    with pytest.raises(ConversionError, match="item 1"):
        list(oc.encode_stream([AssistantMessageChunk(content="a"), 42]))


SOURCE = AssistantMessage.model_validate({**BUILT["usage"], "model": "gpt-4o"})


def _chunks() -> list[AssistantMessageChunk]:
    return list(oc.decode_stream(oc.encode_stream(SOURCE, id_seed=2, created=3)))


def test_every_kind_of_source() -> None:
    """A message, one chunk, a list, a generator and an async generator: one reply."""
    chunks = _chunks()
    want = assembled(chunks)

    def generator() -> Iterator[AssistantMessageChunk]:
        yield from chunks

    async def agenerator() -> AsyncIterator[AssistantMessageChunk]:
        for chunk in chunks:
            yield chunk

    async def collect() -> list[Any]:
        return [event async for event in oc.encode_stream(agenerator(), id_seed=2, created=3)]

    from_list = list(oc.encode_stream(chunks, id_seed=2, created=3))
    assert list(oc.encode_stream(generator(), id_seed=2, created=3)) == from_list
    assert asyncio.run(collect()) == from_list
    assert assembled(list(oc.decode_stream(from_list))) == want
    assert streamed(SOURCE, id_seed=2, created=3) == want
    whole = AssistantMessage.model_validate(want)
    one = AssistantMessageChunk.model_validate({**to_dict(whole), "chunk_position": "last"})
    assert streamed(one) == want


def test_a_consumer_that_stops_early_closes_the_source() -> None:
    closed: list[str] = []

    def generator() -> Iterator[AssistantMessageChunk]:
        try:
            while True:
                yield AssistantMessageChunk(content="x")
        finally:
            closed.append("sync")

    stream = oc.encode_stream(generator())
    next(stream)
    stream.close()  # type: ignore[attr-defined]

    async def agenerator() -> AsyncIterator[AssistantMessageChunk]:
        try:
            while True:
                yield AssistantMessageChunk(content="x")
        finally:
            closed.append("async")

    async def main() -> None:
        stream = oc.encode_stream(agenerator(), sse=True)
        await stream.__anext__()
        await stream.aclose()

    asyncio.run(main())
    assert closed == ["sync", "async"]
