"""What both directions of the LangChain conversion share.

The namespaces of carried data, LangChain's spellings of provider names and finish
reasons, the content type of a LangChain message, and small checks of LangChain
values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from chatschema.errors import ConversionError

NAMESPACE: Final = "langchain"
"""Key of LangChain data in neutral ``extras`` (and a reply's ``response_metadata``)."""


ESCAPE_KEY: Final = "chatschema"
"""Key of neutral data in LangChain ``additional_kwargs`` and block ``extras``."""


_DATA_TYPES = frozenset({"image", "audio", "video", "file", "text-plain"})


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
