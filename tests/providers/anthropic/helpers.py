"""Shared pieces of the Anthropic codec tests: sample data, wire payloads, helpers."""

from __future__ import annotations

import copy
from typing import Any

from oracle import validate_request

from chatschema import (
    to_dict,
)
from chatschema.providers import anthropic as codec

SIG = "EqQBCkYIBxgCKkBq7fZ3kL0mQ2Yx9c8TtZ1pW4vN6sR3uJ5hG2dF8aK0bE7cX1yV9zM4nL6oP2qS5rT3uW8xY0zA"
REDACTED = (
    "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8U"
    "Rj2pLmN3kJ8="
)
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5E"
    "rkJggg=="
)
PDF = (
    "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSL0ZpbHRlci9GbGF0ZURlY29kZT4+CnN0"
    "cmVhbQ=="
)
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["C", "F"]}},
    "required": ["city"],
}
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather in a city.",
    "input_schema": WEATHER_SCHEMA,
}


def enc(conversation: Any, **options: Any) -> dict[str, Any]:
    """Encode and hold the output to the official SDK request types."""
    payload = codec.encode(conversation, **options)
    validate_request("anthropic", payload)
    return payload


def neutral(conversation: Any) -> dict[str, Any]:
    return to_dict(codec.decode_conversation(conversation))


def tool_use(call_id: str, name: str = "get_weather", **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def result(call_id: str, content: Any = None, **more: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    if content is not None:
        block["content"] = content
    block.update(more)
    return block


# ------------------------------------------------------------------ wire payloads
# Every payload is a valid request part (checked by the oracle) and must come back
# byte for byte from encode(decode_conversation(payload)).

WIRE: dict[str, dict[str, Any]] = {
    "string-chat": {
        "system": "You are a terse assistant.",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "What is 2+2?"},
        ],
    },
    "system-blocks-cached": {
        "system": [
            {"type": "text", "text": "You are a code reviewer."},
            {
                "type": "text",
                "text": "Style guide: PEP 8 ...",
                "cache_control": {"type": "ephemeral", "ttl": "1h"},
            },
        ],
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "Review this diff.",
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ],
    },
    "thinking-parallel-tools": {
        "system": "Use tools when useful.",
        "messages": [
            {"role": "user", "content": "Weather in Paris and Oslo?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Two cities, two calls.", "signature": SIG},
                    {"type": "text", "text": "Checking both."},
                    tool_use("toolu_01A", city="Paris"),
                    tool_use("toolu_01B", city="Oslo", unit="C"),
                ],
            },
            {
                "role": "user",
                "content": [
                    result("toolu_01A", "18°C, sunny"),
                    result("toolu_01B", [{"type": "text", "text": "4°C"}], is_error=False),
                    {"type": "text", "text": "Also, which is warmer?"},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Paris is warmer."}],
            },
        ],
        "tools": [WEATHER_TOOL],
        "tool_choice": {"type": "auto"},
    },
    "tool-result-forms": {
        "messages": [
            {"role": "user", "content": "Run the checks."},
            {
                "role": "assistant",
                "content": [
                    tool_use("toolu_1", "lint"),
                    tool_use("toolu_2", "test"),
                    tool_use("toolu_3", "build"),
                    tool_use("toolu_4", "screenshot"),
                ],
            },
            {
                "role": "user",
                "content": [
                    result("toolu_1"),
                    result("toolu_2", "", is_error=True),
                    result("toolu_3", "boom", is_error=True),
                    result(
                        "toolu_4",
                        [
                            {"type": "text", "text": "Screenshot:"},
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": PNG,
                                },
                            },
                        ],
                        cache_control={"type": "ephemeral"},
                    ),
                ],
            },
        ],
        "tools": [
            {"name": "lint", "input_schema": {"type": "object"}},
            {"name": "test", "input_schema": {"type": "object"}},
            {"name": "build", "input_schema": {"type": "object"}},
            {"name": "screenshot", "input_schema": {"type": "object"}, "strict": True},
        ],
    },
    "redacted-and-interleaved": {
        "messages": [
            {"role": "user", "content": "Plan, then act."},
            {
                "role": "assistant",
                "content": [
                    {"type": "redacted_thinking", "data": REDACTED},
                    {"type": "thinking", "thinking": "", "signature": SIG},
                    tool_use("toolu_x", "plan", steps=3),
                    {"type": "text", "text": "Plan made; now the weather."},
                    tool_use("toolu_y", city="Rome"),
                ],
            },
            {"role": "user", "content": [result("toolu_x", "ok"), result("toolu_y", "22C")]},
        ],
    },
    "server-tools-and-citations": {
        "messages": [
            {"role": "user", "content": "How much solar was installed in 2024?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_01WYG3",
                        "name": "web_search",
                        "input": {"query": "solar capacity 2024"},
                    },
                    {
                        "type": "web_search_tool_result",
                        "tool_use_id": "srvtoolu_01WYG3",
                        "content": [
                            {
                                "type": "web_search_result",
                                "url": "https://example.com/solar",
                                "title": "Solar passes 1.5 TW",
                                "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5",
                                "page_age": "April 30, 2025",
                            }
                        ],
                    },
                    {"type": "text", "text": "According to the report, "},
                    {
                        "type": "text",
                        "text": "capacity passed 1.5 TW.",
                        "citations": [
                            {
                                "type": "web_search_result_location",
                                "cited_text": "Installed capacity passed 1.5 TW in 2024.",
                                "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
                                "title": None,
                                "url": "https://example.com/solar",
                            }
                        ],
                    },
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_02",
                        "name": "code_execution",
                        "input": {"code": "print(1.5 * 2)"},
                    },
                    {
                        "type": "code_execution_tool_result",
                        "tool_use_id": "srvtoolu_02",
                        "content": {
                            "type": "code_execution_result",
                            "stdout": "3.0\n",
                            "stderr": "",
                            "return_code": 0,
                            "content": [],
                        },
                    },
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_03",
                        "name": "web_fetch",
                        "input": {"url": "https://example.com/x"},
                    },
                    {
                        "type": "web_fetch_tool_result",
                        "tool_use_id": "srvtoolu_03",
                        "content": {
                            "type": "web_fetch_tool_result_error",
                            "error_code": "url_not_allowed",
                        },
                    },
                ],
            },
            {"role": "user", "content": "Thanks!"},
        ],
        "tools": [
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
            {"type": "code_execution_20250825", "name": "code_execution"},
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": False},
    },
    "document-citations": {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
                        "title": "Q3 report",
                        "context": "Internal, confidential.",
                        "citations": {"enabled": True},
                        "cache_control": {"type": "ephemeral", "ttl": "5m"},
                    },
                    {
                        "type": "document",
                        "source": {
                            "type": "text",
                            "media_type": "text/plain",
                            "data": "Grass is green.",
                        },
                        "title": "Facts",
                        "context": "From the wiki.",
                        "citations": {"enabled": True},
                    },
                    {
                        "type": "document",
                        "source": {"type": "url", "url": "https://example.com/paper.pdf"},
                    },
                    {
                        "type": "document",
                        "source": {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
                    },
                    {
                        "type": "document",
                        "source": {
                            "type": "content",
                            "content": [
                                {"type": "text", "text": "Chunk A"},
                                {"type": "text", "text": "Chunk B"},
                            ],
                        },
                        "title": "Chunks",
                    },
                    {
                        "type": "search_result",
                        "source": "https://kb.example.com/a",
                        "title": "KB article",
                        "content": [{"type": "text", "text": "Refunds take 5 days."}],
                        "citations": {"enabled": True},
                    },
                    {"type": "text", "text": "Summarise with citations."},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "Revenue grew 14%.",
                        "citations": [
                            {
                                "type": "page_location",
                                "cited_text": "Revenue grew 14% year over year.",
                                "document_index": 0,
                                "document_title": "Q3 report",
                                "start_page_number": 3,
                                "end_page_number": 4,
                            },
                            {
                                "type": "char_location",
                                "cited_text": "Grass is green.",
                                "document_index": 1,
                                "document_title": None,
                                "start_char_index": 0,
                                "end_char_index": 15,
                            },
                            {
                                "type": "content_block_location",
                                "cited_text": "Chunk A",
                                "document_index": 4,
                                "document_title": "Chunks",
                                "start_block_index": 0,
                                "end_block_index": 1,
                            },
                            {
                                "type": "search_result_location",
                                "cited_text": "Refunds take 5 days.",
                                "search_result_index": 0,
                                "source": "https://kb.example.com/a",
                                "title": None,
                                "start_block_index": 0,
                                "end_block_index": 1,
                            },
                        ],
                    },
                    {"type": "text", "text": "No citations here.", "citations": []},
                ],
            },
            {"role": "user", "content": "Good."},
        ],
    },
    "images": {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                    },
                    {
                        "type": "image",
                        "source": {"type": "url", "url": "https://example.com/cat.jpg"},
                    },
                    {
                        "type": "image",
                        "source": {"type": "file", "file_id": "file_abc"},
                        "transformations": {"oversized_image": "error"},
                        "cache_control": {"type": "ephemeral"},
                    },
                    {"type": "text", "text": "Compare these."},
                    {"type": "container_upload", "file_id": "file_data_csv"},
                ],
            }
        ],
    },
    "same-role-runs": {
        "messages": [
            {"role": "user", "content": "First."},
            {"role": "user", "content": [{"type": "text", "text": "Second."}]},
            {"role": "assistant", "content": [tool_use("toolu_9", city="Lima")]},
            {"role": "user", "content": [result("toolu_9", "25C")]},
            {"role": "user", "content": "And tomorrow?"},
            {"role": "assistant", "content": "Let me see."},
            {"role": "assistant", "content": [{"type": "text", "text": "Sunny."}]},
        ],
    },
    "mid-conversation-system": {
        "system": "Top-level instructions.",
        "messages": [
            {"role": "system", "content": "Leading system message kept in messages."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"},
            {"role": "system", "content": [{"type": "text", "text": "Now answer in French."}]},
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "How are you?"},
        ],
    },
    "leading-system-role-only": {
        "messages": [
            {"role": "system", "content": "Only a system message, no top-level system."},
            {"role": "user", "content": "Hi"},
        ],
    },
    "tool-extras": {
        "messages": [
            {"role": "user", "content": "Edit the file."},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_e1",
                        "name": "edit",
                        "input": {"path": "a.py", "patch": "..."},
                        "caller": {"type": "direct"},
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            },
            {"role": "user", "content": [result("toolu_e1", "done")]},
        ],
        "tools": [
            {
                "name": "edit",
                "description": "Apply a patch.",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
                "cache_control": {"type": "ephemeral"},
                "input_examples": [{"path": "b.py"}],
                "defer_loading": False,
                "type": "custom",
            }
        ],
        "tool_choice": {"type": "tool", "name": "edit"},
    },
    "unknown-blocks": {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Continue."}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "bash_code_execution_tool_result",
                        "tool_use_id": "srvtoolu_b1",
                        "content": {
                            "type": "bash_code_execution_result",
                            "stdout": "ok",
                            "stderr": "",
                            "return_code": 0,
                            "content": [],
                        },
                    },
                    {"type": "text", "text": "Done."},
                ],
            },
        ],
        "tool_choice": {"type": "none"},
    },
    "prefill": {
        "messages": [
            {"role": "user", "content": "Greek name for the Sun? (A) Sol (B) Helios"},
            {"role": "assistant", "content": "The best answer is ("},
        ],
    },
}


def _mutations(value: Any, path: tuple[Any, ...] = ()) -> Any:
    """Every (path, replacement) that swaps one value for an odd one."""
    odd = [None, 0, -1, "", "x", [], {}, [None], {"type": None}, True]
    if isinstance(value, dict):
        for key, item in value.items():
            for replacement in odd:
                yield (*path, key), replacement
            yield from _mutations(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            for replacement in odd:
                yield (*path, index), replacement
            yield from _mutations(item, (*path, index))


def _replaced(document: Any, path: tuple[Any, ...], replacement: Any) -> Any:
    copied = copy.deepcopy(document)
    target = copied
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = replacement
    return copied
