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

_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens")


def decode_usage(raw: Any) -> tuple[Usage | None, dict[str, Any]]:
    """Usage in neutral terms, and the provider's fields it has no place for.

    A usage whose counts the neutral :class:`Usage` cannot hold (``null``, as
    OpenAI-compatible servers send mid-stream, missing, negative, not an integer)
    is no neutral usage: ``(None, <the usage as it came>)``, so that nothing is
    invented and nothing lost. A missing ``total_tokens`` next to both counts is
    their sum. A detail count that is not a count stays in the fields returned.

    Raises:
        PythonKey: for a key that is not a string (the caller locates it).
    """
    data = READ.object(raw, "usage", None)
    prompt: Any = data.get("prompt_tokens")
    completion: Any = data.get("completion_tokens")
    total = data.get("total_tokens", prompt + completion if _counts(prompt, completion) else None)
    if not _counts(prompt, completion, total):
        return None, {key: json_copy(value) for key, value in _keys(data)}
    fields: dict[str, Any] = {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": total,
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
    hits: Any = data.get("prompt_cache_hit_tokens")  # DeepSeek's name for cache reads
    if "cache_read" not in inputs and is_count(hits):
        inputs["cache_read"] = hits
    known = {*_COUNTS, "prompt_tokens_details", "completion_tokens_details"}
    for key, value in _keys(data):
        if key not in known and value is not None:
            unknown[key] = json_copy(value)
    try:
        if inputs:
            fields["input_token_details"] = InputTokenDetails(**inputs)
        if outputs:
            fields["output_token_details"] = OutputTokenDetails(**outputs)
    except pydantic.ValidationError as error:
        READ.fail(f"usage details: {error.errors()[0]['msg']}")
    return READ.build(Usage, fields), unknown


def _counts(*values: Any) -> bool:
    """Whether every value is a count (a non-negative integer)."""
    return all(is_count(value) for value in values)


def _keys(data: Mapping[Any, Any]) -> list[tuple[str, Any]]:
    """The items of an object, a key that is not a string raising :class:`PythonKey`."""
    for key in data:
        if type(key) is not str:
            raise PythonKey(key)
    return list(data.items())


def _details(
    raw: Any, names: Mapping[str, str], what: str
) -> tuple[dict[str, int], dict[str, Any]]:
    """A details object: known counts renamed, other counts kept, the rest for metadata.

    A ``null`` count is nothing; a known name whose value is not a count (a
    string ...) stays in the metadata as it came, like an unknown field.
    """
    if raw is None:
        return {}, {}
    data = READ.object(raw, f"usage {what}", None)
    counts: dict[str, int] = {}
    unknown: dict[str, Any] = {}
    for key, value in _keys(data):
        if value is None:
            continue
        if is_count(value):
            counts[names.get(key, key)] = value
        else:
            unknown[key] = json_copy(value)
    return counts, unknown
