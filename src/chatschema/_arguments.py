"""Tool-call argument text: parsing what providers send, writing what they take.

A low-level module (no models, no codecs): history utilities, interop and every
codec read arguments the same way.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["json_text", "parse_arguments"]


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse a tool call's argument text: ``(object, None)`` or ``(None, error)``.

    An empty string means no arguments (``{}``), as providers stream it.
    """
    if raw.strip() == "":
        return {}, None
    try:
        value = json.loads(raw)
    except ValueError as error:
        return None, f"arguments are not valid JSON: {error}"
    except RecursionError:
        return None, "arguments are nested too deeply to read as JSON"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, not {type(value).__name__}"
    return value, None


json_text = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
"""``json.dumps(value, ensure_ascii=False)`` with one kept encoder (``dumps`` builds
one on every call); NaN and infinities raise ``ValueError`` (they are not JSON)."""
