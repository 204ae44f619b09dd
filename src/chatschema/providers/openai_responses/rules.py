"""The rules of the Responses API that only check: tool pairing and the item sequence.

The encoder runs them in collect mode (``check``, or ``encode`` with
``check=True``): :func:`pairing_problems` over the messages (unless the
encoder's walk paired the calls itself), :func:`structure` over the input items
it wrote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chatschema_models.content import NonStandardBlock
from chatschema_models.message import Message

from chatschema.errors import Problem
from chatschema.providers._common import (
    Options,
    extras_of,
    message_index,
    pointer,
    tool_pairing_problems,
)
from chatschema.providers.openai_responses.wire import NAME, is_client_item

if TYPE_CHECKING:
    from chatschema.providers.openai_responses.encode import _Encoder, _Origin

REQUIREMENT = "requires a function_call_output for every function_call"
"""The rule as the ``unanswered_tool_call`` problem states it (``ToolPairing.requirement``)."""


def pairing_problems(messages: Sequence[Message], options: Options) -> list[Problem]:
    """Tool pairing, counting invalid tool calls.

    Responses sends invalid calls back as ``function_call`` items, so they need a
    ``function_call_output`` just like valid ones.
    """
    if not options.native_tools:
        return []
    return tool_pairing_problems(
        messages,
        adjacent=False,
        provider=NAME,
        include_invalid=True,
        requirement=REQUIREMENT,
        trailing=options.request,
    )


def answered_items(messages: Sequence[Message], problems: list[Problem]) -> list[Problem]:
    """The problems without the orphans that answer an earlier call item kept whole.

    A ``function_call_output`` may answer any call item carrying its ``call_id``,
    not only a ``function_call``: ``tool_search_call``, ``computer_call``,
    ``custom_tool_call``, ``shell_call`` ... (every item type of the SDK's
    ``ResponseInputItemParam`` with a ``call_id``). Those items decode to
    ``non_standard`` blocks, which tool pairing does not see; a result answering
    one is no orphan. Runs only when pairing found an orphan.
    """
    orphans = [
        problem
        for problem in problems
        if problem.keyword == "orphan_tool_result" and message_index(problem) is not None
    ]
    if not orphans:
        return problems
    last = max(message_index(problem) or 0 for problem in orphans)
    carried: dict[str, int] = {}  # call_id -> the first message holding an item with it
    for index in range(min(last, len(messages))):
        content = messages[index].content
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, NonStandardBlock) or not isinstance(block.value, dict):
                continue
            kind, call_id = block.value.get("type"), block.value.get("call_id")
            if (
                isinstance(kind, str)
                and not is_client_item(kind)  # a call, not another output
                and isinstance(call_id, str)
                and extras_of(block, NAME).get("kind") == "item"  # (sent as an item)
            ):
                carried.setdefault(call_id, index)
    if not carried:
        return problems
    kept = []
    for problem in problems:
        at = message_index(problem) if problem.keyword == "orphan_tool_result" else None
        if at is not None and at < len(messages):
            call_id = getattr(messages[at], "tool_call_id", None)
            if isinstance(call_id, str) and carried.get(call_id, at) < at:
                continue  # answers an earlier call item kept whole
        kept.append(problem)
    return kept


def structure(encoder: _Encoder) -> None:
    """Rules over the item sequence: unique item ids, reasoning followed by its item.

    Only the items of the general path can have an id or be reasoning: the
    fast path's (messages without item fields, function calls and outputs
    without extras) are looked at only as the item after a reasoning item.
    """
    if not encoder.collect:
        return  # (problems are noted in collect mode only)
    seen: dict[str, _Origin] = {}
    items = encoder.items
    for position, origin in encoder.origins:
        item = items[position]
        item_id = item.get("id")
        # The API refuses two input items with one id ("Duplicate item found");
        # an item_reference names another item's id, it is not a second item.
        if isinstance(item_id, str) and item.get("type") != "item_reference":
            if item_id in seen:
                encoder.problem(
                    pointer(*origin),
                    "duplicate_item_id",
                    f"item id {item_id!r} is used twice (first at {pointer(*seen[item_id])})",
                )
            else:
                seen[item_id] = origin
        # Reasoning guide: a reasoning item is replayed with the item it produced,
        # right after it; the API refuses one that nothing follows.
        if item.get("type") == "reasoning":
            following = items[position + 1] if position + 1 < len(items) else None
            if following is None or not _is_output_item(following):
                encoder.problem(
                    pointer(*origin),
                    "reasoning_without_following_item",
                    f"reasoning item {item_id!r} must be followed by the item it "
                    "produced (function_call, message ...)",
                )


def _is_output_item(item: Mapping[str, Any]) -> bool:
    """Whether an input item is one the model produced (may follow a reasoning item)."""
    kind = item.get("type")
    if item.get("role") is not None and kind in (None, "message"):
        return item.get("role") == "assistant"
    return isinstance(kind, str) and not is_client_item(kind)
