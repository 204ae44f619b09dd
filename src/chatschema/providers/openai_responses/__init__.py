"""OpenAI Responses API: the neutral model to and from ``input`` items.

Follows the Responses API reference (``client.responses.create``, the ``Response``
object and its streaming events). ``encode`` returns the keyword arguments of
``client.responses.create`` (``instructions``, ``input``, ``tools``,
``tool_choice``, ``parallel_tool_calls``, the settings and the request's other
keys); ``decode_conversation`` reads the same shape back, ``decode_response``
reads a ``Response`` (REST JSON or the official SDK object), ``decode_stream`` its
streaming events.

How the formats meet (``docs/providers/openai_responses.md`` has the full table):

- Leading system messages become ``instructions`` (joined with a newline); later
  ones are ``system`` / ``developer`` input messages.
- An assistant turn is a run of output items: ``reasoning``, assistant ``message``
  (one content block per ``output_text`` / ``refusal`` part, the item id on each
  block), ``function_call`` (a ``ToolCall``; the exact argument text, the ``fc_``
  item id and the status in ``ToolCall.extras["openai_responses"]``),
  ``web_search_call`` (a ``server_tool_call`` block), ``code_interpreter_call`` (a
  ``server_tool_call`` block and its ``server_tool_result``) and every other item
  as a ``non_standard`` block holding the item unchanged. An item whose keys came
  in another order than encode writes keeps that order in extras (``key_order``):
  histories come back byte for byte. Consecutive output items make
  one ``AssistantMessage``; ``ToolCall.index`` keeps their order when calls and
  other items interleave.
- Tool results are ``function_call_output`` items.
- Hosted tools (every tool type but ``function``) decode with
  ``provider="openai_responses"``; other formats' hosted tools go through the
  unsupported-content policy. An input message that the policy's drops leave
  empty is not sent.
- Request settings: ``model``, ``max_output_tokens``, ``temperature``, ``top_p``,
  ``text.format`` and ``reasoning.effort`` are ``Conversation.settings``; ``stop``,
  ``seed``, ``top_k``, the penalties and a thinking budget have no key here
  (unsupported content at ``/settings/<field>``). ``allowed_tools`` is an
  ``AllowedToolsChoice``.
- What the neutral model has no field for (every other request key included)
  stays in ``extras["openai_responses"]`` and comes back out on encode, so
  ``encode(decode_conversation(p)) == p``.

The server side: ``encode_response`` writes a message as the ``Response`` body the
API answers with (``encode_response(decode_response(body))`` is the body, nulls
aside), ``encode_stream`` a message or chunks as the API's streaming events (or
their SSE bytes); ids a message lacks are made in the API's shape.

Files: :mod:`.wire` (item types, limits, finish reasons, bookkeeping
keys), :mod:`.encode` (``encode`` and ``check``), :mod:`.fast` (the encoder's walk
over the messages, the common shapes written inline), :mod:`.items` (the output
items the encoder rebuilds from blocks), :mod:`.request` (settings, tools, tool
choice and the request's other keys, both ways), :mod:`.rules` (the rules that only
check: tool pairing, item ids, reasoning order), :mod:`.decode` (histories and
responses), :mod:`.blocks` (output item readers both decoders use), :mod:`.stream`
(``decode_stream``) and :mod:`.ordering` (its chunks in the items' order),
:mod:`.response` (``encode_response``, ``encode_stream``), :mod:`.output` (the
Response's items, usage and status as written), :mod:`.events` (the stream writer)
and :mod:`.assembly` (its blocks and items being assembled).
"""

from __future__ import annotations

from chatschema.providers.openai_responses.decode import (
    decode_conversation,
    decode_messages,
    decode_response,
)
from chatschema.providers.openai_responses.encode import check, encode
from chatschema.providers.openai_responses.response import encode_response, encode_stream
from chatschema.providers.openai_responses.stream import decode_stream
from chatschema.providers.openai_responses.wire import MAX_IMAGES, MAX_INLINE_IMAGE_BYTES, NAME

__all__ = [
    "MAX_IMAGES",
    "MAX_INLINE_IMAGE_BYTES",
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
