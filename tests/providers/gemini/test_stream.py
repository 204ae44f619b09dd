"""Gemini ``streamGenerateContent``: decode_stream assembles to decode_response.

Every stream here is checked against :func:`complete`, an independent statement of
the equivalence the codec documents (``docs/providers/gemini.md``, *Streaming*): the
chunks, assembled with ``ChunkAccumulator``, ``merge_chunks`` and ``+``, give exactly
``decode_response`` of the complete response the stream stands for.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import recorded
from conftest import assembled
from google.genai import types
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chatschema import (
    AssistantMessageChunk,
    ConversionError,
    StreamIncompleteError,
    merge_chunks,
    to_dict,
)
from chatschema.providers import gemini
from providers.gemini.helpers import PAYLOADS, SIG_A, SIG_B, SIG_C

STREAMS = [path.stem for path in recorded.listing(PAYLOADS, "stream_*.json")]
"""The stream files, recorded ones included (absent: their test skips)."""

_USER_DATA = {"args", "response"}


def load(name: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads((PAYLOADS / f"{name}.json").read_text("utf-8"))
    return events


# ------------------------------------------------------------------ the equivalence


def deep_merge(into: dict[str, Any], update: dict[str, Any]) -> None:
    for key, value in update.items():
        if isinstance(into.get(key), dict) and isinstance(value, dict):
            deep_merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


def kind(part: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in part.items() if k not in ("text", "thoughtSignature")}


def complete(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The complete response (REST camelCase) a stream of REST events stands for.

    Text deltas of the same kind (every field but ``text`` and ``thoughtSignature``
    equal) join the open text part; a ``thoughtSignature`` goes on the part its delta
    joins or starts, and ends it; empty deltas without a signature are nothing; other
    parts are whole. ``responseId`` and
    ``modelVersion``: the first; ``finishReason``: the last; citations: every distinct
    one, in order; anything else deep-merged, later values winning.
    """
    response: dict[str, Any] = {}
    candidate: dict[str, Any] | None = None
    parts: list[dict[str, Any]] = []
    run_open = False
    citations: list[Any] = []
    streamed: dict[str, Any] | None = None  # the call whose partialArgs are arriving
    for event in events:
        for key, value in event.items():
            if key in ("responseId", "modelVersion"):
                response.setdefault(key, value)
            elif key != "candidates":
                deep_merge(response, {key: value})
        first = next((c for c in event.get("candidates") or [] if c.get("index", 0) == 0), None)
        if first is None:
            continue
        candidate = candidate if candidate is not None else {}
        for part in first.get("content", {}).get("parts", []):
            call = part.get("functionCall")
            if streamed is not None:
                if isinstance(call, dict) and "name" not in call and "args" not in call:
                    for key, value in part.items():
                        if key != "functionCall":
                            streamed.setdefault(key, value)
                    streamed_args(streamed["functionCall"]["args"], call.get("partialArgs", []))
                    if call.get("willContinue") is not True:
                        streamed = None
                    continue
                streamed = None
            if (
                isinstance(call, dict)
                and "args" not in call
                and (call.get("willContinue") is True or "partialArgs" in call)
            ):
                whole = {k: v for k, v in call.items() if k not in ("partialArgs", "willContinue")}
                streamed = {**part, "functionCall": {**whole, "args": {}}}
                parts.append(streamed)
                run_open = False
                streamed_args(streamed["functionCall"]["args"], call.get("partialArgs", []))
                if call.get("willContinue") is not True:
                    streamed = None
                continue
            if "text" in part:
                signed = "thoughtSignature" in part
                if not part["text"] and not signed:
                    continue
                if run_open and kind(part) == kind(parts[-1]):
                    parts[-1]["text"] += part["text"]
                    parts[-1].update(part, text=parts[-1]["text"])  # the signature, if any
                else:
                    parts.append(dict(part))
                run_open = not signed
            else:
                parts.append(copy.deepcopy(part))
                run_open = False
        if "finishReason" in first:
            streamed = None
        for key, value in first.items():
            if key == "content":
                continue
            if key == "citationMetadata":
                citations += [c for c in value["citations"] if c not in citations]
                value = {**value, "citations": list(citations)}
            deep_merge(candidate, {key: value})
    if candidate is not None:
        response["candidates"] = [{**candidate, "content": {"role": "model", "parts": parts}}]
    return response


def streamed_args(args: dict[str, Any], pieces: list[dict[str, Any]]) -> None:
    """Apply ``partialArgs`` to a call's arguments: each sets the value at its JSON
    path; a string whose previous piece said ``willContinue`` is continued."""
    for piece in pieces:
        path: list[Any] = []
        for name, index, quoted in re.findall(
            r"\.(\w+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]", piece["jsonPath"]
        ):
            if index:
                path.append(int(index))
            else:
                path.append(name or re.sub(r"\\(.)", r"\1", quoted))
        target: Any = args
        for step, following in itertools.pairwise(path):
            fresh: Any = {} if isinstance(following, str) else []
            if isinstance(target, dict):
                target = target.setdefault(step, fresh)
            else:
                if step == len(target):
                    target.append(fresh)
                target = target[step]
        leaf = path[-1]
        if "stringValue" in piece:
            value: Any = piece["stringValue"]
        elif "numberValue" in piece:
            value = piece["numberValue"]
        elif "boolValue" in piece:
            value = piece["boolValue"]
        else:
            value = None
        if isinstance(target, list) and leaf == len(target):
            target.append(value)
        elif isinstance(value, str) and isinstance(
            target.get(leaf) if isinstance(target, dict) else target[leaf], str
        ):
            target[leaf] += value  # pieces of one string (the first set it)
        else:
            target[leaf] = value


def expected(events: list[dict[str, Any]]) -> dict[str, Any]:
    return to_dict(gemini.decode_response(complete(events)))


def finished(events: list[dict[str, Any]]) -> bool:
    """Whether a stream says it ended: a finish reason of the first candidate, or a
    prompt blocked before any candidate."""
    for event in events:
        candidates = [c for c in event.get("candidates") or [] if c.get("index", 0) == 0]
        if any(c.get("finishReason", c.get("finish_reason")) is not None for c in candidates):
            return True
        feedback = event.get("promptFeedback", event.get("prompt_feedback"))
        if not candidates and isinstance(feedback, dict) and feedback.get("blockReason"):
            return True
    return False


def decoded(source: Any, complete: bool) -> list[AssistantMessageChunk]:
    """The chunks of a stream; one that did not finish ends with StreamIncompleteError."""
    if complete:
        return list(gemini.decode_stream(source))
    chunks: list[AssistantMessageChunk] = []
    with pytest.raises(StreamIncompleteError, match="ended before finishReason"):
        chunks.extend(gemini.decode_stream(source))
    return chunks


def check_stream(
    events: list[dict[str, Any]], source: Any = None
) -> tuple[list[AssistantMessageChunk], dict[str, Any]]:
    chunks = decoded(events if source is None else source, finished(events))
    want = expected(events)
    assert assembled(chunks) == want
    return chunks, want


def sse(events: list[Any], *, ascii: bool = True) -> bytes:
    """The ``?alt=sse`` body of a stream, as Gemini sends it."""
    return b"".join(
        b"data: " + json.dumps(e, ensure_ascii=ascii).encode("utf-8") + b"\r\n\r\n" for e in events
    )


def cut(body: bytes, positions: list[int]) -> list[bytes]:
    edges = [0, *sorted(set(positions)), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(edges)]


def snake(value: Any) -> Any:
    """REST camelCase data in snake_case (user data left alone)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
            out[name] = item if key in _USER_DATA else snake(item)
        return out
    if isinstance(value, list):
        return [snake(item) for item in value]
    return value


# ------------------------------------------------------------------- real streams


@pytest.mark.parametrize("name", STREAMS)
def test_stream_assembles_to_the_complete_response(name: str) -> None:
    events = load(name)
    chunks, want = check_stream(events)
    assert all(chunk.provider == "gemini" for chunk in chunks)
    assert chunks[-1].chunk_position == "last"
    assert all(chunk.chunk_position is None for chunk in chunks[:-1])
    # the same stream as SDK objects, snake_case data, JSON text and the raw SSE body
    sdk_events = [types.GenerateContentResponse.model_validate(e) for e in events]
    sources = [
        sdk_events,
        [snake(e) for e in events],
        [json.dumps(e) for e in events],
        [sse(events)],
        [sse(events, ascii=False).decode("utf-8")],
    ]
    for source in sources:
        check_stream(events, source)
    assert to_dict(merge_chunks(gemini.decode_stream(sdk_events)).to_message()) == want


def test_plain_text_streams_as_string_content_with_cumulative_usage() -> None:
    events = load("stream_text_usage")
    chunks, want = check_stream(events)
    assert [chunk.content for chunk in chunks] == [
        "The capital of France",
        " is Paris \u2014 home to about 2.1 million people",
        " (\u00eele-de-France: 12 million).\n",
    ]
    assert {chunk.usage_mode for chunk in chunks} == {"cumulative"}
    assert [chunk.usage.total_tokens for chunk in chunks if chunk.usage] == [8, 8, 61]
    assert (chunks[0].model, chunks[0].response_id) == (
        "gemini-2.5-flash",
        "Xn8aafW2MJGjz7IPo5ne8Qs",
    )
    assert want["content"].startswith("The capital of France is Paris")
    assert want["usage"] == {
        "input_tokens": 8,
        "output_tokens": 53,
        "total_tokens": 61,
        "output_token_details": {"reasoning": 29},
    }
    assert (want["finish_reason"], want["raw_finish_reason"]) == ("stop", "STOP")


def test_stream_cut_off_before_the_usage_chunk() -> None:
    events = load("stream_text_usage")[:-1]
    chunks, want = check_stream(events)
    assert all(chunk.chunk_position is None for chunk in chunks)  # no proper end
    assert "finish_reason" not in want
    assert want["usage"] == {"input_tokens": 8, "output_tokens": 0, "total_tokens": 8}
    assert (
        want["content"] == "The capital of France is Paris \u2014 home to about 2.1 million people"
    )
    cut_events = load("stream_thinking")[:2]
    chunks, want = check_stream(cut_events)
    assert "usage" not in want and chunks[-1].chunk_position is None


def test_thoughts_stay_apart_and_the_trailing_signature_joins_its_part() -> None:
    events = load("stream_thinking")
    chunks, want = check_stream(events)
    assert want["content"] == [
        {
            "type": "reasoning",
            "text": "**Comparing the decimals**\n\n"
            "Compare 9.11 and 9.9 digit by digit: 0.90 > 0.11.",
            "provider": "gemini",
        },
        {
            "type": "text",
            "text": "9.9 is larger, because 0.9 > 0.11.",
            "extras": {"gemini": {"thought_signature": SIG_B}},
        },
    ]
    assert to_dict(chunks[0])["content"] == [
        {
            "type": "reasoning",
            "text": "**Comparing the decimals**\n\n",
            "provider": "gemini",
            "index": 0,
        }
    ]
    assert chunks[2].content == "9.9 is larger"  # answer text is string content
    assert to_dict(chunks[-1])["content"] == [  # a text block without index continues it
        {"type": "text", "text": "", "extras": {"gemini": {"thought_signature": SIG_B}}}
    ]
    # appended to a history, the reply encodes to the parts of the complete response
    reply = merge_chunks(chunks).to_message()
    encoded = gemini.encode([{"role": "user", "content": "9.11 or 9.9?"}, reply], check=False)
    assert encoded["contents"][1]["parts"] == [
        {
            "text": "**Comparing the decimals**\n\n"
            "Compare 9.11 and 9.9 digit by digit: 0.90 > 0.11.",
            "thought": True,
        },
        {"text": "9.9 is larger, because 0.9 > 0.11.", "thought_signature": SIG_B},
    ]


def test_a_signature_ends_the_text_part_its_delta_joins() -> None:
    head = {"modelVersion": "gemini-3-flash-preview", "responseId": "sig1"}

    def event(*parts: dict[str, Any], **more: Any) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"role": "model", "parts": list(parts)}, **more}],
            **head,
        }

    call = {"functionCall": {"name": "f", "args": {}}}
    events = [
        event({"text": "th", "thought": True}),
        event({"text": "ink", "thought": True, "thoughtSignature": SIG_A}),
        event({"text": "more", "thought": True}),
        event({"text": "Hel"}),
        event({"text": "lo", "thoughtSignature": SIG_B}, {"text": " again"}),
        event({"text": "", "thoughtSignature": SIG_C}, call),
        event({"text": "", "thoughtSignature": SIG_A}, {"text": "x"}),
        event({"text": ""}, finishReason="STOP"),
    ]
    chunks, want = check_stream(events)
    assert want["content"] == [
        # a signed thought records the model that made it (the replay policy reads it)
        {
            "type": "reasoning",
            "text": "think",
            "provider": "gemini",
            "signature": SIG_A,
            "model": "gemini-3-flash-preview",
        },
        {"type": "reasoning", "text": "more", "provider": "gemini"},
        {"type": "text", "text": "Hello", "extras": {"gemini": {"thought_signature": SIG_B}}},
        {"type": "text", "text": " again", "extras": {"gemini": {"thought_signature": SIG_C}}},
        {"type": "text", "text": "", "extras": {"gemini": {"thought_signature": SIG_A}}},
        {"type": "text", "text": "x"},
    ]
    assert want["tool_calls"][0]["index"] == 4
    # "Hel" went out as a string; the signed "lo" as a text block without index
    assert [to_dict(chunk).get("content") for chunk in chunks[3:5]] == [
        "Hel",
        [
            {"type": "text", "text": "lo", "extras": {"gemini": {"thought_signature": SIG_B}}},
            {"type": "text", "text": " again", "index": 3},  # a new part, after the string
        ],
    ]
    # as non-streamed parts, with every signature on the part it ended
    reply = merge_chunks(chunks).to_message()
    parts = gemini.encode([{"role": "user", "content": "q"}, reply], check=False)["contents"][1]
    assert [part.get("thought_signature") for part in parts["parts"]] == [
        SIG_A,
        None,
        SIG_B,
        SIG_C,
        None,
        SIG_A,
        None,
    ]


def test_parallel_calls_arrive_whole_with_their_positions_and_signature() -> None:
    events = load("stream_parallel_calls")
    chunks, want = check_stream(events)
    fragments = [fragment for chunk in chunks for fragment in chunk.tool_call_chunks]
    assert [(f.index, f.id, f.name) for f in fragments] == [
        (1, "gemini_call_qlE5aZ3lDqKvz7IPnIvRsA4_1", "get_weather"),
        (2, "gemini_call_qlE5aZ3lDqKvz7IPnIvRsA4_2", "get_weather"),
    ]
    assert json.loads(fragments[0].arguments or "") == {
        "city": "Z\u00fcrich",
        "note": 'say "gr\u00fcezi" \\ back',
        "days": 3,
    }
    assert fragments[0].extras == {"gemini": {"thought_signature": SIG_A, "synthesized_id": True}}
    assert [call["index"] for call in want["tool_calls"]] == [1, 2]
    assert (want["finish_reason"], want["raw_finish_reason"]) == ("tool_calls", "STOP")
    # the reply replays as the candidate's content, signature on the first call
    reply = merge_chunks(chunks).to_message()
    encoded = gemini.encode([{"role": "user", "content": "Weather?"}, reply], check=False)
    assert encoded["contents"][1]["parts"][1]["thought_signature"] == SIG_A
    assert "thought_signature" not in encoded["contents"][1]["parts"][2]


def test_citations_and_grounding_land_in_response_metadata() -> None:
    _, want = check_stream(load("stream_grounded"))
    metadata = want["response_metadata"]["gemini"]
    assert [c["uri"] for c in metadata["citation_metadata"]["citations"]] == [
        "https://www.uefa.com/euro2024/",
        "https://en.wikipedia.org/wiki/UEFA_Euro_2024",
    ]
    assert metadata["grounding_metadata"]["web_search_queries"] == ["who won euro 2024"]
    assert want["usage"]["input_tokens"] == 229  # prompt + tool-use prompt


def test_code_execution_blocks_and_refusal_and_blocked_prompt() -> None:
    _, want = check_stream(load("stream_code_execution"))
    assert [block["type"] for block in want["content"]] == [
        "text",
        "server_tool_call",
        "server_tool_result",
        "text",
    ]
    assert (
        want["content"][1]["id"]
        == want["content"][2]["tool_call_id"]
        == ("gemini_code_c0d3Ex3cStr3am_1")
    )
    assert want["content"][3]["text"] == "The sum of 0..100 is 5050."
    _, want = check_stream(load("stream_safety"))
    assert (want["content"], want["finish_reason"], want["raw_finish_reason"]) == (
        "Here is how the reaction",
        "content_filter",
        "SAFETY",
    )
    chunks, want = check_stream(load("stream_blocked"))
    assert (want["finish_reason"], want["raw_finish_reason"]) == (
        "content_filter",
        "PROHIBITED_CONTENT",
    )
    assert chunks[-1].chunk_position == "last"


def test_calls_without_response_id_get_the_ids_decode_response_gives() -> None:
    events: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me chec"}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "k."}]}}]},
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"functionCall": {"name": "f", "args": {"x": 1}}},
                            {"executableCode": {"language": "PYTHON", "code": "1"}},
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        },
    ]
    _, want = check_stream(events)
    call_id = want["tool_calls"][0]["id"]
    assert call_id.startswith("gemini_call_") and call_id.endswith("_1")
    assert want["content"][1]["id"] == f"gemini_code_{call_id[12:-2]}_2"
    # the scope depends on the text before the call, however it was cut
    other = copy.deepcopy(events)
    other[1]["candidates"][0]["content"]["parts"][0]["text"] = "k!"
    assert check_stream(other)[1]["tool_calls"][0]["id"] != call_id
    # an unusable response id takes part in the digest
    odd = [{**event, "responseId": "r/1 ?"} for event in events]
    assert check_stream(odd)[1]["tool_calls"][0]["id"] not in (call_id, "gemini_call_r/1 ?_1")


def test_response_id_after_a_synthesized_id_is_left_out() -> None:
    call = {"functionCall": {"name": "f", "args": {}}}
    events = [
        {"candidates": [{"content": {"role": "model", "parts": [call]}}]},
        {"candidates": [{"finishReason": "STOP"}], "responseId": "late"},
    ]
    message = merge_chunks(gemini.decode_stream(events)).to_message()
    assert message.response_id is None
    assert (
        message.tool_calls[0].id
        == to_dict(gemini.decode_response(events[0]))["tool_calls"][0]["id"]
    )


def test_calls_after_the_finish_reason_turn_it_into_tool_calls() -> None:
    events: list[dict[str, Any]] = [
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "a"}]}, "finishReason": "STOP"}
            ]
        },
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"functionCall": {"name": "f"}}]}}
            ]
        },
    ]
    chunks, want = check_stream(events)
    assert want["finish_reason"] == "tool_calls"
    assert [chunk.chunk_position for chunk in chunks] == [None, "last"]


def test_only_the_first_candidate_is_assembled() -> None:
    def candidate(text: str, index: int) -> dict[str, Any]:
        return {"content": {"role": "model", "parts": [{"text": text}]}, "index": index}

    events = [
        {"candidates": [candidate("A", 0), candidate("B", 1)]},
        {"candidates": [candidate("b", 1)]},
        {"candidates": [{**candidate("a", 0), "finishReason": "STOP"}, candidate("!", 1)]},
    ]
    _, want = check_stream(events)
    assert want["content"] == "Aa"


def test_chunks_come_as_events_arrive() -> None:
    events = load("stream_text_usage")
    pulled: list[int] = []

    def source() -> Iterator[dict[str, Any]]:
        for number, event in enumerate(events):
            pulled.append(number)
            yield event

    stream = gemini.decode_stream(source())
    assert next(stream).content == "The capital of France"
    assert pulled == [0]
    second = next(stream).content
    assert isinstance(second, str) and second.startswith(" is Paris")
    assert pulled == [0, 1]


# ----------------------------------------------------------- cut bytes and arguments


def test_sse_cut_inside_an_escape_and_inside_a_utf8_character() -> None:
    events = load("stream_parallel_calls")
    body = sse(events)  # ASCII JSON: "Z\u00fcrich", "Montr\u00e9al"
    escape = body.index(b"\\u00e9")
    raw = sse(events, ascii=False)
    wide = raw.index("\u00e9".encode())  # two bytes in UTF-8
    want = expected(events)
    for source in (
        cut(body, [escape + 4]),  # "\u00" | "e9"
        cut(body, [escape + 1, escape + 2, escape + 5]),
        cut(raw, [wide + 1]),  # between the two bytes of the character
        [bytes([byte]) for byte in raw],  # one byte at a time
    ):
        assert assembled(list(gemini.decode_stream(source))) == want


@settings(max_examples=60, deadline=None)
@given(data=st.data(), ascii=st.booleans())
def test_sse_cut_anywhere_gives_the_same_message(data: st.DataObject, ascii: bool) -> None:
    name = data.draw(
        st.sampled_from(["stream_parallel_calls", "stream_thinking", "stream_grounded"])
    )
    events = load(name)
    body = sse(events, ascii=ascii)
    positions = data.draw(st.lists(st.integers(0, len(body)), max_size=12))
    assert assembled(list(gemini.decode_stream(cut(body, positions)))) == expected(events)


# ------------------------------------------------------------------ random streams

_TEXT = st.text(alphabet='ab é😀"\\\n{}', max_size=6)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _part(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text", "text", "text", "call", "code", "result", "image"]))
    part: dict[str, Any]
    if kind == "text":
        part = {"text": draw(_TEXT)}
        thought = draw(st.sampled_from([None, None, True, False]))
        if thought is not None:
            part["thought"] = thought
    elif kind == "call":
        call: dict[str, Any] = {
            "name": draw(st.sampled_from(["get_weather", "lookup"])),
            "args": draw(st.dictionaries(_TEXT, _JSON, max_size=3)),
        }
        if draw(st.booleans()):
            call["id"] = draw(st.sampled_from(["call_1", "call_2"]))
        part = {"functionCall": call}
    elif kind == "code":
        part = {"executableCode": {"language": "PYTHON", "code": draw(_TEXT)}}
    elif kind == "result":
        part = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": draw(_TEXT)}}
    else:
        part = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    if draw(st.integers(0, 4)) == 0:
        part["thoughtSignature"] = draw(st.sampled_from([SIG_A, SIG_B, SIG_C]))
    return part


@st.composite
def _stream(draw: st.DrawFn) -> list[dict[str, Any]]:
    response_id = draw(st.sampled_from([None, "resp-1", "bad id/?"]))
    events = []
    for _ in range(draw(st.integers(1, 6))):
        event: dict[str, Any] = {"modelVersion": "gemini-2.5-flash"}
        if response_id is not None:
            event["responseId"] = response_id
        if draw(st.integers(0, 5)):
            candidate: dict[str, Any] = {
                "content": {"role": "model", "parts": draw(st.lists(_part(), max_size=4))}
            }
            if draw(st.integers(0, 4)) == 0:
                candidate["finishReason"] = draw(st.sampled_from(["STOP", "MAX_TOKENS", "NEW"]))
            if draw(st.integers(0, 4)) == 0:
                uri = draw(st.sampled_from(["https://a.example/", "https://b.example/"]))
                candidate["citationMetadata"] = {"citations": [{"uri": uri, "startIndex": 0}]}
            if draw(st.booleans()):
                candidate["index"] = 0
            event["candidates"] = [candidate]
        if draw(st.booleans()):
            prompt, output = draw(st.integers(0, 50)), draw(st.integers(0, 50))
            usage: dict[str, Any] = {"promptTokenCount": prompt, "totalTokenCount": prompt + output}
            if output:
                usage["candidatesTokenCount"] = output
            event["usageMetadata"] = usage
        events.append(event)
    return events


@settings(max_examples=120, deadline=None)
@given(events=_stream(), data=st.data())
@example(
    events=[
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}]},
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"functionCall": {"name": "f"}}]}}
            ]
        },
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "b"}]}}]},
    ],
    data=None,
).via("two plain text parts around a call")
def test_random_streams_assemble_to_decode_response(
    events: list[dict[str, Any]], data: st.DataObject | None
) -> None:
    check_stream(events)
    if data is not None:
        body = sse(events, ascii=data.draw(st.booleans()))
        positions = data.draw(st.lists(st.integers(0, len(body)), max_size=6))
        check_stream(events, cut(body, positions))


# ---------------------------------------------------------- streamed call arguments

_KEY = st.text(alphabet="abcxyz_Ω. '", min_size=1, max_size=4)
_LEAF = st.one_of(
    st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=6),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.none(),
)
_VALUE = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(_KEY, inner, min_size=1, max_size=3),
    ),
    max_leaves=6,
)


def _path_text(path: list[str | int]) -> str:
    out = "$"
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z_]\w*", step):
            out += "." + step
        else:
            out += "['" + step.replace("\\", "\\\\").replace("'", "\\'") + "']"
    return out


def _leaves(value: Any, path: list[str | int]) -> Iterator[tuple[list[str | int], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, [*path, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, [*path, index])
    else:
        yield path, value


@st.composite
def _streamed_call(draw: st.DrawFn) -> list[dict[str, Any]]:
    """The parts of one call whose arguments stream, as Gemini 3 sends them."""
    args = draw(st.dictionaries(_KEY, _VALUE, max_size=3))
    first: dict[str, Any] = {"name": draw(st.sampled_from(["f", "g"])), "willContinue": True}
    if draw(st.booleans()):
        first["id"] = draw(st.sampled_from(["c1", "c2"]))
    head: dict[str, Any] = {"functionCall": first}
    if draw(st.booleans()):
        head["thoughtSignature"] = SIG_A
    pieces: list[dict[str, Any]] = []
    for path, value in _leaves(args, []):
        where = _path_text(path)
        if isinstance(value, str):
            cuts = sorted(draw(st.lists(st.integers(0, len(value)), max_size=2)))
            texts = [value[a:b] for a, b in zip([0, *cuts], [*cuts, len(value)], strict=True)]
            if draw(st.booleans()):
                texts.append("")  # the closing empty piece Gemini sends
            for number, text in enumerate(texts):
                piece = {"jsonPath": where, "stringValue": text}
                if number < len(texts) - 1:
                    piece["willContinue"] = True
                pieces.append(piece)
        elif isinstance(value, bool):
            pieces.append({"jsonPath": where, "boolValue": value})
        elif value is None:
            pieces.append({"jsonPath": where, "nullValue": "NULL_VALUE"})
        else:
            pieces.append({"jsonPath": where, "numberValue": value})
    parts = [head]
    while pieces:
        size = draw(st.integers(1, 3))
        group, pieces = pieces[:size], pieces[size:]
        parts.append({"functionCall": {"partialArgs": group, "willContinue": True}})
        if draw(st.integers(0, 4)) == 0:
            parts.append({"functionCall": {"willContinue": True}})
    end = draw(st.sampled_from(["empty", "last_piece", "none"]))
    if end == "empty":
        parts.append({"functionCall": {}})
    elif end == "last_piece" and len(parts) > 1:
        del parts[-1]["functionCall"]["willContinue"]
    return parts


@st.composite
def _call_stream(draw: st.DrawFn) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if draw(st.booleans()):
        parts.append({"text": "Let me check."})
    for _ in range(draw(st.integers(1, 2))):
        parts += draw(_streamed_call())
    if draw(st.booleans()):
        parts.append({"text": draw(st.sampled_from(["", "Done."]))})
    response_id = draw(st.sampled_from([None, "resp-1"]))
    events = []
    while parts:
        size = draw(st.integers(1, 3))
        group, parts = parts[:size], parts[size:]
        event: dict[str, Any] = {"candidates": [{"content": {"role": "model", "parts": group}}]}
        if response_id is not None:
            event["responseId"] = response_id
        events.append(event)
    # the response ends (cut off inside a call: test_a_stream_cut_off_inside_a_streamed_call)
    events[-1]["candidates"][0]["finishReason"] = "STOP"
    return events


@settings(max_examples=80, deadline=None)
@given(events=_call_stream(), data=st.data())
def test_streamed_call_arguments_assemble_to_decode_response(
    events: list[dict[str, Any]], data: st.DataObject
) -> None:
    chunks, want = check_stream(events)
    body = sse(events, ascii=data.draw(st.booleans()))
    positions = data.draw(st.lists(st.integers(0, len(body)), max_size=4))
    check_stream(events, cut(body, positions))
    # the arguments arrive piece by piece: the fragments of a call with arguments are
    # more than its first and its last
    for call in want.get("tool_calls", []):
        fragments = [f for c in chunks for f in c.tool_call_chunks if f.index == call.get("index")]
        assert fragments[0].name == call["name"]
        assert fragments[-1].extras == call.get("extras")
        if call["arguments"]:
            assert len(fragments) >= 3


def test_a_stream_cut_off_inside_a_streamed_call_keeps_what_arrived() -> None:
    def event(call: dict[str, Any], **more: Any) -> dict[str, Any]:
        parts = [{"functionCall": call}]
        return {"candidates": [{"content": {"role": "model", "parts": parts}}], **more}

    pieces = {"partialArgs": [{"jsonPath": "$.city", "stringValue": "Os", "willContinue": True}]}
    # with a response id, the call's id is known from its first piece
    events = [
        event({"name": "f", "willContinue": True}, responseId="r1"),
        event({**pieces, "willContinue": True}, responseId="r1"),
    ]
    message = merge_chunks(list(gemini.decode_stream(events, incomplete="keep"))).to_message()
    assert message.response_metadata["chatschema"]["incomplete"]["missing"] == "finishReason"
    assert message.tool_calls == []
    [invalid] = message.invalid_tool_calls
    assert (invalid.id, invalid.name, invalid.arguments) == ("gemini_call_r1_0", "f", '{"city":"Os')
    # the rest of the call, had it come, completes the same fragments
    rest = event({"partialArgs": [{"jsonPath": "$.city", "stringValue": "lo"}]}, responseId="r1")
    whole = merge_chunks(list(gemini.decode_stream([*events, rest], incomplete="keep")))
    whole = whole.to_message()
    assert [(c.id, c.arguments) for c in whole.tool_calls] == [
        ("gemini_call_r1_0", {"city": "Oslo"})
    ]


# ------------------------------------------------------------------ errors and noise


def test_error_event_raises_with_its_message() -> None:
    events = load("stream_text_usage")
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    stream = gemini.decode_stream(sse([events[0], error, events[1]]).decode().splitlines(True))
    assert next(stream).content == "The capital of France"  # what came before is kept
    with pytest.raises(ConversionError) as caught:
        next(stream)
    assert caught.value.provider == "gemini"
    assert "The model is overloaded." in str(caught.value)
    assert "503 UNAVAILABLE" in str(caught.value)
    with pytest.raises(ConversionError, match="stream reported an error"):
        list(gemini.decode_stream([{"error": "boom"}]))
    # an error after the finish reason: the held final chunk still comes, not as "last"
    finished = load("stream_text_usage")
    received: list[AssistantMessageChunk] = []
    with pytest.raises(ConversionError, match="overloaded"):
        received.extend(gemini.decode_stream([*finished, error]))
    assert len(received) == 3 and received[-1].finish_reason == "stop"
    assert received[-1].chunk_position is None


def test_unknown_events_and_pings_are_ignored_and_new_fields_kept() -> None:
    events = load("stream_text_usage")
    body = (
        b": ping\n\n"
        + sse(events[:1])
        + b'event: ping\ndata: {}\n\nevent: something_new\ndata: {"x": 1}\n\n'
        + sse(events[1:])
    )
    assert assembled(list(gemini.decode_stream([body]))) == expected(events)
    assert decoded([{"type": "ping"}], complete=False) == []  # (nothing but a ping)
    # a proxy that names its events: the name is not part of the response
    named = b"".join(b"event: message\n" + sse([event]) for event in events)
    assert assembled(list(gemini.decode_stream([named]))) == expected(events)
    newer = [{**events[0], "newField": {"a": 1}}, *events[1:]]
    _, want = check_stream(newer)
    assert want["response_metadata"]["gemini"]["new_field"] == {"a": 1}


MALFORMED: dict[str, Any] = {
    "not_an_object": [1, 2],
    "null": None,
    "not_json": "{not json",
    "candidates_not_a_list": {"candidates": {"content": {}}},
    "candidate_not_an_object": {"candidates": ["x"]},
    "content_not_an_object": {"candidates": [{"content": "hi"}]},
    "user_role": {"candidates": [{"content": {"role": "user", "parts": [{"text": "x"}]}}]},
    "parts_not_a_list": {"candidates": [{"content": {"parts": {"text": "x"}}}]},
    "part_not_an_object": {"candidates": [{"content": {"parts": ["x"]}}]},
    "text_not_a_string": {"candidates": [{"content": {"parts": [{"text": 3}]}}]},
    "two_data_fields": {
        "candidates": [{"content": {"parts": [{"text": "a", "functionCall": {}}]}}]
    },
    "call_name_not_text": {
        "candidates": [{"content": {"parts": [{"functionCall": {"name": 3, "args": {}}}]}}]
    },
    "args_not_an_object": {
        "candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": [1]}}]}}]
    },
    "signature_not_a_string": {
        "candidates": [{"content": {"parts": [{"text": "a", "thoughtSignature": 5}]}}]
    },
    # a name or its number (test_read_forms.py); nothing else
    "finish_reason_neither_name_nor_number": {"candidates": [{"finishReason": True}]},
    "usage_not_an_object": {"usageMetadata": 5},
    "negative_count": {"usageMetadata": {"promptTokenCount": -1}},
    "non_string_key": {1: "x"},
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_events_raise_conversion_error(name: str) -> None:
    with pytest.raises(ConversionError) as caught:
        list(gemini.decode_stream([MALFORMED[name]]))
    assert caught.value.provider == "gemini"


def test_candidate_after_a_blocked_prompt_is_malformed() -> None:
    events = [*load("stream_blocked"), *load("stream_text_usage")[:1]]
    with pytest.raises(ConversionError, match="blocked"):
        list(gemini.decode_stream(events))


_KEYS = st.sampled_from(
    ["text", "thought", "thoughtSignature", "functionCall", "executableCode", "inlineData", "x"]
)
_FIELDS = st.sampled_from(["name", "args", "id", "code", "mimeType", "data", "index"])
_SHAPED = st.builds(
    lambda parts, extra: {"candidates": [{"content": {"parts": parts}, **extra}]},
    st.lists(
        st.dictionaries(_KEYS, _JSON | st.dictionaries(_FIELDS, _JSON, max_size=3), max_size=3),
        max_size=3,
    ),
    st.dictionaries(st.sampled_from(["finishReason", "index", "citationMetadata"]), _JSON),
)


@settings(max_examples=120, deadline=None)
@given(
    events=st.lists(
        _SHAPED
        | _JSON
        | st.dictionaries(st.sampled_from(["candidates", "usageMetadata", "type", "x"]), _JSON),
        min_size=1,
        max_size=3,
    )
)
def test_any_json_event_gives_chunks_or_conversion_error(events: list[Any]) -> None:
    with contextlib.suppress(ConversionError):
        list(gemini.decode_stream(events))
