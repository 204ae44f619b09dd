"""Token usage of a response or stream chunk, in neutral terms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic
from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, Usage

from chatschema.providers._common import is_count
from chatschema.providers.openai_chat.blocks import READ, PythonKey, json_copy
from chatschema.providers.openai_chat.wire import INPUT_DETAILS, OUTPUT_DETAILS

__all__ = ["decode_usage"]


def decode_usage(raw: Any) -> tuple[Usage, dict[str, Any]]:
    """Usage in neutral terms, and the provider's fields it has no place for.

    Raises:
        PythonKey: for a key that is not a string (the caller locates it).
    """
    data = READ.object(raw, "usage", None)
    prompt = READ.count(data.get("prompt_tokens"), "usage prompt_tokens")
    completion = READ.count(data.get("completion_tokens"), "usage completion_tokens")
    total = data.get("total_tokens")
    fields: dict[str, Any] = {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": prompt + completion
        if total is None
        else READ.count(total, "usage total_tokens"),
    }
    unknown: dict[str, Any] = {}
    inputs, more = _details(
        data.get("prompt_tokens_details"), INPUT_DETAILS, "prompt_tokens_details"
    )
    if more:
        unknown["prompt_tokens_details"] = more
    outputs, more = _details(
        data.get("completion_tokens_details"), OUTPUT_DETAILS, "completion_tokens_details"
    )
    if more:
        unknown["completion_tokens_details"] = more
    hits = data.get("prompt_cache_hit_tokens")  # DeepSeek's name for cache reads
    if "cache_read" not in inputs and isinstance(hits, int) and not isinstance(hits, bool):
        inputs["cache_read"] = READ.count(hits, "usage prompt_cache_hit_tokens")
    known = {"prompt_tokens", "completion_tokens", "total_tokens"}
    known |= {"prompt_tokens_details", "completion_tokens_details"}
    for key, value in data.items():
        if key not in known and value is not None:
            if type(key) is not str:
                raise PythonKey(key)
            unknown[key] = json_copy(value)
    try:
        if inputs:
            fields["input_token_details"] = InputTokenDetails(**inputs)
        if outputs:
            fields["output_token_details"] = OutputTokenDetails(**outputs)
    except pydantic.ValidationError as error:
        READ.fail(f"usage details: {error.errors()[0]['msg']}")
    return READ.build(Usage, fields), unknown


def _details(
    raw: Any, names: Mapping[str, str], what: str
) -> tuple[dict[str, int], dict[str, Any]]:
    """A details object: known counts renamed, other counts kept, the rest for metadata."""
    if raw is None:
        return {}, {}
    data = READ.object(raw, f"usage {what}", None)
    counts: dict[str, int] = {}
    unknown: dict[str, Any] = {}
    for key, value in data.items():
        if type(key) is not str:
            raise PythonKey(key)
        if value is None:
            continue
        if key in names:
            counts[names[key]] = READ.count(value, f"usage {what}.{key}")
        elif is_count(value):
            counts[key] = value
        else:
            unknown[key] = json_copy(value)
    return counts, unknown
