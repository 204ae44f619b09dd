"""What both directions of the LangChain conversion share.

The namespaces of carried data, LangChain's spellings of provider names and finish
reasons, the content type of a LangChain message, and small checks of LangChain
values.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from chatschema.errors import ConversionError

NAMESPACE: Final = "langchain"
"""Key of LangChain data in neutral ``extras`` (and a reply's ``response_metadata``)."""


ESCAPE_KEY: Final = "chatschema"
"""Key of neutral data in LangChain ``additional_kwargs`` and block ``extras``."""


_DATA_TYPES = frozenset({"image", "audio", "video", "file", "text-plain"})


# Media in other LangChain spellings: how a neutral block records the one it came in
# (``extras["langchain"]``), so that it goes back the same way.
FORM: Final = "form"
"""Marker key: ``"openai"`` (an OpenAI Chat Completions part) or ``"data_url"``."""

OPENAI_FORM: Final = "openai"
DATA_URL_FORM: Final = "data_url"

OPENAI_KEYS: Final = {"image": "image_url", "audio": "input_audio", "file": "file"}
"""Neutral block type -> the OpenAI part's type and the key of its inner object."""

OPENAI_MARKERS: Final = {
    "image": ("bare_url", "image_url"),
    "audio": ("input_audio",),
    "file": ("bare_base64", "file"),
}
"""The keys of ``extras["langchain"]`` that say how an OpenAI part was spelled: a bare
``image_url`` string, bare base64 ``file_data``, the other keys of the inner object."""

V0_SOURCES: Final = frozenset({"url", "base64", "id", "text"})
"""``source_type`` values of LangChain v0 data blocks."""

IMAGE_DETAILS: Final = ("auto", "low", "high", "original")

# OpenAI input_audio formats <-> media types (as the openai_chat codec reads them).
AUDIO_MIME: Final = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_AUDIO_FORMAT: Final = {
    "audio/wav": "wav",
    "audio/wave": "wav",
    "audio/x-wav": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}

_DATA_URL = re.compile(r"data:(?P<mime>[^;,]+)(?P<params>(?:;[^;,]+)*?);base64,(?P<data>.+)", re.S)


def parse_data_url(url: str) -> tuple[str, str] | None:
    """``(mime_type, base64)`` of a base64 ``data:`` URL, else None."""
    match = _DATA_URL.fullmatch(url) if url.startswith("data:") else None
    return None if match is None else (match["mime"] + match["params"], match["data"])


def data_url(mime_type: str, base64: str) -> str:
    """``data:<mime>;base64,<data>``."""
    return f"data:{mime_type};base64,{base64}"


GUESSED: Final = "mime_type_guessed"
"""Marker: LangChain gave no ``mime_type``; the image's own bytes told it."""

_IMAGE_MAGIC: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(encoded: str) -> str | None:
    """The media type of base64 image data, from its first bytes (PNG, JPEG, GIF, WebP)."""
    try:
        head = binascii.a2b_base64(encoded[:16])
    except (binascii.Error, ValueError):
        return None
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for magic, mime in _IMAGE_MAGIC if head.startswith(magic)), None)


def audio_format(mime_type: str) -> str:
    """The ``input_audio`` format of a media type (``audio/mpeg`` -> ``mp3``)."""
    mime = mime_type.split(";", 1)[0].strip()
    return _AUDIO_FORMAT.get(mime.lower(), mime.partition("/")[2])


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


def _error(reason: str, index: int | None, *, problems: Sequence[Any] = ()) -> ConversionError:
    return ConversionError(reason, provider=NAMESPACE, message_index=index, problems=problems)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_dict(value: Any) -> bool:
    return isinstance(value, dict)


def _derived_finish_reason(metadata: Mapping[str, Any]) -> str | None:
    for key in ("finish_reason", "stop_reason"):
        value = metadata.get(key)
        if isinstance(value, str) and value in _FINISH_REASONS:
            return _FINISH_REASONS[value]
    return None


def _same_call(block: Mapping[str, Any], entry: Mapping[str, Any]) -> bool:
    return all(block.get(key) == entry.get(key) for key in ("id", "name", "args"))
