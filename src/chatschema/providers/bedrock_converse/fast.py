"""The fast walk of the Converse encoder: the common shapes, grouped as they are written.

With native tools and content that is not forced into strings, :func:`fast_turns`
writes the request's ``messages`` in one walk that groups the turns as it goes. It
writes itself the messages of the common shapes (user and assistant text as a
string, tool calls without extras or positions, tool results with string
content); any other message without extras goes to the encoder's writer
(:meth:`~.encode._Encoder.message`), the general path, message by message. In
collect mode it also tells whether the pairing rule
(:func:`~.rules.pairing_problems`) has anything to report, so that a history
without problems needs no walk of its own for it.

It gives up (None) at a message with extras (turn markers, kept wire keys) or a
system message after the first turn, and when a tool-use id needs a wire id
(:func:`~.rules.tool_ids`): the encoder then writes the whole request again by the
general path. The switch is ``encode.FAST``; tests/providers/bedrock_converse/
test_encode_fast.py encodes and checks with it on and off and compares the two: the
same bytes, the same error, the same problems in the same order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatschema_models.message import AssistantMessage, ToolMessage, UserMessage

from chatschema.providers._common import pointer
from chatschema.providers.bedrock_converse.wire import IDS

if TYPE_CHECKING:
    from chatschema.providers.bedrock_converse.encode import _Encoder


def fast_turns(encoder: _Encoder, start: int) -> list[dict[str, Any]] | None:
    """The wire messages from ``start`` on, in one walk; None to take the general path.

    ``encoder.paired`` tells afterwards whether every call is answered as
    :func:`~.rules.pairing_problems` requires (False: that rule has problems to
    report).
    """
    messages = encoder.conversation.messages
    collect = encoder.collect
    out: list[dict[str, Any]] = []
    role = ""  # the open turn's wire role ("" before the first)
    opened = start  # its first message
    results: list[dict[str, Any]] = []  # its tool results
    blocks: list[dict[str, Any]] = []  # its other blocks
    pending: set[str] = set()  # call ids waiting for their results
    answered: set[str] = set()
    paired = True
    ids: list[str] = []  # every call id, checked at the end in one match
    add_id = ids.append
    tool_blocks = 0
    for index in range(start, len(messages)):
        message = messages[index]
        if message.extras:
            return None
        kind = type(message)
        content = message.content
        plain = type(content) is str
        written: list[dict[str, Any]] | None = None  # the message's blocks, when plain
        if kind is ToolMessage:
            call_id = message.tool_call_id  # type: ignore[union-attr]
            add_id(call_id)
            if call_id in pending:
                pending.discard(call_id)
                answered.add(call_id)
            else:
                paired = False
            if plain:
                result: dict[str, Any] = {
                    "toolUseId": call_id,
                    "content": [{"text": content}] if content else [],
                }
                if message.status == "error":  # type: ignore[union-attr]
                    result["status"] = "error"
                tool_blocks += 1
                if role != "user":
                    if role:
                        turn = results + blocks if results else blocks
                        if collect and not turn:
                            _empty(encoder, opened)
                        out.append({"role": role, "content": turn})
                    role, opened, results, blocks = "user", index, [], []
                results.append({"toolResult": result})
                continue
            wire_role = "user"
        elif kind is AssistantMessage:
            if pending:
                paired = False
            calls = message.tool_calls  # type: ignore[union-attr]
            invalid_calls = message.invalid_tool_calls  # type: ignore[union-attr]
            for call in calls:
                call_id = call.id
                add_id(call_id)
                if call_id in pending or call_id in answered:
                    paired = False
                pending.add(call_id)
            for invalid in invalid_calls:
                if invalid.id is not None:
                    add_id(invalid.id)
                    if invalid.id in pending or invalid.id in answered:
                        paired = False
                    pending.add(invalid.id)
            wire_role = "assistant"
            if plain and not invalid_calls:
                written = [{"text": content}] if content else []
                for call in calls:
                    if call.extras or call.index is not None:
                        written = None
                        break
                    use = {"toolUseId": call.id, "name": call.name, "input": call.arguments}
                    written.append({"toolUse": use})
                if written is not None:
                    tool_blocks += len(calls)
        elif kind is UserMessage:
            wire_role = "user"
            if plain:
                written = [{"text": content}] if content else []
        else:
            return None  # a system message after the first turn: the general path
        first: list[dict[str, Any]] = _NONE
        if written is None:
            before = encoder.dropped
            first, written = encoder.message(message, index)
            if not first and not written and encoder.dropped > before:
                continue  # emptied by drops: not sent, its neighbours of one role merge
        if wire_role != role:
            if role:
                turn = results + blocks if results else blocks
                if collect and not turn:
                    _empty(encoder, opened)
                out.append({"role": role, "content": turn})
            role, opened, results, blocks = wire_role, index, list(first), written
        else:
            if first:
                results.extend(first)
            blocks.extend(written)
    if ids and not IDS.fullmatch("\n".join(ids)):
        return None  # an id Converse would refuse: written again, under wire ids
    if role:
        turn = results + blocks if results else blocks
        if collect and not turn:
            _empty(encoder, opened)
        out.append({"role": role, "content": turn})
    encoder.tool_blocks += tool_blocks
    # calls still waiting at the end are a problem of requests only (``request=False``)
    encoder.paired = paired and (not pending or not encoder.options.request)
    return out


_NONE: list[dict[str, Any]] = []
"""No tool results (never appended to: copied when a turn opens)."""


def _empty(encoder: _Encoder, index: int) -> None:
    """Note a turn without content (Converse refuses it) opened by message ``index``.

    Not when unsupported content emptied it: that problem is noted already.
    """
    if not encoder.refused_since(index):
        encoder.problem(pointer(index), "empty_content", "a message without content")
