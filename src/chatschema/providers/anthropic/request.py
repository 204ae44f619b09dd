"""The shape of a Messages API request: turns, tool-use ids, block placement.

Pure functions the encoder (:mod:`.encode`) uses to lay the neutral messages out
as the API wants them: roles alternating, ids matching its pattern, tool calls
back among the blocks, citations and cache markers as the API writes them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from chatschema_models.content import CacheControl, Citation, NonStandardAnnotation
from chatschema_models.message import AssistantMessage, Message, SystemMessage, ToolMessage

from chatschema.providers._common import extras_of
from chatschema.providers.anthropic.wire import CITATION_KEYS, ID, ID_BAD, NAME, TITLE_KEYS

Turns = list[tuple[str, list[int]]]
"""Messages grouped into wire messages: ``(role, message indexes)``."""

# ======================================================================== turns


def leading_system(messages: Sequence[Message]) -> int:
    """How many messages at the start go to the top-level ``system``."""
    count = 0
    for message in messages:
        if not isinstance(message, SystemMessage) or extras_of(message, NAME).get("in_messages"):
            break
        count += 1
    return count


def grouped_turns(
    messages: Sequence[Message], start: int, skipped: set[int] | frozenset[int] = frozenset()
) -> Turns:
    """Group messages into wire messages: ``(role, message indexes)``.

    Messages API: roles alternate, so consecutive messages of one role are one
    turn (unless ``new_message`` says one started a wire message of its own).
    ``skipped`` messages are left out, and the messages on either side of them
    merge when they have one role (whatever ``new_message`` says), which keeps
    the roles alternating.
    """
    turns: Turns = []
    gap = False
    for index in range(start, len(messages)):
        if index in skipped:
            gap = True
            continue
        message = messages[index]
        if isinstance(message, SystemMessage):
            turns.append(("system", [index]))
        else:
            role = "assistant" if isinstance(message, AssistantMessage) else "user"
            new = not gap and message.extras and extras_of(message, NAME).get("new_message")
            if turns and turns[-1][0] == role and not new:
                turns[-1][1].append(index)
            else:
                turns.append((role, [index]))
        gap = False
    return turns


def empty_turn(wire: dict[str, Any]) -> bool:
    """Whether a wire message has no content (the API refuses it)."""
    content = wire["content"]
    return not content if isinstance(content, list) else blank(content)


def keeps_string(message: Message) -> bool:
    """Whether a message alone in its turn is sent with its string content as it is."""
    return (
        isinstance(message.content, str)
        and not isinstance(message, ToolMessage)
        and not (
            isinstance(message, AssistantMessage)
            and (message.tool_calls or message.invalid_tool_calls)
        )
    )


def as_system(message: Message) -> SystemMessage:
    """``message``, known to be a system message."""
    assert isinstance(message, SystemMessage)
    return message


# ====================================================================== blocks


def cache_wire(marker: CacheControl) -> dict[str, Any]:
    """A neutral cache marker on the wire (``ttl`` only when set)."""
    wire: dict[str, Any] = {"type": marker.type}
    if marker.ttl is not None:
        wire["ttl"] = marker.ttl
    return wire


def blank(text: str) -> bool:
    """Empty or whitespace only: Messages API text blocks must have non-blank text."""
    return not text.strip()


def interleave(
    blocks: list[dict[str, Any]], calls: list[tuple[int | None, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """Put tool calls back at their ``index`` among the other blocks.

    Calls without an index go last, in order; an index past the end puts the
    call after everything before it.
    """
    if not calls:
        return blocks
    placed = sorted((item for item in calls if item[0] is not None), key=lambda item: item[0])  # type: ignore[arg-type, return-value]
    if not placed:
        return blocks + [wire for _, wire in calls]
    out: list[dict[str, Any]] = []
    block, call = 0, 0
    while block < len(blocks) or call < len(placed):
        position = placed[call][0] if call < len(placed) else None
        if position is not None and (position <= len(out) or block == len(blocks)):
            out.append(placed[call][1])
            call += 1
        else:
            out.append(blocks[block])
            block += 1
    out.extend(wire for index, wire in calls if index is None)
    return out


def citation_wire(annotation: Citation | NonStandardAnnotation) -> dict[str, Any] | None:
    """An Anthropic citation back on the wire; other annotations are left out.

    A citation whose Anthropic data lacks what its kind needs, or without the cited
    text every kind requires (edited by hand), is not one the API produced: left out
    like other formats' citations.
    """
    if not isinstance(annotation, Citation) or annotation.cited_text is None:
        return None
    extras = extras_of(annotation, NAME)
    kind = extras.get("type")
    if not isinstance(kind, str):
        return None
    if not all(key in extras for key in CITATION_KEYS.get(kind, ())):
        return None
    wire = dict(extras)
    wire["cited_text"] = annotation.cited_text
    title_key = TITLE_KEYS.get(kind)
    if title_key is not None:
        wire[title_key] = annotation.title  # required but nullable: always sent
    if kind == "web_search_result_location" and annotation.url is not None:
        wire["url"] = annotation.url
    return wire


# ==================================================================== tool ids


def tool_ids(messages: Sequence[Message]) -> dict[str, str]:
    """Wire ids for tool-use ids the API would refuse (``^[a-zA-Z0-9_-]+$``).

    The same id always maps to the same wire id within a request, so a call and
    its result stay paired; a short hash of the original keeps distinct ids
    distinct, and the rare clash with another id takes a longer hash.
    """
    seen: dict[str, None] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                seen[call.id] = None
        elif isinstance(message, ToolMessage):
            seen[message.tool_call_id] = None
    bad = [call_id for call_id in seen if not ID.fullmatch(call_id)]
    if not bad:
        return {}
    taken = {call_id for call_id in seen if ID.fullmatch(call_id)}
    mapping: dict[str, str] = {}
    for call_id in bad:
        base = ID_BAD.sub("_", call_id)[:48]
        digest = hashlib.sha256(call_id.encode("utf-8")).hexdigest()
        candidate = f"{base}_{digest[:8]}"
        size, extra = 8, 0
        while candidate in taken:
            size = min(size * 2, 64)
            extra += size == 64
            candidate = f"{base}_{digest[:size]}" + (f"_{extra}" if extra else "")
        taken.add(candidate)
        mapping[call_id] = candidate
    return mapping
