"""Amazon Bedrock Converse's wire tables: names, formats, patterns, stop reasons.

Sources: the Bedrock Runtime API reference ("Converse", "ConverseStream",
"ContentBlock", "ToolConfiguration", "TokenUsage") and botocore's service model of
``bedrock-runtime`` (the shapes boto3 validates a request against).
"""

from __future__ import annotations

import re
from typing import Final

NAME: Final = "bedrock_converse"

# ----------------------------------------------------------------- media formats

# Converse names a media type by a short ``format``; the neutral model by a MIME type.
IMAGE_FORMATS: Final = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}
DOCUMENT_FORMATS: Final = {
    "pdf": "application/pdf",
    "csv": "text/csv",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html",
    "txt": "text/plain",
    "md": "text/markdown",
}
VIDEO_FORMATS: Final = {
    "mkv": "video/x-matroska",
    "mov": "video/quicktime",
    "mp4": "video/mp4",
    "webm": "video/webm",
    "flv": "video/x-flv",
    "mpeg": "video/mpeg",
    "mpg": "video/mpeg",
    "wmv": "video/x-ms-wmv",
    "three_gp": "video/3gpp",
}
AUDIO_FORMATS: Final = {
    "mp3": "audio/mpeg",
    "opus": "audio/opus",
    "wav": "audio/wav",
    "aac": "audio/aac",
    "flac": "audio/flac",
    "mp4": "audio/mp4",
    "ogg": "audio/ogg",
    "mkv": "audio/x-matroska",
    "mka": "audio/x-matroska",
    "x-aac": "audio/x-aac",
    "m4a": "audio/x-m4a",
    "mpeg": "audio/mpeg",
    "mpga": "audio/mpeg",
    "pcm": "audio/pcm",
    "webm": "audio/webm",
}
FORMATS: Final = {
    "image": IMAGE_FORMATS,
    "document": DOCUMENT_FORMATS,
    "video": VIDEO_FORMATS,
    "audio": AUDIO_FORMATS,
}
"""Format -> MIME type, by media block key. Where formats share a MIME type
(``mp3``/``mpeg``), the first is the one a MIME type maps back to; a block of another
keeps its ``format`` in extras."""
MIME_FORMATS: Final = {
    kind: {mime: fmt for fmt, mime in reversed(table.items())} for kind, table in FORMATS.items()
}
"""MIME type -> format, by media block key (the first format of a MIME type)."""
MIME_ALIASES: Final = {
    "image/jpg": "image/jpeg",
    "audio/x-wav": "audio/wav",
    "text/md": "text/markdown",
}
"""MIME types other formats write that name one of Converse's formats."""

# ------------------------------------------------------------------- known keys

# ContentBlock members (botocore ``ContentBlock``, a union: one key per block).
BLOCK_KEYS: Final = frozenset(
    {
        "text",
        "image",
        "document",
        "video",
        "audio",
        "toolUse",
        "toolResult",
        "guardContent",
        "cachePoint",
        "reasoningContent",
        "citationsContent",
        "searchResult",
        "toolAddition",
        "toolRemoval",
    }
)
SYSTEM_KEYS: Final = frozenset({"text", "guardContent", "cachePoint"})
"""SystemContentBlock members."""
# InferenceConfiguration keys and the settings field each carries.
INFERENCE: Final = {
    "maxTokens": "max_output_tokens",
    "temperature": "temperature",
    "topP": "top_p",
    "stopSequences": "stop",
}
# Settings that go in additionalModelRequestFields, in the words of the models that
# take them (Anthropic Claude on Bedrock: ``top_k`` and ``thinking``).
TOP_K: Final = "top_k"
THINKING: Final = "thinking"
# Settings without a Converse field at all.
UNSUPPORTED_SETTINGS: Final = ("seed", "presence_penalty", "frequency_penalty")

# Converse API reference, Message.content: "Each image's size ... must be no more than
# 3.75 MB"; "Each document's size must be no more than 4.5 MB" (bytes as sent).
MAX_INLINE_BYTES: Final = {"image": 3932160, "document": 4718592}
"""Largest inline image and document, in bytes (3.75 MB and 4.5 MB)."""

# Codec bookkeeping, under keys that are not Converse request keys:
SCHEMA_TEXT: Final = "schema_text"
"""extras key of the exact ``jsonSchema.schema`` string of a response format."""
NO_MESSAGES: Final = "no_messages"
"""extras key of a request without ``messages`` (a prompt from Prompt management)."""
BLOB_TEXT: Final = "blob_text"
"""extras key of a block whose blob came as base64 text (the JSON form), not bytes."""
CACHE_POINT: Final = "cachePoint"
"""extras key of a cache point that follows a tool call, tool result or tool."""
NEW_MESSAGE: Final = "new_message"
"""extras key of a message that started a wire message of its own."""
IN_MESSAGES: Final = "in_messages"
"""extras key of a leading system message sent as a ``system`` role message."""
JSON_RESULT: Final = "json"
"""extras key of a text block that was a ``json`` tool-result block."""

# ---------------------------------------------------------------------- patterns

# botocore ToolUseId: [a-zA-Z0-9_.:-]+, 1 to 64 characters.
ID: Final = re.compile(r"[a-zA-Z0-9_.:-]{1,64}")
ID_BAD: Final = re.compile(r"[^a-zA-Z0-9_.:-]")
IDS: Final = re.compile(r"[a-zA-Z0-9_.:-]{1,64}(?:\n[a-zA-Z0-9_.:-]{1,64})*")
"""Ids joined by newlines, all of them valid: one match checks a whole request's ids."""
# botocore ToolName: [a-zA-Z0-9_-]+, 1 to 64 characters.
TOOL_NAME: Final = re.compile(r"[a-zA-Z0-9_-]{1,64}")
# API reference, DocumentBlock.name: alphanumerics, single whitespace, hyphens,
# parentheses and square brackets only (botocore: 1 to 200 characters). Names the
# codec makes follow it; a name a request had goes back as it came (the API took
# names with "_": real traffic).
DOCUMENT_NAME_BAD: Final = re.compile(r"[^A-Za-z0-9\s\-()\[\]]")
DOCUMENT_NAME: Final = re.compile(r"(?:[A-Za-z0-9\-()\[\]]|\s(?!\s)){1,200}")
"""A document name of the API reference's rule (``fullmatch``)."""
S3_URI: Final = re.compile(r"s3://[a-z0-9][.\-a-z0-9]{1,61}[a-z0-9](/.*)?", re.S)
URL: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x20\x7f]+")
"""A URL the neutral model takes (others stay in a citation's extras only)."""
CACHE_TTLS: Final = frozenset({"5m", "1h"})

# ------------------------------------------------------------------- responses

STOP_REASONS: Final = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
    "malformed_model_output": "error",
    "malformed_tool_use": "error",
}
# TokenUsage counts of cache reads and writes, and their neutral input-detail names
# (Converse: ``inputTokens`` leaves them out, ``totalTokens`` counts them).
CACHE_COUNTS: Final = {
    "cacheReadInputTokens": "cache_read",
    "cacheWriteInputTokens": "cache_creation",
}

# ---------------------------------------------------------------------- streams

# ConverseStreamOutput members that end the stream with an error.
ERROR_EVENTS: Final = frozenset(
    {
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    }
)
EVENTS: Final = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    }
)
PADDING: Final = "p"
"""The padding key Bedrock adds to every event on the wire (botocore leaves it out)."""
