"""LangChain interop: chatschema messages to and from ``langchain_core`` messages.

``langchain-core`` is an optional dependency (``pip install langchain-core``); this
module imports it, ``import chatschema`` never does.

- :func:`to_langchain` / :func:`message_to_langchain`: neutral messages to
  ``SystemMessage``, ``HumanMessage``, ``AIMessage`` and ``ToolMessage``, with list
  content as LangChain v1 standard content blocks.
- :func:`from_langchain` / :func:`message_from_langchain`: back to neutral messages.
- :func:`chunk_to_langchain` / :func:`chunk_from_langchain`: ``AssistantMessageChunk``
  to and from ``AIMessageChunk``.

Neutral -> LangChain -> neutral is the identity (compared with
:func:`chatschema.to_dict`). What LangChain has no field for travels in the places
LangChain keeps for such data, under the key ``"chatschema"``: a message's
``additional_kwargs["chatschema"]`` (metadata, extras of other providers, the
normalized finish reason when it differs from the one derived from LangChain's,
tool-call ``index``/``extras``, ...) and a block's or citation's
``extras["chatschema"]`` (reasoning ``summary`` and ``provider``, extras of other
providers). Prompt-cache breakpoints, reasoning signatures, encrypted reasoning,
image ``detail`` and file names use LangChain's own conventions in ``extras``
(``cache_control``, ``signature``, ``encrypted_content``, ``detail``, ``filename``).

LangChain -> neutral keeps everything: what the neutral model cannot name goes to
``extras["langchain"]`` of the message or block (for a reply's response metadata:
``response_metadata["langchain"]``), keyed as it was on the LangChain object, and
comes back out, so LangChain -> neutral -> LangChain gives an equal message, with the
exceptions listed in ``docs/interop.md``. Content items that are not LangChain v1
standard blocks (provider-native blocks such as Anthropic ``thinking``, OpenAI
``image_url``) become ``non_standard`` blocks holding the item unchanged, unless
``standardize=True`` asks LangChain's own translators (``content_blocks``) first.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, cast

import pydantic
from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ContentBlock, NonStandardBlock, TextBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from pydantic import BaseModel

from chatschema.errors import ConversionError, ValidationError
from chatschema.validation import parse, parse_message, parse_messages

try:
    from langchain_core import messages as lc
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "chatschema.interop.langchain needs langchain-core, an optional dependency: "
        "pip install langchain-core (or pip install 'chatschema[langchain]')"
    ) from error

__all__ = [
    "ESCAPE_KEY",
    "NAMESPACE",
    "chunk_from_langchain",
    "chunk_to_langchain",
    "from_langchain",
    "message_from_langchain",
    "message_to_langchain",
    "to_langchain",
]

NAMESPACE: Final = "langchain"
"""Key of LangChain data in neutral ``extras`` (and a reply's ``response_metadata``)."""

ESCAPE_KEY: Final = "chatschema"
"""Key of neutral data in LangChain ``additional_kwargs`` and block ``extras``."""

_NEUTRAL_CLASSES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)
_ROLES = ("system", "user", "assistant", "tool")
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
_DATA_TYPES = frozenset({"image", "audio", "video", "file", "text-plain"})
_TOOL_BLOCK_TYPES = frozenset({"tool_call", "invalid_tool_call", "tool_call_chunk"})
_RAW: Final = {NAMESPACE: {"raw": True}}
# Block and annotation fields that LangChain v1 spells as the neutral model does.
_SAME_NAMED = frozenset(
    {
        "id",
        "index",
        "text",
        "annotations",
        "url",
        "base64",
        "mime_type",
        "file_id",
        "title",
        "context",
        "name",
        "tool_call_id",
        "status",
        "output",
        "value",
        "start_index",
        "end_index",
        "cited_text",
    }
)

# Neutral provider names that LangChain spells differently (`model_provider`).
_LC_PROVIDERS = {"openai_chat": "openai", "openai_responses": "openai", "gemini": "google_genai"}

# Raw finish reasons (OpenAI, Anthropic, Gemini, as LangChain reports them) -> neutral.
_FINISH_REASONS = {
    "stop": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "STOP": "stop",
    "length": "length",
    "max_tokens": "length",
    "MAX_TOKENS": "length",
    "model_context_window_exceeded": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "tool_use": "tool_calls",
    "content_filter": "content_filter",
    "refusal": "content_filter",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "pause_turn": "paused",
}

LCContent = str | list[str | dict[str, Any]]


# ------------------------------------------------------------------------ public API


def to_langchain(
    messages: Iterable[Message | Mapping[str, Any]] | Conversation,
) -> list[lc.BaseMessage]:
    """Convert neutral messages to LangChain messages.

    Args:
        messages: neutral messages (models or their JSON dicts), or a
            :class:`~chatschema.Conversation` (its messages are converted).

    Returns:
        One LangChain message per neutral message: ``SystemMessage``,
        ``HumanMessage``, ``AIMessage`` or ``ToolMessage``.

    Raises:
        ValidationError: a dict is not a valid neutral message (pointers name it).
        ConversionError: LangChain rejected a converted message (names its index).
    """
    return [_message_to_lc(message, index) for index, message in enumerate(_neutral(messages))]


def message_to_langchain(message: Message | Mapping[str, Any]) -> lc.BaseMessage:
    """Convert one neutral message (model or JSON dict) to a LangChain message.

    Raises:
        ValidationError: a dict is not a valid neutral message.
        ConversionError: LangChain rejected the converted message.
    """
    model = message if isinstance(message, _NEUTRAL_CLASSES) else parse_message(message)
    return _message_to_lc(model, None)


def from_langchain(
    messages: Iterable[lc.BaseMessage], *, standardize: bool = False
) -> list[Message]:
    """Convert LangChain messages to neutral messages.

    Args:
        messages: ``SystemMessage``, ``HumanMessage``, ``AIMessage`` and
            ``ToolMessage`` objects (their chunk subclasses are read as finished
            messages: use :func:`chunk_from_langchain` for stream chunks).
        standardize: read list content through LangChain's ``content_blocks``, whose
            translators turn provider-native blocks (Anthropic ``thinking``, OpenAI
            ``image_url`` ...) into standard ones. Lossy as those translators are; by
            default (``False``) the content is read as it is and provider-native
            blocks become ``non_standard`` blocks holding them unchanged.

    Raises:
        ConversionError: an item is not a supported LangChain message, or does not
            fit the neutral model (names its index and lists the problems).
    """
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


def chunk_to_langchain(chunk: AssistantMessageChunk | Mapping[str, Any]) -> lc.AIMessageChunk:
    """Convert a neutral stream chunk (model or JSON dict) to a LangChain ``AIMessageChunk``.

    Tool-call fragments become ``tool_call_chunks`` (LangChain derives its own
    ``tool_calls`` from them); ``usage_mode`` travels in
    ``additional_kwargs["chatschema"]``.

    Raises:
        ValidationError: a dict is not a valid ``AssistantMessageChunk``.
        ConversionError: LangChain rejected the converted chunk.
    """
    model = (
        chunk
        if isinstance(chunk, AssistantMessageChunk)
        else cast(AssistantMessageChunk, parse(chunk, "AssistantMessageChunk"))
    )
    return cast(lc.AIMessageChunk, _message_to_lc(model, None))


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


# --------------------------------------------------------------------------- helpers


def _error(reason: str, index: int | None, *, problems: Sequence[Any] = ()) -> ConversionError:
    return ConversionError(reason, provider=NAMESPACE, message_index=index, problems=problems)


def _neutral(messages: Iterable[Message | Mapping[str, Any]] | Conversation) -> list[Message]:
    if isinstance(messages, Conversation):
        return list(messages.messages)
    if isinstance(messages, (str, bytes, bytearray, Mapping)) or not isinstance(messages, Iterable):
        return parse_messages(cast(Any, messages))  # JSON text, or reports the type problem
    items = list(messages)
    if all(isinstance(item, _NEUTRAL_CLASSES) for item in items):
        return cast(list[Message], items)
    return parse_messages(cast(Any, items))


def _plain(model: BaseModel) -> dict[str, Any]:
    """What was set on a model, as plain data (values that are not JSON kept as they are)."""
    return model.model_dump(exclude_unset=True)


def _nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_dict(value: Any) -> bool:
    return isinstance(value, dict)


def _fits(value: Any, type_name: str) -> bool:
    try:
        parse(value, type_name)
    except ValidationError:
        return False
    return True


def _merge_namespace(extras: dict[str, Any], leftovers: dict[str, Any]) -> None:
    """Put LangChain leftovers under ``extras["langchain"]`` (merging with what is there)."""
    if not leftovers:
        return
    present = extras.get(NAMESPACE)
    extras[NAMESPACE] = {**present, **leftovers} if isinstance(present, dict) else leftovers


def _derived_finish_reason(metadata: Mapping[str, Any]) -> str | None:
    for key in ("finish_reason", "stop_reason"):
        value = metadata.get(key)
        if isinstance(value, str) and value in _FINISH_REASONS:
            return _FINISH_REASONS[value]
    return None


# ------------------------------------------------------------- blocks: neutral -> LC


def _spreads(
    out: Mapping[str, Any], lc_extras: Mapping[str, Any], escaping: bool, namespace: Any
) -> bool:
    """Whether LangChain leftovers can go back onto the block without collisions."""
    if not isinstance(namespace, dict):
        return False
    for key, value in namespace.items():
        if key == "extras":
            if isinstance(value, dict):
                if ESCAPE_KEY in value or any(name in lc_extras for name in value):
                    return False
            elif lc_extras or escaping:
                return False
        elif key in out or key == "type":
            return False
    return True


def _attach_extras(
    out: dict[str, Any],
    lc_extras: dict[str, Any],
    escape: dict[str, Any],
    neutral_extras: Mapping[str, Any] | None,
) -> None:
    """Finish a LangChain block: leftovers back in place, neutral-only data escaped."""
    namespace: Any = None
    if neutral_extras is not None:
        namespace = neutral_extras.get(NAMESPACE)
        others = {key: value for key, value in neutral_extras.items() if key != NAMESPACE}
        if namespace is not None and not _spreads(
            out, lc_extras, bool(escape or others), namespace
        ):
            namespace, others = None, dict(neutral_extras)
        if others or not neutral_extras:  # an explicitly empty `extras` too
            escape["extras"] = others
    if isinstance(namespace, dict):
        for key, value in namespace.items():
            if key == "extras" and isinstance(value, dict):
                lc_extras.update(value)
            else:
                out[key] = value
    if escape:
        lc_extras[ESCAPE_KEY] = escape
    if lc_extras:
        out["extras"] = lc_extras


def _annotation_to_lc(annotation: dict[str, Any]) -> dict[str, Any]:
    data = dict(annotation)
    neutral_extras = data.pop("extras", None)
    out: dict[str, Any] = {"type": data.pop("type")}
    escape: dict[str, Any] = {}
    for key, value in data.items():
        (out if key in _SAME_NAMED else escape)[key] = value
    _attach_extras(out, {}, escape, neutral_extras)
    return out


def _block_to_lc(block: ContentBlock) -> str | dict[str, Any]:
    data = _plain(block)
    kind = data.pop("type")
    neutral_extras = data.pop("extras", None)
    if neutral_extras == _RAW:
        if kind == "text" and set(data) == {"text"}:
            return cast(str, data["text"])
        if kind == "non_standard" and set(data) == {"value"}:
            return cast(dict[str, Any], data["value"])
    out: dict[str, Any] = {"type": kind}
    lc_extras: dict[str, Any] = {}
    escape: dict[str, Any] = {}
    namespace = neutral_extras.get(NAMESPACE) if neutral_extras else None
    if (
        "cache_control" in data
        and isinstance(namespace, dict)
        and namespace.get("placement") == "top_level"
    ):
        # LangChain had it where Anthropic-style (v0) content puts it
        out["cache_control"] = data.pop("cache_control")
        namespace = {key: value for key, value in namespace.items() if key != "placement"}
        neutral_extras = {key: value for key, value in neutral_extras.items() if key != NAMESPACE}
        if namespace:
            neutral_extras[NAMESPACE] = namespace
        neutral_extras = neutral_extras or None
    elif "cache_control" in data:
        lc_extras["cache_control"] = data.pop("cache_control")
    if kind == "text" and "annotations" in data:
        data["annotations"] = [_annotation_to_lc(item) for item in data["annotations"]]
    elif kind == "refusal":
        out["refusal"] = data.pop("text")
    elif kind == "reasoning":
        if "text" in data:
            out["reasoning"] = data.pop("text")
        for key in ("signature", "encrypted_content"):
            if key in data:
                lc_extras[key] = data.pop(key)
    elif kind in _DATA_TYPES:
        for key in ("detail", "filename"):
            if key in data:
                lc_extras[key] = data.pop(key)
    elif kind == "server_tool_call" and "arguments" in data:
        out["args"] = data.pop("arguments")
    for key, value in data.items():
        # fields LangChain spells the same way; the others (reasoning `summary`, a
        # block's `provider` ...) have no LangChain field and are escaped
        (out if key in _SAME_NAMED else escape)[key] = value
    _attach_extras(out, lc_extras, escape, neutral_extras)
    return out


# ------------------------------------------------------------- blocks: LC -> neutral


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

    def take(self, key: str, check: Callable[[Any], bool], to: str | None = None) -> None:
        if key in self.rest and check(self.rest[key]):
            self.out[to or key] = self.rest.pop(key)

    def take_extra(self, key: str, check: Callable[[Any], bool]) -> None:
        if key in self.lc_extras and check(self.lc_extras[key]):
            self.out[key] = self.lc_extras.pop(key)

    def finish(self, kind: str, *, block: bool = True) -> dict[str, Any]:
        self.take("id", _nonempty_str)
        if block:
            self.take("index", _is_index)
            fits = lambda value: _fits(value, "CacheControl")  # noqa: E731
            self.take_extra("cache_control", fits)
            if "cache_control" not in self.out and "cache_control" in self.rest:
                self.take("cache_control", fits)
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
        return data if _fits(data, "Citation") else None
    if kind == "non_standard_annotation":
        reader = _Reader(item)
        reader.take("value", _is_dict)
        data = reader.finish("non_standard_annotation", block=False)
        return data if _fits(data, "NonStandardAnnotation") else None
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


def _read_data(reader: _Reader) -> bool:
    for key in ("url", "base64", "mime_type", "file_id"):
        reader.take(key, _is_str)
    if reader.kind == "text-plain":
        for key in ("text", "title", "context"):
            reader.take(key, _is_str)
    elif reader.kind == "image":
        reader.take_extra("detail", lambda value: value in ("auto", "low", "high", "original"))
    elif reader.kind == "file":
        reader.take_extra("filename", _nonempty_str)
    return True


def _read_server_tool_call(reader: _Reader) -> bool:
    reader.take("name", _nonempty_str)
    reader.take("args", _is_dict, to="arguments")
    return "name" in reader.out


def _read_server_tool_result(reader: _Reader) -> bool:
    reader.take("tool_call_id", _nonempty_str)
    reader.take("status", lambda value: value in ("success", "error"))
    if "output" in reader.rest:
        reader.out["output"] = reader.rest.pop("output")
    return "tool_call_id" in reader.out


def _read_non_standard(reader: _Reader) -> bool:
    reader.take("value", _is_dict)
    return "value" in reader.out


_READERS: dict[str, Callable[[_Reader], bool]] = {
    "text": _read_text,
    "refusal": _read_refusal,
    "reasoning": _read_reasoning,
    **dict.fromkeys(_DATA_TYPES, _read_data),
    "server_tool_call": _read_server_tool_call,
    "server_tool_result": _read_server_tool_result,
    "non_standard": _read_non_standard,
}


def _block_from_lc(item: Any) -> ContentBlock:
    if isinstance(item, str):
        return TextBlock(text=item, extras={NAMESPACE: {"raw": True}})
    if not isinstance(item, dict):
        raise TypeError(f"content items must be strings or dicts, not {type(item).__name__}")
    kind = item.get("type")
    read = _READERS.get(kind) if isinstance(kind, str) else None
    if read is not None:
        reader = _Reader(item)
        if read(reader):
            data = reader.finish(cast(str, kind))
            try:
                return cast(ContentBlock, parse(data, "ContentBlock"))
            except ValidationError:
                pass  # does not fit a neutral block: kept as it is
    return NonStandardBlock(value=dict(item), extras={NAMESPACE: {"raw": True}})


def _same_call(block: Mapping[str, Any], entry: Mapping[str, Any]) -> bool:
    return all(block.get(key) == entry.get(key) for key in ("id", "name", "args"))


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


# ----------------------------------------------------------- messages: neutral -> LC


def _rerouted(call: Mapping[str, Any]) -> dict[str, Any] | None:
    """The LangChain tool call kept in an invalid call by :func:`_calls_from_lc`."""
    extras = call.get("extras")
    if not (set(call) <= {"name", "arguments", "error", "extras"} and isinstance(extras, dict)):
        return None
    record = extras.get(NAMESPACE)
    if list(extras) == [NAMESPACE] and isinstance(record, dict) and list(record) == ["tool_call"]:
        original = record["tool_call"]
        return original if isinstance(original, dict) else None
    return None


def _calls_to_lc(data: dict[str, Any], escape: dict[str, Any], kwargs: dict[str, Any]) -> None:
    """Tool calls, invalid tool calls and tool-call fragments of a reply or chunk."""
    rerouted: list[dict[str, Any]] = []
    for key, fields in (
        ("tool_calls", ("name", "arguments", "id")),
        ("invalid_tool_calls", ("name", "arguments", "id", "error")),
        ("tool_call_chunks", ("name", "arguments", "id", "index")),
    ):
        if key not in data:
            continue
        converted: list[dict[str, Any]] = []
        escaped: list[dict[str, Any]] = []
        for call in data.pop(key):
            original = _rerouted(call) if key == "invalid_tool_calls" else None
            if original is not None:
                rerouted.append(original)  # a LangChain tool call without an id
                continue
            entry = {("args" if name == "arguments" else name): call.get(name) for name in fields}
            kept = {name: call[name] for name in ("index", "extras") if name in call}
            if key == "tool_call_chunks":
                kept.pop("index", None)  # LangChain holds it
            namespace = call.get("extras", {}).get(NAMESPACE)
            if key != "tool_calls" and isinstance(namespace, dict):
                # values LangChain had that the neutral model cannot hold (an empty id)
                unused = dict(namespace)
                for name in namespace:
                    if name in entry and entry[name] is None:
                        entry[name] = unused.pop(name)
                extras = {k: v for k, v in kept["extras"].items() if k != NAMESPACE}
                if unused:
                    extras[NAMESPACE] = unused
                if extras:
                    kept["extras"] = extras
                else:
                    del kept["extras"]
            if kept:
                kept["id"] = call.get("id")
            converted.append(entry)
            escaped.append(kept)
        kwargs[key] = converted
        if any(escaped):
            escape[key] = escaped
    if rerouted:
        kwargs["tool_calls"] = kwargs.get("tool_calls", []) + rerouted


def _reply_to_lc(
    data: dict[str, Any],
    escape: dict[str, Any],
    kwargs: dict[str, Any],
    metadata: dict[str, Any],
    list_content: bool,
) -> None:
    """The reply fields of an assistant message or chunk."""
    if "usage" in data:
        kwargs["usage_metadata"] = data.pop("usage")
    if "model" in data:
        metadata["model_name"] = data.pop("model")
    if "provider" in data:
        provider = data.pop("provider")
        metadata["model_provider"] = _LC_PROVIDERS.get(provider, provider)
        if provider in _LC_PROVIDERS:
            escape["provider"] = provider
    if "response_id" in data:
        metadata["id"] = data.pop("response_id")
    if "raw_finish_reason" in data:
        metadata["finish_reason"] = data.pop("raw_finish_reason")
    response_metadata = data.pop("response_metadata", None)
    if response_metadata:
        namespace = response_metadata.get(NAMESPACE)
        others = {k: v for k, v in response_metadata.items() if k != NAMESPACE}
        if namespace is not None and not (
            isinstance(namespace, dict) and not any(key in metadata for key in namespace)
        ):
            namespace, others = None, dict(response_metadata)
        if isinstance(namespace, dict):
            metadata.update(namespace)
        if others:
            escape["response_metadata"] = others
    elif response_metadata is not None:
        escape["response_metadata"] = response_metadata  # explicitly empty
    if list_content:
        if "output_version" not in metadata:
            metadata["output_version"] = "v1"  # the content is LangChain v1 blocks
        elif metadata["output_version"] is None:
            del metadata["output_version"]  # LangChain had none
    finish_reason = data.pop("finish_reason", None)
    if finish_reason != _derived_finish_reason(metadata):
        escape["finish_reason"] = finish_reason  # None: absent although derivable
    if "chunk_position" in data:
        kwargs["chunk_position"] = data.pop("chunk_position")


def _reinsert(content: list[Any], records: Any, kwargs: Mapping[str, Any]) -> bool:
    """Put recorded v1 tool-call blocks back into the content (False: cannot)."""
    if not isinstance(records, list) or not all(
        isinstance(record, dict)
        and _is_index(record.get("position"))
        and isinstance(record.get("block"), dict)
        for record in records
    ):
        return False
    entries = {
        "tool_call": kwargs.get("tool_calls") or [],
        "invalid_tool_call": kwargs.get("invalid_tool_calls") or [],
        "tool_call_chunk": kwargs.get("tool_call_chunks") or [],
    }
    for record in sorted(records, key=lambda record: cast(int, record["position"])):
        block = record["block"]
        if record["position"] > len(content):
            return False
        if any(_same_call(block, entry) for entry in entries.get(block.get("type"), [])):
            content.insert(record["position"], block)
        # else: the call changed since; its stale copy is not put back
    return True


def _spread_message_extras(
    neutral_extras: Mapping[str, Any] | None,
    reply: bool,
    kwargs: dict[str, Any],
    additional: dict[str, Any],
    metadata: dict[str, Any],
    content: LCContent,
    escape: dict[str, Any],
) -> LCContent:
    """Put a message's LangChain leftovers back; escape the other extras (or all of them).

    Returns the content, with recorded v1 tool-call blocks put back.
    """
    if neutral_extras is None:
        return content
    namespace = neutral_extras.get(NAMESPACE)
    others = {key: value for key, value in neutral_extras.items() if key != NAMESPACE}
    if namespace is not None:
        result = _spread(namespace, reply, kwargs, additional, metadata, content)
        if result is None:
            others = dict(neutral_extras)
        else:
            content = result
    if others or not neutral_extras:  # an explicitly empty `extras` too
        escape["extras"] = others
    return content


def _spread(
    namespace: Any,
    reply: bool,
    kwargs: dict[str, Any],
    additional: dict[str, Any],
    metadata: dict[str, Any],
    content: LCContent,
) -> LCContent | None:
    """Apply ``extras["langchain"]`` of a message; None (and nothing done) on a collision."""
    if not isinstance(namespace, dict):
        return None
    reserved = {"content", "type"} | set(kwargs)
    for key, value in namespace.items():
        if key == "additional_kwargs":
            fits = isinstance(value, dict) and ESCAPE_KEY not in value
        elif key == "response_metadata":
            fits = not reply and isinstance(value, dict)
        elif key == "tool_call_blocks":
            fits = reply and isinstance(content, list)
            if fits:
                content = list(content)
                fits = _reinsert(content, value, kwargs)
        else:
            fits = key not in reserved
        if not fits:
            return None
    for key, value in namespace.items():
        if key == "additional_kwargs":
            additional.update(value)
        elif key == "response_metadata":
            metadata.update(value)
        elif key != "tool_call_blocks":
            kwargs[key] = value
    return content


_LC_CLASSES: dict[str, type[lc.BaseMessage]] = {
    "system": lc.SystemMessage,
    "user": lc.HumanMessage,
    "assistant": lc.AIMessage,
    "tool": lc.ToolMessage,
}


def _message_to_lc(message: Message | AssistantMessageChunk, index: int | None) -> lc.BaseMessage:
    data = _plain(message)
    role = data.pop("role")
    chunk = isinstance(message, AssistantMessageChunk)
    cls: type[lc.BaseMessage] = lc.AIMessageChunk if chunk else _LC_CLASSES[role]
    escape: dict[str, Any] = {}
    kwargs: dict[str, Any] = {}
    additional: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    if "content" not in data:
        escape["unset"] = ["content"]
    data.pop("content", None)
    content: LCContent = (
        message.content
        if isinstance(message.content, str)
        else [_block_to_lc(block) for block in message.content]
    )
    for key in ("id", "name"):
        if key in data:
            kwargs[key] = data.pop(key)
    neutral_extras = data.pop("extras", None)
    if role == "tool":
        kwargs["tool_call_id"] = data.pop("tool_call_id")
        for key in ("status", "artifact"):
            if key in data:
                kwargs[key] = data.pop(key)
    elif role == "assistant":
        _calls_to_lc(data, escape, kwargs)
        _reply_to_lc(data, escape, kwargs, metadata, isinstance(content, list))
    escape.update(data)  # fields LangChain has no place for: metadata, usage_mode ...
    content = _spread_message_extras(
        neutral_extras, role == "assistant", kwargs, additional, metadata, content, escape
    )
    if escape:
        additional[ESCAPE_KEY] = escape
    if additional:
        kwargs["additional_kwargs"] = additional
    if metadata:
        kwargs["response_metadata"] = metadata
    try:
        return cls(content=cast(Any, content), **kwargs)
    except (pydantic.ValidationError, TypeError, ValueError) as error:
        raise _error(f"LangChain rejected the converted message: {error}", index) from None


# ----------------------------------------------------------- messages: LC -> neutral


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
        if _nonempty_str(call_id) and _nonempty_str(name) and isinstance(args, dict):
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
        if _fits(usage, "Usage"):
            out["usage"] = dict(usage)
        else:
            leftovers["usage_metadata"] = usage
    derived = _derived_finish_reason(metadata)
    for lc_key, key, check in (
        ("model_name", "model", _nonempty_str),
        ("id", "response_id", _nonempty_str),
        ("finish_reason", "raw_finish_reason", _is_str),
    ):
        if lc_key in metadata and check(metadata[lc_key]):
            out[key] = metadata.pop(lc_key)
    provider = metadata.get("model_provider")
    if _nonempty_str(provider):
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
            content, standardized = cast(LCContent, message.content_blocks), True
        except (TypeError, ValueError, KeyError, AttributeError) as error:
            raise _error(f"LangChain could not standardize the content: {error!r}", index) from None
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
        if _nonempty_str(value):
            out[key] = value
        elif value is not None:
            leftovers[key] = value
    if message.model_extra:
        leftovers.update(message.model_extra)
    if isinstance(message, lc.ToolMessage):
        if not _nonempty_str(message.tool_call_id):
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
    target = AssistantMessageChunk if chunk else _NEUTRAL_CLASSES[_ROLES.index(role)]
    for key, value in escape.items():
        if key not in _ESCAPE_RECORDS and key in target.model_fields and key not in out:
            out[key] = value  # neutral fields LangChain has no place for
    type_name = target.__name__ if chunk else "Message"
    try:
        return cast(Message, parse(out, type_name))
    except ValidationError as error:
        raise _error(
            "the LangChain message does not fit the neutral model", index, problems=error.problems
        ) from None
