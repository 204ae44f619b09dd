"""``decode_conversation``, ``decode_messages``, ``decode_response``.

The Responses codec reads the shared wire object; :func:`~.mirror.outbound` names its
values as this format (``compaction`` items are its ``CompactionBlock``) and gives
``input_video`` parts their neutral block.
"""

from __future__ import annotations

from typing import Any

from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, Message

from chatschema.providers import openai_responses as responses
from chatschema.providers._common import decoder
from chatschema.providers.open_responses.mirror import outbound, renamed_errors
from chatschema.providers.open_responses.wire import NAME

__all__ = ["decode_conversation", "decode_messages", "decode_response"]


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """An Open Responses request body (``CreateResponseBody``) as a Conversation.

    As :func:`chatschema.providers.openai_responses.decode_conversation` reads it,
    with this format's name on extras and blocks, ``input_video`` parts as
    ``VideoBlock`` (a data URL as inline data), ``compaction`` items as
    ``CompactionBlock`` (``provider="open_responses"``), an assistant message's
    ``phase`` and provider-prefixed items (``openai:web_search_call`` ...) kept and
    written back as they came.

    Raises:
        ConversionError: for a payload that is not such a request, naming where.
    """
    with renamed_errors():
        return outbound(responses.decode_conversation(_short_form(payload)))


def _short_form(payload: Any) -> Any:
    """Message items whose first key is ``"type": "message"`` without it (a copy).

    ``encode`` writes every message item so (the document requires the type), the
    Responses codec reads the short form as plain: nothing kept to say it was there.
    """
    items = payload.get("input") if isinstance(payload, dict) else None
    if not isinstance(items, list) or not any(_typed_first(item) for item in items):
        return payload
    short = [dict(list(item.items())[1:]) if _typed_first(item) else item for item in items]
    return {**payload, "input": short}


def _typed_first(item: Any) -> bool:
    """A message item in the form ``encode`` writes: ``type`` first, then ``role``."""
    if not isinstance(item, dict) or item.get("type") != "message" or "role" not in item:
        return False
    keys: list[str] = list(item)[:2]
    return keys == ["type", "role"]


@decoder(NAME)
def decode_messages(payload: Any) -> list[Message]:
    """The messages of an Open Responses request (its ``instructions`` and ``input``).

    Raises:
        ConversionError: for a payload that is not such a request, naming where.
    """
    return decode_conversation(payload).messages


@decoder(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """An Open Responses ``ResponseResource`` (JSON, or an SDK ``Response``) as a message.

    Output items as :func:`decode_conversation` reads input items; ``usage``,
    ``status`` and the response's other fields as the Responses codec reads them.

    Raises:
        ConversionError: for a payload that is not a response, naming where.
    """
    with renamed_errors():
        return outbound(responses.decode_response(payload))
