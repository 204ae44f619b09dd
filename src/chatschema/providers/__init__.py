"""Provider codecs: the neutral model to and from each wire format.

One package per format, each with the same verbs (``encode``, ``check``,
``decode_conversation``, ``decode_messages``, ``decode_response``,
``decode_stream``: the :class:`Codec` protocol; the formats of a provider's HTTP
API also write its side, ``encode_response`` and ``encode_stream``: the
:class:`HTTPCodec` protocol):

- :mod:`chatschema.providers.openai_chat`: OpenAI Chat Completions
- :mod:`chatschema.providers.openai_responses`: OpenAI Responses
- :mod:`chatschema.providers.open_responses`: Open Responses (the Responses API as a
  multi-provider specification)
- :mod:`chatschema.providers.anthropic`: Anthropic Messages
- :mod:`chatschema.providers.gemini`: Gemini ``generateContent``
- :mod:`chatschema.providers.bedrock_converse`: Amazon Bedrock Converse
- :mod:`chatschema.providers.mistral`: Mistral chat completions
- :mod:`chatschema.providers.otel_genai`: OpenTelemetry GenAI message attributes

Modules are imported on first use, so ``import chatschema`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Literal, cast

from chatschema_models.conversation import Conversation

from chatschema.errors import OptionError, Problem
from chatschema.providers._codec import HTTP_PROVIDERS, PROVIDERS, ProviderName
from chatschema.providers._protocol import Codec, HTTPCodec
from chatschema.validation import to_dict

__all__ = [
    "HTTP_PROVIDERS",
    "PROVIDERS",
    "Codec",
    "HTTPCodec",
    "ProviderName",
    "check",
    "convert",
    "get_codec",
    "get_http_codec",
]


def get_codec(name: str) -> Codec:
    """The codec of a wire format (imported on first use).

    Raises:
        OptionError: for an unknown format name.
    """
    if name not in PROVIDERS:
        raise OptionError(f"unknown provider format {name!r}; expected one of {PROVIDERS}")
    return cast(Codec, importlib.import_module(f"chatschema.providers.{name}"))


def get_http_codec(name: str) -> HTTPCodec:
    """The codec of a provider's HTTP API, with its server side (imported on first use).

    Raises:
        OptionError: for a name that is not one of :data:`HTTP_PROVIDERS`.
    """
    if name not in HTTP_PROVIDERS:
        raise OptionError(
            f"{name!r} is not the format of a provider's HTTP API; expected one of {HTTP_PROVIDERS}"
        )
    return cast(HTTPCodec, importlib.import_module(f"chatschema.providers.{name}"))


if TYPE_CHECKING:  # every registered format satisfies the protocol (checked by mypy)
    from chatschema.providers import (
        anthropic,
        bedrock_converse,
        gemini,
        gemini_interactions,
        mistral,
        open_responses,
        openai_chat,
        openai_responses,
        otel_genai,
    )

    _CODECS: tuple[Codec, ...] = (
        openai_chat,
        openai_responses,
        open_responses,
        anthropic,
        gemini,
        gemini_interactions,
        otel_genai,
        bedrock_converse,
        mistral,
    )
    _HTTP_CODECS: tuple[HTTPCodec, ...] = (
        openai_chat,
        openai_responses,
        open_responses,
        anthropic,
        gemini,
        gemini_interactions,
        bedrock_converse,
        mistral,
    )


def check(messages: Any, target: str, **options: Any) -> list[Problem]:
    """Every structural problem that would make ``target`` reject the messages.

    Unanswered tool calls, orphan tool results, ordering rules of the format, images
    without vision, known size limits. ``encode`` runs the same check and raises
    with all of them. ``messages`` is anything ``encode`` accepts.
    """
    return get_codec(target).check(messages, **options)


def convert(
    payload: Any,
    *,
    source: str,
    target: str | Literal["neutral"],
    **options: Any,
) -> Any:
    """Convert a request history from one format to another.

    Args:
        payload: a history in the ``source`` format (what that codec's ``encode``
            returns, or a bare message list); for ``source="neutral"``, a
            conversation or messages.
        source: ``"neutral"`` or a provider format name.
        target: ``"neutral"`` (returns a conversation as a dict) or a provider format.
        **options: ``encode`` options for the target.
    """
    if source == "neutral":
        from chatschema.providers._common import to_conversation

        conversation = to_conversation(payload)
    else:
        conversation = get_codec(source).decode_conversation(payload)
    if target == "neutral":
        if options:
            raise OptionError("encode options make no sense for target='neutral'")
        assert isinstance(conversation, Conversation)
        return to_dict(conversation)
    return get_codec(target).encode(conversation, **options)
