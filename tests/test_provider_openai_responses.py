"""The OpenAI Responses codec: exact round trips, SDK-oracle validity, options, errors."""

from __future__ import annotations

import contextlib
import copy
import json
import random
from typing import Any

import pytest
from openai.types.responses import Response
from oracle import validate_request

import chatschema
from chatschema import (
    AssistantMessage,
    AudioBlock,
    Citation,
    ConversionError,
    FileBlock,
    ImageBlock,
    InvalidToolCall,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolDefinition,
    ToolMessage,
    UnsupportedContentError,
    UserMessage,
    to_dict,
)
from chatschema.errors import ChatSchemaError, OptionError
from chatschema.providers import openai_responses as R

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


def _rs(n: int, summary: list[str] | None = None, **more: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": f"rs_{n}",
        "summary": [{"type": "summary_text", "text": t} for t in (summary or [])],
        "encrypted_content": f"gAAAAABo{n}opaque==",
    }
    item.update(more)
    return item


def _fc(n: int, arguments: str = '{"city":"Oslo"}', **more: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"call_{n}",
        "name": "get_weather",
        "arguments": arguments,
        "status": "completed",
    }
    item.update(more)
    return item


def _out(n: int, output: Any = "12°C, cloudy") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": f"call_{n}", "output": output}


def _msg(n: int, *parts: dict[str, Any], **more: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "message",
        "id": f"msg_{n}",
        "role": "assistant",
        "status": "completed",
        "content": list(parts),
    }
    item.update(more)
    return item


def _text(text: str, annotations: list[Any] | None = None, **more: Any) -> dict[str, Any]:
    part = {"type": "output_text", "text": text, "annotations": annotations or []}
    part.update(more)
    return part


# ------------------------------------------------------------------ exact round trips

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
    "tool_choice_none_empty_tools": {
        "input": [{"role": "user", "content": "x"}],
        "tools": [],
        "tool_choice": "none",
    },
}


@pytest.mark.parametrize("name", PAYLOADS)
def test_payload_round_trip_is_exact(name: str) -> None:
    payload = PAYLOADS[name]
    validate_request(NAME, payload)  # the test data itself is valid for the SDK
    original = copy.deepcopy(payload)
    conversation = R.decode_conversation(payload)
    assert payload == original  # decoding does not mutate
    encoded = R.encode(conversation)
    assert encoded == payload
    validate_request(NAME, encoded)
    assert R.decode_messages(payload) == conversation.messages
    # The neutral form is itself valid and survives its own JSON round trip.
    again = chatschema.parse_conversation(json.dumps(to_dict(conversation)))
    assert R.encode(again) == payload


@pytest.mark.parametrize("name", PAYLOADS)
def test_decoded_conversation_does_not_alias_the_payload(name: str) -> None:
    payload = copy.deepcopy(PAYLOADS[name])
    conversation = R.decode_conversation(payload)
    encoded = R.encode(conversation)
    for item in payload["input"] if isinstance(payload["input"], list) else []:
        item["MUTATED"] = True
        for value in item.values():
            if isinstance(value, list):
                value.append("MUTATED")
    assert R.encode(conversation) == encoded


def test_decoded_shapes_of_a_tool_loop() -> None:
    conversation = R.decode_conversation(PAYLOADS["reasoning_tool_loop"])
    data = to_dict(conversation)
    assert data["messages"][0] == {
        "role": "system",
        "content": "You are a helpful assistant."[:0] + "Use tools when useful.",
    }
    assert data["messages"][2] == {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": ["The user wants the weather; call get_weather."],
                "encrypted_content": "gAAAAABo1opaque==",
                "provider": NAME,
            }
        ],
        "tool_calls": [
            {
                "id": "call_1",
                "name": "get_weather",
                "arguments": {"city": "Oslo"},
                "extras": {
                    NAME: {"arguments": '{"city":"Oslo"}', "id": "fc_1", "status": "completed"}
                },
            }
        ],
    }
    assert data["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "12°C, cloudy",
    }
    reply = data["messages"][4]
    assert [block["type"] for block in reply["content"]] == ["reasoning", "text"]
    assert reply["content"][1] == {
        "type": "text",
        "text": "It is 12°C and cloudy in Oslo.",
        "id": "msg_2",
    }
    assert data["tools"] == [
        {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": WEATHER_TOOL["parameters"],
            "strict": True,
        }
    ]
    assert data["tool_choice"] == {"type": "auto"}


def test_interleaved_calls_carry_their_position() -> None:
    (_, reply, *_) = R.decode_messages(PAYLOADS["interleaved_text_and_calls"])
    assert isinstance(reply, AssistantMessage)
    assert [type(block).__name__ for block in reply.content] == [
        "TextBlock",
        "ReasoningBlock",
        "TextBlock",
    ]
    assert [call.index for call in reply.tool_calls] == [1, 4]
    assert [call.id for call in reply.tool_calls] == ["call_1", "call_2"]


def test_calls_in_default_order_carry_no_index() -> None:
    (_, reply, *_) = R.decode_messages(PAYLOADS["parallel_calls"])
    assert isinstance(reply, AssistantMessage)
    assert [call.index for call in reply.tool_calls] == [None, None]


def test_invalid_arguments_become_invalid_tool_calls() -> None:
    (_, reply, *_) = R.decode_messages(PAYLOADS["invalid_and_empty_arguments"])
    assert isinstance(reply, AssistantMessage)
    assert [(call.id, call.arguments) for call in reply.tool_calls] == [
        ("call_2", {}),
        ("call_3", {"city": "Tromsø"}),
    ]
    assert [(c.id, c.arguments) for c in reply.invalid_tool_calls] == [
        ("call_1", '{"city": "Os'),
        ("call_4", "[1, 2]"),
    ]
    assert all(c.error for c in reply.invalid_tool_calls)
    # Interleaved valid/invalid order is kept by index.
    assert [c.index for c in reply.invalid_tool_calls] == [0, 3]
    assert [c.index for c in reply.tool_calls] == [1, 2]


def test_built_in_items_are_kept_unchanged() -> None:
    messages = R.decode_messages(PAYLOADS["built_in_items"])
    roles = [m.role for m in messages]
    # model-side items form assistant turns; client-side items are user messages.
    assert roles == [
        "user",
        "assistant",
        "user",  # mcp_approval_response
        "assistant",
        "user",  # custom_tool_call_output
        "assistant",
        "user",  # local_shell_call_output
        "user",  # item_reference
        "user",  # item reference without type
        "user",
    ]
    first = messages[1]
    assert isinstance(first, AssistantMessage) and isinstance(first.content, list)
    assert all(isinstance(b, NonStandardBlock) for b in first.content)
    assert [b.value["type"] for b in first.content if isinstance(b, NonStandardBlock)] == [
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_list_tools",
        "mcp_call",
        "mcp_approval_request",
    ]


def test_web_search_call_is_a_server_tool_call() -> None:
    (_, reply) = R.decode_messages(PAYLOADS["web_search"])
    assert isinstance(reply, AssistantMessage) and isinstance(reply.content, list)
    search = reply.content[1]
    assert isinstance(search, ServerToolCallBlock)
    assert (search.id, search.name) == ("ws_1", "web_search")
    assert search.arguments == PAYLOADS["web_search"]["input"][2]["action"]


def test_hosted_tools_keep_their_definition() -> None:
    conversation = R.decode_conversation(PAYLOADS["tools_and_choices"])
    assert conversation.tools is not None
    names = [tool.name for tool in conversation.tools]
    assert names == ["get_weather", "no_schema", "loose", "file_search", "mcp"]
    assert conversation.tools[3].extras == {
        NAME: {"tool": PAYLOADS["tools_and_choices"]["tools"][3]}
    }
    # hosted: only sent to Responses
    assert [tool.provider for tool in conversation.tools] == [None, None, None, NAME, NAME]
    assert conversation.tools[1].parameters == {} and conversation.tools[1].strict is None


def test_file_data_that_is_not_a_data_url_stays_non_standard() -> None:
    payload = {
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_file", "file_data": PDF, "filename": "bare.pdf"},
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64,AAAA",
                        "detail": "auto",
                    },
                ],
            }
        ]
    }
    (message,) = R.decode_messages(payload)
    assert isinstance(message.content, list)
    assert isinstance(message.content[0], NonStandardBlock)
    assert isinstance(message.content[1], ImageBlock) and message.content[1].base64 == "AAAA"
    assert R.encode(R.decode_conversation(payload)) == payload


# ---------------------------------------------------------- decode inputs of all shapes


def test_decode_accepts_bare_lists_items_parts_and_sdk_objects() -> None:
    items = PAYLOADS["reasoning_tool_loop"]["input"]
    assert R.decode_messages(items) == R.decode_messages({"input": items})
    assert R.decode_messages(items[1]) == R.decode_messages([items[1]])
    parts = [
        {"type": "input_text", "text": "hi"},
        {"type": "input_image", "file_id": "f", "detail": "low"},
    ]
    (user,) = R.decode_messages(parts)
    assert to_dict(user) == {
        "role": "user",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "file_id": "f", "detail": "low"},
        ],
    }
    assert R.decode_messages(json.dumps({"input": items})) == R.decode_messages(items)
    response = Response.model_validate(RESPONSE_TOOL_CALL)
    from_object = R.decode_messages(response)
    from_items = R.decode_messages(list(response.output))
    assert from_object == from_items
    assert len(from_items) == 1 and from_items[0].role == "assistant"


# ---------------------------------------------------------- neutral -> wire -> neutral

TOOL = ToolDefinition(
    name="get_weather",
    description="Current weather",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
    strict=False,
)

NEUTRAL: dict[str, dict[str, Any]] = {
    "basic": {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": "Let me check.",
                "tool_calls": [
                    {"id": "call_1", "name": "get_weather", "arguments": {"city": "Oslo"}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "12C", "name": "get_weather"},
            {"role": "assistant", "content": "12C in Oslo."},
        ],
        "tools": [to_dict(TOOL)],
        "tool_choice": {"type": "auto", "parallel": False},
    },
    "own_reasoning_and_items": {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "q"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "id": "rs_1",
                        "summary": ["a", "b"],
                        "encrypted_content": "opaque",
                        "text": "thinking",
                        "provider": NAME,
                    },
                    {"type": "text", "text": "answer", "id": "msg_1"},
                    {"type": "refusal", "text": "no", "id": "msg_1"},
                ],
            },
        ]
    },
    "later_system_and_images": {
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "system", "content": "Now be formal."},
            {
                "role": "user",
                "content": [
                    {"type": "image", "url": "https://example.com/cat.png", "detail": "low"},
                    {"type": "image", "base64": PNG, "mime_type": "image/png", "detail": "high"},
                    {"type": "file", "file_id": "file-1", "filename": "a.pdf"},
                    {"type": "file", "base64": PDF, "mime_type": "application/pdf"},
                    {"type": "file", "url": "https://example.com/b.pdf"},
                    {
                        "type": "text",
                        "text": "cached",
                        "cache_control": {"type": "ephemeral", "ttl": "30m"},
                    },
                ],
            },
        ]
    },
    "tool_result_blocks": {
        "messages": [
            {"role": "user", "content": "shot"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "name": "screenshot", "arguments": {}}],
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [
                    {"type": "text", "text": "ok"},
                    {"type": "image", "url": "https://example.com/s.png"},
                ],
            },
        ],
        "tool_choice": {"type": "required", "parallel": True},
    },
    "interleaved_index": {
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "one", "id": "msg_1"},
                    {"type": "text", "text": "two", "id": "msg_2"},
                ],
                "tool_calls": [
                    {"id": "c1", "name": "f", "arguments": {}, "index": 1},
                    {"id": "c2", "name": "f", "arguments": {"x": 1}, "index": 3},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "r1"},
            {"role": "tool", "tool_call_id": "c2", "content": "r2"},
        ],
        "tool_choice": {"type": "tool", "name": "f"},
    },
    "empty_assistant": {"messages": [{"role": "user", "content": "x"}, {"role": "assistant"}]},
}


@pytest.mark.parametrize("name", NEUTRAL)
def test_neutral_round_trip_is_identity(name: str) -> None:
    conversation = chatschema.parse_conversation(NEUTRAL[name])
    before = to_dict(conversation)
    encoded = R.encode(conversation)
    validate_request(NAME, encoded)
    assert to_dict(conversation) == before  # encoding does not mutate
    assert to_dict(R.decode_conversation(encoded)) == NEUTRAL[name]


def test_basic_encoding_is_exactly_this() -> None:
    assert R.encode(chatschema.parse_conversation(NEUTRAL["basic"])) == {
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": "Let me check."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city": "Oslo"}',
            },
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": "12C",
                "name": "get_weather",
            },
            {"role": "assistant", "content": "12C in Oslo."},
        ],
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Current weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                "strict": False,
            }
        ],
        "parallel_tool_calls": False,  # "auto" with the flag: the flag alone says it
    }


def test_own_reasoning_is_replayed_unchanged_before_its_item() -> None:
    encoded = R.encode(chatschema.parse_conversation(NEUTRAL["own_reasoning_and_items"]))
    assert encoded["input"][1:] == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [
                {"type": "summary_text", "text": "a"},
                {"type": "summary_text", "text": "b"},
            ],
            "encrypted_content": "opaque",
            "content": [{"type": "reasoning_text", "text": "thinking"}],
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "answer", "annotations": []},
                {"type": "refusal", "refusal": "no"},
            ],
        },
    ]


# ------------------------------------------------------------- documented non-identities


def test_image_detail_defaults_to_auto_in_message_content_only() -> None:
    conversation = [
        UserMessage(content=[ImageBlock(url="https://e.com/a.png")]),
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content=[ImageBlock(url="https://e.com/b.png")]),
    ]
    encoded = R.encode(conversation)
    validate_request(NAME, encoded)
    assert encoded["input"][0]["content"] == [
        {"type": "input_image", "image_url": "https://e.com/a.png", "detail": "auto"}
    ]
    assert encoded["input"][2]["output"] == [
        {"type": "input_image", "image_url": "https://e.com/b.png"}
    ]
    back = R.decode_messages(encoded)
    assert to_dict(back[0])["content"][0]["detail"] == "auto"  # the one non-identity
    assert "detail" not in to_dict(back[2])["content"][0]


def test_strict_absent_is_sent_as_false() -> None:
    conversation = chatschema.Conversation(
        messages=[UserMessage(content="x")], tools=[ToolDefinition(name="f", parameters={})]
    )
    encoded = R.encode(conversation)
    validate_request(NAME, encoded)
    assert encoded["tools"] == [
        {"type": "function", "name": "f", "parameters": {}, "strict": False}
    ]


def test_several_leading_system_messages_join_into_instructions() -> None:
    encoded = R.encode(
        [
            SystemMessage(content="A"),
            SystemMessage(content=[TextBlock(text="B"), TextBlock(text="C")]),
            UserMessage(content="hi"),
            SystemMessage(content="later"),
        ],
        system_role="developer",
    )
    assert encoded == {
        "instructions": "A\nB\nC",
        "input": [{"role": "user", "content": "hi"}, {"role": "developer", "content": "later"}],
    }
    validate_request(NAME, encoded)


def test_parallel_tool_calls_without_tool_choice_decodes_to_auto() -> None:
    conversation = R.decode_conversation({"input": "x", "parallel_tool_calls": False})
    assert to_dict(conversation)["tool_choice"] == {"type": "auto", "parallel": False}
    assert R.encode(conversation) == {"input": "x", "parallel_tool_calls": False}


def test_named_tool_choice_carries_parallel() -> None:
    payload = {
        "input": "x",
        "tools": [{"type": "function", "name": "f", "parameters": {}, "strict": False}],
        "tool_choice": {"type": "function", "name": "f"},
        "parallel_tool_calls": False,
    }
    conversation = R.decode_conversation(payload)
    assert to_dict(conversation)["tool_choice"] == {"type": "tool", "name": "f", "parallel": False}
    assert R.encode(conversation) == payload


def test_id_less_assistant_text_uses_the_easy_form() -> None:
    reply = AssistantMessage(
        content=[
            TextBlock(text="one"),
            RefusalBlock(text="no"),
            TextBlock(text="two", id="msg_9"),
            TextBlock(text="three", id="msg_9"),
        ]
    )
    encoded = R.encode([UserMessage(content="x"), reply])
    validate_request(NAME, encoded)
    assert encoded["input"][1:] == [
        {"role": "assistant", "content": "one"},
        {"role": "assistant", "content": "no"},
        {
            "type": "message",
            "id": "msg_9",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "two", "annotations": []},
                {"type": "output_text", "text": "three", "annotations": []},
            ],
        },
    ]


# ------------------------------------------------------------------------- options


def _reasoning_history(provider: str, **more: Any) -> list[Any]:
    return [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                ReasoningBlock(
                    id="rs_1", summary=["s"], encrypted_content="enc", provider=provider, **more
                ),
                TextBlock(text="answer", id="msg_1"),
            ]
        ),
    ]


@pytest.mark.parametrize(
    ("provider", "policy", "expected_types"),
    [
        (NAME, "replay", ["reasoning", "message"]),
        (NAME, "text", ["reasoning", "message"]),
        (NAME, "drop", ["message"]),
        ("anthropic", "replay", ["message"]),
        ("anthropic", "drop", ["message"]),
        ("anthropic", "text", ["easy", "message"]),
    ],
)
def test_reasoning_policy(provider: str, policy: str, expected_types: list[str]) -> None:
    encoded = R.encode(_reasoning_history(provider, text="thought"), reasoning=policy)  # type: ignore[arg-type]
    validate_request(NAME, encoded)
    types = [item.get("type", "easy") for item in encoded["input"][1:]]
    assert types == expected_types
    if policy == "text" and provider != NAME:
        assert encoded["input"][1] == {"role": "assistant", "content": "thought"}


def test_reasoning_without_id_is_not_replayed() -> None:
    history = [
        UserMessage(content="q"),
        AssistantMessage(
            content=[ReasoningBlock(summary=["s"], provider=NAME), TextBlock(text="a")]
        ),
    ]
    assert R.encode(history)["input"][1:] == [{"role": "assistant", "content": "a"}]
    assert R.encode(history, reasoning="text")["input"][1:] == [
        {"role": "assistant", "content": "s"},
        {"role": "assistant", "content": "a"},
    ]


@pytest.mark.parametrize(
    ("content_format", "user", "tool"),
    [
        (
            "auto",
            [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}],
            "plain",
        ),
        ("string", "a\nb", "plain"),
        (
            "parts",
            [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}],
            [{"type": "input_text", "text": "plain"}],
        ),
    ],
)
def test_content_format(content_format: str, user: Any, tool: Any) -> None:
    history = [
        UserMessage(content=[TextBlock(text="a"), TextBlock(text="b")]),
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content="plain"),
    ]
    encoded = R.encode(history, content_format=content_format)  # type: ignore[arg-type]
    validate_request(NAME, encoded)
    assert encoded["input"][0]["content"] == user
    assert encoded["input"][2]["output"] == tool


def test_string_format_makes_images_unsupported() -> None:
    history = [UserMessage(content=[TextBlock(text="a"), ImageBlock(url="https://e.com/x.png")])]
    with pytest.raises(UnsupportedContentError) as error:
        R.encode(history, content_format="string")
    assert (error.value.message_index, error.value.block_index) == (0, 1)
    encoded = R.encode(history, content_format="string", unsupported="placeholder")
    assert encoded["input"][0]["content"].startswith("a\n[image block as a string omitted")


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("drop", [{"type": "input_text", "text": "look"}]),
        (
            "placeholder",
            [
                {"type": "input_text", "text": "look"},
                {
                    "type": "input_text",
                    "text": "[image (vision is off) omitted: not supported by openai_responses]",
                },
            ],
        ),
    ],
)
def test_vision_off(policy: str, expected: list[Any]) -> None:
    history = [UserMessage(content=[TextBlock(text="look"), ImageBlock(url="https://e.com/x.png")])]
    encoded = R.encode(history, vision=False, unsupported=policy)  # type: ignore[arg-type]
    assert encoded["input"][0]["content"] == expected
    validate_request(NAME, encoded)


def test_vision_off_raises_by_default_and_check_reports_it() -> None:
    history = [
        UserMessage(content="hi"),
        UserMessage(content=[TextBlock(text="look"), ImageBlock(url="https://e.com/x.png")]),
    ]
    with pytest.raises(UnsupportedContentError) as error:
        R.encode(history, vision=False)
    assert (error.value.provider, error.value.message_index, error.value.block_index) == (
        NAME,
        1,
        1,
    )
    problems = R.check(history, vision=False)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/1/content/1", "unsupported_content")
    ]
    assert R.check(history, vision=False, unsupported="drop") == []


@pytest.mark.parametrize(
    ("block", "where"),
    [
        (AudioBlock(base64="UklGRg==", mime_type="audio/wav"), "user"),
        (chatschema.VideoBlock(url="https://e.com/v.mp4"), "user"),
        (chatschema.PlainTextBlock(text="doc"), "user"),
        (NonStandardBlock(value={"type": "document"}), "user"),
        (ImageBlock(url="https://e.com/x.png"), "assistant"),
        (ServerToolCallBlock(id="srvtoolu_1", name="web_search", arguments={}), "assistant"),
        (chatschema.ServerToolResultBlock(tool_call_id="srvtoolu_1"), "assistant"),
        (NonStandardBlock(value={"type": "container_upload"}), "assistant"),
        (ImageBlock(url="https://e.com/x.png"), "instructions"),
        (RefusalBlock(text="no"), "tool"),
    ],
)
def test_unsupported_content_names_message_and_block(block: Any, where: str) -> None:
    history: list[Any] = [UserMessage(content="hi")]
    if where == "instructions":
        history.insert(0, SystemMessage(content=[TextBlock(text="rules"), block]))
        index = 0
    elif where == "tool":
        history += [
            AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
            ToolMessage(tool_call_id="c", content=[TextBlock(text="r"), block]),
        ]
        index = 2
    else:
        cls = UserMessage if where == "user" else AssistantMessage
        history.append(cls(content=[TextBlock(text="x", id="msg_1"), block]))
        index = 1
    with pytest.raises(UnsupportedContentError) as error:
        R.encode(history)
    assert (error.value.message_index, error.value.block_index) == (index, 1)
    dropped = R.encode(history, unsupported="drop")
    validate_request(NAME, dropped)
    placeholder = R.encode(history, unsupported="placeholder")
    validate_request(NAME, placeholder)
    assert "omitted: not supported by openai_responses" in json.dumps(placeholder)
    assert "omitted" not in json.dumps(dropped)


def test_prompt_cache_option_and_ttls() -> None:
    history = [
        UserMessage(
            content=[
                TextBlock(text="a", cache_control={"type": "ephemeral"}),  # type: ignore[arg-type]
                TextBlock(text="b", cache_control={"type": "ephemeral", "ttl": "12h"}),  # type: ignore[arg-type]
                TextBlock(text="c", cache_control={"type": "ephemeral", "ttl": "5m"}),  # type: ignore[arg-type]
            ]
        )
    ]
    on = R.encode(history)
    validate_request(NAME, on)
    assert [part.get("prompt_cache_breakpoint") for part in on["input"][0]["content"]] == [
        {"mode": "explicit"},
        {"mode": "explicit", "ttl": "12h"},
        {"mode": "explicit"},  # no 5m retention on Responses: the request's default applies
    ]
    off = R.encode(history, prompt_cache=False)
    assert all("prompt_cache_breakpoint" not in part for part in off["input"][0]["content"])


def test_native_tools_off_renders_text() -> None:
    conversation = chatschema.parse_conversation(NEUTRAL["basic"])
    encoded = R.encode(conversation, native_tools=False)
    validate_request(NAME, encoded)
    assert set(encoded) == {"instructions", "input"}
    assert encoded["instructions"].startswith("Be brief.\nYou can call these tools.")
    assert encoded["input"][2] == {
        "role": "assistant",
        "content": '<tool_call id="call_1" name="get_weather">{"city": "Oslo"}</tool_call>',
    }
    assert encoded["input"][3] == {
        "role": "user",
        "content": '<tool_result id="call_1" name="get_weather" status="success">12C</tool_result>',
    }
    assert (
        R.check(
            [AssistantMessage(tool_calls=[ToolCall(id="x", name="f", arguments={})])],
            native_tools=False,
        )
        == []
    )


def test_metadata_artifact_and_user_names_are_not_sent() -> None:
    history = [
        UserMessage(content="hi", name="alice", id="u1", metadata={"secret": 1}),
        AssistantMessage(
            tool_calls=[ToolCall(id="c", name="f", arguments={})], metadata={"m": 1}, name="bot"
        ),
        ToolMessage(
            tool_call_id="c", content="r", artifact={"big": "data"}, status="error", id="t1"
        ),
    ]
    encoded = R.encode(history)
    assert encoded["input"] == [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "r"},
    ]


def test_edited_arguments_are_reserialized() -> None:
    reply = R.decode_messages(PAYLOADS["reasoning_tool_loop"])[2]
    assert isinstance(reply, AssistantMessage)
    edited = reply.model_copy(
        update={
            "tool_calls": [reply.tool_calls[0].model_copy(update={"arguments": {"city": "Rome"}})]
        }
    )
    encoded = R.encode(
        [UserMessage(content="x"), edited, ToolMessage(tool_call_id="call_1", content="r")]
    )
    assert encoded["input"][2]["arguments"] == '{"city": "Rome"}'
    assert encoded["input"][2]["id"] == "fc_1"


def test_invalid_tool_calls_go_back_verbatim() -> None:
    reply = AssistantMessage(
        invalid_tool_calls=[InvalidToolCall(id="c1", name="f", arguments='{"a":', error="bad")]
    )
    encoded = R.encode(
        [UserMessage(content="x"), reply, ToolMessage(tool_call_id="c1", content="bad args")]
    )
    validate_request(NAME, encoded)
    assert encoded["input"][1] == {
        "type": "function_call",
        "call_id": "c1",
        "name": "f",
        "arguments": '{"a":',
    }


def test_unknown_and_bad_options() -> None:
    with pytest.raises(OptionError):
        R.encode([UserMessage(content="x")], colour="blue")  # type: ignore[call-arg]
    with pytest.raises(OptionError):
        R.encode([UserMessage(content="x")], system_role="boss")  # type: ignore[arg-type]
    with pytest.raises(OptionError):
        R.check([UserMessage(content="x")], vision="yes")  # type: ignore[arg-type]


# -------------------------------------------------------------------- structural check


def _problems(history: list[Any], **options: Any) -> list[tuple[str, str]]:
    return [(p.pointer, p.keyword) for p in R.check(history, **options)]


def test_check_pairing_problems() -> None:
    call = ToolCall(id="c1", name="f", arguments={})
    history = [
        UserMessage(content="x"),
        AssistantMessage(tool_calls=[call, ToolCall(id="c1", name="g", arguments={})]),
        ToolMessage(tool_call_id="c1", content="r"),
        ToolMessage(tool_call_id="zz", content="r"),
        AssistantMessage(invalid_tool_calls=[InvalidToolCall(id="c9", name="f", arguments="{")]),
    ]
    assert _problems(history) == [
        ("/messages/1/tool_calls/1/id", "duplicate_tool_call_id"),
        ("/messages/3/tool_call_id", "orphan_tool_result"),
        ("/messages/4/invalid_tool_calls/0/id", "unanswered_tool_call"),
    ]
    with pytest.raises(ConversionError) as error:
        R.encode(history)
    assert error.value.message_index == 1
    assert len(error.value.problems) == 3
    assert R.encode(history, check=False)["input"][1]["call_id"] == "c1"


def test_check_results_may_come_later_but_before_the_next_turn() -> None:
    history = [
        UserMessage(content="x"),
        AssistantMessage(tool_calls=[ToolCall(id="c1", name="f", arguments={})]),
        UserMessage(content="meanwhile"),
        ToolMessage(tool_call_id="c1", content="r"),
    ]
    assert _problems(history) == []
    history.insert(3, AssistantMessage(content="too early"))
    assert _problems(history) == [
        ("/messages/1/tool_calls/0/id", "unanswered_tool_call"),
        ("/messages/4/tool_call_id", "orphan_tool_result"),
    ]


def test_check_invalid_call_answered_is_fine() -> None:
    history = [
        UserMessage(content="x"),
        AssistantMessage(invalid_tool_calls=[InvalidToolCall(id="c9", name="f", arguments="{")]),
        ToolMessage(tool_call_id="c9", content="bad"),
    ]
    assert _problems(history) == []


def test_check_duplicate_item_ids() -> None:
    history = [
        UserMessage(content="x"),
        AssistantMessage(
            content=[
                ReasoningBlock(id="rs_1", summary=[], encrypted_content="e", provider=NAME),
                TextBlock(text="a", id="msg_1"),
            ]
        ),
        UserMessage(content="y"),
        AssistantMessage(content=[TextBlock(text="b", id="msg_1")]),
        UserMessage(content="z"),
        AssistantMessage(
            content=[
                ReasoningBlock(id="rs_1", summary=[], provider=NAME),
                TextBlock(text="c", id="msg_3"),
            ]
        ),
    ]
    assert _problems(history) == [
        ("/messages/3/content/0", "duplicate_item_id"),
        ("/messages/5/content/0", "duplicate_item_id"),
    ]
    # dropping the reasoning removes that duplicate
    assert _problems(history, reasoning="drop") == [("/messages/3/content/0", "duplicate_item_id")]


def test_check_duplicate_function_call_item_ids() -> None:
    payload = {
        "input": [
            {"role": "user", "content": "x"},
            _fc(1),
            _fc(2) | {"id": "fc_1"},
            _out(1),
            _out(2),
        ]
    }
    conversation = R.decode_conversation(payload)
    assert [(p.pointer, p.keyword) for p in R.check(conversation)] == [
        ("/messages/1/tool_calls/1", "duplicate_item_id")
    ]


def test_check_reasoning_needs_its_following_item() -> None:
    lonely = AssistantMessage(
        content=[ReasoningBlock(id="rs_1", summary=[], encrypted_content="e", provider=NAME)]
    )
    assert _problems([UserMessage(content="x"), lonely]) == [
        ("/messages/1/content/0", "reasoning_without_following_item")
    ]
    assert _problems([UserMessage(content="x"), lonely, UserMessage(content="y")]) == [
        ("/messages/1/content/0", "reasoning_without_following_item")
    ]
    # followed by the next assistant turn's item: fine
    assert _problems([UserMessage(content="x"), lonely, AssistantMessage(content="ok")]) == []
    # reasoning whose message was dropped as unsupported is caught too
    broken = AssistantMessage(
        content=[
            ReasoningBlock(id="rs_1", summary=[], provider=NAME),
            ImageBlock(url="https://e.com/x.png"),
        ]
    )
    assert _problems([UserMessage(content="x"), broken], unsupported="drop") == [
        ("/messages/1/content/0", "reasoning_without_following_item")
    ]


def test_an_input_message_emptied_by_drops_is_not_sent() -> None:
    audio = AudioBlock(base64="UklGRg==", mime_type="audio/wav")
    history = [
        SystemMessage(content=[audio]),
        UserMessage(content="q"),
        AssistantMessage(tool_calls=[ToolCall(id="c1", name="f", arguments={})]),
        ToolMessage(tool_call_id="c1", content=[audio]),  # answers its call: it stays
        UserMessage(content=[audio]),
        SystemMessage(content=[audio]),
        UserMessage(content="x"),
    ]
    expected = {
        "input": [
            {"role": "user", "content": "q"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": ""},
            {"role": "user", "content": "x"},
        ]
    }
    assert R.check(history, unsupported="drop") == []
    for content_format in ("auto", "string", "parts"):
        encoded = R.encode(history, unsupported="drop", content_format=content_format)
        assert encoded["input"][1:3] == expected["input"][1:3]
        assert "instructions" not in encoded and len(encoded["input"]) == 4
    assert R.encode(history, unsupported="drop") == expected
    placeheld = R.encode(history, unsupported="placeholder")
    assert "instructions" in placeheld and len(placeheld["input"]) == 6


def test_check_image_limits() -> None:
    many = UserMessage(
        content=[ImageBlock(url=f"https://e.com/{i}.png") for i in range(R.MAX_IMAGES + 1)]
    )
    assert _problems([many]) == [(f"/messages/0/content/{R.MAX_IMAGES}", "too_many_images")]
    big = "A" * (R.MAX_INLINE_IMAGE_BYTES // 3 * 4 // 2 + 8)
    two = UserMessage(
        content=[
            ImageBlock(base64=big, mime_type="image/png"),
            ImageBlock(base64=big, mime_type="image/png"),
        ]
    )
    assert _problems([two]) == [("/messages/0/content/1", "payload_too_large")]


def test_check_of_a_valid_history_is_empty() -> None:
    for payload in PAYLOADS.values():
        assert R.check(R.decode_conversation(payload)) == []


# ---------------------------------------------------------------------- decode_response

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


@pytest.mark.parametrize("name", RESPONSES)
@pytest.mark.parametrize("form", ["dict", "sdk"])
def test_decode_response(name: str, form: str) -> None:
    data, finish, raw = RESPONSES[name]
    original = copy.deepcopy(data)
    payload: Any = data if form == "dict" else Response.model_validate(data)
    reply = R.decode_response(payload)
    assert data == original
    assert reply.provider == NAME
    assert reply.model == "gpt-5-2025-08-07"
    assert reply.response_id == data["id"]
    assert reply.finish_reason == finish
    assert reply.raw_finish_reason == raw
    # Appended to the history, the reply re-encodes to exactly the output items.
    history = [UserMessage(content="q"), reply]
    history += [ToolMessage(tool_call_id=call.id, content="r") for call in reply.tool_calls]
    encoded = R.encode(history)
    validate_request(NAME, encoded)
    expected = Response.model_validate(data).model_dump(mode="json", exclude_none=True)["output"]
    if form == "dict":
        expected = data["output"]
    assert encoded["input"][1 : 1 + len(expected)] == expected


def test_decode_response_usage_and_metadata() -> None:
    reply = R.decode_response(RESPONSE_TOOL_CALL)
    assert reply.usage is not None
    assert to_dict(reply.usage) == {
        "input_tokens": 300,
        "output_tokens": 80,
        "total_tokens": 380,
        "input_token_details": {
            "cache_read": 0,
            "cache_creation": 256,
            "cache_creation_30m": 256,
            "cache_creation_12h": 0,
        },
        "output_token_details": {"reasoning": 40},
    }
    assert reply.response_metadata == {NAME: {"created_at": 1757995120, "service_tier": "default"}}
    failed = R.decode_response(RESPONSES["failed"][0])
    assert failed.response_metadata == {
        NAME: {
            "created_at": 1757995120,
            "service_tier": "default",
            "error": {"code": "server_error", "message": "The server had an error."},
        }
    }
    assert failed.content == ""
    # An empty reply is an empty assistant turn (do not append failed responses).
    assert R.encode([UserMessage(content="q"), failed])["input"][1:] == [
        {"role": "assistant", "content": ""}
    ]
    incomplete = R.decode_response(RESPONSES["max_tokens"][0])
    assert incomplete.response_metadata is not None
    assert incomplete.response_metadata[NAME]["incomplete_details"] == {
        "reason": "max_output_tokens"
    }


def test_decode_response_lenient_usage() -> None:
    # Live payloads have lacked cache_write_tokens; unknown detail keys are kept.
    data = _variant(
        RESPONSE_TEXT,
        usage={
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0, "audio_tokens": 3},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0, "new_thing": {"a": 1}},
            "total_tokens": 15,
        },
    )
    reply = R.decode_response(data)
    assert reply.usage is not None
    assert to_dict(reply.usage)["input_token_details"] == {"cache_read": 0, "audio": 3}
    assert reply.response_metadata is not None
    assert reply.response_metadata[NAME]["usage"] == data["usage"]
    no_usage = R.decode_response(_variant(RESPONSE_TEXT, usage=None))
    assert no_usage.usage is None


def test_decode_response_sdk_and_dict_agree() -> None:
    for data, _, _ in RESPONSES.values():
        from_dict = to_dict(R.decode_response(data))
        from_sdk = to_dict(R.decode_response(Response.model_validate(data)))
        # the SDK types created_at as float
        for side in (from_dict, from_sdk):
            side.get("response_metadata", {}).get(NAME, {}).pop("created_at", None)
        assert from_dict == from_sdk


def test_decode_response_content_and_calls() -> None:
    reply = R.decode_response(RESPONSE_WEB)
    assert isinstance(reply.content, list)
    search, text = reply.content
    assert isinstance(search, ServerToolCallBlock) and search.arguments == {
        "type": "search",
        "query": "oslo weather",
    }
    assert isinstance(text, TextBlock) and text.id == "msg_1"
    assert text.annotations == [
        Citation(url="https://www.yr.no/", title="Yr", start_index=11, end_index=18)
    ]
    calls = R.decode_response(RESPONSE_TOOL_CALL).tool_calls
    assert [(c.id, c.arguments, c.extras) for c in calls] == [
        (
            "call_1",
            {"city": "Oslo"},
            {NAME: {"arguments": '{"city":"Oslo"}', "id": "fc_1", "status": "completed"}},
        ),
        (
            "call_2",
            {"city": "Bergen"},
            {NAME: {"arguments": '{"city":"Bergen"}', "id": "fc_2", "status": "completed"}},
        ),
    ]


# ----------------------------------------------------------------------------- errors


BAD_CONVERSATIONS: list[tuple[Any, int | None, int | None]] = [
    (42, None, None),
    ("not json", None, None),
    ({"input": 5}, None, None),
    ({"input": [], "instructions": ["x"]}, None, None),
    ({"input": ["text"]}, 0, None),
    ({"input": [{"role": "user", "content": "x"}, {"role": "robot", "content": "x"}]}, 1, None),
    ({"input": [{"role": "user"}]}, 0, None),
    ({"input": [{"role": "user", "content": [{"type": "input_text"}]}]}, 0, 0),
    ({"input": [{"role": "user", "content": ["x"]}]}, 0, 0),
    (
        {
            "input": [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "a"},
                        {"type": "input_text", "text": 5},
                    ],
                }
            ]
        },
        0,
        1,
    ),
    ({"input": [{"type": "function_call", "name": "f", "arguments": "{}"}]}, 0, None),
    ({"input": [{"type": "function_call", "call_id": "c", "arguments": "{}"}]}, 0, None),
    ({"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}]}, 0, None),
    ({"input": [{"type": "function_call_output", "call_id": "c", "output": 3}]}, 0, None),
    ({"input": [{"content": "x"}]}, 0, None),
    ({"input": [{"type": 7}]}, 0, None),
    ({"input": [_msg(1, _text("x", annotations=["bad"]))]}, 0, 0),
    ({"input": [_rs(1) | {"summary": [{"type": "summary_text"}]}]}, 0, None),
    ({"input": [], "tools": {"a": 1}}, None, None),
    ({"input": [], "tools": [{"type": "function"}]}, None, None),
    ({"input": [], "tools": ["x"]}, None, None),
    (
        {"input": [], "tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": []}},
        None,
        None,
    ),
    (
        {
            "input": [],
            "tool_choice": "none",
            "parallel_tool_calls": False,
        },
        None,
        None,
    ),
    ({"input": [], "parallel_tool_calls": "yes"}, None, None),
]


@pytest.mark.parametrize(("payload", "message_index", "block_index"), BAD_CONVERSATIONS)
def test_bad_conversations_raise_conversion_errors(
    payload: Any, message_index: int | None, block_index: int | None
) -> None:
    with pytest.raises(ConversionError) as error:
        R.decode_conversation(payload)
    assert error.value.provider == NAME
    assert (error.value.message_index, error.value.block_index) == (message_index, block_index)


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        {"output": "x"},
        _variant(RESPONSE_TEXT, usage={"input_tokens": "1", "output_tokens": 1}),
        _variant(RESPONSE_TEXT, usage={"input_tokens": -1, "output_tokens": 1}),
        _variant(RESPONSE_TEXT, usage={"input_tokens": True, "output_tokens": 1}),
        _variant(RESPONSE_TEXT, usage=[1]),
        _variant(
            RESPONSE_TEXT,
            output=[{"type": "function_call", "call_id": "c", "name": "", "arguments": "{}"}],
        ),
        _variant(RESPONSE_TEXT, output=["x"]),
    ],
)
def test_bad_responses_raise_conversion_errors(payload: Any) -> None:
    with pytest.raises(ConversionError) as error:
        R.decode_response(payload)
    assert error.value.provider == NAME


def _corruptions(value: Any, rng: random.Random) -> Any:
    """Replace one randomly chosen value somewhere inside ``value`` with junk."""
    junk = [None, 0, -1, True, "", "x", [], {}, [None], {"type": None}, 1.5]
    data = copy.deepcopy(value)
    path: list[Any] = []
    node = data
    while isinstance(node, (dict, list)) and node and rng.random() < 0.8:
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append((node, key))
        node = node[key]
    if path:
        parent, key = path[-1]
        parent[key] = rng.choice(junk)
    return data


def test_corrupted_payloads_only_raise_chatschema_errors() -> None:
    rng = random.Random(20240607)
    sources = [*PAYLOADS.values(), *(data for data, _, _ in RESPONSES.values())]
    for _ in range(3000):
        corrupted = _corruptions(rng.choice(sources), rng)
        if rng.random() < 0.5:
            corrupted = _corruptions(corrupted, rng)
        for decode in (R.decode_conversation, R.decode_response):
            try:
                decoded = decode(corrupted)
            except ChatSchemaError:
                continue
            # what decodes must also encode (or fail the structural check cleanly)
            history = [decoded] if isinstance(decoded, AssistantMessage) else decoded
            with contextlib.suppress(ChatSchemaError):
                R.encode(history, unsupported="drop")


def test_encode_rejects_bad_neutral_input() -> None:
    with pytest.raises(chatschema.ValidationError):
        R.encode([{"role": "user"}])
    with pytest.raises(chatschema.ValidationError):
        R.check(3)


def test_file_blocks_encode() -> None:
    encoded = R.encode(
        [
            UserMessage(
                content=[FileBlock(base64=PDF, mime_type="application/pdf", filename="a.pdf")]
            )
        ]
    )
    validate_request(NAME, encoded)
    assert encoded["input"][0]["content"] == [
        {
            "type": "input_file",
            "file_data": f"data:application/pdf;base64,{PDF}",
            "filename": "a.pdf",
        }
    ]


# ------------------------------------------------------------------ more behaviour


def test_sdk_input_objects_decode_like_dicts() -> None:
    from openai.types.responses import ResponseFunctionToolCall, ResponseReasoningItem

    reasoning = ResponseReasoningItem.model_validate(_rs(1, ["s"]))
    call = ResponseFunctionToolCall.model_validate(_fc(1))
    items = [{"role": "user", "content": "x"}, reasoning, call, _out(1)]
    dicts = [{"role": "user", "content": "x"}, _rs(1, ["s"]), _fc(1), _out(1)]
    assert R.decode_messages(items) == R.decode_messages(dicts)
    assert R.encode(R.decode_conversation({"input": items}))["input"] == dicts


def test_consecutive_assistant_messages_become_one_turn() -> None:
    history = [
        UserMessage(content="x"),
        AssistantMessage(content=[TextBlock(text="a", id="msg_1")]),
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content="r"),
    ]
    encoded = R.encode(history)
    decoded = R.decode_messages(encoded)
    assert [m.role for m in decoded] == ["user", "assistant", "tool"]
    assert R.encode(decoded) == encoded


def test_hand_built_non_standard_items_need_the_marker() -> None:
    reference = {"type": "item_reference", "id": "msg_stored"}
    marked = NonStandardBlock(value=reference, extras={NAME: {"kind": "item"}})
    encoded = R.encode([UserMessage(content=[TextBlock(text="see"), marked, TextBlock(text="ok")])])
    validate_request(NAME, encoded)
    assert encoded["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "see"}]},
        reference,
        {"role": "user", "content": [{"type": "input_text", "text": "ok"}]},
    ]
    with pytest.raises(UnsupportedContentError) as error:
        R.encode([UserMessage(content=[NonStandardBlock(value=reference)])])
    assert error.value.block_index == 0
    # the encoded value is a copy: editing it leaves the block alone
    encoded["input"][1]["id"] = "changed"
    assert marked.value == reference


def test_tool_choice_round_trips() -> None:
    for choice, wire in [
        ({"type": "auto"}, {"tool_choice": "auto"}),
        ({"type": "none"}, {"tool_choice": "none"}),
        ({"type": "required"}, {"tool_choice": "required"}),
        (
            {"type": "required", "parallel": False},
            {"tool_choice": "required", "parallel_tool_calls": False},
        ),
        ({"type": "tool", "name": "f"}, {"tool_choice": {"type": "function", "name": "f"}}),
    ]:
        conversation = chatschema.parse_conversation(
            {"messages": [{"role": "user", "content": "x"}], "tool_choice": choice}
        )
        encoded = R.encode(conversation)
        validate_request(NAME, encoded)
        assert {k: v for k, v in encoded.items() if k != "input"} == wire
        assert to_dict(R.decode_conversation(encoded))["tool_choice"] == choice


def test_parallel_next_to_none_is_refused() -> None:
    """NoneToolChoice has no ``parallel``: refused rather than dropped (as Chat does)."""
    with pytest.raises(ConversionError, match="parallel_tool_calls"):
        R.decode_conversation({"input": "x", "tool_choice": "none", "parallel_tool_calls": True})


def test_encode_is_linear_in_history_length() -> None:
    import gc
    import time

    def history(turns: int) -> list[Any]:
        out: list[Any] = [{"role": "user", "content": "start"}]
        for n in range(turns):
            out += [_rs(n, ["s"]), _msg(n, _text("t")), _fc(n), _out(n)]
        return out

    def best(payload: dict[str, Any]) -> float:
        times = []
        for _ in range(5):
            gc.collect()
            start = time.perf_counter()
            R.encode(R.decode_conversation(payload))
            times.append(time.perf_counter() - start)
        return min(times)

    small, large = {"input": history(60)}, {"input": history(480)}
    assert R.encode(R.decode_conversation(large)) == large
    ratio = best(large) / best(small)
    # linear: about 8; quadratic: about 64
    assert ratio < 24, f"8x the history took {ratio:.1f}x the time"


@pytest.mark.parametrize(
    "item",
    [
        {"type": "reasoning", "id": "rs_x", "summary": [], "content": [None]},
        {"type": "reasoning", "id": "rs_x", "summary": "odd", "encrypted_content": 5},
        {
            "type": "message",
            "id": "msg_x",
            "role": "assistant",
            "status": "completed",
            "content": [],
        },
        {
            "type": "message",
            "id": "msg_x",
            "role": "assistant",
            "content": [{"type": "output_audio"}],
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "no id"}],
        },
        {"type": "reasoning", "summary": []},
        {"type": "web_search_call", "id": 5, "action": "search", "status": "completed"},
    ],
)
def test_odd_output_items_still_round_trip(item: dict[str, Any]) -> None:
    payload = {
        "input": [{"role": "user", "content": "x"}, item, {"role": "assistant", "content": "ok"}]
    }
    assert R.encode(R.decode_conversation(payload), check=False) == payload


@pytest.mark.parametrize(
    "part",
    [
        {"type": "input_image", "image_url": "not a url", "detail": "auto"},
        {"type": "input_image", "image_url": "", "file_id": "f", "detail": "auto"},
        {"type": "input_image", "image_url": "https://e.com/x.png", "detail": "ultra"},
        {"type": "input_file", "filename": "only-a-name.pdf"},
        {"type": "input_file", "file_id": "f", "filename": ""},
        {
            "type": "input_text",
            "text": "t",
            "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "5m"},
        },
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    ],
)
def test_odd_input_parts_still_round_trip(part: dict[str, Any]) -> None:
    payload = {"input": [{"role": "user", "content": [part]}]}
    assert R.encode(R.decode_conversation(payload)) == payload
