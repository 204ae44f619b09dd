"""``decode_stream``: the GenAI conventions record complete messages, never stream
events; the verb refuses at once, sync and async, naming ``decode_response``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from chatschema import ConversionError
from chatschema.providers import otel_genai as codec

OUTPUT = [
    {"role": "assistant", "parts": [{"type": "text", "content": "Hi"}], "finish_reason": "stop"}
]


def test_a_sync_source_is_refused_at_the_call_and_nothing_is_read() -> None:
    read: list[Any] = []

    def events() -> Any:
        read.append(1)
        yield OUTPUT

    with pytest.raises(ConversionError, match="decode_response") as raised:
        codec.decode_stream(events())
    assert raised.value.provider == "otel_genai"
    assert read == []


def test_an_async_source_is_refused_the_same_way() -> None:
    async def events() -> AsyncIterator[Any]:
        yield OUTPUT

    with pytest.raises(ConversionError, match="complete messages"):
        codec.decode_stream(events())


def test_what_to_use_instead() -> None:
    assert codec.decode_response(OUTPUT).content == "Hi"
