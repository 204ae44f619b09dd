"""The rules of the Messages API that only check: tool pairing, thinking order, totals.

The encoder runs them in collect mode (``check``, or ``encode`` with
``check=True``): :func:`pairing_problems` over the grouped turns (paired per turn
the API sees), :func:`totals` after the walk, over what the encoder counted where it
wrote it (cache breakpoints, inline bytes, turns written without content, thinking
blocks for :func:`thinking_order`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

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
    THINKING_BLOCKS,
)

if TYPE_CHECKING:
    from chatschema.providers.anthropic.encode import _Encoder


def totals(encoder: _Encoder, wire_messages: list[dict[str, Any]]) -> None:
    """The rules over the whole request, after the encoder's walk (collect mode)."""
    settings = encoder.conversation.settings
    if encoder.thinking and settings is not None and (settings.thinking_budget or 0) > 0:
        thinking_order(encoder, wire_messages)
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


def pairing_problems(
    messages: Sequence[Message], turns: Turns, *, trailing: bool = True
) -> list[Problem]:
    """Tool calls answered first thing in the very next user turn; results with a call.

    ``trailing=False`` (the ``request=False`` option: a history, not a request to
    send) lets calls still waiting for results when the history ends be.

    The rules are the API's errors, on the turns it sees: consecutive wire messages
    of one role are one turn (SDK 2.13 MessageCreateParams.messages: "Consecutive
    user or assistant turns in your request will be combined into a single turn";
    recorded: calls of two assistant messages in a row answered together).

    - ``unanswered_tool_call``: "`tool_use` ids were found without `tool_result`
      blocks immediately after": every call of an assistant turn needs its result
      in the user turn right after it, before any other content of that turn
      (Messages API, "Tool use": tool_result blocks come first; a user message
      between two results breaks the run, as the API's answers to split image
      results show). The encoder puts the results of one wire message first, so
      only a result in a later wire message, after text, comes late.
    - ``orphan_tool_result``: "unexpected `tool_use_id` found in `tool_result`
      blocks": a result whose id no call before it has (a result before its call,
      or one whose call was cut from the history). A result for a call of an
      earlier turn, answered there already, is no problem: the API took such
      requests (real traffic).
    - ``duplicate_tool_call_id``: two calls of one turn with one id. An id may come
      back in a later turn, once its call was answered.
    """
    problems: list[Problem] = []
    pending: dict[str, tuple[int, int]] = {}  # calls of the last assistant turn
    called: set[str] = set()  # every call id so far

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

    previous = ""  # the role of the turn before
    closed = False  # whether the user turn so far has content other than results
    for number, (role, indexes) in enumerate(turns):
        if role == "user":
            if previous != "user":
                closed = False
            for index in indexes:
                message = messages[index]
                if not isinstance(message, ToolMessage):
                    continue
                call_id = message.tool_call_id
                if call_id in pending and not closed:
                    del pending[call_id]
                elif call_id not in called:
                    problems.append(
                        Problem(
                            pointer(index, "tool_call_id"),
                            "orphan_tool_result",
                            f"tool result for {call_id!r} answers no tool call before it",
                        )
                    )
            closed = closed or any(
                not isinstance(messages[index], ToolMessage) for index in indexes
            )
            following = turns[number + 1][0] if number + 1 < len(turns) else None
            ends = following is None and not trailing and not closed  # waiting: no problem
            if not ends and (closed or following != "user"):  # (user after: the same turn)
                after = indexes[-1] + 1
                unanswered(after if after < len(messages) else None)
        elif role == "assistant":
            if previous != "assistant":  # a new API turn: its calls are the ones to answer
                unanswered(indexes[0])
            for index in indexes:
                message = messages[index]
                assert isinstance(message, AssistantMessage)
                for position, call in enumerate(message.tool_calls):
                    if call.id in pending:
                        problems.append(
                            Problem(
                                pointer(index, "tool_calls", position, "id"),
                                "duplicate_tool_call_id",
                                f"tool call id {call.id!r} is used twice in one assistant turn",
                            )
                        )
                    pending[call.id] = (index, position)
                    called.add(call.id)
        else:
            unanswered(indexes[0])
        previous = role
    if trailing:
        unanswered(None)
    return problems


def thinking_order(encoder: _Encoder, wire_messages: list[dict[str, Any]]) -> None:
    """Thinking first in an assistant message that has any, with thinking enabled.

    Anthropic extended thinking ("Extended thinking with tool use", "Preserving
    thinking blocks"): with ``thinking`` of type ``enabled`` (a budget) replies start
    with their thinking, and the API answers 400 to an assistant message that has
    thinking after another first block ("If an assistant message contains any
    thinking blocks, the first block must be thinking or redacted_thinking").
    Only then: with adaptive thinking the API itself replies ``[text, thinking,
    text]`` (recorded, claude-opus-4-6) and takes ``[server_tool_use, ...,
    thinking, ...]`` back (recorded, claude-sonnet-5), so without a budget in the
    settings nothing is reported. Blocks are never reordered: the order is what the
    model reads, and the API refuses thinking of the latest assistant message that
    is not as it produced it. The problem points at the message's first thinking block.
    """
    written = {id(wire): (index, position) for wire, index, position in encoder.thinking}
    for wire_message in wire_messages:
        content = wire_message["content"]
        if wire_message["role"] != "assistant" or not isinstance(content, list) or not content:
            continue
        if content[0].get("type") in THINKING_BLOCKS:
            continue
        for block in content:
            where = written.get(id(block))
            if where is not None:
                encoder.problem(
                    pointer(where[0], "content", where[1]),
                    "thinking_order",
                    f"thinking after a {content[0].get('type')!r} block: with thinking "
                    "enabled, an assistant message with thinking must start with it "
                    "(Anthropic extended thinking); put it first, or send it with "
                    "reasoning='drop'",
                )
                break


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
