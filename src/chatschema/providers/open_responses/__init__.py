"""Open Responses: the Responses API as a multi-provider specification.

Follows the Open Responses specification (https://www.openresponses.org, the
OpenAPI 3.1 document ``public/openapi/openapi.json`` and the TypeSpec sources in
``schema/`` of openresponses/openresponses). Its wire object is the OpenAI
Responses API's: ``CreateResponseBody`` is ``client.responses.create``'s keyword
arguments, ``ResponseResource`` a ``Response``, the streaming events the same
events. :mod:`chatschema.providers.openai_responses` reads and writes that object;
this package adds what the specification adds and names its values
``open_responses``:

- ``input_video`` parts of ``function_call_output`` lists are ``VideoBlock`` (a
  base64 data URL as inline data, any other URL as ``url``); the document's user
  messages have none (one there is read, a user message's video is refused);
- ``compaction`` items are ``CompactionBlock`` with ``provider="open_responses"``
  (``id``, ``encrypted_content``; other keys such as ``created_by`` kept);
- reasoning items carry ``content`` (``reasoning_text`` parts: the block's text),
  ``summary`` and ``encrypted_content`` in responses; a request's reasoning item has
  no ``content``, so a replayed item goes without its raw text;
- message items always say ``"type": "message"``; a ``ResponseResource`` has every
  property the document requires (:mod:`.resource`), and the raw reasoning events
  are ``response.reasoning.delta`` / ``.done`` (``reasoning_text`` names read too);
- an assistant message's ``phase`` (``commentary`` / ``final_answer``) and items
  whose type names a provider (``openai:web_search_call``) are kept and written
  back as they came;
- the OpenAI Responses format's blocks and extras encode as this format's own.

Files: :mod:`.wire` (the additions' tables), :mod:`.mirror` (values named for the
Responses codec and back; video blocks), :mod:`.encode` (``encode``,
``check``), :mod:`.decode` (histories and responses), :mod:`.stream`
(``decode_stream``), :mod:`.response` (``encode_response``, ``encode_stream``),
:mod:`.resource` (what the OpenAPI document requires of responses and events).
"""

from __future__ import annotations

from chatschema.providers.open_responses.decode import (
    decode_conversation,
    decode_messages,
    decode_response,
)
from chatschema.providers.open_responses.encode import check, encode
from chatschema.providers.open_responses.response import encode_response, encode_stream
from chatschema.providers.open_responses.stream import decode_stream
from chatschema.providers.open_responses.wire import NAME

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
