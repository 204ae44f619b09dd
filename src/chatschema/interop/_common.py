"""What the interop modules share: reading neutral input, and small predicates.

Every interop module takes neutral messages the same ways (models, their dict
form, JSON text, a :class:`Conversation`) and checks values against the neutral
types the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from pydantic import BaseModel

from chatschema.errors import ValidationError
from chatschema.validation import parse, parse_message, parse_messages

__all__ = [
    "NEUTRAL_CLASSES",
    "ROLES",
    "fits",
    "neutral",
    "neutral_message",
    "nonempty_str",
    "plain",
]

NEUTRAL_CLASSES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)
"""The message classes, in the order of :data:`ROLES`."""

ROLES = ("system", "user", "assistant", "tool")
"""The message roles, in the order of :data:`NEUTRAL_CLASSES`."""


def neutral(messages: Iterable[Message | Mapping[str, Any]] | Conversation) -> list[Message]:
    """Neutral messages from models, their dict form, JSON text or a conversation.

    Raises:
        ValidationError: when something given is not a neutral message.
    """
    if isinstance(messages, Conversation):
        return list(messages.messages)
    if isinstance(messages, (str, bytes, bytearray, Mapping)) or not isinstance(messages, Iterable):
        return parse_messages(cast(Any, messages))  # JSON text, or reports the type problem
    items = list(messages)
    if all(isinstance(item, NEUTRAL_CLASSES) for item in items):
        return cast(list[Message], items)
    return parse_messages(cast(Any, items))


def neutral_message(message: Message | Mapping[str, Any]) -> Message:
    """One neutral message, from a model or its dict form.

    Raises:
        ValidationError: when ``message`` is not a neutral message.
    """
    return message if isinstance(message, NEUTRAL_CLASSES) else parse_message(message)


def plain(model: BaseModel) -> dict[str, Any]:
    """What was set on a model, as plain data (values that are not JSON kept as they are)."""
    return model.model_dump(exclude_unset=True)


def nonempty_str(value: Any) -> bool:
    """Whether ``value`` is a string with something in it."""
    return isinstance(value, str) and value != ""


def fits(value: Any, type_name: str) -> bool:
    """Whether ``value`` parses as the neutral type ``type_name``."""
    try:
        parse(value, type_name)
    except ValidationError:
        return False
    return True
