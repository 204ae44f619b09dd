"""The encoder's walk over the messages, with the common shapes written inline.

:func:`write_messages` is the walk of every ``encode`` and ``check``: one message
after the other, in order, the images of tool results after the tool messages. With
native tools and ``content_format`` other than ``"parts"`` it writes itself the
messages of the common shapes: string content, no extras of this format and (but for
tool results) no ``name``; for an assistant message, no invalid tool calls and tool
calls without extras or wire positions (as ``function`` calls, their arguments as
compact JSON). Every other message goes to the encoder's writer for its role
(``encoder.instructions``, ``user``, ``tool``, ``assistant``): the general path,
which writes the same for the common shapes. In collect mode the walk also pairs
tool calls with their results (:class:`~chatschema.providers._common.ToolPairing`),
so that check needs no walk of its own for that rule.

The switch is ``encode._FAST``: off, every message takes the general path and check
pairs in a walk of its own (:func:`~.rules.pairing_problems`);
tests/providers/openai_chat/test_encode_fast.py encodes and checks with it on and
off and compares the two: the same bytes, the same error, the same problems.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

from chatschema.providers._common import json_text
from chatschema.providers.openai_chat.wire import NAME

if TYPE_CHECKING:
    from chatschema.providers.openai_chat.encode import _Encoder


def write_messages(encoder: _Encoder, messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Every message, in order; tool-result images follow the tool messages.

    The common shapes (string content, tool calls without extras or wire
    positions, no name and no extras of this format) are written here, as the
    general path of their role would write them; anything else takes that path.
    Check's tool pairing is done in the same walk.
    """
    native = encoder.options.native_tools
    fast = encoder.fast
    collect = encoder.collect
    pairing = encoder.pairing
    pending: dict[str, tuple[int, str, int]] = {} if pairing is None else pairing.pending
    answered: set[str] = set() if pairing is None else pairing.answered
    names = encoder.tool_names
    system_role = encoder.options.system_role if encoder.explicit_system_role else "system"
    out = encoder.out
    append = out.append
    # the messages that may carry extras (any format's): the foreign-extras check's
    general: list[int] | None = [] if fast else None
    for index, message in enumerate(messages):
        extras = message.extras
        plain = fast and (not extras or not extras.get(NAME))
        listed = False  # whether ``general`` has this message
        if general is not None and extras:
            general.append(index)
            listed = True
        if isinstance(message, ToolMessage):
            if pairing is not None:
                call_id = message.tool_call_id
                if call_id in pending:
                    del pending[call_id]
                    answered.add(call_id)
                else:
                    pairing.orphan(index, call_id)
            content = message.content
            if plain and type(content) is str:
                append({"role": "tool", "tool_call_id": message.tool_call_id, "content": content})
                continue
            if general is not None and not listed:
                general.append(index)
            if native:
                append(encoder.tool(message, index))
            else:
                append(encoder.tool_as_user(message, index))
            continue
        if encoder.tool_images:
            encoder.flush_tool_images()
        if pending and pairing is not None:
            pairing.unanswered(index)
        content = message.content
        if plain and message.name is None and type(content) is str:
            if isinstance(message, UserMessage):
                append({"role": "user", "content": content})
                continue
            if isinstance(message, SystemMessage):
                append({"role": system_role, "content": content})
                continue
            assert isinstance(message, AssistantMessage)
            calls = message.tool_calls
            foreign = False  # a call with another format's extras
            for call in calls:
                call_extras = call.extras
                if call.index is not None or (call_extras and call_extras.get(NAME)):
                    break
                foreign = foreign or bool(call_extras)
            else:
                if not message.invalid_tool_calls:
                    # unset content is null (the wire form of an assistant with calls)
                    wire: dict[str, Any] = {
                        "role": "assistant",
                        "content": (
                            content if content or "content" in message.model_fields_set else None
                        ),
                    }
                    if calls:
                        wire["tool_calls"] = written = []
                        for position, call in enumerate(calls):
                            call_id = call.id
                            if pairing is not None:
                                if call_id in pending or call_id in answered:
                                    pairing.duplicate(call_id, index, "tool_calls", position)
                                pending[call_id] = (index, "tool_calls", position)
                            name = call.name
                            if collect and name not in names:
                                encoder.check_call_name(name, index, position)
                            written.append(
                                {
                                    "id": call_id,
                                    "type": "function",
                                    "function": {
                                        "name": name,
                                        "arguments": json_text(call.arguments),
                                    },
                                }
                            )
                    append(wire)
                    if foreign and general is not None and not listed:
                        general.append(index)
                    continue
        if general is not None and not listed:
            general.append(index)
        if pairing is not None and isinstance(message, AssistantMessage):
            pairing.message(index, message)
        dropped = encoder.dropped
        if isinstance(message, SystemMessage):
            wire = encoder.instructions(message, index)
        elif isinstance(message, UserMessage):
            wire = encoder.user(message, index)
        else:
            wire = encoder.assistant(message, index)
        if encoder.dropped > dropped and _empty_message(wire):
            continue  # drops left it empty: not sent (the API rejects it)
        append(wire)
    encoder.flush_tool_images()
    encoder.general = general
    return out


def _empty_message(wire: Mapping[str, Any]) -> bool:
    """Whether a system, user or assistant message has nothing to say.

    No content, tool calls, refusal, reasoning or audio.
    """
    return not wire.get("content") and all(key in ("role", "name", "content") for key in wire)
