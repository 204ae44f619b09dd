"""Anthropic Messages API codec: the neutral model to and from ``messages.create``.

``encode`` returns the keyword arguments the official client takes for the
conversation part of a request (``system``, ``messages``, ``tools``,
``tool_choice``)::

    client.messages.create(model=..., max_tokens=..., **encode(conversation))

Decisions (``docs/providers/anthropic.md`` has the full mapping table):

- Leading system messages become the top-level ``system`` (a lone string stays a
  string); later system messages stay in place as ``{"role": "system"}`` messages
  (SDK 2.12 "mid-conversation system messages").
- Consecutive messages of one wire role are merged into one turn. Tool results
  become ``tool_result`` blocks placed first in the user turn that follows the
  calls, user text after them; decoding splits such a turn back into tool
  messages and a user message, and marks messages that started a wire message of
  their own (``extras["anthropic"]["new_message"]``) so the turn re-encodes as it
  came.
- Thinking and redacted thinking are replayed unchanged, in place; tool calls keep
  their position among the content blocks with ``ToolCall.index``.
- Tool-use ids that do not match ``^[a-zA-Z0-9_-]+$`` are rewritten the same way
  on the call and on its result.
- Optional keys are never sent as ``null``; citation titles, which the API
  requires but allows to be ``null``, are always sent.
- Anthropic-defined tools (``{"type": "web_search_20250305", ...}``) decode with
  ``provider="anthropic"``; other formats' hosted tools go through the
  unsupported-content policy. A turn that the policy's drops leave empty is not
  sent; its neighbours of one role merge.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, NoReturn, TypeVar

import pydantic
from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    AudioBlock,
    CacheControl,
    Citation,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    VideoBlock,
)
from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import (
    AutoToolChoice,
    InvalidToolCall,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolCall,
    ToolCallChunk,
    ToolChoice,
    ToolDefinition,
)
from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, Usage
from pydantic import BaseModel
from typing_extensions import Unpack

from chatschema.errors import ConversionError, Problem
from chatschema.providers import _sse
from chatschema.providers._common import (
    EncodeOptions,
    Options,
    application_tools,
    content_blocks,
    decoder,
    extras_of,
    foreign_tool_problems,
    guarded,
    is_foreign_tool,
    joined_text,
    parse_data_url,
    pointer,
    sendable_tools,
    structural_error,
    to_conversation,
    tool_call_as_text,
    tool_result_as_text,
    tools_as_text,
)

__all__ = [
    "IMAGE_MEDIA_TYPES",
    "MAX_CACHE_BREAKPOINTS",
    "MAX_IMAGES",
    "MAX_IMAGE_BASE64_BYTES",
    "MAX_REQUEST_INLINE_BYTES",
    "NAME",
    "check",
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "decode_stream",
    "encode",
]

NAME: Final = "anthropic"

MAX_CACHE_BREAKPOINTS: Final = 4
"""Cache breakpoints allowed per request, over tools, system and messages."""
MAX_IMAGE_BASE64_BYTES: Final = 5 * 1024 * 1024
"""Longest base64 string of one image (the API measures the encoded data)."""
MAX_IMAGES: Final = 100
"""Images per request (200k-context models; some others take 600)."""
MAX_REQUEST_INLINE_BYTES: Final = 32 * 1024 * 1024
"""Request size limit, checked against the inline (base64) data it carries."""
IMAGE_MEDIA_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""Media types of inline images the API takes."""

_SERVER_TOOLS = frozenset(
    {
        "web_search",
        "web_fetch",
        "code_execution",
        "bash_code_execution",
        "text_editor_code_execution",
        "tool_search_tool_regex",
        "tool_search_tool_bm25",
    }
)
# Block types of Messages API requests (SDK 2.12 ContentBlockParam and the
# content of tool results): non-standard blocks of these types are Anthropic's.
_BLOCK_TYPES = frozenset(
    {
        "text",
        "image",
        "document",
        "search_result",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "container_upload",
        "tool_reference",
        "browser_state",
    }
)
# Citation types and the key of their title, which is required but nullable.
_TITLE_KEYS: Final = {
    "char_location": "document_title",
    "page_location": "document_title",
    "content_block_location": "document_title",
    "web_search_result_location": "title",
    "search_result_location": "title",
}
# What a citation of each kind needs besides its text and title (kept in extras).
_CITATION_KEYS: Final = {
    "char_location": ("document_index", "start_char_index", "end_char_index"),
    "page_location": ("document_index", "start_page_number", "end_page_number"),
    "content_block_location": ("document_index", "start_block_index", "end_block_index"),
    "web_search_result_location": ("encrypted_index",),
    "search_result_location": (
        "search_result_index",
        "source",
        "start_block_index",
        "end_block_index",
    ),
}
_CACHE_TTLS: Final = frozenset({"5m", "1h"})
_ID = re.compile(r"[A-Za-z0-9_-]+")
_ID_BAD = re.compile(r"[^A-Za-z0-9_-]")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x20\x7f]+")
_TTL = re.compile(r"[1-9][0-9]*[smh]")
_MISSING: Final = object()

_Model = TypeVar("_Model", bound=BaseModel)

# ============================================================================ errors


def _fail(
    reason: str, *, message_index: int | None = None, block_index: int | None = None
) -> NoReturn:
    raise ConversionError(
        reason, provider=NAME, message_index=message_index, block_index=block_index
    )


def _build(
    cls: type[_Model],
    fields: dict[str, Any],
    message_index: int | None = None,
    block_index: int | None = None,
) -> _Model:
    """Construct a neutral model; a value it refuses becomes a ConversionError."""
    try:
        return cls(**fields)
    except pydantic.ValidationError as error:
        detail = error.errors()[0]
        where = ".".join(str(part) for part in detail["loc"]) or cls.__name__
        _fail(
            f"cannot read as {cls.__name__}: {where}: {detail['msg']}",
            message_index=message_index,
            block_index=block_index,
        )


def _non_standard(raw: dict[str, Any], mi: int | None, bi: int | None) -> NonStandardBlock:
    """An Anthropic block the neutral model has no type for, kept as it came.

    A type the Messages API is not known to take (a newer one) is marked as
    Anthropic's with an ``extras["anthropic"]`` entry, so that the encoder sends
    it back while it refuses other formats' non-standard blocks.
    """
    fields: dict[str, Any] = {"value": raw}
    kind = raw.get("type")
    if not (isinstance(kind, str) and kind in _BLOCK_TYPES):
        fields["extras"] = {NAME: {}}
    return _build(NonStandardBlock, fields, mi, bi)


def _plain(value: Any) -> Any:
    """An official SDK object as JSON data, keeping ``None`` values.

    ``None`` is kept on purpose: the response models default the required but
    nullable citation titles to ``None``, and ``exclude_none`` would drop them.
    The decoders leave out every other ``None``.
    """
    if isinstance(value, BaseModel):
        try:
            return value.model_dump(mode="json", warnings=False)
        except Exception as error:  # pydantic serialization of odd values
            _fail(f"cannot read {type(value).__name__}: {error}")
    return value


def _plain_deep(value: Any) -> Any:
    """``_plain`` at any depth (opaque values such as server tool output)."""
    value = _plain(value)
    if isinstance(value, dict):
        if any(isinstance(item, (BaseModel, dict, list)) for item in value.values()):
            return {key: _plain_deep(item) for key, item in value.items()}
        return value
    if isinstance(value, list):
        return [_plain_deep(item) for item in value]
    return value


def _load(payload: Any) -> Any:
    if isinstance(payload, (str, bytes, bytearray)):
        try:
            return json.loads(payload)
        except ValueError as error:
            _fail(f"not valid JSON: {error}")
    return _plain(payload)


def _is_int(value: Any) -> bool:
    return type(value) is int and value >= 0


# ============================================================================ decode


def _cache_model(value: Any) -> CacheControl | None:
    """A wire cache marker as a neutral CacheControl, if it is one exactly."""
    if (
        isinstance(value, dict)
        and value.get("type") == "ephemeral"
        and set(value) <= {"type", "ttl"}
        and ("ttl" not in value or (isinstance(value["ttl"], str) and _TTL.fullmatch(value["ttl"])))
    ):
        return CacheControl(**value)
    return None


def _rest(
    raw: Mapping[str, Any], known: Iterable[str], fields: dict[str, Any], *, cache: bool = True
) -> None:
    """Put a wire block's other keys in ``fields``: cache marker, then extras.

    ``None`` values are left out (optional keys are never null in requests).
    """
    extras: dict[str, Any] = {}
    skip = set(known)
    for key, value in raw.items():
        if key in skip or value is None:
            continue
        if key == "cache_control" and cache:
            marker = _cache_model(value)
            if marker is not None:
                fields["cache_control"] = marker
                continue
        extras[key] = value
    if extras:
        fields["extras"] = {NAME: extras}


def _citation(raw: Any, mi: int | None, bi: int | None) -> Citation:
    raw = _plain(raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        _fail("a citation must be an object with a type", message_index=mi, block_index=bi)
    kind = raw["type"]
    title_key = _TITLE_KEYS.get(kind)
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
            and _URL.fullmatch(value)
        ):
            fields["url"] = value
        elif value is not None or title_key is None:
            extras[key] = value
    fields["extras"] = {NAME: extras}
    return _build(Citation, fields, mi, bi)


def _text_block(raw: dict[str, Any], mi: int | None, bi: int | None) -> TextBlock:
    text = raw.get("text")
    if not isinstance(text, str):
        _fail("a text block needs a string `text`", message_index=mi, block_index=bi)
    fields: dict[str, Any] = {"text": text}
    citations = raw.get("citations")
    if citations is not None:
        if not isinstance(citations, list):
            _fail("`citations` must be a list", message_index=mi, block_index=bi)
        fields["annotations"] = [_citation(item, mi, bi) for item in citations]
    _rest(raw, ("type", "text", "citations"), fields)
    return _build(TextBlock, fields, mi, bi)


def _source(raw: dict[str, Any]) -> dict[str, Any] | None:
    source = _plain(raw.get("source"))
    return source if isinstance(source, dict) else None


def _image_block(raw: dict[str, Any], mi: int | None, bi: int | None) -> ContentBlock:
    source = _source(raw)
    fields: dict[str, Any] = {}
    if source is not None:
        kind = source.get("type")
        keys = set(source)
        if kind == "base64" and keys == {"type", "media_type", "data"}:
            fields = {"base64": source["data"], "mime_type": source["media_type"]}
        elif kind == "url" and keys == {"type", "url"}:
            fields = {"url": source["url"]}
        elif kind == "file" and keys == {"type", "file_id"}:
            fields = {"file_id": source["file_id"]}
    if not fields:
        return _non_standard(raw, mi, bi)
    _rest(raw, ("type", "source"), fields)
    return _build(ImageBlock, fields, mi, bi)


def _document_block(raw: dict[str, Any], mi: int | None, bi: int | None) -> ContentBlock:
    source = _source(raw)
    if source is None:
        return _non_standard(raw, mi, bi)
    kind = source.get("type")
    keys = set(source)
    title = raw.get("title")
    known = ["type", "source"]
    if kind == "text" and keys == {"type", "media_type", "data"}:
        if source["media_type"] != "text/plain":
            return _non_standard(raw, mi, bi)
        fields: dict[str, Any] = {"text": source["data"]}
        for key in ("title", "context"):
            if isinstance(raw.get(key), str):
                fields[key] = raw[key]
                known.append(key)
        _rest(raw, known, fields)
        return _build(PlainTextBlock, fields, mi, bi)
    if kind == "base64" and keys == {"type", "media_type", "data"}:
        fields = {"base64": source["data"], "mime_type": source["media_type"]}
    elif kind == "url" and keys == {"type", "url"}:
        fields = {"url": source["url"]}
    elif kind == "file" and keys == {"type", "file_id"}:
        fields = {"file_id": source["file_id"]}
    else:
        return _non_standard(raw, mi, bi)
    if isinstance(title, str) and title:
        fields["filename"] = title
        known.append("title")
    _rest(raw, known, fields)
    return _build(FileBlock, fields, mi, bi)


def _server_result_block(raw: dict[str, Any], mi: int, bi: int) -> ContentBlock:
    tool_use_id = raw.get("tool_use_id")
    if not isinstance(tool_use_id, str) or not tool_use_id:
        return _non_standard(raw, mi, bi)
    fields: dict[str, Any] = {"tool_call_id": tool_use_id}
    if "content" in raw:
        output = _plain_deep(raw["content"])
        fields["output"] = output
        failed = raw.get("is_error") is True or (
            isinstance(output, dict)
            and isinstance(output.get("type"), str)
            and output["type"].endswith("_error")
        )
        fields["status"] = "error" if failed else "success"
    extras: dict[str, Any] = {"type": raw["type"]}
    for key, value in raw.items():
        if key in ("type", "tool_use_id", "content") or value is None:
            continue
        if key == "cache_control":
            marker = _cache_model(value)
            if marker is not None:
                fields["cache_control"] = marker
                continue
        extras[key] = value
    fields["extras"] = {NAME: extras}
    return _build(ServerToolResultBlock, fields, mi, bi)


def _server_call_block(raw: dict[str, Any], mi: int, bi: int) -> ContentBlock:
    call_id, name, arguments = raw.get("id"), raw.get("name"), raw.get("input")
    if not (isinstance(call_id, str) and isinstance(name, str) and isinstance(arguments, dict)):
        return _non_standard(raw, mi, bi)
    fields: dict[str, Any] = {"id": call_id, "name": name, "arguments": arguments}
    _rest(raw, ("type", "id", "name", "input"), fields)
    return _build(ServerToolCallBlock, fields, mi, bi)


def _reasoning_block(raw: dict[str, Any], mi: int, bi: int) -> ReasoningBlock:
    fields: dict[str, Any] = {"provider": NAME}
    if raw["type"] == "thinking":
        thinking, signature = raw.get("thinking"), raw.get("signature")
        if not isinstance(thinking, str) or not isinstance(signature, str):
            _fail(
                "a thinking block needs string `thinking` and `signature`",
                message_index=mi,
                block_index=bi,
            )
        fields.update(text=thinking, signature=signature)
        known: tuple[str, ...] = ("type", "thinking", "signature")
    else:
        data = raw.get("data")
        if not isinstance(data, str):
            _fail(
                "a redacted_thinking block needs a string `data`", message_index=mi, block_index=bi
            )
        fields["encrypted_content"] = data
        known = ("type", "data")
    _rest(raw, known, fields, cache=False)
    return _build(ReasoningBlock, fields, mi, bi)


def _user_side_block(raw: Any, mi: int | None, bi: int | None) -> ContentBlock:
    """A block of user content, tool result content or a system prompt."""
    raw = _plain(raw)
    if not isinstance(raw, dict):
        _fail("a content block must be an object", message_index=mi, block_index=bi)
    kind = raw.get("type")
    if kind == "text":
        return _text_block(raw, mi, bi)
    if kind == "image":
        return _image_block(raw, mi, bi)
    if kind == "document":
        return _document_block(raw, mi, bi)
    if not isinstance(kind, str):
        _fail("a content block needs a string `type`", message_index=mi, block_index=bi)
    return _non_standard(raw, mi, bi)


class _Assistant:
    """The decoded content of one assistant wire message."""

    def __init__(self) -> None:
        self.blocks: list[ContentBlock] = []
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []


def _tool_use(raw: dict[str, Any], mi: int, bi: int, index: bool) -> ToolCall | InvalidToolCall:
    call_id, name, arguments = raw.get("id"), raw.get("name"), raw.get("input")
    if not isinstance(call_id, str) or not isinstance(name, str):
        _fail("a tool_use block needs string `id` and `name`", message_index=mi, block_index=bi)
    fields: dict[str, Any] = {"id": call_id, "name": name}
    if index:
        fields["index"] = bi
    _rest(raw, ("type", "id", "name", "input"), fields, cache=False)
    if isinstance(arguments, dict):
        fields["arguments"] = arguments
        return _build(ToolCall, fields, mi, bi)
    fields["arguments"] = json.dumps(arguments, ensure_ascii=False, default=repr)
    # worded as ChunkAccumulator words it, so that a streamed call decodes the same
    fields["error"] = f"arguments must be a JSON object, not {type(arguments).__name__}"
    return _build(InvalidToolCall, fields, mi, bi)


def _interleaved(content: list[Any]) -> bool:
    """Whether another block follows a tool_use block."""
    seen = False
    for item in content:
        kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
        if kind == "tool_use":
            seen = True
        elif seen:
            return True
    return False


def _assistant_block(
    raw: Any, mi: int, bi: int, *, index_call: bool
) -> ContentBlock | ToolCall | InvalidToolCall:
    """One assistant wire block: a content block, a ToolCall or an InvalidToolCall."""
    raw = _plain(raw)
    if not isinstance(raw, dict):
        _fail("a content block must be an object", message_index=mi, block_index=bi)
    kind = raw.get("type")
    if kind == "tool_use":
        return _tool_use(raw, mi, bi, index_call)
    if kind == "text":
        return _text_block(raw, mi, bi)
    if kind in ("thinking", "redacted_thinking"):
        return _reasoning_block(raw, mi, bi)
    if kind == "server_tool_use":
        return _server_call_block(raw, mi, bi)
    if isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result":
        return _server_result_block(raw, mi, bi)
    if isinstance(kind, str):
        return _non_standard(raw, mi, bi)
    _fail("a content block needs a string `type`", message_index=mi, block_index=bi)


def _assistant_content(content: list[Any], mi: int, *, positions: bool) -> _Assistant:
    """Decode assistant content blocks.

    Args:
        content: the wire blocks.
        mi: message index for errors.
        positions: set every call's ``index`` (responses); otherwise calls get an
            ``index`` only when content follows a call, which is when the encoder
            needs it to put them back in place. Blocks never get one: a finished
            message's blocks are in order, as a streamed one's are.
    """
    into = _Assistant()
    index_calls = positions or _interleaved(content)
    for bi, item in enumerate(content):
        decoded = _assistant_block(item, mi, bi, index_call=index_calls)
        if isinstance(decoded, ToolCall):
            into.calls.append(decoded)
        elif isinstance(decoded, InvalidToolCall):
            into.invalid.append(decoded)
        else:
            into.blocks.append(decoded)
    return into


def _assistant_message(into: _Assistant, mi: int, **more: Any) -> AssistantMessage:
    fields: dict[str, Any] = dict(more)
    if into.blocks or not (into.calls or into.invalid):
        fields["content"] = into.blocks
    if into.calls:
        fields["tool_calls"] = into.calls
    if into.invalid:
        fields["invalid_tool_calls"] = into.invalid
    return _build(AssistantMessage, fields, mi)


class _Decoder:
    """Wire messages to neutral ones, remembering tool names by call id."""

    def __init__(self) -> None:
        self.tool_names: dict[str, str] = {}
        self.messages: list[Message] = []
        self.leading = True  # no message but system ones decoded yet

    def system(self, value: Any, mi: int | None, *, in_messages: bool = False) -> None:
        fields: dict[str, Any] = {}
        if isinstance(value, str):
            fields["content"] = value
        elif isinstance(value, list):
            fields["content"] = [_user_side_block(item, mi, bi) for bi, item in enumerate(value)]
        else:
            _fail("system content must be a string or a list of blocks", message_index=mi)
        if in_messages:
            fields["extras"] = {NAME: {"in_messages": True}}
        self.messages.append(_build(SystemMessage, fields, mi))

    def message(self, raw: Any, mi: int, previous_role: str | None) -> str:
        raw = _plain(raw)
        if not isinstance(raw, dict):
            _fail("a message must be an object", message_index=mi)
        role = raw.get("role", "assistant" if raw.get("type") == "message" else None)
        content = _plain(raw.get("content", _MISSING))
        if not isinstance(content, (str, list)):
            _fail("message content must be a string or a list of blocks", message_index=mi)
        start = len(self.messages)
        if role == "system":
            self.system(content, mi, in_messages=self.leading)
            return "system"
        self.leading = False
        if role == "user":
            self.user(content, mi)
        elif role == "assistant":
            self.assistant(content, mi)
        else:
            _fail(f"unknown role {role!r}", message_index=mi)
        if role == previous_role and len(self.messages) > start:
            first = self.messages[start]
            extras = dict(first.extras or {})
            extras[NAME] = {**extras.get(NAME, {}), "new_message": True}
            self.messages[start] = first.model_copy(update={"extras": extras})
        return str(role)

    def assistant(self, content: str | list[Any], mi: int) -> None:
        if isinstance(content, str):
            self.messages.append(AssistantMessage(content=content))
            return
        into = _assistant_content(content, mi, positions=False)
        for call in into.calls:
            self.tool_names[call.id] = call.name
        self.messages.append(_assistant_message(into, mi))

    def user(self, content: str | list[Any], mi: int) -> None:
        if isinstance(content, str):
            self.messages.append(UserMessage(content=content))
            return
        blocks: list[ContentBlock] = []
        results: list[Message] = []
        for bi, item in enumerate(content):
            raw = _plain(item)
            if isinstance(raw, dict) and raw.get("type") == "tool_result":
                results.append(self.tool_result(raw, mi, bi))
            else:
                blocks.append(_user_side_block(raw, mi, bi))
        self.messages.extend(results)
        if blocks or not results:
            self.messages.append(UserMessage(content=blocks))

    def tool_result(self, raw: dict[str, Any], mi: int, bi: int) -> ToolMessage:
        call_id = raw.get("tool_use_id")
        if not isinstance(call_id, str):
            _fail(
                "a tool_result block needs a string `tool_use_id`", message_index=mi, block_index=bi
            )
        fields: dict[str, Any] = {"tool_call_id": call_id}
        extras: dict[str, Any] = {}
        content = _plain(raw.get("content"))
        if isinstance(content, str):
            fields["content"] = content
            if content == "":
                extras["content"] = ""
        elif isinstance(content, list):
            fields["content"] = [_user_side_block(item, mi, bi) for item in content]
        elif content is not None:
            _fail(
                "tool_result content must be a string or a list", message_index=mi, block_index=bi
            )
        is_error = raw.get("is_error")
        if is_error is True:
            fields["status"] = "error"
        elif is_error is False:
            extras["is_error"] = False
        elif is_error is not None:
            _fail("tool_result `is_error` must be a boolean", message_index=mi, block_index=bi)
        for key, value in raw.items():
            if key not in ("type", "tool_use_id", "content", "is_error") and value is not None:
                extras[key] = value
        name = self.tool_names.get(call_id)
        if name:
            fields["name"] = name
        if extras:
            fields["extras"] = {NAME: extras}
        return _build(ToolMessage, fields, mi, bi)


def _tool_definition(raw: Any, index: int) -> ToolDefinition:
    raw = _plain(raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        _fail(f"tools[{index}] must be an object with a string `name`")
    schema = raw.get("input_schema")
    fields: dict[str, Any] = {"name": raw["name"]}
    extras: dict[str, Any] = {}
    if schema is not None and raw.get("type") in (None, "custom"):
        if not isinstance(schema, dict):
            _fail(f"tools[{index}].input_schema must be an object")
        fields["parameters"] = schema
        for key, value in raw.items():
            if key in ("name", "input_schema") or value is None:
                continue
            if key == "description" and isinstance(value, str):
                fields["description"] = value
            elif key == "strict" and isinstance(value, bool):
                fields["strict"] = value
            else:
                extras[key] = value
    else:  # a server or built-in tool: everything but the name is Anthropic's
        fields["parameters"] = {}
        extras = {k: v for k, v in raw.items() if k != "name" and v is not None}
        if isinstance(raw.get("type"), str) and raw["type"] != "custom":
            fields["provider"] = NAME  # hosted: only Anthropic knows what it is
    if extras:
        fields["extras"] = {NAME: extras}
    try:
        return ToolDefinition(**fields)
    except pydantic.ValidationError as error:
        _fail(f"tools[{index}]: {error.errors()[0]['msg']}")


def _tool_choice(raw: Any) -> ToolChoice:
    raw = _plain(raw)
    if not isinstance(raw, dict):
        _fail("tool_choice must be an object")
    kind = raw.get("type")
    disable = raw.get("disable_parallel_tool_use")
    if disable is not None and not isinstance(disable, bool):
        _fail("tool_choice.disable_parallel_tool_use must be a boolean")
    extra = set(raw) - {"type", "disable_parallel_tool_use", "name"}
    if extra:
        _fail(f"tool_choice has keys the neutral model cannot carry: {sorted(extra)}")
    if kind == "auto":
        return AutoToolChoice() if disable is None else AutoToolChoice(parallel=not disable)
    if kind == "any":
        return RequiredToolChoice() if disable is None else RequiredToolChoice(parallel=not disable)
    if kind == "none":
        return NoneToolChoice()
    if kind == "tool" and isinstance(raw.get("name"), str):
        try:
            if disable is None:
                return NamedToolChoice(name=raw["name"])
            return NamedToolChoice(name=raw["name"], parallel=not disable)
        except pydantic.ValidationError as error:
            _fail(f"tool_choice: {error.errors()[0]['msg']}")
    _fail(f"unknown tool_choice {raw!r}")


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """Read an Anthropic request history into a neutral conversation.

    Args:
        payload: what :func:`encode` returns (``system``, ``messages``, ``tools``,
            ``tool_choice``; other request parameters are ignored), a bare list
            of messages, one message, JSON text of these, or official SDK objects
            (``anthropic.types.Message`` responses in a history included).

    Raises:
        ConversionError: naming the message and block of anything malformed.
    """
    data = _load(payload)
    decoder = _Decoder()
    fields: dict[str, Any] = {}
    if isinstance(data, Mapping) and "messages" in data:
        if data.get("system") is not None:
            decoder.system(_plain(data["system"]), None)
        messages = _plain(data["messages"])
        tools = _plain(data.get("tools"))
        if tools is not None:
            if not isinstance(tools, list):
                _fail("tools must be a list")
            fields["tools"] = [_tool_definition(tool, k) for k, tool in enumerate(tools)]
        if data.get("tool_choice") is not None:
            fields["tool_choice"] = _tool_choice(data["tool_choice"])
    elif isinstance(data, Mapping) and ("role" in data or data.get("type") == "message"):
        messages = [data]
    else:
        messages = data
    if not isinstance(messages, (list, tuple)):
        _fail("expected a list of messages, a message, or a request with `messages`")
    previous: str | None = None
    for mi, message in enumerate(messages):
        previous = decoder.message(message, mi, previous)
    fields["messages"] = decoder.messages
    return _build(Conversation, fields)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of :func:`decode_conversation` (system prompt first)."""
    return decode_conversation(payload).messages


_FINISH_REASONS: Final = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "pause_turn": "paused",
    "refusal": "content_filter",
}


_CACHE_COUNTS: Final = {
    "cache_read_input_tokens": "cache_read",
    "cache_creation_input_tokens": "cache_creation",
}


def _usage(raw: Any, metadata: dict[str, Any]) -> Usage:
    raw = _plain(raw)
    if not isinstance(raw, dict):
        _fail("usage must be an object")
    counts: dict[str, int] = {}
    for key in ("input_tokens", "output_tokens"):
        value = raw.get(key, 0)
        if not _is_int(value):
            _fail(f"usage.{key} must be a non-negative integer")
        counts[key] = value
    input_details: dict[str, int] = {}
    output_details: dict[str, int] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        if value is None or key in counts:
            continue
        if key in _CACHE_COUNTS:
            if not _is_int(value):
                _fail(f"usage.{key} must be a non-negative integer")
            input_details[_CACHE_COUNTS[key]] = value
        elif key == "cache_creation" and isinstance(value, dict):
            for name, count in value.items():  # ephemeral_5m / ephemeral_1h input tokens
                if isinstance(name, str) and _is_int(count):
                    input_details[name] = count
        elif key == "output_tokens_details" and _is_int(
            (value if isinstance(value, dict) else {}).get("thinking_tokens")
        ):
            output_details["reasoning"] = value["thinking_tokens"]
        else:
            extra[key] = value
    prompt = (
        counts["input_tokens"]
        + input_details.get("cache_read", 0)
        + input_details.get("cache_creation", 0)
    )
    fields: dict[str, Any] = {
        "input_tokens": prompt,
        "output_tokens": counts["output_tokens"],
        "total_tokens": prompt + counts["output_tokens"],
    }
    if input_details:
        fields["input_token_details"] = _build(InputTokenDetails, input_details)
    if output_details:
        fields["output_token_details"] = _build(OutputTokenDetails, output_details)
    metadata.update(extra)
    return _build(Usage, fields)


def _response_fields(
    data: Mapping[str, Any], fields: dict[str, Any], metadata: dict[str, Any]
) -> None:
    """Put a response's top-level keys into message fields and metadata.

    All keys but ``content``, ``role``, ``type`` and ``usage``; a stream's
    ``message_start`` message and ``message_delta`` delta go through here too.
    """
    for key, value in data.items():
        if key in ("content", "role", "type", "usage"):
            continue
        if key == "id" and isinstance(value, str) and value:
            fields["response_id"] = value
        elif key == "model" and isinstance(value, str) and value:
            fields["model"] = value
        elif key == "stop_reason":
            if isinstance(value, str):
                fields["raw_finish_reason"] = value
                fields["finish_reason"] = _FINISH_REASONS.get(value, "other")
        elif key == "stop_sequence" or value is not None:
            metadata[key] = _plain_deep(value)


@decoder(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """Read a Messages API response (``anthropic.types.Message`` or its JSON).

    Tool calls get ``index`` = their position in the response's ``content`` (the
    other blocks stay in order, without one, as :func:`decode_stream` assembles
    them); ``usage.input_tokens`` counts cache reads and writes too;
    ``stop_sequence``, ``stop_details``, ``container``, the service tier and
    server-tool request counts go to ``response_metadata["anthropic"]``.

    Raises:
        ConversionError: for anything that is not a Messages API response.
    """
    data = _load(payload)
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        _fail("expected a Messages API response with a `content` list")
    if data.get("role", "assistant") != "assistant":
        _fail(f"a response has role 'assistant', not {data.get('role')!r}")
    into = _assistant_content(data["content"], 0, positions=True)
    fields: dict[str, Any] = {"provider": NAME}
    metadata: dict[str, Any] = {}
    _response_fields(data, fields, metadata)
    if data.get("usage") is not None:
        fields["usage"] = _usage(data["usage"], metadata)
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return _assistant_message(into, 0, **fields)


# ============================================================================ stream

# Delta types and the kind of block each applies to; other delta types are ignored.
_DELTAS: Final = {
    "text_delta": ("text", "text"),
    "citations_delta": ("text", "citation"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("thinking", "signature"),
    "input_json_delta": ("input", "partial_json"),
}


class _Open:
    """A content block of the stream: its position and what its deltas need.

    ``kind`` is ``text``, ``thinking``, ``tool_use``, ``input`` (a block whose
    ``input`` streams as JSON but that is not a client tool call, such as
    ``server_tool_use``: kept until ``content_block_stop``, then decoded whole) or
    ``whole`` (a block that came complete).
    """

    __slots__ = ("kind", "parts", "position", "raw", "start_input", "stopped", "streamed", "type")

    def __init__(self, position: int, kind: str, type_: str) -> None:
        self.position = position
        self.kind = kind
        self.type = type_  # the wire block type, for error messages
        self.raw: dict[str, Any] | None = None  # an ``input`` block's start
        self.parts: list[str] = []  # an ``input`` block's JSON fragments
        self.start_input: str | None = None  # a tool_use's non-empty start input, as JSON
        self.streamed = False  # a tool_use got a non-empty input_json_delta
        self.stopped = False


def _stream_fail(reason: str, block: int | None = None) -> NoReturn:
    raise ConversionError(f"stream: {reason}", provider=NAME, block_index=block)


def _chunk(fields: dict[str, Any]) -> AssistantMessageChunk:
    return _build(AssistantMessageChunk, fields)


class _Stream:
    """The state of one stream: the blocks by wire index and the usage so far."""

    def __init__(self) -> None:
        self.started = False
        self.blocks: dict[int, _Open] = {}
        self.usage: dict[str, Any] = {}  # the running raw usage (counts replace)
        self.emptied = False  # content=[] sent for a reply without any block

    def empty(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Mark a reply without any block as having empty content, as decode_response does.

        Done at its end (message_delta, message_stop): until then a tool_use may
        still come, and a reply of only tool calls has no content at all.
        """
        if not self.blocks and not self.emptied:
            self.emptied = True
            fields["content"] = []
        return fields

    def event(self, event: Any) -> Iterator[AssistantMessageChunk]:
        if isinstance(event, BaseModel) and getattr(event, "type", None) not in _ALL_EVENTS:
            # e.g. the ``text`` / ``input_json`` events of ``client.messages.stream()``,
            # whose snapshots are not dumped: that would be quadratic
            return
        data = _load(event)
        if not isinstance(data, dict):
            _stream_fail(f"an event must be an object, not {type(data).__name__}")
        kind = data.get("type")
        if not isinstance(kind, str):
            _stream_fail("an event needs a string `type`")
        if kind == "error":
            self.error(data)
        if kind == "message_start":
            if self.started:
                _stream_fail("a second message_start")
            self.started = True
            yield from self.message_start(data)
            return
        if kind not in _EVENTS:
            return  # ping, and event types newer than this codec
        if not self.started:
            _stream_fail(f"{kind} before message_start")
        if kind == "content_block_start":
            index = _event_index(data)
            block = _plain(data.get("content_block"))
            if not isinstance(block, dict):
                _stream_fail("content_block_start needs a `content_block` object")
            yield from self.start(index, block)
        elif kind == "content_block_delta":
            yield from self.delta(data)
        elif kind == "content_block_stop":
            yield from self.stop(_event_index(data))
        elif kind == "message_delta":
            yield from self.message_delta(data)
        else:  # message_stop
            yield _chunk(self.empty({"chunk_position": "last"}))

    @staticmethod
    def error(data: dict[str, Any]) -> NoReturn:
        error = _plain(data.get("error"))
        kind = error.get("type") if isinstance(error, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        detail = message if isinstance(message, str) else json.dumps(error, default=repr)
        prefix = f"{kind}: " if isinstance(kind, str) else ""
        raise ConversionError(f"stream error event: {prefix}{detail}", provider=NAME)

    def message_start(self, data: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        message = _plain(data.get("message"))
        if not isinstance(message, dict):
            _stream_fail("message_start needs a `message` object")
        if message.get("role", "assistant") != "assistant":
            _stream_fail(f"a response has role 'assistant', not {message.get('role')!r}")
        fields: dict[str, Any] = {"provider": NAME}
        metadata: dict[str, Any] = {}
        _response_fields(message, fields, metadata)
        usage = _plain(message.get("usage"))
        if usage is not None:
            if not isinstance(usage, dict):
                _stream_fail("message_start usage must be an object")
            self.usage = dict(usage)
            fields["usage"] = _usage(self.usage, metadata)
            fields["usage_mode"] = "cumulative"
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        yield _chunk(fields)
        content = _plain(message.get("content", []))
        if not isinstance(content, list):
            _stream_fail("message_start content must be a list")
        for index, block in enumerate(content):  # normally none: blocks come as events
            yield from self.start(index, _plain(block))
            yield from self.stop(index)

    def start(self, index: int, raw: Any) -> Iterator[AssistantMessageChunk]:
        if index in self.blocks:
            _stream_fail(f"content_block_start for block index {index} twice", index)
        position = len(self.blocks)
        if not isinstance(raw, dict):
            _stream_fail("a content block must be an object", position)
        kind = raw.get("type")
        if kind == "tool_use":
            state = self.blocks[index] = _Open(position, "tool_use", kind)
            arguments = raw.get("input")
            start = {key: value for key, value in raw.items() if key != "input"}
            call = _tool_use({**start, "input": {}}, 0, position, True)
            assert isinstance(call, ToolCall)
            if arguments is not None and arguments != {}:  # input that came whole
                try:
                    state.start_input = json.dumps(_plain_deep(arguments), ensure_ascii=False)
                except (TypeError, ValueError) as error:
                    _stream_fail(f"tool_use input is not JSON data: {error}", position)
            fragment: dict[str, Any] = {"index": position, "id": call.id, "name": call.name}
            if call.extras:
                fragment["extras"] = call.extras
            yield _chunk({"tool_call_chunks": [_build(ToolCallChunk, fragment, 0, position)]})
            return
        if "input" in raw and isinstance(kind, str):
            state = self.blocks[index] = _Open(position, "input", kind)
            state.raw = raw
            return  # decoded whole at content_block_stop
        block = _assistant_block(raw, 0, position, index_call=True)
        assert not isinstance(block, (ToolCall, InvalidToolCall))
        kind = str(kind)
        self.blocks[index] = _Open(position, kind if kind in _DELTA_KINDS else "whole", kind)
        yield _chunk({"content": [block.model_copy(update={"index": position})]})

    def delta(self, data: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        index = _event_index(data)
        delta = _plain(data.get("delta"))
        if not isinstance(delta, dict) or not isinstance(delta.get("type"), str):
            _stream_fail("content_block_delta needs a `delta` object with a string `type`")
        spec = _DELTAS.get(delta["type"])
        if spec is None:
            return  # a delta type newer than this codec
        state = self.blocks.get(index)
        if state is None or state.stopped:
            _stream_fail(f"{delta['type']} for block index {index}, which is not open")
        position = state.position
        wanted, key = spec
        value: Any = delta.get(key)
        if key != "citation" and not isinstance(value, str):
            _stream_fail(f"{delta['type']} needs a string `{key}`", position)
        if wanted == "input":
            if state.kind == "tool_use":
                if value:
                    state.streamed = True
                    fragment = ToolCallChunk(index=position, arguments=value)
                    yield AssistantMessageChunk(tool_call_chunks=[fragment])
                return
            if state.kind == "input":
                state.parts.append(value)
                return
        elif state.kind == wanted:
            block: ContentBlock
            if key == "text":
                block = TextBlock(text=value, index=position)
            elif key == "citation":
                citation = _citation(value, 0, position)
                block = TextBlock(text="", annotations=[citation], index=position)
            elif key == "thinking":
                block = ReasoningBlock(text=value, index=position)
            else:
                block = ReasoningBlock(signature=value, index=position)
            yield AssistantMessageChunk(content=[block])
            return
        _stream_fail(f"{delta['type']} for block index {index}, a {state.type} block", position)

    def stop(self, index: int) -> Iterator[AssistantMessageChunk]:
        state = self.blocks.get(index)
        if state is None or state.stopped:
            _stream_fail(f"content_block_stop for block index {index}, which is not open")
        state.stopped = True
        position = state.position
        if state.kind == "tool_use" and state.start_input is not None and not state.streamed:
            fragment = ToolCallChunk(index=position, arguments=state.start_input)
            yield AssistantMessageChunk(tool_call_chunks=[fragment])
        elif state.kind == "input":
            raw, text = state.raw, "".join(state.parts)
            assert raw is not None
            state.raw, state.parts = None, []
            if text:  # no fragments, or only empty ones: the start's input stands
                try:
                    raw = {**raw, "input": json.loads(text)}
                except ValueError as error:
                    _stream_fail(f"{raw['type']} input is not valid JSON: {error}", position)
                except RecursionError:
                    _stream_fail(f"{raw['type']} input is nested too deeply to read", position)
            block = _assistant_block(raw, 0, position, index_call=True)
            assert not isinstance(block, (ToolCall, InvalidToolCall))
            yield _chunk({"content": [block.model_copy(update={"index": position})]})

    def message_delta(self, data: dict[str, Any]) -> Iterator[AssistantMessageChunk]:
        delta = _plain(data.get("delta", {}))
        if not isinstance(delta, dict):
            _stream_fail("message_delta needs a `delta` object")
        fields: dict[str, Any] = {}
        metadata: dict[str, Any] = {}
        _response_fields(delta, fields, metadata)
        usage = _plain(data.get("usage"))
        if usage is not None:
            if not isinstance(usage, dict):
                _stream_fail("message_delta usage must be an object")
            # running totals: each count replaces the one before; absent ones stay
            self.usage.update((key, value) for key, value in usage.items() if value is not None)
            fields["usage"] = _usage(self.usage, metadata)
            fields["usage_mode"] = "cumulative"
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        if self.empty(fields):
            yield _chunk(fields)


_EVENTS: Final = frozenset(
    {
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
)


_ALL_EVENTS: Final = _EVENTS | {"message_start", "error"}
_DELTA_KINDS: Final = frozenset({"text", "thinking"})  # block types that take deltas


def _event_index(data: dict[str, Any]) -> int:
    index: Any = data.get("index")
    if not _is_int(index):
        _stream_fail(f"{data['type']} needs a non-negative integer `index`")
    return int(index)


def decode_stream(events: Iterable[Any]) -> Iterator[AssistantMessageChunk]:
    """Read a streamed Messages API response as chunks, lazily, as events arrive.

    Args:
        events: the stream's events as parsed JSON, as the official SDK's
            ``RawMessageStreamEvent`` objects, or the raw SSE body as bytes or
            str pieces cut anywhere.

    Yields:
        ``AssistantMessageChunk``s; assembled (``ChunkAccumulator``,
        ``merge_chunks`` or ``+``), they give what :func:`decode_response` gives
        for the complete response. Blocks carry ``index`` = their position in
        ``content``; ``tool_use`` input arrives as raw ``tool_call_chunks``
        fragments with the same ``index``; ``server_tool_use`` (and other blocks
        with a streamed ``input``) come whole at ``content_block_stop``; usage is
        cumulative (``usage_mode="cumulative"``); ``message_stop`` gives the
        chunk with ``chunk_position="last"``.

    Raises:
        ConversionError: for an ``error`` event (``overloaded_error`` ...), with
            its type and message, and for malformed events. ``ping`` and event
            or delta types newer than this codec are ignored.
    """
    state = _Stream()
    for event in _sse.events(events, provider=NAME):
        yield from state.event(event)


# ============================================================================ encode


def _leading_system(messages: Sequence[Message]) -> int:
    """How many messages at the start go to the top-level ``system``."""
    count = 0
    for message in messages:
        if not isinstance(message, SystemMessage) or extras_of(message, NAME).get("in_messages"):
            break
        count += 1
    return count


def _turns(
    messages: Sequence[Message], start: int, skipped: set[int] | frozenset[int] = frozenset()
) -> list[tuple[str, list[int]]]:
    """Group messages into wire messages: ``(role, message indexes)``.

    ``skipped`` messages are left out, and the messages on either side of them
    merge when they have one role (whatever ``new_message`` says), which keeps
    the roles alternating.
    """
    turns: list[tuple[str, list[int]]] = []
    gap = False
    for index in range(start, len(messages)):
        if index in skipped:
            gap = True
            continue
        message = messages[index]
        if isinstance(message, SystemMessage):
            turns.append(("system", [index]))
        else:
            role = "assistant" if isinstance(message, AssistantMessage) else "user"
            new = not gap and message.extras and extras_of(message, NAME).get("new_message")
            if turns and turns[-1][0] == role and not new:
                turns[-1][1].append(index)
            else:
                turns.append((role, [index]))
        gap = False
    return turns


def _empty_turn(wire: dict[str, Any]) -> bool:
    content = wire["content"]
    return not content if isinstance(content, list) else _blank(content)


def _tool_ids(messages: Sequence[Message]) -> dict[str, str]:
    """Wire ids for tool-use ids the API would refuse (``^[a-zA-Z0-9_-]+$``).

    The same id always maps to the same wire id within a request, so a call and
    its result stay paired; a short hash of the original keeps distinct ids
    distinct, and the rare clash with another id takes a longer hash.
    """
    seen: dict[str, None] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                seen[call.id] = None
        elif isinstance(message, ToolMessage):
            seen[message.tool_call_id] = None
    bad = [call_id for call_id in seen if not _ID.fullmatch(call_id)]
    if not bad:
        return {}
    taken = {call_id for call_id in seen if _ID.fullmatch(call_id)}
    mapping: dict[str, str] = {}
    for call_id in bad:
        base = _ID_BAD.sub("_", call_id)[:48]
        digest = hashlib.sha256(call_id.encode("utf-8")).hexdigest()
        candidate = f"{base}_{digest[:8]}"
        size, extra = 8, 0
        while candidate in taken:
            size = min(size * 2, 64)
            extra += size == 64
            candidate = f"{base}_{digest[:size]}" + (f"_{extra}" if extra else "")
        taken.add(candidate)
        mapping[call_id] = candidate
    return mapping


def _as_system(message: Message) -> SystemMessage:
    assert isinstance(message, SystemMessage)
    return message


def _cache_wire(marker: CacheControl) -> dict[str, Any]:
    wire: dict[str, Any] = {"type": marker.type}
    if marker.ttl is not None:
        wire["ttl"] = marker.ttl
    return wire


def _blank(text: str) -> bool:
    return not text.strip()


class _Encoder:
    """Neutral conversation to the request's message part, in one pass."""

    def __init__(self, conversation: Conversation, options: Options) -> None:
        self.conversation = conversation
        self.options = options
        self.parts = options.content_format == "parts"
        self.string = options.content_format == "string"
        native = options.native_tools
        self.ids = _tool_ids(conversation.messages) if native else {}
        self.dropped = 0  # content left out by unsupported="drop" so far

    # ------------------------------------------------------------------ helpers

    def finish(
        self, wire: dict[str, Any], model: Any, marker: CacheControl | None = None
    ) -> dict[str, Any]:
        """Add the cache marker and the model's Anthropic extras to a wire dict."""
        cache = self.options.prompt_cache
        if marker is not None and cache:
            wire["cache_control"] = _cache_wire(marker)
        for key, value in extras_of(model, NAME).items():
            if key not in wire and (cache or key != "cache_control"):
                wire[key] = value
        return wire

    def unsupported(self, what: str, mi: int, bi: int | None) -> dict[str, Any] | None:
        text = self.options.unsupported_content(what, message_index=mi, block_index=bi)
        if text is None:
            self.dropped += 1
            return None
        return {"type": "text", "text": text}

    def text(self, block: TextBlock | RefusalBlock) -> dict[str, Any] | None:
        if _blank(block.text):
            return None  # the API refuses empty and whitespace-only text blocks
        wire: dict[str, Any] = {"type": "text", "text": block.text}
        if isinstance(block, TextBlock) and block.annotations is not None:
            citations = [
                citation
                for citation in map(_citation_wire, block.annotations)
                if citation is not None
            ]
            if citations or not block.annotations:
                wire["citations"] = citations
        return self.finish(wire, block, block.cache_control)

    def non_standard(self, block: NonStandardBlock, mi: int, bi: int) -> dict[str, Any] | None:
        kind = block.value.get("type")
        ours = isinstance(kind, str) and (kind in _BLOCK_TYPES or NAME in (block.extras or {}))
        if self.string or not ours:
            return self.unsupported(f"non-standard block {kind!r}", mi, bi)
        wire = dict(block.value)
        if not self.options.prompt_cache:
            wire.pop("cache_control", None)
        elif block.cache_control is not None:
            wire["cache_control"] = _cache_wire(block.cache_control)
        return wire

    # -------------------------------------------------------------- user side

    def image(self, block: ImageBlock, mi: int, bi: int) -> dict[str, Any] | None:
        if not self.options.vision:
            return self.unsupported("image (vision is off)", mi, bi)
        source: dict[str, Any]
        inline = (
            (block.mime_type, block.base64)
            if block.base64 is not None
            else parse_data_url(block.url)
            if block.url is not None
            else None
        )
        if inline is not None:
            source = {"type": "base64", "media_type": inline[0], "data": inline[1]}
        elif block.url is not None:
            source = {"type": "url", "url": block.url}
        else:
            source = {"type": "file", "file_id": block.file_id}
        return self.finish({"type": "image", "source": source}, block, block.cache_control)

    def document(
        self, block: FileBlock | PlainTextBlock, mi: int, bi: int
    ) -> dict[str, Any] | None:
        wire: dict[str, Any] = {"type": "document"}
        if isinstance(block, PlainTextBlock):
            if block.text is not None:
                wire["source"] = {"type": "text", "media_type": "text/plain", "data": block.text}
            elif block.file_id is not None:
                wire["source"] = {"type": "file", "file_id": block.file_id}
            else:
                return self.unsupported("plain-text document by URL or base64", mi, bi)
            if block.title is not None:
                wire["title"] = block.title
            if block.context is not None:
                wire["context"] = block.context
            return self.finish(wire, block, block.cache_control)
        inline = (
            (block.mime_type, block.base64)
            if block.base64 is not None
            else parse_data_url(block.url)
            if block.url is not None
            else None
        )
        if inline is not None:
            if inline[0] != "application/pdf":
                return self.unsupported(f"file of type {inline[0]}", mi, bi)
            wire["source"] = {"type": "base64", "media_type": "application/pdf", "data": inline[1]}
        elif block.url is not None:
            if block.mime_type not in (None, "application/pdf"):
                return self.unsupported(f"file of type {block.mime_type}", mi, bi)
            wire["source"] = {"type": "url", "url": block.url}
        else:
            wire["source"] = {"type": "file", "file_id": block.file_id}
        if block.filename is not None:
            wire["title"] = block.filename
        return self.finish(wire, block, block.cache_control)

    def user_block(self, block: ContentBlock, mi: int, bi: int) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return self.text(block)
        if self.string:
            return self.unsupported(f"{block.type} block in string content", mi, bi)
        if isinstance(block, ImageBlock):
            return self.image(block, mi, bi)
        if isinstance(block, (FileBlock, PlainTextBlock)):
            return self.document(block, mi, bi)
        if isinstance(block, NonStandardBlock):
            return self.non_standard(block, mi, bi)
        what = (
            "audio"
            if isinstance(block, AudioBlock)
            else "video"
            if isinstance(block, VideoBlock)
            else f"{block.type} block in user content"
        )
        return self.unsupported(what, mi, bi)

    def user_blocks(self, content: str | Sequence[ContentBlock], mi: int) -> list[dict[str, Any]]:
        if isinstance(content, str):
            return [] if _blank(content) else [{"type": "text", "text": content}]
        out: list[dict[str, Any]] = []
        for bi, block in enumerate(content):
            wire = self.user_block(block, mi, bi)
            if wire is not None:
                out.append(wire)
        return out

    def tool_result(self, message: ToolMessage, mi: int) -> list[dict[str, Any]]:
        if not self.options.native_tools:
            content = message.content
            text = tool_result_as_text(message, joined_text(content))
            rest = (
                []
                if isinstance(content, str)
                else [b for b in content if not isinstance(b, TextBlock)]
            )
            return [{"type": "text", "text": text}, *self.user_blocks(rest, mi)]
        extras = extras_of(message, NAME)
        wire: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": self.ids.get(message.tool_call_id, message.tool_call_id),
        }
        content = message.content
        if isinstance(content, str):
            if content and self.parts:
                wire["content"] = [{"type": "text", "text": content}]
            elif content:
                wire["content"] = content
        else:
            dropped = self.dropped
            blocks = self.user_blocks(content, mi)
            if self.string:
                text = "\n".join(block["text"] for block in blocks)
                if text:
                    wire["content"] = text
            elif blocks or self.dropped == dropped:  # (emptied by drops: no content)
                wire["content"] = blocks
        if message.status == "error":
            wire["is_error"] = True
        elif extras.get("is_error") is False:
            wire["is_error"] = False
        cache = self.options.prompt_cache
        for key, value in extras.items():
            if (
                key not in wire
                and key not in ("is_error", "new_message")  # read above / a turn marker
                and (cache or key != "cache_control")
            ):
                wire[key] = value
        return [wire]

    # --------------------------------------------------------- assistant side

    def reasoning(self, block: ReasoningBlock, mi: int, bi: int) -> dict[str, Any] | None:
        signed = block.signature is not None or block.encrypted_content is not None
        if self.options.replays(block.provider) and (signed or self.options.reasoning != "text"):
            if self.string:
                return self.unsupported("thinking block in string content", mi, bi)
            wire: dict[str, Any]
            if block.signature is not None:
                wire = {
                    "type": "thinking",
                    "thinking": block.text or "",
                    "signature": block.signature,
                }
            elif block.encrypted_content is not None:
                wire = {"type": "redacted_thinking", "data": block.encrypted_content}
            else:
                return self.unsupported("Anthropic thinking without its signature", mi, bi)
            return self.finish(wire, block)  # thinking blocks take no cache marker
        # reasoning="text": other providers' reasoning, and Anthropic thinking that
        # lost its signature (the API would reject it as thinking), as plain text
        if self.options.reasoning == "text":
            text = block.text if block.text is not None else "\n".join(block.summary or ())
            if not _blank(text):
                return {"type": "text", "text": text}
        return None

    def assistant_block(
        self, block: ContentBlock, mi: int, bi: int, *, foreign: bool = False
    ) -> dict[str, Any] | None:
        """One assistant block; ``foreign``: the message came from another format."""
        if isinstance(block, (TextBlock, RefusalBlock)):
            return self.text(block)
        if isinstance(block, ReasoningBlock):
            return self.reasoning(block, mi, bi)
        if self.string:
            return self.unsupported(f"{block.type} block in string content", mi, bi)
        if isinstance(block, ServerToolCallBlock):
            if (
                block.id is None
                or foreign
                or not (block.name in _SERVER_TOOLS or extras_of(block, NAME))
            ):
                return self.unsupported(f"server tool call {block.name!r}", mi, bi)
            wire: dict[str, Any] = {
                "type": "server_tool_use",
                "id": block.id,
                "name": block.name,
                "input": block.arguments if block.arguments is not None else {},
            }
            return self.finish(wire, block, block.cache_control)
        if isinstance(block, ServerToolResultBlock):
            kind = extras_of(block, NAME).get("type")
            if not isinstance(kind, str):
                return self.unsupported("server tool result from another provider", mi, bi)
            wire = {"type": kind, "tool_use_id": block.tool_call_id}
            if "output" in block.model_fields_set:
                wire["content"] = block.output
            return self.finish(wire, block, block.cache_control)
        if isinstance(block, NonStandardBlock):
            return self.non_standard(block, mi, bi)
        return self.unsupported(f"{block.type} block in an assistant message", mi, bi)

    def tool_call(self, call: ToolCall) -> dict[str, Any]:
        if not self.options.native_tools:
            return {"type": "text", "text": tool_call_as_text(call)}
        wire = {
            "type": "tool_use",
            "id": self.ids.get(call.id, call.id),
            "name": call.name,
            "input": call.arguments,
        }
        return self.finish(wire, call)

    def assistant(self, message: AssistantMessage, mi: int) -> list[dict[str, Any]]:
        foreign = message.provider is not None and message.provider != NAME
        blocks: list[dict[str, Any]] = []
        for bi, block in enumerate(content_blocks(message.content)):
            wire = self.assistant_block(block, mi, bi, foreign=foreign)
            if wire is not None:
                blocks.append(wire)
        calls = [(call.index, self.tool_call(call)) for call in message.tool_calls]
        for _invalid in message.invalid_tool_calls:
            placeholder = self.unsupported("invalid tool call", mi, None)
            if placeholder is not None:
                calls.append((None, placeholder))
        return _interleave(blocks, calls)

    # ----------------------------------------------------------------- system

    def system_content(self, message: SystemMessage, mi: int) -> str | list[dict[str, Any]]:
        content = message.content
        if isinstance(content, str) and not self.parts:
            return content
        blocks: list[dict[str, Any]] = []
        for bi, block in enumerate(content_blocks(content)):
            if isinstance(block, TextBlock):
                wire = self.text(block)
            elif isinstance(block, NonStandardBlock):
                wire = self.non_standard(block, mi, bi)
            else:
                wire = self.unsupported(f"{block.type} block in a system message", mi, bi)
            if wire is not None:
                blocks.append(wire)
        if self.string:
            return "\n".join(block["text"] for block in blocks)
        return blocks

    def system(self, count: int) -> str | list[dict[str, Any]] | None:
        messages = self.conversation.messages
        parts = [self.system_content(_as_system(messages[mi]), mi) for mi in range(count)]
        system: str | list[dict[str, Any]] | None
        if len(parts) == 1:
            system = parts[0]
        elif self.string:
            system = "\n".join(part for part in parts if isinstance(part, str))
        else:
            system = []
            for part in parts:
                if isinstance(part, str):
                    if not _blank(part):
                        system.append({"type": "text", "text": part})
                else:
                    system.extend(part)
        tools = application_tools(self.conversation.tools)
        if tools and not self.options.native_tools:
            text = tools_as_text(tools)
            if isinstance(system, list) and system:
                system.append({"type": "text", "text": text})
            elif isinstance(system, str) and not _blank(system):
                system = f"{system}\n\n{text}"
            else:
                system = text
        if not system or (isinstance(system, str) and _blank(system)):
            return None  # an empty system prompt is left out
        return system

    # ------------------------------------------------------------------ turns

    def turn(self, role: str, indexes: list[int]) -> dict[str, Any]:
        messages = self.conversation.messages
        if role == "system":
            mi = indexes[0]
            return {"role": "system", "content": self.system_content(_as_system(messages[mi]), mi)}
        first: list[dict[str, Any]] = []  # tool results, first in a user turn
        rest: list[dict[str, Any]] = []
        only = messages[indexes[0]]
        if (
            len(indexes) == 1
            and not self.parts
            and isinstance(only.content, str)
            and not isinstance(only, ToolMessage)
            and not (
                isinstance(only, AssistantMessage) and (only.tool_calls or only.invalid_tool_calls)
            )
        ):
            return {"role": role, "content": only.content}
        for mi in indexes:
            message = messages[mi]
            if isinstance(message, ToolMessage):
                first.extend(self.tool_result(message, mi))
            elif isinstance(message, AssistantMessage):
                rest.extend(self.assistant(message, mi))
            else:
                rest.extend(self.user_blocks(message.content, mi))
        blocks = first + rest
        if not self.string:
            return {"role": role, "content": blocks}
        texts = [block["text"] for block in blocks if block["type"] == "text"]
        others = [block for block in blocks if block["type"] != "text"]
        text = "\n".join(texts)
        if not others:
            return {"role": role, "content": text}
        text_block = [{"type": "text", "text": text}] if not _blank(text) else []
        content = others + text_block if role == "user" else text_block + others
        return {"role": role, "content": content}

    def tools(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for tool in sendable_tools(self.conversation.tools, self.options):
            extras = extras_of(tool, NAME)
            wire: dict[str, Any] = {"name": tool.name}
            if extras.get("type") in (None, "custom"):
                if tool.description is not None:
                    wire["description"] = tool.description
                wire["input_schema"] = tool.parameters
                if tool.strict is not None:
                    wire["strict"] = tool.strict
            out.append(self.finish(wire, tool))
        return out

    def turns(self, count: int, grouped: list[tuple[str, list[int]]]) -> list[dict[str, Any]]:
        """The wire messages of the ``grouped`` turns, without those drops left empty.

        The API rejects empty content, so such a turn is not sent; the turns
        around it are regrouped, so that neighbours of one role merge again.
        """
        messages = self.conversation.messages
        out: list[dict[str, Any]] = []
        skipped: set[int] = set()
        for role, indexes in grouped:
            before = self.dropped
            wire = self.turn(role, indexes)
            if self.dropped > before and _empty_turn(wire):
                skipped.update(indexes)
            out.append(wire)
        if not skipped:
            return out
        return [self.turn(role, indexes) for role, indexes in _turns(messages, count, skipped)]

    def run(self, turns: list[tuple[str, list[int]]]) -> dict[str, Any]:
        """The request; ``turns``: the messages grouped by :func:`_turns`."""
        conversation = self.conversation
        count = _leading_system(conversation.messages)
        payload: dict[str, Any] = {}
        system = self.system(count)
        if system is not None:
            payload["system"] = system
        payload["messages"] = self.turns(count, turns)
        if self.options.native_tools:
            tools = self.tools() if conversation.tools else []
            if tools:
                payload["tools"] = tools
            if conversation.tool_choice is not None and (tools or not conversation.tools):
                # a tool choice goes only with tools, or where none were given
                payload["tool_choice"] = _tool_choice_wire(conversation.tool_choice)
        return payload


def _interleave(
    blocks: list[dict[str, Any]], calls: list[tuple[int | None, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """Put tool calls back at their ``index`` among the other blocks.

    Calls without an index go last, in order; an index past the end puts the
    call after everything before it.
    """
    if not calls:
        return blocks
    placed = sorted((item for item in calls if item[0] is not None), key=lambda item: item[0])  # type: ignore[arg-type, return-value]
    out: list[dict[str, Any]] = []
    block, call = 0, 0
    while block < len(blocks) or call < len(placed):
        position = placed[call][0] if call < len(placed) else None
        if position is not None and (position <= len(out) or block == len(blocks)):
            out.append(placed[call][1])
            call += 1
        else:
            out.append(blocks[block])
            block += 1
    out.extend(wire for index, wire in calls if index is None)
    return out


def _citation_wire(annotation: Citation | NonStandardAnnotation) -> dict[str, Any] | None:
    """An Anthropic citation back on the wire; other annotations are left out.

    A citation whose Anthropic data lacks what its kind needs, or without the cited
    text every kind requires (edited by hand), is not one the API produced: left out
    like other formats' citations.
    """
    if not isinstance(annotation, Citation) or annotation.cited_text is None:
        return None
    extras = extras_of(annotation, NAME)
    kind = extras.get("type")
    if not isinstance(kind, str):
        return None
    if not all(key in extras for key in _CITATION_KEYS.get(kind, ())):
        return None
    wire = dict(extras)
    wire["cited_text"] = annotation.cited_text
    title_key = _TITLE_KEYS.get(kind)
    if title_key is not None:
        wire[title_key] = annotation.title
    if kind == "web_search_result_location" and annotation.url is not None:
        wire["url"] = annotation.url
    return wire


def _tool_choice_wire(choice: ToolChoice) -> dict[str, Any]:
    if isinstance(choice, NoneToolChoice):
        return {"type": "none"}
    wire: dict[str, Any]
    if isinstance(choice, NamedToolChoice):
        wire = {"type": "tool", "name": choice.name}
    else:
        wire = {"type": "any" if isinstance(choice, RequiredToolChoice) else "auto"}
    if choice.parallel is not None:
        wire["disable_parallel_tool_use"] = not choice.parallel
    return wire


@guarded(NAME)
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """Encode a conversation as the message part of a Messages API request.

    Args:
        messages: a Conversation, a list of messages, or their JSON-like dicts.
        **options: see :class:`~chatschema.providers._common.EncodeOptions`;
            ``system_role`` and ``reasoning_content`` do not apply here.

    Returns:
        ``{"system"?, "messages", "tools"?, "tool_choice"?}``, ready for
        ``client.messages.create(model=..., max_tokens=..., **payload)``.

    Raises:
        ConversionError: with every structural problem :func:`check` finds.
        UnsupportedContentError: for content Anthropic cannot take, under
            ``unsupported="error"``.
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    resolved = Options.resolve(NAME, options)
    conversation = to_conversation(messages)
    listed = conversation.messages
    turns = _turns(listed, _leading_system(listed))  # grouped once, for both
    if resolved.check:
        problems = _problems(conversation, resolved, turns)
        if problems:
            raise structural_error(problems, NAME)
    return _Encoder(conversation, resolved).run(turns)


# ============================================================================= check


def _first_message(problems: Sequence[Problem]) -> int | None:
    for problem in problems:
        parts = problem.pointer.split("/")
        if len(parts) > 2 and parts[1] == "messages" and parts[2].isdigit():
            return int(parts[2])
    return None


def _pairing(messages: Sequence[Message], turns: list[tuple[str, list[int]]]) -> list[Problem]:
    """Tool calls answered in the very next user turn, once each.

    Unlike ``_common.tool_pairing_problems(adjacent=True)``, this works on wire
    turns: consecutive assistant messages form one turn, and user text next to
    the results is fine (the encoder puts the results first).
    """
    problems: list[Problem] = []
    pending: dict[str, tuple[int, int]] = {}
    answered: set[str] = set()

    def unanswered(before: int | None) -> None:
        if not pending:
            return
        for call_id, (mi, k) in pending.items():
            where = f" before message {before}" if before is not None else ""
            problems.append(
                Problem(
                    pointer(mi, "tool_calls", k, "id"),
                    "unanswered_tool_call",
                    f"tool call {call_id!r} has no tool result in the next user turn{where} "
                    "(anthropic requires one)",
                )
            )
        pending.clear()

    for role, indexes in turns:
        if role == "user":
            for mi in indexes:
                message = messages[mi]
                if not isinstance(message, ToolMessage):
                    continue
                call_id = message.tool_call_id
                if call_id in pending:
                    del pending[call_id]
                    answered.add(call_id)
                    continue
                reason = (
                    "answers a call that was already answered"
                    if call_id in answered
                    else "answers no tool call of the assistant turn before it"
                )
                problems.append(
                    Problem(
                        pointer(mi, "tool_call_id"),
                        "orphan_tool_result",
                        f"tool result for {call_id!r} {reason}",
                    )
                )
            unanswered(indexes[-1] + 1 if indexes[-1] + 1 < len(messages) else None)
            continue
        unanswered(indexes[0])
        if role == "assistant":
            for mi in indexes:
                message = messages[mi]
                assert isinstance(message, AssistantMessage)
                for k, call in enumerate(message.tool_calls):
                    if call.id in pending or call.id in answered:
                        problems.append(
                            Problem(
                                pointer(mi, "tool_calls", k, "id"),
                                "duplicate_tool_call_id",
                                f"tool call id {call.id!r} is used twice",
                            )
                        )
                    pending[call.id] = (mi, k)
    unanswered(None)
    return problems


def _has_content(message: Message, options: Options) -> bool:
    if isinstance(message, ToolMessage):
        return True
    if isinstance(message, AssistantMessage) and (message.tool_calls or message.invalid_tool_calls):
        return True
    content = message.content
    if isinstance(content, str):
        return not _blank(content)
    for block in content:
        if isinstance(block, (TextBlock, RefusalBlock)):
            if not _blank(block.text):
                return True
        elif isinstance(block, ReasoningBlock):
            if options.replays(block.provider) or options.reasoning == "text":
                return True
        else:
            return True
    return False


class _Checker:
    """Collects the per-block problems and counts of one request."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.problems: list[Problem] = []
        self.images = 0
        self.inline = 0
        self.breakpoints: list[str] = []
        self.markers = options.prompt_cache

    def marker(self, value: Any, where: str) -> None:
        if not self.markers or value is None:
            return
        self.breakpoints.append(where)
        ttl = (
            value.ttl
            if isinstance(value, CacheControl)
            else (value.get("ttl") if isinstance(value, dict) else None)
        )
        if ttl is not None and not (isinstance(ttl, str) and ttl in _CACHE_TTLS):
            self.problems.append(
                Problem(where, "cache_ttl", f"cache ttl {ttl!r}: Anthropic takes '5m' or '1h'")
            )

    def block(self, block: ContentBlock, where: str) -> None:
        options = self.options
        string = options.content_format == "string"
        if isinstance(block, ImageBlock):
            if not options.vision:
                if options.unsupported == "error":
                    self.problems.append(
                        Problem(
                            where,
                            "unsupported_content",
                            "image in a request without vision (vision=False)",
                        )
                    )
                return
            self.images += 1
            if self.images == MAX_IMAGES + 1:
                self.problems.append(
                    Problem(where, "too_many_images", f"more than {MAX_IMAGES} images in a request")
                )
            inline = (
                (block.mime_type, block.base64)
                if block.base64 is not None
                else parse_data_url(block.url)
                if block.url is not None
                else None
            )
            if inline is not None:
                mime, data = inline
                self.inline += len(data)
                if mime not in IMAGE_MEDIA_TYPES:
                    self.problems.append(
                        Problem(
                            where,
                            "image_media_type",
                            f"image type {mime!r}: Anthropic takes {sorted(IMAGE_MEDIA_TYPES)}",
                        )
                    )
                if len(data) > MAX_IMAGE_BASE64_BYTES:
                    self.problems.append(
                        Problem(
                            where,
                            "image_too_large",
                            f"image exceeds 5 MB: {len(data)} base64 bytes > "
                            f"{MAX_IMAGE_BASE64_BYTES}",
                        )
                    )
        elif isinstance(block, (FileBlock, PlainTextBlock)) and block.base64 is not None:
            self.inline += len(block.base64)
        if string or isinstance(block, ReasoningBlock):
            return
        self.marker(block.cache_control, f"{where}/cache_control")
        raw = extras_of(block, NAME).get("cache_control")
        if block.cache_control is None:
            self.marker(raw, f"{where}/extras/anthropic/cache_control")
        if isinstance(block, NonStandardBlock) and block.cache_control is None:
            self.marker(block.value.get("cache_control"), f"{where}/value/cache_control")


def _problems(
    conversation: Conversation,
    options: Options,
    turns: list[tuple[str, list[int]]] | None = None,
) -> list[Problem]:
    """Every structural problem; ``turns``: the wire turns, when already grouped."""
    messages = conversation.messages
    checker = _Checker(options)
    if turns is None:
        turns = _turns(messages, _leading_system(messages))
    problems = checker.problems
    if options.native_tools:
        problems.extend(foreign_tool_problems(conversation.tools, options))
        problems.extend(_pairing(messages, turns))
        for k, tool in enumerate(conversation.tools or ()):
            if is_foreign_tool(tool, NAME):
                continue  # never sent
            checker.marker(
                extras_of(tool, NAME).get("cache_control"),
                f"/tools/{k}/extras/anthropic/cache_control",
            )
    for mi, message in enumerate(messages):
        if isinstance(message.content, list):
            for bi, block in enumerate(message.content):
                kind = type(block)
                if kind is ReasoningBlock or (
                    kind is TextBlock and block.cache_control is None and not block.extras
                ):
                    continue  # nothing to check (and no pointer to build)
                checker.block(block, pointer(mi, "content", bi))
        if not options.native_tools:
            continue
        # Markers live in extras: most messages and calls have none (and no pointer
        # is built for them).
        if isinstance(message, ToolMessage):
            if message.extras:
                checker.marker(
                    extras_of(message, NAME).get("cache_control"),
                    pointer(mi, "extras", "anthropic", "cache_control"),
                )
        elif isinstance(message, AssistantMessage):
            for k, call in enumerate(message.tool_calls):
                if call.extras:
                    checker.marker(
                        extras_of(call, NAME).get("cache_control"),
                        pointer(mi, "tool_calls", k, "extras", "anthropic", "cache_control"),
                    )
    if len(checker.breakpoints) > MAX_CACHE_BREAKPOINTS:
        problems.append(
            Problem(
                checker.breakpoints[MAX_CACHE_BREAKPOINTS],
                "too_many_cache_breakpoints",
                f"{len(checker.breakpoints)} cache breakpoints; Anthropic takes at most "
                f"{MAX_CACHE_BREAKPOINTS} per request (tools, system and messages)",
            )
        )
    if checker.inline > MAX_REQUEST_INLINE_BYTES:
        problems.append(
            Problem(
                "/messages",
                "request_too_large",
                f"{checker.inline} bytes of inline data; Anthropic requests are limited to 32 MB",
            )
        )
    for position, (role, indexes) in enumerate(turns):
        if role == "assistant" and position == len(turns) - 1:
            continue  # a final assistant turn (prefill) may be empty
        if not any(_has_content(messages[mi], options) for mi in indexes):
            problems.append(
                Problem(
                    pointer(indexes[0], "content"),
                    "empty_content",
                    "this message would be empty; Anthropic requires content in every "
                    "message but a final assistant one",
                )
            )
    choice = conversation.tool_choice
    if (
        options.native_tools
        and isinstance(choice, NamedToolChoice)
        and conversation.tools
        and all(
            tool.name != choice.name or is_foreign_tool(tool, NAME) for tool in conversation.tools
        )
    ):
        problems.append(
            Problem(
                "/tool_choice/name", "unknown_tool", f"tool_choice names no tool: {choice.name!r}"
            )
        )
    return problems


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every structural problem that would make the Messages API refuse the request.

    Tool calls not answered in the next user turn, orphan or repeated results,
    images without vision and other formats' hosted tools (under
    ``unsupported="error"``), images over 5 MB of
    base64 or of a media type the API does not take, more than 100 images, more
    than 4 cache breakpoints or a cache ttl other than ``5m``/``1h``, more than
    32 MB of inline data, messages that would be empty, and a named tool choice
    that names no tool.

    Raises:
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    resolved = Options.resolve(NAME, options)
    return _problems(to_conversation(messages), resolved)
