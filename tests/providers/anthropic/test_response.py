"""The Anthropic Messages codec, responses: decode_response, stop reasons, bad responses."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from anthropic.types import Message as SDKMessage

from chatschema import (
    AssistantMessage,
    ChatSchemaError,
    ConversionError,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolMessage,
    UserMessage,
    to_dict,
)
from chatschema.providers import anthropic as codec
from providers.anthropic.helpers import REDACTED, SIG, _mutations, _replaced, enc, result

# ------------------------------------------------------------------ decode_response

RESPONSE: dict[str, Any] = {
    "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [
        {"type": "thinking", "thinking": "Search first.", "signature": SIG},
        {"type": "redacted_thinking", "data": REDACTED},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "oslo weather"},
            "caller": {"type": "direct"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "caller": {"type": "direct"},
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://yr.no",
                    "title": "Yr",
                    "encrypted_content": "Eq==",
                    "page_age": None,
                }
            ],
        },
        {
            "type": "text",
            "text": "It is 4C.",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "cited_text": "4 degrees",
                    "encrypted_index": "Eo8=",
                    "title": None,
                    "url": "https://yr.no",
                }
            ],
        },
        {"type": "text", "text": "Checking the forecast too.", "citations": None},
        {
            "type": "tool_use",
            "id": "toolu_01",
            "name": "forecast",
            "input": {"city": "Oslo", "days": 3},
            "caller": None,
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "stop_details": None,
    "container": None,
    "usage": {
        "input_tokens": 100,
        "output_tokens": 50,
        "cache_creation_input_tokens": 2000,
        "cache_read_input_tokens": 300,
        "cache_creation": {"ephemeral_5m_input_tokens": 1500, "ephemeral_1h_input_tokens": 500},
        "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
        "output_tokens_details": {"thinking_tokens": 20},
        "service_tier": "standard",
        "inference_geo": None,
    },
}

EXPECTED_TURN = {
    "role": "assistant",
    "content": [
        {"type": "thinking", "thinking": "Search first.", "signature": SIG},
        {"type": "redacted_thinking", "data": REDACTED},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "oslo weather"},
            "caller": {"type": "direct"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "caller": {"type": "direct"},
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://yr.no",
                    "title": "Yr",
                    "encrypted_content": "Eq==",
                    "page_age": None,
                }
            ],
        },
        {
            "type": "text",
            "text": "It is 4C.",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "cited_text": "4 degrees",
                    "encrypted_index": "Eo8=",
                    "title": None,
                    "url": "https://yr.no",
                }
            ],
        },
        {"type": "text", "text": "Checking the forecast too."},
        {
            "type": "tool_use",
            "id": "toolu_01",
            "name": "forecast",
            "input": {"city": "Oslo", "days": 3},
        },
    ],
}


@pytest.mark.parametrize("form", ["dict", "sdk", "json", "sdk-constructed"])
def test_decode_response(form: str) -> None:
    payload: Any = {
        "dict": RESPONSE,
        "sdk": SDKMessage.model_validate(RESPONSE),
        "json": json.dumps(RESPONSE),
        "sdk-constructed": SDKMessage.construct(**RESPONSE),
    }[form]
    before = copy.deepcopy(RESPONSE)
    message = codec.decode_response(payload)
    assert before == RESPONSE
    data = to_dict(message)
    assert data["provider"] == "anthropic"
    assert data["model"] == "claude-sonnet-4-5-20250929"
    assert data["response_id"] == "msg_01XFDUDYJgAACzvnptvVoYEL"
    assert (data["finish_reason"], data["raw_finish_reason"]) == ("tool_calls", "tool_use")
    assert data["usage"] == {
        "input_tokens": 2400,
        "output_tokens": 50,
        "total_tokens": 2450,
        "input_token_details": {
            "cache_creation": 2000,
            "cache_read": 300,
            "ephemeral_5m_input_tokens": 1500,
            "ephemeral_1h_input_tokens": 500,
        },
        "output_token_details": {"reasoning": 20},
    }
    assert data["response_metadata"] == {
        "anthropic": {
            "stop_sequence": None,
            "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
            "service_tier": "standard",
        }
    }
    # blocks stay in order without an index (as a streamed reply assembles); calls keep theirs
    assert [b.get("index") for b in data["content"]] == [None] * 6
    assert data["tool_calls"] == [
        {"id": "toolu_01", "name": "forecast", "arguments": {"city": "Oslo", "days": 3}, "index": 6}
    ]
    assert data["content"][0] == {
        "type": "reasoning",
        "text": "Search first.",
        "signature": SIG,
        "provider": "anthropic",
        "model": "claude-sonnet-4-5-20250929",  # the response's, for the replay policy
    }
    # appended to the history, it re-encodes to exactly the turn the API expects
    history = [
        UserMessage(content="Weather in Oslo?"),
        message,
        ToolMessage(tool_call_id="toolu_01", content="sunny"),
    ]
    payload_out = enc(history)
    assert payload_out["messages"][1] == EXPECTED_TURN


STOP_REASONS = [
    ("end_turn", "stop"),
    ("stop_sequence", "stop"),
    ("max_tokens", "length"),
    ("model_context_window_exceeded", "length"),
    ("tool_use", "tool_calls"),
    ("pause_turn", "paused"),
    ("refusal", "content_filter"),
    ("something_new", "other"),
]


@pytest.mark.parametrize(("raw", "finish"), STOP_REASONS)
def test_stop_reasons(raw: str, finish: str) -> None:
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": raw,
        "stop_sequence": "###" if raw == "stop_sequence" else None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }
    if raw == "refusal":
        response["stop_details"] = {"type": "refusal", "category": "cyber", "explanation": "no"}
    message = codec.decode_response(response)
    assert (message.finish_reason, message.raw_finish_reason) == (finish, raw)
    metadata = (message.response_metadata or {})["anthropic"]
    assert metadata["stop_sequence"] == ("###" if raw == "stop_sequence" else None)
    if raw == "refusal":
        assert metadata["stop_details"] == {
            "type": "refusal",
            "category": "cyber",
            "explanation": "no",
        }
    assert message.usage is not None and message.usage.input_token_details is None
    if raw != "something_new":
        sdk = codec.decode_response(SDKMessage.model_validate(response))
        assert to_dict(sdk) == to_dict(message)


def test_decode_response_minimal_and_container() -> None:
    response = {
        "id": "msg_2",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "container": {"id": "container_1", "expires_at": "2026-01-01T00:00:00Z"},
        "usage": {"input_tokens": 3, "output_tokens": 0, "cache_read_input_tokens": 0},
    }
    message = codec.decode_response(response)
    assert to_dict(message) == {
        "role": "assistant",
        "content": [],
        "provider": "anthropic",
        "response_id": "msg_2",
        "model": "claude-x",
        "usage": {
            "input_tokens": 3,
            "output_tokens": 0,
            "total_tokens": 3,
            "input_token_details": {"cache_read": 0},
        },
        "response_metadata": {
            "anthropic": {
                "stop_sequence": None,
                "container": {"id": "container_1", "expires_at": "2026-01-01T00:00:00Z"},
            }
        },
    }
    sdk = codec.decode_response(SDKMessage.model_validate(response))
    assert sdk.response_metadata["anthropic"]["container"]["id"] == "container_1"  # type: ignore[index]


def test_sdk_objects_in_a_history() -> None:
    response = SDKMessage.model_validate(RESPONSE)
    history = [
        {"role": "user", "content": "Weather in Oslo?"},
        response.to_param(),  # the SDK's own replay form: response models inside
        {"role": "user", "content": [result("toolu_01", "sunny")]},
    ]
    payload = enc(codec.decode_conversation(history))
    assert payload["messages"][1] == EXPECTED_TURN
    # a whole Message object as a history item works too
    again = enc(codec.decode_conversation([history[0], response, history[2]]))
    assert again == payload


BAD_RESPONSES: list[Any] = [
    None,
    [],
    {"content": "text"},
    {"role": "user", "content": []},
    {"content": [], "usage": {"input_tokens": -1, "output_tokens": 0}},
    {"content": [], "usage": {"input_tokens": "1", "output_tokens": 0}},
    {
        "content": [],
        "usage": {"input_tokens": 1, "output_tokens": 0, "cache_read_input_tokens": 1.5},
    },
    {"content": [], "usage": []},
    {"content": [{"type": "thinking"}]},
    SDKMessage.construct(id="m", content="oops"),
]


@pytest.mark.parametrize("payload", BAD_RESPONSES)
def test_bad_responses_raise_conversion_errors(payload: Any) -> None:
    with pytest.raises(ConversionError):
        codec.decode_response(payload)


def test_odd_response_values_never_escape_as_python_errors() -> None:
    refused = 0
    for path, replacement in _mutations(RESPONSE):
        try:
            codec.decode_response(_replaced(RESPONSE, path, replacement))
        except ChatSchemaError:
            refused += 1
    assert refused > 20


# ------------------------------------- server tools go back to Anthropic, any name


def _beta_block_params() -> Any:
    """The SDK's beta request block types (2.13 ``BetaContentBlockParam``), strict."""
    from anthropic.types.beta import BetaContentBlockParam
    from pydantic import ConfigDict, TypeAdapter

    return TypeAdapter(BetaContentBlockParam, config=ConfigDict(extra="forbid", strict=True))


def _advisor_response() -> Any:
    """A reply with Anthropic's ``advisor`` server tool, as the SDK's beta types give it
    (2.13: ``BetaMessage`` with ``BetaServerToolUseBlock`` name ``advisor`` and
    ``BetaAdvisorToolResultBlock`` of each content kind: ``BetaAdvisorResultBlock``,
    ``BetaAdvisorRedactedResultBlock``, ``BetaAdvisorToolResultErrorObject``)."""
    from anthropic.types.beta import BetaMessage

    def call(call_id: str) -> dict[str, Any]:
        return {"type": "server_tool_use", "id": call_id, "name": "advisor", "input": {}}

    def answer(call_id: str, content: dict[str, Any]) -> dict[str, Any]:
        return {"type": "advisor_tool_result", "tool_use_id": call_id, "content": content}

    return BetaMessage.model_validate(
        {
            "id": "msg_01Adv",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [
                {"type": "text", "text": "Let me ask the advisor."},
                call("srvtoolu_01A"),
                answer(
                    "srvtoolu_01A",
                    {
                        "type": "advisor_result",
                        "text": "Check the base case.",
                        "stop_reason": "end_turn",
                    },
                ),
                call("srvtoolu_01B"),
                answer(
                    "srvtoolu_01B",
                    {"type": "advisor_redacted_result", "encrypted_content": "EqQBCkYI..."},
                ),
                call("srvtoolu_01C"),
                answer(
                    "srvtoolu_01C",
                    {"type": "advisor_tool_result_error", "error_code": "overloaded"},
                ),
                {"type": "text", "text": "Done."},
            ],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 20},
        }
    )


@pytest.mark.parametrize("form", ["sdk", "json"])
def test_advisor_server_tool_goes_back_to_anthropic(form: str) -> None:
    response = _advisor_response()
    payload = response if form == "sdk" else response.to_dict()
    reply = codec.decode_response(payload)
    assert isinstance(reply.content, list)
    calls = [block for block in reply.content if isinstance(block, ServerToolCallBlock)]
    results = [block for block in reply.content if isinstance(block, ServerToolResultBlock)]
    assert [call.name for call in calls] == ["advisor"] * 3
    assert [r.status for r in results] == ["success", "success", "error"]
    request = codec.encode([UserMessage(content="Review my code."), reply])
    turn = request["messages"][1]["content"]
    # sent back as it came: the same blocks, as the decoder read them (an SDK object
    # dumped with the fields it was given; nulls such as caller are not request keys)
    read = (
        payload
        if isinstance(payload, dict)
        else payload.model_dump(mode="json", exclude_unset=True)
    )
    wire = [
        {key: value for key, value in block.items() if value is not None}
        for block in read["content"]
    ]
    assert turn == wire
    adapter = _beta_block_params()
    for block in turn:
        adapter.validate_python(block)
    assert codec.check([UserMessage(content="Review my code."), reply]) == []


def test_server_tools_of_any_name_go_back_only_to_anthropic() -> None:
    """The class: a server tool call or result decoded from Anthropic is sendable to
    Anthropic whatever its name; another format's never is."""
    future = {
        "type": "server_tool_use",
        "id": "srvtoolu_01F",
        "name": "x_future_tool",
        "input": {"q": 1},
    }
    future_result = {
        "type": "x_future_tool_tool_result",
        "tool_use_id": "srvtoolu_01F",
        "content": {"type": "x_future_result", "ok": True},
    }
    response = {**RESPONSE, "content": [future, future_result, {"type": "text", "text": "ok"}]}
    reply = codec.decode_response(response)
    history = [UserMessage(content="q"), reply]
    assert codec.encode(history)["messages"][1]["content"] == response["content"]
    # a request with them round-trips exactly
    request = {
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [future, future_result]},
        ]
    }
    assert codec.encode(codec.decode_conversation(request)) == request
    # marked by provider instead: sent too
    ours = [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                ServerToolCallBlock(id="srvtoolu_1", name="advisor", provider="anthropic"),
                ServerToolResultBlock(
                    tool_call_id="srvtoolu_1",
                    provider="anthropic",
                    output={"type": "advisor_result", "text": "t"},
                    extras={"anthropic": {"type": "advisor_tool_result"}},
                ),
            ]
        ),
    ]
    assert codec.encode(ours)["messages"][1]["content"] == [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "advisor", "input": {}},
        {
            "type": "advisor_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {"type": "advisor_result", "text": "t"},
        },
    ]
    # another format's, even with a name Anthropic knows: the unsupported-content policy
    theirs = [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                ServerToolCallBlock(id="ws_1", name="web_search", provider="openai_responses"),
                ServerToolResultBlock(
                    tool_call_id="ws_1",
                    provider="gemini",
                    output={},
                    extras={"anthropic": {"type": "web_search_tool_result"}},
                ),
                TextBlock(text="a"),
            ]
        ),
    ]
    problems = codec.check(theirs)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/1/content/0", "unsupported_content"),
        ("/messages/1/content/1", "unsupported_content"),
    ]
    assert codec.encode(theirs, unsupported="drop")["messages"][1]["content"] == [
        {"type": "text", "text": "a"}
    ]
