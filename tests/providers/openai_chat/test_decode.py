"""The OpenAI Chat Completions codec: histories (wire payloads decoded and encoded back
exactly), decoding errors, and odd values anywhere.

Every encoder output goes through the official SDK request types (``oracle``);
where a payload carries keys those types do not have, the oracle is run on the
payload without those keys only, and the case says which.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from openai.types.chat import ChatCompletionMessage

import chatschema
from chatschema import (
    AssistantMessage,
    AudioBlock,
    AutoToolChoice,
    CacheControl,
    ConversionError,
    NamedToolChoice,
    NonStandardBlock,
    RequiredToolChoice,
    SystemMessage,
    ToolMessage,
    to_dict,
)
from chatschema.providers import openai_chat as oc
from providers.openai_chat.helpers import PDF, PNG, WAV, WEATHER_TOOL, oracle
from providers.openai_chat.test_response import RESPONSE_CASES

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
                "extras": {"openai_chat": {"sent": True}},  # a request carried it
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


def test_reasoning_content_of_a_request_goes_back_and_other_reasoning_only_with_the_option() -> (
    None
):
    payload = dict(
        WIRE_CASES[[case[0] for case in WIRE_CASES].index("deepseek-reasoning-content")][1]
    )
    conversation = oc.decode_conversation(payload)
    # the request carried it (and was accepted): the same request comes back
    assert oc.encode(conversation) == payload
    # reasoning without that mark (a reply's, or built in code) needs the option
    unmarked = to_dict(conversation)
    for message in unmarked["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else ():
            block.pop("extras", None)
    plain = oc.encode(unmarked)
    assert plain["messages"][1] == {"role": "assistant", "content": "9.9 is larger."}
    assert (
        plain["messages"][3]["content"] is None and "reasoning_content" not in plain["messages"][3]
    )
    oracle(plain)
    dropped = oc.encode(conversation, reasoning_content=True, reasoning="drop")
    assert dropped == plain


def test_explicit_auto_with_parallel_flag_round_trips() -> None:
    """The neutral choice cannot tell `"auto"` + flag from the flag alone; the
    request's extras remember it (``explicit_auto``), so the request comes back."""
    payload = {
        "messages": [{"role": "user", "content": "x"}],
        "tools": [WEATHER_TOOL],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
    }
    conversation = oc.decode_conversation(payload)
    assert conversation.extras == {"openai_chat": {"explicit_auto": True}}
    encoded = oc.encode(conversation)
    assert encoded == payload
    oracle(encoded)
    # without the marker (a choice built in code), the flag alone says it
    assert oc.encode(conversation.model_copy(update={"extras": None})) == {
        "messages": [{"role": "user", "content": "x"}],
        "tools": [WEATHER_TOOL],
        "parallel_tool_calls": True,
    }


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
    # the audio output is a block: its id, its data (a wav by its bytes), the rest in extras
    assert messages[1].content == [
        AudioBlock(
            id="audio_1",
            base64=WAV,
            mime_type="audio/wav",
            extras={"openai_chat": {"as_field": True, "expires_at": 1, "transcript": "hi"}},
        )
    ]
    assert messages[1].response_metadata is None  # type: ignore[union-attr]
    text = json.dumps({"messages": [{"role": "user", "content": "q"}]})
    assert oc.decode_messages(text) == oc.decode_messages([{"role": "user", "content": "q"}])
    assert oc.decode_messages({"role": "user", "content": "q"}) == oc.decode_messages(
        [{"role": "user", "content": "q"}]
    )
    # a full request body: its settings are the conversation's
    body = {"model": "gpt-4o", "temperature": 0, "messages": [{"role": "user", "content": "q"}]}
    assert to_dict(oc.decode_conversation(body)) == {
        "messages": [{"role": "user", "content": "q"}],
        "settings": {"model": "gpt-4o", "temperature": 0.0},
    }


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
        "audio-without-format",
        [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "x"}}]}],
        0,
        0,
    ),
    ("tool-without-id", [{"role": "tool", "content": "x"}], 0, None),
    ("tool-empty-id", [{"role": "tool", "tool_call_id": "", "content": "x"}], 0, None),
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
    ("tool-type-not-a-string", {"messages": [], "tools": [{"type": 3}]}, None, None),
    (
        "tool-without-name",
        {"messages": [], "tools": [{"type": "function", "function": {}}]},
        None,
        None,
    ),
    (
        "allowed-tools-unknown-mode",
        {
            "messages": [],
            "tool_choice": {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "any",
                    "tools": [{"type": "function", "function": {"name": "f"}}],
                },
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
    ("tool-choice-unknown", {"messages": [], "tool_choice": 5}, None, None),
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
