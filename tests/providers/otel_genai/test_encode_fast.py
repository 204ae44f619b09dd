"""The fast walk of the OpenTelemetry GenAI encoder, held to the general walk.

``encode`` writes text messages without extras in one walk (``fast.fast_messages``)
and hands every other message to the general path. Each input is encoded with that
walk on and off (``encode.FAST``): the same attributes (as JSON text: key order
counts), the same error, the same problems. The inputs: every conformance fixture,
the shared seeds decoded, and generated histories mixing plain messages with ones
that leave the fast walk.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import hostile as H
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chatschema.errors import ChatSchemaError
from chatschema.providers import otel_genai as codec

ENCODE = importlib.import_module("chatschema.providers.otel_genai.encode")

OPTIONS: list[dict[str, Any]] = [
    {},
    {"check": False},
    {"unsupported": "drop"},
    {"vision": False, "unsupported": "placeholder"},
    {"reasoning": "drop", "json_strings": True},
    {"system_instructions": True, "export_opaque": True},
    {"inline_data": "omit", "max_inline_chars": 8},
]


def outcome(verb: Any, conversation: Any, options: dict[str, Any]) -> Any:
    try:
        result = verb(conversation, **options)
    except ChatSchemaError as error:
        problems = [(p.pointer, p.keyword, p.message) for p in getattr(error, "problems", [])]
        return ("error", type(error).__name__, str(error), problems)
    if isinstance(result, list):
        return [(p.pointer, p.keyword, p.message) for p in result]
    return json.dumps(result)


def both(conversation: Any, options: dict[str, Any]) -> None:
    for verb in (codec.encode, codec.check):
        ENCODE.FAST = True
        try:
            fast = outcome(verb, conversation, options)
        finally:
            ENCODE.FAST = False
        try:
            general = outcome(verb, conversation, options)
        finally:
            ENCODE.FAST = True
        assert fast == general


def inputs() -> list[Any]:
    out: list[Any] = list(H.CONVERSATIONS)
    for seed in H.request_seeds("otel_genai"):
        try:
            out.append(codec.decode_conversation(seed))
        except ChatSchemaError:
            continue
    return out


INPUTS = inputs()


@pytest.mark.parametrize("options", OPTIONS, ids=[json.dumps(o) for o in OPTIONS])
def test_fixtures_and_seeds(options: dict[str, Any]) -> None:
    assert len(INPUTS) > 20
    for conversation in INPUTS:
        both(conversation, options)


MESSAGES = st.sampled_from(
    [
        {"role": "user", "content": "Hi"},
        {"role": "user", "content": ""},
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": "Hello"},
        {"role": "user", "content": "Named", "name": "bob"},
        {"role": "user", "content": "Id", "id": "m1"},
        {"role": "user", "content": [{"type": "text", "text": "block"}]},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c", "name": "f", "arguments": {}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": "r"},
        {"role": "user", "content": "joined", "extras": {"otel_genai": {"joined": True}}},
        {
            "role": "system",
            "content": "lifted",
            "extras": {"otel_genai": {"in_instructions": True}},
        },
        {"role": "assistant", "content": "odd", "extras": {"otel_genai": {"wire_role": "ai"}}},
    ]
)


@H.fuzz_settings(200)
@given(st.lists(MESSAGES, max_size=8), st.sampled_from(OPTIONS))
def test_generated_histories(messages: list[Any], options: dict[str, Any]) -> None:
    both({"messages": messages}, options)
