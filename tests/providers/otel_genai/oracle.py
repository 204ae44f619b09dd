"""The GenAI conventions' JSON Schemas as the oracle for ``otel_genai`` output.

The four attribute schemas (``tests/payloads/otel_genai/schemas``, copied from
open-telemetry/semantic-conventions-genai, see the README there) are validated with
``jsonschema`` (Draft 2020-12; the draft-07 meta-schema the tool definitions refer to
comes from ``jsonschema-specifications``, offline). Strict on top of the schemas:

- every part union ends in a catch-all that takes any object with a string ``type``,
  so a part whose ``type`` names a typed part is also held to that part's definition
  (``{"type": "tool_call_response", "result": ...}`` fails here);
- the other attributes are span attribute values (a string, a boolean, a number or a
  list of one of those), with the registry's type for the ``gen_ai.request.*``
  settings.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import referencing
from jsonschema_specifications import REGISTRY as META_SCHEMAS

SCHEMAS = Path(__file__).resolve().parents[2] / "payloads" / "otel_genai" / "schemas"

FILES = {
    "gen_ai.system_instructions": "gen-ai-system-instructions.json",
    "gen_ai.input.messages": "gen-ai-input-messages.json",
    "gen_ai.output.messages": "gen-ai-output-messages.json",
    "gen_ai.tool.definitions": "gen-ai-tool-definitions.json",
}
TYPED_PARTS = {
    "text": "TextPart",
    "tool_call": "ToolCallRequestPart",
    "tool_call_response": "ToolCallResponsePart",
    "server_tool_call": "ServerToolCallPart",
    "server_tool_call_response": "ServerToolCallResponsePart",
    "blob": "BlobPart",
    "file": "FilePart",
    "uri": "UriPart",
    "reasoning": "ReasoningPart",
    "compaction": "CompactionPart",
}
NUMBER = (int, float)
SETTINGS: dict[str, Any] = {
    "gen_ai.request.model": str,
    "gen_ai.request.max_tokens": int,
    "gen_ai.request.temperature": NUMBER,
    "gen_ai.request.top_p": NUMBER,
    "gen_ai.request.top_k": NUMBER,
    "gen_ai.request.seed": int,
    "gen_ai.request.presence_penalty": NUMBER,
    "gen_ai.request.frequency_penalty": NUMBER,
    "gen_ai.conversation.id": str,
    "gen_ai.output.type": str,
}


@cache
def schema(attribute: str) -> dict[str, Any]:
    """The JSON Schema of a structured attribute."""
    return json.loads((SCHEMAS / FILES[attribute]).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def validator(attribute: str, definition: str | None = None) -> jsonschema.protocols.Validator:
    """A validator for an attribute's schema, or for one of its ``$defs``."""
    document = schema(attribute)
    if definition is not None:
        document = {"$defs": document["$defs"], "$ref": f"#/$defs/{definition}"}
    registry: referencing.Registry[Any] = META_SCHEMAS  # draft-07 resolved offline
    return jsonschema.Draft202012Validator(document, registry=registry)


def _check(attribute: str, value: Any, definition: str | None = None, where: str = "") -> None:
    errors = sorted(validator(attribute, definition).iter_errors(value), key=str)
    if errors:
        first = errors[0]
        path = "/".join(str(step) for step in first.absolute_path)
        raise AssertionError(f"{attribute}{where}/{path}: {first.message}"[:2000])


def _parts(attribute: str, parts: Any, where: str) -> None:
    defined = schema(attribute)["$defs"]
    for position, part in enumerate(parts):
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(kind, str) and TYPED_PARTS.get(kind) in defined:
            _check(attribute, part, TYPED_PARTS[kind], f"{where}/{position}")


def validate_value(attribute: str, value: Any) -> None:
    """Assert that a structured attribute's value (data or JSON text) is valid, strictly."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            raise AssertionError(f"{attribute}: not JSON text ({error})") from None
    _check(attribute, value)
    if attribute == "gen_ai.system_instructions":
        _parts(attribute, value, "")
    elif attribute == "gen_ai.tool.definitions":
        for position, tool in enumerate(value):
            if tool.get("type") == "function":
                _check(attribute, tool, "FunctionToolDefinition", f"/{position}")
    else:
        for index, message in enumerate(value):
            _parts(attribute, message["parts"], f"/{index}/parts")
            for position, part in enumerate(message["parts"]):
                response = part.get("response") if isinstance(part, dict) else None
                if (
                    part.get("type") == "tool_call_response"
                    and isinstance(response, list)
                    and all(isinstance(item, dict) and "type" in item for item in response)
                ):
                    _parts(attribute, response, f"/{index}/parts/{position}/response")


def _attribute_value(key: str, value: Any) -> None:
    """A span attribute value: a primitive or a list of one primitive type."""
    primitive = (str, bool, int, float)
    if isinstance(value, list):
        kinds = {type(item) for item in value}
        assert len(kinds) <= 1 and kinds <= set(primitive), f"{key}: not an attribute value"
    else:
        assert isinstance(value, primitive), f"{key}: not an attribute value ({value!r})"


def validate_attributes(payload: dict[str, Any]) -> None:
    """Assert that what ``encode`` returned are valid GenAI attributes."""
    json.dumps(payload)
    assert "gen_ai.input.messages" in payload, "missing gen_ai.input.messages"
    for key, value in payload.items():
        if key in FILES:
            validate_value(key, value)
            continue
        _attribute_value(key, value)
        kind = SETTINGS.get(key)
        if kind is not None:
            assert isinstance(value, kind) and not isinstance(value, bool), f"{key}={value!r}"
        if key == "gen_ai.request.stop_sequences":
            assert isinstance(value, list) and all(isinstance(s, str) for s in value), key
        if key == "gen_ai.request.max_tokens":
            assert value >= 0, key
