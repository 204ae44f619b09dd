"""Readers of output items and parts, shared by ``decode_response`` and ``decode_stream``.

A streamed item ends with ``response.output_item.done`` holding the whole item: the
stream reads it with these same readers, so both make the same blocks.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
from chatschema_models.content import (
    Citation,
    CompactionBlock,
    ContentBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
)

from chatschema.providers._common import parse_arguments
from chatschema.providers._openai import CITATION_FIELDS
from chatschema.providers.openai_responses.wire import (
    CODE_INTERPRETER,
    CODE_INTERPRETER_ORDER,
    DEFAULT_HEADER,
    KEY_ORDER,
    KIND_ITEM,
    NAME,
    PART_ORDER,
    READ,
)

__all__ = [
    "decode_annotation",
    "decode_code_interpreter",
    "decode_function_call",
    "decode_output_message",
    "decode_reasoning",
    "decode_web_search",
    "function_call_keys",
    "joined_texts",
    "key_order",
    "message_keys",
    "non_standard_item",
    "decode_compaction",
    "part_keys",
    "part_texts",
    "plain",
    "plain_output_part",
    "pop_string",
]

_CITATION_KEYS = frozenset({"type", *CITATION_FIELDS})


def decode_function_call(
    item: dict[str, Any], index: int, *, order: bool = False
) -> tuple[bool, dict[str, Any]]:
    """A ``function_call`` item as ToolCall fields, or InvalidToolCall fields (False).

    The exact argument text is kept in extras when it is not what ``json.dumps``
    writes, the ``fc_`` item id and the status always.
    """
    rest = dict(item)
    del rest["type"]
    call_id = rest.pop("call_id", None)
    name = rest.pop("name", None)
    arguments = rest.pop("arguments", None)
    if not isinstance(call_id, str) or not call_id:
        READ.fail("function_call needs a `call_id`", index)
    if not isinstance(name, str) or not name:
        READ.fail("function_call needs a `name`", index)
    if not isinstance(arguments, str):
        READ.fail("function_call `arguments` must be a JSON string", index)
    # The item's keys in wire order, where encode would write them otherwise (the
    # API writes `id` first; SDK dumps, `arguments` first): a replay is byte-identical.
    keys = key_order(item, order, function_call_keys(rest))
    if keys is not None:
        rest[KEY_ORDER] = keys
    parsed, problem = parse_arguments(arguments)
    if parsed is None:
        fields: dict[str, Any] = {
            "id": call_id,
            "name": name,
            "arguments": arguments,
            "error": problem,
        }
        if rest:
            fields["extras"] = {NAME: rest}
        return False, fields
    if arguments != json.dumps(parsed, ensure_ascii=False):
        rest = {"arguments": arguments, **rest}  # the exact text, for byte-identical replay
    fields = {"id": call_id, "name": name, "arguments": parsed}
    if rest:
        fields["extras"] = {NAME: rest}
    return True, fields


def decode_output_message(
    item: dict[str, Any], index: int, *, order: bool = False
) -> list[ContentBlock]:
    """An assistant ``message`` item: one block per ``output_text`` / ``refusal`` part.

    Every block carries the item id; the item's header (status ...) and each part's
    other fields go to extras. An item no neutral form carries whole stays one
    non_standard block.
    """
    rest = dict(item)
    del rest["role"]
    content = rest.pop("content", None)
    if isinstance(content, str):
        fields: dict[str, Any] = {"text": content}
        extras: dict[str, Any] = {"item": rest} if rest else {}
        keys = key_order(item, order, ["role", "content", *rest])
        if keys is not None:
            extras[KEY_ORDER] = keys
        if extras:
            fields["extras"] = {NAME: extras}
        return [READ.build(TextBlock, fields, index)]
    item_id = rest.pop("id", None)
    if (
        not isinstance(item_id, str)
        or not item_id
        or not isinstance(content, list)
        or not content
        or not all(plain_output_part(part) for part in content)
    ):
        return [non_standard_item(item, index)]  # kept whole: no neutral form loses nothing
    blocks: list[ContentBlock] = []
    header = list(rest) if rest != DEFAULT_HEADER else list(DEFAULT_HEADER)
    keys = key_order(item, order, message_keys(header))
    for position, part in enumerate(content):
        part_rest = dict(part)
        kind = part_rest.pop("type")
        extras = {}
        if position == 0 and rest != DEFAULT_HEADER:
            extras["item"] = rest
        if position == 0 and keys is not None:
            extras[KEY_ORDER] = keys
        part_order = key_order(part, order, part_keys(kind, part_rest))
        if part_order is not None:
            extras[PART_ORDER] = part_order
        if kind == "output_text":
            fields = {"text": part_rest.pop("text"), "id": item_id}
            annotations = [
                decode_annotation(a, index, position) for a in part_rest.pop("annotations")
            ]
            if annotations:
                fields["annotations"] = annotations
            cls: Any = TextBlock
        else:
            fields = {"text": part_rest.pop("refusal"), "id": item_id}
            cls = RefusalBlock
        if part_rest:
            extras["part"] = part_rest
        if extras:
            fields["extras"] = {NAME: extras}
        blocks.append(READ.build(cls, fields, index, position))
    return blocks


def plain_output_part(part: Any) -> bool:
    """Whether an output part is an ``output_text`` or ``refusal`` a block can hold."""
    if not isinstance(part, dict):
        return False
    kind = part.get("type")
    if kind == "output_text":
        return isinstance(part.get("text"), str) and isinstance(part.get("annotations"), list)
    return kind == "refusal" and isinstance(part.get("refusal"), str)


def decode_annotation(
    annotation: Any, index: int, position: int
) -> Citation | NonStandardAnnotation:
    """A ``url_citation`` with exactly its four fields as a Citation; any other kept."""
    if (
        isinstance(annotation, dict)
        and annotation.get("type") == "url_citation"
        and set(annotation) == _CITATION_KEYS
    ):
        try:
            return Citation(**{name: annotation[name] for name in CITATION_FIELDS})
        except pydantic.ValidationError:
            pass
    if not isinstance(annotation, dict):
        READ.fail("an annotation must be an object", index, position)
    return READ.build(NonStandardAnnotation, {"value": annotation}, index, position)


def decode_reasoning(item: dict[str, Any], index: int, *, order: bool = False) -> ReasoningBlock:
    """A ``reasoning`` item (with its id) as a reasoning block of this provider."""
    rest = dict(item)
    del rest["type"]
    fields: dict[str, Any] = {"id": rest.pop("id"), "provider": NAME}
    extras: dict[str, Any] = {}
    summary = rest.pop("summary", None)
    if isinstance(summary, list):
        texts = part_texts(summary)
        if texts is None:
            READ.fail("reasoning summary parts need a string `text`", index)
        fields["summary"] = texts
        if any(
            (list(part) != ["type", "text"] if order else set(part) != {"type", "text"})
            or part["type"] != "summary_text"
            for part in summary
        ):
            extras["summary"] = summary  # kept as it came (other keys, or their order)
    elif summary is not None:
        rest["summary"] = summary
    encrypted = rest.get("encrypted_content")
    if isinstance(encrypted, str):
        fields["encrypted_content"] = rest.pop("encrypted_content")
    content = rest.get("content")
    if isinstance(content, list):
        text = joined_texts(content)  # None unless every part is an object with a string text
        if text is not None:
            fields["text"] = text
            if content != [{"type": "reasoning_text", "text": text}]:
                extras["content"] = content  # kept as it came: sent back while text agrees
            del rest["content"]
    if rest:
        extras["item"] = rest
    written = ["id", "type", *(["content"] if "text" in fields else [])]
    written += [key for key in ("encrypted_content",) if key in fields] + ["summary"]
    keys = key_order(item, order, written + [key for key in rest if key not in written])
    if keys is not None:
        extras[KEY_ORDER] = keys
    if extras:
        fields["extras"] = {NAME: extras}
    return READ.build(ReasoningBlock, fields, index)


def decode_compaction(item: dict[str, Any], index: int, *, order: bool = False) -> CompactionBlock:
    """A ``compaction`` item as a compaction block of this provider.

    ``encrypted_content`` is the compacted context; ``created_by`` and any other key
    go to extras (``item``), with the key order where encode would not write it.
    """
    rest = dict(item)
    del rest["type"]
    fields: dict[str, Any] = {"provider": NAME}
    item_id, encrypted = rest.get("id"), rest.get("encrypted_content")
    written = ["type"]
    if isinstance(item_id, str) and item_id:
        fields["id"] = rest.pop("id")
        written.insert(0, "id")
    if isinstance(encrypted, str):
        fields["encrypted_content"] = rest.pop("encrypted_content")
        written.append("encrypted_content")
    extras: dict[str, Any] = {"item": rest} if rest else {}
    keys = key_order(item, order, written + list(rest))
    if keys is not None:
        extras[KEY_ORDER] = keys
    if extras:
        fields["extras"] = {NAME: extras}
    return READ.build(CompactionBlock, fields, index)


def decode_web_search(
    item: dict[str, Any], index: int, *, order: bool = False
) -> ServerToolCallBlock:
    """A ``web_search_call`` item as a server tool call (its action as arguments)."""
    rest = dict(item)
    del rest["type"]
    fields: dict[str, Any] = {"name": "web_search"}
    item_id = pop_string(rest, "id")
    if item_id is not None:
        fields["id"] = item_id
    if isinstance(rest.get("action"), dict):
        fields["arguments"] = rest.pop("action")
    extras: dict[str, Any] = {"item": rest}
    written = ["id"] * ("id" in fields) + ["type", *rest] + ["action"] * ("arguments" in fields)
    keys = key_order(item, order, written)
    if keys is not None:
        extras[KEY_ORDER] = keys
    fields["extras"] = {NAME: extras}
    return READ.build(ServerToolCallBlock, fields, index)


def decode_code_interpreter(
    item: dict[str, Any], index: int, *, order: bool = False
) -> list[ContentBlock]:
    """A ``code_interpreter_call`` item as a server tool call and its result.

    The call holds the code (``arguments = {"code": ...}``) and the item's other
    fields (status, ``container_id`` ...); the result, ``outputs`` (logs and images,
    null unless the request included ``code_interpreter_call.outputs``) and the
    status as success or error. An item without an id, or with values the neutral
    blocks cannot hold, stays one non_standard block.
    """
    item_id = item.get("id")
    code = item.get("code")
    outputs = item.get("outputs")
    if (
        not isinstance(item_id, str)
        or not item_id
        or not (code is None or isinstance(code, str))
        or "outputs" not in item
        or not (outputs is None or isinstance(outputs, list))
    ):
        return [non_standard_item(item, index)]
    rest = {
        key: value for key, value in item.items() if key not in ("id", "type", "code", "outputs")
    }
    extras: dict[str, Any] = {"item": rest}
    written = [key for key in CODE_INTERPRETER_ORDER if key in item]
    keys = key_order(item, order, written + [key for key in rest if key not in written])
    if keys is not None:
        extras[KEY_ORDER] = keys
    call = {
        "id": item_id,
        "name": CODE_INTERPRETER,
        "provider": NAME,
        "arguments": {"code": code},
        "extras": {NAME: extras},
    }
    result: dict[str, Any] = {"tool_call_id": item_id, "provider": NAME}
    if outputs is not None:  # (null unless asked for: encode writes null without it)
        result["output"] = outputs
    status = item.get("status")
    if status in ("completed", "failed"):
        result["status"] = "success" if status == "completed" else "error"
    return [
        READ.build(ServerToolCallBlock, call, index),
        READ.build(ServerToolResultBlock, result, index),
    ]


def non_standard_item(item: dict[str, Any], index: int | None = None) -> NonStandardBlock:
    """A whole item kept unchanged (sent back as it came).

    A value JSON cannot hold (an object key that is not a string, from Python
    data) is a ConversionError naming the item, never a pydantic error.
    """
    return READ.build(NonStandardBlock, {"value": item, "extras": {NAME: dict(KIND_ITEM)}}, index)


# The key orders encode writes items in: the API's own where the item has an id (an
# output item as the API returned it: id, type, status first), else the input form.


def function_call_keys(rest: dict[str, Any]) -> list[str]:
    """The keys of a ``function_call`` item as encode writes them (``rest``: the others)."""
    if "id" in rest:
        head = ["id", "type", *(["status"] if "status" in rest else [])]
        return [*head, "arguments", "call_id", "name", *(k for k in rest if k not in head)]
    return ["type", "call_id", "name", "arguments", *rest]


def message_keys(header: list[str]) -> list[str]:
    """The keys of an assistant ``message`` item with an id, as encode writes them."""
    head = [key for key in ("type", "status") if key in header]
    return ["id", *head, "content", *(k for k in header if k not in head), "role"]


def part_keys(kind: str, rest: dict[str, Any]) -> list[str]:
    """The keys of an ``output_text`` / ``refusal`` part as encode writes them."""
    if kind == "output_text":
        return [
            "type",
            "annotations",
            *(k for k in rest if k not in ("annotations", "text")),
            "text",
        ]
    return ["type", "refusal", *(k for k in rest if k != "refusal")]


def key_order(item: dict[str, Any], order: bool, written: list[str]) -> list[str] | None:
    """The item's keys in wire order, None when encode writes them in that order anyway.

    Only with ``order`` (a history's items as JSON): a response's items, and SDK
    objects, whose key order is their class's, keep none.
    """
    if not order:
        return None
    keys = list(item)
    return None if keys == written else keys


def plain(block: TextBlock) -> bool:
    """Whether a text block holds nothing but its text."""
    return block.model_fields_set <= {"type", "text"}


def part_texts(parts: list[Any]) -> list[str] | None:
    """The ``text`` of every part, None unless each is an object with a string text."""
    texts = [part.get("text") for part in parts if isinstance(part, dict)]
    if len(texts) != len(parts) or not all(isinstance(text, str) for text in texts):
        return None
    return texts  # type: ignore[return-value]


def joined_texts(parts: list[Any]) -> str | None:
    """The texts of reasoning content parts joined by newlines (None: none, or not text)."""
    texts = part_texts(parts)
    return None if texts is None or not texts else "\n".join(texts)


def pop_string(rest: dict[str, Any], key: str) -> str | None:
    """Take a non-empty string field out of ``rest`` (None, and left there, otherwise)."""
    value = rest.get(key)
    if isinstance(value, str) and value:
        del rest[key]
        return value
    return None
