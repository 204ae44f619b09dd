"""What OpenAI's two formats share: one wire object, one rule.

Chat Completions and Responses carry the same prompt-cache breakpoints and the
same url citations, and custom (free-form input) tools take the same input; each
is read and written here once, so that both codecs decide alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from chatschema_models.content import CacheControl, Citation
from chatschema_models.tool import ToolCall

__all__ = [
    "CACHE_TTLS",
    "CITATION_FIELDS",
    "CUSTOM_TOOL_PARAMETERS",
    "cache_breakpoint",
    "cache_control",
    "citation_fields",
    "custom_input",
]

# Prompt caching, "prompt_cache_breakpoint": the two lifetimes the API takes.
CACHE_TTLS: Final = ("30m", "12h")
_TTL_SECONDS: Final = {"s": 1, "m": 60, "h": 3600}

CITATION_FIELDS: Final = ("url", "title", "start_index", "end_index")
"""The fields of a ``url_citation`` (flat in Responses, under ``url_citation`` in
Chat Completions)."""

CUSTOM_TOOL_PARAMETERS: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"input": {"type": "string"}},
    "required": ["input"],
}
"""Parameters of a custom (free-form input) tool in the neutral model: its one
string input is the call's ``{"input": ...}`` argument."""


def cache_breakpoint(cache: CacheControl) -> dict[str, Any]:
    """A neutral cache marker as a ``prompt_cache_breakpoint``.

    The API's ``ttl`` is a minimum lifetime, so another neutral ttl is rounded up
    to the next one it takes (``1h`` becomes ``12h``), in both formats.
    """
    breakpoint: dict[str, Any] = {"mode": "explicit"}
    ttl = cache.ttl
    if ttl is not None:
        if ttl in CACHE_TTLS:
            breakpoint["ttl"] = ttl
        else:
            seconds = int(ttl[:-1]) * _TTL_SECONDS[ttl[-1]]
            breakpoint["ttl"] = "30m" if seconds <= 1800 else "12h"
    return breakpoint


def cache_control(value: Any) -> CacheControl | None:
    """A ``prompt_cache_breakpoint`` as a neutral marker, None when neutral cannot say it.

    Only an explicit breakpoint with one of the API's lifetimes (or none) maps;
    anything else stays in the codec's extras as it came.
    """
    if (
        isinstance(value, dict)
        and value.get("mode") == "explicit"
        and set(value) <= {"mode", "ttl"}
        and isinstance(ttl := value.get("ttl", "30m"), str)
        and ttl in CACHE_TTLS
    ):
        if "ttl" in value:
            return CacheControl(type="ephemeral", ttl=value["ttl"])
        return CacheControl(type="ephemeral")
    return None


def citation_fields(citation: Citation) -> dict[str, Any] | None:
    """A citation's url, title and character range, None when one of them is missing.

    Both formats require all four; a missing one is never invented.
    """
    fields = {name: getattr(citation, name) for name in CITATION_FIELDS}
    if any(value is None for value in fields.values()):
        return None
    return fields


def custom_input(call: ToolCall | Mapping[str, Any]) -> str | None:
    """The free-form input of a custom tool call.

    None when its arguments are not exactly ``{"input": <string>}``.
    """
    arguments = call.arguments if isinstance(call, ToolCall) else call
    value = arguments.get("input")
    if len(arguments) == 1 and isinstance(value, str):
        return value
    return None
