"""The rules of Chat Completions that only check: tool pairing, tool names, tool choice.

The encoder runs them in collect mode (``check``, or ``encode`` with
``check=True``) and lists their problems before each message's.
"""

from __future__ import annotations

from collections.abc import Sequence

from chatschema_models.conversation import Conversation
from chatschema_models.message import Message
from chatschema_models.tool import AutoToolChoice, NoneToolChoice

from chatschema.errors import Problem
from chatschema.providers._common import tool_pairing_problems
from chatschema.providers.openai_chat.wire import NAME, NAME_PATTERN, TOOL_NAME_MAX


def pairing_problems(messages: Sequence[Message], *, trailing: bool = True) -> list[Problem]:
    """Tool calls and results that do not pair up, Chat Completions' way.

    Results right after their call, and invalid tool calls counted as calls: they
    are sent back as tool calls and need answers too. ``trailing``: calls still
    waiting at the end are problems (not for ``request=False``).
    """
    return tool_pairing_problems(
        messages, adjacent=True, provider=NAME, include_invalid=True, trailing=trailing
    )


def tool_problems(conversation: Conversation) -> list[Problem]:
    """Tool names the API refuses, and a tool choice without tools (but a bare ``auto``)."""
    problems: list[Problem] = []
    for index, tool in enumerate(conversation.tools or []):
        # a server's own tool is named after its type, not a function name
        if tool.provider is None and not valid_tool_name(tool.name):
            problems.append(
                Problem(
                    f"/tools/{index}/name",
                    "pattern",
                    f"tool name {tool.name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$",
                )
            )
    choice = conversation.tool_choice
    # A bare "auto" asks for nothing the request lacks (it is what a request without
    # tools gets anyway), and compatible servers (Mistral) take it: not a problem.
    bare_auto = isinstance(choice, AutoToolChoice) and choice.parallel is None
    if (
        choice is not None
        and not isinstance(choice, NoneToolChoice)
        and not bare_auto
        and not conversation.tools
    ):
        problems.append(
            Problem(
                "/tool_choice",
                "tools_required",
                f"tool_choice {choice.type!r} without tools (the API only takes it with tools)",
            )
        )
    return problems


def valid_tool_name(name: str) -> bool:
    """Whether the API takes a tool name (the pattern, at most 64 characters)."""
    return len(name) <= TOOL_NAME_MAX and NAME_PATTERN.fullmatch(name) is not None
