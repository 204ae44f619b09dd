"""Bad input: only chatschema's own exceptions, each saying what and where."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatschema
from chatschema.errors import ConversionError, Problem, json_pointer

BAD_DOCUMENTS: list[Any] = [
    None,
    5,
    "hello",
    [],
    {},
    {"role": 7},
    {"role": "user"},
    {"role": "user", "content": {"type": "text"}},
    {"role": "user", "content": [None, 1, "x", [], {"type": None}]},
    {"role": "assistant", "tool_calls": "not a list"},
    {"role": "assistant", "tool_calls": [{"id": "", "name": "", "arguments": []}]},
    {"role": "assistant", "usage": {"input_tokens": -1, "output_tokens": 1.5}},
    {"role": "tool", "tool_call_id": None, "content": [{"type": "image", "url": "no scheme"}]},
]


@pytest.mark.parametrize("document", BAD_DOCUMENTS, ids=repr)
def test_both_paths_report_problems_with_pointers(document: Any) -> None:
    with pytest.raises(chatschema.SchemaValidationError) as by_schema:
        chatschema.validate(document, "Message")
    with pytest.raises(chatschema.ValidationError) as by_model:
        chatschema.parse(json.dumps(document), "Message")
    for raised in (by_schema.value, by_model.value):
        assert raised.problems
        for problem in raised.problems:
            assert problem.pointer == "" or problem.pointer.startswith("/")
            assert problem.keyword and problem.message
    pairs = {(p.pointer, p.keyword) for p in by_schema.value.problems}
    assert pairs == {(p.pointer, p.keyword) for p in by_model.value.problems}


@pytest.mark.parametrize(
    "text",
    [b"", b"{", b'{"role": "user", "content": "hi"', b"\xff\xfe", "{'role': 'user'}", "nul\x00"],
)
def test_malformed_json(text: str | bytes) -> None:
    with pytest.raises(chatschema.ValidationError) as raised:
        chatschema.parse_message(text)
    assert raised.value.problems[0].keyword == "json"


def test_very_deep_nesting_is_an_error_not_a_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(chatschema.ValidationError):
        chatschema.parse_message('{"role": "user", "content": ' + deep + "}")
    nested: Any = []
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(chatschema.ValidationError):
        chatschema.parse_message({"role": "user", "content": nested})
    with pytest.raises(chatschema.ValidationError):
        chatschema.validate({"role": "user", "content": nested})
    metadata: Any = {}
    for _ in range(100_000):
        metadata = {"a": metadata}
    with pytest.raises(chatschema.ValidationError):
        chatschema.validate({"role": "user", "content": "x", "metadata": metadata, "x": 1})


def test_error_messages_list_every_problem() -> None:
    with pytest.raises(chatschema.ValidationError) as raised:
        chatschema.parse_conversation(
            {"messages": [{"role": "user"}, {"role": "assistant", "extra": 1}], "tools": [{}]}
        )
    text = str(raised.value)
    assert text.startswith("4 problems in Conversation:")
    for pointer in ("/messages/0/content", "/messages/1/extra", "/tools/0/name"):
        assert pointer in text


def test_exception_hierarchy() -> None:
    assert issubclass(chatschema.SchemaValidationError, chatschema.ValidationError)
    assert issubclass(chatschema.ValidationError, chatschema.ChatSchemaError)
    assert issubclass(chatschema.ValidationError, ValueError)
    assert issubclass(chatschema.UnsupportedContentError, ConversionError)
    error = chatschema.UnsupportedContentError(
        "audio is not supported", provider="anthropic", message_index=3, block_index=1
    )
    assert str(error) == "anthropic, message 3, block 1: audio is not supported"
    assert (error.provider, error.message_index, error.block_index) == ("anthropic", 3, 1)
    assert str(Problem("", "json", "bad")) == "(root): bad [json]"
    assert json_pointer(["a/b", "c~d", 0]) == "/a~1b/c~0d/0"


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=25,
)
MESSAGE_LIKE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system", "bogus"])},
    optional={
        "content": JSON_VALUES,
        "tool_calls": JSON_VALUES,
        "tool_call_id": JSON_VALUES,
        "usage": JSON_VALUES,
        "status": JSON_VALUES,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(JSON_VALUES, MESSAGE_LIKE))
def test_arbitrary_json_never_escapes_as_a_foreign_exception(document: Any) -> None:
    schema_ok = chatschema.is_valid(document, "Message")
    try:
        chatschema.parse(json.dumps(document), "Message")
        model_ok = True
    except chatschema.ValidationError:
        model_ok = False
    assert schema_ok == model_ok


def test_long_quoted_values_are_cut_and_nothing_between_two_quoted_values() -> None:
    from chatschema.errors import shorten_quotes

    between = " (the GenAI conventions require a draft-07 JSON Schema for the parameters) "
    text = f"cannot carry tool 'f'{between}use 'drop'"
    assert shorten_quotes(text) == text
    secret = "E" * 80
    assert shorten_quotes(f"a candidate's content has role '{secret}'") == (
        f"a candidate's content has role '{'E' * 24}'... (80 characters)"
    )
    pattern = f"does not match '^{'a' * 80}$' anywhere in the value given here"
    assert shorten_quotes(pattern) == pattern
