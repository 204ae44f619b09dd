"""Chat Completions wire tables: names, known shapes and types, maps and limits."""

from __future__ import annotations

import re
from typing import Final, Literal

NAME: Final = "openai_chat"

ABSENT: Final = object()
"""A key that is not there (``None`` is an explicit ``null``)."""

TOOL_IMAGES_INTRO: Final = "Images returned by tool call {id}:"
"""Text that opens the user message carrying the images of a tool result."""

# Content shapes of an assistant message on the wire (``extras["openai_chat"]["content_shape"]``
# records the shape when it is not the one the neutral content implies).
# "object": one part as an object, not in a list (OpenAI-compatible servers' replies).
Shape = Literal["absent", "null", "string", "list", "object"]
SHAPES: Final = ("absent", "null", "string", "list", "object")

# The API's rule for message and function names (its 400 errors quote the pattern).
NAME_PATTERN: Final = re.compile(r"[a-zA-Z0-9_-]+")
TOOL_NAME_MAX: Final = 64  # FunctionDefinition.name in the SDK

# input_audio formats: wire format <-> media type.
AUDIO_MIME: Final = {"wav": "audio/wav", "mp3": "audio/mpeg"}
AUDIO_FORMAT: Final = {
    "audio/wav": "wav",
    "audio/wave": "wav",
    "audio/x-wav": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}

# Image detail levels the neutral ImageBlock names (others stay in extras).
IMAGE_DETAILS: Final = ("auto", "low", "high", "original")

FINISH_REASONS: Final = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",  # the deprecated function_call API's reason
    "content_filter": "content_filter",
}

# Keys of the extras namespaces that are chatschema markers, not wire keys.
MESSAGE_MARKERS: Final = frozenset({"role", "content_shape", "send_name", "details_text"})
CALL_MARKERS: Final = frozenset({"arguments", "type", "no_type"})
TOOL_MARKERS: Final = frozenset({"type", "format", "no_parameters", "tool_fields"})
BLOCK_MARKERS: Final = frozenset({"as_field", "field", "bare_base64", "bare_url", "part"})

# Usage details: wire name -> neutral name.
INPUT_DETAILS: Final = {
    "cached_tokens": "cache_read",
    "cache_write_tokens": "cache_creation",
    "audio_tokens": "audio",
    "image_tokens": "image",
    "text_tokens": "text",
}
OUTPUT_DETAILS: Final = {
    "reasoning_tokens": "reasoning",
    "audio_tokens": "audio",
    "accepted_prediction_tokens": "accepted_prediction",
    "rejected_prediction_tokens": "rejected_prediction",
    "text_tokens": "text",
}

# Block slots of a streamed reply (the order the fields take in decode_response).
REASONING_SLOT: Final = 0
TEXT_SLOT: Final = 1
REFUSAL_SLOT: Final = 2
# Stream-only keys: not part of the complete response.
CHUNK_KEYS: Final = frozenset({"id", "model", "object", "choices", "usage", "obfuscation"})
CHOICE_KEYS: Final = frozenset({"index", "delta", "finish_reason", "logprobs"})
DELTA_KEYS: Final = frozenset(
    {"role", "content", "refusal", "tool_calls", "annotations", "audio", "name"}
)
CALL_KEYS: Final = frozenset({"index", "id", "type", "function", "custom"})

# Request settings (``Conversation.settings``): neutral field -> wire key. Every
# other top-level request key is kept verbatim in ``Conversation.extras["openai_chat"]``.
SETTING_KEYS: Final = {
    "model": "model",
    "temperature": "temperature",
    "top_p": "top_p",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "reasoning_effort": "reasoning_effort",
}
"""The settings whose wire key carries the neutral value as it is (the output limit,
``stop`` and ``response_format`` have rules of their own)."""
SAMPLING_FLOATS: Final = frozenset(
    {"temperature", "top_p", "presence_penalty", "frequency_penalty"}
)
UNSUPPORTED_SETTINGS: Final = ("top_k", "thinking_budget")
"""Neutral settings Chat Completions has no key for (``reasoning_effort`` is its
reasoning knob; no token budget, no top-k)."""
REQUEST_KEYS: Final = frozenset({"messages", "tools", "tool_choice", "parallel_tool_calls"})
"""The request keys the conversation itself carries."""

# Bookkeeping in ``Conversation.extras["openai_chat"]`` (not request keys):
OUTPUT_LIMIT_KEY: Final = "output_limit_key"
"""``"max_tokens"`` when the request used the legacy key (``max_completion_tokens``
otherwise)."""
STOP_FORM: Final = "stop_form"
"""``"string"`` when ``stop`` was one string (a list otherwise)."""
EXPLICIT_AUTO: Final = "explicit_auto"
"""``True`` when the request wrote ``tool_choice: "auto"`` next to
``parallel_tool_calls`` (the flag alone says the same; the request had both)."""
REQUEST_MARKERS: Final = frozenset({OUTPUT_LIMIT_KEY, STOP_FORM, EXPLICIT_AUTO})

# Assistant audio output (``message.audio``): the media type read from the data's
# first bytes (the response does not say the format the request asked for).
AUDIO_SLOT: Final = 3
"""The stream index of the audio block (after reasoning, text and refusal)."""
AUDIO_SIGNATURES: Final = (
    (b"RIFF", "audio/wav"),  # with "WAVE" at offset 8
    (b"ID3", "audio/mpeg"),
    (b"fLaC", "audio/flac"),
    (b"OggS", "audio/ogg"),  # OpenAI's opus output
)
UNKNOWN_AUDIO: Final = "application/octet-stream"
"""Audio data without a known signature (``pcm16`` is headerless)."""
