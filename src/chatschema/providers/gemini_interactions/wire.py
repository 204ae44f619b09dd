"""The Interactions API's tables: step and content types, statuses, request keys.

Follows the Gemini Interactions API reference (ai.google.dev/api/interactions-api)
and google-genai's interactions types (the ``steps`` form of 2026-05-20).
"""

from __future__ import annotations

from typing import Any, Final

from chatschema._json import copy_json
from chatschema.providers._common import Reader

NAME: Final = "gemini_interactions"
READ: Final = Reader(NAME)

CONTENT_TYPES: Final = frozenset({"text", "image", "audio", "video", "document"})
"""Content items (``Content``): a user turn's, a model output's, a function result's."""

MEDIA_TYPES: Final = ("image", "audio", "video", "document")

MODEL_STEPS: Final = frozenset({"thought", "model_output", "function_call"})
"""Steps the neutral model reads as an assistant message's blocks and calls."""

SERVER_STEPS: Final = frozenset(
    {
        "code_execution_call",
        "code_execution_result",
        "file_search_call",
        "file_search_result",
        "google_maps_call",
        "google_maps_result",
        "google_search_call",
        "google_search_result",
        "mcp_server_tool_call",
        "mcp_server_tool_result",
        "processing_call",
        "processing_result",
        "retrieval_call",
        "retrieval_result",
        "tool_search_call",
        "tool_search_result",
        "url_context_call",
        "url_context_result",
    }
)
"""Server tool steps: kept whole (a non-standard block of this format)."""

SETTINGS: Final = {
    "temperature": "temperature",
    "top_p": "top_p",
    "max_output_tokens": "max_output_tokens",
    "seed": "seed",
    "stop_sequences": "stop",
    "thinking_level": "reasoning_effort",
}
"""``generation_config`` keys and the settings they are."""

THINKING_LEVELS: Final = frozenset({"minimal", "low", "medium", "high", "xhigh"})

# Interaction.status: the neutral finish reason of each
FINISH: Final = {
    "completed": "stop",
    "requires_action": "tool_calls",
    "incomplete": "length",
    "budget_exceeded": "length",
    "failed": "error",
    "cancelled": "other",
    "requires_continuation": "paused",
    "in_progress": "other",
    "queued": "other",
    "idle": "other",
}
STATUS_OF: Final = {
    "stop": "completed",
    "tool_calls": "requires_action",
    "length": "incomplete",
    "error": "failed",
    "paused": "requires_continuation",
    "content_filter": "failed",
    "other": "completed",
}

# markers kept in extras[NAME] (no loss when left behind; LOCAL_EXTRAS)
INPUT_FORM: Final = "input_form"  # the conversation's: "string", "content", "contents"
NEW_STEP: Final = "new_step"  # a block that starts a model_output step of its own
STEP: Final = "step"  # a step's keys the neutral model has no field for
NO_SUMMARY: Final = "no_summary"  # a thought step sent without ``summary``
OBJECT_RESULT: Final = "object_result"  # a function result that came as an object
RESULT_NAME: Final = "name"  # a function result's function name
NO_CONTENT: Final = "no_content"  # a step sent without ``content``

MARKERS: Final = frozenset(
    {INPUT_FORM, NEW_STEP, STEP, NO_SUMMARY, OBJECT_RESULT, NO_CONTENT, "tool", "parameters"}
)
"""Keys of ``extras[NAME]`` that are markers; every other key is a wire key kept as it came."""


def put_kept(wire: dict[str, Any], extras: Any) -> dict[str, Any]:
    """Add the wire keys kept in ``extras[NAME]`` (markers left out) that ``wire`` lacks."""
    if extras:
        kept = extras.get(NAME)
        if isinstance(kept, dict):
            for key, value in kept.items():
                if key not in MARKERS and key not in wire:
                    wire[key] = copy_json(value)
    return wire
