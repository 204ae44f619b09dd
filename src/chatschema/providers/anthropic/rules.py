"""The rules of the Messages API that only check: tool pairing, request totals, empty turns.

The encoder runs them in collect mode (``check``, or ``encode`` with
``check=True``): :func:`pairing_problems` over the grouped turns, :func:`totals`
after the walk, over what the encoder counted where it wrote it (cache
breakpoints, inline bytes, turns written without content).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from chatschema_models.content import ReasoningBlock, RefusalBlock, TextBlock
from chatschema_models.message import AssistantMessage, Message, ToolMessage
from chatschema_models.tool import NamedToolChoice

from chatschema.errors import Problem
from chatschema.providers._common import Options, is_foreign_tool, pointer
from chatschema.providers.anthropic.request import Turns, blank
from chatschema.providers.anthropic.wire import (
    MAX_CACHE_BREAKPOINTS,
    MAX_REQUEST_INLINE_BYTES,
    NAME,
)

if TYPE_CHECKING:
    from chatschema.providers.anthropic.encode import _Encoder


def totals(encoder: _Encoder) -> None:
    """The rules over the whole request, after the encoder's walk (collect mode)."""
    conversation = encoder.conversation
    messages = conversation.messages
    options = encoder.options
    if len(encoder.breakpoints) > MAX_CACHE_BREAKPOINTS:
        encoder.problem(
            encoder.breakpoints[MAX_CACHE_BREAKPOINTS],
            "too_many_cache_breakpoints",
            f"{len(encoder.breakpoints)} cache breakpoints; Anthropic takes at most "
            f"{MAX_CACHE_BREAKPOINTS} per request (tools, system and messages)",
        )
    if encoder.inline > MAX_REQUEST_INLINE_BYTES:
        encoder.problem(
            "/messages",
            "request_too_large",
            f"{encoder.inline} bytes of inline data; Anthropic requests are limited to 32 MB",
        )
    for number, role, indexes in encoder.empty:  # a turn written with content has some
        if role == "assistant" and number == encoder.turn_count - 1:
            continue  # a final assistant turn (prefill) may be empty
        if not any(_has_content(messages[index], options) for index in indexes):
            encoder.problem(
                pointer(indexes[0], "content"),
                "empty_content",
                "this message would be empty; Anthropic requires content in every "
                "message but a final assistant one",
            )
    choice = conversation.tool_choice
    if (
        options.native_tools
        and isinstance(choice, NamedToolChoice)
        and conversation.tools
        and all(
            tool.name != choice.name or is_foreign_tool(tool, NAME) for tool in conversation.tools
        )
    ):
        encoder.problem(
            "/tool_choice/name", "unknown_tool", f"tool_choice names no tool: {choice.name!r}"
        )


def pairing_problems(messages: Sequence[Message], turns: Turns) -> list[Problem]:
    """Tool calls answered in the very next user turn, once each.

    Unlike ``_common.tool_pairing_problems(adjacent=True)``, this works on wire
    turns: consecutive assistant messages form one turn, and user text next to
    the results is fine (the encoder puts the results first).
    """
    problems: list[Problem] = []
    pending: dict[str, tuple[int, int]] = {}
    answered: set[str] = set()

    def unanswered(before: int | None) -> None:
        """Note every call still pending (``before``: the message they needed to precede)."""
        if not pending:
            return
        for call_id, (index, position) in pending.items():
            where = f" before message {before}" if before is not None else ""
            problems.append(
                Problem(
                    pointer(index, "tool_calls", position, "id"),
                    "unanswered_tool_call",
                    f"tool call {call_id!r} has no tool result in the next user turn{where} "
                    "(anthropic requires one)",
                )
            )
        pending.clear()

    for role, indexes in turns:
        if role == "user":
            for index in indexes:
                message = messages[index]
                if not isinstance(message, ToolMessage):
                    continue
                call_id = message.tool_call_id
                if call_id in pending:
                    del pending[call_id]
                    answered.add(call_id)
                    continue
                reason = (
                    "answers a call that was already answered"
                    if call_id in answered
                    else "answers no tool call of the assistant turn before it"
                )
                problems.append(
                    Problem(
                        pointer(index, "tool_call_id"),
                        "orphan_tool_result",
                        f"tool result for {call_id!r} {reason}",
                    )
                )
            unanswered(indexes[-1] + 1 if indexes[-1] + 1 < len(messages) else None)
            continue
        unanswered(indexes[0])
        if role == "assistant":
            for index in indexes:
                message = messages[index]
                assert isinstance(message, AssistantMessage)
                for position, call in enumerate(message.tool_calls):
                    if call.id in pending or call.id in answered:
                        problems.append(
                            Problem(
                                pointer(index, "tool_calls", position, "id"),
                                "duplicate_tool_call_id",
                                f"tool call id {call.id!r} is used twice",
                            )
                        )
                    pending[call.id] = (index, position)
    unanswered(None)
    return problems


def _has_content(message: Message, options: Options) -> bool:
    """Whether a message gives its wire turn content (the API refuses empty turns)."""
    if isinstance(message, ToolMessage):
        return True
    if isinstance(message, AssistantMessage) and (message.tool_calls or message.invalid_tool_calls):
        return True
    content = message.content
    if isinstance(content, str):
        return not blank(content)
    for block in content:
        if isinstance(block, (TextBlock, RefusalBlock)):
            if not blank(block.text):
                return True
        elif isinstance(block, ReasoningBlock):
            if options.replays(block.provider) or options.reasoning == "text":
                return True
        else:
            return True
    return False
