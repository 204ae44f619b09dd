"""Shared pieces of the Bedrock Converse codec tests: recorded payloads and helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import recorded
from oracle import validate_request

from chatschema.providers import bedrock_converse as codec

PAYLOADS = Path(__file__).resolve().parents[2] / "payloads" / "bedrock_converse"
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5E"
    "rkJggg=="
)
PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSL0ZpbHRlci9GbGF0ZURlY29kZT4+Cg=="
SIG = "EqQBCkYIBxgCKkBq7fZ3kL0mQ2Yx9c8TtZ1pW4vN6sR3uJ5hG2dF8aK0bE7cX1yV9zM4nL6oP2qS5rT3uW8xY0zA"
WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}


def load(name: str) -> dict[str, Any]:
    """A recorded payload file (its ``request``, ``response`` or ``events`` inside)."""
    data: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def names(prefix: str) -> list[str]:
    """The recorded payload files of a kind (``request``, ``response``, ``stream``), from
    the manifest: an absent one is a skipped test."""
    return [path.stem for path in recorded.listing(PAYLOADS, f"{prefix}_*.json")]


def enc(conversation: Any, **options: Any) -> dict[str, Any]:
    """``encode``, its output validated against botocore's Converse input shape."""
    payload = codec.encode(conversation, **options)
    validate_request("bedrock_converse", payload)
    return payload
