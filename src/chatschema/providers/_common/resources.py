"""Resource blocks (MCP embedded resources and resource links) as content a format has.

No provider format has a resource block. A codec that meets one asks
:func:`resource_as` for the neutral block its format can carry instead: an embedded
text resource becomes text (or a plain-text document titled with its URI), an
embedded image, audio, video or PDF becomes the matching media block, and a link to
an ``http(s)`` image or PDF becomes that media block by URL. Anything else has no
equivalent (None): the codec then follows the unsupported-content policy for the
resource block itself, at the block's own location.
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from typing import Any, Literal

from chatschema_models.content import (
    AudioBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    PlainTextBlock,
    ResourceBlock,
    ResourceLinkBlock,
    TextBlock,
    VideoBlock,
)

__all__ = ["RESOURCE_TYPES", "resource_as"]

RESOURCE_TYPES = frozenset({"resource", "resource_link"})
"""The ``type`` tags of the resource blocks."""

TextForm = Literal["text", "document"]

_MEDIA: tuple[tuple[str, type[ImageBlock | AudioBlock | VideoBlock]], ...] = (
    ("image/", ImageBlock),
    ("audio/", AudioBlock),
    ("video/", VideoBlock),
)


def resource_as(
    block: ResourceBlock | ResourceLinkBlock, *, text: TextForm = "text"
) -> ContentBlock | None:
    """The block a provider format can carry for a resource block, else None.

    Args:
        block: an embedded resource or a resource link.
        text: how an embedded text resource is written: ``"text"`` (a text block with
            the resource's text) or ``"document"`` (a plain-text document whose title
            is the URI).

    Returns:
        A text, plain-text, image, audio, video or file block carrying the block's
        ``extras`` and ``cache_control``; None for a resource no format can carry
        (binary data of another media type, a link that is not an ``http(s)`` image
        or PDF).
    """
    if isinstance(block, ResourceLinkBlock):
        return _link(block)
    content = block.text
    if content is None and block.base64 is not None:
        mime = block.mime_type or ""
        kind = _media(mime)
        if kind is not None:
            return kind(base64=block.base64, mime_type=mime, **_kept(block))
        if mime == "application/pdf":
            return FileBlock(
                base64=block.base64, mime_type=mime, filename=_name(block.uri), **_kept(block)
            )
        if not mime.startswith("text/"):
            return None
        content = _utf8(block.base64)
        if content is None:
            return None
    if content is None:  # pragma: no cover - the schema requires text or base64
        return None
    if text == "document":
        return PlainTextBlock(text=content, title=block.uri, **_kept(block))
    return TextBlock(text=content, **_kept(block))


def _link(block: ResourceLinkBlock) -> ContentBlock | None:
    """A link to an ``http(s)`` image or PDF as that block by URL."""
    uri = block.uri
    if not uri.startswith(("https://", "http://")):
        return None
    mime = block.mime_type or ""
    kind = _media(mime)
    if kind is ImageBlock:
        return ImageBlock(url=uri, mime_type=mime, **_kept(block))
    if mime == "application/pdf":
        name = block.name or _name(uri)
        return FileBlock(url=uri, mime_type=mime, filename=name, **_kept(block))
    return None


def _media(mime: str) -> type[ImageBlock | AudioBlock | VideoBlock] | None:
    """The media block class of a media type, if it is image, audio or video."""
    for prefix, kind in _MEDIA:
        if mime.startswith(prefix):
            return kind
    return None


def _kept(block: ResourceBlock | ResourceLinkBlock) -> dict[str, Any]:
    """The fields a resource block hands on to the block that carries it."""
    kept: dict[str, Any] = {}
    if block.extras is not None:
        kept["extras"] = block.extras
    if block.cache_control is not None:
        kept["cache_control"] = block.cache_control
    return kept


def _name(uri: str) -> str | None:
    """The last path segment of a URI (a file name), if it has one."""
    name = uri.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]
    return name if name and ":" not in name else None


def _utf8(data: str) -> str | None:
    """Base64 data decoded as UTF-8 text, or None when it is not."""
    try:
        return b64decode(data, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
