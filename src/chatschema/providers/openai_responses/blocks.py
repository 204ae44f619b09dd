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
    ContentBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    TextBlock,
)

from chatschema.providers._common import parse_arguments
from chatschema.providers._openai import CITATION_FIELDS
from chatschema.providers.openai_responses.wire import DEFAULT_HEADER, KIND_ITEM, NAME, READ

__all__ = [
    "decode_annotation",
    "decode_function_call",
    "decode_output_message",
    "decode_reasoning",
    "decode_web_search",
    "joined_texts",
    "non_standard_item",
    "part_texts",
    "plain",
    "plain_output_part",
    "pop_string",
]

_CITATION_KEYS = frozenset({"type", *CITATION_FIELDS})


def decode_function_call(item: dict[str, Any], index: int) -> tuple[bool, dict[str, Any]]:
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


def decode_output_message(item: dict[str, Any], index: int) -> list[ContentBlock]:
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
        if rest:
            fields["extras"] = {NAME: {"item": rest}}
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
    for position, part in enumerate(content):
        part_rest = dict(part)
        kind = part_rest.pop("type")
        extras: dict[str, Any] = {}
        if position == 0 and rest != DEFAULT_HEADER:
            extras["item"] = rest
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


def decode_reasoning(item: dict[str, Any], index: int) -> ReasoningBlock:
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
        if any(set(part) != {"type", "text"} or part["type"] != "summary_text" for part in summary):
            extras["summary"] = summary
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
    if extras:
        fields["extras"] = {NAME: extras}
    return READ.build(ReasoningBlock, fields, index)


def decode_web_search(item: dict[str, Any], index: int) -> ServerToolCallBlock:
    """A ``web_search_call`` item as a server tool call (its action as arguments)."""
    rest = dict(item)
    del rest["type"]
    fields: dict[str, Any] = {"name": "web_search"}
    item_id = pop_string(rest, "id")
    if item_id is not None:
        fields["id"] = item_id
    if isinstance(rest.get("action"), dict):
        fields["arguments"] = rest.pop("action")
    fields["extras"] = {NAME: {"item": rest}}
    return READ.build(ServerToolCallBlock, fields, index)


def non_standard_item(item: dict[str, Any], index: int | None = None) -> NonStandardBlock:
    """A whole item kept unchanged (sent back as it came).

    A value JSON cannot hold (an object key that is not a string, from Python
    data) is a ConversionError naming the item, never a pydantic error.
    """
    return READ.build(NonStandardBlock, {"value": item, "extras": {NAME: dict(KIND_ITEM)}}, index)


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
