"""Gemini Interactions API (``POST /v1beta/interactions``): the neutral model to and from steps.

Follows the Interactions API reference (ai.google.dev/api/interactions-api) in its
``steps`` form (API revision 2026-05-20) and google-genai's interactions types; the
mapping, rule by rule, is in ``docs/providers/gemini_interactions.md``.

``encode`` returns a ``CreateModelInteraction`` request body::

    {"model"?: str, "system_instruction"?: str, "input": [Step] | str | Content,
     "tools"?: [Tool], "generation_config"?: GenerationConfig,
     "previous_interaction_id"?: str, ...}

The points that matter most:

- An assistant turn is its steps in their order: ``thought`` steps are reasoning
  blocks (signature and summary), ``model_output`` steps text and media blocks,
  ``function_call`` steps tool calls; server tool steps are kept whole
  (non-standard blocks of this format).
- Thought signatures carry over from and to ``gemini``: a ``thought_signature`` on a
  Gemini part becomes a ``thought`` step before its step, and Gemini writes a
  signature-only thought back on the part that follows it.
- ``previous_interaction_id`` (like the Responses API's ``previous_response_id``)
  is kept in ``Conversation.extras["gemini_interactions"]``; with it, function
  results may answer calls of the stored interaction.

Files: ``wire.py`` (tables), ``blocks.py`` (content items), ``steps.py`` (steps as
messages), ``usage.py``, ``decode.py``, ``encode.py`` (``encode`` and ``check``),
``stream.py`` (``decode_stream``); the server side: ``response.py``
(``encode_response``, ``encode_stream``), ``events.py`` (the stream's writer) and
``write.py`` (what both write: steps, the status, kept metadata).
"""

from __future__ import annotations

from chatschema.providers.gemini_interactions.decode import (
    decode_conversation,
    decode_messages,
    decode_response,
)
from chatschema.providers.gemini_interactions.encode import check, encode
from chatschema.providers.gemini_interactions.response import encode_response, encode_stream
from chatschema.providers.gemini_interactions.stream import decode_stream
from chatschema.providers.gemini_interactions.wire import NAME

__all__ = [
    "NAME",
    "check",
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "decode_stream",
    "encode",
    "encode_response",
    "encode_stream",
]
