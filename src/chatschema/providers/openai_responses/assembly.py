"""The stream writer's state: blocks being assembled, output items, and the items written.

:class:`Part` merges a block's deltas as ``ChunkAccumulator`` does; :class:`Item` is
one output item of the stream; :func:`item_json` writes an item from everything its
chunks said (the item of ``response.output_item.done`` and of the final Response).
"""

from __future__ import annotations

from typing import Any, Final

from chatschema_models.content import ContentBlock

from chatschema._json import copy_json
from chatschema.providers._common import extras_of
from chatschema.providers.openai_responses.items import (
    code_interpreter_item,
    compaction_item,
    function_call_item,
    identified,
    message_item,
    web_search_item,
)
from chatschema.providers.openai_responses.output import output_part, reasoning_body
from chatschema.providers.openai_responses.wire import NAME

__all__ = ["Item", "Part", "deep_merge", "item_json", "part_json"]

_APPENDED: Final = {
    "text": ("text",),
    "refusal": ("text",),
    "reasoning": ("text", "signature", "encrypted_content"),
}
_EXTENDED: Final = ("annotations", "summary")


class Part:
    """A content block being assembled, merged as ``ChunkAccumulator`` merges it."""

    __slots__ = ("annotations", "appended", "cls", "extended", "extras", "fields", "type")

    def __init__(self, block: ContentBlock) -> None:
        self.cls: Any = type(block)
        self.type: str = block.type
        self.fields: dict[str, Any] = {}
        self.appended: dict[str, list[str]] = {}
        self.extended: dict[str, list[Any]] = {}
        self.extras: dict[str, Any] = {}
        self.annotations: list[dict[str, Any]] = []  # as written (the policy applied)

    def add(self, block: ContentBlock) -> None:
        """Merge one delta of the block."""
        appended = _APPENDED.get(self.type, ())
        values = block.__dict__
        for name in block.__pydantic_fields_set__:
            value = values[name]
            if value is None or name == "index":
                continue
            if name in appended:
                self.appended.setdefault(name, []).append(value)
            elif name in _EXTENDED:
                self.extended.setdefault(name, []).extend(value)
            elif name == "extras":
                deep_merge(self.extras, value)
            elif name not in self.fields:
                self.fields[name] = value

    def text(self) -> str:
        """The block's text so far."""
        return "".join(self.appended.get("text", ()))

    def build(self) -> Any:
        """The block assembled."""
        data: dict[str, Any] = dict(self.fields)
        for name, parts in self.appended.items():
            data[name] = "".join(parts)
        for name, items in self.extended.items():
            data[name] = list(items)
        if self.extras:
            data["extras"] = copy_json(self.extras)
        return self.cls.model_validate(data)


def deep_merge(into: dict[str, Any], update: Any) -> None:
    """Merge ``update`` into ``into``: objects key by key, anything else replaced."""
    for key, value in update.items():
        current = into.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            deep_merge(current, value)
        else:
            into[key] = copy_json(value)


class Item:
    """One output item of the stream."""

    __slots__ = (
        "args",
        "call_id",
        "closed",
        "extras",
        "id",
        "index",
        "key",
        "kind",
        "name",
        "owner",
        "part",
        "parts",
        "result",
        "summaries",
        "thinking",
    )

    def __init__(self, kind: str, item_id: str, index: int) -> None:
        self.kind = kind  # message, reasoning, function_call, web_search_call, ...
        self.id = item_id
        self.index = index  # output_index
        self.key = ""  # message: the block id its parts share ("" none)
        self.parts: list[Part] = []  # message: its content parts
        self.part: Part | None = None  # any other item's one block
        self.result: Part | None = None  # code_interpreter_call: its result block
        self.closed = False
        self.owner: str | None = None  # reasoning: the block's provider
        self.thinking = False  # reasoning: its reasoning_text part was added
        self.summaries = 0  # reasoning: summary parts written
        self.call_id = ""  # function_call
        self.name = ""
        self.args: list[str] = []
        self.extras: dict[str, Any] = {}


def part_json(part: Part) -> dict[str, Any]:
    """A message part as written."""
    return output_part(part.build(), copy_json(part.annotations))


def item_json(item: Item) -> dict[str, Any]:
    """An item as written, from everything its chunks said."""
    if item.kind == "message":
        header = extras_of(item.parts[0].build(), NAME).get("item")
        first = part_json(item.parts[0])
        written = message_item(item.id, first, copy_json(header), None)
        written["content"].extend(part_json(part) for part in item.parts[1:])
        return written
    if item.kind == "function_call":
        extras = {**item.extras, "id": item.id}
        extras.setdefault("status", "completed")
        return function_call_item(item.call_id, item.name, "".join(item.args), extras)
    assert item.part is not None
    block = item.part.build()
    if item.kind == "reasoning":
        return reasoning_body(block, item.id)
    if item.kind == "item":
        value: dict[str, Any] = copy_json(block.value)
        return value
    if item.kind == "compaction":
        return identified(compaction_item(block), item.id)
    if item.kind == "web_search_call":
        found = web_search_item(block)
        if found is not None:
            return found
        action = block.arguments if isinstance(block.arguments, dict) else {"type": "search"}
        # the fields the API always writes
        return {
            "id": item.id,
            "type": "web_search_call",
            "status": "completed",
            "action": action,
        }
    found = code_interpreter_item(block)
    if found is None:
        arguments = block.arguments if isinstance(block.arguments, dict) else {}
        found = {
            "id": item.id,
            "type": "code_interpreter_call",
            "status": "completed",
            "code": arguments.get("code"),
            "container_id": "",
            "outputs": None,
        }
    if item.result is not None:
        found["outputs"] = copy_json(item.result.build().output)
    return found
