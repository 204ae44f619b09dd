"""Property tests: documents generated from the schemas survive the models unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

import chatschema

BUNDLE = json.loads((ROOT / "generated" / "chatschema.schema.json").read_text(encoding="utf-8"))
TYPES = [
    "Message",
    "ContentBlock",
    "Conversation",
    "AssistantMessageChunk",
    "Usage",
    "ToolCall",
    "ToolDefinition",
    "ToolChoice",
]


def _exclusive_unions_as_any_of(node: Any) -> Any:
    """``oneOf`` -> ``anyOf`` where a discriminator makes the branches exclusive anyway.

    Same set of valid documents; hypothesis-jsonschema generates ``anyOf`` directly
    instead of filtering every draw through a validator of the whole bundle.
    """
    if isinstance(node, dict):
        out = {key: _exclusive_unions_as_any_of(value) for key, value in node.items()}
        if "discriminator" in out and "oneOf" in out:
            out["anyOf"] = out.pop("oneOf")
        return out
    if isinstance(node, list):
        return [_exclusive_unions_as_any_of(item) for item in node]
    return node


def _conversations() -> st.SearchStrategy[dict[str, Any]]:
    """Conversations built from generated parts (drawing them whole is very slow)."""
    return st.fixed_dictionaries(
        {"messages": st.lists(_strategy("Message"), max_size=4)},
        optional={
            "tools": st.lists(_strategy("ToolDefinition"), max_size=2),
            "tool_choice": _strategy("ToolChoice"),
            "id": st.text(min_size=1),
            "metadata": st.dictionaries(st.text(), st.integers() | st.none(), max_size=2),
        },
    )


def _strategy(type_name: str) -> st.SearchStrategy[Any]:
    if type_name == "Conversation":
        return _conversations()
    schema = _exclusive_unions_as_any_of(
        {key: value for key, value in BUNDLE.items() if key != "$ref"}
    )
    schema["$ref"] = f"#/$defs/{type_name}"
    return from_schema(schema)


@pytest.mark.parametrize("type_name", TYPES)
def test_generated_documents_round_trip(type_name: str) -> None:
    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(_strategy(type_name))
    def check(document: Any) -> None:
        # hypothesis-jsonschema does not know every 2020-12 keyword (dependentRequired,
        # the discriminator); the JSON Schema path is the judge of what is valid.
        assume(chatschema.is_valid(document, type_name))
        model = chatschema.parse(document, type_name)
        dumped = chatschema.to_dict(model)
        assert dumped == document  # absent stays absent, null stays null
        chatschema.validate(dumped, type_name)
        assert chatschema.to_dict(chatschema.parse(json.dumps(document), type_name)) == document

    check()
