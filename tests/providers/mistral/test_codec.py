"""The mistral codec: Mistral's rules, thinking chunks, ids, streams and the server side.

Every ``encode`` output goes through the ``mistralai`` SDK's request type
(``validate_request``), every written response through its response type.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import assembled
from oracle import validate_request, validate_response

from chatschema import (
    AssistantMessage,
    ReasoningBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolMessage,
    UserMessage,
    to_dict,
    user,
)
from chatschema.errors import ConversionError, OptionError, UnsupportedContentError
from chatschema.providers import mistral, openai_chat

PAYLOADS = Path(__file__).resolve().parents[2] / "payloads" / "mistral"

MAGISTRAL = {
    "model": "magistral-medium-latest",
    "messages": [
        {"role": "user", "content": "6 * 7?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": [{"type": "text", "text": "Six sevens."}]},
                {"type": "text", "text": "42"},
            ],
        },
        {"role": "user", "content": "And 6 * 8?"},
        {"role": "assistant", "content": "It is", "prefix": True},
    ],
    "random_seed": 3,
    "max_tokens": 64,
    "top_k": 4,
    "safe_prompt": True,
    "prompt_mode": "reasoning",
}


def encoded(messages: Any, **options: Any) -> dict[str, Any]:
    """``encode`` with the id warnings collected, validated by the SDK."""
    with mistral.ids_rewritten():
        request = mistral.encode(messages, **options)
    validate_request("mistral", request)
    return request


def test_a_magistral_request_round_trips_with_its_thinking_and_prefix() -> None:
    conversation = mistral.decode_conversation(MAGISTRAL)
    thinking = conversation.messages[1].content[0]
    assert isinstance(thinking, ReasoningBlock)
    assert (thinking.text, thinking.provider) == ("Six sevens.", "mistral")
    assert conversation.messages[3].extras == {"mistral": {"prefix": True}}
    settings = conversation.settings
    assert settings is not None
    assert (settings.seed, settings.max_output_tokens, settings.top_k) == (3, 64, 4)
    assert conversation.extras == {"mistral": {"safe_prompt": True, "prompt_mode": "reasoning"}}
    assert encoded(conversation) == MAGISTRAL
    assert mistral.check(conversation) == []


def test_thinking_with_references_keeps_its_chunks() -> None:
    chunk = {
        "type": "thinking",
        "thinking": [{"type": "text", "text": "See "}, {"type": "reference", "reference_ids": [1]}],
        "signature": "sig",
    }
    payload = {
        "messages": [{"role": "user", "content": "?"}, {"role": "assistant", "content": [chunk]}]
    }
    payload["messages"].append({"role": "user", "content": "!"})
    block = mistral.decode_messages(payload)[1].content[0]
    assert isinstance(block, ReasoningBlock)
    assert (block.text, block.signature) == ("See ", "sig")
    assert encoded(mistral.decode_conversation(payload)) == payload


def test_null_content_and_a_null_text_chunk_come_back_as_they_came() -> None:
    """The SDK types user and tool content nullable, and takes a text chunk whose text
    is null in a response: kept, never refused."""
    call = {"id": "abcDEF123", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    payload = {
        "model": "mistral-small-latest",
        "messages": [
            {"role": "user", "content": None},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "abcDEF123", "content": None},
        ],
    }
    conversation = mistral.decode_conversation(payload)
    assert conversation.messages[0].content == []
    assert encoded(conversation, check=False) == payload
    body = {
        "id": "cmpl-2",
        "object": "chat.completion",
        "created": 1757459263,
        "model": "magistral-medium-latest",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": [{"type": "text", "text": "Hmm"}]},
                        {"type": "text", "text": None},
                    ],
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
    }
    message = mistral.decode_response(body)
    assert message.content[0].type == "reasoning"
    written = mistral.encode_response(message)
    assert written["choices"][0]["message"]["content"] == body["choices"][0]["message"]["content"]


def test_other_providers_ids_are_rewritten_the_same_for_calls_and_results() -> None:
    history = [
        user("Weather?"),
        AssistantMessage(
            tool_calls=[
                ToolCall(id="call_1", name="w", arguments={}),
                ToolCall(id="ABCdef123", name="w", arguments={}),
            ]
        ),
        ToolMessage(tool_call_id="call_1", content="1"),
        ToolMessage(tool_call_id="ABCdef123", content="2"),
    ]
    with pytest.warns(mistral.IdsRewrittenWarning) as caught:
        request = mistral.encode(history)
    made = mistral.mistral_id("call_1")
    assert caught[0].message.mapping == {"call_1": made}  # type: ignore[union-attr]
    calls = request["messages"][1]["tool_calls"]
    assert [call["id"] for call in calls] == [made, "ABCdef123"]  # a conforming id stays
    assert [m["tool_call_id"] for m in request["messages"][2:]] == [made, "ABCdef123"]
    assert encoded(history) == request  # deterministic
    back = mistral.restore_ids(mistral.decode_messages(request), {"call_1": made})
    assert back[1].tool_calls[0].id == "call_1" and back[2].tool_call_id == "call_1"


def test_without_mistral_ids_check_names_each_id() -> None:
    history = [
        user("Weather?"),
        AssistantMessage(tool_calls=[ToolCall(id="call_1", name="w", arguments={})]),
        ToolMessage(tool_call_id="call_1", content="1"),
    ]
    problems = mistral.check(history, mistral_ids=False)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/1/tool_calls/0/id", "pattern"),
        ("/messages/2/tool_call_id", "pattern"),
    ]
    assert mistral.check(history) == []
    with pytest.raises(OptionError, match="mistral_ids"):
        mistral.encode(history, mistral_ids="yes")


def test_role_order_rules() -> None:
    history = [
        user("Weather?"),
        AssistantMessage(tool_calls=[ToolCall(id="ABCdef123", name="w", arguments={})]),
        ToolMessage(tool_call_id="ABCdef123", content="1"),
        UserMessage(content="Thanks"),
        AssistantMessage(content="You're welcome"),
    ]
    problems = mistral.check(history)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/3", "message_order"),
        ("/messages/4", "last_message"),
    ]
    with pytest.raises(ConversionError, match="after a tool result"):
        mistral.encode(history)
    # a history that is data may end with the assistant; the order rule still holds
    assert [p.keyword for p in mistral.check(history, request=False)] == ["message_order"]
    assert [p.keyword for p in mistral.check([SystemMessage(content="x")])] == ["no_messages"]


def test_names_and_allowed_tools_are_unsupported_content() -> None:
    conversation = {
        "messages": [{"role": "user", "content": "Hi", "name": "ann"}],
        "tools": [{"name": "a", "parameters": {"type": "object"}}],
        "tool_choice": {"type": "allowed", "names": ["a"], "mode": "auto"},
    }
    problems = mistral.check(conversation)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/0/name", "unsupported_content"),
        ("/tool_choice", "unsupported_content"),
    ]
    with pytest.raises(UnsupportedContentError):
        mistral.encode(conversation)
    request = encoded(conversation, unsupported="drop")
    assert request["messages"] == [{"role": "user", "content": "Hi"}]
    assert "tool_choice" not in request


def test_from_openai_chat_reasoning_and_developer_role() -> None:
    chat = {
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
        ],
        "seed": 5,
        "max_completion_tokens": 9,
    }
    request = encoded(openai_chat.decode_conversation(chat))
    assert request == {
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
        "max_tokens": 9,
        "random_seed": 5,
    }
    own = AssistantMessage(content=[ReasoningBlock(text="hm", provider="anthropic", signature="s")])
    history = [user("a"), own, user("b")]
    assert encoded(history, unsupported="drop")["messages"][1]["content"] in (None, "", [])
    assert encoded(history, reasoning="text")["messages"][1]["content"] == [
        {"type": "text", "text": "hm"}
    ]


def test_response_round_trip_and_finish_reasons() -> None:
    body = {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 1757459263,
        "model": "magistral-small-latest",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": [{"type": "text", "text": "Hmm"}]},
                        {"type": "text", "text": "Forty"},
                    ],
                },
                "finish_reason": "model_length",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
    }
    message = mistral.decode_response(body)
    assert (message.finish_reason, message.raw_finish_reason) == ("length", "model_length")
    assert message.provider == "mistral"
    written = mistral.encode_response(message)
    validate_response("mistral", written)
    drop = {k: v for k, v in written["choices"][0].items() if v is not None}
    assert drop == body["choices"][0] and written["usage"] == body["usage"]
    error = mistral.encode_response(AssistantMessage(content="x", finish_reason="error"))
    assert error["choices"][0]["finish_reason"] == "error"
    validate_response("mistral", error)


@pytest.mark.parametrize("name", ["stream_tools", "stream_thinking"])
def test_streams_assemble_sync_async_and_from_sse(name: str) -> None:
    data = json.loads((PAYLOADS / f"{name}.json").read_text())
    events = data["events"]
    chunks = list(mistral.decode_stream(events))
    message = assembled(chunks)
    if "response" in data:
        assert message == to_dict(mistral.decode_response(data["response"]))
    body = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    pieces = [body[i : i + 41].encode() for i in range(0, len(body), 41)]
    assert [to_dict(c) for c in mistral.decode_stream(pieces)] == [to_dict(c) for c in chunks]

    async def read() -> list[Any]:
        async def source() -> Any:
            for piece in pieces:
                yield piece

        return [to_dict(chunk) async for chunk in mistral.decode_stream(source())]

    assert asyncio.run(read()) == [to_dict(c) for c in chunks]


def test_the_official_client_reads_what_the_server_side_writes() -> None:
    from mistralai.client import Mistral
    from mistralai.client.models import CompletionChunk

    reply = AssistantMessage(
        content=[ReasoningBlock(text="Let me think", provider="mistral"), TextBlock(text="Hi")],
        model="magistral-small-latest",
        finish_reason="stop",
    )
    events = list(mistral.encode_stream(reply))
    for event in events:
        CompletionChunk.model_validate(event)
    body = b"".join(mistral.encode_stream(reply, sse=True))
    reply_body = mistral.encode_response(reply)

    def handler(request: httpx.Request) -> httpx.Response:
        if json.loads(request.content).get("stream"):
            return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=reply_body)

    transport = httpx.MockTransport(handler)
    client = Mistral(
        api_key="k", server_url="http://test", client=httpx.Client(transport=transport)
    )
    streamed = list(client.chat.stream(model="m", messages=[{"role": "user", "content": "x"}]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = assembled(list(mistral.decode_stream(streamed)))
    assert [block["type"] for block in got["content"]] == ["reasoning", "text"]
    assert got["content"][0]["text"] == "Let me think" and got["finish_reason"] == "stop"
    complete = client.chat.complete(model="m", messages=[{"role": "user", "content": "x"}])
    assert mistral.decode_response(complete).content == reply.content
