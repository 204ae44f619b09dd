"""Reading a Converse response's top level and its token usage."""

from __future__ import annotations

from typing import Any

from chatschema_models.usage import InputTokenDetails, Usage

from chatschema._json import copy_json
from chatschema.providers.bedrock_converse.blocks import reader
from chatschema.providers.bedrock_converse.wire import CACHE_COUNTS, STOP_REASONS


def response_fields(data: dict[str, Any], fields: dict[str, Any], metadata: dict[str, Any]) -> None:
    """Put a response's (or a stream event's) top-level keys into message fields and metadata.

    All keys but ``output`` and ``role``: ``stopReason`` is the finish reason,
    ``usage`` the usage, ``ResponseMetadata.RequestId`` the response id; the rest
    (``metrics``, ``trace``, ``additionalModelResponseFields`` ...) goes to metadata
    as it came.
    """
    for key, value in data.items():
        if key in ("output", "role"):
            continue
        if key == "stopReason" and isinstance(value, str):
            fields["raw_finish_reason"] = value
            fields["finish_reason"] = STOP_REASONS.get(value, "other")
        elif key == "usage" and value is not None:
            fields["usage"] = usage(value, metadata)
        else:
            if (
                key == "ResponseMetadata"
                and isinstance(value, dict)
                and isinstance(value.get("RequestId"), str)
                and value["RequestId"]
            ):
                fields["response_id"] = value["RequestId"]
            metadata[key] = copy_json(value)


def usage(raw: Any, metadata: dict[str, Any]) -> Usage:
    """Neutral usage; counts without a neutral name go to ``metadata["usage"]``.

    Converse, TokenUsage: ``inputTokens`` leaves out cache reads and writes, which
    ``totalTokens`` counts; the neutral input count adds them. A count sent as
    ``null`` (the REST API's JSON of an optional count) counts as absent.
    """
    reader.object(raw, "usage")
    counts = {
        key: 0 if raw.get(key) is None else reader.count(raw[key], f"usage.{key}")
        for key in ("inputTokens", "outputTokens")
    }
    details: dict[str, int] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        if key in counts or key == "totalTokens":
            continue
        name = CACHE_COUNTS.get(key)
        if name is not None:
            if value is not None:
                details[name] = reader.count(value, f"usage.{key}")
        else:
            extra[key] = copy_json(value)  # serverToolUsage, cacheDetails, newer counts
    prompt = counts["inputTokens"] + details.get("cache_read", 0) + details.get("cache_creation", 0)
    total = raw.get("totalTokens")
    if total is None:
        total = prompt + counts["outputTokens"]
    fields: dict[str, Any] = {
        "input_tokens": prompt,
        "output_tokens": counts["outputTokens"],
        "total_tokens": reader.count(total, "usage.totalTokens"),
    }
    if details:
        fields["input_token_details"] = reader.build(InputTokenDetails, details)
    if extra:
        metadata["usage"] = extra
    return reader.build(Usage, fields)
