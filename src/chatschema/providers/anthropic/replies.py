"""What a written response and a written stream share: blocks, usage, stop reason.

The mirror of :mod:`.decode`'s response readers and :mod:`.blocks`: each writer puts
back on the wire what the reader took off it (extras included), so that
``decode_response(encode_response(m))`` is ``m``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

from chatschema_models.content import (
    Citation,
    CompactionBlock,
    ContentBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
)
from chatschema_models.tool import InvalidToolCall, ToolCall
from chatschema_models.usage import Usage

from chatschema.providers._common import extras_of, non_standard_what
from chatschema.providers._common.respond import Reply
from chatschema.providers.anthropic.blocks import COMPACTION_FIELDS
from chatschema.providers.anthropic.request import citation_wire
from chatschema.providers.anthropic.wire import BLOCK_TYPES, FINISH_REASONS, NAME, SERVER_TOOLS

# Messages API ids (the "Create a Message" examples; recorded: msg_01 + 22, toolu_01 +
# 22, srvtoolu_01 + 22 characters of [A-Za-z0-9]).
MESSAGE_ID: Final = "msg_01"
TOOL_USE_ID: Final = "toolu_01"
SERVER_TOOL_USE_ID: Final = "srvtoolu_01"
ID_LENGTH: Final = 22

# Keys of response_metadata["anthropic"] that are top-level keys of a response (SDK
# 2.14 ``Message``, and the beta's ``context_management``); :func:`.decode.usage` puts
# every other usage key (service_tier, server_tool_use, ...) there too, so the rest
# goes back into ``usage``.
TOP_LEVEL: Final = frozenset(
    {"stop_sequence", "stop_details", "container", "diagnostics", "context_management"}
)
UNKNOWN_DELTAS: Final = "unknown_deltas"
"""Stream bookkeeping of :mod:`.stream`: deltas of types it does not know."""
# The neutral finish reasons as stop reasons (the inverse of wire.FINISH_REASONS).
STOP_REASONS: Final = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "paused": "pause_turn",
    "content_filter": "refusal",
}
_INPUT_DETAILS: Final = frozenset({"audio", "cache_read", "cache_creation"})


def dumps_text(value: Any) -> str:
    """JSON text of ``value`` as the API streams it (compact, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# ================================================================ message level


def metadata_of(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """The Anthropic part of ``response_metadata`` (empty if none)."""
    if not metadata:
        return {}
    value = metadata.get(NAME)
    return value if isinstance(value, dict) else {}


def split_metadata(metadata: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Anthropic response metadata as (top-level response keys, usage keys)."""
    top: dict[str, Any] = {}
    usage: dict[str, Any] = {}
    for key, value in metadata.items():
        if key == UNKNOWN_DELTAS:
            continue
        (top if key in TOP_LEVEL else usage)[key] = value
    return top, usage


def stop_reason(
    raw: str | None, finish: str | None, provider: str | None, stop_sequence: Any
) -> str | None:
    """The ``stop_reason``: the raw one Anthropic sent, else the neutral one mapped.

    Another provider's raw reason (``"stop"``, ``"STOP"`` ...) is not Anthropic's:
    its neutral reason is mapped instead; ``error`` and ``other`` have no stop reason.
    """
    if raw is not None and (provider == NAME or raw in FINISH_REASONS):
        return raw
    if finish == "stop" and isinstance(stop_sequence, str):
        return "stop_sequence"
    return STOP_REASONS.get(finish) if finish is not None else None


def usage_wire(usage: Usage | None, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The ``usage`` object: counts without the cache reads and writes, then the rest.

    Messages API, "Prompt caching": ``input_tokens`` counts only the uncached part
    (the neutral count adds the cache counts back: undone here). Input details other
    than audio and the two cache counts are the ``cache_creation`` breakdown.
    """
    if usage is None:
        wire: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0}
        wire.update(extra)
        return wire
    details = usage.input_token_details
    output = usage.output_token_details
    if details is None and output is None and not extra:  # the common usage: two counts
        given = usage.input_tokens
        return {"input_tokens": given if given > 0 else 0, "output_tokens": usage.output_tokens}
    read = details.cache_read if details is not None else None
    creation = details.cache_creation if details is not None else None
    uncached = usage.input_tokens - (read or 0) - (creation or 0)
    wire = {"input_tokens": max(uncached, 0)}
    if creation is not None:
        wire["cache_creation_input_tokens"] = creation
    if read is not None:
        wire["cache_read_input_tokens"] = read
    if details is not None and details.model_extra:
        breakdown = {k: v for k, v in details.model_extra.items() if k not in _INPUT_DETAILS}
        if breakdown:
            wire["cache_creation"] = breakdown
    wire["output_tokens"] = usage.output_tokens
    if output is not None and output.reasoning is not None:
        wire["output_tokens_details"] = {"thinking_tokens": output.reasoning}
    wire.update(extra)
    return wire


# ======================================================================= blocks


def with_extras(wire: dict[str, Any], model: Any) -> dict[str, Any]:
    """Add the keys a reader kept in ``extras["anthropic"]`` (those not written)."""
    if model.extras:
        for key, value in extras_of(model, NAME).items():
            if key not in wire:
                wire[key] = value
    return wire


def citations(block: TextBlock, reply: Reply, position: int) -> list[dict[str, Any]]:
    """A text block's annotations as Anthropic citations; others go to the policy.

    Under ``"drop"`` and ``"placeholder"`` an annotation that is not Anthropic's is
    left out (a citation has no text form).
    """
    out: list[dict[str, Any]] = []
    for annotation in block.annotations or ():
        wire = citation_wire(annotation)
        if wire is None:
            reply.unsupported_content(_annotation_name(annotation), block_index=position)
        else:
            out.append(wire)
    return out


def _annotation_name(annotation: Citation | NonStandardAnnotation) -> str:
    kind = getattr(annotation, "type", "annotation")
    return f"{kind} annotation (not an Anthropic citation)"


def text_wire(block: TextBlock | RefusalBlock, reply: Reply, position: int) -> dict[str, Any]:
    """A whole ``text`` block (a refusal is text too: its stop reason says the rest)."""
    wire: dict[str, Any] = {"type": "text", "text": block.text}
    if isinstance(block, TextBlock) and block.annotations is not None:
        wire["citations"] = citations(block, reply, position)
    return with_extras(wire, block)


def foreign(block: ContentBlock) -> bool:
    """Whether a block is marked as another provider's."""
    provider = getattr(block, "provider", None)
    return provider is not None and provider != NAME


def reasoning_text(block: ReasoningBlock) -> str:
    """The thinking text of a reasoning block (its summary when it has no text)."""
    if block.text is not None:
        return block.text
    return "\n\n".join(block.summary or ())


def reasoning_wire(block: ReasoningBlock, reply: Reply, position: int) -> Iterator[dict[str, Any]]:
    """A ``thinking`` or ``redacted_thinking`` block, and a placeholder if one applies.

    Anthropic's (or unmarked) opaque values go back: the signature, or the redacted
    data. Another provider's signature or encrypted content goes to the policy; its
    text is written as thinking (with the empty signature the API's stream starts
    with).
    """
    placeholder = None
    signature = block.signature
    if foreign(block) and (signature is not None or block.encrypted_content is not None):
        placeholder = reply.unsupported_content(
            f"{block.provider} reasoning signature or encrypted content", block_index=position
        )
        signature = None
    elif block.encrypted_content is not None and signature is None and not block.text:
        wire = {"type": "redacted_thinking", "data": block.encrypted_content}
        yield with_extras(wire, block)
        return
    text = reasoning_text(block)
    if text or signature is not None or placeholder is None:
        wire = {"type": "thinking", "thinking": text, "signature": signature or ""}
        yield with_extras(wire, block)
    if placeholder is not None:
        yield {"type": "text", "text": placeholder}


def server_call_ours(block: ServerToolCallBlock) -> bool:
    """Whether a server tool call is Anthropic's (as :mod:`.encode` decides it)."""
    if block.provider not in (None, NAME):
        return False
    return block.provider == NAME or NAME in (block.extras or {}) or block.name in SERVER_TOOLS


def non_standard_ours(block: NonStandardBlock) -> bool:
    """Whether a non-standard block is an Anthropic block (as :mod:`.encode` decides it)."""
    kind = block.value.get("type")
    return isinstance(kind, str) and (kind in BLOCK_TYPES or NAME in (block.extras or {}))


def block_wire(
    block: ContentBlock, reply: Reply, position: int, new_id: str | None = None
) -> list[dict[str, Any]]:
    """A content block as whole wire blocks (none when the policy drops it).

    ``new_id``: the id of a server tool call that has none.
    """
    if isinstance(block, (TextBlock, RefusalBlock)):
        return [text_wire(block, reply, position)]
    if isinstance(block, ReasoningBlock):
        return list(reasoning_wire(block, reply, position))
    wire: dict[str, Any]
    if isinstance(block, ServerToolCallBlock) and server_call_ours(block):
        wire = {
            "type": "server_tool_use",
            "id": block.id if block.id is not None else new_id,
            "name": block.name,
            "input": block.arguments if block.arguments is not None else {},
        }
        return [with_extras(wire, block)]
    if isinstance(block, ServerToolResultBlock):
        kind = extras_of(block, NAME).get("type")
        if isinstance(kind, str) and not foreign(block):
            wire = {"type": kind, "tool_use_id": block.tool_call_id}
            if "output" in block.model_fields_set:
                wire["content"] = block.output
            return [with_extras(wire, block)]
    if isinstance(block, NonStandardBlock) and non_standard_ours(block):
        return [dict(block.value)]
    if isinstance(block, CompactionBlock) and not foreign(block):
        wire = {"type": "compaction"}
        for key, field in COMPACTION_FIELDS:
            if getattr(block, field) is not None:
                wire[key] = getattr(block, field)
        return [with_extras(wire, block)]
    return refused(block, reply, position)


def refused(block: ContentBlock, reply: Reply, position: int) -> list[dict[str, Any]]:
    """The policy for a block a response cannot carry: a placeholder text, or nothing."""
    if isinstance(block, NonStandardBlock):
        what = non_standard_what(block)
    elif isinstance(block, (ServerToolCallBlock, ServerToolResultBlock)):
        what = f"{block.type} block of another provider"
    else:
        what = f"{block.type} block"
    text = reply.unsupported_content(what, block_index=position)
    return [] if text is None else [{"type": "text", "text": text}]


def tool_use_wire(call: ToolCall) -> dict[str, Any]:
    """A ``tool_use`` block, with what its reader kept in extras (``caller`` ...)."""
    wire = {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
    return with_extras(wire, call)


def invalid_tool_use_wire(call: InvalidToolCall, reply: Reply) -> dict[str, Any] | None:
    """An invalid call back as the ``tool_use`` it was read from, if it can be.

    :func:`.blocks.tool_use` reads a ``tool_use`` whose ``input`` is JSON but not an
    object as an invalid call with that JSON as its arguments; other invalid calls
    (arguments that are not JSON, no id) go to the policy.
    """
    try:
        value = json.loads(call.arguments) if call.arguments is not None else None
    except ValueError:
        value = None
    if call.id is None or call.name is None or call.arguments is None or value is None:
        text = reply.unsupported_content("invalid tool call", block_index=call.index)
        return None if text is None else {"type": "text", "text": text}
    wire = {"type": "tool_use", "id": call.id, "name": call.name, "input": value}
    return with_extras(wire, call)
