"""The Open Responses specification as a test oracle.

Two checks, both strict:

- the shared wire object against the openai SDK's types (``tests/oracle.py``): what
  Open Responses adds (``input_video`` parts, items whose type names a provider) is
  checked here against the specification's shapes (``schema/items.tsp``:
  ``InputVideoContent``; provider-specific items, ``slug:type``) and then set aside;
- the whole value against the published OpenAPI document
  (``public/openapi/openapi.json`` of openresponses/openresponses), when its
  recording is present (:data:`OPENAPI`; absent, the tests that need it skip).
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

OPENAPI = Path(__file__).resolve().parents[2] / "payloads" / "open_responses" / "openapi.json"
"""The OpenAPI document, materialized by tests/recordings/build.py (never committed)."""

# The specification's provider-specific items: the provider's slug, a colon, its type.
_PREFIXED = re.compile(r"[a-z0-9][a-z0-9_.-]*:[a-z0-9_.-]+")
_STAND_IN = {"type": "input_text", "text": ""}


def _video(part: dict[str, Any]) -> dict[str, Any]:
    """An ``input_video`` part checked (items.tsp, InputVideoContent), as a stand-in."""
    assert set(part) == {"type", "video_url"}, part
    assert isinstance(part["video_url"], str) and part["video_url"], part
    return dict(_STAND_IN)


def _parts(parts: Any) -> Any:
    if not isinstance(parts, list):
        return parts
    return [
        _video(p) if isinstance(p, dict) and p.get("type") == "input_video" else p for p in parts
    ]


def _items(items: list[Any]) -> list[Any]:
    """Items with the additions checked and set aside (videos as empty text parts)."""
    out = []
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        if isinstance(kind, str) and ":" in kind:
            assert _PREFIXED.fullmatch(kind), kind
            continue
        if isinstance(item, dict) and "content" in item and kind in (None, "message"):
            item = {**item, "content": _parts(item["content"])}
        if kind == "function_call_output":
            item = {**item, "output": _parts(item["output"])}
        out.append(item)
    return out


def shared_request(payload: dict[str, Any]) -> dict[str, Any]:
    """A request with the Open Responses additions checked and set aside.

    Its message items say ``"type": "message"`` (the OpenAPI document's message item
    params require it; the Responses API's short form without it is not one).
    """
    request = copy.copy(payload)
    if isinstance(request.get("input"), list):
        for item in request["input"]:
            if isinstance(item, dict) and "role" in item:
                assert item.get("type") == "message", f"a message item without its type: {item}"
        request["input"] = _items(request["input"])
    return request


def shared_response(body: dict[str, Any]) -> dict[str, Any]:
    """A response body with the Open Responses additions checked and set aside.

    The specification's ``InputTokensDetails`` requires only ``cached_tokens``; the
    SDK's type also ``cache_write_tokens`` (OpenAI's own usage): 0 stands in for it.
    """
    response = copy.copy(body)
    if isinstance(response.get("output"), list):
        response["output"] = _items(response["output"])
    usage = response.get("usage")
    details = usage.get("input_tokens_details") if isinstance(usage, dict) else None
    if isinstance(details, dict) and "cache_write_tokens" not in details:
        response["usage"] = {**usage, "input_tokens_details": {**details, "cache_write_tokens": 0}}
    return response


# The OpenAPI document's names of the raw reasoning events, and the Responses API's.
_EVENT_NAMES = {
    "response.reasoning.delta": "response.reasoning_text.delta",
    "response.reasoning.done": "response.reasoning_text.done",
}


def shared_event(event: dict[str, Any]) -> dict[str, Any]:
    """A streaming event with the Open Responses additions checked and set aside
    (the document's reasoning event names as the Responses API's)."""
    if event.get("type") in _EVENT_NAMES:
        event = {**event, "type": _EVENT_NAMES[event["type"]]}
    if isinstance(event.get("response"), dict):
        return {**event, "response": shared_response(event["response"])}
    if isinstance(event.get("item"), dict):
        [item] = _items([event["item"]]) or [None]
        return {**event, "item": item} if item is not None else {**event, "item": {}}
    return event


@cache
def _document() -> dict[str, Any]:
    return json.loads(OPENAPI.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document, or a skip when its recording is absent."""
    if not OPENAPI.exists():
        pytest.skip("recorded OpenAPI document absent: python tests/recordings/build.py")
    return _document()


def _extension(item: Any) -> bool:
    """An item of an implementor's own type, checked as the specification's prose says.

    "Extending Items": the type is the implementor's slug, a colon and a name, and
    every item has ``id``, ``type`` and ``status``; the OpenAPI document's unions name
    only the standard types, so such items are checked here and set aside.
    """
    kind = item.get("type") if isinstance(item, dict) else None
    if not (isinstance(kind, str) and ":" in kind):
        return False
    assert _PREFIXED.fullmatch(kind), kind
    assert isinstance(item.get("id"), str) and isinstance(item.get("status"), str), item
    return True


def _standard(value: Any) -> Any:
    """``value`` with its extension items checked and set aside (a stand-in for one alone)."""
    if not isinstance(value, dict):
        return value
    value = dict(value)
    for key in ("input", "output"):
        if isinstance(value.get(key), list):
            value[key] = [item for item in value[key] if not _extension(item)]
    if isinstance(value.get("response"), dict):
        value["response"] = _standard(value["response"])
    if _extension(value.get("item")):
        value["item"] = {"type": "compaction", "id": value["item"]["id"], "encrypted_content": ""}
    return value


def validate_component(name: str, value: Any) -> None:
    """Assert that ``value`` is a ``components/schemas/<name>`` of the OpenAPI document
    (every ``$ref`` resolved inside the document; JSON Schema 2020-12, as OpenAPI 3.1).

    Items of an implementor's own type (``openai:web_search_call``) are checked by the
    specification's prose rules instead (:func:`_extension`)."""
    from jsonschema import Draft202012Validator

    document = openapi_document()
    value = _standard(value)
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=str)
    assert not errors, f"not a {name}: " + "; ".join(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors[:5]
    )
