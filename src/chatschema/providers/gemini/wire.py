"""Gemini's wire tables, and the few rules every job reads them with.

Constants, known field sets, patterns, the finish-reason map and limits of the
``generateContent`` API (ai.google.dev/api/generate-content), then the small
functions that turn what arrives into plain snake_case data (:func:`plain`), map
Files API names to URIs and read a ``function_response.response``.
"""

from __future__ import annotations

import base64
import datetime
import enum
import functools
import re
from collections.abc import Mapping
from typing import Any, Final

from chatschema_models.content import AudioBlock, FileBlock, ImageBlock, PlainTextBlock, VideoBlock
from pydantic import BaseModel

from chatschema.providers._common import Reader, json_text, loads

NAME: Final = "gemini"

READ: Final = Reader(NAME)
"""Reads Gemini payloads; every failure names the content (``index``) and part."""

# ------------------------------------------------------------------------ wire facts

DATA_FIELDS: Final = frozenset(
    {
        "text",
        "inline_data",
        "file_data",
        "function_call",
        "function_response",
        "executable_code",
        "code_execution_result",
        "tool_call",
        "tool_response",
    }
)
"""The members of a Part's ``data`` oneof: exactly one per part."""

OPAQUE_KEYS: Final = frozenset(
    {
        "args",
        "response",
        "part_metadata",
        "parameters",
        "parameters_json_schema",
        "response_json_schema",
        "response_schema",
        "labels",
    }
)
"""Keys whose values are user data: read as they are, never case-converted."""

SDK_ONLY: Final = frozenset({"sdk_http_response", "automatic_function_calling_history", "parsed"})
"""Fields google-genai adds to responses that are not part of the wire format."""

CONTROL_KEYS: Final = frozenset(
    {
        "inline_data",
        "file_data",
        "file_uri",
        "function_call",
        "function_response",
        "executable_code",
        "code_execution_result",
        "synthesized_id",
        "id",
        "id_absent",
        "args_absent",
        "response",
        "part",
        "join",
        "empty_text",
        "base64url",
    }
)
"""Keys of ``extras["gemini"]`` that steer the encoder; every other key is Part metadata."""

BASE64URL: Final = "base64url"
"""Key of a media block's ``extras["gemini"]``: its inline data came as URL-safe base64
or without padding (``"urlsafe"``, ``"urlsafe_unpadded"``, ``"unpadded"``); the block
holds standard base64 (as the neutral model does), sent back as it came."""

REQUEST_KEYS: Final = frozenset({"contents", "system_instruction", "tools", "tool_config"})
"""The conversation part of a ``generateContent`` request (what ``encode`` writes)."""

CONFIG_REQUEST_KEYS: Final = frozenset({"system_instruction", "tools", "tool_config"})
"""Keys of google-genai's ``GenerateContentConfig`` that are request keys of the REST body."""

# GenerationConfig (ai.google.dev/api/generate-content#generationconfig): the fields
# every format can say, by snake_case wire key
SETTING_FIELDS: Final[dict[str, str]] = {
    "max_output_tokens": "max_output_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "stop_sequences": "stop",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
}
"""``generation_config`` key -> ``GenerationSettings`` field (scalars and ``stop``)."""

THINKING_FIELDS: Final[dict[str, str]] = {
    "thinking_budget": "thinking_budget",
    "thinking_level": "reasoning_effort",
}
"""``thinking_config`` key -> ``GenerationSettings`` field."""

RESPONSE_KEYS: Final = ("response_mime_type", "response_schema", "response_json_schema")
"""The ``generation_config`` keys a response format is made of."""

JSON_MIME: Final = "application/json"
TEXT_MIME: Final = "text/plain"

# google-genai ThinkingLevel (CaseInSensitiveEnum): the words thinking_level takes
THINKING_LEVELS: Final = frozenset(
    {"thinking_level_unspecified", "minimal", "low", "medium", "high", "xhigh"}
)

SCHEMA_KEY: Final = "schema_key"
"""Codec bookkeeping in ``Conversation.extras["gemini"]`` (not a request key):
``"response_schema"`` when the request gave its JSON schema as ``response_schema``
(Gemini's OpenAPI subset) rather than ``response_json_schema``."""

TOOLS_OBJECT: Final = "tools_object"
"""Codec bookkeeping in ``Conversation.extras["gemini"]``: the request's ``tools`` was
one ``Tool`` object, not a list (the API takes it, HTTP 200)."""

BOOKKEEPING: Final = frozenset({"tool_config", SCHEMA_KEY, TOOLS_OBJECT})
"""Keys of ``Conversation.extras["gemini"]`` that are no top-level request key kept as
it came: the unmapped rest of the tool config, and the codec's bookkeeping."""

GENERATION_CONTAINERS: Final = frozenset({"generation_config", "config"})
"""Keys of ``Conversation.extras["gemini"]`` holding (as an object) the rest of a
generation config the settings do not say: written with the settings."""

RESPONSE_FIELDS: Final = frozenset(
    {"candidates", "usage_metadata", "prompt_feedback", "model_version", "response_id"}
)
"""Fields of a ``GenerateContentResponse``: a stream event without any is not one."""

# Files API: an uploaded file is ``files/<name>``; ``file_data.file_uri`` is its full URI
FILES_URI: Final = re.compile(
    r"https://generativelanguage\.googleapis\.com/v1beta/(files/[A-Za-z0-9_-]+)"
)
FILES_PREFIX: Final = "https://generativelanguage.googleapis.com/v1beta/"
URL: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x20\x7f]+")
# Function calling, FunctionDeclaration.name: starts with a letter or underscore;
# letters, digits, underscores, dots, colons and dashes; at most 128 characters
FUNCTION_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
SAFE_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A response id that can be part of a synthesized call id as it is."""
_CAMEL: Final = re.compile(r"(?<=[a-z0-9])([A-Z])")

# Document understanding: text documents are sent as inline data with these types
TEXT_DOCUMENTS: Final = frozenset({"text/plain", "text/markdown"})
EXTENSIONS: Final[dict[str, str]] = {
    **dict.fromkeys(("png", "jpg", "jpeg", "gif", "webp", "heic", "heif", "bmp"), "image"),
    **dict.fromkeys(("mp3", "wav", "aac", "ogg", "flac", "aiff", "m4a", "opus"), "audio"),
    **dict.fromkeys(("mp4", "mpeg", "mpg", "mov", "avi", "webm", "wmv", "flv", "3gp"), "video"),
    **dict.fromkeys(("txt", "md"), "text-plain"),
}
"""A ``file_uri`` without MIME type: its kind by file extension."""
# Video understanding: YouTube URLs go in file_data.file_uri as they are
VIDEO_HOSTS: Final = frozenset({"youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be"})
PDF_INLINE_LIMIT: Final = 50 * 1024 * 1024
"""Inline PDFs are limited to 50 MB (ai.google.dev, file input methods)."""

BLOCK_TYPES: Final[dict[str, type[BaseModel]]] = {
    "image": ImageBlock,
    "audio": AudioBlock,
    "video": VideoBlock,
    "file": FileBlock,
    "text-plain": PlainTextBlock,
}
"""The neutral media blocks, each sent as ``inline_data`` or ``file_data``."""

FINISH_REASONS: Final[dict[str, str]] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    **dict.fromkeys(
        (
            "SAFETY",
            "RECITATION",
            "BLOCKLIST",
            "PROHIBITED_CONTENT",
            "SPII",
            "IMAGE_SAFETY",
            "IMAGE_PROHIBITED_CONTENT",
            "IMAGE_RECITATION",
            "MODEL_ARMOR",
        ),
        "content_filter",
    ),
    **dict.fromkeys(
        (
            "MALFORMED_FUNCTION_CALL",
            "MISSING_THOUGHT_SIGNATURE",
            "UNEXPECTED_TOOL_CALL",
            "TOO_MANY_TOOL_CALLS",
            "MALFORMED_RESPONSE",
        ),
        "error",
    ),
}
"""``Candidate.finish_reason`` -> the neutral finish reason (else ``"other"``)."""

# Function calling, FunctionCallingConfig.mode: "ANY" is what other formats call required
MODES: Final[dict[str, str]] = {"auto": "AUTO", "none": "NONE", "required": "ANY"}

MODE_STANDS_FOR: Final[dict[str, str]] = {"VALIDATED": "AUTO"}
"""The mode the neutral tool choice sends for a mode it has no equivalent of.

FunctionCallingConfig (google-genai ``FunctionCallingConfigMode``): ``VALIDATED`` is
``AUTO`` with calls checked against their schemas. Any other mode without an
equivalent (``MODE_UNSPECIFIED``, a newer one) has no tool choice at all. The mode
kept in ``Conversation.extras["gemini"]["tool_config"]`` goes back in place of the one
it stands for, and not once the tool choice says something else.
"""

MISSING: Final = object()
"""A key that is absent (where ``None`` would be a value)."""

NOT_ADJACENT: Final = (
    "the result for %r must be in the user turn right after the function call turn "
    "(Gemini rejects it otherwise)"
)
"""The ``not_adjacent`` problem's message (``%`` the call id); Function calling,
multi-turn: the responses go in the user turn right after the calls."""

# ------------------------------------------------------------------- plain JSON data


_JSON_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
"""Types of values that are plain JSON as they are (exact types: not enums)."""


@functools.lru_cache(maxsize=4096)
def _snake(key: str) -> str:
    """``thoughtSignature`` -> ``thought_signature``; snake_case keys pass through."""
    if key.islower() or not any(c.isupper() for c in key):
        return key
    return _CAMEL.sub(r"_\1", key).lower()


def plain(value: Any) -> Any:
    """Wire data as plain JSON with snake_case keys.

    SDK objects are dumped (bytes become standard base64, enums their value),
    camelCase keys become snake_case except inside user data (``args``,
    ``response`` ...), and ``None`` values of objects count as absent. The input
    is never modified: containers are copied.
    """
    if type(value) in _JSON_SCALARS:  # most values: nothing to convert (a fast path)
        return value
    if isinstance(value, BaseModel):
        # not mode="json": pydantic would write the SDK's bytes as URL-safe base64,
        # where the REST API sends standard base64 (docs/providers/gemini.md). The
        # dump's keys are the SDK's snake_case field names, and user data (a schema's
        # property names ...) as it is: no key is converted
        return _user_data(value.model_dump(mode="python", exclude_none=True))
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                READ.fail(f"object keys must be strings, not {key!r}")
            if item is None:
                continue
            name = _snake(key)
            out[name] = _user_data(item) if name in OPAQUE_KEYS else plain(item)
        return out
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return _scalar(value)


def plain_field(name: str, value: Any) -> Any:
    """The value of field ``name`` (snake_case) as :func:`plain` reads it inside an object."""
    return _user_data(value) if name in OPAQUE_KEYS else plain(value)


def snake(key: str) -> str:
    """``maxOutputTokens`` -> ``max_output_tokens``; snake_case keys pass through."""
    return _snake(key)


def _user_data(value: Any) -> Any:
    """User JSON (function arguments, responses, schemas): SDK leftovers converted only."""
    if type(value) in _JSON_SCALARS:
        return value
    if isinstance(value, BaseModel):
        return plain(value)
    if isinstance(value, Mapping):
        return {key: _user_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_user_data(item) for item in value]
    return _scalar(value)


def _scalar(value: Any) -> Any:
    """An SDK scalar as JSON: bytes as standard base64, enums as values, times as ISO."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime.datetime):
        return value.isoformat().replace("+00:00", "Z")
    return value


def load(payload: Any) -> Any:
    """JSON text, SDK objects or plain data, as plain snake_case data."""
    if isinstance(payload, (str, bytes, bytearray)):
        payload = loads(payload, NAME)
    return plain(payload)


# ------------------------------------------------------------------- files and tools


def file_uri(url: str | None, file_id: str | None) -> str | None:
    """The ``file_uri`` for a block's source; None for a file id Gemini cannot know."""
    if url is not None:
        return url
    if file_id is None:
        return None
    if file_id.startswith("files/"):
        return FILES_PREFIX + file_id
    if URL.fullmatch(file_id):
        return file_id
    return None


def tool_output(response: Any) -> tuple[str, str]:
    """What a ``function_response.response`` says, as (text, status)."""
    if response is None:
        return "", "success"
    # Function calling: the response is an object; "output" and "error" are the keys
    # the API documents for a function's result and its failure
    if isinstance(response, dict) and len(response) == 1:
        key, value = next(iter(response.items()))
        if key in ("output", "error"):
            status = "error" if key == "error" else "success"
            text = value if isinstance(value, str) else json_data(value, "a function response")
            return text, status
    return json_data(response, "a function response"), "success"


def tool_response(text: str, status: str) -> dict[str, Any]:
    """The ``function_response.response`` for a tool result's text and status."""
    return {"error" if status == "error" else "output": text}


def json_data(value: Any, what: str) -> str:
    """``value`` as JSON text; a value that is not JSON data is a ConversionError."""
    try:
        return json_text(value)
    except (TypeError, ValueError) as error:
        raise READ.error(f"{what} is not JSON data: {error}") from None
