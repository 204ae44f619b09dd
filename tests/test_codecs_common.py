"""What every codec does the same way."""

from __future__ import annotations

import json
from typing import Any

import pytest

import chatschema
from chatschema import (
    AutoToolChoice,
    Conversation,
    ImageBlock,
    TextBlock,
    ToolDefinition,
    UserMessage,
)
from chatschema.providers import PROVIDERS, get_codec

IMAGE = UserMessage(
    content=[TextBlock(text="what is this?"), ImageBlock(url="https://example.com/a.png")]
)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_content_a_target_cannot_take_is_an_unsupported_content_error(provider: str) -> None:
    codec = get_codec(provider)
    with pytest.raises(chatschema.UnsupportedContentError) as raised:
        codec.encode([IMAGE], vision=False)
    error = raised.value
    assert (error.provider, error.message_index) == (provider, 0)
    assert [(p.pointer, p.keyword) for p in error.problems] == [
        ("/messages/0/content/1", "unsupported_content")
    ]
    assert chatschema.check([IMAGE], target=provider, vision=False) == list(error.problems)
    assert chatschema.check([IMAGE], target=provider, vision=False, unsupported="drop") == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_unknown_options_are_option_errors(provider: str) -> None:
    with pytest.raises(chatschema.errors.OptionError, match="unknown option 'visoin'"):
        get_codec(provider).encode([IMAGE], visoin=False)
    with pytest.raises(chatschema.errors.OptionError):
        get_codec(provider).encode([IMAGE], unsupported="ignore")


# Each format's hosted tools, as its request carries them, next to a plain function.
HOSTED: dict[str, dict[str, Any]] = {
    "anthropic": {
        "messages": [{"role": "user", "content": "news?"}],
        "tools": [
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
            {"name": "lookup", "input_schema": {"type": "object"}},
        ],
    },
    "openai_responses": {
        "input": [{"role": "user", "content": "news?"}],
        "tools": [
            {"type": "web_search"},
            {
                "type": "function",
                "name": "lookup",
                "parameters": {"type": "object"},
                "strict": False,
            },
        ],
    },
    "gemini": {
        "contents": [{"role": "user", "parts": [{"text": "news?"}]}],
        "tools": [
            {"google_search": {}},
            {
                "function_declarations": [
                    {"name": "lookup", "parameters_json_schema": {"type": "object"}}
                ]
            },
        ],
    },
}


@pytest.mark.parametrize("source", sorted(HOSTED))
def test_hosted_tools_decode_with_their_provider_and_round_trip(source: str) -> None:
    codec = get_codec(source)
    conversation = codec.decode_conversation(HOSTED[source])
    assert conversation.tools is not None
    assert [tool.provider for tool in conversation.tools] == [source, None]
    assert codec.encode(conversation) == HOSTED[source]


# Telemetry records every tool offered, hosted ones too, and never a tool choice
# (docs/providers/otel_genai.md): its own tests hold it to that.
SENDING = [provider for provider in PROVIDERS if provider != "otel_genai"]


@pytest.mark.parametrize(
    ("source", "target"),
    [(source, target) for source in sorted(HOSTED) for target in SENDING if target != source],
)
def test_hosted_tools_of_another_format_are_unsupported_content(source: str, target: str) -> None:
    conversation = get_codec(source).decode_conversation(HOSTED[source])
    codec = get_codec(target)
    problems = [(p.pointer, p.keyword) for p in codec.check(conversation)]
    assert problems == [("/tools/0", "unsupported_content")]
    for check in (True, False):
        with pytest.raises(chatschema.UnsupportedContentError) as raised:
            codec.encode(conversation, check=check)
        assert raised.value.provider == target
        assert [p.pointer for p in raised.value.problems] == ["/tools/0"]
    assert codec.check(conversation, unsupported="drop") == []
    # "drop" and "placeholder" both leave it out: a tool cannot be a text placeholder
    only_lookup = codec.encode(
        Conversation(
            messages=conversation.messages,
            tools=[tool for tool in conversation.tools or [] if tool.provider is None],
        )
    )
    for policy in ("drop", "placeholder"):
        assert codec.encode(conversation, unsupported=policy) == only_lookup
    # nothing is sent for a hosted tool without native tools either
    text = json.dumps(codec.encode(conversation, native_tools=False))
    assert "lookup" in text and "web_search" not in text and "google_search" not in text


@pytest.mark.parametrize("target", SENDING)
def test_a_tool_choice_goes_out_only_with_tools(target: str) -> None:
    hosted = ToolDefinition(name="web_search", parameters={}, provider="elsewhere")
    conversation = Conversation(
        messages=[UserMessage(content="hi")], tools=[hosted], tool_choice=AutoToolChoice()
    )
    encoded = get_codec(target).encode(conversation, unsupported="drop")
    assert set(encoded) <= {"messages", "input", "contents"}
