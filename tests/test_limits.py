"""Limits and resource safety: nesting depth, message count, string size, memory.

The limits live in ``chatschema.limits``; past them every reading path (``parse*``,
``validate``, JSON text or Python data) gives the same ``ValidationError``, naming
where. Models built in code past the limits can still be printed, counted and
rendered, and refuse to be written as JSON with a ``ValidationError``: no
``RecursionError`` escapes. A 100 MB base64 image is never copied more than
necessary (measured with ``tracemalloc``, figures in docs/robustness.md).

Codec bugs found here are pinned by strict xfails (at the end), with reproductions.
"""

from __future__ import annotations

import base64
import gc
import json
import os
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import hostile as H
import pytest

import chatschema
from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    ChunkAccumulator,
    NonStandardBlock,
    ToolCall,
    ToolCallChunk,
    ToolMessage,
    UserMessage,
    ValidationError,
    limits,
)
from chatschema._partial_json import PartialJSON
from chatschema.providers import PROVIDERS, get_codec
from chatschema.rendering import get_buffer_string, pretty_repr
from chatschema.tokens import count_tokens_approximately


def deep(levels: int, kind: str = "list", leaf: Any = 1) -> Any:
    return H.nested(levels, leaf, kind)


def problems_of(function: Callable[..., Any], *args: Any) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as caught:
        function(*args)
    return [(problem.pointer, problem.keyword) for problem in caught.value.problems]


# ----------------------------------------------------------------------- depth


def test_the_limits() -> None:
    assert limits.MAX_DEPTH == 200
    assert limits.MAX_MESSAGES == 100_000
    assert limits.MAX_STRING_CHARS == 256 * 1024 * 1024


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_depth_limit_is_the_same_on_every_path(kind: str) -> None:
    """A value inside 200 arrays/objects passes; one more level is refused, by
    parse (Python data and JSON text) and by validate, at the same pointer."""
    for levels, ok in [(198, True), (199, False)]:
        # the message is level 1, metadata level 2: the leaf sits inside levels + 2
        document = {"role": "user", "content": "x", "metadata": {"a": deep(levels, kind)}}
        text = json.dumps(document)
        if ok:
            chatschema.parse_message(document)
            chatschema.parse_message(text)
            chatschema.validate(document)
            continue
        from_data = problems_of(chatschema.parse_message, document)
        from_text = problems_of(chatschema.parse_message, text)
        from_schema = problems_of(chatschema.validate, document)
        assert from_data == from_text == from_schema
        [(pointer, keyword)] = from_data
        assert keyword == "depth"
        # the pointer names the container that sits inside 200 others and holds a value
        assert pointer.startswith("/metadata/a/") and pointer.count("/") == 200


@pytest.mark.parametrize("levels", [1_000, 100_000])
def test_far_past_the_depth_limit(levels: int) -> None:
    """Deep documents are refused quickly, without recursion, on every path."""
    document = {"role": "user", "content": "x", "extras": {"x": deep(levels)}}
    for function, value in [
        (chatschema.parse_message, document),
        (chatschema.validate, document),
        (chatschema.parse_messages, [document]),
        (chatschema.parse_conversation, {"messages": [document]}),
        (chatschema.parse_message, '{"role": "user", "extras": ' + "[" * levels + "]" * levels),
    ]:
        assert problems_of(function, value)[0][1] == "depth"
    # deep garbage where a typed value belongs
    assert problems_of(chatschema.parse_message, {"role": "user", "content": deep(levels)})
    assert problems_of(chatschema.validate, {"role": "user", "content": deep(levels)})


def test_models_built_in_code_past_the_limit() -> None:
    """Constructors do not check limits; nothing that takes the model crashes."""
    arguments = {"a": deep(5_000)}
    message = AssistantMessage(
        content="x",
        metadata={"m": deep(5_000, "dict")},
        tool_calls=[ToolCall(id="c", name="f", arguments=arguments)],
    )
    assert "..." in repr(message)  # shown 20 levels deep, the rest elided
    assert "<not representable as JSON" in pretty_repr(message)
    assert "<not representable as JSON" in get_buffer_string([message])
    assert count_tokens_approximately([message]) > 5_000 // 4
    assert problems_of(chatschema.to_dict, message)[0][1] == "depth"
    assert problems_of(chatschema.to_json, message)[0][1] == "depth"
    assert problems_of(chatschema.validate, message, "AssistantMessage")[0][1] == "depth"
    result = ToolMessage(tool_call_id="c", content="r")
    # encoding: a ConversionError naming where (models are not walked beforehand: limits
    # apply to what is read, and re-encoding a history must stay cheap)
    # or the request, where the codec does not need to serialize the arguments
    for provider in PROVIDERS:
        # (Converse wants the tools of the calls declared, or a history that is data)
        options = {"request": False} if provider == "bedrock_converse" else {}
        try:
            get_codec(provider).encode([UserMessage(content="q"), message, result], **options)
        except chatschema.ConversionError as error:
            [problem] = error.problems
            assert problem.keyword == "depth" and problem.pointer.startswith("/1/"), provider


def test_circular_data_built_in_code() -> None:
    metadata: dict[str, Any] = {}
    metadata["self"] = metadata
    message = UserMessage(content="x", metadata=metadata)
    repr(message)
    assert problems_of(chatschema.to_dict, message)[0][1] == "depth"
    assert problems_of(chatschema.validate, message)[0][1] == "depth"


def test_unserializable_values_built_in_code() -> None:
    message = UserMessage(content="x", metadata={"when": object()})
    [(pointer, keyword)] = problems_of(chatschema.to_json, message)
    assert (pointer, keyword) == ("", "type")


def test_partial_tool_arguments_stop_at_the_depth_limit() -> None:
    parser = PartialJSON()
    parser.feed("[" * 100_000)
    assert limits.nesting_depth(parser.value()) == limits.MAX_DEPTH
    assert parser.error == "nested deeper than 200 levels"
    accumulator = ChunkAccumulator()
    accumulator.add(
        AssistantMessageChunk(
            tool_call_chunks=[ToolCallChunk(index=0, id="c", name="f", arguments="[" * 50_000)]
        )
    )
    assert accumulator.partial_message().tool_calls[0].arguments == {}


# -------------------------------------------------------------- message count


def messages(count: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "x"}] * count


def test_message_count_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_MESSAGES", 10)
    chatschema.parse_messages(messages(10))
    chatschema.parse_conversation({"messages": messages(10)})
    assert problems_of(chatschema.parse_messages, messages(11)) == [("", "maxItems")]
    assert problems_of(chatschema.parse_messages, json.dumps(messages(11))) == [("", "maxItems")]
    conversation = {"messages": messages(11)}
    assert problems_of(chatschema.parse_conversation, conversation) == [("/messages", "maxItems")]
    assert problems_of(chatschema.validate, conversation, "Conversation") == [
        ("/messages", "maxItems")
    ]
    assert problems_of(chatschema.parse_conversation, json.dumps(conversation)) == [
        ("/messages", "maxItems")
    ]
    with pytest.raises(ValidationError):  # codecs read neutral lists through parse
        get_codec("anthropic").encode(messages(11))
    # a program that needs more raises the limit
    monkeypatch.setattr(limits, "MAX_MESSAGES", 11)
    chatschema.parse_messages(messages(11))


def test_the_real_message_limit_is_checked_before_parsing() -> None:
    many = messages(limits.MAX_MESSAGES + 1)
    error = problems_of(chatschema.parse_conversation, {"messages": many})
    assert error == [("/messages", "maxItems")]


# ----------------------------------------------------------------- string size


def test_string_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_STRING_CHARS", 100)
    block = {"type": "image", "base64": "A" * 100, "mime_type": "image/png"}
    chatschema.parse(block, "ContentBlock")
    block["base64"] = "A" * 101
    message = {"role": "user", "content": [block]}
    expected = [("/content/0/base64", "maxLength")]
    assert problems_of(chatschema.parse_message, message) == expected
    assert problems_of(chatschema.parse_message, json.dumps(message)) == expected
    assert problems_of(chatschema.validate, message) == expected
    long_text = {"role": "user", "content": "y" * 101}
    assert problems_of(chatschema.parse_message, long_text) == [("/content", "maxLength")]
    with pytest.raises(ValidationError) as caught:
        chatschema.parse_message(message)
    assert "101 characters, more than the limit of 100" in str(caught.value)


# ------------------------------------------------------------- memory use

MEMORY: dict[str, float] = {}
"""Peak traced memory of each step as a multiple of the image's size (for the docs)."""


@pytest.fixture(scope="module")
def big_image() -> Iterator[tuple[str, bytes]]:
    """A 100 MiB base64 image (75 MiB of random bytes) and a conversation holding it."""
    data = base64.b64encode(os.urandom(75 * 1024 * 1024)).decode("ascii")
    conversation = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in this picture?"},
                    {"type": "image", "base64": data, "mime_type": "image/png"},
                ],
            }
        ]
    }
    yield data, json.dumps(conversation).encode()
    if os.environ.get("CHATSCHEMA_FUZZ_REPORT"):
        print("\nmemory peaks, multiples of the image size:", json.dumps(MEMORY, indent=1))


def peak(function: Callable[[], Any], size: int) -> tuple[Any, float]:
    """``function()`` and the peak memory it allocated, as a multiple of ``size``."""
    gc.collect()
    tracemalloc.start()
    try:
        result = function()
        return result, tracemalloc.get_traced_memory()[1] / size
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_100_mb_image_is_not_copied(provider: str, big_image: tuple[str, bytes]) -> None:
    """parse + encode of a 100 MB base64 image peaks at 1x (a 'data:' URL, OpenAI) or
    about 1x (the parsed string itself, shared by the request: Anthropic, Gemini)."""
    data, text = big_image
    codec = get_codec(provider)

    def parse_and_encode() -> Any:
        return codec.encode(chatschema.parse_conversation(text), check=False)

    encoded, parse_encode = peak(parse_and_encode, len(data))
    decoded, decode = peak(lambda: codec.decode_conversation(encoded), len(data))
    image = decoded.messages[0].content[1]
    assert image.base64 == data
    MEMORY[f"{provider}: parse + encode"] = round(parse_encode, 2)
    MEMORY[f"{provider}: decode_conversation"] = round(decode, 2)
    data_url = provider.startswith("openai") or provider in ("open_responses", "mistral")
    if provider == "bedrock_converse":  # boto3 takes bytes: the text, then its 0.75x bytes
        assert parse_encode < 1.9 and decode < 2.2, (parse_encode, decode)
        return
    assert parse_encode < (2.2 if data_url else 1.2), parse_encode
    assert decode < (1.2 if data_url else 0.2), decode


def test_parse_and_dump_of_a_100_mb_image(big_image: tuple[str, bytes]) -> None:
    data, text = big_image
    model, parsed = peak(lambda: chatschema.parse_conversation(text), len(data))
    _, dumped = peak(lambda: chatschema.to_json(model), len(data))
    MEMORY["parse_conversation (JSON bytes)"] = round(parsed, 2)
    MEMORY["to_json"] = round(dumped, 2)
    assert parsed < 1.2 and dumped < 2.2


# ------------------------------------------------------------ codecs: deep and odd input

DEEP_PAYLOADS = {
    "openai_chat": {
        "decode_conversation": {"messages": [{"role": "user", "content": "x", "x": deep(5_000)}]},
        "decode_response": {
            "id": "c",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "x"},
                }
            ],
            "x": deep(5_000),
        },
    },
    "openai_responses": {
        "decode_conversation": {"input": [{"role": "user", "content": "x"}], "x": deep(5_000)},
        "decode_response": {"id": "r", "status": "completed", "output": [], "x": deep(5_000)},
    },
    "anthropic": {
        "decode_conversation": {
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": deep(5_000)}],
                },
            ]
        },
        "decode_response": {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "content": [],
            "x": deep(5_000),
        },
    },
    "gemini": {
        "decode_conversation": {
            "contents": [{"role": "user", "parts": [{"text": "x"}]}],
            "x": deep(5_000),
        },
        "decode_response": {"candidates": [], "x": deep(5_000)},
    },
}


def deep_text(payload: Any) -> str:
    """``payload`` as JSON text, its 5,000-level value written out by hand."""

    def shallow(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: shallow(item) for key, item in value.items()}
        if isinstance(value, list):
            if value and isinstance(value[0], list) and isinstance(value[0][0], list):
                return "DEEP"
            return [shallow(item) for item in value]
        return value

    return json.dumps(shallow(payload)).replace('"DEEP"', "[" * 5_000 + "1" + "]" * 5_000)


def _deep_cases() -> Iterator[Any]:
    for provider, payloads in DEEP_PAYLOADS.items():
        for verb in payloads:
            yield pytest.param(provider, verb, id=f"{provider}.{verb}")


@pytest.mark.parametrize(("provider", "verb"), list(_deep_cases()))
def test_deep_payloads_are_refused_where_they_are_too_deep(provider: str, verb: str) -> None:
    """A payload nested 5,000 levels deep: a ConversionError whose problem points at
    the first value past ``MAX_DEPTH``, before any decoding (never a RecursionError)."""
    codec = get_codec(provider)
    with pytest.raises(chatschema.ConversionError) as caught:
        getattr(codec, verb)(DEEP_PAYLOADS[provider][verb])
    [problem] = caught.value.problems
    assert problem.keyword == "depth"
    assert problem.pointer.count("/") == limits.MAX_DEPTH
    # As JSON text (5,000 levels: more than the JSON reader can take): refused too.
    with pytest.raises(chatschema.ConversionError):
        getattr(codec, verb)(deep_text(DEEP_PAYLOADS[provider][verb]))


def test_payloads_within_the_depth_limit_decode() -> None:
    """Unknown values nested just under the limit are kept, as extras."""
    payload = {"messages": [{"role": "user", "content": "x", "x": deep(limits.MAX_DEPTH - 4)}]}
    message = get_codec("openai_chat").decode_conversation(payload).messages[0]
    assert message.model_dump(exclude_unset=True)["extras"]["openai_chat"]["x"] == deep(
        limits.MAX_DEPTH - 4
    )


def _first_deep_stream(provider: str) -> list[Any]:
    """A recorded stream whose first event carries a value nested 5,000 levels deep."""
    events = json.loads(json.dumps(H.stream_seed_at(provider, 0)[0]))
    holder = {"openai_responses": "response", "anthropic": "message"}.get(provider)
    target = events[0][holder] if holder else events[0]
    target["x"] = deep(5_000)
    return events


@pytest.mark.parametrize("provider", PROVIDERS)
def test_deep_stream_events_are_refused(provider: str) -> None:
    """The event is named: the pointer starts with its position in the stream."""
    if not H.has_stream(provider):
        pytest.skip(f"{provider} has no stream events")
    codec = get_codec(provider)
    with pytest.raises(chatschema.ConversionError) as caught:
        list(codec.decode_stream(_first_deep_stream(provider)))
    [problem] = caught.value.problems
    assert problem.keyword == "depth" and problem.pointer.startswith("/0/")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_deep_stream_text_is_refused(provider: str) -> None:
    """The raw SSE body of such a stream: refused too (as text the parser cannot read)."""
    if not H.has_stream(provider):
        pytest.skip(f"{provider} has no stream events")
    codec = get_codec(provider)
    body = [f"data: {deep_text(event)}\n\n".encode() for event in _first_deep_stream(provider)]
    with pytest.raises(chatschema.ConversionError):
        list(codec.decode_stream(body))


DEEP_TEXT = '{"a":' * 5_000 + "1" + "}" * 5_000


def test_deep_argument_text_openai_chat() -> None:
    """Argument text nested 5,000 objects deep: kept, as an invalid tool call."""
    message = (
        get_codec("openai_chat")
        .decode_conversation(
            {
                "messages": [
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "c",
                                "type": "function",
                                "function": {"name": "f", "arguments": DEEP_TEXT},
                            }
                        ],
                    }
                ]
            }
        )
        .messages[0]
    )
    assert isinstance(message, AssistantMessage)
    [invalid] = message.invalid_tool_calls
    assert invalid.arguments == DEEP_TEXT and "nested too deeply" in (invalid.error or "")


def test_deep_argument_text_openai_responses() -> None:
    conversation = get_codec("openai_responses").decode_conversation(
        {"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": DEEP_TEXT}]}
    )
    message = conversation.messages[0]
    assert isinstance(message, AssistantMessage)
    assert message.invalid_tool_calls[0].arguments == DEEP_TEXT


def test_deep_argument_text_streamed() -> None:
    """The finished message keeps such arguments as an InvalidToolCall."""
    accumulator = ChunkAccumulator()
    accumulator.add(
        AssistantMessageChunk(
            tool_call_chunks=[ToolCallChunk(index=0, id="c", name="f", arguments=DEEP_TEXT)]
        )
    )
    message = accumulator.to_message()
    assert message.invalid_tool_calls[0].arguments == DEEP_TEXT


@pytest.mark.parametrize("provider", PROVIDERS)
def test_stream_body_cut_inside_a_character(provider: str) -> None:
    """``list(openai_chat.decode_stream([b"data: {}\\n\\n\\xee"]))``: not UTF-8, said so."""
    if not H.has_stream(provider):
        pytest.skip(f"{provider} has no stream events")
    codec = get_codec(provider)
    first = json.dumps(H.stream_seed_at(provider, 0)[0][0])
    with pytest.raises(chatschema.ConversionError, match="not UTF-8"):
        list(codec.decode_stream([f"data: {first}\n\n".encode() + b"\xee"]))


def test_anthropic_non_standard_block_with_an_odd_type() -> None:
    with pytest.raises(chatschema.UnsupportedContentError) as caught:
        get_codec("anthropic").encode(
            [UserMessage(content=[NonStandardBlock(value={"type": ["x"]})])]
        )
    assert (caught.value.message_index, caught.value.block_index) == (0, 0)


def test_anthropic_cache_marker_with_an_odd_ttl() -> None:
    codec = get_codec("anthropic")
    conversation = codec.decode_conversation(
        {
            "system": [
                {"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": {}}}
            ],
            "messages": [{"role": "user", "content": "hi"}],
        }
    )
    [problem] = codec.check(conversation)
    assert problem.keyword == "cache_ttl"


def test_anthropic_block_with_an_odd_type_is_refused_where_it_is() -> None:
    """A content block whose ``type`` is not a string: refused, naming the block."""
    payload = {"messages": [{"role": "user", "content": [{"type": ["x"], "v": 1}]}]}
    with pytest.raises(chatschema.ConversionError) as caught:
        get_codec("anthropic").decode_conversation(payload)
    assert (caught.value.message_index, caught.value.block_index) == (0, 0)


def test_gemini_refused_values_name_the_content() -> None:
    codec = get_codec("gemini")
    with pytest.raises(chatschema.ConversionError) as caught:
        codec.decode_conversation(
            {
                "contents": [
                    {"role": "user", "parts": [{"text": "hi"}]},
                    {
                        "role": "model",
                        "parts": [{"function_call": {"name": "f", "args": {}, "id": "\ud800"}}],
                    },
                ]
            }
        )
    assert caught.value.message_index == 1
