"""Writers of output items the encoder rebuilds from blocks: reasoning, built-in tool calls.

And :func:`merged`, the order an assistant message's blocks and calls go out in.

Each gives back the item as it came (``encode(decode_conversation(p))`` is
byte-identical): the item's other fields come from the block's extras, and its key
order too where it was not the order written here (``KEY_ORDER``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from chatschema_models.content import (
    CompactionBlock,
    ContentBlock,
    ReasoningBlock,
    ServerToolCallBlock,
)
from chatschema_models.tool import InvalidToolCall, ToolCall

from chatschema._json import copy_json
from chatschema.providers._common import extras_of
from chatschema.providers.openai_responses.blocks import joined_texts, part_texts
from chatschema.providers.openai_responses.wire import (
    CODE_INTERPRETER,
    DEFAULT_HEADER,
    KEY_ORDER,
    NAME,
)

__all__ = [
    "code_interpreter_item",
    "compaction_item",
    "identified",
    "function_call_item",
    "merged",
    "message_item",
    "ordered",
    "reasoning_item",
    "web_search_item",
]


def ordered(item: dict[str, Any], order: Any) -> dict[str, Any]:
    """``item`` with its keys in ``order`` (the wire order kept on decode), when it fits.

    An order naming other keys than the item has (the block was edited) is ignored.
    """
    if (
        isinstance(order, list)
        and len(order) == len(item)
        and all(isinstance(key, str) and key in item for key in order)
        and list(item) != order
    ):
        return {key: item[key] for key in order}
    return item


def reasoning_item(block: ReasoningBlock) -> dict[str, Any]:
    """A reasoning block of this API as its ``reasoning`` item, as it came."""
    extras = extras_of(block, NAME)
    summary = block.summary or []
    raw_summary = extras.get("summary")
    # the API's order: id, type, content, encrypted_content, summary
    item: dict[str, Any] = {"id": block.id, "type": "reasoning"}
    raw_content = extras.get("content")
    if isinstance(raw_content, list) and joined_texts(raw_content) == block.text:
        item["content"] = raw_content
    elif block.text is not None:
        item["content"] = [{"type": "reasoning_text", "text": block.text}]
    if block.encrypted_content is not None:
        item["encrypted_content"] = block.encrypted_content
    if isinstance(raw_summary, list) and part_texts(raw_summary) == summary:
        item["summary"] = raw_summary
    else:
        item["summary"] = [{"type": "summary_text", "text": text} for text in summary]
    header = extras.get("item")
    if isinstance(header, dict):
        item.update(header)
    return ordered(item, extras.get(KEY_ORDER))


def compaction_item(block: CompactionBlock) -> dict[str, Any]:
    """A compaction block of this API as its ``compaction`` item, as it came.

    The API's order: id, type, encrypted_content (an input item may have no id).
    """
    extras = extras_of(block, NAME)
    item: dict[str, Any] = {} if block.id is None else {"id": block.id}
    item["type"] = "compaction"
    if block.encrypted_content is not None:
        item["encrypted_content"] = block.encrypted_content
    header = extras.get("item")
    if isinstance(header, dict):
        for key, value in header.items():
            item.setdefault(key, copy_json(value))
    return ordered(item, extras.get(KEY_ORDER))


def identified(item: dict[str, Any], item_id: str) -> dict[str, Any]:
    """An output item with an id: its own, else ``item_id`` first (a response's items have one)."""
    return item if "id" in item else {"id": item_id, **item}


def web_search_item(block: ServerToolCallBlock) -> dict[str, Any] | None:
    """A ``web_search_call`` decoded from this API, as it came (None: not one)."""
    extras = extras_of(block, NAME)
    header = extras.get("item")
    if block.name != "web_search" or not isinstance(header, dict):
        return None
    item: dict[str, Any] = {} if block.id is None else {"id": block.id}  # the API's order
    item["type"] = "web_search_call"
    item.update(header)
    if block.arguments is not None:
        item["action"] = block.arguments
    return ordered(item, extras.get(KEY_ORDER))


def function_call_item(
    call_id: str, name: str, arguments: str, extras: dict[str, Any]
) -> dict[str, Any]:
    """A ``function_call`` item: with its ``fc_`` id in the API's key order, else the input form.

    ``extras`` is the call's extras of this format (id, status, the exact argument
    text, unknown keys, the key order it came in).
    """
    item: dict[str, Any]
    if "id" in extras:  # API reference, "function_call" output item: id, type, status ...
        item = {"id": extras["id"], "type": "function_call"}
        if "status" in extras:
            item["status"] = extras["status"]
        item.update(arguments=arguments, call_id=call_id, name=name)
    else:
        item = {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}
    for key, value in extras.items():
        if key not in item and key not in ("arguments", KEY_ORDER):
            item[key] = value
    return ordered(item, extras.get(KEY_ORDER))


def message_item(item_id: str, part: dict[str, Any], header: Any, order: Any) -> dict[str, Any]:
    """An assistant ``message`` item with an id, its first part in, in the API's key order."""
    fields = header if isinstance(header, dict) else DEFAULT_HEADER
    item: dict[str, Any] = {"id": item_id}
    for key in ("type", "status"):
        if key in fields:
            item[key] = fields[key]
    item["content"] = [part]
    for key, value in fields.items():
        if key not in item:
            item[key] = value  # (phase ...)
    item["role"] = "assistant"
    return ordered(item, order)


def code_interpreter_item(block: ServerToolCallBlock) -> dict[str, Any] | None:
    """A ``code_interpreter_call`` decoded from this API, without its outputs yet.

    ``outputs`` is null until the result block that follows fills it in. None when
    the block is not such a call (another provider's, no id, no code argument).
    """
    extras = extras_of(block, NAME)
    header = extras.get("item")
    arguments = block.arguments
    if (
        block.name != CODE_INTERPRETER
        or block.provider != NAME
        or block.id is None
        or not isinstance(header, dict)
        or not isinstance(arguments, dict)
        or set(arguments) != {"code"}
    ):
        return None
    # API reference, "code_interpreter_call": the order the API writes the item in
    item: dict[str, Any] = {"id": block.id, "type": "code_interpreter_call"}
    if "status" in header:
        item["status"] = copy_json(header["status"])
    item["code"] = arguments["code"]
    if "container_id" in header:
        item["container_id"] = copy_json(header["container_id"])
    item["outputs"] = None
    for key, value in header.items():
        if key not in item:
            item[key] = copy_json(value)
    return ordered(item, extras.get(KEY_ORDER))


def merged(
    blocks: list[ContentBlock],
    calls: Sequence[ToolCall],
    invalid: Sequence[InvalidToolCall],
) -> Iterator[tuple[str, int, ContentBlock | ToolCall | InvalidToolCall]]:
    """Blocks and calls in item order: calls at their ``index``, the rest at the end."""
    placed: list[tuple[int, int, int, str, ToolCall | InvalidToolCall]] = []
    tail: list[tuple[str, int, ToolCall | InvalidToolCall]] = []
    groups: tuple[tuple[str, Sequence[ToolCall | InvalidToolCall]], ...] = (
        ("tool_calls", calls),
        ("invalid_tool_calls", invalid),
    )
    for order, (kind, group) in enumerate(groups):
        for position, call in enumerate(group):
            if call.index is None:
                tail.append((kind, position, call))
            else:
                placed.append((call.index, order, position, kind, call))
    placed.sort(key=lambda entry: entry[:3])
    emitted = 0
    next_call = 0
    for position, block in enumerate(blocks):
        while next_call < len(placed) and placed[next_call][0] <= emitted:
            _, _, call_position, kind, call = placed[next_call]
            yield kind, call_position, call
            next_call += 1
            emitted += 1
        yield "block", position, block
        emitted += 1
    for _, _, call_position, kind, call in placed[next_call:]:
        yield kind, call_position, call
    yield from tail
