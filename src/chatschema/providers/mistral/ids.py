"""Tool-call ids in Mistral's pattern: the ``mistral_ids`` encode option.

API reference, ToolCall (and the 422 a replayed history of another provider gets):
a tool-call id is 9 characters ``[a-zA-Z0-9]``. ``encode`` (``mistral_ids=True``,
the default) rewrites every other id to :func:`mistral_id` of it, a hash, so the
same id gives the same new id in every call and in its results, in every request
of a conversation. A Mistral request cannot carry the original: the mapping is
reported (:class:`IdsRewrittenWarning`, or the notes of :func:`ids_rewritten`)
and :func:`restore_ids` puts the originals back into decoded messages.
"""

from __future__ import annotations

import functools
import hashlib
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from chatschema_models.message import AssistantMessage, Message, ToolMessage

from chatschema.errors import ChatSchemaError
from chatschema.providers._common.options import caller_level
from chatschema.providers.mistral.wire import ID_ALPHABET, ID_PATTERN, NAME

__all__ = ["IdsRewrittenWarning", "ids_rewritten", "mistral_id", "restore_ids", "rewrite_ids"]

_SINK: ContextVar[dict[str, str] | None] = ContextVar("mistral_ids_sink", default=None)


class IdsRewrittenWarning(ChatSchemaError, UserWarning):
    """Tool-call ids ``encode`` rewrote to Mistral's pattern (a warning).

    Attributes:
        mapping: each original id and the id sent in its place.
    """

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self.mapping = dict(mapping)
        shown = ", ".join(f"{old!r} -> {new!r}" for old, new in list(self.mapping.items())[:5])
        more = f" and {len(self.mapping) - 5} more" if len(self.mapping) > 5 else ""
        super().__init__(
            f"{NAME}: {len(self.mapping)} tool-call id(s) rewritten to 9 characters "
            f"[a-zA-Z0-9] (mistral_ids=False sends them as they are): {shown}{more}"
        )


@functools.lru_cache(maxsize=1 << 16)
def mistral_id(original: str) -> str:
    """The id sent for ``original``: itself when it matches, else 9 characters of its hash."""
    if ID_PATTERN.fullmatch(original):
        return original
    number = int.from_bytes(hashlib.sha256(original.encode()).digest()[:8], "big")
    digits = []
    for _ in range(9):
        number, rest = divmod(number, len(ID_ALPHABET))
        digits.append(ID_ALPHABET[rest])
    return "".join(digits)


def rewrite_ids(payload: dict[str, Any]) -> dict[str, str]:
    """Rewrite a written request's tool-call ids in place; the mapping of those changed."""
    mapping: dict[str, str] = {}

    def new(old: Any) -> Any:
        if not isinstance(old, str) or ID_PATTERN.fullmatch(old):
            return old
        made = mapping.get(old)
        if made is None:
            made = mapping[old] = mistral_id(old)
        return made

    for message in payload.get("messages", ()):
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool" and "tool_call_id" in message:
            message["tool_call_id"] = new(message["tool_call_id"])
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict) and "id" in call:
                    call["id"] = new(call["id"])
    return mapping


def report(mapping: dict[str, str]) -> None:
    """Report the ids an ``encode`` rewrote: to :func:`ids_rewritten`'s dict, else a warning."""
    if not mapping:
        return
    sink = _SINK.get()
    if sink is not None:
        sink.update(mapping)
        return
    warnings.warn(IdsRewrittenWarning(mapping), stacklevel=caller_level())


@contextmanager
def ids_rewritten() -> Iterator[dict[str, str]]:
    """Collect the ids rewritten by the ``encode`` calls in the block, not warned.

    Yields:
        The dict each original id and its new id are added to.
    """
    found: dict[str, str] = {}
    token = _SINK.set(found)
    try:
        yield found
    finally:
        _SINK.reset(token)


def restore_ids(messages: list[Message], mapping: Mapping[str, str]) -> list[Message]:
    """Messages with the original ids back (``mapping``: original to sent, as reported).

    Decoding a request ``encode`` wrote gives the ids it sent; with the reported
    mapping this gives the ones the conversation had.
    """
    back = {new: old for old, new in mapping.items()}
    out: list[Message] = []
    for message in messages:
        if isinstance(message, ToolMessage) and message.tool_call_id in back:
            message = message.model_copy(update={"tool_call_id": back[message.tool_call_id]})
        elif isinstance(message, AssistantMessage) and any(
            call.id in back for call in message.tool_calls
        ):
            calls = [
                call.model_copy(update={"id": back[call.id]}) if call.id in back else call
                for call in message.tool_calls
            ]
            message = message.model_copy(update={"tool_calls": calls})
        out.append(message)
    return out
