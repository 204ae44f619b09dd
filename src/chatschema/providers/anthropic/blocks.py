"""Reading Anthropic content blocks: what histories, responses and streams share.

Every reader takes the wire block and where it is (``index``: the message;
``position``: the block inside it) and fails with a located
:class:`~chatschema.ConversionError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from chatschema_models.content import (
    CacheControl,
    Citation,
    CompactionBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
)
from chatschema_models.tool import InvalidToolCall, ToolCall
from pydantic import BaseModel

from chatschema.errors import ConversionError
from chatschema.providers._common import Reader
from chatschema.providers.anthropic.wire import (
    BLOCK_TYPES,
    NAME,
    SERVER_TOOLS,
    TITLE_KEYS,
    TTL,
    URL,
)

reader = Reader(NAME)

# ==================================================================== plain data


def plain(value: Any) -> Any:
    """An official SDK object as JSON data: the fields it was given, ``None`` included.

    ``None`` is kept on purpose: the required but nullable citation titles may be
    ``null`` on the wire, and ``exclude_none`` would drop them. Fields the object
    was not given are left out: a newer SDK type's defaults (the beta types'
    ``citations: null``, ``model: null`` ...) were never on the wire.
    """
    if isinstance(value, BaseModel):
        try:
            return value.model_dump(mode="json", warnings=False, exclude_unset=True)
        except Exception as error:  # pydantic serialization of odd values
            reader.fail(f"cannot read {type(value).__name__}: {error}")
    return value


def plain_deep(value: Any) -> Any:
    """``plain`` at any depth (opaque values such as server tool output)."""
    value = plain(value)
    if isinstance(value, dict):
        if any(isinstance(item, (BaseModel, dict, list)) for item in value.values()):
            return {key: plain_deep(item) for key, item in value.items()}
        return value
    if isinstance(value, list):
        return [plain_deep(item) for item in value]
    return value


def load(payload: Any) -> Any:
    """A payload as JSON data: text parsed, SDK objects dumped with their ``None`` values."""
    if isinstance(payload, (str, bytes, bytearray)):
        return reader.json(payload)
    return plain(payload)


# ================================================================ shared pieces


def non_standard(raw: dict[str, Any], index: int | None, position: int | None) -> NonStandardBlock:
    """An Anthropic block the neutral model has no type for, kept as it came.

    A type the Messages API is not known to take (a newer one) is marked as
    Anthropic's with an ``extras["anthropic"]`` entry, so that the encoder sends
    it back while it refuses other formats' non-standard blocks.
    """
    fields: dict[str, Any] = {"value": raw}
    kind = raw.get("type")
    if not (isinstance(kind, str) and kind in BLOCK_TYPES):
        fields["extras"] = {NAME: {}}
    return reader.build(NonStandardBlock, fields, index, position)


def cache_model(value: Any) -> CacheControl | None:
    """A wire cache marker as a neutral CacheControl, if it is one exactly."""
    if (
        isinstance(value, dict)
        and value.get("type") == "ephemeral"
        and set(value) <= {"type", "ttl"}
        and ("ttl" not in value or (isinstance(value["ttl"], str) and TTL.fullmatch(value["ttl"])))
    ):
        return CacheControl(**value)
    return None  # an odd marker stays verbatim in extras


def rest(
    raw: Mapping[str, Any],
    known: Iterable[str],
    fields: dict[str, Any],
    *,
    cache: bool = True,
    request: bool = False,
) -> None:
    """Put a wire block's other keys in ``fields``: cache marker, then extras.

    ``request``: the block is part of a request, whose ``null`` values go back as
    they came (the API takes ``"cache_control": null``, ``"citations": null``:
    recorded); a response's ``null`` fields (``caller``, ``citations``) are the
    server's defaults, not request keys, and are left out.
    """
    extras: dict[str, Any] = dict(fields.get("extras", {}).get(NAME, {}))
    skip = set(known)
    for key, value in raw.items():
        if key in skip or (value is None and not request):
            continue
        if key == "cache_control" and cache:
            marker = cache_model(value)
            if marker is not None:
                fields["cache_control"] = marker
                continue
        extras[key] = value
    if extras:
        fields["extras"] = {NAME: extras}


def _source(raw: dict[str, Any]) -> dict[str, Any] | None:
    """A media block's ``source`` object, if it has one."""
    source = plain(raw.get("source"))
    return source if isinstance(source, dict) else None


def _media(source: dict[str, Any]) -> dict[str, Any] | None:
    """The neutral fields of a ``base64`` / ``url`` / ``file`` source of exactly its keys."""
    kind = source.get("type")
    keys = set(source)
    if kind == "base64" and keys == {"type", "media_type", "data"}:
        return {"base64": source["data"], "mime_type": source["media_type"]}
    if kind == "url" and keys == {"type", "url"}:
        return {"url": source["url"]}
    if kind == "file" and keys == {"type", "file_id"}:
        return {"file_id": source["file_id"]}
    return None  # a source of another kind, or with other keys: kept as non-standard


def _media_block(
    cls: type[ImageBlock | FileBlock | PlainTextBlock],
    fields: dict[str, Any],
    raw: dict[str, Any],
    index: int | None,
    position: int | None,
) -> ContentBlock:
    """The neutral media block, or the wire block kept as it came.

    A ``url`` or ``file_id`` source is any string in the SDK's types (``""``
    included); one the neutral block refuses keeps the wire block as it came. A
    ``base64`` source's ``media_type`` is one of the SDK's literals: another is
    refused, as before.
    """
    if "url" not in fields and "file_id" not in fields:
        return reader.build(cls, fields, index, position)
    try:
        return reader.build(cls, fields, index, position)
    except ConversionError:
        return non_standard(raw, index, position)


# ===================================================================== blocks


def citation(raw: Any, index: int | None, position: int | None) -> Citation:
    """A wire citation; what the neutral model has no field for goes to extras."""
    raw = plain(raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        reader.fail("a citation must be an object with a type", index, position)
    kind = raw["type"]
    title_key = TITLE_KEYS.get(kind)
    fields: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "cited_text" and isinstance(value, str):
            fields["cited_text"] = value
        elif key == title_key and (value is None or isinstance(value, str)):
            if value is not None:
                fields["title"] = value
            # a null title is written back by the encoder (required, nullable)
        elif (
            key == "url"
            and kind == "web_search_result_location"
            and isinstance(value, str)
            and URL.fullmatch(value)
        ):
            fields["url"] = value
        elif value is not None or title_key is None:
            extras[key] = value
    fields["extras"] = {NAME: extras}
    return reader.build(Citation, fields, index, position)


def text_block(
    raw: dict[str, Any], index: int | None, position: int | None, *, request: bool = False
) -> TextBlock:
    """A ``text`` block with its citations (``request``: see :func:`rest`).

    A blank text block of a request keeps its text in extras too: the encoder,
    which leaves out the blank text it is given, sends one that came as it came (the
    API took ``{"type": "text", "text": " "}`` before a ``tool_use``: recorded).
    """
    text = raw.get("text")
    if not isinstance(text, str):
        reader.fail("a text block needs a string `text`", index, position)
    fields: dict[str, Any] = {"text": text}
    extras: dict[str, Any] = {}
    citations = raw.get("citations")
    if citations is not None:
        reader.list(citations, "`citations`", index, position)
        fields["annotations"] = [citation(item, index, position) for item in citations]
    elif request and "citations" in raw:
        extras["citations"] = None  # sent back as it came
    if request and not text.strip():
        extras["text"] = text
    if extras:
        fields["extras"] = {NAME: extras}
    rest(raw, ("type", "text", "citations"), fields, request=request)
    return reader.build(TextBlock, fields, index, position)


def image_block(
    raw: dict[str, Any], index: int | None, position: int | None, *, request: bool = False
) -> ContentBlock:
    """An ``image`` block; a source the neutral model cannot carry keeps it non-standard."""
    source = _source(raw)
    fields = _media(source) if source is not None else None
    if fields is None:
        return non_standard(raw, index, position)
    rest(raw, ("type", "source"), fields, request=request)
    return _media_block(ImageBlock, fields, raw, index, position)


def document_block(
    raw: dict[str, Any], index: int | None, position: int | None, *, request: bool = False
) -> ContentBlock:
    """A ``document`` block: plain text, or a file (PDF) by base64, URL or file id."""
    source = _source(raw)
    if source is None:
        return non_standard(raw, index, position)
    known = ["type", "source"]
    if source.get("type") == "text" and set(source) == {"type", "media_type", "data"}:
        if source["media_type"] != "text/plain":
            return non_standard(raw, index, position)
        fields: dict[str, Any] = {"text": source["data"]}
        for key in ("title", "context"):
            if isinstance(raw.get(key), str):
                fields[key] = raw[key]
                known.append(key)
        rest(raw, known, fields, request=request)
        return _media_block(PlainTextBlock, fields, raw, index, position)
    media = _media(source)
    if media is None:
        return non_standard(raw, index, position)
    title = raw.get("title")
    if isinstance(title, str) and title:
        media["filename"] = title
        known.append("title")
    rest(raw, known, media, request=request)
    return _media_block(FileBlock, media, raw, index, position)


def server_result_block(
    raw: dict[str, Any], index: int, position: int, *, request: bool = False
) -> ContentBlock:
    """A ``*_tool_result`` block of a server tool; its wire type goes to extras."""
    tool_use_id = raw.get("tool_use_id")
    if not isinstance(tool_use_id, str) or not tool_use_id:
        return non_standard(raw, index, position)
    fields: dict[str, Any] = {"tool_call_id": tool_use_id}
    if "content" in raw:
        output = plain_deep(raw["content"])
        fields["output"] = output
        # server tools report failure as content of type "*_error" (or is_error)
        failed = raw.get("is_error") is True or (
            isinstance(output, dict)
            and isinstance(output.get("type"), str)
            and output["type"].endswith("_error")
        )
        fields["status"] = "error" if failed else "success"
    extras: dict[str, Any] = {"type": raw["type"]}
    for key, value in raw.items():
        if key in ("type", "tool_use_id", "content") or (value is None and not request):
            continue
        if key == "cache_control" and value is not None:
            marker = cache_model(value)
            if marker is not None:
                fields["cache_control"] = marker
                continue
        extras[key] = value
    fields["extras"] = {NAME: extras}
    return reader.build(ServerToolResultBlock, fields, index, position)


def server_call_block(
    raw: dict[str, Any], index: int, position: int, *, request: bool = False
) -> ContentBlock:
    """A ``server_tool_use`` block (a call the API runs itself)."""
    call_id, name, arguments = raw.get("id"), raw.get("name"), raw.get("input")
    if not (isinstance(call_id, str) and isinstance(name, str) and isinstance(arguments, dict)):
        return non_standard(raw, index, position)
    fields: dict[str, Any] = {"id": call_id, "name": name, "arguments": arguments}
    rest(raw, ("type", "id", "name", "input"), fields, request=request)
    if name not in SERVER_TOOLS and not fields.get("extras"):
        # a tool newer than this codec: marked as Anthropic's, so that it goes back
        # (as non_standard marks block types it does not know)
        fields["extras"] = {NAME: {}}
    return reader.build(ServerToolCallBlock, fields, index, position)


def reasoning_block(
    raw: dict[str, Any], index: int, position: int, *, request: bool = False
) -> ReasoningBlock:
    """A ``thinking`` or ``redacted_thinking`` block, kept to be replayed unchanged."""
    fields: dict[str, Any] = {"provider": NAME}
    if raw["type"] == "thinking":
        thinking, signature = raw.get("thinking"), raw.get("signature")
        if not isinstance(thinking, str) or not isinstance(signature, str):
            reader.fail("a thinking block needs string `thinking` and `signature`", index, position)
        fields.update(text=thinking, signature=signature)
        known: tuple[str, ...] = ("type", "thinking", "signature")
    else:
        data = raw.get("data")
        if not isinstance(data, str):
            reader.fail("a redacted_thinking block needs a string `data`", index, position)
        fields["encrypted_content"] = data
        known = ("type", "data")
    # Messages API, "Prompt caching": thinking blocks take no cache marker
    rest(raw, known, fields, cache=False, request=request)
    return reader.build(ReasoningBlock, fields, index, position)


# wire key -> CompactionBlock field, for the string values of a ``compaction`` block
COMPACTION_FIELDS = (
    ("content", "text"),
    ("encrypted_content", "encrypted_content"),
    ("signature", "signature"),
)


def compaction_block(
    raw: dict[str, Any], index: int | None, position: int | None, *, request: bool = False
) -> CompactionBlock:
    """A ``compaction`` block (``compaction.py``); a request's ``null`` stays in extras."""
    fields: dict[str, Any] = {"provider": NAME}
    known = ["type"]
    for key, field in COMPACTION_FIELDS:
        value = raw.get(key)
        if isinstance(value, str):
            fields[field] = value
            known.append(key)
    rest(raw, known, fields, request=request)
    return reader.build(CompactionBlock, fields, index, position)


def user_side_block(raw: Any, index: int | None, position: int | None) -> ContentBlock:
    """A block of user content, tool result content or a system prompt (of a request).

    A block given as an SDK response object keeps no ``null`` (see :func:`rest`).
    """
    request = not isinstance(raw, BaseModel)
    raw = plain(raw)
    if not isinstance(raw, dict):
        reader.fail("a content block must be an object", index, position)
    kind = raw.get("type")
    if kind == "text":
        return text_block(raw, index, position, request=request)
    if kind == "image":
        return image_block(raw, index, position, request=request)
    if kind == "document":
        return document_block(raw, index, position, request=request)
    if not isinstance(kind, str):
        reader.fail("a content block needs a string `type`", index, position)
    return non_standard(raw, index, position)


def tool_use(
    raw: dict[str, Any], index: int, position: int, with_index: bool, *, request: bool = False
) -> ToolCall | InvalidToolCall:
    """A ``tool_use`` block; ``with_index``: the call keeps its position as ``index``."""
    call_id, name, arguments = raw.get("id"), raw.get("name"), raw.get("input")
    if not isinstance(call_id, str) or not isinstance(name, str):
        reader.fail("a tool_use block needs string `id` and `name`", index, position)
    fields: dict[str, Any] = {"id": call_id, "name": name}
    if with_index:
        fields["index"] = position
    rest(raw, ("type", "id", "name", "input"), fields, cache=False, request=request)
    if isinstance(arguments, dict):
        fields["arguments"] = arguments
        return reader.build(ToolCall, fields, index, position)
    fields["arguments"] = json.dumps(arguments, ensure_ascii=False, default=repr)
    # worded as ChunkAccumulator words it, so that a streamed call decodes the same
    fields["error"] = f"arguments must be a JSON object, not {type(arguments).__name__}"
    return reader.build(InvalidToolCall, fields, index, position)


def assistant_block(
    raw: Any, index: int, position: int, *, index_call: bool, request: bool = False
) -> ContentBlock | ToolCall | InvalidToolCall:
    """One assistant wire block: a content block, a ToolCall or an InvalidToolCall.

    ``request``: the block is part of a request (its ``null`` values go back, see
    :func:`rest`), not of a response or stream; a block given as an SDK response
    object (``Message.to_param()`` holds them) is the server's, whatever its place.
    """
    request = request and not isinstance(raw, BaseModel)
    raw = plain(raw)
    if not isinstance(raw, dict):
        reader.fail("a content block must be an object", index, position)
    kind = raw.get("type")
    if kind == "tool_use":
        return tool_use(raw, index, position, index_call, request=request)
    if kind == "text":
        return text_block(raw, index, position, request=request)
    if kind in ("thinking", "redacted_thinking"):
        return reasoning_block(raw, index, position, request=request)
    if kind == "server_tool_use":
        return server_call_block(raw, index, position, request=request)
    if isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result":
        return server_result_block(raw, index, position, request=request)
    if kind == "compaction":
        return compaction_block(raw, index, position, request=request)
    if isinstance(kind, str):
        return non_standard(raw, index, position)
    reader.fail("a content block needs a string `type`", index, position)
