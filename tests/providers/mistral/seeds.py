"""Hand-written Mistral requests and responses for the shared suites (tests/hostile.py)."""

from __future__ import annotations

import copy
from typing import Any

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9"
    "awAAAABJRU5ErkJggg=="
)

_USAGE = {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}


def mistral_requests(weather: dict[str, Any]) -> list[Any]:
    """Requests as Mistral's API reference writes them: thinking chunks, prefix, tools."""
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": weather}}
    return [
        {
            "model": "magistral-medium-latest",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is this?"},
                        {"type": "image_url", "image_url": f"data:image/png;base64,{PNG}"},
                        {"type": "document_url", "document_url": "https://example.com/a.pdf"},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": [{"type": "text", "text": "A pixel."}]},
                        {"type": "text", "text": "A pixel."},
                    ],
                },
                {"role": "user", "content": "And the weather?"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "KikbB849t",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        }
                    ],
                },
                {
                    "role": "tool",
                    "tool_call_id": "KikbB849t",
                    "name": "get_weather",
                    "content": "22C",
                },
                {"role": "assistant", "content": "In Paris it is", "prefix": True},
            ],
            "tools": [tool],
            "tool_choice": "auto",
            "parallel_tool_calls": False,
            "random_seed": 7,
            "max_tokens": 100,
            "top_k": 5,
            "safe_prompt": True,
            "prompt_mode": "reasoning",
        },
        {
            "model": "mistral-small-latest",
            "messages": [{"role": "user", "content": "Hi"}],
            "temperature": 0.3,
            "stop": ["\n\n"],
            "response_format": {"type": "json_object"},
        },
    ]


def mistral_responses() -> list[Any]:
    """Complete responses: text, thinking, a tool call, Mistral's own finish reasons."""
    base = {
        "id": "cmpl-e5cc70bb28c444948073e77776eb30ef",
        "object": "chat.completion",
        "created": 1757459263,
        "model": "mistral-small-latest",
        "usage": dict(_USAGE),
    }
    text = {
        **copy.deepcopy(base),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hello!", "tool_calls": None},
                "finish_reason": "stop",
            }
        ],
    }
    thinking = {
        **copy.deepcopy(base),
        "model": "magistral-medium-latest",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": [{"type": "text", "text": "Let me see."}]},
                        {"type": "text", "text": "Forty-two."},
                    ],
                },
                "finish_reason": "model_length",
            }
        ],
    }
    tools = {
        **copy.deepcopy(base),
        "usage": {**_USAGE, "num_cached_tokens": 12},
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "KikbB849t",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                            "index": 0,
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    return [text, thinking, tools]
