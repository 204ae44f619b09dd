"""Gemini's server side: ``encode_response`` and ``encode_stream``.

What ``decode_response`` and ``decode_stream`` read comes back out: every recorded
response body round-trips (``tests/traffic/gemini``, nulls and key order aside, but
for the exceptions :data:`EXCEPTIONS` lists, each asserted as the exact difference
it makes), every recorded stream and every decoded response re-encodes to events
that decode to the same message; google-genai's ``GenerateContentResponse`` (the
response type and each stream event's) validates every body written, strictly
(``extra="forbid"``: no key is left unread).
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import recorded
from conftest import assembled
from google.genai import types

from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    ConversionError,
    UnsupportedContentError,
    to_dict,
)
from chatschema.errors import ChatSchemaError, OptionError, StreamIncompleteError
from chatschema.providers import gemini
from chatschema.providers.gemini import wire
from chatschema.testing import split_message

TRAFFIC = Path(__file__).resolve().parents[2] / "traffic" / "gemini"
FILES = recorded.listing(TRAFFIC)
RESPONSES = [pytest.param(p, id=p.stem[:80]) for p in FILES if "response" in recorded.index(p)]
STREAMS = [pytest.param(p, id=p.stem[:80]) for p in FILES if "stream" in recorded.index(p)]

MADE_ID = "test_openai.test_multiple_agent_tool_calls.0"
"""The one recorded response without ``responseId`` (gemini-2.0-flash-exp)."""

EXCEPTIONS: dict[str, str] = {
    MADE_ID: "no responseId: one is made (Gemini always sends one today)",
    "crewai.llms.google.test_gemini_tool_returning_float.1": (
        "a bare {'text': ''} part carries nothing: decode_response keeps no block for it"
    ),
    "test_google.test_google_model_armor_response_template_real_block.0": (
        "a candidate without content: decode_response keeps no trace of the absence"
    ),
    "test_google.test_google_model_safety_settings.0": (
        "a candidate content {} (no role): decode_response keeps no trace of it"
    ),
}
"""Recorded responses that cannot come back exactly, with the reason (docs page,
*Writing responses and streams*)."""

UNMODELED = {("usageMetadata", "serviceTier")}
"""Fields of recorded bodies google-genai 3.6 does not model (its ``extra="forbid"``
refuses them): they come from the recordings, never from the writer."""

ENUMS: dict[str, Any] = {
    "finishReason": wire.FINISH_REASON_NUMBERS,
    "modality": wire.MODALITY_NUMBERS,
    "outcome": wire.OUTCOME_NUMBERS,
    "blockReason": wire.BLOCK_REASON_NUMBERS,
}
SDK_ENUMS: dict[str, Any] = {
    "trafficType": types.TrafficType,
    "category": types.HarmCategory,
    "probability": types.HarmProbability,
    "severity": types.HarmSeverity,
}


# ------------------------------------------------------------------------ helpers


def without_nulls(value: Any) -> Any:
    """JSON with every ``null`` member left out."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def _names(value: Any) -> Any:
    """Enums sent as numbers (``enum-encoding=int``, which google-genai does not read)
    as names, for the oracle."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if type(item) is int and key in ENUMS:
                out[key] = ENUMS[key].get(item, "OTHER")
            elif type(item) is int and key in SDK_ENUMS:
                out[key] = list(SDK_ENUMS[key])[item].value
            else:
                out[key] = _names(item)
        return out
    if isinstance(value, list):
        return [_names(item) for item in value]
    return value


def validate(body: dict[str, Any]) -> types.GenerateContentResponse:
    """google-genai's ``GenerateContentResponse`` reads the REST body, strictly.

    The type forbids unknown fields and takes the camelCase aliases: every key of the
    body is one the SDK reads (but :data:`UNMODELED`, only when the body has it).
    """
    data = _names(copy.deepcopy(body))
    usage = data.get("usageMetadata")
    if isinstance(usage, dict):
        for _, key in UNMODELED:
            usage.pop(key, None)
    return types.GenerateContentResponse.model_validate(data)


def strict(body: dict[str, Any]) -> types.GenerateContentResponse:
    """:func:`validate` with nothing left out: for bodies written from built messages."""
    return types.GenerateContentResponse.model_validate(copy.deepcopy(body))


def reassembled(events: Any, *, finished: bool = True) -> dict[str, Any]:
    """The message events decode to (assembled the three ways); a stream written for a
    message without a finish reason has no end, which decoding reports after its chunks."""
    if finished:
        return assembled(list(gemini.decode_stream(events)))
    chunks: list[AssistantMessageChunk] = []
    with pytest.raises(StreamIncompleteError, match="ended before finishReason"):
        chunks.extend(gemini.decode_stream(events))
    return assembled(chunks)


def chunks_of(path: Path) -> list[AssistantMessageChunk]:
    stream = recorded.load(path)["stream"]
    return list(gemini.decode_stream([stream] if isinstance(stream, str) else stream))


# ------------------------------------------------------------ recorded round trips


@pytest.mark.parametrize("path", RESPONSES)
def test_recorded_response_comes_back(path: Path) -> None:
    body = recorded.load(path)["response"]
    out = gemini.encode_response(gemini.decode_response(body))
    validate(out)
    got, want = without_nulls(out), without_nulls(body)
    reason = EXCEPTIONS.get(path.stem)
    if reason is None:
        assert got == want
        assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
        return
    assert got != want, f"listed as an exception but comes back: {reason}"
    if path.stem == MADE_ID:
        assert re.fullmatch(r"[A-Za-z0-9_-]{23}", got.pop("responseId"))
    else:
        for mine, theirs in zip(got["candidates"], want["candidates"], strict=True):
            mine.pop("content", None)
            theirs.pop("content", None)
    assert got == want


@pytest.mark.parametrize("path", RESPONSES)
def test_recorded_response_streams_back(path: Path) -> None:
    message = gemini.decode_response(recorded.load(path)["response"])
    events = list(gemini.encode_stream(message, id_seed=1))
    for event in events:
        validate(event)
    got, want = reassembled(events), to_dict(message)
    if path.stem == MADE_ID:  # the made responseId is also the synthesized ids' scope
        made = events[0]["responseId"]
        assert got.pop("response_id") == made
        for call, theirs in zip(got["tool_calls"], want["tool_calls"], strict=True):
            assert call.pop("id") == f"gemini_call_{made}_{call['index']}"
            theirs.pop("id")
    assert got == want
    body = b"".join(gemini.encode_stream(message, sse=True, id_seed=1))
    assert reassembled([body]) == reassembled(events)


@pytest.mark.parametrize("path", STREAMS)
def test_recorded_stream_comes_back(path: Path) -> None:
    chunks = chunks_of(path)
    events = list(gemini.encode_stream(chunks))
    for event in events:
        validate(event)
    assert reassembled(events) == assembled(chunks)
    body = b"".join(gemini.encode_stream(chunks, sse=True))
    pieces = [body[i : i + 5] for i in range(0, len(body), 5)]
    assert reassembled(pieces) == assembled(chunks)


def test_sse_framing_is_geminis() -> None:
    """``data: <json>`` and CRLF line ends, as the recorded ``alt=sse`` bodies have."""
    recorded_body = recorded.load(TRAFFIC / "test_google.test_google_model_iter_stream.1.json")
    assert recorded_body["stream"].endswith("}\r\n\r\n")
    frames = list(gemini.encode_stream(AssistantMessage(content="Hi"), sse=True))
    assert len(frames) == 1
    assert frames[0].startswith(b'data: {"candidates":') and frames[0].endswith(b"}\r\n\r\n")
    assert frames[0].count(b"\n") == 2


# ----------------------------------------------------------------- built messages

SIG = "CiQB0e2Kb3Q4d1lVbzdx"
USAGE = {
    "input_tokens": 120,
    "output_tokens": 80,
    "total_tokens": 200,
    "input_token_details": {"cache_read": 20, "audio": 5},
    "output_token_details": {"reasoning": 30},
}
BUILT: dict[str, dict[str, Any]] = {
    "text": {"content": "Hello!", "finish_reason": "stop"},
    "tool_calls": {
        "content": "Checking.",
        "tool_calls": [
            {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}, "index": 1},
            {"id": "call_2", "name": "get_time", "arguments": {}, "index": 2},
        ],
        "finish_reason": "tool_calls",
    },
    "reasoning": {
        "content": [
            {
                "type": "reasoning",
                "text": "Thinking.",
                "signature": SIG,
                "provider": "gemini",
                "model": "gemini-2.5-flash",  # (decoded signed thoughts record their model)
            },
            {"type": "text", "text": "Done."},
        ],
        "finish_reason": "stop",
        "usage": USAGE,
    },
    "length": {"content": "Cut", "finish_reason": "length"},
    "content_filter": {"content": "", "finish_reason": "content_filter"},
    "error": {"content": "", "finish_reason": "error"},
    "other": {"content": "x", "finish_reason": "other"},
    "image": {
        "content": [{"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}],
        "finish_reason": "stop",
    },
    "code_execution": {
        "content": [
            {
                "type": "server_tool_call",
                "id": "c1",
                "name": "code_execution",
                "arguments": {"language": "PYTHON", "code": "print(1)"},
            },
            {
                "type": "server_tool_result",
                "tool_call_id": "c1",
                "output": {"outcome": "OUTCOME_OK", "output": "1\n"},
                "status": "success",
            },
        ],
        "finish_reason": "stop",
    },
    "usage": {"content": "ok", "usage": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}},
}


def built(name: str, **more: Any) -> AssistantMessage:
    return AssistantMessage.model_validate(
        {"role": "assistant", "model": "gemini-2.5-flash", "response_id": "resp1"}
        | copy.deepcopy(BUILT[name])
        | more
    )


def comparable(message: dict[str, Any]) -> dict[str, Any]:
    """A message as it decodes back: provider, raw reason and kept metadata aside."""
    rest = {k: v for k, v in message.items() if k not in ("provider", "raw_finish_reason")}
    rest.pop("response_metadata", None)
    if rest.get("content") == "":  # (no parts: no content)
        del rest["content"]
    return rest


@pytest.mark.parametrize("name", list(BUILT))
def test_built_message_as_response(name: str) -> None:
    message = built(name)
    body = gemini.encode_response(message)
    sdk = strict(body)
    assert sdk.response_id == "resp1" and sdk.model_version == "gemini-2.5-flash"
    back = gemini.decode_response(body)
    assert comparable(to_dict(back)) == comparable(to_dict(message))
    assert back.raw_finish_reason == (
        None if message.finish_reason is None else body["candidates"][0]["finishReason"]
    )


@pytest.mark.parametrize("name", list(BUILT))
def test_built_message_as_stream(name: str) -> None:
    message = built(name)
    events = list(gemini.encode_stream(message))
    for event in events:
        strict(event)
    finished = message.finish_reason is not None
    assert comparable(reassembled(events, finished=finished)) == comparable(to_dict(message))


def test_finish_reasons_and_usage_as_gemini_says_them() -> None:
    reasons = {
        name: gemini.encode_response(built(name))["candidates"][0]["finishReason"]
        for name in ("text", "tool_calls", "length", "content_filter", "error", "other")
    }
    assert reasons == {
        "text": "STOP",
        "tool_calls": "STOP",
        "length": "MAX_TOKENS",
        "content_filter": "SAFETY",
        "error": "MALFORMED_FUNCTION_CALL",
        "other": "OTHER",
    }
    usage = gemini.encode_response(built("reasoning"))["usageMetadata"]
    assert usage == {
        "promptTokenCount": 120,
        "candidatesTokenCount": 50,
        "totalTokenCount": 200,
        "cachedContentTokenCount": 20,
        "promptTokensDetails": [{"modality": "AUDIO", "tokenCount": 5}],
        "thoughtsTokenCount": 30,
    }
    parts = gemini.encode_response(built("reasoning"))["candidates"][0]["content"]["parts"]
    assert parts == [
        {"text": "Thinking.", "thought": True, "thoughtSignature": SIG},
        {"text": "Done."},
    ]


def test_a_kept_raw_reason_and_number_come_back() -> None:
    message = built("text", raw_finish_reason="STOP", response_metadata={"gemini": {}})
    assert gemini.encode_response(message)["candidates"][0]["finishReason"] == "STOP"
    numbered = built("text", raw_finish_reason="STOP")
    numbered.response_metadata = {"gemini": {"finish_reason": 1}}
    assert gemini.encode_response(numbered)["candidates"][0]["finishReason"] == 1
    # a raw reason that no longer stands for the neutral one is not written
    changed = built("length", raw_finish_reason="STOP")
    assert gemini.encode_response(changed)["candidates"][0]["finishReason"] == "MAX_TOKENS"


def test_blocked_prompt_has_no_candidates() -> None:
    body = {
        "promptFeedback": {"blockReason": "SAFETY"},
        "usageMetadata": {"promptTokenCount": 4, "totalTokenCount": 4},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r",
    }
    message = gemini.decode_response(body)
    assert gemini.encode_response(message) == body
    events = list(gemini.encode_stream(message))
    assert [sorted(event) for event in events] == [sorted(body)]
    assert reassembled(events) == to_dict(message)


# ------------------------------------------------------------------------ options


def test_id_seed_makes_the_same_ids_in_geminis_shape() -> None:
    message = AssistantMessage(content="Hi")
    one = gemini.encode_response(message, id_seed=7)
    assert one == gemini.encode_response(message, id_seed=7)
    assert one["responseId"] != gemini.encode_response(message, id_seed=8)["responseId"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{23}", one["responseId"])
    events = list(gemini.encode_stream([AssistantMessageChunk(content="a")] * 2, id_seed="s"))
    again = list(gemini.encode_stream([AssistantMessageChunk(content="a")] * 2, id_seed="s"))
    assert events == again and events[0]["responseId"] == events[1]["responseId"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{23}", events[0]["responseId"])


def test_created_model_options() -> None:
    message = AssistantMessage(content="Hi")
    body = gemini.encode_response(message, created=1_700_000_000, model="gemini-x")
    assert body["createTime"] == "2023-11-14T22:13:20.000000Z"
    assert body["modelVersion"] == "gemini-x"
    assert "createTime" not in gemini.encode_response(message)  # the Developer API sends none
    assert gemini.encode_response(message)["modelVersion"] == "unknown"
    named = AssistantMessage(content="Hi", model="gemini-2.5-pro")
    assert gemini.encode_response(named, model="other")["modelVersion"] == "gemini-2.5-pro"
    (event,) = gemini.encode_stream(message, created=1_700_000_000, model="gemini-x")
    assert event["createTime"] == body["createTime"] and event["modelVersion"] == "gemini-x"
    strict(body)
    strict(event)


@pytest.mark.parametrize(
    "options",
    [{"nope": 1}, {"unsupported": "ignore"}, {"id_seed": 1.5}, {"created": "now"}, {"model": ""}],
)
def test_bad_options_raise_at_the_call(options: dict[str, Any]) -> None:
    message = AssistantMessage(content="Hi")
    with pytest.raises(OptionError):
        gemini.encode_response(message, **options)
    with pytest.raises(OptionError):
        gemini.encode_stream(message, **options)  # not iterated


# ------------------------------------------------------------- unsupported content

FOREIGN = [
    {"type": "text", "text": "Before."},
    {"type": "reasoning", "text": "Hmm.", "signature": "sig-anthropic", "provider": "anthropic"},
    {"type": "text", "text": "After."},
]


def test_unsupported_error_names_the_block() -> None:
    message = AssistantMessage(content=FOREIGN)
    with pytest.raises(UnsupportedContentError) as raised:
        gemini.encode_response(message)
    assert raised.value.block_index == 1
    assert "anthropic reasoning signature" in str(raised.value)
    with pytest.raises(UnsupportedContentError) as streamed:
        list(gemini.encode_stream(message))
    assert streamed.value.block_index == 1


def test_unsupported_drop_and_placeholder() -> None:
    message = AssistantMessage(content=FOREIGN)
    dropped = gemini.encode_response(message, unsupported="drop")
    assert dropped["candidates"][0]["content"]["parts"] == [
        {"text": "Before."},
        {"text": "Hmm.", "thought": True},
        {"text": "After."},
    ]
    placed = gemini.encode_response(message, unsupported="placeholder")
    parts = placed["candidates"][0]["content"]["parts"]
    assert parts[1] == {"text": "Hmm.", "thought": True}
    assert parts[2]["text"].startswith("[anthropic reasoning signature omitted")
    streamed = [
        part
        for event in gemini.encode_stream(message, unsupported="placeholder")
        for part in event["candidates"][0]["content"]["parts"]
    ]
    assert streamed == parts
    strict(placed)


def test_other_server_tools_and_annotations_are_unsupported() -> None:
    search = AssistantMessage(
        content=[{"type": "server_tool_call", "id": "s", "name": "web_search", "arguments": {}}]
    )
    with pytest.raises(UnsupportedContentError) as raised:
        gemini.encode_response(search)
    assert raised.value.block_index == 0
    cited = AssistantMessage(
        content=[
            {
                "type": "text",
                "text": "Paris.",
                "annotations": [{"type": "citation", "url": "https://example.com"}],
            }
        ]
    )
    with pytest.raises(UnsupportedContentError):
        gemini.encode_response(cited)
    assert gemini.encode_response(cited, unsupported="drop")["candidates"][0]["content"] == {
        "parts": [{"text": "Paris."}],
        "role": "model",
    }


# ---------------------------------------------------------------------- bad input


def test_bad_input_raises_chatschema_errors() -> None:
    with pytest.raises(ConversionError):
        gemini.encode_response(42)
    with pytest.raises(ChatSchemaError):
        gemini.encode_response({"role": "user", "content": "hi"})
    with pytest.raises(ConversionError):
        list(gemini.encode_stream([AssistantMessageChunk(content="a"), 42]))
    with pytest.raises(ConversionError):
        gemini.encode_stream(42)


# ------------------------------------------------------------------------ sources

DELTAS = ["Hel", "lo", " there"]


def _chunks() -> list[AssistantMessageChunk]:
    out = [AssistantMessageChunk(content=text) for text in DELTAS]
    out.append(AssistantMessageChunk(finish_reason="stop", chunk_position="last"))
    return out


def _texts(events: list[dict[str, Any]]) -> str:
    return "".join(
        part.get("text", "")
        for event in events
        for candidate in event.get("candidates", [])
        for part in candidate.get("content", {}).get("parts", [])
    )


def test_sources_sync_and_async() -> None:
    from_list = list(gemini.encode_stream(_chunks(), id_seed=1))
    from_generator = list(gemini.encode_stream((c for c in _chunks()), id_seed=1))
    from_dicts = list(gemini.encode_stream([to_dict(c) for c in _chunks()], id_seed=1))
    assert from_list == from_generator == from_dicts
    assert _texts(from_list) == "Hello there"
    assert from_list[-1]["candidates"][0]["finishReason"] == "STOP"

    async def source() -> AsyncIterator[AssistantMessageChunk]:
        for chunk in _chunks():
            yield chunk

    async def collect() -> list[Any]:
        return [event async for event in gemini.encode_stream(source(), id_seed=1)]

    assert asyncio.run(collect()) == from_list

    async def collect_sse() -> bytes:
        return b"".join([frame async for frame in gemini.encode_stream(source(), sse=True)])

    assert reassembled([asyncio.run(collect_sse())])["content"] == "Hello there"
    one = list(gemini.encode_stream(AssistantMessageChunk(content="Hi")))
    assert _texts(one) == "Hi"
    whole = list(gemini.encode_stream(AssistantMessage(content="Hi", finish_reason="stop")))
    assert len(whole) == 1 and _texts(whole) == "Hi"


def test_early_stop_closes_the_source() -> None:
    closed: list[bool] = []

    def source() -> Iterator[AssistantMessageChunk]:
        try:
            yield from _chunks()
        finally:
            closed.append(True)

    stream = gemini.encode_stream(source())
    next(stream)
    stream.close()  # type: ignore[attr-defined]
    assert closed == [True]

    async def asource() -> AsyncIterator[AssistantMessageChunk]:
        try:
            for chunk in _chunks():
                yield chunk
        finally:
            closed.append(True)

    async def first() -> None:
        events = gemini.encode_stream(asource())
        async for _ in events:
            break
        await events.aclose()

    asyncio.run(first())
    assert closed == [True, True]


def test_stream_without_last_chunk_and_held_calls() -> None:
    """Fragments are held until the arguments are whole; ``end`` writes what is held."""
    chunks = [
        AssistantMessageChunk(tool_call_chunks=[{"index": 0, "id": "c1", "name": "f"}]),
        AssistantMessageChunk(tool_call_chunks=[{"index": 0, "arguments": '{"a": '}]),
        AssistantMessageChunk(tool_call_chunks=[{"index": 0, "arguments": "1}"}]),
        AssistantMessageChunk(tool_call_chunks=[{"index": 1, "id": "c2", "name": "g"}]),
    ]
    events = list(gemini.encode_stream(chunks))
    calls = [
        part["functionCall"]
        for event in events
        for part in event["candidates"][0]["content"]["parts"]
    ]
    assert calls == [
        {"name": "f", "args": {"a": 1}, "id": "c1"},
        {"name": "g", "args": {}, "id": "c2"},
    ]
    message = reassembled(events, finished=False)
    assert [call["id"] for call in message["tool_calls"]] == ["c1", "c2"]
    assert "finish_reason" not in message


def test_delta_usage_is_written_as_running_totals() -> None:
    usage = {"input_tokens": 2, "output_tokens": 1, "total_tokens": 3}
    chunks = [
        AssistantMessageChunk(content="a", usage=usage),
        AssistantMessageChunk(content="b", usage=usage),
        AssistantMessageChunk(content="c"),
    ]
    events = list(gemini.encode_stream(chunks))
    totals = [event["usageMetadata"]["totalTokenCount"] for event in events]
    assert totals == [3, 6, 6]  # every event carries the running total
    assert reassembled(events, finished=False)["usage"]["total_tokens"] == 6


def test_another_formats_stream_becomes_one_call_and_no_foreign_status() -> None:
    """A Responses stream's chunks: the status of an unfinished answer ("in_progress")
    is not a Gemini finish reason, and the call's id and name sent again when its
    item is done do not make a second call."""
    from chatschema.providers import openai_responses

    message = AssistantMessage.model_validate(
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [{"id": "call_1", "name": "lookup", "arguments": {"q": "UK"}}],
            "finish_reason": "tool_calls",
        }
    )
    events = list(openai_responses.encode_stream(message))
    chunks = list(openai_responses.decode_stream(events))
    written = list(gemini.encode_stream(chunks))
    reasons = [
        candidate.get("finishReason")
        for event in written
        for candidate in event.get("candidates", ())
        if candidate.get("finishReason")
    ]
    assert reasons == ["STOP"]
    back = assembled(list(gemini.decode_stream(written)))
    assert [(call["id"], call["name"], call["arguments"]) for call in back["tool_calls"]] == [
        ("call_1", "lookup", {"q": "UK"})
    ]


def test_a_thoughts_signature_stays_on_its_thought_when_text_follows() -> None:
    """Decoded and written again, a stream whose signature ends a thought right before
    plain text deltas is the same stream (the text waits for the held signature)."""
    message = AssistantMessage.model_validate(
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "text": "I think so.",
                    "signature": "U0lH",
                    "provider": "gemini",
                },
                {"type": "text", "text": "Let me answer."},
            ],
            "finish_reason": "stop",
        }
    )
    first = list(gemini.encode_stream(split_message(message)))
    again = list(gemini.encode_stream(list(gemini.decode_stream(first))))
    assert again == first
