"""chatschema.interop.langchain against real langchain_core objects."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from typing import Any

import pytest
from conftest import FIXTURES
from langchain_core import messages as lc

import chatschema
from chatschema import ConversionError, ValidationError, to_dict
from chatschema.interop.langchain import (
    chunk_from_langchain,
    chunk_to_langchain,
    from_langchain,
    message_from_langchain,
    message_to_langchain,
    to_langchain,
)

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
    "AAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def dump(message: lc.BaseMessage) -> dict[str, Any]:
    """Everything a LangChain message holds, with its class."""
    return {"class": type(message).__name__, **message.model_dump()}


def lc_round_trip(message: lc.BaseMessage) -> lc.BaseMessage:
    return message_to_langchain(message_from_langchain(message))


def neutral_round_trip(data: dict[str, Any]) -> dict[str, Any]:
    return to_dict(message_from_langchain(message_to_langchain(data)))


# --------------------------------------------------------------------------- import


def test_import_chatschema_never_imports_langchain() -> None:
    code = (
        "import sys, chatschema, chatschema.interop; "
        "assert 'langchain_core' not in sys.modules, 'langchain imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_langchain_core_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_core", None)
    monkeypatch.delitem(sys.modules, "chatschema.interop.langchain")
    with pytest.raises(ImportError, match=r"pip install langchain-core"):
        importlib.import_module("chatschema.interop.langchain")


# ------------------------------------------------------------- LangChain -> neutral


def test_human_message_string() -> None:
    message = lc.HumanMessage("What is the capital of France?", id="h1", name="alice")
    assert to_dict(message_from_langchain(message)) == {
        "role": "user",
        "content": "What is the capital of France?",
        "id": "h1",
        "name": "alice",
    }
    assert dump(lc_round_trip(message)) == dump(message)


def test_human_message_v1_data_blocks() -> None:
    message = lc.HumanMessage(
        content_blocks=[
            {"type": "text", "text": "Compare these."},
            {"type": "image", "base64": PNG, "mime_type": "image/png", "id": "img-1"},
            {"type": "image", "url": "https://example.com/cat.png", "extras": {"detail": "low"}},
            {"type": "image", "file_id": "file-abc123"},
            {
                "type": "file",
                "base64": "JVBERi0x",
                "mime_type": "application/pdf",
                "extras": {"filename": "report.pdf"},
            },
            {"type": "audio", "url": "https://example.com/a.wav", "mime_type": "audio/wav"},
            {"type": "video", "file_id": "file-vid"},
            {"type": "text-plain", "text": "notes", "mime_type": "text/plain", "title": "Notes"},
        ]
    )
    assert to_dict(message_from_langchain(message)) == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Compare these."},
            {"type": "image", "base64": PNG, "mime_type": "image/png", "id": "img-1"},
            {"type": "image", "url": "https://example.com/cat.png", "detail": "low"},
            {"type": "image", "file_id": "file-abc123"},
            {
                "type": "file",
                "base64": "JVBERi0x",
                "mime_type": "application/pdf",
                "filename": "report.pdf",
            },
            {"type": "audio", "url": "https://example.com/a.wav", "mime_type": "audio/wav"},
            {"type": "video", "file_id": "file-vid"},
            {"type": "text-plain", "text": "notes", "mime_type": "text/plain", "title": "Notes"},
        ],
    }
    assert dump(lc_round_trip(message)) == dump(message)


def test_provider_native_items_are_kept_unchanged() -> None:
    # OpenAI `image_url` parts and v0 `source_type` blocks are media LangChain documents:
    # neutral blocks (tests/test_interop_langchain_media.py has every form)
    message = lc.HumanMessage(
        content=[
            "plain string item",
            {"type": "image_url", "image_url": {"url": "https://example.com/x.png"}},
            {"type": "text", "text": "cached", "cache_control": {"type": "ephemeral"}},
            {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"},
            {"type": "document", "source": {"type": "text", "data": "Anthropic-native"}},
        ],
        custom_field=[1, 2],
    )
    assert to_dict(message_from_langchain(message)) == {
        "role": "user",
        "content": [
            {"type": "text", "text": "plain string item", "extras": {"langchain": {"raw": True}}},
            {
                "type": "image",
                "url": "https://example.com/x.png",
                "extras": {"langchain": {"form": "openai"}},
            },
            {
                "type": "text",
                "text": "cached",
                "cache_control": {"type": "ephemeral"},
                "extras": {"langchain": {"placement": "top_level"}},
            },
            {
                "type": "image",
                "base64": PNG,
                "mime_type": "image/png",
                "extras": {"langchain": {"source_type": "base64"}},
            },
            {
                "type": "non_standard",
                "value": {
                    "type": "document",
                    "source": {"type": "text", "data": "Anthropic-native"},
                },
                "extras": {"langchain": {"raw": True}},
            },
        ],
        "extras": {"langchain": {"custom_field": [1, 2]}},
    }
    assert dump(lc_round_trip(message)) == dump(message)


def test_ai_message_with_tool_calls_usage_and_metadata() -> None:
    message = lc.AIMessage(
        content="",
        tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}],
        invalid_tool_calls=[
            {"name": "get_time", "args": '{"tz": ', "id": "call_2", "error": "truncated"}
        ],
        usage_metadata={
            "input_tokens": 120,
            "output_tokens": 30,
            "total_tokens": 150,
            "input_token_details": {"cache_read": 100, "audio": 0},
            "output_token_details": {"reasoning": 12},
        },
        response_metadata={
            "model_name": "gpt-4o-2024-08-06",
            "model_provider": "openai",
            "finish_reason": "tool_calls",
            "id": "chatcmpl-9x",
            "system_fingerprint": "fp_1",
            "service_tier": "default",
        },
        additional_kwargs={"refusal": None},
        id="run-abc",
    )
    assert to_dict(message_from_langchain(message)) == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}],
        "invalid_tool_calls": [
            {"id": "call_2", "name": "get_time", "arguments": '{"tz": ', "error": "truncated"}
        ],
        "usage": {
            "input_tokens": 120,
            "output_tokens": 30,
            "total_tokens": 150,
            "input_token_details": {"cache_read": 100, "audio": 0},
            "output_token_details": {"reasoning": 12},
        },
        "model": "gpt-4o-2024-08-06",
        "provider": "openai",
        "response_id": "chatcmpl-9x",
        "finish_reason": "tool_calls",
        "raw_finish_reason": "tool_calls",
        "response_metadata": {
            "langchain": {"system_fingerprint": "fp_1", "service_tier": "default"}
        },
        "id": "run-abc",
        "extras": {"langchain": {"additional_kwargs": {"refusal": None}}},
    }
    assert dump(lc_round_trip(message)) == dump(message)


def test_ai_message_v1_content_blocks() -> None:
    message = lc.AIMessage(
        content_blocks=[
            {"type": "reasoning", "reasoning": "Check the docs.", "extras": {"signature": "sig=="}},
            {
                "type": "text",
                "text": "Paris is the capital.",
                "annotations": [
                    {
                        "type": "citation",
                        "url": "https://en.wikipedia.org/wiki/Paris",
                        "title": "Paris",
                        "start_index": 0,
                        "end_index": 5,
                        "cited_text": "Paris",
                        "extras": {"encrypted_index": "Eo8B"},
                    },
                    {"type": "non_standard_annotation", "value": {"type": "file_citation"}},
                ],
                "index": "lc_txt_1",
            },
            {"type": "tool_call", "name": "search", "args": {"q": "Paris"}, "id": "toolu_1"},
            {"type": "server_tool_call", "id": "srv_1", "name": "web_search", "args": {"q": "x"}},
            {
                "type": "server_tool_result",
                "tool_call_id": "srv_1",
                "status": "success",
                "output": [{"url": "https://example.com"}],
            },
            {"type": "non_standard", "value": {"type": "redacted_thinking", "data": "EmwK"}},
        ],
        response_metadata={"output_version": "v1", "model_provider": "anthropic"},
    )
    neutral = message_from_langchain(message)
    assert to_dict(neutral) == {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "text": "Check the docs.", "signature": "sig=="},
            {
                "type": "text",
                "text": "Paris is the capital.",
                "annotations": [
                    {
                        "type": "citation",
                        "url": "https://en.wikipedia.org/wiki/Paris",
                        "title": "Paris",
                        "start_index": 0,
                        "end_index": 5,
                        "cited_text": "Paris",
                        "extras": {"langchain": {"extras": {"encrypted_index": "Eo8B"}}},
                    },
                    {"type": "non_standard_annotation", "value": {"type": "file_citation"}},
                ],
                "extras": {"langchain": {"index": "lc_txt_1"}},
            },
            {
                "type": "server_tool_call",
                "id": "srv_1",
                "name": "web_search",
                "arguments": {"q": "x"},
            },
            {
                "type": "server_tool_result",
                "tool_call_id": "srv_1",
                "status": "success",
                "output": [{"url": "https://example.com"}],
            },
            {"type": "non_standard", "value": {"type": "redacted_thinking", "data": "EmwK"}},
        ],
        "tool_calls": [{"id": "toolu_1", "name": "search", "arguments": {"q": "Paris"}}],
        "provider": "anthropic",
        "extras": {
            "langchain": {
                "tool_call_blocks": [
                    {
                        "position": 2,
                        "block": {
                            "type": "tool_call",
                            "name": "search",
                            "args": {"q": "Paris"},
                            "id": "toolu_1",
                        },
                    }
                ]
            }
        },
    }
    back = message_to_langchain(neutral)
    assert dump(back) == dump(message)
    assert back.content_blocks == message.content


def test_anthropic_native_ai_message_and_standardize() -> None:
    message = lc.AIMessage(
        content=[
            {"type": "thinking", "thinking": "Let me think.", "signature": "EqQB"},
            {"type": "text", "text": "Done."},
        ],
        response_metadata={
            "model_provider": "anthropic",
            "model_name": "claude-sonnet-4-5",
            "stop_reason": "end_turn",
        },
    )
    assert to_dict(message_from_langchain(message)) == {
        "role": "assistant",
        "content": [
            {
                "type": "non_standard",
                "value": {"type": "thinking", "thinking": "Let me think.", "signature": "EqQB"},
                "extras": {"langchain": {"raw": True}},
            },
            {"type": "text", "text": "Done."},
        ],
        "model": "claude-sonnet-4-5",
        "provider": "anthropic",
        "finish_reason": "stop",
        "response_metadata": {"langchain": {"stop_reason": "end_turn", "output_version": None}},
    }
    assert dump(lc_round_trip(message)) == dump(message)
    standard = message_from_langchain(message, standardize=True)
    assert to_dict(standard)["content"] == [
        {"type": "reasoning", "text": "Let me think.", "signature": "EqQB"},
        {"type": "text", "text": "Done."},
    ]


def test_system_message_developer_role_is_kept() -> None:
    message = lc.SystemMessage("Be terse.", additional_kwargs={"__openai_role__": "developer"})
    assert to_dict(message_from_langchain(message)) == {
        "role": "system",
        "content": "Be terse.",
        "extras": {"langchain": {"additional_kwargs": {"__openai_role__": "developer"}}},
    }
    assert dump(lc_round_trip(message)) == dump(message)


def test_tool_message_artifact_and_status() -> None:
    message = lc.ToolMessage(
        content=[{"type": "text", "text": "3 rows"}],
        tool_call_id="call_1",
        name="sql",
        artifact={"rows": [[1], [2], [3]]},
        status="error",
    )
    assert to_dict(message_from_langchain(message)) == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": [{"type": "text", "text": "3 rows"}],
        "status": "error",
        "artifact": {"rows": [[1], [2], [3]]},
        "name": "sql",
    }
    assert dump(lc_round_trip(message)) == dump(message)
    plain = lc.ToolMessage("ok", tool_call_id="call_2")
    assert to_dict(message_from_langchain(plain)) == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": "ok",
    }
    explicit = message_from_langchain(lc.ToolMessage("ok", tool_call_id="c", status="success"))
    assert to_dict(explicit)["status"] == "success"


def test_tool_call_without_id_becomes_invalid_and_comes_back() -> None:
    message = lc.AIMessage("", tool_calls=[{"name": "f", "args": {"a": 1}, "id": None}])
    assert to_dict(message_from_langchain(message)) == {
        "role": "assistant",
        "content": "",
        "tool_calls": [],
        "invalid_tool_calls": [
            {
                "name": "f",
                "arguments": '{"a": 1}',
                "error": "LangChain tool call without an id or a name",
                "extras": {
                    "langchain": {
                        "tool_call": {
                            "name": "f",
                            "args": {"a": 1},
                            "id": None,
                            "type": "tool_call",
                        }
                    }
                },
            }
        ],
    }
    assert dump(lc_round_trip(message)) == dump(message)


def test_usage_the_neutral_model_rejects_is_kept() -> None:
    usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3, "cost": 7}
    message = lc.AIMessage("hi", usage_metadata=usage)
    neutral = message_from_langchain(message)
    assert isinstance(neutral, chatschema.AssistantMessage)
    assert neutral.usage is None
    assert neutral.extras == {"langchain": {"usage_metadata": usage}}
    assert dump(lc_round_trip(message)) == dump(message)


# ------------------------------------------------------------- neutral -> LangChain


CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief.", "metadata": {"tenant": "acme"}},
    {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "Describe this.",
                "cache_control": {"type": "ephemeral", "ttl": "1h"},
                "extras": {"anthropic": {"citations": {"enabled": True}}},
            },
            {"type": "image", "base64": PNG, "mime_type": "image/png", "detail": "high"},
        ],
        "name": "alice",
    },
    {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "A 1x1 image.",
                "signature": "sig",
                "provider": "anthropic",
            },
            {
                "type": "reasoning",
                "summary": ["Looked at it."],
                "encrypted_content": "gAAA",
                "provider": "openai_responses",
                "id": "rs_1",
            },
            {"type": "refusal", "text": "I cannot identify people."},
            {"type": "text", "text": "A tiny PNG."},
        ],
        "tool_calls": [
            {
                "id": "call_1",
                "name": "zoom",
                "arguments": {"factor": 2},
                "index": 3,
                "extras": {"gemini": {"thought_signature": "ts"}},
            }
        ],
        "usage": {"input_tokens": 5, "output_tokens": 6, "total_tokens": 11},
        "model": "gemini-2.5-pro",
        "provider": "gemini",
        "response_id": "resp-1",
        "finish_reason": "tool_calls",
        "raw_finish_reason": "STOP",
        "response_metadata": {"gemini": {"model_version": "2.5"}},
        "id": "m3",
        "metadata": {"latency_ms": 812},
    },
    {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "zoomed",
        "status": "success",
        "artifact": None,
    },
    {"role": "assistant", "tool_calls": [{"id": "c9", "name": "done", "arguments": {}}]},
]


def test_conversation_to_langchain_shapes() -> None:
    system, user, reply, tool, last = to_langchain(chatschema.parse_messages(CONVERSATION))
    assert dump(system) == dump(
        lc.SystemMessage(
            "Be brief.", additional_kwargs={"chatschema": {"metadata": {"tenant": "acme"}}}
        )
    )
    assert isinstance(user, lc.HumanMessage)
    assert user.name == "alice"
    assert user.content == [
        {
            "type": "text",
            "text": "Describe this.",
            "extras": {
                "cache_control": {"type": "ephemeral", "ttl": "1h"},
                "chatschema": {"extras": {"anthropic": {"citations": {"enabled": True}}}},
            },
        },
        {"type": "image", "base64": PNG, "mime_type": "image/png", "extras": {"detail": "high"}},
    ]
    assert isinstance(reply, lc.AIMessage)
    assert reply.content == [
        {
            "type": "reasoning",
            "reasoning": "A 1x1 image.",
            "extras": {"signature": "sig", "chatschema": {"provider": "anthropic"}},
        },
        {
            "type": "reasoning",
            "id": "rs_1",
            "extras": {
                "encrypted_content": "gAAA",
                "chatschema": {"summary": ["Looked at it."], "provider": "openai_responses"},
            },
        },
        {"type": "refusal", "refusal": "I cannot identify people."},
        {"type": "text", "text": "A tiny PNG."},
    ]
    assert reply.tool_calls == [
        {"name": "zoom", "args": {"factor": 2}, "id": "call_1", "type": "tool_call"}
    ]
    assert reply.usage_metadata == {"input_tokens": 5, "output_tokens": 6, "total_tokens": 11}
    assert reply.response_metadata == {
        "model_name": "gemini-2.5-pro",
        "model_provider": "google_genai",
        "id": "resp-1",
        "finish_reason": "STOP",
        "output_version": "v1",
    }
    assert reply.additional_kwargs == {
        "chatschema": {
            "metadata": {"latency_ms": 812},
            "tool_calls": [
                {"index": 3, "extras": {"gemini": {"thought_signature": "ts"}}, "id": "call_1"}
            ],
            "provider": "gemini",
            "response_metadata": {"gemini": {"model_version": "2.5"}},
            "finish_reason": "tool_calls",
        }
    }
    assert reply.id == "m3"
    assert dump(tool) == dump(
        lc.ToolMessage("zoomed", tool_call_id="call_1", status="success", artifact=None)
    )
    assert isinstance(last, lc.AIMessage)
    assert last.content == ""
    assert last.additional_kwargs == {"chatschema": {"unset": ["content"]}}


def test_conversation_round_trip_is_the_identity() -> None:
    neutral = chatschema.parse_messages(CONVERSATION)
    back = from_langchain(to_langchain(neutral))
    assert [to_dict(message) for message in back] == CONVERSATION


def test_conversation_object_is_accepted() -> None:
    conversation = chatschema.parse_conversation({"messages": CONVERSATION[:2]})
    assert [type(m).__name__ for m in to_langchain(conversation)] == [
        "SystemMessage",
        "HumanMessage",
    ]


def _fixture_messages() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for kind in ("Message", "SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage"):
        for path in sorted((FIXTURES / "valid" / kind).glob("*.json")):
            found.append((f"{kind}/{path.stem}", json.loads(path.read_text("utf-8"))))
    for path in sorted((FIXTURES / "valid" / "Conversation").glob("*.json")):
        for number, message in enumerate(json.loads(path.read_text("utf-8"))["messages"]):
            found.append((f"Conversation/{path.stem}/{number}", message))
    return found


@pytest.mark.parametrize(("name", "message"), _fixture_messages(), ids=lambda x: str(x)[:60])
def test_every_valid_fixture_round_trips(name: str, message: dict[str, Any]) -> None:
    assert neutral_round_trip(message) == message


@pytest.mark.parametrize(
    "path",
    sorted((FIXTURES / "valid" / "AssistantMessageChunk").glob("*.json")),
    ids=lambda path: path.stem,
)
def test_every_valid_chunk_fixture_round_trips(path: Any) -> None:
    data = json.loads(path.read_text("utf-8"))
    assert to_dict(chunk_from_langchain(chunk_to_langchain(data))) == data


@pytest.mark.parametrize(
    ("provider", "model_provider"),
    [
        ("openai_chat", "openai"),
        ("openai_responses", "openai"),
        ("gemini", "google_genai"),
        ("anthropic", "anthropic"),
        ("mistral", "mistral"),
    ],
)
def test_provider_names(provider: str, model_provider: str) -> None:
    message = message_to_langchain({"role": "assistant", "content": "x", "provider": provider})
    assert message.response_metadata["model_provider"] == model_provider
    assert to_dict(message_from_langchain(message))["provider"] == provider


def test_extras_that_would_collide_are_escaped_whole() -> None:
    data = {
        "role": "user",
        "content": [{"type": "text", "text": "x", "extras": {"langchain": {"text": "clash"}}}],
        "extras": {"langchain": {"content": "clash", "foo": 1}},
    }
    message = message_to_langchain(data)
    assert message.content == [
        {
            "type": "text",
            "text": "x",
            "extras": {"chatschema": {"extras": {"langchain": {"text": "clash"}}}},
        }
    ]
    assert message.additional_kwargs == {
        "chatschema": {"extras": {"langchain": {"content": "clash", "foo": 1}}}
    }
    assert neutral_round_trip(data) == data


def test_stale_tool_call_block_is_not_put_back() -> None:
    message = lc.AIMessage(
        content_blocks=[
            {"type": "text", "text": "calling"},
            {"type": "tool_call", "name": "f", "args": {"a": 1}, "id": "c1"},
        ]
    )
    neutral = to_dict(message_from_langchain(message))
    neutral["tool_calls"][0]["arguments"] = {"a": 2}
    back = message_to_langchain(neutral)
    assert back.content == [{"type": "text", "text": "calling"}]
    assert back.tool_calls == [{"name": "f", "args": {"a": 2}, "id": "c1", "type": "tool_call"}]


# --------------------------------------------------------------------------- chunks


def test_chunks_from_langchain_and_merged() -> None:
    first = lc.AIMessageChunk(
        content="",
        tool_call_chunks=[{"name": "get_weather", "args": '{"city": ', "id": "call_1", "index": 0}],
        id="run-1",
    )
    last = lc.AIMessageChunk(
        content="",
        tool_call_chunks=[{"name": None, "args": '"Paris"}', "id": None, "index": 0}],
        usage_metadata={"input_tokens": 9, "output_tokens": 4, "total_tokens": 13},
        response_metadata={"finish_reason": "tool_calls", "model_name": "gpt-4o"},
        chunk_position="last",
    )
    one, two = chunk_from_langchain(first), chunk_from_langchain(last)
    assert to_dict(one) == {
        "role": "assistant",
        "content": "",
        "tool_call_chunks": [
            {"id": "call_1", "name": "get_weather", "arguments": '{"city": ', "index": 0}
        ],
        "id": "run-1",
    }
    assert to_dict(two) == {
        "role": "assistant",
        "content": "",
        "tool_call_chunks": [{"arguments": '"Paris"}', "index": 0}],
        "usage": {"input_tokens": 9, "output_tokens": 4, "total_tokens": 13},
        "chunk_position": "last",
        "model": "gpt-4o",
        "finish_reason": "tool_calls",
        "raw_finish_reason": "tool_calls",
    }
    assert dump(chunk_to_langchain(one)) == dump(first)
    assert dump(chunk_to_langchain(two)) == dump(last)
    merged = (one + two).to_message()
    assert [to_dict(call) for call in merged.tool_calls] == [
        {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}, "index": 0}
    ]
    assert (first + last).tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}
    ]


def test_chunk_to_langchain_usage_mode_and_blocks() -> None:
    chunk = chatschema.AssistantMessageChunk(
        content=[{"type": "text", "text": "Hel", "index": 0}],
        usage={"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        usage_mode="cumulative",
    )
    message = chunk_to_langchain(chunk)
    assert isinstance(message, lc.AIMessageChunk)
    assert message.content == [{"type": "text", "text": "Hel", "index": 0}]
    assert message.additional_kwargs == {"chatschema": {"usage_mode": "cumulative"}}
    assert message.response_metadata == {"output_version": "v1"}
    assert to_dict(chunk_from_langchain(message)) == to_dict(chunk)


# --------------------------------------------------------------------------- errors


def test_unsupported_message_type_names_the_index() -> None:
    with pytest.raises(ConversionError) as caught:
        from_langchain([lc.HumanMessage("hi"), lc.ChatMessage(content="x", role="critic")])
    assert caught.value.message_index == 1
    assert caught.value.provider == "langchain"
    assert "ChatMessage" in str(caught.value)


def test_tool_message_without_tool_call_id() -> None:
    with pytest.raises(ConversionError, match="non-empty tool_call_id") as caught:
        from_langchain([lc.ToolMessage("x", tool_call_id="")])
    assert caught.value.message_index == 0


def test_escaped_value_that_does_not_fit_lists_the_problem() -> None:
    message = lc.AIMessage("x", additional_kwargs={"chatschema": {"finish_reason": "bogus"}})
    with pytest.raises(ConversionError) as caught:
        from_langchain([message])
    assert [(p.pointer, p.keyword) for p in caught.value.problems] == [("/finish_reason", "enum")]


def test_invalid_neutral_input_is_a_validation_error() -> None:
    with pytest.raises(ValidationError) as caught:
        to_langchain([{"role": "user", "content": "ok"}, {"role": "user"}])
    assert [(p.pointer, p.keyword) for p in caught.value.problems] == [("/1/content", "required")]


def test_chunk_from_langchain_needs_a_chunk() -> None:
    with pytest.raises(ConversionError, match="expected an AIMessageChunk"):
        chunk_from_langchain(lc.AIMessage("x"))  # type: ignore[arg-type]


def test_artifact_that_is_not_json_is_passed_through() -> None:
    artifact = object()
    message = lc.ToolMessage("done", tool_call_id="c1", artifact=artifact)
    neutral = message_from_langchain(message)
    assert isinstance(neutral, chatschema.ToolMessage)
    assert neutral.artifact is artifact
    back = message_to_langchain(neutral)
    assert isinstance(back, lc.ToolMessage)
    assert back.artifact is artifact


def test_fields_langchain_has_no_place_for_are_escaped() -> None:
    data = {
        "role": "assistant",
        "content": [
            {
                "type": "server_tool_call",
                "id": "srv_1",
                "name": "web_search",
                "arguments": {"q": "x"},
                "provider": "anthropic",
            },
            {
                "type": "text",
                "text": "see",
                "annotations": [
                    {
                        "type": "non_standard_annotation",
                        "value": {"type": "container_file_citation"},
                        "provider": "openai_responses",
                    }
                ],
            },
        ],
    }
    message = message_to_langchain(data)
    assert message.content == [
        {
            "type": "server_tool_call",
            "id": "srv_1",
            "name": "web_search",
            "args": {"q": "x"},
            "extras": {"chatschema": {"provider": "anthropic"}},
        },
        {
            "type": "text",
            "text": "see",
            "annotations": [
                {
                    "type": "non_standard_annotation",
                    "value": {"type": "container_file_citation"},
                    "extras": {"chatschema": {"provider": "openai_responses"}},
                }
            ],
        },
    ]
    assert to_dict(message_from_langchain(message)) == data
