"""The fast walk of the Interactions encoder: the common shapes, and whether the rules have work.

:func:`fast_steps` writes the request's ``input`` steps after the system
instruction. It writes itself the messages of the common shapes: user messages with
string content and no extras (a ``user_input`` step of one text item), assistant
messages with string content, no extras, no invalid tool calls and tool calls without
extras or wire positions (a ``model_output`` step of the text, then the
``function_call`` steps), and tool results with string content and no extras (a
``function_result`` step). Every other message goes to ``encoder.message``, the
general path, which writes the same for the common shapes. On the way it tells
whether the pairing rule would find anything (``encoder.paired``) and which messages
may carry extras (``encoder.general``, the ones the general path wrote), so that a
plain history needs no walk of those checks of its own.

The switch is ``encode.FAST``: off, every message takes ``encoder.message``;
tests/providers/gemini_interactions/test_encode_fast.py compares the two: the same
bytes, the same error, the same problems in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from chatschema_models.message import AssistantMessage, Message, ToolMessage, UserMessage

if TYPE_CHECKING:
    from chatschema.providers.gemini_interactions.encode import _Encoder


def fast_steps(
    encoder: _Encoder, messages: Sequence[Message], start: int, steps: list[dict[str, Any]]
) -> None:
    """The steps of ``messages[start:]``: the common shapes here, the others by the encoder.

    Sets ``encoder.paired`` (no call waits at another assistant turn or at the end, no
    result answers a call that is not waiting, no call id is used twice) and
    ``encoder.general`` (the messages written by the general path: only they may
    carry extras).
    """
    pending: dict[str, None] = {}  # call ids waiting for their results
    made: set[str] = set()
    count = 0  # calls made (as many as ids in ``made``: no id used twice)
    paired = True
    general = list(range(start))  # (the leading system messages: written before)
    append = steps.append
    for index in range(start, len(messages)):
        message = messages[index]
        kind = type(message)
        content = message.content
        if kind is UserMessage and content.__class__ is str and not message.extras:
            append({"type": "user_input", "content": [{"type": "text", "text": content}]})
            continue
        if kind is AssistantMessage:
            if TYPE_CHECKING:  # (kind is its exact type)
                assert isinstance(message, AssistantMessage)
            if pending:  # calls the results did not answer before this turn
                paired = False
                pending.clear()
            calls = message.tool_calls
            for call in calls:
                pending[call.id] = None
                made.add(call.id)
            count += len(calls)
            if (
                content.__class__ is str
                and not message.extras
                and not message.invalid_tool_calls
                and all(not call.extras and call.index is None for call in calls)
            ):
                # as model_steps, the common turn: its text, then its calls
                if content:
                    append({"type": "model_output", "content": [{"type": "text", "text": content}]})
                for call in calls:  # (the arguments object as the other fast walks give it)
                    append(
                        {
                            "type": "function_call",
                            "id": call.id,
                            "name": call.name,
                            "arguments": call.arguments,
                        }
                    )
                continue
        elif kind is ToolMessage:
            if TYPE_CHECKING:  # (kind is its exact type)
                assert isinstance(message, ToolMessage)
            call_id = message.tool_call_id
            if call_id in pending:
                del pending[call_id]
            else:
                paired = False
            if content.__class__ is str and not message.extras:
                # as result: the text as the result
                step: dict[str, Any] = {
                    "type": "function_result",
                    "call_id": call_id,
                    "result": content,
                }
                if message.status == "error":
                    step["is_error"] = True
                append(step)
                continue
        general.append(index)
        steps += encoder.message(message, index)
    encoder.paired = paired and not pending and len(made) == count
    encoder.general = general
