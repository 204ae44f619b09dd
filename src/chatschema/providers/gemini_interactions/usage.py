"""The Interactions API's ``Usage`` as neutral usage, and back."""

from __future__ import annotations

from typing import Any

from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, Usage

from chatschema.providers.gemini_interactions.wire import READ

KNOWN = frozenset(
    {
        "total_input_tokens",
        "total_output_tokens",
        "total_thought_tokens",
        "total_tokens",
        "total_cached_tokens",
        "total_tool_use_tokens",
    }
)
ALWAYS = ("total_input_tokens", "total_output_tokens", "total_tokens")
"""The counts ``write_usage`` writes whatever the usage (unless kept as absent)."""


def kept_usage(usage: dict[str, Any]) -> dict[str, Any] | None:
    """What of a ``Usage`` the neutral usage does not say: other keys, absent counts."""
    kept = {k: v for k, v in usage.items() if k not in KNOWN}
    absent = [key for key in ALWAYS if key not in usage]
    if absent:
        kept["absent"] = absent
    return kept or None


def usage_of(usage: dict[str, Any]) -> Usage:
    """Neutral usage: thoughts and tool-use tokens counted in, as ``usage_metadata`` is read.

    ``total_output_tokens`` leaves thoughts out and ``total_tool_use_tokens`` are
    prompt tokens (Interactions API reference, ``Usage``; google-genai's gemini codec
    reads ``usage_metadata`` so).
    """
    inputs = _count(usage, "total_input_tokens")
    tool_use = _count(usage, "total_tool_use_tokens")
    outputs = _count(usage, "total_output_tokens")
    thoughts = _count(usage, "total_thought_tokens")
    total = _count(usage, "total_tokens") if "total_tokens" in usage else None
    fields: dict[str, Any] = {
        "input_tokens": inputs + tool_use,
        "output_tokens": outputs + thoughts,
        "total_tokens": total if total is not None else inputs + tool_use + outputs + thoughts,
    }
    details: dict[str, int] = {}
    if "total_cached_tokens" in usage:
        details["cache_read"] = _count(usage, "total_cached_tokens")
    if "total_tool_use_tokens" in usage:
        details["tool_use_prompt"] = tool_use
    if details:
        fields["input_token_details"] = InputTokenDetails(**details)
    if "total_thought_tokens" in usage:
        fields["output_token_details"] = OutputTokenDetails(reasoning=thoughts)
    return Usage(**fields)


def write_usage(usage: Usage, kept: dict[str, Any] | None) -> dict[str, Any]:
    """``Usage`` of neutral usage (the kept per-modality lists back in place)."""
    inputs = usage.input_token_details
    outputs = usage.output_token_details
    tool_use = (getattr(inputs, "tool_use_prompt", None) if inputs is not None else None) or 0
    thoughts = outputs.reasoning if outputs is not None else None
    body: dict[str, Any] = {"total_input_tokens": max(0, usage.input_tokens - tool_use)}
    if inputs is not None and inputs.cache_read is not None:
        body["total_cached_tokens"] = inputs.cache_read
    body["total_output_tokens"] = max(0, usage.output_tokens - (thoughts or 0))
    if thoughts is not None:
        body["total_thought_tokens"] = thoughts
    if inputs is not None and getattr(inputs, "tool_use_prompt", None) is not None:
        body["total_tool_use_tokens"] = tool_use
    body["total_tokens"] = usage.total_tokens
    for key, value in (kept or {}).items():
        if key == "absent" and isinstance(value, list):
            for name in value:
                if name in ALWAYS:
                    body.pop(name, None)
        else:
            body.setdefault(key, value)
    return body


def _count(usage: dict[str, Any], key: str) -> int:
    """A count of ``usage`` (absent: 0); anything else fails."""
    return READ.count(usage.get(key, 0), f"usage.{key}")
