"""Neutral -> LangChain: messages, blocks and chunks as ``langchain_core`` objects.

What LangChain has no field for travels under ``"chatschema"`` in
``additional_kwargs`` and block ``extras`` (see :mod:`chatschema.interop.langchain`);
data that came from LangChain (``extras["langchain"]``) is spread back where it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, cast

import pydantic
from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ContentBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import Message
from langchain_core import messages as lc

from chatschema.interop._common import (
    neutral,
    neutral_message,
    plain,
)
from chatschema.interop.langchain._from_lc import _NEUTRAL_ONLY, _block_from_lc
from chatschema.interop.langchain._shared import (
    _DATA_TYPES,
    _LC_PROVIDERS,
    DATA_URL_FORM,
    ESCAPE_KEY,
    FORM,
    GUESSED,
    NAMESPACE,
    OPENAI_FORM,
    OPENAI_KEYS,
    OPENAI_MARKERS,
    V0_SOURCES,
    LCContent,
    _derived_finish_reason,
    _error,
    _is_index,
    _same_call,
    audio_format,
    data_url,
)
from chatschema.validation import parse

# --------------------------------------------------------------------------- public API


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
    return [_message_to_lc(message, index) for index, message in enumerate(neutral(messages))]


def message_to_langchain(message: Message | Mapping[str, Any]) -> lc.BaseMessage:
    """Convert one neutral message (model or JSON dict) to a LangChain message.

    Raises:
        ValidationError: a dict is not a valid neutral message.
        ConversionError: LangChain rejected the converted message.
    """
    model = neutral_message(message)
    return _message_to_lc(model, None)


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


# ------------------------------------------------------------------------------- blocks


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
    *,
    spread: bool = True,
) -> None:
    """Finish a LangChain block: leftovers back in place, neutral-only data escaped.

    ``spread=False`` escapes ``extras["langchain"]`` too (a record that does not apply).
    """
    namespace: Any = None
    if neutral_extras is not None:
        namespace = neutral_extras.get(NAMESPACE)
        others = {key: value for key, value in neutral_extras.items() if key != NAMESPACE}
        if namespace is not None and not (
            spread and _spreads(out, lc_extras, bool(escape or others), namespace)
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
    out, respelled = _lc_block(block, respell=True)
    if respelled:
        # A recorded spelling is used only if it gives the same neutral block back (a
        # block edited since may not fit it: a media type `input_audio` cannot say)
        again = _block_from_lc(out)
        if again.model_dump(exclude_unset=True) != block.model_dump(exclude_unset=True):
            return _lc_block(block, respell=False)[0]
    return out


def _lc_block(block: ContentBlock, *, respell: bool) -> tuple[str | dict[str, Any], bool]:
    """A neutral block as a LangChain block, and whether it is in a recorded spelling.

    ``respell=False``: a media block that records a spelling is a v1 block, the record
    escaped.
    """
    respelled = False
    data = plain(block)
    kind = data.pop("type")
    neutral_extras = data.pop("extras", None)
    if neutral_extras == _RAW:
        if kind == "text" and set(data) == {"text"}:
            return cast(str, data["text"]), False
        if kind == "non_standard" and set(data) == {"value"}:
            return cast(dict[str, Any], data["value"]), False
    out: dict[str, Any] = {"type": kind}
    lc_extras: dict[str, Any] = {}
    escape: dict[str, Any] = {}
    namespace = neutral_extras.get(NAMESPACE) if neutral_extras else None
    spread = True
    top_level_cache = None
    if (
        "cache_control" in data
        and isinstance(namespace, dict)
        and namespace.get("placement") == "top_level"
    ):
        # LangChain had it where Anthropic-style (v0) content puts it
        top_level_cache = data.pop("cache_control")
        namespace = {key: value for key, value in namespace.items() if key != "placement"}
        neutral_extras = _with_namespace(neutral_extras, namespace)
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
        shaped: dict[str, Any] | None = None
        if isinstance(namespace, dict):
            shaped, rest = _media_to_lc(kind, data, namespace, respell=respell)
            if rest is None:
                spread = False  # a record of a spelling the block no longer fits
            elif rest != namespace:
                respelled = True
                neutral_extras = _with_namespace(neutral_extras, rest)
        if shaped is not None:
            out = shaped
        else:
            for key in ("detail", "filename"):
                if key in data:
                    lc_extras[key] = data.pop(key)
    elif kind == "server_tool_call" and "arguments" in data:
        out["args"] = data.pop("arguments")
    elif kind in _NEUTRAL_ONLY:
        # no LangChain type: the neutral type and fields, a provider-native-like dict
        out.update((key, data.pop(key)) for key in list(data) if key not in ("id", "index"))
    if top_level_cache is not None:
        out["cache_control"] = top_level_cache
    for key, value in data.items():
        # fields LangChain spells the same way; the others (reasoning `summary`, a
        # block's `provider` ...) have no LangChain field and are escaped
        (out if key in _SAME_NAMED else escape)[key] = value
    _attach_extras(out, lc_extras, escape, neutral_extras, spread=spread)
    return out, respelled


def _with_namespace(
    neutral_extras: Mapping[str, Any] | None, namespace: Mapping[str, Any]
) -> dict[str, Any] | None:
    """A block's extras with ``extras["langchain"]`` replaced (None when nothing is left)."""
    extras = {key: value for key, value in (neutral_extras or {}).items() if key != NAMESPACE}
    if namespace:
        extras[NAMESPACE] = dict(namespace)
    return extras or None


def _media_to_lc(
    kind: str, data: dict[str, Any], namespace: Mapping[str, Any], *, respell: bool
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A media block in the LangChain spelling it came in (see ``_from_lc._read_openai``).

    Returns the block in that spelling, or None for a v1 block (its ``data:`` URL put
    back in ``data``), with what is left of ``extras["langchain"]`` once the records
    of the spelling are taken out. ``data`` changes only then. A block that no longer
    fits the spelling it records is a v1 block: the namespace comes back None, to be
    escaped whole, so that the neutral block comes back as it is.
    """
    rest = dict(namespace)
    form = rest.pop(FORM) if rest.get(FORM) in (OPENAI_FORM, DATA_URL_FORM) else None
    guessed = kind == "image" and rest.get(GUESSED) is True
    if guessed:
        del rest[GUESSED]
    source = rest.get("source_type")
    if not (isinstance(source, str) and source in V0_SOURCES and kind in _V0_KINDS[source]):
        source = None  # not a v0 block: `source_type` is a key of the block, like others
    if form is None and not guessed and source is None:
        return None, rest
    if not respell:
        return None, None
    trial = dict(data)
    if guessed:
        if "base64" not in trial or "mime_type" not in trial:
            return None, None
        del trial["mime_type"]  # LangChain had none
    shaped: dict[str, Any] | None = None
    if form == OPENAI_FORM:
        markers = {key: rest.pop(key) for key in OPENAI_MARKERS.get(kind, ()) if key in rest}
        inner = markers.get(OPENAI_KEYS.get(kind, ""))
        shaped = _openai_to_lc(kind, trial, markers, inner if isinstance(inner, dict) else {})
        fits = shaped is not None
    elif source is not None:
        del rest["source_type"]
        shaped = _v0_to_lc(kind, trial, source, form == DATA_URL_FORM)
        fits = shaped is not None
    elif form == DATA_URL_FORM:
        fits = _inline_only(trial)
        if fits:
            trial["url"] = data_url(trial.pop("mime_type"), trial.pop("base64"))
    else:
        fits = True
    if not fits:
        return None, None
    data.clear()
    data.update(trial)
    return shaped, rest


# Neutral block types that a v0 block of each source type becomes.
_V0_KINDS: Final = {
    "url": ("image", "audio", "file"),
    "base64": ("image", "audio", "file"),
    "id": ("image", "audio", "file"),
    "text": ("text-plain",),
}


def _inline_only(data: Mapping[str, Any], *, typed: bool = True) -> bool:
    """Whether the block is inline data only (with its media type unless not ``typed``)."""
    inline = "base64" in data and "url" not in data and "file_id" not in data
    return inline and (not typed or "mime_type" in data)


def _openai_to_lc(
    kind: str, data: dict[str, Any], markers: Mapping[str, Any], inner: Mapping[str, Any]
) -> dict[str, Any] | None:
    """An OpenAI Chat Completions part; None when the block does not fit one."""
    if kind == "image" and "file_id" not in data and ("url" in data) != ("base64" in data):
        if ("url" in data) == ("mime_type" in data):
            return None  # a URL with a media type, or data without one
        url = (
            data.pop("url")
            if "url" in data
            else data_url(data.pop("mime_type"), data.pop("base64"))
        )
        image: dict[str, Any] = {"url": url}
        if "detail" in data:
            image["detail"] = data.pop("detail")
        image.update(inner)
        bare = markers.get("bare_url") is True and len(image) == 1
        return {"type": "image_url", "image_url": url if bare else image}
    if kind == "audio" and _inline_only(data):
        audio = {"data": data.pop("base64"), "format": audio_format(data.pop("mime_type"))}
        audio.update(inner)
        return {"type": "input_audio", "input_audio": audio}
    if kind == "file" and "url" not in data and ("base64" in data) == ("mime_type" in data):
        file: dict[str, Any] = {}
        if "base64" in data:
            mime, encoded = data.pop("mime_type"), data.pop("base64")
            file["file_data"] = (
                encoded if markers.get("bare_base64") is True else data_url(mime, encoded)
            )
        for key in ("file_id", "filename"):
            if key in data:
                file[key] = data.pop(key)
        file.update(inner)
        return {"type": "file", "file": file}
    return None


def _v0_to_lc(
    kind: str, data: dict[str, Any], source: str, inline_url: bool
) -> dict[str, Any] | None:
    """A LangChain v0 data block; None when the block does not fit one."""
    out: dict[str, Any] = {"type": kind, "source_type": source}
    if source == "text":
        sources = data.keys() & {"text", "url", "base64", "file_id", "title", "context"}
        if kind != "text-plain" or sources != {"text"}:
            return None
        out.update(type="file", url=data.pop("text"))
    elif kind not in ("image", "audio", "file"):
        return None
    elif source == "url" and inline_url and _inline_only(data):
        out["url"] = data_url(data.pop("mime_type"), data.pop("base64"))
    elif source == "url" and "url" in data and "base64" not in data and "file_id" not in data:
        out["url"] = data.pop("url")
    elif source == "base64" and _inline_only(data, typed=False):
        out["data"] = data.pop("base64")
    elif (
        source == "id"
        and "file_id" in data
        and set(data) <= {"file_id", "filename", "detail", "index"}
    ):
        out["id"] = data.pop("file_id")
    else:
        return None
    for key in ("mime_type", "filename", "detail"):
        if key in data:
            out[key] = data.pop(key)
    return out


# ----------------------------------------------------------------------------- messages


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
    data = plain(message)
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
