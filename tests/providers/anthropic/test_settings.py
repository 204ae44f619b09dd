"""Anthropic request settings, request extras, and the rules on tool turns and thinking.

Recorded requests (``payloads/anthropic/requests.json``, provenance in that folder's
README) were answered with HTTP 200: each decodes, ``check`` finds nothing, and
``encode`` gives it back. Hand-built conversations cover what no recording has.
"""

from __future__ import annotations

import copy
import importlib
import json
from pathlib import Path
from typing import Any

import pytest
import recorded
from oracle import validate_request

from chatschema import (
    AssistantMessage,
    ReasoningBlock,
    TextBlock,
    ToolCall,
    ToolMessage,
    UnsupportedContentError,
    UserMessage,
    to_dict,
)
from chatschema.providers import anthropic as codec

from .helpers import SIG, enc

ENCODE = importlib.import_module("chatschema.providers.anthropic.encode")
RECORDED = recorded.Lazy(
    Path(__file__).resolve().parents[2] / "payloads" / "anthropic" / "requests.json"
)
"""The recorded requests by name (read when a test uses one: absent, it skips)."""
# Not held to the oracle (the SDK's non-beta request types): recorded with a top-level
# temperature / top_k, which SDK >= 1.0 no longer types (they go through extra_body),
# or with what only the beta types have (output_config.task_budget, compaction blocks).
UNTYPED = {"sampling", "effort_task_budget", "task_budget_only", "context_management"}
HI = {"role": "user", "content": "Hi"}


def conversation(**fields: Any) -> dict[str, Any]:
    """A neutral conversation of one user message and ``fields``."""
    return {"messages": [HI], **fields}


# ------------------------------------------------------------------ recorded


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_recorded_requests_check_clean_and_come_back(name: str) -> None:
    request = RECORDED[name]["request"]
    decoded = codec.decode_conversation(copy.deepcopy(request))
    assert codec.check(decoded) == []
    with_fast = codec.encode(decoded)
    ENCODE.FAST = False
    try:
        assert codec.check(decoded) == []
        assert codec.encode(decoded) == with_fast
    finally:
        ENCODE.FAST = True
    assert with_fast == request
    if name not in UNTYPED:
        validate_request("anthropic", with_fast)


def test_recorded_settings_map_to_the_neutral_fields() -> None:
    def settings(name: str) -> dict[str, Any]:
        decoded = to_dict(codec.decode_conversation(RECORDED[name]["request"]))
        mapped: dict[str, Any] = decoded["settings"]
        return mapped

    assert settings("sampling") == {
        "model": "claude-haiku-4-5",
        "max_output_tokens": 4096,
        "temperature": 0.2,
        "top_k": 40,
    }
    assert settings("stop")["stop"] == ["Paris"]
    assert settings("thinking_enabled_stream")["thinking_budget"] == 1024
    assert settings("adaptive_text_first")["thinking_budget"] == -1
    assert settings("adaptive_display_effort") == {
        "model": "claude-opus-5",
        "max_output_tokens": 4096,
        "reasoning_effort": "xhigh",
        "thinking_budget": -1,
    }
    schema = RECORDED["output_format_schema"]["request"]["output_config"]["format"]["schema"]
    assert settings("output_format_schema")["response_format"] == {
        "type": "json_schema",
        "json_schema": schema,
    }


def test_recorded_extras_keep_every_other_key() -> None:
    def extras(name: str) -> dict[str, Any]:
        decoded = to_dict(codec.decode_conversation(RECORDED[name]["request"]))
        kept: dict[str, Any] = decoded["extras"]["anthropic"]
        return kept

    assert extras("metadata") == {"metadata": {"user_id": "123"}, "stream": False}
    assert extras("adaptive_display_effort")["thinking"] == {"display": "summarized"}
    assert extras("effort_task_budget")["output_config"] == {
        "task_budget": {"total": 20000, "type": "tokens"}
    }
    assert extras("mcp_servers")["mcp_servers"][0]["name"] == "deepwiki"
    assert extras("context_management") == {
        "context_management": {"edits": [{"type": "compact_20260112"}]},
        "stream": False,
    }
    assert extras("container")["container"].startswith("container_")
    assert extras("automatic_cache")["cache_control"] == {"ttl": "5m", "type": "ephemeral"}
    assert extras("sampling")["top_level_sampling"] == ["temperature", "top_k"]


def test_consecutive_assistant_messages_answered_together() -> None:
    """Recorded: two assistant messages in a row, both calls answered in the next user
    message; the API combines same-role messages into one turn. Sent as it came."""
    request = RECORDED["consecutive_assistant"]["request"]
    roles = [message["role"] for message in request["messages"]]
    assert roles[1:3] == ["assistant", "assistant"]
    decoded = codec.decode_conversation(request)
    assert codec.check(decoded) == []
    assert codec.encode(decoded)["messages"] == request["messages"]


def test_a_tool_use_id_may_come_back_in_a_later_turn() -> None:
    """Recorded: one id in two turns, each call answered in its own turn; never rewritten."""
    request = RECORDED["reused_tool_use_id"]["request"]
    ids = [
        block["id"]
        for message in request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_use"
    ]
    assert len(ids) > len(set(ids))
    decoded = codec.decode_conversation(request)
    assert codec.check(decoded) == []
    assert codec.encode(decoded)["messages"] == request["messages"]


# ------------------------------------------------------------- the mapping


def test_every_setting_in_its_wire_key() -> None:
    payload = enc(
        conversation(
            settings={
                "model": "claude-sonnet-4-5",
                "max_output_tokens": 2048,
                "temperature": 0.3,
                "top_p": 0.9,
                "top_k": 20,
                "stop": ["END"],
                "thinking_budget": 1024,
                "reasoning_effort": "medium",
                "response_format": {"type": "json_schema", "json_schema": {"type": "object"}},
            }
        )
    )
    assert payload == {
        "messages": [HI],
        "model": "claude-sonnet-4-5",
        "max_tokens": 2048,
        # SDK >= 1.0: the sampling keys only through extra_body (its MIGRATION.md)
        "extra_body": {"temperature": 0.3, "top_p": 0.9, "top_k": 20},
        "stop_sequences": ["END"],
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "output_config": {
            "effort": "medium",
            "format": {"type": "json_schema", "schema": {"type": "object"}},
        },
    }
    back = to_dict(codec.decode_conversation(payload))
    assert back["settings"]["temperature"] == 0.3
    assert "extras" not in back  # nothing left over: the same conversation
    assert codec.encode(back) == payload


def test_without_settings_no_model_and_no_max_tokens() -> None:
    """max_tokens is required by the API, but only the caller knows it: never invented."""
    payload = enc(conversation())
    assert payload == {"messages": [HI]}
    # the caller's keywords then: client.messages.create(model=..., max_tokens=..., **payload)
    assert enc(conversation(settings={"model": "m"})) == {"messages": [HI], "model": "m"}


def test_sampling_goes_back_where_the_request_had_it() -> None:
    top = {"messages": [HI], "temperature": 0.5, "top_p": 0.8}
    assert codec.encode(codec.decode_conversation(top)) == top
    body = {"messages": [HI], "extra_body": {"temperature": 0.5, "other": 1}}
    decoded = codec.decode_conversation(body)
    assert to_dict(decoded)["settings"] == {"temperature": 0.5}
    assert to_dict(decoded)["extras"] == {"anthropic": {"extra_body": {"other": 1}}}
    assert enc(decoded) == body
    # both at once: the top-level value is the setting, the other stays where it was
    both = {"messages": [HI], "temperature": 0.5, "extra_body": {"temperature": 0.9}}
    assert codec.encode(codec.decode_conversation(both)) == both


@pytest.mark.parametrize(
    ("thinking", "budget"),
    [
        ({"type": "enabled", "budget_tokens": 2048}, 2048),
        ({"type": "enabled", "budget_tokens": 2048, "display": "omitted"}, 2048),
        ({"type": "disabled"}, 0),
        ({"type": "adaptive"}, -1),
        ({"type": "adaptive", "display": "summarized"}, -1),
        ({"type": "between_tools"}, None),  # no neutral budget says it: kept verbatim
        ({"type": "enabled", "budget_tokens": 0}, None),
        ({"type": "future_kind", "x": 1}, None),
    ],
)
def test_thinking_forms(thinking: dict[str, Any], budget: int | None) -> None:
    request = {"messages": [HI], "thinking": thinking}
    decoded = to_dict(codec.decode_conversation(request))
    assert decoded.get("settings", {}).get("thinking_budget") == budget
    if budget is None:
        assert decoded["extras"]["anthropic"]["thinking"] == thinking
    assert codec.encode(decoded) == request


def test_thinking_options_go_with_thinking_that_is_on() -> None:
    decoded = to_dict(
        codec.decode_conversation(
            {"messages": [HI], "thinking": {"type": "adaptive", "display": "omitted"}}
        )
    )
    decoded["settings"]["thinking_budget"] = 4096
    assert enc(decoded)["thinking"] == {
        "type": "enabled",
        "budget_tokens": 4096,
        "display": "omitted",
    }
    decoded["settings"]["thinking_budget"] = 0  # disabled takes no display
    assert enc(decoded)["thinking"] == {"type": "disabled"}
    del decoded["settings"]["thinking_budget"]  # no thinking left for display to go with
    assert "thinking" not in enc(decoded)


def test_output_config_keeps_what_it_does_not_map() -> None:
    request = {
        "messages": [HI],
        "output_config": {"effort": "low", "task_budget": {"type": "tokens", "total": 9}},
    }
    decoded = to_dict(codec.decode_conversation(request))
    assert decoded["settings"] == {"reasoning_effort": "low"}
    assert codec.encode(decoded) == request
    decoded["settings"]["reasoning_effort"] = "high"  # the setting wins, the rest stays
    # (task_budget is typed by the beta SDK types only: no oracle here)
    assert codec.encode(decoded)["output_config"] == {
        "effort": "high",
        "task_budget": {"type": "tokens", "total": 9},
    }
    empty = {"messages": [HI], "output_config": {}}
    assert codec.encode(codec.decode_conversation(empty)) == empty


def test_the_older_output_format_goes_back_as_it_came() -> None:
    """The beta top-level output_format, which SDK 1.0 dropped (output_config.format
    replaces it) and the API still takes."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    request = {"messages": [HI], "output_format": {"type": "json_schema", "schema": schema}}
    decoded = codec.decode_conversation(request)
    assert to_dict(decoded)["settings"] == {
        "response_format": {"type": "json_schema", "json_schema": schema}
    }
    assert codec.encode(decoded) == request


def test_request_keys_kept_verbatim_and_sent_back() -> None:
    request = {
        "messages": [HI],
        "model": "claude-sonnet-4-5",
        "max_tokens": 512,
        "metadata": {"user_id": "u-1"},
        "service_tier": "standard_only",
        "inference_geo": "us",
        "stream": True,
        "speed": "fast",
        "container": {"id": "container_1", "skills": []},
        "mcp_servers": [{"type": "url", "url": "https://mcp.example.com", "name": "x"}],
        "context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]},
        "betas": ["context-management-2025-06-27"],
        "some_future_key": {"anything": [1, None]},
    }
    decoded = codec.decode_conversation(request)
    extras = to_dict(decoded)["extras"]["anthropic"]
    assert set(extras) == set(request) - {"messages", "model", "max_tokens"}
    assert codec.encode(decoded) == request


def test_other_formats_extras_are_never_sent_and_settings_win() -> None:
    # Another format's keys are never sent: a problem by default, left out with "drop".
    doc = conversation(
        settings={"model": "claude-haiku-4-5"},
        extras={
            "openai_chat": {"user": "u", "n": 2},
            "anthropic": {"model": "stale", "metadata": {"user_id": "u"}, "messages": []},
        },
    )
    assert [(p.pointer, p.keyword) for p in codec.check(doc)] == [
        ("/extras/openai_chat/user", "foreign_extras"),
        ("/extras/openai_chat/n", "foreign_extras"),
    ]
    with pytest.raises(UnsupportedContentError, match="/extras/openai_chat/user"):
        enc(doc)
    payload = enc(doc, unsupported="drop")
    assert payload == {
        "messages": [HI],
        "model": "claude-haiku-4-5",
        "metadata": {"user_id": "u"},
    }


def test_top_level_cache_control_is_a_breakpoint() -> None:
    """Automatic caching marks the last cacheable block: one of the four breakpoints."""
    marked = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    document = {
        "messages": [{"role": "user", "content": [marked] * 4}],
        "extras": {"anthropic": {"cache_control": {"type": "ephemeral"}}},
    }
    problems = codec.check(document)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/extras/anthropic/cache_control", "too_many_cache_breakpoints")
    ]
    assert "cache_control" not in codec.encode(document, prompt_cache=False)


# ------------------------------------------------------------ unsupported


@pytest.mark.parametrize(
    ("settings", "pointer", "words"),
    [
        ({"seed": 7}, "/settings/seed", "settings.seed: anthropic has no seed"),
        ({"presence_penalty": 0.5}, "/settings/presence_penalty", "no presence_penalty"),
        ({"frequency_penalty": 0.5}, "/settings/frequency_penalty", "no frequency_penalty"),
        (
            {"response_format": {"type": "json_object"}},
            "/settings/response_format",
            "no JSON mode without a schema",
        ),
        (
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"type": "object"},
                    "description": "An answer.",
                }
            },
            "/settings/response_format/description",
            "without a description",
        ),
        (
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"type": "object"},
                    "strict": False,
                }
            },
            "/settings/response_format/strict",
            "always enforce",
        ),
        ({"thinking_budget": -2}, "/settings/thinking_budget", r"0 \(disabled\) or -1"),
    ],
)
def test_settings_anthropic_cannot_say(settings: dict[str, Any], pointer: str, words: str) -> None:
    document = conversation(settings=settings)
    problems = codec.check(document)
    assert [(p.pointer, p.keyword) for p in problems] == [(pointer, "unsupported_content")]
    with pytest.raises(UnsupportedContentError, match=words):
        codec.encode(document)
    with pytest.raises(UnsupportedContentError, match=words):
        codec.encode(document, check=False)
    for policy in ("drop", "placeholder"):  # left out, never a placeholder
        assert enc(document, unsupported=policy) == {"messages": [HI]} | (
            {"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}}
            if "json_schema" in str(settings)
            else {}
        )


def test_text_format_and_schema_name_need_nothing_sent() -> None:
    """Text is what the API does without a format; the name is OpenAI's (required there)."""
    assert enc(conversation(settings={"response_format": {"type": "text"}})) == {"messages": [HI]}
    named = {
        "type": "json_schema",
        "json_schema": {"type": "object"},
        "name": "answer",
        "strict": True,
    }
    assert enc(conversation(settings={"response_format": named}))["output_config"] == {
        "format": {"type": "json_schema", "schema": {"type": "object"}}
    }


TOOLS = [
    {"name": "lookup", "parameters": {"type": "object"}},
    {"name": "search", "parameters": {"type": "object"}},
]


@pytest.mark.parametrize(("mode", "fallback"), [("auto", "auto"), ("required", "any")])
def test_allowed_tools_choice_is_refused_never_silently_auto(mode: str, fallback: str) -> None:
    choice = {"type": "allowed", "names": ["lookup"], "mode": mode, "parallel": False}
    document = conversation(tools=TOOLS, tool_choice=choice)
    assert [(p.pointer, p.keyword) for p in codec.check(document)] == [
        ("/tool_choice", "unsupported_content")
    ]
    with pytest.raises(UnsupportedContentError, match="limited to named tools"):
        codec.encode(document)
    for policy in ("drop", "placeholder"):
        assert enc(document, unsupported=policy)["tool_choice"] == {
            "type": fallback,
            "disable_parallel_tool_use": True,
        }


# ------------------------------------------------------------ tool turns


def _calls(*ids: str) -> AssistantMessage:
    return AssistantMessage(tool_calls=[ToolCall(id=i, name="f", arguments={}) for i in ids])


def _new(message: Any) -> Any:
    """``message`` marked as a wire message of its own."""
    return message.model_copy(update={"extras": {"anthropic": {"new_message": True}}})


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        (  # two assistant wire messages, results together: one API turn
            [UserMessage(content="q"), _calls("a"), _new(_calls("b")),
             ToolMessage(tool_call_id="a", content="1"),
             ToolMessage(tool_call_id="b", content="2")],
            [],
        ),
        (  # results over two user wire messages, nothing before them: one API turn
            [UserMessage(content="q"), _calls("a", "b"), ToolMessage(tool_call_id="a", content="1"),
             _new(ToolMessage(tool_call_id="b", content="2"))],
            [],
        ),
        (  # an id again in a later turn, once answered
            [UserMessage(content="q"), _calls("a"), ToolMessage(tool_call_id="a", content="1"),
             _calls("a"), ToolMessage(tool_call_id="a", content="2")],
            [],
        ),
        (  # an id twice in one API turn (over two wire messages)
            [UserMessage(content="q"), _calls("a"), _new(_calls("a")),
             ToolMessage(tool_call_id="a", content="1")],
            [("/messages/2/tool_calls/0/id", "duplicate_tool_call_id")],
        ),
        (  # a result in a later user wire message after text: not first in its turn, so
            # its call is unanswered ("tool_use ids were found without tool_result blocks
            # immediately after"); the result itself has a call before it
            [UserMessage(content="q"), _calls("a", "b"), ToolMessage(tool_call_id="a", content="1"),
             _new(UserMessage(content="and")), _new(ToolMessage(tool_call_id="b", content="2"))],
            [("/messages/1/tool_calls/1/id", "unanswered_tool_call")],
        ),
        (  # a result for an id of an earlier turn, answered there: the API takes it
            [UserMessage(content="q"), _calls("a"), ToolMessage(tool_call_id="a", content="1"),
             _calls("b"), ToolMessage(tool_call_id="a", content="2"),
             ToolMessage(tool_call_id="b", content="3")],
            [],
        ),
        (  # a result whose id no call before it has: "unexpected `tool_use_id`"
            [UserMessage(content="q"), _calls("a"), ToolMessage(tool_call_id="a", content="1"),
             ToolMessage(tool_call_id="z", content="2")],
            [("/messages/3/tool_call_id", "orphan_tool_result")],
        ),
    ],
)  # fmt: skip
def test_pairing_follows_the_api_turns(history: list[Any], expected: list[tuple[str, str]]) -> None:
    for fast in (True, False):
        ENCODE.FAST = fast
        try:
            assert [(p.pointer, p.keyword) for p in codec.check(history)] == expected
        finally:
            ENCODE.FAST = True
    if not expected:
        payload = enc(history)
        ids = [b["id"] for m in payload["messages"] if isinstance(m["content"], list)
               for b in m["content"] if b["type"] == "tool_use"]  # fmt: skip
        assert set(ids) <= {"a", "b"}  # ids as given, never rewritten


# ---------------------------------------------------------------- thinking


def _text_then_thinking() -> list[Any]:
    return [
        UserMessage(content="q"),
        AssistantMessage(
            content=[
                TextBlock(text="Let me look."),
                ReasoningBlock(text="Think.", signature=SIG, provider="anthropic"),
            ],
            tool_calls=[ToolCall(id="toolu_1", name="f", arguments={})],
        ),
        ToolMessage(tool_call_id="toolu_1", content="r"),
    ]


def test_thinking_after_text_with_thinking_enabled_is_a_located_problem() -> None:
    document = {"messages": _text_then_thinking(), "settings": {"thinking_budget": 2048}}
    ENCODE.FAST = False
    try:  # the general walk finds it too
        assert [p.keyword for p in codec.check(document)] == ["thinking_order"]
    finally:
        ENCODE.FAST = True
    problems = codec.check(document)
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/1/content/1", "thinking_order")
    ]
    assert "extended thinking" in problems[0].message
    # never reordered: with the rule's check off, the blocks go as they are
    sent = codec.encode(document, check=False)["messages"][1]["content"]
    assert [block["type"] for block in sent] == ["text", "thinking", "tool_use"]
    # without thinking sent, nothing to report
    assert codec.check(document, reasoning="drop") == []


@pytest.mark.parametrize("settings", [None, {"thinking_budget": -1}, {"thinking_budget": 0}])
def test_thinking_order_is_not_checked_without_a_budget(settings: dict[str, Any] | None) -> None:
    """Adaptive thinking replies [text, thinking, text] itself (recorded below): only a
    budget (thinking of type enabled) makes the order a rule."""
    document: dict[str, Any] = {"messages": _text_then_thinking()}
    if settings is not None:
        document["settings"] = settings
    assert codec.check(document) == []


def test_recorded_adaptive_reply_with_text_first_replays_clean() -> None:
    recorded = RECORDED["adaptive_text_first"]
    reply = codec.decode_response(recorded["response"])
    assert isinstance(reply.content, list)
    assert [block.type for block in reply.content] == ["text", "reasoning", "text"]
    history = codec.decode_conversation(recorded["request"])
    history = history.model_copy(
        update={"messages": [*history.messages, reply, UserMessage(content="More?")]}
    )
    assert codec.check(history) == []
    # the blank first text is not sent (the API refuses blank text blocks)
    sent = enc(history)["messages"][1]["content"]
    assert [block["type"] for block in sent] == ["thinking", "text"]


def test_calls_waiting_at_the_end_of_a_history_with_request_off() -> None:
    """``request=False``: a history, not a request; calls still waiting at its end are
    no problem, calls a later message left unanswered still are."""
    history = [UserMessage(content="q"), _calls("a", "b")]
    assert [p.keyword for p in codec.check(history)] == ["unanswered_tool_call"] * 2
    assert codec.check(history, request=False) == []
    partly = [*history, ToolMessage(tool_call_id="a", content="1")]
    assert codec.check(partly, request=False) == []
    moved_on = [*history, UserMessage(content="never mind")]
    assert [p.keyword for p in codec.check(moved_on, request=False)] == ["unanswered_tool_call"] * 2


def test_the_official_client_takes_what_encode_gives() -> None:
    """``client.messages.create(**encode(...))`` with the SDK itself (a mock transport,
    no network): extra_body lands in the body, and the body decodes to the same
    settings, sampling keys at the top level where the REST body has them."""
    import anthropic
    import httpx2

    sent: list[dict[str, Any]] = []
    reply = RECORDED["adaptive_text_first"]["response"]  # read here: absent, the test skips

    def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=reply)

    client = anthropic.Anthropic(
        api_key="test",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(answer)),
    )
    settings = {
        "model": "claude-sonnet-5",
        "max_output_tokens": 1024,
        "temperature": 0.3,
        "top_k": 4,
        "stop": ["###"],
        "thinking_budget": 2048,
        "reasoning_effort": "low",
    }
    neutral = conversation(settings=settings, extras={"anthropic": {"metadata": {"user_id": "u"}}})
    reply = client.messages.create(**enc(neutral))
    assert codec.decode_response(reply).text == "\n\n2 + 2 = **4**"
    (body,) = sent
    assert body == {
        "model": "claude-sonnet-5",
        "max_tokens": 1024,
        "messages": [HI],
        "temperature": 0.3,
        "top_k": 4,
        "stop_sequences": ["###"],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "output_config": {"effort": "low"},
        "metadata": {"user_id": "u"},
    }
    decoded = codec.decode_conversation(body)
    assert to_dict(decoded)["settings"] == settings
    assert codec.encode(decoded) == body


@pytest.mark.parametrize(
    "settings",
    [
        {"model": "claude-haiku-4-5", "max_output_tokens": 0},
        {"temperature": 1.0, "top_p": 0.5, "top_k": 1, "stop": []},
        {"thinking_budget": 0},
        {"thinking_budget": -1, "reasoning_effort": "max"},
        {"thinking_budget": 32000},
        {"response_format": {"type": "json_schema", "json_schema": {"type": "object"}}},
    ],
)
def test_neutral_settings_come_back(settings: dict[str, Any]) -> None:
    document = conversation(settings=settings)
    assert to_dict(codec.decode_conversation(enc(document))) == document
