"""OpenTelemetry GenAI codec: the neutral model to and from the GenAI message attributes.

Follows the GenAI semantic conventions (open-telemetry/semantic-conventions-genai):
the attribute registry (``model/gen-ai/registry``) and the JSON Schemas of
``gen_ai.system_instructions``, ``gen_ai.input.messages``, ``gen_ai.output.messages``
and ``gen_ai.tool.definitions``. ``encode`` returns the attributes of a span or
event, keyed by attribute name::

    span.set_attributes(encode(conversation, json_strings=True))

(:func:`chatschema.telemetry.record` does that, and records the reply too.)

Where things are: :mod:`.wire` (attribute names, part types, finish-reason maps,
markers), :mod:`.encode` (``encode``, ``check`` and ``encode_output``: one encoder,
``check`` in collect mode), :mod:`.fast` (the encoder's walk for text messages),
:mod:`.decode` (records and replies), :mod:`.blocks` (the part readers),
:mod:`.stream` (``decode_stream``, which refuses: there are no stream events).

Decisions (``docs/providers/otel_genai.md`` has the full mapping table):

- Telemetry is not a replay channel: signatures, encrypted reasoning and other
  opaque provider data are never written unless ``export_opaque=True``; a part
  says what was left out in its ``chatschema.omitted`` member.
- System messages stay in ``gen_ai.input.messages`` (they are part of the
  history); ``system_instructions=True`` puts the leading ones in
  ``gen_ai.system_instructions``.
- Content the schemas have no typed part for (refusals, text documents, other
  formats' blocks) is a generic part; a tool choice and settings without an
  attribute fall under the ``unsupported`` policy (:mod:`chatschema.telemetry`
  leaves them out and lists them in ``chatschema.omitted``, never raises).
- Decoding is lenient: deviations of real instrumentations are read and listed
  under ``extras["otel_genai"]["chatschema.problems"]`` (``response_metadata`` for
  replies), and nothing is dropped.
- ``decode_stream`` raises :class:`~chatschema.ConversionError`: the conventions
  record complete messages; use ``decode_response``.
"""

from __future__ import annotations

from chatschema.providers.otel_genai.decode import (
    decode_conversation,
    decode_messages,
    decode_response,
)
from chatschema.providers.otel_genai.encode import (
    OtelEncodeOptions,
    check,
    encode,
    encode_output,
)
from chatschema.providers.otel_genai.stream import decode_stream
from chatschema.providers.otel_genai.wire import (
    INPUT_MESSAGES,
    NAME,
    OUTPUT_MESSAGES,
    SYSTEM_INSTRUCTIONS,
    TOOL_DEFINITIONS,
)

__all__ = [
    "INPUT_MESSAGES",
    "NAME",
    "OUTPUT_MESSAGES",
    "SYSTEM_INSTRUCTIONS",
    "TOOL_DEFINITIONS",
    "OtelEncodeOptions",
    "check",
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "decode_stream",
    "encode",
    "encode_output",
]
