"""LangChain -> neutral: ``langchain_core`` messages, blocks and chunks as neutral models.

Everything is kept: what the neutral model cannot name goes to
``extras["langchain"]`` of the message or block (a reply's response metadata:
``response_metadata["langchain"]``). Media in LangChain's other spellings (OpenAI
parts, v0 blocks, ``data:`` URLs) are neutral media blocks that record the spelling;
other content items that are not LangChain v1 standard blocks become ``non_standard``
blocks, unless ``standardize=True`` asks LangChain's translators first. Data carried
under ``"chatschema"`` is restored.
"""

from __future__ import annotations

import contextlib
import json
import mimetypes
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

import pydantic
from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    CompactionBlock,
    ContentBlock,
    NonStandardBlock,
    ResourceBlock,
    ResourceLinkBlock,
    TextBlock,
)
from chatschema_models.message import Message
from langchain_core import messages as lc

from chatschema.errors import ValidationError
from chatschema.interop._common import (
    NEUTRAL_CLASSES,
    ROLES,
    fits,
    nonempty_str,
)
from chatschema.interop.langchain._shared import (
    _DATA_TYPES,
    _LC_PROVIDERS,
    AUDIO_MIME,
    DATA_URL_FORM,
    ESCAPE_KEY,
    FORM,
    GUESSED,
    IMAGE_DETAILS,
    NAMESPACE,
    OPENAI_FORM,
    OPENAI_KEYS,
    OPENAI_MARKERS,
    V0_SOURCES,
    LCContent,
    _derived_finish_reason,
    _error,
    _is_dict,
    _is_index,
    _is_str,
    _same_call,
    audio_format,
    image_type,
    parse_data_url,
)
from chatschema.validation import parse

# --------------------------------------------------------------------------- public API


def from_langchain(
    messages: Iterable[lc.BaseMessage], *, standardize: bool = False
) -> list[Message]:
    """Convert LangChain messages to neutral messages.

    Args:
        messages: ``SystemMessage``, ``HumanMessage``, ``AIMessage`` and
            ``ToolMessage`` objects (their chunk subclasses are read as finished
            messages: use :func:`chunk_from_langchain` for stream chunks).
        standardize: read list content through LangChain's ``content_blocks``, whose
            translators turn provider-native blocks (Anthropic ``thinking`` ...) into
            standard ones; the random ``lc_`` ids they give new blocks are left out.
            Lossy as those translators are; by default (``False``) the content is
            read as it is: images, audio and files in any spelling LangChain
            documents (OpenAI ``image_url`` / ``input_audio`` / ``file`` parts, v0
            ``source_type`` blocks, ``data:`` URLs) are neutral media blocks that go
            back in that spelling, other provider-native blocks become
            ``non_standard`` blocks holding them unchanged.

    Raises:
        ConversionError: an item is not a supported LangChain message, or does not
            fit the neutral model (names its index and lists the problems).
    """
    if not isinstance(messages, Iterable) or isinstance(messages, (str, bytes, Mapping)):
        raise _error(f"expected a list of LangChain messages, got {type(messages).__name__}", None)
    return [
        cast(Message, _message_from_lc(message, index, standardize=standardize))
        for index, message in enumerate(messages)
    ]


def message_from_langchain(message: lc.BaseMessage, *, standardize: bool = False) -> Message:
    """Convert one LangChain message to a neutral message (see :func:`from_langchain`).

    Raises:
        ConversionError: the message is not supported or does not fit the neutral model.
    """
    return cast(Message, _message_from_lc(message, None, standardize=standardize))


def chunk_from_langchain(chunk: lc.AIMessageChunk) -> AssistantMessageChunk:
    """Convert a LangChain ``AIMessageChunk`` to a neutral ``AssistantMessageChunk``.

    ``tool_call_chunks`` become the chunk's tool-call fragments; LangChain's derived
    ``tool_calls`` and ``invalid_tool_calls`` (partial parses) are not carried.

    Raises:
        ConversionError: ``chunk`` is not an ``AIMessageChunk`` or does not fit.
    """
    if not isinstance(chunk, lc.AIMessageChunk):
        raise _error(f"expected an AIMessageChunk, got {type(chunk).__name__}", None)
    return cast(AssistantMessageChunk, _message_from_lc(chunk, None, standardize=False, chunk=True))


# Keys of a message's escaped data that are records, not neutral fields to restore.
_ESCAPE_RECORDS = frozenset(
    {
        "unset",
        "extras",
        "provider",
        "finish_reason",
        "response_metadata",
        "tool_calls",
        "invalid_tool_calls",
        "tool_call_chunks",
    }
)


_TOOL_BLOCK_TYPES = frozenset({"tool_call", "invalid_tool_call", "tool_call_chunk"})


def _merge_namespace(extras: dict[str, Any], leftovers: dict[str, Any]) -> None:
    """Put LangChain leftovers under ``extras["langchain"]`` (merging with what is there)."""
    if not leftovers:
        return
    present = extras.get(NAMESPACE)
    extras[NAMESPACE] = {**present, **leftovers} if isinstance(present, dict) else leftovers


# ------------------------------------------------------------------------------- blocks


class _Reader:
    """Takes a LangChain block (or citation) apart into neutral fields and leftovers."""

    def __init__(self, item: Mapping[str, Any]) -> None:
        self.rest = dict(item)
        self.kind = self.rest.pop("type", None)
        self.out: dict[str, Any] = {}
        self.lc_extras: dict[str, Any] = {}
        extras = self.rest.get("extras")
        if isinstance(extras, dict):
            del self.rest["extras"]
            self.lc_extras = dict(extras)
        escape = self.lc_extras.get(ESCAPE_KEY)
        self.escape: dict[str, Any] = {}
        if isinstance(escape, dict):
            del self.lc_extras[ESCAPE_KEY]
            self.escape = dict(escape)
        self.markers: dict[str, Any] = {}  # the LangChain spelling the block came in
        self.reserved: set[str] = set()  # keys that would read back as such a record

    def take(self, key: str, check: Callable[[Any], bool], to: str | None = None) -> None:
        if key in self.rest and check(self.rest[key]):
            self.out[to or key] = self.rest.pop(key)

    def take_extra(self, key: str, check: Callable[[Any], bool]) -> None:
        if key in self.lc_extras and check(self.lc_extras[key]):
            self.out[key] = self.lc_extras.pop(key)

    def finish(self, kind: str, *, block: bool = True) -> dict[str, Any]:
        self.take("id", nonempty_str)
        if block:
            self.take("index", _is_index)
            is_cache_control = lambda value: fits(value, "CacheControl")  # noqa: E731
            self.take_extra("cache_control", is_cache_control)
            if (
                "cache_control" not in self.out
                and "cache_control" in self.rest
                and "placement" not in self.rest  # where the record of it would go
            ):
                self.take("cache_control", is_cache_control)
                if "cache_control" in self.out:
                    self.rest["placement"] = "top_level"
        for key in [key for key in self.escape if key != "extras"]:
            if key not in self.out:  # neutral fields LangChain has no place for
                self.out[key] = self.escape.pop(key)
        extras: dict[str, Any] = {}
        escaped_extras = self.escape.pop("extras", None)
        if isinstance(escaped_extras, dict):
            extras.update(escaped_extras)
            self.out["extras"] = extras
        elif escaped_extras is not None:
            self.escape["extras"] = escaped_extras
        if self.escape:  # unknown escaped data stays where it was
            self.lc_extras[ESCAPE_KEY] = self.escape
        leftovers = dict(self.rest)
        if self.lc_extras:
            leftovers["extras"] = self.lc_extras
        leftovers.update(self.markers)
        _merge_namespace(extras, leftovers)
        if extras:
            self.out["extras"] = extras
        return {"type": kind, **self.out}


def _annotation_from_lc(item: Any) -> dict[str, Any] | None:
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "citation":
        reader = _Reader(item)
        for key in ("url", "title", "cited_text"):
            reader.take(key, _is_str)
        for key in ("start_index", "end_index"):
            reader.take(key, _is_index)
        data = reader.finish("citation", block=False)
        return data if fits(data, "Citation") else None
    if kind == "non_standard_annotation":
        reader = _Reader(item)
        reader.take("value", _is_dict)
        data = reader.finish("non_standard_annotation", block=False)
        return data if fits(data, "NonStandardAnnotation") else None
    return None


def _read_text(reader: _Reader) -> bool:
    reader.take("text", _is_str)
    annotations = reader.rest.get("annotations")
    if isinstance(annotations, list):
        converted = [_annotation_from_lc(item) for item in annotations]
        if all(item is not None for item in converted):
            reader.out["annotations"] = converted
            del reader.rest["annotations"]
    return "text" in reader.out


def _read_refusal(reader: _Reader) -> bool:
    reader.take("refusal", _is_str, to="text")
    return "text" in reader.out


def _read_reasoning(reader: _Reader) -> bool:
    reader.take("reasoning", _is_str, to="text")
    reader.take_extra("signature", _is_str)
    reader.take_extra("encrypted_content", _is_str)
    return True


def _inline_url(reader: _Reader) -> None:
    """A base64 ``data:`` URL given without a separate ``mime_type``: inline data."""
    url = reader.out.get("url")
    inline = (
        parse_data_url(url) if isinstance(url, str) and "mime_type" not in reader.rest else None
    )
    if inline is not None and "base64" not in reader.out and "file_id" not in reader.out:
        del reader.out["url"]
        reader.out.update(mime_type=inline[0], base64=inline[1])
        reader.markers[FORM] = DATA_URL_FORM


def _guess_image_type(reader: _Reader, kind: str) -> None:
    """Base64 image data without a media type (LangChain asks none): its bytes tell it."""
    encoded = reader.out.get("base64")
    if kind == "image" and isinstance(encoded, str) and "mime_type" not in reader.out:
        mime = image_type(encoded) if "mime_type" not in reader.rest else None
        if mime is not None:
            reader.out["mime_type"] = mime
            reader.markers[GUESSED] = True


def _read_data(reader: _Reader) -> bool:
    for key in ("url", "base64", "file_id"):
        reader.take(key, _is_str)
    if reader.kind != "text-plain":
        _inline_url(reader)
    elif reader.rest.get("source_type") == "text":
        reader.reserved.add("source_type")  # would read back as a v0 text block
    reader.take("mime_type", _is_str)
    _guess_image_type(reader, reader.kind)
    if reader.kind == "text-plain":
        for key in ("text", "title", "context"):
            reader.take(key, _is_str)
    elif reader.kind == "image":
        reader.take_extra("detail", lambda value: value in IMAGE_DETAILS)
    elif reader.kind == "file":
        reader.take_extra("filename", nonempty_str)
    return True


def _read_server_tool_call(reader: _Reader) -> bool:
    reader.take("name", nonempty_str)
    reader.take("args", _is_dict, to="arguments")
    return "name" in reader.out


def _read_server_tool_result(reader: _Reader) -> bool:
    reader.take("tool_call_id", nonempty_str)
    reader.take("status", lambda value: value in ("success", "error"))
    if "output" in reader.rest:
        reader.out["output"] = reader.rest.pop("output")
    return "tool_call_id" in reader.out


def _read_non_standard(reader: _Reader) -> bool:
    reader.take("value", _is_dict)
    return "value" in reader.out


_NEUTRAL_ONLY: dict[str, type[ResourceBlock | ResourceLinkBlock | CompactionBlock]] = {
    "resource": ResourceBlock,
    "resource_link": ResourceLinkBlock,
    "compaction": CompactionBlock,
}
"""Blocks LangChain has no type for: written with the neutral type and field names."""

_FINISHED = frozenset({"type", "id", "index", "extras", "cache_control"})


def _read_neutral(reader: _Reader) -> bool:
    """A resource, resource link or compaction block, read back as it was written."""
    fields = _NEUTRAL_ONLY[reader.kind].model_fields
    for key in [key for key in reader.rest if key in fields and key not in _FINISHED]:
        reader.out[key] = reader.rest.pop(key)
    return True


_READERS: dict[str, Callable[[_Reader], bool]] = {
    "text": _read_text,
    "refusal": _read_refusal,
    "reasoning": _read_reasoning,
    **dict.fromkeys(_DATA_TYPES, _read_data),
    "server_tool_call": _read_server_tool_call,
    "server_tool_result": _read_server_tool_result,
    "non_standard": _read_non_standard,
    **dict.fromkeys(_NEUTRAL_ONLY, _read_neutral),
}


def _read_openai(reader: _Reader) -> str | None:
    """An OpenAI Chat Completions part (``image_url``, ``input_audio``, ``file``).

    Read as the openai_chat codec reads it: a data URL is inline data, ``detail`` and
    ``filename`` are neutral fields; what else the part's inner object holds is kept
    under its key (``extras["langchain"]["image_url"]`` ...).
    """
    inner: dict[str, Any]
    if reader.kind == "image_url":
        image = reader.rest.pop("image_url")
        if isinstance(image, str):  # the bare URL string older LangChain docs show
            url, inner = image, {}
            reader.markers["bare_url"] = True
        else:
            inner = dict(image)
            url = inner.pop("url")
            if inner.get("detail") in IMAGE_DETAILS:
                reader.out["detail"] = inner.pop("detail")
        inline = parse_data_url(url)
        if inline is not None:
            reader.out.update(mime_type=inline[0], base64=inline[1])
        else:
            reader.out["url"] = url
        kind = "image"
    elif reader.kind == "input_audio":
        inner = dict(reader.rest.pop("input_audio"))
        data, fmt = inner.pop("data"), inner.pop("format")
        mime = AUDIO_MIME.get(fmt.lower(), f"audio/{fmt.lower()}")
        if audio_format(mime) != fmt:
            inner["format"] = fmt  # a spelling the media type does not give back
        reader.out.update(base64=data, mime_type=mime)
        kind = "audio"
    else:
        inner = dict(reader.rest.pop("file"))
        if nonempty_str(inner.get("filename")):
            reader.out["filename"] = inner.pop("filename")
        if nonempty_str(inner.get("file_id")):
            reader.out["file_id"] = inner.pop("file_id")
        if nonempty_str(inner.get("file_data")):
            file_data = inner.pop("file_data")
            inline = parse_data_url(file_data)
            if inline is None:  # bare base64: the media type is a guess
                name = reader.out.get("filename")
                guessed = mimetypes.guess_type(name)[0] if name else None
                inline = (guessed or "application/octet-stream", file_data)
                reader.markers["bare_base64"] = True
            reader.out.update(mime_type=inline[0], base64=inline[1])
        kind = "file"
    reader.markers[FORM] = OPENAI_FORM
    if inner:
        reader.markers[OPENAI_KEYS[kind]] = inner
    reader.reserved.update(OPENAI_MARKERS[kind])
    return kind


def _read_v0(reader: _Reader) -> str | None:
    """A LangChain v0 data block; its ``source_type`` stays as a leftover."""
    source = reader.rest.get("source_type")
    kind: str = reader.kind
    if source == "url":
        reader.take("url", _is_str)
        _inline_url(reader)
    elif source == "base64":
        reader.take("data", _is_str, to="base64")
    elif source == "id":  # the id of a stored file, not of the block
        reader.take("id", nonempty_str, to="file_id")
    elif source == "text" and kind == "file":  # the text is in `url`
        reader.take("url", _is_str, to="text")
        kind = "text-plain"
    if not {"url", "base64", "file_id", "text"} & set(reader.out):
        return None
    if source != "id":
        reader.take("mime_type", _is_str)
        _guess_image_type(reader, kind)
    if kind == "file":
        reader.take("filename", nonempty_str)
    elif kind == "image":
        reader.take("detail", lambda value: value in IMAGE_DETAILS)
    return kind


def _media_reader(item: dict[str, Any]) -> Callable[[_Reader], str | None] | None:
    """The reader of an OpenAI part or v0 block, as LangChain's own checks tell them."""
    kind = item.get("type")
    if kind in ("image", "audio", "file") and "source_type" in item:
        return (
            _read_v0 if _is_str(item["source_type"]) and item["source_type"] in V0_SOURCES else None
        )
    inner = item.get(kind) if isinstance(kind, str) and kind in OPENAI_KEYS.values() else None
    if kind == "image_url" and (
        isinstance(inner, str) or (isinstance(inner, dict) and isinstance(inner.get("url"), str))
    ):
        return _read_openai
    if isinstance(inner, dict) and (
        (kind == "input_audio" and _is_str(inner.get("data")) and _is_str(inner.get("format")))
        or (kind == "file" and (_is_str(inner.get("file_data")) or _is_str(inner.get("file_id"))))
    ):
        return _read_openai
    return None


def _block_from_lc(item: Any) -> ContentBlock:
    if isinstance(item, str):
        return TextBlock(text=item, extras={NAMESPACE: {"raw": True}})
    if not isinstance(item, dict):
        raise TypeError(f"content items must be strings or dicts, not {type(item).__name__}")
    kind = item.get("type")
    media = _media_reader(item)
    read = _READERS.get(kind) if isinstance(kind, str) and media is None else None
    reader = _Reader(item)
    neutral_kind = media(reader) if media is not None else None
    if read is not None and read(reader):
        neutral_kind = cast(str, kind)
    # a key of the block that would read back as a marker: the block is kept as it is
    rest = reader.rest
    shadowed = bool((reader.markers.keys() | reader.reserved) & rest.keys()) or (
        neutral_kind in _DATA_TYPES
        and (rest.get(FORM) in (OPENAI_FORM, DATA_URL_FORM) or rest.get(GUESSED) is True)
    )
    if neutral_kind is not None and not shadowed:
        data = reader.finish(neutral_kind)
        try:
            return cast(ContentBlock, parse(data, "ContentBlock"))
        except ValidationError:
            pass  # does not fit a neutral block: kept as it is
    return NonStandardBlock(value=dict(item), extras={NAMESPACE: {"raw": True}})


def _content_from_lc(
    content: LCContent,
    duplicates: Sequence[tuple[str, Mapping[str, Any]]],
    leftovers: dict[str, Any],
) -> str | list[ContentBlock]:
    """Neutral content; v1 tool-call blocks that repeat the message's calls are recorded."""
    if isinstance(content, str):
        return content
    blocks: list[ContentBlock] = []
    records: list[dict[str, Any]] = []
    for position, item in enumerate(content):
        if (
            isinstance(item, dict)
            and item.get("type") in _TOOL_BLOCK_TYPES
            and any(kind == item["type"] and _same_call(item, entry) for kind, entry in duplicates)
        ):
            records.append({"position": position, "block": dict(item)})
            continue
        blocks.append(_block_from_lc(item))
    if records:
        leftovers["tool_call_blocks"] = records
    return blocks


# ----------------------------------------------------------------------------- messages


def _calls_from_lc(
    message: lc.AIMessage, escape: Mapping[str, Any], out: dict[str, Any], chunk: bool
) -> None:
    def escaped(key: str, position: int, call_id: Any) -> dict[str, Any]:
        entries = escape.get(key)
        if isinstance(entries, list) and position < len(entries):
            entry = entries[position]
            if isinstance(entry, dict) and entry.get("id") == call_id:
                return {k: v for k, v in entry.items() if k in ("index", "extras")}
        return {}

    fields_set = message.model_fields_set
    if chunk:
        assert isinstance(message, lc.AIMessageChunk)
        fragments = []
        for position, fragment in enumerate(message.tool_call_chunks):
            item: dict[str, Any] = {}
            leftovers: dict[str, Any] = {}
            for lc_key, key in (("id", "id"), ("name", "name"), ("args", "arguments")):
                value = fragment.get(lc_key)
                if isinstance(value, str) and (value or key != "id"):
                    item[key] = value
                elif value is not None:
                    leftovers[lc_key] = value
            value = fragment.get("index")
            if _is_index(value):
                item["index"] = value
            elif value is not None:
                leftovers["index"] = value
            item.update(escaped("tool_call_chunks", position, item.get("id")))
            if leftovers:
                item["extras"] = dict(item.get("extras", {}))
                _merge_namespace(item["extras"], leftovers)
            fragments.append(item)
        if fragments or "tool_call_chunks" in fields_set:
            out["tool_call_chunks"] = fragments
        return
    calls: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    for position, call in enumerate(message.invalid_tool_calls):
        item = {}
        leftovers = {}
        for lc_key, key in (
            ("id", "id"),
            ("name", "name"),
            ("args", "arguments"),
            ("error", "error"),
        ):
            value = call.get(lc_key)
            if isinstance(value, str) and (value or key != "id"):
                item[key] = value
            elif value is not None:
                leftovers[lc_key] = value
        item.update(escaped("invalid_tool_calls", position, item.get("id")))
        if leftovers:
            item["extras"] = dict(item.get("extras", {}))
            _merge_namespace(item["extras"], leftovers)
        invalid.append(item)
    for position, tool_call in enumerate(message.tool_calls):
        call_id, name, args = tool_call.get("id"), tool_call.get("name"), tool_call.get("args")
        if nonempty_str(call_id) and nonempty_str(name) and isinstance(args, dict):
            item = {"id": call_id, "name": name, "arguments": args}
            item.update(escaped("tool_calls", position, call_id))
            calls.append(item)
        else:  # no neutral ToolCall without an id (or name): kept as an invalid call
            item = {"error": "LangChain tool call without an id or a name"}
            if isinstance(name, str):
                item["name"] = name
            with contextlib.suppress(TypeError, ValueError):
                item["arguments"] = json.dumps(args, ensure_ascii=False)
            item["extras"] = {NAMESPACE: {"tool_call": dict(tool_call)}}
            invalid.append(item)
    if calls or "tool_calls" in fields_set:
        out["tool_calls"] = calls
    if invalid or "invalid_tool_calls" in fields_set:
        out["invalid_tool_calls"] = invalid


def _reply_from_lc(
    message: lc.AIMessage,
    escape: Mapping[str, Any],
    out: dict[str, Any],
    leftovers: dict[str, Any],
    metadata: dict[str, Any],
    list_content: bool,
    standardized: bool,
    chunk: bool,
) -> None:
    _calls_from_lc(message, escape, out, chunk)
    usage = message.usage_metadata
    if usage is not None:
        if fits(usage, "Usage"):
            out["usage"] = dict(usage)
        else:
            leftovers["usage_metadata"] = usage
    derived = _derived_finish_reason(metadata)
    for lc_key, key, check in (
        ("model_name", "model", nonempty_str),
        ("id", "response_id", nonempty_str),
        ("finish_reason", "raw_finish_reason", _is_str),
    ):
        if lc_key in metadata and check(metadata[lc_key]):
            out[key] = metadata.pop(lc_key)
    provider = metadata.get("model_provider")
    if nonempty_str(provider):
        del metadata["model_provider"]
        original = escape.get("provider")
        out["provider"] = (
            original
            if isinstance(original, str) and _LC_PROVIDERS.get(original) == provider
            else provider
        )
    if "finish_reason" in escape:
        value = escape["finish_reason"]
        if value is not None:
            out["finish_reason"] = value
    elif derived is not None:
        out["finish_reason"] = derived
    if list_content and not standardized:
        if metadata.get("output_version") == "v1":
            del metadata["output_version"]  # implied by v1 content
        elif "output_version" not in metadata:
            metadata["output_version"] = None  # LangChain had none: content not v1
    elif list_content:
        metadata.pop("output_version", None)
    response_metadata: dict[str, Any] = {}
    escaped_metadata = escape.get("response_metadata")
    if isinstance(escaped_metadata, dict):
        response_metadata.update(escaped_metadata)
    if metadata:
        _merge_namespace(response_metadata, metadata)
    if response_metadata or isinstance(escaped_metadata, dict):
        out["response_metadata"] = response_metadata
    if chunk:
        assert isinstance(message, lc.AIMessageChunk)
        if message.chunk_position == "last":
            out["chunk_position"] = "last"


def _duplicates(message: lc.BaseMessage, chunk: bool) -> list[tuple[str, Mapping[str, Any]]]:
    if chunk and isinstance(message, lc.AIMessageChunk):
        return [("tool_call_chunk", entry) for entry in message.tool_call_chunks]
    if isinstance(message, lc.AIMessage):
        return [("tool_call", entry) for entry in message.tool_calls] + [
            ("invalid_tool_call", entry) for entry in message.invalid_tool_calls
        ]
    return []


def _role_of(message: Any) -> str | None:
    if isinstance(message, lc.AIMessage):
        return "assistant"
    if isinstance(message, lc.HumanMessage):
        return "user"
    if isinstance(message, lc.SystemMessage):
        return "system"
    if isinstance(message, lc.ToolMessage):
        return "tool"
    return None


_NO_ARTIFACT = object()


# LangChain's translators give the blocks they create `lc_<uuid4>` ids (`ensure_id`).
_INVENTED_ID = re.compile(r"lc_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def _lc_ids(value: Any, found: set[str]) -> set[str]:
    """The strings starting with ``lc_`` anywhere in ``value``."""
    if isinstance(value, str):
        if value.startswith("lc_"):
            found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _lc_ids(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _lc_ids(item, found)
    return found


def _without_invented_ids(blocks: list[dict[str, Any]], message: lc.BaseMessage) -> LCContent:
    """``content_blocks`` without the random ids LangChain gave blocks it translated.

    An id of that form that the message itself holds (in its content or tool calls) is
    kept: the output depends on the message only.
    """
    held = _lc_ids(message.content, set())
    if isinstance(message, lc.AIMessage):
        _lc_ids([message.tool_calls, message.invalid_tool_calls], held)
        if isinstance(message, lc.AIMessageChunk):
            _lc_ids(message.tool_call_chunks, held)
    content: list[str | dict[str, Any]] = []
    for block in blocks:
        block_id = block.get("id")
        if isinstance(block_id, str) and _INVENTED_ID.fullmatch(block_id) and block_id not in held:
            block = {key: value for key, value in block.items() if key != "id"}
        content.append(block)
    return content


def _message_from_lc(
    message: lc.BaseMessage, index: int | None, *, standardize: bool, chunk: bool = False
) -> Message | AssistantMessageChunk:
    role = _role_of(message)
    if role is None:
        raise _error(
            f"unsupported LangChain message type {type(message).__name__}; expected "
            "SystemMessage, HumanMessage, AIMessage, ToolMessage or AIMessageChunk",
            index,
        )
    additional = dict(message.additional_kwargs)
    escape: dict[str, Any] = {}
    if isinstance(additional.get(ESCAPE_KEY), dict):
        escape = dict(additional.pop(ESCAPE_KEY))
    metadata = dict(message.response_metadata)
    out: dict[str, Any] = {"role": role}
    leftovers: dict[str, Any] = {}
    content: LCContent = message.content
    standardized = False
    if standardize and isinstance(content, list):
        try:
            blocks = cast(list[dict[str, Any]], message.content_blocks)
        except (TypeError, ValueError, KeyError, AttributeError) as error:
            raise _error(f"LangChain could not standardize the content: {error!r}", index) from None
        content, standardized = _without_invented_ids(blocks, message), True
    unset = escape.get("unset")
    try:
        converted = _content_from_lc(content, _duplicates(message, chunk), leftovers)
    except (TypeError, pydantic.ValidationError) as error:
        raise _error(f"content: {error}", index) from None
    if not (
        isinstance(unset, list)
        and "content" in unset
        and content == ""
        and role in ("assistant", "tool")
    ):
        out["content"] = converted
    for key in ("id", "name"):
        value = getattr(message, key)
        if nonempty_str(value):
            out[key] = value
        elif value is not None:
            leftovers[key] = value
    if message.model_extra:
        leftovers.update(message.model_extra)
    if isinstance(message, lc.ToolMessage):
        if not nonempty_str(message.tool_call_id):
            raise _error("a ToolMessage needs a non-empty tool_call_id", index)
        out["tool_call_id"] = message.tool_call_id
        if message.status != "success" or "status" in message.model_fields_set:
            out["status"] = message.status
        if message.artifact is not None or "artifact" in message.model_fields_set:
            out["artifact"] = message.artifact
    if isinstance(message, lc.AIMessage):
        _reply_from_lc(
            message,
            escape,
            out,
            leftovers,
            metadata,
            isinstance(content, list),
            standardized,
            chunk,
        )
    elif metadata:
        leftovers["response_metadata"] = metadata
    if additional:
        leftovers["additional_kwargs"] = additional
    extras: dict[str, Any] = {}
    if isinstance(escape.get("extras"), dict):
        extras.update(escape["extras"])
        out["extras"] = extras
    _merge_namespace(extras, leftovers)
    if extras:
        out["extras"] = extras
    target = AssistantMessageChunk if chunk else NEUTRAL_CLASSES[ROLES.index(role)]
    for key, value in escape.items():
        if key not in _ESCAPE_RECORDS and key in target.model_fields and key not in out:
            out[key] = value  # neutral fields LangChain has no place for
    type_name = target.__name__ if chunk else "Message"
    # LangChain's artifact is any Python object for the application, never sent to a
    # model: passed by reference, not read as JSON data.
    artifact = out.pop("artifact", _NO_ARTIFACT)
    try:
        parsed = cast(Message, parse(out, type_name))
    except ValidationError as error:
        raise _error(
            "the LangChain message does not fit the neutral model", index, problems=error.problems
        ) from None
    if artifact is not _NO_ARTIFACT:
        cast(Any, parsed).artifact = artifact  # a ToolMessage
    return parsed
