"""The two worlds: neutral values as this format names itself, and as the shared codec does.

The Responses codec keeps its bookkeeping under ``extras["openai_responses"]`` and
marks its blocks ``provider="openai_responses"``. Handing it a value, this module
renames this format's own to the codec's name (``inbound``); what it hands back is
renamed to ``open_responses`` (``outbound``), and so are its errors. Blocks that
only Open Responses has (``input_video`` parts) go to and from the shared codec as the
whole part it keeps (``non_standard``).

Going in, the OpenAI Responses format's own values are this format's too (the same
wire object: ``convert`` between the two carries everything), unless the value also
holds this format's extras, whose keys then win and the others stay foreign.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import pydantic
from chatschema_models.content import CompactionBlock, NonStandardBlock, ReasoningBlock, VideoBlock
from chatschema_models.message import ToolMessage, UserMessage

from chatschema.errors import ChatSchemaError, Problem
from chatschema.providers._common import data_url, parse_data_url
from chatschema.providers.open_responses.wire import (
    INNER,
    KIND_PART,
    NAME,
    VIDEO_KEYS,
    VIDEO_PART,
)

__all__ = ["inbound", "outbound", "rename_error", "renamed_errors", "renamed_problem", "swap_text"]

_M = TypeVar("_M", bound=pydantic.BaseModel)
_OUT = {INNER: NAME, NAME: INNER}
_ADOPTED = (ReasoningBlock, CompactionBlock)
_NAMES = re.compile(r"\bopen(?:ai)?_responses\b")


def _out_extras(extras: dict[str, Any]) -> dict[str, Any] | None:
    if INNER not in extras and NAME not in extras:
        return None
    return {_OUT.get(key, key): value for key, value in extras.items()}


def _in_extras(extras: dict[str, Any]) -> dict[str, Any] | None:
    if NAME in extras:  # this format's own win; the Responses format's stay foreign
        return {_OUT.get(key, key): value for key, value in extras.items()}
    return None  # (none of this format's: the Responses format's, if any, are the codec's)


def _walk(model: _M, extras: Any, adopt: bool) -> _M:
    """``model`` with its providers and extras keys renamed (copies where they change).

    ``adopt``: the OpenAI Responses format's reasoning and compaction blocks stay
    the shared codec's own (the same items); its hosted tools and server tool
    blocks stay foreign (the specification has only function tools).
    """
    update: dict[str, Any] = {}
    fields = model.__dict__
    provider = fields.get("provider")
    if provider.__class__ is str and provider in _OUT and not _kept(model, provider, adopt):
        update["provider"] = _OUT[provider]
    for key in ("extras", "response_metadata"):
        value = fields.get(key)
        if value:
            renamed = extras(value)
            if renamed is not None:
                update[key] = renamed
    for key in _containers(model.__class__):
        value = fields.get(key)
        if value.__class__ is list:
            items: list[Any] | None = None
            for position, item in enumerate(value):
                if isinstance(item, pydantic.BaseModel) and _touched(item):
                    new = _walk(item, extras, adopt)
                    if new is not item:
                        items = list(value) if items is None else items
                        items[position] = new
            if items is not None:
                update[key] = items
        elif isinstance(value, pydantic.BaseModel) and _touched(value):
            new = _walk(value, extras, adopt)
            if new is not value:
                update[key] = new
    return model.model_copy(update=update) if update else model


def _kept(model: pydantic.BaseModel, provider: str, adopt: bool) -> bool:
    """Whether a block of the Responses format stays the shared codec's own (adopted)."""
    return adopt and provider == INNER and isinstance(model, _ADOPTED)


def _touched(model: pydantic.BaseModel) -> bool:
    """Whether a value holds a provider name anywhere: extras, a provider (read only)."""
    fields = model.__dict__
    if fields.get("extras") or fields.get("response_metadata") or fields.get("provider"):
        return True
    for key in _containers(model.__class__):
        value = fields.get(key)
        if value.__class__ is list:
            for item in value:
                if isinstance(item, pydantic.BaseModel) and _touched(item):
                    return True
        elif isinstance(value, pydantic.BaseModel) and _touched(value):
            return True
    return False


@cache
def _containers(cls: type[pydantic.BaseModel]) -> tuple[str, ...]:
    """The fields of a model class that may hold other models (all but plain scalars)."""
    return tuple(
        name
        for name, field in cls.model_fields.items()
        if name not in _OWN_FIELDS and not _plain(field.annotation)
    )


_OWN_FIELDS = frozenset({"provider", "extras", "response_metadata"})
_PLAIN = (str, int, float, bool, type(None), dict)


def _plain(annotation: Any) -> bool:
    """Whether a field's type holds no model: scalars, dicts, literals and unions of them."""
    if annotation in _PLAIN or get_origin(annotation) in (dict, Literal):
        return True
    aliased = getattr(annotation, "__value__", None)  # (a type alias: what it names)
    if aliased is not None:
        return _plain(aliased)
    if get_origin(annotation) is Annotated:
        return _plain(get_args(annotation)[0])
    if get_origin(annotation) in (Union, UnionType):
        return all(_plain(argument) for argument in get_args(annotation))
    return False  # (lists, models: looked into)


def outbound(model: _M) -> _M:
    """A value the shared codec made, as this format names it (and its own blocks)."""
    return _own_blocks(_walk(model, _out_extras, False))


def inbound(model: _M) -> _M:
    """A value of this format, as the shared codec reads it (its own blocks as parts/items)."""
    return _walk(_shared_blocks(model), _in_extras, True)


# ============================================================ blocks only this format has


def _own_blocks(model: _M) -> _M:
    """Kept ``input_video`` parts as ``VideoBlock``."""
    return _blocks(model, NonStandardBlock, lambda block, media: _own_block(block))


def _own_block(block: Any) -> Any:
    if not isinstance(block, NonStandardBlock) or not block.extras:
        return block
    marker = block.extras.get(NAME)
    value = block.value
    kind = value.get("type")
    if marker == KIND_PART and kind == VIDEO_PART and tuple(value) == VIDEO_KEYS:
        return _video(block, value["video_url"])
    return block


def _video(block: NonStandardBlock, url: Any) -> Any:
    if not isinstance(url, str):
        return block
    fields: dict[str, Any] = {"url": url}
    inline = parse_data_url(url)
    if inline is not None and data_url(*inline) == url:
        fields = {"base64": inline[1], "mime_type": inline[0]}
    if block.index is not None:
        fields["index"] = block.index
    try:
        return VideoBlock(**fields)
    except pydantic.ValidationError:  # (a URL the neutral model refuses stays as it came)
        return block


def _shared_blocks(model: _M) -> _M:
    """This format's own video blocks as the ``input_video`` parts they are.

    Only in tool results: the OpenAPI document's ``InputVideoContent`` is a part of
    ``function_call_output`` lists, not of user messages (``UserMessageItemParam``),
    so a user message's video stays a block the unsupported-content policy refuses.
    """
    return _blocks(model, VideoBlock, _shared_block, ToolMessage)


def _blocks(
    model: _M, kind: type, change: Any, media: type | tuple[type, ...] = (UserMessage, ToolMessage)
) -> _M:
    """``model`` (a conversation, message or chunk) with its blocks of ``kind`` changed."""
    fields = model.__dict__
    messages = fields.get("messages")
    if messages is not None:
        changed: list[Any] | None = None
        for index, message in enumerate(messages):
            new = _blocks(message, kind, change, media)
            if new is not message:
                changed = list(messages) if changed is None else changed
                changed[index] = new
        return model if changed is None else model.model_copy(update={"messages": changed})
    content = fields.get("content")
    if content.__class__ is not list or not any(block.__class__ is kind for block in content):
        return model
    holds = isinstance(model, media)
    blocks = [change(block, holds) for block in content]
    if any(new is not old for new, old in zip(blocks, content, strict=True)):
        return model.model_copy(update={"content": blocks})
    return model


def _shared_block(block: Any, media: bool) -> Any:
    if isinstance(block, VideoBlock) and media:
        return _video_part(block)
    return block


def _video_part(block: VideoBlock) -> Any:
    if block.url is not None:
        url = block.url
    elif block.base64 is not None and block.mime_type is not None:
        url = data_url(block.mime_type, block.base64)
    else:
        return block  # (a file id: the unsupported-content policy says what happens)
    if block.cache_control is not None or (block.extras and NAME in block.extras):
        return block
    extras = {**(block.extras or {}), NAME: dict(KIND_PART)}
    fields: dict[str, Any] = {"value": {"type": VIDEO_PART, "video_url": url}, "extras": extras}
    if block.index is not None:
        fields["index"] = block.index
    return NonStandardBlock(**fields)


# ============================================================================ errors


def swap_text(text: str) -> str:
    """A message of the shared codec as this format says it (the two names swapped)."""
    return _NAMES.sub(lambda match: _OUT[match.group()], text)


def rename_error(error: BaseException) -> BaseException:
    """The shared codec's error (or warning) as this format's, changed in place."""
    provider = getattr(error, "provider", None)
    if provider == NAME:
        return error  # (raised by this format's own code: named already)
    if provider == INNER:
        error.provider = NAME  # type: ignore[attr-defined]
    error.args = tuple(swap_text(arg) if isinstance(arg, str) else arg for arg in error.args)
    reason = getattr(error, "reason", None)
    if isinstance(reason, str):
        error.reason = swap_text(reason)  # type: ignore[attr-defined]
    problems = getattr(error, "problems", None)
    if problems:
        error.problems = tuple(  # type: ignore[attr-defined]
            renamed_problem(problem) for problem in problems
        )
    return error


def renamed_problem(problem: Problem) -> Problem:
    """A problem of the shared codec as this format says it (message and pointer)."""
    return replace(problem, pointer=swap_text(problem.pointer), message=swap_text(problem.message))


@contextmanager
def renamed_errors() -> Iterator[None]:
    """Errors raised inside name this format, as if it had raised them."""
    try:
        yield
    except ChatSchemaError as error:
        rename_error(error)
        raise
