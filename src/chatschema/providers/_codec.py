"""The one list of wire formats.

Free of imports of models, codecs and plumbing, so that everything below
``chatschema.providers`` can read it; the protocol the formats satisfy is in
:mod:`chatschema.providers._protocol`.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["PROVIDERS", "ProviderName"]

ProviderName = Literal[
    "openai_chat", "openai_responses", "anthropic", "gemini", "otel_genai", "bedrock_converse"
]
"""A wire format, by the name of its codec package under ``chatschema.providers``."""

PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)
"""Every wire format, in the order the documentation lists them."""
