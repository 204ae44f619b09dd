"""Hand-written Interactions API requests and responses for the shared suites.

Shapes follow google-genai's interactions types (the oracle, ``tests/oracle.py``) and
the Interactions API reference; the streams are in ``tests/payloads/gemini_interactions``.
"""

from __future__ import annotations

import copy
from typing import Any

SIGNATURE = "EpwBCkgIBxABGAIiQE9ZnJpsGhTtbJbMXFg5mnx0ZQ=="

TEXT_RESPONSE: dict[str, Any] = {
    "id": "v1_ChdEVm9uYWJ4ZUxQT2ktOFlQNU1fc3dRURIXRFZvbmFieGVMUE9pLThZUDVNX3N3UVE",
    "status": "completed",
    "object": "interaction",
    "model": "gemini-3-flash-preview",
    "created": "2026-06-02T10:00:00Z",
    "updated": "2026-06-02T10:00:02Z",
    "steps": [
        {"type": "user_input", "content": [{"type": "text", "text": "Hello"}]},
        {
            "type": "thought",
            "signature": SIGNATURE,
            "summary": [{"type": "text", "text": "Greet."}],
        },
        {"type": "model_output", "content": [{"type": "text", "text": "Hi! How can I help?"}]},
    ],
    "usage": {
        "total_input_tokens": 3,
        "total_output_tokens": 6,
        "total_thought_tokens": 12,
        "total_tokens": 21,
        "input_tokens_by_modality": [{"modality": "text", "tokens": 3}],
    },
}

CALL_RESPONSE: dict[str, Any] = {
    "id": "v1_call",
    "status": "requires_action",
    "model": "gemini-3-flash-preview",
    "steps": [
        {"type": "thought", "signature": SIGNATURE},
        {
            "type": "function_call",
            "id": "fc_1",
            "name": "get_weather",
            "arguments": {"city": "Oslo"},
        },
    ],
    "usage": {"total_input_tokens": 20, "total_output_tokens": 8, "total_tokens": 28},
}

CONTINUATION_RESPONSE: dict[str, Any] = {  # google-genai's automatic-continuation test body
    "id": "int_raw_1",
    "status": "requires_continuation",
    "continuation_token": "dG9rX3Jhd18x",
    "previous_interaction_id": "int_turn_0",
    "steps": [
        {"type": "user_input", "content": [{"type": "text", "text": "Hello"}]},
        {"type": "model_output", "content": [{"type": "text", "text": "A"}]},
    ],
    "usage": {"total_input_tokens": 10, "total_output_tokens": 5, "total_tokens": 15},
}

SEARCH_RESPONSE: dict[str, Any] = {
    "id": "v1_search",
    "status": "completed",
    "model": "gemini-3-flash-preview",
    "steps": [
        {
            "type": "google_search_call",
            "id": "gs_1",
            "arguments": {"queries": ["weather Oslo"]},
        },
        {
            "type": "google_search_result",
            "call_id": "gs_1",
            "result": [{"search_suggestions": "<div>weather Oslo</div>"}],
            "signature": SIGNATURE,
        },
        {"type": "model_output", "content": [{"type": "text", "text": "It is -3C in Oslo."}]},
    ],
}


def interactions_requests(weather: dict[str, Any]) -> list[Any]:
    """Hand-written ``CreateModelInteraction`` bodies: every step kind, each input form."""
    tool = {
        "type": "function",
        "name": "get_weather",
        "description": "Weather.",
        "parameters": weather,
    }
    return [
        {
            "model": "gemini-3-flash-preview",
            "system_instruction": "Be brief.",
            "input": [
                {
                    "type": "user_input",
                    "content": [
                        {"type": "text", "text": "Weather in Oslo? See:"},
                        {"type": "image", "data": "iVBORw0KGgo=", "mime_type": "image/png"},
                        {
                            "type": "document",
                            "uri": "https://example.com/a.pdf",
                            "mime_type": "application/pdf",
                        },
                    ],
                },
                {
                    "type": "thought",
                    "signature": SIGNATURE,
                    "summary": [{"type": "text", "text": "A tool."}],
                },
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "name": "get_weather",
                    "arguments": {"city": "Oslo"},
                },
                {
                    "type": "function_result",
                    "call_id": "fc_1",
                    "name": "get_weather",
                    "result": {"temp": -3},
                },
                {"type": "model_output", "content": [{"type": "text", "text": "-3C."}]},
                {"type": "user_input", "content": [{"type": "text", "text": "And Bergen?"}]},
                {
                    "type": "function_call",
                    "id": "fc_2",
                    "name": "get_weather",
                    "arguments": {"city": "Bergen"},
                },
                {"type": "function_result", "call_id": "fc_2", "result": "4C", "is_error": False},
            ],
            "tools": [tool, {"type": "google_search"}],
            "generation_config": {
                "temperature": 0.5,
                "max_output_tokens": 512,
                "thinking_level": "low",
                "thinking_summaries": "auto",
                "tool_choice": "auto",
            },
            "store": True,
        },
        {
            "model": "gemini-3-flash-preview",
            "previous_interaction_id": "v1_previous",
            "input": [
                {
                    "type": "function_result",
                    "call_id": "fc_9",
                    "name": "get_weather",
                    "result": "sunny",
                }
            ],
            "tools": [tool],
        },
        {"model": "gemini-3-flash-preview", "input": "Tell me a joke.", "stream": True},
        {"model": "gemini-3-flash-preview", "input": {"type": "text", "text": "Hi"}},
        {
            "model": "gemini-3-flash-preview",
            "input": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "uri": "https://example.com/cat.png", "mime_type": "image/png"},
            ],
        },
    ]


def interactions_responses() -> list[dict[str, Any]]:
    """``Interaction`` bodies: text with a thought, a function call, a continuation, search."""
    return copy.deepcopy([TEXT_RESPONSE, CALL_RESPONSE, CONTINUATION_RESPONSE, SEARCH_RESPONSE])
