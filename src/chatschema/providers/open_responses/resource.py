"""What the OpenAPI document requires of a ``ResponseResource`` and of the events.

The Responses codec writes only what a message holds; Open Responses requires every
property of a ``ResponseResource`` (``public/openapi/openapi.json``: null where
nullable). :func:`whole_response` adds what is missing, :func:`whole_event` does it
for the response an event carries and names the event as the document does.
"""

from __future__ import annotations

import copy
from typing import Any, Final

__all__ = ["SPEC_EVENTS", "shared_event", "whole_event", "whole_response"]

# The OpenAPI document names the raw reasoning events ``response.reasoning.delta`` /
# ``.done`` (ResponseReasoningDeltaStreamingEvent); the Responses API (and LM Studio)
# ``response.reasoning_text.*``. Written as the document says, read as either.
SPEC_EVENTS: Final = {
    "response.reasoning_text.delta": "response.reasoning.delta",
    "response.reasoning_text.done": "response.reasoning.done",
}
_SHARED_EVENTS: Final = {spec: shared for shared, spec in SPEC_EVENTS.items()}

# ResponseResource's nullable required properties: null when the message has no value.
_NULLS: Final = (
    "completed_at",
    "incomplete_details",
    "previous_response_id",
    "instructions",
    "error",
    "reasoning",
    "usage",
    "max_output_tokens",
    "max_tool_calls",
    "safety_identifier",
    "prompt_cache_key",
)
# The required properties null is not allowed for: the values a request that set
# nothing gets (CreateResponseBody's defaults, the Responses API's documented ones).
_DEFAULTS: Final[dict[str, Any]] = {
    "tools": [],
    "tool_choice": "auto",
    "truncation": "disabled",
    "parallel_tool_calls": True,
    "text": {"format": {"type": "text"}},
    "top_p": 1.0,
    "presence_penalty": 0.0,
    "frequency_penalty": 0.0,
    "top_logprobs": 0,
    "temperature": 1.0,
    "store": False,
    "background": False,
    "service_tier": "default",
    "metadata": {},
}


def whole_response(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with every property a ``ResponseResource`` requires (changed in place)."""
    for key in _NULLS:
        body.setdefault(key, None)
    for key, value in _DEFAULTS.items():
        body.setdefault(key, copy.deepcopy(value))
    reasoning = body["reasoning"]
    if isinstance(reasoning, dict):  # (Reasoning requires both, nullable)
        reasoning.setdefault("effort", None)
        reasoning.setdefault("summary", None)
    return body


def whole_event(event: dict[str, Any]) -> dict[str, Any]:
    """A streaming event as the document names it, its response or item whole (in place)."""
    kind = event.get("type")
    if type(kind) is str and kind in SPEC_EVENTS:
        event["type"] = SPEC_EVENTS[kind]
    response = event.get("response")
    if isinstance(response, dict):
        whole_response(response)
    return event


def shared_event(event: Any) -> Any:
    """An event as the Responses codec reads it (the document's reasoning events renamed)."""
    kind = event.get("type") if type(event) is dict else None
    if type(kind) is str and kind in _SHARED_EVENTS:
        return {**event, "type": _SHARED_EVENTS[kind]}
    return event
