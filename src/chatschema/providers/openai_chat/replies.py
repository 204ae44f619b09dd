"""What both reply writers share: ids, finish reasons, usage, tool calls, citations, audio.

The mirror of what ``decode.py``, ``usage.py`` and ``stream.py`` read from a
``ChatCompletion`` and its chunks; :mod:`.response` writes whole responses with
these pieces and :mod:`.events` streamed ones.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from chatschema_models.content import (
    AudioBlock,
    Citation,
    ContentBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    ReasoningBlock,
)
from chatschema_models.message import AssistantMessage
from chatschema_models.tool import InvalidToolCall, ToolCall
from chatschema_models.usage import Usage

from chatschema.providers._common import extras_of, non_standard_what
from chatschema.providers._common.respond import Reply
from chatschema.providers._openai import citation_fields, custom_input
from chatschema.providers.openai_chat.request import call_arguments, checked, merge_kept
from chatschema.providers.openai_chat.wire import (
    CALL_MARKERS,
    FINISH_REASONS,
    INPUT_DETAILS,
    NAME,
    OUTPUT_DETAILS,
)

__all__ = [
    "CHOICE_FIELDS",
    "HEAD_FIELDS",
    "PLACED",
    "annotations_of",
    "audio_object",
    "block_what",
    "call_id",
    "finish_reason",
    "invalid_call",
    "metadata_of",
    "openai_made",
    "reasoning_text",
    "response_id",
    "tool_call",
    "wire_usage",
]

CHOICE_FIELDS: Final = frozenset(
    {
        "logprobs",  # OpenAI
        "native_finish_reason",  # OpenRouter
        "content_filter_results",  # Azure OpenAI
        "stop_reason",  # vLLM
        "token_ids",  # vLLM
        "routed_experts",  # vLLM
        "matched_stop",  # SGLang
        "seed",  # Together, Hugging Face
    }
)
"""Response metadata that sits on the choice rather than on the response.

``decode_response`` keeps a response's and its first choice's unknown keys in the
one ``response_metadata`` namespace: these names (the ones servers put on a choice)
go back on the choice, every other one on the response."""

PLACED: Final = frozenset({"created", "usage", "audio", "index", "choices", "id", "model"})
"""Metadata keys with a place of their own (not copied to the response as they are)."""

HEAD_FIELDS: Final = ("system_fingerprint", "service_tier")
"""Metadata every streamed chunk repeats (API reference: ``ChatCompletionChunk``)."""


def response_id(reply: Reply) -> str:
    """A made response id: ``chatcmpl-`` and 29 alphanumerics (API reference examples)."""
    return reply.new_id("chatcmpl-", 29)


def call_id(reply: Reply) -> str:
    """A made tool-call id: ``call_`` and 24 alphanumerics (Function calling guide)."""
    return reply.new_id("call_", 24)


def audio_id(reply: Reply) -> str:
    """A made audio output id: ``audio_`` and 32 hex digits (Audio guide examples)."""
    return reply.new_id("audio_", 32, "0123456789abcdef")


def metadata_of(message: Any) -> dict[str, Any]:
    """``response_metadata["openai_chat"]`` of a message or chunk (empty if none)."""
    metadata = getattr(message, "response_metadata", None)
    if not metadata:
        return {}
    value = metadata.get(NAME)
    return value if isinstance(value, dict) else {}


# ------------------------------------------------------------------ finish reason

_WIRE_REASONS: Final = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
}


def finish_reason(
    finish: str | None, raw: str | None, provider: str | None, has_calls: bool
) -> str | None:
    """The wire ``finish_reason``.

    The raw reason when it is this format's (and says what the neutral one says);
    else the neutral one, ``paused``, ``error`` and ``other`` as ``stop`` (the SDK's
    ``Choice.finish_reason`` takes no other word). A reply decoded from this format
    without one had none (``None``); any other message gets the reason its content
    implies: the API always sends one.
    """
    if (
        raw is not None
        and provider in (None, NAME)
        and (finish is None or FINISH_REASONS.get(raw, "other") == finish)
    ):
        return raw
    if finish is not None:
        return _WIRE_REASONS.get(finish, "stop")
    if provider == NAME:
        return None
    return "tool_calls" if has_calls else "stop"


# ------------------------------------------------------------------ usage

_INPUT_WIRE: Final = {neutral: wire for wire, neutral in INPUT_DETAILS.items()}
_OUTPUT_WIRE: Final = {neutral: wire for wire, neutral in OUTPUT_DETAILS.items()}
_DETAILS: Final = (
    ("prompt_tokens_details", "input_token_details", _INPUT_WIRE),
    ("completion_tokens_details", "output_token_details", _OUTPUT_WIRE),
)


def wire_usage(usage: Usage | None, kept: Any) -> dict[str, Any] | None:
    """A ``CompletionUsage``: the neutral counts, and what ``decode_usage`` kept aside.

    ``kept`` is ``response_metadata["openai_chat"]["usage"]``: the fields the neutral
    usage has no place for, or the whole usage when its counts were not counts.
    """
    if kept is None and usage is not None:
        inputs, outputs = usage.input_token_details, usage.output_token_details
        if inputs is None and outputs is None:  # the common usage: the three counts
            total = usage.total_tokens
            return {
                "prompt_tokens": usage.input_tokens,
                "completion_tokens": usage.output_tokens,
                "total_tokens": usage.input_tokens + usage.output_tokens
                if total is None
                else total,
            }
    rest: dict[str, Any] = dict(kept) if isinstance(kept, Mapping) else {}
    if usage is None:
        return checked(rest, "usage metadata") if rest else None
    total = usage.total_tokens
    wire: dict[str, Any] = {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens if total is None else total,
    }
    for key, field, names in _DETAILS:
        details = getattr(usage, field)
        counts: dict[str, Any] = {}
        if details is not None:
            for name, value in details.model_dump(exclude_none=True).items():
                counts[names.get(name, name)] = value
        if counts:
            wire[key] = counts
    merge_kept(wire, rest, (), "usage metadata")
    return wire


# ------------------------------------------------------------------ tool calls


def tool_call(call: ToolCall, reply: Reply) -> dict[str, Any]:
    """A ``tool_calls`` entry: a function call, or a custom tool's free-form input.

    The model's exact argument text goes back when it still says the arguments.
    """
    extras = extras_of(call, NAME)
    wire: dict[str, Any]
    text = custom_input(call) if extras.get("type") == "custom" else None
    if text is not None:
        # Function calling guide, "Custom tools": one string, our {"input": ...}
        wire = {"id": call.id, "type": "custom", "custom": {"name": call.name, "input": text}}
    else:
        wire = {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": call_arguments(call, extras)},
        }
        if extras.get("no_type") is True:
            del wire["type"]
    if extras:
        merge_kept(wire, extras, CALL_MARKERS, "tool call extras")
    return wire


def invalid_call(call: InvalidToolCall, reply: Reply) -> dict[str, Any]:
    """An invalid tool call, as the model produced it (an id made when it had none).

    One decoded with an empty id (Gemini's compatibility layer: ``extras.id``)
    goes back with it.
    """
    extras = extras_of(call, NAME)
    given = call.id if call.id is not None else extras.get("id")
    wire: dict[str, Any] = {
        "id": given if isinstance(given, str) else call_id(reply),
        "type": "function",
        "function": {"name": call.name or "", "arguments": call.arguments or ""},
    }
    if extras.get("no_type") is True:
        del wire["type"]
    merge_kept(wire, extras, CALL_MARKERS, "tool call extras")
    return wire


def ordered_calls(message: AssistantMessage, reply: Reply) -> list[dict[str, Any]]:
    """The message's valid and invalid tool calls, in their wire order (``index``)."""
    ordered: list[tuple[int | None, int, dict[str, Any]]] = [
        (call.index, position, tool_call(call, reply))
        for position, call in enumerate(message.tool_calls)
    ]
    offset = len(ordered)
    ordered.extend(
        (bad.index, offset + position, invalid_call(bad, reply))
        for position, bad in enumerate(message.invalid_tool_calls)
    )
    if any(item[0] is not None for item in ordered):
        last = 1 << 62
        ordered.sort(key=lambda item: (item[0] if item[0] is not None else last, item[1]))
    return [item[2] for item in ordered]


# ------------------------------------------------------------------ content pieces


def reasoning_text(block: ReasoningBlock) -> str | None:
    """A reasoning block's text, or its summary joined; None when it has neither."""
    if block.text is not None:
        return block.text
    if block.summary:
        return "\n".join(block.summary)
    return None


def reasoning_field(block: ReasoningBlock) -> str:
    """The message field a reasoning block is written to.

    DeepSeek's ``reasoning_content``; ``reasoning`` (vLLM's newer name) when it
    came that way.
    """
    field = extras_of(block, NAME).get("field") if block.provider in (None, NAME) else None
    return "reasoning" if field == "reasoning" else "reasoning_content"


def opaque_values(block: ReasoningBlock, reply: Reply, index: int | None) -> None:
    """A reasoning block's opaque values, which Chat Completions has no field for.

    (A server's own opaque reasoning, OpenRouter's ``reasoning_details`` say, is
    kept in the message's extras and goes back from there.) Under ``placeholder``
    there is no place for a text either: the value is left out.
    """
    for name, what in (("signature", "signature"), ("encrypted_content", "encrypted content")):
        if getattr(block, name) is not None:
            owner = f"{block.provider} " if block.provider not in (None, NAME) else ""
            reply.unsupported_content(f"a {owner}reasoning {what}", block_index=index)


def annotation(value: Citation | NonStandardAnnotation, reply: Reply, index: int) -> Any:
    """An ``annotations`` entry: a ``url_citation``, or one kept as it came; None if dropped."""
    if isinstance(value, NonStandardAnnotation):
        return checked(value.value, "annotation", 0, index)
    fields = citation_fields(value)
    if fields is None:
        # API reference: a url_citation has url, title, start_index and end_index
        reply.unsupported_content("a citation without url, title and range", block_index=index)
        return None
    extras = extras_of(value, NAME)
    inner = {
        "end_index": fields["end_index"],
        "start_index": fields["start_index"],
        "title": fields["title"],
        "url": fields["url"],
    }
    merge_kept(inner, extras, ("annotation",), "citation extras", 0, index)
    wire: dict[str, Any] = {"type": "url_citation", "url_citation": inner}
    outer = extras.get("annotation")
    if isinstance(outer, Mapping):
        merge_kept(wire, outer, (), "citation extras", 0, index)
    return wire


def annotations_of(
    values: Sequence[Citation | NonStandardAnnotation], reply: Reply, index: int
) -> list[Any]:
    """A text block's annotations on the wire (those the policy drops left out)."""
    out = []
    for value in values:
        wire = annotation(value, reply, index)
        if wire is not None:
            out.append(wire)
    return out


def audio_object(block: AudioBlock, reply: Reply, index: int) -> dict[str, Any] | None:
    """The message's ``audio`` output (``ChatCompletionAudio``); None if the policy drops it.

    ``id``, ``data``, ``expires_at`` and ``transcript`` as decoded (``expires_at``
    and ``transcript`` from the block's extras); audio made elsewhere gets an id,
    an hour's lifetime and an empty transcript (the SDK type requires them).
    """
    if block.base64 is None:
        reply.unsupported_content("audio output by URL or file id", block_index=index)
        return None
    extras = extras_of(block, NAME)
    wire: dict[str, Any] = {"id": block.id or audio_id(reply), "data": block.base64}
    if "expires_at" not in extras:
        wire["expires_at"] = reply.now() + 3600
    if "transcript" not in extras:
        wire["transcript"] = ""
    merge_kept(wire, extras, ("as_field",), "audio extras", 0, index)
    return wire


_OPENAI_MODEL: Final = re.compile(r"(gpt-(?!oss)|o[1-9]|chatgpt-|codex-)")
_ANNOTATIONS_SINCE: Final = 1741651200
"""2025-03-11, when Chat Completions answers began to carry ``annotations`` (web search;
openai-python 1.66)."""


def openai_made(model: str | None, reply_id: str | None, created: Any) -> bool:
    """Whether a reply reads as OpenAI's own, which always has ``annotations`` (``[]``).

    An OpenAI model name, a ``chatcmpl-`` id (or none yet), created (when known)
    since annotations exist. Other servers (vLLM, Groq, OpenRouter ...) leave the
    key out, and an empty list means no annotations (``decode_response`` drops it).
    """
    return (
        model is not None
        and _OPENAI_MODEL.match(model) is not None
        and (reply_id is None or reply_id.startswith("chatcmpl-"))
        and (not isinstance(created, int) or created >= _ANNOTATIONS_SINCE)
    )


def block_what(block: ContentBlock) -> str:
    """A block's kind, for the unsupported-content message."""
    if isinstance(block, NonStandardBlock):
        return non_standard_what(block)
    if isinstance(block, AudioBlock):
        return "audio output by URL or file id" if block.base64 is None else "a second audio output"
    kind = block.type
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} block"
