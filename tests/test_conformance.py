"""The two validation paths agree with the shared fixtures, and with each other."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import CASES, Case
from pydantic import TypeAdapter

import chatschema
from chatschema.validation import schema_problems

_ANY: TypeAdapter[Any] = TypeAdapter(Any)


def _pairs(
    problems: tuple[chatschema.Problem, ...] | list[chatschema.Problem],
) -> set[tuple[str, str]]:
    return {(problem.pointer, problem.keyword) for problem in problems}


def test_enough_fixtures_cover_every_type() -> None:
    assert len(CASES) >= 150
    covered = {case.type for case in CASES if case.valid}
    objects = {
        name
        for name in chatschema.TYPE_NAMES
        if isinstance(getattr(chatschema, name), type) or name.endswith(("Block", "Choice"))
    }
    assert objects - covered == set()
    for name in ("Message", "ContentBlock", "Conversation", "AssistantMessageChunk"):
        assert any(case.type == name and not case.valid for case in CASES), name


def test_json_schema_path(case: Case) -> None:
    problems = schema_problems(case.instance, case.type)
    if case.valid:
        assert problems == []
    else:
        assert _pairs(problems) == case.errors
        with pytest.raises(chatschema.SchemaValidationError) as raised:
            chatschema.validate(case.instance, case.type)
        assert raised.value.problems == tuple(problems)


def test_pydantic_path(case: Case) -> None:
    if isinstance(case.instance, str):
        pytest.skip("a str is JSON text to parse(); covered from JSON text below")
    if case.valid:
        model = chatschema.parse(case.instance, case.type)
        dumped = _ANY.dump_python(model, mode="json", exclude_unset=True)
        assert dumped == case.instance  # exact round trip: absent stays absent
    else:
        with pytest.raises(chatschema.ValidationError) as raised:
            chatschema.parse(case.instance, case.type)
        assert _pairs(raised.value.problems) == case.errors


def test_pydantic_path_from_json_text(case: Case) -> None:
    import json

    text = json.dumps(case.instance)
    if case.valid:
        chatschema.parse(text, case.type)
    else:
        with pytest.raises(chatschema.ValidationError) as raised:
            chatschema.parse(text.encode(), case.type)
        assert _pairs(raised.value.problems) == case.errors
