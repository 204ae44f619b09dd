"""The rules of a Converse request that only check, and the tool-use ids it needs."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from chatschema_models.message import AssistantMessage, Message, ToolMessage

from chatschema.errors import Problem
from chatschema.providers._common import tool_pairing_problems
from chatschema.providers.bedrock_converse.wire import ID, ID_BAD, NAME


def tool_ids(messages: Sequence[Message]) -> dict[str, str]:
    """Wire ids for tool-use ids Converse would refuse.

    botocore ToolUseId: ``[a-zA-Z0-9_.:-]+``, at most 64 characters. The same id
    always maps to the same wire id within a request, so a call and its result stay
    paired; a short hash of the original keeps distinct ids distinct, and the rare
    clash with another id takes a longer hash.
    """
    seen: dict[str, None] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                seen[call.id] = None
            for invalid in message.invalid_tool_calls:
                if invalid.id is not None:
                    seen[invalid.id] = None
        elif isinstance(message, ToolMessage):
            seen[message.tool_call_id] = None
    bad = [call_id for call_id in seen if not ID.fullmatch(call_id)]
    if not bad:
        return {}
    taken = {call_id for call_id in seen if ID.fullmatch(call_id)}
    mapping: dict[str, str] = {}
    for call_id in bad:
        base = ID_BAD.sub("_", call_id)[:40]
        digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()
        candidate = f"{base}_{digest[:8]}"
        size = 8
        while candidate in taken:
            size += 4
            candidate = f"{base[: 63 - size]}_{digest[:size]}"
        taken.add(candidate)
        mapping[call_id] = candidate
    return mapping


def pairing_problems(messages: Sequence[Message], *, trailing: bool = True) -> list[Problem]:
    """Tool calls answered in the user turn that follows them, each once.

    Converse, "Tool use": every toolUse of an assistant turn needs its toolResult in
    the next user turn; invalid calls decoded from Converse go back, so they count.
    ``trailing=False`` (the ``request=False`` option): calls still waiting at the end
    are no problem.
    """
    return tool_pairing_problems(
        messages,
        adjacent=False,
        provider=NAME,
        include_invalid=True,
        requirement="requires one in the next user turn",
        trailing=trailing,
    )


def blank(text: str) -> bool:
    """Whether a text is empty: Converse refuses an empty text block.

    Converse: "The text field in the ContentBlock object ... is blank"; white space
    it takes (a recorded request sends a text block of one line break).
    """
    return not text
