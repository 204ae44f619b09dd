"""What the server side's two writers share: parts, usage, finish reasons, metadata.

:class:`PartWriter` writes a model turn's parts as the request encoder does (the
same rules, ``encode.py``), with the reply's unsupported-content policy and the
reasoning rule of responses; :func:`camel` turns what it writes, and what
``decode_response`` kept in ``response_metadata["gemini"]`` (snake_case), into the
REST camelCase spelling the API sends. ``response.py`` (whole responses) and
``events.py`` (streams) build on these.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Mapping
from typing import Any, Final

from chatschema_models.content import ContentBlock, ReasoningBlock
from chatschema_models.message import AssistantMessage
from chatschema_models.tool import InvalidToolCall, ToolCall
from chatschema_models.usage import Usage

from chatschema._json import copy_json
from chatschema.errors import ChatSchemaError
from chatschema.providers._common import Options, content_blocks, invalid_call_what
from chatschema.providers._common.respond import ALPHANUMERIC, Reply
from chatschema.providers.gemini.encode import _Encoder, _merged, _unnamed
from chatschema.providers.gemini.usage import usage_of
from chatschema.providers.gemini.wire import (
    BLOCK_REASON_NUMBERS,
    FINISH_REASON_NUMBERS,
    FINISH_REASONS,
    NAME,
    OPAQUE_KEYS,
    enum_name,
    plain,
)

RESPONSE_ID_ALPHABET: Final = ALPHANUMERIC + "-_"
"""GenerateContentResponse.responseId: 23 characters of URL-safe base64 (as sent)."""

TOP_LEVEL: Final = frozenset({"usage_metadata", "prompt_feedback", "create_time", "model_status"})
"""Fields of a ``GenerateContentResponse`` (google-genai 3.6) that ``decode_response``
keeps in ``response_metadata["gemini"]`` beside the candidate's: every other kept key
goes back on the candidate."""

# FinishReason (ai.google.dev/api/generate-content#FinishReason): the value each neutral
# reason is written as when the message kept none that stands for it
NEUTRAL_REASONS: Final[dict[str, str]] = {
    "stop": "STOP",
    "tool_calls": "STOP",  # Gemini says STOP after function calls too
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
    "error": "MALFORMED_FUNCTION_CALL",
    "paused": "OTHER",
    "other": "OTHER",
}

_MODALITIES: Final = ("audio", "image", "video", "document")
"""Token details that are ``ModalityTokenCount`` entries (usage.usage_of reads them)."""


# ------------------------------------------------------------------------ camelCase


@functools.lru_cache(maxsize=4096)
def camel_key(key: str) -> str:
    """``thought_signature`` -> ``thoughtSignature`` (the REST spelling)."""
    if "_" not in key:
        return key
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def camel(value: Any) -> Any:
    """Snake_case wire data as the REST camelCase data, user data as it is (copied)."""
    if type(value) is dict:
        return {
            camel_key(key): copy_json(item) if key in OPAQUE_KEYS else camel(item)
            for key, item in value.items()
        }
    if type(value) is list:
        return [camel(item) for item in value]
    return value


# ------------------------------------------------------------------------- metadata


class Kept:
    """What ``decode_response`` kept in ``response_metadata["gemini"]``, by place."""

    __slots__ = ("candidate", "content", "others", "reason_number", "top", "usage")

    def __init__(self, metadata: Mapping[str, Any] | None) -> None:
        self.top: dict[str, Any] = {}  # response fields (camelCase), usage aside
        self.candidate: dict[str, Any] = {}  # candidate fields (camelCase)
        self.content: dict[str, Any] = {}  # the content's fields other than parts, role
        self.others: list[Any] = []  # candidates[1:]
        self.usage: dict[str, Any] | None = None  # the raw usageMetadata (camelCase)
        self.reason_number: Any = None  # a finish reason sent as a number
        if not metadata:
            return
        for key, value in metadata.items():
            if key == "usage_metadata" and isinstance(value, dict):
                self.usage = camel(value)
            elif key == "finish_reason":
                self.reason_number = value
            elif key == "content" and isinstance(value, dict):
                self.content = camel(value)
            elif key == "candidates" and isinstance(value, list):
                self.others = camel(value)
            elif key in TOP_LEVEL:
                self.top[camel_key(key)] = camel(value)
            else:
                self.candidate[camel_key(key)] = camel(value)


def kept_of(metadata: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """This format's part of ``response_metadata`` (another provider's is not read)."""
    if not metadata:
        return None
    mine = metadata.get(NAME)
    return mine if isinstance(mine, Mapping) else None


def block_reason(top: Mapping[str, Any]) -> str | None:
    """The block reason of a kept ``promptFeedback`` (a blocked prompt), by name."""
    feedback = top.get("promptFeedback")
    if not isinstance(feedback, dict):
        return None
    return enum_name(feedback.get("blockReason"), BLOCK_REASON_NUMBERS)


def finish_reason(
    neutral: str | None, raw: str | None, number: Any, *, calls: bool
) -> str | int | None:
    """``finishReason`` for a neutral reason: the raw one kept when it stands for it.

    A reason the response sent as a number (``enum-encoding=int``) goes back as that
    number, as long as it still names the raw reason.
    """
    if neutral is None:
        return raw
    if raw is not None:
        normalized = FINISH_REASONS.get(raw, "other")
        if normalized == "stop" and calls:
            normalized = "tool_calls"
        if normalized == neutral or (neutral == "tool_calls" and raw == "STOP"):
            if type(number) is int and enum_name(number, FINISH_REASON_NUMBERS) == raw:
                return number
            return raw
    return NEUTRAL_REASONS.get(neutral, "OTHER")


def create_time(reply: Reply) -> str | None:
    """``createTime`` (Vertex AI's RFC 3339 time) for the ``created`` option, else None.

    The Gemini Developer API sends none: it is written only when asked for.
    """
    if reply.created is None:
        return None
    return _rfc3339(reply.created)


@functools.lru_cache(maxsize=256)
def _rfc3339(created: int) -> str:
    """A Unix time as RFC 3339 text (``strftime`` once per value: calls repeat one)."""
    moment = datetime.datetime.fromtimestamp(created, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# ---------------------------------------------------------------------------- usage


def usage_metadata(usage: Usage, kept: dict[str, Any] | None) -> dict[str, Any]:
    """``usageMetadata`` for a neutral usage: the raw one kept when it reads as it.

    Otherwise the counts ``usage.usage_of`` reads back to the same usage: prompt =
    input less tool-use prompt tokens, candidates = output less thoughts, details by
    modality (``ModalityTokenCount``).
    """
    if kept is not None:
        try:
            if usage_of(_snake_usage(kept)) == usage:
                return copy_json(kept)
        except ChatSchemaError:  # a kept value usage_of refuses: written anew
            pass
    inputs = usage.input_token_details.model_dump() if usage.input_token_details else {}
    outputs = usage.output_token_details.model_dump() if usage.output_token_details else {}
    tool_use = inputs.get("tool_use_prompt")
    thoughts = outputs.get("reasoning")
    out: dict[str, Any] = {
        "promptTokenCount": max(0, usage.input_tokens - (tool_use or 0)),
        "candidatesTokenCount": max(0, usage.output_tokens - (thoughts or 0)),
        "totalTokenCount": usage.total_tokens,
    }
    if inputs.get("cache_read") is not None:
        out["cachedContentTokenCount"] = inputs["cache_read"]
    prompt = _modalities(inputs)
    if prompt:
        out["promptTokensDetails"] = prompt
    candidates = _modalities(outputs)
    if candidates:
        out["candidatesTokensDetails"] = candidates
    if tool_use is not None:
        out["toolUsePromptTokenCount"] = tool_use
    if thoughts is not None:
        out["thoughtsTokenCount"] = thoughts
    return out


def _modalities(details: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"modality": name.upper(), "tokenCount": details[name]}
        for name in _MODALITIES
        if isinstance(details.get(name), int)
    ]


def _snake_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """A camelCase usageMetadata as the snake_case data ``usage_of`` reads."""
    converted: dict[str, Any] = plain(usage)
    return converted


# ---------------------------------------------------------------------------- parts


class PartWriter(_Encoder):
    """A model turn's parts, written as the request encoder writes them (snake_case).

    The differences are those of a response: the reply's unsupported-content policy,
    and reasoning. A reasoning block is a thought part with its text whoever made
    it; its signature goes with it when the block is Gemini's (or says no provider),
    and another provider's signature or encrypted content, which Gemini cannot
    carry, goes through the policy (a placeholder is a text part after the thought).
    """

    def __init__(self, reply: Reply) -> None:
        super().__init__(Options(provider=NAME, check=False), collect=False)
        self.reply = reply

    def unsupported(
        self, what: str, message: int, block: int | None = None, *, where: str | None = None
    ) -> str | None:
        """The reply's policy (the error names the block); a drop is counted."""
        text = self.reply.unsupported_content(what, block_index=block)
        if text is None:
            self.dropped += 1
        return text

    def message_parts(self, message: AssistantMessage) -> list[dict[str, Any]]:
        """A message's parts in wire order: blocks and calls at their ``index``."""
        blocks = content_blocks(message.content)
        calls: list[ToolCall | InvalidToolCall] = [*message.tool_calls]
        calls += [bad for bad in message.invalid_tool_calls if _unnamed(bad) is not None]
        out: list[dict[str, Any]] = []
        for position, item in _merged(blocks, calls):
            if isinstance(item, ToolCall):
                out.append(self.call(item, 0))
            elif isinstance(item, InvalidToolCall):
                out.append(self.meta({"function_call": _unnamed(item)}, item))
            else:
                out.extend(self.block_parts(item, position))
        for position, invalid in enumerate(message.invalid_tool_calls):
            if _unnamed(invalid) is None:
                out.extend(self.invalid_call(invalid, position))
        return out

    def invalid_call(self, invalid: InvalidToolCall, position: int) -> list[dict[str, Any]]:
        """An invalid call that is no Gemini call kept as it came: the policy."""
        if _unnamed(invalid) is not None:
            return [self.meta({"function_call": _unnamed(invalid)}, invalid)]
        what = invalid_call_what(invalid)
        text = self.unsupported(what, 0, None, where=f"/invalid_tool_calls/{position}")
        return [] if text is None else [{"text": text}]

    def block_parts(self, block: ContentBlock, position: int) -> list[dict[str, Any]]:
        """The parts of one block (none, one, or one and a placeholder)."""
        if isinstance(block, ReasoningBlock):
            return self.reasoning(block, position)
        part = self.block(block, 0, position)
        out = [] if part is None else [part]
        annotations = getattr(block, "annotations", None)
        if annotations:  # (citations: the candidate's citationMetadata, not a part)
            text = self.unsupported("text annotations", 0, position)
            if text is not None:
                out.append({"text": text})
        return out

    def reasoning(self, block: ReasoningBlock, position: int) -> list[dict[str, Any]]:
        """A thought part (Thinking: ``thought: true``) and its signature when Gemini's."""
        text = block.text if block.text is not None else "\n".join(block.summary or [])
        part: dict[str, Any] = {"text": text, "thought": True}
        after: list[dict[str, Any]] = []
        own = block.provider in (None, NAME)
        if block.signature is not None:
            if own:
                part["thought_signature"] = block.signature
            else:
                after += self._opaque(f"{block.provider} reasoning signature", position)
        if block.encrypted_content is not None:
            after += self._opaque("encrypted reasoning content", position)
        if own:
            self.meta(part, block)
        if not text and "thought_signature" not in part:
            return after  # a thought that says nothing Gemini can carry
        return [part, *after]

    def _opaque(self, what: str, position: int) -> list[dict[str, Any]]:
        text = self.unsupported(what, 0, position)
        return [] if text is None else [{"text": text}]


def has_calls(message: AssistantMessage) -> bool:
    """Whether the message's parts hold function calls (STOP then means tool_calls)."""
    return bool(message.tool_calls) or any(
        _unnamed(bad) is not None for bad in message.invalid_tool_calls
    )
