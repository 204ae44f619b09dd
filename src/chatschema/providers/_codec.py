"""The one list of wire formats.

Free of imports of models, codecs and plumbing, so that everything below
``chatschema.providers`` can read it; the protocol the formats satisfy is in
:mod:`chatschema.providers._protocol`.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["HTTP_PROVIDERS", "PROVIDERS", "ProviderName"]

ProviderName = Literal[
    "openai_chat",
    "openai_responses",
    "open_responses",
    "anthropic",
    "gemini",
    "gemini_interactions",
    "otel_genai",
    "bedrock_converse",
    "mistral",
]
"""A wire format, by the name of its codec package under ``chatschema.providers``."""

PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)
"""Every wire format, in the order the documentation lists them."""

HTTP_PROVIDERS: tuple[ProviderName, ...] = tuple(name for name in PROVIDERS if name != "otel_genai")
"""The formats of a provider's HTTP API: they also write responses and streams
(:class:`~chatschema.providers._protocol.HTTPCodec`)."""
