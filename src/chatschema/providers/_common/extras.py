"""Keys kept in ``extras[<format>]`` that another format cannot carry.

A decoder keeps what the neutral model has no field for under its own format's
name (a request's ``store``, an assistant message's fine-tuning ``weight``, the
``system`` of a request read as the wrong format ...), and only that format's
encoder writes it back. Encoded for another format such a key would be lost:
:func:`foreign_extras` finds each one, with its pointer, so that ``check`` reports
it and ``encode`` applies the ``unsupported`` policy to it.

Not every key of ``extras[<format>]`` is data. :data:`LOCAL_EXTRAS` lists, per
format, the keys that only describe the source's wire form or identity (key order,
the shape content came in, item ids, thought signatures, cache markers, a value
said explicitly that equals the default): left behind, nothing is lost.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from chatschema_models.content import (
    CompactionBlock,
    NonStandardBlock,
    ReasoningBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
)
from chatschema_models.conversation import Conversation

from chatschema.providers._codec import PROVIDERS

__all__ = [
    "APPLICATION_EXTRAS",
    "DEFAULTS",
    "HISTORY_KEYS",
    "KEYWORD",
    "LOCAL_EXTRAS",
    "NOTES",
    "TRANSPORT_KEYS",
    "ForeignKey",
    "foreign_extras",
]

KEYWORD = "foreign_extras"
"""The keyword of the problem a foreign key gives (``check``, the error's problems)."""

TRANSPORT_KEYS = frozenset({"stream", "stream_options", "anthropic_version"})
"""Request keys about the call, not the conversation: the caller's transport says
them for the target (its SDK's ``stream=``, Gemini's and Converse's URL path)."""

LOCAL_EXTRAS: Mapping[str, frozenset[str]] = {
    # Each set holds the codec's own markers (see its wire.py) and identity keys.
    "openai_chat": frozenset(
        {
            # markers: message, call, tool, block, request (openai_chat/wire.py)
            "role",
            "content_shape",
            "send_name",
            "arguments",
            "type",
            "no_type",
            "no_parameters",
            "as_field",
            "field",
            "bare_base64",
            "bare_url",
            "part",
            "output_limit_key",
            "stop_form",
            "explicit_auto",
            "sent",
            # OpenRouter's reasoning_details (openai_chat/details.py)
            "detail",
            "details_text",
        }
    ),
    "openai_responses": frozenset(
        {
            # markers (openai_responses/wire.py)
            "integral_settings",
            "no_strict",
            "positions",
            "key_order",
            "part_key_order",
            "no_detail",
            "no_input",
            "explicit_auto",
            "kind",
            "string_input",
            "role",
            "request_echo",
            "arguments",
            # identity: item ids and statuses, an item's or output part's other keys
            "id",
            "status",
            "item",
            "part",
        }
    ),
    "anthropic": frozenset(
        {
            # markers (anthropic/wire.py BOOKKEEPING; a user turn's first message;
            # is_error kept only when false, said explicitly)
            "top_level_sampling",
            "legacy_output_format",
            "new_message",
            "is_error",
            # cache markers and citations are presentation (docs/providers.md)
            "cache_control",
            "citations",
        }
    ),
    "gemini": frozenset(
        {
            # markers (gemini/wire.py CONTROL_KEYS, BOOKKEEPING, PARTS_FORM)
            "synthesized_id",
            "id",
            "id_absent",
            "args_absent",
            "response",
            "join",
            "empty_text",
            "base64url",
            "name_absent",
            "schema_key",
            "tools_object",
            "tools_empty",
            "parts_object",
            "parts_null",
            "parts_absent",
            "parameters_absent",
            "role",
            # identity: a thought signature goes back to Gemini only
            "thought_signature",
        }
    ),
    "gemini_interactions": frozenset(
        {
            # markers (gemini_interactions/wire.py MARKERS); a result's function name
            # and is_error said false; text annotations are presentation
            "input_form",
            "new_step",
            "step",
            "no_summary",
            "object_result",
            "no_content",
            "parameters",
            "tool",
            "name",
            "is_error",
            "annotations",
        }
    ),
    "bedrock_converse": frozenset(
        {
            # markers (bedrock_converse/wire.py)
            "schema_text",
            "no_messages",
            "blob_text",
            "new_message",
            "in_messages",
            "json",
            "status",  # a result's "success", said explicitly
            # cache markers are presentation (docs/providers.md)
            "cachePoint",
        }
    ),
    # the Chat Completions markers (mistral/translate.py shares that walk), and a
    # tool call's wire position
    "mistral": frozenset(
        {
            *("role", "content_shape", "send_name", "arguments", "type", "no_type"),
            *("no_parameters", "as_field", "field", "bare_base64", "bare_url", "part"),
            *("stop_form", "explicit_auto", "sent", "index"),
        }
    ),
}
"""Per format, the keys of its extras that are no loss when left behind."""
LOCAL_EXTRAS = {**LOCAL_EXTRAS, "open_responses": LOCAL_EXTRAS["openai_responses"]}  # same wire

APPLICATION_EXTRAS = frozenset({"mcp"})
"""Extras of the application's side, never sent to a model (MCP ``annotations`` and
``_meta``): no format carries them, so none is a loss for any target."""

HISTORY_KEYS: Mapping[str, str] = {
    "system": "anthropic or bedrock_converse",
    "contents": "gemini",
    "system_instruction": "gemini",
    "input": "openai_responses",
    "instructions": "openai_responses",
}
"""Request keys that hold another format's history or instructions: one kept in a
conversation's extras says the input was read as the wrong format."""

DEFAULTS: Mapping[tuple[str, str], Any] = {
    # OpenAI fine-tuning, chat format: an assistant message's `weight` is 0 or 1, 1 when
    # absent (the message is trained on); 1 left behind changes nothing
    ("openai_chat", "weight"): 1,
    # Mistral chat completions, AssistantMessage: `prefix` defaults to false (the SDK
    # sends it on every assistant message); false left behind changes nothing
    ("mistral", "prefix"): False,
}
"""Keys whose value, when it is the format's default, is no loss when left behind."""

NOTES: Mapping[tuple[str, str], str] = {
    ("openai_chat", "weight"): "an OpenAI fine-tuning weight: only openai_chat rows carry it",
    (
        "mistral",
        "prefix",
    ): "a Mistral prefix (continue this assistant message): only mistral has it",
}
"""What a kept key is, where that helps to read the problem."""

_SKIPPED_BLOCKS = (
    ReasoningBlock,
    CompactionBlock,
    NonStandardBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
)
"""Blocks another policy decides on as a whole (opaque replay, unsupported content)."""

ForeignKey = tuple[str, str, str]
"""A key that cannot reach the target: (JSON pointer, source format, key)."""


_NO_DEFAULT = object()


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _keys(extras: Any, where: str, target: str) -> Iterator[ForeignKey]:
    """The foreign keys of one model's ``extras`` (``where``: the model's pointer)."""
    for source, kept in extras.items():
        if (
            source == target
            or source not in PROVIDERS
            or source in APPLICATION_EXTRAS
            or not isinstance(kept, dict)
        ):
            continue
        local = LOCAL_EXTRAS.get(source, frozenset())
        for key, value in kept.items():
            if key in local or key in TRANSPORT_KEYS or value is None or value == [] or value == {}:
                continue
            default = DEFAULTS.get((source, key), _NO_DEFAULT)
            if value == default and type(value) is type(default):
                continue
            yield f"{where}/extras/{_escaped(source)}/{_escaped(key)}", source, key


def foreign_extras(
    conversation: Conversation, target: str, only: Sequence[int] | None = None
) -> list[ForeignKey]:
    """Every key of another format's extras that an encode for ``target`` leaves out.

    Looked at: the conversation, its tool definitions (not another format's hosted
    tools: those are unsupported content as a whole, and so are the entries for them
    an allowed-tools choice keeps), each message, its tool calls and invalid tool
    calls, and its content blocks but reasoning, non-standard and server tool blocks
    (decided on as a whole); ``extras["mcp"]`` is application data, never foreign.
    ``only``: the messages to look at, by index (a walk saw that the others, their
    blocks and calls have no extras); None: every message.
    """
    found: list[ForeignKey] = []
    extras = conversation.extras
    if extras:
        found += _keys(extras, "", target)
    for position, tool in enumerate(conversation.tools or ()):
        if tool.extras and tool.provider in (None, target):
            found += _keys(tool.extras, f"/tools/{position}", target)
    skipped = _SKIPPED_BLOCKS
    messages = conversation.messages
    for index in range(len(messages)) if only is None else only:
        message = messages[index]
        fields = message.__dict__  # the fields' values: read without attribute lookups
        if fields["extras"]:
            found += _keys(fields["extras"], f"/messages/{index}", target)
        content = fields["content"]
        if content.__class__ is list:
            for position, block in enumerate(content):
                if block.extras and not isinstance(block, skipped):
                    found += _keys(block.extras, f"/messages/{index}/content/{position}", target)
        calls = fields.get("tool_calls")
        if calls:
            for position, call in enumerate(calls):
                if call.extras:
                    found += _keys(call.extras, f"/messages/{index}/tool_calls/{position}", target)
        invalid_calls = fields.get("invalid_tool_calls")
        if invalid_calls:
            for position, invalid in enumerate(invalid_calls):
                if invalid.extras:
                    at = f"/messages/{index}/invalid_tool_calls/{position}"
                    found += _keys(invalid.extras, at, target)
    return found
