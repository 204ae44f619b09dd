"""The encoder's walk for the common shapes: text messages without extras.

A message whose content is a string, with no name, id, extras or tool calls, is
written here; every other message goes to the encoder's general path
(``_Encoder.messages``). ``encode.FAST`` turns this walk off;
``tests/providers/otel_genai/test_encode_fast.py`` compares the two.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatschema_models.message import AssistantMessage, Message, SystemMessage, UserMessage

if TYPE_CHECKING:
    from chatschema.providers.otel_genai.encode import _Encoder

_PLAIN = {SystemMessage: "system", UserMessage: "user"}


def fast_messages(encoder: _Encoder, messages: list[Message], start: int) -> list[dict[str, Any]]:
    """``gen_ai.input.messages`` for ``messages[start:]``."""
    out: list[dict[str, Any]] = []
    for index in range(start, len(messages)):
        message = messages[index]
        values = message.__dict__
        content = values["content"]
        if (
            type(content) is str
            and values["extras"] is None
            and values["name"] is None
            and values["id"] is None
        ):
            role = _PLAIN.get(type(message))
            if (
                role is None
                and type(message) is AssistantMessage
                and not values["tool_calls"]
                and not values["invalid_tool_calls"]
            ):
                role = "assistant"
            if role is not None:
                parts = [{"type": "text", "content": content}] if content else []
                out.append({"role": role, "parts": parts})
                continue
        encoder.messages(messages, index, index + 1, out)
    return out
