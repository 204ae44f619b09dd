"""Payloads and builders the OpenAI Responses codec tests share."""

from __future__ import annotations

import copy
from typing import Any

NAME = "openai_responses"
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
    "AAAABJRU5ErkJggg=="
)
PDF = "JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGggNiAwIFI+PgpzdHJlYW0K"
WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


# Output items in the key order the API writes them (encode writes that order too).


def _rs(n: int, summary: list[str] | None = None, **more: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": f"rs_{n}",
        "type": "reasoning",
        "encrypted_content": f"gAAAAABo{n}opaque==",
        "summary": [{"type": "summary_text", "text": t} for t in (summary or [])],
    }
    item.update(more)
    return item


def _fc(n: int, arguments: str = '{"city":"Oslo"}', **more: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": f"fc_{n}",
        "type": "function_call",
        "status": "completed",
        "arguments": arguments,
        "call_id": f"call_{n}",
        "name": "get_weather",
    }
    item.update(more)
    return item


def _out(n: int, output: Any = "12°C, cloudy") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": f"call_{n}", "output": output}


def _msg(n: int, *parts: dict[str, Any], **more: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": f"msg_{n}",
        "type": "message",
        "status": "completed",
        "content": list(parts),
    }
    item.update(more)  # (phase ...: before the role, as the API writes it)
    item["role"] = "assistant"
    return item


def _text(text: str, annotations: list[Any] | None = None, **more: Any) -> dict[str, Any]:
    part = {"type": "output_text", "annotations": annotations or []}
    part.update(more)
    part["text"] = text
    return part


# --------------------------------------------------------- requests (exact round trips)

PAYLOADS: dict[str, dict[str, Any]] = {
    "string_input": {"input": "What is the capital of Norway?"},
    "string_input_with_instructions": {"instructions": "Be brief.", "input": "Hi"},
    "chat_turns": {
        "instructions": "You are a helpful assistant.",
        "input": [
            {"role": "user", "content": "Hi!"},
            {"role": "assistant", "content": "Hello! How can I help?"},
            {"role": "user", "content": "Tell me a joke."},
        ],
    },
    "empty_instructions": {"instructions": "", "input": [{"role": "user", "content": "x"}]},
    "developer_first_no_instructions": {
        "input": [
            {"role": "developer", "content": "Answer in French."},
            {"role": "user", "content": "Hello"},
        ]
    },
    "system_item_after_instructions": {
        "instructions": "Top-level rules.",
        "input": [
            {"role": "system", "content": "An extra system item."},
            {"role": "user", "content": "Hello"},
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Be terse now."}],
            },
        ],
    },
    "typed_user_messages": {
        "input": [
            {"type": "message", "role": "user", "content": "plain string, typed"},
            {
                "type": "message",
                "role": "user",
                "status": "completed",
                "content": [{"type": "input_text", "text": "with status"}],
            },
        ]
    },
    "multimodal_user": {
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Compare these."},
                    {
                        "type": "input_image",
                        "image_url": "https://example.com/a.png",
                        "detail": "high",
                    },
                    {
                        "type": "input_image",
                        "image_url": f"data:image/png;base64,{PNG}",
                        "detail": "auto",
                    },
                    {"type": "input_image", "file_id": "file-img123", "detail": "low"},
                    {
                        "type": "input_image",
                        "image_url": "https://example.com/b.jpg",
                        "detail": "original",
                    },
                    {"type": "input_file", "file_id": "file-pdf456"},
                    {
                        "type": "input_file",
                        "file_data": f"data:application/pdf;base64,{PDF}",
                        "filename": "report.pdf",
                    },
                    {
                        "type": "input_file",
                        "file_url": "https://example.com/paper.pdf",
                        "detail": "low",
                    },
                ],
            }
        ]
    },
    "prompt_cache_breakpoints": {
        "input": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "long document ...",
                        "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "12h"},
                    },
                    {
                        "type": "input_text",
                        "text": "question",
                        "prompt_cache_breakpoint": {"mode": "explicit"},
                    },
                ],
            }
        ]
    },
    "reasoning_tool_loop": {
        "instructions": "Use tools when useful.",
        "input": [
            {"role": "user", "content": "Weather in Oslo?"},
            _rs(1, ["The user wants the weather; call get_weather."]),
            _fc(1),
            _out(1),
            _rs(2, []),
            _msg(2, _text("It is 12°C and cloudy in Oslo.")),
            {"role": "user", "content": "Thanks!"},
        ],
        "tools": [WEATHER_TOOL],
        "tool_choice": "auto",
    },
    "parallel_calls": {
        "input": [
            {"role": "user", "content": "Oslo and Bergen?"},
            _rs(1, ["Two cities, two calls.", "Second part."]),
            _fc(1),
            _fc(2, '{"city":"Bergen"}'),
            _out(2, "9°C"),
            _out(1),
        ],
        "tools": [WEATHER_TOOL],
        "tool_choice": "required",
        "parallel_tool_calls": True,
    },
    "interleaved_text_and_calls": {
        "input": [
            {"role": "user", "content": "go"},
            _msg(1, _text("Let me check."), phase="commentary"),
            _fc(1),
            _rs(2, ["now the second"]),
            _msg(2, _text("And Bergen:"), phase="commentary"),
            _fc(2, '{"city":"Bergen"}'),
            _out(1),
            _out(2),
        ]
    },
    "calls_before_text": {
        "input": [
            {"role": "user", "content": "go"},
            _fc(1),
            {"role": "assistant", "content": "Working on it."},
            _out(1),
        ]
    },
    "invalid_and_empty_arguments": {
        "input": [
            {"role": "user", "content": "go"},
            _fc(1, '{"city": "Os'),
            _fc(2, ""),
            _fc(3, '{ "city" : "Tromsø" }'),
            _fc(4, "[1, 2]"),
            _out(1, "error: bad JSON"),
            _out(2),
            _out(3),
            _out(4, "error"),
        ]
    },
    "invalid_call_between_valid_ones": {
        "input": [
            {"role": "user", "content": "go"},
            _fc(1),
            _fc(2, "not json"),
            _fc(3),
            _out(1),
            _out(2),
            _out(3),
        ]
    },
    "function_call_extras": {
        "input": [
            {"role": "user", "content": "go"},
            {
                "type": "function_call",
                "call_id": "call_9",
                "name": "lookup",
                "arguments": "{}",
                "namespace": "crm",
                "caller": {"type": "direct"},
            },
            {
                "type": "function_call_output",
                "call_id": "call_9",
                "output": "{}",
                "id": "fco_9",
                "status": "completed",
                "name": "lookup",
                "namespace": "crm",
            },
        ]
    },
    "tool_output_parts": {
        "input": [
            {"role": "user", "content": "Show me the screenshot"},
            _fc(1, '{"path":"/tmp/s.png"}'),
            _out(
                1,
                [
                    {"type": "input_text", "text": "Here it is:"},
                    {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
                    {"type": "input_image", "file_id": "file-abc", "detail": "high"},
                    {"type": "input_file", "file_id": "file-log", "filename": "log.txt"},
                ],
            ),
        ]
    },
    "tool_output_nullable_fields": {
        "input": [
            {"role": "user", "content": "x"},
            _fc(1),
            _out(
                1,
                [
                    {"type": "input_image", "image_url": "https://e.com/x.png", "detail": None},
                    {"type": "input_text", "text": "t", "prompt_cache_breakpoint": None},
                ],
            ),
        ]
    },
    "refusal_and_multi_part_message": {
        "input": [
            {"role": "user", "content": "something bad"},
            _msg(
                1,
                _text("Part one.", logprobs=[]),
                {"type": "refusal", "refusal": "I can't help with that."},
                _text("Part three."),
            ),
        ]
    },
    "annotations": {
        "input": [
            {"role": "user", "content": "sources?"},
            _msg(
                1,
                _text(
                    "Oslo is the capital [1]. See the report.",
                    [
                        {
                            "type": "url_citation",
                            "start_index": 21,
                            "end_index": 24,
                            "title": "Oslo - Wikipedia",
                            "url": "https://en.wikipedia.org/wiki/Oslo",
                        },
                        {
                            "type": "file_citation",
                            "file_id": "file-1",
                            "filename": "r.pdf",
                            "index": 30,
                        },
                        {
                            "type": "container_file_citation",
                            "container_id": "cntr_1",
                            "file_id": "file-2",
                            "filename": "out.csv",
                            "start_index": 0,
                            "end_index": 4,
                        },
                        {"type": "file_path", "file_id": "file-3", "index": 5},
                    ],
                ),
            ),
        ]
    },
    "reasoning_variants": {
        "input": [
            {"role": "user", "content": "think"},
            {
                "type": "reasoning",
                "id": "rs_a",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "raw chain of thought"}],
                "status": "completed",
            },
            _msg(1, _text("a")),
            {"type": "reasoning", "id": "rs_b", "summary": [], "encrypted_content": None},
            _msg(2, _text("b")),
            {
                "type": "reasoning",
                "id": "rs_c",
                "summary": [{"type": "summary_text", "text": "s"}],
                "content": [
                    {"type": "reasoning_text", "text": "one"},
                    {"type": "reasoning_text", "text": "two"},
                ],
            },
            _msg(3, _text("c")),
            {"type": "reasoning", "id": "rs_d", "summary": [], "content": []},
            _msg(4, _text("d")),
        ]
    },
    "assistant_easy_forms": {
        "input": [
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": "commentary", "phase": "commentary"},
            {"type": "message", "role": "assistant", "content": "typed easy"},
            {"role": "user", "content": "y"},
            {"role": "assistant", "content": ""},
        ]
    },
    "assistant_message_without_id_kept_whole": {
        "input": [
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": [{"type": "input_text", "text": "odd but valid"}]},
        ]
    },
    "web_search": {
        "input": [
            {"role": "user", "content": "news?"},
            _rs(1, ["search"]),
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {
                    "type": "search",
                    "query": "oslo news",
                    "sources": [{"type": "url", "url": "https://nrk.no"}],
                },
            },
            {
                "type": "web_search_call",
                "id": "ws_2",
                "status": "completed",
                "action": {"type": "open_page", "url": "https://nrk.no"},
            },
            _msg(1, _text("Here is the news.")),
        ],
        "tools": [{"type": "web_search"}],
    },
    "built_in_items": {
        "input": [
            {"role": "user", "content": "do everything"},
            {
                "type": "file_search_call",
                "id": "fs_1",
                "queries": ["q"],
                "status": "completed",
                "results": [
                    {"file_id": "file-1", "filename": "a.txt", "score": 0.5, "text": "hit"}
                ],
            },
            {
                "type": "code_interpreter_call",
                "id": "ci_1",
                "code": "print(1)",
                "container_id": "cntr_1",
                "outputs": [{"type": "logs", "logs": "1"}],
                "status": "completed",
            },
            {"type": "image_generation_call", "id": "ig_1", "result": PNG, "status": "completed"},
            {
                "type": "mcp_list_tools",
                "id": "mcpl_1",
                "server_label": "deepwiki",
                "tools": [{"name": "ask", "input_schema": {"type": "object"}}],
            },
            {
                "type": "mcp_call",
                "id": "mcp_1",
                "arguments": "{}",
                "name": "ask",
                "server_label": "deepwiki",
                "output": "answer",
            },
            {
                "type": "mcp_approval_request",
                "id": "mcpr_1",
                "arguments": "{}",
                "name": "ask",
                "server_label": "deepwiki",
            },
            {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
            {
                "type": "custom_tool_call",
                "call_id": "call_c",
                "name": "sql",
                "input": "SELECT 1",
                "id": "ctc_1",
            },
            {"type": "custom_tool_call_output", "call_id": "call_c", "output": "1"},
            {
                "type": "local_shell_call",
                "id": "lsc_1",
                "call_id": "call_ls",
                "status": "completed",
                "action": {"type": "exec", "command": ["ls"], "env": {}},
            },
            {"type": "local_shell_call_output", "id": "lsc_1_out", "output": "a.txt"},
            {"type": "item_reference", "id": "msg_old"},
            {"id": "rs_old"},
            {"role": "user", "content": "done"},
        ]
    },
    "tools_and_choices": {
        "input": [{"role": "user", "content": "x"}],
        "tools": [
            WEATHER_TOOL,
            {"type": "function", "name": "no_schema", "parameters": None, "strict": None},
            {
                "type": "function",
                "name": "loose",
                "parameters": {"type": "object"},
                "strict": False,
                "defer_loading": True,
            },
            {"type": "file_search", "vector_store_ids": ["vs_1"]},
            {
                "type": "mcp",
                "server_label": "deepwiki",
                "server_url": "https://mcp.deepwiki.com/mcp",
                "require_approval": "never",
            },
        ],
        "tool_choice": {"type": "function", "name": "get_weather"},
    },
    "items_in_other_key_orders": {  # hand-written and SDK-dumped: kept as they came
        "input": [
            {"content": "go", "role": "user", "type": "message"},
            {
                "type": "reasoning",
                "id": "rs_o",
                "encrypted_content": "gAAAAABoopaque==",
                "summary": [{"text": "s", "type": "summary_text"}],
            },
            {
                "type": "message",
                "id": "msg_o",
                "role": "assistant",
                "content": [{"text": "t", "type": "output_text", "annotations": []}],
                "status": "completed",
            },
            {
                "arguments": "{}",
                "call_id": "call_o",
                "name": "get_weather",
                "type": "function_call",
                "id": "fc_o",
                "status": "completed",
            },
            {"call_id": "call_o", "output": "ok", "type": "function_call_output"},
            {
                "type": "web_search_call",
                "action": {"type": "search", "query": "q"},
                "id": "ws_o",
                "status": "completed",
            },
            {
                "type": "code_interpreter_call",
                "id": "ci_o",
                "code": "1",
                "outputs": None,
                "container_id": "cntr_o",
                "status": "completed",
            },
            {"type": "message", "role": "assistant", "content": "typed easy, type first"},
        ]
    },
    "tool_choice_none_empty_tools": {
        "input": [{"role": "user", "content": "x"}],
        "tools": [],
        "tool_choice": "none",
    },
}


# ---------------------------------------------------------------------------- responses

RESPONSE_TEXT: dict[str, Any] = {
    "id": "resp_68c9f0a1",
    "object": "response",
    "created_at": 1757995120,
    "status": "completed",
    "background": False,
    "error": None,
    "incomplete_details": None,
    "instructions": "Be brief.",
    "max_output_tokens": None,
    "model": "gpt-5-2025-08-07",
    "output": [
        {
            "id": "rs_68c9f0a2",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "**Answering** simply."}],
            "encrypted_content": "gAAAAABoyfCi-opaque-blob==",
        },
        {
            "id": "msg_68c9f0a3",
            "type": "message",
            "status": "completed",
            "content": [
                {"type": "output_text", "annotations": [], "logprobs": [], "text": "Oslo."}
            ],
            "role": "assistant",
        },
    ],
    "parallel_tool_calls": True,
    "previous_response_id": None,
    "reasoning": {"effort": "medium", "summary": "auto"},
    "service_tier": "default",
    "store": False,
    "temperature": 1.0,
    "text": {"format": {"type": "text"}, "verbosity": "medium"},
    "tool_choice": "auto",
    "tools": [],
    "top_p": 1.0,
    "truncation": "disabled",
    "usage": {
        "input_tokens": 1200,
        "input_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 0},
        "output_tokens": 300,
        "output_tokens_details": {"reasoning_tokens": 256},
        "total_tokens": 1500,
    },
    "user": None,
    "metadata": {},
}

RESPONSE_TOOL_CALL: dict[str, Any] = {
    **RESPONSE_TEXT,
    "id": "resp_tool",
    "output": [
        {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "enc1"},
        {
            "id": "fc_1",
            "type": "function_call",
            "status": "completed",
            "arguments": '{"city":"Oslo"}',
            "call_id": "call_1",
            "name": "get_weather",
        },
        {
            "id": "fc_2",
            "type": "function_call",
            "status": "completed",
            "arguments": '{"city":"Bergen"}',
            "call_id": "call_2",
            "name": "get_weather",
        },
    ],
    "usage": {
        "input_tokens": 300,
        "input_tokens_details": {
            "cached_tokens": 0,
            "cache_write_tokens": 256,
            "cache_write_tokens_details": {"ttl_30m_tokens": 256, "ttl_12h_tokens": 0},
        },
        "output_tokens": 80,
        "output_tokens_details": {"reasoning_tokens": 40},
        "total_tokens": 380,
    },
}

RESPONSE_WEB: dict[str, Any] = {
    **RESPONSE_TEXT,
    "id": "resp_web",
    "service_tier": "priority",
    "output": [
        {
            "id": "ws_1",
            "type": "web_search_call",
            "status": "completed",
            "action": {"type": "search", "query": "oslo weather"},
        },
        {
            "id": "msg_1",
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [
                {
                    "type": "output_text",
                    "text": "It is 12°C [yr.no].",
                    "annotations": [
                        {
                            "type": "url_citation",
                            "start_index": 11,
                            "end_index": 18,
                            "title": "Yr",
                            "url": "https://www.yr.no/",
                        }
                    ],
                }
            ],
        },
    ],
}


def _variant(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(base)
    data.update(changes)
    return data


RESPONSES: dict[str, tuple[dict[str, Any], str | None, str | None]] = {
    "text": (RESPONSE_TEXT, "stop", "completed"),
    "tool_calls": (RESPONSE_TOOL_CALL, "tool_calls", "completed"),
    "web_search": (RESPONSE_WEB, "stop", "completed"),
    "max_tokens": (
        _variant(
            RESPONSE_TEXT, status="incomplete", incomplete_details={"reason": "max_output_tokens"}
        ),
        "length",
        "incomplete",
    ),
    "content_filter": (
        _variant(
            RESPONSE_TEXT, status="incomplete", incomplete_details={"reason": "content_filter"}
        ),
        "content_filter",
        "incomplete",
    ),
    "failed": (
        _variant(
            RESPONSE_TEXT,
            status="failed",
            output=[],
            error={"code": "server_error", "message": "The server had an error."},
        ),
        "error",
        "failed",
    ),
    "cancelled": (_variant(RESPONSE_TEXT, status="cancelled", output=[]), "other", "cancelled"),
    "in_progress": (_variant(RESPONSE_TEXT, status="in_progress", output=[]), None, "in_progress"),
    "refusal": (
        _variant(
            RESPONSE_TEXT,
            output=[
                {
                    "id": "msg_r",
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "refusal", "refusal": "I can't help with that."}],
                }
            ],
        ),
        "content_filter",
        "completed",
    ),
}
