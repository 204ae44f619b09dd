"""What the ``encode_response`` fast-path tests of several formats share.

A format's ``response.common_body`` writes the common reply, or returns None for any
other message, which ``response._encode_response`` (the general path) then writes;
:func:`agree` checks the two on one message, :func:`recorded_responses` lists every
recorded response of every HTTP format to check them on.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import recorded

from chatschema import AssistantMessage
from chatschema.errors import ChatSchemaError
from chatschema.providers import HTTP_PROVIDERS
from chatschema.providers._common.respond import Reply

TRAFFIC = Path(__file__).resolve().parents[1] / "traffic"


def ordered(value: Any) -> Any:
    """JSON data with its key order made visible to ``==``."""
    if isinstance(value, dict):
        return [(key, ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [ordered(item) for item in value]
    return value


def agree(response: ModuleType, name: str, message: AssistantMessage, **options: Any) -> bool:
    """Whether the fast path took ``message``; its body is the general path's if so."""
    fast = response.common_body(message, Reply.resolve(name, options))
    try:
        general = response._encode_response(message, options)
    except ChatSchemaError:
        assert fast is None
        return False
    if fast is not None:
        assert ordered(fast) == ordered(general)
    return fast is not None


def recorded_responses() -> list[Any]:
    """``(format, path)`` of every recorded response of every HTTP format."""
    return [
        pytest.param(fmt, path, id=f"{fmt}/{path.name[:-5]}")
        for fmt in HTTP_PROVIDERS
        for path in recorded.listing(TRAFFIC / fmt)
        if "response" in recorded.index(path)
    ]
