"""``decode_stream``: Mistral's streamed chat completion chunks.

The chunks are Chat Completions' (``data: {...}`` frames, ``data: [DONE]`` last);
a delta's content may be a list of chunks: a thinking chunk's text streams as
reasoning, a text chunk's as text, any other chunk is kept whole.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ReasoningBlock
from pydantic import BaseModel

from chatschema._wire import content_chunk
from chatschema.providers._common import loads
from chatschema.providers._common.drive import Incomplete, drive, incomplete_policy
from chatschema.providers.mistral.decode import plain
from chatschema.providers.mistral.translate import (
    from_chat,
    put,
    renamed_error,
    to_chat_response,
)
from chatschema.providers.mistral.wire import NAME, THINKING
from chatschema.providers.openai_chat.stream import _Stream

__all__ = ["decode_stream"]


@overload
def decode_stream(
    events: AsyncIterable[Any], *, incomplete: Incomplete = "error"
) -> AsyncGenerator[AssistantMessageChunk, None]: ...


@overload
def decode_stream(
    events: Iterable[Any], *, incomplete: Incomplete = "error"
) -> Iterator[AssistantMessageChunk]: ...


def decode_stream(
    events: Iterable[Any] | AsyncIterable[Any], *, incomplete: Incomplete = "error"
) -> Iterator[AssistantMessageChunk] | AsyncGenerator[AssistantMessageChunk, None]:
    """Decode a streamed Mistral chat completion into ``AssistantMessageChunk`` objects.

    ``events`` are the ``chat.completion.chunk`` objects as parsed JSON, the SDK's
    ``CompletionEvent`` / ``CompletionChunk`` objects, or the raw SSE body (``bytes``
    or ``str`` pieces cut anywhere), sync or async (an async iterable gives an async
    generator). Text streams as a string run; thinking chunks as a reasoning block
    (``provider="mistral"``) before the text; tool calls, usage and the finish reason
    as in Chat Completions' streams (``model_length`` is ``length``).

    Raises:
        ConversionError: for an error event and for malformed events.
        StreamIncompleteError: for a stream that ended before a ``finish_reason``
            (under ``incomplete="error"``).
        OptionError: for an ``incomplete`` other than ``"error"`` or ``"keep"``.
    """
    policy = incomplete_policy(incomplete)
    stream = _Stream()

    def step(raw: Any) -> list[AssistantMessageChunk]:
        return [_own(chunk) for chunk in stream.event(_chat_event(raw))]

    def end() -> list[AssistantMessageChunk]:
        return [_own(chunk) for chunk in stream.close()]

    def errors(error: Exception) -> Exception | None:
        from chatschema.errors import ChatSchemaError

        return renamed_error(error) if isinstance(error, ChatSchemaError) else None

    return drive(
        events,
        provider=NAME,
        fast=stream.text_delta,  # a plain text delta is Chat Completions' own
        build=content_chunk,
        step=step,
        end=end,
        errors=errors,
        missing=stream.missing,
        incomplete=policy,
    )


def _chat_event(raw: Any) -> Any:
    """One Mistral event as the shared stream reads it (a list delta made strings)."""
    if isinstance(raw, (str, bytes, bytearray)):
        raw = loads(raw, NAME)
    if isinstance(raw, BaseModel) and type(raw).__module__.startswith("mistralai"):
        data = getattr(raw, "data", None)  # the SDK's CompletionEvent wraps its chunk
        raw = plain(data if isinstance(data, BaseModel) else raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("choices"), list):
        return raw
    choices = []
    for choice in raw["choices"]:
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if isinstance(delta, dict) and isinstance(delta.get("content"), list):
            choice = {**choice, "delta": _flat(delta)}
        choices.append(choice)
    return to_chat_response({**raw, "choices": choices})


def _flat(delta: dict[str, Any]) -> dict[str, Any]:
    """A delta whose content is a list of chunks, as text and reasoning strings.

    A chunk that is not plain text or plain thinking (another type, more keys) is
    kept whole under the delta's ``content_chunks`` (the message's extras at the
    end); the text of a text or thinking chunk streams all the same.
    """
    text: list[str] = []
    thinking: list[str] = []
    other: list[Any] = []
    for part in delta["content"]:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            text.append(part["text"])
            if len(part) != 2:
                other.append(part)
        elif kind == THINKING and isinstance(part.get("thinking"), list):
            thinking.extend(
                item["text"]
                for item in part["thinking"]
                if isinstance(item, dict) and isinstance(item.get("text"), str)
            )
            if not _plain_thinking(part):
                other.append(part)
        else:
            other.append(part)
    out = {key: value for key, value in delta.items() if key != "content"}
    if thinking:
        out["reasoning_content"] = "".join(thinking)
    out["content"] = "".join(text) if text else None
    if other:
        out["content_chunks"] = other
    return out


def _plain_thinking(part: dict[str, Any]) -> bool:
    """A thinking chunk of text chunks only, with nothing else."""
    inner = part.get("thinking")
    return (
        set(part) == {"type", "thinking"}
        and isinstance(inner, list)
        and all(
            isinstance(item, dict)
            and set(item) == {"type", "text"}
            and item["type"] == "text"
            and isinstance(item["text"], str)
            for item in inner
        )
    )


def _own(chunk: AssistantMessageChunk) -> AssistantMessageChunk:
    """A chunk of the shared stream as this format's; streamed reasoning unmarked."""
    chunk = from_chat(chunk)
    content = chunk.content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, ReasoningBlock) and block.extras:
                own = block.extras.get(NAME)
                if isinstance(own, dict) and "field" in own:
                    rest = {k: v for k, v in own.items() if k != "field"}
                    extras = {k: v for k, v in block.extras.items() if k != NAME}
                    if rest:
                        extras[NAME] = rest
                    put(block, "extras", extras or None)
    return chunk
