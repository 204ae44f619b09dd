"""Nothing lost on a wrong guess, and codec messages that name the real cause.

- A key a decoder kept in ``extras[<format>]`` that the target cannot carry is a
  located ``foreign_extras`` problem in ``check`` and an ``UnsupportedContentError``
  from ``encode``/``convert`` (``unsupported="drop"`` leaves it out); the format's own
  extras still go back to it.
- OpenAI fine-tuning ``weight`` goes back to Chat Completions and is reported elsewhere.
- Every provider's ``check`` reports a request without messages.
- A tool call with arguments that are not JSON is reported as that, not as an orphan
  result; a row without ``messages`` names the keys found and the format they look
  like; a non-standard block is named by its type, never ``None``.
- Converse's inline image (3.75 MB) and document (4.5 MB) limits.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from oracle import validate_request

import chatschema
from chatschema import (
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    SystemMessage,
    TextBlock,
    UserMessage,
)
from chatschema.errors import ConversionError, UnsupportedContentError
from chatschema.providers import (
    HTTP_PROVIDERS,
    anthropic,
    bedrock_converse,
    gemini,
    get_codec,
    openai_chat,
)

ANTHROPIC_REQUEST: dict[str, Any] = {
    "model": "claude-haiku-4-5",
    "max_tokens": 100,
    "system": "Be brief",
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Cold."}]},
    ],
}


def _problems(codec: Any, conversation: Any, **options: Any) -> list[tuple[str, str]]:
    return [(p.pointer, p.keyword) for p in codec.check(conversation, **options)]


# ------------------------------------------------------------------ wrong guess


def test_an_anthropic_request_read_as_chat_keeps_its_system_prompt_or_says_so() -> None:
    conversation = openai_chat.decode_conversation(ANTHROPIC_REQUEST)
    assert (conversation.extras or {})["openai_chat"]["system"] == "Be brief"
    problems = anthropic.check(conversation)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/extras/openai_chat/system", "foreign_extras")
    ]
    message = problems[0].message
    assert "'system'" in message and "openai_chat" in message and "anthropic" in message
    assert "looks like anthropic" in message  # the key says what the input was
    for options in ({}, {"check": False}):  # the collected error, and the first refusal
        with pytest.raises(UnsupportedContentError) as caught:
            anthropic.encode(conversation, **options)
        assert [p.pointer for p in caught.value.problems] == ["/extras/openai_chat/system"]
        assert "[foreign_extras]" in str(caught.value)
    with pytest.raises(UnsupportedContentError, match="/extras/openai_chat/system"):
        chatschema.convert(ANTHROPIC_REQUEST, source="openai_chat", target="anthropic")
    dropped = anthropic.encode(conversation, unsupported="drop")
    assert "system" not in dropped
    validate_request("anthropic", dropped)
    # the format's own extras go back to it, as before
    assert openai_chat.encode(conversation)["system"] == "Be brief"


def test_the_cli_refuses_the_rows_of_a_wrong_from(tmp_path: Path) -> None:
    rows = tmp_path / "claude.jsonl"
    rows.write_text("\n".join(json.dumps(ANTHROPIC_REQUEST) for _ in range(3)) + "\n")
    out = tmp_path / "out.jsonl"
    args = [sys.executable, "-m", "chatschema", "convert", "--from", "openai_chat"]
    done = subprocess.run(
        [*args, "--to", "anthropic", str(rows), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "/extras/openai_chat/system" in said and "foreign_extras" in said
    kept = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    assert all("system" in row for row in kept)  # no row written without its system prompt


def test_every_target_reports_another_formats_request_key() -> None:
    conversation = openai_chat.decode_conversation(
        {"messages": [{"role": "user", "content": "Hi"}], "store": True, "user": "u-1"}
    )
    for target in HTTP_PROVIDERS:
        problems = _problems(get_codec(target), conversation)
        if target == "openai_chat":
            assert problems == []
        else:
            assert problems == [
                ("/extras/openai_chat/store", "foreign_extras"),
                ("/extras/openai_chat/user", "foreign_extras"),
            ], target


def test_wire_form_and_identity_keys_are_no_loss() -> None:
    responses = {
        "model": "gpt-5",
        "stream": True,
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
            {
                "type": "function_call",
                "id": "fc_1",
                "status": "completed",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city": "Oslo"}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "-3C"},
        ],
        "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}],
    }
    gemini_history = {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}]},
            {
                "role": "model",
                "parts": [
                    {
                        "function_call": {"name": "get_weather", "args": {}},
                        "thought_signature": "c2ln",
                    }
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"function_response": {"name": "get_weather", "response": {"output": "-3C"}}}
                ],
            },
        ],
        "tools": [{"function_declarations": [{"name": "get_weather"}]}],
    }
    for source, payload in (("openai_responses", responses), ("gemini", gemini_history)):
        conversation = get_codec(source).decode_conversation(payload)
        for target in HTTP_PROVIDERS:
            problems = _problems(get_codec(target), conversation)
            assert not [p for p in problems if p[1] == "foreign_extras"], (source, target)


def test_extras_of_messages_blocks_calls_and_tools_are_located() -> None:
    conversation = {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Hi", "extras": {"gemini": {"media_x": 1}}}],
                "extras": {"anthropic": {"x-a/b": "y"}},
            },
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c1",
                        "name": "f",
                        "arguments": {},
                        "extras": {"openai_responses": {"namespace": "ns"}},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ],
        "tools": [
            {"name": "f", "parameters": {"type": "object"}, "extras": {"openai_chat": {"x": 1}}}
        ],
        "extras": {"my_app": {"trace": "t"}},  # not a format: the application's own
    }
    assert _problems(openai_chat, conversation) == [
        ("/messages/0/extras/anthropic/x-a~1b", "foreign_extras"),
        ("/messages/0/content/0/extras/gemini/media_x", "foreign_extras"),
        ("/messages/1/tool_calls/0/extras/openai_responses/namespace", "foreign_extras"),
    ]
    assert _problems(anthropic, conversation) == [  # (the request's own fields first)
        ("/tools/0/extras/openai_chat/x", "foreign_extras"),
        ("/messages/0/content/0/extras/gemini/media_x", "foreign_extras"),
        ("/messages/1/tool_calls/0/extras/openai_responses/namespace", "foreign_extras"),
    ]


# ---------------------------------------------------------------- fine-tuning


FINE_TUNING_ROW: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "You answer in one word."},
        {"role": "user", "content": "Capital of Norway?"},
        {"role": "assistant", "content": "Bergen", "weight": 0},
        {"role": "user", "content": "Try again."},
        {"role": "assistant", "content": "Oslo", "weight": 1},
    ],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    "parallel_tool_calls": False,
}


def test_fine_tuning_weights_go_back_to_chat_and_are_reported_elsewhere() -> None:
    conversation = openai_chat.decode_conversation(FINE_TUNING_ROW)
    assert openai_chat.encode(conversation) == FINE_TUNING_ROW
    for target in ("openai_responses", "anthropic", "gemini", "bedrock_converse"):
        problems = get_codec(target).check(conversation, request=False)
        # weight 1 is the default: leaving it behind changes nothing
        assert [(p.pointer, p.keyword) for p in problems] == [
            ("/messages/2/extras/openai_chat/weight", "foreign_extras")
        ], target
        assert "fine-tuning weight" in problems[0].message
        with pytest.raises(UnsupportedContentError, match="weight"):
            chatschema.convert(FINE_TUNING_ROW, source="openai_chat", target=target)
        dropped = get_codec(target).encode(conversation, unsupported="drop")
        assert "weight" not in json.dumps(dropped)


# -------------------------------------------------------------- empty requests


@pytest.mark.parametrize("target", HTTP_PROVIDERS)
def test_a_conversation_without_messages_is_a_problem(target: str) -> None:
    codec = get_codec(target)
    for messages in ([], [SystemMessage(content="Be brief.")]):
        problems = codec.check(messages)
        if target == "openai_chat" and messages:
            assert problems == []  # Chat Completions takes a system message alone
            continue
        assert [(p.pointer, p.keyword) for p in problems] in (
            [("/messages", "no_messages")],
            [("/messages", "no_contents")],  # (Gemini's own word)
        ), (target, messages)
        with pytest.raises(ConversionError, match="at least one"):
            codec.encode(messages)


# ------------------------------------------------------------------- messages


NOT_JSON_CALL = {
    "messages": [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": Oslo'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "-3C"},
    ]
}


@pytest.mark.parametrize("codec", [anthropic, gemini, bedrock_converse], ids=lambda c: c.NAME)
def test_a_call_with_arguments_that_are_not_json_is_said_so(codec: Any) -> None:
    conversation = openai_chat.decode_conversation(NOT_JSON_CALL)
    problems = [p for p in codec.check(conversation) if p.keyword != "tool_config_required"]
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/1/invalid_tool_calls/0", "unsupported_content")
    ]  # the result is no orphan: its call is the problem
    assert "'get_weather'" in problems[0].message and "'c1'" in problems[0].message
    assert "not valid JSON" in problems[0].message
    dropped = codec.check(conversation, unsupported="drop")
    orphans = [p for p in dropped if p.keyword == "orphan_tool_result"]
    for orphan in orphans:  # the call left out: the result says which and why
        assert "/messages/1/invalid_tool_calls/0" in orphan.message
        assert "not valid JSON" in orphan.message


def test_a_row_without_messages_names_what_it_found() -> None:
    cases = [
        (openai_chat, {"model": "gpt-5", "input": "Hi"}, "openai_responses"),
        (openai_chat, {"contents": []}, "gemini"),
        (anthropic, {"model": "m", "contents": []}, "gemini"),
        (gemini, ANTHROPIC_REQUEST, "anthropic"),
    ]
    for codec, row, looks in cases:
        with pytest.raises(ConversionError) as caught:
            codec.decode_conversation(row)
        text = str(caught.value)
        found = ", ".join(f"`{key}`" for key in sorted(row))
        assert f"(found: {found})" in text, text
        assert f"decode it as {looks}" in text, text
    with pytest.raises(ConversionError, match=r"no `messages` key \(found: `input`, `model`\)"):
        openai_chat.decode_conversation({"model": "gpt-5", "input": "Hi"})
    preference = {"input": {"messages": []}, "preferred_output": [], "non_preferred_output": []}
    with pytest.raises(ConversionError, match="preference fine-tuning row"):
        openai_chat.decode_conversation(preference)


def test_a_non_standard_block_is_named_by_its_type() -> None:
    image_url = NonStandardBlock(
        value={"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    )
    untyped = NonStandardBlock(value={"a": 1, "b": 2})
    for target in HTTP_PROVIDERS:
        codec = get_codec(target)
        said = [p.message for p in codec.check([UserMessage(content=[image_url])])]
        assert any("non-standard block of type 'image_url'" in m for m in said), (target, said)
        said += [p.message for p in codec.check([UserMessage(content=[untyped])])]
        assert not any("None" in m for m in said), (target, said)
    with pytest.raises(UnsupportedContentError, match="non-standard block of type 'image_url'"):
        bedrock_converse.encode([UserMessage(content=[image_url])], check=False)


# ------------------------------------------------------------ Converse limits


def _b64(size: int, head: bytes) -> str:
    return base64.b64encode(head + b"0" * (size - len(head))).decode()


def test_converse_reports_inline_images_and_documents_over_its_limits() -> None:
    image = ImageBlock(base64=_b64(50 * 2**20, b"\x89PNG"), mime_type="image/png")
    document = FileBlock(
        base64=_b64(5 * 2**20, b"%PDF"), mime_type="application/pdf", filename="report"
    )
    conversation = [UserMessage(content=[TextBlock(text="Look."), image, document])]
    problems = bedrock_converse.check(conversation)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/0/content/1", "image_too_large"),
        ("/messages/0/content/2", "document_too_large"),
    ]
    assert "3.75 MB" in problems[0].message and "4.5 MB" in problems[1].message
    at_limit = ImageBlock(base64=_b64(3932160, b"\x89PNG"), mime_type="image/png")
    assert bedrock_converse.check([UserMessage(content=[at_limit])]) == []


def test_mistral_prefix_false_is_the_default_and_prefix_true_is_reported() -> None:
    mistral, claude = get_codec("mistral"), get_codec("anthropic")

    def history(prefix: bool) -> dict[str, Any]:
        return {
            "messages": [
                {"role": "user", "content": "Name a city."},
                {"role": "assistant", "content": "Oslo", "prefix": prefix},
            ]
        }

    # the mistralai SDK writes `prefix: false` on every assistant message
    assert claude.check(mistral.decode_conversation(history(False))) == []
    [problem] = claude.check(mistral.decode_conversation(history(True)))
    assert problem.pointer == "/messages/1/extras/mistral/prefix"
