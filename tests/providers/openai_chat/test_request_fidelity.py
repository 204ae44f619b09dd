"""Requests servers accepted come back as they were (shapes from recorded traffic)."""

from __future__ import annotations

from typing import Any

import chatschema
from chatschema.providers import openai_chat

# OpenRouter's own server tools (recorded request, HTTP 200): a type that is no
# function, with the server's own parameters.
OPENROUTER = {
    "messages": [{"content": "What should I name a retry library?", "role": "user"}],
    "model": "openai/gpt-4o-mini",
    "tools": [
        {
            "parameters": {"forward_transcript": False, "model": "~anthropic/claude-opus-latest"},
            "type": "openrouter:advisor",
        },
        {"type": "openrouter:web_search"},
    ],
}


def _round_trip(request: dict[str, Any]) -> dict[str, Any]:
    return openai_chat.encode(openai_chat.decode_conversation(request))


def test_a_servers_own_tools_go_back_to_it_and_nowhere_else() -> None:
    conversation = openai_chat.decode_conversation(OPENROUTER)
    assert [(t.name, t.provider) for t in conversation.tools or []] == [
        ("openrouter:advisor", "openai_chat"),
        ("openrouter:web_search", "openai_chat"),
    ]
    assert openai_chat.check(conversation) == []
    assert _round_trip(OPENROUTER) == OPENROUTER
    problems = chatschema.check(conversation, target="anthropic")
    assert {p.pointer for p in problems} == {"/tools/0", "/tools/1"}


def test_an_empty_tool_list_comes_back() -> None:
    request = {"max_tokens": 100, "messages": [{"content": "hello", "role": "user"}], "tools": []}
    assert _round_trip(request) == request
    assert "tools" not in openai_chat.encode([chatschema.user("hello")])


def test_reasoning_a_request_carried_goes_back_the_same_way() -> None:
    for field in ("reasoning_content", "reasoning"):  # Z.ai / DeepSeek, Cerebras / vLLM
        request = {
            "messages": [
                {"role": "user", "content": "What is 2 + 2?"},
                {"role": "assistant", "content": "4.", field: "Simple sum."},
                {"role": "user", "content": "And 3 + 3?"},
            ]
        }
        assert _round_trip(request) == request
    # a reply's reasoning is not sent back unless asked (DeepSeek refuses it)
    reply = openai_chat.decode_response(
        {
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "4.", "reasoning_content": "Sum."},
                }
            ]
        }
    )
    sent = openai_chat.encode([chatschema.user("2 + 2?"), reply])["messages"][1]
    assert "reasoning_content" not in sent
    sent = openai_chat.encode([chatschema.user("2 + 2?"), reply], reasoning_content=True)
    assert sent["messages"][1]["reasoning_content"] == "Sum."
