"""chatschema.interop.openhands against OpenHands' stored message JSON.

openhands-sdk needs Python 3.12 and cannot be installed here, so the payloads in
``tests/payloads/openhands`` are written by hand exactly as ``Message.model_dump()``
produces them (openhands-sdk 1.58's ``Message`` and its serializers), and the models
below restate the storage shapes of ``openhands.sdk.llm.message`` (1.58) as an
oracle: every document :func:`to_openhands` writes must load into them and dump back
unchanged, key order included.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from conftest import FIXTURES, ROOT
from pydantic import BaseModel, ConfigDict, Field

import chatschema
from chatschema import ConversionError, UnsupportedContentError, to_dict
from chatschema.errors import OptionError
from chatschema.interop.openhands import (
    from_openhands,
    message_from_openhands,
    message_to_openhands,
    to_openhands,
)

PAYLOADS = ROOT / "tests" / "payloads" / "openhands"
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
    "AAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def payload(name: str) -> list[dict[str, Any]]:
    return json.loads((PAYLOADS / f"{name}.json").read_text("utf-8"))  # type: ignore[no-any-return]


# -------------------------------------------------- the storage models, restated


class OHTextContent(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cache_prompt: bool = False
    type: Literal["text"] = "text"
    text: str


class OHImageContent(BaseModel):
    cache_prompt: bool = False
    type: Literal["image"] = "image"
    image_urls: list[str]


class OHMessageToolCall(BaseModel):
    id: str
    responses_item_id: str | None = None
    name: str
    arguments: str
    origin: Literal["completion", "responses"]


class OHThinkingBlock(BaseModel):
    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None


class OHRedactedThinkingBlock(BaseModel):
    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


class OHReasoningItemModel(BaseModel):
    id: str | None = None
    summary: list[str] = Field(default_factory=list)
    content: list[str] | None = None
    encrypted_content: str | None = None
    status: str | None = None


class OHMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["user", "system", "assistant", "tool"]
    content: list[OHTextContent | OHImageContent] = Field(default_factory=list)
    tool_calls: list[OHMessageToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    reasoning_content: str | None = None
    thinking_blocks: list[OHThinkingBlock | OHRedactedThinkingBlock] = Field(default_factory=list)
    responses_reasoning_item: OHReasoningItemModel | None = None


def assert_loads_in_openhands(documents: list[dict[str, Any]]) -> None:
    for document in documents:
        loaded = OHMessage.model_validate(document).model_dump()
        assert json.dumps(loaded) == json.dumps(document)


# ------------------------------------------------------------- OpenHands -> neutral


def test_conversation_to_neutral() -> None:
    messages = [to_dict(message) for message in from_openhands(payload("conversation"))]
    system, user, thinking, tool, responses, tool_image, final = messages
    assert system == {
        "role": "system",
        "content": [
            {
                "type": "text",
                "text": "You are OpenHands agent, a helpful AI assistant that can interact "
                "with a computer to solve tasks.",
                "cache_control": {"type": "ephemeral"},
            },
            {
                "type": "text",
                "text": "<REPOSITORY_INFO>The repository is at /workspace/app.</REPOSITORY_INFO>",
            },
        ],
    }
    assert user == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Why does the login page look broken? Screenshots attached."},
            {
                "type": "image",
                "url": "https://example.com/shot-1.png",
                "extras": {"openhands": {"image_group": 1}},
            },
            {
                "type": "image",
                "base64": PNG,
                "mime_type": "image/png",
                "extras": {"openhands": {"image_group": 1}},
                "cache_control": {"type": "ephemeral"},
            },
        ],
    }
    reasoning = "The user reports a broken login page. I should inspect the CSS first."
    assert thinking == {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": reasoning,
                "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
                "provider": "anthropic",
            },
            {
                "type": "reasoning",
                "encrypted_content": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr"
                "3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB6URj2",
                "provider": "anthropic",
            },
            {"type": "reasoning", "text": reasoning},
            {"type": "text", "text": "Let me look at the stylesheet."},
        ],
        "tool_calls": [
            {
                "id": "toolu_01A09q90qw90lq917835lq9",
                "name": "str_replace_editor",
                "arguments": {"command": "view", "path": "/workspace/app/static/login.css"},
            }
        ],
    }
    assert tool == {
        "role": "tool",
        "tool_call_id": "toolu_01A09q90qw90lq917835lq9",
        "content": "Here's the result of running `cat -n` on /workspace/app/static/login.css:\n"
        "     1\t.login { display: flex }\n     2\t.login form { width: 120% }\n",
        "name": "str_replace_editor",
    }
    assert responses == {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "summary": ["**Checking the layout**", "The form is wider than its container."],
                "encrypted_content": "gAAAAABoofDC9mVx3sR0kQ1v2nT8yJbS4cE7hW0uZ6aLpXq==",
                "provider": "openai_responses",
                "id": "rs_68a1f0c1d9a48190b2",
                "extras": {"openhands": {"status": "completed"}},
            }
        ],
        "tool_calls": [
            {
                "id": "call_8Xq2mH4z",
                "name": "execute_bash",
                "arguments": {
                    "command": "npx playwright screenshot "
                    "http://localhost:3000/login /tmp/login.png"
                },
                "extras": {
                    "openhands": {
                        "origin": "responses",
                        "responses_item_id": "fc_68a1f0c2e4b08190a3",
                        "arguments": '{"command":"npx playwright screenshot '
                        'http://localhost:3000/login /tmp/login.png"}',
                    }
                },
            }
        ],
        "invalid_tool_calls": [
            {
                "id": "call_9Yr3nJ5a",
                "name": "finish",
                "arguments": '{"message": "done"',
                "error": "arguments are not valid JSON: Expecting ',' delimiter: "
                "line 1 column 19 (char 18)",
                "extras": {
                    "openhands": {
                        "origin": "responses",
                        "responses_item_id": "fc_68a1f0c2e4b08190b7",
                        "position": 1,
                    }
                },
            }
        ],
    }
    assert tool_image == {
        "role": "tool",
        "tool_call_id": "call_8Xq2mH4z",
        "content": [
            {"type": "text", "text": "Screenshot saved to /tmp/login.png"},
            {
                "type": "image",
                "base64": PNG,
                "mime_type": "image/png",
                "cache_control": {"type": "ephemeral"},
            },
        ],
        "name": "execute_bash",
    }
    assert final == {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "Gemini-style thinking without a signature.",
                "provider": "anthropic",
            },
            {"type": "reasoning", "text": ""},
            {"type": "text", "text": "The form is 120% wide; I changed it to 100%."},
        ],
    }


def test_legacy_form_keeps_switches_and_truncation_flag() -> None:
    system, user, reply, tool = from_openhands(payload("legacy_1_0"))
    switches = {
        "cache_enabled": True,
        "vision_enabled": False,
        "function_calling_enabled": True,
        "force_string_serializer": False,
    }
    assert system.extras == {"openhands": switches}
    assert to_dict(user)["content"] == [
        {
            "type": "text",
            "text": "List the files.",
            "extras": {"openhands": {"enable_truncation": True}},
        }
    ]
    assert to_dict(reply)["content"] == [
        {
            "type": "reasoning",
            "text": "Run ls.",
            "signature": "ErUBCkYIBRgCIkB0",
            "provider": "anthropic",
        },
        {"type": "text", "text": ""},
    ]
    assert isinstance(tool, chatschema.ToolMessage)
    assert tool.content == "README.md\nsrc\n"


def test_edge_cases_to_neutral() -> None:
    messages = [to_dict(message) for message in from_openhands(payload("edge_cases"))]
    assert messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "type-less text item"},
                {
                    "type": "non_standard",
                    "value": {"cache_prompt": False, "type": "image", "image_urls": []},
                    "extras": {"openhands": {"content_item": True}},
                },
                {
                    "type": "non_standard",
                    "value": {
                        "cache_prompt": False,
                        "type": "image",
                        "image_urls": ["/workspace/screenshot.png"],
                    },
                    "extras": {"openhands": {"content_item": True}},
                },
            ],
            "extras": {"openhands": {"name": ""}},
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "provider": "openai_responses",
                    "extras": {
                        "openhands": {
                            "content": ["first part", "second part"],
                            "status": "incomplete",
                        }
                    },
                }
            ],
            "tool_calls": [],
            "name": "planner",
        },
        {
            "role": "assistant",
            "content": "  ",
            "tool_calls": [
                {
                    "id": "call_ok",
                    "name": "think",
                    "arguments": {},
                    "extras": {"openhands": {"arguments": ""}},
                }
            ],
            "invalid_tool_calls": [
                {
                    "name": "execute_bash",
                    "arguments": '{"command": "pwd"}',
                    "error": "tool call without an id or a name",
                    "extras": {"openhands": {"id": "", "position": 0}},
                },
                {
                    "id": "call_list",
                    "name": "think",
                    "arguments": "[1, 2]",
                    "error": "arguments must be a JSON object, not list",
                    "extras": {"openhands": {"position": 2}},
                },
            ],
        },
        {
            "role": "user",
            "content": "merged user turn",
            "extras": {
                "openhands": {
                    "tool_call_id": "stray",
                    "tool_calls": [
                        {
                            "id": "x",
                            "responses_item_id": None,
                            "name": "ignored",
                            "arguments": "{}",
                            "origin": "completion",
                        }
                    ],
                    "reasoning_content": "not sent for users",
                }
            },
        },
    ]


@pytest.mark.parametrize("name", ["conversation", "legacy_1_0"])
def test_openhands_round_trip_gives_the_same_json(name: str) -> None:
    documents = payload(name)
    assert to_openhands(from_openhands(documents)) == documents


@pytest.mark.parametrize("name", ["conversation", "legacy_1_0"])
def test_round_trip_keeps_key_order(name: str) -> None:
    documents = payload(name)
    assert json.dumps(to_openhands(from_openhands(documents))) == json.dumps(documents)


def test_edge_cases_round_trip_in_dump_form() -> None:
    documents = payload("edge_cases")
    expected = [dict(document) for document in documents]
    expected[0]["content"] = [
        {"cache_prompt": False, "type": "text", "text": "type-less text item"},
        *documents[0]["content"][1:],
    ]
    assert to_openhands(from_openhands(documents)) == expected


def test_objects_and_json_text_are_read() -> None:
    documents = payload("conversation")
    objects = [OHMessage.model_validate(document) for document in documents]
    from_objects = [to_dict(message) for message in from_openhands(objects)]
    from_text = [to_dict(m) for m in from_openhands(json.dumps(documents).encode())]
    from_dicts = [to_dict(message) for message in from_openhands(documents)]
    assert from_objects == from_dicts == from_text
    assert to_dict(message_from_openhands(json.dumps(documents[3]))) == from_dicts[3]


def test_content_given_as_a_string_or_null() -> None:
    assert to_dict(message_from_openhands({"role": "user", "content": "hi"})) == {
        "role": "user",
        "content": "hi",
    }
    assert to_dict(message_from_openhands({"role": "assistant", "content": None})) == {
        "role": "assistant"
    }


# ------------------------------------------------------------- neutral -> OpenHands


NEUTRAL: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Fix the layout.", "cache_control": {"type": "ephemeral"}},
            {"type": "image", "url": "https://example.com/a.png"},
            {"type": "image", "base64": PNG, "mime_type": "image/png"},
        ],
        "name": "alice",
    },
    {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "Inspect CSS.",
                "signature": "c2ln",
                "provider": "anthropic",
            },
            {"type": "reasoning", "encrypted_content": "cmVk", "provider": "anthropic"},
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": ["Plan"],
                "text": "Look at login.css",
                "encrypted_content": "gAAA",
                "provider": "openai_responses",
            },
            {"type": "reasoning", "text": "plain chain of thought"},
            {"type": "text", "text": "Looking."},
        ],
        "tool_calls": [{"id": "call_1", "name": "execute_bash", "arguments": {"command": "ls"}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "login.css", "name": "execute_bash"},
    {"role": "assistant", "content": "Done."},
]


def test_neutral_to_openhands() -> None:
    documents = to_openhands(chatschema.parse_messages(NEUTRAL))
    empty = {
        "tool_calls": None,
        "tool_call_id": None,
        "name": None,
        "reasoning_content": None,
        "thinking_blocks": [],
        "responses_reasoning_item": None,
    }
    assert documents == [
        {
            "role": "system",
            "content": [{"cache_prompt": False, "type": "text", "text": "You are a coding agent."}],
            **empty,
        },
        {
            "role": "user",
            "content": [
                {"cache_prompt": True, "type": "text", "text": "Fix the layout."},
                {
                    "cache_prompt": False,
                    "type": "image",
                    "image_urls": ["https://example.com/a.png"],
                },
                {
                    "cache_prompt": False,
                    "type": "image",
                    "image_urls": [f"data:image/png;base64,{PNG}"],
                },
            ],
            **empty,
            "name": "alice",
        },
        {
            "role": "assistant",
            "content": [{"cache_prompt": False, "type": "text", "text": "Looking."}],
            "tool_calls": [
                {
                    "id": "call_1",
                    "responses_item_id": None,
                    "name": "execute_bash",
                    "arguments": '{"command": "ls"}',
                    "origin": "completion",
                }
            ],
            "tool_call_id": None,
            "name": None,
            "reasoning_content": "plain chain of thought",
            "thinking_blocks": [
                {"type": "thinking", "thinking": "Inspect CSS.", "signature": "c2ln"},
                {"type": "redacted_thinking", "data": "cmVk"},
            ],
            "responses_reasoning_item": {
                "id": "rs_1",
                "summary": ["Plan"],
                "content": ["Look at login.css"],
                "encrypted_content": "gAAA",
                "status": None,
            },
        },
        {
            "role": "tool",
            "content": [{"cache_prompt": False, "type": "text", "text": "login.css"}],
            **empty,
            "tool_call_id": "call_1",
            "name": "execute_bash",
        },
        {
            "role": "assistant",
            "content": [{"cache_prompt": False, "type": "text", "text": "Done."}],
            **empty,
        },
    ]
    assert_loads_in_openhands(documents)


def test_neutral_round_trip_for_what_openhands_holds() -> None:
    back = from_openhands(to_openhands(chatschema.parse_messages(NEUTRAL)))
    assert [to_dict(message) for message in back] == NEUTRAL


def test_what_does_not_cross() -> None:
    message = {
        "role": "assistant",
        "content": [
            {
                "type": "text",
                "text": "Hi",
                "id": "b1",
                "cache_control": {"type": "ephemeral", "ttl": "1h"},
            },
            {"type": "image", "url": "https://example.com/a.png", "detail": "low"},
        ],
        "tool_calls": [
            {
                "id": "c1",
                "name": "f",
                "arguments": {"a": 1},
                "index": 1,
                "extras": {"openai_chat": {"arguments": '{"a":1}'}},
            }
        ],
        "usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        "model": "gpt-4o",
        "provider": "openai_chat",
        "response_id": "r1",
        "finish_reason": "tool_calls",
        "response_metadata": {"openai_chat": {"system_fingerprint": "fp"}},
        "id": "m1",
        "metadata": {"trace": 1},
        "extras": {"openai_chat": {"x": 1}},
    }
    document = message_to_openhands(message)
    assert document["tool_calls"][0]["arguments"] == '{"a":1}'  # the exact text, reused
    assert_loads_in_openhands([document])
    assert to_dict(message_from_openhands(document)) == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}},
            {"type": "image", "url": "https://example.com/a.png"},
        ],
        "tool_calls": [
            {
                "id": "c1",
                "name": "f",
                "arguments": {"a": 1},
                "extras": {"openhands": {"arguments": '{"a":1}'}},
            }
        ],
    }
    tool = message_to_openhands(
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": "boom",
            "status": "error",
            "artifact": [1],
        }
    )
    assert to_dict(message_from_openhands(tool)) == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "boom",
    }


def test_stale_argument_text_is_not_reused() -> None:
    document = message_to_openhands(
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c1",
                    "name": "f",
                    "arguments": {"a": 2},
                    "extras": {"openhands": {"arguments": '{"a":1}'}},
                }
            ],
        }
    )
    assert document["tool_calls"][0]["arguments"] == '{"a": 2}'


def test_responses_origin_follows_the_provider() -> None:
    document = message_to_openhands(
        {
            "role": "assistant",
            "provider": "openai_responses",
            "tool_calls": [{"id": "call_1", "name": "f", "arguments": {}}],
        }
    )
    assert document["tool_calls"] == [
        {
            "id": "call_1",
            "responses_item_id": None,
            "name": "f",
            "arguments": "{}",
            "origin": "responses",
        }
    ]


UNSUPPORTED = {
    "role": "user",
    "content": [
        {"type": "text", "text": "listen"},
        {"type": "audio", "url": "https://example.com/a.wav"},
        {"type": "image", "file_id": "file-1"},
    ],
}


def test_unsupported_content_raises_by_default() -> None:
    with pytest.raises(UnsupportedContentError) as caught:
        to_openhands([{"role": "system", "content": "x"}, UNSUPPORTED])
    assert (caught.value.provider, caught.value.message_index, caught.value.block_index) == (
        "openhands",
        1,
        1,
    )
    assert "audio content cannot be stored" in str(caught.value)


@pytest.mark.parametrize(
    ("policy", "texts"),
    [
        ("drop", ["listen"]),
        (
            "placeholder",
            ["listen", "[audio content omitted]", "[an image given only by file id omitted]"],
        ),
    ],
)
def test_unsupported_content_policies(
    policy: Literal["drop", "placeholder"], texts: list[str]
) -> None:
    (document,) = to_openhands([UNSUPPORTED], unsupported=policy)
    assert [item["text"] for item in document["content"]] == texts


def test_reasoning_openhands_has_no_place_for() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "text": "one"},
            {"type": "reasoning", "text": "two"},
            {"type": "reasoning", "signature": "gemini-signature", "provider": "gemini"},
        ],
    }
    with pytest.raises(UnsupportedContentError) as caught:
        message_to_openhands(message)
    assert caught.value.block_index == 1
    document = message_to_openhands(message, unsupported="drop")
    assert document["reasoning_content"] == "one"
    assert document["content"] == []


def test_unknown_policy() -> None:
    with pytest.raises(OptionError):
        to_openhands([], unsupported="ignore")  # type: ignore[arg-type]


def _fixture_messages() -> list[dict[str, Any]]:
    found = []
    for kind in ("Message", "SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage"):
        for path in sorted((FIXTURES / "valid" / kind).glob("*.json")):
            found.append(json.loads(path.read_text("utf-8")))
    for path in sorted((FIXTURES / "valid" / "Conversation").glob("*.json")):
        found.extend(json.loads(path.read_text("utf-8"))["messages"])
    return found


def test_every_valid_fixture_gives_loadable_stable_json() -> None:
    messages = chatschema.parse_messages(_fixture_messages())
    documents = to_openhands(messages, unsupported="drop")
    assert_loads_in_openhands(documents)
    assert to_openhands(from_openhands(documents), unsupported="drop") == documents


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("data", "reason", "message_index", "block_index"),
    [
        ("[not json", "not valid JSON", None, None),
        ({"role": "user"}, "expected a list of OpenHands messages", None, None),
        ([{"role": "user", "content": []}, 7], "must be an object, not int", 1, None),
        ([{"role": "developer", "content": []}], "unknown role 'developer'", 0, None),
        (
            [{"role": "user", "content": "x"}, {"role": "user", "content": 3}],
            "content must be a list",
            1,
            None,
        ),
        (
            [{"role": "user", "content": [{"type": "video"}]}],
            "unknown content item type 'video'",
            0,
            0,
        ),
        (
            [{"role": "user", "content": [{"type": "text", "text": 1}]}],
            "text must be a string",
            0,
            0,
        ),
        (
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "a"},
                        {"type": "image", "image_urls": "u"},
                    ],
                }
            ],
            "image_urls must be a list of strings",
            0,
            1,
        ),
        ([{"role": "tool", "content": []}], "needs a non-empty tool_call_id", 0, None),
        (
            [{"role": "assistant", "tool_calls": [{"id": "c", "name": "f"}]}],
            "needs string id, name and arguments",
            0,
            None,
        ),
        (
            [{"role": "assistant", "thinking_blocks": [{"type": "other"}]}],
            "unknown thinking block type",
            0,
            None,
        ),
        (
            [{"role": "assistant", "responses_reasoning_item": {"summary": None}}],
            "summary must be a list",
            0,
            None,
        ),
    ],
)
def test_malformed_openhands_data(
    data: Any, reason: str, message_index: int | None, block_index: int | None
) -> None:
    with pytest.raises(ConversionError, match=reason) as caught:
        from_openhands(data)
    assert caught.value.provider == "openhands"
    assert (caught.value.message_index, caught.value.block_index) == (message_index, block_index)


def test_cache_prompt_must_be_a_boolean() -> None:
    with pytest.raises(ConversionError) as caught:
        from_openhands(
            [{"role": "user", "content": [{"type": "text", "text": "x", "cache_prompt": "yes"}]}]
        )
    assert "cache_prompt must be true or false" in str(caught.value)
