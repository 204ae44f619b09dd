"""Gemini ``usage_metadata`` as neutral usage (responses and streams alike)."""

from __future__ import annotations

from typing import Any

from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, Usage

from chatschema.providers._common import is_count
from chatschema.providers.gemini.wire import MODALITY_NUMBERS, READ


def usage_of(usage: dict[str, Any]) -> Usage:
    """The neutral usage of a ``usage_metadata`` object (snake_case keys).

    Tool-use prompt tokens count as input, thoughts as output (``usage_metadata``
    reference: ``candidates_token_count`` leaves thoughts out); per-modality counts
    other than text become token details.
    """
    prompt = _count(usage, "prompt_token_count")
    tool_use = _count(usage, "tool_use_prompt_token_count")
    candidates = _count(usage, "candidates_token_count")
    thoughts = _count(usage, "thoughts_token_count")
    inputs = prompt + tool_use
    outputs = candidates + thoughts
    total = _count(usage, "total_token_count") if "total_token_count" in usage else inputs + outputs
    input_details: dict[str, int] = _modalities(
        usage, "prompt_tokens_details", "tool_use_prompt_tokens_details"
    )
    if "cached_content_token_count" in usage:
        input_details["cache_read"] = _count(usage, "cached_content_token_count")
    if "tool_use_prompt_token_count" in usage:
        input_details["tool_use_prompt"] = tool_use
    output_details: dict[str, int] = _modalities(usage, "candidates_tokens_details")
    if "thoughts_token_count" in usage:
        output_details["reasoning"] = thoughts
    fields: dict[str, Any] = {
        "input_tokens": inputs,
        "output_tokens": outputs,
        "total_tokens": total,
    }
    if input_details:
        fields["input_token_details"] = InputTokenDetails(**input_details)
    if output_details:
        fields["output_token_details"] = OutputTokenDetails(**output_details)
    return Usage(**fields)


def _count(usage: dict[str, Any], key: str) -> int:
    """A token count of ``usage_metadata`` (absent: 0); anything else fails."""
    return READ.count(usage.get(key, 0), f"usage_metadata.{key}")


def _modalities(usage: dict[str, Any], *keys: str) -> dict[str, int]:
    """Token counts by modality (``ModalityTokenCount`` lists), text left out."""
    counts: dict[str, int] = {}
    for key in keys:
        for item in READ.list(usage.get(key, []), f"usage_metadata.{key}"):
            if not isinstance(item, dict):
                continue
            # MediaModality: a name, or its number (enum-encoding=int); a number newer
            # than the table is no detail (the raw usage_metadata keeps it)
            modality = item.get("modality")
            if type(modality) is int:
                modality = MODALITY_NUMBERS.get(modality)
            count = item.get("token_count", 0)
            if (
                isinstance(modality, str)
                and modality not in ("TEXT", "MODALITY_UNSPECIFIED")
                and is_count(count)
            ):
                name = modality.lower()
                counts[name] = counts.get(name, 0) + count
    return counts
