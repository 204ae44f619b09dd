"""The encoder's walk over the messages, with the common shapes written inline.

:func:`write_messages` is the walk of every ``encode`` and ``check`` over the
messages after the leading instructions: one message after the other, each as its
input items. With native tools and ``content_format`` other than ``"parts"`` it
writes itself the messages of the common shapes: user and system messages with
string content and no extras of this format (as input messages), assistant messages
with string content, no invalid tool calls and tool calls without extras or wire
positions (a message, then ``function_call`` items with the arguments as compact
JSON), and tool results with string content and no extras of this format
(``function_call_output`` items). Every other message goes to the encoder's writer
for its role (``encoder.user``, ``system``, ``tool``, ``assistant``): the general
path, which writes the same for the common shapes. In collect mode the walk also
pairs tool calls with their outputs
(:class:`~chatschema.providers._common.ToolPairing`), so that check needs no walk of
its own for that rule.

The switch is ``encode._FAST``: off, every message takes the general path and check
pairs in a walk of its own (:func:`~.rules.pairing_problems`);
tests/providers/openai_responses/test_encode_fast.py encodes and checks with it on
and off and compares the two: the same bytes, the same error, the same problems.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

from chatschema.providers._common import json_text
from chatschema.providers.openai_responses.wire import NAME

if TYPE_CHECKING:
    from chatschema.providers.openai_responses.encode import _Encoder


def write_messages(encoder: _Encoder, messages: Sequence[Message], start: int) -> None:
    """The input items of the messages from ``start`` on.

    The common shapes (string content, tool calls without extras or wire
    positions, no extras of this format) are written here, as the general path
    of their role would write them; anything else takes that path. Check's tool
    pairing is done in the same walk.
    """
    fast = encoder.fast
    pairing = encoder.pairing
    pending: dict[str, tuple[int, str, int]] = {} if pairing is None else pairing.pending
    answered: set[str] = set() if pairing is None else pairing.answered
    system_role = encoder.options.system_role
    append = encoder.items.append
    # the messages that may carry extras (any format's), the leading instructions
    # (written before) among them: the foreign-extras check's
    general: list[int] | None = list(range(start)) if fast else None
    for index in range(start, len(messages)):
        message = messages[index]
        if general is not None and message.extras:
            general.append(index)
            listed = True
        else:
            listed = False
        if isinstance(message, AssistantMessage):
            if pending and pairing is not None:
                pairing.unanswered(index)
            calls = message.tool_calls
            content = message.content
            if fast and type(content) is str and not message.invalid_tool_calls:
                foreign = False  # a call with another format's extras
                for call in calls:
                    extras = call.extras
                    if call.index is not None or (extras and extras.get(NAME)):
                        break
                    foreign = foreign or bool(extras)
                else:
                    if content or not calls:
                        append({"role": "assistant", "content": content})
                    for position, call in enumerate(calls):
                        call_id = call.id
                        if pairing is not None:
                            if call_id in pending or call_id in answered:
                                pairing.duplicate(call_id, index, "tool_calls", position)
                            pending[call_id] = (index, "tool_calls", position)
                        append(
                            {
                                "type": "function_call",
                                "call_id": call_id,
                                "name": call.name,
                                "arguments": json_text(call.arguments),
                            }
                        )
                    if foreign and general is not None and not listed:
                        general.append(index)
                    continue
            if general is not None and not listed:
                general.append(index)
            if pairing is not None:
                pairing.message(index, message)
            encoder.assistant(message, index)
            continue
        extras = message.extras
        plain = fast and (not extras or not extras.get(NAME))
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
                item = {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": content,
                }
                if message.name is not None:
                    item["name"] = message.name
                append(item)
                continue
            if general is not None and not listed:
                general.append(index)
            encoder.tool(message, index)
            continue
        content = message.content
        if plain and type(content) is str:
            if isinstance(message, UserMessage):
                append({"role": "user", "content": content})
            else:
                append({"role": system_role, "content": content})
            continue
        if general is not None and not listed:
            general.append(index)
        if isinstance(message, UserMessage):
            encoder.user(message, index)
        else:
            assert isinstance(message, SystemMessage)
            encoder.system(message, index)
    encoder.general = general
