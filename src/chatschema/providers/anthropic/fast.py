"""The fast walk of the Anthropic encoder: the common shapes, grouped as they are written.

With the default options (native tools, ``content_format="auto"``),
:func:`fast_turns` writes the request's ``messages`` in one walk that groups the
turns as it goes, where the general path groups them first
(:func:`~.request.grouped_turns`) and writes each turn after. It writes itself the
messages of the common shapes: user and assistant messages with string content
(kept as a string when alone in their turn), assistant tool calls without extras
or wire positions as ``tool_use`` blocks, and tool results with string content and
no extras as ``tool_result`` blocks. Every other message goes to the encoder's
writers (:meth:`~.encode._Encoder.turn` and the ones it calls): the general path,
message by message. In collect mode it also tells whether the pairing rule
(:func:`~.rules.pairing_problems`) has anything to report, so that a history
without problems needs no walk of the rules of its own.

It gives up (None) when a tool-use id needs a wire id (:func:`~.request.tool_ids`):
the encoder then writes the whole request again by the general path. The switch
is ``encode.FAST``; tests/providers/anthropic/test_encode_fast.py encodes and
checks with it on and off and compares the two: the same bytes, the same error,
the same problems in the same order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

from chatschema.providers._common import extras_of
from chatschema.providers.anthropic.request import empty_turn, keeps_string, tool_ids
from chatschema.providers.anthropic.wire import IDS, NAME

if TYPE_CHECKING:
    from chatschema.providers.anthropic.encode import _Encoder


def fast_turns(encoder: _Encoder, count: int) -> list[dict[str, Any]] | None:
    """The encoder's ``turns`` for the default options, in one walk that groups as it writes.

    Messages of the common shapes (string content, tool calls and results
    without extras or positions) are written here, each other message by the
    writers ``encoder.turn`` uses, so the output is the same
    (tests/providers/anthropic/test_encode_fast.py compares them). In collect
    mode ``encoder.paired`` says whether every call is answered as
    :func:`~.rules.pairing_problems` requires (False: that rule has problems to
    report). None when a tool-use id needs a wire id (:func:`~.request.tool_ids`):
    the caller starts again.
    """
    messages = encoder.conversation.messages
    total = len(messages)
    collect = encoder.collect
    # pairing, as far as a walk without problems needs: call ids waiting for
    # their results in the next user turn (pairing_problems finds what is wrong)
    pending: dict[str, None] = {}
    paired = True
    out: list[dict[str, Any]] = []
    ids: list[str] = []  # every call id
    skipped: set[int] = set()
    role = ""  # the open turn's wire role ("" before the first)
    start = count  # its first message
    single: Message | None = None  # its one message, while it keeps its string content
    system: dict[str, Any] | None = None  # its wire message, for a system turn
    first: list[dict[str, Any]] = []  # its tool results (first in a user turn)
    rest: list[dict[str, Any]] = []  # its other blocks
    before = encoder.dropped
    for index in range(count, total + 1):
        if index < total:
            message = messages[index]
            kind = type(message)
            if kind is UserMessage or kind is ToolMessage:
                wire_role = "user"
            elif kind is AssistantMessage:
                wire_role = "assistant"
            elif isinstance(message, SystemMessage):
                wire_role = "system"
            else:
                wire_role = "assistant" if isinstance(message, AssistantMessage) else "user"
            joins = (
                wire_role == role
                and role != "system"
                and not (message.extras and extras_of(message, NAME).get("new_message"))
            )  # as grouped_turns groups
        else:
            joins = False
        if joins:  # the open turn goes on
            if single is not None:
                first, rest = [], []
                encoder.message_blocks(single, start, first, rest)
                single = None
            content = message.content
        else:
            if single is not None:  # the open turn ends: as turn writes it
                text = single.content
                if TYPE_CHECKING:  # (single is set for string content only)
                    assert isinstance(text, str)
                if collect and not text.strip():  # (nothing dropped from it)
                    encoder.empty.append((len(out), role, [start]))
                out.append({"role": role, "content": text})
            elif role:
                if system is not None:
                    wire = system
                else:
                    blocks = (first + rest if rest else first) if first else rest
                    wire = {"role": role, "content": blocks}
                if empty_turn(wire):
                    if encoder.dropped > before:
                        skipped.update(range(start, index))
                    elif collect:  # for the empty_content rule
                        encoder.empty.append((len(out), role, list(range(start, index))))
                out.append(wire)
            if pending and (
                index == total or role != "assistant" or wire_role not in ("user", "assistant")
            ):  # (an assistant message after one is the same API turn, as rules.py pairs)
                paired = False  # calls not answered in the user turn right after them
                pending.clear()
            if index == total:
                break
            # a turn begins
            role, start, before = wire_role, index, encoder.dropped
            system = single = None
            if role == "system":
                system = encoder.turn(role, [index])
                continue
            content = message.content
            if kind is UserMessage:
                if isinstance(content, str):
                    single = message  # written as it is unless another message joins
                    continue
            elif kind is AssistantMessage:
                if TYPE_CHECKING:  # (kind is its exact type)
                    assert isinstance(message, AssistantMessage)
                if (
                    isinstance(content, str)
                    and not message.tool_calls
                    and not message.invalid_tool_calls
                ):
                    single = message
                    continue
            elif kind is not ToolMessage and keeps_string(message):
                single = message
                continue
            first, rest = [], []
        # the message, written inline in the common shapes
        if kind is ToolMessage:
            if TYPE_CHECKING:  # (kind is its exact type)
                assert isinstance(message, ToolMessage)
            call_id = message.tool_call_id
            if call_id in pending:
                del pending[call_id]
            else:
                paired = False
            if isinstance(content, str) and not message.extras:  # as tool_result does
                result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
                if content:
                    result["content"] = content
                if message.status == "error":
                    result["is_error"] = True
                first.append(result)
            else:
                first.extend(encoder.tool_result(message, index))
        elif kind is AssistantMessage:
            if TYPE_CHECKING:  # (kind is its exact type)
                assert isinstance(message, AssistantMessage)
            calls = message.tool_calls
            plain = isinstance(content, str) and not message.invalid_tool_calls
            for call in calls:
                call_id = call.id
                ids.append(call_id)
                pending[call_id] = None
                if call.extras or call.index is not None:
                    plain = False
            if plain:  # as assistant and tool_call do
                if TYPE_CHECKING:
                    assert isinstance(content, str)
                if content.strip():
                    rest.append({"type": "text", "text": content})
                for call in calls:
                    rest.append(
                        {
                            "type": "tool_use",
                            "id": call.id,
                            "name": call.name,
                            "input": call.arguments,
                        }
                    )
            else:
                rest.extend(encoder.assistant(message, index))
        else:
            if kind is not UserMessage and isinstance(message, (ToolMessage, AssistantMessage)):
                paired = False  # (not worth pairing here: pairing_problems does)
            encoder.message_blocks(message, index, first, rest)
    # every result answered a waiting call (above) and no call id is used twice:
    # nothing for pairing_problems to report, and the results use the calls' ids
    paired = paired and len(set(ids)) == len(ids)
    if (ids and not IDS.fullmatch("\n".join(ids))) if paired else tool_ids(messages):
        return None  # (a single match checks them all)
    encoder.paired = paired
    encoder.turn_count = len(out)
    return encoder.regrouped(count, skipped) if skipped else out
