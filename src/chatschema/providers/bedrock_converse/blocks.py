"""Reading Converse content blocks: what histories, responses and streams share.

A Converse content block is an object with exactly one member (``{"text": ...}``,
``{"image": {...}}``, ``{"toolUse": {...}}`` ...). Every reader takes the wire
block and where it is (``index``: the message; ``position``: the block inside it)
and fails with a located :class:`~chatschema.ConversionError`.

Blobs (image, document, video and audio bytes, redacted reasoning) come as
``bytes`` from boto3 and as base64 text in the REST API's JSON; both read into the
neutral base64 text, and a block that came as text is marked (``extras[NAME]
["blob_text"]``) so that it goes back as text.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from typing import Any

from chatschema_models.content import (
    AudioBlock,
    CacheControl,
    Citation,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    VideoBlock,
)
from chatschema_models.tool import InvalidToolCall, ToolCall

from chatschema.providers._common import Reader, json_text
from chatschema.providers.bedrock_converse.wire import (
    BLOB_TEXT,
    BLOCK_KEYS,
    CACHE_POINT,
    DOCUMENT_NAME,
    FORMATS,
    JSON_RESULT,
    MIME_FORMATS,
    NAME,
    S3_URI,
    URL,
)

reader = Reader(NAME)

# ===================================================================== plain data


def load(payload: Any) -> Any:
    """A payload as JSON-like data (text parsed; dicts and bytes pass through)."""
    if isinstance(payload, (str, bytes, bytearray)):
        return reader.json(payload)
    return payload


def member(raw: Any, what: str, index: int | None, position: int | None) -> tuple[str, Any]:
    """The one ``(key, value)`` of a union object (a content block, a delta, a source)."""
    if not isinstance(raw, dict):
        reader.fail(f"{what} must be an object, not {type(raw).__name__}", index, position)
    if len(raw) != 1:
        reader.fail(f"{what} must have exactly one member, not {sorted(raw)}", index, position)
    ((key, value),) = raw.items()
    if not isinstance(key, str):
        reader.fail(f"{what} keys must be strings", index, position)
    return key, value


def blob_text(value: Any, what: str, index: int | None, position: int | None) -> tuple[str, bool]:
    """A blob as base64 text, and whether it came as text (the JSON form) already."""
    if isinstance(value, (bytes, bytearray)):
        return binascii.b2a_base64(value, newline=False).decode("ascii"), False
    if isinstance(value, str):
        return value, True
    reader.fail(f"{what} must be bytes or base64 text, not {type(value).__name__}", index, position)


def blob_bytes(text: str) -> bytes | None:
    """Base64 text as bytes (None when it is not base64)."""
    if len(text) % 4 or not _BASE64.fullmatch(text):
        return None
    try:
        # a2b_base64 reads the text itself: no ASCII copy of a large blob first
        return binascii.a2b_base64(text)
    except (binascii.Error, ValueError):
        return None


_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
"""Standard base64, padded (what ``b64decode(validate=True)`` takes)."""


# ================================================================ shared pieces


def non_standard(raw: dict[str, Any], index: int | None, position: int | None) -> NonStandardBlock:
    """A Converse block the neutral model has no type for, kept as it came (ours)."""
    fields: dict[str, Any] = {"value": raw, "provider": NAME}
    return reader.build(NonStandardBlock, fields, index, position)


def cache_point(raw: Any) -> dict[str, Any] | None:
    """The value of a ``{"cachePoint": {...}}`` block, else None."""
    if isinstance(raw, dict) and len(raw) == 1:
        value = raw.get("cachePoint")
        if isinstance(value, dict):
            return value
    return None


def with_cache_points(content: list[Any]) -> Iterator[tuple[int, Any, dict[str, Any] | None]]:
    """``(position, block, the cache point right after it or None)`` of content.

    A cache point that follows a block is not walked on its own: it goes with that block.
    """
    skip = False
    last = len(content) - 1
    for position, item in enumerate(content):
        if skip:
            skip = False
            continue
        cache = cache_point(content[position + 1]) if position < last else None
        if cache is not None and cache_point(item) is None:
            skip = True
        else:
            cache = None
        yield position, item, cache


def cache_model(value: Any) -> CacheControl | None:
    """A cache point as a neutral CacheControl, if it is exactly one (``default``, ttl)."""
    if (
        isinstance(value, dict)
        and value.get("type") == "default"
        and set(value) <= {"type", "ttl"}
        and ("ttl" not in value or value["ttl"] in ("5m", "1h"))
    ):
        return CacheControl(ttl=value["ttl"]) if "ttl" in value else CacheControl()
    return None


def attach_cache(
    fields: dict[str, Any], extras: dict[str, Any], cache: dict[str, Any] | None
) -> None:
    """Put a following cache point on a block: its ``cache_control``, else in extras."""
    if cache is None:
        return
    marker = cache_model(cache)
    if marker is not None:
        fields["cache_control"] = marker
    else:
        extras[CACHE_POINT] = cache


def finish(fields: dict[str, Any], extras: dict[str, Any]) -> dict[str, Any]:
    """The fields with the Converse extras (if any) under ``extras[NAME]``."""
    if extras:
        fields["extras"] = {NAME: extras}
    return fields


# ======================================================================= media


def media_block(
    kind: str,
    raw: Any,
    index: int | None,
    position: int | None,
    cache: dict[str, Any] | None = None,
    *,
    whole: dict[str, Any] | None = None,
) -> ContentBlock:
    """An image, document, video or audio block (``whole``: the wire block itself)."""
    whole = whole if whole is not None else {kind: raw}
    if not isinstance(raw, dict):
        reader.fail(f"a {kind} block must be an object", index, position)
    fmt = raw.get("format")
    source = raw.get("source")
    if not isinstance(source, dict) or len(source) != 1:
        return _non_standard_cached(whole, index, position, cache)
    ((source_kind, value),) = source.items()
    mime = FORMATS[kind].get(fmt) if isinstance(fmt, str) else None
    fields: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    known = {"format", "source"}
    if kind == "document":
        name = raw.get("name")
        if not isinstance(name, str):
            return _non_standard_cached(whole, index, position, cache)
        known.add("name")
        if not DOCUMENT_NAME.fullmatch(name):
            # a name outside the API reference's rule, which the API took: kept, so
            # that it goes back as it came (the encoder makes valid names only)
            extras["name"] = name
        if source_kind == "text" and isinstance(value, str):
            # a text document: the neutral plain-text document, titled by its name
            fields.update(text=value, title=name)
            if mime is not None and mime != "text/plain":
                fields["mime_type"] = mime  # md, html, csv ... as text
            if isinstance(raw.get("context"), str):
                fields["context"] = raw["context"]
                known.add("context")
            extras["format"] = fmt  # None: the request said no format
            extras.update({key: item for key, item in raw.items() if key not in known})
            attach_cache(fields, extras, cache)
            return reader.build(PlainTextBlock, finish(fields, extras), index, position)
        fields["filename"] = name
    if mime is None:
        return _non_standard_cached(whole, index, position, cache)
    if source_kind == "bytes":
        data, text = blob_text(value, f"{kind} bytes", index, position)
        fields.update(base64=data, mime_type=mime)
        if text:
            extras[BLOB_TEXT] = True
    elif source_kind == "s3Location" and isinstance(value, dict):
        uri = value.get("uri")
        if not isinstance(uri, str) or not S3_URI.fullmatch(uri):
            return _non_standard_cached(whole, index, position, cache)
        fields.update(url=uri, mime_type=mime)
        owner = {key: item for key, item in value.items() if key != "uri"}
        if owner:
            extras["s3Location"] = owner
    else:  # a document of content blocks, or a source newer than this codec
        return _non_standard_cached(whole, index, position, cache)
    if MIME_FORMATS[kind].get(mime) != fmt:
        extras["format"] = fmt  # a format sharing its MIME type with another
    extras.update({key: item for key, item in raw.items() if key not in known})
    attach_cache(fields, extras, cache)
    cls: type[ImageBlock | FileBlock | VideoBlock | AudioBlock] = _MEDIA.get(kind, AudioBlock)
    return reader.build(cls, finish(fields, extras), index, position)


_MEDIA: dict[str, type[ImageBlock | FileBlock | VideoBlock | AudioBlock]] = {
    "image": ImageBlock,
    "document": FileBlock,
    "video": VideoBlock,
}


def _non_standard_cached(
    whole: dict[str, Any], index: int | None, position: int | None, cache: dict[str, Any] | None
) -> NonStandardBlock:
    """A block kept non-standard, with the cache point that follows it."""
    fields: dict[str, Any] = {"value": whole, "provider": NAME}
    extras: dict[str, Any] = {}
    attach_cache(fields, extras, cache)
    return reader.build(NonStandardBlock, finish(fields, extras), index, position)


# ===================================================================== blocks


def citation(raw: Any, index: int | None, position: int | None) -> Citation:
    """A Converse citation: title, web URL and quoted text; all of it kept in extras."""
    if not isinstance(raw, dict):
        reader.fail("a citation must be an object", index, position)
    fields: dict[str, Any] = {}
    title = raw.get("title")
    if isinstance(title, str):
        fields["title"] = title
    location = raw.get("location")
    web = location.get("web") if isinstance(location, dict) else None
    url = web.get("url") if isinstance(web, dict) else None
    if isinstance(url, str) and URL.fullmatch(url):
        fields["url"] = url
    quoted = raw.get("sourceContent")
    if isinstance(quoted, list):
        texts = [item.get("text") for item in quoted if isinstance(item, dict)]
        if texts and all(isinstance(text, str) for text in texts):
            fields["cited_text"] = "".join(texts)  # type: ignore[arg-type]
    # the wire citation, but for the title, is what goes back (the neutral fields
    # are read from it)
    fields["extras"] = {NAME: {key: value for key, value in raw.items() if key != "title"}}
    return reader.build(Citation, fields, index, position)


def text_block(value: Any, index: int | None, position: int | None, cache: Any = None) -> TextBlock:
    """A ``text`` block."""
    if not isinstance(value, str):
        reader.fail("a text block must be a string", index, position)
    fields: dict[str, Any] = {"text": value}
    extras: dict[str, Any] = {}
    attach_cache(fields, extras, cache)
    return reader.build(TextBlock, finish(fields, extras), index, position)


def citations_block(
    raw: Any, index: int | None, position: int | None, cache: Any = None
) -> ContentBlock:
    """A ``citationsContent`` block: its text, the citations as annotations."""
    if not isinstance(raw, dict):
        reader.fail("a citationsContent block must be an object", index, position)
    content = raw.get("content", [])
    citations = raw.get("citations", [])
    if not isinstance(content, list) or not isinstance(citations, list):
        return _non_standard_cached({"citationsContent": raw}, index, position, cache)
    texts = [item.get("text") if isinstance(item, dict) else None for item in content]
    if not all(
        isinstance(text, str) and len(item) == 1 for text, item in zip(texts, content, strict=True)
    ):
        return _non_standard_cached({"citationsContent": raw}, index, position, cache)
    fields: dict[str, Any] = {"text": "".join(texts)}  # type: ignore[arg-type]
    if "citations" in raw:  # (both members are optional)
        fields["annotations"] = [citation(item, index, position) for item in citations]
    extras: dict[str, Any] = {
        key: value for key, value in raw.items() if key not in ("content", "citations")
    }
    if "content" not in raw:
        extras["content"] = None  # none sent back while the text is empty
    elif len(content) != 1:
        extras["content"] = content  # the text's pieces, as they came
    extras["citationsContent"] = True
    attach_cache(fields, extras, cache)
    return reader.build(TextBlock, finish(fields, extras), index, position)


def reasoning_block(
    raw: Any, index: int | None, position: int | None, cache: Any = None
) -> ReasoningBlock:
    """A ``reasoningContent`` block (reasoning text and signature, or redacted content)."""
    key, value = member(raw, "a reasoningContent block", index, position)
    fields: dict[str, Any] = {"provider": NAME}
    extras: dict[str, Any] = {}
    if key == "reasoningText" and isinstance(value, dict):
        text = value.get("text")
        if not isinstance(text, str):
            reader.fail("reasoningText needs a string `text`", index, position)
        fields["text"] = text
        signature = value.get("signature")
        if signature is not None:
            if not isinstance(signature, str):
                reader.fail("reasoningText `signature` must be a string", index, position)
            fields["signature"] = signature
        extras.update({k: v for k, v in value.items() if k not in ("text", "signature")})
    elif key == "redactedContent":
        # the bytes are the model's own opaque data: kept as base64 of exactly them
        data, text = blob_text(value, "redactedContent", index, position)
        fields["encrypted_content"] = data
        if text:
            extras[BLOB_TEXT] = True
    else:
        reader.fail(f"unknown reasoningContent member {key!r}", index, position)
    attach_cache(fields, extras, cache)
    return reader.build(ReasoningBlock, finish(fields, extras), index, position)


def tool_use(
    raw: Any,
    index: int | None,
    position: int | None,
    *,
    with_index: bool,
    cache: Any = None,
    request: bool = False,
) -> ToolCall | InvalidToolCall | ServerToolCallBlock:
    """A ``toolUse`` block: a tool call, or a server tool's call (``type`` server_tool_use).

    ``request``: the block is a request's. An ``input`` that is no object (``null``, a
    list: botocore's ``Document`` takes any JSON) makes an invalid call; a request's
    is marked (``extras[NAME]["input_json"]``) so that the encoder sends that input
    back as it came.
    """
    if not isinstance(raw, dict):
        reader.fail("a toolUse block must be an object", index, position)
    call_id, name, arguments = raw.get("toolUseId"), raw.get("name"), raw.get("input")
    if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
        reader.fail("a toolUse block needs string `toolUseId` and `name`", index, position)
    extras = {k: v for k, v in raw.items() if k not in ("toolUseId", "name", "input")}
    if cache is not None:
        extras[CACHE_POINT] = cache
    if raw.get("type") == "server_tool_use" and isinstance(arguments, dict):
        fields: dict[str, Any] = {"id": call_id, "name": name, "arguments": arguments}
        fields["provider"] = NAME
        return reader.build(ServerToolCallBlock, finish(fields, extras), index, position)
    fields = {"id": call_id, "name": name}
    if with_index and position is not None:
        fields["index"] = position
    if isinstance(arguments, dict):
        fields["arguments"] = arguments
        return reader.build(ToolCall, finish(fields, extras), index, position)
    try:
        fields["arguments"] = json_text(arguments)
    except (TypeError, ValueError):
        fields["arguments"] = repr(arguments)
    # worded as ChunkAccumulator words it, so that a streamed call decodes the same
    fields["error"] = f"arguments must be a JSON object, not {type(arguments).__name__}"
    if request:
        extras["input_json"] = True  # the arguments are the input's JSON text
    return reader.build(InvalidToolCall, finish(fields, extras), index, position)


def result_content(items: Any, index: int | None, position: int | None) -> list[ContentBlock]:
    """The content of a ``toolResult``: text, json, image, document, video blocks."""
    if not isinstance(items, list):
        reader.fail("toolResult `content` must be a list", index, position)
    out: list[ContentBlock] = []
    for item in items:
        key, value = member(item, "a toolResult content block", index, position)
        if key == "text":
            out.append(text_block(value, index, position))
        elif key == "json":
            # a json result: its JSON text, marked so that it goes back as json
            try:
                text = json_text(value)
            except (TypeError, ValueError):
                out.append(non_standard(item, index, position))
                continue
            out.append(
                reader.build(
                    TextBlock,
                    {"text": text, "extras": {NAME: {JSON_RESULT: True}}},
                    index,
                    position,
                )
            )
        elif key in ("image", "document", "video", "audio"):
            out.append(media_block(key, value, index, position))
        else:  # searchResult, and members newer than this codec
            out.append(non_standard(item, index, position))
    return out


def server_result_block(
    raw: Any, index: int | None, position: int | None, cache: Any = None
) -> ServerToolResultBlock:
    """A ``toolResult`` in assistant content: the result of a server tool.

    Nova's code interpreter and others; its content stays as it came.
    """
    if not isinstance(raw, dict):
        reader.fail("a toolResult block must be an object", index, position)
    call_id = raw.get("toolUseId")
    if not isinstance(call_id, str) or not call_id:
        reader.fail("a toolResult block needs a string `toolUseId`", index, position)
    fields: dict[str, Any] = {"tool_call_id": call_id, "provider": NAME}
    if "content" in raw:
        fields["output"] = raw["content"]
    status = raw.get("status")
    if status in ("success", "error"):
        fields["status"] = status
    extras = {k: v for k, v in raw.items() if k not in ("toolUseId", "content")}
    if cache is not None:
        extras[CACHE_POINT] = cache
    return reader.build(ServerToolResultBlock, finish(fields, extras), index, position)


# ===================================================================== dispatch


def content_block(
    raw: Any, index: int | None, position: int | None, cache: Any = None
) -> ContentBlock:
    """One block of user, system or assistant content that is not a tool call or result."""
    key, value = member(raw, "a content block", index, position)
    if key == "text":
        return text_block(value, index, position, cache)
    if key in ("image", "document", "video", "audio"):
        return media_block(key, value, index, position, cache, whole=raw)
    if key == "reasoningContent":
        return reasoning_block(value, index, position, cache)
    if key == "citationsContent":
        return citations_block(value, index, position, cache)
    # guardContent, searchResult, toolAddition/Removal, members newer than this codec
    return _non_standard_cached(raw, index, position, cache)


def is_known(raw: Mapping[str, Any]) -> bool:
    """Whether a block's one member is a ContentBlock member this codec knows."""
    return len(raw) == 1 and next(iter(raw)) in BLOCK_KEYS


# ================================================================== blob forms


def json_form(payload: Any) -> Any:
    """A request, response or event with every blob as base64 text (the REST API's JSON).

    ``bytes`` anywhere become their base64 text; everything else is copied as it is.
    """
    if isinstance(payload, (bytes, bytearray)):
        return base64.b64encode(payload).decode("ascii")
    if isinstance(payload, dict):
        return {key: json_form(value) for key, value in payload.items()}
    if isinstance(payload, list):
        return [json_form(value) for value in payload]
    return payload


def boto3_form(payload: Any) -> Any:
    """A request, response or event with every blob as ``bytes``, as boto3 takes them.

    The blobs of Converse: ``source.bytes`` of images, documents, videos, audio and
    guarded images, and ``redactedContent``; base64 text there becomes its bytes
    (text that is not base64 is a :class:`~chatschema.ConversionError`).
    """
    return _boto3(payload, "")


def _boto3(value: Any, key: str) -> Any:
    """``boto3_form`` of a value found under ``key``."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for name, item in value.items():
            if isinstance(item, str) and (
                (name == "bytes" and key == "source") or name == "redactedContent"
            ):
                data = blob_bytes(item)
                if data is None:
                    reader.fail(f"{name} is not base64 text")
                out[name] = data
            else:
                out[name] = _boto3(item, name)
        return out
    if isinstance(value, list):
        return [_boto3(item, key) for item in value]
    return value
