"""The Responses API's wire tables: item and part types, patterns, limits, finish reasons."""

from __future__ import annotations

import re
from typing import Any, Final

from chatschema.providers._common import Reader

NAME: Final = "openai_responses"
READ: Final = Reader(NAME)
"""Reads Responses payloads; every failure names this format, the item and the part."""

# Item types a client sends (tool outputs, approvals, references); every other
# non-message item is produced by the model and belongs to an assistant turn.
CLIENT_ITEMS: Final = frozenset(
    {
        "function_call_output",
        "mcp_approval_response",
        "item_reference",
        "compaction_trigger",
        "additional_tools",
        "configuration_update",
    }
)
# Input content part types; a list of only these is one user message's content.
INPUT_PARTS: Final = frozenset({"input_text", "input_image", "input_file"})
# API reference, "input_image": the values `detail` takes.
DETAILS: Final = frozenset({"auto", "low", "high", "original"})
# A media type as data URLs carry it (RFC 6838 names, parameters after `;`).
MIME: Final = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(;[^\x00-\x1f\x7f]*)?"
)
# The extras marking a non_standard block as a whole item / a whole input part.
KIND_ITEM: Final = {"kind": "item"}
KIND_PART: Final = {"kind": "part"}
# The header fields of an assistant message item that go without saying.
DEFAULT_HEADER: Final = {"type": "message", "status": "completed"}

# Codec bookkeeping in extras (none of them is a key of the Responses API):
# Conversation.extras: the settings that were JSON integers (temperature: 1);
INTEGRAL_SETTINGS: Final = "integral_settings"
# ToolDefinition.extras: a function tool without `strict` (absent, not false);
NO_STRICT: Final = "no_strict"
# AllowedToolsChoice.extras: where the kept (non-function) entries stood in `tools`;
TOOL_POSITIONS: Final = "positions"
# ToolCall / block / message extras: an item's keys in wire order, where encode's
# order differs (the API writes `id` first, SDK dumps their field order ...);
KEY_ORDER: Final = "key_order"
# text / refusal block extras: its output part's keys in wire order, likewise.
PART_ORDER: Final = "part_key_order"
# ImageBlock extras: an `input_image` of a message that had no `detail` (the API
# applies "auto"; encode writes it for images that do not say, as the SDK requires);
NO_DETAIL: Final = "no_detail"
# Conversation.extras: a request without `input` (a stored `prompt` ...);
NO_INPUT: Final = "no_input"
# Conversation.extras: the request wrote `tool_choice: "auto"` next to
# `parallel_tool_calls` (the flag alone says the same; the request had both).
EXPLICIT_AUTO: Final = "explicit_auto"

# The keys of a request (the SDK's ResponseCreateParams): an object with one of them
# and neither `type` nor `role` is a request, with or without `input`.
REQUEST_KEYS: Final = frozenset(
    {
        "background",
        "context_management",
        "conversation",
        "include",
        "input",
        "instructions",
        "max_output_tokens",
        "max_tool_calls",
        "metadata",
        "model",
        "parallel_tool_calls",
        "previous_response_id",
        "prompt",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "reasoning",
        "safety_identifier",
        "service_tier",
        "store",
        "stream",
        "stream_options",
        "temperature",
        "text",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "truncation",
        "user",
    }
)
# Request keys naming input the API holds (a stored response, a conversation): the
# calls a function_call_output answers may be there, not in `input`.
STORED_INPUT_KEYS: Final = ("previous_response_id", "conversation")

# The neutral name of the code interpreter's server tool calls, and the order the
# API writes a code_interpreter_call item's keys in (encode writes that order).
CODE_INTERPRETER: Final = "code_interpreter"
CODE_INTERPRETER_ORDER: Final = ("id", "type", "status", "code", "container_id", "outputs")

# Known limits (OpenAI vision guide): images per request, inline image bytes.
MAX_IMAGES: Final = 500
MAX_INLINE_IMAGE_BYTES: Final = 50 * 1024 * 1024

# Response fields that only echo the request: not kept in response_metadata.
REQUEST_ECHO: Final = frozenset(
    {
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "temperature",
        "top_p",
        "top_logprobs",
        "max_output_tokens",
        "max_tool_calls",
        "previous_response_id",
        "prompt",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "reasoning",
        "text",
        "truncation",
        "metadata",
        "user",
        "safety_identifier",
        "store",
        "background",
        "include",
    }
)
# AssistantMessage.extras: a Response's non-null request echoes (above), which
# encode_response writes back (the SDK's Response requires `tools`, `tool_choice` ...).
REQUEST_ECHOED: Final = "request_echo"
# Response fields read into the message itself (not response_metadata).
RESPONSE_FIELDS: Final = frozenset({"id", "model", "object", "output", "usage", "status"})
# The usage keys the neutral Usage says all of.
USAGE_KEYS: Final = frozenset(
    {
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "input_tokens_details",
        "output_tokens_details",
    }
)

# Block fields the ChunkAccumulator appends (strings) and extends (lists), by block type.
STREAM_APPENDED: Final = {
    "text": ("text",),
    "refusal": ("text",),
    "reasoning": ("text", "signature", "encrypted_content"),
}
STREAM_EXTENDED: Final = ("annotations", "summary")


def is_client_item(kind: str) -> bool:
    """Whether an item type is one the client sends (tool outputs of every tool ...)."""
    return kind in CLIENT_ITEMS or kind.endswith("_output")


def finish_reason(status: str, details: Any, calls: bool, refusal: bool) -> str | None:
    """The neutral finish reason of a Response's ``status`` and ``incomplete_details``.

    A completed response with function calls finished for them; one with a refusal
    part was filtered.
    """
    if status == "completed":
        if calls:
            return "tool_calls"
        if refusal:
            return "content_filter"
        return "stop"
    if status == "incomplete":
        reason = details.get("reason") if isinstance(details, dict) else None
        if reason == "max_output_tokens":
            return "length"
        if reason == "content_filter":
            return "content_filter"
        return "other"
    if status == "failed":
        return "error"
    if status == "cancelled":
        return "other"
    return None  # in_progress, queued: not finished
