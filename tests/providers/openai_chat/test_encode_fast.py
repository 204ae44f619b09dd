"""The fast path of Chat Completions ``encode`` and ``check``, held to the general path.

The encoder writes the common shapes (string content, tool calls without extras, no
name, no extras of the format) itself and pairs tool calls with their results in
the same walk; with ``_FAST`` off every message takes the general path and check
pairs the calls in a walk of its own. Both must give the same thing on every input:
the same request (equal, keys in the same order), the same error (type, message,
problems, message and block), the same problems from ``check``. Inputs: every wire
payload of the decode tests and every request seed of every format (decoded, so
other formats' extras come along), every conformance fixture, and generated
histories mixing the common shapes with every detail that sends a message down the
general path. The Responses test (``openai_responses/test_encode_fast.py``) uses the
same inputs and comparison. Last, the shortcut of ``to_conversation`` (a list of
message models is not validated again) is held to validation.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import hostile as H
import pytest
from hostile import CONVERSATIONS, conversation_of, decoded_request_seeds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatschema
from chatschema import Conversation, limits
from chatschema.errors import ChatSchemaError, ValidationError
from chatschema.providers import PROVIDERS, ProviderName, get_codec
from chatschema.providers._common import to_conversation
from providers.openai_chat.test_decode import WIRE_CASES

NAME: ProviderName = "openai_chat"
ENCODE = importlib.import_module("chatschema.providers.openai_chat.encode")

# Every option that changes what the encoder writes, alone, and some together.
OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"check": False},
    {"content_format": "string"},
    {"content_format": "parts"},
    {"native_tools": False},
    {"unsupported": "drop"},
    {"unsupported": "placeholder", "check": False},
    {"system_role": "developer"},
    {"reasoning": "text", "reasoning_content": True},
    {"vision": False, "prompt_cache": False, "unsupported": "placeholder"},
    {"content_format": "string", "unsupported": "drop", "check": False},
]


# ------------------------------------------------------------------ comparing the paths


@contextmanager
def general_path(module: ModuleType) -> Iterator[None]:
    """Every message down the general path (the fast path off) while inside."""
    module._FAST = False  # type: ignore[attr-defined]
    try:
        yield
    finally:
        module._FAST = True  # type: ignore[attr-defined]


def outcome(call: Callable[[], Any]) -> Any:
    """What a call gives: its result as JSON text (key order kept), or its error."""
    try:
        result = call()
    except ChatSchemaError as error:
        return (
            "error",
            type(error).__name__,
            str(error),
            [(p.pointer, p.keyword, p.message) for p in getattr(error, "problems", None) or ()],
            getattr(error, "message_index", None),
            getattr(error, "block_index", None),
        )
    if isinstance(result, list):  # check's problems
        return ("problems", [(p.pointer, p.keyword, p.message) for p in result])
    return ("ok", json.dumps(result, ensure_ascii=False))


def assert_same_paths(module: ModuleType, provider: ProviderName, conversation: Any) -> None:
    """``encode`` and ``check`` give the same with and without the fast path."""
    codec = get_codec(provider)
    for options in OPTION_SETS:
        encode = functools.partial(codec.encode, conversation, **options)
        check = functools.partial(codec.check, conversation, **options)
        fast, fast_check = outcome(encode), outcome(check)
        with general_path(module):
            general, general_check = outcome(encode), outcome(check)
        assert fast == general, options
        assert fast_check == general_check, options


def decoded_seeds() -> list[tuple[str, Conversation]]:
    """Every request seed of every format, decoded (other formats' extras included)."""
    out: list[tuple[str, Conversation]] = []
    for provider in PROVIDERS:
        for name, conversation in decoded_request_seeds(provider):
            number = name.removeprefix("seed/")
            out.append((f"{provider}-{number}", conversation))
    return out


DECODED = decoded_seeds()
FIXTURES = [chatschema.parse(document, "Conversation") for document in CONVERSATIONS]

# ------------------------------------------------------------------ generated histories

TEXT = st.text(st.sampled_from(list('ab \n.é日😀"\\{}')), max_size=12)
IDS = st.sampled_from(["c1", "c2", "c3", "c4"])  # few ids: orphans, duplicates, unanswered
TOOL_NAMES = st.sampled_from(["run", "read_file", "bad name!", "x" * 65])
ARGUMENTS = st.dictionaries(
    st.sampled_from(["path", "n", "q"]),
    st.none() | st.booleans() | st.integers(-5, 5) | TEXT | st.lists(st.integers(0, 3), max_size=2),
    max_size=3,
)
# extras of this format and of another, on messages, calls and blocks: the general
# path reads them, the fast path must step aside
MESSAGE_EXTRAS: st.SearchStrategy[Any] = st.sampled_from(
    [
        None,
        None,
        None,
        {"anthropic": {"x": 1}},
        {"openai_chat": {}},
        {"openai_chat": {"role": "developer"}},
        {"openai_chat": {"content_shape": "list"}},
        {"openai_chat": {"content_shape": "null"}},
        {"openai_chat": {"send_name": True}},
        {"openai_chat": {"audio": {"id": "a1"}}},
        {"openai_chat": "not an object"},
        {"openai_responses": {"item": {"id": "msg_1", "status": "completed"}}},
        {"openai_responses": {"role": "developer"}},
        {"openai_responses": {"string_input": True}},
        {"openai_responses": {}},
    ]
)
CALL_EXTRAS: st.SearchStrategy[Any] = st.sampled_from(
    [
        None,
        None,
        None,
        {"gemini": {"thought_signature": "c2ln"}},
        {"anthropic": {"x": 1}},  # another format's key: a foreign-extras problem
        {"openai_chat": {"arguments": '{"path": "a"}'}},
        {"openai_chat": {"type": "custom"}},
        {"openai_chat": {"no_type": True}},
        {"openai_responses": {"id": "fc_1", "status": "completed"}},
        {"openai_responses": {"arguments": "{}"}},
    ]
)
BLOCK_EXTRAS: st.SearchStrategy[Any] = st.sampled_from(
    [None, None, {"openai_chat": {"part": True}}, {"openai_responses": {"item": {"id": "m1"}}}]
)
CACHE = st.sampled_from([None, None, {"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}])


@st.composite
def blocks(draw: st.DrawFn) -> dict[str, Any]:
    """A content block: mostly text, now and then something else."""
    kind = draw(st.sampled_from(["text", "text", "text", "image", "reasoning", "refusal", "file"]))
    block: dict[str, Any]
    if kind == "text":
        block = {"type": "text", "text": draw(TEXT)}
        if draw(st.booleans()):
            block["id"] = draw(st.sampled_from(["msg_1", "msg_2"]))
    elif kind == "image":
        block = {"type": "image", "url": "https://example.com/a.png"}
    elif kind == "reasoning":
        block = {"type": "reasoning", "text": draw(TEXT)}
        provider = draw(st.sampled_from([None, "openai_chat", "openai_responses", "anthropic"]))
        if provider is not None:
            block["provider"] = provider
        if draw(st.booleans()):
            block["id"] = "rs_1"
    elif kind == "refusal":
        block = {"type": "refusal", "text": draw(TEXT)}
    else:
        block = {"type": "file", "url": "https://example.com/a.pdf"}
    cache = draw(CACHE)
    if cache is not None and kind != "reasoning":
        block["cache_control"] = cache
    extras = draw(BLOCK_EXTRAS)
    if extras is not None:
        block["extras"] = extras
    return block


CONTENT = TEXT | TEXT | TEXT | st.lists(blocks(), max_size=3)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """One message of any role, mostly of the common shapes."""
    role = draw(st.sampled_from(["system", "user", "user", "assistant", "assistant", "tool"]))
    data: dict[str, Any] = {"role": role}
    if role == "tool":
        data["tool_call_id"] = draw(IDS)
        data["content"] = draw(CONTENT)
    elif role == "assistant":
        if draw(st.integers(0, 4)):  # unset content, now and then
            data["content"] = draw(CONTENT)
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            call: dict[str, Any] = {
                "id": draw(IDS),
                "name": draw(TOOL_NAMES),
                "arguments": draw(ARGUMENTS),
            }
            extras = draw(CALL_EXTRAS)
            if extras is not None:
                call["extras"] = extras
            if not draw(st.integers(0, 5)):
                call["index"] = draw(st.integers(0, 3))
            calls.append(call)
        if calls:
            data["tool_calls"] = calls
        if not draw(st.integers(0, 6)):
            data["invalid_tool_calls"] = [
                {"id": draw(st.none() | IDS), "name": draw(TEXT), "arguments": "{"}
            ]
    else:
        data["content"] = draw(CONTENT)
    if not draw(st.integers(0, 5)):
        data["name"] = draw(st.sampled_from(["alice", "bad name!"]))
    extras = draw(MESSAGE_EXTRAS)
    if extras is not None:
        data["extras"] = extras
    return data


def _history(documents: list[dict[str, Any]]) -> list[Any]:
    out = []
    for document in documents:
        try:
            out.append(chatschema.parse(document, "Message"))
        except ChatSchemaError:
            continue  # a combination the schema refuses: left out
    return out


HISTORIES = st.lists(messages(), max_size=12).map(_history)

# ------------------------------------------------------------------ the tests


def test_the_switch_reaches_the_general_path() -> None:
    """Off, the encoder really walks the general path (this test module is not vacuous)."""
    history = [chatschema.user("hi"), chatschema.assistant("hello")]
    encoder_class = ENCODE._Encoder
    options = ENCODE.Options.resolve(NAME, {})
    assert encoder_class(options, collect=True, explicit_system_role=False).fast
    with general_path(ENCODE):
        assert not encoder_class(options, collect=True, explicit_system_role=False).fast
        assert get_codec(NAME).encode(history) == {
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"},
            ]
        }


@pytest.mark.parametrize(
    "payload", [case[1] for case in WIRE_CASES], ids=[c[0] for c in WIRE_CASES]
)
def test_wire_payloads(payload: dict[str, Any]) -> None:
    assert_same_paths(ENCODE, NAME, get_codec(NAME).decode_conversation(payload))


@pytest.mark.parametrize(("name", "conversation"), DECODED, ids=[name for name, _ in DECODED])
def test_request_seeds_of_every_format(name: str, conversation: Any) -> None:
    assert_same_paths(ENCODE, NAME, conversation_of(conversation))


@pytest.mark.parametrize("conversation", FIXTURES, ids=[str(i) for i in range(len(FIXTURES))])
def test_conformance_fixtures(conversation: Conversation) -> None:
    assert_same_paths(ENCODE, NAME, conversation)


@pytest.mark.parametrize(("where", "messages"), H.FOREIGN_AT)
def test_foreign_extras_are_found_wherever_they_sit(where: str, messages: list[Any]) -> None:
    """The fast walk tells the foreign-extras check which messages to read."""
    history = _history(messages)
    assert [p.pointer for p in get_codec(NAME).check(history)] == [where]
    assert_same_paths(ENCODE, NAME, history)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HISTORIES)
def test_generated_histories(history: list[Any]) -> None:
    assert_same_paths(ENCODE, NAME, history)


@settings(max_examples=100, deadline=None)
@given(HISTORIES)
def test_a_list_of_messages_becomes_the_conversation_validation_gives(history: list[Any]) -> None:
    """``to_conversation`` builds the conversation around message models of the exact
    classes: what validating ``{"messages": [...]}`` gives, the same objects inside."""
    built = to_conversation(history)
    validated = chatschema.parse({"messages": history}, "Conversation")
    assert built == validated
    assert built.model_fields_set == validated.model_fields_set
    assert all(a is b for a, b in zip(built.messages, history, strict=True))
    assert to_conversation(tuple(history)) == validated


def test_a_list_past_the_message_limit_is_still_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_MESSAGES", 2)
    with pytest.raises(ValidationError):
        to_conversation([chatschema.user("a"), chatschema.user("b"), chatschema.user("c")])
    assert len(to_conversation([chatschema.user("a"), chatschema.user("b")]).messages) == 2
