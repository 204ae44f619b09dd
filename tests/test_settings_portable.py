"""Settings across providers: the ``unsupported_settings`` encode option.

A conversation's settings may hold what the target has no key for (``thinking_budget``
for OpenAI, ``seed`` for Anthropic ...). ``unsupported_settings="error"`` (the default
under ``unsupported="error"``) refuses them at ``/settings/<field>``; ``"drop"``
leaves them out and reports them in one ``SettingsDroppedWarning`` per ``encode``,
while the content keeps its own policy, ``unsupported``. Every output is checked
against the official SDKs' request types (``tests/oracle.py``).
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import httpx
import pytest
from oracle import validate_request

from chatschema import Conversation, UnsupportedContentError, assistant, to_dict
from chatschema.errors import ChatSchemaError, OptionError, Problem, SettingsDroppedWarning
from chatschema.gateway import create_app
from chatschema.providers import PROVIDERS, convert, get_codec
from chatschema.providers._common.options import dropped_settings_collected
from chatschema.testing import FakeProvider, LocalServer

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5E"
    "rkJggg=="
)

SETTINGS: dict[str, Any] = {
    "model": "some-model",
    "max_output_tokens": 2048,
    "temperature": 0.5,
    "top_k": 40,
    "stop": ["END"],
    "seed": 7,
    "presence_penalty": 0.1,
    "frequency_penalty": 0.2,
    "reasoning_effort": "high",
    "thinking_budget": 1024,
}

# What each format has no key for (docs/providers.md, "Request settings").
DROPPED: dict[str, list[str]] = {
    "openai_chat": ["top_k", "thinking_budget"],
    "openai_responses": [
        "top_k",
        "stop",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "thinking_budget",
    ],
    "anthropic": ["seed", "presence_penalty", "frequency_penalty"],
    "gemini": [],
    "gemini_interactions": ["top_k", "presence_penalty", "frequency_penalty", "thinking_budget"],
    "open_responses": [
        "top_k",
        "stop",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "thinking_budget",
    ],
    "otel_genai": ["reasoning_effort", "thinking_budget"],
    "bedrock_converse": ["seed", "presence_penalty", "frequency_penalty"],
    "mistral": ["thinking_budget"],
}

# The key of each format's output that holds the messages.
MESSAGES = {
    "openai_chat": "messages",
    "openai_responses": "input",
    "open_responses": "input",
    "anthropic": "messages",
    "gemini": "contents",
    "gemini_interactions": "input",
    "otel_genai": "gen_ai.input.messages",
    "bedrock_converse": "messages",
    "mistral": "messages",
}


def conversation(settings: dict[str, Any] | None = SETTINGS, **more: Any) -> Conversation:
    """A user turn with text and an image, an answer, and the settings."""
    data: dict[str, Any] = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in this picture?"},
                    {"type": "image", "base64": PNG, "mime_type": "image/png"},
                ],
            },
            {"role": "assistant", "content": "A single pixel."},
            {"role": "user", "content": "Which colour?"},
        ],
        **more,
    }
    if settings is not None:
        data["settings"] = settings
    return Conversation.model_validate(data)


def pointers(problems: Any) -> list[str]:
    return [problem.pointer for problem in problems]


def text(value: Any) -> str:
    """JSON text of an output (Converse's blobs, bytes, as base64)."""
    return json.dumps(value, default=lambda blob: base64.b64encode(blob).decode())


@pytest.mark.parametrize("target", PROVIDERS)
def test_drop_leaves_out_only_what_the_target_has_no_key_for_and_says_so(target: str) -> None:
    codec = get_codec(target)
    expected = [f"/settings/{field}" for field in DROPPED[target]]
    # the default refuses exactly those, as before
    assert pointers(codec.check(conversation())) == expected
    if expected:
        with pytest.raises(UnsupportedContentError) as caught:
            codec.encode(conversation())
        assert pointers(caught.value.problems) == expected
        assert "unsupported_settings='drop' leaves it out" in str(caught.value)
    assert codec.check(conversation(), unsupported_settings="drop") == []

    with warnings.catch_warnings(record=True) as caught_warnings:
        warnings.simplefilter("always")
        encoded = codec.encode(conversation(), unsupported_settings="drop")
    reports = [w for w in caught_warnings if issubclass(w.category, SettingsDroppedWarning)]
    if expected:
        assert len(reports) == 1
        report = reports[0].message
        assert isinstance(report, SettingsDroppedWarning)
        assert (report.provider, pointers(report.problems)) == (target, expected)
        assert reports[0].filename == __file__  # the caller's line, not the codec's
        for field in DROPPED[target]:
            assert f"/settings/{field}:" in str(report)
    else:
        assert reports == []
    with warnings.catch_warnings(record=True) as unchecked:  # the same without check
        warnings.simplefilter("always")
        assert codec.encode(conversation(), unsupported_settings="drop", check=False) == encoded
    found = [pointers(getattr(w.message, "problems", ())) for w in unchecked]
    assert found == ([expected] if expected else [])
    validate_request(target, encoded)
    # the content is untouched: the image is sent, as without any settings
    bare = codec.encode(conversation(settings=None))
    assert encoded[MESSAGES[target]] == bare[MESSAGES[target]]
    assert PNG in text(encoded[MESSAGES[target]])
    # and the settings the target has kept their keys
    with_kept = {k: v for k, v in SETTINGS.items() if k not in DROPPED[target]}
    assert codec.encode(conversation(with_kept)) == encoded


@pytest.mark.parametrize("target", [t for t in PROVIDERS if DROPPED[t]])
def test_error_with_check_off_raises_the_first_setting(target: str) -> None:
    with pytest.raises(UnsupportedContentError) as caught:
        get_codec(target).encode(conversation(), check=False)
    first = f"/settings/{DROPPED[target][0]}"
    assert pointers(caught.value.problems) == [first]
    assert f"{first}: " in str(caught.value)


def test_openai_chat_thinking_budget_error_names_the_option() -> None:
    """The message a user meets first says what is wrong, where, and the way out."""
    with pytest.raises(UnsupportedContentError) as caught:
        get_codec("openai_chat").encode(conversation({"thinking_budget": 1024}))
    assert caught.value.problems == (
        Problem(
            "/settings/thinking_budget",
            "unsupported_content",
            "settings.thinking_budget: openai_chat has no thinking_budget "
            "(unsupported_settings='drop' leaves it out)",
        ),
    )


def test_settings_and_content_have_separate_policies() -> None:
    """Dropping settings never drops content, and dropping content keeps settings refused."""
    anthropic = get_codec("anthropic")
    audio = {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"}
    data = to_dict(conversation())
    data["messages"][2]["content"] = [{"type": "text", "text": "And this?"}, audio]
    both = Conversation.model_validate(data)
    with pytest.raises(UnsupportedContentError) as caught:
        anthropic.encode(both, unsupported_settings="drop")
    assert pointers(caught.value.problems) == ["/messages/2/content/1"]
    with pytest.raises(UnsupportedContentError) as caught:
        anthropic.encode(both, unsupported="drop", unsupported_settings="error")
    assert pointers(caught.value.problems) == [f"/settings/{f}" for f in DROPPED["anthropic"]]
    # unsupported="drop" alone drops both, as it always did, and now reports the settings
    with pytest.warns(SettingsDroppedWarning) as recorded:
        encoded = anthropic.encode(both, unsupported="drop")
    assert encoded["messages"][2]["content"] == [{"type": "text", "text": "And this?"}]
    assert "seed" not in json.dumps(encoded)
    assert len(recorded) == 1


def test_a_reasoning_block_the_target_takes_stays() -> None:
    signed = {
        "type": "reasoning",
        "text": "One pixel, so one colour.",
        "signature": "c2ln",
        "provider": "anthropic",
    }
    data = to_dict(conversation())
    data["messages"][1]["content"] = [signed, {"type": "text", "text": "A single pixel."}]
    with pytest.warns(SettingsDroppedWarning):
        encoded = get_codec("anthropic").encode(data, unsupported_settings="drop")
    validate_request("anthropic", encoded)
    assert encoded["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "One pixel, so one colour.",
        "signature": "c2ln",
    }
    assert encoded["thinking"] == {"type": "enabled", "budget_tokens": 1024}


def test_convert_passes_the_option_and_collected_drops_are_not_warned() -> None:
    anthropic_request = get_codec("anthropic").encode(conversation({"thinking_budget": 2048}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is warned inside the block
        with dropped_settings_collected() as dropped:
            request = convert(
                anthropic_request,
                source="anthropic",
                target="openai_responses",
                unsupported_settings="drop",
            )
    assert pointers(dropped) == ["/settings/thinking_budget"]
    assert "thinking" not in json.dumps(request) and PNG in json.dumps(request["input"])
    validate_request("openai_responses", request)


def test_the_option_takes_error_or_drop_only() -> None:
    with pytest.raises(OptionError, match=r"unsupported_settings='placeholder': expected one of"):
        get_codec("openai_chat").encode(conversation(), unsupported_settings="placeholder")  # type: ignore[arg-type]


def test_the_warning_is_a_chatschema_error_when_warnings_are_errors() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", SettingsDroppedWarning)
        with pytest.raises(SettingsDroppedWarning) as caught:
            get_codec("openai_chat").encode(conversation(), unsupported_settings="drop")
    assert isinstance(caught.value, ChatSchemaError)
    assert pointers(caught.value.problems) == ["/settings/top_k", "/settings/thinking_budget"]


def test_cli_convert_takes_the_option(tmp_path: Path) -> None:
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps(to_dict(conversation())))
    command = [sys.executable, "-m", "chatschema", "convert", "--from", "neutral"]
    command += ["--to", "openai_chat", str(path)]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1
    assert "/settings/thinking_budget: " in refused.stderr
    assert "unsupported_settings='drop'" in refused.stderr
    dropped = subprocess.run(
        [*command, "--option", "unsupported_settings=drop"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert dropped.returncode == 0, dropped.stderr
    request = json.loads(dropped.stdout)
    assert request["temperature"] == 0.5 and "top_k" not in request
    validate_request("openai_chat", request)
    assert "SettingsDroppedWarning" in dropped.stderr
    assert "/settings/top_k: openai_chat has no top_k" in dropped.stderr


def test_gateway_drops_settings_and_names_them() -> None:
    body = {
        "model": "gpt-4.1",
        "seed": 7,
        "temperature": 0.5,
        "messages": [{"role": "user", "content": "Hi"}],
    }
    reply = assistant("Hello.", finish_reason="stop")
    with FakeProvider([reply] * 2) as upstream:
        strict = create_app("anthropic", upstream.url, api_key="sk-ant-test")
        with LocalServer(strict) as server:
            refused = httpx.post(server.url + "/v1/chat/completions", json=body)
        assert refused.status_code == 400
        assert "/settings/seed" in refused.text
        lenient = create_app(
            "anthropic", upstream.url, api_key="sk-ant-test", unsupported_settings="drop"
        )
        with LocalServer(lenient) as server:
            answer = httpx.post(server.url + "/v1/chat/completions", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.headers["chatschema-omitted"] == "request /settings/seed"
        sent = upstream.requests[0].body
        assert "seed" not in sent and sent["temperature"] == 0.5
    with pytest.raises(ValueError, match="unsupported_settings='placeholder'"):
        create_app("anthropic", "http://127.0.0.1:1", unsupported_settings="placeholder")  # type: ignore[arg-type]
