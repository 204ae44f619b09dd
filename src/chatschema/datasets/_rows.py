"""One row at a time: what the batch functions do to each conversation.

Pure Python over JSON values (no pyarrow): a row's value is JSON text (``str`` or
``bytes``) or an already decoded value (a dict or a list, as a nested Arrow column or
Hugging Face ``datasets`` give it). Nothing here raises for a bad row: every function
returns the row's result or the problems that stopped it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from chatschema._json import dumps, loads
from chatschema.datasets._io import LongLine
from chatschema.errors import ChatSchemaError, ConversionError, Problem, ValidationError
from chatschema.providers._codec import PROVIDERS

if TYPE_CHECKING:
    from chatschema_models.conversation import Conversation
    from chatschema_models.message import Message

__all__ = [
    "FORMATS",
    "STATS",
    "convert_row",
    "internal_problem",
    "load",
    "not_a_conversation",
    "redact_row",
    "stats_row",
    "trim_row",
    "validate_row",
]

FORMATS = ("neutral", *PROVIDERS)

# The per-row statistics, in column order.
STATS = (
    "n_messages",
    "n_user",
    "n_assistant",
    "n_tool",
    "n_tool_calls",
    "n_reasoning",
    "n_media",
    "n_tools",
    "text_chars",
    "tokens",
)

_MEDIA = frozenset(("image", "audio", "video", "file"))


def internal_problem(error: BaseException) -> Problem:
    """An unexpected exception, as a problem (a bug in chatschema, never a traceback)."""
    reason = str(error).splitlines()[0][:200] if str(error) else ""
    return Problem(
        "",
        "internal",
        f"chatschema failed on this document ({type(error).__name__}: {reason}); please report it",
    )


def _strip_nulls(value: Any) -> Any:
    """A nested Arrow value with the null struct fields left out.

    Arrow cannot tell an absent field from a null one, and optional fields are never
    null here.
    """
    if isinstance(value, dict):
        return {key: _strip_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_strip_nulls(item) for item in value]
    return value


def load(value: Any) -> tuple[Any, Problem | None]:
    """A row's document: JSON text decoded, or a decoded value as it is.

    Returns the document and ``None``, or ``None`` and the problem that stopped it
    (keyword ``json``: null, not UTF-8, not JSON, nested too deeply).
    """
    if value is None:
        return None, Problem("", "json", "the row has no conversation (null)")
    if isinstance(value, LongLine):
        return None, value.problem()
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError as error:
            return None, Problem("", "json", f"not UTF-8 text: {error.reason}")
    if isinstance(value, str):
        try:
            return loads(value), None  # NaN and Infinity refused: they are not JSON
        except ValueError as error:
            return None, Problem("", "json", f"not valid JSON: {error}")
        except RecursionError:
            return None, Problem("", "json", "the JSON is nested too deeply")
    if isinstance(value, (dict, list)):
        try:
            return _strip_nulls(value), None
        except RecursionError:
            return None, Problem("", "json", "the value is nested too deeply")
    return None, Problem(
        "",
        "type",
        f"a conversation is JSON text, an object or an array, not {type(value).__name__}",
    )


def _kind(value: Any, requested: str) -> str:
    if requested not in ("auto", "jsonl"):
        return requested
    if isinstance(value, dict) and "messages" in value:
        return "Conversation"
    if isinstance(value, list):
        return "messages"
    return "Message"


_COUNTING = re.compile(r"\d+ (structural problems?|(parts?|values?) \S+ cannot carry)$")
"""The reason of check's exception (``3 structural problems``): its problems say it all."""


def _problems(error: Exception) -> list[Problem]:
    """The problems an exception from parsing, decoding or encoding stands for."""
    if isinstance(error, ValidationError):
        return list(error.problems)
    if isinstance(error, ConversionError):
        if error.problems and _COUNTING.match(error.reason):  # the reason only counts them
            return list(error.problems)
        where = ""
        if error.message_index is not None:
            where = f"/messages/{error.message_index}"
            if error.block_index is not None:
                where += f"/content/{error.block_index}"
        return [Problem(where, "provider", error.reason), *error.problems]
    if isinstance(error, ChatSchemaError):
        return [Problem("", "provider", str(error))]
    return [internal_problem(error)]


def validate_row(document: Any, format: str = "neutral", type: str = "auto") -> list[Problem]:
    """Every problem of one decoded document (empty: valid).

    ``format`` is ``"neutral"`` (the document is a message, a list of messages or a
    conversation, by ``type`` or detected) or a provider format: decoded, then
    checked by that provider's ``check``, the rules its ``encode`` applies.
    """
    from chatschema.validation import parse, parse_messages

    try:
        if format != "neutral":
            from chatschema.providers import get_codec

            codec = get_codec(format)
            # the rules encode (and so convert) applies: validate and convert agree
            return codec.check(codec.decode_conversation(document))
        else:
            kind = _kind(document, type)
            if kind == "messages":
                parse_messages(document)
            else:
                parse(document, kind)
    except Exception as error:  # every failure is the row's result, never the batch's
        return _problems(error)
    return []


def conversation_of(document: Any, format: str) -> Conversation:
    """A document in ``format`` as a conversation (a neutral list of messages too)."""
    from chatschema_models.conversation import Conversation

    from chatschema.validation import parse_conversation, parse_messages

    if format != "neutral":
        from chatschema.providers import get_codec

        return get_codec(format).decode_conversation(document)
    if isinstance(document, list):
        return Conversation(messages=parse_messages(document))
    return parse_conversation(document)


def _dump(value: Any) -> str:
    return dumps(value)


def _encode(conversation: Conversation, format: str, options: Mapping[str, Any]) -> str:
    from chatschema.validation import to_dict

    if format == "neutral":
        return _dump(to_dict(conversation))
    from chatschema.providers import get_codec

    return _dump(get_codec(format).encode(conversation, **options))


def not_a_conversation(document: Any) -> Problem | None:
    """The problem of a neutral document that is a single message, not a conversation."""
    if isinstance(document, Mapping) and "messages" not in document and "role" in document:
        return Problem(
            "",
            "type",
            'expected a Conversation (an object with "messages"), got what looks like a '
            'single message; wrap it as {"messages": [...]}',
        )
    return None


def convert_row(
    document: Any, source: str, target: str, options: Mapping[str, Any]
) -> tuple[str | None, list[Problem]]:
    """One document converted from ``source`` to ``target``, as JSON text, or its problems."""
    from chatschema.providers import convert

    wrong = not_a_conversation(document) if source == "neutral" else None
    if wrong is not None:
        return None, [wrong]
    try:
        return _dump(convert(document, source=source, target=target, **options)), []
    except Exception as error:
        return None, _problems(error)


def _text_chars(message: Message) -> int:
    content = message.content
    if isinstance(content, str):
        return len(content)
    total = 0
    for block in content:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            total += len(text)
    return total


def stats_row(
    document: Any,
    format: str = "neutral",
    token_counter: Callable[[list[Message]], int] | None = None,
) -> tuple[dict[str, int] | None, list[Problem]]:
    """Per-conversation statistics (:data:`STATS`), or the problems that stopped them.

    ``tokens`` is :func:`chatschema.count_tokens_approximately` of the messages and
    the tool definitions, unless ``token_counter`` (a function of a list of
    messages, e.g. :func:`chatschema.tiktoken_counter`) is given.
    """
    from chatschema.tokens import count_tokens_approximately

    try:
        conversation = conversation_of(document, format)
        messages = list(conversation.messages)
        stats = dict.fromkeys(STATS, 0)
        stats["n_messages"] = len(messages)
        stats["n_tools"] = len(conversation.tools or ())
        for message in messages:
            role = message.role
            if role in ("user", "assistant", "tool"):
                stats[f"n_{role}"] += 1
            stats["n_tool_calls"] += len(getattr(message, "tool_calls", None) or ())
            stats["text_chars"] += _text_chars(message)
            if not isinstance(message.content, str):
                for block in message.content:
                    kind = block.type
                    if kind == "reasoning":
                        stats["n_reasoning"] += 1
                    elif kind in _MEDIA:
                        stats["n_media"] += 1
        if token_counter is None:
            stats["tokens"] = count_tokens_approximately(messages, tools=conversation.tools)
        else:
            stats["tokens"] = int(token_counter(messages))
    except Exception as error:
        return None, _problems(error)
    return stats, []


def trim_row(
    document: Any,
    *,
    max_tokens: int,
    format: str = "neutral",
    strategy: str = "last",
    include_system: bool = True,
    options: Mapping[str, Any] | None = None,
) -> tuple[str | None, int, list[Problem]]:
    """One conversation trimmed to ``max_tokens`` (``trim_messages``, tool turns whole).

    Returns the trimmed document in the same format as JSON text, the number of
    messages dropped, and the problems (when the row could not be read).
    """
    from chatschema.history import trim_messages

    try:
        conversation = conversation_of(document, format)
        kept = trim_messages(
            conversation.messages,
            max_tokens=max_tokens,
            strategy="first" if strategy == "first" else "last",
            include_system=include_system and strategy != "first",
        )
        dropped = len(conversation.messages) - len(kept)
        trimmed = conversation.model_copy(update={"messages": kept})
        return _encode(trimmed, format, options or {}), dropped, []
    except Exception as error:
        return None, 0, _problems(error)


def _redact_block(block: dict[str, Any], opaque: bool, inline: bool) -> dict[str, Any] | None:
    """A content block with its opaque or inline data taken out (``None``: drop it)."""
    if inline and "base64" in block:
        data = str(block["base64"]).strip()
        size = len(data) * 3 // 4 - data[-2:].count("=")
        kind = block.get("type", "data")
        mime = block.get("mime_type", "")
        return {"type": "text", "text": f"[{kind} {mime}: {size:,} bytes of inline data removed]"}
    if opaque and block.get("type") in ("reasoning", "compaction"):
        if "signature" not in block and "encrypted_content" not in block:
            return block
        kept = {k: v for k, v in block.items() if k not in ("signature", "encrypted_content")}
        kept.pop("provider", None)  # it names the format of the opaque fields only
        if "text" not in kept and "summary" not in kept:
            return None
        return kept
    return block


def redact_row(
    document: Any,
    *,
    format: str = "neutral",
    opaque: bool = True,
    inline: bool = True,
    options: Mapping[str, Any] | None = None,
) -> tuple[str | None, int, list[Problem]]:
    """One conversation without opaque reasoning data and/or inline (base64) media.

    Opaque: reasoning and compaction ``signature`` and ``encrypted_content`` are
    removed (a block left with no readable text is dropped). Inline: a block carrying base64 data
    becomes a text block saying what was there. Returns the document in the same
    format as JSON text, the number of blocks changed, and the problems.
    """
    from chatschema.validation import parse_conversation, to_dict

    try:
        conversation = conversation_of(document, format)
        data = to_dict(conversation)
        changed = 0
        for message in data["messages"]:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            blocks = []
            for block in content:
                redacted = _redact_block(block, opaque, inline)
                changed += redacted is not block
                if redacted is not None:
                    blocks.append(redacted)
            message["content"] = blocks
        if not changed:
            return _encode(conversation, format, options or {}), 0, []
        return _encode(parse_conversation(data), format, options or {}), changed, []
    except Exception as error:
        return None, 0, _problems(error)
