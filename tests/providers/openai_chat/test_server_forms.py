"""Forms OpenAI and OpenAI-compatible servers send, each a regression from real traffic.

Each test names its class. The oracle for what a server sent is the official
client: ``client.chat.completions.create`` reads a body with ``construct_type``
(it validates nothing unless ``_strict_response_validation`` is on, which it is
not by default), so whatever a server sends reaches the caller as a
``ChatCompletion`` / ``ChatCompletionChunk``. :func:`sdk_reads` proves it for every
payload here, and the SDK objects it gives decode like the JSON. Requests are
checked against the SDK's request types (``oracle.validate_request``) where those
accept them; the forms they do not type (``image_url`` as a bare string) are the
ones compatible servers accept.
"""

from __future__ import annotations

import copy
import importlib
import json
import warnings
from typing import Any, Final, TypeVar

import openai
import pytest
from conftest import assembled
from openai._models import construct_type
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from oracle import validate_request

from chatschema import (
    ImageBlock,
    InvalidToolCall,
    NonStandardBlock,
    UnsupportedContentError,
    UserMessage,
    to_dict,
)
from chatschema.providers import openai_chat as oc
from providers.openai_chat.test_encode_fast import assert_same_paths

NAME: Final = "openai_chat"
ENCODE = importlib.import_module("chatschema.providers.openai_chat.encode")
_Model = TypeVar("_Model", ChatCompletion, ChatCompletionChunk)


def sdk_reads(cls: type[_Model], body: dict[str, Any]) -> _Model:
    """The official client's reading of a body the server sent (its default path)."""
    client = openai.OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9")
    assert client._strict_response_validation is False  # the default: construct, no checks
    value = construct_type(type_=cls, value=copy.deepcopy(body))
    assert isinstance(value, cls)
    return value


def decoded(body: dict[str, Any]) -> dict[str, Any]:
    """``decode_response`` of a body, the same for its JSON and its SDK object."""
    message = to_dict(oc.decode_response(body))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (an SDK object holding what its type does not say)
        assert to_dict(oc.decode_response(sdk_reads(ChatCompletion, body))) == message
    return message


def streamed(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The message a stream assembles to, the same for its JSON, SDK objects and SSE body."""
    chunks = list(oc.decode_stream(events))
    objects = [sdk_reads(ChatCompletionChunk, event) for event in events]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _dumps(oc.decode_stream(objects)) == _dumps(chunks)
    body = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    assert _dumps(oc.decode_stream([body.encode()])) == _dumps(chunks)
    return assembled(chunks)


def _dumps(chunks: Any) -> list[dict[str, Any]]:
    return [to_dict(chunk) for chunk in chunks]


def response(message: Any = None, finish: str | None = "stop", **extra: Any) -> dict[str, Any]:
    """A ChatCompletion with one choice (``message`` None: the choice has none)."""
    choice: dict[str, Any] = {"index": 0, "finish_reason": finish, "logprobs": None}
    if message is not None:
        choice["message"] = message
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1748902365,
        "model": "m-1",
        "choices": [choice],
    }
    body.update(extra)
    return body


def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """A chat.completion.chunk with one choice (``delta`` None: no choices)."""
    event: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1748902365,
        "model": "m-1",
        "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    event.update(extra)
    return event


# ====================================================== class 1: usage with null counts

NULL_USAGE: dict[str, Any] = {
    "prompt_tokens": 12,
    "completion_tokens": None,
    "total_tokens": None,
    "prompt_tokens_details": None,
    "completion_tokens_details": None,
}
FINAL_USAGE: dict[str, Any] = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}


def test_mid_stream_usage_with_null_counts_decodes_and_later_totals_replace_it() -> None:
    """Class 1 (17 streams): usage on every chunk, ``completion_tokens: null`` until the
    end. Nothing is invented: the neutral usage is the final totals."""
    events = [
        chunk({"role": "assistant", "content": "Hel"}, usage=NULL_USAGE),
        chunk({"content": "lo."}, usage=NULL_USAGE),
        chunk({}, "stop", usage=NULL_USAGE),
        chunk(None, usage=FINAL_USAGE),
    ]
    message = streamed(events)
    assert message["usage"] == {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15}
    assert message["content"] == "Hello."
    assert "usage" not in message["response_metadata"][NAME]
    assert message == decoded(
        response({"role": "assistant", "content": "Hello."}, usage=FINAL_USAGE)
    )


def test_usage_whose_counts_stay_null_is_kept_as_it_came() -> None:
    """Class 1: no totals ever come: no neutral usage (it would be invented), the
    usage object kept whole in the response metadata, as decode_response keeps it."""
    all_null = {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}
    events = [
        chunk({"role": "assistant", "content": "Hi"}, usage=NULL_USAGE),
        chunk({}, "stop", usage=all_null),
    ]
    message = streamed(events)
    assert "usage" not in message
    assert message["response_metadata"][NAME]["usage"] == all_null
    whole = decoded(response({"role": "assistant", "content": "Hi"}, usage=all_null))
    assert message == whole


@pytest.mark.parametrize(
    "usage",
    [
        NULL_USAGE,
        {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": None},
        {"completion_tokens": 2},  # no prompt count
        {"prompt_tokens": -1, "completion_tokens": 2, "total_tokens": 1},
        {"prompt_tokens": "5", "completion_tokens": 2, "total_tokens": 7},
    ],
    ids=["null-completion", "null-total", "missing-prompt", "negative", "string"],
)
def test_response_usage_the_neutral_usage_cannot_hold_is_kept_not_invented(
    usage: dict[str, Any],
) -> None:
    """Class 1, non-streamed: the same rule. (The SDK object of the string count holds
    the integer: its reading converts it, and then the usage is neutral.)"""
    body = response({"role": "assistant", "content": "x"}, usage=usage)
    sdk_reads(ChatCompletion, body)
    message = to_dict(oc.decode_response(body))
    assert "usage" not in message
    assert message["response_metadata"][NAME]["usage"] == usage


def test_null_usage_details_are_nothing_and_odd_detail_counts_are_kept() -> None:
    """Class 1: ``*_tokens_details: null`` (and null counts inside) add nothing; a
    detail count that is not a count stays beside the neutral usage, as it came."""
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "total_tokens": 12,
        "prompt_tokens_details": {"cached_tokens": None, "audio_tokens": "0"},
        "completion_tokens_details": None,
    }
    body = response({"role": "assistant", "content": "x"}, usage=usage)
    sdk_reads(ChatCompletion, body)
    message = to_dict(oc.decode_response(body))
    assert message["usage"] == {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
    assert message["response_metadata"][NAME]["usage"] == {
        "prompt_tokens_details": {"audio_tokens": "0"}
    }


# ====================================================== class 2: content as an object


def test_reply_content_as_an_object_is_read_as_its_part_and_goes_back_as_it_came() -> None:
    """Class 2: an OpenAI-compatible server's ``content`` as one part object."""
    part = {"type": "text", "text": "The answer is 4."}
    body = response({"role": "assistant", "content": part})
    assert sdk_reads(ChatCompletion, body).choices[0].message.content == part  # type: ignore[comparison-overlap]
    message = decoded(body)
    assert message["content"] == [{"type": "text", "text": "The answer is 4."}]
    assert message["extras"] == {NAME: {"content_shape": "object"}}
    reply = oc.decode_response(body)
    request = oc.encode([UserMessage(content="2+2?"), reply])
    assert request["messages"][1] == {"role": "assistant", "content": part}  # as it came
    # the form the SDK request types take, on request
    parts = oc.encode([reply], content_format="parts")["messages"][0]["content"]
    assert parts == [part]
    assert oc.encode([reply], content_format="string")["messages"][0]["content"] == part["text"]


@pytest.mark.parametrize(
    "content",
    [{"text": "no type"}, {"type": "text"}, {"type": "output_text", "text": "x", "logprobs": []}],
    ids=["no-type", "text-without-text", "unknown-type"],
)
def test_reply_content_object_of_another_shape_is_kept_whole(content: dict[str, Any]) -> None:
    """Class 2: an object that is no part this codec reads is kept whole (non_standard)."""
    reply = oc.decode_response(response({"role": "assistant", "content": content}))
    assert isinstance(reply.content, list) and len(reply.content) == 1
    block = reply.content[0]
    assert isinstance(block, NonStandardBlock) and block.value == content
    assert oc.encode([reply])["messages"][0]["content"] == content


def test_history_with_object_content_round_trips() -> None:
    """Class 2: such a reply put back in a history decodes and encodes to itself."""
    payload = {
        "messages": [
            {"role": "user", "content": "2+2?"},
            {"role": "assistant", "content": {"type": "text", "text": "4"}},
            {"role": "user", "content": "thanks"},
        ]
    }
    assert oc.encode(oc.decode_conversation(payload)) == payload
    assert oc.check(oc.decode_conversation(payload)) == []


def test_image_url_as_a_bare_string_is_read_and_written_back_as_it_came() -> None:
    """Class 2: ``{"type": "image_url", "image_url": "https://..."}`` (servers take the
    URL for ``{"url": ...}``), a data URL too."""
    payload = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Compare:"},
                    {"type": "image_url", "image_url": "https://example.com/a.png"},
                    {"type": "image_url", "image_url": "data:image/png;base64,iVBORw0KGgo="},
                    {"type": "image_url", "image_url": {"url": "https://example.com/b.png"}},
                ],
            }
        ]
    }
    conversation = oc.decode_conversation(payload)
    blocks = conversation.messages[0].content
    assert isinstance(blocks, list)
    first, second = blocks[1], blocks[2]
    assert isinstance(first, ImageBlock) and first.url == "https://example.com/a.png"
    assert isinstance(second, ImageBlock) and second.base64 == "iVBORw0KGgo="
    assert oc.encode(conversation) == payload
    assert oc.check(conversation) == []
    # a detail set later needs the object form, the one the SDK types
    detailed = first.model_copy(update={"detail": "low"})
    part = oc.encode([UserMessage(content=[detailed])])["messages"][0]["content"][0]
    assert part == {
        "type": "image_url",
        "image_url": {"url": "https://example.com/a.png", "detail": "low"},
    }
    validate_request(NAME, oc.encode([UserMessage(content=[detailed])]))


# ============================================= class 3: a content-filtered choice, no message

AZURE_FILTERED: dict[str, Any] = {
    "id": "chatcmpl-AZ1",
    "object": "chat.completion",
    "created": 1748902365,
    "model": "gpt-4o-2024-11-20",
    "prompt_filter_results": [
        {
            "prompt_index": 0,
            "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}},
        }
    ],
    "choices": [
        {
            "index": 0,
            "finish_reason": "content_filter",
            "content_filter_results": {
                "hate": {"filtered": False, "severity": "safe"},
                "violence": {"filtered": True, "severity": "medium"},
            },
        }
    ],
    "usage": {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27},
}


@pytest.mark.parametrize("message", ["absent", "null"])
def test_azure_content_filter_stop_without_a_message(message: str) -> None:
    """Class 3: Azure's filtered choice has no ``message``: an assistant message with
    the finish reason and the filter results, nothing invented."""
    body = copy.deepcopy(AZURE_FILTERED)
    if message == "null":
        body["choices"][0]["message"] = None
    decoded_message = decoded(body)
    assert decoded_message == {
        "role": "assistant",
        "usage": {"input_tokens": 20, "output_tokens": 7, "total_tokens": 27},
        "model": "gpt-4o-2024-11-20",
        "provider": NAME,
        "response_id": "chatcmpl-AZ1",
        "finish_reason": "content_filter",
        "raw_finish_reason": "content_filter",
        "response_metadata": {
            NAME: {
                "created": 1748902365,
                "prompt_filter_results": AZURE_FILTERED["prompt_filter_results"],
                "content_filter_results": AZURE_FILTERED["choices"][0]["content_filter_results"],
            }
        },
    }


def test_azure_content_filter_stop_streamed_assembles_alike() -> None:
    """Class 3, streamed: the filter-results chunk, the stop without a delta."""
    events = [
        {**chunk(None), "id": "", "model": "", "prompt_filter_results": []},
        chunk({"role": "assistant", "content": ""}),
        {
            **chunk(None),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "content_filter",
                    "content_filter_results": {"violence": {"filtered": True}},
                }
            ],
        },
    ]
    message = streamed(events)
    assert message["finish_reason"] == "content_filter"
    assert message["response_metadata"][NAME]["content_filter_results"] == {
        "violence": {"filtered": True}
    }
    assert not message.get("tool_calls") and not message.get("invalid_tool_calls")


# ============================================= class 6: other forms of the same kind


def test_a_response_without_choices_decodes_to_an_empty_message() -> None:
    """An empty ``choices`` list is a value (the SDK's ChatCompletion takes it)."""
    message = decoded(response(None, choices=[], usage=FINAL_USAGE))
    assert "content" not in message and "finish_reason" not in message
    assert message["usage"]["total_tokens"] == 15
    assert message["response_metadata"][NAME]["choices"] == []


# pydantic-ai's cassette test_openai/test_compatible_api_with_tool_calls_without_id
GEMINI_CALL: dict[str, Any] = {
    "function": {"arguments": "{}", "name": "get_current_time"},
    "id": "",
    "type": "function",
}


def test_tool_call_with_an_empty_id_is_an_invalid_call_kept_as_it_came() -> None:
    """Gemini's OpenAI compatibility answers a tool call with ``"id": ""``: no neutral
    id, so an InvalidToolCall; it goes back with its empty id, and a stream with it
    assembles to the same."""
    body = response(
        {"role": "assistant", "tool_calls": [GEMINI_CALL]},
        "tool_calls",
        usage={"completion_tokens": 12, "prompt_tokens": 35, "total_tokens": 109},
    )
    message = decoded(body)
    assert message["invalid_tool_calls"] == [
        {
            "name": "get_current_time",
            "arguments": "{}",
            "error": "the tool call has no id",
            "index": 0,
            "extras": {NAME: {"id": ""}},
        }
    ]
    reply = oc.decode_response(body)
    assert oc.encode([UserMessage(content="time?"), reply])["messages"][1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [GEMINI_CALL],
    }
    events = [
        chunk({"role": "assistant", "tool_calls": [{**GEMINI_CALL, "index": 0}]}),
        chunk({}, "tool_calls"),
        chunk(None, usage={"completion_tokens": 12, "prompt_tokens": 35, "total_tokens": 109}),
    ]
    assert streamed(events) == message


@pytest.mark.parametrize("missing", ["id", "name"])
def test_tool_call_without_id_or_name_is_an_invalid_call_in_both_decoders(missing: str) -> None:
    """A call that never gets an id (or a name) is the accumulator's InvalidToolCall;
    decode_response reads the same call the same way. Encoding it falls under the
    unsupported-content policy (a call without id cannot be answered)."""
    call: dict[str, Any] = {"id": "call_1", "type": "function"}
    call["function"] = {"name": "f", "arguments": '{"a": 1}'}
    if missing == "id":
        del call["id"]
    else:
        del call["function"]["name"]
    message = decoded(response({"role": "assistant", "content": None, "tool_calls": [call]}))
    [invalid] = message["invalid_tool_calls"]
    assert invalid["error"] == f"the tool call has no {missing}"
    assert invalid["arguments"] == '{"a": 1}'
    events = [
        chunk({"role": "assistant", "content": None, "tool_calls": [{**call, "index": 0}]}),
        chunk({}, "stop"),
    ]
    assert streamed(events) == message
    reply = oc.decode_response(response({"role": "assistant", "tool_calls": [call]}))
    if missing == "id":
        with pytest.raises(UnsupportedContentError, match="without id"):
            oc.encode([reply])
    else:
        assert isinstance(reply.invalid_tool_calls[0], InvalidToolCall)


def test_tool_call_with_a_null_type_reads_as_one_without_type() -> None:
    """``"type": null`` is no type, in a response as in a stream's deltas."""
    call = {"id": "call_1", "type": None, "function": {"name": "f", "arguments": "{}"}}
    message = decoded(response({"role": "assistant", "tool_calls": [call]}, "tool_calls"))
    assert message["tool_calls"] == [
        {
            "id": "call_1",
            "name": "f",
            "arguments": {},
            "index": 0,
            "extras": {NAME: {"no_type": True}},
        }
    ]
    events = [
        chunk({"role": "assistant", "tool_calls": [{**call, "index": 0}]}),
        chunk({"tool_calls": [{"index": 0, "type": None, "function": {"arguments": ""}}]}),
        chunk({}, "tool_calls"),
    ]
    assert streamed(events) == message


NULLS_MESSAGE: dict[str, Any] = {
    "role": "assistant",
    "content": "Hi.",
    "refusal": None,
    "annotations": [],
    "audio": None,
    "function_call": None,
    "tool_calls": [],
    "reasoning_content": None,
    "name": None,
}


def test_null_and_empty_optional_fields_mean_nothing_in_a_response() -> None:
    """``logprobs``, ``refusal``, ``audio``, ``function_call``, ``service_tier``,
    ``system_fingerprint`` null, ``annotations`` and ``tool_calls`` empty: the message
    is the one without them."""
    plain = decoded(response({"role": "assistant", "content": "Hi."}))
    noisy = decoded(response(NULLS_MESSAGE, service_tier=None, system_fingerprint=None))
    assert noisy == plain


def test_null_fields_roles_and_indexes_of_streams_mean_nothing() -> None:
    """The role in every delta or in the first only, null fields in deltas, choices
    with a null ``index``, tool-call deltas without ``index``: the same message."""
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}
    plain = [
        chunk({"role": "assistant", "content": "Hi."}),
        chunk({"tool_calls": [{**call, "index": 0}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a":1}'}}]}),
        chunk({}, "tool_calls"),
        chunk(None, usage=FINAL_USAGE),
    ]
    noisy = [
        chunk({"role": "assistant", "content": "Hi.", "refusal": None, "tool_calls": None}),
        chunk({"role": "assistant", "content": None, "tool_calls": [call], "audio": None}),
        chunk({"role": "assistant", "tool_calls": [{"function": {"arguments": '{"a":1}'}}]}),
        chunk({"role": None}, "tool_calls", logprobs=None, system_fingerprint=None),
        chunk(None, usage=FINAL_USAGE, service_tier=None),
    ]
    noisy[1]["choices"][0]["index"] = None
    want = streamed(plain)
    assert streamed(noisy) == want
    assert want["tool_calls"][0]["arguments"] == {"a": 1}


def test_a_null_role_in_a_response_message_is_no_role() -> None:
    """``"role": null`` says nothing: the assistant's reply."""
    assert decoded(response({"role": None, "content": "x"})) == decoded(
        response({"role": "assistant", "content": "x"})
    )


def test_a_tool_choice_word_of_a_compatible_server_is_kept_as_it_came() -> None:
    """Mistral's ``tool_choice: "any"`` (recorded by openinference's instrumentor
    tests, answered 200): no neutral form, and the word the server took is kept."""
    payload = {
        "model": "mistral-small-latest",
        "messages": [{"role": "user", "content": "What's the weather like in San Francisco?"}],
        "safe_prompt": False,
        "stream": True,
        "temperature": 0.7,
        "tool_choice": "any",
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "finds the weather for a given city",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                },
            }
        ],
        "top_p": 1.0,
    }
    conversation = oc.decode_conversation(payload)
    assert conversation.tool_choice is None
    assert oc.check(conversation) == []
    assert oc.encode(conversation) == payload
    with_flag = {**payload, "parallel_tool_calls": False}
    assert oc.encode(oc.decode_conversation(with_flag)) == with_flag


def test_a_bare_auto_tool_choice_without_tools_is_taken() -> None:
    """Mistral took ``tool_choice: "auto"`` with no tools (openinference's recording):
    it asks for nothing the request lacks, so check finds nothing and it goes back."""
    payload = {
        "messages": [{"role": "user", "content": "Who won the World Cup in 2018?"}],
        "model": "mistral-small-latest",
        "safe_prompt": False,
        "stream": True,
        "temperature": 0.1,
        "tool_choice": "auto",
        "top_p": 1.0,
    }
    conversation = oc.decode_conversation(payload)
    assert oc.check(conversation) == []
    assert oc.encode(conversation) == payload


FAST_PATH_REQUESTS: list[dict[str, Any]] = [
    {
        "messages": [
            {"role": "user", "content": "2+2?"},
            {"role": "assistant", "content": {"type": "text", "text": "4"}},
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": "https://e.com/a.png"}],
            },
        ]
    },
    {
        "messages": [
            {"role": "user", "content": "time?"},
            {"role": "assistant", "content": None, "tool_calls": [GEMINI_CALL]},
        ]
    },
    {"messages": [{"role": "user", "content": "x"}], "tool_choice": "any"},
    {"messages": [{"role": "user", "content": "x"}], "tool_choice": "auto"},
]


@pytest.mark.parametrize("payload", FAST_PATH_REQUESTS, ids=range(len(FAST_PATH_REQUESTS)))
def test_the_fast_path_agrees_on_these_forms(payload: dict[str, Any]) -> None:
    """The encoder's fast path and its general path give the same for them."""
    conversation = oc.decode_conversation(payload)
    assert_same_paths(ENCODE, NAME, conversation)
    assert oc.encode(conversation) == payload


def test_an_empty_model_is_kept_as_it_came() -> None:
    """An OpenAI-compatible server may take ``"model": ""`` (the SDK's types do); the
    neutral settings hold no empty model, so it stays in extras and goes back."""
    request = {"model": "", "messages": [{"role": "user", "content": "hi"}]}
    validate_request("openai_chat", request)
    conversation = oc.decode_conversation(request)
    assert conversation.settings is None
    assert oc.encode(conversation) == request


@pytest.mark.parametrize(
    "part",
    [
        {"type": "image_url", "image_url": {"url": "not a url"}},
        {"type": "image_url", "image_url": {"url": "", "detail": "low"}},
        {"type": "file", "file": {"file_id": "file-1", "filename": ""}},
    ],
)
def test_a_part_the_neutral_block_cannot_hold_is_kept_as_it_came(part: dict[str, Any]) -> None:
    """The SDK's types take any string for a URL or a file name; a value the neutral
    block refuses (no URL, an empty name) keeps the part whole, sent back unchanged."""
    request = {"messages": [{"role": "user", "content": [part, {"type": "text", "text": "?"}]}]}
    validate_request("openai_chat", request)
    conversation = oc.decode_conversation(request)
    message = conversation.messages[0]
    assert isinstance(message.content, list)
    assert isinstance(message.content[0], NonStandardBlock)
    assert message.content[0].value == part
    assert oc.encode(conversation) == request
