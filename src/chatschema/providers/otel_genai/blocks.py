"""Reading message parts into neutral blocks, leniently.

Instrumentations deviate from the schemas (tool results under ``result``, raw
provider finish reasons, ``thinking`` parts, content as a plain string ...): such a
record is read all the same and the deviation is noted in :class:`Notes`. A part
that cannot be read as what its type says becomes a :class:`NonStandardBlock` of
this format holding the part unchanged: nothing is dropped, and it is written back
as it came.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic
from chatschema_models.content import (
    AudioBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    RefusalBlock,
    ResourceBlock,
    ResourceLinkBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    VideoBlock,
)
from chatschema_models.tool import InvalidToolCall, ToolCall

from chatschema._json import copy_json
from chatschema.providers._common import Reader, describe, json_text, parse_arguments
from chatschema.providers.otel_genai.wire import (
    MARKERS,
    NAME,
    OMITTED,
    OPAQUE_FIELDS,
    PART_ALIASES,
    PART_TYPES,
)

reader = Reader(NAME)

_MEDIA = {"image": ImageBlock, "audio": AudioBlock, "video": VideoBlock, "document": FileBlock}
CONTENT_TYPES = PART_TYPES | {"refusal", "text-plain", "non_standard", "resource", "resource_link"}
"""Part types a list of parts in a tool response may hold to be read as content."""


class Notes:
    """What a decoder read leniently: ``{"pointer", "message"}`` entries."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []

    def add(self, pointer: str, message: str) -> None:
        """Note a deviation at a JSON pointer into the record."""
        self.items.append({"pointer": pointer, "message": message})


def is_text(value: Any) -> bool:
    """A string the models take: no lone surrogate (which no JSON text carries)."""
    if not isinstance(value, str):
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_id(value: Any) -> bool:
    """A non-empty string the models take (what neutral ids and names are)."""
    return isinstance(value, str) and value != "" and is_text(value)


def build(cls: type[Any], fields: dict[str, Any]) -> Any:
    """A neutral model, or None when the values do not fit it."""
    try:
        return cls(**{key: value for key, value in fields.items() if value is not None})
    except (pydantic.ValidationError, ValueError, TypeError):
        return None


def extras(
    part: Mapping[str, Any], known: tuple[str, ...], markers: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """``{"otel_genai": ...}``: the members not read, nulls of optional members, markers."""
    kept: dict[str, Any] = {}
    nulls = []
    for key, value in part.items():
        if key in known:
            if value is None and key != "type":
                nulls.append(key)
            continue
        if key in MARKERS:  # a member named like a marker: kept apart, never read as one
            kept.setdefault("members", {})[key] = copy_json(value)
        else:
            kept[key] = copy_json(value)
    if nulls:
        kept["nulls"] = nulls
    if markers:
        kept.update(markers)
    return {NAME: kept} if kept else None


def raw(part: Any) -> NonStandardBlock:
    """A part kept unchanged (written back as it came)."""
    value = copy_json(part) if isinstance(part, dict) else {"part": copy_json(part)}
    return NonStandardBlock(provider=NAME, value=value)


RESOURCE_FIELDS = {
    "resource_link": ("uri", "name", "title", "description", "mime_type", "size", "id"),
    "resource": ("uri", "text", "base64", "mime_type", "id"),
}
"""Our generic ``resource_link`` and ``resource`` parts: the block's fields, as named."""


def resource_part(block: ResourceBlock | ResourceLinkBlock) -> dict[str, Any]:
    """A resource block as our generic part of its type (no schema part says it).

    The embedded resource's ``base64`` is left for the caller to write under its
    inline-data policy.
    """
    part: dict[str, Any] = {"type": block.type}
    for name in RESOURCE_FIELDS[block.type]:
        value = getattr(block, name)
        if value is not None and name != "base64":
            part[name] = value
    return part


def resource_block(kind: str, part: dict[str, Any]) -> ResourceBlock | ResourceLinkBlock | None:
    """Our generic ``resource_link`` or ``resource`` part read back (None if it does not fit)."""
    if OMITTED in part:
        return None  # data left out of the record: kept as the part it is
    names = RESOURCE_FIELDS[kind]
    fields = {name: part[name] for name in names if part.get(name) is not None}
    fields["extras"] = extras(part, ("type", *names))
    cls = ResourceLinkBlock if kind == "resource_link" else ResourceBlock
    return build(cls, fields)  # type: ignore[no-any-return]


class Parts:
    """Reads the parts of one record; server tool types by call id, for the results."""

    def __init__(self, notes: Notes) -> None:
        self.notes = notes
        self.server_types: dict[str, str] = {}

    # ------------------------------------------------------------------- content

    def content(self, part: Any, where: str) -> ContentBlock | None:
        """A content part as a block (None: the caller reads calls and results)."""
        if isinstance(part, str) and is_text(part):
            self.notes.add(where, "a part is a plain string, not a text part")
            return TextBlock(text=part)
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            self.notes.add(where, "a part without a string `type` is kept as it came")
            return raw(part)
        kind = part["type"]
        block: ContentBlock | None
        if kind in PART_ALIASES:
            self.notes.add(where, f"part type {kind!r} read as {PART_ALIASES[kind]!r}")
            block = self.typed(PART_ALIASES[kind], part, where, alias=True)
        else:
            block = self.typed(kind, part, where, alias=False)
        if block is None:
            self.notes.add(where, f"a {kind!r} part that does not read as one is kept as it came")
            return raw(part)
        return block

    def typed(self, kind: str, part: dict[str, Any], where: str, *, alias: bool) -> Any:
        """The block of a typed part, or None when its members do not fit."""
        if kind == "text":
            return self.text(part)
        if kind == "reasoning":
            return self.reasoning(part, alias=alias)
        if kind == "refusal":
            content = part.get("content")
            if not isinstance(content, str):
                return None
            fields: dict[str, Any] = {"text": content}
            if is_id(part.get("id")):
                fields["id"] = part["id"]
            known = ("type", "content", *(("id",) if "id" in fields else ()))
            fields["extras"] = extras(part, known)
            return build(RefusalBlock, fields)
        if kind in ("blob", "uri", "file"):
            return self.media(kind, part, where)
        if kind == "text-plain":
            return self.plain_text(part)
        if kind in RESOURCE_FIELDS:
            return resource_block(kind, part)
        if kind == "server_tool_call":
            return self.server_call(part)
        if kind == "server_tool_call_response":
            return self.server_result(part)
        if kind == "non_standard":
            provider, value = part.get("provider"), part.get("value")
            if not (is_id(provider) and provider != NAME and isinstance(value, dict)):
                return None
            fields = {"provider": provider, "value": copy_json(value)}
            if is_id(part.get("block_id")):
                fields["id"] = part["block_id"]
            if set(part) - {"type", "provider", "value", "block_id", OMITTED}:
                return None
            if OMITTED in part:
                fields["extras"] = {NAME: {OMITTED: copy_json(part[OMITTED])}}
            return build(NonStandardBlock, fields)
        if kind in ("tool_call", "tool_call_response"):
            return None
        return raw(part)  # compaction and generic parts: this format's own, as they came

    def text(self, part: dict[str, Any]) -> TextBlock | None:
        """A text part."""
        content = part.get("content")
        if not isinstance(content, str):
            return None
        fields: dict[str, Any] = {"text": content}
        known = ["type", "content"]
        if isinstance(part.get("annotations"), list):
            fields["annotations"] = copy_json(part["annotations"])
            known.append("annotations")
        if is_id(part.get("id")):
            fields["id"] = part["id"]
            known.append("id")
        fields["extras"] = extras(part, tuple(known))
        block = build(TextBlock, fields)
        if block is None and "annotations" in fields:  # annotations of another shape: kept
            del fields["annotations"]
            fields["extras"] = extras(part, tuple(k for k in known if k != "annotations"))
            block = build(TextBlock, fields)
        return block  # type: ignore[no-any-return]

    def reasoning(self, part: dict[str, Any], *, alias: bool) -> ReasoningBlock | None:
        """A reasoning part (or its alias): text or summary, opaque data if exported."""
        content = part.get("content")
        if not isinstance(content, str):
            return None
        fields: dict[str, Any] = {}
        known = ["type", "content"]
        summary = part.get("summary")
        if isinstance(summary, list) and all(isinstance(item, str) for item in summary):
            fields["summary"] = list(summary)
            known.append("summary")
            if content != "\n".join(summary):
                fields["text"] = content
        else:
            fields["text"] = content
        for field in (*OPAQUE_FIELDS, "provider", "id"):
            if is_id(part.get(field)):
                fields[field] = part[field]
                known.append(field)
        opaque = OMITTED in part or any(field in fields for field in OPAQUE_FIELDS)
        if content == "" and opaque and "summary" not in fields:
            fields.pop("text", None)  # only opaque reasoning (redacted thinking): no text
        if alias:  # the alias is read as the schema's type; nothing else to keep of it
            known.append("type")
        fields["extras"] = extras(part, tuple(known))
        return build(ReasoningBlock, fields)  # type: ignore[no-any-return]

    def media(self, kind: str, part: dict[str, Any], where: str) -> Any:
        """A blob, uri or file part as the media block its modality (or media type) says."""
        if OMITTED in part:
            return raw(part)  # the data was left out: not an image any more
        source = {"blob": "content", "uri": "uri", "file": "file_id"}[kind]
        value = part.get(source)
        if not isinstance(value, str):
            return None
        mime = part.get("mime_type")
        modality = part.get("modality")
        cls = _MEDIA.get(modality) if isinstance(modality, str) else None
        markers: dict[str, Any] = {}
        if cls is None:
            guess = mime.split("/", 1)[0] if isinstance(mime, str) else ""
            cls = _MEDIA.get(guess, FileBlock)
            if isinstance(modality, str):
                markers["modality"] = modality
            else:
                self.notes.add(where, f"a {kind} part without a modality")
        fields: dict[str, Any] = {}
        known = ["type", "modality", "mime_type", source]
        if isinstance(mime, str):
            fields["mime_type"] = mime
        if kind == "blob":
            fields["base64"] = value
        elif kind == "uri":
            fields["url"] = value
        else:
            fields["file_id"] = value
        if kind != "uri" and isinstance(part.get("uri"), str):
            fields["url"] = part["uri"]
            known.append("uri")
        if kind != "file" and isinstance(part.get("file_id"), str):
            fields["file_id"] = part["file_id"]
            known.append("file_id")
        if cls is ImageBlock and "detail" in part:
            fields["detail"] = part["detail"]
            known.append("detail")
        if cls is FileBlock and "filename" in part:
            fields["filename"] = part["filename"]
            known.append("filename")
        if is_id(part.get("id")):
            fields["id"] = part["id"]
            known.append("id")
        fields["extras"] = extras(part, tuple(known), markers)
        return build(cls, fields)

    def plain_text(self, part: dict[str, Any]) -> PlainTextBlock | None:
        """Our generic ``text-plain`` part: a text document."""
        if OMITTED in part:
            return None
        names = ("text", "url", "base64", "mime_type", "file_id", "title", "context", "id")
        fields = {name: part[name] for name in names if part.get(name) is not None}
        fields["extras"] = extras(part, ("type", *names))
        return build(PlainTextBlock, fields)  # type: ignore[no-any-return]

    def server_call(self, part: dict[str, Any]) -> ServerToolCallBlock | None:
        """A ``server_tool_call`` part; the payload's members are the arguments."""
        payload = part.get("server_tool_call")
        name = part.get("name")
        if not (is_id(name) and isinstance(payload, dict) and isinstance(payload.get("type"), str)):
            return None
        kind = payload["type"]
        rest = {key: copy_json(value) for key, value in payload.items() if key != "type"}
        arguments: Any = rest or None
        if set(rest) == {"arguments"} and isinstance(rest["arguments"], dict):
            arguments = rest["arguments"]
        fields: dict[str, Any] = {"name": name, "arguments": arguments}
        known = ["type", "name", "server_tool_call", "id", "provider"]
        if part.get("id") is not None:
            if not is_id(part["id"]):
                return None
            fields["id"] = part["id"]
            self.server_types[part["id"]] = kind
        if part.get("provider") is not None:
            if not is_id(part["provider"]):
                return None
            fields["provider"] = part["provider"]
        markers = {"tool_type": kind} if kind != name else None
        fields["extras"] = extras(part, tuple(known), markers)
        return build(ServerToolCallBlock, fields)  # type: ignore[no-any-return]

    def server_result(self, part: dict[str, Any]) -> ServerToolResultBlock | None:
        """A ``server_tool_call_response`` part."""
        payload = part.get("server_tool_call_response")
        call_id = part.get("id")
        if not (
            is_id(call_id) and isinstance(payload, dict) and isinstance(payload.get("type"), str)
        ):
            return None
        kind = payload["type"]
        rest = {key: copy_json(value) for key, value in payload.items() if key != "type"}
        fields: dict[str, Any] = {"tool_call_id": call_id}
        markers: dict[str, Any] = {}
        if (
            "output" in rest
            and set(rest) <= {"output", "status"}
            and (rest.get("status", "success") in ("success", "error"))
        ):
            fields["output"] = rest["output"]
            if "status" in rest:
                fields["status"] = rest["status"]
        else:
            fields["output"] = rest
            markers["flat"] = True
        if kind != self.server_types.get(str(call_id), "server_tool"):
            markers["tool_type"] = kind
        known = ["type", "id", "server_tool_call_response", "provider", "result_id"]
        if part.get("provider") is not None:
            if not is_id(part["provider"]):
                return None
            fields["provider"] = part["provider"]
        if part.get("result_id") is not None:
            if not is_id(part["result_id"]):
                return None
            fields["id"] = part["result_id"]
        fields["extras"] = extras(part, tuple(known), markers)
        return build(ServerToolResultBlock, fields)  # type: ignore[no-any-return]

    # --------------------------------------------------------------------- calls

    def tool_call(self, part: dict[str, Any], synthesized: str) -> ToolCall | InvalidToolCall:
        """A ``tool_call`` part: a call, or an invalid one (arguments not an object)."""
        markers: dict[str, Any] = {}
        call_id = part.get("id")
        if not is_id(call_id):
            markers["synthesized_id"] = True
            if call_id is not None:
                markers["wire_id"] = call_id
            call_id = synthesized
        name = part.get("name")
        arguments = part.get("arguments")
        error: str | None = None
        parsed: Any
        if arguments is None:
            parsed = {}
            markers["no_arguments"] = True
        elif isinstance(arguments, dict):
            parsed = copy_json(arguments)
        elif isinstance(arguments, str):
            parsed, error = parse_arguments(arguments)
            markers["arguments"] = arguments
        else:
            parsed, error = None, "arguments are not a JSON object"
        known = ("type", "id", "name", "arguments")
        if parsed is not None and is_id(name):
            call = build(
                ToolCall,
                {
                    "id": call_id,
                    "name": name,
                    "arguments": parsed,
                    "extras": extras(part, known, markers),
                },
            )
            if call is not None:
                return call  # type: ignore[no-any-return]
            error = "arguments are not a JSON object"
        text = arguments if isinstance(arguments, str) else json_text(arguments)
        if not isinstance(arguments, str):
            markers["arguments_json"] = True
        fields: dict[str, Any] = {"arguments": text, "error": error or "the call has no name"}
        if not markers.get("synthesized_id"):
            fields["id"] = call_id
        else:
            markers.pop("synthesized_id")
        if isinstance(name, str) and name:
            fields["name"] = name
        elif name is not None:
            markers["wire_name"] = name
        fields["extras"] = extras(part, known, markers)
        invalid = build(InvalidToolCall, fields)
        if invalid is None:
            reader.fail(f"a tool call that cannot be read: {describe(part)[:80]}")
        return invalid  # type: ignore[no-any-return]
