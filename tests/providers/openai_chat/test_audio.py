"""Audio output: a Chat reply's ``message.audio`` as an ``AudioBlock``.

The response carries ``{id, data, expires_at, transcript}``; the block keeps all of
it (the id as the block's, the data as ``base64`` with the media type its bytes
say, the rest in extras) and goes back in a history as ``audio: {"id"}``, what the
API takes there (SDK ``ChatCompletionAssistantMessageParam.audio``). A stream's
``delta.audio`` pieces assemble to the same block.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from conftest import assembled
from openai.types.chat import ChatCompletion
from oracle import validate_request

from chatschema import (
    AssistantMessage,
    AudioBlock,
    TextBlock,
    UnsupportedContentError,
    UserMessage,
    parse,
    to_dict,
)
from chatschema.providers import openai_chat as oc
from chatschema.providers.openai_chat.blocks import audio_mime
from chatschema.rendering import get_buffer_string
from providers.openai_chat.helpers import WAV


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# The first bytes of each format the API can answer with (``audio.format``).
SIGNATURES = [
    ("wav", WAV, "audio/wav"),
    ("mp3-id3", b64(b"ID3\x04\x00\x00\x00\x00\x00\x00" + bytes(6)), "audio/mpeg"),
    ("mp3-frame", b64(b"\xff\xfb\x90\x64" + bytes(12)), "audio/mpeg"),
    ("aac-adts", b64(b"\xff\xf1\x50\x80\x02\x1f\xfc" + bytes(9)), "audio/aac"),
    ("flac", b64(b"fLaC\x00\x00\x00\x22" + bytes(8)), "audio/flac"),
    ("opus-ogg", b64(b"OggS\x00\x02" + bytes(10)), "audio/ogg"),
    ("pcm16", b64(bytes(32)), "application/octet-stream"),  # headerless: unknown
    ("riff-not-wave", b64(b"RIFF\x00\x00\x00\x00AVI LIST" + bytes(4)), "application/octet-stream"),
    ("not-base64", "%%%%", "application/octet-stream"),
    ("empty", "", "application/octet-stream"),
]


@pytest.mark.parametrize(
    ("data", "mime"), [case[1:] for case in SIGNATURES], ids=[c[0] for c in SIGNATURES]
)
def test_the_media_type_is_read_from_the_data(data: str, mime: str) -> None:
    assert audio_mime(data) == mime


def completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-audio",
        "object": "chat.completion",
        "created": 1741570283,
        "model": "gpt-4o-audio-preview-2025-06-03",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": 17,
            "completion_tokens": 92,
            "total_tokens": 109,
            "completion_tokens_details": {"audio_tokens": 72, "text_tokens": 20},
        },
    }


AUDIO = {"id": "audio_abc123", "data": WAV, "expires_at": 1741573883, "transcript": "Hello there!"}
BLOCK = AudioBlock(
    id="audio_abc123",
    base64=WAV,
    mime_type="audio/wav",
    extras={
        "openai_chat": {"as_field": True, "expires_at": 1741573883, "transcript": "Hello there!"}
    },
)


def test_a_reply_with_audio_is_an_audio_block_that_goes_back_by_id() -> None:
    response = completion({"role": "assistant", "content": None, "refusal": None, "audio": AUDIO})
    before = copy.deepcopy(response)
    message = oc.decode_response(response)
    assert response == before
    assert message.content == [BLOCK]
    assert message.extras is None
    assert message.response_metadata == {"openai_chat": {"created": 1741570283}}
    # the SDK object decodes the same
    assert oc.decode_response(ChatCompletion.model_validate(response)) == message
    # in a history: the id only, as the API wants it
    history = oc.encode([UserMessage(content="Say hello"), message])
    assert history["messages"][1] == {
        "role": "assistant",
        "content": None,
        "audio": {"id": "audio_abc123"},
    }
    validate_request("openai_chat", history)
    # lossless through the neutral JSON form (a history saved and loaded)
    reloaded = parse(to_dict(message), "AssistantMessage")
    assert reloaded == message
    assert oc.encode([UserMessage(content="Say hello"), reloaded]) == history


def test_text_beside_audio_stays_the_string_content() -> None:
    # compatible servers may answer with text and audio
    response = completion({"role": "assistant", "content": "Hello there!", "audio": AUDIO})
    message = oc.decode_response(response)
    assert message.content == [TextBlock(text="Hello there!"), BLOCK]
    assert message.extras is None  # a string and the audio field: the default shape
    history = oc.encode([UserMessage(content="Say hello"), message])
    assert history["messages"][1] == {
        "role": "assistant",
        "content": "Hello there!",
        "audio": {"id": "audio_abc123"},
    }
    validate_request("openai_chat", history)


def test_audio_without_data_keeps_its_id_in_extras() -> None:
    partial = {"id": "audio_abc123", "expires_at": 1741573883, "transcript": "Hi"}
    message = oc.decode_response(
        completion({"role": "assistant", "content": None, "audio": partial})
    )
    assert message.content == ""  # (unset: no content)
    assert "content" not in message.model_fields_set
    assert message.extras == {"openai_chat": {"audio": {"id": "audio_abc123"}}}
    assert message.response_metadata["openai_chat"]["audio"] == partial  # type: ignore[index]
    history = oc.encode([UserMessage(content="q"), message])
    assert history["messages"][1] == {
        "role": "assistant",
        "content": None,
        "audio": {"id": "audio_abc123"},
    }


def test_a_history_audio_reference_stays_as_it_came() -> None:
    payload = {
        "messages": [
            {"role": "user", "content": "Say hello"},
            {"role": "assistant", "content": None, "audio": {"id": "audio_abc123"}},
        ]
    }
    assert oc.encode(oc.decode_conversation(payload)) == payload


def test_audio_that_is_not_a_reply_of_this_format_is_unsupported_in_an_assistant_turn() -> None:
    foreign = AudioBlock(base64=WAV, mime_type="audio/wav")  # no id, not the audio field
    unnamed = BLOCK.model_copy(update={"id": None})
    for block in (foreign, unnamed):
        history = [UserMessage(content="q"), AssistantMessage(content=[block])]
        with pytest.raises(UnsupportedContentError):
            oc.encode(history)
        assert [p.keyword for p in oc.check(history)] == ["unsupported_content"]


def test_the_transcript_shows_in_text_views() -> None:
    message = oc.decode_response(completion({"role": "assistant", "content": None, "audio": AUDIO}))
    size = len(WAV) * 3 // 4
    assert get_buffer_string([message]) == (
        f"AI: [audio: audio/wav, {size} bytes inline; transcript: Hello there!]"
    )
    assert "Hello there!" in message.pretty_repr()


def test_a_stream_of_text_and_audio_assembles_to_the_response() -> None:
    head = {
        "id": "chatcmpl-audio",
        "object": "chat.completion.chunk",
        "created": 1741570283,
        "model": "gpt-4o-audio-preview-2025-06-03",
    }

    def event(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}

    events = [
        event({"role": "assistant", "content": ""}),
        event({"content": "Hello "}),
        event({"audio": {"id": "audio_abc123", "transcript": "Hello "}}),
        event({"content": "there!", "audio": {"transcript": "there!", "data": WAV[:20]}}),
        event({"audio": {"data": WAV[20:]}}),
        event({"audio": {"expires_at": 1741573883}}),
        event({}, "stop"),
    ]
    chunks = list(oc.decode_stream(events))
    response = completion({"role": "assistant", "content": "Hello there!", "audio": AUDIO})
    del response["usage"]
    assert assembled(chunks) == to_dict(oc.decode_response(response))
