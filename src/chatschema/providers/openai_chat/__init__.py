"""OpenAI Chat Completions: the neutral model to and from ``messages`` (and tools).

Follows the `Chat Completions API reference
<https://platform.openai.com/docs/api-reference/chat>`_ as the official ``openai``
SDK types it (``openai.types.chat``).

``encode`` returns the keyword arguments of ``client.chat.completions.create``
that carry the conversation: ``messages`` and, when the conversation has them,
``tools``, ``tool_choice`` and ``parallel_tool_calls``, its settings in the
request's keys (``settings.py``: ``max_completion_tokens``, ``temperature``,
``response_format`` ...; ``model`` only when ``settings.model`` is set) and the
request keys kept in ``Conversation.extras["openai_chat"]``::

    client.chat.completions.create(model="gpt-4.1", **openai_chat.encode(conversation))
    # a conversation that names its model: the caller's keywords win this way
    client.chat.completions.create(**{**openai_chat.encode(conversation), "model": "gpt-4.1"})

``decode_conversation`` reads a request body back (or a bare message list, or SDK
objects): settings to ``settings``, every other request key verbatim to
``extras``; ``decode_response`` reads a ``ChatCompletion``; the server side writes one:
``encode_response`` gives a message as a ``ChatCompletion`` body and
``encode_stream`` as its ``chat.completion.chunk`` events (or, ``sse=True``, the
bytes of the HTTP body, ``data: [DONE]`` last). A payload decoded and
encoded again is the same payload, byte for byte where the API cares (tool-call
argument strings, content forms, unknown keys). What the neutral model has no
field for is kept under ``extras["openai_chat"]`` (see ``docs/providers/openai_chat.md``
for every key). Chat Completions has no hosted tools: other formats' hosted tools
(``ToolDefinition.provider``) go through the unsupported-content policy, and a
message that the policy's drops leave empty is not sent.

Files: ``wire.py`` the wire tables; ``encode.py`` ``encode`` and ``check`` (the
encoder collecting problems); ``fast.py`` the encoder's walk over the messages,
the common shapes written inline; ``rules.py`` the rules that only check (tool
pairing, tool names); ``request.py`` the tools and tool choice ``encode`` writes,
and the copy and merge of kept extras; ``settings.py`` request settings both ways;
``decode.py``
histories and responses; ``blocks.py`` the content parts, annotations and audio
output both decoders read (and the reader they fail through, and the copy that
refuses a key JSON cannot hold); ``usage.py`` token usage; ``stream.py``
``decode_stream``; ``response.py`` ``encode_response`` and ``encode_stream`` (the
message as a response body); ``events.py`` the stream writer (chunks in, chunk
events out); ``replies.py`` what both share (ids, finish reasons, usage, tool calls,
citations, audio output).
"""

from __future__ import annotations

from chatschema.providers._openai import CUSTOM_TOOL_PARAMETERS
from chatschema.providers.openai_chat.decode import (
    decode_conversation,
    decode_messages,
    decode_response,
)
from chatschema.providers.openai_chat.encode import check, encode
from chatschema.providers.openai_chat.response import encode_response, encode_stream
from chatschema.providers.openai_chat.stream import decode_stream
from chatschema.providers.openai_chat.wire import NAME, TOOL_IMAGES_INTRO

__all__ = [
    "CUSTOM_TOOL_PARAMETERS",
    "NAME",
    "TOOL_IMAGES_INTRO",
    "check",
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "decode_stream",
    "encode",
    "encode_response",
    "encode_stream",
]
