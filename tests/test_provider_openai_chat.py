"""The OpenAI Chat Completions codec: round trips, options, checks, responses, errors.

Every encoder output goes through the official SDK request types (``oracle``).
Where a payload carries keys those types do not have (``reasoning_content`` of
DeepSeek/vLLM, a tool message's ``name`` some clients send, unknown keys that must
survive a round trip, custom tools, which the oracle's function-only tool type
refuses), the oracle is run on the payload without those keys only, and the case
says which.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionCustomToolParam, ChatCompletionMessage
from pydantic import ConfigDict, TypeAdapter

import chatschema
from chatschema import (
    AssistantMessage,
    AudioBlock,
    AutoToolChoice,
    CacheControl,
    Conversation,
    ConversionError,
    FileBlock,
    ImageBlock,
    InvalidToolCall,
    NamedToolChoice,
    NoneToolChoice,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    RefusalBlock,
    RequiredToolChoice,
    ServerToolCallBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolDefinition,
    ToolMessage,
    UnsupportedContentError,
    UserMessage,
    ValidationError,
    VideoBlock,
    to_dict,
)
from chatschema.errors import OptionError
from chatschema.providers import openai_chat as oc
from chatschema.providers._common import parse_arguments

sys.path.insert(0, str(Path(__file__).parent))
from oracle import validate_request

_CUSTOM_TOOLS = TypeAdapter(
    list[ChatCompletionCustomToolParam], config=ConfigDict(extra="forbid", strict=True)
)

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABh6FO1AAAAABJRU5ErkJggg=="  # noqa: E501
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
PDF = "JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGggNiAwIFI+PgpzdHJlYW0K"

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}


def _without(payload: dict[str, Any], paths: list[tuple[Any, ...]]) -> dict[str, Any]:
    """A copy of ``payload`` without the keys at ``paths`` (for the oracle only)."""
    result = copy.deepcopy(payload)
    for path in paths:
        target: Any = result
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]
    return result


def oracle(payload: dict[str, Any], *, skip: Sequence[tuple[Any, ...]] = ()) -> None:
    """The SDK oracle on the payload minus ``skip``.

    Custom tools are checked with the SDK's custom tool type: the oracle's tool
    list type is function-only.
    """
    checked = _without(payload, list(skip))
    if "tools" in checked:
        custom = [tool for tool in checked["tools"] if tool.get("type") == "custom"]
        if custom:
            _CUSTOM_TOOLS.validate_python(custom)
        checked["tools"] = [tool for tool in checked["tools"] if tool.get("type") != "custom"]
        if not checked["tools"]:
            del checked["tools"]
    validate_request("openai_chat", checked)


# ============================================================ wire payloads: exact round trip

# (id, payload, encode options, keys the SDK types do not have)
WIRE_CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[tuple[Any, ...]]]] = [
    (
        "plain-chat",
        {
            "messages": [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "Hello!"},
                {"role": "assistant", "content": "Hi! How can I help?"},
                {"role": "user", "content": "Tell me a joke."},
            ]
        },
        {},
        [],
    ),
    (
        "developer-role-and-names",
        {
            "messages": [
                {"role": "developer", "content": "Answer in French.", "name": "ops"},
                {"role": "user", "content": "Good morning", "name": "alice_01"},
                {"role": "assistant", "content": "Bonjour !", "name": "bot-fr"},
                {"role": "system", "content": [{"type": "text", "text": "Extra rule."}]},
            ]
        },
        {},
        [],
    ),
    (
        "multimodal-user",
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Compare these."},
                        {
                            "type": "image_url",
                            "image_url": {"url": "https://example.com/a.jpg", "detail": "high"},
                        },
                        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                        {
                            "type": "image_url",
                            "image_url": {
                                "url": f"data:image/jpeg;base64,{PNG}",
                                "detail": "original",
                            },
                        },
                        {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}},
                        {"type": "input_audio", "input_audio": {"data": WAV, "format": "mp3"}},
                        {
                            "type": "file",
                            "file": {
                                "file_data": f"data:application/pdf;base64,{PDF}",
                                "filename": "report.pdf",
                            },
                        },
                        {"type": "file", "file": {"file_id": "file-abc123"}},
                        {"type": "file", "file": {"file_id": "file-x", "filename": "x.pdf"}},
                    ],
                }
            ]
        },
        {},
        [],
    ),
    (
        "parallel-tool-calls",
        {
            "messages": [
                {"role": "user", "content": "Weather in Oslo and Paris?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_AbC1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                        },
                        {
                            "id": "call_AbC2",
                            "type": "function",
                            "function": {
                                "name": "get_weather",
                                "arguments": '{\n  "city": "Paris"\n}',
                            },
                        },
                    ],
                },
                {"role": "tool", "tool_call_id": "call_AbC2", "content": "18C, cloudy"},
                {"role": "tool", "tool_call_id": "call_AbC1", "content": "-3C, snow"},
                {"role": "assistant", "content": "Oslo: -3C and snow; Paris: 18C."},
            ],
            "tools": [WEATHER_TOOL],
            "tool_choice": "auto",
        },
        {},
        [],
    ),
    (
        "tool-call-content-forms",
        {
            "messages": [
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "step", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "a"}]},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "c2",
                            "type": "function",
                            "function": {"name": "step", "arguments": ""},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c2", "content": ""},
                {
                    "role": "assistant",
                    "content": "Checking.",
                    "tool_calls": [
                        {
                            "id": "c3",
                            "type": "function",
                            "function": {"name": "step", "arguments": '{"é": "ü"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c3", "content": "ok"},
                {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
                {"role": "assistant", "content": []},
            ]
        },
        {},
        [],
    ),
    (
        "invalid-tool-calls-keep-order",
        {
            "messages": [
                {"role": "user", "content": "Book it."},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "search", "arguments": '{"from": "SFO"'},
                        },
                        {
                            "id": "call_2",
                            "type": "function",
                            "function": {"name": "search", "arguments": '{"from":"LAX"}'},
                        },
                        {
                            "id": "call_3",
                            "type": "function",
                            "function": {"name": "search", "arguments": "[1, 2]"},
                        },
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "error: bad JSON"},
                {"role": "tool", "tool_call_id": "call_2", "content": "3 flights"},
                {"role": "tool", "tool_call_id": "call_3", "content": "error: not an object"},
            ]
        },
        {},
        [],
    ),
    (
        "refusals",
        {
            "messages": [
                {"role": "user", "content": "How do I pick a lock?"},
                {"role": "assistant", "content": None, "refusal": "I can't help with that."},
                {"role": "user", "content": "And now?"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Part of it:"},
                        {"type": "refusal", "refusal": "not the rest."},
                    ],
                },
                {"role": "assistant", "content": "Sure,", "refusal": "but no."},
                {"role": "assistant", "refusal": "Absent content."},
            ]
        },
        {},
        [],
    ),
    (
        "prompt-cache-breakpoints",
        {
            "messages": [
                {
                    "role": "system",
                    "content": [
                        {
                            "type": "text",
                            "text": "Long policy ...",
                            "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "12h"},
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image_url",
                            "image_url": {"url": "https://example.com/chart.png"},
                            "prompt_cache_breakpoint": {"mode": "explicit"},
                        },
                        {
                            "type": "text",
                            "text": "Explain.",
                            "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "30m"},
                        },
                    ],
                },
            ]
        },
        {},
        [],
    ),
    (
        "tools-and-forced-choice",
        {
            "messages": [{"role": "user", "content": "Weather in Rome?"}],
            "tools": [
                WEATHER_TOOL,
                {"type": "function", "function": {"name": "ping"}},
                {
                    "type": "function",
                    "function": {"name": "noop", "parameters": {}, "strict": False},
                },
            ],
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        },
        {},
        [],
    ),
    (
        "required-not-parallel",
        {
            "messages": [{"role": "user", "content": "Use a tool."}],
            "tools": [WEATHER_TOOL],
            "tool_choice": "required",
            "parallel_tool_calls": False,
        },
        {},
        [],
    ),
    (
        "parallel-flag-alone",
        {
            "messages": [{"role": "user", "content": "Use a tool."}],
            "tools": [WEATHER_TOOL],
            "parallel_tool_calls": False,
        },
        {},
        [],
    ),
    (
        "tool-choice-none",
        {
            "messages": [{"role": "user", "content": "Just talk."}],
            "tools": [WEATHER_TOOL],
            "tool_choice": "none",
        },
        {},
        [],
    ),
    (
        "custom-tools",
        {
            "messages": [
                {"role": "user", "content": "Count the users."},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_sql",
                            "type": "custom",
                            "custom": {"name": "run_sql", "input": "SELECT count(*) FROM users"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_sql", "content": "42"},
            ],
            "tools": [
                {
                    "type": "custom",
                    "custom": {
                        "name": "run_sql",
                        "description": "Run one SQL query.",
                        "format": {
                            "type": "grammar",
                            "grammar": {"syntax": "lark", "definition": 'start: "SELECT" /.+/'},
                        },
                    },
                },
                {"type": "custom", "custom": {"name": "free_text"}},
            ],
            "tool_choice": {"type": "custom", "custom": {"name": "run_sql"}},
        },
        {},
        [],
    ),
    (
        "deepseek-reasoning-content",
        {
            "messages": [
                {"role": "user", "content": "9.11 or 9.9?"},
                {
                    "role": "assistant",
                    "content": "9.9 is larger.",
                    "reasoning_content": "Compare decimals: 9.90 > 9.11.",
                },
                {"role": "user", "content": "Call the tool."},
                {
                    "role": "assistant",
                    "content": None,
                    "reasoning_content": "The user wants a tool call.",
                    "tool_calls": [
                        {
                            "id": "call_0",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_0", "content": "sunny"},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Sunny."}],
                    "reasoning_content": "",
                },
            ]
        },
        {"reasoning_content": True},
        [
            ("messages", 1, "reasoning_content"),
            ("messages", 3, "reasoning_content"),
            ("messages", 5, "reasoning_content"),
        ],
    ),
    (
        "vllm-reasoning-field",
        {
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello.", "reasoning": "Greet back."},
            ]
        },
        {"reasoning_content": True},
        [("messages", 1, "reasoning")],
    ),
    (
        "unknown-keys-survive",
        {
            "messages": [
                {"role": "user", "content": "hi", "x_trace": {"span": 7}},
                {
                    "role": "assistant",
                    "content": "hello",
                    "refusal": None,
                    "tool_calls": [],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_g",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                            "extra_content": {"google": {"thought_signature": "c2lnbmF0dXJl"}},
                        }
                    ],
                },
                {
                    "role": "tool",
                    "tool_call_id": "call_g",
                    "content": "cold",
                    "name": "get_weather",
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "look", "x_part": 1},
                        {
                            "type": "image_url",
                            "image_url": {"url": "https://example.com/a.png", "detail": "ultra"},
                        },
                        {"type": "video_url", "video_url": {"url": "https://example.com/v.mp4"}},
                        {
                            "type": "text",
                            "text": "later",
                            "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "7d"},
                        },
                    ],
                },
            ]
        },
        {},
        [
            ("messages", 0, "x_trace"),
            ("messages", 1, "refusal"),
            ("messages", 1, "tool_calls"),
            ("messages", 2, "tool_calls", 0, "extra_content"),
            ("messages", 3, "name"),
            ("messages", 4, "content", 3),
            ("messages", 4, "content", 2),
            ("messages", 4, "content", 1, "image_url", "detail"),
            ("messages", 4, "content", 0, "x_part"),
        ],
    ),
    (
        "assistant-audio-id",
        {
            "messages": [
                {"role": "user", "content": "Say hi out loud."},
                {"role": "assistant", "content": None, "audio": {"id": "audio_abc123"}},
                {"role": "user", "content": "Again."},
            ]
        },
        {},
        [],
    ),
    (
        "bare-file-data-and-odd-audio",
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "file", "file": {"file_data": PDF, "filename": "scan.pdf"}},
                        {"type": "file", "file": {"file_data": PDF}},
                        {"type": "input_audio", "input_audio": {"data": WAV, "format": "flac"}},
                    ],
                }
            ]
        },
        {},
        [("messages", 0, "content", 2)],
    ),
    (
        "tool-call-without-type",
        {
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "t1", "function": {"name": "step", "arguments": '{"a":1}'}}
                    ],
                },
                {"role": "tool", "tool_call_id": "t1", "content": "ok"},
            ]
        },
        {},
        [("messages", 1, "tool_calls")],
    ),
]


@pytest.mark.parametrize(
    ("payload", "options", "skip"),
    [case[1:] for case in WIRE_CASES],
    ids=[case[0] for case in WIRE_CASES],
)
def test_wire_round_trip_is_exact(
    payload: dict[str, Any], options: dict[str, Any], skip: list[tuple[Any, ...]]
) -> None:
    before = copy.deepcopy(payload)
    conversation = oc.decode_conversation(payload)
    assert payload == before  # decoding does not touch its input
    encoded = oc.encode(conversation, **options)
    assert encoded == payload
    oracle(encoded, skip=skip)
    # and back: the neutral form is stable
    again = oc.decode_conversation(encoded)
    assert to_dict(again) == to_dict(conversation)
    # the decoded conversation is valid by the JSON Schema path too
    chatschema.validate(to_dict(conversation), type="Conversation")


def test_wire_decoding_maps_to_neutral_fields() -> None:
    """Spot-check what the round-trip table decodes to (not only that it comes back)."""
    cases = {case[0]: case[1] for case in WIRE_CASES}
    multimodal = oc.decode_messages(cases["multimodal-user"])[0]
    assert [to_dict(block) for block in multimodal.content] == [  # type: ignore[union-attr]
        {"type": "text", "text": "Compare these."},
        {"type": "image", "url": "https://example.com/a.jpg", "detail": "high"},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        {"type": "image", "base64": PNG, "mime_type": "image/jpeg", "detail": "original"},
        {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
        {"type": "audio", "base64": WAV, "mime_type": "audio/mpeg"},
        {"type": "file", "base64": PDF, "mime_type": "application/pdf", "filename": "report.pdf"},
        {"type": "file", "file_id": "file-abc123"},
        {"type": "file", "file_id": "file-x", "filename": "x.pdf"},
    ]
    invalid = oc.decode_messages(cases["invalid-tool-calls-keep-order"])[1]
    assert isinstance(invalid, AssistantMessage)
    assert [to_dict(call) for call in invalid.tool_calls] == [
        {
            "id": "call_2",
            "name": "search",
            "arguments": {"from": "LAX"},
            "index": 1,
            "extras": {"openai_chat": {"arguments": '{"from":"LAX"}'}},
        }
    ]
    assert [(call.id, call.index, call.arguments) for call in invalid.invalid_tool_calls] == [
        ("call_1", 0, '{"from": "SFO"'),
        ("call_3", 2, "[1, 2]"),
    ]
    assert invalid.invalid_tool_calls[1].error == "arguments must be a JSON object, not list"
    refusals = oc.decode_messages(cases["refusals"])
    assert to_dict(refusals[1]) == {
        "role": "assistant",
        "content": [
            {
                "type": "refusal",
                "text": "I can't help with that.",
                "extras": {"openai_chat": {"as_field": True}},
            }
        ],
    }
    assert to_dict(refusals[3])["content"][1] == {"type": "refusal", "text": "not the rest."}
    assert to_dict(refusals[4]) == {  # a string and the refusal field: the default form
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Sure,"},
            {"type": "refusal", "text": "but no.", "extras": {"openai_chat": {"as_field": True}}},
        ],
    }
    assert to_dict(refusals[5])["extras"] == {"openai_chat": {"content_shape": "absent"}}
    reasoning = oc.decode_messages(cases["deepseek-reasoning-content"])[1]
    assert to_dict(reasoning) == {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "Compare decimals: 9.90 > 9.11.",
                "provider": "openai_chat",
            },
            {"type": "text", "text": "9.9 is larger."},
        ],
    }
    custom = oc.decode_conversation(cases["custom-tools"])
    call = custom.messages[1].tool_calls[0]  # type: ignore[union-attr]
    assert (call.name, call.arguments) == ("run_sql", {"input": "SELECT count(*) FROM users"})
    assert custom.tools is not None
    assert custom.tools[0].parameters == oc.CUSTOM_TOOL_PARAMETERS
    assert custom.tool_choice == NamedToolChoice(name="run_sql")
    cache = oc.decode_messages(cases["prompt-cache-breakpoints"])
    assert cache[0].content[0].cache_control == CacheControl(type="ephemeral", ttl="12h")  # type: ignore[union-attr]
    assert cache[1].content[0].cache_control == CacheControl(type="ephemeral")  # type: ignore[union-attr]
    unknown = oc.decode_messages(cases["unknown-keys-survive"])
    assert isinstance(unknown[3], ToolMessage) and unknown[3].name == "get_weather"
    part = unknown[4].content[2]  # type: ignore[index]
    assert isinstance(part, NonStandardBlock) and part.value["type"] == "video_url"
    developer = oc.decode_messages(cases["developer-role-and-names"])
    assert isinstance(developer[0], SystemMessage)
    assert developer[0].extras == {"openai_chat": {"role": "developer"}}
    assert developer[3].extras is None
    assert oc.decode_conversation(cases["parallel-flag-alone"]).tool_choice == AutoToolChoice(
        parallel=False
    )
    assert oc.decode_conversation(cases["required-not-parallel"]).tool_choice == (
        RequiredToolChoice(parallel=False)
    )


def test_reasoning_content_is_only_sent_with_the_option() -> None:
    payload = dict(
        WIRE_CASES[[case[0] for case in WIRE_CASES].index("deepseek-reasoning-content")][1]
    )
    conversation = oc.decode_conversation(payload)
    plain = oc.encode(conversation)
    assert plain["messages"][1] == {"role": "assistant", "content": "9.9 is larger."}
    assert (
        plain["messages"][3]["content"] is None and "reasoning_content" not in plain["messages"][3]
    )
    oracle(plain)
    dropped = oc.encode(conversation, reasoning_content=True, reasoning="drop")
    assert dropped == plain


def test_explicit_auto_with_parallel_flag_is_normalized() -> None:
    """Documented: the neutral model cannot tell `"auto"` + flag from the flag alone."""
    payload = {
        "messages": [{"role": "user", "content": "x"}],
        "tools": [WEATHER_TOOL],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
    }
    encoded = oc.encode(oc.decode_conversation(payload))
    assert encoded == {
        "messages": [{"role": "user", "content": "x"}],
        "tools": [WEATHER_TOOL],
        "parallel_tool_calls": True,
    }
    oracle(encoded)


# ============================================================ neutral conversations: round trip

NEUTRAL_CASES: list[tuple[str, Conversation, dict[str, Any]]] = [
    (
        "text-and-names",
        Conversation(
            messages=[
                SystemMessage(content="Be brief.", name="policy"),
                UserMessage(content="hi", name="bob"),
                AssistantMessage(content="hello"),
                AssistantMessage(content=""),
                AssistantMessage(),
            ]
        ),
        {},
    ),
    (
        "blocks",
        Conversation(
            messages=[
                SystemMessage(
                    content=[
                        TextBlock(
                            text="rules", cache_control=CacheControl(type="ephemeral", ttl="30m")
                        )
                    ]
                ),
                UserMessage(
                    content=[
                        TextBlock(text="see"),
                        ImageBlock(url="https://example.com/x.png", detail="low"),
                        ImageBlock(
                            base64=PNG,
                            mime_type="image/png",
                            cache_control=CacheControl(type="ephemeral"),
                        ),
                        AudioBlock(base64=WAV, mime_type="audio/wav"),
                        AudioBlock(base64=WAV, mime_type="audio/mpeg"),
                        FileBlock(base64=PDF, mime_type="application/pdf", filename="a.pdf"),
                        FileBlock(file_id="file-1"),
                    ]
                ),
                AssistantMessage(content=[TextBlock(text="a"), RefusalBlock(text="b")]),
                AssistantMessage(content=[RefusalBlock(text="no")]),
                AssistantMessage(content=[]),
            ]
        ),
        {},
    ),
    (
        "tools",
        Conversation(
            messages=[
                UserMessage(content="go"),
                AssistantMessage(
                    tool_calls=[
                        ToolCall(
                            id="c1", name="get_weather", arguments={"city": "Oslo", "n": [1, 2.5]}
                        ),
                        ToolCall(
                            id="c2",
                            name="run_sql",
                            arguments={"input": "SELECT 1"},
                            extras={"openai_chat": {"type": "custom"}},
                        ),
                    ]
                ),
                ToolMessage(tool_call_id="c1", content="cold"),
                ToolMessage(
                    tool_call_id="c2", content=[TextBlock(text="1"), TextBlock(text="row")]
                ),
                AssistantMessage(
                    content="retrying",
                    tool_calls=[ToolCall(id="c4", name="get_weather", arguments={}, index=1)],
                    invalid_tool_calls=[
                        # `error` is not sent: a decoder says why again, in the parser's words
                        InvalidToolCall(
                            id="c3",
                            name="get_weather",
                            arguments="{oops",
                            error=parse_arguments("{oops")[1],
                            index=0,
                        )
                    ],
                ),
                ToolMessage(tool_call_id="c3", content="error"),
                ToolMessage(tool_call_id="c4", content="ok"),
            ],
            tools=[
                ToolDefinition(
                    name="get_weather",
                    description="Weather.",
                    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
                    strict=True,
                ),
                ToolDefinition(
                    name="run_sql",
                    parameters=oc.CUSTOM_TOOL_PARAMETERS,
                    extras={"openai_chat": {"type": "custom"}},
                ),
            ],
            tool_choice=NamedToolChoice(name="run_sql"),
        ),
        {},
    ),
    (
        "own-reasoning",
        Conversation(
            messages=[
                UserMessage(content="q"),
                AssistantMessage(
                    content=[
                        ReasoningBlock(text="think", provider="openai_chat"),
                        TextBlock(text="a"),
                    ]
                ),
                AssistantMessage(
                    content=[ReasoningBlock(text="only", provider="openai_chat")],
                    tool_calls=[ToolCall(id="c", name="f", arguments={"x": 1})],
                ),
                ToolMessage(tool_call_id="c", content="r"),
            ]
        ),
        {"reasoning_content": True},
    ),
    *[
        (
            f"choice-{choice.type}-{getattr(choice, 'parallel', None)}",
            Conversation(
                messages=[UserMessage(content="x")],
                tools=[ToolDefinition(name="f", parameters={"type": "object"})],
                tool_choice=choice,
            ),
            {},
        )
        for choice in (
            AutoToolChoice(),
            AutoToolChoice(parallel=True),
            NoneToolChoice(),
            RequiredToolChoice(),
            RequiredToolChoice(parallel=False),
            NamedToolChoice(name="f"),
        )
    ],
]


@pytest.mark.parametrize(
    ("conversation", "options"),
    [case[1:] for case in NEUTRAL_CASES],
    ids=[case[0] for case in NEUTRAL_CASES],
)
def test_neutral_round_trip_is_exact(conversation: Conversation, options: dict[str, Any]) -> None:
    before = to_dict(conversation)
    encoded = oc.encode(conversation, **options)
    assert to_dict(conversation) == before  # encoding does not touch its input
    skip = [
        ("messages", index, "reasoning_content")
        for index, message in enumerate(encoded["messages"])
        if "reasoning_content" in message
    ]
    oracle(encoded, skip=skip)
    assert to_dict(oc.decode_conversation(encoded)) == before
    # dict input gives the same result as models
    assert oc.encode(before, **options) == encoded


# ============================================================ exact encodings


def _messages(*messages: Any, **options: Any) -> list[dict[str, Any]]:
    encoded = oc.encode(list(messages), **options)
    oracle(encoded)
    return encoded["messages"]  # type: ignore[no-any-return]


def test_tool_result_images_move_to_a_user_message() -> None:
    messages = [
        UserMessage(content="screenshot both"),
        AssistantMessage(
            tool_calls=[
                ToolCall(id="s1", name="shot", arguments={}),
                ToolCall(id="s2", name="shot", arguments={}),
            ]
        ),
        ToolMessage(
            tool_call_id="s1",
            content=[
                TextBlock(text="page 1"),
                ImageBlock(
                    url="https://example.com/1.png", cache_control=CacheControl(type="ephemeral")
                ),
            ],
        ),
        ToolMessage(tool_call_id="s2", content=[ImageBlock(base64=PNG, mime_type="image/png")]),
        AssistantMessage(content="Both pages load."),
    ]
    assert oc.check(messages) == []
    assert _messages(*messages)[2:] == [
        {"role": "tool", "tool_call_id": "s1", "content": [{"type": "text", "text": "page 1"}]},
        {"role": "tool", "tool_call_id": "s2", "content": ""},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Images returned by tool call s1:"},
                {
                    "type": "image_url",
                    "image_url": {"url": "https://example.com/1.png"},
                    "prompt_cache_breakpoint": {"mode": "explicit"},
                },
                {"type": "text", "text": "Images returned by tool call s2:"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        },
        {"role": "assistant", "content": "Both pages load."},
    ]


def test_tool_result_images_at_the_end_are_flushed() -> None:
    messages = [
        AssistantMessage(tool_calls=[ToolCall(id="s1", name="shot", arguments={})]),
        ToolMessage(tool_call_id="s1", content=[ImageBlock(url="https://example.com/1.png")]),
    ]
    assert _messages(*messages)[-1]["role"] == "user"
    # other non-text tool content is unsupported content
    with pytest.raises(UnsupportedContentError) as error:
        oc.encode(
            [messages[0], ToolMessage(tool_call_id="s1", content=[FileBlock(file_id="file-1")])]
        )
    assert (error.value.message_index, error.value.block_index) == (1, 0)
    assert "tool result" in str(error.value)


@pytest.mark.parametrize(
    ("ttl", "expected"),
    [
        (None, {}),
        ("30m", {"ttl": "30m"}),
        ("12h", {"ttl": "12h"}),
        ("5m", {"ttl": "30m"}),
        ("1800s", {"ttl": "30m"}),
        ("1h", {"ttl": "12h"}),
        ("24h", {"ttl": "12h"}),
    ],
)
def test_cache_control_ttl_rounds_up(ttl: str | None, expected: dict[str, str]) -> None:
    cache = CacheControl(type="ephemeral", ttl=ttl) if ttl else CacheControl(type="ephemeral")
    message = UserMessage(content=[TextBlock(text="t", cache_control=cache)])
    assert _messages(message)[0]["content"][0]["prompt_cache_breakpoint"] == {
        "mode": "explicit",
        **expected,
    }
    assert _messages(message, prompt_cache=False)[0]["content"] == [{"type": "text", "text": "t"}]


def test_system_role_option_and_recorded_role() -> None:
    plain = SystemMessage(content="a")
    developer = SystemMessage(content="b", extras={"openai_chat": {"role": "developer"}})
    assert [m["role"] for m in _messages(plain, developer)] == ["system", "developer"]
    assert [m["role"] for m in _messages(plain, developer, system_role="developer")] == [
        "developer",
        "developer",
    ]
    assert [m["role"] for m in _messages(plain, developer, system_role="system")] == [
        "system",
        "system",
    ]


def test_content_format_string_and_parts() -> None:
    messages = [
        SystemMessage(
            content=[
                TextBlock(text="a"),
                TextBlock(text="b", cache_control=CacheControl(type="ephemeral")),
            ]
        ),
        UserMessage(content="plain"),
        AssistantMessage(content=[TextBlock(text="x"), RefusalBlock(text="no")]),
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content=[TextBlock(text="r1"), TextBlock(text="r2")]),
    ]
    assert _messages(*messages, content_format="string") == [
        {"role": "system", "content": "a\nb"},
        {"role": "user", "content": "plain"},
        {"role": "assistant", "content": "x", "refusal": "no"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c", "content": "r1\nr2"},
    ]
    parts = _messages(*messages, content_format="parts")
    assert parts[1] == {"role": "user", "content": [{"type": "text", "text": "plain"}]}
    assert parts[2]["content"] == [
        {"type": "text", "text": "x"},
        {"type": "refusal", "refusal": "no"},
    ]
    assert parts[3]["content"] is None


def test_string_form_refuses_images_by_policy() -> None:
    message = UserMessage(
        content=[TextBlock(text="look"), ImageBlock(url="https://example.com/a.png")]
    )
    with pytest.raises(UnsupportedContentError) as error:
        oc.encode([message], content_format="string")
    assert (error.value.provider, error.value.message_index, error.value.block_index) == (
        "openai_chat",
        0,
        1,
    )
    assert _messages(message, content_format="string", unsupported="drop") == [
        {"role": "user", "content": "look"}
    ]
    assert _messages(message, content_format="string", unsupported="placeholder") == [
        {
            "role": "user",
            "content": "look\n[an image in string content omitted: not supported by openai_chat]",
        }
    ]


def test_vision_off() -> None:
    message = UserMessage(
        content=[TextBlock(text="look"), ImageBlock(url="https://example.com/a.png")]
    )
    problems = oc.check([message], vision=False)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/0/content/1", "unsupported_content")
    ]
    with pytest.raises(ConversionError) as error:
        oc.encode([message], vision=False)
    assert error.value.problems == tuple(problems) and error.value.message_index == 0
    with pytest.raises(UnsupportedContentError):
        oc.encode([message], vision=False, check=False)
    assert oc.check([message], vision=False, unsupported="drop") == []
    assert _messages(message, vision=False, unsupported="drop") == [
        {"role": "user", "content": [{"type": "text", "text": "look"}]}
    ]
    assert _messages(message, vision=False, unsupported="placeholder")[0]["content"][1] == {
        "type": "text",
        "text": "[an image (vision is off) omitted: not supported by openai_chat]",
    }


UNSUPPORTED_CASES: list[tuple[str, Any, int]] = [
    (
        "video",
        UserMessage(content=[TextBlock(text="a"), VideoBlock(url="https://example.com/v.mp4")]),
        1,
    ),
    ("text-plain", UserMessage(content=[PlainTextBlock(text="doc", title="T")]), 0),
    ("image-in-system", SystemMessage(content=[ImageBlock(url="https://example.com/a.png")]), 0),
    ("image-by-file-id", UserMessage(content=[ImageBlock(file_id="file-9")]), 0),
    ("audio-url", UserMessage(content=[AudioBlock(url="https://example.com/a.wav")]), 0),
    ("audio-ogg", UserMessage(content=[AudioBlock(base64=WAV, mime_type="audio/ogg")]), 0),
    ("file-url", UserMessage(content=[FileBlock(url="https://example.com/a.pdf")]), 0),
    ("refusal-in-user", UserMessage(content=[RefusalBlock(text="no")]), 0),
    (
        "image-in-assistant",
        AssistantMessage(content=[TextBlock(text="x"), ImageBlock(url="https://e.com/a.png")]),
        1,
    ),
    (
        "server-tool-call",
        AssistantMessage(content=[ServerToolCallBlock(id="s", name="web_search")]),
        0,
    ),
    (
        "foreign-non-standard",
        UserMessage(content=[NonStandardBlock(value={"type": "document"})]),
        0,
    ),
]


@pytest.mark.parametrize(
    ("message", "block"),
    [case[1:] for case in UNSUPPORTED_CASES],
    ids=[case[0] for case in UNSUPPORTED_CASES],
)
def test_unsupported_content_follows_the_policy(message: Any, block: int) -> None:
    with pytest.raises(UnsupportedContentError) as error:
        oc.encode([UserMessage(content="first"), message])
    assert (error.value.provider, error.value.message_index, error.value.block_index) == (
        "openai_chat",
        1,
        block,
    )
    dropped = oc.encode([message], unsupported="drop")
    oracle(dropped)
    placeholder = oc.encode([message], unsupported="placeholder")
    oracle(placeholder)
    texts = [part.get("text", "") for part in placeholder["messages"][0]["content"]]
    assert any("omitted: not supported by openai_chat" in text for text in texts)


def test_reasoning_policies() -> None:
    foreign = AssistantMessage(
        content=[
            ReasoningBlock(text="Claude thought", signature="sig", provider="anthropic"),
            TextBlock(text="answer"),
        ]
    )
    own = AssistantMessage(
        content=[
            ReasoningBlock(text="R1 thought", provider="openai_chat"),
            TextBlock(text="answer"),
        ]
    )
    summary = AssistantMessage(
        content=[
            ReasoningBlock(summary=["s1", "s2"], provider="openai_responses"),
            TextBlock(text="a"),
        ]
    )
    assert _messages(foreign) == [{"role": "assistant", "content": "answer"}]
    assert _messages(foreign, reasoning="text") == [
        {"role": "assistant", "content": "Claude thought\nanswer"}
    ]
    assert _messages(summary, reasoning="text") == [{"role": "assistant", "content": "s1\ns2\na"}]
    assert _messages(foreign, reasoning="text", reasoning_content=True) == [
        {"role": "assistant", "content": "Claude thought\nanswer"}
    ]
    assert _messages(own) == [{"role": "assistant", "content": "answer"}]
    assert oc.encode([own], reasoning_content=True)["messages"] == [
        {"role": "assistant", "content": "answer", "reasoning_content": "R1 thought"}
    ]
    assert _messages(own, reasoning="drop", reasoning_content=True) == [
        {"role": "assistant", "content": "answer"}
    ]
    # reasoning in a user message is never replayed; "text" renders it
    user = UserMessage(content=[ReasoningBlock(text="pasted", provider="x"), TextBlock(text="q")])
    assert _messages(user) == [{"role": "user", "content": [{"type": "text", "text": "q"}]}]
    assert _messages(user, reasoning="text")[0]["content"][0] == {"type": "text", "text": "pasted"}


def test_native_tools_off_renders_tools_as_text() -> None:
    conversation = Conversation(
        messages=[
            SystemMessage(content="Be useful."),
            UserMessage(content="Weather in Oslo?"),
            AssistantMessage(
                content="Looking it up.",
                tool_calls=[ToolCall(id="c1", name="get_weather", arguments={"city": "Oslo"})],
                invalid_tool_calls=[InvalidToolCall(id="c2", name="get_weather", arguments="{x")],
            ),
            ToolMessage(tool_call_id="c1", content="cold", name="get_weather"),
            ToolMessage(
                tool_call_id="c2",
                content=[TextBlock(text="bad"), ImageBlock(url="https://example.com/e.png")],
                status="error",
            ),
        ],
        tools=[ToolDefinition(name="get_weather", parameters={"type": "object"})],
        tool_choice=RequiredToolChoice(),
    )
    encoded = oc.encode(conversation, native_tools=False)
    oracle(encoded)
    tools_text = (
        "You can call these tools. To call one, answer with "
        '<tool_call id="<unique id>" name="<tool name>"><JSON arguments></tool_call>.\n'
        '- get_weather\n  parameters: {"type": "object"}'
    )
    assert encoded == {
        "messages": [
            {"role": "system", "content": f"Be useful.\n\n{tools_text}"},
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": "Looking it up.\n"
                '<tool_call id="c1" name="get_weather">{"city": "Oslo"}</tool_call>\n'
                '<tool_call id="c2" name="get_weather">{x</tool_call>',
            },
            {
                "role": "user",
                "content": (
                    '<tool_result id="c1" name="get_weather" status="success">cold</tool_result>'
                ),
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": '<tool_result id="c2" status="error">bad</tool_result>',
                    },
                    {"type": "image_url", "image_url": {"url": "https://example.com/e.png"}},
                ],
            },
        ]
    }
    # a decoded turn without a `content` key: the calls' text is the content
    decoded = oc.decode_messages(
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "k", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ]
    )
    assert oc.encode(decoded, native_tools=False)["messages"] == [
        {"role": "assistant", "content": '<tool_call id="k" name="f">{}</tool_call>'}
    ]
    # no system message: one is added in front
    bare = oc.encode(
        Conversation(messages=[UserMessage(content="hi")], tools=conversation.tools),
        native_tools=False,
        system_role="developer",
    )
    assert bare["messages"][0] == {"role": "developer", "content": tools_text}


def test_invalid_tool_call_without_id() -> None:
    message = AssistantMessage(invalid_tool_calls=[InvalidToolCall(name="f", arguments="{")])
    with pytest.raises(UnsupportedContentError) as error:
        oc.encode([message])
    assert error.value.message_index == 0
    # the drop leaves the message empty: it is not sent (the API rejects an assistant
    # message with neither content nor tool calls)
    assert _messages(message, unsupported="drop") == []
    kept = AssistantMessage(
        content="Trying.", invalid_tool_calls=[InvalidToolCall(name="f", arguments="{")]
    )
    assert _messages(kept, unsupported="drop") == [{"role": "assistant", "content": "Trying."}]


def test_a_message_emptied_by_drops_is_not_sent() -> None:
    video = VideoBlock(url="https://example.com/v.mp4")
    history = [
        SystemMessage(content=[video]),
        UserMessage(content=[video]),
        AssistantMessage(content=[video]),
        UserMessage(content="x"),
        AssistantMessage(tool_calls=[ToolCall(id="c1", name="f", arguments={})]),
        ToolMessage(tool_call_id="c1", content=[video]),  # answers its call: it stays
    ]
    expected = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": ""},
    ]
    assert oc.check(history, unsupported="drop") == []
    for content_format in ("auto", "string", "parts"):
        assert (
            _messages(*history, unsupported="drop", content_format=content_format)[1:]
            == (expected[1:])
        )
    assert _messages(*history, unsupported="drop") == expected
    # placeholders keep every message
    assert len(_messages(*history, unsupported="placeholder")) == len(history)
    # an empty message that no drop made is sent as before
    assert _messages(UserMessage(content=[]), unsupported="drop") == [
        {"role": "user", "content": []}
    ]


def test_arguments_text_reuse() -> None:
    kept = ToolCall(
        id="a", name="f", arguments={"x": 1}, extras={"openai_chat": {"arguments": '{ "x" : 1 }'}}
    )
    stale = ToolCall(
        id="b", name="f", arguments={"x": 2}, extras={"openai_chat": {"arguments": '{"x":1}'}}
    )
    empty = ToolCall(id="c", name="f", arguments={}, extras={"openai_chat": {"arguments": ""}})
    fresh = ToolCall(id="d", name="f", arguments={"city": "Zürich"})
    calls = _messages(AssistantMessage(tool_calls=[kept, stale, empty, fresh]), check=False)[0][
        "tool_calls"
    ]
    assert [call["function"]["arguments"] for call in calls] == [
        '{ "x" : 1 }',
        '{"x": 2}',
        "",
        '{"city": "Zürich"}',
    ]


def test_custom_tool_call_needs_input_string() -> None:
    call = ToolCall(
        id="c", name="run", arguments={"sql": "x"}, extras={"openai_chat": {"type": "custom"}}
    )
    messages = [AssistantMessage(tool_calls=[call]), ToolMessage(tool_call_id="c", content="r")]
    assert [(p.pointer, p.keyword) for p in oc.check(messages)] == [
        ("/messages/0/tool_calls/0/arguments", "custom_tool_input")
    ]
    with pytest.raises(ConversionError) as error:
        oc.encode(messages, check=False)
    assert error.value.message_index == 0


# ============================================================ check

CHECK_CASES: list[tuple[str, list[Any], dict[str, Any], list[tuple[str, str]]]] = [
    (
        "unanswered",
        [
            UserMessage(content="x"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
        ],
        {},
        [("/messages/1/tool_calls/0/id", "unanswered_tool_call")],
    ),
    (
        "user-between-call-and-result",
        [
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            UserMessage(content="wait"),
            ToolMessage(tool_call_id="a", content="r"),
        ],
        {},
        [
            ("/messages/0/tool_calls/0/id", "unanswered_tool_call"),
            ("/messages/2/tool_call_id", "orphan_tool_result"),
        ],
    ),
    (
        "duplicate-and-twice-answered",
        [
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            ToolMessage(tool_call_id="a", content="r"),
            ToolMessage(tool_call_id="a", content="r"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="f", arguments={})]),
            ToolMessage(tool_call_id="a", content="r"),
        ],
        {},
        [
            ("/messages/2/tool_call_id", "orphan_tool_result"),
            ("/messages/3/tool_calls/0/id", "duplicate_tool_call_id"),
        ],
    ),
    (
        "invalid-calls-need-answers",
        [AssistantMessage(invalid_tool_calls=[InvalidToolCall(id="b", name="f", arguments="{")])],
        {},
        [("/messages/0/invalid_tool_calls/0/id", "unanswered_tool_call")],
    ),
    (
        "names",
        [
            UserMessage(content="x", name="Alice Smith"),
            AssistantMessage(tool_calls=[ToolCall(id="a", name="my.tool", arguments={})]),
            ToolMessage(tool_call_id="a", content="r", name="any name is fine here"),
        ],
        {},
        [("/messages/0/name", "pattern"), ("/messages/1/tool_calls/0/name", "pattern")],
    ),
    (
        "native-tools-off-skips-tool-rules",
        [AssistantMessage(tool_calls=[ToolCall(id="a", name="my.tool", arguments={})])],
        {"native_tools": False},
        [],
    ),
]


@pytest.mark.parametrize(
    ("messages", "options", "expected"),
    [case[1:] for case in CHECK_CASES],
    ids=[case[0] for case in CHECK_CASES],
)
def test_check(
    messages: list[Any], options: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    problems = oc.check(messages, **options)
    assert [(p.pointer, p.keyword) for p in problems] == expected
    assert chatschema.check(messages, "openai_chat", **options) == problems
    if expected:
        with pytest.raises(ConversionError) as error:
            oc.encode(messages, **options)
        assert error.value.problems == tuple(problems)
        assert error.value.message_index == int(expected[0][0].split("/")[2])
        assert str(error.value).split(": ", 1)[1].startswith(f"{len(problems)} ")
    else:
        oracle(oc.encode(messages, **options))


def test_check_tool_choice_needs_tools() -> None:
    for choice in (AutoToolChoice(parallel=False), RequiredToolChoice(), NamedToolChoice(name="f")):
        conversation = Conversation(messages=[UserMessage(content="x")], tool_choice=choice)
        assert [(p.pointer, p.keyword) for p in oc.check(conversation)] == [
            ("/tool_choice", "tools_required")
        ]
        assert oc.check(conversation, native_tools=False) == []
    none = Conversation(messages=[UserMessage(content="x")], tool_choice=NoneToolChoice())
    assert oc.check(none) == []


def test_check_tool_names() -> None:
    conversation = Conversation(
        messages=[UserMessage(content="x")],
        tools=[
            ToolDefinition(name="ok_name-1", parameters={}),
            ToolDefinition(name="bad name", parameters={}),
            ToolDefinition(name="x" * 65, parameters={}),
        ],
    )
    assert [(p.pointer, p.keyword) for p in oc.check(conversation)] == [
        ("/tools/1/name", "pattern"),
        ("/tools/2/name", "pattern"),
    ]
    with pytest.raises(ConversionError) as error:
        oc.encode(conversation)
    assert error.value.message_index is None and len(error.value.problems) == 2
    assert oc.check(conversation, native_tools=False) == []


# ============================================================ decode_response


def _completion(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    response: dict[str, Any] = {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion",
        "created": 1741570283,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": 1117,
            "completion_tokens": 46,
            "total_tokens": 1163,
            "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_fc9f1d7035",
    }
    response.update(extra)
    return response


RESPONSE_CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    (
        "text",
        _completion(
            {"role": "assistant", "content": "Hello there.", "refusal": None, "annotations": []}
        ),
        {"role": "assistant", "content": "Hello there."},
        {
            "role": "assistant",
            "content": "Hello there.",
            "provider": "openai_chat",
            "model": "gpt-4o-2024-08-06",
            "response_id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
            "finish_reason": "stop",
            "raw_finish_reason": "stop",
            "usage": {
                "input_tokens": 1117,
                "output_tokens": 46,
                "total_tokens": 1163,
                "input_token_details": {"cache_read": 1024, "audio": 0},
                "output_token_details": {
                    "reasoning": 0,
                    "audio": 0,
                    "accepted_prediction": 0,
                    "rejected_prediction": 0,
                },
            },
            "response_metadata": {
                "openai_chat": {
                    "created": 1741570283,
                    "service_tier": "default",
                    "system_fingerprint": "fp_fc9f1d7035",
                }
            },
        },
    ),
    (
        "tool-calls",
        _completion(
            {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [
                    {
                        "id": "call_Dn2RJJSxzDm49vlVTehseJ0k",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    }
                ],
            },
            choices=[
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_Dn2RJJSxzDm49vlVTehseJ0k",
                                "type": "function",
                                "function": {
                                    "name": "get_weather",
                                    "arguments": '{"city":"Paris"}',
                                },
                            }
                        ],
                    },
                    "logprobs": None,
                    "finish_reason": "tool_calls",
                }
            ],
        ),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_Dn2RJJSxzDm49vlVTehseJ0k",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"finish_reason": "tool_calls", "raw_finish_reason": "tool_calls"},
    ),
    (
        "refusal",
        _completion(
            {"role": "assistant", "content": None, "refusal": "I'm sorry, I can't help with that."}
        ),
        {"role": "assistant", "content": None, "refusal": "I'm sorry, I can't help with that."},
        {
            "content": [
                {
                    "type": "refusal",
                    "text": "I'm sorry, I can't help with that.",
                    "extras": {"openai_chat": {"as_field": True}},
                }
            ]
        },
    ),
    (
        "web-search-citations",
        _completion(
            {
                "role": "assistant",
                "content": "Paris is sunny today [1].",
                "annotations": [
                    {
                        "type": "url_citation",
                        "url_citation": {
                            "start_index": 20,
                            "end_index": 23,
                            "title": "Weather in Paris",
                            "url": "https://weather.example.com/paris",
                        },
                    }
                ],
            }
        ),
        {"role": "assistant", "content": "Paris is sunny today [1]."},
        {
            "content": [
                {
                    "type": "text",
                    "text": "Paris is sunny today [1].",
                    "annotations": [
                        {
                            "type": "citation",
                            "url": "https://weather.example.com/paris",
                            "title": "Weather in Paris",
                            "start_index": 20,
                            "end_index": 23,
                        }
                    ],
                }
            ],
            "extras": {"openai_chat": {"content_shape": "string"}},
        },
    ),
    (
        "audio-and-logprobs",
        _completion(
            {
                "role": "assistant",
                "content": None,
                "audio": {
                    "id": "audio_6767",
                    "data": WAV,
                    "expires_at": 1741573883,
                    "transcript": "Hello!",
                },
            },
            choices=[
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "audio": {
                            "id": "audio_6767",
                            "data": WAV,
                            "expires_at": 1741573883,
                            "transcript": "Hello!",
                        },
                    },
                    "logprobs": {
                        "content": [
                            {
                                "token": "Hello",
                                "logprob": -0.31,
                                "bytes": [72, 101, 108, 108, 111],
                                "top_logprobs": [],
                            }
                        ],
                        "refusal": None,
                    },
                    "finish_reason": "stop",
                }
            ],
        ),
        {"role": "assistant", "content": None, "audio": {"id": "audio_6767"}},
        {
            "extras": {"openai_chat": {"audio": {"id": "audio_6767"}}},
        },
    ),
    (
        "vllm-reasoning",
        {
            "id": "chatcmpl-vllm-1",
            "object": "chat.completion",
            "created": 1741570000,
            "model": "deepseek-ai/DeepSeek-R1",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "42",
                        "reasoning_content": "6 times 7.",
                        "tool_calls": [],
                    },
                    "logprobs": None,
                    "finish_reason": "length",
                    "stop_reason": None,
                }
            ],
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 20,
                "total_tokens": 30,
                "prompt_tokens_details": None,
                "prompt_cache_hit_tokens": 8,
                "prompt_cache_miss_tokens": 2,
            },
        },
        {"role": "assistant", "content": "42"},
        {
            "content": [
                {"type": "reasoning", "text": "6 times 7.", "provider": "openai_chat"},
                {"type": "text", "text": "42"},
            ],
            "finish_reason": "length",
            "usage": {
                "input_tokens": 10,
                "output_tokens": 20,
                "total_tokens": 30,
                "input_token_details": {"cache_read": 8},
            },
            "response_metadata": {
                "openai_chat": {
                    "created": 1741570000,
                    "usage": {"prompt_cache_hit_tokens": 8, "prompt_cache_miss_tokens": 2},
                }
            },
        },
    ),
]


@pytest.mark.parametrize(
    ("response", "history", "expected"),
    [case[1:] for case in RESPONSE_CASES],
    ids=[case[0] for case in RESPONSE_CASES],
)
def test_decode_response(
    response: dict[str, Any], history: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = copy.deepcopy(response)
    message = oc.decode_response(response)
    assert response == before
    result = to_dict(message)
    for key, value in expected.items():
        assert result[key] == value, key
    assert message.provider == "openai_chat"
    # the official SDK object decodes the same
    sdk = ChatCompletion.model_validate(response)
    assert to_dict(oc.decode_response(sdk)) == result
    # appended to a history, it encodes to the assistant message the API wants back
    encoded = oc.encode([UserMessage(content="q"), message], check=False)
    assert encoded["messages"][1] == history
    validate_request("openai_chat", encoded)


def test_decode_response_metadata_and_choices() -> None:
    response = _completion({"role": "assistant", "content": "A"})
    response["choices"].append(
        {
            "index": 1,
            "message": {"role": "assistant", "content": "B"},
            "logprobs": None,
            "finish_reason": "stop",
        }
    )
    response["choices"][0]["logprobs"] = {"content": [], "refusal": None}
    message = oc.decode_response(response)
    metadata = message.response_metadata["openai_chat"]  # type: ignore[index]
    assert metadata["choices"] == [response["choices"][1]]
    assert metadata["logprobs"] == {"content": [], "refusal": None}
    audio = oc.decode_response(RESPONSE_CASES[4][1])
    assert audio.response_metadata["openai_chat"]["audio"]["transcript"] == "Hello!"  # type: ignore[index]
    assert audio.response_metadata["openai_chat"]["logprobs"]["content"][0]["token"] == "Hello"  # type: ignore[index]


@pytest.mark.parametrize(
    ("raw", "neutral"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("tool_calls", "tool_calls"),
        ("function_call", "tool_calls"),
        ("content_filter", "content_filter"),
        ("eos", "other"),
    ],
)
def test_finish_reasons(raw: str, neutral: str) -> None:
    response = _completion({"role": "assistant", "content": "x"})
    response["choices"][0]["finish_reason"] = raw
    message = oc.decode_response(response)
    assert (message.finish_reason, message.raw_finish_reason) == (neutral, raw)


def test_decode_response_usage_variants() -> None:
    response = _completion({"role": "assistant", "content": "x"})
    response["usage"] = {
        "prompt_tokens": 100,
        "completion_tokens": 5,
        "prompt_tokens_details": {
            "cached_tokens": 40,
            "cache_write_tokens": 60,
            "image_tokens": 10,
        },
    }
    usage = to_dict(oc.decode_response(response).usage)  # type: ignore[arg-type]
    assert usage == {
        "input_tokens": 100,
        "output_tokens": 5,
        "total_tokens": 105,
        "input_token_details": {"cache_read": 40, "cache_creation": 60, "image": 10},
    }
    del response["usage"]
    assert oc.decode_response(response).usage is None


def test_decode_accepts_sdk_message_objects_and_json_text() -> None:
    # a response message appended to a history, as the API returns it
    sdk_message = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "refusal": None,
            "annotations": [],
            "audio": {"id": "audio_1", "data": WAV, "expires_at": 1, "transcript": "hi"},
            "function_call": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
            ],
        }
    )
    messages = oc.decode_messages([{"role": "user", "content": "q"}, sdk_message])
    assert oc.encode(messages, check=False)["messages"][1] == {
        "role": "assistant",
        "content": None,
        "audio": {"id": "audio_1"},
        "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
        ],
    }
    assert messages[1].response_metadata == {  # type: ignore[union-attr]
        "openai_chat": {
            "audio": {"id": "audio_1", "data": WAV, "expires_at": 1, "transcript": "hi"}
        }
    }
    text = json.dumps({"messages": [{"role": "user", "content": "q"}]})
    assert oc.decode_messages(text) == oc.decode_messages([{"role": "user", "content": "q"}])
    assert oc.decode_messages({"role": "user", "content": "q"}) == oc.decode_messages(
        [{"role": "user", "content": "q"}]
    )
    # a full request body: other parameters are not conversation data
    body = {"model": "gpt-4o", "temperature": 0, "messages": [{"role": "user", "content": "q"}]}
    assert to_dict(oc.decode_conversation(body)) == {"messages": [{"role": "user", "content": "q"}]}


# ============================================================ errors

BAD_PAYLOADS: list[tuple[str, Any, int | None, int | None]] = [
    ("not-a-list", {"messages": "hi"}, None, None),
    ("number", 3, None, None),
    ("not-json", "{oops", None, None),
    ("message-not-object", [1], 0, None),
    ("unknown-role", [{"role": "narrator", "content": "x"}], 0, None),
    (
        "function-role",
        [{"role": "user", "content": "x"}, {"role": "function", "name": "f", "content": "r"}],
        1,
        None,
    ),
    ("no-content", [{"role": "user"}], 0, None),
    ("content-number", [{"role": "user", "content": 5}], 0, None),
    ("assistant-content-object", [{"role": "assistant", "content": {"text": "x"}}], 0, None),
    ("part-not-object", [{"role": "user", "content": ["hi"]}], 0, 0),
    ("text-part-without-text", [{"role": "user", "content": [{"type": "text"}]}], 0, 0),
    (
        "image-without-url",
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {}}],
            }
        ],
        0,
        1,
    ),
    (
        "image-url-string",
        [{"role": "user", "content": [{"type": "image_url", "image_url": "https://e.com/a.png"}]}],
        0,
        0,
    ),
    (
        "image-url-with-space",
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "not a url"}}]}],
        0,
        0,
    ),
    (
        "audio-without-format",
        [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "x"}}]}],
        0,
        0,
    ),
    ("tool-without-id", [{"role": "tool", "content": "x"}], 0, None),
    ("tool-empty-id", [{"role": "tool", "tool_call_id": "", "content": "x"}], 0, None),
    (
        "call-without-id",
        [
            {
                "role": "assistant",
                "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}],
            }
        ],
        0,
        None,
    ),
    (
        "call-unknown-type",
        [{"role": "assistant", "tool_calls": [{"id": "a", "type": "mcp"}]}],
        0,
        None,
    ),
    (
        "call-object-arguments",
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "f", "arguments": {}}}
                ],
            }
        ],
        0,
        None,
    ),
    ("call-not-object", [{"role": "assistant", "tool_calls": ["call"]}], 0, None),
    ("tools-not-list", {"messages": [], "tools": {"a": 1}}, None, None),
    ("tool-unknown-type", {"messages": [], "tools": [{"type": "web_search"}]}, None, None),
    (
        "tool-without-name",
        {"messages": [], "tools": [{"type": "function", "function": {}}]},
        None,
        None,
    ),
    (
        "allowed-tools",
        {
            "messages": [],
            "tool_choice": {
                "type": "allowed_tools",
                "allowed_tools": {"mode": "auto", "tools": []},
            },
        },
        None,
        None,
    ),
    (
        "parallel-with-none",
        {"messages": [], "tool_choice": "none", "parallel_tool_calls": False},
        None,
        None,
    ),
    ("parallel-not-bool", {"messages": [], "parallel_tool_calls": "yes"}, None, None),
    ("tool-choice-unknown", {"messages": [], "tool_choice": "any"}, None, None),
    ("response-given", {"choices": []}, None, None),
]


@pytest.mark.parametrize(
    ("payload", "message_index", "block_index"),
    [case[1:] for case in BAD_PAYLOADS],
    ids=[case[0] for case in BAD_PAYLOADS],
)
def test_bad_payloads_raise_conversion_errors(
    payload: Any, message_index: int | None, block_index: int | None
) -> None:
    with pytest.raises(ConversionError) as error:
        oc.decode_conversation(payload)
    if error.value.provider != "input":  # as_json names unparseable text "input"
        assert error.value.provider == "openai_chat"
        assert (error.value.message_index, error.value.block_index) == (message_index, block_index)


BAD_RESPONSES: list[tuple[str, Any]] = [
    ("list", []),
    ("no-choices", {"id": "x", "choices": []}),
    ("choice-not-object", {"choices": [None]}),
    ("no-message", {"choices": [{"index": 0, "finish_reason": "stop"}]}),
    ("user-message", {"choices": [{"message": {"role": "user", "content": "x"}}]}),
    (
        "finish-number",
        {"choices": [{"message": {"role": "assistant", "content": "x"}, "finish_reason": 1}]},
    ),
    ("usage-string", {"choices": [{"message": {"role": "assistant"}}], "usage": "lots"}),
    (
        "usage-negative",
        {
            "choices": [{"message": {"role": "assistant"}}],
            "usage": {"prompt_tokens": -1, "completion_tokens": 1},
        },
    ),
    (
        "usage-missing-prompt",
        {"choices": [{"message": {"role": "assistant"}}], "usage": {"completion_tokens": 1}},
    ),
    (
        "usage-detail-string",
        {
            "choices": [{"message": {"role": "assistant"}}],
            "usage": {
                "prompt_tokens": 1,
                "completion_tokens": 1,
                "prompt_tokens_details": {"cached_tokens": "1"},
            },
        },
    ),
    (
        "bad-tool-call",
        {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "tool_calls": [{"id": "a", "type": "function", "function": None}],
                    }
                }
            ]
        },
    ),
]


@pytest.mark.parametrize(
    "response", [case[1] for case in BAD_RESPONSES], ids=[case[0] for case in BAD_RESPONSES]
)
def test_bad_responses_raise_conversion_errors(response: Any) -> None:
    with pytest.raises(ConversionError) as error:
        oc.decode_response(response)
    assert error.value.provider == "openai_chat"


def test_encode_input_and_option_errors() -> None:
    with pytest.raises(ValidationError):
        oc.encode([{"role": "user"}])
    with pytest.raises(OptionError):
        oc.encode([UserMessage(content="x")], content_format="xml")  # type: ignore[typeddict-item]
    with pytest.raises(OptionError):
        oc.encode([UserMessage(content="x")], temperature=1)  # type: ignore[call-arg]
    with pytest.raises(OptionError):
        oc.check([UserMessage(content="x")], vision="no")  # type: ignore[typeddict-item]


def test_outputs_do_not_share_state_with_inputs() -> None:
    payload = copy.deepcopy(WIRE_CASES[-4][1])  # unknown keys, nested extras
    conversation = oc.decode_conversation(payload)
    encoded = oc.encode(conversation, check=False)
    encoded["messages"][0]["x_trace"]["span"] = 8
    encoded["messages"][4]["content"][2]["video_url"]["url"] = "changed"
    assert payload["messages"][0]["x_trace"] == {"span": 7}
    assert conversation.messages[0].extras == {"openai_chat": {"x_trace": {"span": 7}}}
    assert oc.encode(conversation, check=False) == payload


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            found += _paths(item, (*prefix, position))
    return found


def _replaced(payload: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    result = copy.deepcopy(payload)
    target = result
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return result


ODD_VALUES: list[Any] = [None, 7, -1, True, "", "s", [], {}, [None], {"type": "x"}]


@pytest.mark.parametrize(
    "document",
    [case[1] for case in WIRE_CASES] + [case[1] for case in RESPONSE_CASES],
    ids=[f"wire-{case[0]}" for case in WIRE_CASES]
    + [f"response-{case[0]}" for case in RESPONSE_CASES],
)
def test_odd_values_anywhere_raise_only_chatschema_errors(document: dict[str, Any]) -> None:
    """Every value of every payload replaced by odd JSON: no KeyError, TypeError ... escapes."""
    response = "choices" in document
    for path in _paths(document):
        for value in ODD_VALUES:
            mutated = _replaced(document, path, value)
            try:
                if response:
                    message = oc.decode_response(mutated)
                    oc.encode([message], check=False, unsupported="drop")
                else:
                    conversation = oc.decode_conversation(mutated)
                    oc.check(conversation)
                    oc.encode(conversation, check=False, unsupported="drop", reasoning_content=True)
            except chatschema.ChatSchemaError:
                pass


def test_named_tool_choice_carries_parallel() -> None:
    payload = {
        "messages": [{"role": "user", "content": "x"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        "tool_choice": {"type": "function", "function": {"name": "f"}},
        "parallel_tool_calls": False,
    }
    conversation = oc.decode_conversation(payload)
    assert chatschema.to_dict(conversation)["tool_choice"] == {
        "type": "tool",
        "name": "f",
        "parallel": False,
    }
    assert oc.encode(conversation) == payload
