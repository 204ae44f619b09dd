"""The plumbing every provider codec shares.

A codec package (``chatschema.providers.<format>``) is built on these pieces, so
that it holds only what is particular to its wire format:

- :mod:`.options`: the keyword options of ``encode``/``check``, resolved once;
- :mod:`.guards`: the guards around every verb (runaway nesting, JSON text);
- :mod:`.reader`: :class:`Reader`, which reads payloads for one provider and fails
  with located errors, and the extras helpers (``leftover``, ``merge_extras``);
- :mod:`.content`: input coercion, text, inline data and data URLs, extras;
- :mod:`.tools`: tool-argument text, hosted tools, tools written as text;
- :mod:`.extras`: the keys of another format's extras a target cannot carry;
- :mod:`.checks`: pointers, tool pairing, :class:`EncodePass` (``check`` is the
  encoder in collect mode) and the error ``encode`` raises;
- :mod:`.shapes`: the error for input without a history, naming the format it looks like;
- :mod:`.sse`: server-sent events, the body every streaming API answers with.

Every name is importable from here. The verbs each codec offers are in the
:class:`~chatschema.providers.Codec` protocol (``providers/_protocol.py``).
"""

from __future__ import annotations

from chatschema._arguments import json_text, parse_arguments
from chatschema.providers._codec import PROVIDERS, ProviderName
from chatschema.providers._common.checks import (
    EncodePass,
    ToolPairing,
    conversed,
    invalid_call_what,
    message_index,
    no_messages,
    non_standard_what,
    pointer,
    raise_problems,
    structural_error,
    tool_pairing_problems,
)
from chatschema.providers._common.content import (
    content_blocks,
    data_url,
    extras_of,
    inline_data,
    joined_text,
    parse_data_url,
    set_extras,
    to_conversation,
)
from chatschema.providers._common.extras import LOCAL_EXTRAS, foreign_extras
from chatschema.providers._common.guards import (
    decoder,
    depth_error,
    guarded,
    loads,
    too_deep_error,
)
from chatschema.providers._common.options import (
    ContentFormat,
    EncodeOptions,
    Options,
    ReasoningPolicy,
    SystemRole,
    UnsupportedPolicy,
)
from chatschema.providers._common.reader import (
    Reader,
    as_json,
    describe,
    is_count,
    leftover,
    merge_extras,
    merge_value,
)
from chatschema.providers._common.shapes import looks_like, no_history
from chatschema.providers._common.tools import (
    application_tools,
    arguments_text,
    foreign_tool_problems,
    is_foreign_tool,
    sendable_tools,
    tool_call_as_text,
    tool_result_as_text,
    tools_as_text,
)

__all__ = [
    "PROVIDERS",
    "ContentFormat",
    "EncodeOptions",
    "LOCAL_EXTRAS",
    "EncodePass",
    "Options",
    "ProviderName",
    "Reader",
    "ReasoningPolicy",
    "SystemRole",
    "ToolPairing",
    "UnsupportedPolicy",
    "application_tools",
    "arguments_text",
    "as_json",
    "content_blocks",
    "conversed",
    "data_url",
    "decoder",
    "depth_error",
    "describe",
    "extras_of",
    "foreign_extras",
    "foreign_tool_problems",
    "guarded",
    "inline_data",
    "invalid_call_what",
    "is_count",
    "is_foreign_tool",
    "joined_text",
    "json_text",
    "leftover",
    "loads",
    "looks_like",
    "merge_extras",
    "merge_value",
    "no_messages",
    "non_standard_what",
    "no_history",
    "message_index",
    "parse_arguments",
    "parse_data_url",
    "pointer",
    "raise_problems",
    "sendable_tools",
    "set_extras",
    "structural_error",
    "to_conversation",
    "too_deep_error",
    "tool_call_as_text",
    "tool_pairing_problems",
    "tool_result_as_text",
    "tools_as_text",
]
