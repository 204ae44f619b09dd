"""Mistral chat completions (La Plateforme, ``POST /v1/chat/completions``).

Follows Mistral's API reference, "Chat Completion", as the official ``mistralai``
SDK types it (``mistralai.client.models``). The wire object is Chat Completions'
with Mistral's rules, so the codec is the shared Chat Completions walk plus what
differs (``translate.py``):

- tool-call ids are 9 characters ``[a-zA-Z0-9]``: ``encode`` rewrites others
  (``mistral_ids=True``, the default; ``ids.py``), deterministically and the same
  for a call and its results, and reports the mapping (:class:`IdsRewrittenWarning`,
  :func:`ids_rewritten`); :func:`restore_ids` puts the originals back;
- Magistral's thinking chunks (``{"type": "thinking", "thinking": [...]}``) are
  reasoning blocks, written back in the same shape;
- ``prefix: true`` on the last assistant message (a reply to continue) is kept in
  the message's ``extras["mistral"]``;
- ``max_tokens``, ``random_seed`` (the ``seed`` setting), ``top_k``; ``safe_prompt``,
  ``prompt_mode``, ``prediction`` and other request keys kept in
  ``Conversation.extras["mistral"]``;
- finish reasons ``stop``, ``length``, ``model_length``, ``error``, ``tool_calls``.

Files: ``wire.py`` the tables; ``translate.py`` the bridge to the shared walk;
``ids.py`` the id rewriting; ``encode.py`` ``encode`` and ``check``;
``decode.py`` requests and responses; ``stream.py`` ``decode_stream``;
``response.py`` ``encode_response`` and ``encode_stream``.
"""

from __future__ import annotations

from chatschema.providers.mistral.decode import (
    decode_conversation,
    decode_messages,
    decode_response,
)
from chatschema.providers.mistral.encode import MistralOptions, check, encode
from chatschema.providers.mistral.ids import (
    IdsRewrittenWarning,
    ids_rewritten,
    mistral_id,
    restore_ids,
)
from chatschema.providers.mistral.response import encode_response, encode_stream
from chatschema.providers.mistral.stream import decode_stream
from chatschema.providers.mistral.wire import NAME

__all__ = [
    "NAME",
    "IdsRewrittenWarning",
    "MistralOptions",
    "check",
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "decode_stream",
    "encode",
    "encode_response",
    "encode_stream",
    "ids_rewritten",
    "mistral_id",
    "restore_ids",
]
