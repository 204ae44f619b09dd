"""Content items (``text``, ``image``, ``audio``, ``video``, ``document``) both ways.

Shared by the decoders, the stream and the writers: an item becomes the neutral
block of its kind, its keys the block has no field for kept in
``extras["gemini_interactions"]["item"]``, and written back as it came.
"""

from __future__ import annotations

from typing import Any

from chatschema_models.content import (
    AudioBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    TextBlock,
    VideoBlock,
)

from chatschema._json import copy_json
from chatschema.errors import ConversionError
from chatschema.providers._common import set_extras
from chatschema.providers.gemini_interactions.wire import NAME, READ, put_kept

_KINDS: dict[str, Any] = {
    "image": ImageBlock,
    "audio": AudioBlock,
    "video": VideoBlock,
    "document": FileBlock,
}
_TYPES = {cls: kind for kind, cls in _KINDS.items()}
_URL_PREFIXES = ("http://", "https://")


def read_item(item: Any, index: int | None, position: int) -> ContentBlock:
    """The block of one content item (anything else: a non-standard block)."""
    item = READ.object(item, "a content item", index, position)
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        rest = {k: v for k, v in item.items() if k not in ("type", "text")}
        fields: dict[str, Any] = {"text": item["text"]}
        if rest:
            set_extras(fields, NAME, copy_json(rest))
        return TextBlock(**fields)
    cls = _KINDS.get(kind) if isinstance(kind, str) else None
    if cls is not None:
        block = _media(cls, item)
        if block is not None:
            return block
    return NonStandardBlock(provider=NAME, value=copy_json(item))


def _media(cls: Any, item: dict[str, Any]) -> ContentBlock | None:
    """A media item as its block; None when the block cannot say it."""
    data, uri, mime = item.get("data"), item.get("uri"), item.get("mime_type")
    if (data is None) == (uri is None) or (mime is not None and not isinstance(mime, str)):
        return None
    fields: dict[str, Any] = {}
    if isinstance(data, str):
        fields["base64"] = data
    elif isinstance(uri, str) and uri.startswith(_URL_PREFIXES):
        fields["url"] = uri
    elif isinstance(uri, str) and uri:
        fields["file_id"] = uri
    else:
        return None
    if mime is not None:
        fields["mime_type"] = mime
    rest = {k: v for k, v in item.items() if k not in ("type", "data", "uri", "mime_type")}
    if rest:
        set_extras(fields, NAME, copy_json(rest))
    try:
        block: ContentBlock = READ.build(cls, fields)
    except ConversionError:
        return None
    return block


def write_item(block: ContentBlock) -> dict[str, Any] | None:
    """The content item of a text or media block; None for any other block."""
    if isinstance(block, TextBlock):
        item: dict[str, Any] = {"type": "text", "text": block.text}
    elif type(block) in _TYPES:
        media: Any = block
        item = {"type": _TYPES[type(block)]}
        if media.base64 is not None:
            item["data"] = media.base64
        elif media.url is not None:
            item["uri"] = media.url
        elif media.file_id is not None:
            item["uri"] = media.file_id
        else:
            return None
        if media.mime_type is not None:
            item["mime_type"] = media.mime_type
    elif isinstance(block, NonStandardBlock) and block.provider == NAME:
        value = block.value
        kind = value.get("type")
        return copy_json(value) if isinstance(kind, str) and kind in _ITEM_TYPES else None
    else:
        return None
    return put_kept(item, block.extras)


_ITEM_TYPES = frozenset({"text", "image", "audio", "video", "document"})
