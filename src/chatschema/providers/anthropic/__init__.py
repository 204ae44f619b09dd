"""Anthropic Messages API codec: the neutral model to and from ``messages.create``.

Follows the Messages API reference (https://docs.anthropic.com/en/api/messages)
and the official SDK's types (``anthropic.types``, 2.12). ``encode`` returns the
keyword arguments the official client takes: the conversation (``system``,
``messages``, ``tools``, ``tool_choice``), its settings in the API's keys (only those
set) and the request keys kept in ``Conversation.extras["anthropic"]``::

    client.messages.create(model=..., max_tokens=..., **encode(conversation))

``model`` and ``max_tokens`` are sent only when the settings give them (the API
requires ``max_tokens``; no value is made up), so the call above works for
conversations without settings; with settings, let the call's keywords win with
``client.messages.create(**{**encode(conversation), "model": ...})``.

Where things are: :mod:`.wire` (limits, known types, patterns), :mod:`.encode`
(``encode`` and ``check``: one encoder, ``check`` in collect mode), :mod:`.fast`
(the encoder's walk for the common shapes), :mod:`.rules` (the rules that only
check: tool pairing per API turn, thinking order, request totals, empty turns),
:mod:`.settings` (request settings and extras, both ways; the tool choice),
:mod:`.request` (the request's shape: turns, tool-use ids, block placement),
:mod:`.decode` (histories and responses), :mod:`.blocks` (the block readers
histories, responses and streams share), :mod:`.stream` (``decode_stream``);
the server side: :mod:`.response` (``encode_response`` and ``encode_stream``),
:mod:`.events` (the stream's event writer), :mod:`.replies` (the blocks, usage and
stop reason both write).

Files: ``__init__.py``, ``wire.py``, ``encode.py``, ``fast.py``, ``rules.py``,
``settings.py``, ``request.py``, ``decode.py``, ``blocks.py``, ``stream.py``,
``response.py``, ``events.py``, ``replies.py``.

Decisions (``docs/providers/anthropic.md`` has the full mapping table):

- Leading system messages become the top-level ``system`` (a lone string stays a
  string); later system messages stay in place as ``{"role": "system"}`` messages
  (SDK 2.12 "mid-conversation system messages").
- Consecutive messages of one wire role are merged into one turn. Tool results
  become ``tool_result`` blocks placed first in the user turn that follows the
  calls, user text after them; decoding splits such a turn back into tool
  messages and a user message, and marks messages that started a wire message of
  their own (``extras["anthropic"]["new_message"]``) so the turn re-encodes as it
  came.
- Thinking and redacted thinking are replayed unchanged, in place; tool calls keep
  their position among the content blocks with ``ToolCall.index``.
- Tool-use ids that do not match ``^[a-zA-Z0-9_-]+$`` are rewritten the same way
  on the call and on its result; valid ids never are (an id may come back in a
  later turn: pairing is per turn).
- Request settings (``docs/providers/anthropic.md``, "Request settings"): sampling
  keys go through ``extra_body`` (SDK >= 1.0 dropped them from ``messages.create``)
  unless the decoded request had them at its top level; settings the API has no key
  for (``seed``, penalties, a JSON mode without schema) and an allowed-tools choice
  follow the unsupported policy.
- A ``null`` is sent only where the decoded request had one (``"cache_control":
  null``, ``"citations": null`` ...; a response's ``null`` fields are not request
  keys); citation titles, which the API requires but allows to be ``null``, are
  always sent. Empty values are values: ``tools: []``, ``system: ""`` go back.
- ``check`` reports the API's errors only: calls without their results first in the
  next user turn, results without any call before them, ids repeated in one turn.
- Anthropic-defined tools (``{"type": "web_search_20250305", ...}``) decode with
  ``provider="anthropic"``; other formats' hosted tools go through the
  unsupported-content policy. A turn that the policy's drops leave empty is not
  sent; its neighbours of one role merge.

Inside ``chatschema.providers`` the name ``anthropic`` shadows the SDK only as an
attribute: the modules of this package import each other absolutely.
"""

from __future__ import annotations

from chatschema.providers.anthropic.decode import (
    decode_conversation,
    decode_messages,
    decode_response,
)
from chatschema.providers.anthropic.encode import check, encode
from chatschema.providers.anthropic.response import encode_response, encode_stream
from chatschema.providers.anthropic.stream import decode_stream
from chatschema.providers.anthropic.wire import (
    IMAGE_MEDIA_TYPES,
    MAX_CACHE_BREAKPOINTS,
    MAX_IMAGE_BASE64_BYTES,
    MAX_IMAGES,
    MAX_REQUEST_INLINE_BYTES,
    NAME,
)

__all__ = [
    "IMAGE_MEDIA_TYPES",
    "MAX_CACHE_BREAKPOINTS",
    "MAX_IMAGES",
    "MAX_IMAGE_BASE64_BYTES",
    "MAX_REQUEST_INLINE_BYTES",
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
