"""Python data with an object key that is not a string, anywhere in a Chat payload.

JSON cannot hold such a key; Python dicts can. Wherever one sits (content parts,
tool calls, tools, tool choice, settings, request keys kept in extras, response
objects, usage, stream events), every entry point (``decode_conversation``,
``decode_messages``, ``decode_response``, ``decode_stream``, ``encode``) gives a
``ConversionError`` that names the key and where it is, never a pydantic error, a
``TypeError``, or data JSON cannot carry passed on.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import hostile as H
import pytest

from chatschema import Conversation, ConversionError, to_dict
from chatschema.errors import ChatSchemaError, ValidationError
from chatschema.providers import openai_chat as oc
from providers.openai_chat.helpers import WAV, WEATHER_TOOL
from providers.openai_chat.test_settings import FULL_REQUEST

PYTHON_KEY = {0: [None]}

AUDIO_RESPONSE = {
    "id": "chatcmpl-audio",
    "object": "chat.completion",
    "created": 1741570283,
    "model": "gpt-4o-audio-preview",
    "choices": [
        {
            "index": 0,
            "finish_reason": "stop",
            "logprobs": None,
            "message": {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "audio": {"id": "audio_1", "data": WAV, "expires_at": 1, "transcript": "Hi"},
            },
        }
    ],
    "usage": {
        "prompt_tokens": 5,
        "completion_tokens": 9,
        "total_tokens": 14,
        "completion_tokens_details": {"audio_tokens": 8, "reasoning_tokens": 0},
    },
}

TOOL_HISTORY = {
    "messages": [
        {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "Weather?",
                    "prompt_cache_breakpoint": {"mode": "explicit"},
                },
                {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
                {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}},
            ],
        },
        {
            "role": "assistant",
            "content": "Checking.",
            "annotations": [
                {
                    "type": "url_citation",
                    "url_citation": {
                        "url": "https://example.com",
                        "title": "Example",
                        "start_index": 0,
                        "end_index": 3,
                    },
                }
            ],
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "-3C"},
    ],
    "tools": [WEATHER_TOOL],
    "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
}


def with_python_key(seed: Any) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """``(path, copy)``: every copy of ``seed`` with one Python key put in.

    Each object gets a key ``0``; each value (but the root) is replaced by
    ``[{0: [None]}]`` and by ``{0: [None]}``.
    """
    for path in H.paths(seed):
        if isinstance(H.get(seed, path), dict):
            document = copy.deepcopy(seed)
            H.get(document, path)[0] = [None]
            yield path, document
        if path:
            for value in ([PYTHON_KEY], PYTHON_KEY):
                document = copy.deepcopy(seed)
                H.get(document, path[:-1])[path[-1]] = copy.deepcopy(value)
                yield path, document


def has_python_key(value: Any) -> bool:
    """Whether JSON-like data holds an object key that is not a string."""
    if isinstance(value, dict):
        return any(not isinstance(key, str) or has_python_key(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(has_python_key(item) for item in value)
    return False


def refuses(function: Callable[[Any], Any], document: Any, where: Any) -> ConversionError:
    """The ConversionError ``function`` raises on ``document`` (anything else fails)."""
    try:
        result = function(document)
    except ConversionError as error:
        H.check_error(error, provider="openai_chat")
        return error
    except Exception as error:
        raise AssertionError(f"{type(error).__name__} escaped at {where}: {error!r}") from None
    raise AssertionError(f"no error at {where}: {result!r}"[:500])


def request_seeds() -> list[Any]:
    """Chat requests: hand-written, recorded, every neutral fixture encoded, and ours."""
    return [*H.request_seeds("openai_chat"), FULL_REQUEST, TOOL_HISTORY]


def response_seeds() -> list[Any]:
    return [*H.response_seeds("openai_chat"), AUDIO_RESPONSE]


def test_a_python_key_in_content_names_message_and_part() -> None:
    with pytest.raises(ConversionError) as caught:
        oc.decode_messages([{"role": "user", "content": [{0: [None]}]}])
    assert (caught.value.message_index, caught.value.block_index) == (0, 0)
    assert "not int 0" in caught.value.reason
    with pytest.raises(ConversionError) as caught:
        oc.decode_conversation({**FULL_REQUEST, "metadata": {"run": {1: "x"}}})
    assert "at request/metadata/run" in caught.value.reason


def test_python_keys_in_requests_are_conversion_errors() -> None:
    calls = 0
    for seed in request_seeds():
        for path, document in with_python_key(seed):
            calls += 1
            error = refuses(oc.decode_conversation, document, ("conversation", path))
            if len(path) > 1 and path[0] == "messages":  # located: the message
                assert error.message_index == path[1], (path, error)
                if len(path) > 3 and path[2] == "content" and isinstance(path[3], int):
                    assert error.block_index == path[3], (path, error)
            refuses(oc.decode_messages, document, ("messages", path))
    assert calls > 1000


def test_python_keys_in_responses_are_conversion_errors() -> None:
    calls = 0
    for seed in response_seeds():
        for path, document in with_python_key(seed):
            calls += 1
            refuses(oc.decode_response, document, ("response", path))
    assert calls > 300


def test_python_keys_in_stream_events_are_conversion_errors() -> None:
    calls = 0
    for events, _ in H.stream_seeds("openai_chat"):
        for path, document in with_python_key(events):
            if not path:
                continue
            calls += 1
            refuses(lambda events: list(oc.decode_stream(events)), document, ("stream", path))
    assert calls > 1000


def test_python_keys_are_never_encoded() -> None:
    """Neutral data holding a Python key (built in code): a chatschema error, or a
    request without it (the key sat where nothing is sent: metadata, other formats)."""
    calls = 0
    for seed in [FULL_REQUEST, TOOL_HISTORY, *H.request_seeds("openai_chat")[:4]]:
        neutral = to_dict(oc.decode_conversation(seed))
        for path, document in with_python_key(neutral):
            calls += 1
            try:
                conversation = Conversation.model_validate(document)
            except Exception:
                continue
            try:
                request = oc.encode(conversation, check=False, unsupported="placeholder")
            except ChatSchemaError as error:
                H.check_error(error, provider="openai_chat")
                continue
            except Exception as error:
                raise AssertionError(
                    f"{type(error).__name__} escaped at {path}: {error!r}"
                ) from None
            assert not has_python_key(request), path
    assert calls > 500


def test_a_python_key_in_kept_extras_is_refused_by_encode() -> None:
    conversation = oc.decode_conversation(FULL_REQUEST)
    extras = copy.deepcopy(conversation.extras)
    extras["openai_chat"]["metadata"] = {"run": {2: "x"}}  # type: ignore[index]
    with pytest.raises(ConversionError) as caught:
        oc.encode(conversation.model_copy(update={"extras": extras}))
    assert "at extras/metadata/run" in caught.value.reason
    # as dicts, the neutral validation refuses it first, naming where
    with pytest.raises(ValidationError):
        oc.encode({"messages": [{"role": "user", "content": "x", "extras": {0: 1}}]})
