"""Messages as text, for people and for prompts.

- :func:`content_to_str`: one readable string per content block (placeholders for
  media, never base64 or opaque reasoning data).
- :func:`get_buffer_string`: a transcript, one ``Human: ...`` / ``AI: ...`` line each.
- :func:`pretty_repr` / :func:`pretty_print`: a boxed rendering of a message.

The views of one message or block live in :mod:`chatschema._render`, beneath the
models (their base classes offer them as methods); they are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable

from chatschema_models.message import AssistantMessage, Message, ToolMessage

from chatschema._coerce import MessageLike, coerce_messages
from chatschema._render import block_to_str, content_to_str, pretty_repr, text_json
from chatschema.errors import option_type_error

__all__ = ["block_to_str", "content_to_str", "get_buffer_string", "pretty_print", "pretty_repr"]

_PREFIXES = {"system": "System", "user": "Human", "assistant": "AI", "tool": "Tool"}


def get_buffer_string(
    messages: Iterable[Message] | Iterable[MessageLike],
    *,
    human_prefix: str = "Human",
    ai_prefix: str = "AI",
    system_prefix: str = "System",
    tool_prefix: str = "Tool",
) -> str:
    """A plain transcript of messages, one ``Prefix: text`` line group per message.

    Non-text content appears as placeholders; an assistant's tool calls as
    ``name(arguments JSON)`` after its text; a tool result names its call.
    ``messages`` may be anything :func:`chatschema.coerce_messages` reads.

    Raises:
        ValidationError: for something that is not a list of messages.
        OptionError: for a prefix that is not a string.
    """
    prefixes = {"system": system_prefix, "user": human_prefix, "assistant": ai_prefix}
    prefixes["tool"] = tool_prefix
    for role, prefix in prefixes.items():
        if not isinstance(prefix, str):
            raise option_type_error(f"the {role} prefix", prefix, "a string")
    lines = []
    for message in coerce_messages(messages):
        text = "\n".join(content_to_str(message))
        if isinstance(message, AssistantMessage) and message.tool_calls:
            calls = "\n".join(
                f"{call.name}({text_json(call.arguments)})" for call in message.tool_calls
            )
            text = f"{text}\n{calls}" if text else calls
        if isinstance(message, ToolMessage):
            text = f"[result of {message.tool_call_id}] {text}"
        lines.append(f"{prefixes[message.role]}: {text}")
    return "\n".join(lines)


def pretty_print(message: Message) -> None:
    """Print :func:`pretty_repr` of a message.

    Raises:
        ValidationError: for something that is not a message model.
    """
    print(pretty_repr(message))
