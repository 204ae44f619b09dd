"""The Gemini codec: encode and check (neutral -> wire -> neutral, options, checks)."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from oracle import validate_request

import chatschema
from chatschema import (
    ConversionError,
    UnsupportedContentError,
    ValidationError,
    to_dict,
)
from chatschema.errors import OptionError
from chatschema.providers import gemini
from providers.gemini.helpers import (
    PDF,
    PNG,
    SIG_A,
    SIG_B,
    SIG_C,
    WAV,
    WEATHER_SCHEMA,
    fc,
    fr,
    model,
    user,
)

# ============================================================ neutral -> wire -> neutral

NEUTRAL: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "openai_style_tool_use": (
        {
            "messages": [
                {"role": "system", "content": "Be helpful."},
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": "Let me check.",
                    "tool_calls": [
                        {"id": "call_abc", "name": "get_weather", "arguments": {"city": "Paris"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "call_abc", "content": "18C"},
                {"role": "assistant", "content": "It is 18C."},
            ],
            "tools": [
                {"name": "get_weather", "description": "Weather.", "parameters": WEATHER_SCHEMA}
            ],
            "tool_choice": {"type": "auto"},
        },
        {
            "system_instruction": {"parts": [{"text": "Be helpful."}]},
            "contents": [
                user({"text": "Weather in Paris?"}),
                model(
                    {"text": "Let me check."}, fc("get_weather", {"city": "Paris"}, id="call_abc")
                ),
                user(fr("get_weather", {"output": "18C"}, id="call_abc")),
                model({"text": "It is 18C."}),
            ],
            "tools": [
                {
                    "function_declarations": [
                        {
                            "name": "get_weather",
                            "description": "Weather.",
                            "parameters_json_schema": WEATHER_SCHEMA,
                        }
                    ]
                }
            ],
            "tool_config": {"function_calling_config": {"mode": "AUTO"}},
        },
    ),
    "anthropic_style_interleaved_and_error_results": (
        {
            "messages": [
                {"role": "user", "content": "Do two things"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Running a."},
                        {"type": "text", "text": "Then b."},
                    ],
                    "tool_calls": [
                        {"id": "toolu_1", "name": "a", "arguments": {}, "index": 1},
                        {"id": "toolu_2", "name": "b", "arguments": {"x": [1, 2]}, "index": 3},
                    ],
                },
                {"role": "tool", "tool_call_id": "toolu_1", "content": "ok"},
                {"role": "tool", "tool_call_id": "toolu_2", "content": "boom", "status": "error"},
            ],
            "tool_choice": {"type": "tool", "name": "a"},
        },
        {
            "contents": [
                user({"text": "Do two things"}),
                model(
                    {"text": "Running a."},
                    fc("a", {}, id="toolu_1"),
                    {"text": "Then b."},
                    fc("b", {"x": [1, 2]}, id="toolu_2"),
                ),
                user(
                    fr("a", {"output": "ok"}, id="toolu_1"),
                    fr("b", {"error": "boom"}, id="toolu_2"),
                ),
            ],
            "tool_config": {
                "function_calling_config": {"mode": "ANY", "allowed_function_names": ["a"]}
            },
        },
    ),
    "media_sources": (
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image", "base64": PNG, "mime_type": "image/png"},
                        {"type": "image", "url": "https://example.com/a.png"},
                        {"type": "image", "url": "gs://bucket/b.webp", "mime_type": "image/webp"},
                        {"type": "file", "file_id": "files/doc-1", "mime_type": "application/pdf"},
                        {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
                        {"type": "video", "url": "https://youtu.be/abc"},
                        {"type": "text-plain", "text": "notes: é ✓"},
                        {"type": "text-plain", "url": "https://example.com/notes.txt"},
                        {
                            "type": "file",
                            "url": "https://example.com/report",
                            "mime_type": "text/csv",
                        },
                    ],
                }
            ]
        },
        {
            "contents": [
                user(
                    {"inline_data": {"mime_type": "image/png", "data": PNG}},
                    {"file_data": {"file_uri": "https://example.com/a.png"}},
                    {"file_data": {"file_uri": "gs://bucket/b.webp", "mime_type": "image/webp"}},
                    {
                        "file_data": {
                            "file_uri": "https://generativelanguage.googleapis.com/v1beta/files/doc-1",
                            "mime_type": "application/pdf",
                        }
                    },
                    {"inline_data": {"mime_type": "audio/wav", "data": WAV}},
                    {"file_data": {"file_uri": "https://youtu.be/abc"}},
                    {
                        "inline_data": {
                            "mime_type": "text/plain",
                            "data": base64.b64encode("notes: é ✓".encode()).decode(),
                        }
                    },
                    {"file_data": {"file_uri": "https://example.com/notes.txt"}},
                    {
                        "file_data": {
                            "file_uri": "https://example.com/report",
                            "mime_type": "text/csv",
                        }
                    },
                )
            ]
        },
    ),
    "gemini_reasoning_and_signatures": (
        {
            "messages": [
                {"role": "user", "content": "Think"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "reasoning", "text": "Hmm.", "provider": "gemini"},
                        {"type": "reasoning", "text": "", "signature": SIG_A, "provider": "gemini"},
                        {
                            "type": "text",
                            "text": "Done.",
                            "extras": {"gemini": {"thought_signature": SIG_B}},
                        },
                    ],
                },
            ]
        },
        {
            "contents": [
                user({"text": "Think"}),
                model(
                    {"text": "Hmm.", "thought": True},
                    {"text": "", "thought": True, "thought_signature": SIG_A},
                    {"text": "Done.", "thought_signature": SIG_B},
                ),
            ]
        },
    ),
    "code_execution_blocks": (
        {
            "messages": [
                {"role": "user", "content": "Run"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "server_tool_call",
                            "id": "exec_1",
                            "name": "code_execution",
                            "arguments": {"language": "PYTHON", "code": "print(2)"},
                        },
                        {
                            "type": "server_tool_result",
                            "tool_call_id": "exec_1",
                            "status": "success",
                            "output": {"outcome": "OUTCOME_OK", "output": "2\n"},
                        },
                    ],
                },
            ]
        },
        {
            "contents": [
                user({"text": "Run"}),
                model(
                    {"executable_code": {"language": "PYTHON", "code": "print(2)", "id": "exec_1"}},
                    {
                        "code_execution_result": {
                            "outcome": "OUTCOME_OK",
                            "output": "2\n",
                            "id": "exec_1",
                        }
                    },
                ),
            ]
        },
    ),
    "tool_result_with_image_and_json_output": (
        {
            "messages": [
                {"role": "user", "content": "Snap"},
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c1", "name": "snap", "arguments": {}}],
                },
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "content": [
                        {"type": "text", "text": '{"w": 1}'},
                        {"type": "image", "base64": PNG, "mime_type": "image/png"},
                    ],
                },
                {"role": "user", "content": "Thanks"},
            ]
        },
        {
            "contents": [
                user({"text": "Snap"}),
                model(fc("snap", {}, id="c1")),
                user(
                    {
                        "function_response": {
                            "name": "snap",
                            "id": "c1",
                            "response": {"output": '{"w": 1}'},
                            "parts": [{"inline_data": {"mime_type": "image/png", "data": PNG}}],
                        }
                    }
                ),
                user({"text": "Thanks"}),
            ]
        },
    ),
    "non_standard_gemini_part": (
        {
            "messages": [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "non_standard",
                            "value": {
                                "tool_call": {"id": "t", "tool_type": "URL_CONTEXT", "args": {}}
                            },
                        }
                    ],
                },
            ]
        },
        {
            "contents": [
                user({"text": "q"}),
                model({"tool_call": {"id": "t", "tool_type": "URL_CONTEXT", "args": {}}}),
            ]
        },
    ),
    "named_tool_result_and_empty_system": (
        {
            "messages": [
                {"role": "system", "content": ""},
                {"role": "user", "content": "go"},
                {"role": "assistant", "tool_calls": [{"id": "k", "name": "real", "arguments": {}}]},
                {"role": "tool", "tool_call_id": "k", "content": "x", "name": "alias"},
            ],
            "tool_choice": {"type": "none"},
        },
        {
            "system_instruction": {"parts": []},
            "contents": [
                user({"text": "go"}),
                model(fc("real", {}, id="k")),
                user(fr("alias", {"output": "x"}, id="k")),
            ],
            "tool_config": {"function_calling_config": {"mode": "NONE"}},
        },
    ),
}


@pytest.mark.parametrize("name", list(NEUTRAL))
def test_neutral_conversation_round_trips(name: str) -> None:
    neutral, wire = NEUTRAL[name]
    conversation = chatschema.parse_conversation(neutral)
    encoded = gemini.encode(conversation)
    validate_request("gemini", encoded)
    assert encoded == wire
    assert gemini.check(conversation) == []
    assert to_dict(gemini.decode_conversation(encoded)) == neutral
    assert gemini.encode(gemini.decode_conversation(encoded)) == wire


def test_encode_accepts_message_lists_and_dicts() -> None:
    messages = [chatschema.user("hi"), {"role": "assistant", "content": "hello"}]
    assert gemini.encode(messages) == {"contents": [user({"text": "hi"}), model({"text": "hello"})]}
    assert gemini.encode({"messages": [{"role": "user", "content": "x"}]}) == {
        "contents": [user({"text": "x"})]
    }
    with pytest.raises(ValidationError):
        gemini.encode([{"role": "wizard", "content": "x"}])


# ================================================================ documented lossy spots

LOSSY: dict[str, tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]] = {
    # name: (messages, options, expected contents/system)
    "several_leading_system_messages_merge": (
        [
            {"role": "system", "content": "A"},
            {"role": "system", "content": [{"type": "text", "text": "B"}]},
            {"role": "user", "content": "q"},
        ],
        {},
        {
            "system_instruction": {"parts": [{"text": "A"}, {"text": "B"}]},
            "contents": [user({"text": "q"})],
        },
    ),
    "later_system_message_becomes_user_turn": (
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a"},
            {"role": "system", "content": "Now answer in French."},
            {"role": "user", "content": "q2"},
        ],
        {},
        {
            "contents": [
                user({"text": "q"}),
                model({"text": "a"}),
                user({"text": "Now answer in French."}),
                user({"text": "q2"}),
            ]
        },
    ),
    "foreign_reasoning_is_left_out_by_default": (
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "t", "signature": "s", "provider": "anthropic"},
                    {"type": "reasoning", "encrypted_content": "e", "provider": "openai_responses"},
                    {"type": "text", "text": "a"},
                ],
            },
        ],
        {},
        {"contents": [user({"text": "q"}), model({"text": "a"})]},
    ),
    "reasoning_text_renders_foreign_reasoning": (
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "t", "signature": "s", "provider": "anthropic"},
                    {"type": "reasoning", "summary": ["s1", "s2"], "provider": "openai_responses"},
                    {"type": "reasoning", "text": "mine", "signature": SIG_A, "provider": "gemini"},
                    {"type": "text", "text": "a"},
                ],
            },
        ],
        {"reasoning": "text"},
        {
            "contents": [
                user({"text": "q"}),
                model(
                    {"text": "t"},
                    {"text": "s1\ns2"},
                    {"text": "mine", "thought": True, "thought_signature": SIG_A},
                    {"text": "a"},
                ),
            ]
        },
    ),
    "reasoning_drop_strips_thoughts_and_signatures": (
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "mine", "signature": SIG_A, "provider": "gemini"},
                    {
                        "type": "image",
                        "base64": PNG,
                        "mime_type": "image/png",
                        "extras": {"gemini": {"thought": True}},
                    },
                    {
                        "type": "text",
                        "text": "a",
                        "extras": {"gemini": {"thought_signature": SIG_B}},
                    },
                    {
                        "type": "non_standard",
                        "value": {"tool_call": {"id": "t"}, "thought_signature": SIG_C},
                    },
                ],
                "tool_calls": [
                    {
                        "id": "c",
                        "name": "f",
                        "arguments": {},
                        "extras": {"gemini": {"thought_signature": SIG_C}},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c", "content": "r"},
        ],
        {"reasoning": "drop"},
        {
            "contents": [
                user({"text": "q"}),
                model({"text": "a"}, {"tool_call": {"id": "t"}}, fc("f", {}, id="c")),
                user(fr("f", {"output": "r"}, id="c")),
            ]
        },
    ),
    "refusal_data_url_cache_control_detail_filename_name_are_plain": (
        [
            {
                "role": "user",
                "name": "alice",
                "content": [
                    {"type": "text", "text": "look", "cache_control": {"type": "ephemeral"}},
                    {"type": "image", "url": f"data:image/png;base64,{PNG}", "detail": "high"},
                    {
                        "type": "file",
                        "base64": PDF,
                        "mime_type": "application/pdf",
                        "filename": "r.pdf",
                    },
                ],
            },
            {"role": "assistant", "content": [{"type": "refusal", "text": "I can't."}]},
        ],
        {},
        {
            "contents": [
                user(
                    {"text": "look"},
                    {"inline_data": {"mime_type": "image/png", "data": PNG}},
                    {"inline_data": {"mime_type": "application/pdf", "data": PDF}},
                ),
                model({"text": "I can't."}),
            ]
        },
    ),
    "options_without_meaning_for_gemini_change_nothing": (
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}],
            }
        ],
        {
            "prompt_cache": False,
            "system_role": "developer",
            "reasoning_content": True,
            "content_format": "parts",
        },
        {"contents": [user({"text": "x"})]},
    ),
}


@pytest.mark.parametrize("name", list(LOSSY))
def test_documented_conversions(name: str) -> None:
    messages, options, expected = LOSSY[name]
    before = copy.deepcopy(messages)
    encoded = gemini.encode(messages, **options)
    assert messages == before
    validate_request("gemini", encoded)
    assert encoded == expected


# ============================================================================= options


def test_content_format_string_joins_text_parts() -> None:
    messages = [
        {
            "role": "system",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "q1"}, {"type": "text", "text": "q2"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "t", "signature": SIG_A, "provider": "gemini"},
                {"type": "text", "text": "x", "extras": {"gemini": {"thought_signature": SIG_B}}},
                {"type": "refusal", "text": "y"},
            ],
            "tool_calls": [{"id": "c", "name": "f", "arguments": {}, "index": 0}],
        },
        {
            "role": "tool",
            "tool_call_id": "c",
            "content": [{"type": "text", "text": "r1"}, {"type": "text", "text": "r2"}],
        },
    ]
    encoded = gemini.encode(messages, content_format="string")
    validate_request("gemini", encoded)
    assert encoded == {
        "system_instruction": {"parts": [{"text": "a\nb"}]},
        "contents": [
            user({"text": "q1\nq2"}),
            model(
                {"text": "t", "thought": True, "thought_signature": SIG_A},
                {"text": "x\ny"},
                fc("f", {}, id="c"),
            ),
            user(fr("f", {"output": "r1\nr2"}, id="c")),
        ],
    }
    image = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "url": "https://x.io/a.png"},
            ],
        }
    ]
    with pytest.raises(UnsupportedContentError) as caught:
        gemini.encode(image, content_format="string", check=False)
    assert (caught.value.message_index, caught.value.block_index) == (0, 1)
    assert gemini.encode(image, content_format="string", unsupported="placeholder") == {
        "contents": [
            user(
                {
                    "text": "a\n[image content with content_format='string' omitted: "
                    "not supported by gemini]"
                }
            )
        ]
    }


VISION_OFF = [
    {"role": "user", "content": "first"},
    {"role": "assistant", "content": "ok"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "see"},
            {"type": "image", "base64": PNG, "mime_type": "image/png"},
        ],
    },
]


def test_vision_off_error_with_check_lists_the_problem() -> None:
    with pytest.raises(ConversionError) as caught:
        gemini.encode(VISION_OFF, vision=False)
    assert caught.value.message_index == 2
    assert [(p.pointer, p.keyword) for p in caught.value.problems] == [
        ("/messages/2/content/1", "unsupported_content")
    ]
    assert gemini.check(VISION_OFF, vision=False) == list(caught.value.problems)
    assert gemini.check(VISION_OFF) == []


def test_vision_off_error_without_check_names_message_and_block() -> None:
    with pytest.raises(UnsupportedContentError) as caught:
        gemini.encode(VISION_OFF, vision=False, check=False)
    assert (caught.value.provider, caught.value.message_index, caught.value.block_index) == (
        "gemini",
        2,
        1,
    )


def test_vision_off_drop_and_placeholder() -> None:
    dropped = gemini.encode(VISION_OFF, vision=False, unsupported="drop")
    assert dropped["contents"][2] == user({"text": "see"})
    placeholder = gemini.encode(VISION_OFF, vision=False, unsupported="placeholder")
    assert placeholder["contents"][2] == user(
        {"text": "see"}, {"text": "[image (vision is off) omitted: not supported by gemini]"}
    )
    assert gemini.check(VISION_OFF, vision=False, unsupported="drop") == []
    # images in tool results follow the same rule
    tool_image = [
        {"role": "user", "content": "snap"},
        {"role": "assistant", "tool_calls": [{"id": "c", "name": "snap", "arguments": {}}]},
        {
            "role": "tool",
            "tool_call_id": "c",
            "content": [{"type": "image", "base64": PNG, "mime_type": "image/png"}],
        },
    ]
    assert gemini.encode(tool_image, vision=False, unsupported="drop")["contents"][2] == user(
        fr("snap", {"output": ""}, id="c")
    )


def test_native_tools_off_renders_tools_as_text() -> None:
    neutral, _ = NEUTRAL["openai_style_tool_use"]
    encoded = gemini.encode(neutral, native_tools=False)
    validate_request("gemini", encoded)
    assert set(encoded) == {"system_instruction", "contents"}
    tools_text = encoded["system_instruction"]["parts"][1]["text"]
    assert tools_text.startswith("You can call these tools.")
    assert "- get_weather: Weather." in tools_text
    assert encoded["contents"][1] == model(
        {"text": "Let me check."},
        {"text": '<tool_call id="call_abc" name="get_weather">{"city": "Paris"}</tool_call>'},
    )
    assert encoded["contents"][2] == user(
        {"text": '<tool_result id="call_abc" status="success">18C</tool_result>'}
    )
    # no pairing rules apply to text
    orphan = [{"role": "tool", "tool_call_id": "nope", "content": "x"}]
    assert gemini.check(orphan, native_tools=False) == []


def test_unknown_and_bad_options() -> None:
    with pytest.raises(OptionError):
        gemini.encode([{"role": "user", "content": "x"}], colour="blue")  # type: ignore[call-arg]
    with pytest.raises(OptionError):
        gemini.encode([{"role": "user", "content": "x"}], unsupported="ignore")  # type: ignore[arg-type]


# ============================================================================== check


def _problems(messages: Any, **options: Any) -> list[tuple[str, str]]:
    return [(p.pointer, p.keyword) for p in gemini.check(messages, **options)]


CHECKS: dict[str, tuple[Any, list[tuple[str, str]]]] = {
    "unanswered_call": (
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]},
            {"role": "user", "content": "next"},
        ],
        [("/messages/1/tool_calls/0/id", "unanswered_tool_call")],
    ),
    "orphan_result": (
        [{"role": "user", "content": "q"}, {"role": "tool", "tool_call_id": "zz", "content": "x"}],
        [("/messages/1/tool_call_id", "orphan_tool_result")],
    ),
    # model contents in a row are one turn (the API takes them, HTTP 200): the call in
    # the second one follows the function responses before the first, message 4 is fine
    "call_turn_first_and_model_contents_in_a_row": (
        [
            {"role": "system", "content": "s"},
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "c", "content": "x"},
            {"role": "assistant", "content": "a"},
            {"role": "assistant", "tool_calls": [{"id": "d", "name": "f", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "d", "content": "x"},
        ],
        [("/messages/1/tool_calls/0", "turn_order")],
    ),
    "call_turn_after_model_contents_that_come_first": (
        [
            {"role": "assistant", "content": "a"},
            {"role": "assistant", "tool_calls": [{"id": "d", "name": "f", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "d", "content": "x"},
        ],
        [("/messages/1/tool_calls/0", "turn_order")],
    ),
    "empty_contents": (
        [{"role": "user", "content": ""}, {"role": "assistant"}],
        [("/messages/0/content", "empty_content"), ("/messages/1/content", "empty_content")],
    ),
    "no_contents": ([{"role": "system", "content": "only"}], [("/messages", "no_contents")]),
    # a user text (or a late system message, a user text on the wire) between the call
    # and its result is in the turn after the call's (test_read_forms.py); a model
    # content after it begins another turn
    "result_after_a_user_turn_and_a_model_turn": (
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]},
            {"role": "user", "content": "wait"},
            {"role": "assistant", "content": "waiting"},
            {"role": "tool", "tool_call_id": "c", "content": "x"},
        ],
        [
            ("/messages/1/tool_calls/0/id", "unanswered_tool_call"),
            ("/messages/4/tool_call_id", "orphan_tool_result"),
            ("/messages/4/tool_call_id", "not_adjacent"),
        ],
    ),
    "late_system_message_and_a_model_turn_between_call_and_result": (
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]},
            {"role": "system", "content": "be quick"},
            {"role": "assistant", "content": "ok"},
            {"role": "tool", "tool_call_id": "c", "content": "x"},
        ],
        [
            ("/messages/1/tool_calls/0/id", "unanswered_tool_call"),
            ("/messages/4/tool_call_id", "orphan_tool_result"),
            ("/messages/4/tool_call_id", "not_adjacent"),
        ],
    ),
    "foreign_blocks": (
        [
            {
                "role": "user",
                "content": [
                    {"type": "file", "file_id": "file-abc123"},
                    {"type": "non_standard", "value": {"type": "document", "x": 1}},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "server_tool_call",
                        "id": "s",
                        "name": "web_search",
                        "arguments": {"q": "x"},
                    },
                    {"type": "server_tool_result", "tool_call_id": "s", "output": [{"url": "u"}]},
                    {"type": "text", "text": "done"},
                ],
                "invalid_tool_calls": [{"name": "f", "arguments": "{bad"}],
            },
        ],
        [
            ("/messages/0/content/0", "unsupported_content"),
            ("/messages/0/content/1", "unsupported_content"),
            ("/messages/1/content/0", "unsupported_content"),
            ("/messages/1/content/1", "unsupported_content"),
            ("/messages/1/invalid_tool_calls/0", "unsupported_content"),
        ],
    ),
    "system_image": (
        [
            {"role": "system", "content": [{"type": "image", "url": "https://x.io/a.png"}]},
            {"role": "user", "content": "q"},
        ],
        [("/messages/0/content/0", "unsupported_content")],
    ),
    "bad_tool_name": (
        {
            "messages": [{"role": "user", "content": "q"}],
            "tools": [{"name": "9lives", "parameters": {}}, {"name": "ok_name", "parameters": {}}],
        },
        [("/tools/0/name", "pattern")],
    ),
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_check_reports_structural_problems(name: str) -> None:
    messages, expected = CHECKS[name]
    assert _problems(messages) == expected
    with pytest.raises(ConversionError) as caught:
        gemini.encode(messages)
    assert caught.value.provider == "gemini"
    assert [(p.pointer, p.keyword) for p in caught.value.problems] == expected
    assert str(caught.value).startswith(
        f"gemini, message {caught.value.message_index}"
        if caught.value.message_index is not None
        else "gemini:"
    )


def test_inline_pdf_size_limit() -> None:
    big = chatschema.Conversation(
        messages=[
            chatschema.UserMessage(
                content=[
                    chatschema.FileBlock(
                        base64="A" * (68 * 1024 * 1024), mime_type="application/pdf"
                    )
                ]
            )
        ]
    )
    assert [(p.pointer, p.keyword) for p in gemini.check(big)] == [
        ("/messages/0/content/0", "size_limit")
    ]


def test_encode_without_check_raises_for_a_nameless_orphan_result() -> None:
    orphan = [
        {"role": "user", "content": "q"},
        {"role": "tool", "tool_call_id": "zz", "content": "x"},
    ]
    with pytest.raises(ConversionError) as caught:
        gemini.encode(orphan, check=False)
    assert caught.value.message_index == 1
    named = [
        {"role": "user", "content": "q"},
        {"role": "tool", "tool_call_id": "zz", "content": "x", "name": "f"},
    ]
    assert gemini.encode(named, check=False)["contents"][1] == user(
        fr("f", {"output": "x"}, id="zz")
    )


def test_a_content_emptied_by_drops_is_not_sent() -> None:
    foreign = {"type": "non_standard", "value": {"type": "search_result"}}
    history = [
        {"role": "system", "content": [foreign]},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [foreign]},
        {"role": "user", "content": "x"},
    ]
    assert _problems(history) == [
        ("/messages/0/content/0", "unsupported_content"),
        ("/messages/2/content/0", "unsupported_content"),
    ]
    assert gemini.check(history, unsupported="drop") == []
    assert gemini.encode(history, unsupported="drop") == {
        "contents": [user({"text": "q"}), user({"text": "x"})]
    }
    placeheld = gemini.encode(history, unsupported="placeholder")
    assert len(placeheld["contents"]) == 3 and "system_instruction" in placeheld
    # nothing left at all: reported
    assert _problems([{"role": "user", "content": [foreign]}], unsupported="drop") == [
        ("/messages", "no_contents")
    ]
    # a content that is empty without any drop is still reported
    assert _problems([{"role": "user", "content": ""}], unsupported="drop") == [
        ("/messages/0/content", "empty_content")
    ]


def test_an_empty_text_block_that_carries_nothing_is_left_out() -> None:
    # The API refuses empty text; content "" already sends no part, and a list holding
    # only an empty text block (another provider's reasoning left out) says the same.
    reply = {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "summary": ["Thinking."], "provider": "openai_responses"},
            {"type": "text", "text": ""},
        ],
    }
    history = [{"role": "user", "content": "hi"}, reply]
    problems = gemini.check(history)
    assert [(p.pointer, p.keyword) for p in problems] == [("/messages/1/content", "empty_content")]
    with pytest.raises(chatschema.ConversionError):
        gemini.encode(history)
    # An empty text part with a thought signature is kept, signature and all.
    payload = {"contents": [user({"text": "hi"}), model({"text": "", "thought_signature": SIG_C})]}
    assert gemini.encode(gemini.decode_conversation(payload)) == payload
