"""Gemini's wire tables, and the few rules every job reads them with.

Constants, known field sets, patterns, the finish-reason map and limits of the
``generateContent`` API (ai.google.dev/api/generate-content), the numbers of the
enums it may send as numbers (and :func:`enum_name`, which reads either form), then
the small functions that turn what arrives into plain snake_case data
(:func:`plain`), map Files API names to URIs and read a ``function_response.response``.
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
        "name_absent",
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

PARTS_OBJECT: Final = "parts_object"
"""Key of a system message's ``extras["gemini"]``: the ``system_instruction`` gave its
one part as an object, not a list (the API takes it, HTTP 200: ellmer sends it so)."""

TOOLS_EMPTY: Final = "tools_empty"
"""Codec bookkeeping in ``Conversation.extras["gemini"]``: the request's ``tools`` had
``Tool`` objects no tool definition stands for (``{}``, ``{"function_declarations": []}``
or ``null``), as ``[index, object]`` pairs, put back at their places; an empty list when
``tools`` was ``[]``. Written back as they came (the API takes them, google-genai too)."""

PARTS_FORM: Final = frozenset({"parts_object", "parts_null", "parts_absent"})
"""Keys of a message's ``extras["gemini"]``: the form of its content's ``parts`` when it
was not a list (one part as an object, ``null``, absent), written back so as long as
the content still has as many parts (one; none)."""

BOOKKEEPING: Final = frozenset({"tool_config", SCHEMA_KEY, TOOLS_OBJECT, TOOLS_EMPTY})
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

# ------------------------------------------------------------------ integer enums
#
# The REST API writes every enum as its number when asked to (the system parameter
# ``$alt=json;enum-encoding=int``, which Google's generated clients, the ``vertexai``
# SDK among them, send), and proto JSON parsers take numbers for enums in requests too
# (protobuf's JSON mapping: "Parsers accept both enum names and integer values").
# google-genai's enums cannot be used for this: they are string enums whose
# declaration order is not the proto numbering (FinishReason puts LANGUAGE before
# OTHER; HarmCategory and TrafficType are in other orders too). The numbers below are
# those of the protos. Where the Gemini Developer API (google.ai.generativelanguage.v1beta)
# and Vertex AI (google.cloud.aiplatform.v1) number an enum differently, Vertex AI's
# numbers are read, since its SDK is the client that asks for numbers; the number
# itself is always kept as it came (docs/providers/gemini.md, *Read in more than one form*).

FINISH_REASON_NUMBERS: Final[dict[int, str]] = {
    0: "FINISH_REASON_UNSPECIFIED",
    1: "STOP",
    2: "MAX_TOKENS",
    3: "SAFETY",
    4: "RECITATION",
    5: "OTHER",
    6: "BLOCKLIST",
    7: "PROHIBITED_CONTENT",
    8: "SPII",
    9: "MALFORMED_FUNCTION_CALL",
    10: "MODEL_ARMOR",
}
"""``Candidate.FinishReason`` by number (google/cloud/aiplatform/v1/content.proto; the
Gemini Developer API's generative_service.proto numbers 6 and up otherwise)."""

BLOCK_REASON_NUMBERS: Final[dict[int, str]] = {
    0: "BLOCKED_REASON_UNSPECIFIED",
    1: "SAFETY",
    2: "OTHER",
    3: "BLOCKLIST",
    4: "PROHIBITED_CONTENT",
    5: "MODEL_ARMOR",
    6: "JAILBREAK",
}
"""``PromptFeedback.BlockedReason`` by number (google/cloud/aiplatform/v1/
prediction_service.proto; the Gemini Developer API's 5 is IMAGE_SAFETY)."""

MODALITY_NUMBERS: Final[dict[int, str]] = {
    0: "MODALITY_UNSPECIFIED",
    1: "TEXT",
    2: "IMAGE",
    3: "VIDEO",
    4: "AUDIO",
    5: "DOCUMENT",
}
"""``ModalityTokenCount.modality`` by number (the same in both APIs' content.proto)."""

OUTCOME_NUMBERS: Final[dict[int, str]] = {
    0: "OUTCOME_UNSPECIFIED",
    1: "OUTCOME_OK",
    2: "OUTCOME_FAILED",
    3: "OUTCOME_DEADLINE_EXCEEDED",
}
"""``CodeExecutionResult.Outcome`` by number (the same in both APIs)."""

MODE_NUMBERS: Final[dict[int, str]] = {
    0: "MODE_UNSPECIFIED",
    1: "AUTO",
    2: "ANY",
    3: "NONE",
    4: "VALIDATED",  # the Gemini Developer API's number (Vertex AI has no 4)
    5: "VALIDATED",  # Vertex AI's number (the Gemini Developer API has no 5)
}
"""``FunctionCallingConfig.Mode`` by number (both APIs' content.proto / tool.proto)."""


def enum_name(value: Any, numbers: Mapping[int, str]) -> str | None:
    """The name of an enum value sent as a name or as a number; None for other values.

    A number the table does not know is its decimal text (a value newer than the
    table, kept as it came beside it by the callers).
    """
    if isinstance(value, str):
        return value
    if type(value) is int:
        return numbers.get(value, str(value))
    return None


_CHOICE_MODES: Final = frozenset({*MODES.values(), *MODE_STANDS_FOR})
"""The modes a neutral tool choice stands for (the others decode to no tool choice)."""


def mode_stands_for(mode: Any) -> frozenset[str | None]:
    """The modes the neutral tool choice writes that a mode kept in extras stands for.

    A mode sent as a number stands for its name (``2`` for ``ANY``:
    ``FunctionCallingConfig.Mode``, see ``wire.MODE_NUMBERS``); ``VALIDATED`` (by
    name or number) also for ``AUTO``, which the tool choice writes for it when no
    names go with it; a mode no tool choice stands for (``MODE_UNSPECIFIED``, a newer
    one) for no tool choice at all (None).
    """
    name = enum_name(mode, MODE_NUMBERS)
    if name not in _CHOICE_MODES:
        return frozenset({None})
    stands = MODE_STANDS_FOR.get(name)
    return frozenset({name} if stands is None else {name, stands})


def function_names(value: Any) -> bool:
    """Whether ``allowed_function_names`` names functions (a non-empty list of names).

    ``null``, ``[]`` or a list with an empty name (google-genai takes them) say nothing a
    tool choice can: they are kept as they came.
    """
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(name, str) and name for name in value)
    )


def reason_name(value: Any, numbers: Mapping[int, str], what: str) -> str:
    """A finish or block reason's name, sent as a name or a number (else ConversionError)."""
    name = enum_name(value, numbers)
    if name is None:
        READ.fail(f"{what} must be a string or an enum number, not {type(value).__name__}")
    return name


def kept_as_sent(key: str, value: Any) -> bool:
    """Whether a candidate field goes to ``response_metadata`` as it came.

    Every field but the content, and but a finish reason sent as a name (which
    ``raw_finish_reason`` says as it came); one sent as a number stays beside it.
    """
    return key != "content" and (key != "finish_reason" or not isinstance(value, str))


def blocked(feedback: Any) -> str | None:
    """The block reason of a ``prompt_feedback`` (by name), None when it has none."""
    if not isinstance(feedback, dict):
        return None
    return enum_name(feedback.get("block_reason"), BLOCK_REASON_NUMBERS)


def content_rest(content: dict[str, Any]) -> dict[str, Any]:
    """A candidate content's fields other than ``parts`` and ``role`` (newer fields)."""
    return {key: value for key, value in content.items() if key not in ("parts", "role")}


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


def plain_with_nulls(value: Any) -> Any:
    """:func:`plain`, but ``None`` values of objects are kept (``null`` sent as a value).

    How a request is read: it is written back as it came, and a ``null`` the API and
    google-genai take (a declaration's ``"description": null``, which llm-gemini sends,
    HTTP 200; a part's ``"text": null``; a setting's ``null`` ...) is a value to keep,
    where :func:`plain` (responses) leaves it out. SDK objects are dumped without their
    ``None`` fields (an SDK object cannot tell ``null`` from absent).
    """
    if type(value) in _JSON_SCALARS:
        return value
    if isinstance(value, Mapping) and not isinstance(value, BaseModel):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                READ.fail(f"object keys must be strings, not {key!r}")
            name = _snake(key)
            if item is None:
                out[name] = None
            else:
                out[name] = _user_data(item) if name in OPAQUE_KEYS else plain_with_nulls(item)
        return out
    if isinstance(value, (list, tuple)):
        return [plain_with_nulls(item) for item in value]
    return plain(value)


def plain_field(name: str, value: Any) -> Any:
    """A request field's value (``name`` snake_case) as :func:`plain_with_nulls` reads it."""
    return _user_data(value) if name in OPAQUE_KEYS else plain_with_nulls(value)


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
