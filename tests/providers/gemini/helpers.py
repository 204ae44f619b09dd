"""Helpers the Gemini codec tests share: payload files, signatures, part builders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PAYLOADS = Path(__file__).resolve().parents[2] / "payloads" / "gemini"


SIG_A = "CiQB0e2Kb3Q4d1lVbzdxQmZ2c0ZpaW5YbnJxUVVkZ2xRPT0="
SIG_B = "EtYBCtMBAdHtim9yZWFsbHkgb3BhcXVlIHNpZ25hdHVyZSBieXRlcw=="
SIG_C = "CiIB0e2KbzM0NTY3ODkwYWJjZGVmZ2g="
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
    "rkJggg=="
)
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
PDF = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoK"
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
    "required": ["city"],
}


def load(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


_USER_DATA = {"args", "response", "part_metadata", "parameters", "parameters_json_schema"}


def camel(value: Any) -> Any:
    """A snake_case payload in REST camelCase (user data left alone)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            head, *rest = key.split("_")
            name = head + "".join(word.title() for word in rest)
            out[name] = item if key in _USER_DATA else camel(item)
        return out
    if isinstance(value, list):
        return [camel(item) for item in value]
    return value


_REQUEST_USER_DATA = _USER_DATA | {"response_schema", "response_json_schema", "labels"}


def snake_case(value: Any) -> Any:
    """A REST camelCase request in the snake_case spelling ``encode`` writes (user data
    left alone)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
            out[name] = item if name in _REQUEST_USER_DATA else snake_case(item)
        return out
    if isinstance(value, list):
        return [snake_case(item) for item in value]
    return value


def blocks_of(message: Any) -> list[Any]:
    """A decoded message's content blocks (the content must be a list)."""
    assert isinstance(message.content, list), message.content
    return list(message.content)


def fc(name: str, args: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"name": name, "args": args}
    if id is not None:
        call["id"] = id
    return {"function_call": call}


def fr(name: str, response: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"name": name, "response": response}
    if id is not None:
        result["id"] = id
    return {"function_response": result}


def user(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


def model(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}
