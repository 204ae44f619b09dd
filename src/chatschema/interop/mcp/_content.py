"""MCP content blocks to and from neutral content blocks, and what the MCP readers share.

Everything here works on plain JSON data: MCP objects of the ``mcp`` SDK are dumped
(by alias, ``None`` left out, which is how the SDK sends them) before they are read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from chatschema.errors import (
    ConversionError,
    Problem,
    UnsupportedContentError,
    json_pointer,
)

__all__ = [
    "NAMESPACE",
    "Path",
    "UnsupportedPolicy",
    "as_json",
    "block_from_mcp",
    "block_to_mcp",
    "fail",
    "leftovers",
    "mapping",
    "mcp_extras",
    "string",
    "unsupported",
    "with_extras",
]

NAMESPACE: Final = "mcp"
"""Key of MCP data in neutral ``extras``."""

UnsupportedPolicy = Literal["error", "drop", "placeholder"]
Path = tuple[str | int, ...]

# The neutral MimeType pattern (schemas/content.json).
_MIME = re.compile(
    r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(;[^\x00-\x1f\x7f]*)?$"
)


def fail(path: Path, reason: str, keyword: str = "mcp") -> ConversionError:
    """A :class:`ConversionError` naming the JSON pointer of the MCP value at fault."""
    pointer = json_pointer(path)
    return ConversionError(
        f"{pointer or '(root)'}: {reason}",
        provider=NAMESPACE,
        problems=[Problem(pointer, keyword, reason)],
    )


def as_json(value: Any, path: Path = ()) -> Any:
    """Plain JSON data from a dict or an ``mcp`` SDK (pydantic) object, as sent."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping):
        return dump(by_alias=True, exclude_none=True, mode="json")
    return value


def mapping(value: Any, path: Path, what: str) -> dict[str, Any]:
    """``value`` as a dict, or a located error saying it should be ``what``."""
    value = as_json(value, path)
    if not isinstance(value, Mapping):
        raise fail(path, f"{what} must be an object, not {type(value).__name__}", "type")
    return dict(value)


def string(data: Mapping[str, Any], key: str, path: Path, *, required: bool) -> str | None:
    """``data[key]`` when it is a string; a located error when it is another type."""
    if key not in data:
        if required:
            raise fail((*path, key), f"{key!r} is required", "required")
        return None
    value = data[key]
    if not isinstance(value, str):
        raise fail((*path, key), f"{key!r} must be a string, not {type(value).__name__}", "type")
    return value


def leftovers(data: Mapping[str, Any], used: Sequence[str]) -> dict[str, Any]:
    """The keys of ``data`` not in ``used`` (kept in ``extras["mcp"]``)."""
    return {key: value for key, value in data.items() if key not in used}


def mcp_extras(item: Mapping[str, Any]) -> dict[str, Any]:
    """``extras["mcp"]`` of a neutral dict (empty when there is none)."""
    extras = item.get("extras")
    namespace = extras.get(NAMESPACE) if isinstance(extras, Mapping) else None
    return dict(namespace) if isinstance(namespace, Mapping) else {}


def with_extras(out: dict[str, Any], kept: Mapping[str, Any]) -> dict[str, Any]:
    """``out`` with ``extras["mcp"] = kept`` when something is kept."""
    if kept:
        out["extras"] = {NAMESPACE: dict(kept)}
    return out


def _media(data: dict[str, Any], path: Path, *, required: bool, kept: dict[str, Any]) -> str | None:
    mime = string(data, "mimeType", path, required=required)
    if mime is None or _MIME.match(mime):
        return mime
    if required:
        raise fail((*path, "mimeType"), f"{mime!r} is not a media type (type/subtype)", "pattern")
    kept["mimeType"] = mime  # kept as sent: the neutral field takes media types only
    return None


# ------------------------------------------------------------------ MCP -> neutral


def block_from_mcp(value: Any, path: Path) -> dict[str, Any]:
    """One MCP content block (``ContentBlock``) as a neutral block dict.

    A block of a type MCP may add later becomes a ``non_standard`` block holding it.
    """
    data = mapping(value, path, "a content block")
    kind = data.get("type")
    if kind == "text":
        text = string(data, "text", path, required=True)
        return with_extras({"type": "text", "text": text}, leftovers(data, ("type", "text")))
    if kind in ("image", "audio"):
        payload = string(data, "data", path, required=True)
        kept = leftovers(data, ("type", "data", "mimeType"))
        mime = _media(data, path, required=True, kept=kept)
        return with_extras({"type": kind, "base64": payload, "mime_type": mime}, kept)
    if kind == "resource_link":
        return _link_from_mcp(data, path)
    if kind == "resource":
        return _resource_from_mcp(data, path)
    if not isinstance(kind, str):
        raise fail((*path, "type"), f"a content block needs a string 'type', not {kind!r}")
    return {"type": "non_standard", "provider": NAMESPACE, "value": data}


def _link_from_mcp(data: dict[str, Any], path: Path) -> dict[str, Any]:
    uri = string(data, "uri", path, required=True)
    if not uri:
        raise fail((*path, "uri"), "'uri' must not be empty", "minLength")
    out: dict[str, Any] = {"type": "resource_link", "uri": uri}
    kept = leftovers(data, ("type", "uri", "name", "title", "description", "mimeType", "size"))
    for key in ("name", "title", "description"):
        text = string(data, key, path, required=False)
        if text is not None:
            out[key] = text
    mime = _media(data, path, required=False, kept=kept)
    if mime is not None:
        out["mime_type"] = mime
    if "size" in data:
        size = data["size"]
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise fail((*path, "size"), f"'size' must be a byte count, not {size!r}", "type")
        out["size"] = size
    return with_extras(out, kept)


def _resource_from_mcp(data: dict[str, Any], path: Path) -> dict[str, Any]:
    inner_path = (*path, "resource")
    if "resource" not in data:
        raise fail(inner_path, "'resource' is required", "required")
    inner = mapping(data["resource"], inner_path, "'resource'")
    uri = string(inner, "uri", inner_path, required=True)
    if not uri:
        raise fail((*inner_path, "uri"), "'uri' must not be empty", "minLength")
    out: dict[str, Any] = {"type": "resource", "uri": uri}
    text = string(inner, "text", inner_path, required=False)
    blob = string(inner, "blob", inner_path, required=False)
    if text is None and blob is None:
        raise fail(inner_path, "an embedded resource needs 'text' or 'blob'", "required")
    if text is not None:
        out["text"] = text
    if blob is not None:
        out["base64"] = blob
    inner_kept = leftovers(inner, ("uri", "text", "blob", "mimeType"))
    mime = _media(inner, inner_path, required=False, kept=inner_kept)
    if mime is not None:
        out["mime_type"] = mime
    kept = leftovers(data, ("type", "resource"))
    if inner_kept:
        kept["resource"] = inner_kept
    return with_extras(out, kept)


# ------------------------------------------------------------------ neutral -> MCP


def unsupported(
    policy: UnsupportedPolicy, what: str, where: str, message: int | None, block: int | None
) -> list[dict[str, Any]]:
    """What ``policy`` makes of content MCP cannot carry: an error, nothing, or a note."""
    if policy == "error":
        raise UnsupportedContentError(
            f"{what} cannot be carried by {where} (options: unsupported='drop' or 'placeholder')",
            provider=NAMESPACE,
            message_index=message,
            block_index=block,
        )
    if policy == "placeholder":
        return [{"type": "text", "text": f"[{what} omitted]"}]
    return []


def block_to_mcp(
    block: Mapping[str, Any],
    *,
    policy: UnsupportedPolicy,
    where: str = "MCP content",
    kinds: frozenset[str] = frozenset({"text", "image", "audio", "resource_link", "resource"}),
    message: int | None = None,
    position: int | None = None,
) -> list[dict[str, Any]]:
    """One neutral block dict as MCP content (a list: empty or a note when left out).

    ``kinds`` are the MCP block types the destination takes (sampling messages take
    no resources); the rest follows ``policy``.
    """
    kind = block.get("type")
    kept = mcp_extras(block)
    if kind == "non_standard" and block.get("provider") == NAMESPACE:
        value = block.get("value")
        if isinstance(value, Mapping):
            return [dict(value)]
    out: dict[str, Any] | None = None
    if kind == "text":
        if block.get("annotations"):  # MCP text has no citations: the text goes alone
            unsupported(policy, "citations on a text block", where, message, position)
        out = {"type": "text", "text": block["text"]}
    elif kind in ("image", "audio") and "base64" in block:
        out = {"type": kind, "data": block["base64"], "mimeType": block["mime_type"]}
    elif kind == "resource_link":
        out = _link_to_mcp(block, kept)
    elif kind == "resource":
        out = _resource_to_mcp(block, kept)
    if out is None or out["type"] not in kinds:
        return unsupported(policy, _describe(block), where, message, position)
    kept.pop("resource", None)
    out.update(kept)
    return [out]


def _describe(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    if kind in ("image", "audio"):
        return f"an {kind} given by {'URL' if 'url' in block else 'file id'}"
    if kind == "non_standard":
        return "a non-standard block"
    return f"a {kind} block"


def _link_to_mcp(block: Mapping[str, Any], kept: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "resource_link", "uri": block["uri"]}
    # MCP requires a name; a link without one is named by its URI.
    out["name"] = block.get("name", kept.pop("name", block["uri"]))
    for key in ("title", "description"):
        if key in block:
            out[key] = block[key]
    if "mime_type" in block:
        out["mimeType"] = block["mime_type"]
    if "size" in block:
        out["size"] = block["size"]
    return out


def _resource_to_mcp(block: Mapping[str, Any], kept: Mapping[str, Any]) -> dict[str, Any]:
    inner: dict[str, Any] = {"uri": block["uri"]}
    if "mime_type" in block:
        inner["mimeType"] = block["mime_type"]
    if "text" in block:
        inner["text"] = block["text"]
    if "base64" in block:
        inner["blob"] = block["base64"]
    extra = kept.get("resource")
    if isinstance(extra, Mapping):
        inner.update(extra)
    return {"type": "resource", "resource": inner}
