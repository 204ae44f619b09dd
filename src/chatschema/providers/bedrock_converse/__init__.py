"""Amazon Bedrock Converse codec: the neutral model to and from ``converse``.

Follows the Bedrock Runtime API reference ("Converse", "ConverseStream") and
botocore's service model of ``bedrock-runtime``. ``encode`` returns the keyword
arguments of boto3's client::

    bedrock_runtime.converse(modelId=..., **encode(conversation))
    bedrock_runtime.converse_stream(modelId=..., **encode(conversation))

(``modelId`` comes from ``settings.model`` when it is set; then a caller's own goes
in as ``{**encode(conversation), "modelId": ...}``.)

The server side writes what the service answers: ``encode_response(message)`` the
body of a ``converse`` response, ``encode_stream(message_or_chunks)`` the
``converse_stream`` events (``sse=True``: the HTTP body's bytes, AWS event-stream
binary messages), the mirror of ``decode_response`` and ``decode_stream``.

Where things are: :mod:`.wire` (formats, known keys, patterns, stop reasons),
:mod:`.encode` (``encode`` and ``check``: one encoder, ``check`` in collect mode),
:mod:`.fast` (the encoder's writer for plain messages), :mod:`.request` (settings,
tools and the other request keys, both ways), :mod:`.rules` (tool pairing and wire
ids), :mod:`.decode` (histories and responses), :mod:`.blocks` (the block readers
histories, responses and streams share, and the blob forms), :mod:`.usage` (a
response's top level and usage), :mod:`.stream` (``decode_stream``), :mod:`.response`
(``encode_response`` and ``encode_stream``), :mod:`.answer` (what they share: the
assistant blocks, stop reason, usage), :mod:`.events` (the stream's event writer),
:mod:`.eventstream` (the AWS event-stream framing, written and read).

Decisions (``docs/providers/bedrock_converse.md`` has the full mapping table):

- Leading system messages become the top-level ``system`` list; later ones stay in
  place as ``{"role": "system"}`` messages.
- Consecutive messages of one wire role are one turn. Tool results become
  ``toolResult`` blocks first in the user turn that follows the calls; decoding
  splits such a turn back into tool messages and a user message, and marks
  messages that started a wire message of their own (``new_message``).
- A ``cachePoint`` block after a block is that block's ``cache_control`` (ttl
  ``5m``/``1h``); after a tool call, a tool result or a tool definition it is kept
  in its extras.
- Reasoning (``reasoningText`` with its signature, ``redactedContent``) is replayed
  unchanged; tool calls keep their place among the blocks with ``ToolCall.index``.
- Blobs: boto3 takes and gives ``bytes``; the REST API's JSON (and recorded
  traffic) carries base64 text. Both decode; a blob goes back in the form it came,
  content from elsewhere goes out as ``bytes``; :func:`json_form` /
  :func:`boto3_form` turn a whole request, response or event into one form.
- Tool-use ids outside ``[a-zA-Z0-9_.:-]{1,64}`` are rewritten the same way on the
  call and on its result. A document name a request had goes back as it came; one
  the codec makes (from a filename or title) is cleaned to the API reference's rule.
"""

from __future__ import annotations

from chatschema.providers.bedrock_converse.blocks import boto3_form, json_form
from chatschema.providers.bedrock_converse.decode import (
    decode_conversation,
    decode_messages,
    decode_response,
)
from chatschema.providers.bedrock_converse.encode import check, encode
from chatschema.providers.bedrock_converse.response import encode_response, encode_stream
from chatschema.providers.bedrock_converse.stream import decode_stream
from chatschema.providers.bedrock_converse.wire import (
    AUDIO_FORMATS,
    DOCUMENT_FORMATS,
    IMAGE_FORMATS,
    NAME,
    VIDEO_FORMATS,
)

__all__ = [
    "AUDIO_FORMATS",
    "DOCUMENT_FORMATS",
    "IMAGE_FORMATS",
    "NAME",
    "VIDEO_FORMATS",
    "boto3_form",
    "check",
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "decode_stream",
    "encode",
    "encode_response",
    "encode_stream",
    "json_form",
]
