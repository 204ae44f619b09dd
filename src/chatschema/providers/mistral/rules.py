"""The rules only Mistral has, which ``check`` reports (and ``encode`` raises with).

Mistral's server validates the order of roles more strictly than Chat Completions
(its 400 ``invalid_request_message_order`` errors).
"""

from __future__ import annotations

from typing import Any

from chatschema.errors import Problem
from chatschema.providers._common import pointer
from chatschema.providers.mistral.wire import NAME

__all__ = ["order_problems"]


def order_problems(conversation: Any, *, request: bool) -> list[Problem]:
    """Role-order problems: a user message right after a tool result; the last role.

    ``request``: the conversation is sent now, so its last message must be one
    Mistral answers.
    """
    messages = conversation.messages
    found: list[Problem] = []
    if messages and all(message.role == "system" for message in messages):
        found.append(
            Problem(
                "/messages",
                "no_messages",
                f"{NAME} needs at least one message other than system; the conversation has none",
            )
        )
        return found
    for index in range(1, len(messages)):
        if messages[index].role == "user" and messages[index - 1].role == "tool":
            # Mistral's 400 (code 3230): "Unexpected role 'user' after role 'tool'"
            found.append(
                Problem(
                    pointer(index),
                    "message_order",
                    f"{NAME} takes no user message right after a tool result: an "
                    "assistant message goes between them",
                )
            )
    if request and messages:
        last = messages[-1]
        prefix = last.role == "assistant" and (last.extras or {}).get(NAME, {}).get("prefix")
        calls = last.role == "assistant" and bool(last.tool_calls or last.invalid_tool_calls)
        # (an assistant message with calls at the end: their results are what is missing)
        if last.role not in ("user", "tool") and prefix is not True and not calls:
            # Mistral's 400: "Expected last role User or Tool (or Assistant with prefix
            # True) for serving"
            found.append(
                Problem(
                    pointer(len(messages) - 1),
                    "last_message",
                    f"{NAME} answers a request whose last message is user or tool (or "
                    f"an assistant message with prefix: true), not {last.role} "
                    "(request=False for a history that is data)",
                )
            )
    return found
