"""Gemini ``generateContent``: the neutral model to and from ``contents``.

Follows the Gemini API reference (ai.google.dev/api/generate-content) and its
guides (function calling, thinking and thought signatures, file input); the
mapping, rule by rule, is in ``docs/providers/gemini.md``.

``encode`` returns a request with google-genai's snake_case field names::

    {"model"?: str, "system_instruction"?: Content, "contents": [Content],
     "tools"?: [Tool], "tool_config"?: ToolConfig,
     "generation_config"?: GenerationConfig, "safety_settings"? ...}

(or google-genai's ``{"model"?, "contents", "config"}`` for a conversation decoded
from that form); :func:`genai_kwargs` turns it into ``generate_content``'s keyword
arguments. ``Conversation.settings`` maps to ``generation_config`` and
``model``; every other request key is kept in ``Conversation.extras["gemini"]``.

Decoders read that shape, the REST camelCase one (``functionCall``,
``thoughtSignature`` ...) and google-genai SDK objects alike; bytes fields of SDK
objects (``thought_signature``, ``inline_data.data``) come back as the standard
base64 text the REST API sends. Enums are read as names or as the numbers the REST
API writes with ``$alt=json;enum-encoding=int`` (the ``vertexai`` SDK), and what came
as a number is kept and written back as a number (``wire.py``, integer enums).

The points that matter most:

- A model turn is never split, merged or reordered: its parts become the
  assistant message's blocks and tool calls (``ToolCall.index`` keeps the position
  of calls that are interleaved with other parts, and of every call in a
  response), and part metadata such as ``thought_signature`` stays on the block or
  call it came with (``extras["gemini"]``).
- ``function_call.id`` is optional on the wire. A call without one gets a
  deterministic id (``gemini_call_<content>_<part>`` in a history,
  ``gemini_call_<response id or content hash>_<part>`` in a response), marked
  ``extras["gemini"]["synthesized_id"]`` and never sent back; function responses
  without an id are matched to calls by order and name.
- ``decode_stream`` turns ``streamGenerateContent`` events into chunks that
  assemble to ``decode_response`` of the complete response the stream stands for
  (the equivalence is defined in the docs page, *Streaming*), function calls whose
  arguments stream (``partial_args``) included.
- Tools other than function declarations (``google_search``, ``code_execution``
  ...) are ``ToolDefinition``s with ``provider="gemini"``, named after their field,
  and are sent back in their ``Tool`` objects; other formats' hosted tools go
  through the unsupported-content policy. A content that the policy's drops leave
  without parts is not sent.

Files: ``wire.py`` (wire tables, snake_case reading), ``encode.py`` (``encode``
and ``check``), ``fast.py`` (the encoder's walk for the common shapes),
``settings.py`` (request settings),
``decode.py`` (histories and responses), ``blocks.py`` (the part
readers histories, responses and streams share), ``usage.py`` (usage metadata),
``stream.py`` (``decode_stream``); the server side: ``response.py``
(``encode_response`` and ``encode_stream``), ``events.py`` (the stream's event
writer), ``write.py`` (the parts, usage and metadata both write).

The server side writes what the API sends: :func:`encode_response` a message as the
``GenerateContentResponse`` REST body (camelCase), :func:`encode_stream` a message or
chunks as ``streamGenerateContent`` events or the bytes of the ``?alt=sse`` body;
``decode_response`` and ``decode_stream`` read them back to the same message.
"""

from __future__ import annotations

from chatschema.providers.gemini.decode import (
    decode_conversation,
    decode_messages,
    decode_response,
)
from chatschema.providers.gemini.encode import check, encode, genai_kwargs
from chatschema.providers.gemini.response import encode_response, encode_stream
from chatschema.providers.gemini.stream import decode_stream
from chatschema.providers.gemini.wire import NAME

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
    "genai_kwargs",
]
