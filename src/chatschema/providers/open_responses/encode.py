"""``encode`` and ``check``: the Responses encoder over this format's own values.

The request is the Responses API's (``CreateResponseBody`` in the Open Responses
OpenAPI document): :mod:`chatschema.providers.openai_responses` writes it, after
:func:`~.mirror.inbound` has given this format's video blocks their part and named
its values as that codec does (a compaction block of this format is its own).
"""

from __future__ import annotations

from typing import Any, TypeGuard

from chatschema_models.content import ReasoningBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage
from typing_extensions import Unpack

from chatschema.errors import Problem
from chatschema.providers import openai_responses as responses
from chatschema.providers._common import (
    EncodeOptions,
    Options,
    guarded,
    to_conversation,
)
from chatschema.providers._common.guards import located_in
from chatschema.providers._common.options import dropped_settings_collected, report_dropped_settings
from chatschema.providers.open_responses.mirror import inbound, renamed_errors, renamed_problem
from chatschema.providers.open_responses.wire import INNER, NAME

__all__ = ["check", "encode"]


@guarded(NAME)
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """Neutral messages (or a Conversation) to an Open Responses request body.

    What :func:`chatschema.providers.openai_responses.encode` writes, and:
    ``VideoBlock`` as an ``input_video`` part (a URL, or inline data as a data URL) in
    tool results; this format's ``CompactionBlock`` as a ``compaction`` item; message
    items with ``"type": "message"``; the OpenAI Responses format's blocks and extras
    as this format's own (the same wire object). A replayed reasoning item goes
    without its text (the OpenAPI document's request items have no reasoning
    ``content``) and a user message's video is not sent: both unsupported content.

    Raises:
        ValidationError: when ``messages`` is not a conversation.
        OptionError: for unknown options or bad option values.
        UnsupportedContentError: for content the format cannot carry (audio, a video
            by file id, another provider's compaction ...) under
            ``unsupported="error"`` (a video in a user message), and
            settings it has no key for under
            ``unsupported_settings="error"``.
        ConversionError: with every structural problem when ``check`` is on.
    """
    conversation = inbound(to_conversation(messages))
    policy = Options.resolve(NAME, options)
    conversation, _ = _without_reasoning_text(conversation, policy)
    with located_in(NAME, messages), renamed_errors(), dropped_settings_collected() as dropped:
        payload = responses.encode(conversation, **options)
    report_dropped_settings(_renamed(dropped), NAME)
    return _typed(payload)


def _typed(payload: dict[str, Any]) -> dict[str, Any]:
    """Message items with their ``type`` (the Responses API's short form has none).

    The OpenAPI document's message items (``UserMessageItemParam`` ...) require
    ``"type": "message"``, as every request of its compliance tests has it.
    """
    items = payload.get("input")
    if isinstance(items, list):
        payload["input"] = [
            {"type": "message", **item}
            if isinstance(item, dict) and "role" in item and "type" not in item
            else item
            for item in items
        ]
    return payload


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every problem that would make ``encode`` fail or an Open Responses server reject it.

    The Responses API's rules (tool pairing, item ids, reasoning order, content and
    settings the format cannot carry, the image limits), located in ``messages``.
    """
    conversation = inbound(to_conversation(messages))
    conversation, problems = _without_reasoning_text(conversation, Options.resolve(NAME, options))
    with located_in(NAME, messages), renamed_errors():
        found = _renamed(responses.check(conversation, **options))
    return sorted([*problems, *found], key=_place) if problems else found


# ReasoningItemParam (OpenAPI document): `content` is null or an empty list, so a
# replayed reasoning item goes back as the request form has it: its id, summary and
# encrypted_content, not the raw text the response showed (output only, as Anthropic's
# thinking of earlier turns).


def _without_reasoning_text(
    conversation: Conversation, options: Options
) -> tuple[Conversation, list[Problem]]:
    """The conversation with its replayed reasoning items' text taken out.

    The item goes with its id, summary and encrypted content, the request form of the
    specification. Blocks the Responses codec does not replay are its to judge.
    """
    if options.reasoning == "drop":
        return conversation, []
    messages = list(conversation.messages)
    for index, message in enumerate(messages):
        if not isinstance(message, AssistantMessage) or not isinstance(message.content, list):
            continue
        content = list(message.content)
        for position, block in enumerate(content):
            if _replayed_text(block):
                content[position] = _textless(block)
        if content != message.content:
            messages[index] = message.model_copy(update={"content": content})
    if messages == conversation.messages:
        return conversation, []
    return conversation.model_copy(update={"messages": messages}), []


def _replayed_text(block: Any) -> TypeGuard[ReasoningBlock]:
    """A reasoning block the Responses codec sends back as an item, with its text."""
    return (
        isinstance(block, ReasoningBlock)
        and block.provider == INNER
        and block.id is not None
        and bool(block.text)
    )


def _textless(block: ReasoningBlock) -> ReasoningBlock:
    """The block without its text (and the raw ``content`` parts kept for it)."""
    extras = dict(block.extras or {})
    own = extras.get(INNER)
    if isinstance(own, dict) and "content" in own:
        own = {key: value for key, value in own.items() if key != "content"}
        if own:
            extras[INNER] = own
        else:
            del extras[INNER]
    return block.model_copy(update={"text": None, "extras": extras or None})


def _place(problem: Problem) -> tuple[int, ...]:
    """A problem's place in the conversation, for listing problems in order."""
    return tuple(int(part) for part in problem.pointer.split("/") if part.isdigit())


def _renamed(problems: list[Problem]) -> list[Problem]:
    """Problems of the shared codec, their messages naming this format."""
    return [renamed_problem(problem) for problem in problems]
