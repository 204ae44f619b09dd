"""Content shared by every codec: input coercion, text, inline data, extras."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from chatschema_models.content import ContentBlock, TextBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from pydantic import BaseModel

from chatschema import limits
from chatschema.validation import parse

__all__ = [
    "content_blocks",
    "data_url",
    "extras_of",
    "inline_data",
    "joined_text",
    "parse_data_url",
    "set_extras",
    "to_conversation",
]


def to_conversation(value: Any) -> Conversation:
    """Accept a Conversation, a sequence of messages, or their JSON-like dicts.

    Dicts are validated first; models pass through.

    Raises:
        ValidationError: for input that is not a conversation or a list of messages.
    """
    if isinstance(value, Conversation):
        return value
    kind = type(value)
    # Message models of the exact classes pass validation as they are (the same
    # objects, nothing revalidated): the conversation is built around them.
    if (
        (kind is list or kind is tuple)
        and len(value) <= limits.MAX_MESSAGES
        and _MESSAGE_CLASSES.issuperset(map(type, value))
    ):
        return Conversation.model_construct({"messages"}, messages=list(value))
    if isinstance(value, BaseModel):  # a single message
        return cast(Conversation, parse({"messages": [value]}, "Conversation"))
    if isinstance(value, (Mapping, str, bytes, bytearray)):
        return cast(Conversation, parse(value, "Conversation"))
    if isinstance(value, Iterable):
        return cast(Conversation, parse({"messages": list(value)}, "Conversation"))
    return cast(Conversation, parse(value, "Conversation"))  # reports the type problem


_MESSAGE_CLASSES = frozenset({SystemMessage, UserMessage, AssistantMessage, ToolMessage})


def content_blocks(content: str | Sequence[ContentBlock]) -> list[ContentBlock]:
    """A message's content as blocks (a string is one text block, ``""`` none)."""
    if isinstance(content, str):
        return [TextBlock(text=content)] if content else []
    return list(content)


def joined_text(content: str | Sequence[ContentBlock]) -> str:
    """The text blocks of a content, joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(block.text for block in content if block.type == "text")


_DATA_URL = re.compile(r"data:(?P<mime>[^;,]+)(?P<params>(?:;[^;,]+)*?);base64,(?P<data>.*)", re.S)


def data_url(mime_type: str, base64: str) -> str:
    """``data:<mime>;base64,<data>``."""
    return f"data:{mime_type};base64,{base64}"


def parse_data_url(url: str) -> tuple[str, str] | None:
    """``(mime_type, base64)`` of a base64 data URL, else None."""
    if not url.startswith("data:"):
        return None
    match = _DATA_URL.fullmatch(url)
    if match is None:
        return None
    return match["mime"] + match["params"], match["data"]


def inline_data(block: Any) -> tuple[str, str] | None:
    """A media block's inline data as ``(mime_type, base64)``, else None.

    From its ``base64`` field (with its ``mime_type``) or from a base64 data URL in
    ``url``; a URL of any other kind and a ``file_id`` are not inline.
    """
    if block.base64 is not None:
        return block.mime_type, block.base64
    if block.url is not None:
        return parse_data_url(block.url)
    return None


def extras_of(model: Any, provider: str) -> dict[str, Any]:
    """The part of a model's ``extras`` that belongs to ``provider`` (empty if none)."""
    extras = getattr(model, "extras", None)
    if not extras:
        return {}
    value = extras.get(provider)
    return value if isinstance(value, dict) else {}


def set_extras(fields_: dict[str, Any], provider: str, data: Mapping[str, Any]) -> None:
    """Put provider data under ``extras[provider]`` of a model's keyword arguments."""
    if data:
        fields_.setdefault("extras", {})[provider] = dict(data)
