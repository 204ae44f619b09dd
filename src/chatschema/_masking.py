"""Masking for reprs and error messages: opaque values elided, inline data cut.

A low-level module (no models): the base classes' reprs (:mod:`chatschema._wire`)
and the error messages of :mod:`chatschema.validation` show data through it, so
neither reaches into the other.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["Elided", "masked", "masked_field", "masked_repr"]

_OPAQUE_FIELDS = frozenset({"signature", "encrypted_content"})
# Opaque values providers put inside provider data (extras, non-standard blocks).
_OPAQUE_KEYS = frozenset(
    {
        "signature",
        "encrypted_content",
        "encrypted_index",
        "thought_signature",
        "thoughtSignature",
        "redacted_thinking",
    }
)
_OPAQUE_KEY = "signature"  # stands for any opaque key
_SHORTENED_FIELDS = frozenset({"base64"})
_SHOWN_CHARACTERS = 24

# Free-form data deeper than this is shown as ``{...}`` / ``[...]`` in reprs (so a
# repr never exhausts the stack), and strings that look like inline data are cut.
_REPR_DEPTH = 20
_INLINE_DATA = re.compile(r"[A-Za-z0-9+/=_-]*")
_LONG_DATA = 64


class Elided:
    """Stands in for an opaque or long value in a repr."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _shown_string(key: Any, text: str) -> Any:
    """A string of provider data for a repr: opaque values elided, inline data cut."""
    if key in _OPAQUE_KEYS:
        return Elided(f"<opaque, {len(text)} characters>")
    if len(text) > _LONG_DATA and (text.startswith("data:") or _INLINE_DATA.fullmatch(text)):
        return Elided(f"'{text[:_SHOWN_CHARACTERS]}...' ({len(text)} characters)")
    return text


def masked(value: Any, depth: int = 0) -> Any:
    """Free-form data for reprs: opaque values elided, inline data cut, depth bounded."""
    if isinstance(value, dict):
        if value and depth >= _REPR_DEPTH:
            return Elided("{...}")
        # Anthropic's redacted thinking keeps its encrypted data under a plain "data"
        opaque = "data" if value.get("type") == "redacted_thinking" else None
        return {
            key: (
                _shown_string(_OPAQUE_KEY if key == opaque else key, item)
                if isinstance(item, str)
                else masked(item, depth + 1)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        if value and depth >= _REPR_DEPTH:
            return Elided("[...]")
        return [
            _shown_string(None, item) if isinstance(item, str) else masked(item, depth + 1)
            for item in value
        ]
    return value


def masked_field(name: str | None, value: Any) -> Any:
    """A model field's value as its repr shows it.

    Opaque fields (``signature``, ``encrypted_content``) elided, free-form data
    masked (:func:`masked`), base64 data and data URLs cut to their start and length.
    """
    if name in _OPAQUE_FIELDS and isinstance(value, str):
        return Elided(f"<opaque, {len(value)} characters>")
    if isinstance(value, (dict, list)):
        return masked(value)
    if (
        isinstance(value, str)
        and len(value) > _SHOWN_CHARACTERS
        and (name in _SHORTENED_FIELDS or (name == "url" and value.startswith("data:")))
    ):
        return Elided(f"'{value[:_SHOWN_CHARACTERS]}...' ({len(value)} characters)")
    return value


def masked_repr(value: Any) -> str:
    """``repr`` of free-form data as models show it (see :func:`masked`)."""
    return repr(masked(value))
