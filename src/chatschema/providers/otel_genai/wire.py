"""The OpenTelemetry GenAI conventions' tables: attribute names, part types, maps.

Sources: the GenAI semantic conventions (open-telemetry/semantic-conventions-genai,
``model/gen-ai/registry`` and the JSON Schemas of ``gen_ai.system_instructions``,
``gen_ai.input.messages``, ``gen_ai.output.messages`` and ``gen_ai.tool.definitions``,
commit a685613a), and what instrumentations emit in practice (pydantic-ai, the
conventions' own examples).
"""

from __future__ import annotations

from typing import Final

NAME: Final = "otel_genai"

# ---------------------------------------------------------------------- attributes

SYSTEM_INSTRUCTIONS: Final = "gen_ai.system_instructions"
INPUT_MESSAGES: Final = "gen_ai.input.messages"
OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
TOOL_DEFINITIONS: Final = "gen_ai.tool.definitions"
CONVERSATION_ID: Final = "gen_ai.conversation.id"
OUTPUT_TYPE: Final = "gen_ai.output.type"
RESPONSE_MODEL: Final = "gen_ai.response.model"
RESPONSE_ID: Final = "gen_ai.response.id"
FINISH_REASONS: Final = "gen_ai.response.finish_reasons"

CONTENT_ATTRIBUTES: Final = (SYSTEM_INSTRUCTIONS, INPUT_MESSAGES, TOOL_DEFINITIONS)
"""The structured attributes ``encode`` writes (JSON text with ``json_strings=True``)."""

# Registry (model/gen-ai/registry): the request settings, neutral field -> attribute.
SETTINGS: Final[dict[str, str]] = {
    "model": "gen_ai.request.model",
    "max_output_tokens": "gen_ai.request.max_tokens",
    "temperature": "gen_ai.request.temperature",
    "top_p": "gen_ai.request.top_p",
    "top_k": "gen_ai.request.top_k",
    "stop": "gen_ai.request.stop_sequences",
    "seed": "gen_ai.request.seed",
    "presence_penalty": "gen_ai.request.presence_penalty",
    "frequency_penalty": "gen_ai.request.frequency_penalty",
}
UNSUPPORTED_SETTINGS: Final[dict[str, str]] = {
    "reasoning_effort": "a reasoning effort",
    "thinking_budget": "a thinking budget",
}
"""Settings the registry has no attribute for (``response_format`` with a schema too),
with the words the refusal uses."""
NO_ATTRIBUTE: Final = "the GenAI conventions have no attribute for it"
# gen_ai.output.type: "text", "json", "image", "speech"; json carries no schema.
OUTPUT_TYPES: Final[dict[str, str]] = {"text": "text", "json_object": "json"}

# Usage attributes (registry) -> the neutral usage fields.
USAGE: Final[dict[str, tuple[str, ...]]] = {
    "gen_ai.usage.input_tokens": ("input_tokens",),
    "gen_ai.usage.output_tokens": ("output_tokens",),
    "gen_ai.usage.cache_read.input_tokens": ("input_token_details", "cache_read"),
    "gen_ai.usage.cache_creation.input_tokens": ("input_token_details", "cache_creation"),
    "gen_ai.usage.reasoning.output_tokens": ("output_token_details", "reasoning"),
}

# ------------------------------------------------------------------------- parts

MODALITIES: Final[dict[str, str]] = {
    "image": "image",
    "audio": "audio",
    "video": "video",
    "file": "document",
}
"""Neutral media block type -> the schema's ``Modality``."""
MEDIA_PARTS: Final = frozenset({"blob", "uri", "file"})
PART_TYPES: Final = frozenset(
    {
        "text",
        "tool_call",
        "tool_call_response",
        "server_tool_call",
        "server_tool_call_response",
        "blob",
        "file",
        "uri",
        "reasoning",
        "compaction",
    }
)
"""The typed parts of the message schemas (anything else is a ``GenericPart``)."""
ROLES: Final = frozenset({"system", "user", "assistant", "tool"})

# Roles instrumentations write that are not the schema's (read leniently, reported).
ROLE_ALIASES: Final[dict[str, str]] = {
    "ai": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "human": "user",
    "developer": "system",
    "function": "tool",
    "ipython": "tool",
}
# Part types instrumentations write that are not the schema's (pydantic-ai "thinking",
# its v3 "binary" and "*-url" parts), read as the schema's.
PART_ALIASES: Final[dict[str, str]] = {"thinking": "reasoning"}

# ------------------------------------------------------------------ finish reasons

TO_NEUTRAL_FINISH: Final[dict[str, str]] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_call": "tool_calls",
    "error": "error",
    "compaction": "other",
}
"""The schema's ``FinishReason`` values -> the neutral finish reason."""
RAW_FINISH: Final[dict[str, str]] = {
    # Raw provider reasons instrumentations record as they came (lower-cased here).
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "tool_use": "tool_calls",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "completed": "stop",
    "finish_reason_unspecified": "other",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "incomplete": "length",
    "safety": "content_filter",
    "recitation": "content_filter",
    "blocklist": "content_filter",
    "prohibited_content": "content_filter",
    "spii": "content_filter",
    "image_safety": "content_filter",
    "refusal": "content_filter",
    "pause_turn": "paused",
    "malformed_function_call": "error",
}
FROM_NEUTRAL_FINISH: Final[dict[str, str]] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_calls": "tool_call",
    "error": "error",
}
UNKNOWN_FINISH: Final = "unknown"
"""Written when a reply says nothing about why it stopped (the schema requires one)."""

# ------------------------------------------------------------------- bookkeeping

OMITTED: Final = "chatschema.omitted"
"""Part member naming what ``encode`` left out: ``{field: {"reason": ..., "length"?: n}}``
with reason ``opaque`` (signatures, encrypted reasoning), ``inline_data`` (left out by
option) or ``truncated`` (cut to ``max_inline_chars``)."""
OPAQUE_FIELDS: Final = ("signature", "encrypted_content")
"""Reasoning fields that are only for the provider: never exported by default."""
OPAQUE_KEYS: Final = frozenset({"signature", "encrypted_content", "thought_signature", "data"})
"""Keys of other formats' non-standard values left out as opaque (``data``: Anthropic
redacted thinking)."""

PROBLEMS: Final = "chatschema.problems"
"""``extras["otel_genai"]`` / ``response_metadata["otel_genai"]`` key listing what a
decoder read leniently (``{"pointer", "message"}`` each); never written back."""

# Markers kept in a neutral model's ``extras["otel_genai"]`` so that a record decoded
# from OpenTelemetry is written back as it came; never written as part members.
MARKERS: Final = frozenset(
    {
        "wire_role",  # the message's role when it was not the canonical one
        "joined",  # the message continues the wire message before it
        "in_instructions",  # a system message read from gen_ai.system_instructions
        "synthesized_id",  # a tool call id made up on decode (the wire had none)
        "wire_id",  # the wire id when it was null
        "arguments",  # the exact argument text of a call, when it came as a string
        "no_arguments",  # the call had no (or null) arguments
        "part",  # a tool result's part members (the message's are the other keys)
        "members",  # members of the record named like one of these markers
        "response_json",  # a tool response that was JSON, not text: the value
        "name_in_part",  # a tool result's name came on the part, not the message
        "tool_type",  # a server tool call's (response's) `type`, when not its name
        "flat",  # a server tool response without an `output` member
        "modality",  # a media part's modality, when not the block's canonical one
        "nulls",  # members that were explicitly null
        "arguments_json",  # an invalid call's arguments were JSON, not text
        "wire_name",  # an invalid call's name when it was not a string
        "wire_parameters",  # a tool's parameters when they were not an object
        "no_parameters",  # a function tool without parameters
        "as_tool_response",  # a built-in tool's outcome written as tool_call_response
        "type",  # a built-in tool definition's type
    }
)
