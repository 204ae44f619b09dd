"""Counting tokens, approximately or with a tokenizer. Never over the network.

:func:`count_tokens_approximately` is the fast estimate for the hot path (trimming a
history before every call). The formula, per message::

    characters = role + name (optional) + text of the content
                 + tool calls: name and arguments as JSON
                 + tool results: the call id
    tokens     = ceil(characters / chars_per_token) + extra_tokens_per_message
                 + tokens_per_image for each image
                 + tokens_per_media for each audio, video or non-text file

Text counts by code points; base64 data is never counted as characters (a 1 MB
image is not 350,000 tokens); reasoning counts its text and summary (signatures and
encrypted reasoning are opaque and not counted). Tool definitions, when given, count
as their JSON.

:func:`tiktoken_counter` counts with a tiktoken encoding. tiktoken downloads
encodings on first use; here that must not happen, so a missing encoding file is a
clear error saying where to put it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from chatschema_models.message import AssistantMessage, Message, ToolMessage
from chatschema_models.tool import ToolDefinition

from chatschema._coerce import MessageLike, coerce_messages
from chatschema.errors import ChatSchemaError, option_type_error, wrong_type

__all__ = ["TokenizerUnavailableError", "count_tokens_approximately", "tiktoken_counter"]


def count_tokens_approximately(
    messages: MessageLike | Iterable[MessageLike],
    *,
    chars_per_token: float = 4.0,
    extra_tokens_per_message: float = 3.0,
    count_name: bool = True,
    tokens_per_image: int = 85,
    tokens_per_media: int = 256,
    tools: Sequence[ToolDefinition | Mapping[str, Any]] | None = None,
) -> int:
    """Estimate the tokens of messages (one message or several) by the module's formula.

    Args:
        messages: a message or messages: models, or anything
            :func:`chatschema.coerce_messages` reads (dicts ...), as
            :func:`chatschema.trim_messages` takes them.
        chars_per_token: characters per token (4 suits English with common BPE
            tokenizers; use about 2-3 for code or languages without spaces).
        extra_tokens_per_message: per-message overhead of the chat template.
        count_name: whether a message's ``name`` counts.
        tokens_per_image: flat cost of an image (85: one low-detail OpenAI tile).
        tokens_per_media: flat cost of audio, video, a non-text file or a document
            given by URL, base64 or file id.
        tools: tool definitions sent with the messages (models or their dicts),
            counted as their JSON.

    Raises:
        ValidationError: for a message or tool definition that cannot be read.
        OptionError: for a numeric option that is not a number (or not positive,
            for ``chars_per_token``).
    """
    messages = coerce_messages(messages)
    _check_numbers(
        extra_tokens_per_message=extra_tokens_per_message,
        tokens_per_image=tokens_per_image,
        tokens_per_media=tokens_per_media,
    )
    if not _is_number(chars_per_token) or chars_per_token <= 0:
        raise option_type_error("chars_per_token", chars_per_token, "a positive number")
    if tools is not None and not isinstance(tools, (list, tuple)):
        raise wrong_type(tools, "a list of tool definitions", type_name="tools")
    total = 0.0
    if tools:
        text = sum(_json_length(_tool_data(tool)) for tool in tools)
        total += math.ceil(text / chars_per_token)
    for message in messages:
        characters, images, media = _message_characters(message, count_name)
        total += math.ceil(characters / chars_per_token) + extra_tokens_per_message
        total += images * tokens_per_image + media * tokens_per_media
    return math.ceil(total)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_numbers(**options: object) -> None:
    """Numeric options: numbers (``bool`` is not one)."""
    for name, value in options.items():
        if not _is_number(value):
            raise option_type_error(name, value, "a number")


def _tool_data(tool: Any) -> dict[str, Any]:
    """A tool definition (a model or its dict) as the JSON data counted."""
    if not isinstance(tool, ToolDefinition):
        from chatschema.validation import parse

        tool = parse(tool, "ToolDefinition")
    return cast(dict[str, Any], tool.model_dump(exclude_unset=True))


class TokenizerUnavailableError(ChatSchemaError, RuntimeError):
    """A tokenizer or its data cannot be loaded without the network."""


def _tiktoken_cache_dir() -> Path:
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        value = os.environ.get(variable)
        if value:
            return Path(value)
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def tiktoken_counter(
    encoding: Any = "o200k_base",
    *,
    extra_tokens_per_message: int = 3,
    tokens_per_image: int = 85,
    tokens_per_media: int = 256,
) -> Callable[[Message | Iterable[Message]], int]:
    """A token counter backed by a tiktoken encoding (optional dependency ``tiktoken``).

    Args:
        encoding: an encoding name (``"o200k_base"``, ``"cl100k_base"`` ...) whose
            file is already in tiktoken's cache, or a ``tiktoken.Encoding`` object
            (for instance one built from files you ship).
        extra_tokens_per_message: per-message overhead of the chat template.
        tokens_per_image: flat cost of an image.
        tokens_per_media: flat cost of audio, video or a non-text file.

    Returns:
        A function counting the tokens of a message or of messages: role, name,
        text and tool calls encoded, plus the flat costs.

    Raises:
        TokenizerUnavailableError: tiktoken is not installed, or the encoding's file
            is not in the cache (``TIKTOKEN_CACHE_DIR``); nothing is downloaded.
        OptionError: for an ``encoding`` that is neither a name nor an encoding
            object, or a numeric option that is not a number.
    """
    _check_numbers(
        extra_tokens_per_message=extra_tokens_per_message,
        tokens_per_image=tokens_per_image,
        tokens_per_media=tokens_per_media,
    )
    if not isinstance(encoding, str) and not callable(getattr(encoding, "encode", None)):
        raise option_type_error("encoding", encoding, "an encoding name or a tiktoken.Encoding")
    try:
        import tiktoken
        import tiktoken_ext.openai_public as public  # type: ignore[import-untyped]
    except ImportError:
        raise TokenizerUnavailableError(
            "tiktoken is not installed: pip install 'chatschema[tokenizer]'"
        ) from None
    if isinstance(encoding, str):
        constructor = getattr(public, encoding.replace("-", "_"), None)
        if constructor is None:
            raise TokenizerUnavailableError(f"unknown tiktoken encoding {encoding!r}")
        url = _encoding_file_url(constructor)
        cache = _tiktoken_cache_dir()
        cached = cache / hashlib.sha1(url.encode()).hexdigest()
        if url and not cached.exists():
            raise TokenizerUnavailableError(
                f"the tiktoken encoding {encoding!r} is not available offline: its file "
                f"({url}) is not in the cache {cache}. Copy it there as {cached.name}, or "
                "point TIKTOKEN_CACHE_DIR at a folder holding it, or pass a "
                "tiktoken.Encoding built from files you ship."
            )
        encoding = tiktoken.get_encoding(encoding)
    encode = encoding.encode

    def count(messages: MessageLike | Iterable[MessageLike]) -> int:
        messages = coerce_messages(messages)
        total = 0
        for message in messages:
            texts = [message.role, message.name or ""]
            content = message.content
            images = media = 0
            if isinstance(content, str):
                texts.append(content)
            else:
                block: Any
                for block in content:
                    if block.type == "image":
                        images += 1
                    elif block.type in _MEDIA:
                        media += 1
                    else:
                        texts.append(_block_text(block))
                        media += _opaque_media(block)
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls:
                    texts.append(call.name)
                    texts.append(_json_text(call.arguments))
            elif isinstance(message, ToolMessage):
                texts.append(message.tool_call_id)
            total += len(encode("\n".join(texts), disallowed_special=()))
            total += extra_tokens_per_message + images * tokens_per_image
            total += media * tokens_per_media
        return total

    return count


def _block_text(block: Any) -> str:
    kind = block.type
    if kind in ("text", "refusal"):
        return str(block.text)
    if kind == "reasoning":
        return " ".join([block.text or "", *(block.summary or ())])
    if kind == "text-plain":
        return str(block.text or "")
    if kind == "server_tool_call":
        return f"{block.name} {_json_text(block.arguments or {})}"
    if kind == "server_tool_result":
        return _json_text(block.output)
    if kind == "non_standard":
        return _json_text(block.value)
    if kind in ("resource", "resource_link", "compaction"):
        return _resource_text(block)
    return ""


def _resource_text(block: Any) -> str:
    """What a model reads of a resource, a resource link or a compaction block."""
    if block.type == "compaction":
        return str(block.text or "")  # the opaque data is counted as one media item
    if block.type == "resource":
        return f"{block.uri}\n{block.text}" if block.text is not None else block.uri
    fields = (block.uri, block.name, block.title, block.description)
    return " ".join(field for field in fields if field)


def _encoding_file_url(constructor: Callable[[], dict[str, Any]]) -> str:
    """The URL tiktoken would download an encoding's ranks from, read offline.

    tiktoken's encoding constructors call ``load_tiktoken_bpe(url, expected_hash)``;
    calling one with that function replaced records the URL without loading anything.
    """
    import tiktoken_ext.openai_public as public

    seen: list[str] = []
    original = public.load_tiktoken_bpe

    def record(url: str, *args: Any, **kwargs: Any) -> dict[bytes, int]:
        seen.append(url)
        return {}

    public.load_tiktoken_bpe = record
    try:
        constructor()
    except Exception:
        pass
    finally:
        public.load_tiktoken_bpe = original
    return seen[0] if seen else ""


# ------------------------------------------------------- the approximate count

_MEDIA = frozenset({"audio", "video", "file"})


def _opaque_media(block: Any) -> int:
    """1 for data read that is not text (resource bytes, opaque compaction), else 0."""
    kind = block.type
    if kind == "resource":
        return 1 if block.text is None else 0
    if kind == "compaction":
        return 1 if block.encrypted_content is not None else 0
    return 0


def _json_text(value: Any) -> str:
    """Free-form data as JSON text, for counting.

    Data built in code that JSON cannot hold (nested past the interpreter's limit,
    circular) is written as a placeholder of about its size instead of failing.
    """
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):
        return "." * _size_without_recursion(value)


# What ``json.dumps(value, ensure_ascii=False, default=str)`` builds on every call,
# built once (the same encoder, the same text, the same errors).
_ENCODE = json.JSONEncoder(ensure_ascii=False, default=str).encode


def _json_length(value: Any) -> int:
    """The length of :func:`_json_text` (estimated, without recursion, when needed)."""
    try:
        return len(_ENCODE(value))
    except (RecursionError, ValueError):
        return _size_without_recursion(value)


def _size_without_recursion(value: Any) -> int:
    """About how many characters of JSON a value makes, counted iteratively."""
    total, stack, seen = 0, [value], set()
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list, tuple)):
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, dict):
                total += 2 + sum(len(str(key)) + 4 for key in node)
                stack.extend(node.values())
            else:
                total += 2 + len(node)
                stack.extend(node)
        else:
            total += len(str(node))
    return total


def _message_characters(message: Message, count_name: bool) -> tuple[int, int, int]:
    """(characters, images, other media) of one message."""
    characters = len(message.role)
    if count_name and message.name:
        characters += len(message.name)
    images = media = 0
    content = message.content
    if isinstance(content, str):
        characters += len(content)
    else:
        block: Any
        for block in content:
            kind = block.type
            if kind in ("text", "refusal"):
                characters += len(block.text)
            elif kind == "reasoning":
                characters += len(block.text or "") + sum(map(len, block.summary or ()))
            elif kind == "image":
                images += 1
            elif kind in _MEDIA:
                media += 1
            elif kind == "text-plain":
                if block.text is not None:
                    characters += len(block.text) + len(block.title or "")
                else:
                    media += 1
            elif kind == "server_tool_call":
                characters += len(block.name) + _json_length(block.arguments or {})
            elif kind == "server_tool_result":
                characters += _json_length(block.output)
            elif kind == "non_standard":
                characters += _json_length(block.value)
            else:  # resource, resource link, compaction: their text, opaque data as media
                characters += len(_resource_text(block))
                media += _opaque_media(block)
    if isinstance(message, AssistantMessage):
        for call in message.tool_calls:
            characters += len(call.name) + _json_length(call.arguments)
        for invalid in message.invalid_tool_calls:
            characters += len(invalid.name or "") + len(invalid.arguments or "")
    elif isinstance(message, ToolMessage):
        characters += len(message.tool_call_id)
    return characters, images, media


def _approximate_message_tokens(message: Message) -> int:
    """``count_tokens_approximately([message])`` with the default options, faster.

    The per-message counter of ``trim_messages(token_counter="approximate")``: the
    same integer, without the list, the option handling and the float sum.
    """
    characters, images, media = _message_characters(message, True)
    # ceil(ceil(c / 4) + 3.0 + 85 i + 256 m) of the general path: every term is an
    # integer, so the outer ceil changes nothing.
    return math.ceil(characters / 4.0) + 3 + images * 85 + media * 256
