"""The Anthropic Messages API's wire tables: names, known types, patterns, limits.

Sources: the Messages API reference ("Create a Message", "Streaming Messages",
"Vision", "Prompt caching") and the official SDK's types (``anthropic.types``, 2.12).
"""

from __future__ import annotations

import re
from typing import Final

NAME: Final = "anthropic"

# ------------------------------------------------------------------------ limits

MAX_CACHE_BREAKPOINTS: Final = 4
"""Cache breakpoints allowed per request, over tools, system and messages."""
MAX_IMAGE_BASE64_BYTES: Final = 5 * 1024 * 1024
"""Longest base64 string of one image (the API measures the encoded data)."""
MAX_IMAGES: Final = 100
"""Images per request (200k-context models; some others take 600)."""
MAX_REQUEST_INLINE_BYTES: Final = 32 * 1024 * 1024
"""Request size limit, checked against the inline (base64) data it carries."""
IMAGE_MEDIA_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""Media types of inline images the API takes."""

# ------------------------------------------------------------------- known types

# Names of Anthropic's server tools (SDK 2.13 ``BetaServerToolUseBlock.name``): a
# ServerToolCallBlock of one of these, or one marked as Anthropic's (``provider`` or
# an ``extras["anthropic"]`` entry, which decoding sets for any other name), is sent
# back as ``server_tool_use``.
SERVER_TOOLS: Final = frozenset(
    {
        "advisor",
        "web_search",
        "web_fetch",
        "code_execution",
        "bash_code_execution",
        "text_editor_code_execution",
        "tool_search_tool_regex",
        "tool_search_tool_bm25",
    }
)
# Block types of Messages API requests (SDK 2.12 ContentBlockParam and the
# content of tool results): non-standard blocks of these types are Anthropic's.
BLOCK_TYPES: Final = frozenset(
    {
        "text",
        "image",
        "document",
        "search_result",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "container_upload",
        "tool_reference",
        "browser_state",
    }
)
# Citation types and the key of their title, which is required but nullable.
TITLE_KEYS: Final = {
    "char_location": "document_title",
    "page_location": "document_title",
    "content_block_location": "document_title",
    "web_search_result_location": "title",
    "search_result_location": "title",
}
# What a citation of each kind needs besides its text and title (kept in extras).
CITATION_KEYS: Final = {
    "char_location": ("document_index", "start_char_index", "end_char_index"),
    "page_location": ("document_index", "start_page_number", "end_page_number"),
    "content_block_location": ("document_index", "start_block_index", "end_block_index"),
    "web_search_result_location": ("encrypted_index",),
    "search_result_location": (
        "search_result_index",
        "source",
        "start_block_index",
        "end_block_index",
    ),
}
# Prompt caching: the ttl values the API takes ("5m" is the default).
CACHE_TTLS: Final = frozenset({"5m", "1h"})

# ---------------------------------------------------------------------- patterns

# Messages API, "Tool use": tool_use ids must match ^[a-zA-Z0-9_-]+$.
ID: Final = re.compile(r"[A-Za-z0-9_-]+")
ID_BAD: Final = re.compile(r"[^A-Za-z0-9_-]")
IDS: Final = re.compile(rf"{ID.pattern}(?:\n{ID.pattern})*")
"""Ids joined by newlines, all of them valid: one match checks a whole request's ids."""
URL: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x20\x7f]+")
# A ttl the neutral CacheControl takes; others are kept verbatim in extras.
TTL: Final = re.compile(r"[1-9][0-9]*[smh]")

# ------------------------------------------------------------------- responses

FINISH_REASONS: Final = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "pause_turn": "paused",
    "refusal": "content_filter",
}
# Usage counts of cache reads and writes, and their neutral input-detail names.
CACHE_COUNTS: Final = {
    "cache_read_input_tokens": "cache_read",
    "cache_creation_input_tokens": "cache_creation",
}

# ---------------------------------------------------------------------- streams

# Delta types and the kind of block each applies to (delta types no table here names
# are kept in ``response_metadata["anthropic"]["unknown_deltas"]``, never ignored).
DELTAS: Final = {
    "text_delta": ("text", "text"),
    "citations_delta": ("text", "citation"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("thinking", "signature"),
    "input_json_delta": ("input", "partial_json"),
}
# Deltas that replace fields of a block held until content_block_stop: delta type ->
# (the block type, the fields it sets). The SDK's accumulator (``accumulate_event`` in
# anthropic/lib/streaming/_beta_messages.py, 2.13) sets both fields of a
# ``compaction_delta`` on the ``compaction`` block, replacing what was there.
FIELD_DELTAS: Final = {
    "compaction_delta": ("compaction", ("content", "encrypted_content")),
}
HELD: Final = frozenset(kind for kind, _ in FIELD_DELTAS.values())
"""Block types kept until content_block_stop, then decoded whole."""
# Events after message_start that this codec reads (ping and newer ones are ignored).
EVENTS: Final = frozenset(
    {
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
)
ALL_EVENTS: Final = EVENTS | {"message_start", "error"}
DELTA_KINDS: Final = frozenset({"text", "thinking"})  # block types that take deltas

# -------------------------------------------------------------------- settings

# The request keys encode writes from the neutral model's own fields (never taken
# from Conversation.extras).
MESSAGE_KEYS: Final = frozenset({"system", "messages", "tools", "tool_choice"})
# Sampling keys: the SDK dropped them from ``messages.create`` in 1.0 (its MIGRATION.md,
# "Removed: deprecated request parameters": pass them through ``extra_body``); the API
# takes them on models that still sample with them (anthropic-version 2023-06-01).
SAMPLING: Final = ("temperature", "top_p", "top_k")
# Messages API ``thinking`` types (SDK 2.13 ThinkingConfigParam) that a neutral
# thinking budget stands for: N > 0 tokens, 0 (off) and -1 (the model decides).
THINKING_ENABLED: Final = "enabled"
THINKING_OFF: Final = "disabled"
THINKING_DYNAMIC: Final = "adaptive"
# The thinking types that carry ``display`` and other options of thinking that happens.
THINKING_ON: Final = frozenset({THINKING_ENABLED, THINKING_DYNAMIC})
# Block types of thinking (Messages API, "Extended thinking").
THINKING_BLOCKS: Final = frozenset({"thinking", "redacted_thinking"})

# Codec bookkeeping in ``Conversation.extras["anthropic"]``: keys no Messages API
# request has, never sent.
TOP_LEVEL_SAMPLING: Final = "top_level_sampling"
"""The sampling keys a request had at its top level (a REST body, or SDK < 1.0
keywords) rather than in ``extra_body``: they go back there."""
LEGACY_OUTPUT_FORMAT: Final = "legacy_output_format"
"""The request gave its JSON schema as the beta top-level ``output_format`` (which
the API still takes) rather than ``output_config.format``: it goes back there."""
BOOKKEEPING: Final = frozenset({TOP_LEVEL_SAMPLING, LEGACY_OUTPUT_FORMAT})
