"""The fast walk of the Gemini encoder: the common shapes, and whether the rules have work.

With native tools and ``content_format`` other than ``"string"``,
:func:`fast_contents` writes the request's ``contents`` after the system
instruction. It writes itself the messages of the common shapes: user messages with
non-empty string content and no extras (one text part), assistant messages with
string content, no extras, no invalid tool calls and tool calls without extras or
wire positions (the text, then the ``function_call`` parts), and tool results with
string content, a known function name and no extras (``function_response`` parts;
results that follow each other share one user content). Every other message goes to
``encoder.add``: the general path, message by message, which writes the same for the
common shapes. On the way it tells whether the rules that only check (tool pairing,
:func:`~.encode._turn_problems`) would find anything (``encoder.paired``,
``encoder.ordered``), so that a history without problems needs no walk of the rules
of its own.

The switch is ``encode.FAST``: off, every message takes ``encoder.add`` and the
rules walk on their own; tests/providers/gemini/test_encode_fast.py encodes and
checks with it on and off and compares the two: the same bytes, the same error, the
same problems in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from chatschema_models.message import AssistantMessage, Message, ToolMessage, UserMessage

from chatschema.providers._common import pointer
from chatschema.providers.gemini.wire import NOT_ADJACENT

if TYPE_CHECKING:
    from chatschema.providers.gemini.encode import _Encoder


def adjacent(contents: Sequence[dict[str, Any]], call_content: int, content: int) -> bool:
    """Whether a function response in ``content`` is in the turn right after its call's.

    Contents of one role in a row are one turn: the call's content is followed by
    model contents only (its turn), then user contents only up to ``content`` (the
    turn right after it). Function calling, multi-turn: the responses go in the turn
    right after the calls; the API takes them from model contents in a row and spread
    over user contents in a row (HTTP 200, recorded requests), so only a model
    content after a user one in between (a later turn) breaks the pair.
    """
    if call_content + 1 == content:
        return True
    if not call_content < content <= len(contents):
        return False
    user = False  # a user content came: the turn after the call's has begun
    for at in range(call_content + 1, content):
        if contents[at]["role"] == "model":
            if user:
                return False
        else:
            user = True
    return True


def fast_contents(
    encoder: _Encoder,
    messages: Sequence[Message],
    start: int,
    contents: list[dict[str, Any]],
    empty: list[tuple[int, int]],
) -> None:
    """The walk of ``encoder.request`` from ``start`` on, for the usual options.

    Messages of the common shapes (string content, tool calls and results
    without extras or positions) are written here, any other by ``encoder.add``, so
    the output is the same (tests/providers/gemini/test_encode_fast.py compares
    them). On the way it tells whether ``tool_pairing_problems`` and
    :func:`~.encode._turn_problems` would find anything (``encoder.paired``,
    ``encoder.ordered``): in a history without problems they need no walk of their own.
    """
    collect = encoder.collect
    calls_made = encoder.calls
    # pairing, as far as a walk without problems needs: call ids waiting for results
    pending: dict[str, None] = {}
    count = 0  # calls made (as many as ids in calls_made: no id used twice)
    paired = ordered = True
    # the messages the general path writes, and the leading system messages (written
    # before): the others have no extras; the foreign-extras check reads these only
    general = list(range(start))
    after_tool = False  # whether the message written before is a tool result
    turn = ""  # the role of the message before, for the turn order
    for index in range(start, len(messages)):
        message = messages[index]
        kind = type(message)
        content = message.content
        if kind is UserMessage:
            turn = "user"
            if content and isinstance(content, str) and not message.extras:
                # as parts: one text part
                contents.append({"role": "user", "parts": [{"text": content}]})
                after_tool = False
                continue
        elif kind is AssistantMessage:
            if TYPE_CHECKING:  # (kind is its exact type)
                assert isinstance(message, AssistantMessage)
            calls = message.tool_calls
            if pending:  # calls the results did not answer before this turn
                paired = False
                pending.clear()
            if calls and turn != "user":
                ordered = False
            turn = "model"
            plain = (
                isinstance(content, str)
                and (content or calls)
                and not message.extras
                and not message.invalid_tool_calls
            )
            # as model_parts and call: the text, then the calls
            parts: list[dict[str, Any]] = [{"text": content}] if plain and content else []
            number = len(contents)  # the content they go to
            count += len(calls)
            for call in calls:
                call_id = call.id
                pending[call_id] = None
                if plain:
                    if call.extras or call.index is not None:
                        plain = False  # (what call noted so far, it notes again)
                    else:
                        called = call.name
                        function = {"name": called, "args": call.arguments, "id": call_id}
                        parts.append({"function_call": function})
                        calls_made[call_id] = (called, True, number)
            if plain:
                contents.append({"role": "model", "parts": parts})
                after_tool = False
                continue
            general.append(index)
            if encoder.add(message, index, after_tool, contents, empty):
                after_tool = False
            continue
        elif kind is ToolMessage:
            if TYPE_CHECKING:  # (kind is its exact type)
                assert isinstance(message, ToolMessage)
            call_id = message.tool_call_id
            if call_id in pending:
                del pending[call_id]
            else:
                paired = False
            turn = "user"
            known = calls_made.get(call_id)
            name = message.name or (known[0] if known is not None else None)
            if isinstance(content, str) and name is not None and not message.extras:
                # as tool_parts: a function_response part
                join = after_tool and contents[-1]["role"] == "user"
                if collect and known is not None:
                    number = len(contents) - 1 if join else len(contents)
                    if known[2] + 1 != number and not adjacent(contents, known[2], number):
                        encoder.problem(
                            pointer(index, "tool_call_id"),
                            "not_adjacent",
                            NOT_ADJACENT % (call_id,),
                        )
                # as tool_response
                output = {"error" if message.status == "error" else "output": content}
                if known is None or known[1]:
                    response = {"name": name, "id": call_id, "response": output}
                else:
                    response = {"name": name, "response": output}
                part = {"function_response": response}
                if join:
                    contents[-1]["parts"].append(part)
                else:
                    contents.append({"role": "user", "parts": [part]})
                after_tool = True
                continue
        else:  # any other kind: the rules walk on their own
            paired = ordered = False
        general.append(index)
        if encoder.add(message, index, after_tool, contents, empty):
            after_tool = isinstance(message, ToolMessage)
    # every result answered a waiting call (above) and no call id is used twice:
    # nothing for tool_pairing_problems to report
    encoder.paired = paired and not pending and len(calls_made) == count
    encoder.ordered = ordered
    encoder.general = general
