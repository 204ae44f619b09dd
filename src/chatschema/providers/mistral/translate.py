"""The bridge to the Chat Completions walk: Mistral's differences, both ways.

Mistral's chat completions share Chat Completions' messages, tool calls, responses
and stream chunks; what differs is said here and the rest is the shared walk of
:mod:`chatschema.providers.openai_chat`:

- decoding, a Mistral payload is first made a Chat Completions one (chunk types
  the shared walk reads otherwise are hidden, ``random_seed`` is ``seed``), then the
  neutral result is renamed (``extras["openai_chat"]`` becomes ``extras["mistral"]``)
  and Mistral's own things are read (thinking chunks, ``top_k``, finish reasons);
- encoding, the neutral input is renamed the other way on a copy (another format's
  ``openai_chat`` extras stay foreign: the two names swap), reasoning of this format
  becomes its thinking chunk, and the written payload gets Mistral's keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from chatschema_models.content import (
    AudioBlock,
    FileBlock,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ResourceBlock,
    ResourceLinkBlock,
    TextBlock,
)
from chatschema_models.message import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from chatschema_models.tool import ToolCall
from pydantic import BaseModel

from chatschema.errors import ChatSchemaError, ConversionError, Problem
from chatschema.providers._common.resources import resource_as
from chatschema.providers.mistral.wire import (
    CHAT,
    CHAT_PARTS,
    FINISH_REASONS,
    HIDDEN,
    NAME,
    OUTPUT_LIMIT,
    SEED,
    THINKING,
)

OWN_REASONS = frozenset({"model_length", "error"})
"""Mistral's finish reasons that Chat Completions does not have."""

NULLABLE = ("user", "tool")
"""API reference: the roles whose message content may be ``null`` (a tuple: a role
of any JSON value is compared, never hashed)."""

NULL_CONTENT = "null_content"
"""The mark of a message whose content came ``null`` (kept in its extras)."""

NO_TYPE = "no_type"
"""The mark of a tool that came without ``type`` (kept in its extras, written back
by the shared walk as a key and taken out of the written tool)."""

__all__ = [
    "from_chat",
    "put",
    "from_chat_payload",
    "renamed_error",
    "renamed_problems",
    "to_chat",
    "to_chat_payload",
    "to_chat_response",
]

_M = TypeVar("_M", bound=BaseModel)

_NAMES = {CHAT: NAME, NAME: CHAT}
_SWAPPED = re.compile(rf"\b(?:{CHAT}|{NAME})\b")
_META = ("extras", "response_metadata")


# ------------------------------------------------------------------ renaming


def _swap_keys(value: dict[str, Any]) -> dict[str, Any]:
    """A dict with the two format names swapped as keys (order kept)."""
    if CHAT not in value and NAME not in value:
        return value
    return {_NAMES.get(key, key): item for key, item in value.items()}


def _swap(model: BaseModel) -> None:
    """Swap the two names in a model tree's extras, metadata and ``provider`` (in place)."""
    fields = model.__dict__
    for name, value in fields.items():
        if name in _META:
            if isinstance(value, dict):
                fields[name] = _swap_keys(value)
        elif name == "provider":
            if value in _NAMES:
                fields[name] = _NAMES[value]
        elif isinstance(value, BaseModel):
            _swap(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, BaseModel):
                    _swap(item)


def renamed_problems(problems: list[Problem]) -> list[Problem]:
    """Problems found by the shared walk, as this format's (the names swapped back)."""
    return [
        Problem(_swapped_text(p.pointer), p.keyword, _swapped_text(p.message)) for p in problems
    ]


def _swapped_text(text: str) -> str:
    return _SWAPPED.sub(lambda found: _NAMES[found.group(0)], text)


def renamed_error(error: ChatSchemaError) -> ChatSchemaError:
    """An error of the shared walk as this format's: provider, reason and problems."""
    if isinstance(error, ConversionError):
        if error.provider == CHAT:
            error.provider = NAME
        error.reason = _swapped_text(error.reason)
        error.problems = tuple(renamed_problems(list(error.problems)))
        error.args = (_swapped_text(str(error.args[0])),) if error.args else error.args
    return error


def guarded_call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call the shared walk; its errors come out as this format's."""
    try:
        return function(*args, **kwargs)
    except ChatSchemaError as error:
        raise renamed_error(error) from None


# ------------------------------------------------------------------ decoding


def to_chat_payload(data: Any) -> Any:
    """A Mistral request (or message list) as the shared walk reads it (a shallow copy)."""
    if isinstance(data, list):
        return [_chat_message(message) for message in data]
    if not isinstance(data, dict):
        return data
    out = dict(data)
    if SEED in out and "seed" not in out:  # API reference: `random_seed`
        out = {("seed" if key == SEED else key): value for key, value in out.items()}
    messages = out.get("messages")
    if isinstance(messages, list):
        out["messages"] = [_chat_message(message) for message in messages]
    tools = out.get("tools")
    if isinstance(tools, list):
        # API reference, Tool: `type` defaults to "function" (and may be left out)
        out["tools"] = [
            {"type": "function", **tool, NO_TYPE: True}
            if isinstance(tool, dict) and "type" not in tool and "function" in tool
            else tool
            for tool in tools
        ]
    return out


def to_chat_response(data: Any) -> Any:
    """A Mistral response or stream chunk as the shared walk reads it."""
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        return data
    choices = []
    for choice in data["choices"]:
        if isinstance(choice, dict):
            choice = dict(choice)
            for key in ("message", "delta"):
                if isinstance(choice.get(key), dict):
                    choice[key] = _chat_message(choice[key])
        choices.append(choice)
    return {**data, "choices": choices}


def _chat_message(message: Any) -> Any:
    """A message with the chunk types the shared walk reads otherwise hidden.

    A user or tool message's ``null`` content (the API reference types both
    nullable) is an empty list, marked to be written back ``null``.
    """
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    if content is None and message.get("role") in NULLABLE and "content" in message:
        return {**message, "content": [], NULL_CONTENT: True}
    if not isinstance(content, list) or all(_shared(part) for part in content):
        return message
    parts = [
        part if _shared(part) or _kind(part) is None else {**part, "type": HIDDEN + part["type"]}
        for part in content
    ]
    return {**message, "content": parts}


def _shared(part: Any) -> bool:
    """Whether the shared walk reads a chunk: a text or image chunk of its shape.

    (A text chunk whose ``text`` is not a string is Mistral's to keep as it came.)
    """
    kind = _kind(part)
    return kind in CHAT_PARTS and (kind != "text" or isinstance(part.get("text"), str))


def _kind(part: Any) -> str | None:
    """A content chunk's type, when it is a string."""
    if isinstance(part, dict):
        kind = part.get("type")
        if isinstance(kind, str):
            return kind
    return None


def from_chat(model: _M) -> _M:
    """The shared walk's result as this format's (renamed, Mistral's things read), in place."""
    _swap(model)
    _read_own(model)
    return model


def _read_own(model: BaseModel) -> None:
    """Thinking chunks to reasoning blocks, hidden chunk types back, finish reasons."""
    fields = model.__dict__
    if isinstance(model, AssistantMessage) or "finish_reason" in fields:
        raw = fields.get("raw_finish_reason")
        if raw in FINISH_REASONS and fields.get("finish_reason") == "other":
            fields["finish_reason"] = FINISH_REASONS[raw]
    for name, value in fields.items():
        if name in _META:
            continue
        if isinstance(value, list):
            for position, item in enumerate(value):
                if isinstance(item, NonStandardBlock):
                    value[position] = _own_block(item)
                elif isinstance(item, BaseModel):
                    _read_own(item)
        elif isinstance(value, BaseModel):
            _read_own(value)


def _own_block(block: NonStandardBlock) -> Any:
    """A hidden Mistral chunk: a thinking chunk is a reasoning block, any other kept."""
    value = block.value
    if not isinstance(value, dict) or not str(value.get("type", "")).startswith(HIDDEN):
        return block
    kind = value["type"][len(HIDDEN) :]
    restored = {**value, "type": kind}
    if kind == THINKING:
        reasoning = _reasoning(restored, block)
        if reasoning is not None:
            return reasoning
    block.__dict__["value"] = restored
    return block


def _reasoning(chunk: dict[str, Any], block: NonStandardBlock) -> ReasoningBlock | None:
    """A thinking chunk as a reasoning block (its text joined); None when not one."""
    inner = chunk.get("thinking")
    if not isinstance(inner, list):
        return None
    texts = [
        part["text"]
        for part in inner
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    ]
    extras: dict[str, Any] = {}
    plain = len(texts) == len(inner) == 1 and set(inner[0]) == {"type", "text"}
    if not plain:
        extras["thinking"] = inner  # references or several chunks: kept as they came
    fields: dict[str, Any] = {"text": "".join(texts), "provider": NAME}
    signature = chunk.get("signature")
    if isinstance(signature, str):
        fields["signature"] = signature
    elif "signature" in chunk:
        extras["signature"] = signature
    extras.update(
        (key, item) for key, item in chunk.items() if key not in ("type", "thinking", "signature")
    )
    if block.index is not None:
        fields["index"] = block.index
    if extras:
        fields["extras"] = {NAME: extras}
    return ReasoningBlock(**fields)


def from_chat_payload(payload: dict[str, Any], settings_top_k: int | None) -> dict[str, Any]:
    """A request written by the shared walk with Mistral's keys (in place)."""
    if "seed" in payload and SEED not in payload:
        payload[SEED] = payload.pop("seed")
    if settings_top_k is not None:
        payload["top_k"] = settings_top_k
    for tool in payload.get("tools") or ():
        if isinstance(tool, dict) and tool.pop(NO_TYPE, None) is True:
            tool.pop("type", None)
    for message in payload.get("messages") or ():
        if NULL_CONTENT in message and message.pop(NULL_CONTENT) is True:
            message["content"] = None
    return payload


# ------------------------------------------------------------------ encoding


def to_chat(model: _M) -> tuple[_M, int | None]:
    """The neutral input as the shared walk writes it for Mistral (copied where it differs).

    Returns it and the ``top_k`` setting taken out of it (Mistral has ``top_k``; the
    shared walk has no key for it).
    """
    copy = _cow(model, _KINDS)
    if copy is model:
        copy = model.model_copy()  # (its own fields are set below)
    top_k = None
    fields = copy.__dict__
    settings = fields.get("settings")
    if settings is not None and settings.top_k is not None:
        top_k = settings.top_k
        settings = fields["settings"] = settings.model_copy(update={"top_k": None})
    own = fields.get("extras")
    if settings is not None and settings.max_output_tokens is not None:
        kept = own.get(CHAT) if isinstance(own, dict) else None
        marked = {**kept, "output_limit_key": OUTPUT_LIMIT} if isinstance(kept, dict) else None
        fields["extras"] = {**(own or {}), CHAT: marked or {"output_limit_key": OUTPUT_LIMIT}}
    return copy, top_k


def to_chat_message(message: _M, *, thinking: bool = True) -> _M:
    """A reply as the shared server side writes it for Mistral (copied where it differs).

    ``thinking``: reasoning of this format as thinking chunks (a response body);
    else left as reasoning, which the stream writer says as a field first.
    """
    copy = _cow(message, _KINDS if thinking else _KINDS[1:])
    fields = copy.__dict__
    finish, raw = fields.get("finish_reason"), fields.get("raw_finish_reason")
    update = None
    if raw in OWN_REASONS and FINISH_REASONS[raw] == finish:
        update = {"finish_reason": "other"}  # the shared walk writes a raw reason it knows
    elif raw is None and finish == "error":
        update = {"raw_finish_reason": "error", "finish_reason": "other"}
    if update:
        copy = copy.model_copy() if copy is message else copy
        copy.__dict__.update(update)
    return copy


_KINDS = (ReasoningBlock, FileBlock, AudioBlock, RefusalBlock)
"""The blocks Mistral says in its own chunks (reasoning first: a stream leaves it)."""


def _cow(model: _M, kinds: tuple[type, ...]) -> _M:
    """``model`` with the two names swapped and Mistral's chunks made.

    Copied where it changes; the input is left as it is.
    """
    fields = model.__dict__
    if fields.get("extras") is None and _plain(model, fields):
        return model
    changes: dict[str, Any] = {}
    for name, value in fields.items():
        if value is None or value.__class__ in _SCALARS:
            continue
        if name in _META:
            if isinstance(value, dict) and (CHAT in value or NAME in value):
                changes[name] = _swap_keys(value)
        elif isinstance(value, list):
            items = None
            for position, item in enumerate(value):
                if not isinstance(item, BaseModel):
                    continue
                if isinstance(item, _RESOURCES):
                    # a resource as the block it maps to, when that is Mistral's own chunk
                    mapped = resource_as(item)
                    if isinstance(mapped, kinds):
                        item = mapped
                made = _cow(item, kinds)
                if isinstance(made, kinds):
                    made = _own_chunk(made)
                if made is not item:
                    if items is None:
                        items = list(value)
                    items[position] = made
            if items is not None:
                changes[name] = items
        elif isinstance(value, BaseModel):
            made = _cow(value, kinds)
            if made is not value:
                changes[name] = made
    provider = fields.get("provider")
    if provider in _NAMES:
        changes["provider"] = _NAMES[provider]
    if not changes:
        return model
    copy = model.model_copy()
    copy.__dict__.update(changes)
    return copy


_SCALARS = frozenset({str, int, float, bool})
_RESOURCES = (ResourceBlock, ResourceLinkBlock)


def _plain(model: BaseModel, fields: dict[str, Any]) -> bool:
    """A text block, tool call or message of them without extras: nothing to change."""
    cls = model.__class__
    if cls is TextBlock or cls is ToolCall:
        return True
    if cls not in _MESSAGES or fields.get("provider") is not None:
        return False
    content = fields["content"]
    if content.__class__ is not str and not all(
        block.__class__ is TextBlock and block.extras is None for block in content
    ):
        return False
    calls = fields.get("tool_calls")
    return not fields.get("invalid_tool_calls") and (
        not calls or all(call.extras is None for call in calls)
    )


_MESSAGES = frozenset({SystemMessage, UserMessage, AssistantMessage, ToolMessage})


def _own_chunk(block: Any) -> Any:
    """A block Mistral says in its own chunk, as a part the shared walk writes verbatim."""
    chunk: dict[str, Any] | None = None
    if isinstance(block, RefusalBlock):
        # Mistral has no refusal: its text is what the model said (as other formats send it)
        return TextBlock(text=block.text, index=block.index, extras=block.extras)
    extras = (block.extras or {}).get(CHAT, {})  # this format's, after the swap
    if isinstance(block, ReasoningBlock):
        if block.provider != CHAT or block.text is None:
            return block  # another format's reasoning: the reasoning policy decides
        inner = extras.get("thinking")
        if not isinstance(inner, list):
            inner = [{"type": "text", "text": block.text}]
        chunk = {"type": THINKING, "thinking": inner}
        if block.signature is not None:
            chunk["signature"] = block.signature
        chunk.update((k, v) for k, v in extras.items() if k not in ("thinking", "type"))
    elif isinstance(block, FileBlock):
        chunk = _file_chunk(block)
        if chunk is None:  # no Mistral chunk: the unsupported policy decides, located
            return NonStandardBlock(value={"type": "file", "mime_type": block.mime_type})
    elif block.base64 is not None:
        # Audio docs: `input_audio` is the base64 data as a string
        chunk = {"type": "input_audio", "input_audio": block.base64}
    if chunk is None:
        return block
    if not isinstance(block, ReasoningBlock):
        chunk.update((k, v) for k, v in extras.items() if k not in chunk)  # kept keys
    fields: dict[str, Any] = {"value": chunk, "extras": {CHAT: {"part": True}}}
    if block.index is not None:
        fields["index"] = block.index
    return NonStandardBlock(**fields)


def _file_chunk(block: FileBlock) -> dict[str, Any] | None:
    """A file as a ``document_url`` or ``file`` chunk; None when Mistral has none for it."""
    if block.url is not None:
        chunk: dict[str, Any] = {"type": "document_url", "document_url": block.url}
    elif block.base64 is not None and (block.mime_type or "").startswith("application/pdf"):
        # Document understanding docs: a PDF as base64 goes as a data URL
        data = f"data:application/pdf;base64,{block.base64}"
        chunk = {"type": "document_url", "document_url": data}
    elif block.file_id is not None:
        return {"type": "file", "file_id": block.file_id}
    else:
        return None
    if block.filename is not None:
        chunk["document_name"] = block.filename
    return chunk


def put(model: BaseModel, field: str, value: Any) -> None:
    """Set a field in place; None leaves it unset (as if never given)."""
    model.__dict__[field] = value
    if value is None:
        model.__pydantic_fields_set__.discard(field)
    else:
        model.__pydantic_fields_set__.add(field)


def kept(extras: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """This format's extras of a model (empty when none)."""
    own = (extras or {}).get(NAME)
    return own if isinstance(own, dict) else {}
