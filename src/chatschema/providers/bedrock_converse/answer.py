"""What ``encode_response`` and ``encode_stream`` share: blocks, stop reason, usage.

The assistant side of a Converse response is written by the request encoder's own
block writer (:class:`~.encode._Encoder`: one place knows how a block looks on the
wire), run here as :class:`Answer`: the reply options' unsupported policy, blobs as
base64 text (the REST API's JSON, what a server sends), other providers' reasoning
written as text with its opaque values under the policy, invalid tool calls written
with the input they had.
"""

from __future__ import annotations

from typing import Any

from chatschema_models.content import ReasoningBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, Message
from chatschema_models.tool import InvalidToolCall
from chatschema_models.usage import Usage

from chatschema._json import copy_json
from chatschema.errors import ConversionError
from chatschema.providers._common import Options, extras_of, pointer
from chatschema.providers._common.respond import Reply
from chatschema.providers.bedrock_converse.blocks import blob_bytes
from chatschema.providers.bedrock_converse.encode import _Encoder
from chatschema.providers.bedrock_converse.request import NOT_JSON, json_value
from chatschema.providers.bedrock_converse.rules import tool_ids
from chatschema.providers.bedrock_converse.wire import (
    BLOB_TEXT,
    CACHE_COUNTS,
    CACHE_POINT,
    NAME,
    STOP_REASONS,
)

__all__ = [
    "STOP_EVENT_KEYS",
    "TOOL_USE_ID",
    "Answer",
    "metadata_of",
    "stop_reason",
    "top_level",
    "wire_usage",
]

TOOL_USE_ID = ("tooluse_", 22, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
"""A made tool-use id: Bedrock's ``tooluse_`` and 22 base64url characters (the ids of
the API reference's examples and of recorded traffic, ``tooluse_yypYDr71TwCwByoyao4-Vg``)."""

_FINISH = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "content_filtered",
    "error": "malformed_model_output",
}
"""Neutral finish reasons as Converse stop reasons (API reference, ConverseResponse
``stopReason``); ``other`` and none say ``end_turn`` (``tool_use`` with tool calls)."""

_NOT_TOP_LEVEL = frozenset({"usage", "output", "ResponseMetadata", "unknown_deltas"})
"""Keys of ``response_metadata["bedrock_converse"]`` that are no response key: extra
usage counts, ``output``'s and the message's other keys, boto3's ``ResponseMetadata``
(the HTTP headers' request id, not part of the body), a stream's unknown deltas."""

STOP_EVENT_KEYS = frozenset({"additionalModelResponseFields"})
"""Response keys a stream sends in ``messageStop`` (the rest go in ``metadata``)."""


def metadata_of(message: Any) -> dict[str, Any]:
    """``response_metadata["bedrock_converse"]`` of a message or chunk, or ``{}``."""
    kept = message.response_metadata
    if not kept:
        return {}
    ours = kept.get(NAME)
    return ours if isinstance(ours, dict) else {}


def top_level(metadata: dict[str, Any]) -> dict[str, Any]:
    """The response keys kept in a message's metadata (``metrics``, ``trace`` ...)."""
    return {key: copy_json(value) for key, value in metadata.items() if key not in _NOT_TOP_LEVEL}


def stop_reason(raw: str | None, finish: str | None, provider: str | None, has_calls: bool) -> str:
    """``stopReason``: Converse's own as it came, else the neutral reason's."""
    if raw is not None and (provider == NAME or raw in STOP_REASONS):
        return raw
    if finish is not None and finish in _FINISH:
        return _FINISH[finish]
    return "tool_use" if has_calls else "end_turn"


def wire_usage(usage: Usage | None, metadata: dict[str, Any]) -> dict[str, Any]:
    """``TokenUsage``: ``inputTokens`` without the cache reads and writes (Converse).

    The counts Converse has no name for (reasoning, audio) are not written; those a
    decoded response kept (``serverToolUsage``, ``cacheDetails`` ...) go back.
    """
    if usage is not None and usage.input_token_details is None and "usage" not in metadata:
        return {  # the common case: the three counts (no cache counts to take out)
            "inputTokens": max(usage.input_tokens, 0),
            "outputTokens": usage.output_tokens,
            "totalTokens": usage.total_tokens,
        }
    out: dict[str, Any]
    if usage is None:
        out = {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}
    else:
        details = usage.input_token_details
        cached: dict[str, int] = {}
        if details is not None:
            for wire_name, name in CACHE_COUNTS.items():
                value = getattr(details, name)
                if value is not None:
                    cached[wire_name] = value
        plain = max(usage.input_tokens - sum(cached.values()), 0)
        out = {
            "inputTokens": plain,
            "outputTokens": usage.output_tokens,
            "totalTokens": usage.total_tokens,
        }
        out.update(cached)
    extra = metadata.get("usage")
    if isinstance(extra, dict):
        for key, value in extra.items():
            out.setdefault(key, copy_json(value))
    return out


class Answer(_Encoder):
    """The request encoder's assistant-block writer, under the reply options."""

    def __init__(self, reply: Reply, message: AssistantMessage | None = None) -> None:
        options = Options(provider=NAME, unsupported=reply.unsupported, check=False)
        messages: list[Message] = [message] if message is not None else []
        super().__init__(Conversation(messages=messages), options, collect=False)
        self.reply = reply
        if message is not None:
            self.ids = tool_ids(messages)

    def content(self, message: AssistantMessage) -> list[dict[str, Any]]:
        """``output.message.content``: the blocks, tool calls back in place."""
        return self.assistant(message, 0)

    # -------------------------------------------------------------- overrides

    def unsupported(
        self, what: str, message: int, block: int | None = None, *, where: str | None = None
    ) -> str | None:
        """The reply's unsupported policy, naming the block."""
        text = self.reply.unsupported_content(what, block_index=block)
        if text is None:
            self.dropped += 1
        return text

    def blob(self, data: str, extras: dict[str, Any], at: str) -> bytes | str:
        """A blob as base64 text: the REST API's JSON, what the service sends."""
        if not extras.get(BLOB_TEXT) and blob_bytes(data) is None:
            raise ConversionError(f"inline data at {at} is not base64", provider=NAME)
        return data

    def reasoning(self, block: ReasoningBlock, index: int, position: int) -> list[dict[str, Any]]:
        """Reasoning: its text, and its opaque values when they are Converse's own.

        Converse's reasoning is a ``reasoningText`` (text, signature) or a
        ``redactedContent``, never both (API reference, ReasoningContentBlock);
        another provider's signature or encrypted content goes through the policy.
        """
        extras = extras_of(block, NAME) if block.extras else {}
        at = pointer(index, "content", position)
        ours = block.provider is None or block.provider == NAME
        text = block.text
        if text is None and block.summary:
            text = "\n".join(block.summary)
        out: list[dict[str, Any]] = []
        if ours and block.encrypted_content is not None and text is None:
            redacted = {"redactedContent": self.blob(block.encrypted_content, extras, at)}
            return self.cached({"reasoningContent": redacted}, block.cache_control, extras, at)
        if text is not None or (ours and block.signature is not None):
            inner: dict[str, Any] = {"text": text or ""}
            if ours and block.signature is not None:
                inner["signature"] = block.signature
            for key, value in extras.items():
                if key not in (CACHE_POINT, BLOB_TEXT):
                    inner.setdefault(key, value)
            wire = {"reasoningText": inner}
            out = self.cached({"reasoningContent": wire}, block.cache_control, extras, at)
        opaque = block.encrypted_content is not None or (not ours and block.signature is not None)
        if opaque:
            what = (
                "encrypted reasoning beside reasoning text"
                if ours
                else f"{block.provider} reasoning's opaque value"
            )
            placeholder = self.unsupported(what, index, position)
            if placeholder is not None:
                out.append({"text": placeholder})
        return out

    def invalid_call(
        self, call: InvalidToolCall, index: int, position: int
    ) -> list[dict[str, Any]]:
        """A call whose input is no object: written with that input (any JSON)."""
        extras = extras_of(call, NAME) if call.extras else {}
        value = json_value(call.arguments) if call.arguments is not None else NOT_JSON
        where = call.index
        if not call.name or value is NOT_JSON:
            # API reference, ToolUseBlock: a name and an input (a JSON document)
            return self.refuse("invalid tool call (arguments that are not JSON)", index, where)
        call_id = call.id if call.id is not None else self.reply.new_id(*TOOL_USE_ID)
        wire: dict[str, Any] = {
            "toolUseId": self.ids.get(call_id, call_id),
            "name": call.name,
            "input": value,
        }
        for key, item in extras.items():
            if key not in (CACHE_POINT, "input_json"):
                wire.setdefault(key, item)
        at = pointer(index, "invalid_tool_calls", position)
        return self.cached({"toolUse": wire}, None, extras, at)
